"""Travel booking seed: airports, flights, hotels and rooms, travellers, and their trips.

Each table's rows come from their own small function; the order of the draws from ``rng`` is part of
the seed's identity (the state hash), so the functions run in the order the rows depend on each other.
"""

from __future__ import annotations

import random
import sqlite3
import zlib
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows
from servers.travel_booking.schema import (
    AIRLINES,
    AMENITIES,
    CHAINS,
    INTL_AIRPORTS,
    NATIONALITIES,
    OTHER_ROUTES,
    ROOM_KINDS,
    TIERS,
    TIME_FMT,
    TRUNK_ROUTES,
    US_AIRPORTS,
    _blocked,
    _km,
    _layout,
    _stay_price,
)

Route = tuple[str, str]


@dataclass
class Service:
    """One flight number on one direction of a route; it flies once a day at ``hour``."""

    number: str
    airline: str
    orig: str
    dest: str
    aircraft: str
    km: float
    hour: int


@dataclass
class Hotels:
    """Hotel and room rows, with each room type's (rate, guests, inventory) and the hotels of each city."""

    rows: list[Row] = field(default_factory=list)
    rooms: list[Row] = field(default_factory=list)
    rates: dict[tuple[str, str], tuple[float, int, int]] = field(default_factory=dict)
    by_city: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class World:
    """What trips are drawn from: travellers, airports by code, flights by route, and hotels."""

    travellers: list[list[Any]]
    where: dict[str, Row]
    by_route: dict[Route, list[Row]]
    hotels: Hotels


@dataclass
class Trips:
    """Every booking made so far, and the seats, cabin places and room-nights the confirmed ones hold."""

    itins: list[Row] = field(default_factory=list)
    fbooks: list[Row] = field(default_factory=list)
    hbooks: list[Row] = field(default_factory=list)
    ledger: list[Row] = field(default_factory=list)
    seats_taken: dict[str, set[str]] = field(default_factory=dict)
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    nights_used: dict[tuple[str, str, date], int] = field(default_factory=dict)


@dataclass
class Trip:
    """One itinerary being booked: its traveller, route, outbound departure and flight legs."""

    itin_id: str
    trav: list[Any]
    route: Route
    dep: datetime
    booked: str
    legs: list[Row]
    cancelled: bool = False


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """25 airports, ~600 flights from 5 days ago to 5 weeks ahead, 75 hotels, 250 travellers with trips."""
    ports = airports()
    where = {a[0]: a for a in ports}
    flight_rows, by_route = flights(rng, now, where)
    stays = hotels(rng, ports)
    world = World(travellers(rng, now), where, by_route, stays)
    trips = Trips()
    for _ in range(230):
        trip(rng, now, world, trips)
    carry_over(world.travellers, trips.ledger)
    insert_rows(db, "airports", ports)
    insert_rows(db, "flights", flight_rows)
    insert_rows(db, "hotels", stays.rows)
    insert_rows(db, "rooms", stays.rooms)
    insert_rows(db, "travellers", [tuple(t) for t in world.travellers])
    insert_rows(db, "itineraries", trips.itins)
    insert_rows(db, "flight_bookings", trips.fbooks)
    insert_rows(db, "hotel_bookings", trips.hbooks)
    insert_rows(db, "loyalty_ledger", [(f"LOY-{i:05d}", *e) for i, e in enumerate(trips.ledger, 1)])


def airports() -> list[Row]:
    us = [
        (code, name, city, "United States", lat, lon)
        for city, st, lat, lon in fake.CITIES
        for code, name in [US_AIRPORTS[city]]
    ]
    return us + list(INTL_AIRPORTS)


def flights(rng: random.Random, now: datetime, where: dict[str, Row]) -> tuple[list[Row], dict[Route, list[Row]]]:
    """Daily flights both ways on every trunk route, and on 30% of the days on the other routes."""
    rows: list[Row] = []
    by_route: dict[Route, list[Row]] = {}
    for routes, p in ((TRUNK_ROUTES, 1.0), (OTHER_ROUTES, 0.3)):
        for a, b in routes:
            route_flights(rng, now, where, (a, b), p, rows, by_route)
    return rows, by_route


