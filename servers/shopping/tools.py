"""Shopping tools: catalog, customer and order discovery, then carts, checkout, returns, addresses and reviews."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import (
    Ctx,
    Limit,
    Offset,
    Query,
    Server,
    ToolError,
    fake,
    fetch,
    listing,
    next_id,
    rows,
)
from servers.shopping.schema import (
    FREE_SHIPPING_FROM,
    MAX_PER_PRODUCT,
    RETURN_WINDOW_DAYS,
    SCHEMA,
    SHIPPING_FEE,
)
from servers.shopping.seed import seed

shopping = Server(
    "shopping",
    "Online store: catalog, carts, coupons, checkout, orders, returns, addresses and wishlists.",
    SCHEMA,
    seed,
    family="commerce",
)

CUSTOMER = shopping.entity(
    "customer", table="customers", key="customer_id", example="CUS-0042", finder="search_customers", max_length=40
)
PRODUCT = shopping.entity(
    "product", table="products", key="product_id", example="PRD-0017", finder="search_products", max_length=40
)
ORDER = shopping.entity(
    "order", table="orders", key="order_id", example="ORD-00123", finder="list_orders", max_length=40
)
ADDRESS = shopping.entity("address", table="addresses", key="address_id", example="ADR-0064", max_length=40)
COUPON = shopping.entity(
    "coupon",
    table="coupons",
    key="code",
    example="SUMMER15",
    max_length=40,
    description="Coupon code, e.g. 'SUMMER15'",
    hint="Use list_coupons to see the coupons on offer.",
)
CATEGORY = shopping.entity("category", table="categories", key="category_id", example="CAT-01", max_length=40)

CustomerId = Annotated[str, CUSTOMER]
ProductId = Annotated[str, PRODUCT]
OrderId = Annotated[str, ORDER]
AddressId = Annotated[str, ADDRESS]
CouponCode = Annotated[str, COUPON]
Quantity = Annotated[int, Field(ge=1, le=MAX_PER_PRODUCT, description="How many units, 1 to 10")]
Price = Annotated[float, Field(ge=0, le=1_000_000, description="A price in USD, e.g. 49.99")]


def _coupon(ctx: Ctx, code: str) -> dict[str, Any]:
    """Codes are matched case-insensitively; the message names the code as given."""
    return fetch(ctx.db, "SELECT * FROM coupons WHERE code = ?", (code.strip().upper(),), COUPON.not_found(code))


def _cart_lines(ctx: Ctx, customer_id: str) -> list[dict[str, Any]]:
    return rows(
        ctx.db.execute(
            "SELECT ci.product_id, p.name, p.category_id, p.price, ci.quantity, p.stock, p.status, "
            "ROUND(p.price * ci.quantity, 2) AS line_total FROM cart_items ci JOIN products p USING (product_id) "
            "WHERE ci.customer_id = ? ORDER BY ci.added_at, ci.product_id",
            (customer_id,),
        )
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
    category_id: Annotated[str | None, CATEGORY.ref("Only this category, e.g. 'CAT-01'")] = None,
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
    product = PRODUCT.get(ctx, product_id)
    product["category"] = ctx.db.execute(
        "SELECT name FROM categories WHERE category_id = ?", (product["category_id"],)
    ).fetchone()[0]
    product["in_stock"] = product["stock"] > 0 and product["status"] == "active"
    return product


@shopping.read(returns=("category",))
def list_categories(ctx: Ctx) -> dict[str, Any]:
    """List the catalog's categories with how many active products each has, e.g. 'CAT-01' Electronics."""
    found = rows(
        ctx.db.execute(
            "SELECT c.category_id, c.name, c.description, COUNT(p.product_id) AS active_products FROM categories c "
            "LEFT JOIN products p ON p.category_id = c.category_id AND p.status = 'active' "
            "GROUP BY c.category_id ORDER BY c.category_id"
        )
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
    product = PRODUCT.get(ctx, product_id)
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
    customer = CUSTOMER.get(ctx, customer_id)
    customer["address_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT address_id FROM addresses WHERE customer_id = ? ORDER BY address_id", (customer_id,)
        )
    ]
    customer["recent_order_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT order_id FROM orders WHERE customer_id = ? ORDER BY placed_at DESC, order_id DESC LIMIT 5",
            (customer_id,),
        )
    ]
    return customer


