"""Food delivery write tools: the basket, a promo code, placing and cancelling orders, moving them along, ratings."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, IsoDateTime, ToolError, fake, fetch, next_id
from servers.food_delivery.schema import FLOW, MAX_KM, km_between, travel_minutes
from servers.food_delivery.tools import (
    CustomerId,
    ItemId,
    OrderId,
    PromoCode,
    RestaurantId,
    _cart,
    _open_at,
    _promo_discount,
    food,
)

Quantity = Annotated[int, Field(ge=1, le=20, description="How many, 1 to 20")]


@food.write(returns=("menu_item", "restaurant"))
def add_to_cart(
    ctx: Ctx,
    customer_id: CustomerId,
    item_id: ItemId,
    quantity: Quantity = 1,
    replace_cart: Annotated[bool, Field(description="Empty a cart holding another restaurant's items first")] = False,
) -> dict[str, Any]:
    """Add a menu item to a customer's cart, e.g. add_to_cart('CUS-0042', 'ITM-0257', 2). A cart holds one restaurant's
    items; pass replace_cart=true to start over with another restaurant. Unavailable items cannot be added."""
    CustomerId.get(ctx, customer_id)
    item = ItemId.get(ctx, item_id)
    if not item["available"]:
        raise ToolError(
            f"{item['name']} ({item_id}) is unavailable right now; pick another item from "
            f"get_menu('{item['restaurant_id']}', available_only=true)."
        )
    cart = ctx.db.execute("SELECT restaurant_id FROM carts WHERE customer_id = ?", (customer_id,)).fetchone()
    if cart and cart[0] != item["restaurant_id"]:
        if not replace_cart:
            raise ToolError(
                f"The cart holds items from {cart[0]}; {item_id} is from {item['restaurant_id']}. "
                "Call add_to_cart with replace_cart=true to empty it first, or place the current cart."
            )
        ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ?", (customer_id,))
        ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
        cart = None
    have = ctx.db.execute(
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND item_id = ?", (customer_id, item_id)
    ).fetchone()
    total = (have[0] if have else 0) + quantity
    if total > 20:
        raise ToolError(
            f"At most 20 of one item per order; the cart already has {have[0] if have else 0} of {item['name']}."
        )
    if cart is None:
        ctx.db.execute(
            "INSERT INTO carts VALUES (?,?,?,?)", (customer_id, item["restaurant_id"], None, fake.iso(ctx.now))
        )
    else:
        ctx.db.execute("UPDATE carts SET updated_at = ? WHERE customer_id = ?", (fake.iso(ctx.now), customer_id))
    ctx.db.execute(
        "INSERT INTO cart_items VALUES (?,?,?) ON CONFLICT (customer_id, item_id) DO UPDATE SET quantity = "
        "excluded.quantity",
        (customer_id, item_id, total),
    )
    return _cart(ctx, customer_id)


@food.write(requires=("add_to_cart",))
def update_cart_item(
    ctx: Ctx,
    customer_id: CustomerId,
    item_id: ItemId,
    quantity: Annotated[int, Field(ge=0, le=20, description="New quantity; 0 removes the item")],
) -> dict[str, Any]:
    """Change the quantity of an item in the cart, or remove it with quantity 0, e.g.
    update_cart_item('CUS-0026', 'ITM-0259', 0).
    Removing the last item empties the cart."""
    CustomerId.get(ctx, customer_id)
    have = fetch(
        ctx.db,
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND item_id = ?",
        (customer_id, item_id),
        f"{item_id} is not in {customer_id}'s cart; see view_cart, or add it with add_to_cart.",
    )["quantity"]
    if quantity == have:
        raise ToolError(f"{item_id} already has quantity {quantity} in the cart.")
    if quantity == 0:
        ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ? AND item_id = ?", (customer_id, item_id))
        if not ctx.db.execute("SELECT 1 FROM cart_items WHERE customer_id = ?", (customer_id,)).fetchone():
            ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
    else:
        if not ItemId.get(ctx, item_id)["available"] and quantity > have:
            raise ToolError(f"{item_id} is unavailable; you can only lower its quantity or remove it (quantity=0).")
        ctx.db.execute(
            "UPDATE cart_items SET quantity = ? WHERE customer_id = ? AND item_id = ?", (quantity, customer_id, item_id)
        )
    if ctx.db.execute("SELECT 1 FROM carts WHERE customer_id = ?", (customer_id,)).fetchone():
        ctx.db.execute("UPDATE carts SET updated_at = ? WHERE customer_id = ?", (fake.iso(ctx.now), customer_id))
    return _cart(ctx, customer_id)


@food.write(returns=("promo_code",), requires=("add_to_cart",))
def apply_promo_code(ctx: Ctx, customer_id: CustomerId, code: PromoCode) -> dict[str, Any]:
    """Apply a promo code to a customer's cart, e.g. apply_promo_code('CUS-0026', 'SAVE5'). Fails if the code is
    unknown,
    expired, for another restaurant, above the cart's subtotal threshold, or already used (once-per-customer codes)."""
    CustomerId.get(ctx, customer_id)
    cart = _cart(ctx, customer_id)
    if not cart["items"]:
        raise ToolError(f"{customer_id}'s cart is empty; add items with add_to_cart before applying a code.")
    if cart["promo_code"] == code.upper():
        raise ToolError(f"{code.upper()} is already applied to the cart.")
    _, why = _promo_discount(ctx, code, customer_id, RestaurantId.get(ctx, cart["restaurant_id"]), cart["subtotal"])
    if why:
        raise ToolError(why)
    ctx.db.execute(
        "UPDATE carts SET promo_code = ?, updated_at = ? WHERE customer_id = ?",
        (code.upper(), fake.iso(ctx.now), customer_id),
    )
    return _cart(ctx, customer_id)


