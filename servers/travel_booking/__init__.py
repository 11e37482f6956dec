"""Travel booking: travellers, flights, seat maps, hotels, itineraries, baggage, cancellations and loyalty.

Business rules (times against the world's reference now, 2026-06-01T09:00 by default):
- A flight that has departed or was cancelled by the airline cannot be booked; a departed flight's
  booking cannot be cancelled, re-seated or given bags. A cabin with no seat left cannot be booked.
- Seat maps are fixed per aircraft: business rows first (seats A C D F), economy after (A to F). A seat
  held by another passenger cannot be selected, nor a seat of the other cabin.
- International flights need a passport on file valid at least 6 months past departure.
- A traveller holds at most one confirmed booking per flight.
- Hotel stays need check-out after check-in, at most 30 nights, a check-in not in the past, guests within
  the rooms' capacity, and a free room of the type for every night. Friday and Saturday nights cost 20% more.
- Flight cancellation: business refunds the fare in full before departure; economy refunds 100% from 7 days
  out, 50% from 24 hours, nothing inside 24 hours. Baggage fees and redeemed points always come back, and a
  flight cancelled by the airline refunds in full. Points earned on the booking are taken back.
- Hotel cancellation is free until 48 hours before check-in (15:00 on the check-in day); after that the
  first night is kept. A stay that has started cannot be cancelled.
- Loyalty: points per USD of fare (basic 1x, silver 1.25x, gold 1.5x, platinum 2x); redeeming takes at
  least 1,000 points in multiples of 100, 100 points = 1 USD off a flight booking's fare.
- Baggage: business includes 2 checked bags; each extra bag costs 35 USD (first paid bag) or 45 USD
  (further bags); at most 4 checked bags per booking.
"""

from __future__ import annotations

from servers.travel_booking import intents, intents_flights, intents_followups, intents_stays  # noqa: F401  (register the intents)
from servers.travel_booking.schema import SCHEMA
from servers.travel_booking.seed import seed
from servers.travel_booking.tools import travel

__all__ = ["SCHEMA", "seed", "server"]

server = travel
