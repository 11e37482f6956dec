"""What drivers want of their connected car: warm it up, let air in, load the trunk, lock up, go somewhere,
park at the end of a trip, fill up, fix a soft tyre, check the service history.

The user owns the car and names it by model (and colour when they own two alike) or reads its plate
off the bumper; the agent finds the owner with ``list_owners`` and the car with ``list_vehicles`` (a
plate or model matches its text filter). Most actions are gated by the car's mode: windows and a gas
car's climate need the engine on, doors and trunk open only in park and unlocked, refuelling needs the
engine off, arriving needs the car in drive. The ground truth sets up those preconditions with the
calls a careful agent makes first.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.vehicle.tools import vehicle

CAR = (
    "SELECT v.*, o.name AS owner, o.city, p.name AS here FROM vehicles v JOIN owners o USING (owner_id) "
    "JOIN places p ON p.place_id = v.location_place_id "
    "WHERE (SELECT COUNT(*) FROM owners x WHERE x.name = o.name) = 1"
)
DOOR_WORDS = {
    "front_left": "driver's",
    "front_right": "passenger",
    "rear_left": "back left",
    "rear_right": "back right",
}
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
    "gas_station": "a gas station",
    "charging_station": "a charging station",
}


def my_car(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """A car of the driver talking (the one an earlier turn was about, ``Skip`` when it does not fit), or a
    fresh pick; the persona becomes its owner."""
    known = s.memory.get("car")
    if known:
        found = s.rows(CAR + f" AND v.vehicle_id = ? AND ({where})", known["vehicle_id"], *params)
        if not found:
            raise Skip("the car of the earlier turn does not fit")
        return found[0]
    v = s.pick(CAR + f" AND ({where})", *params)
    s.be(v["owner"])
    return v


def car_ref(s: Scene, v: dict[str, Any]) -> str:
    """The car as its owner names it: by model, with its colour or its plate when that is not enough."""
    if s.memory.get("car"):
        return "the car"
    return s.refer(
        v["vehicle_id"],
        Ref(
            "my {model}", "SELECT vehicle_id FROM vehicles WHERE owner_id = ? AND model = ?", v["owner_id"], v["model"]
        ),
        Ref(
            "my {color} {model}",
            "SELECT vehicle_id FROM vehicles WHERE owner_id = ? AND model = ? AND color = ?",
            v["owner_id"],
            v["model"],
            v["color"],
        ),
        Ref("my {model} (plate {plate})", "SELECT vehicle_id FROM vehicles WHERE plate = ?", v["plate"]),
        model=v["model"],
        color=v["color"],
        plate=v["plate"],
    )


def intro(s: Scene) -> str:
    """ "I'm <name>. " (sometimes with their city, which the agent can filter owners by) until the car is found."""
    if s.memory.get("car"):
        return ""
    city = s.value("SELECT city FROM owners WHERE name = ?", s.persona.name)
    if city and s.rng.random() < 0.35:
        s.memory["by_city"] = city
        return f"I'm {s.persona.name} from {city}. "
    return f"I'm {s.persona.name}. "


def find_car(s: Scene, v: dict[str, Any], by_plate: bool = False) -> str:
    """The discovery calls for the car: by its plate, or the owner by name and then their cars."""
    known = s.memory.get("car")
    if known and known["vehicle_id"] == v["vehicle_id"]:
        return str(v["vehicle_id"])
    if by_plate:
        found = s.call("list_vehicles", query=v["plate"])["vehicles"]
    else:
        city = s.memory.pop("by_city", None)
        owner = [
            o
            for o in s.call("list_owners", query=v["owner"], **({"city": city} if city else {}))["owners"]
            if o["owner_id"] == v["owner_id"]
        ]
        if not owner:
            raise Skip("the owner is past the first page")
        found = s.call("list_vehicles", owner_id=owner[0]["owner_id"], **narrowing(s, v))["vehicles"]
    hit = [x for x in found if x["vehicle_id"] == v["vehicle_id"]]
    if not hit:
        raise Skip("the car is past the first page")
    s.memory["car"] = {"vehicle_id": v["vehicle_id"]}
    return str(hit[0]["vehicle_id"])


def narrowing(s: Scene, v: dict[str, Any]) -> dict[str, Any]:
    """A filter on the owner's cars the way the user named theirs: by model, make or drive, or none."""
    how = s.rng.choice(("none", "none", "model", "make", "powertrain"))
    if how == "model":
        return {"query": v["model"]}
    if how == "make":
        return {"make": v["make"]}
    if how == "powertrain":
        return {"powertrain": v["powertrain"]}
    return {}


