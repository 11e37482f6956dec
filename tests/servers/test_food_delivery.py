"""Food delivery: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from typing import Any

from tests.conftest import World

F = "food_delivery"


def restaurant(world: World, open_now: bool = True, city: str = "Seattle") -> dict[str, Any]:
    found = world.ok(F, "search_restaurants", city=city, limit=50)["restaurants"]
    return next(r for r in found if r["open_now"] == open_now)


def customer_without_cart(world: World, city: str = "Seattle", nth: int = 0) -> str:
    for c in world.ok(F, "search_customers", city=city, limit=100)["customers"]:
        if not world.ok(F, "get_customer", customer_id=c["customer_id"])["has_cart"] and (nth := nth - 1) < 0:
            return c["customer_id"]
    raise AssertionError("no customer without a cart")


def fill_cart(world: World, customer_id: str, restaurant_id: str, amount: float = 40.0) -> dict[str, Any]:
    items = world.ok(F, "get_menu", restaurant_id=restaurant_id, available_only=True)["items"]
    cart: dict[str, Any] = {}
    for item in items:
        cart = world.ok(F, "add_to_cart", customer_id=customer_id, item_id=item["item_id"], quantity=2)
        if cart["subtotal"] >= amount:
            break
    return cart


def placed_order(world: World, nth: int = 0) -> dict[str, Any]:
    rest = restaurant(world)
    cus = customer_without_cart(world, nth=nth)
    fill_cart(world, cus, rest["restaurant_id"])
    return world.ok(F, "place_order", customer_id=cus, instructions="Ring the bell")


def test_search_and_get_restaurant(world: World) -> None:
    found = world.ok(F, "search_restaurants", city="Seattle", limit=50)["restaurants"]
    assert len(found) == 10 and any(r["open_now"] for r in found) and not all(r["open_now"] for r in found)
    opened = world.ok(F, "search_restaurants", open_now=True, cuisine="breakfast")["restaurants"]
    assert opened and all(r["open_now"] and r["cuisine"] == "breakfast" for r in opened)
    assert world.ok(F, "search_restaurants", query="Pad Thai")["restaurants"]
    r = world.ok(F, "get_restaurant", restaurant_id=found[0]["restaurant_id"])
    assert r["open_now"] == found[0]["open_now"] and set(r["hours"]) == {
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    }
    assert "No restaurant" in world.err(F, "get_restaurant", restaurant_id="RST-9999")
    assert "invalid arguments" in world.err(F, "search_restaurants", cuisine="martian")


def test_menu(world: World) -> None:
    rest = restaurant(world)
    menu = world.ok(F, "get_menu", restaurant_id=rest["restaurant_id"])["items"]
    assert menu and all(i["price"] > 0 for i in menu)
    drinks = world.ok(F, "get_menu", restaurant_id=rest["restaurant_id"], category="drinks")["items"]
    assert all(i["category"] == "drinks" for i in drinks)
    assert "No restaurant" in world.err(F, "get_menu", restaurant_id="")


def test_customers(world: World) -> None:
    found = world.ok(F, "search_customers", limit=3)["customers"]
    assert len(found) == 3
    cus = world.ok(F, "get_customer", customer_id=found[0]["customer_id"])
    assert cus["order_count"] >= 0 and "active_order_ids" in cus
    assert "No customer" in world.err(F, "get_customer", customer_id="CUS-9999")
    assert "invalid arguments" in world.err(F, "search_customers", offset=-1)


def test_cart_add_update_view(world: World) -> None:
    rest = restaurant(world)
    cus = customer_without_cart(world)
    assert world.ok(F, "view_cart", customer_id=cus)["items"] == []
    items = world.ok(F, "get_menu", restaurant_id=rest["restaurant_id"], available_only=True)["items"]
    world.ok(F, "add_to_cart", customer_id=cus, item_id=items[0]["item_id"], quantity=2)
    world.ok(F, "add_to_cart", customer_id=cus, item_id=items[0]["item_id"])
    cart = world.ok(F, "view_cart", customer_id=cus)
    assert cart["items"][0]["quantity"] == 3 and cart["subtotal"] == round(items[0]["price"] * 3, 2)
    world.ok(F, "update_cart_item", customer_id=cus, item_id=items[0]["item_id"], quantity=1)
    assert world.ok(F, "view_cart", customer_id=cus)["items"][0]["quantity"] == 1
    assert "At most 20" in world.err(F, "add_to_cart", customer_id=cus, item_id=items[0]["item_id"], quantity=20)
    other = restaurant(world, city="Seattle", open_now=False)
    other_item = world.ok(F, "get_menu", restaurant_id=other["restaurant_id"], available_only=True)["items"][0]
    assert "replace_cart=true" in world.err(F, "add_to_cart", customer_id=cus, item_id=other_item["item_id"])
    world.ok(F, "add_to_cart", customer_id=cus, item_id=other_item["item_id"], replace_cart=True)
    cart = world.ok(F, "view_cart", customer_id=cus)
    assert cart["restaurant_id"] == other["restaurant_id"] and len(cart["items"]) == 1
    assert any("closed now" in p for p in cart["problems"])
    world.ok(F, "update_cart_item", customer_id=cus, item_id=other_item["item_id"], quantity=0)
    assert world.ok(F, "view_cart", customer_id=cus)["restaurant_id"] is None
    assert "not in" in world.err(F, "update_cart_item", customer_id=cus, item_id=other_item["item_id"], quantity=2)
    assert "No customer" in world.err(F, "view_cart", customer_id="CUS-0000")
    assert "No menu item" in world.err(F, "add_to_cart", customer_id=cus, item_id="ITM-9999")


def test_unavailable_item(world: World) -> None:
    for r in world.ok(F, "search_restaurants", limit=100)["restaurants"]:
        gone = [i for i in world.ok(F, "get_menu", restaurant_id=r["restaurant_id"])["items"] if not i["available"]]
        if gone:
            cus = customer_without_cart(world)
            assert "unavailable" in world.err(F, "add_to_cart", customer_id=cus, item_id=gone[0]["item_id"])
            return
    raise AssertionError("the seed has unavailable items")


def test_promo_codes(world: World) -> None:
    codes = {p["code"]: p for p in world.ok(F, "list_promo_codes")["promo_codes"]}
    assert "SAVE5" in codes and "SPRING20" not in codes
    assert "SPRING20" in {p["code"] for p in world.ok(F, "list_promo_codes", include_expired=True)["promo_codes"]}
    assert "invalid arguments" in world.err(F, "list_promo_codes", include_expired="yes")
    rest = restaurant(world)
    cus = customer_without_cart(world)
    assert "cart is empty" in world.err(F, "apply_promo_code", customer_id=cus, code="SAVE5")
    items = world.ok(F, "get_menu", restaurant_id=rest["restaurant_id"], available_only=True)["items"]
    world.ok(F, "add_to_cart", customer_id=cus, item_id=min(items, key=lambda i: i["price"])["item_id"])
    assert "at least 25.00" in world.err(F, "apply_promo_code", customer_id=cus, code="save5")
    assert "expired" in world.err(F, "apply_promo_code", customer_id=cus, code="SPRING20")
    assert "does not exist" in world.err(F, "apply_promo_code", customer_id=cus, code="FREEFOOD")
    other = next(p for p in codes.values() if p["restaurant_id"] and p["restaurant_id"] != rest["restaurant_id"])
    assert "only works at" in world.err(F, "apply_promo_code", customer_id=cus, code=other["code"])
    fill_cart(world, cus, rest["restaurant_id"], 40)
    world.ok(F, "apply_promo_code", customer_id=cus, code="SAVE5")
    cart = world.ok(F, "view_cart", customer_id=cus)
    assert cart["promo_code"] == "SAVE5" and cart["discount"] == 5.0
    assert cart["total"] == round(cart["subtotal"] + cart["delivery_fee"] + cart["service_fee"] - 5.0, 2)


def test_place_order_and_track(world: World) -> None:
    rest = restaurant(world)
    cus = customer_without_cart(world)
    cart = fill_cart(world, cus, rest["restaurant_id"])
    order = world.ok(F, "place_order", customer_id=cus, instructions="Leave at the door")
    assert order["total"] == cart["total"] and order["eta"] > "2026-06-01T09:00:00"
    tracked = world.ok(F, "track_order", order_id=order["order_id"])
    assert tracked["status"] == "placed" and tracked["minutes_remaining"] == order["minutes_until_delivery"]
    assert len(tracked["items"]) == len(cart["items"])
    assert world.ok(F, "view_cart", customer_id=cus)["items"] == []
    assert order["order_id"] in world.ok(F, "get_customer", customer_id=cus)["active_order_ids"]
    assert world.ok(F, "list_orders", customer_id=cus, status="placed")["orders"][0]["order_id"] == order["order_id"]
    assert "cart is empty" in world.err(F, "place_order", customer_id=cus)
    assert "No order" in world.err(F, "track_order", order_id="ORD-99999")
    assert "invalid arguments" in world.err(F, "list_orders", status="lost")


def test_place_order_rules(world: World) -> None:
    closed = restaurant(world, open_now=False)
    cus = customer_without_cart(world)
    fill_cart(world, cus, closed["restaurant_id"])
    assert "is closed now" in world.err(F, "place_order", customer_id=cus)
    assert "within 7 days" in world.err(F, "place_order", customer_id=cus, scheduled_for="2026-07-01T12:00")
    assert "not a valid time" in world.err(F, "place_order", customer_id=cus, scheduled_for="2026-06-01T25:00")
    hours = world.ok(F, "get_restaurant", restaurant_id=closed["restaurant_id"])["hours"]
    day = next(i for i, d in enumerate(("tuesday", "wednesday", "thursday")) if hours[d] != "closed")
    opens = hours[("tuesday", "wednesday", "thursday")[day]].split("-")[0]
    later = world.ok(F, "place_order", customer_id=cus, scheduled_for=f"2026-06-0{day + 2}T{opens}")
    assert world.ok(F, "track_order", order_id=later["order_id"])["scheduled_for"] == f"2026-06-0{day + 2}T{opens}:00"
    world.ok(F, "advance_order_status", order_id=later["order_id"])
    world.ok(F, "advance_order_status", order_id=later["order_id"])
    assert "scheduled for" in world.err(F, "advance_order_status", order_id=later["order_id"])
    rest = restaurant(world)
    cus2 = customer_without_cart(world, nth=1)
    cheap = min(
        world.ok(F, "get_menu", restaurant_id=rest["restaurant_id"], available_only=True)["items"],
        key=lambda i: i["price"],
    )
    world.ok(F, "add_to_cart", customer_id=cus2, item_id=cheap["item_id"])
    assert "below" in world.err(F, "place_order", customer_id=cus2)


def test_advance_and_rate(world: World) -> None:
    order = placed_order(world)
    oid = order["order_id"]
    assert "only delivered orders" in world.err(F, "rate_order", order_id=oid, food_stars=5, delivery_stars=5)
    for expected in ("accepted", "preparing", "out_for_delivery", "delivered"):
        assert world.ok(F, "advance_order_status", order_id=oid)["status"] == expected
        assert world.ok(F, "track_order", order_id=oid)["status"] == expected
    tracked = world.ok(F, "track_order", order_id=oid)
    assert tracked["courier"]["courier_id"] and tracked["delivered_at"] == "2026-06-01T09:00:00"
    assert "no next status" in world.err(F, "advance_order_status", order_id=oid)
    rest_before = world.ok(F, "get_restaurant", restaurant_id=tracked["restaurant_id"])
    world.ok(F, "rate_order", order_id=oid, food_stars=5, delivery_stars=4, comment="Hot and on time.")
    rest_after = world.ok(F, "get_restaurant", restaurant_id=tracked["restaurant_id"])
    assert (
        rest_after["rating_count"] == rest_before["rating_count"] + 1
        and world.ok(F, "track_order", order_id=oid)["rated"]
    )
    assert "already rated" in world.err(F, "rate_order", order_id=oid, food_stars=1, delivery_stars=1)
    assert "invalid arguments" in world.err(F, "rate_order", order_id=oid, food_stars=0, delivery_stars=1)
    assert "No order" in world.err(F, "advance_order_status", order_id="ORD-00000")


def test_cancel_order(world: World) -> None:
    first = placed_order(world)
    out = world.ok(F, "cancel_order", order_id=first["order_id"], reason="ordered by mistake")
    assert out["refund_amount"] == first["total"]
    assert world.ok(F, "track_order", order_id=first["order_id"])["status"] == "cancelled"
    assert "already cancelled" in world.err(F, "cancel_order", order_id=first["order_id"])
    second = placed_order(world, nth=1)
    world.ok(F, "advance_order_status", order_id=second["order_id"])
    world.ok(F, "advance_order_status", order_id=second["order_id"])
    tracked = world.ok(F, "track_order", order_id=second["order_id"])
    assert world.ok(F, "cancel_order", order_id=second["order_id"])["kept"] == round(tracked["subtotal"] * 0.5, 2)
    picked = world.ok(F, "list_orders", status="out_for_delivery")["orders"][0]
    assert "can no longer be cancelled" in world.err(F, "cancel_order", order_id=picked["order_id"])


def test_distinct_values(world: World) -> None:
    assert "delivered" in world.ok(F, "get_distinct_values", field="order_status")["values"]
    assert len(world.ok(F, "get_distinct_values", field="cuisine")["values"]) == 10
    assert "invalid arguments" in world.err(F, "get_distinct_values", field="salary")
