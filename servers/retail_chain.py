"""Retail chain: a home-improvement chain's inventory across stores and distribution centers in many cities.

Stock is held per location (on hand, reserved for pickup, reorder point); available = on hand - reserved.
Business rules: a transfer moves at most what the source has available (at most 500 units) between two
different locations that both carry or can take the product, and a closed location cannot receive
transfers or restocks; discontinued products cannot be restocked; pickup reservations are only at
open retail stores (not distribution centers), for at most 5 units of what is available, and hold the
units for 48 hours; only an active reservation can be cancelled, which releases its units.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

SCHEMA = """
CREATE TABLE stores (
    store_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('store', 'distribution_center')),
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    address TEXT NOT NULL,
    manager TEXT NOT NULL,
    phone TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    status_note TEXT,
    opened_at TEXT NOT NULL
);
CREATE TABLE products (
    sku TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    category TEXT NOT NULL,
    brand TEXT NOT NULL,
    unit_price REAL NOT NULL,
    unit_cost REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'discontinued'))
);
CREATE TABLE inventory (
    store_id TEXT NOT NULL REFERENCES stores(store_id),
    sku TEXT NOT NULL REFERENCES products(sku),
    on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
    reserved INTEGER NOT NULL CHECK (reserved >= 0),
    reorder_point INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (store_id, sku)
);
CREATE INDEX inventory_sku ON inventory(sku);
CREATE TABLE transfers (
    transfer_id TEXT PRIMARY KEY,
    sku TEXT NOT NULL REFERENCES products(sku),
    from_store_id TEXT NOT NULL REFERENCES stores(store_id),
    to_store_id TEXT NOT NULL REFERENCES stores(store_id),
    quantity INTEGER NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE restocks (
    restock_id TEXT PRIMARY KEY,
    store_id TEXT NOT NULL REFERENCES stores(store_id),
    sku TEXT NOT NULL REFERENCES products(sku),
    quantity INTEGER NOT NULL,
    supplier TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE reservations (
    reservation_id TEXT PRIMARY KEY,
    store_id TEXT NOT NULL REFERENCES stores(store_id),
    sku TEXT NOT NULL REFERENCES products(sku),
    quantity INTEGER NOT NULL,
    customer_name TEXT NOT NULL,
    customer_phone TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'picked_up', 'cancelled', 'expired')),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX reservations_store ON reservations(store_id, status);
"""

# category: (price range, brands, items)
CATALOG: dict[str, tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]]] = {
    "Tools": ((8, 260), ("Ironclad", "Summit Pro", "Northline"),
              ("Cordless Drill 20V", "Circular Saw 7-1/4in", "Claw Hammer 16oz", "Screwdriver Set 12pc", "Socket Set 40pc",
               "Tape Measure 25ft", "Level 48in", "Utility Knife", "Stud Finder", "Orbital Sander", "Impact Driver")),
    "Paint": ((5, 70), ("BrightPath", "HomeWorks"),
              ("Interior Paint Gallon Eggshell", "Exterior Stain Gallon", "Primer Gallon", "Paint Roller Kit", "Brush Set 3pc",
               "Painter's Tape 2in", "Canvas Drop Cloth")),
    "Electrical": ((4, 90), ("BrightPath", "Northline", "Voltline"),
                   ("LED Bulb 4-Pack", "Extension Cord 25ft", "Smart Plug", "Surge Power Strip", "Outdoor Timer", "Wire Nuts 100pc",
                    "GFCI Outlet")),
    "Plumbing": ((5, 240), ("AquaFlow", "HomeWorks"),
                 ("Kitchen Faucet", "Rain Shower Head", "Toilet Flapper", "PVC Pipe 10ft", "Heavy-Duty Plunger", "Pipe Wrench 14in",
                  "Water Filter Cartridge")),
    "Garden": ((6, 420), ("Greenfield", "Summit Pro"),
               ("Garden Hose 50ft", "Potting Soil 40lb", "Push Lawn Mower", "Leaf Blower", "Pruning Shears", "Grass Seed 20lb",
                "Wheelbarrow")),
    "Appliances": ((60, 520), ("Northline", "Coolbreeze"),
                   ("Microwave 1.1cuft", "Dehumidifier 35pt", "Space Heater", "Window AC 8000BTU", "Shop Vacuum 6gal")),
    "Lighting": ((15, 300), ("BrightPath", "Lumenhaus"),
                 ("Ceiling Fan 52in", "Pendant Light", "Floor Lamp", "Motion Sensor Floodlight", "Under-Cabinet LED Bar")),
    "Storage": ((10, 350), ("HomeWorks", "Ironclad"),
                ("Storage Bin 64qt", "Garage Shelving Unit", "Rolling Tool Chest", "Pegboard Kit", "Wall Hook Set")),
}
BRANCHES = ("Downtown", "Northgate", "Riverside", "Eastside", "Westfield", "Harbor Point", "Uptown", "Lakeview")
SUPPLIERS = ("Acme Logistics", "Harbor Freight Co", "Northwind Traders", "Tidewater Shipping", "Juniper Retail")
MAX_TRANSFER = 500
MAX_RESERVE = 5
HOLD_HOURS = 48


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """~32 stores and 3 distribution centers in 20 cities, ~55 products, ~1,800 inventory rows, transfers, restocks, reservations."""
    stores: list[list[Any]] = []
    for city, state, _, _ in fake.CITIES:
        for branch in rng.sample(BRANCHES, rng.choice((1, 1, 2, 2, 2))):
            status = "closed" if rng.random() < 0.08 else "open"
            stores.append([f"STR-{len(stores) + 1:03d}", f"{city} {branch}", "store", city, state,
                           f"{rng.randint(100, 9999)} {rng.choice(fake.STREETS)}, {city}, {state}", fake.full_name(rng), fake.phone(rng),
                           status, rng.choice(("renovation", "storm damage", "seasonal closure")) if status == "closed" else None,
                           fake.iso(fake.moment(rng, now, 6000, -200))])
    for city in ("Dallas", "Chicago", "Phoenix"):
        state = next(c[1] for c in fake.CITIES if c[0] == city)
        stores.append([f"STR-{len(stores) + 1:03d}", f"{city} Distribution Center", "distribution_center", city, state,
                       f"{rng.randint(100, 9999)} Industrial Pkwy, {city}, {state}", fake.full_name(rng), fake.phone(rng),
                       "open", None, fake.iso(fake.moment(rng, now, 6000, -500))])
    db.executemany("INSERT INTO stores VALUES (?,?,?,?,?,?,?,?,?,?,?)", stores)
    products: list[tuple[Any, ...]] = []
    for category, ((low, high), brands, items) in CATALOG.items():
        for item in items:
            brand = rng.choice(brands)
            price = round(rng.uniform(low, high)) - 0.01
            products.append((f"SKU-{len(products) + 1:04d}", f"{brand} {item}", category, brand, max(price, 0.99),
                             round(max(price, 0.99) * rng.uniform(0.45, 0.7), 2), "discontinued" if rng.random() < 0.05 else "active"))
    db.executemany("INSERT INTO products VALUES (?,?,?,?,?,?,?)", products)
    inventory: dict[tuple[str, str], list[Any]] = {}
    for s in stores:
        dc = s[2] == "distribution_center"
        for p in products:
            if dc or rng.random() < 0.7:
                reorder = rng.choice((5, 10, 15, 20)) * (10 if dc else 1)
                on_hand = 0 if rng.random() < 0.06 else rng.randint(1, reorder) if rng.random() < 0.15 else rng.randint(reorder, reorder * 6)
                inventory[(s[0], p[0])] = [s[0], p[0], on_hand, 0, reorder, fake.iso(fake.moment(rng, now, 30, 0))]
    open_stores = [s for s in stores if s[8] == "open" and s[2] == "store"]
    reservations: list[tuple[Any, ...]] = []
    for _ in range(140):
        s = rng.choice(open_stores)
        options = [k for k in inventory if k[0] == s[0] and inventory[k][2] - inventory[k][3] >= 2]
        if not options:
            continue
        key = rng.choice(options)
        qty = rng.randint(1, min(3, inventory[key][2] - inventory[key][3]))
        created = fake.moment(rng, now, 10, 0)
        expires = created + timedelta(hours=HOLD_HOURS)
        if expires > now:
            status = rng.choices(("active", "picked_up", "cancelled"), (70, 20, 10))[0]
        else:
            status = rng.choices(("picked_up", "cancelled", "expired"), (70, 15, 15))[0]
        if status == "active":
            inventory[key][3] += qty
        reservations.append((f"RSV-{len(reservations) + 1:04d}", s[0], key[1], qty, fake.full_name(rng), fake.phone(rng), status,
                             fake.iso(created), fake.iso(expires)))
    reservations.sort(key=lambda r: r[7])
    reservations = [(f"RSV-{i + 1:04d}", *r[1:]) for i, r in enumerate(reservations)]
    transfers: list[tuple[Any, ...]] = []
    restocks: list[tuple[Any, ...]] = []
    keys = sorted(inventory)
    for t in sorted(fake.moment(rng, now, 60, 0) for _ in range(160)):
        src, sku = rng.choice(keys)
        dst = rng.choice(open_stores)[0]
        if dst == src:
            continue
        transfers.append((f"TRF-{len(transfers) + 1:04d}", sku, src, dst, rng.choice((2, 4, 5, 6, 10, 12, 20, 24, 50)),
                          rng.choice(("rebalance", "low stock", "store request", "seasonal demand")), fake.iso(t)))
    for t in sorted(fake.moment(rng, now, 60, 0) for _ in range(200)):
        store_id, sku = rng.choice(keys)
        restocks.append((f"RST-{len(restocks) + 1:04d}", store_id, sku, rng.choice((12, 24, 48, 60, 100, 200)), rng.choice(SUPPLIERS), fake.iso(t)))
    db.executemany("INSERT INTO inventory VALUES (?,?,?,?,?,?)", [tuple(v) for v in inventory.values()])
    db.executemany("INSERT INTO reservations VALUES (?,?,?,?,?,?,?,?,?)", reservations)
    db.executemany("INSERT INTO transfers VALUES (?,?,?,?,?,?,?)", transfers)
    db.executemany("INSERT INTO restocks VALUES (?,?,?,?,?,?)", restocks)


retail_chain = Server("retail_chain", "Home-improvement retail chain: stock per store across cities, transfers, restocks and pickup reservations.",
                      SCHEMA, seed)

StoreId = Annotated[str, Field(max_length=40, description="Store id, e.g. 'STR-005'"), Entity("store")]
Sku = Annotated[str, Field(max_length=40, description="Product SKU, e.g. 'SKU-0012'"), Entity("product")]
ReservationId = Annotated[str, Field(max_length=40, description="Reservation id, e.g. 'RSV-0120'"), Entity("reservation")]
City = Annotated[str | None, Field(max_length=60, description="Only locations in this city, e.g. 'Denver'")]
State = Annotated[str | None, Field(max_length=2, description="Only locations in this two-letter state, e.g. 'TX'")]
Category = Literal["Tools", "Paint", "Electrical", "Plumbing", "Garden", "Appliances", "Lighting", "Storage"]


def _store(ctx: Ctx, store_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM stores WHERE store_id = ?", (store_id,),
                 f"No store {store_id!r}. Use list_stores to find store ids.")


def _product(ctx: Ctx, sku: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM products WHERE sku = ?", (sku,),
                 f"No product {sku!r}. Use search_products to find SKUs.")


def _stock(ctx: Ctx, store_id: str, sku: str) -> dict[str, Any] | None:
    found = rows(ctx.db.execute("SELECT *, on_hand - reserved AS available FROM inventory WHERE store_id = ? AND sku = ?", (store_id, sku)))
    return found[0] if found else None


def _receiving(store: dict[str, Any]) -> None:
    if store["status"] == "closed":
        raise ToolError(f"{store['store_id']} ({store['name']}) is closed ({store['status_note']}) and cannot receive stock; "
                        "choose an open location with list_stores(status='open').")


def _move(ctx: Ctx, store_id: str, sku: str, delta: int) -> int:
    """Add delta units on hand at a location (creating its stock row), returning the new on-hand count."""
    row = _stock(ctx, store_id, sku)
    if row is None:
        ctx.db.execute("INSERT INTO inventory VALUES (?,?,?,?,?,?)", (store_id, sku, delta, 0, 10, fake.iso(ctx.now)))
        return delta
    ctx.db.execute("UPDATE inventory SET on_hand = on_hand + ?, updated_at = ? WHERE store_id = ? AND sku = ?",
                   (delta, fake.iso(ctx.now), store_id, sku))
    return row["on_hand"] + delta


@retail_chain.read(returns=("store",))
def list_stores(ctx: Ctx, city: City = None, state: State = None, status: Literal["open", "closed"] | None = None,
                kind: Literal["store", "distribution_center"] | None = None,
                limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
    """List the chain's stores and distribution centers, filtered by city, state, status or kind, e.g. list_stores(city='Chicago').
    Store ids look like 'STR-005'."""
    sql, args = "SELECT store_id, name, kind, city, state, status, status_note FROM stores WHERE 1=1", []
    for column, value in (("city", city), ("state", state), ("status", status), ("kind", kind)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY store_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"stores": found, "count": len(found)}


@retail_chain.read(returns=("store", "reservation"))
def get_store(ctx: Ctx, store_id: StoreId) -> dict[str, Any]:
    """Get one location: address, manager, status, how many SKUs and units it holds, how many are below their
    reorder point, and its active pickup reservations, e.g. get_store('STR-005')."""
    store = _store(ctx, store_id)
    skus, units, low = ctx.db.execute(
        "SELECT COUNT(*), COALESCE(SUM(on_hand), 0), COALESCE(SUM(on_hand < reorder_point), 0) FROM inventory WHERE store_id = ?",
        (store_id,)).fetchone()
    store.update(sku_count=skus, units_on_hand=units, low_stock_skus=low)
    store["active_reservations"] = rows(ctx.db.execute(
        "SELECT reservation_id, sku, quantity, customer_name, expires_at FROM reservations WHERE store_id = ? AND status = 'active' "
        "ORDER BY expires_at, reservation_id LIMIT 50", (store_id,)))
    return store


@retail_chain.read(returns=("product",))
def search_products(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name or brand, e.g. 'Drill'")] = "",
                    category: Category | None = None, status: Literal["active", "discontinued"] | None = None,
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search the chain's catalog by name, brand, category or status, with chain-wide units available,
    e.g. search_products('Drill', category='Tools'). Returns SKUs such as 'SKU-0012'."""
    like = f"%{query}%"
    sql = ("SELECT p.sku, p.name, p.category, p.brand, p.unit_price, p.status, "
           "(SELECT COALESCE(SUM(on_hand - reserved), 0) FROM inventory i WHERE i.sku = p.sku) AS chain_available "
           "FROM products p WHERE (p.name LIKE ? OR p.brand LIKE ?)")
    args: list[Any] = [like, like]
    for column, value in (("category", category), ("status", status)):
        if value is not None:
            sql += f" AND p.{column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY p.sku LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"products": found, "count": len(found)}


@retail_chain.read(returns=("store", "product"))
def check_stock(ctx: Ctx, sku: Sku, city: City = None, state: State = None,
                store_id: Annotated[str | None, Field(max_length=40, description="Only this location, e.g. 'STR-005'"), Entity("store")] = None,
                min_available: Annotated[int, Field(ge=0, le=100_000, description="Only locations with at least this many available")] = 0,
                limit: Limit = 50) -> dict[str, Any]:
    """Where a product is in stock: on hand, reserved and available per location, most available first, optionally
    within a city or state, e.g. check_stock('SKU-0012', city='Chicago', min_available=2)."""
    product = _product(ctx, sku)
    sql = ("SELECT i.store_id, s.name AS store_name, s.kind, s.city, s.state, s.status, i.on_hand, i.reserved, "
           "i.on_hand - i.reserved AS available, i.reorder_point FROM inventory i JOIN stores s USING (store_id) "
           "WHERE i.sku = ? AND i.on_hand - i.reserved >= ?")
    args: list[Any] = [sku, min_available]
    for column, value in (("s.city", city), ("s.state", state), ("i.store_id", store_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY available DESC, i.store_id LIMIT ?", (*args, limit)))
    return {"sku": sku, "name": product["name"], "product_status": product["status"], "locations": found,
            "total_available": sum(r["available"] for r in found), "count": len(found)}


@retail_chain.read(returns=("product",))
def list_store_inventory(ctx: Ctx, store_id: StoreId, category: Category | None = None,
                         low_stock_only: Annotated[bool, Field(description="Only SKUs below their reorder point")] = False,
                         limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
    """List what one location stocks, with on hand, reserved, available and reorder point,
    e.g. list_store_inventory('STR-005', low_stock_only=true)."""
    _store(ctx, store_id)
    sql = ("SELECT i.sku, p.name, p.category, i.on_hand, i.reserved, i.on_hand - i.reserved AS available, i.reorder_point, "
           "i.updated_at FROM inventory i JOIN products p USING (sku) WHERE i.store_id = ?")
    args: list[Any] = [store_id]
    if category is not None:
        sql += " AND p.category = ?"
        args.append(category)
    if low_stock_only:
        sql += " AND i.on_hand < i.reorder_point"
    found = rows(ctx.db.execute(sql + " ORDER BY i.sku LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"store_id": store_id, "items": found, "count": len(found)}


@retail_chain.read(returns=("transfer", "store", "product"))
def list_transfers(ctx: Ctx, store_id: Annotated[str | None, Field(max_length=40, description="Only transfers into or out of this location, e.g. 'STR-005'"), Entity("store")] = None,
                   sku: Annotated[str | None, Field(max_length=40, description="Only this product, e.g. 'SKU-0012'"), Entity("product")] = None,
                   direction: Literal["in", "out", "both"] = "both",
                   limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List stock transfers between locations, newest first, by location (incoming, outgoing or both) and SKU,
    e.g. list_transfers(store_id='STR-005', direction='in'). Transfer ids look like 'TRF-0042'."""
    sql, args = "SELECT * FROM transfers WHERE 1=1", []
    if store_id is not None:
        cond = {"in": "to_store_id = ?", "out": "from_store_id = ?", "both": "(from_store_id = ? OR to_store_id = ?)"}[direction]
        sql += f" AND {cond}"
        args += [store_id] * cond.count("?")
    if sku is not None:
        sql += " AND sku = ?"
        args.append(sku)
    found = rows(ctx.db.execute(sql + " ORDER BY created_at DESC, transfer_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"transfers": found, "count": len(found)}


DISTINCT_FIELDS = {"city": ("stores", "city"), "state": ("stores", "state"), "store_status": ("stores", "status"),
                   "store_kind": ("stores", "kind"), "category": ("products", "category"), "brand": ("products", "brand"),
                   "product_status": ("products", "status"), "reservation_status": ("reservations", "status"),
                   "supplier": ("restocks", "supplier")}


@retail_chain.read()
def get_distinct_values(ctx: Ctx, field: Literal["city", "state", "store_status", "store_kind", "category", "brand",
                                                 "product_status", "reservation_status", "supplier"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('city')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@retail_chain.write(returns=("transfer",))
def transfer_stock(ctx: Ctx, sku: Sku, from_store_id: StoreId, to_store_id: StoreId,
                   quantity: Annotated[int, Field(ge=1, le=MAX_TRANSFER, description="Units to move, 1 to 500")],
                   note: Annotated[str, Field(max_length=200, description="Why, e.g. 'low stock'")] = "rebalance") -> dict[str, Any]:
    """Move units of a product from one location to another, e.g. transfer_stock('SKU-0012', 'STR-036', 'STR-005', 20).

    The source must have that many available (on hand minus reserved); a closed location cannot receive."""
    if from_store_id == to_store_id:
        raise ToolError("Source and destination are the same location; choose two different stores.")
    product = _product(ctx, sku)
    src, dst = _store(ctx, from_store_id), _store(ctx, to_store_id)
    _receiving(dst)
    stock = _stock(ctx, from_store_id, sku)
    if stock is None:
        raise ToolError(f"{from_store_id} does not carry {sku}; check_stock('{sku}') shows which locations have it.")
    if quantity > stock["available"]:
        raise ToolError(f"{from_store_id} has only {stock['available']} unit(s) of {sku} available ({stock['on_hand']} on hand, "
                        f"{stock['reserved']} reserved); transfer at most {stock['available']} or pick another source with check_stock.")
    src_left = _move(ctx, from_store_id, sku, -quantity)
    dst_now = _move(ctx, to_store_id, sku, quantity)
    transfer_id = next_id(ctx.db, "transfers", "transfer_id", "TRF")
    ctx.db.execute("INSERT INTO transfers VALUES (?,?,?,?,?,?,?)",
                   (transfer_id, sku, from_store_id, to_store_id, quantity, note, fake.iso(ctx.now)))
    return {"transfer_id": transfer_id, "sku": sku, "name": product["name"], "from_store_id": src["store_id"],
            "to_store_id": dst["store_id"], "quantity": quantity, "from_on_hand": src_left, "to_on_hand": dst_now}


@retail_chain.write(returns=("restock",))
def restock_item(ctx: Ctx, store_id: StoreId, sku: Sku,
                 quantity: Annotated[int, Field(ge=1, le=1000, description="Units received from the supplier, 1 to 1000")],
                 supplier: Annotated[str, Field(min_length=1, max_length=100, description="Who delivers, e.g. 'Acme Logistics'")] = "Acme Logistics") -> dict[str, Any]:
    """Record a supplier delivery of a product to a location, e.g. restock_item('STR-005', 'SKU-0012', 48).

    Closed locations cannot receive and discontinued products cannot be restocked."""
    store = _store(ctx, store_id)
    product = _product(ctx, sku)
    _receiving(store)
    if product["status"] == "discontinued":
        raise ToolError(f"{sku} ({product['name']}) is discontinued and can no longer be ordered; "
                        f"move existing units with transfer_stock instead.")
    if not supplier.strip():
        raise ToolError("The supplier must not be blank.")
    on_hand = _move(ctx, store_id, sku, quantity)
    restock_id = next_id(ctx.db, "restocks", "restock_id", "RST")
    ctx.db.execute("INSERT INTO restocks VALUES (?,?,?,?,?,?)", (restock_id, store_id, sku, quantity, supplier.strip(), fake.iso(ctx.now)))
    return {"restock_id": restock_id, "store_id": store_id, "sku": sku, "quantity": quantity, "on_hand": on_hand}


@retail_chain.write(returns=("reservation",))
def reserve_for_pickup(ctx: Ctx, store_id: StoreId, sku: Sku,
                       customer_name: Annotated[str, Field(min_length=2, max_length=100, description="Who picks it up, e.g. 'Maria Lopez'")],
                       quantity: Annotated[int, Field(ge=1, le=MAX_RESERVE, description="Units to hold, 1 to 5")] = 1,
                       customer_phone: Annotated[str, Field(max_length=30, description="A contact number, e.g. '+1-303-555-0142'")] = "") -> dict[str, Any]:
    """Hold units at an open store for a customer to pick up within 48 hours, e.g. reserve_for_pickup('STR-005', 'SKU-0012', 'Maria Lopez', 2).

    Only at retail stores, not distribution centers, and only up to what is available there."""
    store = _store(ctx, store_id)
    product = _product(ctx, sku)
    if store["kind"] != "store":
        raise ToolError(f"{store_id} is a distribution center and does not serve customers; "
                        f"find a store with check_stock('{sku}', city='{store['city']}').")
    if store["status"] != "open":
        raise ToolError(f"{store_id} ({store['name']}) is closed ({store['status_note']}); "
                        f"find another store with check_stock('{sku}', city='{store['city']}').")
    if not customer_name.strip():
        raise ToolError("The customer name must not be blank.")
    stock = _stock(ctx, store_id, sku)
    available = stock["available"] if stock else 0
    if quantity > available:
        raise ToolError(f"{store_id} has only {available} unit(s) of {sku} available; reserve at most {available} or "
                        f"find another store with check_stock('{sku}', city='{store['city']}', min_available={quantity}).")
    ctx.db.execute("UPDATE inventory SET reserved = reserved + ?, updated_at = ? WHERE store_id = ? AND sku = ?",
                   (quantity, fake.iso(ctx.now), store_id, sku))
    reservation_id = next_id(ctx.db, "reservations", "reservation_id", "RSV")
    expires = fake.iso(ctx.now + timedelta(hours=HOLD_HOURS))
    ctx.db.execute("INSERT INTO reservations VALUES (?,?,?,?,?,?,?,?,?)",
                   (reservation_id, store_id, sku, quantity, customer_name.strip(), customer_phone, "active", fake.iso(ctx.now), expires))
    return {"reservation_id": reservation_id, "store_id": store_id, "sku": sku, "name": product["name"], "quantity": quantity,
            "status": "active", "expires_at": expires}


@retail_chain.write(requires=("reserve_for_pickup",))
def cancel_reservation(ctx: Ctx, reservation_id: ReservationId) -> dict[str, Any]:
    """Cancel an active pickup reservation and release its units back to available stock, e.g. cancel_reservation('RSV-0120')."""
    res = fetch(ctx.db, "SELECT * FROM reservations WHERE reservation_id = ?", (reservation_id,),
                f"No reservation {reservation_id!r}. get_store lists a store's active reservations.")
    if res["status"] != "active":
        raise ToolError(f"Reservation {reservation_id} is {res['status']}; only active reservations can be cancelled.")
    ctx.db.execute("UPDATE inventory SET reserved = MAX(reserved - ?, 0), updated_at = ? WHERE store_id = ? AND sku = ?",
                   (res["quantity"], fake.iso(ctx.now), res["store_id"], res["sku"]))
    ctx.db.execute("UPDATE reservations SET status = 'cancelled' WHERE reservation_id = ?", (reservation_id,))
    return {"reservation_id": reservation_id, "status": "cancelled", "store_id": res["store_id"], "sku": res["sku"],
            "released": res["quantity"]}


server = retail_chain
