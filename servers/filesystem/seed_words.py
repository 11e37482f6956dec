"""What the seed draws its text from: users and groups, topics, sentence parts, products, services, recipes,
albums and a word list."""

from __future__ import annotations

USERS = (  # username, uid, full name, home, shell
    ("root", 0, "root", "/root", "/bin/bash"),
    ("maya", 1000, "Maya Lindqvist", "/home/maya", "/bin/bash"),
    ("sam", 1001, "Sam Okafor", "/home/sam", "/bin/bash"),
    ("alex", 1002, "Alex Rivera", "/home/alex", "/bin/bash"),
    ("www-data", 33, "www-data", "/var/www", "/usr/sbin/nologin"),
)
GROUPS = (
    ("root", 0),
    ("adm", 4),
    ("wheel", 10),
    ("www-data", 33),
    ("maya", 1000),
    ("sam", 1001),
    ("alex", 1002),
    ("team", 2000),
)
MEMBERS = (
    ("root", "root"),
    ("wheel", "root"),
    ("maya", "maya"),
    ("wheel", "maya"),
    ("team", "maya"),
    ("sam", "sam"),
    ("team", "sam"),
    ("adm", "sam"),
    ("alex", "alex"),
    ("www-data", "www-data"),
)
CAPACITY = 512 * 1024 * 1024
HOST = "prove-dev-01"

