"""What people want of maps: how long it takes to get somewhere, what is nearby, what is good, and their lists.

Most requests are reads: "how long to drive from X to Y", "a coffee place near ...", "the best Thai place
in Denver". People name places by name and city, spots by street address ("I'm at 363 Elm St, Seattle"),
and a dropped pin by its coordinates. For their own saved places, lists and reviews they say who they
are; the agent finds their user id with ``search_users`` and places with ``search_places``.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.maps.schema import MODES as MODES_KM
from servers.maps.schema import _km
from servers.maps.tools import maps

PLACE = (
    "SELECT p.*, a.street_number, a.street, a.full_address FROM places p JOIN addresses a USING (address_id) "
    "WHERE (SELECT COUNT(*) FROM places q WHERE q.name = p.name AND q.city = p.city) = 1"
)
USER = "SELECT * FROM users u WHERE (SELECT COUNT(*) FROM users v WHERE v.name = u.name) = 1"
MODES = {
    "driving": ("drive", "driving", "by car"),
    "walking": ("walk", "walking", "on foot"),
    "cycling": ("bike", "cycling", "by bike"),
    "transit": ("take transit", "on the bus", "by transit"),
}
KINDS = {
    "cafe": ("coffee place", "café", "spot for a coffee"),
    "pharmacy": ("pharmacy", "drugstore", "chemist"),
    "supermarket": ("grocery store", "supermarket", "place to buy groceries"),
    "gas_station": ("gas station", "place to fill up", "petrol station"),
    "park": ("park", "green space", "park"),
    "restaurant": ("restaurant", "place to eat", "spot for dinner"),
    "bar": ("bar", "place for a drink", "pub"),
    "bookstore": ("bookshop", "bookstore", "place to buy a book"),
    "gym": ("gym", "place to work out", "gym"),
    "museum": ("museum", "museum", "gallery or museum"),
}
LIST_NAMES = (
    "Brunch spots",
    "Rainy day ideas",
    "Out-of-town guests",
    "Cheap eats",
    "Anniversary ideas",
    "Coffee to try",
    "Kid-friendly",
    "Late night",
    "Sunday walks",
)
REVIEWS = {
    5: ("Fantastic, the staff went out of their way for us.", "Loved every minute, will be back soon."),
    4: ("Very good, just a bit crowded at lunch.", "Nice spot, prices a touch high."),
    3: ("It was fine, nothing memorable.", "Okay overall, service was slow."),
    2: ("Disappointing visit, long wait and cold food.", "Not worth the trip across town."),
    1: ("Awful experience, would not go back.", "Rude service and a dirty room."),
}


def place_ref(s: Scene, p: dict[str, Any]) -> str:
    return s.refer(
        p["place_id"],
        Ref("{name} in {city}", "SELECT place_id FROM places WHERE name = ? AND city = ?", p["name"], p["city"]),
        name=p["name"],
        city=p["city"],
    )


def find_place(s: Scene, p: dict[str, Any], **narrow: Any) -> dict[str, Any]:
    """The discovery call for a place named by the user: its name, in its city (by the name alone, at times, when
    no other city has a place of that name)."""
    alone = s.value("SELECT COUNT(*) FROM places WHERE name = ?", p["name"]) == 1 and s.rng.random() < 0.8
    where = {} if alone else {"city": p["city"]}
    found = s.call("search_places", query=p["name"], **where, **narrow)["places"]
    hit = [x for x in found if x["place_id"] == p["place_id"]]
    if not hit:
        raise Skip("the place is not on the first page")
    return hit[0]


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The user talking: the one an earlier turn found, or the map user the persona is (every opening turn makes
    the persona one), or a fresh pick on the opening turn. ``Skip`` when they do not fit ``where``."""
    known = s.memory.get("me")
    if known:
        found = s.rows(USER + f" AND u.user_id = ? AND ({where})", known["user_id"], *params)
        if not found:
            raise Skip("the user of the earlier turn does not fit")
        return found[0]
    if s.speaker:
        found = s.rows(USER + f" AND u.name = ? AND ({where})", s.speaker, *params)
        if not found:
            raise Skip("the user talking does not fit")
        return found[0]
    if s.turns:
        raise Skip("a user's follow-up after a turn that was no user's")
    u = s.pick(USER + f" AND ({where})", *params)
    s.be(u["name"])
    return u


