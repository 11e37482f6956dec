"""What people ask next on food delivery, about the restaurant or the order the dialogue is about, and more
ways to start.

An earlier turn leaves the restaurant it ended on in ``s.memory["restaurant"]`` and the order in
``s.memory["order"]`` (the agent holds their ids); the customer talking is found with
``search_customers`` the first time a turn needs their id (``find_me``). Follow-ups call the restaurant
"they" or by name, and the order "it" or "my order".
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, clock, unique_best
from servers.food_delivery.intents import (
    CUSTOMER,
    MEALS,
    NOTES,
    NUMBERS,
    SENDABLE,
    as_customer,
    asks,
    cart,
    find_as_said,
    fitting_promo,
    focus,
    focus_order,
    me,
    place,
    promo_fits,
    restaurant,
    stars_text,
    start_time,
    too_far,
)
from servers.food_delivery.tools import food


def the_restaurant(s: Scene) -> dict[str, Any]:
    r = s.memory.get("restaurant")
    if not r or s.memory.get("staff"):
        raise Skip("no restaurant a customer asks about in the dialogue")
    return dict(restaurant(s, r["restaurant_id"]))


def the_order(s: Scene) -> dict[str, Any]:
    o = s.memory.get("order")
    if not o:
        raise Skip("no order in the dialogue yet")
    return dict(s.rows("SELECT * FROM orders WHERE order_id = ?", o["order_id"])[0])


def ask_once(s: Scene, tool: str, arguments: dict[str, Any], *phrasings: str, **slots: Any) -> None:
    """A follow-up read the dialogue has not made yet (``Skip`` when it has): one of ``phrasings``, then the call."""
    s.asked(tool, **arguments)
    s.say(*phrasings, **slots)
    s.call(tool, **arguments)


def ran_last(s: Scene, tool: str, **arguments: Any) -> bool:
    """Whether the dialogue's latest call was ``tool`` with these arguments (asking again adds nothing)."""
    calls = list(s.calls)
    return bool(calls) and calls[-1].tool == tool and all(calls[-1].arguments.get(k) == v for k, v in arguments.items())


def customer_of_order(s: Scene, o: dict[str, Any]) -> None:
    """``Skip`` unless the order is the talking customer's (a staff dialogue is no customer's)."""
    known = s.memory.get("customer") or {}
    said = s.memory.get("speaker_id")
    if o["customer_id"] not in (known.get("customer_id"), said):
        raise Skip("the order is not the talking customer's")


# About the restaurant --------------------------------------------------------------------------


@food.intent(covers=("get_restaurant",), follows=True, opens=False)
def are_they_open(s: Scene) -> None:
    """The customer asks about the restaurant: open now, hours, minimum order, fees, phone."""
    r = the_restaurant(s)
    ask_once(
        s,
        "get_restaurant",
        {"restaurant_id": r["restaurant_id"]},
        "Is {name} open right now?",
        "What's the minimum order at {name}, and the delivery fee?",
        "When does {name} close tonight?",
        "What's their phone number?",
        "How long do they usually take to cook?",
        name=r["name"],
    )


@food.intent(covers=("get_menu",), follows=True, opens=False)
def whats_on_the_menu(s: Scene) -> None:
    """The customer looks at the restaurant's menu: one course, vegetarian dishes, or what can be had now."""
    r = the_restaurant(s)
    args: dict[str, Any] = {"restaurant_id": r["restaurant_id"]}
    how = s.rng.choice(("all", "course", "veggie", "now"))
    if how == "course":
        meal = s.rng.choice(list(MEALS))
        args["category"] = meal
        s.say("What {m} do they have?", "Show me {name}'s {m}.", m=MEALS[meal], name=r["name"])
    elif how == "veggie":
        args["vegetarian_only"] = True
        s.say("Anything vegetarian at {name}?", "What can a vegetarian eat there?", name=r["name"])
    elif how == "now":
        args["available_only"] = True
        s.say("What can I actually order from {name} right now?", "Which dishes aren't sold out there?", name=r["name"])
    else:
        s.say("What's on {name}'s menu?", "What do they serve?", "Let me see their menu.", name=r["name"])
    if any(c.tool == "get_menu" and c.arguments == args for c in s.calls):
        raise Skip("that menu was read already")
    s.call("get_menu", **args)


@food.intent(covers=("list_promo_codes",), follows=True, opens=False)
def any_codes_there(s: Scene) -> None:
    """The customer asks which discount codes work at the restaurant."""
    r = the_restaurant(s)
    ask_once(
        s,
        "list_promo_codes",
        {"restaurant_id": r["restaurant_id"]},
        "Any discount codes I can use at {name}?",
        "Are there deals running for {name}?",
        "Is there a promo that works at {name}?",
        name=r["name"],
    )


