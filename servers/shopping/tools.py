"""Shopping tools: catalog, customer and order discovery, then carts, checkout, returns, addresses and reviews."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, ToolError, fake, fetch, listing
from servers.shopping.schema import FREE_SHIPPING_FROM, MAX_PER_PRODUCT, RETURN_WINDOW_DAYS, SCHEMA, SHIPPING_FEE
from servers.shopping.seed import seed

shopping = Server(
    "shopping",
    "Online store: catalog, carts, coupons, checkout, orders, returns, addresses and wishlists.",
    SCHEMA,
    seed,
    family="commerce",
    id_max_length=40,
)


class CustomerId(EntityId, server=shopping, example="CUS-0042", finder="search_customers"): ...


class ProductId(EntityId, server=shopping, example="PRD-0017", finder="search_products"): ...


class OrderId(EntityId, server=shopping, example="ORD-00123", finder="list_orders"): ...


class AddressId(EntityId, server=shopping, table="addresses", example="ADR-0064"): ...


class CouponCode(
    EntityId,
    server=shopping,
    type="coupon",
    key="code",
    example="SUMMER15",
    description="Coupon code, e.g. 'SUMMER15'",
    hint="Use list_coupons to see the coupons on offer.",
): ...


class CategoryId(EntityId, server=shopping, table="categories", example="CAT-01"): ...


Quantity = Annotated[int, Field(ge=1, le=MAX_PER_PRODUCT, description="How many units, 1 to 10")]
Price = Annotated[float, Field(ge=0, le=1_000_000, description="A price in USD, e.g. 49.99")]


def _coupon(ctx: Ctx, code: str) -> dict[str, Any]:
    """Codes are matched case-insensitively; the message names the code as given."""
    return fetch(ctx.db, "SELECT * FROM coupons WHERE code = ?", (code.strip().upper(),), CouponCode.not_found(code))


def _cart_lines(ctx: Ctx, customer_id: str) -> list[dict[str, Any]]:
    return ctx.rows(
        "SELECT ci.product_id, p.name, p.category_id, p.price, ci.quantity, p.stock, p.status, "
        "ROUND(p.price * ci.quantity, 2) AS line_total FROM cart_items ci JOIN products p USING (product_id) "
        "WHERE ci.customer_id = ? ORDER BY ci.added_at, ci.product_id",
        (customer_id,),
    )


def _discount(ctx: Ctx, coupon: dict[str, Any], lines: list[dict[str, Any]]) -> float:
    """The discount a coupon gives on these cart lines, or a ToolError saying why it does not apply."""
    code, now = coupon["code"], fake.iso(ctx.now)
    if coupon["starts_at"] > now:
        raise ToolError(f"Coupon {code} is not valid yet; it starts at {coupon['starts_at']}.")
    if coupon["expires_at"] <= now:
        raise ToolError(
            f"Coupon {code} expired at {coupon['expires_at']}; use list_coupons(active_only=true) to find a valid one."
        )
    if coupon["uses"] >= coupon["max_uses"]:
        raise ToolError(f"Coupon {code} has reached its usage limit of {coupon['max_uses']}; choose another coupon.")
    subtotal = round(sum(line["line_total"] for line in lines), 2)
    if subtotal < coupon["min_spend"]:
        raise ToolError(
            f"Coupon {code} needs a minimum spend of {coupon['min_spend']:.2f} USD; the cart is "
            f"{subtotal:.2f} USD. Add {coupon['min_spend'] - subtotal:.2f} USD more or choose another coupon."
        )
    base = subtotal
    if coupon["category_id"]:
        base = round(sum(line["line_total"] for line in lines if line["category_id"] == coupon["category_id"]), 2)
        if base <= 0:
            raise ToolError(
                f"Coupon {code} only applies to category {coupon['category_id']}, and the cart has no items from it."
            )
    off = base * coupon["value"] / 100 if coupon["kind"] == "percent" else coupon["value"]
    return round(min(off, base), 2)


def _cart_summary(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    lines = _cart_lines(ctx, customer_id)
    subtotal = round(sum(line["line_total"] for line in lines), 2)
    row = ctx.db.execute("SELECT coupon_code FROM carts WHERE customer_id = ?", (customer_id,)).fetchone()
    code = row[0] if row else None
    discount, problem = 0.0, None
    if code and lines:
        try:
            discount = _discount(ctx, _coupon(ctx, code), lines)
        except ToolError as exc:
            problem = str(exc)
    after = round(subtotal - discount, 2)
    shipping = 0.0 if not lines or after >= FREE_SHIPPING_FROM else SHIPPING_FEE
    out = {
        "customer_id": customer_id,
        "items": lines,
        "item_count": sum(line["quantity"] for line in lines),
        "subtotal": subtotal,
        "coupon_code": code,
        "discount": discount,
        "shipping": shipping,
        "total": round(after + shipping, 2),
    }
    if problem:
        out["coupon_problem"] = problem
    return out


@shopping.read(returns=("product",))
def search_products(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a product name or brand, e.g. 'Earbuds'")] = "",
    category_id: Annotated[str | None, CategoryId.ref("Only this category, e.g. 'CAT-01'")] = None,
    min_price: Price | None = None,
    max_price: Price | None = None,
    in_stock_only: Annotated[bool, Field(description="Only products that are active and in stock")] = False,
    sort: Literal["id", "price_asc", "price_desc", "rating"] = "id",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search the catalog by name or brand, category and price range, e.g. search_products('Earbuds',
    category_id='CAT-01').

    Returns product ids such as 'PRD-0017' with price, stock and rating."""
    like = f"%{query}%"
    q = Query("SELECT product_id, name, brand, category_id, price, stock, rating, review_count, status FROM products")
    q.where("(name LIKE ? OR brand LIKE ?)", like, like).equal("category_id", category_id)
    q.filter("price >= ?", min_price).filter("price <= ?", max_price)
    q.flag(in_stock_only or None, "stock > 0 AND status = 'active'")
    order = {
        "id": "product_id",
        "price_asc": "price, product_id",
        "price_desc": "price DESC, product_id",
        "rating": "COALESCE(rating, 0) DESC, review_count DESC, product_id",
    }[sort]
    return q.page(ctx.db, "products", order_by=order, limit=limit, offset=offset)


