"""Marketplace: a peer-to-peer market of auction and fixed-price listings, bids and offers between users.

Business rules: only active seller accounts create listings; suspended users cannot bid, offer or
sell; nobody bids or offers on their own listing; bids go only to active auctions whose end time
(relative to now) has not passed, and must be at least the starting price, or beat the current
highest bid by the listing's minimum increment; the highest bidder cannot outbid themselves; offers
go only to active fixed-price listings, at least half the asking price, one pending offer per buyer
and listing; only the listing's seller updates, closes or accepts offers on it; an auction with bids
keeps its price and end time; closing an auction sells it to the highest bidder when the reserve is
met, and accepting an offer sells a fixed-price listing and declines the other pending offers.
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
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('buyer', 'seller')),
    status TEXT NOT NULL CHECK (status IN ('active', 'suspended')),
    rating REAL NOT NULL,
    joined_at TEXT NOT NULL
);
CREATE TABLE listings (
    listing_id TEXT PRIMARY KEY,
    seller_id TEXT NOT NULL REFERENCES users(user_id),
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    category TEXT NOT NULL,
    condition TEXT NOT NULL,
    listing_type TEXT NOT NULL CHECK (listing_type IN ('auction', 'fixed_price')),
    price REAL NOT NULL,
    min_increment REAL NOT NULL,
    reserve_price REAL,
    status TEXT NOT NULL CHECK (status IN ('active', 'sold', 'closed')),
    created_at TEXT NOT NULL,
    ends_at TEXT NOT NULL,
    buyer_id TEXT,
    sold_price REAL,
    closed_at TEXT
);
CREATE INDEX listings_seller ON listings(seller_id);
CREATE INDEX listings_status ON listings(status, ends_at);
CREATE TABLE bids (
    bid_id TEXT PRIMARY KEY,
    listing_id TEXT NOT NULL REFERENCES listings(listing_id),
    bidder_id TEXT NOT NULL REFERENCES users(user_id),
    amount REAL NOT NULL,
    placed_at TEXT NOT NULL
);
CREATE INDEX bids_listing ON bids(listing_id, amount);
CREATE TABLE offers (
    offer_id TEXT PRIMARY KEY,
    listing_id TEXT NOT NULL REFERENCES listings(listing_id),
    buyer_id TEXT NOT NULL REFERENCES users(user_id),
    amount REAL NOT NULL,
    message TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'accepted', 'declined')),
    created_at TEXT NOT NULL
);
CREATE INDEX offers_listing ON offers(listing_id);
"""

CategoryName = Literal["Electronics", "Collectibles", "Fashion", "Home & Garden", "Sporting Goods", "Toys & Hobbies",
                       "Musical Instruments", "Books & Media", "Art", "Cameras"]
