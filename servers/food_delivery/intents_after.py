"""After ordering: where the food is, calling it off, rating it, what was in an order."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from servers.food_delivery.intents import (
    CUSTOMER,
    SPEAKER,
    WORDS,
    asks,
    find_me,
    find_restaurant,
    focus,
    focus_order,
    latest,
    me,
    stars_text,
    two_scores,
)
from servers.food_delivery.tools import food


@food.intent(covers=("search_customers", "get_customer", "track_order", "get_restaurant", "cancel_order"))
def where_is_my_food(s: Scene) -> None:
    """A hungry customer asks where the food they ordered is."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders WHERE status NOT IN ('delivered', 'cancelled'))")
    o = s.pick(
        "SELECT o.*, r.name AS restaurant FROM orders o JOIN restaurants r USING (restaurant_id) "
        "WHERE o.customer_id = ? AND o.status NOT IN ('delivered', 'cancelled')",
        c["customer_id"],
    )
    found = asks(s, c, WORDS.where_is_my_food, r=o["restaurant"])
    profile = s.call("get_customer", customer_id=found["customer_id"])
    if o["order_id"] not in profile["active_order_ids"]:
        raise Skip("the order is not active")
    s.call("track_order", order_id=o["order_id"])
    focus_order(s, o["order_id"])
    if not s.room() or s.rng.random() < 0.3:
        return
    if o["status"] in ("placed", "accepted") and s.rng.random() < 0.5:
        s.say(*WORDS.give_up)
        s.call("cancel_order", order_id=o["order_id"], reason="taking too long")
    else:
        s.say(*WORDS.call_them)
        s.call("get_restaurant", restaurant_id=o["restaurant_id"])


@food.intent(covers=("track_order", "cancel_order"))
def too_slow(s: Scene) -> None:
    """A customer reads the order number in the app, hears the wait, and gives up on it."""
    o = s.pick("SELECT * FROM orders WHERE status IN ('placed', 'accepted', 'preparing')")
    s.be(s.value("SELECT name FROM customers WHERE customer_id = ?", o["customer_id"]))
    s.say(WORDS.too_slow, n=o["order_id"])
    got = s.call("track_order", order_id=o["order_id"])
    s.memory["customer"] = s.rows(CUSTOMER + " WHERE c.customer_id = ?", got["customer_id"])[0]
    why = s.rng.choice(("taking too long", "changed my mind", "ordered by mistake"))
    s.say(
        {
            "taking too long": "That's too long. Call it off and refund me.",
            "changed my mind": "Actually, I {changed my mind|thought better of it} - call it off.",
            "ordered by mistake": "Hm, I ordered that by mistake anyway. {Please call it off|Call it off, please}.",
        }[why],
        "{Forget it|Never mind} then, I don't want it {anymore|now}.",
    )
    s.call("cancel_order", order_id=o["order_id"], reason=why)
    focus_order(s, o["order_id"])


@food.intent(covers=("cancel_order", "track_order"))
def call_it_off_now(s: Scene) -> None:
    """A customer cancels an order from the app's number straight away and asks what comes back."""
    o = s.pick("SELECT * FROM orders WHERE status IN ('placed', 'accepted', 'preparing')")
    s.be(s.value("SELECT name FROM customers WHERE customer_id = ?", o["customer_id"]))
    why = s.rng.choice(("ordered by mistake", "changed my mind"))
    s.say(
        WORDS.call_it_off_now,
        n=o["order_id"],
        w={"ordered by mistake": "ordered it by mistake", "changed my mind": "changed my mind"}[why],
    )
    s.call("cancel_order", order_id=o["order_id"], reason=why)
    s.memory["customer"] = s.rows(CUSTOMER + " WHERE c.customer_id = ?", o["customer_id"])[0]
    focus_order(s, o["order_id"])
    s.say(WORDS.call_it_off_now_check_refund)
    s.call("track_order", order_id=o["order_id"])


@food.intent(
    covers=("search_customers", "search_restaurants", "list_orders", "rate_order", "get_restaurant"), weight=1.5
)
def stars_for_dinner(s: Scene) -> None:
    """A customer gives stars to a delivered meal, for the food and for the delivery."""
    o = s.pick(
        "SELECT o.*, r.name AS restaurant, r.city AS rcity FROM orders o "
        "JOIN restaurants r USING (restaurant_id) "
        "WHERE o.status = 'delivered' AND NOT EXISTS (SELECT 1 FROM ratings x WHERE x.order_id = o.order_id)"
    )
    c = me(s, "c.customer_id = ?", o["customer_id"])
    when = day(o["delivered_at"], s.now)
    what = s.refer(
        o["order_id"],
        Ref(
            "my {r} order",
            "SELECT order_id FROM orders WHERE customer_id = ? AND restaurant_id = ? AND status = 'delivered'",
            c["customer_id"],
            o["restaurant_id"],
        ),
        Ref(
            "my {r} order from {when}",
            "SELECT order_id FROM orders WHERE customer_id = ? "
            "AND restaurant_id = ? AND status = 'delivered' AND substr(delivered_at, 1, 10) = ?",
            c["customer_id"],
            o["restaurant_id"],
            o["delivered_at"][:10],
        ),
        r=o["restaurant"],
        when=when.removeprefix("on "),
    )
    food_stars, ride_stars = s.rng.sample((5, 4, 3, 2, 1), 2)  # told apart: a withheld one is never the other
    tasty = s.given(food_stars, stars_text(food_stars), "food score", "rate_order", "food_stars")
    comment = s.rng.choice((None, *WORDS.comments))
    said = "" if comment is None else f' Add "{comment}"'
    ride = s.given(ride_stars, f"{ride_stars} stars", "delivery score", "rate_order", "delivery_stars")
    found = asks(s, c, WORDS.stars_for_dinner, what=what, tasty=tasty, ride=ride, said=said)
    rid = find_restaurant(s, {"restaurant_id": o["restaurant_id"], "name": o["restaurant"]}, found["city"])
    listed = s.call("list_orders", customer_id=found["customer_id"], restaurant_id=rid, status="delivered")["orders"]
    if o["order_id"] not in [x["order_id"] for x in listed]:
        raise Skip("the order is past the first page")
    args: dict[str, Any] = {"order_id": o["order_id"], "food_stars": food_stars, "delivery_stars": ride_stars}
    if comment:
        args["comment"] = comment
    out = s.call("rate_order", **args)
    s.say(WORDS.stars_for_dinner_new_rating, r=o["restaurant"])
    s.call("get_restaurant", restaurant_id=rid)
    s.memory["rating"] = out
    focus(s, rid)


