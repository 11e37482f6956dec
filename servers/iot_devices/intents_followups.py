"""Short follow-ups a person asks about their smart home after an action: the device again, its room, the house's
scenes, routines, groups, locks, heating, what is offline or low.

Each continues a dialogue of ``intents.py`` on what it left in ``s.memory``: the home (whose owner is talking), the
device and the scene the dialogue is about. They never open a dialogue and make one or two calls.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.iot_devices.intents import COLOR_WORDS
from servers.iot_devices.tools import iot


def the_home(s: Scene) -> str:
    known = s.memory.get("home")
    if not known:
        raise Skip("no home in the dialogue")
    return str(known["home_id"])


def the_device(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The device of the dialogue as it is now, when it fits ``where`` (SQL on ``d``); ``Skip`` otherwise."""
    known = s.memory.get("device")
    if not known:
        raise Skip("no device in the dialogue")
    found = s.rows(
        f"SELECT d.*, r.name AS room FROM devices d JOIN rooms r USING (room_id) WHERE d.device_id = ? AND ({where})",
        known["device_id"],
        *params,
    )
    if not found:
        raise Skip("the device of the dialogue does not fit")
    return found[0]


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: str) -> None:
    """The person asks for a read the dialogue has not made yet (``Skip`` when it has); the agent makes it."""
    s.asked(tool, **args)
    s.say(*phrasings)
    s.call(tool, **args)


def last_tool(s: Scene) -> str | None:
    calls = list(s.calls)
    return calls[-1].tool if calls else None


@iot.intent(covers=("get_device",), opens=False, follows=True)
def did_it_take(s: Scene) -> None:
    """After changing a device, the person asks how it reports now (state, battery)."""
    d = the_device(s)
    if last_tool(s) == "get_device":
        raise Skip("just read")
    s.say(
        "Did that work? What does it show now?",
        "How's it reporting now - and its battery?",
        "Can you double-check it took?",
    )
    s.call("get_device", device_id=d["device_id"])


@iot.intent(covers=("set_device_power",), opens=False, follows=True)
def off_again(s: Scene) -> None:
    """The person switches the device of the dialogue off (or back on) again."""
    d = the_device(s, "d.online = 1 AND d.type IN ('light', 'plug', 'speaker', 'camera')")
    on = d["power"] != "on"
    s.say(
        "Actually, switch it {st} again.",
        "Hmm, turn it {st} for now.",
        "OK, now {st} with it.",
        st="on" if on else "off",
    )
    s.call("set_device_power", device_id=d["device_id"], on=on)


@iot.intent(covers=("set_light",), opens=False, follows=True)
def a_bit_dimmer(s: Scene) -> None:
    """The person adjusts the light of the dialogue: a level, or a colour it can do."""
    d = the_device(s, "d.online = 1 AND d.type = 'light'")
    if d["supports_color"] and s.rng.random() < 0.4:
        color = s.rng.choice([c for c in COLOR_WORDS if c != d["color"]])
        s.say("Make it {c} instead.", "Can it go {c}?", "Switch its colour to {c}.", c=color)
        s.call("set_light", device_id=d["device_id"], color=color)
        return
    level = s.rng.choice([x for x in (10, 20, 30, 50, 75, 100) if x != d["brightness"]])
    s.say(
        "A bit {way} - {n}%.",
        "Put it at {n} percent instead.",
        "Make that {n}%.",
        way="brighter" if level > (d["brightness"] or 0) else "dimmer",
        n=level,
    )
    s.call("set_light", device_id=d["device_id"], brightness=level)


@iot.intent(covers=("list_devices",), opens=False, follows=True)
def rest_of_the_room(s: Scene) -> None:
    """The person asks what else is in the room of the device of the dialogue."""
    d = the_device(s)
    s.asked("list_devices", room_id=d["room_id"])
    s.say(
        "What else do I have in the {r}?",
        "Anything else still on in the {r}?",
        "Which other gadgets are in the {r}?",
        r=d["room"].lower(),
    )
    s.call("list_devices", home_id=d["home_id"], room_id=d["room_id"])


@iot.intent(covers=("list_devices",), opens=False, follows=True)
def anything_down(s: Scene) -> None:
    """The person asks what in the house is offline, or low on battery."""
    hid = the_home(s)
    low = s.rng.random() < 0.5
    if low:
        ask_for(
            s,
            "list_devices",
            {"home_id": hid, "max_battery": 20},
            "While you're at it, anything running low on battery?",
            "Does anything need new batteries soon - say 20% or less?",
        )
        return
    ask_for(
        s,
        "list_devices",
        {"home_id": hid, "online": False},
        "Is anything else in the house offline?",
        "Anything not responding at home right now?",
    )


@iot.intent(covers=("list_devices",), opens=False, follows=True)
def doors_secure(s: Scene) -> None:
    """The person asks whether all their smart locks are locked."""
    hid = the_home(s)
    if not s.rows("SELECT 1 FROM devices WHERE home_id = ? AND type = 'lock'", hid):
        raise Skip("no locks")
    ask_for(
        s,
        "list_devices",
        {"home_id": hid, "type": "lock"},
        "Are all my doors locked, by the way?",
        "Quick check: is every door locked?",
        "And the door locks - all shut?",
    )


