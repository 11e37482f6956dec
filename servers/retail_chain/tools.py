"""Retail chain tools: find locations, products and stock; move, restock and reserve units."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, ToolError, fake, next_id
from servers.retail_chain.schema import HOLD_HOURS, MAX_RESERVE, MAX_TRANSFER, SCHEMA
from servers.retail_chain.seed import seed

retail_chain = Server(
    "retail_chain",
    "Home-improvement retail chain: stock per store across cities, transfers, restocks and pickup reservations.",
    SCHEMA,
    seed,
    family="commerce",
    id_max_length=40,
)


class StoreId(EntityId, server=retail_chain, example="STR-005", finder="list_stores"): ...


class Sku(
    EntityId,
    server=retail_chain,
    type="product",
    key="sku",
    example="SKU-0012",
    description="Product SKU, e.g. 'SKU-0012'",
    hint="Use search_products to find SKUs.",
): ...


class ReservationId(
    EntityId, server=retail_chain, example="RSV-0120", hint="get_store lists a store's active reservations."
): ...


City = Annotated[str | None, Field(max_length=60, description="Only locations in this city, e.g. 'Denver'")]
State = Annotated[str | None, Field(max_length=2, description="Only locations in this two-letter state, e.g. 'TX'")]
Category = Literal["Tools", "Paint", "Electrical", "Plumbing", "Garden", "Appliances", "Lighting", "Storage"]


def _stock(ctx: Ctx, store_id: str, sku: str) -> dict[str, Any] | None:
    found = ctx.rows(
        "SELECT *, on_hand - reserved AS available FROM inventory WHERE store_id = ? AND sku = ?", (store_id, sku)
    )
    return found[0] if found else None


def _receiving(store: dict[str, Any]) -> None:
    if store["status"] == "closed":
        raise ToolError(
            f"{store['store_id']} ({store['name']}) is closed ({store['status_note']}) and cannot receive "
            "stock; choose an open location with list_stores(status='open')."
        )


def _move(ctx: Ctx, store_id: str, sku: str, delta: int) -> int:
    """Add delta units on hand at a location (creating its stock row), returning the new on-hand count."""
    row = _stock(ctx, store_id, sku)
    if row is None:
        ctx.db.execute("INSERT INTO inventory VALUES (?,?,?,?,?,?)", (store_id, sku, delta, 0, 10, fake.iso(ctx.now)))
        return delta
    ctx.db.execute(
        "UPDATE inventory SET on_hand = on_hand + ?, updated_at = ? WHERE store_id = ? AND sku = ?",
        (delta, fake.iso(ctx.now), store_id, sku),
    )
    return row["on_hand"] + delta


@retail_chain.read(returns=("store",))
def list_stores(
    ctx: Ctx,
    city: City = None,
    state: State = None,
    status: Literal["open", "closed"] | None = None,
    kind: Literal["store", "distribution_center"] | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List the chain's stores and distribution centers, filtered by city, state, status or kind, e.g.
    list_stores(city='Chicago'). Store ids look like 'STR-005'."""
    q = Query("SELECT store_id, name, kind, city, state, status, status_note FROM stores")
    q.equal("city", city).equal("state", state).equal("status", status).equal("kind", kind)
    return q.page(ctx.db, "stores", order_by="store_id", limit=limit, offset=offset)


@retail_chain.read(returns=("store", "reservation"))
def get_store(ctx: Ctx, store_id: StoreId) -> dict[str, Any]:
    """Get one location: address, manager, status, how many SKUs and units it holds, how many are below their
    reorder point, and its active pickup reservations, e.g. get_store('STR-005')."""
    store = StoreId.get(ctx, store_id)
    skus, units, low = ctx.db.execute(
        "SELECT COUNT(*), COALESCE(SUM(on_hand), 0), COALESCE(SUM(on_hand < reorder_point), 0) FROM inventory "
        "WHERE store_id = ?",
        (store_id,),
    ).fetchone()
    store.update(sku_count=skus, units_on_hand=units, low_stock_skus=low)
    store["active_reservations"] = ctx.rows(
        "SELECT reservation_id, sku, quantity, customer_name, expires_at FROM reservations "
        "WHERE store_id = ? AND status = 'active' ORDER BY expires_at, reservation_id LIMIT 50",
        (store_id,),
    )
    return store


