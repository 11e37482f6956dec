"""Smart home tools: the server, its entities and helpers, and the reads (homes, devices, sensors, scenes,
automations, groups); the writes live in ``tools_devices`` and ``tools_scenes``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, ToolError, fake, fetch, listing
from servers.iot_devices.schema import SCHEMA, DeviceType
from servers.iot_devices.seed import seed

iot = Server(
    "iot_devices",
    "Smart home: homes, rooms, lights, thermostats, locks, blinds, plugs, cameras, speakers, "
    "sensors, scenes, automations and device groups.",
    SCHEMA,
    seed,
    family="home",
)


class HomeId(EntityId, server=iot, example="HOM-0003", finder="list_homes"): ...


class RoomId(EntityId, server=iot, example="RM-0014", hint="Use get_home to find a home's room ids."): ...


# an id a scene still holds may belong to a removed device: the message says so
class DeviceId(
    EntityId,
    server=iot,
    example="DEV-0037",
    finder="list_devices",
    hint="It may have been removed. Use list_devices to find device ids.",
): ...


class SensorId(EntityId, server=iot, example="SEN-0007", finder="list_sensors"): ...


class SceneId(EntityId, server=iot, example="SCN-0010", finder="list_scenes"): ...


class AutomationId(EntityId, server=iot, example="AUT-0006", finder="list_automations"): ...


class GroupId(
    EntityId,
    server=iot,
    table="device_groups",
    example="GRP-0006",
    finder="list_groups",
    description="Device group id, e.g. 'GRP-0006'",
): ...


Name = Annotated[str, Field(min_length=1, max_length=80, description="A display name, e.g. 'Evening Glow'")]

DEVICE_COLUMNS = (
    "device_id, home_id, room_id, name, type, manufacturer, online, battery, power, brightness, color, "
    "mode, target_temp, lock_state, position"
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
    DeviceId.update(ctx, device_id, {**changes, "updated_at": fake.iso(ctx.now)})


def _summary(ctx: Ctx, device_id: str) -> dict[str, Any]:
    return fetch(ctx.db, f"SELECT {DEVICE_COLUMNS}, updated_at FROM devices WHERE device_id = ?", (device_id,), "gone")


def _missing_in_scene(ctx: Ctx, scene_id: str) -> list[str]:
    return ctx.column(
        "SELECT a.device_id FROM scene_actions a LEFT JOIN devices d ON d.device_id = a.device_id "
        "WHERE a.scene_id = ? AND d.device_id IS NULL ORDER BY a.device_id",
        (scene_id,),
    )


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
    home = HomeId.get(ctx, home_id)
    home["rooms"] = ctx.rows(
        "SELECT r.room_id, r.name, r.floor, COUNT(d.device_id) AS devices FROM rooms r "
        "LEFT JOIN devices d ON d.room_id = r.room_id WHERE r.home_id = ? GROUP BY r.room_id ORDER BY r.room_id",
        (home_id,),
    )
    home["devices_by_type"] = dict(
        ctx.db.execute(
            "SELECT type, COUNT(*) FROM devices WHERE home_id = ? GROUP BY type ORDER BY type", (home_id,)
        ).fetchall()
    )
    home["offline_devices"] = ctx.value("SELECT COUNT(*) FROM devices WHERE home_id = ? AND online = 0", (home_id,))
    home["sensors"] = ctx.value("SELECT COUNT(*) FROM sensors WHERE home_id = ?", (home_id,))
    return home


@iot.read(returns=("device",))
def list_devices(
    ctx: Ctx,
    home_id: Annotated[str | None, HomeId.ref("Only this home's devices, e.g. 'HOM-0003'")] = None,
    room_id: Annotated[str | None, RoomId.ref("Only this room's devices, e.g. 'RM-0014'")] = None,
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
    dev = DeviceId.get(ctx, device_id)
    dev["room_name"] = ctx.value("SELECT name FROM rooms WHERE room_id = ?", (dev["room_id"],))
    dev["scene_ids"] = ctx.column(
        "SELECT scene_id FROM scene_actions WHERE device_id = ? ORDER BY scene_id", (device_id,)
    )
    dev["group_ids"] = ctx.column(
        "SELECT group_id FROM group_members WHERE device_id = ? ORDER BY group_id", (device_id,)
    )
    return {k: v for k, v in dev.items() if v is not None}


@iot.read(returns=("sensor",))
def list_sensors(
    ctx: Ctx,
    home_id: Annotated[str | None, HomeId.ref("Only this home's sensors, e.g. 'HOM-0003'")] = None,
    room_id: Annotated[str | None, RoomId.ref("Only this room's sensors, e.g. 'RM-0014'")] = None,
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
    sensor = SensorId.get(ctx, sensor_id)
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
    HomeId.get(ctx, home_id)
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
    scene = SceneId.get(ctx, scene_id)
    actions = ctx.rows(
        "SELECT a.*, d.name AS device_name, d.type AS device_type, d.online FROM scene_actions a "
        "LEFT JOIN devices d ON d.device_id = a.device_id WHERE a.scene_id = ? ORDER BY a.device_id",
        (scene_id,),
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
    HomeId.get(ctx, home_id)
    q = Query("SELECT * FROM automations").where("home_id = ?", home_id).equal("enabled", _int(enabled))
    return q.page(ctx.db, "automations", order_by="automation_id")


@iot.read(returns=("group", "device"))
def list_groups(ctx: Ctx, home_id: HomeId) -> dict[str, Any]:
    """List a home's device groups with their members and whether each is online, e.g. list_groups('HOM-0003')."""
    HomeId.get(ctx, home_id)
    groups = ctx.rows("SELECT * FROM device_groups WHERE home_id = ? ORDER BY group_id", (home_id,))
    for g in groups:
        g["members"] = ctx.rows(
            "SELECT d.device_id, d.name, d.online, d.power FROM group_members m "
            "JOIN devices d ON d.device_id = m.device_id "
            "WHERE m.group_id = ? ORDER BY d.device_id",
            (g["group_id"],),
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
