"""What people want of their smart home: lights, heat, locks, blinds, batteries, scenes, routines, groups.

The user owns a home and says who they are; the agent finds the home with ``list_homes`` (the owner's
name matches) and devices with ``list_devices`` (by room or name, or by type). People name devices the
way the app labels them ("the kitchen ceiling light"), scenes and routines by their names. A support
analyst asks about device types across all homes.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.iot_devices.tools import iot

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
SCENE_NAMES = (
    "Evening Glow",
    "Lazy Sunday",
    "Dinner Party",
    "Focus Time",
    "Game Night",
    "Early Start",
    "Date Night",
    "Wind Down",
)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The home of the person talking: the one an earlier turn was about (``Skip`` when it does not fit), or a
    fresh pick among homes whose owner's name is unique."""
    known = s.memory.get("home")
    if known:
        found = s.rows(HOME + f" AND h.home_id = ? AND ({where})", known["home_id"], *params)
        if not found:
            raise Skip("the home of the earlier turn does not fit")
        return found[0]
    h = s.pick(HOME + f" AND ({where})", *params)
    s.be(h["owner_name"])
    return h


def intro(s: Scene) -> str:
    return "" if s.memory.get("home") else f"I'm {s.persona.name}. "


def find_home(s: Scene, h: dict[str, Any]) -> str:
    if s.memory.get("home", {}).get("home_id") == h["home_id"]:
        return str(h["home_id"])
    hit = [x for x in s.call("list_homes", query=h["owner_name"])["homes"] if x["home_id"] == h["home_id"]]
    if not hit:
        raise Skip("the home is not on the first page")
    s.memory["home"] = {"home_id": h["home_id"], "owner_name": h["owner_name"]}
    return str(h["home_id"])


def owner_asks(s: Scene, h: dict[str, Any], *phrasings: str, **slots: Any) -> str:
    """The owner's turn (introduced until the home is found) in one of ``phrasings``, then the discovery call for
    the home: its id."""
    s.say(*phrasings, me=intro(s), **slots)
    return find_home(s, h)


def device_ref(s: Scene, d: dict[str, Any]) -> str:
    return s.refer(
        d["device_id"],
        Ref("the {n}", "SELECT device_id FROM devices WHERE home_id = ? AND name = ?", d["home_id"], d["name"]),
        n=d["name"].lower(),
    )