def route_flights(
    rng: random.Random,
    now: datetime,
    where: dict[str, Row],
    route: Route,
    p: float,
    rows: list[Row],
    by_route: dict[Route, list[Row]],
) -> None:
    """Both directions of one route, each with its own number and departure hour."""
    a, b = route
    km = _km(where[a][4], where[a][5], where[b][4], where[b][5])
    airline, code = AIRLINES[zlib.crc32(f"{a}{b}".encode()) % len(AIRLINES)]
    aircraft = rng.choice(("B787", "A350")) if km > 4000 else rng.choice(("A320", "B737"))
    hour = rng.randint(6, 20)
    for orig, dest in ((a, b), (b, a)):
        service = Service(f"{code} {rng.randint(100, 2999)}", airline, orig, dest, aircraft, km, hour)
        for f in schedule(rng, now, service, p, len(rows)):
            rows.append(f)
            by_route.setdefault((orig, dest), []).append(f)
        hour = (hour + 7) % 15 + 6


def schedule(rng: random.Random, now: datetime, service: Service, p: float, first: int) -> list[Row]:
    """One direction's flights from 5 days ago to 35 days ahead, numbered after the ``first`` made so far."""
    today = datetime(now.year, now.month, now.day)
    out: list[Row] = []
    for day in range(-5, 36):
        if p < 1.0 and rng.random() > p:
            continue
        dep = today + timedelta(days=day, hours=service.hour, minutes=rng.choice((0, 15, 30, 45)))
        out.append(flight(rng, now, service, dep, f"FLT-{first + len(out) + 1:04d}"))
    return out


def flight(rng: random.Random, now: datetime, service: Service, dep: datetime, flight_id: str) -> Row:
    arr = dep + timedelta(minutes=int(service.km / 800 * 60) + 35)
    eco = round((59 + 0.11 * service.km) * rng.uniform(0.8, 1.4))
    layout = _layout(service.aircraft)
    load = 1.0 if rng.random() < 0.05 else rng.uniform(0.3, 0.96)
    status = "cancelled" if dep > now and rng.random() < 0.03 else "scheduled"
    return (
        flight_id,
        service.number,
        service.airline,
        service.orig,
        service.dest,
        dep.isoformat(),
        arr.isoformat(),
        service.aircraft,
        float(eco),
        float(round(eco * 3.2)),
        int(len(layout["economy"]) * load),
        int(len(layout["business"]) * min(1.0, load * rng.uniform(0.7, 1.1))),
        status,
    )


def hotels(rng: random.Random, ports: list[Row]) -> Hotels:
    """Three hotels of different chains in every airport's city, each with a standard room and maybe more."""
    out = Hotels()
    for _code, _, city, country, _, _ in ports:
        for chain in rng.sample(CHAINS, 3):
            hid = f"HTL-{len(out.rows) + 1:03d}"
            stars = rng.choice((2, 3, 3, 4, 4, 5))
            out.rows.append(hotel(rng, hid, chain, city, country, stars))
            out.by_city.setdefault(city, []).append(hid)
            rooms(rng, out, hid, stars)
    return out


def hotel(rng: random.Random, hid: str, chain: str, city: str, country: str, stars: int) -> Row:
    street = rng.choice(fake.STREETS)
    return (
        hid,
        f"{chain} {city} {rng.choice(('Downtown', 'Airport', 'Riverside', 'Central', 'Old Town'))}",
        chain,
        city,
        country,
        f"{rng.randint(10, 999)} {street}, {city}",
        stars,
        round(rng.uniform(3.2, 4.9), 1),
        ", ".join(sorted(rng.sample(AMENITIES, rng.randint(3, 6)))),
    )