@retail_chain.read(returns=("product",))
def search_products(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name or brand, e.g. 'Drill'")] = "",
    category: Category | None = None,
    status: Literal["active", "discontinued"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search the chain's catalog by name, brand, category or status, with chain-wide units available,
    e.g. search_products('Drill', category='Tools'). Returns SKUs such as 'SKU-0012'."""
    q = Query(
        "SELECT p.sku, p.name, p.category, p.brand, p.unit_price, p.status, "
        "(SELECT COALESCE(SUM(on_hand - reserved), 0) FROM inventory i WHERE i.sku = p.sku) AS chain_available "
        "FROM products p"
    )
    q.contains(query, "p.name", "p.brand").equal("p.category", category).equal("p.status", status)
    return q.page(ctx.db, "products", order_by="p.sku", limit=limit, offset=offset)


@retail_chain.read(returns=("store", "product"))
def check_stock(
    ctx: Ctx,
    sku: Sku,
    city: City = None,
    state: State = None,
    store_id: Annotated[str | None, StoreId.ref("Only this location, e.g. 'STR-005'")] = None,
    min_available: Annotated[
        int, Field(ge=0, le=100_000, description="Only locations with at least this many available")
    ] = 0,
    limit: Limit = 50,
) -> dict[str, Any]:
    """Where a product is in stock: on hand, reserved and available per location, most available first, optionally
    within a city or state, e.g. check_stock('SKU-0012', city='Chicago', min_available=2)."""
    product = Sku.get(ctx, sku)
    q = Query(
        "SELECT i.store_id, s.name AS store_name, s.kind, s.city, s.state, s.status, i.on_hand, i.reserved, "
        "i.on_hand - i.reserved AS available, i.reorder_point FROM inventory i JOIN stores s USING (store_id)"
    )
    q.equal("i.sku", sku).where("i.on_hand - i.reserved >= ?", min_available)
    q.equal("s.city", city).equal("s.state", state).equal("i.store_id", store_id)
    found = q.rows(ctx.db, order_by="available DESC, i.store_id", limit=limit)
    return {
        "sku": sku,
        "name": product["name"],
        "product_status": product["status"],
        "locations": found,
        "total_available": sum(r["available"] for r in found),
        "count": len(found),
    }


@retail_chain.read(returns=("product",))
def list_store_inventory(
    ctx: Ctx,
    store_id: StoreId,
    category: Category | None = None,
    low_stock_only: Annotated[bool, Field(description="Only SKUs below their reorder point")] = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List what one location stocks, with on hand, reserved, available and reorder point,
    e.g. list_store_inventory('STR-005', low_stock_only=true)."""
    StoreId.get(ctx, store_id)
    q = Query(
        "SELECT i.sku, p.name, p.category, i.on_hand, i.reserved, i.on_hand - i.reserved AS available, "
        "i.reorder_point, i.updated_at FROM inventory i JOIN products p USING (sku)"
    )
    q.equal("i.store_id", store_id).equal("p.category", category)
    if low_stock_only:
        q.where("i.on_hand < i.reorder_point")
    return {"store_id": store_id, **q.page(ctx.db, "items", order_by="i.sku", limit=limit, offset=offset)}


@retail_chain.read(returns=("transfer", "store", "product"))
def list_transfers(
    ctx: Ctx,
    store_id: Annotated[str | None, StoreId.ref("Only transfers into or out of this location, e.g. 'STR-005'")] = None,
    sku: Annotated[str | None, Sku.ref("Only this product, e.g. 'SKU-0012'")] = None,
    direction: Literal["in", "out", "both"] = "both",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List stock transfers between locations, newest first, by location (incoming, outgoing or both) and SKU,
    e.g. list_transfers(store_id='STR-005', direction='in'). Transfer ids look like 'TRF-0042'."""
    q = Query("SELECT * FROM transfers")
    if store_id is not None:
        cond = {"in": "to_store_id = ?", "out": "from_store_id = ?", "both": "(from_store_id = ? OR to_store_id = ?)"}[
            direction
        ]
        q.where(cond, *[store_id] * cond.count("?"))
    q.equal("sku", sku)
    return q.page(ctx.db, "transfers", order_by="created_at DESC, transfer_id DESC", limit=limit, offset=offset)


retail_chain.distinct_values(
    {
        "city": ("stores", "city"),
        "state": ("stores", "state"),
        "store_status": ("stores", "status"),
        "store_kind": ("stores", "kind"),
        "category": ("products", "category"),
        "brand": ("products", "brand"),
        "product_status": ("products", "status"),
        "reservation_status": ("reservations", "status"),
        "supplier": ("restocks", "supplier"),
    }
)


@retail_chain.write(returns=("transfer",))
def transfer_stock(
    ctx: Ctx,
    sku: Sku,
    from_store_id: StoreId,
    to_store_id: StoreId,
    quantity: Annotated[int, Field(ge=1, le=MAX_TRANSFER, description="Units to move, 1 to 500")],
    note: Annotated[str, Field(max_length=200, description="Why, e.g. 'low stock'")] = "rebalance",
) -> dict[str, Any]:
    """Move units of a product from one location to another, e.g. transfer_stock('SKU-0012', 'STR-036', 'STR-005', 20).

    The source must have that many available (on hand minus reserved); a closed location cannot receive."""
    if from_store_id == to_store_id:
        raise ToolError("Source and destination are the same location; choose two different stores.")
    product = Sku.get(ctx, sku)
    src, dst = StoreId.get(ctx, from_store_id), StoreId.get(ctx, to_store_id)
    _receiving(dst)
    stock = _stock(ctx, from_store_id, sku)
    if stock is None:
        raise ToolError(f"{from_store_id} does not carry {sku}; check_stock('{sku}') shows which locations have it.")
    if quantity > stock["available"]:
        raise ToolError(
            f"{from_store_id} has only {stock['available']} unit(s) of {sku} available "
            f"({stock['on_hand']} on hand, {stock['reserved']} reserved); transfer at most "
            f"{stock['available']} or pick another source with check_stock."
        )
    src_left = _move(ctx, from_store_id, sku, -quantity)
    dst_now = _move(ctx, to_store_id, sku, quantity)
    transfer_id = next_id(ctx.db, "transfers", "transfer_id", "TRF")
    ctx.db.execute(
        "INSERT INTO transfers VALUES (?,?,?,?,?,?,?)",
        (transfer_id, sku, from_store_id, to_store_id, quantity, note, fake.iso(ctx.now)),
    )
    return {
        "transfer_id": transfer_id,
        "sku": sku,
        "name": product["name"],
        "from_store_id": src["store_id"],
        "to_store_id": dst["store_id"],
        "quantity": quantity,
        "from_on_hand": src_left,
        "to_on_hand": dst_now,
    }


@retail_chain.write(returns=("restock",))
def restock_item(
    ctx: Ctx,
    store_id: StoreId,
    sku: Sku,
    quantity: Annotated[int, Field(ge=1, le=1000, description="Units received from the supplier, 1 to 1000")],
    supplier: Annotated[
        str, Field(min_length=1, max_length=100, description="Who delivers, e.g. 'Acme Logistics'")
    ] = "Acme Logistics",
) -> dict[str, Any]:
    """Record a supplier delivery of a product to a location, e.g. restock_item('STR-005', 'SKU-0012', 48).

    Closed locations cannot receive and discontinued products cannot be restocked."""
    store = StoreId.get(ctx, store_id)
    product = Sku.get(ctx, sku)
    _receiving(store)
    if product["status"] == "discontinued":
        raise ToolError(
            f"{sku} ({product['name']}) is discontinued and can no longer be ordered; "
            f"move existing units with transfer_stock instead."
        )
    if not supplier.strip():
        raise ToolError("The supplier must not be blank.")
    on_hand = _move(ctx, store_id, sku, quantity)
    restock_id = next_id(ctx.db, "restocks", "restock_id", "RST")
    ctx.db.execute(
        "INSERT INTO restocks VALUES (?,?,?,?,?,?)",
        (restock_id, store_id, sku, quantity, supplier.strip(), fake.iso(ctx.now)),
    )
    return {"restock_id": restock_id, "store_id": store_id, "sku": sku, "quantity": quantity, "on_hand": on_hand}


@retail_chain.write(returns=("reservation",))
def reserve_for_pickup(
    ctx: Ctx,
    store_id: StoreId,
    sku: Sku,
    customer_name: Annotated[
        str, Field(min_length=2, max_length=100, description="Who picks it up, e.g. 'Maria Lopez'")
    ],
    quantity: Annotated[int, Field(ge=1, le=MAX_RESERVE, description="Units to hold, 1 to 5")] = 1,
    customer_phone: Annotated[str, Field(max_length=30, description="A contact number, e.g. '+1-303-555-0142'")] = "",
) -> dict[str, Any]:
    """Hold units at an open store for a customer to pick up within 48 hours, e.g. reserve_for_pickup('STR-005',
    'SKU-0012', 'Maria Lopez', 2).

    Only at retail stores, not distribution centers, and only up to what is available there."""
    store = StoreId.get(ctx, store_id)
    product = Sku.get(ctx, sku)
    if store["kind"] != "store":
        raise ToolError(
            f"{store_id} is a distribution center and does not serve customers; "
            f"find a store with check_stock('{sku}', city='{store['city']}')."
        )
    if store["status"] != "open":
        raise ToolError(
            f"{store_id} ({store['name']}) is closed ({store['status_note']}); "
            f"find another store with check_stock('{sku}', city='{store['city']}')."
        )
    if not customer_name.strip():
        raise ToolError("The customer name must not be blank.")
    stock = _stock(ctx, store_id, sku)
    available = stock["available"] if stock else 0
    if quantity > available:
        raise ToolError(
            f"{store_id} has only {available} unit(s) of {sku} available; reserve at most {available} or "
            f"find another store with check_stock('{sku}', city='{store['city']}', "
            f"min_available={quantity})."
        )
    ctx.db.execute(
        "UPDATE inventory SET reserved = reserved + ?, updated_at = ? WHERE store_id = ? AND sku = ?",
        (quantity, fake.iso(ctx.now), store_id, sku),
    )
    reservation_id = next_id(ctx.db, "reservations", "reservation_id", "RSV")
    expires = fake.iso(ctx.now + timedelta(hours=HOLD_HOURS))
    ctx.db.execute(
        "INSERT INTO reservations VALUES (?,?,?,?,?,?,?,?,?)",
        (
            reservation_id,
            store_id,
            sku,
            quantity,
            customer_name.strip(),
            customer_phone,
            "active",
            fake.iso(ctx.now),
            expires,
        ),
    )
    return {
        "reservation_id": reservation_id,
        "store_id": store_id,
        "sku": sku,
        "name": product["name"],
        "quantity": quantity,
        "status": "active",
        "expires_at": expires,
    }


@retail_chain.write(requires=("reserve_for_pickup",))
def cancel_reservation(ctx: Ctx, reservation_id: ReservationId) -> dict[str, Any]:
    """Cancel an active pickup reservation and release its units back to available stock, e.g.
    cancel_reservation('RSV-0120')."""
    res = ReservationId.get(ctx, reservation_id)
    if res["status"] != "active":
        raise ToolError(f"Reservation {reservation_id} is {res['status']}; only active reservations can be cancelled.")
    ctx.db.execute(
        "UPDATE inventory SET reserved = MAX(reserved - ?, 0), updated_at = ? WHERE store_id = ? AND sku = ?",
        (res["quantity"], fake.iso(ctx.now), res["store_id"], res["sku"]),
    )
    ctx.db.execute("UPDATE reservations SET status = 'cancelled' WHERE reservation_id = ?", (reservation_id,))
    return {
        "reservation_id": reservation_id,
        "status": "cancelled",
        "store_id": res["store_id"],
        "sku": res["sku"],
        "released": res["quantity"],
    }