def who(s: Scene, v: dict[str, Any], by_plate: bool) -> str:
    """How the opening turn says which car: the plate, or the owner's name and the model."""
    if s.memory.get("car"):
        return "the car"
    if by_plate:
        return f"the car with plate {v['plate']}"
    return car_ref(s, v)


def owner_asks(s: Scene, v: dict[str, Any], by_plate: bool, *phrasings: str, **slots: Any) -> str:
    """The opening turn, the owner (introduced until the car is found) asking about the car in one of
    ``phrasings`` (``{me}``, ``{car}`` and ``slots`` filled), then the discovery calls for it: the car's id."""
    s.say(*phrasings, me=intro(s), car=who(s, v, by_plate), **slots)
    return find_car(s, v, by_plate)


def asks_by_plate(s: Scene, v: dict[str, Any], *phrasings: str, **slots: Any) -> str:
    """The opening turn about the car named by its plate (``{car}`` and ``slots`` filled), then the discovery call
    for it: the car's id."""
    s.say(*phrasings, car=who(s, v, True), **slots)
    return find_car(s, v, True)


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
    heat = f", and heat my seat (level {seat})" if seat else ""
    plate = v["engine"] == "off" or s.rng.random() < 0.5
    start = n_calls(s)
    vid = owner_asks(
        s,
        v,
        plate,
        "{me}It's freezing out. Get {car} to {t} degrees before I come down{heat}.",
        "{me}Can you get the cabin of {car} to {t}°C{heat}? I'm leaving in ten minutes.",
        "{me}Please pre-condition {car} at {t}{heat}.",
        minimal=["{me}Make {car} comfortable before I get in."],
        t=f"{temp:g}",
        heat=heat,
    )
    if v["engine"] == "off" and (v["powertrain"] == "gas" or (v["battery_pct"] or 0) < 20):
        s.call("start_engine", vehicle_id=vid)
    args: dict[str, Any] = {"on": True}
    if not s.minimal:
        args["temperature"] = temp
        if seat:
            args["driver_seat_heat"] = seat
    s.call("set_climate", vehicle_id=vid, **args)
    if n_calls(s) - start < 4 and s.room(1, 1) and s.rng.random() < 0.6:
        s.say(
            "How much range will I have for the drive?",
            "Is there enough charge or fuel left for today?",
            "And how far can I get on what's in it?",
        )
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
    how = s.given(
        pos,
        {0: "all the way up", 25: "a crack", 50: "halfway down", 100: "all the way down"}[pos],
        "position",
        "set_window",
        "position",
    )
    plate = v["engine"] == "off" or s.rng.random() < 0.5
    start = n_calls(s)
    vid = owner_asks(
        s,
        v,
        plate,
        "{me}Put the {w} window of {car}[ {how}].",
        "{me}Could you move the {w} window on {car}[ {how}]?",
        "{me}It's stuffy in {car}: {w} window[ {how}], please.",
        minimal=["{me}{w} window of {car}[, {how}]."],
        w=DOOR_WORDS[door],
        how=how,
    )
    if v["engine"] == "off":
        s.call("start_engine", vehicle_id=vid)
    s.call("set_window", vehicle_id=vid, window=door, position=pos)
    if n_calls(s) - start < 4 and s.room(1, 1) and s.rng.random() < 0.35:
        s.say(
            "Are the other windows shut?", "What about the rest of the windows?", "How are the other windows set now?"
        )
        s.call("get_vehicle_status", vehicle_id=vid)


