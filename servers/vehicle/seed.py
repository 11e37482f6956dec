"""Vehicle seed: owners, places per city, their cars with doors and tyres, trips and service records.

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
from servers.vehicle.schema import COLORS, DOORS, MODELS, PLACE_KINDS, SERVICES, SHOPS, _distance

SERVICE_NOTES = ("routine", "no issues found", "customer request", "parts replaced", "recall work")


@dataclass
class Rows:
    """The rows of every table but places, filled owner by owner."""

    owners: list[Row] = field(default_factory=list)
    vehicles: list[Row] = field(default_factory=list)
    doors: list[Row] = field(default_factory=list)
    tires: list[Row] = field(default_factory=list)
    trips: list[Row] = field(default_factory=list)
    services: list[Row] = field(default_factory=list)


@dataclass
class Car:
    """What one vehicle is doing when the seed's clock stops: drawn first, written into several tables."""

    model: tuple[Any, ...]
    year: int
    odometer: float
    fuel: float | None
    battery: float | None
    state: str
    key: int
    here: Row
    dest: Row
    open_door: str | None
    trunk: int
    locked: int
    flat: str | None


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """~190 places in 20 cities, 130 owners with ~230 vehicles, their doors, tyres, trips and service histories."""
    places = _places(rng)
    by_city: dict[str, list[Row]] = {}
    for p in places:
        by_city.setdefault(p[4], []).append(p)
    out = Rows()
    for i in range(1, 131):
        owner, first = _owner(rng, now, i)
        out.owners.append(owner)
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            vid = f"VEH-{len(out.vehicles) + 1:04d}"
            out.vehicles.append(_seed_vehicle(rng, vid, owner[0], first, by_city[owner[4]], now, out))
            _seed_services(rng, out.vehicles[-1], now, out.services)
    insert_rows(db, "owners", out.owners)
    insert_rows(db, "places", places)
    insert_rows(db, "vehicles", out.vehicles)
    insert_rows(db, "doors", out.doors)
    insert_rows(db, "tires", out.tires)
    insert_rows(db, "trips", out.trips)
    insert_rows(db, "service_records", out.services)


def _places(rng: random.Random) -> list[Row]:
    """8-11 places of distinct kinds in each city, near its centre."""
    places: list[Row] = []
    for name, state, lat, lon in fake.CITIES:
        for category, pattern in rng.sample(PLACE_KINDS, rng.randint(8, 11)):
            street = rng.choice(fake.STREETS)
            title = pattern.format(city=name, street=street.split()[0], company=rng.choice(fake.COMPANIES))
            address = f"{rng.randint(10, 9999)} {street}, {name}, {state}"
            plat, plon = round(lat + rng.uniform(-0.12, 0.12), 5), round(lon + rng.uniform(-0.12, 0.12), 5)
            places.append((f"PLC-{len(places) + 1:04d}", title, category, address, name, plat, plon))
    return places


def _owner(rng: random.Random, now: datetime, i: int) -> tuple[Row, str]:
    """Owner number ``i`` in a random city, and their first name (their cars are named after them)."""
    first, last = fake.person(rng)
    city = fake.city(rng)[0]
    email, phone = fake.email_for(first, last, rng, i), fake.phone(rng)
    joined = fake.iso(fake.moment(rng, now, 2500, -30))
    return (f"OWN-{i:04d}", f"{first} {last}", email, phone, city, joined), first


def _seed_vehicle(
    rng: random.Random, vid: str, owner_id: str, first: str, city_places: list[Row], now: datetime, out: Rows
) -> Row:
    """One vehicle of ``owner_id``, parked or on the road in their city, with its doors, tyres and trips."""
    car = _car(rng, city_places)
    psi = car.model[7]
    for d in DOORS:
        _door_and_tire(rng, vid, d, car, psi, out)
    for _ in range(rng.randint(1, 4)):
        _past_trip(rng, now, vid, city_places, out.trips)
    if car.state == "driving":
        km = _distance(car.here[5], car.here[6], car.dest[5], car.dest[6])
        started = fake.iso(now - timedelta(minutes=rng.randint(3, 25)))
        out.trips.append((f"TRP-{len(out.trips) + 1:05d}", vid, car.here[0], car.dest[0], km, "active", started, None))
    return _vehicle_row(rng, now, vid, owner_id, first, car)


