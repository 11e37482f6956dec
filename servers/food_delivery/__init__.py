"""Food delivery: restaurants, menus, customers, carts, promo codes, orders with live tracking, couriers and ratings.

Business rules (times against the world's reference now; Monday 2026-06-01T09:00 by default):
- A cart holds items of one restaurant; adding another restaurant's item needs replace_cart=true.
- An order needs an open restaurant at the time it is for (now, or a scheduled time within 7 days), every
  item still available, a subtotal at least the restaurant's minimum order, and a customer within 15 km.
- Totals: subtotal + delivery fee + service fee (5% of subtotal, 1 to 5 USD) - promo discount.
- Promo codes: not expired, subtotal at least the code's minimum, restaurant-specific codes only at that
  restaurant, once-per-customer codes only once (cancelled orders do not count).
- Orders move placed -> accepted -> preparing -> out_for_delivery (a courier of the city picks it up)
  -> delivered. ETA = start + the restaurant's prep time + travel time (20 km/h on 1.3x the straight line, +5 min).
- Cancelling: free while placed or accepted; while preparing half the subtotal is kept; impossible once
  picked up (out_for_delivery) or delivered.
- Only a delivered order can be rated, once; a rating moves the restaurant's and courier's averages.
"""

from __future__ import annotations

from servers.food_delivery import intents_after, intents_finding, intents_followups, intents_ordering, tools_write  # noqa: F401  (registers the tools and intents)
from servers.food_delivery.tools import food as server

__all__ = ["server"]
