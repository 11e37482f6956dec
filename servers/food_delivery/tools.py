"""Food delivery tools: restaurants, menus, customers, carts and orders to read, then carts, checkout,
cancelling, the order's progress and ratings to change."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import (
    Ctx,
    Entity,
    IsoDateTime,
    Limit,
    Offset,
    Query,
    Server,
    ToolError,
    fake,
    listing,
    next_id,
    rows,
)
from servers.food_delivery.schema import (
    DAYS,
    FLOW,
    MAX_KM,
    SCHEMA,
    km_between,
    service_fee,
    travel_minutes,
)
from servers.food_delivery.seed import seed

food = Server(
    "food_delivery",
    "Food delivery: restaurants, menus, carts, promo codes, orders with live tracking, couriers and ratings.",
    SCHEMA,
    seed,
    family="commerce",
)

RESTAURANT = food.entity(
    "restaurant", table="restaurants", key="restaurant_id", example="RST-0036", finder="search_restaurants"
)
MENU_ITEM = food.entity("menu_item", table="menu_items", key="item_id", example="ITM-0257", finder="get_menu")
CUSTOMER = food.entity("customer", table="customers", key="customer_id", example="CUS-0042", finder="search_customers")
ORDER = food.entity(
    "order", table="orders", key="order_id", example="ORD-00695", hint="Use list_orders to find a customer's orders."
)

RestaurantId = Annotated[str, RESTAURANT]
ItemId = Annotated[str, MENU_ITEM]
CustomerId = Annotated[str, CUSTOMER]
OrderId = Annotated[str, ORDER]
PromoCode = Annotated[
    str, Field(min_length=1, max_length=30, description="Promo code, e.g. 'SAVE5'"), Entity("promo_code")
]
Cuisine = Literal["pizza", "burgers", "sushi", "thai", "indian", "mexican", "chinese", "breakfast", "salads", "cafe"]
Status = Literal["placed", "accepted", "preparing", "out_for_delivery", "delivered", "cancelled"]


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:])


def _open_at(r: dict[str, Any], when: datetime) -> bool:
    """Open at ``when``; hours past midnight belong to the previous day."""
    opens, closes = _minutes(r["opens"]), _minutes(r["closes"])
    t = when.hour * 60 + when.minute
    today, yesterday = DAYS[when.weekday()], DAYS[(when.weekday() - 1) % 7]
    if closes > opens:
        return r["closed_on"] != today and opens <= t < closes
    return (r["closed_on"] != today and t >= opens) or (r["closed_on"] != yesterday and t < closes)


def _promo_discount(
    ctx: Ctx, code: str, customer_id: str, restaurant: dict[str, Any], subtotal: float
) -> tuple[float, str | None]:
    """The discount a code gives on this cart, or the reason it does not apply."""
    promo = ctx.db.execute("SELECT * FROM promo_codes WHERE code = ?", (code.upper(),)).fetchone()
    if promo is None:
        return 0.0, f"Promo code {code!r} does not exist; see list_promo_codes."
    _, _, kind, value, min_subtotal, rest_id, expires, once = promo
    if expires < fake.iso(ctx.now):
        return 0.0, f"Promo code {code.upper()} expired on {expires[:10]}; see list_promo_codes for current codes."
    if rest_id and rest_id != restaurant["restaurant_id"]:
        return (
            0.0,
            f"Promo code {code.upper()} only works at {rest_id}, not at {restaurant['name']} "
            f"({restaurant['restaurant_id']}).",
        )
    if subtotal < min_subtotal:
        return (
            0.0,
            f"Promo code {code.upper()} needs a subtotal of at least {min_subtotal:.2f} USD; the cart has "
            f"{subtotal:.2f} USD.",
        )
    if (
        once
        and ctx.db.execute(
            "SELECT 1 FROM orders WHERE customer_id = ? AND promo_code = ? AND status != 'cancelled'",
            (customer_id, code.upper()),
        ).fetchone()
    ):
        return 0.0, f"{customer_id} already used {code.upper()}, which is once per customer."
    if kind == "percent":
        return round(min(subtotal * value / 100, 30.0), 2), None
    if kind == "amount":
        return round(min(value, subtotal), 2), None
    return restaurant["delivery_fee"], None


def _cart(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    cart = ctx.db.execute(
        "SELECT restaurant_id, promo_code, updated_at FROM carts WHERE customer_id = ?", (customer_id,)
    ).fetchone()
    if cart is None:
        return {
            "customer_id": customer_id,
            "restaurant_id": None,
            "items": [],
            "subtotal": 0.0,
            "total": 0.0,
            "problems": [],
        }
    restaurant = RESTAURANT.get(ctx, cart[0])
    items = rows(
        ctx.db.execute(
            "SELECT c.item_id, m.name, m.price, c.quantity, m.available FROM cart_items c JOIN menu_items m USING "
            "(item_id) "
            "WHERE c.customer_id = ? ORDER BY c.item_id",
            (customer_id,),
        )
    )
    subtotal = round(sum(i["price"] * i["quantity"] for i in items), 2)
    problems = [
        f"{i['name']} ({i['item_id']}) is unavailable; remove it with update_cart_item(quantity=0)"
        for i in items
        if not i["available"]
    ]
    for i in items:
        i["available"] = bool(i["available"])
        i["line_total"] = round(i["price"] * i["quantity"], 2)
    if subtotal < restaurant["min_order"]:
        problems.append(f"subtotal {subtotal:.2f} USD is below the minimum order of {restaurant['min_order']:.2f} USD")
    if not _open_at(restaurant, ctx.now):
        problems.append(
            f"{restaurant['name']} is closed now (hours {restaurant['opens']}-{restaurant['closes']}); "
            "schedule the order"
        )
    discount, why = (0.0, None)
    if cart[1]:
        discount, why = _promo_discount(ctx, cart[1], customer_id, restaurant, subtotal)
        if why:
            problems.append(why)
    fee, service = restaurant["delivery_fee"], service_fee(subtotal) if items else 0.0
    return {
        "customer_id": customer_id,
        "restaurant_id": cart[0],
        "restaurant_name": restaurant["name"],
        "items": items,
        "subtotal": subtotal,
        "delivery_fee": fee,
        "service_fee": service,
        "promo_code": cart[1],
        "discount": discount,
        "total": round(subtotal + fee + service - discount, 2),
        "min_order": restaurant["min_order"],
        "problems": problems,
    }


SUMMARY = ("restaurant_id", "name", "cuisine", "city", "rating", "delivery_fee", "min_order", "prep_minutes")


@food.read(returns=("restaurant",))
def search_restaurants(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name or dish, e.g. 'taco'")] = "",
    city: Annotated[str | None, Field(max_length=60, description="City, e.g. 'Seattle'")] = None,
    cuisine: Cuisine | None = None,
    open_now: Annotated[bool, Field(description="Only restaurants open right now")] = False,
    min_rating: Annotated[float | None, Field(ge=0, le=5)] = None,
    max_delivery_fee: Annotated[float | None, Field(ge=0, le=100)] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search restaurants by name or dish, city, cuisine, rating and fee, e.g.
    search_restaurants(city='Austin', cuisine='breakfast', open_now=True).
    Returns restaurant ids like 'RST-0036'."""
    like = f"%{query.strip()}%"
    q = Query("SELECT * FROM restaurants r").where(
        "(name LIKE ? OR cuisine LIKE ? OR EXISTS (SELECT 1 FROM menu_items m WHERE m.restaurant_id = r.restaurant_id "
        "AND m.name LIKE ?))",
        like,
        like,
        like,
    )
    q.filter("city LIKE ?", city).equal("cuisine", cuisine).filter("rating >= ?", min_rating)
    q.filter("delivery_fee <= ?", max_delivery_fee)
    found = []
    for r in q.rows(ctx.db, order_by="rating DESC, restaurant_id"):
        is_open = _open_at(r, ctx.now)
        if open_now and not is_open:
            continue
        found.append({k: r[k] for k in SUMMARY} | {"open_now": is_open})
    page = found[offset : offset + limit]
    return {**listing("restaurants", page), "total": len(found)}


