"""The seed: a small Linux machine ('prove-dev-01') whose main user is maya.

A fixed skeleton of well-known paths (the tool docstrings use them) filled with text generated
from the rng: projects with source code, meeting notes, CSV data, logs, configs, photo metadata,
other users' homes with restrictive modes, a sticky /tmp, a setgid shared directory and archives.
"""

from __future__ import annotations

import posixpath
import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake
from servers.filesystem.formats import archive_encode, archive_size, token

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


class Tree:
    """Collects node rows in memory; parents are created on demand and dir mtimes set from their children."""

    def __init__(self, rng: random.Random, now: datetime) -> None:
        self.rng, self.now = rng, now
        self.nodes: dict[str, list[Any]] = {}

    def when(self, days: int, hours: int = 0) -> str:
        t = self.now - timedelta(minutes=self.rng.randint(hours * 60 + 5, max(hours * 60 + 6, days * 24 * 60)))
        return fake.iso(t.replace(second=self.rng.randint(0, 59), microsecond=0))

    def d(self, path: str, owner: str = "root", group: str | None = None, mode: int = 0o755) -> None:
        if path in self.nodes:
            return
        parent = posixpath.dirname(path) if path != "/" else None
        if parent is not None and parent not in self.nodes:
            self.d(parent, owner, group, 0o755)
        self.nodes[path] = [
            path,
            parent,
            posixpath.basename(path) or "/",
            "dir",
            None,
            None,
            4096,
            0,
            owner,
            group or owner,
            mode,
            fake.iso(self.now - timedelta(days=900)),
        ]

    def _put(self, path: str, row: list[Any]) -> None:
        parent = posixpath.dirname(path)
        if parent not in self.nodes:
            self.d(parent, row[8], row[9])
        self.nodes[path] = row

    def f(
        self,
        path: str,
        content: str,
        owner: str = "maya",
        group: str | None = None,
        mode: int = 0o644,
        days: int = 400,
        hours: int = 0,
        mtime: str | None = None,
    ) -> None:
        self._put(
            path,
            [
                path,
                posixpath.dirname(path),
                posixpath.basename(path),
                "file",
                content,
                None,
                len(content.encode()),
                0,
                owner,
                group or owner,
                mode,
                mtime or self.when(days, hours),
            ],
        )

    def b(
        self,
        path: str,
        size: int,
        owner: str = "maya",
        group: str | None = None,
        mode: int = 0o644,
        days: int = 400,
        mtime: str | None = None,
    ) -> None:
        self._put(
            path,
            [
                path,
                posixpath.dirname(path),
                posixpath.basename(path),
                "file",
                token(path, size),
                None,
                size,
                1,
                owner,
                group or owner,
                mode,
                mtime or self.when(days),
            ],
        )

    def ln(self, path: str, target: str, owner: str = "maya", group: str | None = None) -> None:
        self._put(
            path,
            [
                path,
                posixpath.dirname(path),
                posixpath.basename(path),
                "symlink",
                None,
                target,
                len(target.encode()),
                0,
                owner,
                group or owner,
                0o777,
                self.when(300),
            ],
        )

    def archive(self, path: str, sources: list[str], owner: str = "maya") -> None:
        entries = []
        for src in sources:
            base = posixpath.dirname(src)
            for p in sorted(q for q in self.nodes if q == src or q.startswith(src + "/")):
                n = self.nodes[p]
                entries.append(
                    {
                        "path": p[len(base) :].lstrip("/"),
                        "type": n[3],
                        "content": n[4],
                        "target": n[5],
                        "size": n[6],
                        "binary": n[7],
                        "mode": n[10],
                        "mtime": n[11],
                    }
                )
        content = archive_encode(entries)
        size = archive_size(entries, path.endswith((".gz", ".tgz", ".zip")))
        newest = max(e["mtime"] for e in entries)
        self._put(
            path,
            [
                path,
                posixpath.dirname(path),
                posixpath.basename(path),
                "file",
                content,
                None,
                size,
                1,
                owner,
                owner,
                0o644,
                newest,
            ],
        )

    def finish(self) -> list[list[Any]]:
        self.propagate()
        return [self.nodes[p] for p in sorted(self.nodes)]

    def propagate(self) -> None:
        """A directory's mtime is its newest child's."""
        for path in sorted(self.nodes, key=lambda p: -p.count("/")):
            n = self.nodes[path]
            if n[1] is not None and n[0] != "/":
                parent = self.nodes[n[1]]
                if n[11] > parent[11]:
                    parent[11] = n[11]


def sentence(rng: random.Random) -> str:
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(TAILS)}."


def paragraph(rng: random.Random, n: int = 4) -> str:
    return " ".join(sentence(rng) for _ in range(n))


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """~380 files in ~70 directories, users and groups, the shell state and the volume."""
    t = Tree(rng, now)
    t.d("/")
    for d, mode in (
        ("/bin", 0o755),
        ("/etc", 0o755),
        ("/home", 0o755),
        ("/root", 0o700),
        ("/tmp", 0o1777),
        ("/var", 0o755),
        ("/var/log", 0o755),
        ("/srv", 0o755),
        ("/usr/share/dict", 0o755),
        ("/var/www", 0o755),
    ):
        t.d(d, mode=mode)
    t.nodes["/var/www"][8:10] = ["www-data", "www-data"]
    _system(t, rng, now)
    _shared(t, rng)
    _maya(t, rng, now)
    _others(t, rng)
    t.propagate()
    t.archive(
        "/home/maya/backups/dotfiles.tar",
        ["/home/maya/.bashrc", "/home/maya/.gitconfig", "/home/maya/.vimrc", "/home/maya/.config"],
    )
    t.archive("/home/maya/backups/notes-2026-04.tar.gz", ["/home/maya/Documents/notes"])
    t.archive("/home/maya/Downloads/starter-kit.zip", ["/home/maya/projects/weather-cli/src"])
    db.executemany("INSERT INTO nodes VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", t.finish())
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?)", USERS)
    db.executemany("INSERT INTO groups VALUES (?,?)", GROUPS)
    db.executemany("INSERT INTO group_members VALUES (?,?)", MEMBERS)
    db.execute("INSERT INTO shell VALUES (1, '/home/maya', 'maya')")
    db.execute("INSERT INTO volume VALUES (1, ?, '/dev/sda1', ?)", (f"{HOST}-root", CAPACITY))


def _system(t: Tree, rng: random.Random, now: datetime) -> None:
    """/bin, /etc, /usr/share/dict, /var/www, the logs in /var/log and /tmp."""
    _bin(t)
    _etc_accounts(t)
    _etc_config(t)
    port = _web(t, rng)
    _syslog(t, rng, now)
    _auth_log(t, rng, now)
    _access_log(t, rng, now)
    _error_log(t, rng, now, port)
    _dpkg_log(t, rng)
    _tmp(t, rng)


