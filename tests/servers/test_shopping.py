"""Shopping: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from typing import Any

from tests.conftest import World

S = "shopping"


def in_stock(world: World, min_stock: int = 5, category_id: str | None = None) -> dict:
    args: dict[str, Any] = {"in_stock_only": True, "limit": 100}
    if category_id:
        args["category_id"] = category_id
    return next(p for p in world.ok(S, "search_products", **args)["products"] if p["stock"] >= min_stock)


def customer_with_address(world: World) -> tuple[str, str]:
    cus = world.ok(S, "search_customers", limit=1)["customers"][0]["customer_id"]
    return cus, world.ok(S, "list_addresses", customer_id=cus)["addresses"][0]["address_id"]


def empty_cart(world: World, customer_id: str) -> None:
    for item in world.ok(S, "get_cart", customer_id=customer_id)["items"]:
        world.ok(S, "update_cart_item", customer_id=customer_id, product_id=item["product_id"], quantity=0)


def test_catalog_reads(world: World) -> None:
    found = world.ok(S, "search_products", query="Earbuds", limit=5)["products"]
    assert found and all("Earbuds" in p["name"] for p in found)
    cheap = world.ok(S, "search_products", max_price=20.0, sort="price_desc", limit=10)["products"]
    assert cheap and all(p["price"] <= 20 for p in cheap)
    assert cheap == sorted(cheap, key=lambda p: -p["price"])
    assert "invalid arguments" in world.err(S, "search_products", sort="cheapest")
    product = world.ok(S, "get_product", product_id=found[0]["product_id"])
    assert product["category"] == "Electronics"
    assert "No product" in world.err(S, "get_product", product_id="PRD-9999")
    cats = world.ok(S, "list_categories")["categories"]
    assert len(cats) == 10 and cats[0]["category_id"] == "CAT-01"
    assert "unknown argument" in world.err(S, "list_categories", parent="x")


def test_reviews_and_distinct(world: World) -> None:
    reviewed = world.ok(S, "search_products", sort="rating", limit=1)["products"][0]
    out = world.ok(S, "list_product_reviews", product_id=reviewed["product_id"], min_rating=1)
    assert out["count"] == reviewed["review_count"] or out["count"] == 20
    assert "No product" in world.err(S, "list_product_reviews", product_id="nope")
    assert "delivered" in world.ok(S, "get_distinct_values", field="order_status")["values"]
    assert "invalid arguments" in world.err(S, "get_distinct_values", field="password")


def test_customers_addresses(world: World) -> None:
    cus, _ = customer_with_address(world)
    profile = world.ok(S, "get_customer", customer_id=cus)
    assert profile["address_ids"]
    assert "No customer" in world.err(S, "get_customer", customer_id="CUS-0000")
    assert "No customer" in world.err(S, "list_addresses", customer_id="")
    assert world.ok(S, "search_customers", query="zzzz-nobody")["count"] == 0
    assert "invalid arguments" in world.err(S, "search_customers", limit=0)
    new = world.ok(
        S,
        "add_address",
        customer_id=cus,
        street="742 Oak Ave",
        city="Denver",
        state="CO",
        zip="80203",
        label="Office",
        make_default=True,
    )
    addrs = world.ok(S, "list_addresses", customer_id=cus)["addresses"]
    assert addrs[0]["address_id"] == new["address_id"] and addrs[0]["is_default"] == 1
    assert sum(a["is_default"] for a in addrs) == 1
    assert "already has an address labelled" in world.err(
        S, "add_address", customer_id=cus, street="1 Main St", city="Denver", state="CO", zip="80203", label="office"
    )
    assert "invalid arguments" in world.err(
        S, "add_address", customer_id=cus, street="1 Main St", city="Denver", state="Colorado", zip="80203"
    )


def test_cart_checkout_and_cancel(world: World) -> None:
    cus, adr = customer_with_address(world)
    empty_cart(world, cus)
    assert world.ok(S, "get_cart", customer_id=cus)["items"] == []
    assert "cart is empty" in world.err(S, "checkout_cart", customer_id=cus, address_id=adr)
    product = in_stock(world, 5)
    world.ok(S, "add_to_cart", customer_id=cus, product_id=product["product_id"], quantity=2)
    cart = world.ok(S, "get_cart", customer_id=cus)
    assert cart["items"][0]["quantity"] == 2 and cart["subtotal"] == round(2 * product["price"], 2)
    world.ok(S, "update_cart_item", customer_id=cus, product_id=product["product_id"], quantity=3)
    assert world.ok(S, "get_cart", customer_id=cus)["item_count"] == 3
    other = world.ok(S, "list_addresses", customer_id="CUS-0002")["addresses"][0]["address_id"]
    assert "belongs to" in world.err(S, "checkout_cart", customer_id=cus, address_id=other)
    order = world.ok(S, "checkout_cart", customer_id=cus, address_id=adr, payment_method="paypal")
    assert world.ok(S, "get_cart", customer_id=cus)["items"] == []
    assert world.ok(S, "get_product", product_id=product["product_id"])["stock"] == product["stock"] - 3
    got = world.ok(S, "get_order", order_id=order["order_id"])
    assert got["status"] == "placed" and got["items"][0]["quantity"] == 3
    assert order["order_id"] in [
        o["order_id"] for o in world.ok(S, "list_orders", customer_id=cus, status="placed")["orders"]
    ]
    world.ok(S, "cancel_order", order_id=order["order_id"], reason="ordered by mistake")
    assert world.ok(S, "get_order", order_id=order["order_id"])["status"] == "cancelled"
    assert world.ok(S, "get_product", product_id=product["product_id"])["stock"] == product["stock"]
    assert "already cancelled" in world.err(S, "cancel_order", order_id=order["order_id"])
    assert "No order" in world.err(S, "get_order", order_id="ORD-99999")


def test_cart_limits(world: World) -> None:
    cus, _ = customer_with_address(world)
    out = next(
        p for p in world.ok(S, "search_products", limit=100)["products"] if p["stock"] == 0 and p["status"] == "active"
    )
    assert "out of stock" in world.err(S, "add_to_cart", customer_id=cus, product_id=out["product_id"])
    low = next(
        p
        for p in world.ok(S, "search_products", in_stock_only=True, limit=100, sort="price_asc")["products"]
        if p["stock"] < 4
    )
    assert "in stock" in world.err(
        S, "add_to_cart", customer_id=cus, product_id=low["product_id"], quantity=low["stock"] + 1
    )
    assert "invalid arguments" in world.err(
        S, "add_to_cart", customer_id=cus, product_id=low["product_id"], quantity=11
    )
    empty_cart(world, cus)
    assert "not in" in world.err(S, "update_cart_item", customer_id=cus, product_id=low["product_id"], quantity=1)
    gone = next(p for p in world.ok(S, "search_products", limit=100)["products"] if p["status"] == "discontinued")
    assert "discontinued" in world.err(S, "add_to_cart", customer_id=cus, product_id=gone["product_id"])
    assert "discontinued" in world.err(S, "add_to_wishlist", customer_id=cus, product_id=gone["product_id"])


def test_shipped_order_cannot_be_cancelled(world: World) -> None:
    shipped = world.ok(S, "list_orders", status="shipped", limit=1)["orders"][0]
    assert "can no longer be cancelled" in world.err(S, "cancel_order", order_id=shipped["order_id"])
    assert "only delivered orders" in world.err(
        S, "request_return", order_id=shipped["order_id"], product_id="PRD-0001"
    )


def test_coupons(world: World) -> None:
    coupons = {c["code"]: c for c in world.ok(S, "list_coupons", limit=50)["coupons"]}
    assert not coupons["SPRING25"]["active"] and coupons["SUMMER15"]["active"]
    active = world.ok(S, "list_coupons", active_only=True, limit=50)["coupons"]
    assert "SPRING25" not in [c["code"] for c in active] and "LIMITED5" not in [c["code"] for c in active]
    assert "invalid arguments" in world.err(S, "list_coupons", limit=500)
    cus, adr = customer_with_address(world)
    empty_cart(world, cus)
    assert "cart is empty" in world.err(S, "apply_coupon", customer_id=cus, code="SUMMER15")
    product = in_stock(world, 3)
    world.ok(S, "add_to_cart", customer_id=cus, product_id=product["product_id"], quantity=1)
    assert "expired" in world.err(S, "apply_coupon", customer_id=cus, code="SPRING25")
    assert "not valid yet" in world.err(S, "apply_coupon", customer_id=cus, code="FUTURE20")
    assert "usage limit" in world.err(S, "apply_coupon", customer_id=cus, code="LIMITED5")
    assert "No coupon" in world.err(S, "apply_coupon", customer_id=cus, code="BOGUS")
    if product["price"] < 300:
        assert "minimum spend" in world.err(S, "apply_coupon", customer_id=cus, code="BIGSPEND50")
    world.ok(S, "apply_coupon", customer_id=cus, code="welcome10")
    cart = world.ok(S, "get_cart", customer_id=cus)
    assert cart["coupon_code"] == "WELCOME10" and cart["discount"] == round(product["price"] * 0.1, 2)
    order = world.ok(S, "checkout_cart", customer_id=cus, address_id=adr)
    assert order["discount"] == cart["discount"] and order["coupon_code"] == "WELCOME10"
    after = {c["code"]: c for c in world.ok(S, "list_coupons", limit=50)["coupons"]}
    assert after["WELCOME10"]["uses"] == coupons["WELCOME10"]["uses"] + 1


def test_category_coupon(world: World) -> None:
    cus, _ = customer_with_address(world)
    empty_cart(world, cus)
    book = in_stock(world, 2, "CAT-03")
    world.ok(S, "add_to_cart", customer_id=cus, product_id=book["product_id"])
    assert "only applies to category CAT-01" in world.err(S, "apply_coupon", customer_id=cus, code="TECH10")


def test_returns(world: World) -> None:
    recent = [o for o in world.ok(S, "list_orders", status="delivered", placed_since="2026-05-10", limit=50)["orders"]]
    order = world.ok(S, "get_order", order_id=recent[-1]["order_id"])
    assert order["return_deadline"] > "2026-06-01"
    item = order["items"][0]
    ret = world.ok(
        S,
        "request_return",
        order_id=order["order_id"],
        product_id=item["product_id"],
        quantity=item["quantity"],
        reason="damaged",
    )
    assert ret["return_id"] in [r["return_id"] for r in world.ok(S, "get_order", order_id=order["order_id"])["returns"]]
    mine = world.ok(S, "list_returns", customer_id=order["customer_id"], status="requested")["returns"]
    assert ret["return_id"] in [r["return_id"] for r in mine]
    assert "already returned" in world.err(
        S, "request_return", order_id=order["order_id"], product_id=item["product_id"]
    )
    assert "not part of order" in world.err(S, "request_return", order_id=order["order_id"], product_id="PRD-9999")
    old = world.ok(S, "list_orders", status="delivered", limit=1, offset=400)["orders"][0]
    old_item = world.ok(S, "get_order", order_id=old["order_id"])["items"][0]
    assert "return window" in world.err(
        S, "request_return", order_id=old["order_id"], product_id=old_item["product_id"]
    )
    assert world.ok(S, "list_returns", limit=5)["count"] == 5
    assert "invalid arguments" in world.err(S, "list_returns", status="lost")


def test_wishlist(world: World) -> None:
    cus, _ = customer_with_address(world)
    before = world.ok(S, "get_wishlist", customer_id=cus)["items"]
    product = next(
        p
        for p in world.ok(S, "search_products", in_stock_only=True, limit=100)["products"]
        if p["product_id"] not in {w["product_id"] for w in before}
    )
    world.ok(S, "add_to_wishlist", customer_id=cus, product_id=product["product_id"])
    assert product["product_id"] in [w["product_id"] for w in world.ok(S, "get_wishlist", customer_id=cus)["items"]]
    assert "already on" in world.err(S, "add_to_wishlist", customer_id=cus, product_id=product["product_id"])
    assert "No customer" in world.err(S, "get_wishlist", customer_id="CUS-9999")


def test_write_review(world: World) -> None:
    delivered = world.ok(S, "list_orders", status="delivered", limit=30)["orders"]
    for o in delivered:
        order = world.ok(S, "get_order", order_id=o["order_id"])
        pid = order["items"][0]["product_id"]
        reviews = world.ok(S, "list_product_reviews", product_id=pid, limit=100)["reviews"]
        if o["customer_id"] not in {r["customer_id"] for r in reviews}:
            break
    out = world.ok(
        S, "write_review", customer_id=o["customer_id"], product_id=pid, rating=5, title="Great", body="Works well"
    )
    reviews = world.ok(S, "list_product_reviews", product_id=pid, limit=100)
    assert out["review_id"] in [r["review_id"] for r in reviews["reviews"]]
    assert reviews["review_count"] == out["review_count"]
    assert "already reviewed" in world.err(
        S, "write_review", customer_id=o["customer_id"], product_id=pid, rating=4, title="Again"
    )
    stranger = world.ok(S, "search_customers", limit=1, offset=199)["customers"][0]["customer_id"]
    bought = {
        i["product_id"]
        for x in world.ok(S, "list_orders", customer_id=stranger, status="delivered", limit=100)["orders"]
        for i in world.ok(S, "get_order", order_id=x["order_id"])["items"]
    }
    other = next(
        p["product_id"] for p in world.ok(S, "search_products", limit=50)["products"] if p["product_id"] not in bought
    )
    assert "verified buyers" in world.err(
        S, "write_review", customer_id=stranger, product_id=other, rating=3, title="Meh"
    )
    assert "invalid arguments" in world.err(
        S, "write_review", customer_id=stranger, product_id=other, rating=6, title="x"
    )


def test_odd_inputs_are_tool_errors(world: World) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("get_order", {"order_id": ""}),
        ("list_orders", {"placed_since": "not a date"}),
        ("search_products", {"query": "%_'\"", "offset": 100_000}),
        ("add_to_cart", {"customer_id": "CUS-0001", "product_id": "x" * 40}),
        ("apply_coupon", {"customer_id": "CUS-0001", "code": "   "}),
        ("checkout_cart", {"customer_id": "CUS-0001", "address_id": "ADR-9999"}),
    ]
    for tool, args in cases:
        out = world.call(S, tool, **args)
        assert out.error_kind != "internal", (tool, out.error)
