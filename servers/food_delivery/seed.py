"""The food delivery seed: 80 restaurants in 8 cities with their menus, 300 customers, 48 couriers, promo
codes, ~700 orders (the last 30 still under way) with ratings, and open carts.

Each table's rows come from their own small function; the order of the draws from ``rng`` is part of
the seed's identity (the state hash), so the functions run in the order the rows depend on each other.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows
from servers.food_delivery.schema import FLOW, km_between, service_fee, travel_minutes
from servers.food_delivery.seed_data import CITIES, COMMENTS, CUISINES, NAME_WORDS, PROMOS

ACTIVE_FROM = 690  # orders from this index on are still under way at "now"


@dataclass
class Places:
    """Restaurants (before their ratings are known), menu items, each restaurant's menu, and where they are."""

    restaurants: list[Row] = field(default_factory=list)
    items: list[Row] = field(default_factory=list)
    menus: dict[str, list[Row]] = field(default_factory=dict)
    by_city: dict[str, list[Row]] = field(default_factory=dict)


@dataclass
class Orders:
    """Orders, their items and ratings, and the stars each restaurant and courier collected."""

    orders: list[Row] = field(default_factory=list)
    items: list[Row] = field(default_factory=list)
    ratings: list[Row] = field(default_factory=list)
    stars: dict[str, list[int]] = field(default_factory=dict)
    courier_stars: dict[str, list[int]] = field(default_factory=dict)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """80 restaurants in 8 cities with ~700 menu items, 300 customers, 48 couriers, ~700 orders and open carts."""
    centre = {c[0]: (c[2], c[3]) for c in fake.CITIES}
    state = {c[0]: c[1] for c in fake.CITIES}
    places = restaurants(rng, centre, state)
    insert_rows(db, "menu_items", places.items)
    people = customers(rng, now, centre, state)
    insert_rows(db, "customers", people)
    riders = couriers(rng)
    insert_rows(db, "promo_codes", promo_codes(rng, now, places.restaurants))
    out = orders(rng, now, people, places, riders)
    insert_rows(db, "orders", sorted(out.orders, key=lambda o: o[0]))
    insert_rows(db, "order_items", out.items)
    insert_rows(db, "ratings", out.ratings)
    insert_rows(db, "couriers", rated_couriers(riders, out.courier_stars))
    insert_rows(db, "restaurants", rated_restaurants(places.restaurants, out.stars))
    carts, cart_items = open_carts(rng, now, people, places)
    insert_rows(db, "carts", carts)
    insert_rows(db, "cart_items", cart_items)


def restaurants(rng: random.Random, centre: dict[str, tuple[float, float]], state: dict[str, str]) -> Places:
    """Ten restaurants of different cuisines per city, each with most of its cuisine's dishes."""
    out = Places()
    for city in CITIES:
        lat0, lon0 = centre[city]
        for cuisine in rng.sample(list(CUISINES), 10):
            words, (opens, closes), dishes = CUISINES[cuisine]
            rid = f"RST-{len(out.restaurants) + 1:04d}"
            if rng.random() < 0.25:
                opens = f"{int(opens[:2]) + rng.choice((-1, 1)):02d}:{opens[3:]}"
            out.restaurants.append(
                (
                    rid,
                    f"{rng.choice(NAME_WORDS)} {rng.choice(words)}",
                    cuisine,
                    city,
                    f"{rng.randint(10, 2999)} {rng.choice(fake.STREETS)}, {city}, {state[city]}",
                    round(lat0 + rng.uniform(-0.04, 0.04), 5),
                    round(lon0 + rng.uniform(-0.05, 0.05), 5),
                    fake.phone(rng),
                    0.0,
                    0,
                    rng.choice((1, 2, 2, 3)),
                    opens,
                    closes,
                    rng.choice((None, None, None, None, "monday", "tuesday", "sunday")),
                    float(rng.choice((10, 12, 15, 15, 20, 25))),
                    float(rng.choice((0.99, 1.99, 2.99, 3.99, 4.99))),
                    rng.choice((12, 15, 20, 25, 30)),
                )
            )
            out.menus[rid] = menu(rng, rid, dishes, out.items)
    for r in out.restaurants:
        out.by_city.setdefault(r[3], []).append(r)
    return out


