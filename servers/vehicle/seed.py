"""Vehicle seed: owners, places per city, their cars with doors and tyres, trips and service records."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from hub import fake
from servers.vehicle.schema import (
    COLORS,
    DOORS,
    MODELS,
    PLACE_KINDS,
    SERVICES,
    SHOPS,
    Row,
    _distance,
)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """~190 places in 20 cities, 130 owners with ~230 vehicles, their doors, tyres, trips and service histories."""
    places: list[Row] = []
    by_city: dict[str, list[Row]] = {}
    for name, state, lat, lon in fake.CITIES:
        for category, pattern in rng.sample(PLACE_KINDS, rng.randint(8, 11)):
            street = rng.choice(fake.STREETS)
            place_id = f"PLC-{len(places) + 1:04d}"
            places.append(
                (
                    place_id,
                    pattern.format(city=name, street=street.split()[0], company=rng.choice(fake.COMPANIES)),
                    category,
                    f"{rng.randint(10, 9999)} {street}, {name}, {state}",
                    name,
                    round(lat + rng.uniform(-0.12, 0.12), 5),
                    round(lon + rng.uniform(-0.12, 0.12), 5),
                )
            )
            by_city.setdefault(name, []).append(places[-1])
    owners: list[Row] = []
    vehicles: list[Row] = []
    doors: list[Row] = []
    tires: list[Row] = []
    trips: list[Row] = []
    services: list[Row] = []
    for i in range(1, 131):
        first, last = fake.person(rng)
        city = fake.city(rng)[0]
        owners.append(
            (
                f"OWN-{i:04d}",
                f"{first} {last}",
                fake.email_for(first, last, rng, i),
                fake.phone(rng),
                city,
                fake.iso(fake.moment(rng, now, 2500, -30)),
            )
        )
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            vid = f"VEH-{len(vehicles) + 1:04d}"
            vehicles.append(_seed_vehicle(rng, vid, f"OWN-{i:04d}", first, by_city[city], now, doors, tires, trips))
            _seed_services(rng, vehicles[-1], now, services)
    db.executemany("INSERT INTO owners VALUES (?,?,?,?,?,?)", owners)
    db.executemany("INSERT INTO places VALUES (?,?,?,?,?,?,?)", places)
    db.executemany(f"INSERT INTO vehicles VALUES ({','.join('?' * 31)})", vehicles)
    db.executemany("INSERT INTO doors VALUES (?,?,?,?)", doors)
    db.executemany("INSERT INTO tires VALUES (?,?,?,?)", tires)
    db.executemany("INSERT INTO trips VALUES (?,?,?,?,?,?,?,?)", trips)
    db.executemany("INSERT INTO service_records VALUES (?,?,?,?,?,?,?,?)", services)


def _seed_vehicle(
    rng: random.Random,
    vid: str,
    owner_id: str,
    first: str,
    city_places: list[tuple[Any, ...]],
    now: datetime,
    doors: list[tuple[Any, ...]],
    tires: list[tuple[Any, ...]],
    trips: list[tuple[Any, ...]],
) -> tuple[Any, ...]:
    make, model, power, tank, kpl, kwh, kpkwh, psi = rng.choice(MODELS)
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
    for d in DOORS:
        doors.append(
            (
                vid,
                d,
                int(d == open_door),
                rng.choice((0, 0, 0, 25, 100)) if state != "parked" and d.startswith("front") else 0,
            )
        )
        pressure = rng.uniform(12, 18) if d == flat else psi + rng.choice((0, 0, -1, 1, -4, -6))
        tires.append((vid, d, round(pressure, 1), float(psi)))
    start = here
    for _ in range(rng.randint(1, 4)):
        a, b = rng.sample(city_places, 2)
        t = fake.moment(rng, now, 90, 0) - timedelta(hours=2)
        km = _distance(a[5], a[6], b[5], b[6])
        trips.append(
            (
                f"TRP-{len(trips) + 1:05d}",
                vid,
                a[0],
                b[0],
                km,
                rng.choices(("completed", "cancelled"), (9, 1))[0],
                fake.iso(t),
                fake.iso(t + timedelta(minutes=int(km * 1.5) + 5)),
            )
        )
    nav = state == "driving"
    if nav:
        trips.append(
            (
                f"TRP-{len(trips) + 1:05d}",
                vid,
                start[0],
                dest[0],
                _distance(start[5], start[6], dest[5], dest[6]),
                "active",
                fake.iso(now - timedelta(minutes=rng.randint(3, 25))),
                None,
            )
        )
    engine_on = state != "parked"
    climate = int(engine_on and rng.random() < 0.6)
    n = int(vid[4:])  # plate and VIN end in the vehicle number, so they are unique by construction
    plate = f"{rng.randint(1, 9)}{''.join(rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ') for _ in range(3))}{n:03d}"
    vin = "".join(rng.choice("0123456789ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(12)) + f"{n:05d}"
    return (
        vid,
        owner_id,
        f"{first}'s {model}",
        make,
        model,
        year,
        vin,
        plate,
        power,
        rng.choice(COLORS),
        odometer,
        fuel,
        tank,
        kpl,
        battery,
        kwh,
        kpkwh,
        "on" if engine_on else "off",
        "drive" if state == "driving" else "park",
        key,
        locked,
        trunk,
        climate,
        float(rng.choice((20, 21, 21, 22, 23))),
        rng.choice((0, 0, 1, 2)) if climate else 0,
        0,
        rng.choice(("auto", "low")) if state == "driving" else rng.choice(("off", "auto", "auto")),
        here[0],
        dest[0] if nav or rng.random() < 0.1 else None,
        int(nav),
        fake.iso(now - timedelta(minutes=rng.randint(1, 600))),
    )


def _seed_services(rng: random.Random, v: tuple[Any, ...], now: datetime, out: list[tuple[Any, ...]]) -> None:
    year, power, odometer = v[5], v[8], v[10]
    first = max(datetime(year, 3, 1), now - timedelta(days=1500))
    n = rng.randint(2, 7)
    for k in range(n):
        frac = (k + rng.random()) / n
        when = first + (now - timedelta(days=7) - first) * frac
        kind, lo, hi, _ = rng.choice([s for s in SERVICES if not (power == "electric" and s[0] == "oil change")])
        shop = f"{v[3]} Service Center" if power == "electric" or rng.random() < 0.4 else rng.choice(SHOPS)
        out.append(
            (
                f"SRV-{len(out) + 1:05d}",
                v[0],
                kind,
                when.strftime("%Y-%m-%d"),
                round(odometer * frac, 0),
                fake.money(rng, lo, hi) if hi else 0.0,
                shop,
                rng.choice(("routine", "no issues found", "customer request", "parts replaced", "recall work")),
            )
        )