SCHEDULED = "Deliver later: when the restaurant should start, e.g. '2026-06-01T11:30'"


@food.write(returns=("order",), requires=("add_to_cart",))
def place_order(
    ctx: Ctx,
    customer_id: CustomerId,
    instructions: Annotated[
        str, Field(max_length=200, description="Delivery instructions, e.g. 'Leave at the door'")
    ] = "",
    scheduled_for: Annotated[IsoDateTime | None, Field(description=SCHEDULED)] = None,
) -> dict[str, Any]:
    """Check out the customer's cart as an order, e.g. place_order('CUS-0026', 'Leave at the door').

    Fails if the restaurant is closed at the time (pass scheduled_for within its hours, up to 7 days ahead), an item is
    unavailable, the subtotal is below the minimum order, the promo code no longer applies, or the address is over 15 km
    away."""
    cus = CustomerId.get(ctx, customer_id)
    cart = _cart(ctx, customer_id)
    if not cart["items"]:
        raise ToolError(f"{customer_id}'s cart is empty; add items with add_to_cart first.")
    rest = RestaurantId.get(ctx, cart["restaurant_id"])
    start = ctx.now
    if scheduled_for is not None:
        try:
            start = datetime.fromisoformat(scheduled_for)
        except ValueError:
            raise ToolError(
                f"scheduled_for {scheduled_for!r} is not a valid time; use YYYY-MM-DDTHH:MM, e.g. '2026-06-01T11:30'."
            ) from None
        if start <= ctx.now or start > ctx.now + timedelta(days=7):
            raise ToolError(f"scheduled_for must be after now ({fake.iso(ctx.now)}) and within 7 days.")
    if not _open_at(rest, start):
        when = "now" if scheduled_for is None else f"at {scheduled_for}"
        closed = f", closed on {rest['closed_on']}s" if rest["closed_on"] else ""
        raise ToolError(
            f"{rest['name']} is closed {when} (hours {rest['opens']}-{rest['closes']}{closed}); "
            "pass scheduled_for within its hours or order from a restaurant that is open (search_restaurants "
            "open_now=true)."
        )
    gone = [i for i in cart["items"] if not i["available"]]
    if gone:
        raise ToolError(
            f"{', '.join(i['name'] + ' (' + i['item_id'] + ')' for i in gone)} unavailable; remove with "
            "update_cart_item(quantity=0)."
        )
    if cart["subtotal"] < rest["min_order"]:
        raise ToolError(
            f"Subtotal {cart['subtotal']:.2f} USD is below {rest['name']}'s minimum order of {rest['min_order']:.2f} "
            f"USD; "
            f"add {rest['min_order'] - cart['subtotal']:.2f} USD more."
        )
    if cart["promo_code"]:
        _, why = _promo_discount(ctx, cart["promo_code"], customer_id, rest, cart["subtotal"])
        if why:
            raise ToolError(why + " Remove or change it: apply another code, or empty the cart and re-add.")
    km = km_between(rest["lat"], rest["lon"], cus["lat"], cus["lon"])
    if km > MAX_KM:
        raise ToolError(
            f"{rest['name']} is {km:.1f} km from {cus['address']}; it delivers within {MAX_KM:.0f} km. "
            "Choose a closer restaurant."
        )
    order_id = next_id(ctx.db, "orders", "order_id", "ORD", 5)
    eta = start + timedelta(minutes=rest["prep_minutes"] + travel_minutes(km))
    ctx.db.execute(
        "INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            order_id,
            customer_id,
            rest["restaurant_id"],
            None,
            "placed",
            cart["subtotal"],
            cart["delivery_fee"],
            cart["service_fee"],
            cart["discount"],
            cart["total"],
            cart["promo_code"],
            cus["address"],
            instructions,
            fake.iso(ctx.now),
            fake.iso(start) if scheduled_for else None,
            None,
            None,
            None,
            fake.iso(eta),
            None,
            None,
            None,
        ),
    )
    ctx.db.executemany(
        "INSERT INTO order_items VALUES (?,?,?,?,?)",
        [(order_id, i["item_id"], i["name"], i["price"], i["quantity"]) for i in cart["items"]],
    )
    ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ?", (customer_id,))
    ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
    return {
        "order_id": order_id,
        "status": "placed",
        "restaurant_id": rest["restaurant_id"],
        "total": cart["total"],
        "eta": fake.iso(eta),
        "minutes_until_delivery": round((eta - ctx.now).total_seconds() / 60),
    }


