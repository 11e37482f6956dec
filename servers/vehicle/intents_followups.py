"""Short follow-ups a driver asks about the car of the dialogue: range now, lock it, switch it off, lights, trunk,
gear, the route, the tyres.

Each continues a dialogue of ``intents.py`` on the car it left in ``s.memory["car"]`` (the person talking owns it),
reads the car's state as it is after the earlier turns, and makes the one or two calls a careful agent makes. They
never open a dialogue.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.vehicle.intents import CAR, DOOR_WORDS, startable
from servers.vehicle.schema import FLAT_PSI, MIN_CLIMATE_BATTERY
from servers.vehicle.tools import vehicle


def the_car(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The car of the dialogue as it is now, when it fits ``where`` (SQL on ``v``); ``Skip`` otherwise."""
    known = s.memory.get("car")
    if not known:
        raise Skip("no car in the dialogue")
    found = s.rows(CAR + f" AND v.vehicle_id = ? AND ({where})", known["vehicle_id"], *params)
    if not found:
        raise Skip("the car of the dialogue does not fit")
    return found[0]


def last_tool(s: Scene) -> str | None:
    calls = list(s.calls)
    return calls[-1].tool if calls else None


def open_parts(s: Scene, vid: str) -> list[str]:
    doors = [r["door"] for r in s.rows("SELECT door FROM doors WHERE vehicle_id = ? AND is_open = 1", vid)]
    return doors + (["trunk"] if s.value("SELECT trunk_open FROM vehicles WHERE vehicle_id = ?", vid) else [])


@vehicle.intent(covers=("get_vehicle_status",), opens=False, follows=True)
def how_far_now(s: Scene) -> None:
    """After the car did something, the driver asks how it stands: range, tyres, what is still open."""
    v = the_car(s)
    if last_tool(s) == "get_vehicle_status" or not any(c.kind == "write" for c in s.calls):
        raise Skip("nothing changed since the last look")
    s.say(
        "How much range do I have now?",
        "Everything OK with it now? Anything open or low?",
        "What's its range and charge at the moment?",
        "Give me a quick rundown of how it stands now.",
        "Any warnings on it I should know about?",
    )
    s.call("get_vehicle_status", vehicle_id=v["vehicle_id"])


@vehicle.intent(covers=("set_trunk", "set_door", "set_door_lock"), opens=False, follows=True)
def lock_it_up(s: Scene) -> None:
    """The driver walks away: whatever one thing is open gets closed, then the car is locked."""
    v = the_car(s, "v.locked = 0")
    parts = open_parts(s, v["vehicle_id"])
    if len(parts) > 1:
        raise Skip("too much open")
    if parts:
        s.say(
            "I'm heading off. Shut the {p} and lock it.",
            "Close the {p} and lock everything, please.",
            "Lock up - and the {p} is still open, close that first.",
            p="trunk" if parts[0] == "trunk" else f"{DOOR_WORDS[parts[0]]} door",
        )
        if parts[0] == "trunk":
            s.call("set_trunk", vehicle_id=v["vehicle_id"], open=False)
        else:
            s.call("set_door", vehicle_id=v["vehicle_id"], door=parts[0], open=False)
    else:
        s.say("OK, lock it up.", "I'm walking away now - lock it.", "And lock the car, please.", "Lock it for me.")
    s.call("set_door_lock", vehicle_id=v["vehicle_id"], locked=True)


@vehicle.intent(covers=("set_door_lock",), opens=False, follows=True)
def let_me_in(s: Scene) -> None:
    """The driver is at the car and has it unlocked."""
    v = the_car(s, "v.locked = 1 AND v.gear = 'park'")
    s.say(
        "I'm walking up to it now, unlock it.",
        "I'm next to it - open the locks.",
        "Let me in, I'm standing by the driver's side.",
    )
    s.call("set_door_lock", vehicle_id=v["vehicle_id"], locked=False)


