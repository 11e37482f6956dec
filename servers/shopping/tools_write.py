"""Shopping write tools after the basket: cancelling, returns, addresses, the wishlist and reviews."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, fetch, next_id
from servers.shopping.schema import RETURN_WINDOW_DAYS
from servers.shopping.tools import CustomerId, OrderId, ProductId, Quantity, shopping


@shopping.write(requires=("checkout_cart",))
def cancel_order(
    ctx: Ctx,
    order_id: OrderId,
    reason: Annotated[str, Field(max_length=200, description="Why, e.g. 'ordered by mistake'")] = "customer request",
) -> dict[str, Any]:
    """Cancel an order that has not shipped yet, e.g. cancel_order('ORD-00517'); its items go back in stock.

    A shipped or delivered order cannot be cancelled: request a return after delivery instead."""
    order = OrderId.get(ctx, order_id)
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
    order = OrderId.get(ctx, order_id)
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
    item = fetch(
        ctx.db,
        "SELECT quantity, unit_price FROM order_items WHERE order_id = ? AND product_id = ?",
        (order_id, product_id),
        f"Product {product_id} is not part of order {order_id}; get_order('{order_id}') lists its items.",
    )
    returned = ctx.value(
        "SELECT COALESCE(SUM(quantity), 0) FROM returns WHERE order_id = ? AND product_id = ? AND status != 'rejected'",
        (order_id, product_id),
    )
    if quantity > item["quantity"] - returned:
        raise ToolError(
            f"Order {order_id} has {item['quantity']} of {product_id} and {returned} already returned; "
            f"at most {item['quantity'] - returned} more can be returned."
        )
    share = 1 - (order["discount"] / order["subtotal"] if order["subtotal"] else 0)
    refund = round(item["unit_price"] * quantity * share, 2)
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
    CustomerId.get(ctx, customer_id)
    existing = ctx.rows("SELECT label FROM addresses WHERE customer_id = ?", (customer_id,))
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
    CustomerId.get(ctx, customer_id)
    product = ProductId.get(ctx, product_id)
    if product["status"] != "active":
        raise ToolError(f"Product {product_id} is discontinued and cannot be wishlisted.")
    if ctx.db.execute(
        "SELECT 1 FROM wishlist_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)
    ).fetchone():
        raise ToolError(f"{product_id} is already on {customer_id}'s wishlist.")
    if ctx.value("SELECT COUNT(*) FROM wishlist_items WHERE customer_id = ?", (customer_id,)) >= 50:
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
    CustomerId.get(ctx, customer_id)
    ProductId.get(ctx, product_id)
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