def as_user(s: Scene, city: str | None = None) -> None:
    """Make the persona of an opening turn a map user (often one living in ``city``), so that a later turn can
    save, list or review what the dialogue found; a follow-up keeps whoever talks."""
    if s.speaker or s.turns:
        return
    local = s.rows(USER + " AND u.home_city = ?", city) if city and s.rng.random() < 0.6 else []
    u = s.rng.choice(local) if local else s.pick(USER)
    s.be(u["name"])


def focus(s: Scene, place_id: str) -> None:
    """The place the dialogue is about now (the agent holds its id), for follow-ups ("is it open?")."""
    found = s.rows(PLACE + " AND p.place_id = ?", place_id)
    if found:
        s.memory["place"] = found[0]
    else:  # another spot of its city has the same name: follow-ups could not name it
        s.memory.pop("place", None)


def route_args(origin: str, destination: str, mode: str) -> dict[str, Any]:
    """The arguments of a route between two places (driving, the tools' default, left out)."""
    args: dict[str, Any] = {"origin_place_id": origin, "destination_place_id": destination}
    if mode != "driving":
        args["mode"] = mode
    return args


def route_fits(a: dict[str, Any], b: dict[str, Any], mode: str) -> bool:
    """Whether a route of ``mode`` between two places is possible (transit within a city, distance caps)."""
    factor, _, _, cap = MODES_KM[mode]
    if mode == "transit" and a["city"] != b["city"]:
        return False
    return a["place_id"] != b["place_id"] and _km(a["lat"], a["lon"], b["lat"], b["lon"]) * factor <= cap


def intro(s: Scene) -> str:
    """ "I'm <name>. " (sometimes with their home town, which the agent can filter by) until the user is found."""
    if s.memory.get("me"):
        return ""
    city = s.value("SELECT home_city FROM users WHERE name = ?", s.persona.name)
    if city and s.rng.random() < 0.1:
        s.memory["by_city"] = city
        return f"I'm {s.persona.name} from {city}. "
    return f"I'm {s.persona.name}. "


def find_me(s: Scene, u: dict[str, Any]) -> str:
    if s.memory.get("me", {}).get("user_id") == u["user_id"]:
        return str(u["user_id"])
    city = s.memory.pop("by_city", None)
    hit = [
        r
        for r in s.call("search_users", query=u["name"], **({"home_city": city} if city else {}))["users"]
        if r["user_id"] == u["user_id"]
    ]
    if not hit:
        raise Skip("the user is not on the first page")
    s.memory["me"] = {"user_id": u["user_id"], "name": u["name"]}
    return str(u["user_id"])


def within_reach(s: Scene, kind: str, sql: str, *params: Any) -> tuple[dict[str, Any], float]:
    """A spot (an address or a place, by ``sql``) with a place of ``kind`` within a few km, and the search
    radius a person would name for it."""
    spots = s.rows(sql, *params)
    s.rng.shuffle(spots)
    for spot in spots[:40]:
        near = [
            _km(spot["lat"], spot["lon"], p["lat"], p["lon"])
            for p in s.rows("SELECT lat, lon FROM places WHERE city = ? AND category = ?", spot["city"], kind)
        ]
        fits = [r for r in (1.0, 2.0, 3.0, 5.0, 8.0) if any(0 < d <= r * 0.9 for d in near)]
        if fits:
            return spot, fits[0]
    raise Skip(f"no spot with a {kind} close by")


@maps.intent(covers=("search_places", "get_route", "get_directions"), weight=2.0)
def how_long(s: Scene) -> None:
    """How long it takes to get from one place to another, then the way there step by step."""
    a = s.pick(PLACE)
    b = s.pick(PLACE + " AND p.city = ? AND p.place_id != ?", a["city"], a["place_id"])
    mode = s.rng.choice(("driving", "driving", "walking", "cycling", "transit"))
    verb, _, how = MODES[mode]
    as_user(s, a["city"])
    s.say(
        "How long would it take me to {verb} from {a} to {b}?",
        "If I {verb} from {a} over to {b}, how long is that?",
        "What's the travel time {how} between {a} and {b}?",
        "How far is {b} from {a} {how}?",
        minimal=["I need to get from {a} to {b} {how}."],
        verb=verb,
        how=how,
        a=place_ref(s, a),
        b=place_ref(s, b),
    )
    pa = find_place(s, a)
    pb = find_place(s, b)
    args = route_args(pa["place_id"], pb["place_id"], mode)
    s.call("get_route", **args)
    s.memory["route"] = args
    focus(s, pb["place_id"])
    if s.rng.random() < 0.9:
        s.say(
            "OK, talk me through the way, turn by turn.",
            "Which streets do I take?",
            "Walk me through it step by step." if mode == "walking" else "Tell me each turn, please.",
        )
        s.call("get_directions", **args)