def _bin(t: Tree) -> None:
    """The binaries in /bin: sized like the real ones, their content never shown."""
    for name, size in (
        ("bash", 1_396_520),
        ("cat", 35_280),
        ("ls", 138_216),
        ("grep", 186_072),
        ("python3", 5_904_904),
        ("tar", 510_080),
        ("nano", 283_144),
        ("sort", 117_104),
    ):
        t.b(f"/bin/{name}", size, "root", mode=0o755, days=600)


def _etc_accounts(t: Tree) -> None:
    """Host name, hosts, and the users and groups of /etc/passwd, /etc/group and /etc/shadow."""
    t.f("/etc/hostname", f"{HOST}\n", "root", days=800)
    t.f(
        "/etc/hosts",
        f"127.0.0.1\tlocalhost\n127.0.1.1\t{HOST}\n10.0.0.12\tdb.internal\n10.0.0.15\tcache.internal\n"
        "::1\tip6-localhost ip6-loopback\n",
        "root",
        days=500,
    )
    t.f(
        "/etc/passwd",
        "".join(f"{u}:x:{uid}:{uid}:{name}:{home}:{sh}\n" for u, uid, name, home, sh in USERS),
        "root",
        days=200,
    )
    t.f(
        "/etc/group",
        "".join(f"{g}:x:{gid}:{','.join(u for gg, u in MEMBERS if gg == g)}\n" for g, gid in GROUPS),
        "root",
        days=200,
    )
    t.f(
        "/etc/shadow",
        "".join(f"{u}:$6${token(u, 'salt')[:16]}${token(u, 'hash')}:19800:0:99999:7:::\n" for u, *_ in USERS),
        "root",
        "root",
        0o600,
        days=200,
    )


def _etc_config(t: Tree) -> None:
    """System configuration: mounts, OS release, DNS, time zone, cron and sshd."""
    t.f(
        "/etc/fstab",
        "# <file system> <mount point> <type> <options> <dump> <pass>\n"
        "/dev/sda1\t/\text4\terrors=remount-ro\t0\t1\n/swapfile\tnone\tswap\tsw\t0\t0\n",
        "root",
        days=800,
    )
    t.f(
        "/etc/os-release",
        'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
        'VERSION="12 (bookworm)"\nID=debian\nHOME_URL="https://www.debian.org/"\n',
        "root",
        days=700,
    )
    t.f("/etc/resolv.conf", "nameserver 10.0.0.2\nnameserver 1.1.1.1\nsearch internal\n", "root", days=90)
    t.f("/etc/timezone", "America/Los_Angeles\n", "root", days=800)
    t.f(
        "/etc/crontab",
        "SHELL=/bin/sh\nPATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin\n\n"
        "17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly\n"
        "25 6\t* * *\troot\trun-parts --report /etc/cron.daily\n"
        "30 2\t* * *\tmaya\t/home/maya/projects/scripts/backup.sh\n"
        "0 3\t* * 0\tmaya\t/home/maya/projects/scripts/cleanup.sh\n",
        "root",
        days=60,
    )
    t.f(
        "/etc/ssh/sshd_config",
        "Port 22\nPermitRootLogin no\nPasswordAuthentication no\nPubkeyAuthentication yes\n"
        "X11Forwarding no\nAllowUsers maya sam alex\nClientAliveInterval 300\n",
        "root",
        days=150,
    )


def _web(t: Tree, rng: random.Random) -> int:
    """nginx proxying to the inventory API, the word list and the web root; returns the API port."""
    port = rng.choice((3000, 3001, 8080))
    t.f(
        "/etc/nginx/nginx.conf",
        "user www-data;\nworker_processes auto;\npid /run/nginx.pid;\n\nevents {\n    worker_connections 768;\n}\n\n"
        "http {\n    sendfile on;\n    keepalive_timeout 65;\n    access_log /var/log/nginx/access.log;\n"
        "    error_log /var/log/nginx/error.log;\n"
        "    include /etc/nginx/sites-enabled/*;\n}\n",
        "root",
        days=300,
    )
    t.f(
        "/etc/nginx/sites-available/inventory-api.conf",
        f"server {{\n    listen 80;\n    server_name inventory.internal;\n\n"
        f"    location /api/ {{\n        proxy_pass http://127.0.0.1:{port};\n        proxy_set_header Host $host;\n"
        f"    }}\n\n"
        "    location /static/ {\n        root /var/www/inventory;\n        expires 7d;\n    }\n}\n",
        "root",
        days=120,
    )
    t.ln("/etc/nginx/sites-enabled/inventory-api.conf", "../sites-available/inventory-api.conf", "root")
    t.f("/usr/share/dict/words", "\n".join(sorted(WORDS)) + "\n", "root", days=900)
    t.f(
        "/var/www/inventory/index.html",
        '<!doctype html>\n<html><head><title>Inventory</title>\n<link rel="stylesheet" href="/static/style.css">\n'
        '</head><body><div id="app">Loading inventory...</div><script src="/static/app.js"></script></body></html>\n',
        "www-data",
        days=100,
    )
    return port


def _syslog(t: Tree, rng: random.Random, now: datetime) -> None:
    """Three days of syslog, chronological."""
    start = now - timedelta(days=3)
    lines = []
    for i in range(260):
        start += timedelta(seconds=rng.randint(20, 1000))
        svc, msgs = rng.choice(SERVICES)
        msg = rng.choice(msgs).format(n=rng.randint(2, 254), pid=rng.randint(1000, 9999), hex=token(i)[:12])
        lines.append(f"{start.strftime('%b %d %H:%M:%S')} {HOST} {svc.format(pid=rng.randint(300, 9999))}: {msg}")
    t.f("/var/log/syslog", "\n".join(lines) + "\n", "root", "adm", 0o644, mtime=fake.iso(start))


def _auth_log(t: Tree, rng: random.Random, now: datetime) -> None:
    """Five days of ssh logins: users by key, strangers failing passwords."""
    auth, at = [], now - timedelta(days=5)
    for _ in range(90):
        at += timedelta(seconds=rng.randint(200, 6000))
        who = rng.choice(("maya", "maya", "sam", "alex", "admin", "oracle"))
        ip = f"{rng.choice(('192.168.1', '203.0.113', '198.51.100'))}.{rng.randint(2, 254)}"
        msg = (
            f"Accepted publickey for {who} from {ip} port {rng.randint(40000, 65000)} ssh2"
            if who in ("maya", "sam", "alex")
            else f"Failed password for invalid user {who} from {ip} port {rng.randint(40000, 65000)} ssh2"
        )
        auth.append(f"{at.strftime('%b %d %H:%M:%S')} {HOST} sshd[{rng.randint(1000, 9999)}]: {msg}")
    t.f("/var/log/auth.log", "\n".join(auth) + "\n", "root", "adm", 0o640, mtime=fake.iso(at))


