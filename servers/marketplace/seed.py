"""The marketplace seed: 240 users, ~420 listings (auctions and fixed price), ~1,400 bids and ~200 offers.

A listing's bids or offers are drawn right after the listing's own fields: the order of the draws from
``rng`` is part of the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hub.kit import Row, fake, insert_rows
from servers.marketplace.schema import increment

# category: (price range, item names)
ITEMS: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {
    "Electronics": (
        (40, 1400),
        (
            "iPhone 13 128GB",
            "Nintendo Switch OLED",
            "Sony WH-1000XM4 Headphones",
            "iPad Air 5th Gen",
            "Samsung Galaxy S22",
            "PlayStation 5 Console",
            "Kindle Paperwhite",
            "Bose SoundLink Speaker",
            "MacBook Air M1",
            "Garmin Forerunner 245",
        ),
    ),
    "Collectibles": (
        (15, 2500),
        (
            "1986 Fleer Basketball Card",
            "Pokemon Base Set Charizard",
            "Vintage Coca-Cola Sign",
            "Morgan Silver Dollar 1921",
            "Star Wars Vintage Figure",
            "First Edition Comic Book",
            "Signed Baseball",
            "Antique Pocket Watch",
        ),
    ),
    "Fashion": (
        (20, 900),
        (
            "Leather Jacket",
            "Designer Handbag",
            "Vintage Levi's 501 Jeans",
            "Wool Overcoat",
            "Silk Scarf",
            "Running Sneakers",
            "Aviator Sunglasses",
            "Swiss Wristwatch",
        ),
    ),
    "Home & Garden": (
        (15, 800),
        (
            "Mid-Century Armchair",
            "Cast Iron Dutch Oven",
            "Persian Rug 5x8",
            "Espresso Machine",
            "Teak Garden Bench",
            "Stand Mixer",
            "Crystal Chandelier",
            "Robot Vacuum",
        ),
    ),
    "Sporting Goods": (
        (20, 1600),
        (
            "Road Bike Carbon Frame",
            "Golf Club Set",
            "Kayak 10ft",
            "Snowboard 156cm",
            "Tennis Racket",
            "Camping Tent 4-Person",
            "Adjustable Dumbbells",
            "Fly Fishing Rod",
        ),
    ),
    "Toys & Hobbies": (
        (10, 600),
        (
            "LEGO Millennium Falcon",
            "Model Train Set",
            "RC Drone",
            "Vintage Barbie Doll",
            "Board Game Collection",
            "Telescope 70mm",
            "Hot Wheels Lot",
        ),
    ),
    "Musical Instruments": (
        (60, 3000),
        (
            "Fender Stratocaster",
            "Yamaha Digital Piano",
            "Gibson Les Paul",
            "Violin 4/4",
            "Roland Drum Kit",
            "Martin Acoustic Guitar",
            "Alto Saxophone",
        ),
    ),
    "Books & Media": (
        (5, 400),
        (
            "Signed First Edition Novel",
            "Vinyl Record Lot",
            "Encyclopedia Set",
            "Criterion DVD Box",
            "Antique Atlas",
            "Rare Cookbook",
        ),
    ),
    "Art": (
        (30, 4000),
        (
            "Oil Painting Landscape",
            "Limited Edition Print",
            "Bronze Sculpture",
            "Watercolor Seascape",
            "Framed Photograph",
            "Ceramic Vase",
        ),
    ),
    "Cameras": (
        (50, 2500),
        (
            "Canon EOS R6 Body",
            "Nikon F3 Film Camera",
            "Sony A7 III",
            "Leica M6",
            "Fujifilm X100V",
            "GoPro Hero 11",
            "50mm f/1.8 Lens",
        ),
    ),
}
CONDITIONS = ("new", "like_new", "good", "fair", "for_parts")
DESCRIPTIONS = (
    "Smoke-free home, ships within 2 days.",
    "Lightly used, all original parts.",
    "Minor scuffs, see photos.",
    "Comes with original box and manuals.",
    "Sold as pictured, no returns.",
    "Tested and working.",
)
TITLE_WORDS = ("Excellent", "Great", "Rare", "Clean", "Boxed", "Vintage", "Mint")
OFFER_NOTES = ("Would you take this?", "Can pick up today.", "Best I can do.", "Cash ready.")


@dataclass
class Rows:
    rng: random.Random
    now: datetime
    sellers: list[str]
    buyers: list[str]
    listings: list[Row] = field(default_factory=list)
    bids: list[Row] = field(default_factory=list)
    offers: list[Row] = field(default_factory=list)


@dataclass
class Draft:
    """A listing's fields while its bids or offers are drawn."""

    listing_id: str
    seller: str
    kind: str
    price: float
    status: str
    created: datetime
    ends: datetime
    buyer: str | None = None
    sold: float | None = None


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """240 users, ~420 listings (auctions and fixed price), ~1,400 bids and ~200 offers."""
    people = users(rng, now)
    insert_rows(db, "users", people)
    out = Rows(rng, now, [u[0] for u in people if u[4] == "seller"], [u[0] for u in people if u[5] == "active"])
    for n in range(1, 421):
        listing(out, f"LST-{n:04d}")
    insert_rows(db, "listings", out.listings)
    insert_rows(db, "bids", out.bids)
    insert_rows(db, "offers", one_pending_per_buyer(out.offers))