def find_device(s: Scene, hid: str, d: dict[str, Any]) -> dict[str, Any]:
    """The discovery read for a device the user named: by its name, by its room and type, or by its type."""
    how = s.rng.choice(("name", "type", "room"))
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
    args: dict[str, Any] = {}
    if action == "power":
        on = d["power"] != "on"
        hid = owner_asks(
            s,
            h,
            "{me}Turn {what} {state}, please.",
            "{me}Can you switch {what} {state}?",
            "{me}Flip {what} {state}.",
            minimal=["{me}{What}: {state}."],
            what=what,
            What=what[:1].upper() + what[1:],
            state="on" if on else "off",
        )
        tool, args = "set_device_power", {"on": on}
    elif action == "dim":
        level = s.rng.choice([x for x in (10, 25, 30, 40, 50, 70, 80, 100) if x != d["brightness"]])
        hid = owner_asks(
            s,
            h,
            "{me}Put {what} at {n}%.",
            "{me}Bring {what} to {n} percent brightness.",
            "{me}I'd like {what} at {n}%, please.",
            minimal=["{me}{What} to {n}%."],
            what=what,
            What=what[:1].upper() + what[1:],
            n=level,
        )
        tool, args = "set_light", {"brightness": level}
    else:
        color = s.rng.choice([c for c in COLOR_WORDS if c != d["color"]])
        hid = owner_asks(
            s,
            h,
            "{me}Make {what} {c}.",
            "{me}Can {what} go {c}?",
            "{me}Change {what} to {c} light.",
            minimal=["{me}{What}, {c}."],
            what=what,
            What=what[:1].upper() + what[1:],
            c=color,
        )
        tool, args = "set_light", {"color": color}
    dev = find_device(s, hid, d)
    s.call(tool, device_id=dev["device_id"], **args)
    s.memory["device"] = {"device_id": dev["device_id"]}
    if s.room(1, 1) and s.rng.random() < 0.3:
        s.say(
            "What else is running in the {r}?",
            "Anything else left on in the {r}?",
            "Which other gadgets are in the {r}?",
            r=d["room"].lower(),
        )
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
    hid = owner_asks(
        s,
        h,
        "{me}{feel}. Put the {what} on, {t} degrees.",
        "{me}{feel}: {what} to {t}°C please.",
        "{me}{feel}. Can you get the {what} going at {t}?",
        minimal=["{me}{feel}; {t} degrees, {what}."],
        feel=feel,
        what=what,
        t=f"{target:g}",
    )
    found = s.call("list_devices", home_id=hid, type="thermostat")["devices"]
    hit = [x for x in found if x["device_id"] == d["device_id"]]
    if len(found) != 1 or not hit:
        raise Skip("not the home's one thermostat")
    s.call("set_thermostat", device_id=hit[0]["device_id"], mode=mode, target_temperature=target)
    s.memory["device"] = {"device_id": hit[0]["device_id"]}
    if s.room(1, 1) and s.rng.random() < 0.45:
        s.say(
            "What's it reading in there right now?",
            "And how warm is it at the moment?",
            "What's the current temperature, then?",
        )
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
        "{me}{Why} {Verb} {what}.",
        "{me}{Why} Can you {verb} {what}?",
        "{me}{Why} Please {verb} {what} for me.",
        minimal=["{me}{What}: {verb} it."],
        what=what,
        What=what[:1].upper() + what[1:],
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
    if s.room(1, 1) and s.rng.random() < 0.4:
        s.say(
            "How's its battery doing?",
            "Is it definitely {st} now?",
            "What does the lock report now?",
            st="locked" if lock else "open",
        )
        s.call("get_device", device_id=did)


@iot.intent(covers=("list_homes", "list_devices", "set_blind_position"), follows=True)
def blinds(s: Scene) -> None:
    """A person opens, closes or half-opens blinds."""
    h, d = my_device(s, "d.type = 'blind' AND d.online = 1")
    pos = s.rng.choice([p for p in (0, 25, 50, 75, 100) if p != d["position"]])
    how = {0: "all the way down", 25: "a quarter open", 50: "halfway", 75: "mostly open", 100: "fully open"}[pos]
    what = device_ref(s, d)
    at = s.given(pos, how, "position", "set_blind_position", "position")
    hid = owner_asks(
        s,
        h,
        "{me}Put {what}[ {how}].",
        "{me}Could you move {what}[ {how}]?",
        "{me}I want {what} moved[ {how}], please.",
        minimal=["{me}{What}[, {how}]."],
        what=what,
        What=what[:1].upper() + what[1:],
        how=at,
    )
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
    hid = owner_asks(
        s,
        h,
        "{me}Which of my gadgets are running low on battery, say {cap}% or less?",
        "{me}Anything in the house under {cap}% battery?",
        "{me}What needs new batteries soon? Under {cap}%.",
        minimal=["{me}Low batteries?"],
        cap=cap,
    )
    found = s.call("list_devices", home_id=hid, max_battery=cap if not s.minimal else 20)["devices"]
    if not found:
        raise Skip("nothing that low")
    d = s.rng.choice(found)
    s.say(
        "I just put fresh batteries in the {n}.",
        "New batteries are in the {n} now, note that.",
        "Swapped the batteries on the {n}.",
        n=d["name"].lower(),
    )
    s.call("replace_battery", device_id=d["device_id"])
    s.memory["device"] = {"device_id": d["device_id"]}
    if s.rng.random() < 0.4 and s.room(1, 0):
        s.call("get_device", device_id=d["device_id"])