@food.read(returns=("restaurant",))
def get_restaurant(ctx: Ctx, restaurant_id: RestaurantId) -> dict[str, Any]:
    """Get a restaurant: address, hours, whether it is open now, minimum order, delivery fee, prep time and rating,
    e.g. get_restaurant('RST-0036')."""
    r = RESTAURANT.get(ctx, restaurant_id)
    r["open_now"] = _open_at(r, ctx.now)
    r["hours"] = {d: "closed" if d == r["closed_on"] else f"{r['opens']}-{r['closes']}" for d in DAYS}
    return r


@food.read(returns=("menu_item",))
def get_menu(
    ctx: Ctx,
    restaurant_id: RestaurantId,
    category: Literal["mains", "sides", "desserts", "drinks"] | None = None,
    vegetarian_only: bool = False,
    available_only: bool = False,
) -> dict[str, Any]:
    """A restaurant's menu with item ids, prices and availability, e.g. get_menu('RST-0036', category='mains')."""
    r = RESTAURANT.get(ctx, restaurant_id)
    q = Query("SELECT item_id, name, category, price, available, vegetarian, calories FROM menu_items")
    q.equal("restaurant_id", restaurant_id).equal("category", category or None)
    q.flag(vegetarian_only or None, "vegetarian = 1").flag(available_only or None, "available = 1")
    items = q.rows(ctx.db, order_by="item_id")
    for i in items:
        i["available"], i["vegetarian"] = bool(i["available"]), bool(i["vegetarian"])
    return {"restaurant_id": restaurant_id, "name": r["name"], **listing("items", items)}


