"""More ways to start a dialogue on maps: a spot heard of by name, what is open in town, which of two is better,
what the map covers, what is at a dropped pin. Each leaves the spot it ends on for the follow-ups."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.maps.intents import KINDS, PLACE, WORDS, as_user, find_place, focus, place_ref
from servers.maps.tools import maps


@maps.intent(covers=("search_places",), weight=1.5)
def where_is_it(s: Scene) -> None:
    """Someone asks about a spot they heard of by name; the dialogue goes on about it."""
    p = s.pick(PLACE)
    as_user(s, p["city"])
    s.say(WORDS.where_is_it, p=place_ref(s, p))
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
        s.say(WORDS.open_in_town, w=w, city=city)
    elif how == "popular":
        args["sort_by"] = "review_count"
        s.say(WORDS.open_in_town_most_reviewed, w=w, city=city)
    else:
        args["max_price_level"] = 1
        s.say(WORDS.open_in_town_cheapest, w=w, city=city)
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
    s.say(WORDS.which_is_better, a=place_ref(s, a), b=place_ref(s, b))
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
        s.say(WORDS.what_is_covered_cities)
        values = s.call("get_distinct_values", field="city")["values"]
        city = s.rng.choice(sorted(values))
        kind = s.rng.choice(("museum", "park", "cafe", "bar"))
        w = s.rng.choice(KINDS[kind])
        mood = s.rng.choice(("", "", " that's open now", " with at least four stars"))
        s.say(WORDS.what_is_covered_best_in_city, city=city, w=w, m=mood)
        extra: dict[str, Any] = {"open_now": True} if "open" in mood else {"min_rating": 4.0} if mood else {}
        top = s.call("search_places", city=city, category=kind, **extra)["places"]
        if top:
            focus(s, top[0]["place_id"])
        return
    s.say(WORDS.what_is_covered)
    values = s.call("get_distinct_values", field="cuisine")["values"]
    cuisine = s.rng.choice(sorted(values))
    city = s.pick("SELECT DISTINCT city FROM places WHERE cuisine = ?", cuisine)["city"]
    s.say(WORDS.what_is_covered_cuisine_in_city, c=cuisine, city=city)
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
    s.say(WORDS.dropped_pin, lat=lat, lon=lon)
    at = s.call("reverse_geocode", lat=lat, lon=lon)
    if not at["place_ids"]:
        raise Skip("nothing at the nearest address")
    s.say(WORDS.dropped_pin_place_there)
    s.call("get_place", place_id=at["place_ids"][0])
    focus(s, at["place_ids"][0])