@vehicle.intent(covers=("list_vehicles", "set_door_lock", "set_trunk"), weight=1.5)
def load_the_trunk(s: Scene) -> None:
    """A driver standing at the car with bags has the trunk opened (unlocking first), then closes and locks up."""
    v = my_car(
        s,
        "v.gear = 'park' AND v.trunk_open = 0 AND NOT EXISTS (SELECT 1 FROM doors d WHERE d.vehicle_id = "
        "v.vehicle_id AND d.is_open = 1)",
    )
    vid = asks_by_plate(
        s,
        v,
        "I'm at {car} with my hands full. Pop the trunk for me.",
        "Open the boot of {car}, I've got groceries.",
        "Standing behind {car} with bags: trunk open, please.",
        minimal=["Trunk of {car}, please."],
    )
    if v["locked"]:
        s.call("set_door_lock", vehicle_id=vid, locked=False)
    s.call("set_trunk", vehicle_id=vid, open=True)
    if v["locked"]:
        s.say(
            "All loaded, you can close it. I'll lock up with the key.",
            "Done, shut the trunk please.",
            "OK, close it again.",
        )
        s.call("set_trunk", vehicle_id=vid, open=False)
        return
    s.say(
        "All loaded. Shut it and lock the car.",
        "Done, close it up and lock everything.",
        "OK, trunk closed and car locked, please.",
    )
    s.call("set_trunk", vehicle_id=vid, open=False)
    s.call("set_door_lock", vehicle_id=vid, locked=True)


@vehicle.intent(
    covers=("list_owners", "list_vehicles", "get_vehicle_status", "set_door", "set_trunk", "set_door_lock"), weight=1.5
)
def did_i_lock_it(s: Scene) -> None:
    """A driver who walked away asks whether the car is secure; whatever is open gets closed and the car locked."""
    v = my_car(
        s,
        "v.gear = 'park' AND v.locked = 0 AND (SELECT COUNT(*) FROM doors d WHERE d.vehicle_id = "
        "v.vehicle_id AND d.is_open = 1) + v.trunk_open <= 1",
    )
    vid = asks_by_plate(
        s,
        v,
        "Did I leave {car} open?",
        "I walked off without checking {car}. Is it secure?",
        "Can you check whether {car} is closed up?",
        minimal=["Is {car} shut?"],
    )
    status = s.call("get_vehicle_status", vehicle_id=vid)
    s.say(
        "OK, close whatever is open and lock it.", "Shut it all and lock up, please.", "Then close up and lock the car."
    )
    open_doors = [d["door"] for d in status["doors"] if d["is_open"]]
    for door in open_doors:
        s.call("set_door", vehicle_id=vid, door=door, open=False)
    if status["trunk_open"]:
        s.call("set_trunk", vehicle_id=vid, open=False)
    s.call("set_door_lock", vehicle_id=vid, locked=True)


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
    where = PLACE_WORDS[dest["category"]]
    if dest["category"] in ("gas_station", "charging_station"):
        where = f"the {dest['name']}"
    vid = asks_by_plate(
        s,
        v,
        "I'm getting into {car}. Route me to {w} in {city}.",
        "Point {car}'s navigation at {w} in {city}, please.",
        "I need to get to {w} in {city} in {car}. Can you put it in the nav?",
        minimal=["{car} to {w}."],
        w=where,
        city=dest["city"],
    )
    found = s.call(
        "search_places",
        category=dest["category"],
        city=dest["city"],
        **({"near_vehicle_id": vid} if s.rng.random() < 0.4 else {}),
    )["places"]
    if [p["place_id"] for p in found] != [dest["place_id"]]:
        raise Skip("more than one place fits")
    out = s.call("set_destination", vehicle_id=vid, place_id=found[0]["place_id"])
    if not out["range_sufficient"]:
        raise Skip("not enough range")
    if len(s.intents) > 1 and not s.room(1 + (v["engine"] == "off"), 1):
        return
    s.say(
        "Great, start the car and let's go.",
        "OK, fire it up and start the guidance.",
        "Perfect. Engine on and begin the directions, please.",
    )
    if v["engine"] == "off":
        s.call("start_engine", vehicle_id=vid)
    s.call("start_navigation", vehicle_id=vid)


