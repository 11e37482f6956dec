"""Short follow-ups a person asks about their smart home after an action: the device again, its room, the house's
scenes, routines, groups, locks, heating, what is offline or low.

Each continues a dialogue of ``intents.py`` on what it left in ``s.memory``: the home (whose owner is talking), the
device and the scene the dialogue is about. They never open a dialogue and make one or two calls.
"""

from __future__ import annotations

from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from hub.kit.phrasings import Said
from servers.iot_devices.intents import COLOR_WORDS, WORDS
from servers.iot_devices.tools import iot


def the_home(s: Scene) -> str:
    known = s.known("home", "no home in the dialogue")
    return str(known["home_id"])


def the_device(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The device of the dialogue as it is now, when it fits ``where`` (SQL on ``d``); ``Skip`` otherwise."""
    known = s.known("device", "no device in the dialogue")
    found = s.rows(
        f"SELECT d.*, r.name AS room FROM devices d JOIN rooms r USING (room_id) WHERE d.device_id = ? AND ({where})",
        known["device_id"],
        *params,
    )
    if not found:
        raise Skip("the device of the dialogue does not fit")
    return found[0]


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: Said, **slots: Any) -> None:
    """The person asks for a read the dialogue has not made yet (``Skip`` when it has); the agent makes it."""
    s.asked(tool, **args)
    s.say(*phrasings, **slots)
    s.call(tool, **args)


def changed_device(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    """The device of the dialogue, unless the last call already read it."""
    d = the_device(s)
    calls = list(s.calls)
    if calls and calls[-1].tool == "get_device":
        raise Skip("just read")
    return {"device_id": d["device_id"]}, {}


def device_room(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    d = the_device(s)
    return {"home_id": d["home_id"], "room_id": d["room_id"]}, {"r": d["room"].lower()}


def home(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    return {"home_id": the_home(s)}, {}


def locks(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    hid = the_home(s)
    if not s.rows("SELECT 1 FROM devices WHERE home_id = ? AND type = 'lock'", hid):
        raise Skip("no locks")
    return {"home_id": hid, "type": "lock"}, {}


def the_scene(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    known = s.known("scene", "no scene in the dialogue")
    return {"scene_id": known["scene_id"]}, {}


ASKS = (
    FollowUp(
        "did_it_take",
        "After changing a device, the person asks how it reports now (state, battery).",
        changed_device,
        "get_device",
        asked=False,
    ),
    FollowUp(
        "rest_of_the_room",
        "The person asks what else is in the room of the device of the dialogue.",
        device_room,
        "list_devices",
    ),
    FollowUp("doors_secure", "The person asks whether all their smart locks are locked.", locks, "list_devices"),
    FollowUp("my_scenes", "The person asks which scenes they have saved.", home, "list_scenes"),
    FollowUp(
        "my_groups",
        "The person asks which device groups they have and whether their members are online.",
        home,
        "list_groups",
    ),
    FollowUp(
        "big_picture",
        "The person asks for the overview of the house: rooms, devices, what is offline.",
        home,
        "get_home",
    ),
    FollowUp(
        "what_that_scene_does",
        "The person asks what the scene of the dialogue sets.",
        the_scene,
        "get_scene",
        asked=False,
    ),
)


follow_ups(iot, ASKS, WORDS)


@iot.intent(covers=("set_device_power",), opens=False, follows=True)
def off_again(s: Scene) -> None:
    """The person switches the device of the dialogue off (or back on) again."""
    d = the_device(s, "d.online = 1 AND d.type IN ('light', 'plug', 'speaker', 'camera')")
    on = d["power"] != "on"
    s.say(WORDS.off_again, st="on" if on else "off")
    s.call("set_device_power", device_id=d["device_id"], on=on)


@iot.intent(covers=("set_light",), opens=False, follows=True)
def a_bit_dimmer(s: Scene) -> None:
    """The person adjusts the light of the dialogue: a level, or a colour it can do."""
    d = the_device(s, "d.online = 1 AND d.type = 'light'")
    if d["supports_color"] and s.rng.random() < 0.4:
        color = s.rng.choice([c for c in COLOR_WORDS if c != d["color"]])
        s.say(WORDS.a_bit_dimmer_colour, c=color)
        s.call("set_light", device_id=d["device_id"], color=color)
        return
    level = s.rng.choice([x for x in (10, 20, 30, 50, 75, 100) if x != d["brightness"]])
    s.say(WORDS.a_bit_dimmer, way="brighter" if level > (d["brightness"] or 0) else "dimmer", n=level)
    s.call("set_light", device_id=d["device_id"], brightness=level)


@iot.intent(covers=("list_devices",), opens=False, follows=True)
def anything_down(s: Scene) -> None:
    """The person asks what in the house is offline, or low on battery."""
    hid = the_home(s)
    if s.rng.random() < 0.5:
        ask_for(s, "list_devices", {"home_id": hid, "max_battery": 20}, WORDS.anything_down_low_battery)
        return
    ask_for(s, "list_devices", {"home_id": hid, "online": False}, WORDS.anything_down)


@iot.intent(covers=("list_automations",), opens=False, follows=True)
def my_routines(s: Scene) -> None:
    """The person asks which routines they have (or which are paused)."""
    hid = the_home(s)
    s.asked("list_automations", home_id=hid)
    if s.rng.random() < 0.3:
        s.say(WORDS.my_routines_paused)
        s.call("list_automations", home_id=hid, enabled=False)
        return
    s.say(WORDS.my_routines)
    s.call("list_automations", home_id=hid)


@iot.intent(covers=("list_devices", "set_thermostat"), opens=False, follows=True)
def heading_out(s: Scene) -> None:
    """Leaving the house, the person puts the home's one thermostat on eco (or off)."""
    hid = the_home(s)
    stats = s.rows("SELECT * FROM devices WHERE home_id = ? AND type = 'thermostat'", hid)
    if len(stats) != 1 or not stats[0]["online"]:
        raise Skip("not one working thermostat")
    mode = s.rng.choice([m for m in ("eco", "off") if m != stats[0]["mode"]])
    s.say(WORDS.heading_out, m="eco" if mode == "eco" else "off")
    known = [
        c.result
        for c in s.calls
        if c.tool == "list_devices" and c.arguments.get("type") == "thermostat" and c.arguments.get("home_id") == hid
    ]
    found = known[-1]["devices"] if known else s.call("list_devices", home_id=hid, type="thermostat")["devices"]
    s.call("set_thermostat", device_id=found[0]["device_id"], mode=mode)


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
    if s.by_chance(0.5, calls=2):
        s.say(
            WORDS.how_warm_in_there_today,
            w="warm" if n["kind"] == "temperature" else "humid",
            k=n["kind"],
            r=d["room"].lower(),
        )
        found = s.call("list_sensors", room_id=d["room_id"], kind=n["kind"])["sensors"]
        s.call("get_sensor_readings", sensor_id=found[0]["sensor_id"])
        return
    s.say(
        WORDS.how_warm_in_there, w="warm" if n["kind"] == "temperature" else "humid", k=n["kind"], r=d["room"].lower()
    )
    s.call("list_sensors", room_id=d["room_id"], kind=n["kind"])