@food.read(returns=("customer",))
def search_customers(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name, email or phone, e.g. 'Garcia'")] = "",
    city: Annotated[str | None, Field(max_length=60)] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search customers by name, email or phone, optionally by city, e.g. search_customers('Garcia'). Ids look like
    'CUS-0042'."""
    like = f"%{query}%"
    q = Query("SELECT customer_id, name, email, city FROM customers")
    q.where("(name LIKE ? OR email LIKE ? OR phone LIKE ?)", like, like, like).filter("city LIKE ?", city)
    return q.page(ctx.db, "customers", order_by="customer_id", limit=limit, offset=offset)


@food.read(returns=("customer", "order"))
def get_customer(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """A customer's profile, delivery address, active orders and order count, e.g. get_customer('CUS-0042')."""
    cus = CUSTOMER.get(ctx, customer_id)
    cus["active_order_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT order_id FROM orders WHERE customer_id = ? AND status NOT IN ('delivered', 'cancelled') ORDER BY "
            "order_id",
            (customer_id,),
        )
    ]
    cus["order_count"] = ctx.db.execute("SELECT COUNT(*) FROM orders WHERE customer_id = ?", (customer_id,)).fetchone()[
        0
    ]
    cus["has_cart"] = ctx.db.execute("SELECT 1 FROM carts WHERE customer_id = ?", (customer_id,)).fetchone() is not None
    return cus