def _access_log(t: Tree, rng: random.Random, now: datetime) -> None:
    """Two days of nginx access log."""
    acc, at = [], now - timedelta(days=2)
    for _ in range(320):
        at += timedelta(seconds=rng.randint(5, 500))
        ep = rng.choice(ENDPOINTS).format(n=rng.randint(1, 400))
        method = "POST" if ep in ("/api/orders", "/login") and rng.random() < 0.5 else "GET"
        status = rng.choices((200, 201, 304, 404, 500, 401), (70, 5, 10, 8, 3, 4))[0]
        acc.append(
            f"{rng.choice(('192.168.1', '10.0.0', '203.0.113'))}.{rng.randint(2, 254)} - - "
            f"[{at.strftime('%d/%b/%Y:%H:%M:%S')} +0000] "
            f'"{method} {ep} HTTP/1.1" {status} {rng.randint(120, 48000)} "-" "{rng.choice(AGENTS)}"'
        )
    t.f("/var/log/nginx/access.log", "\n".join(acc) + "\n", "root", "adm", 0o644, mtime=fake.iso(at))


def _error_log(t: Tree, rng: random.Random, now: datetime, port: int) -> None:
    """nginx failing to reach the API on ``port``."""
    errs = [
        f"{(now - timedelta(hours=rng.randint(1, 200))).strftime('%Y/%m/%d %H:%M:%S')} [error] "
        f"{rng.randint(100, 999)}#0: "
        f"*{rng.randint(1, 9999)} connect() failed (111: Connection refused) while connecting to upstream, "
        f'upstream: "http://127.0.0.1:{port}/api/items"'
        for _ in range(rng.randint(8, 20))
    ]
    t.f("/var/log/nginx/error.log", "\n".join(sorted(errs)) + "\n", "root", "adm", 0o644, hours=2, days=1)


def _dpkg_log(t: Tree, rng: random.Random) -> None:
    """Packages installed this year."""
    t.f(
        "/var/log/dpkg.log",
        "".join(
            f"2026-0{rng.randint(1, 5)}-{rng.randint(10, 28)} 0{rng.randint(1, 9)}:{rng.randint(10, 59)}:00 "
            f"status installed {pkg}:amd64 {ver}\n"
            for pkg, ver in (
                ("nginx", "1.22.1-9"),
                ("python3.11", "3.11.2-6"),
                ("git", "1:2.39.2-1.1"),
                ("sqlite3", "3.40.1-2"),
                ("nodejs", "18.19.0+dfsg-6"),
                ("ripgrep", "13.0.0-4"),
            )
        ),
        "root",
        days=150,
    )


def _tmp(t: Tree, rng: random.Random) -> None:
    """Leftovers of several users in /tmp."""
    for name, owner in (
        ("build-8841.log", "sam"),
        ("session-cache.json", "alex"),
        ("upload-tmp.csv", "maya"),
        ("npm-debug.log", "maya"),
        ("core-dump.txt", "sam"),
    ):
        t.f(f"/tmp/{name}", paragraph(rng, 2) + "\n", owner, mode=0o644, days=3)


def _shared(t: Tree, rng: random.Random) -> None:
    """/srv/shared, the team's group-writable folder."""
    _shared_docs(t, rng)
    _team_contacts(t, rng)
    _meeting_schedule(t, rng)
    _releases(t, rng)


def _shared_docs(t: Tree, rng: random.Random) -> None:
    """The folder itself and the team's two oldest documents."""
    t.d("/srv/shared", "root", "team", 0o2775)
    t.f(
        "/srv/shared/handbook.md",
        "# Team handbook\n\n## Working hours\nCore hours are 10:00-15:00 Pacific.\n\n"
        "## On-call\nThe on-call engineer answers pages within 15 minutes. Escalate to the platform group after 30 "
        "minutes.\n\n"
        f"## Notes\n{paragraph(rng, 5)}\n",
        "sam",
        "team",
        0o664,
        days=200,
    )
    t.f(
        "/srv/shared/onboarding.md",
        "# Onboarding checklist\n\n- [ ] Get a laptop from IT\n- [ ] Add your SSH key to /etc/ssh\n"
        "- [ ] Read the handbook\n- [ ] Pair with your buddy for a week\n- [ ] Ship a small change to weather-cli\n",
        "maya",
        "team",
        0o664,
        days=120,
    )


def _team_contacts(t: Tree, rng: random.Random) -> None:
    """A contact list of 30 colleagues."""
    rows = ["name,email,phone,city,role"]
    for i in range(1, 31):
        first, last = fake.person(rng)
        rows.append(
            f"{first} {last},{fake.email_for(first, last, rng, i)},{fake.phone(rng)},{fake.city(rng)[0]},"
            f"{rng.choice(('engineer', 'designer', 'manager', 'analyst', 'support'))}"
        )
    t.f("/srv/shared/team-contacts.csv", "\n".join(rows) + "\n", "sam", "team", 0o664, days=60)


def _meeting_schedule(t: Tree, rng: random.Random) -> None:
    """One recurring meeting per weekday."""
    sched = ["# Recurring meetings\n"] + [
        f"- {day} {h}:00 - {topic}"
        for day, h, topic in zip(
            ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"), rng.sample(range(9, 17), 5), rng.sample(TOPICS, 5)
        )
    ]
    t.f("/srv/shared/meeting-schedule.md", "\n".join(sched) + "\n", "alex", "team", 0o664, days=30)


def _releases(t: Tree, rng: random.Random) -> None:
    """Release notes and a deploy token only the team may read."""
    log = ["# Changelog\n"]
    for minor in range(9, 0, -1):
        log.append(f"## v1.{minor}.0\n" + "".join(f"- {sentence(rng)}\n" for _ in range(rng.randint(2, 5))))
    t.f("/srv/shared/releases/CHANGELOG.md", "\n".join(log), "sam", "team", 0o664, days=20)
    t.f(
        "/srv/shared/releases/v1.9.0-notes.md",
        f"# Release v1.9.0\n\n{paragraph(rng, 4)}\n",
        "sam",
        "team",
        0o664,
        days=20,
    )
    t.f(
        "/srv/shared/releases/secrets.env",
        f"DEPLOY_TOKEN={token('deploy', rng.random())[:32]}\n",
        "sam",
        "team",
        0o660,
        days=20,
    )


