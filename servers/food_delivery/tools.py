"""Food delivery tools: restaurants, menus, customers, carts and orders to read, then carts, checkout,
cancelling, the order's progress and ratings to change."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, EntityId, Limit, Offset, Query, Server, fake, listing
from servers.food_delivery.schema import DAYS, FLOW, SCHEMA, service_fee
from servers.food_delivery.seed import seed

food = Server(
    "food_delivery",
    "Food delivery: restaurants, menus, carts, promo codes, orders with live tracking, couriers and ratings.",
    SCHEMA,
    seed,
    family="commerce",
)


class RestaurantId(EntityId, server=food, example="RST-0036", finder="search_restaurants"): ...


class ItemId(EntityId, server=food, type="menu_item", key="item_id", example="ITM-0257", finder="get_menu"): ...


class CustomerId(EntityId, server=food, example="CUS-0042", finder="search_customers"): ...


class OrderId(EntityId, server=food, example="ORD-00695", hint="Use list_orders to find a customer's orders."): ...


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
    restaurant = RestaurantId.get(ctx, cart[0])
    items = ctx.rows(
        "SELECT c.item_id, m.name, m.price, c.quantity, m.available FROM cart_items c JOIN menu_items m USING "
        "(item_id) "
        "WHERE c.customer_id = ? ORDER BY c.item_id",
        (customer_id,),
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
    r = RestaurantId.get(ctx, restaurant_id)
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
    r = RestaurantId.get(ctx, restaurant_id)
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
    cus = CustomerId.get(ctx, customer_id)
    cus["active_order_ids"] = ctx.column(
        "SELECT order_id FROM orders WHERE customer_id = ? AND status NOT IN ('delivered', 'cancelled') ORDER BY "
        "order_id",
        (customer_id,),
    )
    cus["order_count"] = ctx.value("SELECT COUNT(*) FROM orders WHERE customer_id = ?", (customer_id,))
    cus["has_cart"] = ctx.db.execute("SELECT 1 FROM carts WHERE customer_id = ?", (customer_id,)).fetchone() is not None
    return cus


@food.read(returns=("restaurant", "menu_item", "promo_code"))
def view_cart(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """A customer's cart: items, subtotal, fees, promo discount, total, and any problem that would stop checkout
    (closed restaurant, unavailable item, below minimum order, promo not valid), e.g. view_cart('CUS-0042')."""
    CustomerId.get(ctx, customer_id)
    return _cart(ctx, customer_id)


@food.read(returns=("order", "restaurant"))
def list_orders(
    ctx: Ctx,
    customer_id: Annotated[str | None, CustomerId.ref("Only this customer's orders, e.g. 'CUS-0042'")] = None,
    restaurant_id: Annotated[str | None, RestaurantId.ref("Only this restaurant's orders, e.g. 'RST-0036'")] = None,
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
    order = OrderId.get(ctx, order_id)
    order["items"] = ctx.rows(
        "SELECT item_id, name, unit_price, quantity FROM order_items WHERE order_id = ? ORDER BY item_id", (order_id,)
    )
    if order["status"] in ("delivered", "cancelled"):
        order["minutes_remaining"] = 0
    else:
        order["minutes_remaining"] = max(
            0, round((datetime.fromisoformat(order["eta"]) - ctx.now).total_seconds() / 60)
        )
        order["next_status"] = FLOW[FLOW.index(order["status"]) + 1]
    if order["courier_id"]:
        order["courier"] = ctx.rows(
            "SELECT courier_id, name, vehicle, rating FROM couriers WHERE courier_id = ?", (order["courier_id"],)
        )[0]
    order["rated"] = ctx.db.execute("SELECT 1 FROM ratings WHERE order_id = ?", (order_id,)).fetchone() is not None
    return order


@food.read(returns=("promo_code", "restaurant"))
def list_promo_codes(
    ctx: Ctx,
    restaurant_id: Annotated[
        str | None, RestaurantId.ref("Also show this restaurant's own codes, e.g. 'RST-0036'")
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