def menu(rng: random.Random, rid: str, dishes: list[tuple[str, str, float, float, int]], items: list[Row]) -> list[Row]:
    found = []
    for dish, cat, low, high, veg in dishes:
        if rng.random() < 0.1:
            continue
        item = (
            f"ITM-{len(items) + 1:04d}",
            rid,
            dish,
            cat,
            round(rng.uniform(low, high) * 4) / 4 - 0.01,
            int(rng.random() > 0.08),
            veg,
            rng.randint(150, 1100) if cat != "drinks" else rng.randint(0, 300),
        )
        items.append(item)
        found.append(item)
    return found


def customers(
    rng: random.Random, now: datetime, centre: dict[str, tuple[float, float]], state: dict[str, str]
) -> list[Row]:
    found = []
    for i in range(1, 301):
        first, last = fake.person(rng)
        city = rng.choice(CITIES)
        lat0, lon0 = centre[city]
        found.append(
            (
                f"CUS-{i:04d}",
                f"{first} {last}",
                fake.email_for(first, last, rng, i),
                fake.phone(rng),
                (
                    f"{rng.randint(10, 9999)} {rng.choice(fake.STREETS)}, Apt {rng.randint(1, 40)}, {city}, "
                    f"{state[city]}"
                ),
                city,
                round(lat0 + rng.uniform(-0.05, 0.05), 5),
                round(lon0 + rng.uniform(-0.06, 0.06), 5),
                fake.iso(fake.moment(rng, now, 1200, -10)),
            )
        )
    return found


def couriers(rng: random.Random) -> list[list[Any]]:
    """Six couriers per city; lists, since orders change their status and ratings fill in later."""
    found: list[list[Any]] = []
    for city in CITIES:
        for _ in range(6):
            found.append(
                [
                    f"CUR-{len(found) + 1:03d}",
                    fake.full_name(rng),
                    city,
                    rng.choice(("bicycle", "scooter", "car")),
                    rng.choice(("available", "available", "off_duty")),
                    0.0,
                    0,
                    0,
                ]
            )
    return found


def promo_codes(rng: random.Random, now: datetime, places: list[Row]) -> list[Row]:
    """The platform's codes and one 25%-off code each for eight restaurants; each expires at the end of a day
    counted from today (one expired yesterday)."""
    found = [(*p[:6], _end_of(now, p[6]), p[7]) for p in PROMOS]
    for r in rng.sample(places, 8):
        found.append(
            (f"{r[2].upper()}{r[0][-2:]}", f"25% off at {r[1]}", "percent", 25.0, 20.0, r[0], _end_of(now, 75), 0)
        )
    return found


def _end_of(now: datetime, days: int) -> str:
    return f"{(now + timedelta(days=days)).date().isoformat()}T23:59:59"


def orders(rng: random.Random, now: datetime, people: list[Row], places: Places, riders: list[list[Any]]) -> Orders:
    """720 orders of the last 120 days, the last 30 still under way (placed minutes ago)."""
    out = Orders()
    city_couriers = {c: [row for row in riders if row[2] == c] for c in CITIES}
    for n in range(720):
        cus = rng.choice(people)
        order(rng, now, out, n, cus, rng.choice(places.by_city[cus[5]]), places.menus, city_couriers[cus[5]])
    return out


