"""Retail chain: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from typing import Any

from tests.conftest import World

R = "retail_chain"


def open_store(world: World, exclude: str = "") -> dict:
    return next(
        s
        for s in world.ok(R, "list_stores", status="open", kind="store", limit=50)["stores"]
        if s["store_id"] != exclude
    )


def stocked(world: World, store_id: str, min_available: int = 10) -> dict:
    items = world.ok(R, "list_store_inventory", store_id=store_id, limit=100)["items"]
    return next(i for i in items if i["available"] >= min_available)


def level(world: World, sku: str, store_id: str) -> dict:
    found = world.ok(R, "check_stock", sku=sku, store_id=store_id)["locations"]
    return found[0] if found else {"on_hand": 0, "reserved": 0, "available": 0}


def test_stores(world: World) -> None:
    chicago = world.ok(R, "list_stores", city="Chicago")["stores"]
    assert chicago and all(s["city"] == "Chicago" for s in chicago)
    assert {s["kind"] for s in world.ok(R, "list_stores", kind="distribution_center")["stores"]} == {
        "distribution_center"
    }
    assert "invalid arguments" in world.err(R, "list_stores", status="demolished")
    store = world.ok(R, "get_store", store_id=chicago[0]["store_id"])
    assert store["sku_count"] > 0 and "active_reservations" in store
    assert "No store" in world.err(R, "get_store", store_id="STR-999")


def test_products_stock_inventory(world: World) -> None:
    drills = world.ok(R, "search_products", query="Drill")["products"]
    assert drills and all("Drill" in p["name"] for p in drills)
    assert "invalid arguments" in world.err(R, "search_products", category="Food")
    sku = drills[0]["sku"]
    stock = world.ok(R, "check_stock", sku=sku, min_available=1)
    assert stock["locations"] and all(loc["available"] >= 1 for loc in stock["locations"])
    assert stock["total_available"] == sum(loc["available"] for loc in stock["locations"])
    texas = world.ok(R, "check_stock", sku=sku, state="TX")["locations"]
    assert all(loc["state"] == "TX" for loc in texas)
    assert "No product" in world.err(R, "check_stock", sku="SKU-9999")
    store = open_store(world)
    low = world.ok(R, "list_store_inventory", store_id=store["store_id"], low_stock_only=True, limit=100)["items"]
    assert all(i["on_hand"] < i["reorder_point"] for i in low)
    assert "No store" in world.err(R, "list_store_inventory", store_id="")


def test_transfers_and_distinct(world: World) -> None:
    recent = world.ok(R, "list_transfers", limit=5)["transfers"]
    assert len(recent) == 5 and recent == sorted(recent, key=lambda t: t["created_at"], reverse=True)
    store = recent[0]["to_store_id"]
    incoming = world.ok(R, "list_transfers", store_id=store, direction="in", limit=50)["transfers"]
    assert incoming and all(t["to_store_id"] == store for t in incoming)
    assert "invalid arguments" in world.err(R, "list_transfers", direction="sideways")
    values = world.ok(R, "get_distinct_values", field="store_kind")["values"]
    assert set(values) == {"store", "distribution_center"}
    assert "invalid arguments" in world.err(R, "get_distinct_values", field="password")


def test_transfer_stock(world: World) -> None:
    dc = world.ok(R, "list_stores", kind="distribution_center", limit=1)["stores"][0]["store_id"]
    item = stocked(world, dc, 30)
    dst = open_store(world)["store_id"]
    before_src, before_dst = level(world, item["sku"], dc), level(world, item["sku"], dst)
    out = world.ok(
        R, "transfer_stock", sku=item["sku"], from_store_id=dc, to_store_id=dst, quantity=20, note="low stock"
    )
    assert level(world, item["sku"], dc)["on_hand"] == before_src["on_hand"] - 20
    assert level(world, item["sku"], dst)["on_hand"] == before_dst["on_hand"] + 20
    assert out["transfer_id"] in [
        t["transfer_id"] for t in world.ok(R, "list_transfers", store_id=dst, sku=item["sku"])["transfers"]
    ]
    too_many = level(world, item["sku"], dc)["available"] + 1
    if too_many <= 500:
        assert "available" in world.err(
            R, "transfer_stock", sku=item["sku"], from_store_id=dc, to_store_id=dst, quantity=too_many
        )
    assert "same location" in world.err(
        R, "transfer_stock", sku=item["sku"], from_store_id=dc, to_store_id=dc, quantity=1
    )
    closed = world.ok(R, "list_stores", status="closed", limit=1)["stores"][0]["store_id"]
    assert "cannot receive" in world.err(
        R, "transfer_stock", sku=item["sku"], from_store_id=dc, to_store_id=closed, quantity=1
    )
    assert "invalid arguments" in world.err(
        R, "transfer_stock", sku=item["sku"], from_store_id=dc, to_store_id=dst, quantity=501
    )


def test_transfer_more_than_source_holds(world: World) -> None:
    store = open_store(world)["store_id"]
    item = stocked(world, store, 1)
    other = open_store(world, exclude=store)["store_id"]
    msg = world.err(
        R, "transfer_stock", sku=item["sku"], from_store_id=store, to_store_id=other, quantity=item["available"] + 1
    )
    assert f"only {item['available']} unit(s)" in msg


def test_restock(world: World) -> None:
    store = open_store(world)["store_id"]
    active = {p["sku"] for p in world.ok(R, "search_products", status="active", limit=100)["products"]}
    item = next(
        i for i in world.ok(R, "list_store_inventory", store_id=store, limit=100)["items"] if i["sku"] in active
    )
    out = world.ok(R, "restock_item", store_id=store, sku=item["sku"], quantity=48, supplier="Acme Logistics")
    assert level(world, item["sku"], store)["on_hand"] == item["on_hand"] + 48 == out["on_hand"]
    gone = world.ok(R, "search_products", status="discontinued", limit=1)["products"][0]["sku"]
    assert "discontinued" in world.err(R, "restock_item", store_id=store, sku=gone, quantity=10)
    closed = world.ok(R, "list_stores", status="closed", limit=1)["stores"][0]["store_id"]
    assert "closed" in world.err(R, "restock_item", store_id=closed, sku=item["sku"], quantity=10)
    assert "invalid arguments" in world.err(R, "restock_item", store_id=store, sku=item["sku"], quantity=0)


def test_reserve_and_cancel(world: World) -> None:
    store = open_store(world)["store_id"]
    item = stocked(world, store, 5)
    res = world.ok(R, "reserve_for_pickup", store_id=store, sku=item["sku"], customer_name="Maria Lopez", quantity=3)
    assert res["expires_at"] == "2026-06-03T09:00:00"
    after = level(world, item["sku"], store)
    assert after["reserved"] == item["reserved"] + 3 and after["available"] == item["available"] - 3
    assert res["reservation_id"] in [
        r["reservation_id"] for r in world.ok(R, "get_store", store_id=store)["active_reservations"]
    ]
    world.ok(R, "cancel_reservation", reservation_id=res["reservation_id"])
    assert level(world, item["sku"], store)["available"] == item["available"]
    assert res["reservation_id"] not in [
        r["reservation_id"] for r in world.ok(R, "get_store", store_id=store)["active_reservations"]
    ]
    assert "only active" in world.err(R, "cancel_reservation", reservation_id=res["reservation_id"])
    assert "No reservation" in world.err(R, "cancel_reservation", reservation_id="RSV-9999")


def test_reserve_rules(world: World) -> None:
    dc = world.ok(R, "list_stores", kind="distribution_center", limit=1)["stores"][0]["store_id"]
    item = stocked(world, dc, 5)
    assert "distribution center" in world.err(
        R, "reserve_for_pickup", store_id=dc, sku=item["sku"], customer_name="Ann Lee"
    )
    closed = world.ok(R, "list_stores", status="closed", kind="store", limit=1)["stores"][0]["store_id"]
    assert "closed" in world.err(R, "reserve_for_pickup", store_id=closed, sku=item["sku"], customer_name="Ann Lee")
    store = open_store(world)["store_id"]
    short = next(
        i for i in world.ok(R, "list_store_inventory", store_id=store, limit=100)["items"] if i["available"] < 5
    )
    assert "available" in world.err(
        R,
        "reserve_for_pickup",
        store_id=store,
        sku=short["sku"],
        customer_name="Ann Lee",
        quantity=short["available"] + 1,
    )
    assert "invalid arguments" in world.err(
        R, "reserve_for_pickup", store_id=store, sku=short["sku"], customer_name="Ann Lee", quantity=6
    )
    seeded = next(
        s
        for s in world.ok(R, "list_stores", status="open", kind="store", limit=50)["stores"]
        if world.ok(R, "get_store", store_id=s["store_id"])["active_reservations"]
    )
    held = world.ok(R, "get_store", store_id=seeded["store_id"])["active_reservations"][0]
    before = level(world, held["sku"], seeded["store_id"])
    world.ok(R, "cancel_reservation", reservation_id=held["reservation_id"])
    assert level(world, held["sku"], seeded["store_id"])["reserved"] == before["reserved"] - held["quantity"]


def test_odd_inputs_are_tool_errors(world: World) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("check_stock", {"sku": "", "city": "%"}),
        ("list_stores", {"state": "ZZ", "offset": 100_000}),
        ("transfer_stock", {"sku": "SKU-0012", "from_store_id": "nope", "to_store_id": "STR-005", "quantity": 500}),
        ("reserve_for_pickup", {"store_id": "STR-005", "sku": "SKU-0012", "customer_name": "  "}),
        ("restock_item", {"store_id": "STR-005", "sku": "SKU-0012", "quantity": 1000, "supplier": " "}),
    ]
    for tool, args in cases:
        out = world.call(R, tool, **args)
        assert out.error_kind != "internal", (tool, out.error)