def _others(t: Tree, rng: random.Random) -> None:
    t.d("/home/sam", "sam", mode=0o750)
    t.d("/root", mode=0o700)
    t.f(
        "/root/.bash_history",
        "apt update\napt upgrade -y\nsystemctl restart nginx\njournalctl -u nginx --since today\n",
        "root",
        mode=0o600,
        days=40,
    )
    t.f("/home/sam/.bashrc", "export EDITOR=vim\nalias ll='ls -alF'\n", "sam", days=300)
    t.f("/home/sam/salary-review.md", f"# Salary review (private)\n\n{paragraph(rng, 3)}\n", "sam", mode=0o600, days=40)
    for i in range(1, 9):
        t.f(
            f"/home/sam/deploy/run-{i:02d}.log",
            "\n".join(
                f"step {s}: {rng.choice(('ok', 'ok', 'ok', 'retry', 'failed'))}" for s in range(1, rng.randint(5, 12))
            )
            + "\n",
            "sam",
            days=90,
        )
    t.f("/home/sam/todo.txt", "\n".join(f"- {sentence(rng)}" for _ in range(6)) + "\n", "sam", days=10)
    t.d("/home/alex", "alex", mode=0o755)
    t.f("/home/alex/.bashrc", "export PATH=$HOME/bin:$PATH\nalias gs='git status'\n", "alex", days=300)
    t.f("/home/alex/diary.md", f"# Diary\n\n{paragraph(rng, 6)}\n", "alex", mode=0o600, days=5)
    t.f(
        "/home/alex/public/recommendations.md",
        "# Books I recommend\n\n"
        + "".join(
            f"- {rng.choice(WORDS).title()} {rng.choice(WORDS).title()} by {fake.full_name(rng)}\n" for _ in range(10)
        ),
        "alex",
        days=50,
    )
    t.f(
        "/home/alex/public/shared-calendar.csv",
        "date,event\n"
        + "".join(f"2026-06-{d:02d},{rng.choice(TOPICS)}\n" for d in sorted(rng.sample(range(1, 30), 8))),
        "alex",
        days=8,
    )
    t.f("/home/alex/bin/hello.sh", '#!/bin/sh\necho "hello from $(hostname)"\n', "alex", mode=0o755, days=100)


def _maya(t: Tree, rng: random.Random, now: datetime) -> None:
    """Maya's home: dotfiles, ssh keys, app config, documents, projects, media and a few links."""
    h = "/home/maya"
    _dotfiles(t, h)
    _ssh(t, rng, h)
    _app_config(t, rng, h)
    _documents(t, rng, now, f"{h}/Documents")
    _projects(t, rng, now, f"{h}/projects")
    _media(t, rng, h)
    t.ln(f"{h}/shared", "/srv/shared")
    t.ln(f"{h}/todo.md", "Documents/todo.md")
    t.ln(f"{h}/old-link", "Documents/drafts/removed.md")


def _dotfiles(t: Tree, h: str) -> None:
    """The home folder and its shell, git and vim settings."""
    t.d(h, "maya", mode=0o755)
    t.f(
        f"{h}/.bashrc",
        "# ~/.bashrc\nexport EDITOR=nano\nexport PATH=$HOME/projects/scripts:$PATH\nalias ll='ls -alF'\n"
        "alias gs='git status'\nalias serve='python3 -m http.server 8000'\nHISTSIZE=5000\n",
        days=200,
    )
    t.f(f"{h}/.profile", "if [ -f ~/.bashrc ]; then . ~/.bashrc; fi\nexport LANG=en_US.UTF-8\n", days=600)
    t.f(
        f"{h}/.gitconfig",
        "[user]\n\tname = Maya Lindqvist\n\temail = maya.lindqvist@example.com\n[init]\n\tdefaultBranch = main\n"
        "[pull]\n\trebase = true\n[alias]\n\tco = checkout\n\tlg = log --oneline --graph\n",
        days=250,
    )
    t.f(f"{h}/.vimrc", "set number\nset expandtab\nset shiftwidth=4\nsyntax on\n", days=500)


def _ssh(t: Tree, rng: random.Random, h: str) -> None:
    """A private ssh folder: key pair, config and known hosts."""
    t.d(f"{h}/.ssh", "maya", mode=0o700)
    t.f(
        f"{h}/.ssh/id_ed25519",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + token("maya-key", rng.random()) * 3
        + "\n-----END OPENSSH PRIVATE KEY-----\n",
        mode=0o600,
        days=400,
    )
    t.f(
        f"{h}/.ssh/id_ed25519.pub",
        f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{token('pub', rng.random())[:40]} maya@{HOST}\n",
        days=400,
    )
    t.f(
        f"{h}/.ssh/config",
        "Host db\n    HostName db.internal\n    User maya\n\nHost github.com\n    IdentityFile ~/.ssh/id_ed25519\n",
        days=100,
    )
    t.f(
        f"{h}/.ssh/known_hosts",
        "".join(
            f"{hname} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{token(hname)[:40]}\n"
            for hname in ("github.com", "db.internal", "cache.internal", "10.0.0.12")
        ),
        days=30,
    )


def _app_config(t: Tree, rng: random.Random, h: str) -> None:
    """Settings under ~/.config."""
    t.f(
        f"{h}/.config/app/settings.json",
        '{\n  "theme": "dark",\n  "font_size": %d,\n  "autosave": true,\n  "recent": ["weather-cli", "blog"]\n}\n'
        % rng.choice((12, 13, 14)),
        days=20,
    )
    t.f(f"{h}/.config/git/ignore", "*.pyc\n__pycache__/\n.DS_Store\nnode_modules/\n.env\n", days=300)


def _documents(t: Tree, rng: random.Random, now: datetime, d: str) -> None:
    """Maya's Documents: to-dos, notes, reports, budget, contacts, recipes and letters."""
    _todo(t, rng, d)
    _meeting_notes(t, rng, now, d)
    _idea_lists(t, rng, d)
    _reports(t, rng, d)
    _budget(t, rng, d)
    _contacts(t, rng, d)
    _recipes(t, rng, d)
    _letters(t, rng, d)


def _todo(t: Tree, rng: random.Random, d: str) -> None:
    """A to-do list, about a third of it done."""
    todo = (
        ["# TODO", ""]
        + [
            f"- [{'x' if rng.random() < 0.35 else ' '}] {line}"
            for line in (
                "Renew passport",
                "Book dentist appointment",
                "Review pull request for weather-cli",
                "File quarterly taxes",
                "Call the landlord about the heating",
                "Back up the photo library",
                "Update the blog about SQLite",
                "Plan the Mount Hood hike",
                "Cancel the unused gym membership",
                "Send the Q1 report to Sam",
            )
        ]
        + [""]
    )
    t.f(f"{d}/todo.md", "\n".join(todo), days=2)


