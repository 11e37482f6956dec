"""Short follow-ups a person asks about their smart home after an action: the device again, its room, the house's
scenes, routines, groups, locks, heating, what is offline or low.

Each continues a dialogue of ``intents.py`` on what it left in ``s.memory``: the home (whose owner is talking), the
device and the scene the dialogue is about. They never open a dialogue and make one or two calls.
"""

from __future__ import annotations

from typing import Any

from hub.kit.follow import FollowUp, follow_ups
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


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: str, **slots: Any) -> None:
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
    known = s.memory.get("scene")
    if not known:
        raise Skip("no scene in the dialogue")
    return {"scene_id": known["scene_id"]}, {}


ASKS = (
    FollowUp(
        "did_it_take",
        "After changing a device, the person asks how it reports now (state, battery).",
        changed_device,
        "get_device",
        phrasings=(
            "Did that work? What does it show now?",
            "How's it reporting now - and its battery?",
            "Can you double-check it took?",
            "{Is it|Is that} {actually|really} done? {What does it say now|How does it look now}?",
            "{Just to be sure|To be safe}, check the device {again|now}{ for me|}.",
        ),
        asked=False,
    ),
    FollowUp(
        "rest_of_the_room",
        "The person asks what else is in the room of the device of the dialogue.",
        device_room,
        "list_devices",
        phrasings=(
            "What else do I have in the {r}?",
            "Anything else still on in the {r}?",
            "Which other gadgets are in the {r}?",
            "{Show me|List} {everything|all the devices} in the {r}{ while you're at it|}.",
            "What's {the rest of|everything else in} the {r} {doing|up to}?",
        ),
    ),
    FollowUp(
        "doors_secure",
        "The person asks whether all their smart locks are locked.",
        locks,
        "list_devices",
        phrasings=(
            "Are all my doors locked, by the way?",
            "Quick check: is every door locked?",
            "And the door locks - all shut?",
            "{Did I|Have I} {lock|locked} {up|everything}? {Check|Look at} the locks{, please|}.",
            "{Can you|Could you} {check|confirm} that all the doors are locked?",
            "{While you're at it|Also}, how are the {door locks|locks} looking?",
        ),
    ),
    FollowUp(
        "my_scenes",
        "The person asks which scenes they have saved.",
        home,
        "list_scenes",
        phrasings=(
            "Which scenes do I have saved?",
            "Remind me what scenes I've set up.",
            "What presets do I have?",
            "{Show me|List} my {saved scenes|scenes|presets}{, please|}.",
            "What {lighting moods|scenes} can I {pick from|choose from}{ at home|}?",
            "{Can you|Could you} {tell me|remind me} which presets I've {got|saved}?",
        ),
    ),
    FollowUp(
        "my_groups",
        "The person asks which device groups they have and whether their members are online.",
        home,
        "list_groups",
        phrasings=(
            "What groups of devices have I got?",
            "Which device groups are set up, and is everything in them online?",
            "How are my devices grouped at the moment?",
            "Show me the device groups in this home.",
            "{List|Show} my {groups|device groups}{, please|}, and whether they're all online.",
            "{Which|What} devices {are bundled together|can I switch together} in groups?",
        ),
    ),
    FollowUp(
        "big_picture",
        "The person asks for the overview of the house: rooms, devices, what is offline.",
        home,
        "get_home",
        phrasings=(
            "Give me the big picture of the house now.",
            "How's the house overall - rooms and devices?",
            "{Give me|I'd like} an overview of {the house|my home|the whole place}{ now|}.",
            "How {does|is} {everything|the home} {look|looking} {overall|room by room}?",
            "{Summarise|Sum up} the house for me: rooms, devices, anything offline.",
            "What's the {state|status} of the {house|home} as a whole{ now|}?",
        ),
    ),
    FollowUp(
        "what_that_scene_does",
        "The person asks what the scene of the dialogue sets.",
        the_scene,
        "get_scene",
        phrasings=(
            "What does that scene actually set?",
            "Remind me which devices that scene touches.",
            "{Show me|Tell me} what's {in|inside} that scene.",
            "{Which|What} devices does {it|that scene} {change|control}, and to what?",
            "{Walk me through|Break down} that scene{ for me|}.",
        ),
        asked=False,
    ),
)


follow_ups(iot, ASKS)


@iot.intent(covers=("set_device_power",), opens=False, follows=True)
def off_again(s: Scene) -> None:
    """The person switches the device of the dialogue off (or back on) again."""
    d = the_device(s, "d.online = 1 AND d.type IN ('light', 'plug', 'speaker', 'camera')")
    on = d["power"] != "on"
    s.say(
        "Actually, {switch|turn} it {st} again.",
        "{Hmm|On second thought}, turn it {st} for now.",
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
        "{Put|Set} it at {n} percent instead.",
        "Make that {n}%.",
        way="brighter" if level > (d["brightness"] or 0) else "dimmer",
        n=level,
    )
    s.call("set_light", device_id=d["device_id"], brightness=level)


@iot.intent(covers=("list_devices",), opens=False, follows=True)
def anything_down(s: Scene) -> None:
    """The person asks what in the house is offline, or low on battery."""
    hid = the_home(s)
    if s.rng.random() < 0.5:
        ask_for(
            s,
            "list_devices",
            {"home_id": hid, "max_battery": 20},
            "While you're at it, {anything|is anything} running low on battery?",
            "Does anything need new batteries soon - say 20% or less?",
            "{Which|What} devices are {down to|under} 20% battery{ or so|}?",
            "{And|Also} {what|which gadgets} will need {a battery swap|new batteries} {soon|before long}?",
        )
        return
    ask_for(
        s,
        "list_devices",
        {"home_id": hid, "online": False},
        "Is anything else in the {house|home} offline{ now|}?",
        "{Anything|Is anything} not responding at home right now?",
        "{Which|What} {devices|gadgets} have {dropped off|gone offline}{ since|}?",
        "{And|Also} {check whether|see if} anything else {is down|has lost its connection}.",
    )


@iot.intent(covers=("list_automations",), opens=False, follows=True)
def my_routines(s: Scene) -> None:
    """The person asks which routines they have (or which are paused)."""
    hid = the_home(s)
    s.asked("list_automations", home_id=hid)
    if s.rng.random() < 0.3:
        s.say(
            "Which of my routines are paused right now?",
            "Anything I switched off in my routines?",
            "{Which|What} {routines|automations} {are off|aren't running} at the moment?",
        )
        s.call("list_automations", home_id=hid, enabled=False)
        return
    s.say(
        "What routines do I have?",
        "Which automations are set up at my place?",
        "Remind me of my routines.",
        "{List|Show me} the {routines|automations} {I've set up|I have}{, please|}.",
        "{What|Which} {schedules|routines} does the house run on its own?",
    )
    s.call("list_automations", home_id=hid)


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
        "Nobody's home {till tonight|all day}, so {m} for the thermostat.",
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
        "How {w} is it in the {r} {right now|at the moment}?",
        "What's the {k} in the {r} at the moment?",
        w="warm" if n["kind"] == "temperature" else "humid",
        k=n["kind"],
        r=d["room"].lower(),
    )
    s.call("list_sensors", room_id=d["room_id"], kind=n["kind"])