@maps.intent(covers=("geocode_address", "search_nearby", "get_place"), weight=2.0)
def something_near_me(s: Scene) -> None:
    """Someone standing at a street address wants a kind of place close by, then details of the nearest one."""
    kind = s.rng.choice(list(KINDS))
    adr, radius = within_reach(
        s,
        kind,
        "SELECT * FROM addresses a WHERE (SELECT COUNT(*) FROM addresses b WHERE "
        "b.street_number = a.street_number AND b.street = a.street AND b.city = a.city) = 1",
    )
    words = s.rng.choice(KINDS[kind])
    as_user(s, adr["city"])
    now = s.rng.random() < 0.4
    opened = " that's open right now" if now else ""
    few = s.rng.random() < 0.3
    text = f"{adr['street_number']} {adr['street']}, {adr['city']}"
    street = s.given(text, text, "address", "geocode_address", "address")
    far = f"within {radius:g} km" if radius != 2.0 else "close by"
    s.say(
        "[I'm at {street}. ]Is there a {w}{o} {far}?{lim}",
        "Any {w}{o} {far}?[ I'm standing at {street}.]{lim}",
        "Looking for a {w}{o} {far}[ of {street}].{lim}",
        minimal=["{w} near[ {street}]?"],
        street=street,
        w=words,
        o=opened,
        far=far,
        lim=" Just the three closest." if few else "",
    )
    found = s.call("geocode_address", address=text)["matches"]
    if len(found) != 1:
        raise Skip("the address is ambiguous")
    args: dict[str, Any] = {"lat": found[0]["lat"], "lon": found[0]["lon"], "category": kind}
    if radius != 2.0:
        args["radius_km"] = radius
    if now:
        args["open_now"] = True
    if few and not s.minimal:
        args["limit"] = 3
    near = s.call("search_nearby", **args)["places"]
    if not near:
        raise Skip("nothing of that kind nearby")
    if len(near) > 1 and near[0]["distance_km"] == near[1]["distance_km"]:
        raise Skip("a tie for the nearest")
    s.say(
        "What are the hours of the closest one?",
        "Tell me more about the nearest one. Phone number?",
        "The closest one: what's the address and is it any good?",
        "Can I get the phone number of the nearest one?",
        "What do you have on the closest of those? Hours, phone, anything.",
    )
    s.call("get_place", place_id=near[0]["place_id"])
    focus(s, near[0]["place_id"])


@maps.intent(covers=("search_places", "search_nearby", "get_route"), weight=1.5)
def near_a_landmark(s: Scene) -> None:
    """Someone near a known place wants a kind of place around it, then how far a walk it is."""
    kind = s.rng.choice(list(KINDS))
    a, radius = within_reach(
        s,
        kind,
        PLACE + " AND p.category IN ('museum', 'park', 'hotel', 'bookstore', 'restaurant') AND p.category != ?",
        kind,
    )
    words = s.rng.choice(KINDS[kind])
    as_user(s, a["city"])
    far = f"within {radius:g} km of" if radius != 2.0 else "near"
    s.say(
        "Is there a {w} {far} {a}?",
        "I'll be at {a} later. Any {w} {far} there?",
        "What {w} is {far} {a}?",
        minimal=["{w} {far} {a}?"],
        w=words,
        a=place_ref(s, a),
        far=far,
    )
    pa = find_place(s, a)
    near = s.call(
        "search_nearby", place_id=pa["place_id"], category=kind, **({"radius_km": radius} if radius != 2.0 else {})
    )["places"]
    if not near:
        raise Skip("nothing of that kind nearby")
    if len(near) > 1 and near[0]["distance_km"] == near[1]["distance_km"]:
        raise Skip("a tie for the nearest")
    mode = s.rng.choice(("walking", "walking", "cycling", "driving"))
    focus(s, near[0]["place_id"])
    if not s.room(1, 1) or s.rng.random() < 0.25:
        return
    s.say(
        "How long would it take to {v} from there to the nearest one?",
        "And the closest one: how far {h}?",
        v=MODES[mode][0],
        h=MODES[mode][2],
    )
    args = route_args(pa["place_id"], near[0]["place_id"], mode)
    s.call("get_route", **args)
    s.memory["route"] = args