def _meeting_notes(t: Tree, rng: random.Random, now: datetime, d: str) -> None:
    """Meeting notes on 26 days of the last half year, with attendees and action items."""
    notes_dates = sorted(rng.sample(range(1, 170), 26))
    for i, back in enumerate(notes_dates):
        day = (now - timedelta(days=back)).date()
        topic = TOPICS[i % len(TOPICS)]
        people = ", ".join(fake.full_name(rng) for _ in range(rng.randint(2, 5)))
        body = (
            f"# {topic.capitalize()} - {day.isoformat()}\n\nAttendees: Maya Lindqvist, {people}\n"
            f"Location: {rng.choice(ROOMS)}\n\n"
            "## Notes\n"
            + "".join(f"- {sentence(rng)}\n" for _ in range(rng.randint(3, 7)))
            + "\n## Action items\n"
            + "".join(
                f"- [ ] {rng.choice(('Maya', 'Sam', 'Alex'))}: {rng.choice(VERBS).split()[0]} "
                f"{rng.choice(OBJECTS)} by {(day + timedelta(days=rng.randint(3, 21))).isoformat()}\n"
                for _ in range(rng.randint(1, 4))
            )
        )
        t.f(
            f"{d}/notes/{day.isoformat()}-{topic.replace(' ', '-').lower()}.md",
            body,
            mtime=fake.iso(datetime.combine(day, datetime.min.time()) + timedelta(hours=rng.randint(9, 18))),
        )


def _idea_lists(t: Tree, rng: random.Random, d: str) -> None:
    """Lists of project ideas and books to read."""
    t.f(
        f"{d}/notes/project-ideas.md",
        "# Project ideas\n\n"
        + "".join(
            f"{n}. A {rng.choice(('CLI', 'web app', 'bot', 'dashboard', 'library'))} for {rng.choice(OBJECTS)[4:]}\n"
            for n in range(1, 9)
        ),
        days=40,
    )
    t.f(
        f"{d}/notes/reading-list.md",
        "# Reading list\n\n"
        + "".join(
            f"- [{'x' if rng.random() < 0.5 else ' '}] {rng.choice(WORDS).title()} of the {rng.choice(WORDS).title()} "
            f"- {fake.full_name(rng)}\n"
            for _ in range(14)
        ),
        days=15,
    )


def _reports(t: Tree, rng: random.Random, d: str) -> None:
    """Four quarterly summaries and a draft of the current one."""
    for q, year, back in (("q1", 2026, 55), ("q4", 2025, 140), ("q3", 2025, 230), ("q2", 2025, 320)):
        revenue = rng.randint(380, 900) * 1000
        t.f(
            f"{d}/reports/{q}-{year}-summary.md",
            f"# {q.upper()} {year} summary\n\nRevenue: ${revenue:,}\n"
            f"Growth vs previous quarter: {rng.uniform(-6, 18):.1f}%\nNew customers: {rng.randint(20, 140)}\n\n"
            f"## Highlights\n{paragraph(rng, 4)}\n\n## Risks\n{paragraph(rng, 2)}\n",
            days=back,
        )
    t.f(
        f"{d}/reports/draft-q2-2026-summary.md",
        f"# Q2 2026 summary (DRAFT)\n\nRevenue: TBD\n\n{paragraph(rng, 2)}\n",
        days=1,
    )


def _budget(t: Tree, rng: random.Random, d: str) -> None:
    """This year's expenses month by month, sorted by date."""
    budget = ["date,category,description,amount"]
    day0 = datetime(2026, 1, 1)
    for month in range(1, 6):
        budget.append(f"2026-{month:02d}-01,rent,Monthly rent,2150.00")
        for _ in range(rng.randint(18, 26)):
            cat, names = rng.choice(EXPENSES[:1] + EXPENSES[2:])
            dd = rng.randint(1, 28)
            budget.append(
                f"2026-{month:02d}-{dd:02d},{cat},{rng.choice(names)},"
                f"{fake.money(rng, 4, 180 if cat != 'travel' else 900):.2f}"
            )
    t.f(
        f"{d}/budget-2026.csv",
        "\n".join([budget[0]] + sorted(budget[1:])) + "\n",
        mtime=fake.iso(day0 + timedelta(days=150)),
    )


def _contacts(t: Tree, rng: random.Random, d: str) -> None:
    """An address book of 60 people."""
    contacts = ["name,email,phone,city,company"]
    for i in range(1, 61):
        first, last = fake.person(rng)
        contacts.append(
            f"{first} {last},{fake.email_for(first, last, rng, i)},{fake.phone(rng)},"
            f"{fake.city(rng)[0]},{rng.choice(fake.COMPANIES)}"
        )
    t.f(f"{d}/contacts.csv", "\n".join(contacts) + "\n", days=70)


def _recipes(t: Tree, rng: random.Random, d: str) -> None:
    """One recipe per dish, its steps in a random order."""
    for slug, title, ingredients in RECIPES:
        steps = [
            f"{n}. {step}"
            for n, step in enumerate(
                rng.sample(
                    (
                        "Prep all the ingredients.",
                        "Heat the pan over medium heat.",
                        "Season generously.",
                        "Simmer for 20 minutes.",
                        "Taste and adjust the salt.",
                        "Rest for 10 minutes before serving.",
                        "Bake at 180 C for 45 minutes.",
                        "Stir in the herbs at the end.",
                    ),
                    5,
                ),
                1,
            )
        ]
        t.f(
            f"{d}/recipes/{slug}.md",
            f"# {title}\n\nServes {rng.randint(2, 6)}. Time: {rng.choice((20, 30, 45, 60, 90))} min.\n\n"
            "## Ingredients\n" + "".join(f"- {x}\n" for x in ingredients) + "\n## Steps\n" + "\n".join(steps) + "\n",
            days=500,
        )


def _letters(t: Tree, rng: random.Random, d: str) -> None:
    """Two letters and an empty drafts folder."""
    t.f(
        f"{d}/letters/cover-letter.md",
        f"Dear hiring team,\n\n{paragraph(rng, 3)}\n\n{paragraph(rng, 2)}\n\nBest regards,\nMaya Lindqvist\n",
        days=300,
    )
    t.f(
        f"{d}/letters/landlord-heating.md",
        "Hi Mr. Novak,\n\nThe heating in the bedroom has stopped working again. "
        "Could someone come by this week?\n\nThanks,\nMaya\n",
        days=12,
    )
    t.d(f"{d}/drafts", "maya")


