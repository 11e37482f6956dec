"""What people want of maps: how long it takes to get somewhere, what is nearby, what is good, and their lists.

Most requests are reads: "how long to drive from X to Y", "a coffee place near ...", "the best Thai place
in Denver". People name places by name and city, spots by street address ("I'm at 363 Elm St, Seattle"),
and a dropped pin by its coordinates. For their own saved places, lists and reviews they say who they
are; the agent finds their user id with ``search_users`` and places with ``search_places``.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.maps import tools_people  # noqa: F401  (tools before intents)
from servers.maps.schema import MODES as MODES_KM
from servers.maps.schema import _km
from servers.maps.tools import UserId, maps

WORDS = phrasings(__package__)

PLACE = (
    "SELECT p.*, a.street_number, a.street, a.full_address FROM places p JOIN addresses a USING (address_id) "
    "WHERE (SELECT COUNT(*) FROM places q WHERE q.name = p.name AND q.city = p.city) = 1"
)
USER = "SELECT * FROM users u WHERE (SELECT COUNT(*) FROM users v WHERE v.name = u.name) = 1"
SPEAKER = Speaker(UserId, select=USER, memory="me", alias="u.", says=(Says("I'm {name}. ", "name"),), search=Search())
MODES = WORDS.family("modes")
KINDS = WORDS.family("kinds")
REVIEWS = {
    5: ("Fantastic, the staff went out of their way for us.", "Loved every minute, will be back soon."),
    4: ("Very good, just a bit crowded at lunch.", "Nice spot, prices a touch high."),
    3: ("It was fine, nothing memorable.", "Okay overall, service was slow."),
    2: ("Disappointing visit, long wait and cold food.", "Not worth the trip across town."),
    1: ("Awful experience, would not go back.", "Rude service and a dirty room."),
}


def place_ref(s: Scene, p: dict[str, Any]) -> str:
    return s.named(p, "places", "place_id", "{name} in {city}")


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
    """The user talking (``SPEAKER.me``); when an opening turn made the persona a map user (``as_user``) and no turn
    found them yet, that user. ``Skip`` when they do not fit ``where``."""
    if s.speaker and not s.memory.get("me"):
        found = s.rows(USER + f" AND u.name = ? AND ({where})", s.speaker, *params)
        if not found:
            raise Skip("the user talking does not fit")
        return found[0]
    return SPEAKER.me(s, where, *params)


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


def intro(s: Scene, u: dict[str, Any]) -> str:
    """How the user says who they are (``SPEAKER.who``) until they are found; sometimes with their home town, which
    the agent can filter by."""
    if not s.memory.get("me") and s.rng.random() < 0.1:
        s.memory["by_city"] = u["home_city"]
        return f"I'm {u['name']} from {u['home_city']}. "
    return SPEAKER.who(s, u)


def find_me(s: Scene, u: dict[str, Any]) -> str:
    """The discovery read for the user (``SPEAKER.find``), by the home town they said."""
    city = s.memory.pop("by_city", None)
    return SPEAKER.find(s, u, **({"home_city": city} if city else {}))


def user_asks(s: Scene, u: dict[str, Any], *phrasings: Said, **slots: Any) -> str:
    """The user's turn in one of ``phrasings`` (``{me}``: who they are, until found), then their user id."""
    s.say(*phrasings, me=intro(s, u), **slots)
    return find_me(s, u)


def nearest(s: Scene, **args: Any) -> dict[str, Any]:
    """The nearest place a nearby search finds; ``Skip`` when it finds none, or two as near."""
    near = s.call("search_nearby", **args)["places"]
    if not near or (len(near) > 1 and near[0]["distance_km"] == near[1]["distance_km"]):
        raise Skip("nothing close, or a tie for the nearest")
    return dict(near[0])


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
    s.say(WORDS.how_long, verb=verb, how=how, a=place_ref(s, a), b=place_ref(s, b))
    pa = find_place(s, a)
    pb = find_place(s, b)
    args = route_args(pa["place_id"], pb["place_id"], mode)
    s.call("get_route", **args)
    s.memory["route"] = args
    focus(s, pb["place_id"])
    if s.rng.random() < 0.9:
        s.say(
            "OK, talk me through the way, turn by turn.",
            "Which streets do I take{| to get there}?",
            "Walk me through it step by step." if mode == "walking" else "Tell me each turn, please.",
            "{And|OK, and} {how do I get there|which way do I go}? {Turn by turn|Step by step}, please.",
            "{Can|Could} you {give me|spell out} the {directions|turns}{| for that}?",
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
        WORDS.something_near_me,
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
    args.update({"radius_km": radius} if radius != 2.0 else {}, **({"open_now": True} if now else {}))
    args.update({"limit": 3} if few and not s.minimal else {})
    near = nearest(s, **args)
    s.say(WORDS.something_near_me_nearest_info)
    s.call("get_place", place_id=near["place_id"])
    focus(s, near["place_id"])


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
    s.say(WORDS.near_a_landmark, w=words, a=place_ref(s, a), far=far)
    pa = find_place(s, a)
    near = nearest(s, place_id=pa["place_id"], category=kind, **({"radius_km": radius} if radius != 2.0 else {}))
    mode = s.rng.choice(("walking", "walking", "cycling", "driving"))
    focus(s, near["place_id"])
    if not s.room(1, 1) or s.rng.random() < 0.25:
        return
    s.say(WORDS.near_a_landmark_route_there, v=MODES[mode][0], h=MODES[mode][2])
    args = route_args(pa["place_id"], near["place_id"], mode)
    s.call("get_route", **args)
    s.memory["route"] = args


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
    s.say(WORDS.best_in_town, w=words, city=p["city"], c=extra)
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
        s.say(WORDS.best_in_town_bad_reviews)
        s.call(
            "list_reviews",
            place_id=found[0]["place_id"],
            max_rating=2,
            **({"min_rating": 1} if s.rng.random() < 0.2 else {}),
        )
    else:
        s.say(WORDS.best_in_town_hours_address)
        s.call("get_place", place_id=found[0]["place_id"])
