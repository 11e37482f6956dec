"""Smart home seed: homes, rooms, devices, sensors with reading histories, scenes, automations and groups."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from hub import fake
from servers.iot_devices.schema import (
    COLORS,
    GROUPS,
    HOME_NAMES,
    LABELS,
    MAKERS,
    ROOMS,
    SCENES,
    SWITCHABLE,
    UNITS,
    Row,
)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """36 homes with ~260 rooms, ~690 devices, ~270 sensors with 8-reading histories, scenes, automations, groups."""
    homes: list[Row] = []
    rooms: list[Row] = []
    devices: list[Row] = []
    sensors: list[Row] = []
    readings: list[Row] = []
    scenes: list[Row] = []
    actions: list[Row] = []
    automations: list[Row] = []
    groups: list[Row] = []
    members: list[Row] = []
    n_device = 0
    stamp = fake.iso(now - timedelta(minutes=5))
    for h in range(1, 37):
        first, last = fake.person(rng)
        city, state, _, _ = fake.city(rng)
        home_id = f"HOM-{h:04d}"
        homes.append(
            (
                home_id,
                f"{last} {rng.choice(HOME_NAMES)}",
                f"{first} {last}",
                fake.address(rng),
                city,
                fake.iso(fake.moment(rng, now, 1500, -60)),
            )
        )
        chosen = [ROOMS[0], ROOMS[1], ROOMS[3]] + rng.sample(ROOMS[4:], rng.randint(2, 6))
        home_devices: list[tuple[Any, ...]] = []
        removed: list[tuple[str, str]] = []
        for rname, floor in chosen:
            room_id = f"RM-{len(rooms) + 1:04d}"
            rooms.append((room_id, home_id, rname, floor))
            kinds = ["light", "light"] if rname in ("Living Room", "Kitchen") else ["light"]
            if rname == "Living Room":
                kinds += ["thermostat", "speaker", "blind"]
            if rname in ("Entryway", "Garage"):
                kinds += ["lock", "camera"]
            if rname in ("Master Bedroom", "Bedroom 2", "Office", "Nursery"):
                kinds += rng.sample(["blind", "plug", "speaker"], rng.randint(1, 2))
            if rname in ("Patio", "Basement", "Laundry Room", "Kitchen") and rng.random() < 0.6:
                kinds.append("plug" if rname != "Patio" else "camera")
            for kind in kinds:
                n_device += 1
                dev = _seed_device(rng, f"DEV-{n_device:04d}", home_id, room_id, rname, kind, now, stamp)
                if any(d[3] == dev[3] for d in home_devices):
                    dev = (*dev[:3], f"{dev[3]} 2", *dev[4:])
                if rng.random() < 0.03 and kind in ("light", "plug", "speaker"):
                    removed.append((dev[0], kind))  # installed once, since removed: a scene may still name it
                    continue
                home_devices.append(dev)
            for kind in (
                (("temperature", "humidity") if rname in ("Living Room", "Master Bedroom", "Basement") else ())
                + (("motion",) if rname in ("Living Room", "Hallway", "Garage") else ())
                + (("door_contact",) if rname in ("Entryway", "Garage", "Patio") else ())
            ):
                sensor_id = f"SEN-{len(sensors) + 1:04d}"
                last_value = _seed_readings(rng, sensor_id, kind, now, readings)
                battery = rng.choice((0, 4, 12)) if rng.random() < 0.06 else rng.randint(20, 100)
                sensors.append(
                    (
                        sensor_id,
                        home_id,
                        room_id,
                        f"{rname} {kind.replace('_', ' ').title()} Sensor",
                        kind,
                        UNITS[kind],
                        int(battery > 0),
                        battery,
                        last_value,
                        readings[-1][3],
                    )
                )
        devices += home_devices
        scene_ids = []
        for name in rng.sample(SCENES, rng.randint(2, 4)):
            scene_id = f"SCN-{len(scenes) + 1:04d}"
            scene_ids.append(scene_id)
            scenes.append(
                (
                    scene_id,
                    home_id,
                    name,
                    fake.iso(fake.moment(rng, now, 400, 0)),
                    fake.iso(fake.moment(rng, now, 30, 0)) if rng.random() < 0.7 else None,
                )
            )
            picks = rng.sample(home_devices, min(len(home_devices), rng.randint(2, 6)))
            for dev in picks:
                actions.append((scene_id, dev[0], *_scene_state(rng, dev, name)))
            if removed and rng.random() < 0.35:
                gone_id, _ = rng.choice(removed)
                actions.append((scene_id, gone_id, "on", None, None, None, None, None, None))
        auto_names: set[str] = set()
        for _ in range(rng.randint(1, 3)):
            auto_id = f"AUT-{len(automations) + 1:04d}"
            scene_id = rng.choice(scene_ids)
            home_sensors = [s for s in sensors if s[1] == home_id and s[4] in ("motion", "door_contact", "temperature")]
            if home_sensors and rng.random() < 0.4:
                sen = rng.choice(home_sensors)
                cond, thr = {"motion": ("detected", None), "door_contact": ("opened", None)}.get(
                    sen[4], (rng.choice(("above", "below")), float(rng.choice((18, 19, 24, 26))))
                )
                name = _unique(f"When {sen[3].lower()} {cond}", auto_names)
                automations.append(
                    (
                        auto_id,
                        home_id,
                        name,
                        "sensor",
                        None,
                        None,
                        sen[0],
                        cond,
                        thr,
                        scene_id,
                        int(rng.random() < 0.85),
                        fake.iso(fake.moment(rng, now, 300, 0)),
                        fake.iso(fake.moment(rng, now, 7, 0)),
                    )
                )
            else:
                at = f"{rng.choice((6, 7, 7, 8, 18, 19, 21, 22, 23)):02d}:{rng.choice((0, 15, 30, 45)):02d}"
                days = rng.choice(("daily", "weekdays", "weekends"))
                automations.append(
                    (
                        auto_id,
                        home_id,
                        _unique(f"{days.title()} at {at}", auto_names),
                        "time",
                        at,
                        days,
                        None,
                        None,
                        None,
                        scene_id,
                        int(rng.random() < 0.85),
                        fake.iso(fake.moment(rng, now, 300, 0)),
                        fake.iso(fake.moment(rng, now, 3, 0)),
                    )
                )
        room_floor = {r[0]: r[3] for r in rooms if r[1] == home_id}
        for name in rng.sample(GROUPS, rng.randint(1, 3)):
            want = {
                "All Lights": lambda d: d[4] == "light",
                "Plugs": lambda d: d[4] == "plug",
                "Downstairs Lights": lambda d: d[4] == "light" and room_floor[d[2]] <= 0,
                "Upstairs Lights": lambda d: d[4] == "light" and room_floor[d[2]] >= 1,
            }[name]
            ids = [d[0] for d in home_devices if want(d)]
            if len(ids) >= 2:
                group_id = f"GRP-{len(groups) + 1:04d}"
                groups.append((group_id, home_id, name))
                members += [(group_id, d) for d in ids]
    db.executemany("INSERT INTO homes VALUES (?,?,?,?,?,?)", homes)
    db.executemany("INSERT INTO rooms VALUES (?,?,?,?)", rooms)
    db.executemany(f"INSERT INTO devices VALUES ({','.join('?' * 22)})", devices)
    db.executemany("INSERT INTO sensors VALUES (?,?,?,?,?,?,?,?,?,?)", sensors)
    db.executemany("INSERT INTO readings VALUES (?,?,?,?)", readings)
    db.executemany("INSERT INTO scenes VALUES (?,?,?,?,?)", scenes)
    db.executemany("INSERT INTO scene_actions VALUES (?,?,?,?,?,?,?,?,?)", actions)
    db.executemany("INSERT INTO automations VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", automations)
    db.executemany("INSERT INTO device_groups VALUES (?,?,?)", groups)
    db.executemany("INSERT INTO group_members VALUES (?,?)", members)


def _unique(name: str, used: set[str]) -> str:
    n, out = 1, name
    while out in used:
        n += 1
        out = f"{name} ({n})"
    used.add(out)
    return out


def _seed_device(
    rng: random.Random, device_id: str, home_id: str, room_id: str, rname: str, kind: str, now: datetime, stamp: str
) -> tuple[Any, ...]:
    battery = None
    if kind in ("lock", "blind") or (kind == "camera" and rng.random() < 0.5):
        battery = (
            0 if rng.random() < 0.05 else rng.choice((rng.randint(5, 25), rng.randint(30, 100), rng.randint(60, 100)))
        )
    online = 0 if battery == 0 or rng.random() < 0.05 else 1
    power = brightness = color = mode = current = target = lo = hi = lock = position = volume = None
    supports_color = 0
    if kind in SWITCHABLE:
        power = rng.choice(("on", "off", "off"))
    if kind == "light":
        brightness = rng.choice((20, 40, 60, 80, 100))
        supports_color = int(rng.random() < 0.5)
        color = rng.choice(COLORS) if supports_color else "warm white"
    elif kind == "thermostat":
        lo, hi = rng.choice(((10.0, 30.0), (10.0, 30.0), (16.0, 26.0), (12.0, 28.0)))
        mode = rng.choice(("heat", "cool", "auto", "eco", "off"))
        current = round(rng.uniform(18.0, 25.0), 1)
        target = None if mode == "off" else float(rng.randint(int(lo) + 4, int(hi) - 3))
    elif kind == "lock":
        lock = "jammed" if rng.random() < 0.1 else rng.choice(("locked", "locked", "unlocked"))
    elif kind == "blind":
        position = rng.choice((0, 0, 50, 100, 100))
    elif kind == "speaker":
        volume = rng.choice((10, 20, 30, 45, 60))
    updated = fake.iso(fake.moment(rng, now, 20, 0)) if online else fake.iso(fake.moment(rng, now, 60, 2))
    return (
        device_id,
        home_id,
        room_id,
        f"{rname} {rng.choice(LABELS[kind])}",
        kind,
        rng.choice(MAKERS[kind]),
        f"{rng.randint(1, 5)}.{rng.randint(0, 12)}.{rng.randint(0, 30)}",
        online,
        battery,
        power,
        brightness,
        supports_color,
        color,
        mode,
        current,
        target,
        lo,
        hi,
        lock,
        position,
        volume,
        updated if online else stamp,
    )


def _seed_readings(rng: random.Random, sensor_id: str, kind: str, now: datetime, out: list[tuple[Any, ...]]) -> float:
    value = {"temperature": rng.uniform(18, 24), "humidity": rng.uniform(30, 60)}.get(kind, 0.0)
    for k in range(8, 0, -1):
        t = now - timedelta(hours=3 * k - 2, minutes=int(rng.random() * 50))
        if kind == "temperature":
            value = min(30.0, max(12.0, value + rng.uniform(-0.8, 0.8)))
        elif kind == "humidity":
            value = min(85.0, max(20.0, value + rng.uniform(-3, 3)))
        else:
            value = float(rng.random() < (0.3 if kind == "motion" else 0.15))
        out.append((f"RDG-{len(out) + 1:06d}", sensor_id, round(value, 1), fake.iso(t)))
    return round(value, 1)


def _scene_state(rng: random.Random, dev: tuple[Any, ...], scene: str) -> tuple[Any, ...]:
    kind, supports_color = dev[4], dev[11]
    off = scene in ("Away", "Bedtime")
    if kind == "light":
        if off:
            return ("off", None, None, None, None, None, None)
        color = rng.choice(COLORS) if supports_color else None
        return ("on", rng.choice((10, 30, 50, 80, 100)), color, None, None, None, None)
    if kind in ("plug", "speaker", "camera"):
        power = "on" if (kind == "camera") == off else "off"
        return (power, None, None, None, None, None, None)
    if kind == "thermostat":
        mode = "eco" if off else rng.choice(("heat", "cool", "auto"))
        return (None, None, None, mode, float(rng.randint(int(dev[16]) + 4, int(dev[17]) - 4)), None, None)
    if kind == "lock":
        return (None, None, None, None, None, "locked" if off or rng.random() < 0.7 else "unlocked", None)
    return (None, None, None, None, None, None, 0 if off or scene == "Movie Night" else 100)