@food.intent(covers=("search_customers", "list_orders"), follows=True, opens=False)
def ordered_there_before(s: Scene) -> None:
    """The customer asks what they ordered from the restaurant before; the newest becomes the order of the
    dialogue."""
    r = the_restaurant(s)
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders WHERE restaurant_id = ?)", r["restaurant_id"])
    delivered = s.rng.random() < 0.4
    found = asks(
        s,
        c,
        "{me}. Have I ordered from {name} before?",
        "{me} - what did I get from {name} last time?",
        "{me}. Show me my {d}orders from them.",
        name=r["name"],
        d="delivered " if delivered else "",
    )
    args: dict[str, Any] = {"customer_id": found["customer_id"], "restaurant_id": r["restaurant_id"]}
    if delivered:
        args["status"] = "delivered"
    orders = s.call("list_orders", **args)["orders"]
    if orders:
        focus_order(s, orders[0]["order_id"])


# Ordering from it ------------------------------------------------------------------------------


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
        "{me}. Put {n} {dish} from there in my basket.{f}",
        "{me} - I'll have {n} of the {dish}.{f}",
        "{me}. Add {n} {dish} to my food basket, please.{f}",
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
    found = asks(
        s,
        c,
        "{me}. What does my basket come to now?",
        "{me} - what's the total with fees?",
        "{me}. Can I check out yet, or is something missing?",
    )
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
    note = s.rng.choice((None, None, *NOTES))
    when = "" if start is None else f" for {clock(start)}"
    found = asks(
        s,
        c,
        "{me}. Great, send it{when}.{n}",
        "{me} - go ahead and order that{when}.{n}",
        "{me}. That's all, place it{when}.{n}",
        when=when,
        n=f" Tell the courier: '{note}'." if note else "",
    )
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
    found = asks(
        s,
        c,
        "{me}. Which discount code saves me the most on that basket? Use it.",
        "{me} - put the best deal you can find on my order.",
        "{me}. Any codes that work for that basket? Apply whichever takes off the most.",
    )
    codes = s.call("list_promo_codes", restaurant_id=row["restaurant_id"])["promo_codes"]
    usable = [p for p in codes if subtotal >= p["min_subtotal"]]
    if not usable:
        raise Skip("no code fits the basket")
    best = unique_best(usable, lambda p: saving(p, subtotal, r["delivery_fee"]), tie="two codes save the same")
    if not promo_fits(s, best["code"], c["customer_id"], row["restaurant_id"], subtotal):
        raise Skip("the best code was used already")
    s.call("apply_promo_code", customer_id=found["customer_id"], code=best["code"])


def saving(p: dict[str, Any], subtotal: float, fee: float) -> float:
    """What a listed code takes off a basket (the rules of ``apply_promo_code``)."""
    if p["kind"] == "percent":
        return round(min(subtotal * p["value"] / 100, 30.0), 2)
    if p["kind"] == "amount":
        return round(min(p["value"], subtotal), 2)
    return float(fee)


# About the order -------------------------------------------------------------------------------


@food.intent(covers=("track_order",), follows=True, opens=False)
def when_does_it_come(s: Scene) -> None:
    """The customer asks how far along the order is, when it arrives, or who brings it."""
    o = the_order(s)
    if ran_last(s, "track_order", order_id=o["order_id"]):
        raise Skip("just tracked")
    if o["status"] in ("delivered", "cancelled"):
        s.say("What was in that order again, and what did it cost?", "Show me that order's items and total.")
    else:
        s.say(
            "When will it get here?",
            "How long until the food arrives?",
            "Where's that order at now?",
            "Who's bringing it, and when?",
        )
    s.call("track_order", order_id=o["order_id"])


@food.intent(covers=("cancel_order",), follows=True, opens=False)
def never_mind(s: Scene) -> None:
    """The customer calls the order off after all."""
    o = the_order(s)
    customer_of_order(s, o)
    if o["status"] not in ("placed", "accepted", "preparing"):
        raise Skip("it can no longer be called off")
    why = s.rng.choice(("changed my mind", "ordered by mistake", "taking too long"))
    s.say(
        {
            "changed my mind": "Actually, I changed my mind. Call it off.",
            "ordered by mistake": "Oops, I ordered that by mistake. Call it off, please.",
            "taking too long": "That's taking too long, forget it.",
        }[why],
        "Hmm, scrap that order after all.",
    )
    args: dict[str, Any] = {"order_id": o["order_id"]}
    if s.turns[-1].phrasing != "Hmm, scrap that order after all.":
        args["reason"] = why
    s.call("cancel_order", **args)