@vehicle.intent(covers=("list_vehicles", "stop_navigation", "shift_gear", "stop_engine", "set_lights"), weight=1.5)
def made_it(s: Scene) -> None:
    """A driver on a guided trip arrives (or calls it off): the trip ends, the car is put in park and switched off."""
    v = my_car(s, "v.nav_active = 1 AND v.gear = 'drive'")
    dest = s.rows("SELECT * FROM places WHERE place_id = ?", v["destination_place_id"])[0]
    arrived = s.rng.random() < 0.7
    if arrived:
        vid = asks_by_plate(
            s,
            v,
            "We just pulled in at {d} in {car}. End the trip.",
            "Made it to {d}! Wrap up the guidance on {car}.",
            "{car} is at {d} now. Finish the route.",
            minimal=["Arrived at {d} in {car}."],
            d=dest["name"],
        )
    else:
        if v["lights"] == "high":
            raise Skip("high beams already on")
        vid = asks_by_plate(
            s,
            v,
            "Change of plans in {car}: forget {d}, cancel the directions.",
            "Stop guiding {car} to {d}, we're not going.",
            "Call off the route to {d} in {car}.",
            d=dest["name"],
        )
    if arrived:
        s.call("stop_navigation", vehicle_id=vid, arrived=True)
        s.say("Now park it and switch it off.", "Put it in park and kill the engine.", "Park and power down, please.")
        s.call("shift_gear", vehicle_id=vid, gear="park")
        s.call("stop_engine", vehicle_id=vid)
    else:
        s.call("stop_navigation", vehicle_id=vid)
        s.say(
            "And it's dark out here: high beams on.",
            "Full beams, please, the road is pitch black.",
            "Give me the high beams too.",
        )
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
    what = "charge" if ev else "fill"
    at = "charger" if ev else "pump"
    full = "to full" if level == 100 else f"to {level}%"
    plate = v["engine"] == "on" or s.rng.random() < 0.3
    start = n_calls(s)
    vid = owner_asks(
        s,
        v,
        plate,
        "{me}I'm at the {at} with {car}. {What} it {full}.",
        "{me}{car} needs a {what}: take it {full}, please.",
        "{me}At the {at} now. Get {car} {full}.",
        minimal=["{me}{car} is at the {at}."],
        at=at,
        What=what.capitalize(),
        what=what,
        full=full,
    )
    if v["engine"] == "on":
        s.call("stop_engine", vehicle_id=vid)
    s.call("refuel_vehicle", vehicle_id=vid, **({"percent": level} if level != 100 and not s.minimal else {}))
    if s.rng.random() < 0.6 and n_calls(s) - start < 4 and s.room(1, 1):
        s.say("How far can I go on that now?", "What's the range after that?", "So how many km do I have now?")
        s.call("get_vehicle_status", vehicle_id=vid)


@vehicle.intent(covers=("list_owners", "list_vehicles", "get_vehicle_status", "inflate_tire"))
def soft_tyre(s: Scene) -> None:
    """A driver sees a tyre warning, asks which tyre, and pumps it back to the recommended pressure."""
    v = my_car(
        s,
        "v.gear = 'park' AND (SELECT COUNT(*) FROM tires t WHERE t.vehicle_id = v.vehicle_id AND "
        "t.pressure_psi < t.recommended_psi - 3) = 1",
    )
    vid = owner_asks(
        s,
        v,
        False,
        "{me}{car} is showing a tyre warning. Which one is it?",
        "{me}Got a pressure light on {car}. Which wheel?",
        "{me}There's a low-tyre alert on {car}. What's going on?",
        minimal=["{me}Tyre warning on {car}."],
    )
    status = s.call("get_vehicle_status", vehicle_id=vid)
    low = [t for t in status["tires"] if t["pressure_psi"] < t["recommended_psi"] - 3]
    if len({t["recommended_psi"] for t in status["tires"]}) > 1:
        raise Skip("tyres with different recommended pressures")
    s.say(
        "I'm at an air pump. Bring it back up to what it should be.",
        "Pump it to the recommended pressure.",
        "Fix it: inflate that one to spec.",
    )
    s.call("inflate_tire", vehicle_id=vid, position=low[0]["position"], pressure_psi=low[0]["recommended_psi"])


@vehicle.intent(covers=("list_owners", "list_vehicles", "list_service_records"), follows=True)
def last_service(s: Scene) -> None:
    """A driver asks when a kind of service was last done on the car, or what was done lately."""
    v = my_car(s, "v.vehicle_id IN (SELECT vehicle_id FROM service_records)")
    kinds = [
        r["kind"] for r in s.rows("SELECT DISTINCT kind FROM service_records WHERE vehicle_id = ?", v["vehicle_id"])
    ]
    kind = s.rng.choice(kinds + [None])
    if kind:
        vid = owner_asks(
            s,
            v,
            False,
            "{me}When did {car} last have a {k}?",
            "{me}How long ago was the last {k} on {car}?",
            "{me}Look up {car}'s most recent {k}, would you?",
            minimal=["{me}{car}: last {k}?"],
            k=kind,
        )
    else:
        vid = owner_asks(
            s,
            v,
            False,
            "{me}What work has been done on {car} this year?",
            "{me}Show me {car}'s shop visits since January.",
            f"{{me}}Which services did {{car}} get in {s.now.year}?",
        )
    args: dict[str, Any] = {"kind": kind} if kind else {"since": f"{s.now.year}-01-01"}
    s.call("list_service_records", vehicle_id=vid, **args)
    if not s.room(1, 1) or s.rng.random() < 0.4:
        return
    other = s.rng.choice([k for k in kinds if k != kind] or kinds)
    s.say("And the last {k}?", "What about the most recent {k}?", "When was its {k}, then?", k=other)
    s.call("list_service_records", vehicle_id=vid, kind=other, **({"limit": 1} if s.rng.random() < 0.5 else {}))