def users(rng: random.Random, now: datetime) -> list[Row]:
    found = []
    for i in range(1, 241):
        first, last = fake.person(rng)
        email, city = fake.email_for(first, last, rng, i), fake.city(rng)[0]
        role = "seller" if rng.random() < 0.35 else "buyer"
        status = "suspended" if rng.random() < 0.04 else "active"
        found.append(
            (
                f"USR-{i:04d}",
                f"{first} {last}",
                email,
                city,
                role,
                status,
                round(rng.uniform(3.2, 5.0), 1),
                fake.iso(fake.moment(rng, now, 2500, -30)),
            )
        )
    return found


def listing(out: Rows, lst_id: str) -> None:
    """One listing, then its bids (auction) or offers (fixed price); an auction sells only if its reserve was met."""
    rng, now = out.rng, out.now
    seller = rng.choice(out.sellers)
    category = rng.choice(list(ITEMS))
    (low, high), names = ITEMS[category]
    title = f"{rng.choice(names)} - {rng.choice(TITLE_WORDS)}"
    kind = "auction" if rng.random() < 0.6 else "fixed_price"
    price = max(float(round(rng.uniform(low, high) if kind == "fixed_price" else rng.uniform(low, high) * 0.5)), 1.0)
    inc = increment(price)
    reserve = float(round(price * rng.uniform(1.3, 2.0))) if kind == "auction" and rng.random() < 0.25 else None
    status = rng.choices(("active", "sold", "closed"), (65, 25, 10))[0]
    ends = end_time(rng, now, status)
    duration = rng.choice((3, 5, 7, 10)) if kind == "auction" else 30
    draft = Draft(lst_id, seller, kind, price, status, ends - timedelta(days=duration), ends)
    closed_at = None
    if status != "active":
        sold_at = (
            ends if kind == "auction" or status == "closed" else draft.created + (ends - draft.created) * rng.random()
        )
        closed_at = fake.iso(sold_at)
    if kind == "auction":
        auction(out, draft, inc, reserve)
    else:
        fixed_price(out, draft)
    out.listings.append(
        (
            lst_id,
            seller,
            title,
            rng.choice(DESCRIPTIONS),
            category,
            rng.choice(CONDITIONS),
            kind,
            price,
            inc,
            reserve,
            draft.status,
            fake.iso(draft.created.replace(microsecond=0)),
            fake.iso(ends),
            draft.buyer,
            draft.sold,
            closed_at,
        )
    )


def end_time(rng: random.Random, now: datetime, status: str) -> datetime:
    """Active listings mostly end in the coming days (a few have just expired); the others ended in the past."""
    if status != "active":
        return now - timedelta(minutes=rng.randint(60, 60 * 24 * 60))
    if rng.random() > 0.06:
        return now + timedelta(minutes=rng.randint(60, 10 * 24 * 60))
    return now - timedelta(minutes=rng.randint(30, 3 * 24 * 60))


def auction(out: Rows, draft: Draft, inc: float, reserve: float | None) -> None:
    rng = out.rng
    if draft.status == "closed" and rng.random() < 0.7:
        n_bids = 0
    else:
        n_bids = rng.choice((0, 1, 2, 3, 4, 6, 8, 12)) if draft.status == "active" else rng.randint(1, 10)
    last_bid = min(draft.ends, out.now) - timedelta(minutes=5)
    amount, t, highest = draft.price, draft.created, None
    for b in range(n_bids):
        bidder = rng.choice([x for x in rng.sample(out.buyers, 3) if x != draft.seller and x != highest] or [None])
        if bidder is None:
            continue
        amount = amount if b == 0 else amount + inc * rng.choice((1, 1, 2, 3, 5))
        t = t + (last_bid - t) * rng.uniform(0.1, 0.6)
        out.bids.append(
            (
                f"BID-{len(out.bids) + 1:05d}",
                draft.listing_id,
                bidder,
                float(amount),
                fake.iso(t.replace(microsecond=0)),
            )
        )
        highest = bidder
    if draft.status == "sold":
        if highest is None or (reserve is not None and amount < reserve):
            draft.status = "closed"
        else:
            draft.buyer, draft.sold = highest, float(amount)


def fixed_price(out: Rows, draft: Draft) -> None:
    rng = out.rng
    for _ in range(rng.choice((0, 0, 0, 1, 1, 2, 3))):
        who = rng.choice(out.buyers)
        if who == draft.seller:
            continue
        state = "pending" if draft.status == "active" else "declined"
        amount = float(round(draft.price * rng.uniform(0.6, 0.95)))
        note = rng.choice(OFFER_NOTES)
        at = draft.created + (min(draft.ends, out.now) - draft.created) * rng.uniform(0.1, 0.9)
        out.offers.append((f"OFR-{len(out.offers) + 1:04d}", draft.listing_id, who, amount, note, state, fake.iso(at)))
    if draft.status == "sold":
        draft.buyer = rng.choice([b for b in out.buyers if b != draft.seller])
        draft.sold = draft.price


def one_pending_per_buyer(offers: list[Row]) -> list[Row]:
    """The first offer of each buyer on each listing."""
    seen: set[tuple[str, str]] = set()
    unique = []
    for o in offers:
        if (o[1], o[2]) not in seen:
            seen.add((o[1], o[2]))
            unique.append(o)
    return unique