@food.intent(covers=("search_customers", "get_customer"), follows=True, opens=False)
def where_do_you_deliver(s: Scene) -> None:
    """The customer checks the address on file and what else they have coming."""
    c = me(s)
    if s.memory.get("customer"):
        s.asked("get_customer", customer_id=c["customer_id"])
    found = asks(
        s,
        c,
        "{me}. Which address will it go to?",
        "{me} - what address do you have for me? Anything else of mine on the way?",
        "{me}. Do I have other orders open right now?",
    )
    s.call("get_customer", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "list_orders"), follows=True, opens=False)
def anything_else_coming(s: Scene) -> None:
    """The customer asks about their orders in one state (on the way, cancelled, delivered)."""
    c = me(s)
    status = s.rng.choice(("out_for_delivery", "placed", "cancelled", "delivered"))
    words = {
        "out_for_delivery": "Which of my orders are out on the road right now?",
        "placed": "Any orders of mine the restaurant hasn't taken yet?",
        "cancelled": "Which of my orders got cancelled?",
        "delivered": "List the orders that actually reached me.",
    }
    found = asks(s, c, "{me}. " + words[status])
    s.call("list_orders", customer_id=found["customer_id"], status=status)


@food.intent(covers=("rate_order",), follows=True, opens=False)
def score_it(s: Scene) -> None:
    """After looking at a delivered order, the customer rates it."""
    o = the_order(s)
    customer_of_order(s, o)
    if o["status"] != "delivered" or s.rows("SELECT 1 FROM ratings WHERE order_id = ?", o["order_id"]):
        raise Skip("not a delivered, unrated order")
    food_stars, ride = s.rng.choice((5, 4, 4, 3, 2)), s.rng.choice((5, 5, 4, 2))
    s.say(
        "Let me rate that one: {f} stars for the food, {d} for the delivery.",
        "I'd give that order {f} out of 5 for the food and {d} for the courier.",
        f=food_stars,
        d=ride,
    )
    s.call("rate_order", order_id=o["order_id"], food_stars=food_stars, delivery_stars=ride)


@food.intent(covers=("get_restaurant",), follows=True, opens=False)
def call_the_kitchen(s: Scene) -> None:
    """About the order, the customer wants to reach the restaurant that cooks it."""
    o = the_order(s)
    if any(c.tool == "get_restaurant" and c.arguments.get("restaurant_id") == o["restaurant_id"] for c in s.calls):
        raise Skip("the restaurant was looked up")
    if not any(c.tool in ("track_order", "list_orders", "place_order") for c in s.calls):
        raise Skip("the agent has not seen the order's restaurant")
    s.say(
        "How do I reach the restaurant for that order?",
        "Give me the number of the place that's cooking it.",
        "Which restaurant is it from again, and how do I call them?",
    )
    s.call("get_restaurant", restaurant_id=o["restaurant_id"])
    focus(s, o["restaurant_id"])


# More ways to start ----------------------------------------------------------------------------


@food.intent(covers=("search_restaurants",), weight=1.5)
def heard_of_it(s: Scene) -> None:
    """Someone asks about a restaurant they heard of by name; the dialogue goes on about it."""
    r = s.pick("SELECT * FROM restaurants")
    as_customer(s, r["city"])
    where = place(s, r)
    s.say(
        "Do you have {where}? How are they rated?",
        "A friend raved about {where}. Are they any good?",
        "Is {where} on the app?",
        minimal=["{where}?"],
        where=where,
    )
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
    s.say(
        "Who does {d} in {city}?{c}",
        "I'm in {city} and I want {d}. Where can I get it?{c}",
        "Which places in {city} have {d} on the menu?{c}",
        d=dish["name"],
        city=dish["city"],
        c=" Delivery under $3, please." if cheap else "",
    )
    args: dict[str, Any] = {"query": dish["name"], "city": dish["city"]}
    if cheap:
        args["max_delivery_fee"] = 3
    found = s.call("search_restaurants", **args)["restaurants"]
    if not found:
        raise Skip("nobody makes it")
    focus(s, found[0]["restaurant_id"])
    s.memory["dish"] = dish["name"]


@food.intent(covers=("track_order",), weight=1.0)
def whats_in_order(s: Scene) -> None:
    """A customer reads an order number off the receipt and asks what was in it and what it cost."""
    o = s.pick("SELECT * FROM orders WHERE status IN ('delivered', 'cancelled', 'preparing', 'out_for_delivery')")
    c = s.rows(CUSTOMER + " WHERE c.customer_id = ?", o["customer_id"])[0]
    s.be(c["name"])
    s.memory["speaker_id"] = c["customer_id"]
    s.say(
        "What was in order {n}, and what did I pay?",
        "My receipt says {n}. What did I get?",
        "Can you pull up {n}? I want to check the items.",
        n=o["order_id"],
    )
    s.call("track_order", order_id=o["order_id"])
    focus_order(s, o["order_id"])


