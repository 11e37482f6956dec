"""Realistic fake data for seeds, drawn only from the ``random.Random`` passed in.

Plain word lists instead of Faker: the same seed gives the same data whatever
library version is installed.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

FIRST_NAMES = (
    "Olivia Liam Emma Noah Ava Elijah Sophia James Isabella William Mia Benjamin Charlotte Lucas Amelia Henry "
    "Harper Alexander Evelyn Mateo Abigail Daniel Emily Michael Elizabeth Ethan Sofia Jacob Avery Logan Ella "
    "Jackson Scarlett Sebastian Grace Aiden Chloe Samuel Victoria David Riley Joseph Aria Carter Lily Owen "
    "Aurora Wyatt Zoey John Nora Jack Hannah Luke Layla Jayden Penelope Dylan Camila Grayson Priya Arjun Mei "
    "Wei Yuki Hiroshi Fatima Omar Aisha Mohammed Ines Mateus Lucia Diego Valentina Javier Chiara Marco Anya "
    "Dmitri Freya Lars Ingrid Sven Amara Kwame Zara Rohan Ananya Kenji Sakura Tomas Elena Nikolai Leila"
).split()
LAST_NAMES = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson "
    "Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis "
    "Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall "
    "Rivera Campbell Mitchell Carter Roberts Patel Shah Chen Wang Kim Park Tanaka Sato Muller Schmidt Rossi "
    "Bianchi Dubois Laurent Silva Santos Costa Okafor Mensah Kowalski Novak Larsen Johansson Ivanova Haddad"
).split()
CITIES = (
    ("New York", "NY", 40.7128, -74.0060),
    ("Los Angeles", "CA", 34.0522, -118.2437),
    ("Chicago", "IL", 41.8781, -87.6298),
    ("Houston", "TX", 29.7604, -95.3698),
    ("Phoenix", "AZ", 33.4484, -112.0740),
    ("Philadelphia", "PA", 39.9526, -75.1652),
    ("San Antonio", "TX", 29.4241, -98.4936),
    ("San Diego", "CA", 32.7157, -117.1611),
    ("Dallas", "TX", 32.7767, -96.7970),
    ("Austin", "TX", 30.2672, -97.7431),
    ("Seattle", "WA", 47.6062, -122.3321),
    ("Denver", "CO", 39.7392, -104.9903),
    ("Boston", "MA", 42.3601, -71.0589),
    ("Portland", "OR", 45.5152, -122.6784),
    ("Atlanta", "GA", 33.7490, -84.3880),
    ("Miami", "FL", 25.7617, -80.1918),
    ("Minneapolis", "MN", 44.9778, -93.2650),
    ("Nashville", "TN", 36.1627, -86.7816),
    ("San Francisco", "CA", 37.7749, -122.4194),
    ("Salt Lake City", "UT", 40.7608, -111.8910),
)
STREETS = (
    "Main St",
    "Oak Ave",
    "Maple Dr",
    "Cedar Ln",
    "Pine St",
    "Elm St",
    "Washington Ave",
    "Lake Rd",
    "Hill St",
    "Park Ave",
    "Sunset Blvd",
    "River Rd",
    "Broadway",
    "Market St",
    "Church St",
    "Highland Ave",
    "Mill Rd",
    "Spring St",
    "Valley View Dr",
    "Forest Ave",
)
COMPANIES = (
    "Acme Logistics",
    "Brightline Health",
    "Cobalt Analytics",
    "Delta Foods",
    "Evergreen Energy",
    "Fjord Capital",
    "Granite Builders",
    "Harbor Freight Co",
    "Ironwood Software",
    "Juniper Retail",
    "Keystone Insurance",
    "Lumen Media",
    "Meridian Labs",
    "Northwind Traders",
    "Orion Aerospace",
    "Pinnacle Legal",
    "Quartz Design",
    "Redwood Partners",
    "Summit Outdoor",
    "Tidewater Shipping",
    "Umbra Security",
    "Vertex Robotics",
    "Willow Pharmacy",
    "Xenon Motors",
    "Yellowstone Travel",
    "Zephyr Airlines",
)
EMAIL_DOMAINS = ("example.com", "mail.example.org", "inbox.example.net", "corp.example.com")


def person(rng: random.Random) -> tuple[str, str]:
    """A (first, last) name pair."""
    return rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)


def full_name(rng: random.Random) -> str:
    first, last = person(rng)
    return f"{first} {last}"


def email_for(first: str, last: str, rng: random.Random, n: int = 0) -> str:
    suffix = str(n) if n else ""
    return f"{first.lower()}.{last.lower()}{suffix}@{rng.choice(EMAIL_DOMAINS)}"


def city(rng: random.Random) -> tuple[str, str, float, float]:
    """(city, state, latitude, longitude)."""
    return rng.choice(CITIES)


def address(rng: random.Random) -> str:
    name, state, _, _ = city(rng)
    return f"{rng.randint(10, 9999)} {rng.choice(STREETS)}, {name}, {state}"


def phone(rng: random.Random) -> str:
    return f"+1-{rng.randint(201, 989)}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)}"


def money(rng: random.Random, low: float, high: float) -> float:
    return round(rng.uniform(low, high), 2)


def moment(rng: random.Random, now: datetime, days_back: int, days_forward: int = 0) -> datetime:
    """A time between ``days_back`` days before ``now`` and ``days_forward`` days after, on the minute."""
    minutes = rng.randint(-days_back * 24 * 60, days_forward * 24 * 60)
    return (now + timedelta(minutes=minutes)).replace(second=0, microsecond=0)


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")