@maps.intent(covers=("reverse_geocode", "get_place"))
def dropped_pin(s: Scene) -> None:
    """Someone has coordinates from a photo or a dropped pin and wants to know what is there."""
    p = s.pick(PLACE)
    lat = round(p["lat"] + s.rng.uniform(-0.0004, 0.0004), 4)
    lon = round(p["lon"] + s.rng.uniform(-0.0004, 0.0004), 4)
    as_user(s, p["city"])
    s.say(
        "A friend dropped me a pin at {lat}, {lon}. What's the street address there?",
        "My photo is tagged {lat}, {lon}. Where was that taken, which street?",
        "What address is at {lat}, {lon}?",
        lat=lat,
        lon=lon,
    )
    at = s.call("reverse_geocode", lat=lat, lon=lon)
    if not at["place_ids"]:
        raise Skip("nothing at the nearest address")
    s.say(
        "Is there a business at that address? What is it and when is it open?",
        "What's the place at that address, and is it open now?",
        "What can I find there? Opening hours?",
    )
    s.call("get_place", place_id=at["place_ids"][0])
    focus(s, at["place_ids"][0])


@maps.intent(covers=("search_places", "list_reviews", "get_place"), weight=1.5)
def best_in_town(s: Scene) -> None:
    """Someone looks for the best-rated place of a kind in a city, then at what reviewers complain about."""
    p = s.pick(
        "SELECT p.* FROM places p WHERE p.review_count >= 3 AND p.category IN ('restaurant', 'cafe', 'bar', "
        "'museum') AND p.rating = (SELECT MAX(rating) FROM places q WHERE q.city = p.city AND q.category = "
        "p.category) AND (SELECT COUNT(*) FROM places q WHERE q.city = p.city AND q.category = p.category "
        "AND q.rating = p.rating) = 1"
    )
    words = {"restaurant": "restaurant", "cafe": "café", "bar": "bar", "museum": "museum"}[p["category"]]
    cheap = p["price_level"] <= 2 and p["category"] in ("restaurant", "bar", "cafe") and s.rng.random() < 0.3
    floor = 4.0 if p["rating"] >= 4.0 and s.rng.random() < 0.3 else None
    extra = (", nothing too pricey" if cheap else "") + (", at least four stars" if floor else "")
    as_user(s, p["city"])
    s.say(
        "What's the best-rated {w} in {city}{c}?",
        "Which {w} in {city} do people like most{c}?",
        "Top {w} in {city}{c}, by reviews?",
        minimal=["Best {w} in {city}?"],
        w=words,
        city=p["city"],
        c=extra,
    )
    args: dict[str, Any] = {"city": p["city"], "category": p["category"]}
    if cheap and not s.minimal:
        args["max_price_level"] = 2
    if floor and not s.minimal:
        args["min_rating"] = floor
    found = s.call("search_places", **args)["places"]
    if not found or found[0]["place_id"] != p["place_id"]:
        raise Skip("another place tops the list")
    focus(s, found[0]["place_id"])
    if not s.room(1, 1) or s.rng.random() < 0.3:
        return
    if s.rng.random() < 0.5:
        s.say(
            "Any bad reviews for it? What do people complain about?",
            "What do the unhappy reviewers say about it?",
            "Show me its low ratings, if any.",
        )
        s.call(
            "list_reviews",
            place_id=found[0]["place_id"],
            max_rating=2,
            **({"min_rating": 1} if s.rng.random() < 0.2 else {}),
        )
    else:
        s.say(
            "Is it open now, and where exactly is it?",
            "What are its hours and address?",
            "When does it open and close?",
        )
        s.call("get_place", place_id=found[0]["place_id"])