@shopping.read(returns=("address",))
def list_addresses(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """List a customer's saved shipping addresses, default first, e.g. list_addresses('CUS-0042')."""
    CUSTOMER.get(ctx, customer_id)
    q = Query("SELECT * FROM addresses").equal("customer_id", customer_id)
    return q.page(ctx.db, "addresses", order_by="is_default DESC, address_id")


@shopping.read(returns=("product", "coupon"))
def get_cart(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """Show a customer's cart: items, subtotal, applied coupon, discount, shipping and total, e.g.
    get_cart('CUS-0042')."""
    CUSTOMER.get(ctx, customer_id)
    return _cart_summary(ctx, customer_id)


@shopping.read(returns=("order",))
def list_orders(
    ctx: Ctx,
    customer_id: Annotated[str | None, CUSTOMER.ref("Only this customer's orders, e.g. 'CUS-0042'")] = None,
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
    order = ORDER.get(ctx, order_id)
    order["items"] = rows(
        ctx.db.execute(
            "SELECT oi.product_id, p.name, oi.quantity, oi.unit_price FROM order_items oi JOIN products p USING "
            "(product_id) "
            "WHERE oi.order_id = ? ORDER BY oi.product_id",
            (order_id,),
        )
    )
    order["returns"] = rows(ctx.db.execute("SELECT * FROM returns WHERE order_id = ? ORDER BY return_id", (order_id,)))
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
    CUSTOMER.get(ctx, customer_id)
    found = rows(
        ctx.db.execute(
            "SELECT w.product_id, p.name, p.price, p.stock, p.status, w.added_at FROM wishlist_items w JOIN products p "
            "USING (product_id) "
            "WHERE w.customer_id = ? ORDER BY w.added_at, w.product_id",
            (customer_id,),
        )
    )
    return {"customer_id": customer_id, "items": found, "count": len(found)}


@shopping.read(returns=("return", "order", "product"))
def list_returns(
    ctx: Ctx,
    customer_id: Annotated[str | None, CUSTOMER.ref("Only this customer's returns, e.g. 'CUS-0042'")] = None,
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


@shopping.write(returns=("product",))
def add_to_cart(ctx: Ctx, customer_id: CustomerId, product_id: ProductId, quantity: Quantity = 1) -> dict[str, Any]:
    """Add units of a product to a customer's cart, e.g. add_to_cart('CUS-0042', 'PRD-0017', 2).

    Fails when the product is out of stock, discontinued, or the cart would hold more than the stock or 10 units."""
    CUSTOMER.get(ctx, customer_id)
    product = PRODUCT.get(ctx, product_id)
    if product["status"] != "active":
        raise ToolError(
            f"Product {product_id} ({product['name']}) is discontinued; search_products for an alternative."
        )
    if product["stock"] <= 0:
        raise ToolError(
            f"Product {product_id} ({product['name']}) is out of stock; add it to the wishlist or pick another "
            f"product with search_products(category_id='{product['category_id']}', in_stock_only=true)."
        )
    row = ctx.db.execute(
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)
    ).fetchone()
    have = row[0] if row else 0
    want = have + quantity
    if want > product["stock"]:
        raise ToolError(
            f"Only {product['stock']} unit(s) of {product_id} in stock and the cart already has {have}; "
            f"add at most {max(product['stock'] - have, 0)}."
        )
    if want > MAX_PER_PRODUCT:
        raise ToolError(
            f"At most {MAX_PER_PRODUCT} units of one product per order; the cart already has {have} of {product_id}."
        )
    if row:
        ctx.db.execute(
            "UPDATE cart_items SET quantity = ? WHERE customer_id = ? AND product_id = ?",
            (want, customer_id, product_id),
        )
    else:
        ctx.db.execute("INSERT INTO cart_items VALUES (?,?,?,?)", (customer_id, product_id, want, fake.iso(ctx.now)))
    return _cart_summary(ctx, customer_id)


@shopping.write(returns=("product",), requires=("add_to_cart",))
def update_cart_item(
    ctx: Ctx,
    customer_id: CustomerId,
    product_id: ProductId,
    quantity: Annotated[int, Field(ge=0, le=MAX_PER_PRODUCT, description="The new quantity; 0 removes the item")],
) -> dict[str, Any]:
    """Change the quantity of a product already in the cart, or remove it with quantity 0, e.g.
    update_cart_item('CUS-0066', 'PRD-0005', 0)."""
    CUSTOMER.get(ctx, customer_id)
    product = PRODUCT.get(ctx, product_id)
    row = ctx.db.execute(
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)
    ).fetchone()
    if row is None:
        raise ToolError(f"Product {product_id} is not in {customer_id}'s cart; use add_to_cart to add it.")
    if quantity == row[0]:
        raise ToolError(f"The cart already holds {quantity} of {product_id}.")
    if quantity == 0:
        ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id))
    else:
        if quantity > product["stock"]:
            raise ToolError(
                f"Only {product['stock']} unit(s) of {product_id} in stock; choose a quantity of at most "
                f"{product['stock']}."
            )
        ctx.db.execute(
            "UPDATE cart_items SET quantity = ? WHERE customer_id = ? AND product_id = ?",
            (quantity, customer_id, product_id),
        )
    return _cart_summary(ctx, customer_id)


