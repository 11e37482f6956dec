"""What drivers want of their connected car: warm it up, let air in, load the trunk, lock up, let someone in,
find it, check the service history (trips, upkeep, lights and two-car owners: ``intents_trips``).

The user owns the car and names it by model (and colour when they own two alike) or reads its plate
off the bumper; the agent finds the owner with ``list_owners`` (``SPEAKER``) and the car with
``list_vehicles`` (a plate or model matches its text filter). Most actions are gated by the car's mode:
windows and a gas car's climate need the engine on, doors and trunk open only in park and unlocked,
refuelling needs the engine off, arriving needs the car in drive. The ground truth sets up those
preconditions with the calls a careful agent makes first.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from hub.kit.phrasings import Said, phrasings, spoken
from hub.kit.speaker import Search, Speaker
from servers.vehicle import tools_trip, tools_write  # noqa: F401  (tools before intents)
from servers.vehicle.tools import OwnerId, vehicle

WORDS = phrasings(__package__)

UNIQUE = "(SELECT COUNT(*) FROM owners x WHERE x.name = o.name) = 1"
OWNERS = "SELECT o.owner_id, o.name, o.city FROM owners o WHERE " + UNIQUE
CAR = (
    "SELECT v.*, o.name AS owner, o.city, p.name AS here FROM vehicles v JOIN owners o USING (owner_id) "
    "JOIN places p ON p.place_id = v.location_place_id "
    "WHERE " + UNIQUE
)
OPEN_DOOR = "d.vehicle_id = v.vehicle_id AND d.is_open = 1)"
SIDES = {"front_left": "front left", "front_right": "front right", "rear_left": "back left", "rear_right": "back right"}
DOOR_WORDS = {**SIDES, "front_left": "driver's", "front_right": "passenger"}
SPEAKER = Speaker(OwnerId, select=OWNERS, memory="owner", search=Search())


def my_car(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """A car of the driver talking (the one an earlier turn was about, ``Skip`` when it does not fit), or a
    fresh pick; the persona becomes its owner."""
    known = s.recall("car", "vehicle_id", CAR + f" AND v.vehicle_id = ? AND ({where})", *params, who="car")
    if known is not None:
        return known
    v = s.pick(CAR + f" AND ({where})", *params)
    s.be(v["owner"])
    return v


def car_ref(s: Scene, v: dict[str, Any], by_plate: bool) -> str:
    """The car as its owner names it: its plate, or by model, with its colour or its plate when that is not enough."""
    if s.memory.get("car"):
        return "the car"
    if by_plate:
        return f"the car with plate {v['plate']}"
    same = "SELECT vehicle_id FROM vehicles WHERE owner_id = ? AND model = ?"
    return s.refer(
        v["vehicle_id"],
        Ref("my {model}", same, v["owner_id"], v["model"]),
        Ref("my {color} {model}", same + " AND color = ?", v["owner_id"], v["model"], v["color"]),
        Ref("my {model} (plate {plate})", "SELECT vehicle_id FROM vehicles WHERE plate = ?", v["plate"]),
        **v,
    )


def intro(s: Scene, o: dict[str, Any]) -> str:
    """ "I'm <name>. " (sometimes with their city, which the agent can filter owners by) until the car is found."""
    if s.memory.get("car"):
        return ""
    if s.rng.random() < 0.35:
        s.memory["by_city"] = o["city"]
        return f"I'm {o['name']} from {o['city']}. "
    return f"I'm {o['name']}. "


def find_owner(s: Scene, o: dict[str, Any]) -> str:
    """The discovery read for the owner (``SPEAKER``), filtered by the city they said."""
    city = s.memory.pop("by_city", None)
    return SPEAKER.find(s, o, **({"city": city} if city else {}))


def owner_asks(s: Scene, v: dict[str, Any], by_plate: bool, *phrasings: Said, **slots: Any) -> str:
    """The opening turn, the owner (introduced until the car is found) asking about the car in one of
    ``phrasings`` (``{me}``, ``{car}`` and ``slots`` filled), then the discovery calls for it: the car's id, found
    by its plate or as one of the owner's cars."""
    o = {"owner_id": v["owner_id"], "name": v["owner"], "city": v["city"]}
    me = intro(s, o) if any("{me}" in p for p in spoken(phrasings)[0]) else ""
    s.say(*phrasings, me=me, car=car_ref(s, v, by_plate), **slots)
    known = s.memory.get("car")
    if known and known["vehicle_id"] == v["vehicle_id"]:
        return str(v["vehicle_id"])
    if by_plate:
        found = s.call("list_vehicles", query=v["plate"])["vehicles"]
    else:
        found = s.call("list_vehicles", owner_id=find_owner(s, o), **narrowing(s, v))["vehicles"]
    if v["vehicle_id"] not in [x["vehicle_id"] for x in found]:
        raise Skip("the car is past the first page")
    s.memory["car"] = {"vehicle_id": v["vehicle_id"]}
    return str(v["vehicle_id"])


