"""IoT devices: smart homes with rooms, devices, sensors, scenes, automations and device groups.

Business rules: an offline device cannot be controlled (reboot it, or replace its battery when
the battery is empty); only lights, plugs, speakers and cameras switch on and off; colour needs a
colour-capable bulb; a thermostat's target must lie within that thermostat's own bounds and an 'off'
thermostat takes no target; a jammed lock must be rebooted before it locks or unlocks; activating a
scene applies every saved state at once, and fails as a whole while it refers to a removed, offline
or jammed device; an automation runs a scene of its own home and cannot be enabled while its scene
refers to a removed device; a group switches all its members or none.
"""

from __future__ import annotations

from servers.iot_devices import intents_followups, intents_home, intents_scenes  # noqa: F401  (registers the intents)
from servers.iot_devices.schema import SCHEMA
from servers.iot_devices.seed import seed
from servers.iot_devices.tools import iot

__all__ = ["SCHEMA", "seed", "server"]

server = iot
