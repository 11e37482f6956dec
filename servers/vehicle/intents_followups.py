"""Short follow-ups a driver asks about the car of the dialogue: range now, lock it, switch it off, lights, trunk,
gear, the route, the tyres.

Each continues a dialogue of ``intents`` on the car it left in ``s.memory["car"]`` (the person talking owns it),
reads the car's state as it is after the earlier turns, and makes the one or two calls a careful agent makes. They
never open a dialogue. Those that are one turn and one call on the car are rows of ``QUICK``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.vehicle.intents import DOOR_WORDS, RANGE_ASKS, my_car, startable
from servers.vehicle.intents_trips import ONE_SOFT, open_parts
from servers.vehicle.schema import FLAT_PSI, MIN_CLIMATE_BATTERY
from servers.vehicle.tools import vehicle


def the_car(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The car of the dialogue as it is now, when it fits ``where`` (SQL on ``v``); ``Skip`` otherwise."""
    if not s.memory.get("car"):
        raise Skip("no car in the dialogue")
    return my_car(s, where, *params)


def _car(where: str) -> Callable[[Scene], dict[str, Any]]:
    return lambda s: the_car(s, where)


def _on_car(fixed: dict[str, Any]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda v: {"vehicle_id": v["vehicle_id"], **fixed}


def _changed(tool: str) -> Callable[[Scene, dict[str, Any]], None]:
    """A read is asked only after a write since the last look."""

    def check(s: Scene, args: dict[str, Any]) -> None:
        calls = list(s.calls)
        last = calls[-1].tool if calls else None
        if tool.startswith("get_") and (last == tool or not any(c.kind == "write" for c in calls)):
            raise Skip("nothing changed since the last look")

    return check


QUICK = (
    FollowUp(
        "how_far_now",
        "After the car did something, the driver asks how it stands: range, tyres, what is still open.",
        _car("1=1"),
        "get_vehicle_status",
        _on_car({}),
        (
            "How much range do I have now?",
            "Everything OK with it now? Anything {open or low|left open or running low}?",
            "What's its range and charge {at the moment|now}?",
            "Give me a quick rundown of how it stands {now|after that}.",
            "Any warnings on it I should know about?",
            "{So|OK,} how's the car {doing|looking}: {range|fuel and range}, doors, tyres?",
            *RANGE_ASKS[3:],
        ),
        asked=False,
        check=_changed("get_vehicle_status"),
        said_only=True,
    ),
    FollowUp(
        "let_me_in",
        "The driver is at the car and has it unlocked.",
        _car("v.locked = 1 AND v.gear = 'park'"),
        "set_door_lock",
        _on_car({"locked": False}),
        (
            "I'm walking up to it now, unlock it.",
            "I'm next to it - {open|undo} the locks.",
            "Let me in, I'm standing by the driver's side.",
            "{OK|Right|Alright}, {unlock it|unlock the car|unlock the doors}{|, please}.",
            "{I'm at|Just got to|I'm back at} the car. {Could you|Can you} {unlock it|let me in}?",
        ),
        asked=False,
        check=_changed("set_door_lock"),
        said_only=True,
    ),
    FollowUp(
        "switch_it_off",
        "The driver is done and has the parked car switched off.",
        _car("v.engine = 'on' AND v.gear = 'park'"),
        "stop_engine",
        _on_car({}),
        (
            "Right, switch it off now.",
            "I'm done, {power it down|shut it down}.",
            "{Kill|Cut} the engine, please.",
            "Turn it off again.",
            "{OK|Alright}, {you can|go ahead and} {switch|turn} the engine off{|, I'm finished}.",
            "{No need|No point} {keeping|leaving} it running - {off|engine off}, please.",
        ),
        asked=False,
        check=_changed("stop_engine"),
        said_only=True,
    ),
    FollowUp(
        "fire_it_up",
        "The driver wants the parked car running before they get in.",
        _car(startable("v.engine = 'off'")),
        "start_engine",
        _on_car({}),
        (
            "Now turn it on so it's ready.",
            "Fire it up, I'm {coming down|on my way}.",
            "Get it running, please.",
            "{Could|Can} you {start the car|turn the engine on|start the engine}{| for me}?",
            "{I'm on my way|Coming down now|Leaving soon}: {start it up|get it going|turn it on}.",
        ),
        asked=False,
        check=_changed("start_engine"),
        said_only=True,
    ),
    FollowUp(
        "never_mind_the_route",
        "The driver calls the guided trip off again.",
        _car("v.nav_active = 1"),
        "stop_navigation",
        _on_car({}),
        (
            "Actually, cancel the directions, plans changed.",
            "Never mind, drop the route.",
            "Call off the guidance, we're not going after all.",
            "{Forget|Scrap|Cancel} the {route|trip|navigation}{|, please} - {plans changed|we're staying}.",
            "{We changed our minds|Change of plans|I know the way}: {stop|end|turn off} the {directions|guidance}.",
        ),
        asked=False,
        check=_changed("stop_navigation"),
        said_only=True,
    ),
)


follow_ups(vehicle, QUICK)


@vehicle.intent(covers=("set_trunk", "set_door", "set_door_lock"), opens=False, follows=True)
def lock_it_up(s: Scene) -> None:
    """The driver walks away: whatever one thing is open gets closed, then the car is locked."""
    v = the_car(s, "v.locked = 0")
    parts = open_parts(s, v)
    if len(parts) > 1:
        raise Skip("too much open")
    if parts:
        s.say(
            "I'm heading off. Shut the {p} and lock it.",
            "Close the {p} and lock everything, please.",
            "Lock up - and the {p} is still open, close that first.",
            "{Close|Shut} the {p}, then lock {the car|up}{|, please}.",
            "{I'm off|Leaving now}. The {p} is still open: {close it|shut it} and lock {up|it all}.",
            p="trunk" if parts[0] == "trunk" else f"{DOOR_WORDS[parts[0]]} door",
        )
        if parts[0] == "trunk":
            s.call("set_trunk", vehicle_id=v["vehicle_id"], open=False)
        else:
            s.call("set_door", vehicle_id=v["vehicle_id"], door=parts[0], open=False)
    else:
        s.say(
            "OK, lock it up.",
            "I'm walking away now - lock it.",
            "And lock the car, please.",
            "Lock it for me.",
            "{Could|Can} you {lock|secure} the {car|doors}{|, thanks}?",
            "{I'm off|Leaving now}, make sure it's locked{| behind me}.",
        )
    s.call("set_door_lock", vehicle_id=v["vehicle_id"], locked=True)


@vehicle.intent(covers=("set_climate",), opens=False, follows=True)
def cabin_tweak(s: Scene) -> None:
    """The driver changes the cabin: another temperature, a seat warmer, or the climate off."""
    v = the_car(s)
    can_run = v["engine"] == "on" or (v["powertrain"] != "gas" and (v["battery_pct"] or 0) >= MIN_CLIMATE_BATTERY)
    running = v["climate_on"] or v["seat_heat_driver"] or v["seat_heat_passenger"]
    choice = s.rng.choice(("off", "seat", "temp"))
    if choice == "off" and running:
        s.say(
            "Warm enough now, turn the heating off.",
            "You can switch the climate off again.",
            "Kill the AC, it's fine now.",
            "{Turn|Switch} {the climate|the heating and seats} off{|, please}.",
            "{It's fine now|That's comfortable|We're warm enough} - {no more climate|turn the heat off}.",
        )
        s.call("set_climate", vehicle_id=v["vehicle_id"], on=False)
        return
    if not can_run:
        raise Skip("the climate cannot run now")
    if choice == "seat":
        level = s.rng.choice((1, 2, 3))
        side = s.rng.choice(("passenger", "driver"))
        if v[f"seat_heat_{side}"] == level:
            raise Skip("already at that level")
        s.say(
            "Also warm the {side} seat, level {n}.",
            "And put the {side} seat heater on {n}.",
            "Heat the {side} seat too - {n}, please.",
            "{Could|Can} you {switch on|turn on} the {side} seat heater{| at} {n}?",
            "The {side} seat is {cold|freezing}: {heater|seat heat} on {n}{|, please}.",
            side=side,
            n=level,
        )
        s.call("set_climate", vehicle_id=v["vehicle_id"], on=True, **{f"{side}_seat_heat": level})
        return
    temp = float(s.rng.choice([t for t in (18, 19, 20, 21, 22, 23, 24) if t != v["climate_temp"]]))
    s.say(
        "Actually make it {t} degrees.",
        "Bring the cabin to {t} instead.",
        "Can you change the cabin to {t}°C?",
        "{Set|Change} the temperature to {t}{|, please}.",
        "{It's a bit|Hmm, too} {warm|cold} - {t} degrees{| instead}.",
        t=f"{temp:g}",
    )
    s.call("set_climate", vehicle_id=v["vehicle_id"], on=True, temperature=temp)


LIGHTS = {
    "low": ("Headlights on, dipped beam.", "Put the low beams on.", "Switch the headlamps on, normal beam."),
    "auto": ("Put the headlamps back on auto.", "Let the car handle the headlamps - auto mode."),
    "off": ("Headlamps off, please.", "Switch the headlamps off.", "{No need for|Kill} the {headlamps|lights}{| now}."),
    "high": ("Full beams, please, it's pitch dark.", "High beams on.", "{I can't see|It's dark}: high beams."),
}
LIGHTS_ANY = (
    "{Change|Switch|Set} the {headlights|lights|headlamps} to {w}{|, please}.",
    "{Could|Can} you {set|put} the {headlamps|lights} to {w}?",
    "{Lights|Headlamps}: {w}{|, thanks}.",
)
LIGHT_WORDS = {"low": "dipped beam", "auto": "auto", "off": "off", "high": "full beam"}


@vehicle.intent(covers=("set_lights",), opens=False, follows=True)
def headlights(s: Scene) -> None:
    """The driver changes the headlights (full beam only while driving)."""
    v = the_car(s)
    options = ["low", "auto", "off"] + (["high"] if v["gear"] == "drive" else [])
    mode = s.rng.choice([m for m in options if m != v["lights"]])
    s.say(*LIGHTS[mode], *LIGHTS_ANY, w=LIGHT_WORDS[mode])
    s.call("set_lights", vehicle_id=v["vehicle_id"], mode=mode)


@vehicle.intent(covers=("set_door_lock", "set_trunk"), opens=False, follows=True)
def boot_please(s: Scene) -> None:
    """The driver has the trunk opened (unlocking first), or closed again."""
    v = the_car(s, "v.gear = 'park'")
    if v["trunk_open"]:
        s.say(
            "Close the {trunk|boot} again.",
            "Shut the boot, I'm done loading.",
            "You can close the {trunk|boot} now.",
            "{All done|Finished loading|That's all in}, {close|shut} the {trunk|boot}{|, please}.",
            "{Could|Can} you {close|shut} the {trunk|boot} {for me|again}?",
        )
        s.call("set_trunk", vehicle_id=v["vehicle_id"], open=False)
        return
    s.say(
        "Pop the {trunk|boot} too, I've got bags.",
        "Open the boot for me.",
        "I need the {trunk|boot} open, please.",
        "{Could|Can} you open the {trunk|boot}{| as well}?",
        "I've got {shopping|luggage|a suitcase} - {trunk|boot} open, please.",
    )
    if v["locked"]:
        s.call("set_door_lock", vehicle_id=v["vehicle_id"], locked=False)
    s.call("set_trunk", vehicle_id=v["vehicle_id"], open=True)


@vehicle.intent(covers=("shift_gear",), opens=False, follows=True)
def in_gear(s: Scene) -> None:
    """The driver is in the seat and has the running car put in drive (or back in park)."""
    v = the_car(s, "v.engine = 'on'")
    if v["gear"] == "drive":
        if v["nav_active"]:
            raise Skip("parking mid-trip is for the arrival intent")
        s.say(
            "Put it back in park.",
            "Back to park, please.",
            "Park it.",
            "{Shift|Put} it {into|back in} park{|, please}.",
            "{We've stopped|We're here}: {park|into park}, {please|now}.",
        )
        s.call("shift_gear", vehicle_id=v["vehicle_id"], gear="park")
        return
    if v["gear"] != "park" or open_parts(s, v):
        raise Skip("not ready to drive")
    if s.value("SELECT COUNT(*) FROM tires WHERE vehicle_id = ? AND pressure_psi < ?", v["vehicle_id"], FLAT_PSI):
        raise Skip("a flat tyre")
    s.say(
        "I'm in. Put it in drive.",
        "Buckled up - drive mode, please.",
        "OK, into drive, let's go.",
        "{Shift|Put} it {into|in} drive{|, please}.",
        "{Seatbelt on|I'm buckled in|Ready to go}. {Drive|Into drive}, {please|let's go}.",
    )
    s.call("shift_gear", vehicle_id=v["vehicle_id"], gear="drive")


@vehicle.intent(covers=("get_vehicle_status", "inflate_tire"), opens=False, follows=True)
def tyres_too(s: Scene) -> None:
    """While the car is parked, the driver has its one soft tyre pumped back to spec."""
    v = the_car(s, "v.gear = 'park' AND " + ONE_SOFT)
    s.say(
        "While it's parked, check the tyres and pump up any that's soft.",
        "I'm by an air pump - sort out whichever tyre is low.",
        "Top up the tyre that's low while you're at it.",
        "{One of the tyres|A tyre} {looks|seems} low. {Pump it up|Put air in it}{|, please}.",
        "{While we're here|Since it's parked}, {fill up|inflate} whichever tyre is {low|soft}.",
    )
    status = next(
        (
            c.result
            for c in reversed(list(s.calls))
            if c.tool == "get_vehicle_status" and c.arguments["vehicle_id"] == v["vehicle_id"]
        ),
        None,
    )
    if status is None or any(c.kind == "write" and c.tool != "get_vehicle_status" for c in s.calls):
        status = s.call("get_vehicle_status", vehicle_id=v["vehicle_id"])
    low = [t for t in status["tires"] if t["pressure_psi"] < t["recommended_psi"] - 3]
    if len(low) != 1 or len({t["recommended_psi"] for t in status["tires"]}) > 1:
        raise Skip("not exactly one soft tyre")
    s.call(
        "inflate_tire", vehicle_id=v["vehicle_id"], position=low[0]["position"], pressure_psi=low[0]["recommended_psi"]
    )