PY_FILES = {
    "__init__.py": '"""weather-cli: current conditions and forecasts in your terminal."""\n\n'
    '__version__ = "{version}"\n',
    "api.py": (
        '"""A thin client for the Open Weather API."""\n\nimport json\nimport urllib.request\n\nBASE_URL = "https://api.weather.example.com/v{api}"\n'
        'TIMEOUT = {timeout}\n\n\nclass WeatherError(Exception):\n    """The API answered with an error."""\n\n\n'
        'def fetch_current(city: str, units: str = "metric") -> dict:\n    """Current conditions for a city."""\n'
        '    url = f"{{BASE_URL}}/current?q={{city}}&units={{units}}"\n'
        "    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:\n"
        '        data = json.load(resp)\n    if "error" in data:\n        raise WeatherError(data["error"])\n'
        "    return data\n\n\n"
        'def fetch_forecast(city: str, days: int = 5) -> list[dict]:\n    """A daily forecast for the next days."""\n'
        '    # TODO: cache responses for 10 minutes\n    url = f"{{BASE_URL}}/forecast?q={{city}}&days={{days}}"\n'
        '    with urllib.request.urlopen(url, timeout=TIMEOUT) as resp:\n        return json.load(resp)["days"]\n'
    ),
    "cli.py": (
        '"""Command line entry point."""\n\nimport argparse\n\n'
        "from weather_cli.api import fetch_current, fetch_forecast\n"
        'from weather_cli.format import render_current, render_forecast\n\nDEFAULT_CITY = "{city}"\n\n\n'
        "def main() -> None:\n"
        '    parser = argparse.ArgumentParser(prog="weather")\n'
        '    parser.add_argument("city", nargs="?", default=DEFAULT_CITY)\n'
        '    parser.add_argument("--days", type=int, default=0)\n'
        '    parser.add_argument("--imperial", action="store_true")\n'
        '    args = parser.parse_args()\n    units = "imperial" if args.imperial else "metric"\n    if args.days:\n'
        "        print(render_forecast(fetch_forecast(args.city, args.days)))\n    else:\n"
        '        print(render_current(fetch_current(args.city, units)))\n\n\nif __name__ == "__main__":\n    main()\n'
    ),
    "format.py": (
        '"""Pretty printing of API responses."""\n\n'
        'ICONS = {{"clear": "sun", "rain": "umbrella", "snow": "snowflake", "clouds": "cloud"}}\n\n\n'
        'def render_current(data: dict) -> str:\n    icon = ICONS.get(data["condition"], "?")\n'
        "    return f\"{{data['city']}}: {{data['temp']:.0f}} deg, {{data['condition']}} ({{icon}})\"\n\n\n"
        "def render_forecast(days: list[dict]) -> str:\n    # TODO: align columns\n"
        "    return \"\\n\".join(f\"{{d['date']}}  {{d['min']:>3.0f}} / {{d['max']:>3.0f}}  {{d['condition']}}\" for "
        "d in days)\n"
    ),
    "cache.py": (
        '"""A tiny on-disk cache."""\n\nimport json\nimport time\nfrom pathlib import Path\n\n'
        'CACHE_DIR = Path.home() / ".cache" / "weather-cli"\n'
        'TTL_SECONDS = {ttl}\n\n\ndef get(key: str):\n    path = CACHE_DIR / f"{{key}}.json"\n'
        "    if not path.exists() or time.time() - path.stat().st_mtime > TTL_SECONDS:\n        return None\n"
        "    return json.loads(path.read_text())\n\n\ndef put(key: str, value) -> None:\n"
        "    CACHE_DIR.mkdir(parents=True, exist_ok=True)\n"
        '    (CACHE_DIR / f"{{key}}.json").write_text(json.dumps(value))\n'
    ),
}


def _projects(t: Tree, rng: random.Random, now: datetime, p: str) -> None:
    """Maya's projects: a Python CLI, a Node API, a data pipeline with logs, a blog and shell scripts."""
    version = _weather_cli(t, rng, f"{p}/weather-cli")
    _weather_cli_tests(t, rng, f"{p}/weather-cli", version)
    _inventory_api(t, rng, f"{p}/inventory-api")
    _data_pipeline(t, rng, f"{p}/data-pipeline")
    _sales(t, rng, f"{p}/data-pipeline")
    _pipeline_logs(t, rng, now, f"{p}/data-pipeline")
    _blog(t, rng, now, f"{p}/blog")
    _scripts(t, f"{p}/scripts")


def _weather_cli(t: Tree, rng: random.Random, w: str) -> str:
    """A small Python package; returns its version, which the changelog counts up to."""
    version = f"0.{rng.randint(2, 9)}.{rng.randint(0, 5)}"
    subs = {
        "version": version,
        "api": rng.choice((2, 3)),
        "timeout": rng.choice((5, 10, 15)),
        "city": rng.choice(fake.CITIES)[0],
        "ttl": rng.choice((300, 600, 900)),
    }
    for name, tmpl in PY_FILES.items():
        t.f(f"{w}/src/weather_cli/{name}", tmpl.format(**subs), days=60)
    t.f(
        f"{w}/README.md",
        f"# weather-cli {version}\n\nCurrent conditions and forecasts in your terminal.\n\n## Install\n\n"
        "    pip install -e .\n\n## Usage\n\n    weather Seattle\n    weather Denver --days 5 --imperial\n\n"
        "## License\nMIT\n",
        days=30,
    )
    t.f(
        f"{w}/pyproject.toml",
        f'[project]\nname = "weather-cli"\nversion = "{version}"\nrequires-python = ">=3.10"\n'
        'dependencies = []\n\n[project.scripts]\nweather = "weather_cli.cli:main"\n',
        days=30,
    )
    t.f(f"{w}/requirements-dev.txt", "pytest==8.2.0\nruff==0.4.4\nmypy==1.10.0\n", days=90)
    t.f(f"{w}/.gitignore", "__pycache__/\n*.pyc\n.venv/\ndist/\n.cache/\n", days=200)
    t.f(
        f"{w}/LICENSE",
        "MIT License\n\nCopyright (c) 2025 Maya Lindqvist\n\n"
        "Permission is hereby granted, free of charge, to any person "
        "obtaining a copy of this software, to deal in the Software without restriction.\n",
        days=400,
    )
    return version


def _weather_cli_tests(t: Tree, rng: random.Random, w: str, version: str) -> None:
    """Its tests (one skipped: it needs the network) and a changelog of every minor release."""
    t.f(
        f"{w}/tests/test_format.py",
        "from weather_cli.format import render_current\n\n\ndef test_render_current():\n"
        "    out = render_current({'city': 'Oslo', 'temp': 3.4, 'condition': 'snow'})\n"
        "    assert out == 'Oslo: 3 deg, snow (snowflake)'\n",
        days=20,
    )
    t.f(
        f"{w}/tests/test_api.py",
        "import pytest\n\nfrom weather_cli import api\n\n\ndef test_base_url():\n"
        "    assert api.BASE_URL.startswith('https://')\n\n\n@pytest.mark.skip(reason='needs network')\n"
        "def test_fetch_current():\n"
        "    assert api.fetch_current('Oslo')['city'] == 'Oslo'\n",
        days=20,
    )
    t.f(
        f"{w}/CHANGELOG.md",
        "# Changelog\n\n" + "".join(f"## 0.{m}.0\n- {sentence(rng)}\n\n" for m in range(int(version[2]), 0, -1)),
        days=30,
    )


