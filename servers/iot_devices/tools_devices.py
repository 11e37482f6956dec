"""Smart home write tools for devices: switch, dim, heat, lock, open, reboot, recharge and remove them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError
from servers.iot_devices.schema import SWITCHABLE, Color
from servers.iot_devices.tools import DeviceId, _controllable, _summary, _touch, iot


@iot.write(returns=("device",))
def set_device_power(
    ctx: Ctx, device_id: DeviceId, on: Annotated[bool, Field(description="true to switch on, false to switch off")]
) -> dict[str, Any]:
    """Switch a light, plug, speaker or camera on or off, e.g. set_device_power('DEV-0037', on=True).

    The device must be online."""
    dev = DeviceId.get(ctx, device_id)
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
    dev = DeviceId.get(ctx, device_id)
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
    dev = DeviceId.get(ctx, device_id)
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
    dev = DeviceId.get(ctx, device_id)
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
    dev = DeviceId.get(ctx, device_id)
    _controllable(dev, "blind")
    if dev["position"] == position:
        raise ToolError(f"Blinds {device_id} are already at {position}%.")
    _touch(ctx, device_id, position=position)
    return _summary(ctx, device_id)


@iot.write(returns=("device",))
def reboot_device(ctx: Ctx, device_id: DeviceId) -> dict[str, Any]:
    """Reboot a device: brings an offline device back online and recalibrates a jammed lock (it ends up unlocked),
    e.g. reboot_device('DEV-0065'). A device whose battery is empty needs replace_battery instead."""
    dev = DeviceId.get(ctx, device_id)
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
    dev = DeviceId.get(ctx, device_id)
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
    dev = DeviceId.get(ctx, device_id)
    ctx.db.execute("DELETE FROM group_members WHERE device_id = ?", (device_id,))
    ctx.db.execute("DELETE FROM devices WHERE device_id = ?", (device_id,))
    scenes = ctx.column("SELECT scene_id FROM scene_actions WHERE device_id = ? ORDER BY scene_id", (device_id,))
    return {"device_id": device_id, "removed": True, "home_id": dev["home_id"], "scenes_still_referring": scenes}