@shopping.write(returns=("coupon",), requires=("add_to_cart",))
def apply_coupon(ctx: Ctx, customer_id: CustomerId, code: CouponCode) -> dict[str, Any]:
    """Apply a coupon code to a customer's cart, replacing any other, e.g. apply_coupon('CUS-0066', 'SUMMER15').

    Fails if the coupon is expired, not started, used up, below its minimum spend or for a category not in the cart."""
    CUSTOMER.get(ctx, customer_id)
    coupon = _coupon(ctx, code)
    lines = _cart_lines(ctx, customer_id)
    if not lines:
        raise ToolError(f"{customer_id}'s cart is empty; add_to_cart before applying a coupon.")
    discount = _discount(ctx, coupon, lines)
    ctx.db.execute(
        "INSERT INTO carts VALUES (?, ?) ON CONFLICT(customer_id) DO UPDATE SET coupon_code = excluded.coupon_code",
        (customer_id, coupon["code"]),
    )
    out = _cart_summary(ctx, customer_id)
    out["discount"] = discount
    return out


@shopping.write(returns=("order",), requires=("add_to_cart",))
def checkout_cart(
    ctx: Ctx,
    customer_id: CustomerId,
    address_id: AddressId,
    payment_method: Literal["card", "paypal", "gift_card"] = "card",
    use_coupon: Annotated[bool, Field(description="Apply the cart's coupon; false checks out without it")] = True,
) -> dict[str, Any]:
    """Place an order for everything in a customer's cart, shipped to one of their addresses, e.g.
    checkout_cart('CUS-0066', 'ADR-0108').

    The cart must not be empty, every item must still be in stock, and the coupon must still apply. Returns the new
    order id."""
    CUSTOMER.get(ctx, customer_id)
    address = fetch(
        ctx.db,
        "SELECT * FROM addresses WHERE address_id = ?",
        (address_id,),
        f"No address {address_id!r}. Use list_addresses('{customer_id}') to find the customer's addresses.",
    )
    if address["customer_id"] != customer_id:
        raise ToolError(
            f"Address {address_id} belongs to {address['customer_id']}, not {customer_id}; use "
            f"list_addresses('{customer_id}')."
        )
    lines = _cart_lines(ctx, customer_id)
    if not lines:
        raise ToolError(f"{customer_id}'s cart is empty; add_to_cart before checking out.")
    for line in lines:
        if line["status"] != "active":
            raise ToolError(
                f"{line['product_id']} ({line['name']}) was discontinued; remove it with update_cart_item(quantity=0)."
            )
        if line["quantity"] > line["stock"]:
            raise ToolError(
                f"Only {line['stock']} unit(s) of {line['product_id']} ({line['name']}) left but the cart has "
                f"{line['quantity']}; lower it with update_cart_item."
            )
    summary = _cart_summary(ctx, customer_id)
    code = summary["coupon_code"] if use_coupon else None
    discount = 0.0
    if code:
        try:
            discount = _discount(ctx, _coupon(ctx, code), lines)
        except ToolError as exc:
            raise ToolError(f"{exc} Or call checkout_cart with use_coupon=false.") from None
    subtotal = summary["subtotal"]
    shipping = 0.0 if subtotal - discount >= FREE_SHIPPING_FROM else SHIPPING_FEE
    order_id = next_id(ctx.db, "orders", "order_id", "ORD", 5)
    total = round(subtotal - discount + shipping, 2)
    ctx.db.execute(
        "INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            order_id,
            customer_id,
            address_id,
            "placed",
            payment_method,
            subtotal,
            discount,
            shipping,
            total,
            code,
            fake.iso(ctx.now),
            None,
            None,
            None,
            None,
        ),
    )
    for line in lines:
        ctx.db.execute(
            "INSERT INTO order_items VALUES (?,?,?,?)", (order_id, line["product_id"], line["quantity"], line["price"])
        )
        ctx.db.execute(
            "UPDATE products SET stock = stock - ? WHERE product_id = ?", (line["quantity"], line["product_id"])
        )
    if code:
        ctx.db.execute("UPDATE coupons SET uses = uses + 1 WHERE code = ?", (code,))
    ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ?", (customer_id,))
    ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
    return {
        "order_id": order_id,
        "status": "placed",
        "subtotal": subtotal,
        "discount": discount,
        "shipping": shipping,
        "total": total,
        "coupon_code": code,
        "items": len(lines),
    }


