"""Travel booking tools for stays, bookings and trips: hotels, itineraries, hotel cancellations, passports and
points."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, Query, ToolError, fake, listing, next_id
from servers.travel_booking.schema import _stay_price
from servers.travel_booking.tools import (
    Day,
    FlightBookingId,
    HotelBookingId,
    HotelId,
    ItineraryId,
    TravellerId,
    _active_flight_booking,
    _flight,
    _flight_refund,
    _hotel_refund,
    _points,
    _rooms_booked,
    _stay_dates,
    travel,
)


@travel.read(returns=("hotel",))
def search_hotels(
    ctx: Ctx,
    city: Annotated[str, Field(min_length=1, max_length=60, description="City, e.g. 'Denver'")],
    check_in: Day,
    check_out: Day,
    guests: Annotated[int, Field(ge=1, le=20, description="Guests in all")] = 1,
    rooms: Annotated[int, Field(ge=1, le=5, description="Rooms wanted")] = 1,
    min_stars: Annotated[int | None, Field(ge=1, le=5)] = None,
    max_nightly_rate: Annotated[
        float | None, Field(gt=0, le=100_000, description="Highest base nightly rate in USD")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Find hotels in a city with room types free for the whole stay and the stay's total price,
    e.g. search_hotels('Denver', '2026-06-12', '2026-06-15', guests=2)."""
    ci, co = _stay_dates(ctx, check_in, check_out)
    hotels = Query("SELECT * FROM hotels").where("city LIKE ?", city.strip()).filter("stars >= ?", min_stars)
    found = []
    for hotel in hotels.rows(ctx.db, order_by="hotel_id"):
        options = []
        for room in ctx.rows("SELECT * FROM rooms WHERE hotel_id = ? ORDER BY nightly_rate", (hotel["hotel_id"],)):
            if room["max_guests"] * rooms < guests or (
                max_nightly_rate is not None and room["nightly_rate"] > max_nightly_rate
            ):
                continue
            left = room["inventory"] - _rooms_booked(ctx, hotel["hotel_id"], room["room_type"], ci, co)
            if left >= rooms:
                options.append(
                    {
                        "room_type": room["room_type"],
                        "beds": room["beds"],
                        "max_guests": room["max_guests"],
                        "nightly_rate": room["nightly_rate"],
                        "rooms_left": left,
                        "total_price": _stay_price(room["nightly_rate"], ci, co, rooms),
                    }
                )
        if options:
            found.append(
                {
                    "hotel_id": hotel["hotel_id"],
                    "name": hotel["name"],
                    "stars": hotel["stars"],
                    "rating": hotel["rating"],
                    "rooms": options,
                }
            )
    page = found[offset : offset + limit]
    return {**listing("hotels", page), "nights": (co - ci).days}


@travel.read(returns=("hotel",))
def get_hotel(ctx: Ctx, hotel_id: HotelId) -> dict[str, Any]:
    """Get a hotel: stars, rating, amenities and its room types with base nightly rates, e.g. get_hotel('HTL-001')."""
    hotel = HotelId.get(ctx, hotel_id)
    hotel["rooms"] = ctx.rows(
        "SELECT room_type, beds, max_guests, nightly_rate, inventory FROM rooms WHERE hotel_id = ? "
        "ORDER BY nightly_rate",
        (hotel_id,),
    )
    hotel["check_in_time"], hotel["check_out_time"] = "15:00", "11:00"
    return hotel


