"""Maps seed: addresses in 20 cities, places, users, their saved places, lists and reviews."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime
from typing import Any

from hub import fake
from servers.maps.schema import (
    CATEGORIES,
    CUISINES,
    LABELS,
    NAME_WORDS,
    REVIEW_TEXT,
    ZIP_BASE,
)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """20 cities, 1,000 addresses, 500 places (25 per city), 120 users with saved places, lists and ~1,500 reviews."""
    addresses: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    for city, state, clat, clon in fake.CITIES:
        n = 0
        while n < 50:
            number, street = rng.randint(1, 4999), rng.choice(fake.STREETS)
            zipc = f"{ZIP_BASE[city] + rng.randint(0, 60):05d}"
            full = f"{number} {street}, {city}, {state} {zipc}"
            if f"{number} {street}, {city}" in seen:
                continue
            seen.add(f"{number} {street}, {city}")
            n += 1
            addresses.append(
                (
                    f"ADR-{len(addresses) + 1:04d}",
                    number,
                    street,
                    city,
                    state,
                    zipc,
                    full,
                    round(clat + rng.uniform(-0.06, 0.06), 5),
                    round(clon + rng.uniform(-0.07, 0.07), 5),
                )
            )
    db.executemany("INSERT INTO addresses VALUES (?,?,?,?,?,?,?,?,?)", addresses)
    by_city: dict[str, list[tuple[Any, ...]]] = {}
    for a in addresses:
        by_city.setdefault(a[3], []).append(a)

    places: list[tuple[Any, ...]] = []
    for city, _, _, _ in fake.CITIES:
        pool = by_city[city]
        picks = rng.sample(pool, 25)
        cats = (
            ["restaurant"] * 7
            + ["cafe"] * 4
            + ["bar"] * 2
            + ["museum"] * 2
            + ["park"] * 2
            + rng.sample(["pharmacy", "supermarket", "gas_station", "hotel", "gym", "bookstore"], 6)
            + [rng.choice(list(CATEGORIES)) for _ in range(2)]
        )
        for cat, adr in zip(cats, picks):
            suffixes, (opens, closes) = CATEGORIES[cat]
            cuisine = rng.choice(CUISINES) if cat == "restaurant" else None
            word = rng.choice(NAME_WORDS)
            name = f"{word} {cuisine.title() + ' ' if cuisine and rng.random() < 0.4 else ''}{rng.choice(suffixes)}"
            if rng.random() < 0.3 and closes != "24:00":
                opens = (
                    f"{int(opens[:2]) + rng.choice((-1, 1)):02d}:{rng.choice(('00', '30'))}"
                    if opens != "00:00"
                    else opens
                )
            closed_on = (
                rng.choice((None, None, None, "monday", "sunday", "tuesday"))
                if cat in ("restaurant", "museum", "bookstore", "bar")
                else None
            )
            slug = "".join(ch for ch in name.lower() if ch.isalnum())
            places.append(
                (
                    f"PLC-{len(places) + 1:04d}",
                    name,
                    cat,
                    cuisine,
                    adr[0],
                    city,
                    adr[7],
                    adr[8],
                    fake.phone(rng),
                    rng.choice((1, 2, 2, 3, 4)) if cat in ("restaurant", "bar", "hotel", "cafe") else 1,
                    0.0,
                    0,
                    opens,
                    closes,
                    closed_on,
                    f"https://{slug}.example.com",
                )
            )

    users = []
    for i in range(1, 121):
        first, last = fake.person(rng)
        city = rng.choice(fake.CITIES)[0]
        home = rng.choice(by_city[city])
        users.append(
            (
                f"USR-{i:04d}",
                f"{first} {last}",
                fake.email_for(first, last, rng, i),
                city,
                home[0],
                fake.iso(fake.moment(rng, now, 1500, -30)),
            )
        )
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?,?)", users)

    reviews = []
    ratings: dict[str, list[int]] = {}
    quality = {p[0]: rng.uniform(2.3, 4.9) for p in places}
    for user in users:
        local = [p for p in places if p[5] == user[3]]
        picked = {p[0]: p for p in rng.sample(local, rng.randint(3, 10)) + rng.sample(places, rng.randint(0, 4))}
        for p in picked.values():
            stars = max(1, min(5, round(rng.gauss(quality[p[0]], 0.9))))
            reviews.append(
                (p[0], user[0], stars, rng.choice(REVIEW_TEXT[stars]), fake.iso(fake.moment(rng, now, 700, 0)))
            )
            ratings.setdefault(p[0], []).append(stars)
    reviews.sort(key=lambda r: (r[4], r[0], r[1]))
    db.executemany("INSERT INTO reviews VALUES (?,?,?,?,?,?)", [(f"REV-{i:05d}", *r) for i, r in enumerate(reviews, 1)])
    places = [
        p[:10]
        + (
            round(sum(ratings.get(p[0], [])) / len(ratings[p[0]]), 2) if ratings.get(p[0]) else 0.0,
            len(ratings.get(p[0], [])),
        )
        + p[12:]
        for p in places
    ]
    db.executemany("INSERT INTO places VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", places)

    saved: list[tuple[Any, ...]] = []
    lists: list[tuple[Any, ...]] = []
    items: list[tuple[Any, ...]] = []
    for user in users:
        local = [p for p in places if p[5] == user[3]]
        for p in rng.sample(local, rng.randint(0, 5)):
            saved.append(
                (
                    f"SAV-{len(saved) + 1:04d}",
                    user[0],
                    p[0],
                    rng.choice(LABELS),
                    rng.choice(("", "", "try the specials", "go on a weekday")),
                    fake.iso(fake.moment(rng, now, 400, 0)),
                )
            )
        if rng.random() < 0.5:
            list_id = f"LST-{len(lists) + 1:04d}"
            name = rng.choice(("Weekend plans", "Coffee crawl", "Visitors guide", "Date ideas", "Rainy day"))
            lists.append(
                (
                    list_id,
                    user[0],
                    name,
                    f"{name} in {user[3]}",
                    int(rng.random() < 0.5),
                    fake.iso(fake.moment(rng, now, 300, 0)),
                )
            )
            for p in rng.sample(local, rng.randint(2, 6)):
                items.append((list_id, p[0], fake.iso(fake.moment(rng, now, 200, 0))))
    db.executemany("INSERT INTO saved_places VALUES (?,?,?,?,?,?)", saved)
    db.executemany("INSERT INTO place_lists VALUES (?,?,?,?,?,?)", lists)
    db.executemany("INSERT INTO list_items VALUES (?,?,?)", items)