# category: (price range, item names)
ITEMS: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {
    "Electronics": ((40, 1400), ("iPhone 13 128GB", "Nintendo Switch OLED", "Sony WH-1000XM4 Headphones", "iPad Air 5th Gen",
                                 "Samsung Galaxy S22", "PlayStation 5 Console", "Kindle Paperwhite", "Bose SoundLink Speaker",
                                 "MacBook Air M1", "Garmin Forerunner 245")),
    "Collectibles": ((15, 2500), ("1986 Fleer Basketball Card", "Pokemon Base Set Charizard", "Vintage Coca-Cola Sign",
                                  "Morgan Silver Dollar 1921", "Star Wars Vintage Figure", "First Edition Comic Book",
                                  "Signed Baseball", "Antique Pocket Watch")),
    "Fashion": ((20, 900), ("Leather Jacket", "Designer Handbag", "Vintage Levi's 501 Jeans", "Wool Overcoat",
                            "Silk Scarf", "Running Sneakers", "Aviator Sunglasses", "Swiss Wristwatch")),
    "Home & Garden": ((15, 800), ("Mid-Century Armchair", "Cast Iron Dutch Oven", "Persian Rug 5x8", "Espresso Machine",
                                  "Teak Garden Bench", "Stand Mixer", "Crystal Chandelier", "Robot Vacuum")),
    "Sporting Goods": ((20, 1600), ("Road Bike Carbon Frame", "Golf Club Set", "Kayak 10ft", "Snowboard 156cm",
                                    "Tennis Racket", "Camping Tent 4-Person", "Adjustable Dumbbells", "Fly Fishing Rod")),
    "Toys & Hobbies": ((10, 600), ("LEGO Millennium Falcon", "Model Train Set", "RC Drone", "Vintage Barbie Doll",
                                   "Board Game Collection", "Telescope 70mm", "Hot Wheels Lot")),
    "Musical Instruments": ((60, 3000), ("Fender Stratocaster", "Yamaha Digital Piano", "Gibson Les Paul", "Violin 4/4",
                                         "Roland Drum Kit", "Martin Acoustic Guitar", "Alto Saxophone")),
    "Books & Media": ((5, 400), ("Signed First Edition Novel", "Vinyl Record Lot", "Encyclopedia Set", "Criterion DVD Box",
                                 "Antique Atlas", "Rare Cookbook")),
    "Art": ((30, 4000), ("Oil Painting Landscape", "Limited Edition Print", "Bronze Sculpture", "Watercolor Seascape",
                         "Framed Photograph", "Ceramic Vase")),
    "Cameras": ((50, 2500), ("Canon EOS R6 Body", "Nikon F3 Film Camera", "Sony A7 III", "Leica M6",
                             "Fujifilm X100V", "GoPro Hero 11", "50mm f/1.8 Lens")),
}
CONDITIONS = ("new", "like_new", "good", "fair", "for_parts")
DESCRIPTIONS = ("Smoke-free home, ships within 2 days.", "Lightly used, all original parts.", "Minor scuffs, see photos.",
                "Comes with original box and manuals.", "Sold as pictured, no returns.", "Tested and working.")
MIN_OFFER_SHARE = 0.5


