"""Shopping write tools of the basket: adding, changing, a coupon, checking out."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, fetch, next_id
from servers.shopping.schema import FREE_SHIPPING_FROM, MAX_PER_PRODUCT, SHIPPING_FEE
from servers.shopping.tools import (
    AddressId,
    CouponCode,
    CustomerId,
    ProductId,
    Quantity,
    _cart_lines,
    _cart_summary,
    _coupon,
    _discount,
    shopping,
)


@shopping.write(returns=("product",))
def add_to_cart(ctx: Ctx, customer_id: CustomerId, product_id: ProductId, quantity: Quantity = 1) -> dict[str, Any]:
    """Add units of a product to a customer's cart, e.g. add_to_cart('CUS-0042', 'PRD-0017', 2).

    Fails when the product is out of stock, discontinued, or the cart would hold more than the stock or 10 units."""
    CustomerId.get(ctx, customer_id)
    product = ProductId.get(ctx, product_id)
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
    CustomerId.get(ctx, customer_id)
    product = ProductId.get(ctx, product_id)
    row = fetch(
        ctx.db,
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?",
        (customer_id, product_id),
        f"Product {product_id} is not in {customer_id}'s cart; use add_to_cart to add it.",
    )
    if quantity == row["quantity"]:
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
    CustomerId.get(ctx, customer_id)
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
    CustomerId.get(ctx, customer_id)
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
