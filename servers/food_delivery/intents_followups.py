"""What people ask next on food delivery, about the restaurant or the order the dialogue is about.

An earlier turn leaves the restaurant it ended on in ``s.memory["restaurant"]`` and the order in
``s.memory["order"]`` (the agent holds their ids); the customer talking is found with
``search_customers`` the first time a turn needs their id (``find_me``). Follow-ups call the restaurant
"they" or by name, and the order "it" or "my order".
"""

from __future__ import annotations

from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip, clock, unique_best
from servers.food_delivery.intents import (
    MEALS,
    NUMBERS,
    SENDABLE,
    WORDS,
    asks,
    cart,
    customer_of_order,
    focus,
    focus_order,
    me,
    promo_fits,
    ran_last,
    restaurant,
    saving,
    start_time,
    the_order,
    the_restaurant,
    too_far,
)
from servers.food_delivery.tools import food

ABOUT_THE_PLACE = (  # one turn, one read of the restaurant the dialogue is about: name, what it is, the read, phrasings
    (
        "are_they_open",
        "The customer asks about the restaurant: open now, hours, minimum order, fees, phone.",
        "get_restaurant",
        WORDS.about_them,
    ),
    (
        "any_codes_there",
        "The customer asks which discount codes work at the restaurant.",
        "list_promo_codes",
        WORDS.codes_at,
    ),
)


def _the_place(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    r = the_restaurant(s)
    return {"restaurant_id": r["restaurant_id"]}, {"name": r["name"]}


follow_ups(food, [FollowUp(n, doc, _the_place, tool, phrasings=said) for n, doc, tool, said in ABOUT_THE_PLACE], WORDS)


@food.intent(covers=("get_menu",), follows=True, opens=False)
def whats_on_the_menu(s: Scene) -> None:
    """The customer looks at the restaurant's menu: one course, vegetarian dishes, or what can be had now."""
    r = the_restaurant(s)
    args: dict[str, Any] = {"restaurant_id": r["restaurant_id"]}
    how = s.rng.choice(("all", "course", "veggie", "now"))
    if how == "course":
        meal = s.rng.choice(list(MEALS))
        args["category"] = meal
        s.say(WORDS.whats_on_the_menu, m=MEALS[meal], name=r["name"])
    elif how == "veggie":
        args["vegetarian_only"] = True
        s.say(WORDS.whats_on_the_menu_veggie, name=r["name"])
    elif how == "now":
        args["available_only"] = True
        s.say(WORDS.whats_on_the_menu_available, name=r["name"])
    else:
        s.say(WORDS.whats_on_the_menu_full, name=r["name"])
    if any(c.tool == "get_menu" and c.arguments == args for c in s.calls):
        raise Skip("that menu was read already")
    s.call("get_menu", **args)


@food.intent(covers=("search_customers", "list_orders"), follows=True, opens=False)
def ordered_there_before(s: Scene) -> None:
    """The customer asks what they ordered from the restaurant before; the newest becomes the order of the
    dialogue."""
    r = the_restaurant(s)
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders WHERE restaurant_id = ?)", r["restaurant_id"])
    delivered = s.rng.random() < 0.4
    found = asks(s, c, WORDS.ordered_there_before, name=r["name"], d="delivered " if delivered else "")
    args: dict[str, Any] = {"customer_id": found["customer_id"], "restaurant_id": r["restaurant_id"]}
    if delivered:
        args["status"] = "delivered"
    orders = s.call("list_orders", **args)["orders"]
    if orders:
        focus_order(s, orders[0]["order_id"])


@food.intent(covers=("search_customers", "get_menu", "add_to_cart"), follows=True, opens=False)
def one_of_those(s: Scene) -> None:
    """The customer puts a dish of the restaurant in the basket (starting over when it holds another's)."""
    r = the_restaurant(s)
    c = me(s)
    if too_far(r, c):
        raise Skip("too far to deliver")
    wanted = s.memory.get("dish")  # the dish the customer searched for, when they did
    dish = s.pick(
        "SELECT * FROM menu_items WHERE restaurant_id = ? AND available = 1 AND (? IS NULL OR name = ?)",
        r["restaurant_id"],
        wanted,
        wanted,
    )
    if s.rows(
        "SELECT 1 FROM menu_items WHERE restaurant_id = ? AND name = ? AND item_id != ?",
        r["restaurant_id"],
        dish["name"],
        dish["item_id"],
    ):
        raise Skip("two dishes share the name")
    have, lines, _ = cart(s, c["customer_id"])
    if any(x["item_id"] == dish["item_id"] for x in lines):
        raise Skip("already in the basket")
    fresh = have is not None and have["restaurant_id"] != r["restaurant_id"]
    qty = s.rng.choice((1, 1, 2, 3))
    found = asks(
        s,
        c,
        WORDS.one_of_those,
        n=NUMBERS[qty],
        dish=dish["name"],
        f=" Clear out what's in there now." if fresh else "",
    )
    item = s.find(
        "get_menu", "items", "item_id", dish["item_id"], missing="not on the menu", restaurant_id=r["restaurant_id"]
    )
    args: dict[str, Any] = {"customer_id": found["customer_id"], "item_id": item["item_id"]}
    if qty > 1:
        args["quantity"] = qty
    if fresh:
        args["replace_cart"] = True
    s.call("add_to_cart", **args)


