"""Travel booking schema, reference data (airports, routes, aircraft, hotels) and the seat and price rules
that the seed and the tools share."""

from __future__ import annotations

import math
import zlib
from datetime import date, timedelta

SCHEMA = """
CREATE TABLE airports (
    code TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL,
    lat REAL NOT NULL,
    lon REAL NOT NULL
);
CREATE TABLE travellers (
    traveller_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    date_of_birth TEXT NOT NULL,
    nationality TEXT NOT NULL,
    passport_number TEXT,
    passport_expiry TEXT,
    loyalty_tier TEXT NOT NULL CHECK (loyalty_tier IN ('basic', 'silver', 'gold', 'platinum')),
    loyalty_points INTEGER NOT NULL,
    member_since TEXT NOT NULL
);
CREATE TABLE flights (
    flight_id TEXT PRIMARY KEY,
    flight_number TEXT NOT NULL,
    airline TEXT NOT NULL,
    origin TEXT NOT NULL REFERENCES airports(code),
    destination TEXT NOT NULL REFERENCES airports(code),
    departs_at TEXT NOT NULL,
    arrives_at TEXT NOT NULL,
    aircraft TEXT NOT NULL,
    economy_fare REAL NOT NULL,
    business_fare REAL NOT NULL,
    economy_blocked INTEGER NOT NULL,
    business_blocked INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'cancelled'))
);
CREATE INDEX flights_route ON flights(origin, destination, departs_at);
CREATE TABLE hotels (
    hotel_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    chain TEXT NOT NULL,
    city TEXT NOT NULL,
    country TEXT NOT NULL,
    address TEXT NOT NULL,
    stars INTEGER NOT NULL,
    rating REAL NOT NULL,
    amenities TEXT NOT NULL
);
CREATE TABLE rooms (
    hotel_id TEXT NOT NULL REFERENCES hotels(hotel_id),
    room_type TEXT NOT NULL CHECK (room_type IN ('standard', 'deluxe', 'family', 'suite')),
    beds TEXT NOT NULL,
    max_guests INTEGER NOT NULL,
    nightly_rate REAL NOT NULL,
    inventory INTEGER NOT NULL,
    PRIMARY KEY (hotel_id, room_type)
);
CREATE TABLE itineraries (
    itinerary_id TEXT PRIMARY KEY,
    traveller_id TEXT NOT NULL REFERENCES travellers(traveller_id),
    title TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE flight_bookings (
    booking_id TEXT PRIMARY KEY,
    itinerary_id TEXT NOT NULL REFERENCES itineraries(itinerary_id),
    traveller_id TEXT NOT NULL REFERENCES travellers(traveller_id),
    flight_id TEXT NOT NULL REFERENCES flights(flight_id),
    cabin TEXT NOT NULL CHECK (cabin IN ('economy', 'business')),
    seat TEXT,
    checked_bags INTEGER NOT NULL,
    baggage_fees REAL NOT NULL,
    fare_paid REAL NOT NULL,
    points_redeemed INTEGER NOT NULL,
    points_earned INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled')),
    refund_amount REAL,
    booked_at TEXT NOT NULL,
    cancelled_at TEXT
);
CREATE INDEX flight_bookings_flight ON flight_bookings(flight_id, status);
CREATE INDEX flight_bookings_traveller ON flight_bookings(traveller_id);
CREATE TABLE hotel_bookings (
    booking_id TEXT PRIMARY KEY,
    itinerary_id TEXT NOT NULL REFERENCES itineraries(itinerary_id),
    traveller_id TEXT NOT NULL REFERENCES travellers(traveller_id),
    hotel_id TEXT NOT NULL REFERENCES hotels(hotel_id),
    room_type TEXT NOT NULL,
    check_in TEXT NOT NULL,
    check_out TEXT NOT NULL,
    rooms INTEGER NOT NULL,
    guests INTEGER NOT NULL,
    total_price REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('confirmed', 'cancelled')),
    refund_amount REAL,
    booked_at TEXT NOT NULL,
    cancelled_at TEXT
);
CREATE INDEX hotel_bookings_room ON hotel_bookings(hotel_id, room_type, status);
CREATE INDEX hotel_bookings_traveller ON hotel_bookings(traveller_id);
CREATE TABLE loyalty_ledger (
    entry_id TEXT PRIMARY KEY,
    traveller_id TEXT NOT NULL REFERENCES travellers(traveller_id),
    points INTEGER NOT NULL,
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX loyalty_traveller ON loyalty_ledger(traveller_id);
"""

