"""Smart home tools: find homes, devices and sensors; switch, dim, heat, lock, open; scenes, automations, groups."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, Query, Server, ToolError, fake, fetch, listing, next_id, rows
from servers.iot_devices.schema import SCHEMA, SWITCHABLE, Color, DeviceType
from servers.iot_devices.seed import seed

iot = Server(
    "iot_devices",
    "Smart home: homes, rooms, lights, thermostats, locks, blinds, plugs, cameras, speakers, "
    "sensors, scenes, automations and device groups.",
    SCHEMA,
    seed,
    family="home",
)

HOME = iot.entity("home", table="homes", key="home_id", example="HOM-0003", finder="list_homes")
ROOM = iot.entity(
    "room", table="rooms", key="room_id", example="RM-0014", hint="Use get_home to find a home's room ids."
)
DEVICE = iot.entity("device", table="devices", key="device_id", example="DEV-0037", finder="list_devices")
SENSOR = iot.entity("sensor", table="sensors", key="sensor_id", example="SEN-0007", finder="list_sensors")
SCENE = iot.entity("scene", table="scenes", key="scene_id", example="SCN-0010", finder="list_scenes")
AUTOMATION = iot.entity(
    "automation", table="automations", key="automation_id", example="AUT-0006", finder="list_automations"
)
GROUP = iot.entity(
    "group",
    table="device_groups",
    key="group_id",
    example="GRP-0006",
    finder="list_groups",
    description="Device group id, e.g. 'GRP-0006'",
)

HomeId = Annotated[str, HOME]
DeviceId = Annotated[str, DEVICE]
SensorId = Annotated[str, SENSOR]
SceneId = Annotated[str, SCENE]
AutomationId = Annotated[str, AUTOMATION]
GroupId = Annotated[str, GROUP]
Name = Annotated[str, Field(min_length=1, max_length=80, description="A display name, e.g. 'Evening Glow'")]

DEVICE_COLUMNS = (
    "device_id, home_id, room_id, name, type, manufacturer, online, battery, power, brightness, color, "
    "mode, target_temp, lock_state, position"
)


def _device(ctx: Ctx, device_id: str) -> dict[str, Any]:
    # Its own message: an id a scene still holds may belong to a removed device, which the kit cannot say.
    return fetch(
        ctx.db,
        "SELECT * FROM devices WHERE device_id = ?",
        (device_id,),
        f"No device {device_id!r} (it may have been removed). Use list_devices to find device ids.",
    )


def _int(flag: bool | None) -> int | None:
    return None if flag is None else int(flag)


def _controllable(dev: dict[str, Any], *types: str) -> None:
    """The device must be of one of ``types``, online, and (for a lock) not jammed."""
    if types and dev["type"] not in types:
        raise ToolError(
            f"{dev['device_id']} ({dev['name']}) is a {dev['type']}, not a {' or '.join(types)}; "
            f"use the tool for {dev['type']}s instead."
        )
    if not dev["online"]:
        if dev["battery"] == 0:
            raise ToolError(
                f"{dev['device_id']} ({dev['name']}) is offline: its battery is empty. "
                f"Call replace_battery('{dev['device_id']}') first."
            )
        raise ToolError(
            f"{dev['device_id']} ({dev['name']}) is offline and cannot be controlled. "
            f"Try reboot_device('{dev['device_id']}') first."
        )


def _touch(ctx: Ctx, device_id: str, **changes: Any) -> None:
    sets = ", ".join(f"{k} = ?" for k in changes)
    ctx.db.execute(
        f"UPDATE devices SET {sets}, updated_at = ? WHERE device_id = ?",
        (*changes.values(), fake.iso(ctx.now), device_id),
    )


def _summary(ctx: Ctx, device_id: str) -> dict[str, Any]:
    return fetch(ctx.db, f"SELECT {DEVICE_COLUMNS}, updated_at FROM devices WHERE device_id = ?", (device_id,), "gone")


def _missing_in_scene(ctx: Ctx, scene_id: str) -> list[str]:
    return [
        r[0]
        for r in ctx.db.execute(
            "SELECT a.device_id FROM scene_actions a LEFT JOIN devices d ON d.device_id = a.device_id "
            "WHERE a.scene_id = ? AND d.device_id IS NULL ORDER BY a.device_id",
            (scene_id,),
        )
    ]


@iot.read(returns=("home",))
def list_homes(
    ctx: Ctx,
    query: Annotated[
        str, Field(max_length=100, description="Part of the home's name, owner or city, e.g. 'Garcia'")
    ] = "",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search homes by name, owner or city. Returns home ids such as 'HOM-0003'."""
    q = Query("SELECT home_id, name, owner_name, city FROM homes").contains(query, "name", "owner_name", "city")
    return q.page(ctx.db, "homes", order_by="home_id", limit=limit, offset=offset)


