"""Marketplace tables: users list items; auctions take bids, fixed-price listings take offers."""

from __future__ import annotations

from typing import Literal

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

CategoryName = Literal[
    "Electronics",
    "Collectibles",
    "Fashion",
    "Home & Garden",
    "Sporting Goods",
    "Toys & Hobbies",
    "Musical Instruments",
    "Books & Media",
    "Art",
    "Cameras",
]


def increment(price: float) -> float:
    """An auction's minimum bid increment, by its starting price."""
    return 1.0 if price < 50 else 5.0 if price < 250 else 10.0 if price < 1000 else 25.0
