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
from servers.vehicle.intents import DOOR_WORDS, WORDS, my_car, startable
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
            *WORDS.range_asks[3:],
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
        asked=False,
        check=_changed("stop_navigation"),
        said_only=True,
    ),
)


follow_ups(vehicle, QUICK, WORDS)


@vehicle.intent(covers=("set_trunk", "set_door", "set_door_lock"), opens=False, follows=True)
def lock_it_up(s: Scene) -> None:
    """The driver walks away: whatever one thing is open gets closed, then the car is locked."""
    v = the_car(s, "v.locked = 0")
    parts = open_parts(s, v)
    if len(parts) > 1:
        raise Skip("too much open")
    if parts:
        s.say(WORDS.lock_it_up, p="trunk" if parts[0] == "trunk" else f"{DOOR_WORDS[parts[0]]} door")
        if parts[0] == "trunk":
            s.call("set_trunk", vehicle_id=v["vehicle_id"], open=False)
        else:
            s.call("set_door", vehicle_id=v["vehicle_id"], door=parts[0], open=False)
    else:
        s.say(WORDS.lock_it_up_just_lock)
    s.call("set_door_lock", vehicle_id=v["vehicle_id"], locked=True)


@vehicle.intent(covers=("set_climate",), opens=False, follows=True)
def cabin_tweak(s: Scene) -> None:
    """The driver changes the cabin: another temperature, a seat warmer, or the climate off."""
    v = the_car(s)
    can_run = v["engine"] == "on" or (v["powertrain"] != "gas" and (v["battery_pct"] or 0) >= MIN_CLIMATE_BATTERY)
    running = v["climate_on"] or v["seat_heat_driver"] or v["seat_heat_passenger"]
    choice = s.rng.choice(("off", "seat", "temp"))
    if choice == "off" and running:
        s.say(WORDS.cabin_tweak_off)
        s.call("set_climate", vehicle_id=v["vehicle_id"], on=False)
        return
    if not can_run:
        raise Skip("the climate cannot run now")
    if choice == "seat":
        level = s.rng.choice((1, 2, 3))
        side = s.rng.choice(("passenger", "driver"))
        if v[f"seat_heat_{side}"] == level:
            raise Skip("already at that level")
        s.say(WORDS.cabin_tweak_seat_heat, side=side, n=level)
        s.call("set_climate", vehicle_id=v["vehicle_id"], on=True, **{f"{side}_seat_heat": level})
        return
    temp = float(s.rng.choice([t for t in (18, 19, 20, 21, 22, 23, 24) if t != v["climate_temp"]]))
    s.say(WORDS.cabin_tweak, t=f"{temp:g}")
    s.call("set_climate", vehicle_id=v["vehicle_id"], on=True, temperature=temp)


LIGHTS = WORDS.family("lights")
LIGHT_WORDS = {"low": "dipped beam", "auto": "auto", "off": "off", "high": "full beam"}


@vehicle.intent(covers=("set_lights",), opens=False, follows=True)
def headlights(s: Scene) -> None:
    """The driver changes the headlights (full beam only while driving)."""
    v = the_car(s)
    options = ["low", "auto", "off"] + (["high"] if v["gear"] == "drive" else [])
    mode = s.rng.choice([m for m in options if m != v["lights"]])
    s.say(*LIGHTS[mode], *WORDS.lights_any, w=LIGHT_WORDS[mode])
    s.call("set_lights", vehicle_id=v["vehicle_id"], mode=mode)


@vehicle.intent(covers=("set_door_lock", "set_trunk"), opens=False, follows=True)
def boot_please(s: Scene) -> None:
    """The driver has the trunk opened (unlocking first), or closed again."""
    v = the_car(s, "v.gear = 'park'")
    if v["trunk_open"]:
        s.say(WORDS.boot_please_close)
        s.call("set_trunk", vehicle_id=v["vehicle_id"], open=False)
        return
    s.say(WORDS.boot_please)
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
        s.say(WORDS.in_gear_park)
        s.call("shift_gear", vehicle_id=v["vehicle_id"], gear="park")
        return
    if v["gear"] != "park" or open_parts(s, v):
        raise Skip("not ready to drive")
    if s.value("SELECT COUNT(*) FROM tires WHERE vehicle_id = ? AND pressure_psi < ?", v["vehicle_id"], FLAT_PSI):
        raise Skip("a flat tyre")
    s.say(WORDS.in_gear)
    s.call("shift_gear", vehicle_id=v["vehicle_id"], gear="drive")


@vehicle.intent(covers=("get_vehicle_status", "inflate_tire"), opens=False, follows=True)
def tyres_too(s: Scene) -> None:
    """While the car is parked, the driver has its one soft tyre pumped back to spec."""
    v = the_car(s, "v.gear = 'park' AND " + ONE_SOFT)
    s.say(WORDS.tyres_too)
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
