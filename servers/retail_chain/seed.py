"""The retail chain seed: ~32 stores and 3 distribution centers in 20 cities, ~55 products, ~1,800 inventory
rows, transfers, restocks and pickup reservations (whose held units count as reserved stock).

One function per table, run in the order the rows depend on each other: the order of the draws from
``rng`` is part of the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows
from servers.retail_chain.schema import HOLD_HOURS

# category: (price range, brands, items)
CATALOG: dict[str, tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]]] = {
    "Tools": (
        (8, 260),
        ("Ironclad", "Summit Pro", "Northline"),
        (
            "Cordless Drill 20V",
            "Circular Saw 7-1/4in",
            "Claw Hammer 16oz",
            "Screwdriver Set 12pc",
            "Socket Set 40pc",
            "Tape Measure 25ft",
            "Level 48in",
            "Utility Knife",
            "Stud Finder",
            "Orbital Sander",
            "Impact Driver",
        ),
    ),
    "Paint": (
        (5, 70),
        ("BrightPath", "HomeWorks"),
        (
            "Interior Paint Gallon Eggshell",
            "Exterior Stain Gallon",
            "Primer Gallon",
            "Paint Roller Kit",
            "Brush Set 3pc",
            "Painter's Tape 2in",
            "Canvas Drop Cloth",
        ),
    ),
    "Electrical": (
        (4, 90),
        ("BrightPath", "Northline", "Voltline"),
        (
            "LED Bulb 4-Pack",
            "Extension Cord 25ft",
            "Smart Plug",
            "Surge Power Strip",
            "Outdoor Timer",
            "Wire Nuts 100pc",
            "GFCI Outlet",
        ),
    ),
    "Plumbing": (
        (5, 240),
        ("AquaFlow", "HomeWorks"),
        (
            "Kitchen Faucet",
            "Rain Shower Head",
            "Toilet Flapper",
            "PVC Pipe 10ft",
            "Heavy-Duty Plunger",
            "Pipe Wrench 14in",
            "Water Filter Cartridge",
        ),
    ),
    "Garden": (
        (6, 420),
        ("Greenfield", "Summit Pro"),
        (
            "Garden Hose 50ft",
            "Potting Soil 40lb",
            "Push Lawn Mower",
            "Leaf Blower",
            "Pruning Shears",
            "Grass Seed 20lb",
            "Wheelbarrow",
        ),
    ),
    "Appliances": (
        (60, 520),
        ("Northline", "Coolbreeze"),
        ("Microwave 1.1cuft", "Dehumidifier 35pt", "Space Heater", "Window AC 8000BTU", "Shop Vacuum 6gal"),
    ),
    "Lighting": (
        (15, 300),
        ("BrightPath", "Lumenhaus"),
        ("Ceiling Fan 52in", "Pendant Light", "Floor Lamp", "Motion Sensor Floodlight", "Under-Cabinet LED Bar"),
    ),
    "Storage": (
        (10, 350),
        ("HomeWorks", "Ironclad"),
        ("Storage Bin 64qt", "Garage Shelving Unit", "Rolling Tool Chest", "Pegboard Kit", "Wall Hook Set"),
    ),
}
BRANCHES = ("Downtown", "Northgate", "Riverside", "Eastside", "Westfield", "Harbor Point", "Uptown", "Lakeview")
SUPPLIERS = ("Acme Logistics", "Harbor Freight Co", "Northwind Traders", "Tidewater Shipping", "Juniper Retail")
CLOSURES = ("renovation", "storm damage", "seasonal closure")

Stock = dict[tuple[str, str], list[Any]]


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """~32 stores and 3 distribution centers in 20 cities, ~55 products, ~1,800 inventory rows, transfers, restocks,
    reservations."""
    locations = stores(rng, now)
    insert_rows(db, "stores", [tuple(s) for s in locations])
    catalog = products(rng)
    insert_rows(db, "products", catalog)
    stock = inventory(rng, now, locations, catalog)
    open_stores = [s for s in locations if s[8] == "open" and s[2] == "store"]
    holds = reservations(rng, now, open_stores, stock)
    keys = sorted(stock)
    moved = transfers(rng, now, keys, open_stores)
    received = restocks(rng, now, keys)
    insert_rows(db, "inventory", [tuple(v) for v in stock.values()])
    insert_rows(db, "reservations", holds)
    insert_rows(db, "transfers", moved)
    insert_rows(db, "restocks", received)


def stores(rng: random.Random, now: datetime) -> list[list[Any]]:
    """One or two branches per city, then three distribution centers."""
    found: list[list[Any]] = []
    for city, state, _, _ in fake.CITIES:
        for branch in rng.sample(BRANCHES, rng.choice((1, 1, 2, 2, 2))):
            status = "closed" if rng.random() < 0.08 else "open"
            address = f"{rng.randint(100, 9999)} {rng.choice(fake.STREETS)}, {city}, {state}"
            manager, phone = fake.full_name(rng), fake.phone(rng)
            note = rng.choice(CLOSURES) if status == "closed" else None
            found.append(
                [
                    f"STR-{len(found) + 1:03d}",
                    f"{city} {branch}",
                    "store",
                    city,
                    state,
                    address,
                    manager,
                    phone,
                    status,
                    note,
                    fake.iso(fake.moment(rng, now, 6000, -200)),
                ]
            )
    for city in ("Dallas", "Chicago", "Phoenix"):
        state = next(c[1] for c in fake.CITIES if c[0] == city)
        address = f"{rng.randint(100, 9999)} Industrial Pkwy, {city}, {state}"
        manager, phone = fake.full_name(rng), fake.phone(rng)
        found.append(
            [
                f"STR-{len(found) + 1:03d}",
                f"{city} Distribution Center",
                "distribution_center",
                city,
                state,
                address,
                manager,
                phone,
                "open",
                None,
                fake.iso(fake.moment(rng, now, 6000, -500)),
            ]
        )
    return found


def products(rng: random.Random) -> list[Row]:
    found: list[Row] = []
    for category, ((low, high), brands, items) in CATALOG.items():
        for item in items:
            brand = rng.choice(brands)
            price = max(round(rng.uniform(low, high)) - 0.01, 0.99)
            cost = round(price * rng.uniform(0.45, 0.7), 2)
            status = "discontinued" if rng.random() < 0.05 else "active"
            found.append((f"SKU-{len(found) + 1:04d}", f"{brand} {item}", category, brand, price, cost, status))
    return found


def inventory(rng: random.Random, now: datetime, locations: list[list[Any]], catalog: list[Row]) -> Stock:
    """About 70% of the catalog in each store, all of it in each distribution center (with 10x reorder points)."""
    stock: Stock = {}
    for s in locations:
        dc = s[2] == "distribution_center"
        for p in catalog:
            if dc or rng.random() < 0.7:
                reorder = rng.choice((5, 10, 15, 20)) * (10 if dc else 1)
                if rng.random() < 0.06:
                    on_hand = 0
                elif rng.random() < 0.15:
                    on_hand = rng.randint(1, reorder)
                else:
                    on_hand = rng.randint(reorder, reorder * 6)
                stock[(s[0], p[0])] = [s[0], p[0], on_hand, 0, reorder, fake.iso(fake.moment(rng, now, 30, 0))]
    return stock


def reservations(rng: random.Random, now: datetime, open_stores: list[list[Any]], stock: Stock) -> list[Row]:
    """Pickup holds at open stores, numbered by creation time; active ones reserve their units."""
    found: list[Row] = []
    for _ in range(140):
        s = rng.choice(open_stores)
        options = [k for k in stock if k[0] == s[0] and stock[k][2] - stock[k][3] >= 2]
        if not options:
            continue
        key = rng.choice(options)
        qty = rng.randint(1, min(3, stock[key][2] - stock[key][3]))
        created = fake.moment(rng, now, 10, 0)
        expires = created + timedelta(hours=HOLD_HOURS)
        if expires > now:
            status = rng.choices(("active", "picked_up", "cancelled"), (70, 20, 10))[0]
        else:
            status = rng.choices(("picked_up", "cancelled", "expired"), (70, 15, 15))[0]
        if status == "active":
            stock[key][3] += qty
        found.append(
            (
                f"RSV-{len(found) + 1:04d}",
                s[0],
                key[1],
                qty,
                fake.full_name(rng),
                fake.phone(rng),
                status,
                fake.iso(created),
                fake.iso(expires),
            )
        )
    found.sort(key=lambda r: r[7])
    return [(f"RSV-{i + 1:04d}", *r[1:]) for i, r in enumerate(found)]


def transfers(
    rng: random.Random, now: datetime, keys: list[tuple[str, str]], open_stores: list[list[Any]]
) -> list[Row]:
    found: list[Row] = []
    for t in sorted(fake.moment(rng, now, 60, 0) for _ in range(160)):
        src, sku = rng.choice(keys)
        dst = rng.choice(open_stores)[0]
        if dst == src:
            continue
        quantity = rng.choice((2, 4, 5, 6, 10, 12, 20, 24, 50))
        note = rng.choice(("rebalance", "low stock", "store request", "seasonal demand"))
        found.append((f"TRF-{len(found) + 1:04d}", sku, src, dst, quantity, note, fake.iso(t)))
    return found


def restocks(rng: random.Random, now: datetime, keys: list[tuple[str, str]]) -> list[Row]:
    found: list[Row] = []
    for t in sorted(fake.moment(rng, now, 60, 0) for _ in range(200)):
        store_id, sku = rng.choice(keys)
        quantity = rng.choice((12, 24, 48, 60, 100, 200))
        found.append((f"RST-{len(found) + 1:04d}", store_id, sku, quantity, rng.choice(SUPPLIERS), fake.iso(t)))
    return found
