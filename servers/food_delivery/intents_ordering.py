"""Ordering: a dish in the basket, changing it, a promo code, sending it off."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, clock
from servers.food_delivery.intents import (
    NUMBERS,
    SENDABLE,
    SUBTOTAL,
    WORDS,
    _open_now,
    asks,
    cart,
    find_restaurant,
    fitting_promo,
    focus,
    focus_order,
    me,
    place,
    promo_fits,
    restaurant,
    start_time,
    too_far,
)
from servers.food_delivery.tools import food


@food.intent(
    covers=("search_customers", "search_restaurants", "get_menu", "add_to_cart", "view_cart"), weight=1.5, follows=True
)
def craving(s: Scene) -> None:
    """A customer wants a dish from a restaurant in their city in the basket (starting over if needed)."""
    c = me(s)
    r = s.pick("SELECT * FROM restaurants WHERE city = ?", c["city"])
    dish = s.pick("SELECT * FROM menu_items WHERE restaurant_id = ? AND available = 1", r["restaurant_id"])
    have, _, _ = cart(s, c["customer_id"])
    if have and have["restaurant_id"] == r["restaurant_id"]:
        raise Skip("the basket is already from that restaurant")
    qty = s.rng.choice((1, 1, 2, 3))
    fresh = " Forget whatever is in my basket." if have else ""
    found = asks(s, c, WORDS.craving, dish=dish["name"], where=place(s, r), n=NUMBERS[qty], fresh=fresh)
    rid = find_restaurant(s, r, found["city"])
    items = [x for x in s.call("get_menu", restaurant_id=rid)["items"] if x["name"] == dish["name"]]
    args: dict[str, Any] = {"customer_id": found["customer_id"], "item_id": items[0]["item_id"]}
    if qty > 1 and not s.minimal:
        args["quantity"] = qty
    if have:
        args["replace_cart"] = True
    s.call("add_to_cart", **args)
    focus(s, rid)
    s.then(0.6, WORDS.basket_now, "view_cart", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "view_cart", "place_order", "track_order"), weight=1.5, follows=True)
def send_it_over(s: Scene) -> None:
    """A customer is happy with the basket and wants it delivered, now or at a time later today."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM carts) AND " + SENDABLE)
    row, lines, subtotal = cart(s, c["customer_id"])
    if row is None or not lines or any(not x["available"] for x in lines):
        raise Skip("the basket cannot go out as it is")
    r = restaurant(s, row["restaurant_id"])
    promo_ok = not row["promo_code"] or promo_fits(s, row["promo_code"], c["customer_id"], r["restaurant_id"], subtotal)
    if subtotal < r["min_order"] or not promo_ok or too_far(r, c):
        raise Skip("the basket cannot go out as it is")
    start = start_time(s, r)
    note = s.rng.choice([None, None, *WORDS.notes])
    when = "" if start is None else f" for {clock(start)}"
    extra = "" if note is None else f" And the note for the courier: '{note}'."
    found = asks(s, c, WORDS.send_it_over, who_short=c["name"], where=place(s, r), when=when, extra=extra)
    s.call("view_cart", customer_id=found["customer_id"])
    args: dict[str, Any] = {"customer_id": found["customer_id"]}
    if note and not s.minimal:
        args["instructions"] = note
    if start is not None:
        args["scheduled_for"] = start.strftime("%Y-%m-%dT%H:%M")
    placed = s.call("place_order", **args)
    focus_order(s, placed["order_id"])
    s.then(0.6, WORDS.when_here, "track_order", order_id=placed["order_id"])


