"""Smart home seed: homes, rooms, devices, sensors with reading histories, scenes, automations and groups.

Each home is drawn whole (rooms with their devices and sensors, then scenes, automations and groups); the order
of the draws from ``rng`` is part of the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows
from servers.iot_devices.schema import COLORS, GROUPS, HOME_NAMES, LABELS, MAKERS, ROOMS, SCENES, SWITCHABLE, UNITS


@dataclass
class Rows:
    """Every table's rows, drawn home by home."""

    rng: random.Random
    now: datetime
    stamp: str
    n_device: int = 0
    homes: list[Row] = field(default_factory=list)
    rooms: list[Row] = field(default_factory=list)
    devices: list[Row] = field(default_factory=list)
    sensors: list[Row] = field(default_factory=list)
    readings: list[Row] = field(default_factory=list)
    scenes: list[Row] = field(default_factory=list)
    actions: list[Row] = field(default_factory=list)
    automations: list[Row] = field(default_factory=list)
    groups: list[Row] = field(default_factory=list)
    members: list[Row] = field(default_factory=list)


@dataclass
class Home:
    """One home's devices as they are drawn; ``removed`` were installed once and are gone (kind by id)."""

    home_id: str
    devices: list[Row] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """36 homes with ~260 rooms, ~690 devices, ~270 sensors with 8-reading histories, scenes, automations, groups."""
    out = Rows(rng, now, fake.iso(now - timedelta(minutes=5)))
    for h in range(1, 37):
        _home(out, f"HOM-{h:04d}")
    insert_rows(db, "homes", out.homes)
    insert_rows(db, "rooms", out.rooms)
    insert_rows(db, "devices", out.devices)
    insert_rows(db, "sensors", out.sensors)
    insert_rows(db, "readings", out.readings)
    insert_rows(db, "scenes", out.scenes)
    insert_rows(db, "scene_actions", out.actions)
    insert_rows(db, "automations", out.automations)
    insert_rows(db, "device_groups", out.groups)
    insert_rows(db, "group_members", out.members)


def _home(out: Rows, home_id: str) -> None:
    """One home: its rooms with their devices and sensors, then its scenes, automations and groups."""
    rng, now = out.rng, out.now
    first, last = fake.person(rng)
    city = fake.city(rng)[0]
    name = f"{last} {rng.choice(HOME_NAMES)}"
    out.homes.append(
        (home_id, name, f"{first} {last}", fake.address(rng), city, fake.iso(fake.moment(rng, now, 1500, -60)))
    )
    home = Home(home_id)
    for rname, floor in [ROOMS[0], ROOMS[1], ROOMS[3]] + rng.sample(ROOMS[4:], rng.randint(2, 6)):
        room_id = f"RM-{len(out.rooms) + 1:04d}"
        out.rooms.append((room_id, home_id, rname, floor))
        _room_devices(out, home, room_id, rname)
        _room_sensors(out, home_id, room_id, rname)
    out.devices += home.devices
    scene_ids = _scenes(out, home)
    _automations(out, home_id, scene_ids)
    _groups(out, home)


def _device_kinds(rng: random.Random, rname: str) -> list[str]:
    """The kinds of device a room of this name has: lights everywhere, the rest by the room's use."""
    kinds = ["light", "light"] if rname in ("Living Room", "Kitchen") else ["light"]
    if rname == "Living Room":
        kinds += ["thermostat", "speaker", "blind"]
    if rname in ("Entryway", "Garage"):
        kinds += ["lock", "camera"]
    if rname in ("Master Bedroom", "Bedroom 2", "Office", "Nursery"):
        kinds += rng.sample(["blind", "plug", "speaker"], rng.randint(1, 2))
    if rname in ("Patio", "Basement", "Laundry Room", "Kitchen") and rng.random() < 0.6:
        kinds.append("plug" if rname != "Patio" else "camera")
    return kinds


def _room_devices(out: Rows, home: Home, room_id: str, rname: str) -> None:
    """A room's devices, names unique within the home; a few were removed but keep their id."""
    rng = out.rng
    for kind in _device_kinds(rng, rname):
        out.n_device += 1
        dev = _seed_device(rng, f"DEV-{out.n_device:04d}", home.home_id, room_id, rname, kind, out.now, out.stamp)
        if any(d[3] == dev[3] for d in home.devices):
            dev = (*dev[:3], f"{dev[3]} 2", *dev[4:])
        if rng.random() < 0.03 and kind in ("light", "plug", "speaker"):
            home.removed.append((dev[0], kind))  # installed once, since removed: a scene may still name it
            continue
        home.devices.append(dev)


def _room_sensors(out: Rows, home_id: str, room_id: str, rname: str) -> None:
    """A room's sensors by its use, each with its reading history; a few have a flat or low battery."""
    rng = out.rng
    for kind in (
        (("temperature", "humidity") if rname in ("Living Room", "Master Bedroom", "Basement") else ())
        + (("motion",) if rname in ("Living Room", "Hallway", "Garage") else ())
        + (("door_contact",) if rname in ("Entryway", "Garage", "Patio") else ())
    ):
        sensor_id = f"SEN-{len(out.sensors) + 1:04d}"
        last_value = _seed_readings(rng, sensor_id, kind, out.now, out.readings)
        battery = rng.choice((0, 4, 12)) if rng.random() < 0.06 else rng.randint(20, 100)
        label = f"{rname} {kind.replace('_', ' ').title()} Sensor"
        out.sensors.append(
            (sensor_id, home_id, room_id, label, kind, UNITS[kind], int(battery > 0), battery, last_value)
            + (out.readings[-1][3],)
        )


