"""IoT devices: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

S = "iot_devices"


def device(world: World, **filters: object) -> dict:
    found = world.ok(S, "list_devices", limit=100, **filters)["devices"]
    assert found, filters
    return found[0]


def test_homes_and_distinct(world: World) -> None:
    homes = world.ok(S, "list_homes", limit=3)["homes"]
    assert len(homes) == 3
    home = world.ok(S, "get_home", home_id=homes[0]["home_id"])
    assert home["rooms"] and sum(home["devices_by_type"].values()) > 0
    assert world.ok(S, "list_homes", query=home["city"])["count"] >= 1
    assert "No home" in world.err(S, "get_home", home_id="HOM-9999")
    assert "invalid arguments" in world.err(S, "list_homes", limit=0)
    assert "light" in world.ok(S, "get_distinct_values", field="device_type")["values"]
    assert "invalid arguments" in world.err(S, "get_distinct_values", field="password")


def test_list_and_get_device(world: World) -> None:
    home = world.ok(S, "get_home", home_id="HOM-0003")
    room = home["rooms"][0]["room_id"]
    devs = world.ok(S, "list_devices", room_id=room)["devices"]
    assert devs and all(d["room_id"] == room for d in devs)
    low = world.ok(S, "list_devices", max_battery=10, limit=100)["devices"]
    assert low and all(d["battery"] <= 10 for d in low)
    dev = world.ok(S, "get_device", device_id=devs[0]["device_id"])
    assert dev["room_name"] and dev["home_id"] == "HOM-0003"
    assert "No device" in world.err(S, "get_device", device_id="")
    assert "invalid arguments" in world.err(S, "list_devices", type="toaster")


def test_sensors_and_readings(world: World) -> None:
    sensors = world.ok(S, "list_sensors", kind="temperature", online=True, limit=5)["sensors"]
    assert sensors and all(s["kind"] == "temperature" for s in sensors)
    hist = world.ok(S, "get_sensor_readings", sensor_id=sensors[0]["sensor_id"], limit=50)
    assert hist["count"] == 8 and hist["readings"][0]["value"] == sensors[0]["last_value"]
    recent = world.ok(S, "get_sensor_readings", sensor_id=sensors[0]["sensor_id"], since="2026-06-01T00:00")
    assert 0 < recent["count"] < 8
    assert world.ok(S, "get_sensor_readings", sensor_id=sensors[0]["sensor_id"], since="not a date")["count"] == 0
    assert "No sensor" in world.err(S, "get_sensor_readings", sensor_id="SEN-0000")
    assert "invalid arguments" in world.err(S, "list_sensors", kind="smoke")


def test_power_and_light(world: World) -> None:
    lamp = device(world, type="light", online=True, query="Lamp")
    dev = world.ok(S, "get_device", device_id=lamp["device_id"])
    world.ok(S, "set_device_power", device_id=lamp["device_id"], on=dev["power"] != "on")
    assert world.ok(S, "get_device", device_id=lamp["device_id"])["power"] == ("off" if dev["power"] == "on" else "on")
    assert "already" in world.err(S, "set_device_power", device_id=lamp["device_id"], on=dev["power"] != "on")
    thermostat = device(world, type="thermostat", online=True)
    assert "is a thermostat" in world.err(S, "set_device_power", device_id=thermostat["device_id"], on=True)
    colour = next(
        d
        for d in world.ok(S, "list_devices", type="light", online=True, limit=100)["devices"]
        if world.ok(S, "get_device", device_id=d["device_id"])["supports_color"]
    )
    world.ok(S, "set_light", device_id=colour["device_id"], brightness=35, color="purple")
    got = world.ok(S, "get_device", device_id=colour["device_id"])
    assert (got["power"], got["brightness"], got["color"]) == ("on", 35, "purple")
    white = next(
        d
        for d in world.ok(S, "list_devices", type="light", online=True, limit=100)["devices"]
        if not world.ok(S, "get_device", device_id=d["device_id"])["supports_color"]
    )
    assert "white-only" in world.err(S, "set_light", device_id=white["device_id"], color="red")
    assert "Give a brightness" in world.err(S, "set_light", device_id=white["device_id"])
    assert "invalid arguments" in world.err(S, "set_light", device_id=white["device_id"], brightness=101)


def test_offline_device_needs_reboot_or_battery(world: World) -> None:
    dead = device(world, online=False, max_battery=0)
    kind = dead["type"]
    assert "empty battery" in world.err(S, "reboot_device", device_id=dead["device_id"])
    if kind == "lock":
        assert "replace_battery" in world.err(S, "set_lock_state", device_id=dead["device_id"], locked=False)
    world.ok(S, "replace_battery", device_id=dead["device_id"])
    got = world.ok(S, "get_device", device_id=dead["device_id"])
    assert (got["battery"], got["online"]) == (100, 1)
    assert "does not need replacing" in world.err(S, "replace_battery", device_id=dead["device_id"])
    mains = next(
        d for d in world.ok(S, "list_devices", online=False, type="light", limit=100)["devices"] if d["battery"] is None
    )
    assert "offline" in world.err(S, "set_device_power", device_id=mains["device_id"], on=mains["power"] != "on")
    assert "mains-powered" in world.err(S, "replace_battery", device_id=mains["device_id"])
    world.ok(S, "reboot_device", device_id=mains["device_id"])
    assert world.ok(S, "get_device", device_id=mains["device_id"])["online"] == 1
    world.ok(S, "set_device_power", device_id=mains["device_id"], on=mains["power"] != "on")


def test_thermostat_bounds(world: World) -> None:
    t = world.ok(S, "get_device", device_id=device(world, type="thermostat", online=True)["device_id"])
    world.ok(S, "set_thermostat", device_id=t["device_id"], mode="heat", target_temperature=t["min_temp"] + 2)
    got = world.ok(S, "get_device", device_id=t["device_id"])
    assert (got["mode"], got["target_temp"]) == ("heat", t["min_temp"] + 2)
    assert "outside" in world.err(S, "set_thermostat", device_id=t["device_id"], target_temperature=t["max_temp"] + 1)
    world.ok(S, "set_thermostat", device_id=t["device_id"], mode="off")
    assert "target_temp" not in world.ok(S, "get_device", device_id=t["device_id"])
    assert "is off" in world.err(S, "set_thermostat", device_id=t["device_id"], target_temperature=20.0)
    assert "Give a mode" in world.err(S, "set_thermostat", device_id=t["device_id"])
    assert "not a thermostat" in world.err(
        S, "set_thermostat", device_id=device(world, type="plug")["device_id"], mode="heat"
    )


def test_locks_and_jam(world: World) -> None:
    locks = world.ok(S, "list_devices", type="lock", online=True, limit=100)["devices"]
    ok_lock = next(d for d in locks if d["lock_state"] == "locked")
    world.ok(S, "set_lock_state", device_id=ok_lock["device_id"], locked=False)
    assert world.ok(S, "get_device", device_id=ok_lock["device_id"])["lock_state"] == "unlocked"
    assert "already unlocked" in world.err(S, "set_lock_state", device_id=ok_lock["device_id"], locked=False)
    jammed = next(d for d in locks if d["lock_state"] == "jammed")
    assert "jammed" in world.err(S, "set_lock_state", device_id=jammed["device_id"], locked=True)
    world.ok(S, "reboot_device", device_id=jammed["device_id"])
    world.ok(S, "set_lock_state", device_id=jammed["device_id"], locked=True)
    assert world.ok(S, "get_device", device_id=jammed["device_id"])["lock_state"] == "locked"


def test_blinds(world: World) -> None:
    blind = device(world, type="blind", online=True)
    target = 30 if blind["position"] != 30 else 60
    world.ok(S, "set_blind_position", device_id=blind["device_id"], position=target)
    assert world.ok(S, "get_device", device_id=blind["device_id"])["position"] == target
    assert "already at" in world.err(S, "set_blind_position", device_id=blind["device_id"], position=target)
    assert "invalid arguments" in world.err(S, "set_blind_position", device_id=blind["device_id"], position=150)


def test_scenes_create_activate(world: World) -> None:
    scenes = world.ok(S, "list_scenes", home_id="HOM-0003")["scenes"]
    assert scenes
    assert "No home" in world.err(S, "list_scenes", home_id="HOM-0000")
    lamp, plug = "DEV-0037", "DEV-0043"
    world.ok(S, "set_light", device_id=lamp, brightness=45, color="green")
    scene = world.ok(S, "create_scene", home_id="HOM-0003", name="Evening Glow", device_ids=[lamp, plug, lamp])
    assert [a["device_id"] for a in world.ok(S, "get_scene", scene_id=scene["scene_id"])["actions"]] == [lamp, plug]
    assert "already has a scene" in world.err(
        S, "create_scene", home_id="HOM-0003", name="Evening Glow", device_ids=[lamp]
    )
    assert "belongs to" in world.err(S, "create_scene", home_id="HOM-0001", name="X", device_ids=[lamp])
    assert "invalid arguments" in world.err(S, "create_scene", home_id="HOM-0003", name="Y", device_ids=[])
    world.ok(S, "set_light", device_id=lamp, brightness=100, color="red")
    world.ok(S, "activate_scene", scene_id=scene["scene_id"])
    got = world.ok(S, "get_device", device_id=lamp)
    assert (got["brightness"], got["color"]) == (45, "green")
    assert world.ok(S, "get_scene", scene_id=scene["scene_id"])["last_activated_at"] == "2026-06-01T09:00:00"
    assert "No scene" in world.err(S, "activate_scene", scene_id="SCN-9999")
    assert "No scene" in world.err(S, "get_scene", scene_id="SCN-9999")


def test_scene_with_removed_device(world: World) -> None:
    scene = world.ok(S, "get_scene", scene_id="SCN-0010")
    victim = scene["actions"][-1]["device_id"]
    removed = world.ok(S, "remove_device", device_id=victim)
    assert "SCN-0010" in removed["scenes_still_referring"]
    assert "No device" in world.err(S, "get_device", device_id=victim)
    assert "No device" in world.err(S, "remove_device", device_id=victim)
    assert [a for a in world.ok(S, "get_scene", scene_id="SCN-0010")["actions"] if a["device_id"] == victim][0][
        "missing"
    ]
    assert "removed device" in world.err(S, "activate_scene", scene_id="SCN-0010")
    auto = world.ok(
        S,
        "create_automation",
        home_id="HOM-0003",
        name="Movie time",
        scene_id="SCN-0010",
        trigger="time",
        at_time="20:30",
    )
    world.ok(S, "set_automation_enabled", automation_id=auto["automation_id"], enabled=False)
    assert "removed device" in world.err(S, "set_automation_enabled", automation_id=auto["automation_id"], enabled=True)
    world.ok(S, "remove_scene_device", scene_id="SCN-0010", device_id=victim)
    assert victim not in [a["device_id"] for a in world.ok(S, "get_scene", scene_id="SCN-0010")["actions"]]
    assert "does not include" in world.err(S, "remove_scene_device", scene_id="SCN-0010", device_id=victim)
    world.ok(S, "activate_scene", scene_id="SCN-0010")
    world.ok(S, "set_automation_enabled", automation_id=auto["automation_id"], enabled=True)


def test_scene_last_device_and_offline(world: World) -> None:
    scene = world.ok(S, "create_scene", home_id="HOM-0003", name="Solo", device_ids=["DEV-0037"])
    assert "only device" in world.err(S, "remove_scene_device", scene_id=scene["scene_id"], device_id="DEV-0037")
    dead = world.ok(S, "create_scene", home_id="HOM-0003", name="Door", device_ids=["DEV-0045", "DEV-0037"])
    assert "offline" in world.err(S, "activate_scene", scene_id=dead["scene_id"])


def test_automations(world: World) -> None:
    before = world.ok(S, "list_automations", home_id="HOM-0003")["count"]
    auto = world.ok(
        S,
        "create_automation",
        home_id="HOM-0003",
        name="Wake up",
        scene_id="SCN-0008",
        trigger="time",
        at_time="07:00",
        days="weekdays",
    )
    listed = world.ok(S, "list_automations", home_id="HOM-0003", enabled=True)["automations"]
    assert auto["automation_id"] in [a["automation_id"] for a in listed]
    assert world.ok(S, "list_automations", home_id="HOM-0003")["count"] == before + 1
    sensor = world.ok(S, "list_sensors", home_id="HOM-0003", kind="door_contact")["sensors"][0]["sensor_id"]
    world.ok(
        S,
        "create_automation",
        home_id="HOM-0003",
        name="Door opened",
        scene_id="SCN-0008",
        trigger="sensor",
        sensor_id=sensor,
        condition="opened",
    )
    assert "supports condition" in world.err(
        S,
        "create_automation",
        home_id="HOM-0003",
        name="Hot",
        scene_id="SCN-0008",
        trigger="sensor",
        sensor_id=sensor,
        condition="above",
        threshold=30.0,
    )
    assert "needs at_time" in world.err(
        S, "create_automation", home_id="HOM-0003", name="Z", scene_id="SCN-0008", trigger="time"
    )
    assert "already has an automation" in world.err(
        S, "create_automation", home_id="HOM-0003", name="Wake up", scene_id="SCN-0008", trigger="time", at_time="08:00"
    )
    assert "belongs to" in world.err(
        S, "create_automation", home_id="HOM-0001", name="Q", scene_id="SCN-0008", trigger="time", at_time="08:00"
    )
    assert "invalid arguments" in world.err(
        S, "create_automation", home_id="HOM-0003", name="Q", scene_id="SCN-0008", trigger="time", at_time="25:00"
    )
    world.ok(S, "set_automation_enabled", automation_id="AUT-0006", enabled=False)
    assert not [
        a
        for a in world.ok(S, "list_automations", home_id="HOM-0003")["automations"]
        if a["automation_id"] == "AUT-0006"
    ][0]["enabled"]
    assert "already disabled" in world.err(S, "set_automation_enabled", automation_id="AUT-0006", enabled=False)
    assert "No automation" in world.err(S, "set_automation_enabled", automation_id="AUT-0000", enabled=True)


def test_groups(world: World) -> None:
    groups = world.ok(S, "list_groups", home_id="HOM-0003")["groups"]
    group = next(g for g in groups if g["group_id"] == "GRP-0006")
    world.ok(S, "set_group_power", group_id="GRP-0006", on=False)
    members = next(g for g in world.ok(S, "list_groups", home_id="HOM-0003")["groups"] if g["group_id"] == "GRP-0006")[
        "members"
    ]
    assert len(members) == len(group["members"]) and all(m["power"] == "off" for m in members)
    offline = None
    for h in range(1, 37):
        for g in world.ok(S, "list_groups", home_id=f"HOM-{h:04d}")["groups"]:
            if any(not m["online"] for m in g["members"]):
                offline = g
                break
        if offline:
            break
    assert offline
    assert "offline member" in world.err(S, "set_group_power", group_id=offline["group_id"], on=True)
    assert "No group" in world.err(S, "set_group_power", group_id="GRP-0000", on=True)
    assert "No home" in world.err(S, "list_groups", home_id="nope")
    assert "No home" in world.err(S, "list_automations", home_id="nope")