@food.intent(covers=("search_customers", "apply_promo_code", "view_cart"), weight=2.0, follows=True)
def promo_from_email(s: Scene) -> None:
    """A customer has a promo code and wants it on the basket."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM carts) AND " + SUBTOTAL + " >= 15")
    row, lines, subtotal = cart(s, c["customer_id"])
    if row is None or not lines:
        raise Skip("no basket")
    code, given = fitting_promo(s, c["customer_id"], row, subtotal, none="no promo code fits this basket")
    found = asks(s, c, WORDS.promo_from_email, code=given)
    s.call("apply_promo_code", customer_id=found["customer_id"], code=code)
    s.then(0.6, (*WORDS.code_done, *WORDS.basket_now), "view_cart", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "view_cart", "update_cart_item"), weight=2.0, follows=True)
def fix_basket(s: Scene) -> None:
    """A customer takes a dish out of the basket or changes how many."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM cart_items)")
    line = s.pick(
        "SELECT c.quantity, m.* FROM cart_items c JOIN menu_items m USING (item_id) WHERE c.customer_id = ?",
        c["customer_id"],
    )
    options = [n for n in (1, 2, 3, 4) if n != line["quantity"] and (line["available"] or n < line["quantity"])]
    qty = 0 if s.minimal or not options or s.rng.random() < 0.3 else s.rng.choice(options)
    found = asks(
        s,
        c,
        WORDS.fix_basket if qty == 0 else WORDS.fix_basket_quantity,
        who_short=c["name"],
        dish=line["name"],
        n=s.given(qty, NUMBERS.get(qty, str(qty)), "quantity", "update_cart_item", "quantity"),
        had=NUMBERS.get(line["quantity"], str(line["quantity"])),
    )
    s.call("view_cart", customer_id=found["customer_id"])
    s.call("update_cart_item", customer_id=found["customer_id"], item_id=line["item_id"], quantity=qty)
    s.then(0.6, WORDS.basket_now, "view_cart", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "list_orders", "track_order", "add_to_cart", "view_cart"))
def same_as_last_time(s: Scene) -> None:
    """A customer wants the main dish of their last delivered order again."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders WHERE status = 'delivered')")
    last = s.rows(
        "SELECT o.*, r.name AS restaurant FROM orders o JOIN restaurants r USING (restaurant_id) "
        "WHERE o.customer_id = ? ORDER BY o.placed_at DESC, o.order_id DESC LIMIT 1",
        c["customer_id"],
    )[0]
    if last["status"] != "delivered":
        raise Skip("the latest order was not delivered")
    items = s.rows(
        "SELECT oi.*, m.available FROM order_items oi JOIN menu_items m USING (item_id) "
        "WHERE oi.order_id = ? AND m.available = 1 ORDER BY oi.unit_price DESC",
        last["order_id"],
    )
    if not items or (len(items) > 1 and items[0]["unit_price"] == items[1]["unit_price"]):
        raise Skip("no single priciest dish to repeat")
    have, _, _ = cart(s, c["customer_id"])
    fresh = " Start a fresh basket." if have and have["restaurant_id"] != last["restaurant_id"] else ""
    if have and not fresh:
        raise Skip("the basket is already from there")
    found = asks(s, c, WORDS.same_as_last_time, dish=items[0]["name"], r=last["restaurant"], fresh=fresh)
    orders = s.call("list_orders", customer_id=found["customer_id"], limit=1)["orders"]
    detail = s.call("track_order", order_id=orders[0]["order_id"])
    best = max(detail["items"], key=lambda x: x["unit_price"])
    args: dict[str, Any] = {"customer_id": found["customer_id"], "item_id": best["item_id"]}
    if fresh:
        args["replace_cart"] = True
    s.call("add_to_cart", **args)
    focus(s, last["restaurant_id"])
    s.say(*WORDS.basket_now)
    s.call("view_cart", customer_id=found["customer_id"])


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
    found = asks(s, c, WORDS.code_and_send, code=given)
    s.call("apply_promo_code", customer_id=found["customer_id"], code=code)
    placed = s.call("place_order", customer_id=found["customer_id"])
    focus_order(s, placed["order_id"])


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
    found = asks(s, c, WORDS.two_changes, a=keep["name"], b=drop["name"], n=n)
    s.call("view_cart", customer_id=found["customer_id"])
    s.call("update_cart_item", customer_id=found["customer_id"], item_id=keep["item_id"], quantity=qty)
    s.call("update_cart_item", customer_id=found["customer_id"], item_id=drop["item_id"], quantity=0)
