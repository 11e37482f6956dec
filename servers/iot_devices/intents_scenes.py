"""Smart-home intents about scenes and routines: running, fixing and saving scenes, routines that run them."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.iot_devices.intents import WORDS, at_home, me, owner_asks, room_of
from servers.iot_devices.tools import iot


def scene_ok(s: Scene, home_id: str) -> str:
    """SQL condition: a scene of the home that activates (no removed, offline or jammed device)."""
    return (
        "s.home_id = ? AND NOT EXISTS (SELECT 1 FROM scene_actions a LEFT JOIN devices d USING (device_id) "
        "WHERE a.scene_id = s.scene_id AND (d.device_id IS NULL OR d.online = 0 OR d.lock_state = 'jammed')) "
        "AND EXISTS (SELECT 1 FROM scene_actions a WHERE a.scene_id = s.scene_id)"
    )


@iot.intent(covers=("list_homes", "list_scenes", "activate_scene", "get_scene"), weight=1.5, follows=True)
def set_the_mood(s: Scene) -> None:
    """A person runs one of their scenes by name."""
    h = me(s, "h.home_id IN (SELECT home_id FROM scenes)")
    sc = s.pick("SELECT s.* FROM scenes s WHERE " + scene_ok(s, h["home_id"]), h["home_id"])
    hid = owner_asks(s, h, WORDS.set_the_mood, n=sc["name"])
    found = [x for x in s.call("list_scenes", home_id=hid)["scenes"] if x["name"] == sc["name"]]
    if len(found) != 1:
        raise Skip("scene name not unique")
    s.call("activate_scene", scene_id=found[0]["scene_id"])
    s.memory["scene"] = {"scene_id": found[0]["scene_id"]}
    if s.by_chance(0.35):
        s.say(WORDS.set_the_mood_then_changes)
        s.call("get_scene", scene_id=found[0]["scene_id"])


@iot.intent(covers=("list_homes", "list_scenes", "get_scene", "remove_scene_device"))
def broken_scene(s: Scene) -> None:
    """A scene fails because a device it sets was removed: the person asks why and has it cleaned up."""
    sc = at_home(
        s,
        "SELECT s.* FROM scenes s WHERE (SELECT COUNT(*) FROM scene_actions a LEFT JOIN devices d USING "
        "(device_id) WHERE a.scene_id = s.scene_id AND d.device_id IS NULL) = 1 AND (SELECT COUNT(*) FROM "
        "scene_actions a WHERE a.scene_id = s.scene_id) >= 2",
        "s.home_id",
    )
    h = me(s, "h.home_id = ?", sc["home_id"])
    hid = owner_asks(s, h, WORDS.broken_scene, n=sc["name"])
    found = [x for x in s.call("list_scenes", home_id=hid)["scenes"] if x["name"] == sc["name"]]
    if len(found) != 1:
        raise Skip("scene name not unique")
    full = s.call("get_scene", scene_id=found[0]["scene_id"])
    gone = [a for a in full["actions"] if a["missing"]]
    s.say(WORDS.broken_scene_then_removed)
    s.call("remove_scene_device", scene_id=found[0]["scene_id"], device_id=gone[0]["device_id"])
    s.memory["scene"] = {"scene_id": found[0]["scene_id"]}


@iot.intent(covers=("list_homes", "get_home", "list_devices", "create_scene", "activate_scene"), follows=True)
def save_the_look(s: Scene) -> None:
    """A person saves how a room's lights are right now as a new scene."""
    room = at_home(
        s,
        "SELECT r.*, h.owner_name FROM rooms r JOIN homes h USING (home_id) WHERE (SELECT COUNT(*) FROM "
        "devices d WHERE d.room_id = r.room_id AND d.type = 'light') >= 1 AND (SELECT COUNT(*) FROM homes x "
        "WHERE x.owner_name = h.owner_name) = 1",
        "r.home_id",
    )
    h = me(s, "h.home_id = ?", room["home_id"])
    title = s.rng.choice(WORDS.scene_names)
    if s.rows("SELECT 1 FROM scenes WHERE home_id = ? AND name = ?", h["home_id"], title):
        raise Skip("the scene exists")
    name = s.given(title, f"'{title}'", "scene name", "create_scene", "name")
    hid = owner_asks(s, h, WORDS.save_the_look, r=room["name"].lower(), name=name)
    found = s.call("list_devices", home_id=hid, room_id=room_of(s, hid, room["room_id"]), type="light")["devices"]
    made = s.call("create_scene", home_id=hid, name=title, device_ids=[x["device_id"] for x in found])
    s.memory["scene"] = {"scene_id": made["scene_id"]}
    if s.rng.random() < 0.3 and all(x["online"] for x in found):
        s.say(WORDS.save_the_look_then_try)
        s.call("activate_scene", scene_id=made["scene_id"])