def _increment(price: float) -> float:
    return 1.0 if price < 50 else 5.0 if price < 250 else 10.0 if price < 1000 else 25.0


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """240 users, ~420 listings (auctions and fixed price), ~1,400 bids and ~200 offers."""
    users = []
    for i in range(1, 241):
        first, last = fake.person(rng)
        users.append((f"USR-{i:04d}", f"{first} {last}", fake.email_for(first, last, rng, i), fake.city(rng)[0],
                      "seller" if rng.random() < 0.35 else "buyer", "suspended" if rng.random() < 0.04 else "active",
                      round(rng.uniform(3.2, 5.0), 1), fake.iso(fake.moment(rng, now, 2500, -30))))
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?,?,?,?)", users)
    sellers = [u[0] for u in users if u[4] == "seller"]
    buyers = [u[0] for u in users if u[5] == "active"]
    listings: list[tuple[Any, ...]] = []
    bids: list[tuple[Any, ...]] = []
    offers: list[tuple[Any, ...]] = []
    for n in range(1, 421):
        lst_id = f"LST-{n:04d}"
        seller = rng.choice(sellers)
        category = rng.choice(list(ITEMS))
        (low, high), names = ITEMS[category]
        title = f"{rng.choice(names)} - {rng.choice(('Excellent', 'Great', 'Rare', 'Clean', 'Boxed', 'Vintage', 'Mint'))}"
        kind = "auction" if rng.random() < 0.6 else "fixed_price"
        price = float(round(rng.uniform(low, high) if kind == "fixed_price" else rng.uniform(low, high) * 0.5))
        price = max(price, 1.0)
        inc = _increment(price)
        reserve = float(round(price * rng.uniform(1.3, 2.0))) if kind == "auction" and rng.random() < 0.25 else None
        status = rng.choices(("active", "sold", "closed"), (65, 25, 10))[0]
        if status == "active":
            ends = now + timedelta(minutes=rng.randint(60, 10 * 24 * 60)) if rng.random() > 0.06 else \
                now - timedelta(minutes=rng.randint(30, 3 * 24 * 60))
        else:
            ends = now - timedelta(minutes=rng.randint(60, 60 * 24 * 60))
        duration = rng.choice((3, 5, 7, 10)) if kind == "auction" else 30
        created = ends - timedelta(days=duration)
        last_bid = min(ends, now) - timedelta(minutes=5)
        buyer = sold = closed_at = None
        if status != "active":
            closed_at = fake.iso(ends if kind == "auction" or status == "closed" else created + (ends - created) * rng.random())
        if kind == "auction":
            n_bids = 0 if status == "closed" and rng.random() < 0.7 else rng.choice((0, 1, 2, 3, 4, 6, 8, 12)) if status == "active" else rng.randint(1, 10)
            amount, t, highest = price, created, None
            for b in range(n_bids):
                bidder = rng.choice([x for x in rng.sample(buyers, 3) if x != seller and x != highest] or [None])
                if bidder is None:
                    continue
                amount = amount if b == 0 else amount + inc * rng.choice((1, 1, 2, 3, 5))
                t = t + (last_bid - t) * rng.uniform(0.1, 0.6)
                bids.append((f"BID-{len(bids) + 1:05d}", lst_id, bidder, float(amount), fake.iso(t.replace(microsecond=0))))
                highest = bidder
            if status == "sold":
                if highest is None or (reserve is not None and amount < reserve):
                    status = "closed"
                else:
                    buyer, sold = highest, float(amount)
        else:
            for _ in range(rng.choice((0, 0, 0, 1, 1, 2, 3))):
                who = rng.choice(buyers)
                if who == seller:
                    continue
                state = "pending" if status == "active" else "declined"
                offers.append((f"OFR-{len(offers) + 1:04d}", lst_id, who, float(round(price * rng.uniform(0.6, 0.95))),
                               rng.choice(("Would you take this?", "Can pick up today.", "Best I can do.", "Cash ready.")), state,
                               fake.iso(created + (min(ends, now) - created) * rng.uniform(0.1, 0.9))))
            if status == "sold":
                buyer = rng.choice([b for b in buyers if b != seller])
                sold = price
        listings.append((lst_id, seller, title, rng.choice(DESCRIPTIONS), category, rng.choice(CONDITIONS), kind, price, inc,
                         reserve, status, fake.iso(created.replace(microsecond=0)), fake.iso(ends), buyer, sold, closed_at))
    # one pending offer per buyer and listing
    seen: set[tuple[str, str]] = set()
    unique = []
    for o in offers:
        if (o[1], o[2]) not in seen:
            seen.add((o[1], o[2]))
            unique.append(o)
    db.executemany("INSERT INTO listings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", listings)
    db.executemany("INSERT INTO bids VALUES (?,?,?,?,?)", bids)
    db.executemany("INSERT INTO offers VALUES (?,?,?,?,?,?,?)", unique)


marketplace = Server("marketplace", "Peer-to-peer marketplace: auction and fixed-price listings, bids, offers, buyers and sellers.", SCHEMA, seed)

UserId = Annotated[str, Field(max_length=40, description="User id, e.g. 'USR-0012'"), Entity("user")]
SellerId = Annotated[str, Field(max_length=40, description="The seller's user id, e.g. 'USR-0239'"), Entity("user")]
ListingId = Annotated[str, Field(max_length=40, description="Listing id, e.g. 'LST-0007'"), Entity("listing")]
OfferId = Annotated[str, Field(max_length=40, description="Offer id, e.g. 'OFR-0004'"), Entity("offer")]
Money = Annotated[float, Field(gt=0, le=10_000_000, description="An amount in USD, e.g. 125.0")]

CURRENT = "COALESCE((SELECT MAX(amount) FROM bids b WHERE b.listing_id = l.listing_id), l.price)"
BID_COUNT = "(SELECT COUNT(*) FROM bids b WHERE b.listing_id = l.listing_id)"


def _user(ctx: Ctx, user_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM users WHERE user_id = ?", (user_id,),
                 f"No user {user_id!r}. Use search_users to find user ids.")


def _listing(ctx: Ctx, listing_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM listings WHERE listing_id = ?", (listing_id,),
                 f"No listing {listing_id!r}. Use search_listings to find listing ids.")


def _active_user(user: dict[str, Any]) -> None:
    if user["status"] == "suspended":
        raise ToolError(f"User {user['user_id']} is suspended and cannot bid, make offers or sell.")


