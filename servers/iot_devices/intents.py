"""What people want of their smart home: lights, heat, locks, blinds, batteries, scenes, routines, groups.

The user owns a home and says who they are; the agent finds the home with ``list_homes`` (the owner's
name matches) and devices with ``list_devices`` (by room or name, or by type). People name devices the
way the app labels them ("the kitchen ceiling light"), scenes and routines by their names. A support
analyst asks about device types across all homes.
"""

from __future__ import annotations

import json
from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from hub.kit.phrasings import phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.iot_devices import tools_devices, tools_scenes  # noqa: F401  (the writes: registered before intents cover them)
from servers.iot_devices.tools import HomeId, iot

WORDS = phrasings(__package__)

HOME = "SELECT * FROM homes h WHERE (SELECT COUNT(*) FROM homes x WHERE x.owner_name = h.owner_name) = 1"
DEVICE = "SELECT d.*, r.name AS room FROM devices d JOIN rooms r USING (room_id)"
COLOR_WORDS = {
    "warm white": "a warm white",
    "cool white": "a cool white",
    "daylight": "daylight",
    "red": "red",
    "orange": "orange",
    "yellow": "yellow",
    "green": "green",
    "blue": "blue",
    "purple": "purple",
    "pink": "pink",
}


SPEAKER = Speaker(
    HomeId,
    select=HOME,
    memory="home",
    name="owner_name",
    alias="h.",
    says=(Says("I'm {owner_name}. ", "owner_name"),),
    search=Search(by=("owner_name",), missing="the home is not on the first page"),
)
me = SPEAKER.me
owner_asks = SPEAKER.asks


def upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def at_home(s: Scene, sql: str, column: str) -> dict[str, Any]:
    """A row of ``sql`` (which ends in a condition), in the home of the dialogue when it has one."""
    known = s.memory.get("home")
    return s.pick(sql + f" AND {column} = ?", known["home_id"]) if known else s.pick(sql)


def device_ref(s: Scene, d: dict[str, Any]) -> str:
    return s.refer(
        d["device_id"],
        Ref("the {n}", "SELECT device_id FROM devices WHERE home_id = ? AND name = ?", d["home_id"], d["name"]),
        n=d["name"].lower(),
    )


def known(s: Scene, value: str) -> bool:
    """Whether a result earlier in the dialogue carried ``value`` (the agent holds that id)."""
    return any(json.dumps(value) in json.dumps(c.result) for c in s.calls)


def room_of(s: Scene, hid: str, room_id: str) -> str:
    """A room's id as the agent reads it: off an earlier result, else off the home's overview (``get_home``)."""
    if not known(s, room_id):
        s.call("get_home", home_id=hid)
    return room_id


def find_device(s: Scene, hid: str, d: dict[str, Any]) -> dict[str, Any]:
    """The discovery read for a device the user named: by its name, by its room and type, or by its type."""
    how = s.rng.choice(("name", "type", "room" if known(s, d["room_id"]) else "type"))
    if how == "name":
        found = s.call("list_devices", home_id=hid, query=d["name"])["devices"]
    elif how == "type":
        found = s.call("list_devices", home_id=hid, type=d["type"])["devices"]
    else:
        found = s.call("list_devices", home_id=hid, room_id=d["room_id"])["devices"]
    hit = [x for x in found if x["device_id"] == d["device_id"]]
    if not hit:
        raise Skip("the device is not on the first page")
    return hit[0]