def narrowing(s: Scene, v: dict[str, Any]) -> dict[str, Any]:
    """A filter on the owner's cars the way the user named theirs: by model, make or drive, or none."""
    how = s.rng.choice(("none", "none", "model", "make", "powertrain"))
    return {
        "model": {"query": v["model"]},
        "make": {"make": v["make"]},
        "powertrain": {"powertrain": v["powertrain"]},
    }.get(how, {})


def n_calls(s: Scene) -> int:
    return sum(1 for _ in s.calls)


def startable(extra: str = "1=1") -> str:
    """SQL: a parked car whose engine can start now (key inside, doors closed, fuel or charge left), or is on."""
    return (
        f"v.gear = 'park' AND ({extra}) AND (v.engine = 'on' OR (v.key_present = 1 AND NOT EXISTS (SELECT 1 FROM "
        "doors d WHERE d.vehicle_id = v.vehicle_id AND d.is_open = 1) AND (IFNULL(v.fuel_pct, 0) > 0 OR "
        "IFNULL(v.battery_pct, 0) >= 2)))"
    )


@vehicle.intent(
    covers=("list_owners", "list_vehicles", "start_engine", "set_climate", "get_vehicle_status"),
    weight=1.5,
    follows=True,
)
def warm_it_up(s: Scene) -> None:
    """A driver pre-heats (or cools) the car before getting in; a gas car needs its engine running for that."""
    v = my_car(s, startable("v.climate_on = 0 OR v.climate_temp != 22"))
    temp = float(s.rng.choice((18, 19, 20, 21, 22, 23, 24)))
    seat = s.rng.choice((None, None, 2, 3))
    start = n_calls(s)
    vid = owner_asks(
        s,
        v,
        v["engine"] == "off" or s.rng.random() < 0.5,
        WORDS.warm_it_up,
        t=f"{temp:g}",
        heat=f", and heat my seat (level {seat})" if seat else "",
    )
    if v["engine"] == "off" and (v["powertrain"] == "gas" or (v["battery_pct"] or 0) < 20):
        s.call("start_engine", vehicle_id=vid)
    args: dict[str, Any] = {} if s.minimal else {"temperature": temp, **({"driver_seat_heat": seat} if seat else {})}
    s.call("set_climate", vehicle_id=vid, on=True, **args)
    if n_calls(s) - start < 4 and s.by_chance(0.6):
        s.say(*WORDS.range_asks)
        s.call("get_vehicle_status", vehicle_id=vid)


@vehicle.intent(
    covers=("list_owners", "list_vehicles", "start_engine", "set_window", "get_vehicle_status"), follows=True
)
def fresh_air(s: Scene) -> None:
    """A driver opens (or closes) a window; windows need the engine on."""
    v = my_car(s, startable())
    door = s.rng.choice(list(DOOR_WORDS))
    cur = s.value("SELECT window_pct FROM doors WHERE vehicle_id = ? AND door = ?", v["vehicle_id"], door)
    pos = s.rng.choice([p for p in (0, 25, 50, 100) if p != cur])
    words = {0: "all the way up", 25: "a crack", 50: "halfway down", 100: "all the way down"}
    how = s.given(pos, words[pos], "position", "set_window", "position")
    start = n_calls(s)
    vid = owner_asks(s, v, v["engine"] == "off" or s.rng.random() < 0.5, WORDS.fresh_air, w=DOOR_WORDS[door], how=how)
    if v["engine"] == "off":
        s.call("start_engine", vehicle_id=vid)
    s.call("set_window", vehicle_id=vid, window=door, position=pos)
    if n_calls(s) - start < 4 and s.by_chance(0.35):
        s.say(WORDS.fresh_air_then_other_windows)
        s.call("get_vehicle_status", vehicle_id=vid)


@vehicle.intent(covers=("list_vehicles", "set_door_lock", "set_trunk"), weight=1.5)
def load_the_trunk(s: Scene) -> None:
    """A driver standing at the car with bags has the trunk opened (unlocking first), then closes and locks up."""
    v = my_car(s, "v.gear = 'park' AND v.trunk_open = 0 AND NOT EXISTS (SELECT 1 FROM doors d WHERE " + OPEN_DOOR)
    vid = owner_asks(s, v, True, WORDS.load_the_trunk)
    if v["locked"]:
        s.call("set_door_lock", vehicle_id=vid, locked=False)
    s.call("set_trunk", vehicle_id=vid, open=True)
    if v["locked"]:
        s.say(WORDS.load_the_trunk_close_only)
        s.call("set_trunk", vehicle_id=vid, open=False)
        return
    s.say(WORDS.load_the_trunk_close_and_lock)
    s.call("set_trunk", vehicle_id=vid, open=False)
    s.call("set_door_lock", vehicle_id=vid, locked=True)