@iot.intent(covers=("list_homes", "list_devices", "reboot_device", "set_device_power"))
def whats_offline(s: Scene) -> None:
    """A person asks what is offline and restarts one device (then switches it back on)."""
    h = me(s, "h.home_id IN (SELECT home_id FROM devices WHERE online = 0 AND (battery IS NULL OR battery > 0))")
    hid = owner_asks(
        s,
        h,
        "{me}Is anything in my house offline?",
        "{me}Which of my devices have dropped off the network?",
        "{me}The app says something isn't responding. What's down?",
        minimal=["{me}What's offline?"],
    )
    found = s.call("list_devices", home_id=hid, online=False)["devices"]
    fit = [x for x in found if x["battery"] is None or x["battery"] > 0]
    if not fit:
        raise Skip("nothing that a restart fixes")
    d = s.rng.choice(fit)
    s.say("Restart the {n}.", "Give the {n} a reboot.", "Try turning the {n} off and on again.", n=d["name"].lower())
    back = s.call("reboot_device", device_id=d["device_id"])
    s.memory["device"] = {"device_id": d["device_id"]}
    switchable = d["type"] in ("light", "plug", "speaker", "camera")
    if back.get("power") == "off" and switchable and s.room(1, 1) and s.rng.random() < 0.7:
        s.say("Great, now switch it on.", "Now turn it on, please.", "And put it on.")
        s.call("set_device_power", device_id=d["device_id"], on=True)


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
    hid = owner_asks(
        s,
        h,
        "{me}Start {n}.",
        "{me}Time for {n}: get the house ready.",
        "{me}Can you put the house in {n} mode?",
        minimal=["{me}{n}, please."],
        n=sc["name"],
    )
    found = [x for x in s.call("list_scenes", home_id=hid)["scenes"] if x["name"] == sc["name"]]
    if len(found) != 1:
        raise Skip("scene name not unique")
    s.call("activate_scene", scene_id=found[0]["scene_id"])
    s.memory["scene"] = {"scene_id": found[0]["scene_id"]}
    if s.room(1, 1) and s.rng.random() < 0.35:
        s.say(
            "What exactly did that change?", "Which devices did that touch, and how?", "Remind me what that scene does."
        )
        s.call("get_scene", scene_id=found[0]["scene_id"])


@iot.intent(covers=("list_homes", "list_scenes", "get_scene", "remove_scene_device"))
def broken_scene(s: Scene) -> None:
    """A scene fails because a device it sets was removed: the person asks why and has it cleaned up."""
    sc = s.pick(
        "SELECT s.* FROM scenes s WHERE (SELECT COUNT(*) FROM scene_actions a LEFT JOIN devices d USING "
        "(device_id) WHERE a.scene_id = s.scene_id AND d.device_id IS NULL) = 1 AND (SELECT COUNT(*) FROM "
        "scene_actions a WHERE a.scene_id = s.scene_id) >= 2" + (" AND s.home_id = ?" if s.memory.get("home") else ""),
        *([s.memory["home"]["home_id"]] if s.memory.get("home") else []),
    )
    h = me(s, "h.home_id = ?", sc["home_id"])
    hid = owner_asks(
        s,
        h,
        "{me}My {n} scene keeps failing. What's wrong with it?",
        "{me}Why won't {n} run any more?",
        "{me}{n} gives me an error every time. Can you look?",
        minimal=["{me}{n} is broken."],
        n=sc["name"],
    )
    found = [x for x in s.call("list_scenes", home_id=hid)["scenes"] if x["name"] == sc["name"]]
    if len(found) != 1:
        raise Skip("scene name not unique")
    full = s.call("get_scene", scene_id=found[0]["scene_id"])
    gone = [a for a in full["actions"] if a["missing"]]
    s.say(
        "Right, I got rid of that one. Take it out of the scene.",
        "Drop the missing one from it then.",
        "OK, take the one that's gone out of it.",
    )
    s.call("remove_scene_device", scene_id=found[0]["scene_id"], device_id=gone[0]["device_id"])
    s.memory["scene"] = {"scene_id": found[0]["scene_id"]}