@shopping.write(requires=("checkout_cart",))
def cancel_order(
    ctx: Ctx,
    order_id: OrderId,
    reason: Annotated[str, Field(max_length=200, description="Why, e.g. 'ordered by mistake'")] = "customer request",
) -> dict[str, Any]:
    """Cancel an order that has not shipped yet, e.g. cancel_order('ORD-00517'); its items go back in stock.

    A shipped or delivered order cannot be cancelled: request a return after delivery instead."""
    order = ORDER.get(ctx, order_id)
    if order["status"] == "cancelled":
        raise ToolError(f"Order {order_id} is already cancelled.")
    if order["status"] == "shipped":
        raise ToolError(
            f"Order {order_id} shipped at {order['shipped_at']} and can no longer be cancelled; "
            "once delivered, use request_return."
        )
    if order["status"] == "delivered":
        raise ToolError(
            f"Order {order_id} was delivered at {order['delivered_at']}; use request_return instead of cancelling."
        )
    for product_id, qty in ctx.db.execute(
        "SELECT product_id, quantity FROM order_items WHERE order_id = ?", (order_id,)
    ).fetchall():
        ctx.db.execute("UPDATE products SET stock = stock + ? WHERE product_id = ?", (qty, product_id))
    if order["coupon_code"]:
        ctx.db.execute("UPDATE coupons SET uses = MAX(uses - 1, 0) WHERE code = ?", (order["coupon_code"],))
    ctx.db.execute(
        "UPDATE orders SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE order_id = ?",
        (fake.iso(ctx.now), reason, order_id),
    )
    return {"order_id": order_id, "status": "cancelled", "refund": order["total"]}


