"""Maps schema, place categories, travel modes and the geometry both the seed and the tools use."""

from __future__ import annotations

import math
from typing import Literal

from hub.kit import fake

SCHEMA = """
CREATE TABLE addresses (
    address_id TEXT PRIMARY KEY,
    street_number INTEGER NOT NULL,
    street TEXT NOT NULL,
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    zip TEXT NOT NULL,
    full_address TEXT NOT NULL UNIQUE,
    lat REAL NOT NULL,
    lon REAL NOT NULL
);
CREATE INDEX addresses_lat ON addresses(lat, lon);
CREATE TABLE places (
    place_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    cuisine TEXT,
    address_id TEXT NOT NULL REFERENCES addresses(address_id),
    city TEXT NOT NULL,
    lat REAL NOT NULL,
    lon REAL NOT NULL,
    phone TEXT NOT NULL,
    price_level INTEGER NOT NULL CHECK (price_level BETWEEN 1 AND 4),
    rating REAL NOT NULL,
    review_count INTEGER NOT NULL,
    opens TEXT NOT NULL,
    closes TEXT NOT NULL,
    closed_on TEXT,
    website TEXT NOT NULL
);
CREATE INDEX places_city ON places(city, category);
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    home_city TEXT NOT NULL,
    home_address_id TEXT REFERENCES addresses(address_id),
    joined_at TEXT NOT NULL
);
CREATE TABLE saved_places (
    saved_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(user_id),
    place_id TEXT NOT NULL REFERENCES places(place_id),
    label TEXT NOT NULL,
    note TEXT NOT NULL,
    saved_at TEXT NOT NULL,
    UNIQUE (user_id, place_id)
);
CREATE TABLE place_lists (
    list_id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(user_id),
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    is_public INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (user_id, name)
);
CREATE TABLE list_items (
    list_id TEXT NOT NULL REFERENCES place_lists(list_id),
    place_id TEXT NOT NULL REFERENCES places(place_id),
    added_at TEXT NOT NULL,
    PRIMARY KEY (list_id, place_id)
);
CREATE TABLE reviews (
    review_id TEXT PRIMARY KEY,
    place_id TEXT NOT NULL REFERENCES places(place_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (place_id, user_id)
);
CREATE INDEX reviews_place ON reviews(place_id, created_at);
"""

CATEGORIES = {
    "restaurant": (("Bistro", "Kitchen", "Grill", "Table", "Trattoria", "Diner", "House"), ("11:00", "22:00")),
    "cafe": (("Coffee", "Cafe", "Espresso Bar", "Roasters", "Bakehouse"), ("07:00", "18:00")),
    "bar": (("Tavern", "Taproom", "Lounge", "Pub", "Wine Bar"), ("16:00", "02:00")),
    "museum": (("Museum of Art", "History Museum", "Science Center", "Gallery"), ("10:00", "17:00")),
    "park": (("Park", "Gardens", "Commons", "Green"), ("06:00", "22:00")),
    "pharmacy": (("Pharmacy", "Drugstore"), ("08:00", "21:00")),
    "supermarket": (("Market", "Grocers", "Foods"), ("07:00", "23:00")),
    "gas_station": (("Fuel", "Gas & Go"), ("00:00", "24:00")),
    "hotel": (("Hotel", "Inn", "Suites"), ("00:00", "24:00")),
    "gym": (("Fitness", "Athletic Club", "Gym"), ("05:00", "23:00")),
    "bookstore": (("Books", "Booksellers", "Reading Room"), ("09:00", "20:00")),
}
CUISINES = (
    "italian",
    "mexican",
    "japanese",
    "thai",
    "indian",
    "american",
    "french",
    "chinese",
    "mediterranean",
    "korean",
    "vegan",
)
NAME_WORDS = (
    "Golden",
    "Blue Door",
    "Corner",
    "Harbor",
    "Copper",
    "Little",
    "Union",
    "Olive",
    "Red Fox",
    "Maple",
    "Juniper",
    "Lantern",
    "Sparrow",
    "Northside",
    "Old Town",
    "Riverside",
    "Hilltop",
    "Bluebird",
    "Iron",
    "Magnolia",
    "Saffron",
    "Cedar",
    "Lucky",
    "Wild Fig",
    "Stone",
    "Velvet",
    "Granite",
    "Silver",
    "Willow",
    "Fifth Street",
)
REVIEW_TEXT = {
    5: ("Absolutely loved it, will be back.", "Best in town, friendly staff.", "Outstanding from start to finish."),
    4: ("Really good, a little busy at peak times.", "Great spot, slightly pricey.", "Solid choice, would recommend."),
    3: ("Decent but nothing special.", "Okay experience, service was slow.", "Average, fine in a pinch."),
    2: ("Disappointing, not worth the wait.", "Below expectations.", "Would not go out of my way."),
    1: ("Terrible experience.", "Rude staff and long waits.", "Avoid."),
}
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
LABELS = ("favorite", "want to go", "home", "work", "date night", "with kids")
MODES = {  # detour factor, km/h, fixed minutes, max km
    "driving": (1.3, 40.0, 0.0, 10000.0),
    "cycling": (1.25, 15.0, 0.0, 150.0),
    "walking": (1.2, 5.0, 0.0, 50.0),
    "transit": (1.4, 25.0, 8.0, 80.0),
}
Mode = Literal["driving", "walking", "cycling", "transit"]
ZIP_BASE = {c[0]: 10000 + 4000 * i for i, c in enumerate(fake.CITIES)}


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(a)))


def _bearing(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2, dl = math.radians(lat1), math.radians(lat2), math.radians(lon2 - lon1)
    y = math.sin(dl) * math.cos(p2)
    x = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return (math.degrees(math.atan2(y, x)) + 360) % 360