@iot.intent(covers=("list_homes", "list_devices", "create_scene", "activate_scene"), follows=True)
def save_the_look(s: Scene) -> None:
    """A person saves how a room's lights are right now as a new scene."""
    room = s.pick(
        "SELECT r.*, h.owner_name FROM rooms r JOIN homes h USING (home_id) WHERE (SELECT COUNT(*) FROM "
        "devices d WHERE d.room_id = r.room_id AND d.type = 'light') >= 1 AND (SELECT COUNT(*) FROM homes x "
        "WHERE x.owner_name = h.owner_name) = 1" + (" AND r.home_id = ?" if s.memory.get("home") else ""),
        *([s.memory["home"]["home_id"]] if s.memory.get("home") else []),
    )
    h = me(s, "h.home_id = ?", room["home_id"])
    title = s.rng.choice(SCENE_NAMES)
    if s.rows("SELECT 1 FROM scenes WHERE home_id = ? AND name = ?", h["home_id"], title):
        raise Skip("the scene exists")
    name = s.given(title, f"'{title}'", "scene name", "create_scene", "name")
    hid = owner_asks(
        s,
        h,
        "{me}I love how the {r} lights look right now. Keep that as a scene[ called {name}].",
        "{me}Remember the {r} lighting exactly as it is[ under the name {name}].",
        "{me}Capture the current {r} light setup as a preset[, {name}].",
        r=room["name"].lower(),
        name=name,
    )
    found = s.call("list_devices", home_id=hid, room_id=room["room_id"], type="light")["devices"]
    made = s.call("create_scene", home_id=hid, name=title, device_ids=[x["device_id"] for x in found])
    s.memory["scene"] = {"scene_id": made["scene_id"]}
    if s.rng.random() < 0.3 and all(x["online"] for x in found):
        s.say("Perfect. Try it out now.", "Run it once so I can see.", "Go ahead and apply it.")
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
        hid = owner_asks(
            s,
            h,
            "{me}Have {n} come on by itself {when} at {t}[; call it {name}].",
            "{me}I want {n} to kick in at {t} {when}[. Name the routine {name}].",
            "{me}Run {n} automatically at {t}, {when}[, as {name}].",
            n=sc["name"],
            when=when,
            t=t,
            name=name,
        )
        found = [x for x in s.call("list_scenes", home_id=hid)["scenes"] if x["name"] == sc["name"]]
        args: dict[str, Any] = {"at_time": f"{hour:02d}:{minute:02d}"}
        if days != "daily":
            args["days"] = days
        s.call("create_automation", home_id=hid, name=title, scene_id=found[0]["scene_id"], trigger="time", **args)
        if s.room(1, 1) and s.rng.random() < 0.8:
            s.say(
                "What routines do I have running now?",
                "Show me all my routines.",
                "Which automations are switched on at my place?",
            )
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
    hid = owner_asks(
        s,
        h,
        "{me}Is there a {what} in the {r}?",
        "{me}Do I have a {what} in the {r}?",
        "{me}Which {what} covers the {r}?",
        what=what,
        r=sensor["room"].lower(),
    )
    sensors = [
        x for x in s.call("list_sensors", home_id=hid, kind=kind)["sensors"] if x["sensor_id"] == sensor["sensor_id"]
    ]
    if not sensors:
        raise Skip("the sensor is past the first page")
    s.say(
        "Good. When {event}, start {n}. Call it '{name}'.",
        "Then set it up so {n} runs whenever {event} ('{name}').",
        "Great: I'd like {n} to trigger if {event}; name it '{name}'.",
        event=event,
        n=sc["name"],
        name=title,
    )
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
    a = s.pick(
        "SELECT a.* FROM automations a JOIN homes h USING (home_id) WHERE (SELECT COUNT(*) FROM automations x "
        "WHERE x.home_id = a.home_id AND x.name = a.name) = 1 AND (SELECT COUNT(*) FROM homes x WHERE "
        "x.owner_name = h.owner_name) = 1 AND (a.enabled = 1 OR NOT EXISTS (SELECT 1 FROM scene_actions c "
        "LEFT JOIN devices d USING (device_id) WHERE c.scene_id = a.scene_id AND d.device_id IS NULL))"
        + (" AND a.home_id = ?" if s.memory.get("home") else ""),
        *([s.memory["home"]["home_id"]] if s.memory.get("home") else []),
    )
    h = me(s, "h.home_id = ?", a["home_id"])
    off = bool(a["enabled"])
    if off:
        hid = owner_asks(
            s,
            h,
            "{me}We're away for two weeks. Pause the '{n}' routine.",
            "{me}Stop '{n}' from running for now.",
            "{me}Hold off on the '{n}' routine until I say so.",
            minimal=["{me}Pause '{n}'."],
            n=a["name"],
        )
    else:
        hid = owner_asks(
            s,
            h,
            "{me}We're back! Turn the '{n}' routine back on.",
            "{me}Resume '{n}', please.",
            "{me}I want '{n}' running again.",
            minimal=["{me}'{n}' back on."],
            n=a["name"],
        )
    found = s.call("list_automations", home_id=hid, **({"enabled": off} if s.rng.random() < 0.5 else {}))
    hit = [x for x in found["automations"] if x["automation_id"] == a["automation_id"]]
    s.call("set_automation_enabled", automation_id=hit[0]["automation_id"], enabled=not off)


