"""Vehicle tools that change the car: ignition, gears, climate, doors, windows, trunk, lights, navigation,
refuelling and tyres, each gated by the car's mode."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake
from servers.vehicle.schema import FLAT_PSI, MIN_CLIMATE_BATTERY, MIN_START_BATTERY
from servers.vehicle.tools import Door, Gear, VehicleId, _brief, _open_parts, _update, get_vehicle_status, vehicle


@vehicle.write(returns=("vehicle",))
def start_engine(ctx: Ctx, vehicle_id: VehicleId) -> dict[str, Any]:
    """Start the engine (power on an EV), e.g. start_engine('VEH-0007').

    Needs the car in park, the key inside, all doors closed and fuel (or at least 2% charge) left."""
    v = VehicleId.get(ctx, vehicle_id)
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
    v = VehicleId.get(ctx, vehicle_id)
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
    v = VehicleId.get(ctx, vehicle_id)
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
        flat = ctx.column(
            "SELECT position FROM tires WHERE vehicle_id = ? AND pressure_psi < ? ORDER BY position",
            (vehicle_id, FLAT_PSI),
        )
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
    v = VehicleId.get(ctx, vehicle_id)
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
    v = VehicleId.get(ctx, vehicle_id)
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
    v = VehicleId.get(ctx, vehicle_id)
    is_open = ctx.value("SELECT is_open FROM doors WHERE vehicle_id = ? AND door = ?", (vehicle_id, door))
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
    v = VehicleId.get(ctx, vehicle_id)
    current = ctx.value("SELECT window_pct FROM doors WHERE vehicle_id = ? AND door = ?", (vehicle_id, window))
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
    v = VehicleId.get(ctx, vehicle_id)
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
    v = VehicleId.get(ctx, vehicle_id)
    if v["lights"] == mode:
        raise ToolError(f"The lights of {vehicle_id} are already {mode}.")
    if mode == "high" and v["gear"] != "drive":
        raise ToolError(f"High beams need the car in drive ({vehicle_id} is in {v['gear']}); use 'low' instead.")
    _update(ctx, vehicle_id, lights=mode)
    return _brief(ctx, vehicle_id)