def _owned(listing: dict[str, Any], seller_id: str) -> None:
    if listing["seller_id"] != seller_id:
        raise ToolError(f"Listing {listing['listing_id']} is sold by {listing['seller_id']}, not {seller_id}; "
                        "only its seller can change it.")


def _open(ctx: Ctx, listing: dict[str, Any]) -> None:
    if listing["status"] != "active":
        raise ToolError(f"Listing {listing['listing_id']} is {listing['status']} and no longer takes bids, offers or changes.")


def _highest(ctx: Ctx, listing_id: str) -> dict[str, Any] | None:
    found = rows(ctx.db.execute("SELECT * FROM bids WHERE listing_id = ? ORDER BY amount DESC, placed_at, bid_id LIMIT 1", (listing_id,)))
    return found[0] if found else None


def _view(ctx: Ctx, listing: dict[str, Any]) -> dict[str, Any]:
    """A listing as buyers see it: current price, bids, minimum next bid, time left; the reserve stays hidden."""
    out = dict(listing)
    reserve = out.pop("reserve_price")
    top = _highest(ctx, listing["listing_id"])
    out["bid_count"] = ctx.db.execute("SELECT COUNT(*) FROM bids WHERE listing_id = ?", (listing["listing_id"],)).fetchone()[0]
    out["current_price"] = top["amount"] if top else listing["price"]
    out["highest_bidder_id"] = top["bidder_id"] if top else None
    ended = listing["ends_at"] <= fake.iso(ctx.now)
    out["ended"] = ended
    out["hours_left"] = 0.0 if ended else round((datetime.fromisoformat(listing["ends_at"]) - ctx.now).total_seconds() / 3600, 1)
    if listing["listing_type"] == "auction":
        out["min_next_bid"] = round(top["amount"] + listing["min_increment"], 2) if top else listing["price"]
        out["has_reserve"] = reserve is not None
        out["reserve_met"] = reserve is None or (top is not None and top["amount"] >= reserve)
    else:
        out["pending_offers"] = ctx.db.execute("SELECT COUNT(*) FROM offers WHERE listing_id = ? AND status = 'pending'",
                                               (listing["listing_id"],)).fetchone()[0]
    return out