@iot.intent(covers=("list_scenes",), opens=False, follows=True)
def my_scenes(s: Scene) -> None:
    """The person asks which scenes they have saved."""
    hid = the_home(s)
    ask_for(
        s,
        "list_scenes",
        {"home_id": hid},
        "Which scenes do I have saved?",
        "Remind me what scenes I've set up.",
        "What presets do I have?",
    )


@iot.intent(covers=("list_automations",), opens=False, follows=True)
def my_routines(s: Scene) -> None:
    """The person asks which routines they have (or which are paused)."""
    hid = the_home(s)
    s.asked("list_automations", home_id=hid)
    paused = s.rng.random() < 0.3
    if paused:
        s.say("Which of my routines are paused right now?", "Anything I switched off in my routines?")
        s.call("list_automations", home_id=hid, enabled=False)
        return
    s.say("What routines do I have?", "Which automations are set up at my place?", "Remind me of my routines.")
    s.call("list_automations", home_id=hid)


@iot.intent(covers=("list_groups",), opens=False, follows=True)
def my_groups(s: Scene) -> None:
    """The person asks which device groups they have and whether their members are online."""
    hid = the_home(s)
    ask_for(
        s,
        "list_groups",
        {"home_id": hid},
        "What groups of devices have I got?",
        "Which device groups are set up, and is everything in them online?",
        "How are my devices grouped at the moment?",
        "Show me the device groups in this home.",
    )


@iot.intent(covers=("get_home",), opens=False, follows=True)
def big_picture(s: Scene) -> None:
    """The person asks for the overview of the house: rooms, devices, what is offline."""
    hid = the_home(s)
    ask_for(
        s,
        "get_home",
        {"home_id": hid},
        "Give me the big picture of the house now.",
        "How's the house overall - rooms and devices?",
    )


@iot.intent(covers=("list_devices", "set_thermostat"), opens=False, follows=True)
def heading_out(s: Scene) -> None:
    """Leaving the house, the person puts the home's one thermostat on eco (or off)."""
    hid = the_home(s)
    stats = s.rows("SELECT * FROM devices WHERE home_id = ? AND type = 'thermostat'", hid)
    if len(stats) != 1 or not stats[0]["online"]:
        raise Skip("not one working thermostat")
    mode = s.rng.choice([m for m in ("eco", "off") if m != stats[0]["mode"]])
    s.say(
        "We're heading out for the day - put the heating on {m}.",
        "Nobody's home till tonight, so {m} for the thermostat.",
        "Set the house to {m} while we're out.",
        m="eco" if mode == "eco" else "off",
    )
    known = [
        c.result
        for c in s.calls
        if c.tool == "list_devices" and c.arguments.get("type") == "thermostat" and c.arguments.get("home_id") == hid
    ]
    found = known[-1]["devices"] if known else s.call("list_devices", home_id=hid, type="thermostat")["devices"]
    s.call("set_thermostat", device_id=found[0]["device_id"], mode=mode)


@iot.intent(covers=("get_scene",), opens=False, follows=True)
def what_that_scene_does(s: Scene) -> None:
    """The person asks what the scene of the dialogue sets."""
    known = s.memory.get("scene")
    if not known:
        raise Skip("no scene in the dialogue")
    ask_for(
        s,
        "get_scene",
        {"scene_id": known["scene_id"]},
        "What does that scene actually set?",
        "Remind me which devices that scene touches.",
    )


@iot.intent(covers=("list_sensors", "get_sensor_readings"), opens=False, follows=True)
def how_warm_in_there(s: Scene) -> None:
    """The person asks how warm (or humid) the room of the device of the dialogue has been."""
    d = the_device(s)
    sensors = s.rows("SELECT * FROM sensors WHERE room_id = ? AND kind IN ('temperature', 'humidity')", d["room_id"])
    if not sensors:
        raise Skip("no climate sensor in the room")
    n = s.rng.choice(sensors)
    if sum(x["kind"] == n["kind"] for x in sensors) > 1:
        raise Skip("two sensors of a kind")
    if s.room(2, 1) and s.rng.random() < 0.5:
        s.say(
            "How {w} has the {r} been today?",
            "What's the {r} been reading for {k} lately?",
            w="warm" if n["kind"] == "temperature" else "humid",
            k=n["kind"],
            r=d["room"].lower(),
        )
        found = s.call("list_sensors", room_id=d["room_id"], kind=n["kind"])["sensors"]
        s.call("get_sensor_readings", sensor_id=found[0]["sensor_id"])
        return
    s.say(
        "How {w} is it in the {r} right now?",
        "What's the {k} in the {r} at the moment?",
        w="warm" if n["kind"] == "temperature" else "humid",
        k=n["kind"],
        r=d["room"].lower(),
    )
    s.call("list_sensors", room_id=d["room_id"], kind=n["kind"])