def rooms(rng: random.Random, out: Hotels, hid: str, stars: int) -> None:
    base = 45 + stars * 38 + rng.randint(-15, 25)
    for kind in ("standard", "deluxe", "family", "suite"):
        if kind != "standard" and rng.random() < 0.25:
            continue
        beds, guests, factor = ROOM_KINDS[kind]
        inventory = 1 if kind == "suite" else rng.randint(2, 6)
        rate = float(round(base * factor))
        out.rooms.append((hid, kind, beds, guests, rate, inventory))
        out.rates[(hid, kind)] = (rate, guests, inventory)


def travellers(rng: random.Random, now: datetime) -> list[list[Any]]:
    """250 travellers; lists, since their points are raised to what the ledger shows once trips are booked."""
    return [traveller(rng, now, i) for i in range(1, 251)]


def traveller(rng: random.Random, now: datetime, i: int) -> list[Any]:
    first, last = fake.person(rng)
    nat = rng.choice(NATIONALITIES)
    has_pp = rng.random() < 0.75
    expiry = (now + timedelta(days=rng.randint(-200, 3000))).date().isoformat() if has_pp else None
    tier = rng.choices(tuple(TIERS), (55, 25, 14, 6))[0]
    return [
        f"TRV-{i:04d}",
        f"{first} {last}",
        fake.email_for(first, last, rng, i),
        fake.phone(rng),
        date(rng.randint(1950, 2006), rng.randint(1, 12), rng.randint(1, 28)).isoformat(),
        nat,
        f"{nat[0]}{rng.randint(10_000_000, 99_999_999)}" if has_pp else None,
        expiry,
        tier,
        rng.randint(0, 60_000),
        fake.iso(fake.moment(rng, now, 3000, -60)),
    ]


def trip(rng: random.Random, now: datetime, world: World, trips: Trips) -> None:
    """Maybe one itinerary: an outbound flight, maybe a return, maybe a hotel stay at the destination."""
    found = outbound(rng, now, world, len(trips.itins) + 1)
    if found is None:
        return
    trips.itins.append((found.itin_id, found.trav[0], f"{world.where[found.route[1]][2]} trip", found.booked))
    lo, hi = fake.iso(found.dep + timedelta(days=2)), fake.iso(found.dep + timedelta(days=7))
    back = [f for f in world.by_route.get((found.route[1], found.route[0]), []) if lo <= f[5] <= hi]
    if back and rng.random() < 0.7:
        found.legs.append(rng.choice(back))
    found.cancelled = rng.random() < 0.1
    for f in found.legs:
        flight_booking(rng, now, trips, found, f)
    city = world.where[found.route[1]][2]
    if world.hotels.by_city.get(city) and rng.random() < 0.65:
        hotel_booking(rng, now, world.hotels, trips, found, city)


def outbound(rng: random.Random, now: datetime, world: World, n: int) -> Trip | None:
    """A traveller and a flight they may take: none if the route needs a passport they lack, or it is cancelled."""
    trav = rng.choice(world.travellers)
    intl_ok = trav[7] is not None and trav[7] > (now + timedelta(days=250)).date().isoformat()
    route = rng.choice(list(world.by_route))
    where = world.where
    if not intl_ok and (where[route[0]][3] != "United States" or where[route[1]][3] != "United States"):
        return None
    out = rng.choice(world.by_route[route])
    if out[12] == "cancelled":
        return None
    dep = datetime.strptime(out[5], TIME_FMT)
    booked = min(now - timedelta(hours=2), dep - timedelta(days=rng.randint(2, 60)))
    return Trip(f"ITN-{n:04d}", trav, route, dep, booked.strftime(TIME_FMT), [out])