@food.intent(covers=("search_customers", "list_orders"), weight=1.0)
def my_last_order(s: Scene) -> None:
    """A customer asks about their latest order; it becomes the order of the dialogue."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders)")
    found = asks(
        s,
        c,
        "{me}. What was my last order?",
        "{me} - what did I order most recently?",
        "{me}. Pull up my latest order, please.",
        minimal=["{me}. My last order?"],
    )
    orders = s.call("list_orders", customer_id=found["customer_id"], limit=1)["orders"]
    if not orders:
        raise Skip("no orders")
    focus_order(s, orders[0]["order_id"])


@food.intent(covers=("search_customers", "apply_promo_code", "place_order"), weight=2.0)
def code_and_send(s: Scene) -> None:
    """A customer with a promo code wants it on the basket and the food sent right away."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM carts) AND " + SENDABLE)
    row, lines, subtotal = cart(s, c["customer_id"])
    if row is None or not lines or row["promo_code"]:
        raise Skip("no basket, or it has a code")
    r = restaurant(s, row["restaurant_id"])
    if too_far(r, c) or not _open_now(s, r):
        raise Skip("the basket cannot go out now")
    code, given = fitting_promo(s, c["customer_id"], row, subtotal, none="no code fits")
    found = asks(
        s,
        c,
        "{me}. Take my discount code[ {code}] off the basket and send the food over.",
        "{me} - I've got a promo[, {code}]. Use it and place my order.",
        "{me}. Apply my code[ {code}], then check out, please.",
        code=given,
    )
    s.call("apply_promo_code", customer_id=found["customer_id"], code=code)
    placed = s.call("place_order", customer_id=found["customer_id"])
    focus_order(s, placed["order_id"])


def two_scores(s: Scene) -> tuple[int, int]:
    """Stars for the food and for the delivery, told apart (a withheld one is never the other's number)."""
    f, d = s.rng.sample((5, 4, 3, 2, 1), 2)
    return f, d


def _open_now(s: Scene, r: dict[str, Any]) -> bool:
    return start_time(s, r) is None


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
    found = asks(
        s,
        c,
        "{me}. Rating my last delivery: food {tasty}[, delivery {ride}].",
        "{me} - about the order that just came: {tasty} for the food[ and {ride} for the courier].",
        "{me}. Score my latest order[: the courier gets {ride}], the food {tasty}.",
        tasty=tasty,
        ride=ride,
    )
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
    s.be(c["name"])
    s.memory["speaker_id"] = c["customer_id"]
    f, d = two_scores(s)
    tasty = s.given(f, f"{f} stars", "food score", "rate_order", "food_stars")
    ride = s.given(d, f"{d} stars", "delivery score", "rate_order", "delivery_stars")
    s.say(
        "Order {n}: the food gets {tasty}[, the delivery {ride}].",
        "I want to rate {n}[ - {ride} for delivery], {tasty} for the food.",
        "Please score {n} for me: {tasty} food[, {ride} courier].",
        n=o["order_id"],
        tasty=tasty,
        ride=ride,
    )
    s.call("rate_order", order_id=o["order_id"], food_stars=f, delivery_stars=d)
    focus_order(s, o["order_id"])
    if s.room(1, 1):
        s.say("Remind me, what was in that order?", "What did I get in that one again?", "And what did it cost me?")
        s.call("track_order", order_id=o["order_id"])


@food.intent(covers=("search_customers", "view_cart", "update_cart_item"), weight=1.5)
def two_changes(s: Scene) -> None:
    """A customer changes how many of one dish and drops another from the basket in one go."""
    c = me(s, "(SELECT COUNT(*) FROM cart_items ci WHERE ci.customer_id = c.customer_id) >= 2")
    keep, drop = s.sample(
        "SELECT ci.quantity, m.* FROM cart_items ci JOIN menu_items m USING (item_id) WHERE ci.customer_id = ?",
        2,
        c["customer_id"],
    )
    options = [n for n in (1, 2, 3, 4) if n != keep["quantity"] and (keep["available"] or n < keep["quantity"])]
    if not options or keep["name"] == drop["name"]:
        raise Skip("no other quantity fits")
    qty = s.rng.choice(options)
    n = s.given(qty, NUMBERS[qty], "quantity", "update_cart_item", "quantity")
    found = asks(
        s,
        c,
        "{me}. Change the {a} in my basket[ to {n}] and take out the {b}.",
        "{me} - lose the {b}, and a different number of {a}[: {n}].",
        "{me}. Two fixes to my food basket: no {b}, and the {a}[ should be {n}].",
        a=keep["name"],
        b=drop["name"],
        n=n,
    )
    s.call("view_cart", customer_id=found["customer_id"])
    s.call("update_cart_item", customer_id=found["customer_id"], item_id=keep["item_id"], quantity=qty)
    s.call("update_cart_item", customer_id=found["customer_id"], item_id=drop["item_id"], quantity=0)
