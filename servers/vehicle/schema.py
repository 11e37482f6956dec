"""Vehicle schema, car models, place kinds, service kinds, the mode thresholds and the road distance."""

from __future__ import annotations

import math

SCHEMA = """
CREATE TABLE owners (
    owner_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    city TEXT NOT NULL,
    member_since TEXT NOT NULL
);
CREATE TABLE places (
    place_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    address TEXT NOT NULL,
    city TEXT NOT NULL,
    lat REAL NOT NULL,
    lon REAL NOT NULL
);
CREATE TABLE vehicles (
    vehicle_id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    nickname TEXT NOT NULL,
    make TEXT NOT NULL,
    model TEXT NOT NULL,
    year INTEGER NOT NULL,
    vin TEXT NOT NULL UNIQUE,
    plate TEXT NOT NULL UNIQUE,
    powertrain TEXT NOT NULL CHECK (powertrain IN ('gas', 'hybrid', 'electric')),
    color TEXT NOT NULL,
    odometer_km REAL NOT NULL,
    fuel_pct REAL,
    fuel_tank_l REAL,
    km_per_l REAL,
    battery_pct REAL,
    battery_kwh REAL,
    km_per_kwh REAL,
    engine TEXT NOT NULL CHECK (engine IN ('on', 'off')),
    gear TEXT NOT NULL CHECK (gear IN ('park', 'drive', 'reverse', 'neutral')),
    key_present INTEGER NOT NULL,
    locked INTEGER NOT NULL,
    trunk_open INTEGER NOT NULL,
    climate_on INTEGER NOT NULL,
    climate_temp REAL NOT NULL,
    seat_heat_driver INTEGER NOT NULL,
    seat_heat_passenger INTEGER NOT NULL,
    lights TEXT NOT NULL CHECK (lights IN ('off', 'auto', 'low', 'high')),
    location_place_id TEXT NOT NULL REFERENCES places(place_id),
    destination_place_id TEXT REFERENCES places(place_id),
    nav_active INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX vehicles_owner ON vehicles(owner_id);
CREATE TABLE doors (
    vehicle_id TEXT NOT NULL REFERENCES vehicles(vehicle_id),
    door TEXT NOT NULL,
    is_open INTEGER NOT NULL,
    window_pct INTEGER NOT NULL,
    PRIMARY KEY (vehicle_id, door)
);
CREATE TABLE tires (
    vehicle_id TEXT NOT NULL REFERENCES vehicles(vehicle_id),
    position TEXT NOT NULL,
    pressure_psi REAL NOT NULL,
    recommended_psi REAL NOT NULL,
    PRIMARY KEY (vehicle_id, position)
);
CREATE TABLE trips (
    trip_id TEXT PRIMARY KEY,
    vehicle_id TEXT NOT NULL REFERENCES vehicles(vehicle_id),
    from_place_id TEXT NOT NULL,
    to_place_id TEXT NOT NULL,
    distance_km REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'cancelled')),
    started_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX trips_vehicle ON trips(vehicle_id, started_at);
CREATE TABLE service_records (
    service_id TEXT PRIMARY KEY,
    vehicle_id TEXT NOT NULL REFERENCES vehicles(vehicle_id),
    kind TEXT NOT NULL,
    service_date TEXT NOT NULL,
    odometer_km REAL NOT NULL,
    cost REAL NOT NULL,
    shop TEXT NOT NULL,
    notes TEXT NOT NULL
);
CREATE INDEX service_vehicle ON service_records(vehicle_id, service_date);
"""

# (make, model, powertrain, tank litres, km per litre, battery kWh, km per kWh, recommended psi)
MODELS = (
    ("Toyota", "Camry", "gas", 60, 14.0, None, None, 35),
    ("Toyota", "Corolla", "gas", 50, 15.5, None, None, 35),
    ("Honda", "Civic", "gas", 47, 15.0, None, None, 32),
    ("Honda", "CR-V", "gas", 53, 12.5, None, None, 35),
    ("Ford", "F-150", "gas", 98, 8.0, None, None, 35),
    ("Ford", "Escape", "gas", 57, 12.0, None, None, 35),
    ("Chevrolet", "Equinox", "gas", 56, 11.5, None, None, 35),
    ("Subaru", "Outback", "gas", 70, 11.0, None, None, 35),
    ("Mazda", "CX-5", "gas", 56, 12.0, None, None, 36),
    ("BMW", "3 Series", "gas", 59, 13.0, None, None, 33),
    ("Toyota", "Prius", "hybrid", 43, 22.0, 1.3, 6.0, 35),
    ("Toyota", "RAV4 Hybrid", "hybrid", 55, 17.0, 1.6, 6.0, 35),
    ("Honda", "Accord Hybrid", "hybrid", 48, 19.0, 1.3, 6.0, 33),
    ("Ford", "Escape Hybrid", "hybrid", 42, 17.5, 1.1, 6.0, 35),
    ("Tesla", "Model 3", "electric", None, None, 60.0, 7.0, 42),
    ("Tesla", "Model Y", "electric", None, None, 75.0, 6.3, 42),
    ("Chevrolet", "Bolt EV", "electric", None, None, 65.0, 6.4, 38),
    ("Nissan", "Leaf", "electric", None, None, 40.0, 6.5, 36),
    ("Ford", "Mustang Mach-E", "electric", None, None, 72.0, 5.7, 38),
    ("Hyundai", "Ioniq 5", "electric", None, None, 77.4, 6.0, 36),
    ("Kia", "EV6", "electric", None, None, 77.4, 6.1, 36),
    ("Rivian", "R1S", "electric", None, None, 135.0, 3.9, 48),
)
COLORS = ("white", "black", "silver", "gray", "blue", "red", "green", "pearl white", "midnight blue")
DOORS = ("front_left", "front_right", "rear_left", "rear_right")
PLACE_KINDS = (
    ("airport", "{city} International Airport"),
    ("mall", "{city} Galleria"),
    ("hospital", "{city} General Hospital"),
    ("gas_station", "Shell on {street}"),
    ("charging_station", "ChargePoint {street}"),
    ("restaurant", "The {street} Diner"),
    ("park", "{city} Central Park"),
    ("stadium", "{city} Arena"),
    ("hotel", "Grand Hotel {city}"),
    ("university", "University of {city}"),
    ("supermarket", "Whole Grocer {street}"),
    ("office", "{company} HQ"),
)
SERVICES = (
    ("oil change", 60, 120, 10000),
    ("tire rotation", 30, 80, 12000),
    ("brake inspection", 0, 150, 20000),
    ("battery check", 0, 60, 25000),
    ("software update", 0, 0, 15000),
    ("cabin air filter", 35, 90, 20000),
    ("wheel alignment", 90, 180, 30000),
    ("annual inspection", 40, 120, 15000),
)
SHOPS = ("Jiffy Lube", "Firestone Complete Auto Care", "Midas", "Pep Boys", "Valvoline Express Care", "Meineke")
FLAT_PSI = 20.0
MIN_CLIMATE_BATTERY = 20.0
MIN_START_BATTERY = 2.0


def _distance(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Road distance in km: great-circle distance times 1.25."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return round(2 * 6371.0 * math.asin(min(1.0, math.sqrt(h))) * 1.25, 1)
