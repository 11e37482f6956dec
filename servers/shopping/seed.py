"""The shopping seed: 10 categories, ~200 products, 200 customers with addresses, ~500 orders, reviews,
carts, wishlists and coupons.

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
from servers.shopping.schema import FREE_SHIPPING_FROM, PAYMENT_METHODS, SHIPPING_FEE
from servers.shopping.seed_catalog import CATALOG, COUPONS, LABELS, REVIEW_TEXT, VARIANTS


@dataclass
class Orders:
    """Orders with their items and returns, and what each customer has received (for verified reviews)."""

    orders: list[Row] = field(default_factory=list)
    items: list[Row] = field(default_factory=list)
    returns: list[Row] = field(default_factory=list)
    purchased: dict[str, set[str]] = field(default_factory=dict)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """10 categories, ~200 products, 200 customers with addresses, ~500 orders, reviews, carts, wishlists, coupons."""
    insert_rows(db, "categories", [(c[0], c[1], c[2]) for c in CATALOG])
    catalog = products(rng, now)
    people, addresses = customers(rng, now)
    insert_rows(db, "customers", people)
    insert_rows(db, "addresses", addresses)
    insert_rows(db, "coupons", coupons(now))
    out = orders(rng, now, catalog, people, addresses)
    insert_rows(db, "orders", out.orders)
    insert_rows(db, "order_items", out.items)
    insert_rows(db, "returns", out.returns)
    found = reviews(rng, now, catalog, people, out.purchased)
    insert_rows(db, "products", [tuple(p) for p in catalog])
    insert_rows(db, "reviews", found)
    cart_items, carts, wishes = carts_and_wishlists(rng, now, catalog, people)
    insert_rows(db, "cart_items", cart_items)
    insert_rows(db, "carts", carts)
    insert_rows(db, "wishlist_items", wishes)


def products(rng: random.Random, now: datetime) -> list[list[Any]]:
    """About 20 products per category (names are unique; a repeated draw is skipped). Lists, since
    their rating and review count are filled in by ``reviews``."""
    found: list[list[Any]] = []
    names: set[str] = set()
    for cat_id, _, _, (low, high), brands, nouns in CATALOG:
        for _ in range(20):
            brand = rng.choice(brands)
            name = f"{brand} {rng.choice(nouns)} {rng.choice(VARIANTS)}"
            if name in names:
                continue
            names.add(name)
            stock = (
                0 if rng.random() < 0.08 else rng.choice((rng.randint(1, 4), rng.randint(5, 60), rng.randint(20, 250)))
            )
            status = "discontinued" if rng.random() < 0.04 else "active"
            found.append(
                [
                    f"PRD-{len(found) + 1:04d}",
                    cat_id,
                    name,
                    brand,
                    round(rng.uniform(low, high)) - 0.01,
                    stock,
                    None,
                    0,
                    status,
                    fake.iso(fake.moment(rng, now, 900, -20)),
                ]
            )
    return found


def customers(rng: random.Random, now: datetime) -> tuple[list[Row], list[Row]]:
    """200 customers, each with one to three addresses; the first (default) one is in their city."""
    people: list[Row] = []
    addresses: list[Row] = []
    for i in range(1, 201):
        first, last = fake.person(rng)
        city = fake.city(rng)[0]
        cus_id = f"CUS-{i:04d}"
        people.append(
            (
                cus_id,
                f"{first} {last}",
                fake.email_for(first, last, rng, i),
                fake.phone(rng),
                city,
                rng.choices(("standard", "plus"), (75, 25))[0],
                fake.iso(fake.moment(rng, now, 1500, -200)),
            )
        )
        for n, label in enumerate(rng.sample(LABELS, rng.choice((1, 1, 2, 2, 3)))):
            c, st, _, _ = fake.city(rng) if n else next(x for x in fake.CITIES if x[0] == city)
            addresses.append(
                (
                    f"ADR-{len(addresses) + 1:04d}",
                    cus_id,
                    label,
                    f"{rng.randint(10, 9999)} {rng.choice(fake.STREETS)}",
                    c,
                    st,
                    f"{rng.randint(10000, 99999)}",
                    1 if n == 0 else 0,
                )
            )
    return people, addresses


def coupons(now: datetime) -> list[Row]:
    return [
        (c, d, k, v, m, cat, fake.iso(now + timedelta(days=s)), fake.iso(now + timedelta(days=e)), mx, u)
        for c, d, k, v, m, cat, s, e, mx, u in COUPONS
    ]


def orders(
    rng: random.Random, now: datetime, catalog: list[list[Any]], people: list[Row], addresses: list[Row]
) -> Orders:
    """520 orders over the last 150 days, in the status their age allows, a few with a return."""
    out = Orders()
    by_cus: dict[str, list[str]] = {}
    for a in addresses:
        by_cus.setdefault(a[1], []).append(a[0])
    placed_times = sorted(fake.moment(rng, now, 150, 0) for _ in range(520))
    for placed in placed_times:
        order(rng, now, out, placed, rng.choice(people)[0], catalog, by_cus)
    return out


def order(
    rng: random.Random,
    now: datetime,
    out: Orders,
    placed: datetime,
    cus_id: str,
    catalog: list[list[Any]],
    by_cus: dict[str, list[str]],
) -> None:
    order_id = f"ORD-{len(out.orders) + 1:05d}"
    lines = rng.sample(catalog, rng.choice((1, 1, 2, 2, 3, 4)))
    subtotal = 0.0
    for p in lines:
        qty = rng.choice((1, 1, 1, 2, 3))
        out.items.append((order_id, p[0], qty, p[4]))
        subtotal += qty * p[4]
    subtotal = round(subtotal, 2)
    status = order_status(rng, (now - placed).days)
    shipped = delivered = cancelled = reason = None
    if status in ("shipped", "delivered"):
        shipped = fake.iso(placed + timedelta(hours=rng.randint(12, 36)))
    if status == "delivered":
        delivered = fake.iso(
            min(now - timedelta(hours=2), placed + timedelta(days=rng.randint(2, 5), hours=rng.randint(0, 9)))
        )
        out.purchased.setdefault(cus_id, set()).update(p[0] for p in lines)
    if status == "cancelled":
        cancelled = fake.iso(placed + timedelta(hours=rng.randint(1, 20)))
        reason = rng.choice(("changed my mind", "found a better price", "ordered by mistake"))
    discount = round(subtotal * 0.1, 2) if rng.random() < 0.15 else 0.0
    code = "WELCOME10" if discount else None
    shipping = 0.0 if subtotal - discount >= FREE_SHIPPING_FROM else SHIPPING_FEE
    out.orders.append(
        (
            order_id,
            cus_id,
            rng.choice(by_cus[cus_id]),
            status,
            rng.choice(PAYMENT_METHODS),
            subtotal,
            discount,
            shipping,
            round(subtotal - discount + shipping, 2),
            code,
            fake.iso(placed),
            shipped,
            delivered,
            cancelled,
            reason,
        )
    )
    if status == "delivered" and rng.random() < 0.1:
        p = lines[0]
        rstatus = rng.choice(("requested", "approved", "refunded", "rejected"))
        why = rng.choice(("damaged", "wrong_item", "no_longer_needed"))
        back = datetime.fromisoformat(str(delivered)) + timedelta(days=rng.randint(1, 12))
        when = min(now - timedelta(hours=1), back)
        out.returns.append(
            (
                f"RET-{len(out.returns) + 1:04d}",
                order_id,
                p[0],
                1,
                why,
                rstatus,
                round(p[4] * (1 - discount / subtotal), 2),
                fake.iso(when),
            )
        )


def order_status(rng: random.Random, age_days: int) -> str:
    if age_days < 2:
        return rng.choices(("placed", "cancelled"), (90, 10))[0]
    if age_days < 6:
        return rng.choices(("shipped", "delivered", "cancelled"), (65, 25, 10))[0]
    return rng.choices(("delivered", "cancelled"), (92, 8))[0]


def reviews(
    rng: random.Random, now: datetime, catalog: list[list[Any]], people: list[Row], purchased: dict[str, set[str]]
) -> list[Row]:
    """Up to 9 reviews per product around a quality of its own; fills in the products' ratings."""
    found: list[Row] = []
    for p in catalog:
        quality = rng.choice((2.5, 3.5, 4.0, 4.5, 4.8))
        reviewers = rng.sample(people, rng.randint(0, 9))
        total = 0
        for reviewer in reviewers:
            rating = max(1, min(5, round(rng.gauss(quality, 1.0))))
            title, body = REVIEW_TEXT[rating]
            found.append(
                (
                    f"REV-{len(found) + 1:04d}",
                    p[0],
                    reviewer[0],
                    rating,
                    title,
                    body,
                    1 if p[0] in purchased.get(reviewer[0], ()) else 0,
                    fake.iso(fake.moment(rng, now, 400, 0)),
                )
            )
            total += rating
        if reviewers:
            p[6], p[7] = round(total / len(reviewers), 2), len(reviewers)
    return found


def carts_and_wishlists(
    rng: random.Random, now: datetime, catalog: list[list[Any]], people: list[Row]
) -> tuple[list[Row], list[Row], list[Row]]:
    """Open carts for about 30% of customers (a few with a coupon) and wishlists, drawn customer by customer."""
    cart_items: list[Row] = []
    wishes: list[Row] = []
    carts: list[Row] = []
    active = [p for p in catalog if p[8] == "active" and p[5] > 0]
    for cus in people:
        if rng.random() < 0.3:
            for p in rng.sample(active, rng.randint(1, 3)):
                cart_items.append((cus[0], p[0], rng.randint(1, min(2, p[5])), fake.iso(fake.moment(rng, now, 20, 0))))
            if rng.random() < 0.2:
                carts.append((cus[0], "WELCOME10"))
        for p in rng.sample(catalog, rng.choice((0, 0, 1, 2, 3, 5))):
            wishes.append((cus[0], p[0], fake.iso(fake.moment(rng, now, 200, 0))))
    return cart_items, carts, wishes