TOPICS = (
    "Q3 roadmap",
    "hiring plan",
    "vendor review",
    "database migration",
    "office move",
    "security audit",
    "customer onboarding",
    "pricing update",
    "API redesign",
    "mobile release",
    "incident review",
    "budget planning",
    "design system",
    "data retention",
    "on-call rotation",
)
SUBJECTS = (
    "The team",
    "Sam",
    "Alex",
    "Finance",
    "The platform group",
    "Our biggest customer",
    "The new intern",
    "Marketing",
    "Support",
    "The vendor",
    "Legal",
    "The mobile squad",
)
VERBS = (
    "agreed to postpone",
    "wants to prioritise",
    "raised concerns about",
    "finished a first draft of",
    "asked for numbers on",
    "will own",
    "is still blocked on",
    "proposed simplifying",
    "signed off on",
    "needs more time for",
    "benchmarked",
    "started reviewing",
)
OBJECTS = (
    "the billing export",
    "the staging cluster",
    "the onboarding checklist",
    "the Postgres upgrade",
    "the quarterly report",
    "the retry logic",
    "the new pricing page",
    "the SSO integration",
    "the backup schedule",
    "the search index",
    "the data warehouse",
    "the release notes",
    "the customer survey",
    "the CI pipeline",
    "the load balancer config",
)
TAILS = (
    "before the end of the month",
    "after the holiday freeze",
    "once the contract is signed",
    "this sprint",
    "pending a security review",
    "with help from the vendor",
    "if the budget allows",
    "next quarter",
    "as a stretch goal",
    "in parallel with the migration",
)
ROOMS = ("Fjord room", "Video call", "Cafe corner", "Board room", "Room 4B")
REGIONS = ("North", "South", "East", "West", "Central")
FIELD_NAMES = ("id", "name", "sku", "quantity", "price", "supplier_id", "status", "created_at", "email")
PRODUCTS = (
    ("Trail Backpack", 89.0),
    ("Insulated Bottle", 24.5),
    ("Camp Stove", 64.0),
    ("Headlamp", 19.99),
    ("Rain Jacket", 129.0),
    ("Hiking Poles", 54.0),
    ("Sleeping Pad", 79.0),
    ("Water Filter", 39.5),
    ("Tent 2P", 249.0),
    ("Merino Socks", 16.0),
)
EXPENSES = (
    ("groceries", ("Whole Grocer", "Farmers market", "Trader Joe's")),
    ("rent", ("Monthly rent",)),
    ("utilities", ("City Power & Light", "Water bill", "Internet - Fiberlink")),
    ("transport", ("Metro Transit pass", "Shell Station", "Uber")),
    ("dining", ("Blue Bottle Cafe", "Thai Orchid", "Pizza night")),
    ("health", ("Willow Pharmacy", "Gym membership")),
    ("entertainment", ("Netflix", "Spotify", "Concert tickets")),
    ("travel", ("Zephyr Airlines", "Hotel Lisboa", "Yosemite lodge")),
)
SERVICES = (
    (
        "systemd[1]",
        (
            "Started Daily apt download activities.",
            "Starting Cleanup of Temporary Directories...",
            "Finished Cleanup of Temporary Directories.",
            "Started Session {n} of user maya.",
            "Reloading nginx.service...",
            "Started Rotate log files.",
        ),
    ),
    ("CRON[{pid}]", ("(maya) CMD (/home/maya/projects/scripts/backup.sh)", "(root) CMD (run-parts /etc/cron.hourly)")),
    (
        "sshd[{pid}]",
        (
            "Accepted publickey for maya from 192.168.1.{n} port 5{pid} ssh2",
            "Received disconnect from 192.168.1.{n}",
            "Invalid user admin from 203.0.113.{n} port 4{pid}",
        ),
    ),
    (
        "kernel",
        (
            "[UFW BLOCK] IN=eth0 SRC=198.51.100.{n} DST=10.0.0.5 PROTO=TCP DPT=23",
            "EXT4-fs (sda1): re-mounted. Opts: errors=remount-ro",
        ),
    ),
    ("dockerd[{pid}]", ("container {hex} health_status: healthy", "ignoring event module=libcontainerd")),
    ("nginx[{pid}]", ("signal process started",)),
)
ENDPOINTS = (
    "/api/items",
    "/api/items/{n}",
    "/api/orders",
    "/api/orders/{n}",
    "/api/suppliers",
    "/health",
    "/login",
    "/static/app.js",
    "/static/style.css",
    "/favicon.ico",
)
AGENTS = (
    "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0",
    "curl/8.5.0",
    "python-requests/2.32.3",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15",
)
BLOG = (
    ("why-i-moved-my-notes-to-plain-text", "Why I moved my notes to plain text"),
    ("a-week-in-lisbon", "A week in Lisbon"),
    ("sqlite-is-enough", "SQLite is enough"),
    ("learning-rust-as-a-python-dev", "Learning Rust as a Python developer"),
    ("home-network-rebuild", "Rebuilding my home network"),
    ("sourdough-diary", "A sourdough diary"),
    ("yosemite-in-the-rain", "Yosemite in the rain"),
    ("tiny-cli-tools", "Tiny CLI tools I use every day"),
    ("reading-2025", "What I read in 2025"),
    ("on-call-without-burnout", "On-call without burnout"),
    ("testing-data-pipelines", "Testing data pipelines"),
    ("my-dotfiles", "A tour of my dotfiles"),
)
RECIPES = (
    (
        "shakshuka",
        "Shakshuka",
        ("4 eggs", "1 can crushed tomatoes", "1 red pepper", "1 onion", "2 cloves garlic", "1 tsp cumin", "feta"),
    ),
    (
        "banana-bread",
        "Banana bread",
        ("3 ripe bananas", "75 g melted butter", "150 g sugar", "1 egg", "190 g flour", "1 tsp baking soda"),
    ),
    (
        "green-curry",
        "Thai green curry",
        ("400 ml coconut milk", "2 tbsp green curry paste", "300 g chicken", "1 aubergine", "Thai basil", "fish sauce"),
    ),
    (
        "pasta-e-ceci",
        "Pasta e ceci",
        ("200 g ditalini", "1 can chickpeas", "1 sprig rosemary", "2 tbsp tomato paste", "parmesan"),
    ),
    (
        "overnight-oats",
        "Overnight oats",
        ("50 g rolled oats", "120 ml milk", "2 tbsp yoghurt", "1 tbsp chia seeds", "berries"),
    ),
    (
        "cardamom-buns",
        "Cardamom buns",
        ("500 g flour", "250 ml milk", "75 g butter", "2 tsp ground cardamom", "7 g dry yeast"),
    ),
    (
        "lentil-soup",
        "Red lentil soup",
        ("250 g red lentils", "1 carrot", "1 onion", "1 tsp turmeric", "1 l vegetable stock", "lemon"),
    ),
    (
        "tacos-al-pastor",
        "Tacos al pastor",
        ("500 g pork shoulder", "3 guajillo chiles", "pineapple", "corn tortillas", "cilantro", "onion"),
    ),
)
ALBUMS = (
    ("2025-lisbon", "Lisbon, PT", "2025-09-"),
    ("2025-yosemite", "Yosemite, CA", "2025-06-"),
    ("2026-family", "Portland, OR", "2026-02-"),
    ("2026-spring-hikes", "Mount Hood, OR", "2026-04-"),
)
CAMERAS = ("Fujifilm X-T5", "iPhone 15 Pro", "Sony A7 IV", "Pixel 8")
PLAYLISTS = (
    ("focus", ("Nils Frahm - Says", "Tycho - Awake", "Bonobo - Kerala", "Jon Hopkins - Open Eye Signal")),
    ("running", ("Daft Punk - Harder Better Faster Stronger", "The Killers - Mr. Brightside", "Lizzo - Good as Hell")),
    ("sunday-morning", ("Norah Jones - Don't Know Why", "Bill Evans - Peace Piece", "Khruangbin - White Gloves")),
    ("road-trip", ("Fleetwood Mac - Dreams", "Tame Impala - The Less I Know the Better", "Toto - Africa")),
)
WORDS = (
    "abandon ability absolute academy account accurate achieve acoustic actor address adjust admire adventure "
    "afford agenda airport album alcohol alert algebra allow almond alpha amateur amazing analyst anchor ancient "
    "animal announce antenna anxiety apology appear approve april arch arena argue armor arrange arrow artist "
    "aspect assault asset athlete atom attack auction august author autumn average avocado awake badge balance "
    "bamboo banana banner barrel basket battle beach beauty believe bench benefit betray beyond bicycle biology "
    "blanket blossom border bottle bounce bracket breeze bridge brisk broccoli bronze bubble budget buffalo "
    "cabin cactus camera canal candle canvas capital captain carbon cargo carpet castle catalog cedar cement "
    "cereal chalk chapter charge cherry chimney circle citizen clarify climate cluster coconut comet compass "
    "concert copper coral cotton cousin crater cricket crystal cupboard curtain cycle dagger damage dawn debate "
    "decade defense delta denim desert detail diamond dinosaur dolphin domain donkey dragon drama drift eagle "
    "echo eclipse elbow elegant embark empire enable engine enigma episode equator erosion essay estate ethics "
    "falcon fantasy feather festival fiber fiction filter fossil fragile galaxy garden garlic gazelle genius "
    "glacier glimpse gospel gravity guitar harbor harvest hazard helmet heron horizon hybrid iceberg impulse "
    "island ivory jacket jaguar jungle kernel kettle ladder lagoon lantern lava lecture legend lemon lizard "
    "lobster lunar magnet mammal mango marble meadow melody mercury meteor mirror monsoon mosaic muffin museum "
    "nebula nectar noodle oasis octopus olive orbit orchard oxygen paddle palace panther parade pepper pigeon "
    "pioneer planet plasma pocket polar pottery prairie prism pumpkin puzzle quarry quartz rabbit radar raven "
    "reef ribbon ritual rocket saddle salmon satellite scatter sequoia shadow sierra silver sketch slogan "
    "spiral squirrel stadium summit sunset tangle temple thunder timber tornado tractor tundra tunnel turtle "
    "umbrella uniform valley vapor velvet venture violin volcano voyage walnut whisper willow window wizard yacht zebra"
).split()