@food.intent(covers=("search_customers", "list_orders", "rate_order"), weight=2.0)
def rate_my_last(s: Scene) -> None:
    """A customer rates the order that just arrived, their latest delivered one."""
    c = me(
        s,
        "c.customer_id IN (SELECT o.customer_id FROM orders o WHERE o.status = 'delivered' AND o.placed_at = "
        "(SELECT MAX(p.placed_at) FROM orders p WHERE p.customer_id = o.customer_id AND p.status = 'delivered') "
        "AND NOT EXISTS (SELECT 1 FROM ratings r WHERE r.order_id = o.order_id))",
    )
    last = s.rows(
        "SELECT o.* FROM orders o WHERE customer_id = ? AND status = 'delivered' "
        "ORDER BY placed_at DESC, order_id DESC",
        c["customer_id"],
    )
    if len(last) > 1 and last[0]["placed_at"] == last[1]["placed_at"]:
        raise Skip("two latest orders")
    o = last[0]
    if s.rows("SELECT 1 FROM ratings WHERE order_id = ?", o["order_id"]):
        raise Skip("already rated")
    f, d = two_scores(s)
    tasty = s.given(f, stars_text(f), "food score", "rate_order", "food_stars")
    ride = s.given(d, f"{d} stars", "delivery score", "rate_order", "delivery_stars")
    found = asks(s, c, WORDS.rate_my_last, tasty=tasty, ride=ride)
    listed = s.call("list_orders", customer_id=found["customer_id"], status="delivered", limit=1)["orders"]
    if not listed or listed[0]["order_id"] != o["order_id"]:
        raise Skip("another order lists first")
    s.call("rate_order", order_id=o["order_id"], food_stars=f, delivery_stars=d)
    focus_order(s, o["order_id"])


@food.intent(covers=("rate_order", "track_order"), weight=1.5)
def rate_by_number(s: Scene) -> None:
    """A customer rates a delivered order by the number on the receipt."""
    o = s.pick(
        "SELECT * FROM orders o WHERE status = 'delivered' AND NOT EXISTS (SELECT 1 FROM ratings x "
        "WHERE x.order_id = o.order_id)"
    )
    c = s.rows(CUSTOMER + " WHERE c.customer_id = ?", o["customer_id"])[0]
    SPEAKER.become(s, c)
    f, d = two_scores(s)
    tasty = s.given(f, f"{f} stars", "food score", "rate_order", "food_stars")
    ride = s.given(d, f"{d} stars", "delivery score", "rate_order", "delivery_stars")
    s.say(WORDS.rate_by_number, n=o["order_id"], tasty=tasty, ride=ride)
    s.call("rate_order", order_id=o["order_id"], food_stars=f, delivery_stars=d)
    focus_order(s, o["order_id"])
    s.then(1.0, WORDS.recap, "track_order", order_id=o["order_id"])


@food.intent(covers=("search_customers", "get_customer", "list_orders"), follows=True)
def my_history(s: Scene) -> None:
    """A customer checks the address on file and what they ordered lately."""
    c = me(s)
    n = s.rng.choice((3, 5))
    if s.turns:  # continuing a dialogue: one turn
        s.asked("get_customer", customer_id=c["customer_id"])
        s.say(WORDS.my_history_follow_on, n=n)
        found = find_me(s, c)
        s.call("get_customer", customer_id=found["customer_id"])
        latest(s, s.call("list_orders", customer_id=found["customer_id"], limit=n)["orders"])
        return
    found = asks(s, c, WORDS.my_history)
    s.call("get_customer", customer_id=found["customer_id"])
    s.say(WORDS.my_history_last_orders, n=n)
    latest(s, s.call("list_orders", customer_id=found["customer_id"], limit=n)["orders"])


@food.intent(covers=("track_order",), weight=1.0)
def whats_in_order(s: Scene) -> None:
    """A customer reads an order number off the receipt and asks what was in it and what it cost."""
    o = s.pick("SELECT * FROM orders WHERE status IN ('delivered', 'cancelled', 'preparing', 'out_for_delivery')")
    c = s.rows(CUSTOMER + " WHERE c.customer_id = ?", o["customer_id"])[0]
    SPEAKER.become(s, c)
    s.say(WORDS.whats_in_order, n=o["order_id"])
    s.call("track_order", order_id=o["order_id"])
    focus_order(s, o["order_id"])


@food.intent(covers=("search_customers", "list_orders"), weight=1.0)
def my_last_order(s: Scene) -> None:
    """A customer asks about their latest order; it becomes the order of the dialogue."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders)")
    found = asks(s, c, WORDS.my_last_order)
    orders = s.call("list_orders", customer_id=found["customer_id"], limit=1)["orders"]
    if not orders:
        raise Skip("no orders")
    focus_order(s, orders[0]["order_id"])