@shopping.write(returns=("return",))
def request_return(
    ctx: Ctx,
    order_id: OrderId,
    product_id: ProductId,
    quantity: Quantity = 1,
    reason: Literal["damaged", "wrong_item", "not_as_described", "no_longer_needed", "other"] = "no_longer_needed",
) -> dict[str, Any]:
    """Request a return of units from a delivered order within 30 days of delivery, e.g. request_return('ORD-00423',
    'PRD-0018', 1, 'damaged').

    Returns the new return id and the refund it will give."""
    order = ORDER.get(ctx, order_id)
    if order["status"] != "delivered":
        hint = (
            "cancel_order instead"
            if order["status"] == "placed"
            else "wait until it is delivered"
            if order["status"] == "shipped"
            else "nothing to return"
        )
        raise ToolError(f"Order {order_id} is {order['status']}; only delivered orders can be returned ({hint}).")
    deadline = datetime.fromisoformat(order["delivered_at"]) + timedelta(days=RETURN_WINDOW_DAYS)
    if ctx.now > deadline:
        raise ToolError(
            f"Order {order_id} was delivered at {order['delivered_at']}; the {RETURN_WINDOW_DAYS}-day return window "
            f"closed at {fake.iso(deadline)}."
        )
    item = ctx.db.execute(
        "SELECT quantity, unit_price FROM order_items WHERE order_id = ? AND product_id = ?", (order_id, product_id)
    ).fetchone()
    if item is None:
        raise ToolError(
            f"Product {product_id} is not part of order {order_id}; get_order('{order_id}') lists its items."
        )
    returned = ctx.db.execute(
        "SELECT COALESCE(SUM(quantity), 0) FROM returns WHERE order_id = ? AND product_id = ? AND status != 'rejected'",
        (order_id, product_id),
    ).fetchone()[0]
    if quantity > item[0] - returned:
        raise ToolError(
            f"Order {order_id} has {item[0]} of {product_id} and {returned} already returned; "
            f"at most {item[0] - returned} more can be returned."
        )
    share = 1 - (order["discount"] / order["subtotal"] if order["subtotal"] else 0)
    refund = round(item[1] * quantity * share, 2)
    return_id = next_id(ctx.db, "returns", "return_id", "RET")
    ctx.db.execute(
        "INSERT INTO returns VALUES (?,?,?,?,?,?,?,?)",
        (return_id, order_id, product_id, quantity, reason, "requested", refund, fake.iso(ctx.now)),
    )
    return {
        "return_id": return_id,
        "order_id": order_id,
        "product_id": product_id,
        "quantity": quantity,
        "status": "requested",
        "refund_amount": refund,
    }


@shopping.write(returns=("address",))
def add_address(
    ctx: Ctx,
    customer_id: CustomerId,
    street: Annotated[str, Field(min_length=3, max_length=120, description="Street and number, e.g. '742 Oak Ave'")],
    city: Annotated[str, Field(min_length=2, max_length=60, description="City, e.g. 'Denver'")],
    state: Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="Two-letter state code, e.g. 'CO'")],
    zip: Annotated[str, Field(pattern=r"^\d{5}$", description="Five-digit ZIP code, e.g. '80203'")],
    label: Annotated[str, Field(min_length=1, max_length=40, description="A name for it, e.g. 'Work'")] = "Home",
    make_default: Annotated[bool, Field(description="Use it as the default shipping address")] = False,
) -> dict[str, Any]:
    """Save a shipping address for a customer, e.g. add_address('CUS-0042', '742 Oak Ave', 'Denver', 'CO', '80203',
    'Work').

    A customer keeps at most 10 addresses; labels are unique per customer."""
    CUSTOMER.get(ctx, customer_id)
    existing = rows(ctx.db.execute("SELECT label FROM addresses WHERE customer_id = ?", (customer_id,)))
    if len(existing) >= 10:
        raise ToolError(f"{customer_id} already has 10 saved addresses, the maximum.")
    if any(e["label"].lower() == label.strip().lower() for e in existing):
        raise ToolError(f"{customer_id} already has an address labelled {label!r}; choose another label.")
    if not street.strip() or not city.strip() or not label.strip():
        raise ToolError("Street, city and label must not be blank.")
    address_id = next_id(ctx.db, "addresses", "address_id", "ADR")
    default = make_default or not existing
    if default:
        ctx.db.execute("UPDATE addresses SET is_default = 0 WHERE customer_id = ?", (customer_id,))
    ctx.db.execute(
        "INSERT INTO addresses VALUES (?,?,?,?,?,?,?,?)",
        (address_id, customer_id, label.strip(), street.strip(), city.strip(), state, zip, 1 if default else 0),
    )
    return {"address_id": address_id, "customer_id": customer_id, "label": label.strip(), "is_default": default}