@iot.read(returns=("home", "room"))
def get_home(ctx: Ctx, home_id: HomeId) -> dict[str, Any]:
    """Get a home with its rooms (ids like 'RM-0014') and device counts by type, e.g. get_home('HOM-0003')."""
    home = HOME.get(ctx, home_id)
    home["rooms"] = rows(
        ctx.db.execute(
            "SELECT r.room_id, r.name, r.floor, COUNT(d.device_id) AS devices FROM rooms r "
            "LEFT JOIN devices d ON d.room_id = r.room_id WHERE r.home_id = ? GROUP BY r.room_id ORDER BY r.room_id",
            (home_id,),
        )
    )
    home["devices_by_type"] = dict(
        ctx.db.execute(
            "SELECT type, COUNT(*) FROM devices WHERE home_id = ? GROUP BY type ORDER BY type", (home_id,)
        ).fetchall()
    )
    home["offline_devices"] = ctx.db.execute(
        "SELECT COUNT(*) FROM devices WHERE home_id = ? AND online = 0", (home_id,)
    ).fetchone()[0]
    home["sensors"] = ctx.db.execute("SELECT COUNT(*) FROM sensors WHERE home_id = ?", (home_id,)).fetchone()[0]
    return home


@iot.read(returns=("device",))
def list_devices(
    ctx: Ctx,
    home_id: Annotated[str | None, HOME.ref("Only this home's devices, e.g. 'HOM-0003'")] = None,
    room_id: Annotated[str | None, ROOM.ref("Only this room's devices, e.g. 'RM-0014'")] = None,
    type: DeviceType | None = None,
    online: Annotated[bool | None, Field(description="true: only online devices; false: only offline ones")] = None,
    max_battery: Annotated[
        int | None, Field(ge=0, le=100, description="Only battery devices at or below this level, e.g. 20")
    ] = None,
    query: Annotated[str, Field(max_length=100, description="Part of the device name, e.g. 'Lamp'")] = "",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List devices, filtered by home, room, type, online state, battery level or name. Ids look like 'DEV-0037'."""
    q = Query(f"SELECT {DEVICE_COLUMNS} FROM devices").contains(query, "name")
    q.equal("home_id", home_id).equal("room_id", room_id).equal("type", type).equal("online", _int(online))
    q.filter("battery IS NOT NULL AND battery <= ?", max_battery)
    return q.page(ctx.db, "devices", order_by="device_id", limit=limit, offset=offset)


@iot.read(returns=("device", "home", "room", "scene", "group"))
def get_device(ctx: Ctx, device_id: DeviceId) -> dict[str, Any]:
    """Get one device's full state (power, brightness, colour, mode, temperatures, lock, position, battery),
    its room, and the scenes and groups that include it, e.g. get_device('DEV-0037')."""
    dev = _device(ctx, device_id)
    dev["room_name"] = ctx.db.execute("SELECT name FROM rooms WHERE room_id = ?", (dev["room_id"],)).fetchone()[0]
    dev["scene_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT scene_id FROM scene_actions WHERE device_id = ? ORDER BY scene_id", (device_id,)
        )
    ]
    dev["group_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT group_id FROM group_members WHERE device_id = ? ORDER BY group_id", (device_id,)
        )
    ]
    return {k: v for k, v in dev.items() if v is not None}


@iot.read(returns=("sensor",))
def list_sensors(
    ctx: Ctx,
    home_id: Annotated[str | None, HOME.ref("Only this home's sensors, e.g. 'HOM-0003'")] = None,
    room_id: Annotated[str | None, ROOM.ref("Only this room's sensors, e.g. 'RM-0014'")] = None,
    kind: Literal["temperature", "humidity", "motion", "door_contact"] | None = None,
    online: Annotated[bool | None, Field(description="true: only online sensors; false: only offline ones")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List sensors with their latest value, filtered by home, room, kind or online state. Ids look like 'SEN-0007'."""
    q = Query("SELECT * FROM sensors").equal("home_id", home_id).equal("room_id", room_id).equal("kind", kind)
    q.equal("online", _int(online))
    return q.page(ctx.db, "sensors", order_by="sensor_id", limit=limit, offset=offset)


@iot.read(returns=("sensor",))
def get_sensor_readings(
    ctx: Ctx,
    sensor_id: SensorId,
    since: Annotated[
        str | None, Field(max_length=30, description="Only readings on or after this ISO time, e.g. '2026-06-01T00:00'")
    ] = None,
    limit: Limit = 24,
) -> dict[str, Any]:
    """A sensor's reading history, newest first, e.g. get_sensor_readings('SEN-0007', since='2026-06-01T00:00').

    Temperature in C, humidity in %, motion and door_contact as 1 (detected / open) or 0."""
    sensor = SENSOR.get(ctx, sensor_id)
    q = Query("SELECT reading_id, value, recorded_at FROM readings").where("sensor_id = ?", sensor_id)
    q.filter("recorded_at >= ?", since)
    return {
        "sensor_id": sensor_id,
        "kind": sensor["kind"],
        "unit": sensor["unit"],
        "online": sensor["online"],
        **q.page(ctx.db, "readings", order_by="recorded_at DESC", limit=limit),
    }


@iot.read(returns=("scene",))
def list_scenes(ctx: Ctx, home_id: HomeId) -> dict[str, Any]:
    """List a home's scenes with how many devices each sets, e.g. list_scenes('HOM-0003')."""
    HOME.get(ctx, home_id)
    q = Query(
        "SELECT s.scene_id, s.name, s.last_activated_at, COUNT(a.device_id) AS devices FROM scenes s "
        "LEFT JOIN scene_actions a ON a.scene_id = s.scene_id"
    )
    q.where("s.home_id = ?", home_id)
    return q.page(ctx.db, "scenes", order_by="s.scene_id", group_by="s.scene_id")


@iot.read(returns=("scene", "device"))
def get_scene(ctx: Ctx, scene_id: SceneId) -> dict[str, Any]:
    """Get a scene and the state it sets on each device, e.g. get_scene('SCN-0010').

    An action whose device no longer exists is marked missing=true."""
    scene = SCENE.get(ctx, scene_id)
    actions = rows(
        ctx.db.execute(
            "SELECT a.*, d.name AS device_name, d.type AS device_type, d.online FROM scene_actions a "
            "LEFT JOIN devices d ON d.device_id = a.device_id WHERE a.scene_id = ? ORDER BY a.device_id",
            (scene_id,),
        )
    )
    scene["actions"] = []
    for a in actions:
        a.pop("scene_id")
        a["missing"] = a["device_name"] is None
        scene["actions"].append({k: v for k, v in a.items() if v is not None})
    return scene


@iot.read(returns=("automation", "scene", "sensor"))
def list_automations(
    ctx: Ctx,
    home_id: HomeId,
    enabled: Annotated[bool | None, Field(description="true: only enabled; false: only disabled")] = None,
) -> dict[str, Any]:
    """List a home's automations (time or sensor triggered, each runs a scene), e.g. list_automations('HOM-0003')."""
    HOME.get(ctx, home_id)
    q = Query("SELECT * FROM automations").where("home_id = ?", home_id).equal("enabled", _int(enabled))
    return q.page(ctx.db, "automations", order_by="automation_id")


@iot.read(returns=("group", "device"))
def list_groups(ctx: Ctx, home_id: HomeId) -> dict[str, Any]:
    """List a home's device groups with their members and whether each is online, e.g. list_groups('HOM-0003')."""
    HOME.get(ctx, home_id)
    groups = rows(ctx.db.execute("SELECT * FROM device_groups WHERE home_id = ? ORDER BY group_id", (home_id,)))
    for g in groups:
        g["members"] = rows(
            ctx.db.execute(
                "SELECT d.device_id, d.name, d.online, d.power FROM group_members m "
                "JOIN devices d ON d.device_id = m.device_id "
                "WHERE m.group_id = ? ORDER BY d.device_id",
                (g["group_id"],),
            )
        )
    return listing("groups", groups)


DISTINCT_FIELDS = {
    "device_type": ("devices", "type"),
    "manufacturer": ("devices", "manufacturer"),
    "room_name": ("rooms", "name"),
    "city": ("homes", "city"),
    "sensor_kind": ("sensors", "kind"),
    "thermostat_mode": ("devices", "mode"),
    "lock_state": ("devices", "lock_state"),
    "light_color": ("devices", "color"),
    "automation_trigger": ("automations", "trigger"),
    "scene_name": ("scenes", "name"),
}


iot.distinct_values(DISTINCT_FIELDS, example="device_type", skip_null=True)


@iot.write(returns=("device",))
def set_device_power(
    ctx: Ctx, device_id: DeviceId, on: Annotated[bool, Field(description="true to switch on, false to switch off")]
) -> dict[str, Any]:
    """Switch a light, plug, speaker or camera on or off, e.g. set_device_power('DEV-0037', on=True).

    The device must be online."""
    dev = _device(ctx, device_id)
    _controllable(dev, *SWITCHABLE)
    power = "on" if on else "off"
    if dev["power"] == power:
        raise ToolError(f"{device_id} ({dev['name']}) is already {power}.")
    _touch(ctx, device_id, power=power)
    return _summary(ctx, device_id)


@iot.write(returns=("device",))
def set_light(
    ctx: Ctx,
    device_id: DeviceId,
    brightness: Annotated[int | None, Field(ge=1, le=100, description="Brightness in percent, 1 to 100")] = None,
    color: Color | None = None,
) -> dict[str, Any]:
    """Set a light's brightness and/or colour; this also switches it on,
    e.g. set_light('DEV-0037', brightness=60, color='blue').

    Colours other than 'warm white' need a colour-capable bulb (supports_color=1 in get_device)."""
    dev = _device(ctx, device_id)
    _controllable(dev, "light")
    if brightness is None and color is None:
        raise ToolError("Give a brightness (1-100), a color, or both.")
    if color is not None and color != "warm white" and not dev["supports_color"]:
        raise ToolError(
            f"{device_id} ({dev['name']}) is a white-only bulb and cannot show {color!r}; set brightness only, "
            "or pick a light with supports_color=1."
        )
    _touch(
        ctx,
        device_id,
        power="on",
        brightness=brightness if brightness is not None else dev["brightness"],
        color=color if color is not None else dev["color"],
    )
    return _summary(ctx, device_id)


@iot.write(returns=("device",))
def set_thermostat(
    ctx: Ctx,
    device_id: DeviceId,
    mode: Literal["heat", "cool", "auto", "eco", "off"] | None = None,
    target_temperature: Annotated[
        float | None, Field(ge=-50, le=100, description="Target in degrees C, e.g. 21.5")
    ] = None,
) -> dict[str, Any]:
    """Set a thermostat's mode and/or target temperature,
    e.g. set_thermostat('DEV-0038', mode='heat', target_temperature=21.0).

    The target must lie within the thermostat's min_temp..max_temp (see get_device); an 'off' thermostat takes no
    target."""
    dev = _device(ctx, device_id)
    _controllable(dev, "thermostat")
    if mode is None and target_temperature is None:
        raise ToolError("Give a mode, a target_temperature, or both.")
    new_mode = mode or dev["mode"]
    if target_temperature is not None:
        if new_mode == "off":
            raise ToolError(
                f"Thermostat {device_id} is off; also pass a mode such as 'heat' or 'auto' to set a target."
            )
        if not dev["min_temp"] <= target_temperature <= dev["max_temp"]:
            raise ToolError(
                f"Target {target_temperature:g} C is outside {device_id}'s allowed range "
                f"{dev['min_temp']:g}-{dev['max_temp']:g} C; choose a target within it."
            )
    target = (
        None
        if new_mode == "off"
        else (
            target_temperature
            if target_temperature is not None
            else dev["target_temp"]
            if dev["target_temp"] is not None
            else min(max(21.0, dev["min_temp"]), dev["max_temp"])
        )
    )
    _touch(ctx, device_id, mode=new_mode, target_temp=None if target is None else round(target, 1))
    return _summary(ctx, device_id)


@iot.write(returns=("device",))
def set_lock_state(
    ctx: Ctx, device_id: DeviceId, locked: Annotated[bool, Field(description="true to lock, false to unlock")]
) -> dict[str, Any]:
    """Lock or unlock a smart lock, e.g. set_lock_state('DEV-0009', locked=False).

    A jammed lock must be recalibrated with reboot_device first."""
    dev = _device(ctx, device_id)
    _controllable(dev, "lock")
    if dev["lock_state"] == "jammed":
        raise ToolError(
            f"Lock {device_id} ({dev['name']}) is jammed. "
            f"Call reboot_device('{device_id}') to recalibrate it, then retry."
        )
    state = "locked" if locked else "unlocked"
    if dev["lock_state"] == state:
        raise ToolError(f"Lock {device_id} is already {state}.")
    _touch(ctx, device_id, lock_state=state)
    return _summary(ctx, device_id)


@iot.write(returns=("device",))
def set_blind_position(
    ctx: Ctx,
    device_id: DeviceId,
    position: Annotated[int, Field(ge=0, le=100, description="0 = fully closed, 100 = fully open")],
) -> dict[str, Any]:
    """Open, close or partly open blinds, e.g. set_blind_position('DEV-0040', 50)."""
    dev = _device(ctx, device_id)
    _controllable(dev, "blind")
    if dev["position"] == position:
        raise ToolError(f"Blinds {device_id} are already at {position}%.")
    _touch(ctx, device_id, position=position)
    return _summary(ctx, device_id)


@iot.write(returns=("device",))
def reboot_device(ctx: Ctx, device_id: DeviceId) -> dict[str, Any]:
    """Reboot a device: brings an offline device back online and recalibrates a jammed lock (it ends up unlocked),
    e.g. reboot_device('DEV-0065'). A device whose battery is empty needs replace_battery instead."""
    dev = _device(ctx, device_id)
    if dev["battery"] == 0:
        raise ToolError(
            f"{device_id} ({dev['name']}) has an empty battery and cannot boot. "
            f"Call replace_battery('{device_id}') first."
        )
    changes: dict[str, Any] = {"online": 1}
    if dev["lock_state"] == "jammed":
        changes["lock_state"] = "unlocked"
    _touch(ctx, device_id, **changes)
    return _summary(ctx, device_id)


@iot.write(returns=("device",))
def replace_battery(ctx: Ctx, device_id: DeviceId) -> dict[str, Any]:
    """Record a fresh battery in a battery-powered device (battery becomes 100%; a device that was dead comes back
    online), e.g. replace_battery('DEV-0045'). Only devices whose battery is below 90% need it."""
    dev = _device(ctx, device_id)
    if dev["battery"] is None:
        raise ToolError(f"{device_id} ({dev['name']}) is mains-powered and has no battery.")
    if dev["battery"] >= 90:
        raise ToolError(f"{device_id}'s battery is at {dev['battery']}%; it does not need replacing yet.")
    _touch(ctx, device_id, battery=100, online=1 if dev["battery"] == 0 else dev["online"])
    return _summary(ctx, device_id)


@iot.write()
def remove_device(ctx: Ctx, device_id: DeviceId) -> dict[str, Any]:
    """Remove a device from its home, e.g. remove_device('DEV-0050'). It leaves its groups; scenes that set it keep
    the action, which must then be removed with remove_scene_device before the scene can be activated."""
    dev = _device(ctx, device_id)
    ctx.db.execute("DELETE FROM group_members WHERE device_id = ?", (device_id,))
    ctx.db.execute("DELETE FROM devices WHERE device_id = ?", (device_id,))
    scenes = [
        r[0]
        for r in ctx.db.execute(
            "SELECT scene_id FROM scene_actions WHERE device_id = ? ORDER BY scene_id", (device_id,)
        )
    ]
    return {"device_id": device_id, "removed": True, "home_id": dev["home_id"], "scenes_still_referring": scenes}


@iot.write(returns=("scene",))
def create_scene(
    ctx: Ctx,
    home_id: HomeId,
    name: Name,
    device_ids: Annotated[
        list[str],
        Field(
            min_length=1,
            max_length=30,
            description="Devices of that home whose current state the scene saves, e.g. ['DEV-0037', 'DEV-0038']",
        ),
        Entity("device"),
    ],
) -> dict[str, Any]:
    """Save the current state of some devices of a home as a new scene,
    e.g. create_scene('HOM-0003', 'Evening Glow', ['DEV-0037', 'DEV-0038']).

    Activating the scene later restores exactly these states."""
    HOME.get(ctx, home_id)
    if ctx.db.execute("SELECT 1 FROM scenes WHERE home_id = ? AND name = ?", (home_id, name)).fetchone():
        raise ToolError(f"{home_id} already has a scene named {name!r}; pick another name (see list_scenes).")
    devs = []
    for device_id in dict.fromkeys(device_ids):
        dev = _device(ctx, device_id)
        if dev["home_id"] != home_id:
            raise ToolError(f"{device_id} belongs to {dev['home_id']}, not {home_id}; a scene only covers one home.")
        devs.append(dev)
    scene_id = next_id(ctx.db, "scenes", "scene_id", "SCN")
    ctx.db.execute("INSERT INTO scenes VALUES (?,?,?,?,?)", (scene_id, home_id, name, fake.iso(ctx.now), None))
    for d in devs:
        state = {
            "light": (d["power"], d["brightness"], d["color"], None, None, None, None),
            "thermostat": (None, None, None, d["mode"], d["target_temp"], None, None),
            "lock": (None, None, None, None, None, d["lock_state"] if d["lock_state"] != "jammed" else "locked", None),
            "blind": (None, None, None, None, None, None, d["position"]),
        }.get(d["type"], (d["power"], None, None, None, None, None, None))
        ctx.db.execute("INSERT INTO scene_actions VALUES (?,?,?,?,?,?,?,?,?)", (scene_id, d["device_id"], *state))
    return get_scene(ctx, scene_id)


@iot.write(returns=("scene", "device"))
def activate_scene(ctx: Ctx, scene_id: SceneId) -> dict[str, Any]:
    """Apply every device state a scene saved, all or nothing, e.g. activate_scene('SCN-0010').

    Fails if the scene refers to a removed device (fix with remove_scene_device), an offline device
    (reboot_device / replace_battery) or a jammed lock (reboot_device)."""
    scene = SCENE.get(ctx, scene_id)
    missing = _missing_in_scene(ctx, scene_id)
    if missing:
        raise ToolError(
            f"Scene {scene_id} ({scene['name']}) refers to removed device(s) {', '.join(missing)}; "
            f"call remove_scene_device('{scene_id}', '{missing[0]}') for each, then activate again."
        )
    actions = rows(ctx.db.execute("SELECT * FROM scene_actions WHERE scene_id = ? ORDER BY device_id", (scene_id,)))
    if not actions:
        raise ToolError(f"Scene {scene_id} sets no devices; create a new scene with create_scene.")
    applied = []
    for a in actions:
        dev = _device(ctx, a["device_id"])
        _controllable(dev)
        if a["lock_state"] is not None and dev["lock_state"] == "jammed":
            raise ToolError(
                f"Scene {scene_id} locks {dev['device_id']}, which is jammed; "
                f"call reboot_device('{dev['device_id']}') first."
            )
        changes = {
            k: a[k] for k in ("power", "brightness", "color", "mode", "lock_state", "position") if a[k] is not None
        }
        if a["mode"] is not None:
            changes["target_temp"] = None if a["mode"] == "off" else a["target_temp"]
        if changes:
            _touch(ctx, dev["device_id"], **changes)
        applied.append(dev["device_id"])
    ctx.db.execute("UPDATE scenes SET last_activated_at = ? WHERE scene_id = ?", (fake.iso(ctx.now), scene_id))
    return {"scene_id": scene_id, "name": scene["name"], "applied_to": applied, "activated_at": fake.iso(ctx.now)}


@iot.write(returns=("scene",))
def remove_scene_device(ctx: Ctx, scene_id: SceneId, device_id: DeviceId) -> dict[str, Any]:
    """Drop one device's action from a scene (e.g. a removed device), e.g. remove_scene_device('SCN-0010', 'DEV-0052').

    A scene must keep at least one device."""
    scene = SCENE.get(ctx, scene_id)
    if not ctx.db.execute(
        "SELECT 1 FROM scene_actions WHERE scene_id = ? AND device_id = ?", (scene_id, device_id)
    ).fetchone():
        raise ToolError(
            f"Scene {scene_id} ({scene['name']}) does not include {device_id}; see get_scene('{scene_id}')."
        )
    if ctx.db.execute("SELECT COUNT(*) FROM scene_actions WHERE scene_id = ?", (scene_id,)).fetchone()[0] <= 1:
        raise ToolError(f"{device_id} is the only device in scene {scene_id}; a scene must keep at least one device.")
    ctx.db.execute("DELETE FROM scene_actions WHERE scene_id = ? AND device_id = ?", (scene_id, device_id))
    return get_scene(ctx, scene_id)


@iot.write(returns=("automation",))
def create_automation(
    ctx: Ctx,
    home_id: HomeId,
    name: Name,
    scene_id: SceneId,
    trigger: Literal["time", "sensor"],
    at_time: Annotated[
        str | None,
        Field(pattern=r"^([01]\d|2[0-3]):[0-5]\d$", description="For trigger='time': 24h time 'HH:MM', e.g. '07:30'"),
    ] = None,
    days: Literal["daily", "weekdays", "weekends"] = "daily",
    sensor_id: Annotated[str | None, SENSOR.ref("For trigger='sensor': the sensor, e.g. 'SEN-0022'")] = None,
    condition: Literal["above", "below", "detected", "opened", "closed"] | None = None,
    threshold: Annotated[
        float | None, Field(ge=-50, le=150, description="For 'above'/'below': the value, e.g. 26.0")
    ] = None,
) -> dict[str, Any]:
    """Create an enabled automation that activates a scene of the same home, e.g.
    create_automation('HOM-0003', 'Wake up', 'SCN-0008', 'time', at_time='07:00', days='weekdays').

    trigger='sensor' needs sensor_id and a condition: 'above'/'below' with a threshold for temperature or humidity
    sensors, 'detected' for motion, 'opened'/'closed' for door contacts."""
    HOME.get(ctx, home_id)
    scene = SCENE.get(ctx, scene_id)
    if scene["home_id"] != home_id:
        raise ToolError(f"Scene {scene_id} belongs to {scene['home_id']}, not {home_id}; use list_scenes('{home_id}').")
    if ctx.db.execute("SELECT 1 FROM automations WHERE home_id = ? AND name = ?", (home_id, name)).fetchone():
        raise ToolError(f"{home_id} already has an automation named {name!r}; pick another name.")
    if trigger == "time":
        if at_time is None:
            raise ToolError("trigger='time' needs at_time, e.g. '07:30'.")
        sensor_id = condition = threshold = None  # type: ignore[assignment]
    else:
        if sensor_id is None or condition is None:
            raise ToolError("trigger='sensor' needs sensor_id and condition; find sensors with list_sensors.")
        sensor = SENSOR.get(ctx, sensor_id)
        if sensor["home_id"] != home_id:
            raise ToolError(f"Sensor {sensor_id} belongs to {sensor['home_id']}, not {home_id}.")
        allowed = {
            "temperature": ("above", "below"),
            "humidity": ("above", "below"),
            "motion": ("detected",),
            "door_contact": ("opened", "closed"),
        }[sensor["kind"]]
        if condition not in allowed:
            raise ToolError(
                f"A {sensor['kind']} sensor supports condition {' or '.join(map(repr, allowed))}, not {condition!r}."
            )
        if condition in ("above", "below") and threshold is None:
            raise ToolError(f"condition={condition!r} needs a threshold, e.g. 26.0.")
        if condition not in ("above", "below"):
            threshold = None
        at_time, days = None, None  # type: ignore[assignment]
    auto_id = next_id(ctx.db, "automations", "automation_id", "AUT")
    ctx.db.execute(
        "INSERT INTO automations VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            auto_id,
            home_id,
            name,
            trigger,
            at_time,
            days,
            sensor_id,
            condition,
            threshold,
            scene_id,
            1,
            fake.iso(ctx.now),
            None,
        ),
    )
    return AUTOMATION.get(ctx, auto_id)