@vehicle.intent(covers=("list_vehicles", "set_door_lock", "set_door", "set_climate"), follows=True)
def let_them_in(s: Scene) -> None:
    """A driver unlocks and opens a door of the parked car for a passenger (and warms the cabin for them)."""
    v = my_car(s, "v.gear = 'park'")
    door = s.rng.choice(("front_right", "rear_left", "rear_right"))
    if s.value("SELECT is_open FROM doors WHERE vehicle_id = ? AND door = ?", v["vehicle_id"], door):
        raise Skip("the door is open")
    which = s.given(door, f"the {DOOR_WORDS[door]} one", "door", "set_door", "door")
    vid = asks_by_plate(
        s,
        v,
        "My mum is getting into {car}. Open a door for her[ - {which}].",
        "Let my friend into {car}[: {which}], door open please.",
        "My kid is climbing into {car}, open the door for him[ - {which}].",
        which=which,
    )
    if v["locked"]:
        s.call("set_door_lock", vehicle_id=vid, locked=False)
    s.call("set_door", vehicle_id=vid, door=door, open=True)
    warm = v["engine"] == "on" or (v["powertrain"] != "gas" and (v["battery_pct"] or 0) >= 20)
    if warm and s.room(1, 1) and s.rng.random() < 0.4:
        s.say(
            "She runs cold, turn the heat up to 24.",
            "Make it 24 degrees in there for her.",
            "Warm the cabin to 24, please.",
        )
        s.call("set_climate", vehicle_id=vid, on=True, temperature=24.0)


@vehicle.intent(covers=("get_distinct_values", "list_vehicles"))
def fleet_mix(s: Scene) -> None:
    """A fleet analyst looks at the makes (or powertrains) on the platform, then at the cars of one of them."""
    field = s.rng.choice(("make", "powertrain"))
    if field == "make":
        s.say(
            "Which car brands are connected to the platform?",
            "What makes of car do we have on the service?",
            "Break the fleet down by manufacturer.",
        )
    else:
        s.say(
            "How many cars are gas, hybrid or electric?",
            "What's the split between electric and gas cars?",
            "Give me the fleet by type of drive.",
        )
    values = s.call("get_distinct_values", field=field)["values"]
    pick = s.rng.choice(sorted(values))
    running = s.rng.random() < 0.4
    what = f"{pick} cars" if field == "make" else {"gas": "gas cars", "hybrid": "hybrids", "electric": "EVs"}[pick]
    s.say(
        "Which {w} are{r}?",
        "List the {w}{r2}.",
        "Show me the {w}{r2}.",
        w=what,
        r=" running right now" if running else " there",
        r2=" with the engine running" if running else "",
    )
    args: dict[str, Any] = {field: pick}
    if running:
        args["engine"] = "on"
    s.call("list_vehicles", **args)


# Finding the car, all of them, the nearest fill ------------------------------------------------


@vehicle.intent(covers=("list_owners", "list_vehicles", "get_vehicle_status"), weight=1.5)
def where_did_i_park(s: Scene) -> None:
    """A driver who cannot remember where the car is asks where it stands and how it is."""
    v = my_car(s)
    plate = s.rng.random() < 0.4
    vid = owner_asks(
        s,
        v,
        plate,
        "{me}Where did I leave {car}?",
        "{me}I can't remember where {car} is parked. Where is it, and is it locked?",
        "{me}Where's {car} right now, and how much range does it have?",
        minimal=["{me}Where's {car}?"],
    )
    s.call("get_vehicle_status", vehicle_id=vid)


