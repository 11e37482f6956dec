"""Vehicle: owners' connected cars (gas, hybrid, electric) with ignition, gears, climate, doors, windows,
trunk, lights, tyres, navigation to known places and service records.

Business rules (gated by mode): the engine starts only in park, with the key inside, every door closed
and fuel (or charge) left, and stops only in park; leaving park needs the engine on, doors and trunk
closed and no flat tyre; doors and trunk open only in park and when unlocked, the car unlocks only in
park and locks only with everything closed; windows need the engine on; climate needs the engine on,
or for hybrids and EVs at least 20% battery; navigation needs a destination, the engine on and enough
range; arriving at the destination needs the car in drive and uses distance and energy; refuelling or
charging needs the engine off; tyres are inflated in park to within 5 psi of the recommended pressure.
"""

from __future__ import annotations

from servers.vehicle import intents, intents_followups, intents_trips, tools_trip, tools_write  # noqa: F401  (registers)
from servers.vehicle.schema import SCHEMA
from servers.vehicle.seed import seed
from servers.vehicle.tools import vehicle

__all__ = ["SCHEMA", "seed", "server"]

server = vehicle