@vehicle.intent(covers=("stop_engine",), opens=False, follows=True)
def switch_it_off(s: Scene) -> None:
    """The driver is done and has the parked car switched off."""
    v = the_car(s, "v.engine = 'on' AND v.gear = 'park'")
    s.say("Right, switch it off now.", "I'm done, power it down.", "Kill the engine, please.", "Turn it off again.")
    s.call("stop_engine", vehicle_id=v["vehicle_id"])


@vehicle.intent(covers=("start_engine",), opens=False, follows=True)
def fire_it_up(s: Scene) -> None:
    """The driver wants the parked car running before they get in."""
    v = the_car(s, startable("v.engine = 'off'"))
    s.say("Now turn it on so it's ready.", "Fire it up, I'm coming down.", "Get it running, please.")
    s.call("start_engine", vehicle_id=v["vehicle_id"])


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
        t=f"{temp:g}",
    )
    s.call("set_climate", vehicle_id=v["vehicle_id"], on=True, temperature=temp)


@vehicle.intent(covers=("set_lights",), opens=False, follows=True)
def headlights(s: Scene) -> None:
    """The driver changes the headlights (full beam only while driving)."""
    v = the_car(s)
    options = ["low", "auto", "off"] + (["high"] if v["gear"] == "drive" else [])
    mode = s.rng.choice([m for m in options if m != v["lights"]])
    s.say(
        *{
            "low": ("Headlights on, dipped beam.", "Put the low beams on.", "Switch the headlamps on, normal beam."),
            "auto": ("Put the headlamps back on auto.", "Let the car handle the headlamps - auto mode."),
            "off": ("Headlamps off, please.", "Switch the headlamps off."),
            "high": ("Full beams, please, it's pitch dark.", "High beams on."),
        }[mode]
    )
    s.call("set_lights", vehicle_id=v["vehicle_id"], mode=mode)


@vehicle.intent(covers=("set_door_lock", "set_trunk"), opens=False, follows=True)
def boot_please(s: Scene) -> None:
    """The driver has the trunk opened (unlocking first), or closed again."""
    v = the_car(s, "v.gear = 'park'")
    if v["trunk_open"]:
        s.say("Close the trunk again.", "Shut the boot, I'm done loading.", "You can close the trunk now.")
        s.call("set_trunk", vehicle_id=v["vehicle_id"], open=False)
        return
    s.say(
        "Pop the trunk too, I've got bags.",
        "Open the boot for me.",
        "I need the trunk open, please.",
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
        s.say("Put it back in park.", "Back to park, please.", "Park it.")
        s.call("shift_gear", vehicle_id=v["vehicle_id"], gear="park")
        return
    if v["gear"] != "park" or open_parts(s, v["vehicle_id"]):
        raise Skip("not ready to drive")
    if s.value("SELECT COUNT(*) FROM tires WHERE vehicle_id = ? AND pressure_psi < ?", v["vehicle_id"], FLAT_PSI):
        raise Skip("a flat tyre")
    s.say("I'm in. Put it in drive.", "Buckled up - drive mode, please.", "OK, into drive, let's go.")
    s.call("shift_gear", vehicle_id=v["vehicle_id"], gear="drive")


@vehicle.intent(covers=("stop_navigation",), opens=False, follows=True)
def never_mind_the_route(s: Scene) -> None:
    """The driver calls the guided trip off again."""
    v = the_car(s, "v.nav_active = 1")
    s.say(
        "Actually, cancel the directions, plans changed.",
        "Never mind, drop the route.",
        "Call off the guidance, we're not going after all.",
    )
    s.call("stop_navigation", vehicle_id=v["vehicle_id"])


@vehicle.intent(covers=("get_vehicle_status", "inflate_tire"), opens=False, follows=True)
def tyres_too(s: Scene) -> None:
    """While the car is parked, the driver has its one soft tyre pumped back to spec."""
    v = the_car(
        s,
        "v.gear = 'park' AND (SELECT COUNT(*) FROM tires t WHERE t.vehicle_id = v.vehicle_id AND "
        "t.pressure_psi < t.recommended_psi - 3) = 1",
    )
    s.say(
        "While it's parked, check the tyres and pump up any that's soft.",
        "I'm by an air pump - sort out whichever tyre is low.",
        "Top up the tyre that's low while you're at it.",
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