@marketplace.read(returns=("listing", "user"))
def search_listings(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of the title, e.g. 'Stratocaster'")] = "",
                    category: CategoryName | None = None,
                    listing_type: Literal["auction", "fixed_price"] | None = None,
                    status: Literal["active", "sold", "closed"] | None = "active",
                    seller_id: Annotated[str | None, Field(max_length=40, description="Only this seller's listings, e.g. 'USR-0003'"), Entity("user")] = None,
                    max_price: Annotated[float | None, Field(ge=0, le=10_000_000, description="Only listings whose current price is at most this")] = None,
                    ending_within_hours: Annotated[int | None, Field(ge=1, le=24 * 60, description="Only listings ending within this many hours from now")] = None,
                    sort: Literal["ending_soon", "newest", "price_asc", "price_desc"] = "ending_soon",
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search listings by title, category, type, status (default active), seller, price or end time,
    e.g. search_listings('Stratocaster', listing_type='auction'). Returns listing ids such as 'LST-0007' with current price."""
    sql = (f"SELECT l.listing_id, l.title, l.category, l.condition, l.listing_type, l.seller_id, l.status, l.ends_at, "
           f"{CURRENT} AS current_price, {BID_COUNT} AS bid_count FROM listings l WHERE l.title LIKE ?")
    args: list[Any] = [f"%{query}%"]
    for column, value in (("category", category), ("listing_type", listing_type), ("status", status), ("seller_id", seller_id)):
        if value is not None:
            sql += f" AND l.{column} = ?"
            args.append(value)
    if max_price is not None:
        sql += f" AND {CURRENT} <= ?"
        args.append(max_price)
    if ending_within_hours is not None:
        sql += " AND l.ends_at > ? AND l.ends_at <= ?"
        args += [fake.iso(ctx.now), fake.iso(ctx.now + timedelta(hours=ending_within_hours))]
    order = {"ending_soon": "l.ends_at, l.listing_id", "newest": "l.created_at DESC, l.listing_id",
             "price_asc": "current_price, l.listing_id", "price_desc": "current_price DESC, l.listing_id"}[sort]
    found = rows(ctx.db.execute(f"{sql} ORDER BY {order} LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"listings": found, "count": len(found), "now": fake.iso(ctx.now)}


@marketplace.read(returns=("listing", "user"))
def get_listing(ctx: Ctx, listing_id: ListingId) -> dict[str, Any]:
    """Get one listing: seller, type, condition, current price, bid count, highest bidder, minimum next bid,
    whether the reserve is met and hours left, e.g. get_listing('LST-0007')."""
    return _view(ctx, _listing(ctx, listing_id))


@marketplace.read(returns=("bid", "user"))
def list_bids(ctx: Ctx, listing_id: ListingId, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List an auction's bids, highest first, e.g. list_bids('LST-0007')."""
    _listing(ctx, listing_id)
    found = rows(ctx.db.execute("SELECT * FROM bids WHERE listing_id = ? ORDER BY amount DESC, placed_at, bid_id LIMIT ? OFFSET ?",
                                (listing_id, limit, offset)))
    return {"listing_id": listing_id, "bids": found, "count": len(found)}


@marketplace.read(returns=("user",))
def search_users(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name or email, e.g. 'Nguyen'")] = "",
                 role: Literal["buyer", "seller"] | None = None,
                 city: Annotated[str | None, Field(max_length=60, description="Only users in this city, e.g. 'Denver'")] = None,
                 status: Literal["active", "suspended"] | None = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search buyers and sellers by name or email, role, city or status, e.g. search_users(role='seller', city='Denver').
    Returns user ids such as 'USR-0012'."""
    like = f"%{query}%"
    sql, args = "SELECT user_id, name, city, role, status, rating FROM users WHERE (name LIKE ? OR email LIKE ?)", [like, like]
    for column, value in (("role", role), ("city", city), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY user_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"users": found, "count": len(found)}


@marketplace.read(returns=("user", "listing"))
def get_user(ctx: Ctx, user_id: UserId) -> dict[str, Any]:
    """Get a user's profile with their active listing ids, items won or bought, and auctions they lead, e.g. get_user('USR-0012')."""
    user = _user(ctx, user_id)
    user["active_listing_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT listing_id FROM listings WHERE seller_id = ? AND status = 'active' ORDER BY listing_id", (user_id,))]
    user["purchased_listing_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT listing_id FROM listings WHERE buyer_id = ? ORDER BY listing_id", (user_id,))]
    user["leading_bid_listing_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT l.listing_id FROM listings l WHERE l.status = 'active' AND l.listing_type = 'auction' AND "
        "(SELECT bidder_id FROM bids b WHERE b.listing_id = l.listing_id ORDER BY amount DESC, placed_at, bid_id LIMIT 1) = ? "
        "ORDER BY l.listing_id", (user_id,))]
    return user