@travel.read(returns=("flight_booking", "hotel_booking", "flight", "hotel", "itinerary"))
def list_bookings(
    ctx: Ctx,
    traveller_id: TravellerId,
    kind: Literal["flight", "hotel"] | None = None,
    status: Literal["confirmed", "cancelled"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List a traveller's flight and hotel bookings,
    e.g. list_bookings('TRV-0042', kind='flight', status='confirmed')."""
    TravellerId.get(ctx, traveller_id)
    out: dict[str, Any] = {}
    if kind in (None, "flight"):
        flights = Query(
            "SELECT b.booking_id, b.itinerary_id, b.flight_id, f.flight_number, f.origin, f.destination, "
            "f.departs_at, b.cabin, b.seat, b.status "
            "FROM flight_bookings b JOIN flights f USING (flight_id)"
        )
        flights.where("b.traveller_id = ?", traveller_id).equal("b.status", status)
        out["flight_bookings"] = flights.rows(ctx.db, order_by="b.booking_id", limit=limit, offset=offset)
    if kind in (None, "hotel"):
        hotels = Query(
            "SELECT booking_id, itinerary_id, hotel_id, room_type, check_in, check_out, total_price, status "
            "FROM hotel_bookings"
        )
        hotels.where("traveller_id = ?", traveller_id).equal("status", status)
        out["hotel_bookings"] = hotels.rows(ctx.db, order_by="booking_id", limit=limit, offset=offset)
    return out


@travel.read(returns=("itinerary", "flight_booking", "hotel_booking", "flight", "hotel"))
def get_itinerary(ctx: Ctx, itinerary_id: ItineraryId) -> dict[str, Any]:
    """Get an itinerary with all its flight and hotel bookings, what was paid, and what cancelling each
    confirmed booking now would refund, e.g. get_itinerary('ITN-0007')."""
    itin = ItineraryId.get(ctx, itinerary_id)
    flights = []
    for b in ctx.rows("SELECT * FROM flight_bookings WHERE itinerary_id = ? ORDER BY booking_id", (itinerary_id,)):
        f = _flight(ctx, b["flight_id"])
        b.update(
            flight_number=f["flight_number"],
            origin=f["origin"],
            destination=f["destination"],
            departs_at=f["departs_at"],
            arrives_at=f["arrives_at"],
            flight_status=f["status"],
        )
        if b["status"] == "confirmed":
            b["refund_if_cancelled_now"] = None if f["status"] == "departed" else _flight_refund(ctx, b, f)
        flights.append(b)
    hotels = []
    for b in ctx.rows("SELECT * FROM hotel_bookings WHERE itinerary_id = ? ORDER BY booking_id", (itinerary_id,)):
        if b["status"] == "confirmed":
            started = datetime.fromisoformat(b["check_in"]) + timedelta(hours=15) <= ctx.now
            b["refund_if_cancelled_now"] = None if started else _hotel_refund(ctx, b)
        hotels.append(b)
    itin["flight_bookings"], itin["hotel_bookings"] = flights, hotels
    itin["total_paid"] = round(
        sum(b["fare_paid"] + b["baggage_fees"] for b in flights if b["status"] == "confirmed")
        + sum(b["total_price"] for b in hotels if b["status"] == "confirmed"),
        2,
    )
    return itin


DISTINCT_FIELDS = {
    "airline": ("flights", "airline"),
    "aircraft": ("flights", "aircraft"),
    "flight_status": ("flights", "status"),
    "airport_country": ("airports", "country"),
    "hotel_city": ("hotels", "city"),
    "hotel_chain": ("hotels", "chain"),
    "room_type": ("rooms", "room_type"),
    "loyalty_tier": ("travellers", "loyalty_tier"),
    "nationality": ("travellers", "nationality"),
    "flight_booking_status": ("flight_bookings", "status"),
    "hotel_booking_status": ("hotel_bookings", "status"),
}


travel.distinct_values(DISTINCT_FIELDS, example="hotel_city")


@travel.write(returns=("itinerary",))
def create_itinerary(
    ctx: Ctx,
    traveller_id: TravellerId,
    title: Annotated[
        str, Field(min_length=1, max_length=100, description="A name for the trip, e.g. 'Denver conference'")
    ],
) -> dict[str, Any]:
    """Start a new, empty itinerary for a traveller, e.g. create_itinerary('TRV-0042', 'Denver conference').
    Flights and hotels are then booked into it."""
    TravellerId.get(ctx, traveller_id)
    itin_id = next_id(ctx.db, "itineraries", "itinerary_id", "ITN")
    ctx.db.execute("INSERT INTO itineraries VALUES (?,?,?,?)", (itin_id, traveller_id, title, fake.iso(ctx.now)))
    return {"itinerary_id": itin_id, "traveller_id": traveller_id, "title": title}


@travel.write(requires=("book_hotel",))
def cancel_hotel_booking(ctx: Ctx, booking_id: HotelBookingId) -> dict[str, Any]:
    """Cancel a hotel booking, e.g. cancel_hotel_booking('HBK-0005'). Free until 48 h before check-in
    (15:00 on the check-in day), after that the first night is kept; a started stay cannot be cancelled."""
    booking = HotelBookingId.get(ctx, booking_id)
    if booking["status"] == "cancelled":
        raise ToolError(f"Hotel booking {booking_id} is already cancelled.")
    if datetime.fromisoformat(booking["check_in"]) + timedelta(hours=15) <= ctx.now:
        raise ToolError(
            f"The stay of {booking_id} began on {booking['check_in']}; a started or past stay cannot be cancelled."
        )
    refund = _hotel_refund(ctx, booking)
    ctx.db.execute(
        "UPDATE hotel_bookings SET status = 'cancelled', refund_amount = ?, cancelled_at = ? WHERE booking_id = ?",
        (refund, fake.iso(ctx.now), booking_id),
    )
    return {
        "booking_id": booking_id,
        "status": "cancelled",
        "refund_amount": refund,
        "kept": round(booking["total_price"] - refund, 2),
    }


@travel.write()
def update_passport(
    ctx: Ctx,
    traveller_id: TravellerId,
    passport_number: Annotated[
        str, Field(pattern=r"^[A-Za-z0-9]{6,9}$", description="Passport number, e.g. 'X12345678'")
    ],
    expiry_date: Day,
    nationality: Annotated[
        str | None, Field(pattern=r"^[A-Za-z]{2}$", description="Two-letter country code, e.g. 'US'")
    ] = None,
) -> dict[str, Any]:
    """Record a traveller's passport (needed for international flights),
    e.g. update_passport('TRV-0042', 'X12345678', '2032-05-01').
    The passport must not be expired."""
    trav = TravellerId.get(ctx, traveller_id)
    try:
        expiry = date.fromisoformat(expiry_date)
    except ValueError:
        raise ToolError(f"expiry_date {expiry_date!r} is not a valid date; use YYYY-MM-DD.") from None
    if expiry <= ctx.now.date():
        raise ToolError(
            f"A passport expiring {expiry} is already expired (today is {ctx.now.date()}); enter the renewed passport."
        )
    if expiry > ctx.now.date() + timedelta(days=366 * 11):
        raise ToolError(
            f"Passports are valid at most 10 years; an expiry of {expiry} is not plausible, check the date."
        )
    nat = (nationality or trav["nationality"]).upper()
    ctx.db.execute(
        "UPDATE travellers SET passport_number = ?, passport_expiry = ?, nationality = ? WHERE traveller_id = ?",
        (passport_number.upper(), expiry.isoformat(), nat, traveller_id),
    )
    return {
        "traveller_id": traveller_id,
        "passport_number": passport_number.upper(),
        "passport_expiry": expiry.isoformat(),
        "nationality": nat,
    }


@travel.write(requires=("book_flight",))
def redeem_points(
    ctx: Ctx,
    booking_id: FlightBookingId,
    points: Annotated[
        int, Field(ge=100, le=10_000_000, description="Points to redeem, a multiple of 100 (100 points = 1 USD)")
    ],
) -> dict[str, Any]:
    """Pay part of a flight booking's fare with loyalty points, e.g. redeem_points('FBK-0010', 5000) takes 50 USD off.
    At least 1,000 points, in multiples of 100, never more than the remaining fare."""
    booking, flight = _active_flight_booking(ctx, booking_id)
    if flight["status"] == "cancelled":
        raise ToolError(
            f"Flight {flight['flight_id']} was cancelled by the airline; cancel booking {booking_id} for a full "
            "refund instead."
        )
    if points % 100 or points < 1000:
        raise ToolError(f"Redeem at least 1,000 points in multiples of 100; {points} is not allowed.")
    trav = TravellerId.get(ctx, booking["traveller_id"])
    if trav["loyalty_points"] < points:
        raise ToolError(
            f"{trav['traveller_id']} has only {trav['loyalty_points']} points; redeem at most "
            f"{trav['loyalty_points'] // 100 * 100}."
        )
    usd = points / 100
    if usd > booking["fare_paid"] + 1e-9:
        raise ToolError(
            f"The remaining fare of {booking_id} is {booking['fare_paid']:.2f} USD; redeem at most "
            f"{int(booking['fare_paid']) * 100} points."
        )
    fare = round(booking["fare_paid"] - usd, 2)
    ctx.db.execute(
        "UPDATE flight_bookings SET fare_paid = ?, points_redeemed = points_redeemed + ? WHERE booking_id = ?",
        (fare, points, booking_id),
    )
    balance = _points(ctx, trav["traveller_id"], -points, f"Redeemed on {booking_id}")
    return {
        "booking_id": booking_id,
        "points_redeemed": points,
        "discount": usd,
        "fare_paid": fare,
        "loyalty_points": balance,
    }