@vehicle.intent(
    covers=("list_owners", "list_vehicles", "get_vehicle_status", "set_door", "set_trunk", "set_door_lock"), weight=1.5
)
def did_i_lock_it(s: Scene) -> None:
    """A driver who walked away asks whether the car is secure; whatever is open gets closed and the car locked."""
    v = my_car(
        s,
        "v.gear = 'park' AND v.locked = 0 AND (SELECT COUNT(*) FROM doors d WHERE "
        + OPEN_DOOR
        + " + v.trunk_open <= 1",
    )
    vid = owner_asks(s, v, True, WORDS.did_i_lock_it)
    status = s.call("get_vehicle_status", vehicle_id=vid)
    s.say(WORDS.did_i_lock_it_then_lock)
    for door in [d["door"] for d in status["doors"] if d["is_open"]]:
        s.call("set_door", vehicle_id=vid, door=door, open=False)
    if status["trunk_open"]:
        s.call("set_trunk", vehicle_id=vid, open=False)
    s.call("set_door_lock", vehicle_id=vid, locked=True)


@vehicle.intent(covers=("list_owners", "list_vehicles", "list_service_records"), follows=True)
def last_service(s: Scene) -> None:
    """A driver asks when a kind of service was last done on the car, or what was done lately."""
    v = my_car(s, "v.vehicle_id IN (SELECT vehicle_id FROM service_records)")
    kinds = [
        r["kind"] for r in s.rows("SELECT DISTINCT kind FROM service_records WHERE vehicle_id = ?", v["vehicle_id"])
    ]
    kind = s.rng.choice(kinds + [None])
    if kind:
        vid = owner_asks(s, v, False, WORDS.last_service_by_kind, k=kind)
    else:
        vid = owner_asks(
            s,
            v,
            False,
            "{me}What work has been done on {car} this year?",
            "{me}Show me {car}'s shop visits since January.",
            f"{{me}}Which services did {{car}} get in {s.now.year}?",
            "{me}Has {car} been in the {shop|garage} this year? What for?",
            "{me}{List|Give me} everything the {garage|mechanics} did on {car} since New Year.",
        )
    args: dict[str, Any] = {"kind": kind} if kind else {"since": f"{s.now.year}-01-01"}
    s.call("list_service_records", vehicle_id=vid, **args)
    if not s.room(1, 1) or s.rng.random() < 0.4:
        return
    other = s.rng.choice([k for k in kinds if k != kind] or kinds)
    s.say(WORDS.last_service, k=other)
    s.call("list_service_records", vehicle_id=vid, kind=other, **({"limit": 1} if s.rng.random() < 0.5 else {}))


@vehicle.intent(covers=("list_vehicles", "set_door_lock", "set_door", "set_climate"), follows=True)
def let_them_in(s: Scene) -> None:
    """A driver unlocks and opens a door of the parked car for a passenger (and warms the cabin for them)."""
    v = my_car(s, "v.gear = 'park'")
    door = s.rng.choice(("front_right", "rear_left", "rear_right"))
    if s.value("SELECT is_open FROM doors WHERE vehicle_id = ? AND door = ?", v["vehicle_id"], door):
        raise Skip("the door is open")
    which = s.given(door, f"the {DOOR_WORDS[door]} one", "door", "set_door", "door")
    vid = owner_asks(s, v, True, WORDS.let_them_in, which=which)
    if v["locked"]:
        s.call("set_door_lock", vehicle_id=vid, locked=False)
    s.call("set_door", vehicle_id=vid, door=door, open=True)
    warm = v["engine"] == "on" or (v["powertrain"] != "gas" and (v["battery_pct"] or 0) >= 20)
    if warm and s.by_chance(0.4):
        s.say(WORDS.let_them_in_then_heat)
        s.call("set_climate", vehicle_id=vid, on=True, temperature=24.0)


@vehicle.intent(covers=("get_distinct_values", "list_vehicles"))
def fleet_mix(s: Scene) -> None:
    """A fleet analyst looks at the makes (or powertrains) on the platform, then at the cars of one of them."""
    field = s.rng.choice(("make", "powertrain"))
    s.say(*WORDS.family("fleet_mix_by")[field])
    pick = s.rng.choice(sorted(s.call("get_distinct_values", field=field)["values"]))
    running = s.rng.random() < 0.4
    what = f"{pick} cars" if field == "make" else {"gas": "gas cars", "hybrid": "hybrids", "electric": "EVs"}[pick]
    s.say(
        WORDS.fleet_mix,
        w=what,
        r=" running right now" if running else " there",
        r2=" with the engine running" if running else "",
    )
    s.call("list_vehicles", **{field: pick, **({"engine": "on"} if running else {})})


@vehicle.intent(covers=("list_owners", "list_vehicles", "get_vehicle_status"), weight=1.5)
def where_did_i_park(s: Scene) -> None:
    """A driver who cannot remember where the car is asks where it stands and how it is."""
    v = my_car(s)
    vid = owner_asks(s, v, s.rng.random() < 0.4, WORDS.where_did_i_park)
    s.call("get_vehicle_status", vehicle_id=vid)