@iot.write(returns=("automation",))
def set_automation_enabled(
    ctx: Ctx,
    automation_id: AutomationId,
    enabled: Annotated[bool, Field(description="true to enable, false to disable")],
) -> dict[str, Any]:
    """Enable or disable an automation, e.g. set_automation_enabled('AUT-0006', enabled=False).

    An automation cannot be enabled while its scene refers to a removed device."""
    auto = AUTOMATION.get(ctx, automation_id)
    if bool(auto["enabled"]) == enabled:
        raise ToolError(f"Automation {automation_id} is already {'enabled' if enabled else 'disabled'}.")
    if enabled:
        missing = _missing_in_scene(ctx, auto["scene_id"])
        if missing:
            raise ToolError(
                f"Automation {automation_id} runs scene {auto['scene_id']}, which refers to removed device(s) "
                f"{', '.join(missing)}; fix the scene with remove_scene_device first."
            )
    ctx.db.execute("UPDATE automations SET enabled = ? WHERE automation_id = ?", (int(enabled), automation_id))
    return {"automation_id": automation_id, "enabled": enabled}


@iot.write(returns=("group", "device"))
def set_group_power(
    ctx: Ctx, group_id: GroupId, on: Annotated[bool, Field(description="true to switch all on, false all off")]
) -> dict[str, Any]:
    """Switch every device of a group on or off at once, e.g. set_group_power('GRP-0006', on=False).

    All or nothing: fails if any member is offline (list_groups shows which)."""
    group = GROUP.get(ctx, group_id)
    devs = rows(
        ctx.db.execute(
            "SELECT d.* FROM group_members m JOIN devices d ON d.device_id = m.device_id "
            "WHERE m.group_id = ? ORDER BY d.device_id",
            (group_id,),
        )
    )
    if not devs:
        raise ToolError(f"Group {group_id} ({group['name']}) has no devices left.")
    offline = [d["device_id"] for d in devs if not d["online"]]
    if offline:
        raise ToolError(
            f"Group {group_id} ({group['name']}) has offline member(s) {', '.join(offline)}; "
            "bring them online with reboot_device or replace_battery, then retry."
        )
    power = "on" if on else "off"
    changed = [d["device_id"] for d in devs if d["power"] != power and d["type"] in SWITCHABLE]
    for device_id in changed:
        _touch(ctx, device_id, power=power)
    return {"group_id": group_id, "power": power, "changed": changed, "members": [d["device_id"] for d in devs]}


server = iot