@maps.intent(covers=("search_users", "search_places", "save_place", "get_user"), follows=True)
def keep_for_later(s: Scene) -> None:
    """A user bookmarks a place with a label (and maybe a note), then checks what they have bookmarked."""
    u = me(s)
    near = s.memory.get("place")  # continuing a dialogue: another spot in the city it is about
    p = s.pick(
        PLACE + " AND p.place_id NOT IN (SELECT place_id FROM saved_places WHERE user_id = ?) AND p.city = ?",
        u["user_id"],
        near["city"] if near else s.pick("SELECT DISTINCT city FROM places")["city"],
    )
    label = s.rng.choice(("want to go", "date night", "with kids", "work", "favorite", "favorite"))
    note = s.rng.choice(("", "", "Ask for the patio", "Try the weekend menu", "Recommended by Sam"))
    how = {
        "want to go": "as somewhere I want to go",
        "date night": "as a date-night idea",
        "with kids": "as one for the kids",
        "work": "under work",
        "favorite": "as a favorite",
    }[label]
    s.say(
        "{me}Keep {p} on my map {how}{n}.",
        "{me}Bookmark {p} for me, {how}{n}.",
        "{me}Could you pin {p} to my places {how}{n}?",
        minimal=["{me}I want {p} in my places."],
        me=intro(s),
        p=place_ref(s, p),
        how=how,
        n=f", with the note '{note}'" if note else "",
    )
    uid = find_me(s, u)
    found = find_place(s, p)
    args: dict[str, Any] = {"user_id": uid, "place_id": found["place_id"]}
    if not s.minimal and label != "favorite":
        args["label"] = label
    if not s.minimal and note:
        args["note"] = note
    s.call("save_place", **args)
    focus(s, found["place_id"])
    if s.room(1, 1) and s.rng.random() < 0.5:
        s.say("What else have I got pinned now?", "What's in my places now?", "Read me back my bookmarks.")
        s.call("get_user", user_id=uid)


@maps.intent(covers=("search_users", "create_place_list", "search_places", "add_place_to_list"), follows=True)
def start_a_list(s: Scene) -> None:
    """A user starts a new list of places and puts a first place on it."""
    u = me(s)
    title = s.rng.choice(LIST_NAMES)
    if s.rows("SELECT 1 FROM place_lists WHERE user_id = ? AND name = ?", u["user_id"], title):
        raise Skip("the list exists")
    p = s.pick(PLACE + " AND p.city = ?", u["home_city"])
    public = s.rng.random() < 0.3
    name = s.given(title, f"'{title}'", "list name", "create_place_list", "name")
    shared = " Friends should be able to see it." if public else ""
    s.say(
        "{me}Start a new collection of places for me[ called {name}].{shared}",
        "{me}I'd like a fresh list[, {name}], in my maps.{shared}",
        "{me}Make me a new list of spots[ named {name}].{shared}",
        me=intro(s),
        name=name,
        shared=shared,
    )
    uid = find_me(s, u)
    made = s.call("create_place_list", user_id=uid, name=title, **({"is_public": True} if public else {}))
    s.memory["list"] = {"list_id": made["list_id"], "name": title}
    if not s.room(2, 1):
        return
    s.say("Put {p} on it as the first one.", "First spot for it: {p}.", "Add {p} to that one.", p=place_ref(s, p))
    found = find_place(s, p)
    s.call("add_place_to_list", list_id=made["list_id"], place_id=found["place_id"])
    focus(s, found["place_id"])


@maps.intent(
    covers=("search_users", "get_user", "get_place_list", "get_directions", "add_place_to_list", "search_places"),
    follows=True,
)
def my_list(s: Scene) -> None:
    """A user looks at one of their lists and then either heads between two of its places or adds one more."""
    fresh = s.memory.get("list")
    if fresh:
        s.say(
            "What's on '{n}' now?",
            "Read me back the '{n}' list.",
            "Show me the '{n}' list as it stands.",
            n=fresh["name"],
        )
        s.call("get_place_list", list_id=fresh["list_id"])
        return
    u = me(
        s,
        "u.user_id IN (SELECT l.user_id FROM place_lists l WHERE (SELECT COUNT(*) FROM list_items i "
        "WHERE i.list_id = l.list_id) >= 2)",
    )
    lst = s.pick(
        "SELECT * FROM place_lists l WHERE user_id = ? AND (SELECT COUNT(*) FROM list_items i "
        "WHERE i.list_id = l.list_id) >= 2",
        u["user_id"],
    )
    s.say(
        "{me}What's on my '{n}' list again?",
        "{me}Remind me which places are in my '{n}' list.",
        "{me}Pull up my '{n}' places.",
        minimal=["{me}My '{n}' list?"],
        me=intro(s),
        n=lst["name"],
    )
    uid = find_me(s, u)
    mine = [x for x in s.call("get_user", user_id=uid)["lists"] if x["name"] == lst["name"]]
    if len(mine) != 1:
        raise Skip("the list name is not unique")
    items = s.call("get_place_list", list_id=mine[0]["list_id"])["places"]
    if not s.room(1, 1):
        return
    if s.rng.random() < 0.5 or not s.room(2, 1):
        a, b = items[0], items[1]
        same = (
            s.rows(
                "SELECT COUNT(DISTINCT city) AS n FROM places WHERE place_id IN (?, ?)", a["place_id"], b["place_id"]
            )[0]["n"]
            == 1
        )
        mode = "walking" if same and s.rng.random() < 0.6 else "driving"
        s.say(
            "How do I {v} from {a} to {b}? Turn by turn, please.",
            "Give me the way from {a} to {b} {h}, step by step.",
            v=MODES[mode][0],
            h=MODES[mode][2],
            a=a["name"],
            b=b["name"],
        )
        args = route_args(a["place_id"], b["place_id"], mode)
        s.call("get_directions", **args)
        return
    p = s.pick(
        PLACE + " AND p.city = (SELECT city FROM places WHERE place_id = ?) AND p.place_id NOT IN "
        "(SELECT place_id FROM list_items WHERE list_id = ?)",
        items[0]["place_id"],
        lst["list_id"],
    )
    s.say("Put {p} on it too.", "Add {p} to that one as well.", "{p} belongs on there too.", p=place_ref(s, p))
    found = find_place(s, p)
    s.call("add_place_to_list", list_id=mine[0]["list_id"], place_id=found["place_id"])


