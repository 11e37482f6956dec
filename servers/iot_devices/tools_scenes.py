"""Smart home write tools for scenes, automations and groups."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, ToolError, fake, next_id
from servers.iot_devices.schema import SWITCHABLE
from servers.iot_devices.tools import (
    AutomationId,
    DeviceId,
    GroupId,
    HomeId,
    Name,
    SceneId,
    SensorId,
    _controllable,
    _missing_in_scene,
    _touch,
    get_scene,
    iot,
)


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
    HomeId.get(ctx, home_id)
    if ctx.db.execute("SELECT 1 FROM scenes WHERE home_id = ? AND name = ?", (home_id, name)).fetchone():
        raise ToolError(f"{home_id} already has a scene named {name!r}; pick another name (see list_scenes).")
    devs = []
    for device_id in dict.fromkeys(device_ids):
        dev = DeviceId.get(ctx, device_id)
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
    scene = SceneId.get(ctx, scene_id)
    missing = _missing_in_scene(ctx, scene_id)
    if missing:
        raise ToolError(
            f"Scene {scene_id} ({scene['name']}) refers to removed device(s) {', '.join(missing)}; "
            f"call remove_scene_device('{scene_id}', '{missing[0]}') for each, then activate again."
        )
    actions = ctx.rows("SELECT * FROM scene_actions WHERE scene_id = ? ORDER BY device_id", (scene_id,))
    if not actions:
        raise ToolError(f"Scene {scene_id} sets no devices; create a new scene with create_scene.")
    applied = []
    for a in actions:
        dev = DeviceId.get(ctx, a["device_id"])
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
    scene = SceneId.get(ctx, scene_id)
    if not ctx.db.execute(
        "SELECT 1 FROM scene_actions WHERE scene_id = ? AND device_id = ?", (scene_id, device_id)
    ).fetchone():
        raise ToolError(
            f"Scene {scene_id} ({scene['name']}) does not include {device_id}; see get_scene('{scene_id}')."
        )
    if ctx.value("SELECT COUNT(*) FROM scene_actions WHERE scene_id = ?", (scene_id,)) <= 1:
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
    sensor_id: Annotated[str | None, SensorId.ref("For trigger='sensor': the sensor, e.g. 'SEN-0022'")] = None,
    condition: Literal["above", "below", "detected", "opened", "closed"] | None = None,
    threshold: Annotated[
        float | None, Field(ge=-50, le=150, description="For 'above'/'below': the value, e.g. 26.0")
    ] = None,
) -> dict[str, Any]:
    """Create an enabled automation that activates a scene of the same home, e.g.
    create_automation('HOM-0003', 'Wake up', 'SCN-0008', 'time', at_time='07:00', days='weekdays').

    trigger='sensor' needs sensor_id and a condition: 'above'/'below' with a threshold for temperature or humidity
    sensors, 'detected' for motion, 'opened'/'closed' for door contacts."""
    HomeId.get(ctx, home_id)
    scene = SceneId.get(ctx, scene_id)
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
        sensor = SensorId.get(ctx, sensor_id)
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
    return AutomationId.get(ctx, auto_id)


@iot.write(returns=("automation",))
def set_automation_enabled(
    ctx: Ctx,
    automation_id: AutomationId,
    enabled: Annotated[bool, Field(description="true to enable, false to disable")],
) -> dict[str, Any]:
    """Enable or disable an automation, e.g. set_automation_enabled('AUT-0006', enabled=False).

    An automation cannot be enabled while its scene refers to a removed device."""
    auto = AutomationId.get(ctx, automation_id)
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
    group = GroupId.get(ctx, group_id)
    devs = ctx.rows(
        "SELECT d.* FROM group_members m JOIN devices d ON d.device_id = m.device_id "
        "WHERE m.group_id = ? ORDER BY d.device_id",
        (group_id,),
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
