"""Vehicle tools: the server, its entities and the reads (owners, cars, places, service records); the writes live
in ``tools_write`` (ignition, gears, climate, doors, windows, trunk, lights) and ``tools_trip`` (navigation,
refuelling, tyres), each gated by the car's mode."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, fake, listing
from servers.vehicle.schema import FLAT_PSI, SCHEMA, _distance
from servers.vehicle.seed import seed

vehicle = Server(
    "vehicle",
    "Connected cars: ignition, gears, climate, doors, windows, trunk, lights, tyres, navigation, "
    "fuel and charge, service records.",
    SCHEMA,
    seed,
    family="mobility",
)


class OwnerId(EntityId, server=vehicle, example="OWN-0003", finder="list_owners"): ...


class VehicleId(EntityId, server=vehicle, example="VEH-0007", finder="list_vehicles"): ...


class PlaceId(EntityId, server=vehicle, example="PLC-0048", hint="Use search_places to find known places."): ...


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
    VehicleId.update(ctx, vehicle_id, {**changes, "updated_at": fake.iso(ctx.now)})


def _brief(ctx: Ctx, vehicle_id: str) -> dict[str, Any]:
    v = VehicleId.get(ctx, vehicle_id)
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
    parts = ctx.column("SELECT door FROM doors WHERE vehicle_id = ? AND is_open = 1 ORDER BY door", (v["vehicle_id"],))
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
    owner_id: Annotated[str | None, OwnerId.ref("Only this owner's vehicles, e.g. 'OWN-0003'")] = None,
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
    v = VehicleId.get(ctx, vehicle_id)
    v["range_km"] = _range_km(v)
    v["doors"] = ctx.rows(
        "SELECT door, is_open, window_pct FROM doors WHERE vehicle_id = ? ORDER BY door", (vehicle_id,)
    )
    v["tires"] = ctx.rows(
        "SELECT position, pressure_psi, recommended_psi FROM tires WHERE vehicle_id = ? ORDER BY position",
        (vehicle_id,),
    )
    v["location"] = PlaceId.get(ctx, v["location_place_id"])["name"]
    if v["destination_place_id"]:
        dest = PlaceId.get(ctx, v["destination_place_id"])
        here = PlaceId.get(ctx, v["location_place_id"])
        v["destination"] = dest["name"]
        v["distance_to_destination_km"] = _distance(here["lat"], here["lon"], dest["lat"], dest["lon"])
    v["recent_trips"] = ctx.rows(
        "SELECT trip_id, from_place_id, to_place_id, distance_km, status, started_at "
        "FROM trips WHERE vehicle_id = ? "
        "ORDER BY started_at DESC, trip_id DESC LIMIT 5",
        (vehicle_id,),
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
        str | None, VehicleId.ref("Add each place's distance from this vehicle and sort nearest first, e.g. 'VEH-0007'")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search the known places a vehicle can navigate to, e.g. search_places('Airport', city='Phoenix').
    Ids look like 'PLC-0048'."""
    q = Query("SELECT * FROM places").contains(query, "name", "address").equal("category", category)
    found = q.equal("city", city).rows(ctx.db, order_by="place_id")
    if near_vehicle_id is not None:
        here = PlaceId.get(ctx, VehicleId.get(ctx, near_vehicle_id)["location_place_id"])
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
    VehicleId.get(ctx, vehicle_id)
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
