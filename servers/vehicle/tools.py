"""Vehicle tools: find owners, cars and places; ignition, gears, climate, doors, windows, trunk, lights,
navigation, refuelling and tyres, each gated by the car's mode."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, Query, Server, ToolError, fake, fetch, listing, next_id, rows
from servers.vehicle.schema import (
    FLAT_PSI,
    MIN_CLIMATE_BATTERY,
    MIN_START_BATTERY,
    SCHEMA,
    _distance,
)
from servers.vehicle.seed import seed

vehicle = Server(
    "vehicle",
    "Connected cars: ignition, gears, climate, doors, windows, trunk, lights, tyres, navigation, "
    "fuel and charge, service records.",
    SCHEMA,
    seed,
    family="mobility",
)

OWNER = vehicle.entity("owner", table="owners", key="owner_id", example="OWN-0003", finder="list_owners")
VEHICLE = vehicle.entity("vehicle", table="vehicles", key="vehicle_id", example="VEH-0007", finder="list_vehicles")
PLACE = vehicle.entity(
    "place", table="places", key="place_id", example="PLC-0048", hint="Use search_places to find known places."
)

VehicleId = Annotated[str, VEHICLE]
PlaceId = Annotated[str, PLACE]
Door = Literal["front_left", "front_right", "rear_left", "rear_right"]
Gear = Literal["park", "drive", "reverse", "neutral"]


def _range_km(v: dict[str, Any]) -> float:
    km = 0.0
    if v["fuel_pct"] is not None:
        km += v["fuel_pct"] / 100 * v["fuel_tank_l"] * v["km_per_l"]
    if v["battery_pct"] is not None:
        km += v["battery_pct"] / 100 * v["battery_kwh"] * v["km_per_kwh"]
    return round(km, 1)


def _update(ctx: Ctx, vehicle_id: str, **changes: Any) -> None:
    changes["updated_at"] = fake.iso(ctx.now)
    sets = ", ".join(f"{k} = ?" for k in changes)
    ctx.db.execute(f"UPDATE vehicles SET {sets} WHERE vehicle_id = ?", (*changes.values(), vehicle_id))


def _brief(ctx: Ctx, vehicle_id: str) -> dict[str, Any]:
    v = VEHICLE.get(ctx, vehicle_id)
    out = {
        k: v[k]
        for k in (
            "vehicle_id",
            "engine",
            "gear",
            "locked",
            "trunk_open",
            "climate_on",
            "climate_temp",
            "seat_heat_driver",
            "seat_heat_passenger",
            "lights",
            "location_place_id",
            "destination_place_id",
            "nav_active",
            "fuel_pct",
            "battery_pct",
            "odometer_km",
        )
    }
    out["range_km"] = _range_km(v)
    return {k: val for k, val in out.items() if val is not None or k == "destination_place_id"}


def _in_motion(v: dict[str, Any]) -> bool:
    return v["gear"] in ("drive", "reverse", "neutral")


def _open_parts(ctx: Ctx, v: dict[str, Any]) -> list[str]:
    parts = [
        r[0]
        for r in ctx.db.execute(
            "SELECT door FROM doors WHERE vehicle_id = ? AND is_open = 1 ORDER BY door", (v["vehicle_id"],)
        )
    ]
    return parts + (["trunk"] if v["trunk_open"] else [])


@vehicle.read(returns=("owner",))
def list_owners(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name or email, e.g. 'Garcia'")] = "",
    city: Annotated[str | None, Field(max_length=60, description="Only owners in this city, e.g. 'Phoenix'")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search vehicle owners by name, email or city, with how many vehicles each has. Ids look like 'OWN-0003'."""
    q = Query(
        "SELECT o.owner_id, o.name, o.email, o.city, COUNT(v.vehicle_id) AS vehicles FROM owners o "
        "LEFT JOIN vehicles v ON v.owner_id = o.owner_id"
    )
    q.contains(query, "o.name", "o.email").equal("o.city", city)
    return q.page(ctx.db, "owners", order_by="o.owner_id", limit=limit, offset=offset, group_by="o.owner_id")