def _car(rng: random.Random, city_places: list[Row]) -> Car:
    """Model, age, energy left and state of one vehicle; a car with no energy left is parked."""
    model = rng.choice(MODELS)
    power, tank, kwh = model[2], model[3], model[5]
    year = rng.randint(2015 if power != "electric" else 2018, 2026)
    odometer = round(max(0.0, (2026.5 - year) * rng.uniform(9000, 21000)), 1)
    fuel = (
        None
        if tank is None
        else round(rng.choice((0.0, rng.uniform(3, 15))) if rng.random() < 0.08 else rng.uniform(18, 100), 1)
    )
    battery = None if kwh is None else round(rng.uniform(0, 6) if rng.random() < 0.07 else rng.uniform(15, 100), 1)
    state = rng.choices(("parked", "idling", "driving"), (76, 12, 12))[0]
    key = 1 if state != "parked" else int(rng.random() < 0.8)
    if (fuel is not None and fuel < 3 and (battery is None or battery < 3)) or (
        battery is not None and power == "electric" and battery < 3
    ):
        state = "parked"
    here = rng.choice(city_places)
    dest = rng.choice([p for p in city_places if p[0] != here[0]])
    open_door = rng.choice(DOORS) if state == "parked" and rng.random() < 0.06 else None
    trunk = int(state == "parked" and rng.random() < 0.04)
    locked = int(state == "driving" or (state == "parked" and not open_door and not trunk and rng.random() < 0.85))
    flat = rng.choice(DOORS) if state == "parked" and rng.random() < 0.05 else None
    return Car(model, year, odometer, fuel, battery, state, key, here, dest, open_door, trunk, locked, flat)


def _door_and_tire(rng: random.Random, vid: str, d: str, car: Car, psi: int, out: Rows) -> None:
    """Door ``d`` (its window down a little only on the road) and the tyre at the same corner."""
    window = rng.choice((0, 0, 0, 25, 100)) if car.state != "parked" and d.startswith("front") else 0
    out.doors.append((vid, d, int(d == car.open_door), window))
    pressure = rng.uniform(12, 18) if d == car.flat else psi + rng.choice((0, 0, -1, 1, -4, -6))
    out.tires.append((vid, d, round(pressure, 1), float(psi)))


def _past_trip(rng: random.Random, now: datetime, vid: str, city_places: list[Row], trips: list[Row]) -> None:
    """A finished or cancelled trip between two places of the vehicle's city in the last 90 days."""
    a, b = rng.sample(city_places, 2)
    t = fake.moment(rng, now, 90, 0) - timedelta(hours=2)
    km = _distance(a[5], a[6], b[5], b[6])
    status = rng.choices(("completed", "cancelled"), (9, 1))[0]
    ended = fake.iso(t + timedelta(minutes=int(km * 1.5) + 5))
    trips.append((f"TRP-{len(trips) + 1:05d}", vid, a[0], b[0], km, status, fake.iso(t), ended))


def _vehicle_row(rng: random.Random, now: datetime, vid: str, owner_id: str, first: str, car: Car) -> Row:
    """The vehicles row: identity, energy, and the controls a driver can reach."""
    make, model, power, tank, kpl, kwh, kpkwh, _ = car.model
    nav = car.state == "driving"
    engine_on = car.state != "parked"
    climate = int(engine_on and rng.random() < 0.6)
    n = int(vid[4:])  # plate and VIN end in the vehicle number, so they are unique by construction
    plate = f"{rng.randint(1, 9)}{''.join(rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(3))}{n:03d}"
    vin = "".join(rng.choice("0123456789ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(12)) + f"{n:05d}"
    color = rng.choice(COLORS)
    temperature = float(rng.choice((20, 21, 21, 22, 23)))
    fan = rng.choice((0, 0, 1, 2)) if climate else 0
    mode = rng.choice(("auto", "low")) if nav else rng.choice(("off", "auto", "auto"))
    destination = car.dest[0] if nav or rng.random() < 0.1 else None
    seen = fake.iso(now - timedelta(minutes=rng.randint(1, 600)))
    ident = (vid, owner_id, f"{first}'s {model}", make, model, car.year, vin, plate, power, color, car.odometer)
    energy = (car.fuel, tank, kpl, car.battery, kwh, kpkwh)
    controls = ("on" if engine_on else "off", "drive" if nav else "park", car.key, car.locked, car.trunk, climate)
    return ident + energy + controls + (temperature, fan, 0, mode, car.here[0], destination, int(nav), seen)


def _seed_services(rng: random.Random, v: Row, now: datetime, out: list[Row]) -> None:
    """2-7 service visits spread between the vehicle's first spring (or 1,500 days ago) and last week."""
    year, power, odometer = v[5], v[8], v[10]
    first = max(datetime(year, 3, 1), now - timedelta(days=1500))
    n = rng.randint(2, 7)
    for k in range(n):
        frac = (k + rng.random()) / n
        when = first + (now - timedelta(days=7) - first) * frac
        kind, lo, hi, _ = rng.choice([s for s in SERVICES if not (power == "electric" and s[0] == "oil change")])
        shop = f"{v[3]} Service Center" if power == "electric" or rng.random() < 0.4 else rng.choice(SHOPS)
        cost = fake.money(rng, lo, hi) if hi else 0.0
        note = rng.choice(SERVICE_NOTES)
        day, km = when.strftime("%Y-%m-%d"), round(odometer * frac, 0)
        out.append((f"SRV-{len(out) + 1:05d}", v[0], kind, day, km, cost, shop, note))
