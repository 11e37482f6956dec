"""Vehicle tools for trips and upkeep: destination, guidance, arriving, refuelling or charging, tyres."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, fetch, next_id
from servers.vehicle.schema import _distance
from servers.vehicle.tools import PlaceId, VehicleId, _brief, _range_km, _update, vehicle


@vehicle.write(returns=("vehicle", "place"))
def set_destination(ctx: Ctx, vehicle_id: VehicleId, place_id: PlaceId) -> dict[str, Any]:
    """Set the navigation destination to a known place, e.g. set_destination('VEH-0007', 'PLC-0048').

    Returns the distance and whether the current range covers it. Not while navigation is active."""
    v = VehicleId.get(ctx, vehicle_id)
    dest = PlaceId.get(ctx, place_id)
    if v["nav_active"]:
        raise ToolError(
            f"{vehicle_id} is navigating to {v['destination_place_id']}; "
            "stop_navigation first to change the destination."
        )
    if v["location_place_id"] == place_id:
        raise ToolError(f"{vehicle_id} is already at {dest['name']} ({place_id}); choose another destination.")
    here = PlaceId.get(ctx, v["location_place_id"])
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
    v = VehicleId.get(ctx, vehicle_id)
    if v["nav_active"]:
        raise ToolError(f"{vehicle_id} is already navigating to {v['destination_place_id']}.")
    if not v["destination_place_id"]:
        raise ToolError(
            f"{vehicle_id} has no destination; call set_destination first (find places with search_places)."
        )
    if v["engine"] != "on":
        raise ToolError(f"The engine of {vehicle_id} is off; start_engine('{vehicle_id}') before navigating.")
    here, dest = PlaceId.get(ctx, v["location_place_id"]), PlaceId.get(ctx, v["destination_place_id"])
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
    v = VehicleId.get(ctx, vehicle_id)
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
    v = VehicleId.get(ctx, vehicle_id)
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
    v = VehicleId.get(ctx, vehicle_id)
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
        "tires": ctx.rows(
            "SELECT position, pressure_psi, recommended_psi FROM tires WHERE vehicle_id = ? ORDER BY position",
            (vehicle_id,),
        ),
    }


server = vehicle