@food.read(returns=("restaurant", "menu_item", "promo_code"))
def view_cart(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """A customer's cart: items, subtotal, fees, promo discount, total, and any problem that would stop checkout
    (closed restaurant, unavailable item, below minimum order, promo not valid), e.g. view_cart('CUS-0042')."""
    CUSTOMER.get(ctx, customer_id)
    return _cart(ctx, customer_id)


@food.read(returns=("order", "restaurant"))
def list_orders(
    ctx: Ctx,
    customer_id: Annotated[str | None, CUSTOMER.ref("Only this customer's orders, e.g. 'CUS-0042'")] = None,
    restaurant_id: Annotated[str | None, RESTAURANT.ref("Only this restaurant's orders, e.g. 'RST-0036'")] = None,
    status: Status | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List orders, newest first, filtered by customer, restaurant or status, e.g.
    list_orders(customer_id='CUS-0042', status='delivered')."""
    q = Query("SELECT order_id, customer_id, restaurant_id, status, total, placed_at, eta FROM orders")
    q.equal("customer_id", customer_id).equal("restaurant_id", restaurant_id).equal("status", status)
    return q.page(ctx.db, "orders", order_by="placed_at DESC, order_id DESC", limit=limit, offset=offset)


@food.read(returns=("order", "courier", "restaurant", "menu_item"))
def track_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Track an order: status, timeline, items, totals, the courier, the ETA and minutes remaining from now,
    e.g. track_order('ORD-00695')."""
    order = ORDER.get(ctx, order_id)
    order["items"] = rows(
        ctx.db.execute(
            "SELECT item_id, name, unit_price, quantity FROM order_items WHERE order_id = ? ORDER BY item_id",
            (order_id,),
        )
    )
    if order["status"] in ("delivered", "cancelled"):
        order["minutes_remaining"] = 0
    else:
        order["minutes_remaining"] = max(
            0, round((datetime.fromisoformat(order["eta"]) - ctx.now).total_seconds() / 60)
        )
        order["next_status"] = FLOW[FLOW.index(order["status"]) + 1]
    if order["courier_id"]:
        order["courier"] = rows(
            ctx.db.execute(
                "SELECT courier_id, name, vehicle, rating FROM couriers WHERE courier_id = ?", (order["courier_id"],)
            )
        )[0]
    order["rated"] = ctx.db.execute("SELECT 1 FROM ratings WHERE order_id = ?", (order_id,)).fetchone() is not None
    return order


@food.read(returns=("promo_code", "restaurant"))
def list_promo_codes(
    ctx: Ctx,
    restaurant_id: Annotated[
        str | None, RESTAURANT.ref("Also show this restaurant's own codes, e.g. 'RST-0036'")
    ] = None,
    include_expired: bool = False,
) -> dict[str, Any]:
    """List current promo codes with their rules (kind, value, minimum subtotal, restaurant, expiry, once per customer),
    e.g. list_promo_codes(restaurant_id='RST-0036') for the codes usable there."""
    q = Query("SELECT * FROM promo_codes").filter("(restaurant_id IS NULL OR restaurant_id = ?)", restaurant_id)
    q.filter("expires_at >= ?", None if include_expired else fake.iso(ctx.now))
    found = q.rows(ctx.db, order_by="code")
    for p in found:
        p["once_per_customer"] = bool(p["once_per_customer"])
    return listing("promo_codes", found)


food.distinct_values(
    {
        "city": ("restaurants", "city"),
        "cuisine": ("restaurants", "cuisine"),
        "menu_category": ("menu_items", "category"),
        "order_status": ("orders", "status"),
        "courier_vehicle": ("couriers", "vehicle"),
        "courier_status": ("couriers", "status"),
        "customer_city": ("customers", "city"),
        "promo_kind": ("promo_codes", "kind"),
    },
    example="cuisine",
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
    CUSTOMER.get(ctx, customer_id)
    item = MENU_ITEM.get(ctx, item_id)
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
    CUSTOMER.get(ctx, customer_id)
    have = ctx.db.execute(
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND item_id = ?", (customer_id, item_id)
    ).fetchone()
    if have is None:
        raise ToolError(f"{item_id} is not in {customer_id}'s cart; see view_cart, or add it with add_to_cart.")
    if quantity == have[0]:
        raise ToolError(f"{item_id} already has quantity {quantity} in the cart.")
    if quantity == 0:
        ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ? AND item_id = ?", (customer_id, item_id))
        if not ctx.db.execute("SELECT 1 FROM cart_items WHERE customer_id = ?", (customer_id,)).fetchone():
            ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
    else:
        if not MENU_ITEM.get(ctx, item_id)["available"] and quantity > have[0]:
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
    CUSTOMER.get(ctx, customer_id)
    cart = _cart(ctx, customer_id)
    if not cart["items"]:
        raise ToolError(f"{customer_id}'s cart is empty; add items with add_to_cart before applying a code.")
    if cart["promo_code"] == code.upper():
        raise ToolError(f"{code.upper()} is already applied to the cart.")
    _, why = _promo_discount(ctx, code, customer_id, RESTAURANT.get(ctx, cart["restaurant_id"]), cart["subtotal"])
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
    cus = CUSTOMER.get(ctx, customer_id)
    cart = _cart(ctx, customer_id)
    if not cart["items"]:
        raise ToolError(f"{customer_id}'s cart is empty; add items with add_to_cart first.")
    rest = RESTAURANT.get(ctx, cart["restaurant_id"])
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
    order = ORDER.get(ctx, order_id)
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
    order = ORDER.get(ctx, order_id)
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
        city = RESTAURANT.get(ctx, order["restaurant_id"])["city"]
        found = ctx.db.execute(
            "SELECT courier_id FROM couriers WHERE city = ? AND status = 'available' ORDER BY deliveries, courier_id "
            "LIMIT 1",
            (city,),
        ).fetchone()
        if found is None:
            raise ToolError(
                f"No courier is available in {city} right now; the order stays preparing. Try again after "
                "a delivery completes."
            )
        courier = found[0]
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
    order = ORDER.get(ctx, order_id)
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
    r = RESTAURANT.get(ctx, order["restaurant_id"])
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
