"""Vehicle: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

V = "vehicle"


def status(world: World, vehicle_id: str) -> dict:
    return world.ok(V, "get_vehicle_status", vehicle_id=vehicle_id)


def door(world: World, vehicle_id: str, name: str) -> dict:
    return next(d for d in status(world, vehicle_id)["doors"] if d["door"] == name)


def test_owners_vehicles_distinct(world: World) -> None:
    owners = world.ok(V, "list_owners", city="Phoenix", limit=5)["owners"]
    assert owners and all(o["city"] == "Phoenix" for o in owners)
    cars = world.ok(V, "list_vehicles", owner_id=owners[0]["owner_id"])["vehicles"]
    assert len(cars) == owners[0]["vehicles"]
    evs = world.ok(V, "list_vehicles", powertrain="electric", engine="off", limit=100)["vehicles"]
    assert evs and all(v["powertrain"] == "electric" and v["engine"] == "off" for v in evs)
    assert world.ok(V, "list_vehicles", query="Civic", limit=100)["count"] >= 1
    assert world.ok(V, "list_owners", query="zzzz")["count"] == 0
    assert "invalid arguments" in world.err(V, "list_vehicles", powertrain="diesel")
    assert "invalid arguments" in world.err(V, "list_owners", offset=-1)
    assert "Tesla" in world.ok(V, "get_distinct_values", field="make")["values"]
    assert "invalid arguments" in world.err(V, "get_distinct_values", field="vin")


def test_status_places_services(world: World) -> None:
    s = status(world, "VEH-0007")
    assert s["engine"] == "off" and len(s["doors"]) == 4 and len(s["tires"]) == 4 and s["range_km"] > 0
    assert any("flat tyre" in w for w in status(world, "VEH-0071")["warnings"])
    assert "No vehicle" in world.err(V, "get_vehicle_status", vehicle_id="VEH-9999")
    near = world.ok(V, "search_places", near_vehicle_id="VEH-0007", limit=5)["places"]
    assert near[0]["place_id"] == s["location_place_id"] and near[0]["distance_km"] == 0
    assert [p["distance_km"] for p in near] == sorted(p["distance_km"] for p in near)
    assert world.ok(V, "search_places", query="Airport", city="Phoenix")["places"][0]["category"] == "airport"
    assert "No vehicle" in world.err(V, "search_places", near_vehicle_id="")
    recs = world.ok(V, "list_service_records", vehicle_id="VEH-0007")["service_records"]
    assert recs and recs[0]["service_date"] >= recs[-1]["service_date"]
    assert world.ok(V, "list_service_records", vehicle_id="VEH-0007", since="2026-01-01")["count"] < len(recs)
    assert "No vehicle" in world.err(V, "list_service_records", vehicle_id="nope")


def test_drive_to_destination(world: World) -> None:
    car = "VEH-0007"
    before = status(world, car)
    assert "no destination" in world.err(V, "start_navigation", vehicle_id=car)
    assert "already at" in world.err(V, "set_destination", vehicle_id=car, place_id=before["location_place_id"])
    assert "No place" in world.err(V, "set_destination", vehicle_id=car, place_id="PLC-9999")
    dest = world.ok(V, "set_destination", vehicle_id=car, place_id="PLC-0048")
    assert dest["range_sufficient"] and status(world, car)["destination_place_id"] == "PLC-0048"
    assert "engine of VEH-0007 is off" in world.err(V, "start_navigation", vehicle_id=car)
    assert "engine" in world.err(V, "shift_gear", vehicle_id=car, gear="drive")
    world.ok(V, "start_engine", vehicle_id=car)
    assert status(world, car)["engine"] == "on"
    assert "already on" in world.err(V, "start_engine", vehicle_id=car)
    world.ok(V, "shift_gear", vehicle_id=car, gear="drive")
    assert status(world, car)["gear"] == "drive"
    assert "already in drive" in world.err(V, "shift_gear", vehicle_id=car, gear="drive")
    assert "cannot unlock while driving" in world.err(V, "set_door_lock", vehicle_id=car, locked=False)
    assert "trunk cannot open" in world.err(V, "set_trunk", vehicle_id=car, open=True)
    assert "cannot open while driving" in world.err(V, "set_door", vehicle_id=car, door="front_left", open=True)
    assert "park" in world.err(V, "stop_engine", vehicle_id=car)
    assert "park" in world.err(V, "refuel_vehicle", vehicle_id=car)
    trip = world.ok(V, "start_navigation", vehicle_id=car)
    assert status(world, car)["nav_active"] == 1
    assert "already navigating" in world.err(V, "start_navigation", vehicle_id=car)
    assert "stop_navigation first" in world.err(V, "set_destination", vehicle_id=car, place_id="PLC-0040")
    world.ok(V, "stop_navigation", vehicle_id=car, arrived=True)
    after = status(world, car)
    assert after["location_place_id"] == "PLC-0048" and after["nav_active"] == 0 and "destination_place_id" not in after
    assert after["odometer_km"] == round(before["odometer_km"] + trip["distance_km"], 1)
    assert after["fuel_pct"] < before["fuel_pct"]
    assert after["recent_trips"][0]["status"] == "completed"
    assert "not navigating" in world.err(V, "stop_navigation", vehicle_id=car)
    world.ok(V, "shift_gear", vehicle_id=car, gear="park")
    world.ok(V, "stop_engine", vehicle_id=car)
    assert status(world, car)["engine"] == "off"
    assert "already off" in world.err(V, "stop_engine", vehicle_id=car)


def test_cancel_navigation_and_arrival_needs_drive(world: World) -> None:
    driving = world.ok(V, "list_vehicles", gear="drive", limit=1)["vehicles"][0]["vehicle_id"]
    world.ok(V, "stop_navigation", vehicle_id=driving)
    s = status(world, driving)
    assert s["nav_active"] == 0 and s["destination_place_id"] and s["recent_trips"][0]["status"] == "cancelled"
    world.ok(V, "shift_gear", vehicle_id=driving, gear="park")
    world.ok(V, "start_navigation", vehicle_id=driving)
    assert "only when driven" in world.err(V, "stop_navigation", vehicle_id=driving, arrived=True)
    world.ok(V, "stop_engine", vehicle_id=driving)
    assert status(world, driving)["nav_active"] == 0


def test_range_check(world: World) -> None:
    car = "VEH-0002"  # an Outback with ~11% fuel and a door open
    far = world.ok(V, "search_places", city="Boston", limit=1)["places"][0]["place_id"]
    assert not world.ok(V, "set_destination", vehicle_id=car, place_id=far)["range_sufficient"]
    world.ok(V, "set_door", vehicle_id=car, door="front_right", open=False)
    world.ok(V, "start_engine", vehicle_id=car)
    assert "range" in world.err(V, "start_navigation", vehicle_id=car)


def test_start_engine_preconditions(world: World) -> None:
    assert "No key" in world.err(V, "start_engine", vehicle_id="VEH-0021")
    assert "open" in world.err(V, "start_engine", vehicle_id="VEH-0002")
    assert "fuel tank is empty" in world.err(V, "start_engine", vehicle_id="VEH-0142")
    assert "No vehicle" in world.err(V, "start_engine", vehicle_id="")
    world.ok(V, "refuel_vehicle", vehicle_id="VEH-0142", percent=60)
    assert status(world, "VEH-0142")["fuel_pct"] == 60
    assert "already at" in world.err(V, "refuel_vehicle", vehicle_id="VEH-0142", percent=50)
    world.ok(V, "start_engine", vehicle_id="VEH-0142")
    assert "engine off" in world.err(V, "refuel_vehicle", vehicle_id="VEH-0142")
    assert "battery is depleted" in world.err(V, "start_engine", vehicle_id="VEH-0050")
    world.ok(V, "refuel_vehicle", vehicle_id="VEH-0050")
    assert status(world, "VEH-0050")["battery_pct"] == 100
    assert "invalid arguments" in world.err(V, "refuel_vehicle", vehicle_id="VEH-0050", percent=0)


def test_doors_locks_trunk(world: World) -> None:
    car = "VEH-0002"
    assert "front_right open" in world.err(V, "set_door_lock", vehicle_id=car, locked=True)
    assert "already open" in world.err(V, "set_door", vehicle_id=car, door="front_right", open=True)
    world.ok(V, "set_door", vehicle_id=car, door="front_right", open=False)
    assert door(world, car, "front_right")["is_open"] == 0
    world.ok(V, "set_door_lock", vehicle_id=car, locked=True)
    assert status(world, car)["locked"] == 1
    assert "already locked" in world.err(V, "set_door_lock", vehicle_id=car, locked=True)
    assert "is locked" in world.err(V, "set_door", vehicle_id=car, door="rear_left", open=True)
    assert "is locked" in world.err(V, "set_trunk", vehicle_id=car, open=True)
    world.ok(V, "set_door_lock", vehicle_id=car, locked=False)
    world.ok(V, "set_trunk", vehicle_id=car, open=True)
    assert status(world, car)["trunk_open"] == 1
    assert "trunk" in world.err(V, "set_door_lock", vehicle_id=car, locked=True)
    world.ok(V, "start_engine", vehicle_id=car)
    assert "trunk" in world.err(V, "shift_gear", vehicle_id=car, gear="reverse")
    world.ok(V, "set_trunk", vehicle_id=car, open=False)
    assert "already closed" in world.err(V, "set_trunk", vehicle_id=car, open=False)
    world.ok(V, "shift_gear", vehicle_id=car, gear="reverse")
    assert "invalid arguments" in world.err(V, "set_door", vehicle_id=car, door="sunroof", open=True)


def test_windows(world: World) -> None:
    car = "VEH-0007"
    assert "need power" in world.err(V, "set_window", vehicle_id=car, window="front_left", position=50)
    world.ok(V, "start_engine", vehicle_id=car)
    world.ok(V, "set_window", vehicle_id=car, window="front_left", position=50)
    assert door(world, car, "front_left")["window_pct"] == 50
    assert "already at 50%" in world.err(V, "set_window", vehicle_id=car, window="front_left", position=50)
    assert "invalid arguments" in world.err(V, "set_window", vehicle_id=car, window="front_left", position=101)


def test_climate(world: World) -> None:
    assert "needs the engine running" in world.err(V, "set_climate", vehicle_id="VEH-0007", on=True)
    world.ok(V, "set_climate", vehicle_id="VEH-0014", on=True, temperature=22.5, driver_seat_heat=3)
    s = status(world, "VEH-0014")
    assert (s["engine"], s["climate_on"], s["climate_temp"], s["seat_heat_driver"]) == ("off", 1, 22.5, 3)
    assert "out of range" in world.err(V, "set_climate", vehicle_id="VEH-0014", on=True, temperature=35.0)
    world.ok(V, "set_climate", vehicle_id="VEH-0014", on=False)
    s = status(world, "VEH-0014")
    assert (s["climate_on"], s["seat_heat_driver"]) == (0, 0)
    assert "already off" in world.err(V, "set_climate", vehicle_id="VEH-0014", on=False)
    assert "below the 20%" in world.err(V, "set_climate", vehicle_id="VEH-0050", on=True)
    assert "invalid arguments" in world.err(V, "set_climate", vehicle_id="VEH-0014", on=True, driver_seat_heat=4)


def test_lights(world: World) -> None:
    car = "VEH-0007"
    assert "High beams" in world.err(V, "set_lights", vehicle_id=car, mode="high")
    current = status(world, car)["lights"]
    mode = "low" if current != "low" else "auto"
    world.ok(V, "set_lights", vehicle_id=car, mode=mode)
    assert status(world, car)["lights"] == mode
    assert "already" in world.err(V, "set_lights", vehicle_id=car, mode=mode)


def test_flat_tire(world: World) -> None:
    car = "VEH-0071"
    world.ok(V, "start_engine", vehicle_id=car)
    assert "flat" in world.err(V, "shift_gear", vehicle_id=car, gear="drive")
    rec = status(world, car)["tires"][0]["recommended_psi"]
    assert "not safe" in world.err(V, "inflate_tire", vehicle_id=car, position="all", pressure_psi=rec + 10)
    world.ok(V, "inflate_tire", vehicle_id=car, position="all", pressure_psi=rec)
    assert all(t["pressure_psi"] == rec for t in status(world, car)["tires"])
    world.ok(V, "shift_gear", vehicle_id=car, gear="drive")
    assert "park" in world.err(V, "inflate_tire", vehicle_id=car, position="front_left", pressure_psi=rec)
    assert "invalid arguments" in world.err(V, "inflate_tire", vehicle_id=car, position="spare", pressure_psi=rec)


def test_each_tyre_is_held_to_its_own_recommended_pressure(world: World) -> None:
    car = "VEH-0071"
    world.ok(V, "get_vehicle_status", vehicle_id=car)  # opens the session's fork
    db = world.sessions.get(world.session).fork_of(V).db  # type: ignore[attr-defined]
    db.execute("UPDATE tires SET recommended_psi = 36 WHERE vehicle_id = ? AND position LIKE 'front%'", (car,))
    db.execute("UPDATE tires SET recommended_psi = 44 WHERE vehicle_id = ? AND position LIKE 'rear%'", (car,))
    world.ok(V, "inflate_tire", vehicle_id=car, position="rear_left", pressure_psi=44)
    world.ok(V, "inflate_tire", vehicle_id=car, position="front_right", pressure_psi=36)
    error = world.err(V, "inflate_tire", vehicle_id=car, position="rear_right", pressure_psi=36)
    assert "rear right" in error and "39 to 49" in error
    assert "not safe" in world.err(V, "inflate_tire", vehicle_id=car, position="all", pressure_psi=42)