@shopping.read(returns=("product", "category"))
def get_product(ctx: Ctx, product_id: ProductId) -> dict[str, Any]:
    """Get one product: category, brand, price, stock, rating and status, e.g. get_product('PRD-0017')."""
    product = ProductId.get(ctx, product_id)
    product["category"] = ctx.value("SELECT name FROM categories WHERE category_id = ?", (product["category_id"],))
    product["in_stock"] = product["stock"] > 0 and product["status"] == "active"
    return product


@shopping.read(returns=("category",))
def list_categories(ctx: Ctx) -> dict[str, Any]:
    """List the catalog's categories with how many active products each has, e.g. 'CAT-01' Electronics."""
    found = ctx.rows(
        "SELECT c.category_id, c.name, c.description, COUNT(p.product_id) AS active_products FROM categories c "
        "LEFT JOIN products p ON p.category_id = c.category_id AND p.status = 'active' "
        "GROUP BY c.category_id ORDER BY c.category_id"
    )
    return {"categories": found, "count": len(found)}


@shopping.read(returns=("review", "customer"))
def list_product_reviews(
    ctx: Ctx,
    product_id: ProductId,
    min_rating: Annotated[int, Field(ge=1, le=5, description="Only reviews with at least this many stars")] = 1,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List a product's reviews, newest first, e.g. list_product_reviews('PRD-0017', min_rating=4)."""
    product = ProductId.get(ctx, product_id)
    q = Query("SELECT * FROM reviews").equal("product_id", product_id).filter("rating >= ?", min_rating)
    return {
        "product_id": product_id,
        "rating": product["rating"],
        "review_count": product["review_count"],
        **q.page(ctx.db, "reviews", order_by="created_at DESC, review_id DESC", limit=limit, offset=offset),
    }


@shopping.read(returns=("customer",))
def search_customers(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name, email or city, e.g. 'Garcia'")] = "",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search customers by name, email or city. Returns customer ids such as 'CUS-0042'."""
    like = f"%{query}%"
    q = Query("SELECT customer_id, name, email, city, member_tier FROM customers")
    q.where("(name LIKE ? OR email LIKE ? OR city LIKE ?)", like, like, like)
    return q.page(ctx.db, "customers", order_by="customer_id", limit=limit, offset=offset)


@shopping.read(returns=("customer", "address", "order"))
def get_customer(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """Get a customer's profile, address ids and five most recent order ids, e.g. get_customer('CUS-0042')."""
    customer = CustomerId.get(ctx, customer_id)
    customer["address_ids"] = ctx.column(
        "SELECT address_id FROM addresses WHERE customer_id = ? ORDER BY address_id", (customer_id,)
    )
    customer["recent_order_ids"] = ctx.column(
        "SELECT order_id FROM orders WHERE customer_id = ? ORDER BY placed_at DESC, order_id DESC LIMIT 5",
        (customer_id,),
    )
    return customer


@shopping.read(returns=("address",))
def list_addresses(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """List a customer's saved shipping addresses, default first, e.g. list_addresses('CUS-0042')."""
    CustomerId.get(ctx, customer_id)
    q = Query("SELECT * FROM addresses").equal("customer_id", customer_id)
    return q.page(ctx.db, "addresses", order_by="is_default DESC, address_id")


@shopping.read(returns=("product", "coupon"))
def get_cart(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """Show a customer's cart: items, subtotal, applied coupon, discount, shipping and total, e.g.
    get_cart('CUS-0042')."""
    CustomerId.get(ctx, customer_id)
    return _cart_summary(ctx, customer_id)


@shopping.read(returns=("order",))
def list_orders(
    ctx: Ctx,
    customer_id: Annotated[str | None, CustomerId.ref("Only this customer's orders, e.g. 'CUS-0042'")] = None,
    status: Literal["placed", "shipped", "delivered", "cancelled"] | None = None,
    placed_since: Annotated[
        str | None, Field(max_length=40, description="Only orders placed on or after this ISO date, e.g. '2026-05-01'")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List orders, newest first, filtered by customer, status or date, e.g. list_orders(status='delivered'). Ids look
    like 'ORD-00123'."""
    q = Query("SELECT order_id, customer_id, status, total, placed_at, shipped_at, delivered_at FROM orders")
    q.equal("customer_id", customer_id).equal("status", status).filter("placed_at >= ?", placed_since)
    return q.page(ctx.db, "orders", order_by="placed_at DESC, order_id DESC", limit=limit, offset=offset)


@shopping.read(returns=("order", "product", "return", "address", "customer"))
def get_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Get one order with its items, totals, status dates and any returns, e.g. get_order('ORD-00123')."""
    order = OrderId.get(ctx, order_id)
    order["items"] = ctx.rows(
        "SELECT oi.product_id, p.name, oi.quantity, oi.unit_price FROM order_items oi JOIN products p USING "
        "(product_id) "
        "WHERE oi.order_id = ? ORDER BY oi.product_id",
        (order_id,),
    )
    order["returns"] = ctx.rows("SELECT * FROM returns WHERE order_id = ? ORDER BY return_id", (order_id,))
    if order["status"] == "delivered":
        deadline = datetime.fromisoformat(order["delivered_at"]) + timedelta(days=RETURN_WINDOW_DAYS)
        order["return_deadline"] = fake.iso(deadline)
    return order


@shopping.read(returns=("coupon",))
def list_coupons(
    ctx: Ctx,
    active_only: Annotated[bool, Field(description="Only coupons usable right now")] = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List coupons with their terms (kind, value, minimum spend, category, validity window, uses left), e.g.
    'SUMMER15'."""
    now = fake.iso(ctx.now)
    q = Query("SELECT *, max_uses - uses AS uses_left FROM coupons")
    q.flag(active_only or None, "starts_at <= ? AND expires_at > ? AND uses < max_uses", now, now)
    found = q.rows(ctx.db, order_by="code", limit=limit, offset=offset)
    for c in found:
        c["active"] = c["starts_at"] <= now < c["expires_at"] and c["uses_left"] > 0
    return {**listing("coupons", found), "now": now}


@shopping.read(returns=("product",))
def get_wishlist(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """List the products on a customer's wishlist with price and stock, e.g. get_wishlist('CUS-0042')."""
    CustomerId.get(ctx, customer_id)
    found = ctx.rows(
        "SELECT w.product_id, p.name, p.price, p.stock, p.status, w.added_at FROM wishlist_items w JOIN products p "
        "USING (product_id) "
        "WHERE w.customer_id = ? ORDER BY w.added_at, w.product_id",
        (customer_id,),
    )
    return {"customer_id": customer_id, "items": found, "count": len(found)}


@shopping.read(returns=("return", "order", "product"))
def list_returns(
    ctx: Ctx,
    customer_id: Annotated[str | None, CustomerId.ref("Only this customer's returns, e.g. 'CUS-0042'")] = None,
    status: Literal["requested", "approved", "refunded", "rejected"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List return requests, newest first, by customer or status, e.g. list_returns(status='requested'). Ids look like
    'RET-0004'."""
    q = Query("SELECT r.*, o.customer_id FROM returns r JOIN orders o USING (order_id)")
    q.equal("o.customer_id", customer_id).equal("r.status", status)
    return q.page(ctx.db, "returns", order_by="r.created_at DESC, r.return_id DESC", limit=limit, offset=offset)


shopping.distinct_values(
    {
        "brand": ("products", "brand"),
        "product_status": ("products", "status"),
        "category_id": ("products", "category_id"),
        "order_status": ("orders", "status"),
        "payment_method": ("orders", "payment_method"),
        "customer_city": ("customers", "city"),
        "member_tier": ("customers", "member_tier"),
        "return_status": ("returns", "status"),
        "return_reason": ("returns", "reason"),
        "address_state": ("addresses", "state"),
    }
)