def flight_booking(rng: random.Random, now: datetime, trips: Trips, trip: Trip, f: Row) -> None:
    """One leg's booking, skipped when the cabin is full; a confirmed one earns points on the ledger."""
    cabin = "business" if rng.random() < 0.15 else "economy"
    cabin_seats = _layout(f[7])[cabin]
    blocked = f[10] if cabin == "economy" else f[11]
    if trips.counts.get((f[0], cabin), 0) + blocked >= len(cabin_seats):
        return
    seat = pick_seat(rng, trips, f[0], cabin_seats, blocked) if rng.random() < 0.6 else None
    fare = f[8] if cabin == "economy" else f[9]
    bags = (2 if cabin == "business" else 0) + rng.choice((0, 0, 1, 1, 2))
    paid = bags - (2 if cabin == "business" else 0)
    fee = float(35 * min(paid, 1) + 45 * max(paid - 1, 0))
    earned = int(fare * TIERS[trip.trav[8]])
    status = "cancelled" if trip.cancelled and f[5] > fake.iso(now) else "confirmed"
    if status == "confirmed":
        trips.counts[(f[0], cabin)] = trips.counts.get((f[0], cabin), 0) + 1
        if seat:
            trips.seats_taken[f[0]].add(seat)
    else:
        seat = None
    bid = f"FBK-{len(trips.fbooks) + 1:04d}"
    gone = status == "cancelled"
    trips.fbooks.append(
        (bid, trip.itin_id, trip.trav[0], f[0], cabin, seat, bags, fee, fare, 0, 0 if gone else earned, status)
        + (fare + fee if gone else None, trip.booked, fake.iso(now - timedelta(days=1)) if gone else None)
    )
    if not gone:
        trips.ledger.append((trip.trav[0], earned, f"Earned on {bid} ({f[1]})", trip.booked))


def pick_seat(rng: random.Random, trips: Trips, flight_id: str, cabin_seats: list[str], blocked: int) -> str:
    """A seat neither held back by the airline nor taken by a confirmed booking."""
    taken = trips.seats_taken.setdefault(flight_id, set())
    held = _blocked(flight_id, cabin_seats, blocked)
    return rng.choice([s for s in cabin_seats if s not in held and s not in taken])


def hotel_booking(rng: random.Random, now: datetime, stays: Hotels, trips: Trips, trip: Trip, city: str) -> None:
    """A stay from arrival until the return flight (or 1-5 nights), skipped when a night is fully booked."""
    hid = rng.choice(stays.by_city[city])
    kind = rng.choice([k for (h, k) in stays.rates if h == hid])
    rate, guests, inventory = stays.rates[(hid, kind)]
    ci = trip.dep.date() if trip.dep.hour < 20 else trip.dep.date() + timedelta(days=1)
    co = (
        datetime.strptime(trip.legs[1][5], TIME_FMT).date()
        if len(trip.legs) > 1
        else ci + timedelta(days=rng.randint(1, 5))
    )
    if co <= ci:
        return
    nights = [ci + timedelta(days=d) for d in range((co - ci).days)]
    if any(trips.nights_used.get((hid, kind, n), 0) >= inventory for n in nights):
        return
    gone = trip.cancelled
    if not gone:
        for n in nights:
            trips.nights_used[(hid, kind, n)] = trips.nights_used.get((hid, kind, n), 0) + 1
    total = _stay_price(rate, ci, co, 1)
    trips.hbooks.append(
        (f"HBK-{len(trips.hbooks) + 1:04d}", trip.itin_id, trip.trav[0], hid, kind, ci.isoformat(), co.isoformat())
        + (1, rng.randint(1, guests), total, "cancelled" if gone else "confirmed", total if gone else None)
        + (trip.booked, fake.iso(now - timedelta(days=1)) if gone else None)
    )


def carry_over(travellers: list[list[Any]], ledger: list[Row]) -> None:
    """Raise each traveller's points to at least what they earned, log the rest as carried over, sort by time."""
    earned_by: dict[str, int] = {}
    for t, p, _, _ in ledger:
        earned_by[t] = earned_by.get(t, 0) + p
    for trav in travellers:
        earned = earned_by.get(trav[0], 0)
        trav[9] = max(trav[9], earned)
        if trav[9] > earned:
            ledger.append((trav[0], trav[9] - earned, "Balance carried over from previous years", trav[10]))
    ledger.sort(key=lambda e: (e[3], e[0]))