def _scenes(out: Rows, home: Home) -> list[str]:
    """Two to four scenes of the home with their actions; some still name a removed device. Returns their ids."""
    rng, now = out.rng, out.now
    scene_ids = []
    for name in rng.sample(SCENES, rng.randint(2, 4)):
        scene_id = f"SCN-{len(out.scenes) + 1:04d}"
        scene_ids.append(scene_id)
        created = fake.iso(fake.moment(rng, now, 400, 0))
        last_run = fake.iso(fake.moment(rng, now, 30, 0)) if rng.random() < 0.7 else None
        out.scenes.append((scene_id, home.home_id, name, created, last_run))
        picks = rng.sample(home.devices, min(len(home.devices), rng.randint(2, 6)))
        for dev in picks:
            out.actions.append((scene_id, dev[0], *_scene_state(rng, dev, name)))
        if home.removed and rng.random() < 0.35:
            gone_id, _ = rng.choice(home.removed)
            out.actions.append((scene_id, gone_id, "on", None, None, None, None, None, None))
    return scene_ids


def _automations(out: Rows, home_id: str, scene_ids: list[str]) -> None:
    """One to three automations of the home, each running a scene on a sensor event or at a time of day."""
    rng = out.rng
    names: set[str] = set()
    for _ in range(rng.randint(1, 3)):
        auto_id = f"AUT-{len(out.automations) + 1:04d}"
        scene_id = rng.choice(scene_ids)
        triggers = [s for s in out.sensors if s[1] == home_id and s[4] in ("motion", "door_contact", "temperature")]
        if triggers and rng.random() < 0.4:
            out.automations.append(_sensor_automation(out, auto_id, home_id, scene_id, triggers, names))
        else:
            out.automations.append(_time_automation(out, auto_id, home_id, scene_id, names))


def _sensor_automation(
    out: Rows, auto_id: str, home_id: str, scene_id: str, triggers: list[Row], names: set[str]
) -> Row:
    """An automation that runs ``scene_id`` when one of ``triggers`` fires (a threshold for temperature)."""
    rng, now = out.rng, out.now
    sen = rng.choice(triggers)
    # The threshold default is drawn for every sensor kind, as .get evaluates it before the lookup.
    cond, thr = {"motion": ("detected", None), "door_contact": ("opened", None)}.get(
        sen[4], (rng.choice(("above", "below")), float(rng.choice((18, 19, 24, 26))))
    )
    name = _unique(f"When {sen[3].lower()} {cond}", names)
    enabled = int(rng.random() < 0.85)
    created, last_run = fake.iso(fake.moment(rng, now, 300, 0)), fake.iso(fake.moment(rng, now, 7, 0))
    return (auto_id, home_id, name, "sensor", None, None, sen[0], cond, thr, scene_id, enabled, created, last_run)


def _time_automation(out: Rows, auto_id: str, home_id: str, scene_id: str, names: set[str]) -> Row:
    """An automation that runs ``scene_id`` at a time of day, daily, on weekdays or at weekends."""
    rng, now = out.rng, out.now
    at = f"{rng.choice((6, 7, 7, 8, 18, 19, 21, 22, 23)):02d}:{rng.choice((0, 15, 30, 45)):02d}"
    days = rng.choice(("daily", "weekdays", "weekends"))
    name = _unique(f"{days.title()} at {at}", names)
    enabled = int(rng.random() < 0.85)
    created, last_run = fake.iso(fake.moment(rng, now, 300, 0)), fake.iso(fake.moment(rng, now, 3, 0))
    return (auto_id, home_id, name, "time", at, days, None, None, None, scene_id, enabled, created, last_run)


def _groups(out: Rows, home: Home) -> None:
    """One to three device groups of the home; a group with fewer than two members is not kept."""
    room_floor = {r[0]: r[3] for r in out.rooms if r[1] == home.home_id}
    for name in out.rng.sample(GROUPS, out.rng.randint(1, 3)):
        want = {
            "All Lights": lambda d: d[4] == "light",
            "Plugs": lambda d: d[4] == "plug",
            "Downstairs Lights": lambda d: d[4] == "light" and room_floor[d[2]] <= 0,
            "Upstairs Lights": lambda d: d[4] == "light" and room_floor[d[2]] >= 1,
        }[name]
        ids = [d[0] for d in home.devices if want(d)]
        if len(ids) >= 2:
            group_id = f"GRP-{len(out.groups) + 1:04d}"
            out.groups.append((group_id, home.home_id, name))
            out.members += [(group_id, d) for d in ids]


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
    state = _device_state(rng, kind)
    updated = fake.iso(fake.moment(rng, now, 20, 0)) if online else fake.iso(fake.moment(rng, now, 60, 2))
    name, maker = f"{rname} {rng.choice(LABELS[kind])}", rng.choice(MAKERS[kind])
    firmware = f"{rng.randint(1, 5)}.{rng.randint(0, 12)}.{rng.randint(0, 30)}"
    return (
        device_id,
        home_id,
        room_id,
        name,
        kind,
        maker,
        firmware,
        online,
        battery,
        *state,
        updated if online else stamp,
    )


def _device_state(rng: random.Random, kind: str) -> tuple[Any, ...]:
    """The state columns of a device of ``kind``, from power to volume; those its kind lacks are None."""
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
    return (power, brightness, supports_color, color, mode, current, target, lo, hi, lock, position, volume)


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