@food.write(requires=("place_order",))
def cancel_order(
    ctx: Ctx,
    order_id: OrderId,
    reason: Annotated[str, Field(max_length=200, description="Why, e.g. 'ordered by mistake'")] = "customer request",
) -> dict[str, Any]:
    """Cancel an order before pickup, e.g. cancel_order('ORD-00695', 'ordered by mistake'). Full refund while placed or
    accepted;
    while preparing half the subtotal is kept. Orders out for delivery or delivered cannot be cancelled."""
    order = OrderId.get(ctx, order_id)
    if order["status"] == "cancelled":
        raise ToolError(f"Order {order_id} is already cancelled (refunded {order['refund_amount']:.2f} USD).")
    if order["status"] in ("out_for_delivery", "delivered"):
        raise ToolError(
            f"Order {order_id} is {order['status'].replace('_', ' ')} and was picked up at {order['picked_up_at']}; "
            "it can no longer be cancelled. Rate it once delivered if something went wrong."
        )
    kept = round(order["subtotal"] * 0.5, 2) if order["status"] == "preparing" else 0.0
    refund = round(order["total"] - kept, 2)
    ctx.db.execute(
        "UPDATE orders SET status = 'cancelled', cancelled_at = ?, cancel_reason = ?, refund_amount = ? WHERE "
        "order_id = ?",
        (fake.iso(ctx.now), reason, refund, order_id),
    )
    return {"order_id": order_id, "status": "cancelled", "refund_amount": refund, "kept": kept}


