"""Finding food, and the people behind the counter: the kitchen's queue and the dispatch desk."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.food_delivery.intents import MEALS, WORDS, as_customer, find_as_said, focus, focus_order, place
from servers.food_delivery.schema import FLOW
from servers.food_delivery.tools import _open_at, food


@food.intent(covers=("search_restaurants", "get_menu", "get_restaurant"))
def open_right_now(s: Scene) -> None:
    """Someone in a city wants a kind of food from somewhere open now, and looks at what it serves."""
    open_now = [r for r in s.rows("SELECT * FROM restaurants") if _open_at(r, s.now)]
    if not open_now:
        raise Skip("nothing is open")
    r = s.rng.choice(open_now)
    as_customer(s, r["city"])
    meal = s.rng.choice(("mains", "mains", "desserts", "drinks"))
    veg = s.rng.random() < 0.4
    s.say(WORDS.open_right_now, city=r["city"], cuisine=r["cuisine"])
    found = s.call("search_restaurants", city=r["city"], cuisine=r["cuisine"], open_now=True)["restaurants"]
    if not found:
        raise Skip("nothing open")
    top = found[0]
    focus(s, top["restaurant_id"])
    if s.rng.random() < 0.3:
        return
    if s.rng.random() < 0.7:
        s.say(WORDS.open_right_now_top_menu, veg="vegetarian " if veg else "", meal=MEALS[meal])
        args: dict[str, Any] = {"restaurant_id": top["restaurant_id"], "category": meal}
        if veg:
            args["vegetarian_only"] = True
        s.call("get_menu", **args)
    else:
        s.say(WORDS.open_right_now_top_details)
        s.call("get_restaurant", restaurant_id=top["restaurant_id"])


@food.intent(covers=("search_restaurants", "list_promo_codes", "get_restaurant"))
def any_deals(s: Scene) -> None:
    """Someone asks what deals a restaurant has, then whether it is open."""
    r = s.pick("SELECT * FROM restaurants")
    as_customer(s, r["city"])
    where = place(s, r)
    s.say(*WORDS.codes_at, name=where)
    rid = find_as_said(s, r, where)
    s.call("list_promo_codes", restaurant_id=rid)
    focus(s, rid)
    if s.rng.random() < 0.4:
        return
    s.say(*WORDS.about_them, name=r["name"])
    s.call("get_restaurant", restaurant_id=rid)


@food.intent(covers=("get_distinct_values", "search_restaurants"))
def what_food_is_there(s: Scene) -> None:
    """Someone new asks what kinds of food the app has, then for the best places of one kind in a city."""
    r = s.pick("SELECT cuisine, city FROM restaurants")
    as_customer(s, r["city"])
    stars = s.rng.choice((None, 3.5, 4.0))
    s.say(WORDS.what_food_is_there)
    s.call("get_distinct_values", field="cuisine")
    s.say(
        "Show me the best {c} places in {city}."
        if stars is None
        else "Which {c} places in {city} have {stars} stars or more?",
        "I'm in {city} - who does good {c}?" if stars is None else "{c} in {city}, rated at least {stars}?",
        c=r["cuisine"],
        city=r["city"],
        stars=stars,
    )
    args: dict[str, Any] = {"city": r["city"], "cuisine": r["cuisine"]}
    if stars:
        args["min_rating"] = stars
    top = s.call("search_restaurants", **args)["restaurants"]
    if top:
        focus(s, top[0]["restaurant_id"])


@food.intent(covers=("search_restaurants", "get_menu"))
def cheap_and_veggie(s: Scene) -> None:
    """Someone wants an open place with a cheap delivery fee and what vegetarian food it has right now."""
    open_now = [r for r in s.rows("SELECT * FROM restaurants WHERE delivery_fee <= 2.99") if _open_at(r, s.now)]
    if not open_now:
        raise Skip("nothing cheap is open")
    r = s.rng.choice(open_now)
    as_customer(s, r["city"])
    fee = s.rng.choice((1.99, 2.99)) if r["delivery_fee"] > 0.99 else s.rng.choice((0.99, 1.99, 2.99))
    s.say(WORDS.cheap_and_veggie, city=r["city"], fee=money(fee))
    found = s.call("search_restaurants", city=r["city"], open_now=True, max_delivery_fee=fee)["restaurants"]
    if not found:
        raise Skip("nothing found")
    focus(s, found[0]["restaurant_id"])
    if s.rng.random() < 0.3:
        return
    s.say(WORDS.cheap_and_veggie_menu)
    s.call("get_menu", restaurant_id=found[0]["restaurant_id"], vegetarian_only=True, available_only=True)


@food.intent(covers=("search_restaurants",), weight=1.5)
def heard_of_it(s: Scene) -> None:
    """Someone asks about a restaurant they heard of by name; the dialogue goes on about it."""
    r = s.pick("SELECT * FROM restaurants")
    as_customer(s, r["city"])
    where = place(s, r)
    s.say(WORDS.heard_of_it, where=where)
    rid = find_as_said(s, r, where)
    focus(s, rid)


@food.intent(covers=("search_restaurants",), weight=1.5)
def who_makes_it(s: Scene) -> None:
    """Someone craving a dish asks which restaurants in their city make it; the best-rated becomes the
    restaurant of the dialogue."""
    dish = s.pick(
        "SELECT m.name, r.city FROM menu_items m JOIN restaurants r USING (restaurant_id) WHERE m.available = 1 "
        "AND length(m.name) > 5"
    )
    as_customer(s, dish["city"])
    cheap = s.rng.random() < 0.3
    s.say(WORDS.who_makes_it, d=dish["name"], city=dish["city"], c=" Delivery under $3, please." if cheap else "")
    args: dict[str, Any] = {"query": dish["name"], "city": dish["city"]}
    if cheap:
        args["max_delivery_fee"] = 3
    found = s.call("search_restaurants", **args)["restaurants"]
    if not found:
        raise Skip("nobody makes it")
    focus(s, found[0]["restaurant_id"])
    s.memory["dish"] = dish["name"]


NEXT_WORDS = WORDS.family("next_words")


@food.intent(covers=("track_order", "advance_order_status"))
def dispatch_desk(s: Scene) -> None:
    """The dispatch desk checks an order on its screen and moves it along when the kitchen or courier reports."""
    o = s.pick(
        "SELECT o.*, r.name AS restaurant, r.city FROM orders o JOIN restaurants r USING (restaurant_id) "
        "WHERE o.status IN ('placed', 'accepted', 'preparing', 'out_for_delivery') AND o.scheduled_for IS NULL"
    )
    nxt = FLOW[FLOW.index(o["status"]) + 1]
    if nxt == "out_for_delivery" and not s.rows(
        "SELECT 1 FROM couriers WHERE city = ? AND status = 'available'", o["city"]
    ):
        raise Skip("no courier free in the city")
    s.say(WORDS.dispatch_desk, n=o["order_id"])
    s.call("track_order", order_id=o["order_id"])
    s.say(*NEXT_WORDS[nxt], r=o["restaurant"], n=o["order_id"])
    s.call("advance_order_status", order_id=o["order_id"])
    focus_order(s, o["order_id"])
    s.memory["staff"] = True


@food.intent(covers=("search_restaurants", "list_orders", "advance_order_status"))
def kitchen_queue(s: Scene) -> None:
    """Someone running a restaurant looks at new orders waiting for them and takes the oldest on."""
    r = s.pick(
        "SELECT * FROM restaurants r WHERE EXISTS (SELECT 1 FROM orders o WHERE o.restaurant_id = "
        "r.restaurant_id AND o.status = 'placed')"
    )
    where = place(s, r)
    s.say(WORDS.kitchen_queue, where=where)
    rid = find_as_said(s, r, where)
    waiting = s.call("list_orders", restaurant_id=rid, status="placed")["orders"]
    if not waiting:
        raise Skip("nothing waiting")
    oldest = min(waiting, key=lambda x: (x["placed_at"], x["order_id"]))
    s.say(WORDS.kitchen_queue_accept_oldest)
    s.call("advance_order_status", order_id=oldest["order_id"])
    focus_order(s, oldest["order_id"])
    s.memory["staff"] = True