@iot.intent(covers=("list_homes", "list_scenes", "list_sensors", "create_automation", "list_automations"), follows=True)
def make_it_automatic(s: Scene) -> None:
    """A person has a scene run by itself: at a time of day, or when a sensor fires."""
    h = me(s, "h.home_id IN (SELECT home_id FROM scenes)")
    sc = s.pick(
        "SELECT s.* FROM scenes s WHERE s.home_id = ? AND (SELECT COUNT(*) FROM scenes x WHERE x.home_id = "
        "s.home_id AND x.name = s.name) = 1",
        h["home_id"],
    )
    sensor = None
    if s.rng.random() < 0.4:
        sensor = s.pick(
            "SELECT n.*, r.name AS room FROM sensors n JOIN rooms r USING (room_id) WHERE n.home_id = ? "
            "AND n.kind IN ('temperature', 'motion') AND (SELECT COUNT(*) FROM sensors m WHERE m.home_id = "
            "n.home_id AND m.kind = n.kind AND m.room_id = n.room_id) = 1",
            h["home_id"],
        )
    title = s.rng.choice(
        (
            "Morning routine",
            "Auto " + sc["name"],
            sc["name"] + " trigger",
            "Evening routine",
            "Hands-free " + sc["name"],
        )
    )
    if s.rows("SELECT 1 FROM automations WHERE home_id = ? AND name = ?", h["home_id"], title):
        raise Skip("the automation exists")
    if sensor is None:
        name = s.given(title, f"'{title}'", "routine name", "create_automation", "name")
        hour, minute = s.rng.choice((6, 7, 8, 18, 19, 21, 22)), s.rng.choice((0, 15, 30, 45))
        days = s.rng.choice(("daily", "weekdays", "weekends"))
        when = {"daily": "every day", "weekdays": "on weekdays", "weekends": "on weekends"}[days]
        t = f"{hour % 12 or 12}{f':{minute:02d}' if minute else ''} {'am' if hour < 12 else 'pm'}"
        hid = owner_asks(s, h, WORDS.make_it_automatic, n=sc["name"], when=when, t=t, name=name)
        found = [x for x in s.call("list_scenes", home_id=hid)["scenes"] if x["name"] == sc["name"]]
        args: dict[str, Any] = {"at_time": f"{hour:02d}:{minute:02d}"}
        if days != "daily":
            args["days"] = days
        s.call("create_automation", home_id=hid, name=title, scene_id=found[0]["scene_id"], trigger="time", **args)
        if s.by_chance(0.8):
            s.say(WORDS.make_it_automatic_list_routines)
            s.call("list_automations", home_id=hid, **({"enabled": True} if s.rng.random() < 0.5 else {}))
        return
    kind = sensor["kind"]
    cond = "detected" if kind == "motion" else "above"
    limit = float(s.rng.choice((24, 25, 26, 27, 28)))
    event = (
        f"there's movement in the {sensor['room'].lower()}"
        if kind == "motion"
        else f"the {sensor['room'].lower()} gets above {limit:g} degrees"
    )
    what = "motion sensor" if kind == "motion" else "temperature sensor"
    hid = owner_asks(s, h, WORDS.make_it_automatic_sensor_check, what=what, r=sensor["room"].lower())
    sensors = [
        x for x in s.call("list_sensors", home_id=hid, kind=kind)["sensors"] if x["sensor_id"] == sensor["sensor_id"]
    ]
    if not sensors:
        raise Skip("the sensor is past the first page")
    s.say(WORDS.make_it_automatic_on_event, event=event, n=sc["name"], name=title)
    found = [x for x in s.call("list_scenes", home_id=hid)["scenes"] if x["name"] == sc["name"]]
    extra: dict[str, Any] = {"threshold": limit} if cond == "above" else {}
    s.call(
        "create_automation",
        home_id=hid,
        name=title,
        scene_id=found[0]["scene_id"],
        trigger="sensor",
        sensor_id=sensors[0]["sensor_id"],
        condition=cond,
        **extra,
    )


@iot.intent(covers=("list_homes", "list_automations", "set_automation_enabled"), follows=True)
def pause_routine(s: Scene) -> None:
    """A person pauses a routine (going on holiday) or turns a paused one back on."""
    a = at_home(
        s,
        "SELECT a.* FROM automations a JOIN homes h USING (home_id) WHERE (SELECT COUNT(*) FROM automations x "
        "WHERE x.home_id = a.home_id AND x.name = a.name) = 1 AND (SELECT COUNT(*) FROM homes x WHERE "
        "x.owner_name = h.owner_name) = 1 AND (a.enabled = 1 OR NOT EXISTS (SELECT 1 FROM scene_actions c "
        "LEFT JOIN devices d USING (device_id) WHERE c.scene_id = a.scene_id AND d.device_id IS NULL))",
        "a.home_id",
    )
    h = me(s, "h.home_id = ?", a["home_id"])
    off = bool(a["enabled"])
    if off:
        hid = owner_asks(s, h, WORDS.pause_routine, n=a["name"])
    else:
        hid = owner_asks(s, h, WORDS.pause_routine_back_on, n=a["name"])
    found = s.call("list_automations", home_id=hid, **({"enabled": off} if s.rng.random() < 0.5 else {}))
    hit = [x for x in found["automations"] if x["automation_id"] == a["automation_id"]]
    s.call("set_automation_enabled", automation_id=hit[0]["automation_id"], enabled=not off)