@food.write(returns=("courier",), requires=("place_order",))
def advance_order_status(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Move an order one step along placed -> accepted -> preparing -> out_for_delivery -> delivered, as the restaurant
    and courier would, e.g. advance_order_status('ORD-00695'). Going out for delivery assigns an available courier of
    the city."""
    order = OrderId.get(ctx, order_id)
    if order["status"] in ("delivered", "cancelled"):
        raise ToolError(f"Order {order_id} is {order['status']}; it has no next status.")
    nxt = FLOW[FLOW.index(order["status"]) + 1]
    now = fake.iso(ctx.now)
    courier = order["courier_id"]
    if nxt == "accepted":
        ctx.db.execute("UPDATE orders SET status = ?, accepted_at = ? WHERE order_id = ?", (nxt, now, order_id))
    elif nxt == "preparing":
        ctx.db.execute("UPDATE orders SET status = ? WHERE order_id = ?", (nxt, order_id))
    elif nxt == "out_for_delivery":
        if order["scheduled_for"] and order["scheduled_for"] > now:
            raise ToolError(
                f"Order {order_id} is scheduled for {order['scheduled_for']}; it cannot leave the "
                "restaurant before then."
            )
        city = RestaurantId.get(ctx, order["restaurant_id"])["city"]
        courier = fetch(
            ctx.db,
            "SELECT courier_id FROM couriers WHERE city = ? AND status = 'available' ORDER BY deliveries, courier_id "
            "LIMIT 1",
            (city,),
            f"No courier is available in {city} right now; the order stays preparing. Try again after "
            "a delivery completes.",
        )["courier_id"]
        ctx.db.execute("UPDATE couriers SET status = 'delivering' WHERE courier_id = ?", (courier,))
        ctx.db.execute(
            "UPDATE orders SET status = ?, courier_id = ?, picked_up_at = ? WHERE order_id = ?",
            (nxt, courier, now, order_id),
        )
    else:
        ctx.db.execute("UPDATE orders SET status = ?, delivered_at = ? WHERE order_id = ?", (nxt, now, order_id))
        if courier:
            ctx.db.execute(
                "UPDATE couriers SET status = 'available', deliveries = deliveries + 1 WHERE courier_id = ?", (courier,)
            )
    return {"order_id": order_id, "previous_status": order["status"], "status": nxt, "courier_id": courier}


@food.write(requires=("advance_order_status",))
def rate_order(
    ctx: Ctx,
    order_id: OrderId,
    food_stars: Annotated[int, Field(ge=1, le=5, description="Food, 1 to 5 stars")],
    delivery_stars: Annotated[int, Field(ge=1, le=5, description="Delivery, 1 to 5 stars")],
    comment: Annotated[str, Field(max_length=500)] = "",
) -> dict[str, Any]:
    """Rate a delivered order's food and delivery, e.g. rate_order('ORD-00010', 5, 4, 'Hot and on time.'). Only
    delivered
    orders can be rated, once each; the restaurant's and courier's averages update."""
    order = OrderId.get(ctx, order_id)
    if order["status"] != "delivered":
        raise ToolError(f"Order {order_id} is {order['status']}; only delivered orders can be rated (see track_order).")
    if ctx.db.execute("SELECT 1 FROM ratings WHERE order_id = ?", (order_id,)).fetchone():
        raise ToolError(f"Order {order_id} was already rated; each order is rated once.")
    ctx.db.execute(
        "INSERT INTO ratings VALUES (?,?,?,?,?,?,?,?)",
        (
            order_id,
            order["customer_id"],
            order["restaurant_id"],
            order["courier_id"],
            food_stars,
            delivery_stars,
            comment,
            fake.iso(ctx.now),
        ),
    )
    r = RestaurantId.get(ctx, order["restaurant_id"])
    avg = round((r["rating"] * r["rating_count"] + food_stars) / (r["rating_count"] + 1), 2)
    ctx.db.execute(
        "UPDATE restaurants SET rating = ?, rating_count = rating_count + 1 WHERE restaurant_id = ?",
        (avg, r["restaurant_id"]),
    )
    if order["courier_id"]:
        c = ctx.db.execute(
            "SELECT rating, rating_count FROM couriers WHERE courier_id = ?", (order["courier_id"],)
        ).fetchone()
        cavg = round((c[0] * c[1] + delivery_stars) / (c[1] + 1), 2)
        ctx.db.execute(
            "UPDATE couriers SET rating = ?, rating_count = rating_count + 1 WHERE courier_id = ?",
            (cavg, order["courier_id"]),
        )
    return {"order_id": order_id, "food_stars": food_stars, "delivery_stars": delivery_stars, "restaurant_rating": avg}


server = food