@marketplace.read(returns=("offer", "listing", "user"))
def list_offers(ctx: Ctx, listing_id: Annotated[str | None, Field(max_length=40, description="Only offers on this listing, e.g. 'LST-0013'"), Entity("listing")] = None,
                buyer_id: Annotated[str | None, Field(max_length=40, description="Only offers by this buyer, e.g. 'USR-0012'"), Entity("user")] = None,
                status: Literal["pending", "accepted", "declined"] | None = None,
                limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List offers on fixed-price listings, newest first, by listing, buyer or status, e.g. list_offers(status='pending').
    Offer ids look like 'OFR-0005'."""
    sql, args = "SELECT * FROM offers WHERE 1=1", []
    for column, value in (("listing_id", listing_id), ("buyer_id", buyer_id), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY created_at DESC, offer_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"offers": found, "count": len(found)}


DISTINCT_FIELDS = {"category": ("listings", "category"), "condition": ("listings", "condition"),
                   "listing_type": ("listings", "listing_type"), "listing_status": ("listings", "status"),
                   "user_city": ("users", "city"), "user_role": ("users", "role"), "user_status": ("users", "status"),
                   "offer_status": ("offers", "status")}


@marketplace.read()
def get_distinct_values(ctx: Ctx, field: Literal["category", "condition", "listing_type", "listing_status", "user_city",
                                                 "user_role", "user_status", "offer_status"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('category')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@marketplace.write(returns=("bid",))
def place_bid(ctx: Ctx, listing_id: ListingId, bidder_id: UserId, amount: Money) -> dict[str, Any]:
    """Bid on an active auction, e.g. place_bid('LST-0007', 'USR-0012', 105.0).

    The first bid must be at least the starting price; later bids must beat the highest bid by the
    listing's minimum increment (get_listing shows min_next_bid). Not on your own listing, nor after the end time."""
    listing = _listing(ctx, listing_id)
    bidder = _user(ctx, bidder_id)
    if listing["listing_type"] != "auction":
        raise ToolError(f"Listing {listing_id} is fixed price, not an auction; use make_offer instead of place_bid.")
    _open(ctx, listing)
    if listing["ends_at"] <= fake.iso(ctx.now):
        raise ToolError(f"The auction for {listing_id} ended at {listing['ends_at']}; no more bids. The seller can close it with close_listing.")
    if listing["seller_id"] == bidder_id:
        raise ToolError(f"{bidder_id} is the seller of {listing_id} and cannot bid on their own listing.")
    _active_user(bidder)
    top = _highest(ctx, listing_id)
    if top and top["bidder_id"] == bidder_id:
        raise ToolError(f"{bidder_id} is already the highest bidder on {listing_id} at {top['amount']:.2f} USD.")
    minimum = round(top["amount"] + listing["min_increment"], 2) if top else listing["price"]
    if amount + 1e-9 < minimum:
        what = f"beat the highest bid of {top['amount']:.2f} USD by at least {listing['min_increment']:.2f}" if top \
            else "be at least the starting price"
        raise ToolError(f"A bid on {listing_id} must {what}: bid {minimum:.2f} USD or more.")
    bid_id = next_id(ctx.db, "bids", "bid_id", "BID", 5)
    ctx.db.execute("INSERT INTO bids VALUES (?,?,?,?,?)", (bid_id, listing_id, bidder_id, round(amount, 2), fake.iso(ctx.now)))
    return {"bid_id": bid_id, "listing_id": listing_id, "bidder_id": bidder_id, "amount": round(amount, 2),
            "min_next_bid": round(amount + listing["min_increment"], 2), "ends_at": listing["ends_at"]}


@marketplace.write(returns=("listing",))
def create_listing(ctx: Ctx, seller_id: SellerId,
                   title: Annotated[str, Field(min_length=3, max_length=120, description="What is for sale, e.g. 'Fender Stratocaster - Mint'")],
                   category: CategoryName, price: Money,
                   listing_type: Literal["auction", "fixed_price"] = "fixed_price",
                   condition: Literal["new", "like_new", "good", "fair", "for_parts"] = "good",
                   duration_days: Annotated[int, Field(ge=1, le=30, description="Days until the listing ends, 1 to 30")] = 7,
                   reserve_price: Annotated[float | None, Field(gt=0, le=10_000_000, description="Auctions only: the lowest price the item sells for")] = None,
                   description: Annotated[str, Field(max_length=2000, description="Details for buyers")] = "") -> dict[str, Any]:
    """List an item for sale as a seller, e.g. create_listing('USR-0003', 'Leica M6 - Clean', 'Cameras', 900.0, 'auction').

    For an auction, price is the starting bid; for fixed price, the asking price. Returns the new listing id."""
    seller = _user(ctx, seller_id)
    if seller["role"] != "seller":
        raise ToolError(f"{seller_id} is a buyer account; only seller accounts can create listings (search_users(role='seller')).")
    _active_user(seller)
    if not title.strip():
        raise ToolError("The title must not be blank.")
    if reserve_price is not None:
        if listing_type != "auction":
            raise ToolError("A reserve price only applies to auctions; leave reserve_price empty for fixed-price listings.")
        if reserve_price < price:
            raise ToolError(f"The reserve price ({reserve_price:.2f}) must be at least the starting price ({price:.2f}).")
    active = ctx.db.execute("SELECT COUNT(*) FROM listings WHERE seller_id = ? AND status = 'active'", (seller_id,)).fetchone()[0]
    if active >= 50:
        raise ToolError(f"{seller_id} already has 50 active listings, the maximum; close some first.")
    listing_id = next_id(ctx.db, "listings", "listing_id", "LST")
    ends = ctx.now + timedelta(days=duration_days)
    ctx.db.execute("INSERT INTO listings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (listing_id, seller_id, title.strip(), description, category, condition, listing_type, round(price, 2),
                    _increment(price), reserve_price, "active", fake.iso(ctx.now), fake.iso(ends), None, None, None))
    return _view(ctx, _listing(ctx, listing_id))