def _inventory_api(t: Tree, rng: random.Random, a: str) -> None:
    """An Express REST API with a route, model and test per resource and a private .env."""
    port = rng.choice((3000, 3001, 8080))
    t.f(
        f"{a}/package.json",
        '{\n  "name": "inventory-api",\n  "version": "1.%d.0",\n  "main": "src/index.js",\n  "scripts": {\n'
        '    "start": "node src/index.js",\n    "test": "jest"\n  },\n  "dependencies": {\n    "express": "^4.19.2",\n'
        '    "pg": "^8.11.5"\n'
        '  },\n  "devDependencies": {\n    "jest": "^29.7.0"\n  }\n}\n' % rng.randint(1, 9),
        days=45,
    )
    t.f(
        f"{a}/src/index.js",
        "const express = require('express');\nconst items = require('./routes/items');\n"
        "const orders = require('./routes/orders');\n"
        "const suppliers = require('./routes/suppliers');\n\nconst app = express();\napp.use(express.json());\n"
        "app.use('/api/items', items);\n"
        f"app.use('/api/orders', orders);\napp.use('/api/suppliers', suppliers);\n"
        f"app.get('/health', (req, res) => res.json({{ ok: true }}));\n\n"
        f"const PORT = process.env.PORT || {port};\n"
        f"app.listen(PORT, () => console.log(`inventory-api listening on ${{PORT}}`));\n",
        days=25,
    )
    t.f(
        f"{a}/src/db.js",
        "const { Pool } = require('pg');\n\nconst pool = new Pool({ connectionString: process.env.DATABASE_URL });\n\n"
        "module.exports = { query: (text, params) => pool.query(text, params) };\n",
        days=90,
    )
    for res in ("items", "orders", "suppliers"):
        _inventory_resource(t, rng, a, res)
    t.f(
        f"{a}/.env",
        f"DATABASE_URL=postgres://inventory:{token('pw', rng.random())[:16]}@db.internal:5432/inventory\nPORT={port}\n",
        mode=0o600,
        days=45,
    )
    t.f(
        f"{a}/README.md",
        f"# inventory-api\n\nREST API for the warehouse inventory. Runs on port {port} behind nginx.\n\n"
        "## Endpoints\n\n- GET /api/items\n- GET /api/orders\n- GET /api/suppliers\n- GET /health\n",
        days=45,
    )


def _inventory_resource(t: Tree, rng: random.Random, a: str, res: str) -> None:
    """The route, model and test of one REST resource of the inventory API."""
    t.f(
        f"{a}/src/routes/{res}.js",
        f"const express = require('express');\nconst db = require('../db');\n\nconst router = express.Router();\n\n"
        f"router.get('/', async (req, res) => {{\n  const page = Number(req.query.page || 1);\n"
        f"  const {{ rows }} = await db.query('SELECT * FROM {res} ORDER BY id LIMIT 50 OFFSET $1', [(page - 1) * "
        f"50]);\n  res.json(rows);\n}});\n\n"
        f"router.get('/:id', async (req, res) => {{\n"
        f"  const {{ rows }} = await db.query('SELECT * FROM {res} WHERE id = $1', [req.params.id]);\n"
        f"  if (!rows.length) return res.status(404).json({{ error: '{res[:-1]} not found' }});\n"
        f"  res.json(rows[0]);\n}});\n\n"
        + ("// TODO: validate quantities before insert\n" if res != "suppliers" else "")
        + "module.exports = router;\n",
        days=rng.randint(5, 60),
    )
    t.f(
        f"{a}/src/models/{res[:-1]}.js",
        f"// {res[:-1]} model\nmodule.exports = {{\n  table: '{res}',\n  fields: "
        f"{sorted(rng.sample(FIELD_NAMES, 5))},\n}};\n",
        days=80,
    )
    t.f(
        f"{a}/test/{res}.test.js",
        f"const request = require('supertest');\n\ndescribe('{res}', () => {{\n  it('lists {res}', async () => {{\n"
        f"    expect(true).toBe(true);\n  }});\n}});\n",
        days=70,
    )


def _data_pipeline(t: Tree, rng: random.Random, dp: str) -> None:
    """The nightly ETL script and its config."""
    t.f(
        f"{dp}/etl.py",
        '"""Nightly ETL: read the sales CSVs, clean them and load a summary."""\n\nimport csv\nimport logging\n'
        'from pathlib import Path\n\nlog = logging.getLogger("etl")\nDATA = Path(__file__).parent / "data"\n\n\n'
        "def extract(name: str) -> list[dict]:\n    with open(DATA / name) as fh:\n"
        "        rows = list(csv.DictReader(fh))\n"
        '    log.info("loaded %d rows from %s", len(rows), name)\n    return rows\n\n\n'
        "def transform(rows: list[dict]) -> dict[str, float]:\n    totals: dict[str, float] = {}\n    for r in rows:\n"
        '        totals[r["region"]] = totals.get(r["region"], 0.0) + float(r["total"])\n    return totals\n\n\n'
        'if __name__ == "__main__":\n    for f in sorted(DATA.glob("sales_*.csv")):\n'
        "        print(f.name, transform(extract(f.name)))\n",
        days=35,
    )
    t.f(
        f"{dp}/config.yaml",
        f'source_dir: data\nschedule: "0 2 * * *"\nwarehouse:\n  host: db.internal\n  port: 5432\n'
        f"  database: analytics\nretention_days: {rng.choice((30, 60, 90))}\nnotify: maya.lindqvist@example.com\n",
        days=35,
    )


def _sales(t: Tree, rng: random.Random, dp: str) -> None:
    """Five quarters of sales CSVs with increasing order ids, and the regions table."""
    order = 1000
    for year, q, back in ((2025, 1, 400), (2025, 2, 310), (2025, 3, 220), (2025, 4, 130), (2026, 1, 40)):
        sales = ["order_id,date,region,product,quantity,unit_price,total"]
        for _ in range(rng.randint(60, 110)):
            order += rng.randint(1, 7)
            product, price = rng.choice(PRODUCTS)
            qty = rng.randint(1, 12)
            month = (q - 1) * 3 + rng.randint(1, 3)
            sales.append(
                f"ORD-{order},{year}-{month:02d}-{rng.randint(1, 28):02d},{rng.choice(REGIONS)},"
                f"{product},{qty},{price:.2f},{qty * price:.2f}"
            )
        t.f(f"{dp}/data/sales_{year}_q{q}.csv", "\n".join(sales) + "\n", days=back, hours=back * 24 - 48)
    t.f(
        f"{dp}/data/regions.csv",
        "region,manager,target\n"
        + "".join(f"{r},{fake.full_name(rng)},{rng.randint(50, 200) * 1000}\n" for r in REGIONS),
        days=200,
    )