@maps.intent(covers=("search_users", "search_places", "write_review", "get_place"), follows=True)
def rate_a_visit(s: Scene) -> None:
    """A user rates a place they visited, in their own words, then sees where its average stands."""
    u = me(s)
    p = s.pick(PLACE + " AND p.place_id NOT IN (SELECT place_id FROM reviews WHERE user_id = ?)", u["user_id"])
    stars = s.rng.choice((1, 2, 3, 4, 5, 5, 4))
    text = s.rng.choice(REVIEWS[stars])
    st = s.given(stars, f"{stars} star{'s' if stars > 1 else ''}", "rating", "write_review", "rating")
    words = s.given(text, f'"{text}"', "review text", "write_review", "text")
    s.say(
        "{me}I went to {p} yesterday. Post my rating[: {st}][, and say {words}]",
        "{me}Put up my two cents on {p}[: {st}][. Text: {words}]",
        "{me}I want to leave feedback for {p}[, {st}][. {words}]",
        me=intro(s),
        p=place_ref(s, p),
        st=st,
        words=words,
    )
    uid = find_me(s, u)
    found = find_place(s, p)
    s.call("write_review", user_id=uid, place_id=found["place_id"], rating=stars, text=text)
    focus(s, found["place_id"])
    if s.room(1, 1) and s.rng.random() < 0.5:
        s.say(
            "What's its overall score now?",
            "Where does its average stand after that?",
            "So what rating does it have overall now?",
        )
        s.call("get_place", place_id=found["place_id"])


@maps.intent(covers=("get_distinct_values", "search_places"))
def what_is_covered(s: Scene) -> None:
    """Someone asks which cities (or cuisines) the map covers, then looks for places in one of them."""
    field = s.rng.choice(("city", "cuisine"))
    as_user(s)
    if field == "city":
        s.say("Which cities does your map have places for?", "What towns do you cover?", "Which cities can I look in?")
        values = s.call("get_distinct_values", field="city")["values"]
        city = s.rng.choice(sorted(values))
        kind = s.rng.choice(("museum", "park", "cafe", "bar"))
        w = s.rng.choice(KINDS[kind])
        mood = s.rng.choice(("", "", " that's open now", " with at least four stars"))
        s.say(
            "OK, {city} then. What's a good {w} there{m}?",
            "{city}: which {w} is rated best{m}?",
            "Show me the top {w} spots in {city}{m}.",
            city=city,
            w=w,
            m=mood,
        )
        extra: dict[str, Any] = {"open_now": True} if "open" in mood else {"min_rating": 4.0} if mood else {}
        top = s.call("search_places", city=city, category=kind, **extra)["places"]
        if top:
            focus(s, top[0]["place_id"])
        return
    s.say(
        "What kinds of food can I find on your map?",
        "Which cuisines do you list restaurants for?",
        "What cuisines are there to choose from?",
    )
    values = s.call("get_distinct_values", field="cuisine")["values"]
    cuisine = s.rng.choice(sorted(values))
    city = s.pick("SELECT DISTINCT city FROM places WHERE cuisine = ?", cuisine)["city"]
    s.say(
        "I feel like {c}. Where can I get it in {city}?",
        "Any {c} food in {city}?",
        "Which {c} places are in {city}?",
        c=cuisine,
        city=city,
    )
    top = s.call("search_places", query=cuisine, city=city)["places"]
    if top:
        focus(s, top[0]["place_id"])