@food.intent(covers=("search_customers", "view_cart"), follows=True, opens=False)
def basket_total(s: Scene) -> None:
    """The customer asks what the basket comes to now."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM cart_items)")
    if s.memory.get("customer") and ran_last(s, "view_cart", customer_id=c["customer_id"]):
        raise Skip("the total was just read")
    found = asks(s, c, WORDS.basket_total)
    s.call("view_cart", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "place_order"), follows=True, opens=False)
def send_it_now(s: Scene) -> None:
    """The customer sends the basket off (now, or for later today when the restaurant is closed)."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM carts) AND " + SENDABLE)
    row, lines, subtotal = cart(s, c["customer_id"])
    if row is None or not lines:
        raise Skip("no basket")
    r = restaurant(s, row["restaurant_id"])
    promo_ok = not row["promo_code"] or promo_fits(s, row["promo_code"], c["customer_id"], r["restaurant_id"], subtotal)
    if not promo_ok or too_far(r, c):
        raise Skip("the basket cannot go out")
    start = start_time(s, r)
    note = s.rng.choice((None, None, *WORDS.notes))
    when = "" if start is None else f" for {clock(start)}"
    found = asks(s, c, WORDS.send_it_now, when=when, n=f" Tell the courier: '{note}'." if note else "")
    args: dict[str, Any] = {"customer_id": found["customer_id"]}
    if note:
        args["instructions"] = note
    if start is not None:
        args["scheduled_for"] = start.strftime("%Y-%m-%dT%H:%M")
    placed = s.call("place_order", **args)
    focus_order(s, placed["order_id"])


@food.intent(covers=("search_customers", "list_promo_codes", "apply_promo_code"), follows=True, opens=False)
def best_code(s: Scene) -> None:
    """The customer asks for the best discount on the basket: the agent lists the codes usable at that
    restaurant and applies the one that takes the most off."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM carts)")
    row, lines, subtotal = cart(s, c["customer_id"])
    if row is None or not lines or row["promo_code"]:
        raise Skip("no basket, or it has a code")
    r = restaurant(s, row["restaurant_id"])
    found = asks(s, c, WORDS.best_code)
    codes = s.call("list_promo_codes", restaurant_id=row["restaurant_id"])["promo_codes"]
    usable = [p for p in codes if subtotal >= p["min_subtotal"]]
    if not usable:
        raise Skip("no code fits the basket")
    best = unique_best(usable, lambda p: saving(p, subtotal, r["delivery_fee"]), tie="two codes save the same")
    if not promo_fits(s, best["code"], c["customer_id"], row["restaurant_id"], subtotal):
        raise Skip("the best code was used already")
    s.call("apply_promo_code", customer_id=found["customer_id"], code=best["code"])


@food.intent(covers=("track_order",), follows=True, opens=False)
def when_does_it_come(s: Scene) -> None:
    """The customer asks how far along the order is, when it arrives, or who brings it."""
    o = the_order(s)
    if ran_last(s, "track_order", order_id=o["order_id"]):
        raise Skip("just tracked")
    s.say(*(WORDS.recap if o["status"] in ("delivered", "cancelled") else WORDS.when_here))
    s.call("track_order", order_id=o["order_id"])


BECAUSE = WORDS.family("because")


@food.intent(covers=("cancel_order",), follows=True, opens=False)
def never_mind(s: Scene) -> None:
    """The customer calls the order off after all."""
    o = the_order(s)
    customer_of_order(s, o)
    if o["status"] not in ("placed", "accepted", "preparing"):
        raise Skip("it can no longer be called off")
    why = s.rng.choice(list(BECAUSE))
    stated = s.rng.random() < 0.5  # a reason only where the turn gives one
    s.say(*(BECAUSE[why] if stated else WORDS.scrap))
    s.call("cancel_order", order_id=o["order_id"], **({"reason": why} if stated else {}))


@food.intent(covers=("search_customers", "get_customer"), follows=True, opens=False)
def where_do_you_deliver(s: Scene) -> None:
    """The customer checks the address on file and what else they have coming."""
    c = me(s)
    if s.memory.get("customer"):
        s.asked("get_customer", customer_id=c["customer_id"])
    found = asks(s, c, WORDS.where_do_you_deliver)
    s.call("get_customer", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "list_orders"), follows=True, opens=False)
def anything_else_coming(s: Scene) -> None:
    """The customer asks about their orders in one state (on the way, cancelled, delivered)."""
    c = me(s)
    status = s.rng.choice(("out_for_delivery", "placed", "cancelled", "delivered"))
    words = WORDS.family("anything_else_coming_words")
    found = asks(s, c, *("{me}. " + w for w in words[status]))
    s.call("list_orders", customer_id=found["customer_id"], status=status)


@food.intent(covers=("rate_order",), follows=True, opens=False)
def score_it(s: Scene) -> None:
    """After looking at a delivered order, the customer rates it."""
    o = the_order(s)
    customer_of_order(s, o)
    if o["status"] != "delivered" or s.rows("SELECT 1 FROM ratings WHERE order_id = ?", o["order_id"]):
        raise Skip("not a delivered, unrated order")
    food_stars, ride = s.rng.choice((5, 4, 4, 3, 2)), s.rng.choice((5, 5, 4, 2))
    s.say(WORDS.score_it, f=food_stars, d=ride)
    s.call("rate_order", order_id=o["order_id"], food_stars=food_stars, delivery_stars=ride)


@food.intent(covers=("get_restaurant",), follows=True, opens=False)
def call_the_kitchen(s: Scene) -> None:
    """About the order, the customer wants to reach the restaurant that cooks it."""
    o = the_order(s)
    if any(c.tool == "get_restaurant" and c.arguments.get("restaurant_id") == o["restaurant_id"] for c in s.calls):
        raise Skip("the restaurant was looked up")
    if not any(c.tool in ("track_order", "list_orders", "place_order") for c in s.calls):
        raise Skip("the agent has not seen the order's restaurant")
    s.say(*WORDS.call_them)
    s.call("get_restaurant", restaurant_id=o["restaurant_id"])
    focus(s, o["restaurant_id"])
