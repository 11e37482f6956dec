"""More ways to start a dialogue on maps: a spot heard of by name, what is open in town, which of two is better,
what the map covers, what is at a dropped pin. Each leaves the spot it ends on for the follow-ups."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.maps.intents import KINDS, PLACE, as_user, find_place, focus, place_ref
from servers.maps.tools import maps


@maps.intent(covers=("search_places",), weight=1.5)
def where_is_it(s: Scene) -> None:
    """Someone asks about a spot they heard of by name; the dialogue goes on about it."""
    p = s.pick(PLACE)
    as_user(s, p["city"])
    s.say(
        "A friend told me about {p}. What's it like?",
        "Have you got {p} on the map? How is it rated?",
        "I keep hearing about {p}. Is it any good?",
        "{Someone|A colleague} {recommended|mentioned} {p}. {Is it worth it|How good is it}?",
        "{Do you know|Can you look up} {p}? {What's the rating|How do people like it}?",
        "{Tell me about|What can you tell me about} {p}{|, is it popular}?",
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
            "Which {w} in {city} is open {right now|at the moment}?",
            "{Need|Looking for} a {w} in {city} that's open at this hour.",
            "{Anything|Something} open {now|right now} in {city}? A {w}, ideally.",
            w=w,
            city=city,
        )
    elif how == "popular":
        args["sort_by"] = "review_count"
        s.say(
            "What's the most {talked-about|reviewed} {w} in {city}?",
            "Which {w} in {city} has the most {write-ups|reviews}?",
            "{Which|What} {w} in {city} {do most people review|gets the most reviews}?",
            w=w,
            city=city,
        )
    else:
        args["max_price_level"] = 1
        s.say(
            "Cheapest {w} options in {city}?",
            "Any budget {w} in {city}? One dollar sign only.",
            "{On a budget|Money's tight}: {which|what} {w} in {city} is {cheapest|the least expensive}?",
            w=w,
            city=city,
        )
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
        "{Can't decide|Can't choose} between {a} and {b}. {Which is better|Which one wins} on reviews?",
        "{Compare|Check} {a} and {b} for me: which {has the better rating|do people prefer}?",
        "{Should I go to|Is it better to pick} {a} or {b}? {Going by reviews|By rating}, please.",
        a=place_ref(s, a),
        b=place_ref(s, b),
    )
    fa = find_place(s, a)
    fb = find_place(s, b)
    best = fa if fa["rating"] > fb["rating"] else fb
    focus(s, best["place_id"])


@maps.intent(covers=("get_distinct_values", "search_places"))
def what_is_covered(s: Scene) -> None:
    """Someone asks which cities (or cuisines) the map covers, then looks for places in one of them."""
    field = s.rng.choice(("city", "cuisine"))
    as_user(s)
    if field == "city":
        s.say(
            "Which cities does your map have places for?",
            "What towns do you cover?",
            "Which cities can I look in?",
            "{Where|Which places} {does your map cover|do you have listings for}?",
            "{Before I start|Quick question}: {which cities|what cities} are on the map?",
        )
        values = s.call("get_distinct_values", field="city")["values"]
        city = s.rng.choice(sorted(values))
        kind = s.rng.choice(("museum", "park", "cafe", "bar"))
        w = s.rng.choice(KINDS[kind])
        mood = s.rng.choice(("", "", " that's open now", " with at least four stars"))
        s.say(
            "OK, {city} then. What's a good {w} there{m}?",
            "{city}: which {w} is rated best{m}?",
            "{Show me|List} the top {w} spots in {city}{m}.",
            "{Let's try|Let's go with} {city}. {Any|Got a} good {w}{m}?",
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
        "{I'm hungry|Thinking about dinner}. What {kinds of food|cuisines} {can I pick from|are there}?",
    )
    values = s.call("get_distinct_values", field="cuisine")["values"]
    cuisine = s.rng.choice(sorted(values))
    city = s.pick("SELECT DISTINCT city FROM places WHERE cuisine = ?", cuisine)["city"]
    s.say(
        "I feel like {c}. Where can I get it in {city}?",
        "Any {c} food in {city}{| worth trying}?",
        "Which {c} places are in {city}?",
        "{Let's do|I'll go for} {c}. {Where|Which places} in {city}?",
        c=cuisine,
        city=city,
    )
    top = s.call("search_places", query=cuisine, city=city)["places"]
    if top:
        focus(s, top[0]["place_id"])


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
        "{I've got|I have} {coordinates|a location} {from a text|from a friend}: {lat}, {lon}. What's there?",
        "{Which|What} street is {lat}, {lon} on?",
        "{Can you|Could you} turn {lat}, {lon} into an address{| for me}?",
        lat=lat,
        lon=lon,
    )
    at = s.call("reverse_geocode", lat=lat, lon=lon)
    if not at["place_ids"]:
        raise Skip("nothing at the nearest address")
    s.say(
        "Is there a business at that address? What is it and when is it open?",
        "What's the place at that address, and is it open {now|today}?",
        "What can I find there? {Opening hours|Phone number}?",
        "{Anything|Any shop or restaurant} {at that spot|there}? {Tell me about it|I'd like its hours}.",
        "{And|So} what's {at|located at} that address{| exactly}?",
    )
    s.call("get_place", place_id=at["place_ids"][0])
    focus(s, at["place_ids"][0])