@iot.intent(covers=("list_homes", "list_groups", "set_group_power"), follows=True)
def whole_floor(s: Scene) -> None:
    """A person switches a whole group of lights or plugs at once."""
    g = s.pick(
        "SELECT g.* FROM device_groups g JOIN homes h USING (home_id) WHERE (SELECT COUNT(*) FROM homes x "
        "WHERE x.owner_name = h.owner_name) = 1 AND NOT EXISTS (SELECT 1 FROM group_members m JOIN devices d "
        "USING (device_id) WHERE m.group_id = g.group_id AND d.online = 0) AND EXISTS (SELECT 1 FROM "
        "group_members m WHERE m.group_id = g.group_id) AND (SELECT COUNT(*) FROM device_groups x WHERE "
        "x.home_id = g.home_id AND x.name = g.name) = 1" + (" AND g.home_id = ?" if s.memory.get("home") else ""),
        *([s.memory["home"]["home_id"]] if s.memory.get("home") else []),
    )
    h = me(s, "h.home_id = ?", g["home_id"])
    on = s.rng.random() < 0.5
    what = {
        "All Lights": "every light in the house",
        "Downstairs Lights": "all the downstairs lights",
        "Upstairs Lights": "all the upstairs lights",
        "Plugs": "all the smart plugs",
    }.get(g["name"], g["name"])
    hid = owner_asks(
        s,
        h,
        "{me}Switch {what} {st}.",
        "{me}Can you turn {what} {st} in one go?",
        "{me}{What}: {st}, please.",
        what=what,
        What=what[:1].upper() + what[1:],
        st="on" if on else "off",
    )
    found = [x for x in s.call("list_groups", home_id=hid)["groups"] if x["name"] == g["name"]]
    s.call("set_group_power", group_id=found[0]["group_id"], on=on)


