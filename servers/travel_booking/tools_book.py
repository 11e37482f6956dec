"""Travel booking tools that book and change flights and rooms: book, re-seat, add bags, cancel a flight."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, fetch, next_id
from servers.travel_booking.schema import TIERS, _layout, _stay_price
from servers.travel_booking.tools import (
    Cabin,
    Day,
    FlightBookingId,
    FlightId,
    HotelId,
    ItineraryId,
    RoomType,
    SeatCode,
    TravellerId,
    _active_flight_booking,
    _cabin_state,
    _flight,
    _flight_refund,
    _is_international,
    _points,
    _rooms_booked,
    _stay_dates,
    travel,
)


def _check_seat(ctx: Ctx, flight: dict[str, Any], cabin: str, seat: str) -> str:
    seat = seat.upper()
    layouts = _layout(flight["aircraft"])
    if seat not in layouts["economy"] and seat not in layouts["business"]:
        raise ToolError(
            f"Seat {seat} does not exist on this {flight['aircraft']}; see get_seat_map('{flight['flight_id']}')."
        )
    if seat not in layouts[cabin]:
        other = "business" if cabin == "economy" else "economy"
        raise ToolError(
            f"Seat {seat} is in {other}, but the booking is {cabin}; pick a {cabin} seat from get_seat_map."
        )
    if seat in _cabin_state(ctx, flight, cabin)["taken"]:
        raise ToolError(
            f"Seat {seat} on {flight['flight_id']} is already taken; choose a free seat from "
            f"get_seat_map('{flight['flight_id']}')."
        )
    return seat


def _bookable(flight: dict[str, Any]) -> None:
    if flight["status"] == "departed":
        raise ToolError(
            f"Flight {flight['flight_id']} departed at {flight['departs_at']}; choose a later flight with "
            "search_flights."
        )
    if flight["status"] == "cancelled":
        raise ToolError(
            f"Flight {flight['flight_id']} was cancelled by the airline; choose another flight with search_flights."
        )


@travel.write(returns=("flight_booking",), requires=("create_itinerary",))
def book_flight(
    ctx: Ctx,
    itinerary_id: ItineraryId,
    flight_id: FlightId,
    cabin: Cabin = "economy",
    seat: Annotated[SeatCode | None, Field(description="Optional seat to reserve now, e.g. '14C'")] = None,
) -> dict[str, Any]:
    """Book a seat on a flight for the itinerary's traveller,
    e.g. book_flight('ITN-0007', 'FLT-0012', 'economy', '14C').

    Fails if the flight departed or was cancelled, the cabin is full, the seat is taken, or (international
    flights) the traveller has no passport valid 6 months past departure. Earns loyalty points."""
    itin = ItineraryId.get(ctx, itinerary_id)
    trav = TravellerId.get(ctx, itin["traveller_id"])
    flight = _flight(ctx, flight_id)
    _bookable(flight)
    if ctx.db.execute(
        "SELECT 1 FROM flight_bookings WHERE traveller_id = ? AND flight_id = ? AND status = 'confirmed'",
        (trav["traveller_id"], flight_id),
    ).fetchone():
        raise ToolError(f"{trav['traveller_id']} already holds a confirmed booking on {flight_id}; see list_bookings.")
    if _cabin_state(ctx, flight, cabin)["seats_left"] <= 0:
        other = "business" if cabin == "economy" else "economy"
        raise ToolError(
            f"{cabin.capitalize()} on {flight_id} is fully booked; try {other} or another flight from search_flights."
        )
    if _is_international(ctx, flight):
        departs = flight["departs_at"][:10]
        needed = (datetime.strptime(departs, "%Y-%m-%d") + timedelta(days=183)).date().isoformat()
        if not trav["passport_number"]:
            raise ToolError(
                f"{flight_id} is international and {trav['traveller_id']} has no passport on file; add one with "
                "update_passport."
            )
        if trav["passport_expiry"] < needed:
            raise ToolError(
                f"{trav['traveller_id']}'s passport expires {trav['passport_expiry']}, "
                f"less than 6 months after departure ({departs}); record a renewed passport with update_passport."
            )
    if seat is not None:
        seat = _check_seat(ctx, flight, cabin, seat)
    fare = flight[f"{cabin}_fare"]
    bags = 2 if cabin == "business" else 0
    booking_id = next_id(ctx.db, "flight_bookings", "booking_id", "FBK")
    earned = int(fare * TIERS[trav["loyalty_tier"]])
    ctx.db.execute(
        "INSERT INTO flight_bookings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            booking_id,
            itinerary_id,
            trav["traveller_id"],
            flight_id,
            cabin,
            seat,
            bags,
            0.0,
            fare,
            0,
            earned,
            "confirmed",
            None,
            fake.iso(ctx.now),
            None,
        ),
    )
    balance = _points(ctx, trav["traveller_id"], earned, f"Earned on {booking_id} ({flight['flight_number']})")
    return {
        "booking_id": booking_id,
        "flight_id": flight_id,
        "cabin": cabin,
        "seat": seat,
        "fare_paid": fare,
        "checked_bags": bags,
        "points_earned": earned,
        "loyalty_points": balance,
    }


@travel.write(returns=("hotel_booking",), requires=("create_itinerary",))
def book_hotel(
    ctx: Ctx,
    itinerary_id: ItineraryId,
    hotel_id: HotelId,
    room_type: RoomType,
    check_in: Day,
    check_out: Day,
    guests: Annotated[int, Field(ge=1, le=20, description="Guests in all")] = 1,
    rooms: Annotated[int, Field(ge=1, le=5, description="Rooms of this type")] = 1,
) -> dict[str, Any]:
    """Book hotel rooms for the itinerary's traveller,
    e.g. book_hotel('ITN-0007', 'HTL-001', 'standard', '2026-06-12', '2026-06-15', 2).

    Check-out must be after check-in (at most 30 nights, not in the past); the room type must be free every night."""
    itin = ItineraryId.get(ctx, itinerary_id)
    hotel = HotelId.get(ctx, hotel_id)
    ci, co = _stay_dates(ctx, check_in, check_out)
    if ci < ctx.now.date():
        raise ToolError(f"check_in {ci} is in the past (today is {ctx.now.date()}); pick a date from today on.")
    room = fetch(
        ctx.db,
        "SELECT * FROM rooms WHERE hotel_id = ? AND room_type = ?",
        (hotel_id, room_type),
        f"{hotel['name']} has no {room_type} rooms; see get_hotel('{hotel_id}') for its room types.",
    )
    if room["max_guests"] * rooms < guests:
        raise ToolError(
            f"{rooms} {room_type} room(s) sleep at most {room['max_guests'] * rooms} guests, not {guests}; "
            "book more rooms or a larger room type."
        )
    left = room["inventory"] - _rooms_booked(ctx, hotel_id, room_type, ci, co)
    if left < rooms:
        raise ToolError(
            f"{hotel['name']} is fully booked for {room_type} rooms on some night of {ci} to {co} "
            f"({max(left, 0)} left); try other dates, room types or hotels via search_hotels."
        )
    total = _stay_price(room["nightly_rate"], ci, co, rooms)
    booking_id = next_id(ctx.db, "hotel_bookings", "booking_id", "HBK")
    ctx.db.execute(
        "INSERT INTO hotel_bookings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            booking_id,
            itinerary_id,
            itin["traveller_id"],
            hotel_id,
            room_type,
            ci.isoformat(),
            co.isoformat(),
            rooms,
            guests,
            total,
            "confirmed",
            None,
            fake.iso(ctx.now),
            None,
        ),
    )
    return {
        "booking_id": booking_id,
        "hotel_id": hotel_id,
        "room_type": room_type,
        "check_in": ci.isoformat(),
        "check_out": co.isoformat(),
        "nights": (co - ci).days,
        "rooms": rooms,
        "total_price": total,
    }


@travel.write(requires=("book_flight",))
def select_seat(ctx: Ctx, booking_id: FlightBookingId, seat: SeatCode) -> dict[str, Any]:
    """Choose or change the seat of a flight booking, e.g. select_seat('FBK-0010', '14D'). The seat must be
    free and in the booked cabin (see get_seat_map)."""
    booking, flight = _active_flight_booking(ctx, booking_id)
    if flight["status"] == "cancelled":
        raise ToolError(
            f"Flight {flight['flight_id']} was cancelled by the airline; cancel booking {booking_id} for a full refund."
        )
    if booking["seat"] == seat.upper():
        raise ToolError(f"Booking {booking_id} already has seat {booking['seat']}.")
    seat = _check_seat(ctx, flight, booking["cabin"], seat)
    ctx.db.execute("UPDATE flight_bookings SET seat = ? WHERE booking_id = ?", (seat, booking_id))
    return {"booking_id": booking_id, "flight_id": flight["flight_id"], "seat": seat, "previous_seat": booking["seat"]}


@travel.write(requires=("book_flight",))
def add_baggage(
    ctx: Ctx,
    booking_id: FlightBookingId,
    bags: Annotated[int, Field(ge=1, le=4, description="Extra checked bags to add")] = 1,
) -> dict[str, Any]:
    """Add checked bags to a flight booking, e.g. add_baggage('FBK-0010', 1). Business includes 2 bags;
    each paid bag costs 35 USD (the first) or 45 USD; at most 4 checked bags per booking."""
    booking, flight = _active_flight_booking(ctx, booking_id)
    if flight["status"] == "cancelled":
        raise ToolError(f"Flight {flight['flight_id']} was cancelled by the airline; no bags can be added.")
    total = booking["checked_bags"] + bags
    if total > 4:
        raise ToolError(
            f"Booking {booking_id} has {booking['checked_bags']} checked bag(s); at most 4 are allowed, so add at most "
            f"{4 - booking['checked_bags']}."
        )
    free = 2 if booking["cabin"] == "business" else 0

    def fee(n: int) -> float:
        paid = max(0, n - free)
        return float(35 * min(paid, 1) + 45 * max(paid - 1, 0))

    charge = fee(total) - fee(booking["checked_bags"])
    ctx.db.execute(
        "UPDATE flight_bookings SET checked_bags = ?, baggage_fees = baggage_fees + ? WHERE booking_id = ?",
        (total, charge, booking_id),
    )
    return {
        "booking_id": booking_id,
        "checked_bags": total,
        "charged": charge,
        "baggage_fees": round(booking["baggage_fees"] + charge, 2),
    }


@travel.write(requires=("book_flight",))
def cancel_flight_booking(ctx: Ctx, booking_id: FlightBookingId) -> dict[str, Any]:
    """Cancel a flight booking before departure and refund by the fare rules, e.g. cancel_flight_booking('FBK-0010').
    Business: full fare. Economy: 100% from 7 days out, 50% from 24 h, 0 inside 24 h. Baggage fees and
    redeemed points come back; the points earned are taken back. Departed flights cannot be cancelled."""
    booking = FlightBookingId.get(ctx, booking_id)
    if booking["status"] == "cancelled":
        raise ToolError(
            f"Flight booking {booking_id} is already cancelled (refunded {booking['refund_amount']:.2f} USD)."
        )
    flight = _flight(ctx, booking["flight_id"])
    if flight["status"] == "departed":
        raise ToolError(
            f"Flight {flight['flight_id']} already departed at {flight['departs_at']}; a flown booking cannot be "
            "cancelled."
        )
    refund = _flight_refund(ctx, booking, flight)
    ctx.db.execute(
        "UPDATE flight_bookings SET status = 'cancelled', seat = NULL, refund_amount = ?, cancelled_at = ? WHERE "
        "booking_id = ?",
        (refund, fake.iso(ctx.now), booking_id),
    )
    _points(
        ctx,
        booking["traveller_id"],
        booking["points_redeemed"] - booking["points_earned"],
        f"Cancellation of {booking_id}",
    )
    return {
        "booking_id": booking_id,
        "status": "cancelled",
        "refund_amount": refund,
        "points_returned": booking["points_redeemed"],
        "points_reversed": booking["points_earned"],
    }