US_AIRPORTS = {
    "New York": ("JFK", "John F. Kennedy International"),
    "Los Angeles": ("LAX", "Los Angeles International"),
    "Chicago": ("ORD", "O'Hare International"),
    "Houston": ("IAH", "George Bush Intercontinental"),
    "Phoenix": ("PHX", "Phoenix Sky Harbor"),
    "Philadelphia": ("PHL", "Philadelphia International"),
    "San Antonio": ("SAT", "San Antonio International"),
    "San Diego": ("SAN", "San Diego International"),
    "Dallas": ("DFW", "Dallas/Fort Worth International"),
    "Austin": ("AUS", "Austin-Bergstrom International"),
    "Seattle": ("SEA", "Seattle-Tacoma International"),
    "Denver": ("DEN", "Denver International"),
    "Boston": ("BOS", "Logan International"),
    "Portland": ("PDX", "Portland International"),
    "Atlanta": ("ATL", "Hartsfield-Jackson Atlanta"),
    "Miami": ("MIA", "Miami International"),
    "Minneapolis": ("MSP", "Minneapolis-Saint Paul"),
    "Nashville": ("BNA", "Nashville International"),
    "San Francisco": ("SFO", "San Francisco International"),
    "Salt Lake City": ("SLC", "Salt Lake City International"),
}
INTL_AIRPORTS = (
    ("LHR", "Heathrow", "London", "United Kingdom", 51.4700, -0.4543),
    ("CDG", "Charles de Gaulle", "Paris", "France", 49.0097, 2.5479),
    ("NRT", "Narita International", "Tokyo", "Japan", 35.7720, 140.3929),
    ("MEX", "Benito Juarez International", "Mexico City", "Mexico", 19.4361, -99.0719),
    ("YYZ", "Toronto Pearson", "Toronto", "Canada", 43.6777, -79.6248),
)
AIRLINES = (("Zephyr Airlines", "ZA"), ("Blue Heron Air", "BH"), ("Summit Airways", "SU"), ("Pacific Crest", "PC"))
TRUNK_ROUTES = (("JFK", "LAX"), ("ORD", "SFO"), ("ATL", "MIA"), ("SEA", "DEN"), ("JFK", "LHR"), ("BOS", "ORD"))
OTHER_ROUTES = (
    ("LAX", "SFO"),
    ("DFW", "ATL"),
    ("JFK", "MIA"),
    ("SEA", "SFO"),
    ("DEN", "PHX"),
    ("IAH", "DFW"),
    ("BOS", "PHL"),
    ("MSP", "ORD"),
    ("BNA", "ATL"),
    ("SLC", "DEN"),
    ("PDX", "SEA"),
    ("AUS", "DEN"),
    ("SAN", "SEA"),
    ("SAT", "IAH"),
    ("LAX", "NRT"),
    ("MIA", "MEX"),
    ("ORD", "YYZ"),
    ("JFK", "CDG"),
    ("SFO", "NRT"),
    ("BOS", "LHR"),
    ("PHX", "SLC"),
    ("ATL", "JFK"),
)
# aircraft: (last business row, last row); business seats A C D F, economy A-F
AIRCRAFT = {"A320": (3, 25), "B737": (3, 28), "B787": (6, 36), "A350": (6, 40)}
CHAINS = (
    "Harborview Inn",
    "Grand Meridian",
    "Sapphire Suites",
    "Cedar Lodge",
    "Metro Stay",
    "Aurora Hotel",
    "Lighthouse",
)
AMENITIES = (
    "wifi",
    "pool",
    "gym",
    "spa",
    "breakfast",
    "parking",
    "airport shuttle",
    "restaurant",
    "bar",
    "pet friendly",
)
ROOM_KINDS = {
    "standard": ("1 queen", 2, 1.0),
    "deluxe": ("1 king", 2, 1.4),
    "family": ("2 queens", 4, 1.7),
    "suite": ("1 king + sofa bed", 3, 2.3),
}
NATIONALITIES = ("US", "US", "US", "US", "CA", "GB", "MX", "IN", "DE", "JP")
TIERS = {"basic": 1.0, "silver": 1.25, "gold": 1.5, "platinum": 2.0}
TIME_FMT = "%Y-%m-%dT%H:%M:%S"


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(math.sqrt(a))


LAYOUTS = {
    name: {
        "business": [f"{r}{c}" for r in range(1, biz + 1) for c in "ACDF"],
        "economy": [f"{r}{c}" for r in range(biz + 1, last + 1) for c in "ABCDEF"],
    }
    for name, (biz, last) in AIRCRAFT.items()
}


def _layout(aircraft: str) -> dict[str, list[str]]:
    return LAYOUTS[aircraft]


def _blocked(flight_id: str, seats: list[str], n: int) -> set[str]:
    """The n seats of a cabin held by passengers booked elsewhere: a fixed, deterministic pick."""
    return set(sorted(seats, key=lambda s: zlib.crc32(f"{flight_id}:{s}".encode()))[:n])


def _nightly(rate: float, night: date) -> float:
    return round(rate * (1.2 if night.weekday() in (4, 5) else 1.0), 2)


def _stay_price(rate: float, check_in: date, check_out: date, rooms: int) -> float:
    nights = (check_out - check_in).days
    return round(sum(_nightly(rate, check_in + timedelta(days=i)) for i in range(nights)) * rooms, 2)
