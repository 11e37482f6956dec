"""Maps: geocoding, reverse geocoding, places with ratings and opening hours, nearby search, routes and
turn-by-turn directions, plus a user's saved places, place lists and reviews.

Business rules:
- Distances are great-circle (haversine) distances; a route's length is that distance times a detour
  factor per mode (driving 1.3, cycling 1.25, walking 1.2, transit 1.4), its duration the length at the
  mode's speed (driving 40 km/h in town, 70 km/h beyond 30 km; cycling 15; walking 5; transit 25 plus
  an 8 minute wait). Walking routes are capped at 50 km and cycling at 150 km; transit runs only
  inside one city.
- "Open now" means open at the world's reference now (by default Monday 2026-06-01T09:00); hours may run past midnight.
- A user saves a place once, a list holds a place once (at most 100 places), a user reviews a place
  once; a review moves the place's average rating and review count.
"""

from __future__ import annotations

from servers.maps import intents, intents_followups, intents_mine, intents_start, tools_people  # noqa: F401  (register them)
from servers.maps.schema import SCHEMA
from servers.maps.seed import seed
from servers.maps.tools import maps

__all__ = ["SCHEMA", "seed", "server"]

server = maps