def two_cars(s: Scene, where: str = "1=1") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An owner (unique name) with exactly two cars that fit ``where``; the persona becomes the owner."""
    if s.memory.get("car"):
        raise Skip("a dialogue about one car")
    o = s.pick(
        "SELECT o.* FROM owners o WHERE (SELECT COUNT(*) FROM owners x WHERE x.name = o.name) = 1 AND "
        "(SELECT COUNT(*) FROM vehicles v WHERE v.owner_id = o.owner_id) = 2"
    )
    cars = s.rows(
        CAR + f" AND v.owner_id = ? AND ({where}) ORDER BY v.vehicle_id",
        o["owner_id"],
    )
    if len(cars) != 2:
        raise Skip("the two cars do not fit")
    s.be(o["name"])
    return o, cars


def owner_of_two_asks(s: Scene, o: dict[str, Any], *phrasings: str, **slots: Any) -> list[dict[str, Any]]:
    """The opening turn of the owner of two cars (``{name}`` filled), then the discovery calls: the owner by name
    and their cars, as listed."""
    s.say(*phrasings, name=o["name"], **slots)
    owner = s.find("list_owners", "owners", "owner_id", o["owner_id"], missing="owner past the page", query=o["name"])
    listed: list[dict[str, Any]] = s.call("list_vehicles", owner_id=owner["owner_id"])["vehicles"]
    return listed


@vehicle.intent(covers=("list_owners", "list_vehicles", "set_trunk", "set_door", "set_door_lock", "get_vehicle_status"))
def lock_both(s: Scene) -> None:
    """An owner of two cars has both locked (whatever one part is left open is closed first)."""
    o, cars = two_cars(s, "v.gear = 'park'")
    opened = [
        (c["vehicle_id"], p)
        for c in cars
        for p in [
            r["door"] for r in s.rows("SELECT door FROM doors WHERE vehicle_id = ? AND is_open = 1", c["vehicle_id"])
        ]
        + (["trunk"] if c["trunk_open"] else [])
    ]
    unlocked = {c["vehicle_id"] for c in cars if not c["locked"]}
    if not unlocked or len(opened) > 1 or any(vid not in unlocked for vid, _ in opened):
        raise Skip("both are locked, or too much is open")
    if cars[0]["model"] == cars[1]["model"]:
        raise Skip("two cars of one model")
    listed = owner_of_two_asks(
        s,
        o,
        "I'm {name}. Make sure both my cars are locked.",
        "I'm {name}. Lock up both of my cars, would you?",
        "I'm {name}. Are my two cars locked? Lock whichever isn't.",
        minimal=["I'm {name}. Both my cars - locked?"],
    )
    for car in listed:
        if car["locked"]:
            continue
        for vid, part in opened:
            if vid == car["vehicle_id"] and part == "trunk":
                s.call("set_trunk", vehicle_id=vid, open=False)
            elif vid == car["vehicle_id"]:
                s.call("set_door", vehicle_id=vid, door=part, open=False)
        s.call("set_door_lock", vehicle_id=car["vehicle_id"], locked=True)
    if not s.room(1, 1):
        return
    pick = s.rng.choice(listed)
    s.say(
        "And how much range does the {m} have left?",
        "Is the {m} charged or fuelled up enough for tomorrow?",
        "What about the {m} - anything it needs?",
        m=pick["model"],
    )
    s.call("get_vehicle_status", vehicle_id=pick["vehicle_id"])
    s.memory["car"] = {"vehicle_id": pick["vehicle_id"]}


@vehicle.intent(covers=("list_owners", "list_vehicles", "get_vehicle_status"))
def which_goes_further(s: Scene) -> None:
    """An owner of two cars asks which one can go further right now, to take that one."""
    o, cars = two_cars(s)
    listed = owner_of_two_asks(
        s,
        o,
        "I'm {name}. Which of my two cars has more range right now?",
        "I'm {name}. I've a long drive today - which of my cars can go further as they are?",
        "I'm {name}. Compare my two cars: which one has the bigger range at the moment?",
        minimal=["I'm {name}. Which of my cars should I take?"],
    )
    ranges = [(s.call("get_vehicle_status", vehicle_id=c["vehicle_id"])["range_km"], c["vehicle_id"]) for c in listed]
    if len(ranges) != 2 or ranges[0][0] == ranges[1][0]:
        raise Skip("no clear winner")
    s.memory["car"] = {"vehicle_id": max(ranges)[1]}


STATION = {"electric": "charging_station", "gas": "gas_station", "hybrid": "gas_station"}


@vehicle.intent(
    covers=("list_owners", "list_vehicles", "search_places", "set_destination", "start_navigation"), follows=True
)
def nearest_fill(s: Scene) -> None:
    """A driver running low asks for the nearest gas station or charger from where the car is, and may be routed."""
    v = my_car(s, "v.nav_active = 0 AND v.gear = 'park'")
    kind = STATION[v["powertrain"]]
    word = "charger" if kind == "charging_station" else "gas station"
    plate = s.rng.random() < 0.4
    vid = owner_asks(
        s,
        v,
        plate,
        "{me}{car} is getting low. Where's the nearest {w}?",
        "{me}Find me the closest {w} to where {car} is.",
        "{me}I need a {w} near {car}. What's closest?",
        minimal=["{me}{car} needs a {w}."],
        w=word,
    )
    found = s.call(
        "search_places", category=kind, near_vehicle_id=vid, **({"limit": 3} if s.rng.random() < 0.3 else {})
    )
    places = [p for p in found["places"] if p["place_id"] != v["location_place_id"]]
    if not places or not s.room(1, 1) or s.rng.random() < 0.4:
        return
    near = places[0]
    s.say(
        "Take me to that one.",
        "OK, route me to the closest one.",
        "Put the nearest one in the nav.",
    )
    out = s.call("set_destination", vehicle_id=vid, place_id=near["place_id"])
    engine = s.value("SELECT engine FROM vehicles WHERE vehicle_id = ?", vid)
    if out["range_sufficient"] and engine == "on" and s.room(1, 0):
        s.call("start_navigation", vehicle_id=vid)


TYRE_WORDS = {
    "front_left": "front left",
    "front_right": "front right",
    "rear_left": "back left",
    "rear_right": "back right",
}


@vehicle.intent(covers=("list_owners", "list_vehicles", "inflate_tire"), follows=True)
def pump_it_to(s: Scene) -> None:
    """A driver at an air pump has one soft tyre brought to the pressure on the door sticker."""
    v = my_car(
        s,
        "v.gear = 'park' AND (SELECT COUNT(DISTINCT recommended_psi) FROM tires t "
        "WHERE t.vehicle_id = v.vehicle_id) = 1",
    )
    soft = s.rows("SELECT * FROM tires WHERE vehicle_id = ? AND pressure_psi < recommended_psi - 2", v["vehicle_id"])
    if not soft:
        raise Skip("no soft tyre")
    tyre = s.rng.choice(soft)
    psi = s.given(
        tyre["recommended_psi"], f"{tyre['recommended_psi']:g} psi", "pressure", "inflate_tire", "pressure_psi"
    )
    plate = s.rng.random() < 0.4
    vid = owner_asks(
        s,
        v,
        plate,
        "{me}The {w} tyre on {car} looks soft. Pump it up[ to {psi}], I'm at the air station.",
        "{me}Can you bring {car}'s {w} tyre back up[ to {psi}]?",
        "{me}{car}: {w} tyre needs air[ - {psi}, like the sticker says].",
        w=TYRE_WORDS[tyre["position"]],
        psi=psi,
    )
    s.call("inflate_tire", vehicle_id=vid, position=tyre["position"], pressure_psi=tyre["recommended_psi"])


@vehicle.intent(covers=("list_owners", "list_vehicles", "set_lights"))
def headlamps(s: Scene) -> None:
    """A driver changes the headlamps of the car (full beam only while driving)."""
    v = my_car(s)
    options = ["low", "auto", "off"] + (["high"] if v["gear"] == "drive" else [])
    mode = s.rng.choice([m for m in options if m != v["lights"]])
    how = s.given(
        mode,
        {"low": "dipped beam", "auto": "auto", "off": "off", "high": "full beam"}[mode],
        "mode",
        "set_lights",
        "mode",
    )
    plate = s.rng.random() < 0.4
    vid = owner_asks(
        s,
        v,
        plate,
        "{me}Change the headlamps on {car}[ to {how}].",
        "{me}Do something about {car}'s headlamps[ - {how}, please].",
        "{me}The headlamps on {car} need switching[: {how}].",
        how=how,
    )
    s.call("set_lights", vehicle_id=vid, mode=mode)
