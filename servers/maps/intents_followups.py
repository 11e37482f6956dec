"""What people ask next on maps, about the spot (or the way) the dialogue is about, and more ways to start.

An earlier turn leaves the spot it ended on in ``s.memory["place"]`` (the agent holds its id) and the
last route it timed in ``s.memory["route"]``; the person talking is a map user throughout (``me``), found
with ``search_users`` the first time a turn needs their id. Follow-ups name the spot by its name, which
the user said or read in the previous answer.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.maps.intents import (
    KINDS,
    MODES,
    PLACE,
    as_user,
    find_me,
    find_place,
    focus,
    intro,
    me,
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
    p = s.memory.get("place")
    if not p:
        raise Skip("no spot in the dialogue yet")
    return dict(s.rows(PLACE + " AND p.place_id = ?", p["place_id"])[0])


def the_route(s: Scene) -> dict[str, Any]:
    r = s.memory.get("route")
    if not r:
        raise Skip("no route in the dialogue yet")
    return dict(r)


def places_of(s: Scene, ids: tuple[str, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    a = s.rows(PLACE + " AND p.place_id = ?", ids[0])
    b = s.rows(PLACE + " AND p.place_id = ?", ids[1])
    if not a or not b:
        raise Skip("a spot of the route has a shared name")
    return a[0], b[0]


# About the spot --------------------------------------------------------------------------------


@maps.intent(covers=("get_place",), follows=True, opens=False)
def is_it_open(s: Scene) -> None:
    """The user asks whether the spot is open now, its hours or its phone number."""
    p = the_place(s)
    s.asked("get_place", place_id=p["place_id"])
    s.say(
        "Is {name} open right now?",
        "What hours does {name} keep?",
        "Got a phone number for {name}?",
        "When does {name} close today?",
        "Where exactly is {name}? The street address, please.",
        name=p["name"],
    )
    s.call("get_place", place_id=p["place_id"])


@maps.intent(covers=("list_reviews",), follows=True, opens=False)
def what_people_say(s: Scene) -> None:
    """The user asks what others thought of the spot: everything, the complaints, or the praise."""
    p = the_place(s)
    if not p["review_count"]:
        raise Skip("nobody rated it yet")
    s.asked("list_reviews", place_id=p["place_id"])
    mood = s.rng.choice(("all", "all", "bad", "good", "latest"))
    args: dict[str, Any] = {"place_id": p["place_id"]}
    if mood == "bad":
        args["max_rating"] = 2
        s.say("Do people complain about {name}?", "Any one- or two-star write-ups for {name}?", name=p["name"])
    elif mood == "good":
        args["min_rating"] = 4
        s.say("What do the happy visitors say about {name}?", "Read me the four- and five-star ones.", name=p["name"])
    elif mood == "latest":
        args["limit"] = 3
        s.say(
            "What do the last three people say about {name}?", "Just the three newest opinions, please.", name=p["name"]
        )
    else:
        s.say("What do people think of {name}?", "Is {name} any good, going by what visitors wrote?", name=p["name"])
    s.call("list_reviews", **args)


@maps.intent(covers=("search_users", "save_place"), follows=True, opens=False)
def save_it(s: Scene) -> None:
    """The user keeps the spot in their saved spots, maybe with a label."""
    p = the_place(s)
    u = me(s, "u.user_id NOT IN (SELECT user_id FROM saved_places WHERE place_id = ?)", p["place_id"])
    label = s.rng.choice((None, None, *LABELS))
    how = f" {LABELS[label]}" if label else ""
    s.say(
        "{me}Keep {name} on my map{how}.",
        "{me}Bookmark that one for me{how}.",
        "{me}Pin {name} to my saved spots{how}, please.",
        me=intro(s),
        name=p["name"],
        how=how,
    )
    uid = find_me(s, u)
    s.call("save_place", user_id=uid, place_id=p["place_id"], **({"label": label} if label else {}))


@maps.intent(covers=("search_users", "get_user", "add_place_to_list"), follows=True, opens=False)
def onto_my_list(s: Scene) -> None:
    """The user puts the spot on one of their lists, named as they call it."""
    p = the_place(s)
    u = me(s)
    lst = s.pick(
        "SELECT * FROM place_lists l WHERE l.user_id = ? AND l.list_id NOT IN "
        "(SELECT list_id FROM list_items WHERE place_id = ?)",
        u["user_id"],
        p["place_id"],
    )
    s.say(
        "{me}Add {name} to my '{lst}' list.",
        "{me}{name} belongs on my '{lst}' list, put it there.",
        "{me}Stick that one on my '{lst}' list too.",
        me=intro(s),
        name=p["name"],
        lst=lst["name"],
    )
    uid = find_me(s, u)
    mine = s.find("get_user", "lists", "name", lst["name"], missing="the list is not on the profile", user_id=uid)
    s.call("add_place_to_list", list_id=mine["list_id"], place_id=p["place_id"])
    s.memory["list"] = {"list_id": mine["list_id"], "name": lst["name"]}


@maps.intent(covers=("search_users", "write_review"), follows=True, opens=False)
def been_there(s: Scene) -> None:
    """The user has been to the spot before and leaves their stars and a line about it."""
    p = the_place(s)
    u = me(s, "u.user_id NOT IN (SELECT user_id FROM reviews WHERE place_id = ?)", p["place_id"])
    stars = s.rng.choice((1, 2, 3, 4, 4, 5, 5))
    text = s.rng.choice(VISITS[stars])
    s.say(
        '{me}I\'ve actually been to {name}. Give it {n} star{pl}: "{text}"',
        '{me}I was at {name} last month, so let me rate it: {n} out of 5, "{text}"',
        '{me}Put my {n} star{pl} on {name}, with "{text}"',
        me=intro(s),
        name=p["name"],
        n=stars,
        pl="s" if stars > 1 else "",
        text=text,
    )
    uid = find_me(s, u)
    s.call("write_review", user_id=uid, place_id=p["place_id"], rating=stars, text=text)


@maps.intent(covers=("search_users", "get_user"), follows=True, opens=False)
def what_i_saved(s: Scene) -> None:
    """The user asks what they have saved and which lists they keep."""
    u = me(s)
    if s.memory.get("me"):
        s.asked("get_user", user_id=u["user_id"])
    s.say(
        "{me}What have I got saved on my map so far?",
        "{me}Read me back my bookmarks and lists.",
        "{me}Which spots and lists do I have saved?",
        me=intro(s),
    )
    uid = find_me(s, u)
    s.call("get_user", user_id=uid)


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
        ("And from {name}, how long to {verb} on to {o}?" if onward else "How long to {verb} to {name} from {o}?"),
        ("Then I head to {o}: how long {how}?" if onward else "I'd be coming from {o}. How long {how}?"),
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
    s.say(
        "And {how}?", "What if I {verb} instead?", "How about {word}, how long is that?", how=how, verb=verb, word=word
    )
    args = route_args(a["place_id"], b["place_id"], mode)
    if any(c.tool == "get_route" and c.arguments.get("mode", "driving") == mode for c in s.calls):
        raise Skip("that way was timed already")
    s.call("get_route", **args)
    s.memory["route"] = args


@maps.intent(covers=("get_directions",), follows=True, opens=False)
def turn_by_turn(s: Scene) -> None:
    """After a travel time, the user wants the way spelled out turn by turn."""
    r = the_route(s)
    if any(c.tool == "get_directions" for c in s.calls):
        raise Skip("the way was already spelled out")
    s.say(
        "Which way do I go? Turn by turn, please.",
        "Walk me through that trip step by step.",
        "OK, give me the turns.",
        "Which streets does that take me along?",
    )
    s.call("get_directions", **r)


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
        "Is there a {w}{o} {far} {name}?",
        "Any {w}{o} {far} {name}? I'll be there anyway.",
        "What's the nearest {w}{o} to {name}?" if radius is None else "Find me a {w}{o} {far} {name}.",
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
    near = s.call("search_nearby", **args)["places"]
    if not near or (len(near) > 1 and near[0]["distance_km"] == near[1]["distance_km"]):
        raise Skip("nothing close, or a tie for the nearest")
    focus(s, near[0]["place_id"])


@maps.intent(covers=("search_places",), follows=True, opens=False)
def anything_better(s: Scene) -> None:
    """The user asks for better-rated spots of the same kind in the city; the best of the others becomes the
    spot of the dialogue."""
    p = the_place(s)
    if p["rating"] >= 4.8:
        raise Skip("nothing rates higher")
    cheap = s.rng.random() < 0.3 and p["price_level"] >= 2
    kind = s.rng.choice(KINDS.get(p["category"], (p["category"],)))
    s.say(
        "Is there a {w} in {city} rated higher than {name}{c}?",
        "Any better-reviewed {w} in {city}{c}?",
        "Compared to {name}, what {w} do people rate best in {city}{c}?",
        w=kind,
        city=p["city"],
        name=p["name"],
        c=", but cheaper" if cheap else "",
    )
    args: dict[str, Any] = {"city": p["city"], "category": p["category"], "min_rating": p["rating"]}
    if cheap:
        args["max_price_level"] = p["price_level"] - 1
    found = [x for x in s.call("search_places", **args)["places"] if x["place_id"] != p["place_id"]]
    if not found:
        raise Skip("none better")
    focus(s, found[0]["place_id"])


# More ways to start ----------------------------------------------------------------------------


@maps.intent(covers=("search_places",), weight=1.5)
def where_is_it(s: Scene) -> None:
    """Someone asks about a spot they heard of by name; the dialogue goes on about it."""
    p = s.pick(PLACE)
    as_user(s, p["city"])
    s.say(
        "A friend told me about {p}. What's it like?",
        "Have you got {p} on the map? How is it rated?",
        "I keep hearing about {p}. Is it any good?",
        minimal=["{p}?"],
        p=place_ref(s, p),
    )
    found = find_place(s, p)
    focus(s, found["place_id"])


@maps.intent(covers=("search_places",), weight=1.5)
def open_in_town(s: Scene) -> None:
    """Someone wants a kind of spot in a city that is open now (or the most reviewed, or a cheap one)."""
    kind = s.rng.choice(list(KINDS))
    city = s.pick("SELECT DISTINCT city FROM places WHERE category = ?", kind)["city"]
    as_user(s, city)
    w = s.rng.choice(KINDS[kind])
    how = s.rng.choice(("open", "popular", "cheap", "open"))
    args: dict[str, Any] = {"city": city, "category": kind}
    if how == "open":
        args["open_now"] = True
        s.say(
            "Which {w} in {city} is open right now?", "Need a {w} in {city} that's open at this hour.", w=w, city=city
        )
    elif how == "popular":
        args["sort_by"] = "review_count"
        s.say(
            "What's the most talked-about {w} in {city}?", "Which {w} in {city} has the most write-ups?", w=w, city=city
        )
    else:
        args["max_price_level"] = 1
        s.say("Cheapest {w} options in {city}?", "Any budget {w} in {city}? One dollar sign only.", w=w, city=city)
    found = s.call("search_places", **args)["places"]
    if not found:
        raise Skip("nothing fits")
    focus(s, found[0]["place_id"])


@maps.intent(covers=("search_places",), weight=1.0)
def which_is_better(s: Scene) -> None:
    """Someone torn between two spots of a kind in a city asks which is rated better; the better one is the
    spot of the dialogue."""
    a = s.pick(PLACE)
    b = s.pick(
        PLACE + " AND p.city = ? AND p.category = ? AND p.place_id != ? AND p.rating != ?",
        a["city"],
        a["category"],
        a["place_id"],
        a["rating"],
    )
    as_user(s, a["city"])
    s.say(
        "{a} or {b}: which one do people like more?",
        "Torn between {a} and {b}. Which has better ratings?",
        "Which is rated higher, {a} or {b}?",
        a=place_ref(s, a),
        b=place_ref(s, b),
    )
    fa = find_place(s, a)
    fb = find_place(s, b)
    best = fa if fa["rating"] > fb["rating"] else fb
    focus(s, best["place_id"])


@maps.intent(covers=("search_users", "get_user"), weight=1.0)
def from_my_bookmarks(s: Scene) -> None:
    """A user looks through what they saved, to talk about one of those spots next."""
    u = me(s, "u.user_id IN (SELECT user_id FROM saved_places)")
    saved = s.rows(PLACE + " AND p.place_id IN (SELECT place_id FROM saved_places WHERE user_id = ?)", u["user_id"])
    if not saved:
        raise Skip("no saved spot with a unique name")
    s.say(
        "{me}What did I bookmark on my map?",
        "{me}Remind me what I've saved.",
        "{me}Pull up my saved spots.",
        minimal=["{me}My bookmarks?"],
        me=intro(s),
    )
    uid = find_me(s, u)
    s.call("get_user", user_id=uid)
    focus(s, s.rng.choice(saved)["place_id"])