@vehicle.read(returns=("vehicle",))
def list_vehicles(
    ctx: Ctx,
    owner_id: Annotated[str | None, OWNER.ref("Only this owner's vehicles, e.g. 'OWN-0003'")] = None,
    powertrain: Literal["gas", "hybrid", "electric"] | None = None,
    make: Annotated[str | None, Field(max_length=40, description="Only this make, e.g. 'Toyota'")] = None,
    engine: Literal["on", "off"] | None = None,
    gear: Gear | None = None,
    query: Annotated[str, Field(max_length=60, description="Part of the nickname, model or plate, e.g. 'Civic'")] = "",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List vehicles, filtered by owner, powertrain, make, engine state, gear or text. Ids look like 'VEH-0007'."""
    q = Query(
        "SELECT vehicle_id, owner_id, nickname, make, model, year, plate, powertrain, engine, gear, locked, "
        "fuel_pct, battery_pct FROM vehicles"
    )
    q.contains(query, "nickname", "model", "plate").equal("owner_id", owner_id).equal("powertrain", powertrain)
    q.equal("make", make).equal("engine", engine).equal("gear", gear)
    return q.page(ctx.db, "vehicles", order_by="vehicle_id", limit=limit, offset=offset)


@vehicle.read(returns=("vehicle", "owner", "place"))
def get_vehicle_status(ctx: Ctx, vehicle_id: VehicleId) -> dict[str, Any]:
    """Everything about one vehicle: engine, gear, locks, doors and windows, trunk, climate, lights, tyre pressures,
    fuel/charge and range, location, destination, navigation, recent trips and warnings,
    e.g. get_vehicle_status('VEH-0007')."""
    v = VEHICLE.get(ctx, vehicle_id)
    v["range_km"] = _range_km(v)
    v["doors"] = rows(
        ctx.db.execute("SELECT door, is_open, window_pct FROM doors WHERE vehicle_id = ? ORDER BY door", (vehicle_id,))
    )
    v["tires"] = rows(
        ctx.db.execute(
            "SELECT position, pressure_psi, recommended_psi FROM tires WHERE vehicle_id = ? ORDER BY position",
            (vehicle_id,),
        )
    )
    v["location"] = PLACE.get(ctx, v["location_place_id"])["name"]
    if v["destination_place_id"]:
        dest = PLACE.get(ctx, v["destination_place_id"])
        here = PLACE.get(ctx, v["location_place_id"])
        v["destination"] = dest["name"]
        v["distance_to_destination_km"] = _distance(here["lat"], here["lon"], dest["lat"], dest["lon"])
    v["recent_trips"] = rows(
        ctx.db.execute(
            "SELECT trip_id, from_place_id, to_place_id, distance_km, status, started_at "
            "FROM trips WHERE vehicle_id = ? "
            "ORDER BY started_at DESC, trip_id DESC LIMIT 5",
            (vehicle_id,),
        )
    )
    warnings = []
    for t in v["tires"]:
        if t["pressure_psi"] < FLAT_PSI:
            warnings.append(f"flat tyre {t['position']} ({t['pressure_psi']} psi): inflate_tire before driving")
        elif t["pressure_psi"] < t["recommended_psi"] - 3:
            warnings.append(f"low tyre pressure {t['position']} ({t['pressure_psi']} psi)")
    for part in _open_parts(ctx, v):
        warnings.append(f"{part} open")
    if not v["key_present"]:
        warnings.append("key not detected in the vehicle")
    if v["fuel_pct"] is not None and v["fuel_pct"] < 10:
        warnings.append(f"low fuel ({v['fuel_pct']}%)")
    if v["battery_pct"] is not None and v["battery_pct"] < 10:
        warnings.append(f"low battery ({v['battery_pct']}%)")
    v["warnings"] = warnings
    return {k: val for k, val in v.items() if val is not None}


@vehicle.read(returns=("place",))
def search_places(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of the name or address, e.g. 'Airport'")] = "",
    category: Literal[
        "airport",
        "mall",
        "hospital",
        "gas_station",
        "charging_station",
        "restaurant",
        "park",
        "stadium",
        "hotel",
        "university",
        "supermarket",
        "office",
    ]
    | None = None,
    city: Annotated[str | None, Field(max_length=60, description="Only places in this city, e.g. 'Phoenix'")] = None,
    near_vehicle_id: Annotated[
        str | None,
        VEHICLE.ref("Add each place's distance from this vehicle and sort nearest first, e.g. 'VEH-0007'"),
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search the known places a vehicle can navigate to, e.g. search_places('Airport', city='Phoenix').
    Ids look like 'PLC-0048'."""
    q = Query("SELECT * FROM places").contains(query, "name", "address").equal("category", category)
    found = q.equal("city", city).rows(ctx.db, order_by="place_id")
    if near_vehicle_id is not None:
        here = PLACE.get(ctx, VEHICLE.get(ctx, near_vehicle_id)["location_place_id"])
        for p in found:
            p["distance_km"] = _distance(here["lat"], here["lon"], p["lat"], p["lon"])
        found.sort(key=lambda p: (p["distance_km"], p["place_id"]))
    return listing("places", found[offset : offset + limit])


@vehicle.read(returns=("vehicle",))
def list_service_records(
    ctx: Ctx,
    vehicle_id: VehicleId,
    kind: Annotated[str | None, Field(max_length=40, description="Only this kind, e.g. 'oil change'")] = None,
    since: Annotated[
        str | None, Field(max_length=30, description="Only on or after this date, e.g. '2025-01-01'")
    ] = None,
    limit: Limit = 20,
) -> dict[str, Any]:
    """A vehicle's service history, newest first, e.g. list_service_records('VEH-0007', kind='brake inspection')."""
    VEHICLE.get(ctx, vehicle_id)
    q = Query("SELECT * FROM service_records").where("vehicle_id = ?", vehicle_id)
    q.equal("kind", kind).filter("service_date >= ?", since)
    return q.page(ctx.db, "service_records", order_by="service_date DESC, service_id DESC", limit=limit)


DISTINCT_FIELDS = {
    "make": ("vehicles", "make"),
    "model": ("vehicles", "model"),
    "powertrain": ("vehicles", "powertrain"),
    "color": ("vehicles", "color"),
    "gear": ("vehicles", "gear"),
    "owner_city": ("owners", "city"),
    "place_city": ("places", "city"),
    "place_category": ("places", "category"),
    "service_kind": ("service_records", "kind"),
    "service_shop": ("service_records", "shop"),
}


vehicle.distinct_values(DISTINCT_FIELDS, example="make")


@vehicle.write(returns=("vehicle",))
def start_engine(ctx: Ctx, vehicle_id: VehicleId) -> dict[str, Any]:
    """Start the engine (power on an EV), e.g. start_engine('VEH-0007').

    Needs the car in park, the key inside, all doors closed and fuel (or at least 2% charge) left."""
    v = VEHICLE.get(ctx, vehicle_id)
    if v["engine"] == "on":
        raise ToolError(f"The engine of {vehicle_id} is already on.")
    if v["gear"] != "park":
        raise ToolError(f"{vehicle_id} is in {v['gear']}; shift_gear to 'park' before starting the engine.")
    if not v["key_present"]:
        raise ToolError(
            f"No key detected in {vehicle_id}; the engine cannot start until the owner's key is inside the vehicle."
        )
    doors = [p for p in _open_parts(ctx, v) if p != "trunk"]
    if doors:
        raise ToolError(f"Door(s) {', '.join(doors)} of {vehicle_id} are open; close them with set_door first.")
    fuel_ok = v["fuel_pct"] is not None and v["fuel_pct"] > 0
    charge_ok = v["battery_pct"] is not None and v["battery_pct"] >= MIN_START_BATTERY
    if not {"gas": fuel_ok, "electric": charge_ok, "hybrid": fuel_ok or charge_ok}[v["powertrain"]]:
        what = (
            f"battery is depleted ({v['battery_pct']}%, below the {MIN_START_BATTERY:g}% reserve)"
            if v["powertrain"] == "electric"
            else "fuel tank is empty"
        )
        raise ToolError(f"{vehicle_id}'s {what}; call refuel_vehicle('{vehicle_id}') first.")
    _update(ctx, vehicle_id, engine="on")
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",))
def stop_engine(ctx: Ctx, vehicle_id: VehicleId) -> dict[str, Any]:
    """Turn the engine off (power off an EV), e.g. stop_engine('VEH-0004'). The car must be in park.

    Active navigation is cancelled; a gas car's climate turns off."""
    v = VEHICLE.get(ctx, vehicle_id)
    if v["engine"] == "off":
        raise ToolError(f"The engine of {vehicle_id} is already off.")
    if v["gear"] != "park":
        raise ToolError(f"{vehicle_id} is in {v['gear']}; shift_gear to 'park' before stopping the engine.")
    changes: dict[str, Any] = {"engine": "off", "nav_active": 0}
    if v["powertrain"] == "gas" or (v["battery_pct"] or 0) < MIN_CLIMATE_BATTERY:
        changes.update(climate_on=0, seat_heat_driver=0, seat_heat_passenger=0)
    if v["nav_active"]:
        ctx.db.execute(
            "UPDATE trips SET status = 'cancelled', ended_at = ? WHERE vehicle_id = ? AND status = 'active'",
            (fake.iso(ctx.now), vehicle_id),
        )
    _update(ctx, vehicle_id, **changes)
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",), requires=("start_engine",))
def shift_gear(ctx: Ctx, vehicle_id: VehicleId, gear: Gear) -> dict[str, Any]:
    """Shift into park, drive, reverse or neutral, e.g. shift_gear('VEH-0004', 'drive').

    Leaving park needs the engine on, every door and the trunk closed, and no flat tyre."""
    v = VEHICLE.get(ctx, vehicle_id)
    if v["gear"] == gear:
        raise ToolError(f"{vehicle_id} is already in {gear}.")
    if gear != "park":
        if v["engine"] != "on":
            raise ToolError(
                f"The engine of {vehicle_id} is off; start_engine('{vehicle_id}') before shifting into {gear}."
            )
        parts = _open_parts(ctx, v)
        if parts:
            raise ToolError(
                f"{', '.join(parts)} of {vehicle_id} still open; close them (set_door / set_trunk) before driving."
            )
        flat = [
            r[0]
            for r in ctx.db.execute(
                "SELECT position FROM tires WHERE vehicle_id = ? AND pressure_psi < ? ORDER BY position",
                (vehicle_id, FLAT_PSI),
            )
        ]
        if flat:
            raise ToolError(
                f"Tyre(s) {', '.join(flat)} of {vehicle_id} are flat (< {FLAT_PSI:g} psi); inflate_tire before driving."
            )
    changes: dict[str, Any] = {"gear": gear}
    if gear != "park" and v["lights"] == "off":
        changes["lights"] = "auto"
    _update(ctx, vehicle_id, **changes)
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",))
def set_climate(
    ctx: Ctx,
    vehicle_id: VehicleId,
    on: Annotated[bool, Field(description="true to run climate control, false to switch it (and seat heating) off")],
    temperature: Annotated[
        float | None, Field(ge=-50, le=100, description="Cabin target in degrees C, 16 to 28, e.g. 21.5")
    ] = None,
    driver_seat_heat: Annotated[int | None, Field(ge=0, le=3, description="Driver seat heating level 0-3")] = None,
    passenger_seat_heat: Annotated[
        int | None, Field(ge=0, le=3, description="Passenger seat heating level 0-3")
    ] = None,
) -> dict[str, Any]:
    """Turn climate control on (with optional temperature and seat heating) or off, e.g.
    set_climate('VEH-0008', on=True, temperature=21.0, driver_seat_heat=2).

    Needs the engine on; hybrids and EVs can also run it from a battery of at least 20%."""
    v = VEHICLE.get(ctx, vehicle_id)
    if not on:
        if not v["climate_on"] and not v["seat_heat_driver"] and not v["seat_heat_passenger"]:
            raise ToolError(f"Climate control of {vehicle_id} is already off.")
        _update(ctx, vehicle_id, climate_on=0, seat_heat_driver=0, seat_heat_passenger=0)
        return _brief(ctx, vehicle_id)
    if temperature is not None and not 16 <= temperature <= 28:
        raise ToolError(f"Cabin temperature {temperature:g} C is out of range; choose 16 to 28 C.")
    if v["engine"] != "on":
        if v["powertrain"] == "gas":
            raise ToolError(
                f"{vehicle_id} is a gas car: climate control needs the engine running; "
                f"start_engine('{vehicle_id}') first."
            )
        if (v["battery_pct"] or 0) < MIN_CLIMATE_BATTERY:
            raise ToolError(
                f"{vehicle_id}'s battery is at {v['battery_pct']}%, "
                f"below the {MIN_CLIMATE_BATTERY:g}% needed to run climate "
                f"with the engine off; start_engine('{vehicle_id}') or charge with refuel_vehicle first."
            )
    _update(
        ctx,
        vehicle_id,
        climate_on=1,
        climate_temp=round(temperature, 1) if temperature is not None else v["climate_temp"],
        seat_heat_driver=v["seat_heat_driver"] if driver_seat_heat is None else driver_seat_heat,
        seat_heat_passenger=v["seat_heat_passenger"] if passenger_seat_heat is None else passenger_seat_heat,
    )
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",))
def set_door_lock(
    ctx: Ctx,
    vehicle_id: VehicleId,
    locked: Annotated[bool, Field(description="true to lock all doors, false to unlock")],
) -> dict[str, Any]:
    """Lock or unlock the vehicle, e.g. set_door_lock('VEH-0007', locked=False).

    It unlocks only in park, and locks only with every door and the trunk closed."""
    v = VEHICLE.get(ctx, vehicle_id)
    if bool(v["locked"]) == locked:
        raise ToolError(f"{vehicle_id} is already {'locked' if locked else 'unlocked'}.")
    if not locked and v["gear"] != "park":
        raise ToolError(
            f"{vehicle_id} is in {v['gear']}; doors cannot unlock while driving. shift_gear to 'park' first."
        )
    if locked:
        parts = _open_parts(ctx, v)
        if parts:
            raise ToolError(
                f"Cannot lock {vehicle_id}: {', '.join(parts)} open; close them with set_door / set_trunk first."
            )
    _update(ctx, vehicle_id, locked=int(locked))
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",))
def set_door(
    ctx: Ctx,
    vehicle_id: VehicleId,
    door: Door,
    open: Annotated[bool, Field(description="true to open, false to close")],
) -> dict[str, Any]:
    """Open or close one door, e.g. set_door('VEH-0002', 'front_right', open=False).
    Doors open only in park and unlocked."""
    v = VEHICLE.get(ctx, vehicle_id)
    is_open = ctx.db.execute(
        "SELECT is_open FROM doors WHERE vehicle_id = ? AND door = ?", (vehicle_id, door)
    ).fetchone()[0]
    if bool(is_open) == open:
        raise ToolError(f"The {door} door of {vehicle_id} is already {'open' if open else 'closed'}.")
    if open:
        if v["gear"] != "park":
            raise ToolError(
                f"{vehicle_id} is in {v['gear']}; doors cannot open while driving. shift_gear to 'park' first."
            )
        if v["locked"]:
            raise ToolError(f"{vehicle_id} is locked; set_door_lock('{vehicle_id}', locked=False) first.")
    ctx.db.execute("UPDATE doors SET is_open = ? WHERE vehicle_id = ? AND door = ?", (int(open), vehicle_id, door))
    _update(ctx, vehicle_id)
    return get_vehicle_status(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",), requires=("start_engine",))
def set_window(
    ctx: Ctx,
    vehicle_id: VehicleId,
    window: Door,
    position: Annotated[int, Field(ge=0, le=100, description="0 = closed, 100 = fully open")],
) -> dict[str, Any]:
    """Open, close or partly open one window, e.g. set_window('VEH-0006', 'front_right', 0).
    Windows need the engine on."""
    v = VEHICLE.get(ctx, vehicle_id)
    current = ctx.db.execute(
        "SELECT window_pct FROM doors WHERE vehicle_id = ? AND door = ?", (vehicle_id, window)
    ).fetchone()[0]
    if current == position:
        raise ToolError(f"The {window} window of {vehicle_id} is already at {position}%.")
    if v["engine"] != "on":
        raise ToolError(f"Windows of {vehicle_id} need power; start_engine('{vehicle_id}') first.")
    ctx.db.execute("UPDATE doors SET window_pct = ? WHERE vehicle_id = ? AND door = ?", (position, vehicle_id, window))
    _update(ctx, vehicle_id)
    return get_vehicle_status(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",))
def set_trunk(
    ctx: Ctx, vehicle_id: VehicleId, open: Annotated[bool, Field(description="true to open, false to close")]
) -> dict[str, Any]:
    """Open or close the trunk, e.g. set_trunk('VEH-0002', open=True). It opens only in park and unlocked."""
    v = VEHICLE.get(ctx, vehicle_id)
    if bool(v["trunk_open"]) == open:
        raise ToolError(f"The trunk of {vehicle_id} is already {'open' if open else 'closed'}.")
    if open:
        if v["gear"] != "park":
            raise ToolError(
                f"{vehicle_id} is in {v['gear']}; the trunk cannot open while driving. shift_gear to 'park' first."
            )
        if v["locked"]:
            raise ToolError(f"{vehicle_id} is locked; set_door_lock('{vehicle_id}', locked=False) first.")
    _update(ctx, vehicle_id, trunk_open=int(open))
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",))
def set_lights(ctx: Ctx, vehicle_id: VehicleId, mode: Literal["off", "auto", "low", "high"]) -> dict[str, Any]:
    """Set the headlights, e.g. set_lights('VEH-0007', 'low'). High beams only while in drive."""
    v = VEHICLE.get(ctx, vehicle_id)
    if v["lights"] == mode:
        raise ToolError(f"The lights of {vehicle_id} are already {mode}.")
    if mode == "high" and v["gear"] != "drive":
        raise ToolError(f"High beams need the car in drive ({vehicle_id} is in {v['gear']}); use 'low' instead.")
    _update(ctx, vehicle_id, lights=mode)
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle", "place"))
def set_destination(ctx: Ctx, vehicle_id: VehicleId, place_id: PlaceId) -> dict[str, Any]:
    """Set the navigation destination to a known place, e.g. set_destination('VEH-0007', 'PLC-0048').

    Returns the distance and whether the current range covers it. Not while navigation is active."""
    v = VEHICLE.get(ctx, vehicle_id)
    dest = PLACE.get(ctx, place_id)
    if v["nav_active"]:
        raise ToolError(
            f"{vehicle_id} is navigating to {v['destination_place_id']}; "
            "stop_navigation first to change the destination."
        )
    if v["location_place_id"] == place_id:
        raise ToolError(f"{vehicle_id} is already at {dest['name']} ({place_id}); choose another destination.")
    here = PLACE.get(ctx, v["location_place_id"])
    _update(ctx, vehicle_id, destination_place_id=place_id)
    km = _distance(here["lat"], here["lon"], dest["lat"], dest["lon"])
    return {
        "vehicle_id": vehicle_id,
        "destination_place_id": place_id,
        "destination": dest["name"],
        "distance_km": km,
        "range_km": _range_km(v),
        "range_sufficient": _range_km(v) >= km,
    }


@vehicle.write(returns=("vehicle", "trip"), requires=("set_destination", "start_engine"))
def start_navigation(ctx: Ctx, vehicle_id: VehicleId) -> dict[str, Any]:
    """Start turn-by-turn navigation to the destination set with set_destination, e.g. start_navigation('VEH-0006').

    Needs the engine on and enough range for the trip."""
    v = VEHICLE.get(ctx, vehicle_id)
    if v["nav_active"]:
        raise ToolError(f"{vehicle_id} is already navigating to {v['destination_place_id']}.")
    if not v["destination_place_id"]:
        raise ToolError(
            f"{vehicle_id} has no destination; call set_destination first (find places with search_places)."
        )
    if v["engine"] != "on":
        raise ToolError(f"The engine of {vehicle_id} is off; start_engine('{vehicle_id}') before navigating.")
    here, dest = PLACE.get(ctx, v["location_place_id"]), PLACE.get(ctx, v["destination_place_id"])
    km = _distance(here["lat"], here["lon"], dest["lat"], dest["lon"])
    if _range_km(v) < km:
        raise ToolError(
            f"{vehicle_id} has {_range_km(v)} km of range but the trip to {dest['name']} is {km} km; "
            "stop the engine and refuel_vehicle, or pick a nearer destination."
        )
    trip_id = next_id(ctx.db, "trips", "trip_id", "TRP", 5)
    ctx.db.execute(
        "INSERT INTO trips VALUES (?,?,?,?,?,?,?,?)",
        (trip_id, vehicle_id, here["place_id"], dest["place_id"], km, "active", fake.iso(ctx.now), None),
    )
    _update(ctx, vehicle_id, nav_active=1)
    return {
        "vehicle_id": vehicle_id,
        "trip_id": trip_id,
        "destination": dest["name"],
        "distance_km": km,
        "eta_minutes": int(km * 1.5) + 5,
    }


@vehicle.write(returns=("vehicle",), requires=("start_navigation",))
def stop_navigation(
    ctx: Ctx,
    vehicle_id: VehicleId,
    arrived: Annotated[
        bool, Field(description="true when the car has driven there (it must be in drive); false to cancel")
    ] = False,
) -> dict[str, Any]:
    """End navigation, e.g. stop_navigation('VEH-0009', arrived=True).

    arrived=true (car in drive) moves the car to the destination and uses distance and fuel/charge;
    arrived=false cancels the trip and keeps the destination."""
    v = VEHICLE.get(ctx, vehicle_id)
    if not v["nav_active"]:
        raise ToolError(f"{vehicle_id} is not navigating; set_destination and start_navigation first.")
    trip = fetch(
        ctx.db,
        "SELECT * FROM trips WHERE vehicle_id = ? AND status = 'active' ORDER BY trip_id DESC",
        (vehicle_id,),
        f"{vehicle_id} has no active trip.",
    )
    if not arrived:
        ctx.db.execute(
            "UPDATE trips SET status = 'cancelled', ended_at = ? WHERE trip_id = ?",
            (fake.iso(ctx.now), trip["trip_id"]),
        )
        _update(ctx, vehicle_id, nav_active=0)
        return {**_brief(ctx, vehicle_id), "trip_id": trip["trip_id"], "trip_status": "cancelled"}
    if v["gear"] != "drive":
        raise ToolError(
            f"{vehicle_id} is in {v['gear']}; it reaches the destination only when driven: "
            f"shift_gear('{vehicle_id}', 'drive') first."
        )
    km = trip["distance_km"]
    changes: dict[str, Any] = {
        "location_place_id": trip["to_place_id"],
        "destination_place_id": None,
        "nav_active": 0,
        "odometer_km": round(v["odometer_km"] + km, 1),
    }
    left = km
    if v["battery_pct"] is not None:  # EVs, and hybrids first, drive on the battery
        full = v["battery_kwh"] * v["km_per_kwh"]
        used = min(left, v["battery_pct"] / 100 * full)
        changes["battery_pct"] = round(max(0.0, v["battery_pct"] - used / full * 100), 1)
        left -= used
    if v["fuel_pct"] is not None:
        changes["fuel_pct"] = round(max(0.0, v["fuel_pct"] - left / (v["fuel_tank_l"] * v["km_per_l"]) * 100), 1)
    ctx.db.execute(
        "UPDATE trips SET status = 'completed', ended_at = ? WHERE trip_id = ?", (fake.iso(ctx.now), trip["trip_id"])
    )
    _update(ctx, vehicle_id, **changes)
    return {**_brief(ctx, vehicle_id), "trip_id": trip["trip_id"], "trip_status": "completed", "distance_km": km}


@vehicle.write(returns=("vehicle",))
def refuel_vehicle(
    ctx: Ctx,
    vehicle_id: VehicleId,
    percent: Annotated[int, Field(ge=1, le=100, description="Fill or charge up to this level in percent")] = 100,
) -> dict[str, Any]:
    """Refuel a gas or hybrid car, or charge an EV, up to a level, e.g. refuel_vehicle('VEH-0007', 80).

    The engine must be off and the car in park."""
    v = VEHICLE.get(ctx, vehicle_id)
    if v["engine"] != "off" or v["gear"] != "park":
        raise ToolError(
            f"{vehicle_id} must be parked with the engine off to refuel or charge; "
            "shift_gear to 'park' and stop_engine first."
        )
    column = "battery_pct" if v["powertrain"] == "electric" else "fuel_pct"
    if v[column] >= percent:
        raise ToolError(
            f"{vehicle_id}'s {'battery' if column == 'battery_pct' else 'tank'} is already at {v[column]}%, "
            f"at or above {percent}%."
        )
    _update(ctx, vehicle_id, **{column: float(percent)})
    return _brief(ctx, vehicle_id)


@vehicle.write(returns=("vehicle",))
def inflate_tire(
    ctx: Ctx,
    vehicle_id: VehicleId,
    position: Literal["front_left", "front_right", "rear_left", "rear_right", "all"],
    pressure_psi: Annotated[
        float, Field(ge=0, le=100, description="Target pressure in psi, within 5 of the recommended, e.g. 35")
    ],
) -> dict[str, Any]:
    """Inflate one tyre or all four to a pressure, e.g. inflate_tire('VEH-0007', 'all', 35). The car must be in park;
    the pressure must be within 5 psi of the recommended one (get_vehicle_status shows it)."""
    v = VEHICLE.get(ctx, vehicle_id)
    if v["gear"] != "park":
        raise ToolError(f"{vehicle_id} is in {v['gear']}; shift_gear to 'park' before inflating tyres.")
    # each tyre is held to its own recommended pressure (front and rear may differ)
    targets = ctx.db.execute(
        "SELECT position, recommended_psi FROM tires WHERE vehicle_id = ? AND ? IN ('all', position) ORDER BY position",
        (vehicle_id, position),
    ).fetchall()
    for where, rec in targets:
        if abs(pressure_psi - rec) > 5:
            raise ToolError(
                f"{pressure_psi:g} psi is not safe for the {where.replace('_', ' ')} tyre of {vehicle_id}: "
                f"choose {rec - 5:g} to {rec + 5:g} psi (recommended {rec:g})."
            )
    if position == "all":
        ctx.db.execute("UPDATE tires SET pressure_psi = ? WHERE vehicle_id = ?", (round(pressure_psi, 1), vehicle_id))
    else:
        ctx.db.execute(
            "UPDATE tires SET pressure_psi = ? WHERE vehicle_id = ? AND position = ?",
            (round(pressure_psi, 1), vehicle_id, position),
        )
    _update(ctx, vehicle_id)
    return {
        "vehicle_id": vehicle_id,
        "tires": rows(
            ctx.db.execute(
                "SELECT position, pressure_psi, recommended_psi FROM tires WHERE vehicle_id = ? ORDER BY position",
                (vehicle_id,),
            )
        ),
    }


server = vehicle
