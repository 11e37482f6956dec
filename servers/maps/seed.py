"""Maps seed: addresses in 20 cities, places, users, their saved places, lists and reviews.

Each table's rows come from their own small function; the order of the draws from ``rng`` is part of
the seed's identity (the state hash), so the functions run in the order the rows depend on each other.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime

from hub.kit import Row, fake, insert_rows
from servers.maps.schema import CATEGORIES, CUISINES, LABELS, NAME_WORDS, REVIEW_TEXT, ZIP_BASE

LIST_NAMES = ("Weekend plans", "Coffee crawl", "Visitors guide", "Date ideas", "Rainy day")


@dataclass
class Collections:
    """Users' saved places, their lists and the places on those lists, filled user by user."""

    saved: list[Row] = field(default_factory=list)
    lists: list[Row] = field(default_factory=list)
    items: list[Row] = field(default_factory=list)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """20 cities, 1,000 addresses, 500 places (25 per city), 120 users with saved places, lists and ~1,500 reviews."""
    addresses = _addresses(rng)
    insert_rows(db, "addresses", addresses)
    by_city: dict[str, list[Row]] = {}
    for a in addresses:
        by_city.setdefault(a[3], []).append(a)
    places = [p for city, _, _, _ in fake.CITIES for p in _city_places(rng, city, by_city[city])]
    places = [(f"PLC-{i:04d}", *p) for i, p in enumerate(places, 1)]
    users = _users(rng, now, by_city)
    insert_rows(db, "users", users)
    reviews = _reviews(rng, now, places, users)
    insert_rows(db, "reviews", [(f"REV-{i:05d}", *r) for i, r in enumerate(reviews, 1)])
    places = _rated(places, reviews)
    insert_rows(db, "places", places)
    out = Collections()
    for user in users:
        _collections(rng, now, out, user, [p for p in places if p[5] == user[3]])
    insert_rows(db, "saved_places", out.saved)
    insert_rows(db, "place_lists", out.lists)
    insert_rows(db, "list_items", out.items)


def _addresses(rng: random.Random) -> list[Row]:
    """50 distinct street addresses per city, scattered around its centre."""
    addresses: list[Row] = []
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
            lat = round(clat + rng.uniform(-0.06, 0.06), 5)
            lon = round(clon + rng.uniform(-0.07, 0.07), 5)
            addresses.append((f"ADR-{len(addresses) + 1:04d}", number, street, city, state, zipc, full, lat, lon))
    return addresses


def _city_places(rng: random.Random, city: str, pool: list[Row]) -> list[Row]:
    """25 places of one city, without their id, on distinct addresses: mostly places to eat and drink."""
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
    return [_place(rng, cat, adr, city) for cat, adr in zip(cats, picks)]


def _place(rng: random.Random, cat: str, adr: Row, city: str) -> Row:
    """One place of category ``cat`` at address ``adr``, rated later from its reviews."""
    suffixes, (opens, closes) = CATEGORIES[cat]
    cuisine = rng.choice(CUISINES) if cat == "restaurant" else None
    word = rng.choice(NAME_WORDS)
    name = f"{word} {cuisine.title() + ' ' if cuisine and rng.random() < 0.4 else ''}{rng.choice(suffixes)}"
    if rng.random() < 0.3 and closes != "24:00":
        opens = f"{int(opens[:2]) + rng.choice((-1, 1)):02d}:{rng.choice(('00', '30'))}" if opens != "00:00" else opens
    closed_on = (
        rng.choice((None, None, None, "monday", "sunday", "tuesday"))
        if cat in ("restaurant", "museum", "bookstore", "bar")
        else None
    )
    slug = "".join(ch for ch in name.lower() if ch.isalnum())
    phone = fake.phone(rng)
    price = rng.choice((1, 2, 2, 3, 4)) if cat in ("restaurant", "bar", "hotel", "cafe") else 1
    url = f"https://{slug}.example.com"
    return (name, cat, cuisine, adr[0], city, adr[7], adr[8], phone, price, 0.0, 0, opens, closes, closed_on, url)


def _users(rng: random.Random, now: datetime, by_city: dict[str, list[Row]]) -> list[Row]:
    """120 users, each living at an address of their city."""
    users = []
    for i in range(1, 121):
        first, last = fake.person(rng)
        city = rng.choice(fake.CITIES)[0]
        home = rng.choice(by_city[city])
        email = fake.email_for(first, last, rng, i)
        users.append(
            (f"USR-{i:04d}", f"{first} {last}", email, city, home[0], fake.iso(fake.moment(rng, now, 1500, -30)))
        )
    return users


def _reviews(rng: random.Random, now: datetime, places: list[Row], users: list[Row]) -> list[Row]:
    """Reviews, without their id, oldest first: each user reviews 3-10 local places and up to 4 anywhere."""
    reviews = []
    quality = {p[0]: rng.uniform(2.3, 4.9) for p in places}
    for user in users:
        local = [p for p in places if p[5] == user[3]]
        picked = {p[0]: p for p in rng.sample(local, rng.randint(3, 10)) + rng.sample(places, rng.randint(0, 4))}
        for p in picked.values():
            stars = max(1, min(5, round(rng.gauss(quality[p[0]], 0.9))))
            reviews.append(
                (p[0], user[0], stars, rng.choice(REVIEW_TEXT[stars]), fake.iso(fake.moment(rng, now, 700, 0)))
            )
    reviews.sort(key=lambda r: (r[4], r[0], r[1]))
    return reviews


def _rated(places: list[Row], reviews: list[Row]) -> list[Row]:
    """The places with their mean rating and review count filled in from ``reviews``."""
    ratings: dict[str, list[int]] = {}
    for place_id, _, stars, *_ in reviews:
        ratings.setdefault(place_id, []).append(stars)
    rated = []
    for p in places:
        stars = ratings.get(p[0], [])
        rated.append(p[:10] + (round(sum(stars) / len(stars), 2) if stars else 0.0, len(stars)) + p[12:])
    return rated


def _collections(rng: random.Random, now: datetime, out: Collections, user: Row, local: list[Row]) -> None:
    """A user's saved places and, for about half the users, one list of local places."""
    for p in rng.sample(local, rng.randint(0, 5)):
        label = rng.choice(LABELS)
        note = rng.choice(("", "", "try the specials", "go on a weekday"))
        saved_at = fake.iso(fake.moment(rng, now, 400, 0))
        out.saved.append((f"SAV-{len(out.saved) + 1:04d}", user[0], p[0], label, note, saved_at))
    if rng.random() < 0.5:
        list_id = f"LST-{len(out.lists) + 1:04d}"
        name = rng.choice(LIST_NAMES)
        public = int(rng.random() < 0.5)
        out.lists.append(
            (list_id, user[0], name, f"{name} in {user[3]}", public, fake.iso(fake.moment(rng, now, 300, 0)))
        )
        for p in rng.sample(local, rng.randint(2, 6)):
            out.items.append((list_id, p[0], fake.iso(fake.moment(rng, now, 200, 0))))