@marketplace.write(returns=("listing",))
def update_listing(ctx: Ctx, listing_id: ListingId, seller_id: SellerId,
                   title: Annotated[str | None, Field(min_length=3, max_length=120, description="A new title")] = None,
                   description: Annotated[str | None, Field(max_length=2000, description="A new description")] = None,
                   price: Annotated[float | None, Field(gt=0, le=10_000_000, description="A new starting or asking price in USD")] = None,
                   extend_days: Annotated[int | None, Field(ge=1, le=30, description="Push the end time back by this many days")] = None) -> dict[str, Any]:
    """Change an active listing's title, description, price or end time as its seller, e.g. update_listing('LST-0013', 'USR-0204', price=90.0).

    An auction that has bids keeps its price and end time."""
    listing = _listing(ctx, listing_id)
    _owned(listing, seller_id)
    _open(ctx, listing)
    if title is None and description is None and price is None and extend_days is None:
        raise ToolError("Nothing to change: give a title, description, price or extend_days.")
    has_bids = _highest(ctx, listing_id) is not None
    if has_bids and (price is not None or extend_days is not None):
        raise ToolError(f"Auction {listing_id} already has bids; its price and end time can no longer change (title and description can).")
    if title is not None and not title.strip():
        raise ToolError("The title must not be blank.")
    if price is not None and listing["reserve_price"] is not None and price > listing["reserve_price"]:
        raise ToolError(f"The starting price cannot exceed the reserve price ({listing['reserve_price']:.2f}).")
    ends = listing["ends_at"]
    if extend_days is not None:
        base = max(datetime.fromisoformat(ends), ctx.now)
        ends = fake.iso(base + timedelta(days=extend_days))
        if datetime.fromisoformat(ends) > ctx.now + timedelta(days=60):
            raise ToolError("A listing cannot end more than 60 days from now; extend by fewer days.")
    ctx.db.execute("UPDATE listings SET title = ?, description = ?, price = ?, min_increment = ?, ends_at = ? WHERE listing_id = ?",
                   (title.strip() if title is not None else listing["title"],
                    description if description is not None else listing["description"],
                    round(price, 2) if price is not None else listing["price"],
                    _increment(price) if price is not None else listing["min_increment"], ends, listing_id))
    return _view(ctx, _listing(ctx, listing_id))


@marketplace.write(returns=("listing", "user"))
def close_listing(ctx: Ctx, listing_id: ListingId, seller_id: SellerId) -> dict[str, Any]:
    """End an active listing as its seller, e.g. close_listing('LST-0007', 'USR-0239').

    An auction with bids that meet the reserve is sold to the highest bidder at their bid; otherwise the
    listing closes unsold. Pending offers are declined."""
    listing = _listing(ctx, listing_id)
    _owned(listing, seller_id)
    _open(ctx, listing)
    top = _highest(ctx, listing_id)
    buyer = price = None
    if listing["listing_type"] == "auction" and top and (listing["reserve_price"] is None or top["amount"] >= listing["reserve_price"]):
        buyer, price = top["bidder_id"], top["amount"]
    status = "sold" if buyer else "closed"
    ends = min(listing["ends_at"], fake.iso(ctx.now))
    ctx.db.execute("UPDATE listings SET status = ?, buyer_id = ?, sold_price = ?, closed_at = ?, ends_at = ? WHERE listing_id = ?",
                   (status, buyer, price, fake.iso(ctx.now), ends, listing_id))
    declined = ctx.db.execute("UPDATE offers SET status = 'declined' WHERE listing_id = ? AND status = 'pending'", (listing_id,)).rowcount
    return {"listing_id": listing_id, "status": status, "buyer_id": buyer, "sold_price": price, "offers_declined": declined}


