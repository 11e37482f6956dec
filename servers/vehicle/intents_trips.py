"""Drivers on the move and at the pump: go somewhere, arrive, fill up, find the nearest fill, fix a soft tyre, and
owners of two cars locking both or picking the one that goes further (the car as in ``intents``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.kit.intent import Scene, Skip
from hub.kit.phrasings import Said
from servers.vehicle.intents import CAR, OWNERS, SIDES, WORDS, find_owner, intro, my_car, n_calls, owner_asks, startable
from servers.vehicle.tools import vehicle

PLACE_WORDS = {
    "airport": "the airport",
    "mall": "the mall",
    "hospital": "the hospital",
    "park": "the park",
    "stadium": "the arena",
    "hotel": "the hotel",
    "university": "the university",
    "office": "the office",
    "supermarket": "the grocery store",
    "restaurant": "the diner",
}
STATION = {"electric": "charging_station", "gas": "gas_station", "hybrid": "gas_station"}
TYRES = "FROM tires t WHERE t.vehicle_id = v.vehicle_id"
ONE_SOFT = f"(SELECT COUNT(*) {TYRES} AND t.pressure_psi < t.recommended_psi - 3) = 1"


@vehicle.intent(
    covers=("list_vehicles", "search_places", "set_destination", "start_engine", "start_navigation"),
    weight=2.0,
    follows=True,
)
def take_me_there(s: Scene) -> None:
    """A driver picks a place in town as the destination, then has the car started and guidance begun."""
    v = my_car(s, startable("v.nav_active = 0") + (" AND v.engine = 'on'" if not s.memory.get("car") else ""))
    dest = s.pick(
        "SELECT * FROM places p WHERE p.city = (SELECT city FROM places WHERE place_id = ?) AND "
        "p.place_id != ? AND (SELECT COUNT(*) FROM places q WHERE q.city = p.city AND q.category = "
        "p.category) = 1",
        v["location_place_id"],
        v["location_place_id"],
    )
    vid = owner_asks(
        s, v, True, WORDS.take_me_there, w=PLACE_WORDS.get(dest["category"], f"the {dest['name']}"), city=dest["city"]
    )
    near = {"near_vehicle_id": vid} if s.rng.random() < 0.4 else {}
    found = s.call("search_places", category=dest["category"], city=dest["city"], **near)["places"]
    if [p["place_id"] for p in found] != [dest["place_id"]]:
        raise Skip("more than one place fits")
    if not s.call("set_destination", vehicle_id=vid, place_id=found[0]["place_id"])["range_sufficient"]:
        raise Skip("not enough range")
    if len(s.intents) > 1 and not s.room(1 + (v["engine"] == "off"), 1):
        return
    s.say(WORDS.take_me_there_then_start)
    if v["engine"] == "off":
        s.call("start_engine", vehicle_id=vid)
    s.call("start_navigation", vehicle_id=vid)


@vehicle.intent(covers=("list_vehicles", "stop_navigation", "shift_gear", "stop_engine", "set_lights"), weight=1.5)
def made_it(s: Scene) -> None:
    """A driver on a guided trip arrives (or calls it off): the trip ends, the car is put in park and switched off."""
    v = my_car(s, "v.nav_active = 1 AND v.gear = 'drive'")
    dest = s.rows("SELECT * FROM places WHERE place_id = ?", v["destination_place_id"])[0]
    arrived = s.rng.random() < 0.7
    if not arrived and v["lights"] == "high":
        raise Skip("high beams already on")
    vid = owner_asks(s, v, True, WORDS.made_it if arrived else WORDS.made_it_cancel_route, d=dest["name"])
    if arrived:
        s.call("stop_navigation", vehicle_id=vid, arrived=True)
        s.say(WORDS.made_it_then_park)
        s.call("shift_gear", vehicle_id=vid, gear="park")
        s.call("stop_engine", vehicle_id=vid)
        return
    s.call("stop_navigation", vehicle_id=vid)
    s.say(WORDS.made_it_cancel_then_high_beams)
    s.call("set_lights", vehicle_id=vid, mode="high")


@vehicle.intent(
    covers=("list_owners", "list_vehicles", "stop_engine", "refuel_vehicle", "get_vehicle_status"),
    weight=1.5,
    follows=True,
)
def fill_up(s: Scene) -> None:
    """A driver at the pump or the charger fills up to a level; the engine has to be off first."""
    v = my_car(
        s,
        "v.gear = 'park' AND v.nav_active = 0 AND ((v.powertrain = 'electric' AND v.battery_pct < 75) OR "
        "(v.powertrain != 'electric' AND v.fuel_pct < 75))",
    )
    level = s.rng.choice((80, 90, 100, 100))
    ev = v["powertrain"] == "electric"
    start = n_calls(s)
    vid = owner_asks(
        s,
        v,
        v["engine"] == "on" or s.rng.random() < 0.3,
        WORDS.fill_up,
        at="charger" if ev else "pump",
        What="Charge" if ev else "Fill",
        what="charge" if ev else "fill",
        full="to full" if level == 100 else f"to {level}%",
    )
    if v["engine"] == "on":
        s.call("stop_engine", vehicle_id=vid)
    s.call("refuel_vehicle", vehicle_id=vid, **({"percent": level} if level != 100 and not s.minimal else {}))
    if s.rng.random() < 0.6 and n_calls(s) - start < 4 and s.room(1, 1):
        s.say(
            "How far can I go on that now?",
            "What's the range after that?",
            "So how many {km|kilometres} do I have now?",
            "{And|So} what range {does that give me|am I at}?",
            *WORDS.range_asks[3:],
        )
        s.call("get_vehicle_status", vehicle_id=vid)


@vehicle.intent(covers=("list_owners", "list_vehicles", "get_vehicle_status", "inflate_tire"))
def soft_tyre(s: Scene) -> None:
    """A driver sees a tyre warning, asks which tyre, and pumps it back to the recommended pressure."""
    v = my_car(s, "v.gear = 'park' AND " + ONE_SOFT)
    vid = owner_asks(s, v, False, WORDS.soft_tyre)
    status = s.call("get_vehicle_status", vehicle_id=vid)
    low = [t for t in status["tires"] if t["pressure_psi"] < t["recommended_psi"] - 3]
    if len({t["recommended_psi"] for t in status["tires"]}) > 1:
        raise Skip("tyres with different recommended pressures")
    s.say(WORDS.soft_tyre_then_inflate)
    s.call("inflate_tire", vehicle_id=vid, position=low[0]["position"], pressure_psi=low[0]["recommended_psi"])


@vehicle.intent(
    covers=("list_owners", "list_vehicles", "search_places", "set_destination", "start_navigation"), follows=True
)
def nearest_fill(s: Scene) -> None:
    """A driver running low asks for the nearest gas station or charger from where the car is, and may be routed."""
    v = my_car(s, "v.nav_active = 0 AND v.gear = 'park'")
    kind = STATION[v["powertrain"]]
    vid = owner_asks(
        s, v, s.rng.random() < 0.4, WORDS.nearest_fill, w="charger" if kind == "charging_station" else "gas station"
    )
    limit = {"limit": 3} if s.rng.random() < 0.3 else {}
    found = s.call("search_places", category=kind, near_vehicle_id=vid, **limit)
    places = [p for p in found["places"] if p["place_id"] != v["location_place_id"]]
    if not places or not s.room(1, 1) or s.rng.random() < 0.4:
        return
    s.say(WORDS.nearest_fill_then_route)
    out = s.call("set_destination", vehicle_id=vid, place_id=places[0]["place_id"])
    engine = s.value("SELECT engine FROM vehicles WHERE vehicle_id = ?", vid)
    if out["range_sufficient"] and engine == "on" and s.room(1, 0):
        s.call("start_navigation", vehicle_id=vid)


@vehicle.intent(covers=("list_owners", "list_vehicles", "inflate_tire"), follows=True)
def pump_it_to(s: Scene) -> None:
    """A driver at an air pump has one soft tyre brought to the pressure on the door sticker."""
    v = my_car(s, f"v.gear = 'park' AND (SELECT COUNT(DISTINCT recommended_psi) {TYRES}) = 1")
    soft = s.rows("SELECT * FROM tires WHERE vehicle_id = ? AND pressure_psi < recommended_psi - 2", v["vehicle_id"])
    if not soft:
        raise Skip("no soft tyre")
    tyre = s.rng.choice(soft)
    psi = tyre["recommended_psi"]
    vid = owner_asks(
        s,
        v,
        s.rng.random() < 0.4,
        WORDS.pump_it_to,
        w=SIDES[tyre["position"]],
        psi=s.given(psi, f"{psi:g} psi", "pressure", "inflate_tire", "pressure_psi"),
    )
    s.call("inflate_tire", vehicle_id=vid, position=tyre["position"], pressure_psi=psi)


@vehicle.intent(covers=("list_owners", "list_vehicles", "set_lights"))
def headlamps(s: Scene) -> None:
    """A driver changes the headlamps of the car (full beam only while driving)."""
    v = my_car(s)
    options = ["low", "auto", "off"] + (["high"] if v["gear"] == "drive" else [])
    mode = s.rng.choice([m for m in options if m != v["lights"]])
    words = {"low": "dipped beam", "auto": "auto", "off": "off", "high": "full beam"}
    vid = owner_asks(
        s, v, s.rng.random() < 0.4, WORDS.headlamps, how=s.given(mode, words[mode], "mode", "set_lights", "mode")
    )
    s.call("set_lights", vehicle_id=vid, mode=mode)


def owner_of_two(
    s: Scene, where: str, fits: Callable[[list[dict[str, Any]]], None], *phrasings: Said, **slots: Any
) -> tuple[list[dict[str, Any]], list[Any]]:
    """An owner (unique name) with exactly two cars that fit ``where`` and ``fits`` (which raises ``Skip``); the
    persona becomes them; their opening turn in one of ``phrasings`` (``{me}`` filled), then the discovery calls: the
    owner and their cars, as listed."""
    if s.memory.get("car"):
        raise Skip("a dialogue about one car")
    o = s.pick(OWNERS + " AND (SELECT COUNT(*) FROM vehicles v WHERE v.owner_id = o.owner_id) = 2")
    cars = s.rows(CAR + f" AND v.owner_id = ? AND ({where}) ORDER BY v.vehicle_id", o["owner_id"])
    if len(cars) != 2:
        raise Skip("the two cars do not fit")
    fits(cars)
    s.be(o["name"])
    s.say(*phrasings, me=intro(s, o), **slots)
    return cars, s.call("list_vehicles", owner_id=find_owner(s, o))["vehicles"]


@vehicle.intent(covers=("list_owners", "list_vehicles", "set_trunk", "set_door", "set_door_lock", "get_vehicle_status"))
def lock_both(s: Scene) -> None:
    """An owner of two cars has both locked (whatever one part is left open is closed first)."""
    opened: list[tuple[str, str]] = []

    def fits(cars: list[dict[str, Any]]) -> None:
        opened.extend((c["vehicle_id"], p) for c in cars for p in open_parts(s, c))
        unlocked = {c["vehicle_id"] for c in cars if not c["locked"]}
        if not unlocked or len(opened) > 1 or any(vid not in unlocked for vid, _ in opened):
            raise Skip("both are locked, or too much is open")
        if cars[0]["model"] == cars[1]["model"]:
            raise Skip("two cars of one model")

    _, listed = owner_of_two(s, "v.gear = 'park'", fits, WORDS.lock_both)
    for car in [c for c in listed if not c["locked"]]:
        for vid, part in [o for o in opened if o[0] == car["vehicle_id"]]:
            if part == "trunk":
                s.call("set_trunk", vehicle_id=vid, open=False)
            else:
                s.call("set_door", vehicle_id=vid, door=part, open=False)
        s.call("set_door_lock", vehicle_id=car["vehicle_id"], locked=True)
    if not s.room(1, 1):
        return
    pick = s.rng.choice(listed)
    s.say(WORDS.lock_both_then_range, m=pick["model"])
    s.call("get_vehicle_status", vehicle_id=pick["vehicle_id"])
    s.memory["car"] = {"vehicle_id": pick["vehicle_id"]}


def open_parts(s: Scene, v: dict[str, Any]) -> list[str]:
    """The doors of car ``v`` that stand open, and its trunk when it does."""
    doors = [r["door"] for r in s.rows("SELECT door FROM doors WHERE vehicle_id = ? AND is_open = 1", v["vehicle_id"])]
    return doors + (["trunk"] if v["trunk_open"] else [])


@vehicle.intent(covers=("list_owners", "list_vehicles", "get_vehicle_status"))
def which_goes_further(s: Scene) -> None:
    """An owner of two cars asks which one can go further right now, to take that one."""
    _, listed = owner_of_two(s, "1=1", lambda cars: None, WORDS.which_goes_further)
    ranges = [(s.call("get_vehicle_status", vehicle_id=c["vehicle_id"])["range_km"], c["vehicle_id"]) for c in listed]
    if len(ranges) != 2 or ranges[0][0] == ranges[1][0]:
        raise Skip("no clear winner")
    s.memory["car"] = {"vehicle_id": max(ranges)[1]}
