"""What people ask next on maps, about the spot (or the way) the dialogue is about, and more ways to start.

An earlier turn leaves the spot it ended on in ``s.memory["place"]`` (the agent holds its id) and the
last route it timed in ``s.memory["route"]``; the person talking is a map user throughout (``me``), found
with ``search_users`` the first time a turn needs their id. Follow-ups name the spot by its name, which
the user said or read in the previous answer.
"""

from __future__ import annotations

from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.maps.intents import (
    KINDS,
    MODES,
    PLACE,
    WORDS,
    find_place,
    focus,
    nearest,
    place_ref,
    route_args,
    route_fits,
)
from servers.maps.tools import maps

LABELS = {
    "want to go": "as somewhere I want to go",
    "date night": "as a date-night idea",
    "with kids": "as one for the kids",
    "work": "under work",
}
VISITS = {
    5: ("Wonderful, we'll be back.", "Best visit in ages."),
    4: ("Really good, a little busy.", "Lovely, slightly pricey."),
    3: ("Decent, nothing special.", "Fine for a quick stop."),
    2: ("Slow and a bit grubby.", "Not great this time."),
    1: ("Terrible, avoid.", "Never again."),
}


def the_place(s: Scene) -> dict[str, Any]:
    """The spot the dialogue is about, as it is now."""
    p = s.known("place", "no spot in the dialogue yet")
    return dict(s.rows(PLACE + " AND p.place_id = ?", p["place_id"])[0])


def the_route(s: Scene) -> dict[str, Any]:
    return dict(s.known("route", "no route in the dialogue yet"))