@marketplace.write(returns=("offer",))
def make_offer(ctx: Ctx, listing_id: ListingId, buyer_id: UserId, amount: Money,
               message: Annotated[str, Field(max_length=500, description="A note to the seller")] = "") -> dict[str, Any]:
    """Offer a price on an active fixed-price listing, e.g. make_offer('LST-0013', 'USR-0012', 80.0, 'Can pick up today').

    At least half the asking price, not on your own listing, one pending offer per buyer and listing."""
    listing = _listing(ctx, listing_id)
    buyer = _user(ctx, buyer_id)
    if listing["listing_type"] != "fixed_price":
        raise ToolError(f"Listing {listing_id} is an auction; use place_bid instead of make_offer.")
    _open(ctx, listing)
    if listing["ends_at"] <= fake.iso(ctx.now):
        raise ToolError(f"Listing {listing_id} expired at {listing['ends_at']} and takes no offers.")
    if listing["seller_id"] == buyer_id:
        raise ToolError(f"{buyer_id} is the seller of {listing_id} and cannot make an offer on their own listing.")
    _active_user(buyer)
    if amount < listing["price"] * MIN_OFFER_SHARE:
        raise ToolError(f"Offers on {listing_id} must be at least half the asking price of {listing['price']:.2f} USD, "
                        f"i.e. {listing['price'] * MIN_OFFER_SHARE:.2f} USD or more.")
    pending = ctx.db.execute("SELECT offer_id FROM offers WHERE listing_id = ? AND buyer_id = ? AND status = 'pending'",
                             (listing_id, buyer_id)).fetchone()
    if pending:
        raise ToolError(f"{buyer_id} already has pending offer {pending[0]} on {listing_id}; wait for the seller to answer.")
    offer_id = next_id(ctx.db, "offers", "offer_id", "OFR")
    ctx.db.execute("INSERT INTO offers VALUES (?,?,?,?,?,?,?)",
                   (offer_id, listing_id, buyer_id, round(amount, 2), message, "pending", fake.iso(ctx.now)))
    return {"offer_id": offer_id, "listing_id": listing_id, "buyer_id": buyer_id, "amount": round(amount, 2), "status": "pending"}


@marketplace.write(returns=("listing", "user"), requires=("make_offer",))
def accept_offer(ctx: Ctx, offer_id: OfferId, seller_id: SellerId) -> dict[str, Any]:
    """Accept a pending offer as the listing's seller, selling the item at the offered price, e.g. accept_offer('OFR-0004', 'USR-0204').

    The other pending offers on the listing are declined."""
    offer = fetch(ctx.db, "SELECT * FROM offers WHERE offer_id = ?", (offer_id,),
                  f"No offer {offer_id!r}. Use list_offers to find offer ids.")
    listing = _listing(ctx, offer["listing_id"])
    _owned(listing, seller_id)
    if offer["status"] != "pending":
        raise ToolError(f"Offer {offer_id} is already {offer['status']}; only pending offers can be accepted.")
    _open(ctx, listing)
    buyer = _user(ctx, offer["buyer_id"])
    if buyer["status"] == "suspended":
        raise ToolError(f"The buyer {buyer['user_id']} has been suspended; accept another offer instead.")
    ctx.db.execute("UPDATE offers SET status = 'accepted' WHERE offer_id = ?", (offer_id,))
    declined = ctx.db.execute("UPDATE offers SET status = 'declined' WHERE listing_id = ? AND status = 'pending'",
                              (listing["listing_id"],)).rowcount
    ctx.db.execute("UPDATE listings SET status = 'sold', buyer_id = ?, sold_price = ?, closed_at = ? WHERE listing_id = ?",
                   (offer["buyer_id"], offer["amount"], fake.iso(ctx.now), listing["listing_id"]))
    return {"offer_id": offer_id, "listing_id": listing["listing_id"], "status": "sold", "buyer_id": offer["buyer_id"],
            "sold_price": offer["amount"], "offers_declined": declined}


server = marketplace
