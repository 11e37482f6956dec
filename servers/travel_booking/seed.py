"""Travel booking seed: airports, flights, hotels and rooms, travellers, and their trips."""

from __future__ import annotations

import random
import sqlite3
import zlib
from datetime import date, datetime, timedelta
from typing import Any

from hub import fake
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


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """25 airports, ~600 flights from 5 days ago to 5 weeks ahead, 75 hotels, 250 travellers with trips."""
    airports = [
        (code, name, city, "United States", lat, lon)
        for city, st, lat, lon in fake.CITIES
        for code, name in [US_AIRPORTS[city]]
    ] + list(INTL_AIRPORTS)
    db.executemany("INSERT INTO airports VALUES (?,?,?,?,?,?)", airports)
    where = {a[0]: a for a in airports}

    flights: list[tuple[Any, ...]] = []
    by_route: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    today = datetime(now.year, now.month, now.day)
    for routes, p in ((TRUNK_ROUTES, 1.0), (OTHER_ROUTES, 0.3)):
        for a, b in routes:
            km = _km(where[a][4], where[a][5], where[b][4], where[b][5])
            airline, code = AIRLINES[zlib.crc32(f"{a}{b}".encode()) % len(AIRLINES)]
            aircraft = rng.choice(("B787", "A350")) if km > 4000 else rng.choice(("A320", "B737"))
            hour = rng.randint(6, 20)
            for orig, dest in ((a, b), (b, a)):
                number = f"{code} {rng.randint(100, 2999)}"
                for day in range(-5, 36):
                    if p < 1.0 and rng.random() > p:
                        continue
                    dep = today + timedelta(days=day, hours=hour, minutes=rng.choice((0, 15, 30, 45)))
                    arr = dep + timedelta(minutes=int(km / 800 * 60) + 35)
                    eco = round((59 + 0.11 * km) * rng.uniform(0.8, 1.4))
                    layout = _layout(aircraft)
                    load = 1.0 if rng.random() < 0.05 else rng.uniform(0.3, 0.96)
                    status = "cancelled" if dep > now and rng.random() < 0.03 else "scheduled"
                    f = (
                        f"FLT-{len(flights) + 1:04d}",
                        number,
                        airline,
                        orig,
                        dest,
                        dep.isoformat(),
                        arr.isoformat(),
                        aircraft,
                        float(eco),
                        float(round(eco * 3.2)),
                        int(len(layout["economy"]) * load),
                        int(len(layout["business"]) * min(1.0, load * rng.uniform(0.7, 1.1))),
                        status,
                    )
                    flights.append(f)
                    by_route.setdefault((orig, dest), []).append(f)
                hour = (hour + 7) % 15 + 6
    db.executemany("INSERT INTO flights VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", flights)

    hotels: list[tuple[Any, ...]] = []
    room_rows: list[tuple[Any, ...]] = []
    rates: dict[tuple[str, str], tuple[float, int, int]] = {}
    by_city: dict[str, list[str]] = {}
    for _code, _, city, country, _, _ in airports:
        for chain in rng.sample(CHAINS, 3):
            hid = f"HTL-{len(hotels) + 1:03d}"
            stars = rng.choice((2, 3, 3, 4, 4, 5))
            street = rng.choice(fake.STREETS)
            hotels.append(
                (
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
            )
            by_city.setdefault(city, []).append(hid)
            base = 45 + stars * 38 + rng.randint(-15, 25)
            for kind in ("standard", "deluxe", "family", "suite"):
                if kind != "standard" and rng.random() < 0.25:
                    continue
                beds, guests, factor = ROOM_KINDS[kind]
                inventory = 1 if kind == "suite" else rng.randint(2, 6)
                rate = float(round(base * factor))
                room_rows.append((hid, kind, beds, guests, rate, inventory))
                rates[(hid, kind)] = (rate, guests, inventory)
    db.executemany("INSERT INTO hotels VALUES (?,?,?,?,?,?,?,?,?)", hotels)
    db.executemany("INSERT INTO rooms VALUES (?,?,?,?,?,?)", room_rows)

    travellers: list[list[Any]] = []
    for i in range(1, 251):
        first, last = fake.person(rng)
        nat = rng.choice(NATIONALITIES)
        has_pp = rng.random() < 0.75
        expiry = (now + timedelta(days=rng.randint(-200, 3000))).date().isoformat() if has_pp else None
        tier = rng.choices(tuple(TIERS), (55, 25, 14, 6))[0]
        travellers.append(
            [
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
        )

    seats_taken: dict[str, set[str]] = {}
    counts: dict[tuple[str, str], int] = {}
    nights_used: dict[tuple[str, str, date], int] = {}
    itins: list[tuple[Any, ...]] = []
    fbooks: list[tuple[Any, ...]] = []
    hbooks: list[tuple[Any, ...]] = []
    ledger: list[tuple[Any, ...]] = []
    for _ in range(230):
        trav = rng.choice(travellers)
        intl_ok = trav[7] is not None and trav[7] > (now + timedelta(days=250)).date().isoformat()
        route = rng.choice(list(by_route))
        if not intl_ok and (where[route[0]][3] != "United States" or where[route[1]][3] != "United States"):
            continue
        out = rng.choice(by_route[route])
        if out[12] == "cancelled":
            continue
        itin_id = f"ITN-{len(itins) + 1:04d}"
        dep = datetime.strptime(out[5], TIME_FMT)
        booked = min(now - timedelta(hours=2), dep - timedelta(days=rng.randint(2, 60)))
        itins.append((itin_id, trav[0], f"{where[route[1]][2]} trip", booked.strftime(TIME_FMT)))
        legs = [out]
        lo, hi = fake.iso(dep + timedelta(days=2)), fake.iso(dep + timedelta(days=7))
        back = [f for f in by_route.get((route[1], route[0]), []) if lo <= f[5] <= hi]
        if back and rng.random() < 0.7:
            legs.append(rng.choice(back))
        cancelled = rng.random() < 0.1
        for f in legs:
            cabin = "business" if rng.random() < 0.15 else "economy"
            cabin_seats = _layout(f[7])[cabin]
            blocked = f[10] if cabin == "economy" else f[11]
            if counts.get((f[0], cabin), 0) + blocked >= len(cabin_seats):
                continue
            seat = None
            if rng.random() < 0.6:
                taken = seats_taken.setdefault(f[0], set())
                held = _blocked(f[0], cabin_seats, blocked)
                free = [s for s in cabin_seats if s not in held and s not in taken]
                seat = rng.choice(free)
            fare = f[8] if cabin == "economy" else f[9]
            bags = (2 if cabin == "business" else 0) + rng.choice((0, 0, 1, 1, 2))
            paid = bags - (2 if cabin == "business" else 0)
            fee = float(35 * min(paid, 1) + 45 * max(paid - 1, 0))
            earned = int(fare * TIERS[trav[8]])
            status = "cancelled" if cancelled and f[5] > fake.iso(now) else "confirmed"
            if status == "confirmed":
                counts[(f[0], cabin)] = counts.get((f[0], cabin), 0) + 1
                if seat:
                    seats_taken[f[0]].add(seat)
            else:
                seat = None
            bid = f"FBK-{len(fbooks) + 1:04d}"
            fbooks.append(
                (
                    bid,
                    itin_id,
                    trav[0],
                    f[0],
                    cabin,
                    seat,
                    bags,
                    fee,
                    fare,
                    0,
                    earned if status == "confirmed" else 0,
                    status,
                    fare + fee if status == "cancelled" else None,
                    booked.strftime(TIME_FMT),
                    fake.iso(now - timedelta(days=1)) if status == "cancelled" else None,
                )
            )
            if status == "confirmed":
                ledger.append((trav[0], earned, f"Earned on {bid} ({f[1]})", booked.strftime(TIME_FMT)))
        city = where[route[1]][2]
        if by_city.get(city) and rng.random() < 0.65:
            hid = rng.choice(by_city[city])
            kind = rng.choice([k for (h, k) in rates if h == hid])
            rate, guests, inventory = rates[(hid, kind)]
            ci = dep.date() if dep.hour < 20 else dep.date() + timedelta(days=1)
            co = (
                datetime.strptime(legs[1][5], TIME_FMT).date()
                if len(legs) > 1
                else ci + timedelta(days=rng.randint(1, 5))
            )
            if co <= ci:
                continue
            nights = [ci + timedelta(days=d) for d in range((co - ci).days)]
            if any(nights_used.get((hid, kind, n), 0) >= inventory for n in nights):
                continue
            status = "cancelled" if cancelled else "confirmed"
            if status == "confirmed":
                for n in nights:
                    nights_used[(hid, kind, n)] = nights_used.get((hid, kind, n), 0) + 1
            total = _stay_price(rate, ci, co, 1)
            hbooks.append(
                (
                    f"HBK-{len(hbooks) + 1:04d}",
                    itin_id,
                    trav[0],
                    hid,
                    kind,
                    ci.isoformat(),
                    co.isoformat(),
                    1,
                    rng.randint(1, guests),
                    total,
                    status,
                    total if status == "cancelled" else None,
                    booked.strftime(TIME_FMT),
                    fake.iso(now - timedelta(days=1)) if status == "cancelled" else None,
                )
            )
    earned_by: dict[str, int] = {}
    for t, p, _, _ in ledger:
        earned_by[t] = earned_by.get(t, 0) + p
    for trav in travellers:
        earned = earned_by.get(trav[0], 0)
        trav[9] = max(trav[9], earned)
        if trav[9] > earned:
            ledger.append((trav[0], trav[9] - earned, "Balance carried over from previous years", trav[10]))
    ledger.sort(key=lambda e: (e[3], e[0]))
    db.executemany("INSERT INTO travellers VALUES (?,?,?,?,?,?,?,?,?,?,?)", [tuple(t) for t in travellers])
    db.executemany("INSERT INTO itineraries VALUES (?,?,?,?)", itins)
    db.executemany("INSERT INTO flight_bookings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", fbooks)
    db.executemany("INSERT INTO hotel_bookings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", hbooks)
    db.executemany(
        "INSERT INTO loyalty_ledger VALUES (?,?,?,?,?)", [(f"LOY-{i:05d}", *e) for i, e in enumerate(ledger, 1)]
    )