@shopping.write(returns=("product",))
def add_to_wishlist(ctx: Ctx, customer_id: CustomerId, product_id: ProductId) -> dict[str, Any]:
    """Save a product to a customer's wishlist, e.g. add_to_wishlist('CUS-0042', 'PRD-0017'); out-of-stock products are
    fine."""
    CUSTOMER.get(ctx, customer_id)
    product = PRODUCT.get(ctx, product_id)
    if product["status"] != "active":
        raise ToolError(f"Product {product_id} is discontinued and cannot be wishlisted.")
    if ctx.db.execute(
        "SELECT 1 FROM wishlist_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)
    ).fetchone():
        raise ToolError(f"{product_id} is already on {customer_id}'s wishlist.")
    if ctx.db.execute("SELECT COUNT(*) FROM wishlist_items WHERE customer_id = ?", (customer_id,)).fetchone()[0] >= 50:
        raise ToolError(f"{customer_id}'s wishlist is full (50 items).")
    ctx.db.execute("INSERT INTO wishlist_items VALUES (?,?,?)", (customer_id, product_id, fake.iso(ctx.now)))
    return {"customer_id": customer_id, "product_id": product_id, "wishlisted": True}


@shopping.write(returns=("review",))
def write_review(
    ctx: Ctx,
    customer_id: CustomerId,
    product_id: ProductId,
    rating: Annotated[int, Field(ge=1, le=5, description="Stars, 1 to 5")],
    title: Annotated[str, Field(min_length=1, max_length=100, description="A short headline, e.g. 'Great sound'")],
    body: Annotated[str, Field(max_length=2000, description="The review text")] = "",
) -> dict[str, Any]:
    """Review a product the customer has received in a delivered order, once per product, e.g. write_review('CUS-0008',
    'PRD-0057', 5, 'Great').

    Updates the product's average rating."""
    CUSTOMER.get(ctx, customer_id)
    PRODUCT.get(ctx, product_id)
    if not title.strip():
        raise ToolError("The review title must not be blank.")
    bought = ctx.db.execute(
        "SELECT 1 FROM orders o JOIN order_items oi USING (order_id) WHERE o.customer_id = ? "
        "AND oi.product_id = ? AND o.status = 'delivered'",
        (customer_id, product_id),
    ).fetchone()
    if not bought:
        raise ToolError(
            f"{customer_id} has no delivered order containing {product_id}; only verified buyers can review. "
            "list_orders(customer_id=..., status='delivered') shows what they received."
        )
    if ctx.db.execute(
        "SELECT 1 FROM reviews WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)
    ).fetchone():
        raise ToolError(f"{customer_id} has already reviewed {product_id}.")
    review_id = next_id(ctx.db, "reviews", "review_id", "REV")
    ctx.db.execute(
        "INSERT INTO reviews VALUES (?,?,?,?,?,?,?,?)",
        (review_id, product_id, customer_id, rating, title.strip(), body, 1, fake.iso(ctx.now)),
    )
    avg, n = ctx.db.execute(
        "SELECT ROUND(AVG(rating), 2), COUNT(*) FROM reviews WHERE product_id = ?", (product_id,)
    ).fetchone()
    ctx.db.execute("UPDATE products SET rating = ?, review_count = ? WHERE product_id = ?", (avg, n, product_id))
    return {
        "review_id": review_id,
        "product_id": product_id,
        "rating": rating,
        "product_rating": avg,
        "review_count": n,
    }


server = shopping