@iot.intent(covers=("list_homes", "list_sensors", "get_sensor_readings"), follows=True)
def how_was_it(s: Scene) -> None:
    """A person asks how warm, humid or busy a room was over the last hours."""
    n = s.pick(
        "SELECT n.*, r.name AS room, h.owner_name FROM sensors n JOIN rooms r USING (room_id) JOIN homes h ON "
        "h.home_id = n.home_id WHERE n.kind IN ('temperature', 'humidity', 'motion', 'door_contact') AND "
        "(SELECT COUNT(*) FROM sensors m WHERE m.room_id = n.room_id AND m.kind = n.kind) = 1 AND "
        "(SELECT COUNT(*) FROM homes x WHERE x.owner_name = h.owner_name) = 1"
        + (" AND n.home_id = ?" if s.memory.get("home") else ""),
        *([s.memory["home"]["home_id"]] if s.memory.get("home") else []),
    )
    h = me(s, "h.home_id = ?", n["home_id"])
    q = {
        "temperature": "How warm has the {r} been",
        "humidity": "How humid has the {r} been",
        "motion": "Has anyone been moving around in the {r}",
        "door_contact": "Has the {r} door been opened",
    }[n["kind"]]
    since = s.rng.choice((None, "overnight", "since midnight"))
    hid = owner_asks(
        s,
        h,
        "{me}" + q + "{when}?",
        "{me}Quick check: " + q[:1].lower() + q[1:] + "{when}?",
        minimal=["{me}" + q + "?"],
        r=n["room"].lower(),
        when=" " + since if since else " lately",
    )
    found = s.call(
        "list_sensors", home_id=hid, kind=n["kind"], **({"room_id": n["room_id"]} if s.rng.random() < 0.3 else {})
    )["sensors"]
    hit = [x for x in found if x["sensor_id"] == n["sensor_id"]]
    if not hit:
        raise Skip("not on the page")
    args: dict[str, Any] = {"sensor_id": hit[0]["sensor_id"]}
    if since and not s.minimal:
        args["since"] = s.now.strftime("%Y-%m-%dT00:00")
    s.call("get_sensor_readings", **args)


@iot.intent(covers=("list_homes", "get_home", "list_devices", "remove_device", "remove_scene_device"), follows=True)
def house_check(s: Scene) -> None:
    """A person asks for an overview of their home, or retires a device (and keeps its scenes working)."""
    if s.rng.random() < 0.5:
        h = me(s)
        hid = owner_asks(
            s,
            h,
            "{me}Give me a rundown of my house: rooms, devices, anything offline?",
            "{me}How's the smart home looking overall?",
            "{me}What have I got set up at home, room by room?",
            minimal=["{me}House status?"],
        )
        s.call("get_home", home_id=hid)
        return
    h, d = my_device(s, "d.type IN ('speaker', 'plug', 'camera', 'light')")
    what = device_ref(s, d)
    hid = owner_asks(
        s,
        h,
        "{me}I gave away {what}. Take it off my account.",
        "{me}{What} is gone, we sold it. Please drop it.",
        "{me}Get rid of {what} in the app, it's not ours any more.",
        what=what,
        What=what[:1].upper() + what[1:],
    )
    dev = find_device(s, hid, d)
    out = s.call("remove_device", device_id=dev["device_id"])
    fixable = [
        x
        for x in out["scenes_still_referring"]
        if s.value("SELECT COUNT(*) FROM scene_actions WHERE scene_id = ?", x) >= 2
    ]
    if fixable and s.room(1, 1):
        s.say(
            "Will any of my scenes break now? Fix them if so.",
            "Make sure my scenes still work without it.",
            "Tidy it out of any scene that used it.",
        )
        s.call("remove_scene_device", scene_id=fixable[0], device_id=dev["device_id"])


@iot.intent(covers=("get_distinct_values", "list_devices"))
def support_desk(s: Scene) -> None:
    """A support analyst looks at the kinds of devices customers have, then at the offline ones of a kind."""
    s.say(
        "What kinds of devices do our customers have connected?",
        "Which device categories are out there?",
        "Break down the fleet by device kind for me.",
    )
    kinds = s.call("get_distinct_values", field="device_type")["values"]
    kind = s.rng.choice(sorted(kinds))
    word = {
        "light": "lights",
        "thermostat": "thermostats",
        "lock": "door locks",
        "blind": "blinds",
        "plug": "plugs",
        "camera": "cameras",
        "speaker": "speakers",
    }[kind]
    if s.rng.random() < 0.5:
        s.say(
            "Which {w} are offline right now?",
            "Show me the {w} that aren't responding.",
            "List any {w} that dropped off.",
            w=word,
        )
        s.call("list_devices", type=kind, online=False)
        return
    s.say(
        "Which {w} are running low on battery, 20% or less?",
        "Any {w} down to a fifth of their battery?",
        "List the {w} at 20% battery or below.",
        w=word,
    )
    s.call("list_devices", type=kind, max_battery=20)