def _pipeline_logs(t: Tree, rng: random.Random, now: datetime, dp: str) -> None:
    """Two weeks of nightly ETL logs, a quarter of them with a database timeout."""
    for back in range(1, 15):
        day = now - timedelta(days=back)
        stamp = day.strftime("%Y-%m-%d")
        lines = [f"{stamp} 02:00:0{rng.randint(0, 9)},{rng.randint(100, 999)} INFO etl: run started"]
        for part in ("2025_q3", "2025_q4", "2026_q1"):
            lines.append(
                f"{stamp} 02:00:{rng.randint(10, 40)},{rng.randint(100, 999)} INFO etl.extract: loaded "
                f"{rng.randint(60, 110)} rows from sales_{part}.csv"
            )
        if rng.random() < 0.25:
            lines.append(
                f"{stamp} 02:01:{rng.randint(10, 59)},{rng.randint(100, 999)} ERROR etl.load: connection to "
                f"db.internal:5432 timed out"
            )
            lines.append(
                f"{stamp} 02:02:0{rng.randint(0, 9)},{rng.randint(100, 999)} WARNING etl: retrying in 60 seconds"
            )
        lines.append(f"{stamp} 02:03:{rng.randint(10, 59)},{rng.randint(100, 999)} INFO etl: run finished")
        t.f(f"{dp}/logs/etl-{stamp}.log", "\n".join(lines) + "\n", mtime=f"{stamp}T02:0{rng.randint(3, 9)}:00")


def _blog(t: Tree, rng: random.Random, now: datetime, b: str) -> None:
    """A Jekyll blog: published posts about five weeks apart, the newest still a draft."""
    t.f(f"{b}/_config.yml", "title: Notes from Maya\nauthor: Maya Lindqvist\nbaseurl: /blog\ntheme: minima\n", days=300)
    for i, (slug, title) in enumerate(BLOG):
        date = (now - timedelta(days=20 + i * 37 + rng.randint(0, 20))).date()
        tags = ", ".join(rng.sample(("python", "travel", "food", "linux", "career", "books", "data", "rust"), 2))
        body = "\n\n".join(paragraph(rng, rng.randint(3, 6)) for _ in range(rng.randint(3, 6)))
        draft = i == 0
        path = f"{b}/{'drafts' if draft else 'posts'}/{date.isoformat()}-{slug}.md"
        t.f(
            path,
            f'---\ntitle: "{title}"\ndate: {date.isoformat()}\ntags: [{tags}]\n---\n\n{body}\n',
            mtime=fake.iso(datetime.combine(date, datetime.min.time()) + timedelta(hours=21)),
        )


def _scripts(t: Tree, s: str) -> None:
    """Maya's backup, cleanup and photo-renaming scripts."""
    t.f(
        f"{s}/backup.sh",
        "#!/bin/sh\n# Nightly backup of documents\nset -e\nDEST=$HOME/backups\nSTAMP=$(date +%Y-%m)\n"
        'tar czf "$DEST/notes-$STAMP.tar.gz" -C "$HOME/Documents" notes\necho "backup done: $STAMP"\n',
        mode=0o755,
        days=100,
    )
    t.f(
        f"{s}/cleanup.sh",
        "#!/bin/sh\n# Remove logs older than 30 days\n"
        "find $HOME/projects/data-pipeline/logs -name '*.log' -mtime +30 -delete\n",
        mode=0o755,
        days=100,
    )
    t.f(
        f"{s}/rename_photos.py",
        "import sys\nfrom pathlib import Path\n\nfor i, p in enumerate(sorted(Path(sys.argv[1]).glob('*.jpg')), 1):\n"
        "    p.rename(p.with_name(f'IMG_{i:04d}.jpg'))\n",
        days=200,
    )


def _media(t: Tree, rng: random.Random, h: str) -> None:
    index = ["file,album,taken_at,camera,width,height,location"]
    n = 4000
    for album, place, prefix in ALBUMS:
        camera = rng.choice(CAMERAS)
        for _ in range(rng.randint(10, 18)):
            n += rng.randint(1, 9)
            taken = f"{prefix}{rng.randint(1, 28):02d}T{rng.randint(7, 20):02d}:{rng.randint(0, 59):02d}:00"
            w, hh = rng.choice(((6240, 4160), (4032, 3024), (3024, 4032)))
            t.b(f"{h}/Pictures/{album}/IMG_{n}.jpg", rng.randint(1_800_000, 6_500_000), mtime=taken)
            index.append(f"IMG_{n}.jpg,{album},{taken},{camera},{w},{hh},{place}")
        t.f(f"{h}/Pictures/{album}/README.md", f"# {album}\n\nTaken in {place} with a {camera}.\n", days=100)
    for i in range(1, rng.randint(6, 10)):
        t.b(f"{h}/Pictures/screenshots/screenshot-2026-05-{i + 10:02d}.png", rng.randint(80_000, 900_000), days=25)
    t.f(f"{h}/Pictures/photos-index.csv", "\n".join(index) + "\n", days=10)
    for name, songs in PLAYLISTS:
        t.f(
            f"{h}/Music/playlists/{name}.m3u",
            "#EXTM3U\n"
            + "".join(
                f"#EXTINF:{rng.randint(150, 420)},{song}\n{song.lower().replace(' ', '_')}.mp3\n" for song in songs
            ),
            days=150,
        )
    for name, size in (
        ("invoice-2026-04.pdf", 84_211),
        ("invoice-2026-05.pdf", 86_934),
        ("lease-agreement.pdf", 412_558),
        ("boarding-pass-LIS.pdf", 120_004),
    ):
        t.b(f"{h}/Downloads/{name}", size + rng.randint(0, 5000), days=60)
    t.f(
        f"{h}/Downloads/exchange-rates.csv",
        "date,usd_eur,usd_sek\n"
        + "".join(
            f"2026-05-{d:02d},{rng.uniform(0.88, 0.94):.4f},{rng.uniform(9.9, 10.8):.4f}\n" for d in range(1, 29)
        ),
        days=4,
    )
    t.f(f"{h}/Downloads/meeting-notes-copy.md", f"# Copy of notes\n\n{paragraph(rng, 3)}\n", days=9)