def my_device(s: Scene, where: str, *params: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A device of the home talking (or of a fresh home), among those that fit ``where``."""
    known = s.memory.get("home")
    own = (
        "d.home_id = ?"
        if known
        else "d.home_id IN (SELECT home_id FROM homes h WHERE (SELECT COUNT(*) FROM homes "
        "x WHERE x.owner_name = h.owner_name) = 1)"
    )
    args = (known["home_id"],) if known else ()
    d = s.pick(DEVICE + f" WHERE {own} AND ({where})", *args, *params)
    return me(s, "h.home_id = ?", d["home_id"]), d


@iot.intent(covers=("list_homes", "list_devices", "set_light", "set_device_power"), weight=2.0, follows=True)
def light_it_up(s: Scene) -> None:
    """A person dims, brightens, recolours or switches a light (or a plug or speaker)."""
    h, d = my_device(s, "d.online = 1 AND d.type IN ('light', 'plug', 'speaker')")
    what = device_ref(s, d)
    action = "power" if d["type"] != "light" or s.rng.random() < 0.3 else s.rng.choice(("dim", "color"))
    if action == "color" and not d["supports_color"]:
        action = "dim"
    if action == "power":
        on = d["power"] != "on"
        value: Any = "on" if on else "off"
        tool, args = "set_device_power", {"on": on}
    elif action == "dim":
        value = s.rng.choice([x for x in (10, 25, 30, 40, 50, 70, 80, 100) if x != d["brightness"]])
        tool, args = "set_light", {"brightness": value}
    else:
        value = s.rng.choice([c for c in COLOR_WORDS if c != d["color"]])
        tool, args = "set_light", {"color": value}
    hid = owner_asks(s, h, WORDS.family("light_asks")[action], what=what, What=upper(what), v=value)
    dev = find_device(s, hid, d)
    s.call(tool, device_id=dev["device_id"], **args)
    s.memory["device"] = {"device_id": dev["device_id"]}
    if s.by_chance(0.3):
        s.say(WORDS.light_it_up, r=d["room"].lower())
        s.call("list_devices", home_id=hid, room_id=dev["room_id"])


@iot.intent(covers=("list_homes", "list_devices", "get_device", "set_thermostat"), weight=1.5, follows=True)
def comfortable(s: Scene) -> None:
    """A person warms up or cools down the house, to a temperature they name."""
    h, d = my_device(s, "d.type = 'thermostat' AND d.online = 1")
    mode = s.rng.choice(("heat", "cool", "auto"))
    targets = [x for x in range(int(d["min_temp"]), int(d["max_temp"]) + 1) if 17 <= x <= 26]
    if not targets:
        raise Skip("no comfortable target within the thermostat's range")
    target = float(s.rng.choice(targets))
    if d["mode"] == mode and d["target_temp"] == target:
        raise Skip("nothing to change")
    feel = {"heat": "It's freezing in here", "cool": "It's way too warm", "auto": "Keep it steady"}[mode]
    what = {"heat": "heat", "cool": "air conditioning", "auto": "automatic mode"}[mode]
    hid = owner_asks(s, h, WORDS.comfortable, feel=feel, what=what, t=f"{target:g}")
    found = s.call("list_devices", home_id=hid, type="thermostat")["devices"]
    hit = [x for x in found if x["device_id"] == d["device_id"]]
    if len(found) != 1 or not hit:
        raise Skip("not the home's one thermostat")
    s.call("set_thermostat", device_id=hit[0]["device_id"], mode=mode, target_temperature=target)
    s.memory["device"] = {"device_id": hit[0]["device_id"]}
    if s.by_chance(0.45):
        s.say(WORDS.comfortable_then_reading)
        s.call("get_device", device_id=hit[0]["device_id"])


@iot.intent(
    covers=("list_homes", "list_devices", "set_lock_state", "reboot_device", "replace_battery", "get_device"),
    weight=1.5,
    follows=True,
)
def lock_the_door(s: Scene) -> None:
    """A person locks (or unlocks for a visitor) a door; a jammed or offline lock is brought back first."""
    h, d = my_device(s, "d.type = 'lock' AND NOT (d.online = 0 AND d.lock_state = 'jammed')")
    what = device_ref(s, d)
    lock = d["lock_state"] != "locked"
    if not d["online"] or d["lock_state"] == "jammed":
        lock = True
    hid = owner_asks(
        s,
        h,
        WORDS.lock_the_door,
        what=what,
        What=upper(what),
        verb="lock" if lock else "unlock",
        Verb="Lock" if lock else "Unlock",
        Why="I'm away and not sure it's shut." if lock else "My sister is coming by to water the plants.",
    )
    found = s.call("list_devices", home_id=hid, type="lock")["devices"]
    hit = [x for x in found if x["device_id"] == d["device_id"]]
    if not hit:
        raise Skip("not listed")
    did = hit[0]["device_id"]
    s.memory["device"] = {"device_id": did}
    if hit[0]["battery"] == 0:
        back = s.call("replace_battery", device_id=did)
        if back["lock_state"] != ("locked" if lock else "unlocked"):
            s.call("set_lock_state", device_id=did, locked=lock)
    elif not hit[0]["online"] or hit[0]["lock_state"] == "jammed":
        back = s.call("reboot_device", device_id=did)
        if back["lock_state"] != "locked":
            s.call("set_lock_state", device_id=did, locked=lock)
    else:
        s.call("set_lock_state", device_id=did, locked=lock)
    if s.by_chance(0.4):
        s.say(WORDS.lock_the_door_then_battery, st="locked" if lock else "open")
        s.call("get_device", device_id=did)


@iot.intent(covers=("list_homes", "list_devices", "set_blind_position"), follows=True)
def blinds(s: Scene) -> None:
    """A person opens, closes or half-opens blinds."""
    h, d = my_device(s, "d.type = 'blind' AND d.online = 1")
    pos = s.rng.choice([p for p in (0, 25, 50, 75, 100) if p != d["position"]])
    how = {0: "all the way down", 25: "a quarter open", 50: "halfway", 75: "mostly open", 100: "fully open"}[pos]
    what = device_ref(s, d)
    at = s.given(pos, how, "position", "set_blind_position", "position")
    hid = owner_asks(s, h, WORDS.blinds, what=what, What=upper(what), how=at)
    dev = find_device(s, hid, d)
    s.call("set_blind_position", device_id=dev["device_id"], position=pos)
    s.memory["device"] = {"device_id": dev["device_id"]}


@iot.intent(covers=("list_homes", "list_devices", "replace_battery", "get_device"))
def low_batteries(s: Scene) -> None:
    """A person checks which devices run low on battery and records a fresh one in one of them."""
    h = me(s, "h.home_id IN (SELECT home_id FROM devices WHERE battery IS NOT NULL AND battery <= 30)")
    cap = s.rng.choice((20, 25, 30))
    low = s.rows(
        DEVICE + " WHERE d.home_id = ? AND d.battery IS NOT NULL AND d.battery <= ? ORDER BY d.device_id",
        h["home_id"],
        cap,
    )
    if not low or len(low) > 20:
        raise Skip("no low battery")
    hid = owner_asks(s, h, WORDS.low_batteries, cap=cap)
    found = s.call("list_devices", home_id=hid, max_battery=cap if not s.minimal else 20)["devices"]
    if not found:
        raise Skip("nothing that low")
    d = s.rng.choice(found)
    s.say(WORDS.low_batteries_then_replaced, n=d["name"].lower())
    s.call("replace_battery", device_id=d["device_id"])
    s.memory["device"] = {"device_id": d["device_id"]}
    if s.rng.random() < 0.4 and s.room(1, 0):
        s.call("get_device", device_id=d["device_id"])


@iot.intent(covers=("list_homes", "list_devices", "reboot_device", "set_device_power"))
def whats_offline(s: Scene) -> None:
    """A person asks what is offline and restarts one device (then switches it back on)."""
    h = me(s, "h.home_id IN (SELECT home_id FROM devices WHERE online = 0 AND (battery IS NULL OR battery > 0))")
    hid = owner_asks(s, h, WORDS.whats_offline)
    found = s.call("list_devices", home_id=hid, online=False)["devices"]
    fit = [x for x in found if x["battery"] is None or x["battery"] > 0]
    if not fit:
        raise Skip("nothing that a restart fixes")
    d = s.rng.choice(fit)
    s.say(WORDS.whats_offline_then_restart, n=d["name"].lower())
    back = s.call("reboot_device", device_id=d["device_id"])
    s.memory["device"] = {"device_id": d["device_id"]}
    switchable = d["type"] in ("light", "plug", "speaker", "camera")
    if back.get("power") == "off" and switchable and s.by_chance(0.7):
        s.say(WORDS.whats_offline_power_on)
        s.call("set_device_power", device_id=d["device_id"], on=True)