def order(
    rng: random.Random,
    now: datetime,
    out: Orders,
    n: int,
    cus: Row,
    rest: Row,
    menus: dict[str, list[Row]],
    riders: list[list[Any]],
) -> None:
    active = n >= ACTIVE_FROM
    if active:
        placed = now - timedelta(minutes=rng.randint(3, 70))
    else:
        placed = fake.moment(rng, now, 120, 0) - timedelta(hours=2)
    pool = [m for m in menus[rest[0]] if m[5]] or menus[rest[0]]
    chosen = rng.sample(pool, min(len(pool), rng.randint(1, 4)))
    lines = [(m, rng.choice((1, 1, 1, 2, 2, 3))) for m in chosen]
    subtotal = round(sum(m[4] * q for m, q in lines), 2)
    km = km_between(rest[5], rest[6], cus[6], cus[7])
    eta = placed + timedelta(minutes=rest[16] + travel_minutes(km))
    code = None
    discount = 0.0
    if subtotal >= 25 and rng.random() < 0.12:
        code, discount = "SAVE5", 5.0
    fee, service = rest[15], service_fee(subtotal)
    total = round(subtotal + fee + service - discount, 2)
    oid = f"ORD-{n + 1:05d}"
    courier = None
    t: dict[str, datetime | None] = {k: None for k in ("accepted", "picked", "delivered", "cancelled")}
    refund = None
    if active:
        status = FLOW[min(3, (n - ACTIVE_FROM) % 4)]
    else:
        status = "cancelled" if rng.random() < 0.07 else "delivered"
    if status == "cancelled":
        t["cancelled"] = placed + timedelta(minutes=rng.randint(1, 8))
        refund = total
    else:
        if FLOW.index(status) >= 1:
            t["accepted"] = placed + timedelta(minutes=rng.randint(1, 3))
        if FLOW.index(status) >= 3:
            free_couriers = [c for c in riders if c[4] == "available"] if active else riders
            if not free_couriers:
                status = "preparing"
            else:
                picked_courier = rng.choice(free_couriers)
                courier = picked_courier[0]
                if active:
                    picked_courier[4] = "delivering"
                picked_courier[7] += 0 if active else 1
                t["picked"] = min(now - timedelta(minutes=1), placed + timedelta(minutes=rest[16] + rng.randint(0, 6)))
        if status == "delivered":
            delivered_at = eta + timedelta(minutes=rng.randint(-8, 15))
            t["delivered"] = delivered_at
            if rng.random() < 0.5:
                rating(rng, out, oid, cus[0], rest[0], courier, delivered_at)
    iso = {k: fake.iso(v) if v else None for k, v in t.items()}
    out.orders.append(
        (
            oid,
            cus[0],
            rest[0],
            courier,
            status,
            subtotal,
            fee,
            service,
            discount,
            total,
            code,
            cus[4],
            rng.choice(("", "", "Leave at the door", "Ring the bell", "No utensils please")),
            fake.iso(placed),
            None,
            iso["accepted"],
            iso["picked"],
            iso["delivered"],
            fake.iso(eta),
            iso["cancelled"],
            rng.choice(("ordered by mistake", "taking too long", "changed my mind")) if refund else None,
            refund,
        )
    )
    out.items.extend((oid, m[0], m[2], m[4], q) for m, q in lines)


def rating(
    rng: random.Random, out: Orders, oid: str, cus_id: str, rid: str, courier: str | None, delivered_at: datetime
) -> None:
    fs, ds = rng.choice((5, 5, 5, 4, 4, 3, 2, 1)), rng.choice((5, 5, 4, 4, 3, 1))
    comment = rng.choice(COMMENTS)
    out.ratings.append((oid, cus_id, rid, courier, fs, ds, comment, fake.iso(delivered_at + timedelta(hours=1))))
    out.stars.setdefault(rid, []).append(fs)
    out.courier_stars.setdefault(courier or "", []).append(ds)


def rated_couriers(riders: list[list[Any]], stars: dict[str, list[int]]) -> list[Row]:
    """Couriers with the average of the delivery stars they got (5.0 for a courier not rated yet)."""
    for row in riders:
        got = stars.get(row[0], [])
        row[5], row[6] = (round(sum(got) / len(got), 2), len(got)) if got else (5.0, 0)
    return [tuple(k) for k in riders]


def rated_restaurants(places: list[Row], stars: dict[str, list[int]]) -> list[Row]:
    """Restaurants with the average of the food stars they got."""
    return [
        r[:8]
        + ((round(sum(stars[r[0]]) / len(stars[r[0]]), 2), len(stars[r[0]])) if stars.get(r[0]) else (0.0, 0))
        + r[10:]
        for r in places
    ]


def open_carts(rng: random.Random, now: datetime, people: list[Row], places: Places) -> tuple[list[Row], list[Row]]:
    """45 customers with a cart of one to three items from a restaurant of their city."""
    carts, cart_items = [], []
    for cus in rng.sample(people, 45):
        rest = rng.choice(places.by_city[cus[5]])
        carts.append((cus[0], rest[0], None, fake.iso(now - timedelta(minutes=rng.randint(5, 600)))))
        for m in rng.sample(places.menus[rest[0]], min(len(places.menus[rest[0]]), rng.randint(1, 3))):
            cart_items.append((cus[0], m[0], rng.choice((1, 1, 2))))
    return carts, cart_items