def places_of(s: Scene, ids: tuple[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    a = s.rows(PLACE + " AND p.place_id = ?", ids[0])
    b = s.rows(PLACE + " AND p.place_id = ?", ids[1])
    if not a or not b:
        raise Skip("a spot of the route has a shared name")
    return a[0], b[0]


# About the spot --------------------------------------------------------------------------------


def _route(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    return the_route(s), {"name": ""}


def _place(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    p = the_place(s)
    return {"place_id": p["place_id"]}, {"name": p["name"]}


def _not_spelled(s: Scene, args: dict[str, Any]) -> None:
    if any(c.tool == "get_directions" for c in s.calls):
        raise Skip("the way was already spelled out")


ASKS = (
    FollowUp(
        "is_it_open", "The user asks whether the spot is open now, its hours or its phone number.", _place, "get_place"
    ),
    FollowUp(
        "turn_by_turn",
        "After a travel time, the user wants the way spelled out turn by turn.",
        _route,
        "get_directions",
        asked=False,
        check=_not_spelled,
    ),
)


follow_ups(maps, ASKS, WORDS)


REVIEW_MOODS: dict[str, dict[str, Any]] = {
    "all": {},
    "bad": {"max_rating": 2},
    "good": {"min_rating": 4},
    "latest": {"limit": 3},
}  # the read's filter per mood


@maps.intent(covers=("list_reviews",), follows=True, opens=False)
def what_people_say(s: Scene) -> None:
    """The user asks what others thought of the spot: everything, the complaints, or the praise."""
    p = the_place(s)
    if not p["review_count"]:
        raise Skip("nobody rated it yet")
    s.asked("list_reviews", place_id=p["place_id"])
    mood = s.rng.choice(("all", "all", "bad", "good", "latest"))
    s.say(WORDS.family("review_moods")[mood], name=p["name"])
    s.call("list_reviews", place_id=p["place_id"], **REVIEW_MOODS[mood])


# Getting there ---------------------------------------------------------------------------------


@maps.intent(covers=("search_places", "get_route"), follows=True, opens=False)
def get_there_from(s: Scene) -> None:
    """The user asks how long it takes to reach the spot from (or to go on to) another named spot."""
    p = the_place(s)
    mode = s.rng.choice(("driving", "walking", "walking", "cycling", "transit"))
    other = s.pick(PLACE + " AND p.city = ? AND p.place_id != ?", p["city"], p["place_id"])
    if not route_fits(other, p, mode):
        raise Skip("too far for that way of travelling")
    onward = s.rng.random() < 0.4
    verb, _, how = MODES[mode]
    s.say(
        WORDS.get_there_from if onward else WORDS.get_there_from_inbound,
        name=p["name"],
        o=place_ref(s, other),
        verb=verb,
        how=how,
    )
    found = find_place(s, other)
    ids = (p["place_id"], found["place_id"]) if onward else (found["place_id"], p["place_id"])
    args = route_args(ids[0], ids[1], mode)
    s.call("get_route", **args)
    s.memory["route"] = args
    if onward:
        focus(s, found["place_id"])


@maps.intent(covers=("get_route",), follows=True, opens=False)
def another_way(s: Scene) -> None:
    """After a travel time, the user asks how long the same trip takes another way."""
    r = the_route(s)
    a, b = places_of(s, (r["origin_place_id"], r["destination_place_id"]))
    was = r.get("mode", "driving")
    mode = s.rng.choice([m for m in MODES if m != was and route_fits(a, b, m)] or [was])
    if mode == was:
        raise Skip("no other way fits")
    verb, word, how = MODES[mode]
    s.say(WORDS.another_way, how=how, verb=verb, word=word)
    args = route_args(a["place_id"], b["place_id"], mode)
    if any(c.tool == "get_route" and c.arguments.get("mode", "driving") == mode for c in s.calls):
        raise Skip("that way was timed already")
    s.call("get_route", **args)
    s.memory["route"] = args


# Around the spot -------------------------------------------------------------------------------


@maps.intent(covers=("search_nearby",), follows=True, opens=False)
def around_it(s: Scene) -> None:
    """The user wants another kind of spot close to the one the dialogue is about; the nearest becomes the
    spot of the dialogue."""
    p = the_place(s)
    kind = s.rng.choice([k for k in KINDS if k != p["category"]])
    words = s.rng.choice(KINDS[kind])
    radius = s.rng.choice((None, None, 1.0, 5.0))
    now = s.rng.random() < 0.3
    far = "close to" if radius is None else f"within {radius:g} km of"
    s.say(
        "Is there a {w}{o} {far} {name}{|, by any chance}?",
        "Any {w}{o} {far} {name}? I'll be there {anyway|later}.",
        "What's the nearest {w}{o} to {name}?" if radius is None else "Find me a {w}{o} {far} {name}.",
        "{While I'm there|Since I'll be there}, {is there|any} {w}{o} {far} {name}?",
        w=words,
        o=" open now" if now else "",
        far=far,
        name=p["name"],
    )
    args: dict[str, Any] = {"place_id": p["place_id"], "category": kind}
    if radius is not None:
        args["radius_km"] = radius
    if now:
        args["open_now"] = True
    focus(s, nearest(s, **args)["place_id"])


@maps.intent(covers=("search_places",), follows=True, opens=False)
def anything_better(s: Scene) -> None:
    """The user asks for better-rated spots of the same kind in the city; the best of the others becomes the
    spot of the dialogue."""
    p = the_place(s)
    if p["rating"] >= 4.8:
        raise Skip("nothing rates higher")
    cheap = s.rng.random() < 0.3 and p["price_level"] >= 2
    kind = s.rng.choice(KINDS.get(p["category"], (p["category"],)))
    s.say(WORDS.anything_better, w=kind, city=p["city"], name=p["name"], c=", but cheaper" if cheap else "")
    args: dict[str, Any] = {"city": p["city"], "category": p["category"], "min_rating": p["rating"]}
    if cheap:
        args["max_price_level"] = p["price_level"] - 1
    found = [x for x in s.call("search_places", **args)["places"] if x["place_id"] != p["place_id"]]
    if not found:
        raise Skip("none better")
    focus(s, found[0]["place_id"])
