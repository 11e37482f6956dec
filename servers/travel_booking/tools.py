"""Travel booking tools: find travellers, airports, flights and hotels; book, re-seat, add bags, cancel, redeem."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, Query, Server, ToolError, fake, fetch, listing, next_id, rows
from servers.travel_booking.schema import (
    SCHEMA,
    TIERS,
    TIME_FMT,
    _blocked,
    _layout,
    _nightly,
    _stay_price,
)
from servers.travel_booking.seed import seed

travel = Server(
    "travel_booking",
    "Travel booking: flights, seat maps, hotels, itineraries, baggage, cancellations and loyalty points.",
    SCHEMA,
    seed,
    family="mobility",
)

TRAVELLER = travel.entity(
    "traveller", table="travellers", key="traveller_id", example="TRV-0042", finder="search_travellers"
)
FLIGHT = travel.entity("flight", table="flights", key="flight_id", example="FLT-0012", finder="search_flights")
HOTEL = travel.entity("hotel", table="hotels", key="hotel_id", example="HTL-001", finder="search_hotels")
ITINERARY = travel.entity(
    "itinerary",
    table="itineraries",
    key="itinerary_id",
    example="ITN-0007",
    hint="Use get_traveller to see a traveller's itineraries, or create_itinerary.",
)
FLIGHT_BOOKING = travel.entity(
    "flight_booking",
    table="flight_bookings",
    key="booking_id",
    example="FBK-0010",
    hint="Use list_bookings to find a traveller's bookings.",
)
HOTEL_BOOKING = travel.entity(
    "hotel_booking",
    table="hotel_bookings",
    key="booking_id",
    example="HBK-0005",
    hint="Use list_bookings to find a traveller's bookings.",
)

TravellerId = Annotated[str, TRAVELLER]
FlightId = Annotated[str, FLIGHT]
AirportCode = Annotated[
    str, Field(pattern=r"^[A-Za-z]{3}$", description="IATA airport code, e.g. 'JFK'"), Entity("airport")
]
HotelId = Annotated[str, HOTEL]
ItineraryId = Annotated[str, ITINERARY]
FlightBookingId = Annotated[str, FLIGHT_BOOKING]
HotelBookingId = Annotated[str, HOTEL_BOOKING]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD, e.g. '2026-06-12'")]
Cabin = Literal["economy", "business"]
RoomType = Literal["standard", "deluxe", "family", "suite"]


def _parse_day(ctx: Ctx, text: str, what: str) -> date:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise ToolError(f"{what} {text!r} is not a valid calendar date; use YYYY-MM-DD, e.g. '2026-06-12'.") from None
    if abs((day - ctx.now.date()).days) > 400:
        raise ToolError(
            f"{what} {text} is too far from today ({ctx.now.date().isoformat()}); bookings open up to a year ahead."
        )
    return day


def _flight(ctx: Ctx, flight_id: str) -> dict[str, Any]:
    flight = FLIGHT.get(ctx, flight_id)
    if flight["status"] == "scheduled" and flight["departs_at"] <= fake.iso(ctx.now):
        flight["status"] = "departed"
    return flight


def _cabin_state(ctx: Ctx, flight: dict[str, Any], cabin: str) -> dict[str, Any]:
    """Seats of a cabin: the layout, seats held elsewhere or assigned here, and how many remain bookable."""
    layout = _layout(flight["aircraft"])[cabin]
    blocked = _blocked(flight["flight_id"], layout, flight[f"{cabin}_blocked"])
    booked = ctx.db.execute(
        "SELECT seat FROM flight_bookings WHERE flight_id = ? AND cabin = ? AND status = 'confirmed'",
        (flight["flight_id"], cabin),
    ).fetchall()
    assigned = {s for (s,) in booked if s}
    return {"layout": layout, "taken": blocked | assigned, "seats_left": len(layout) - len(blocked) - len(booked)}


def _flight_view(ctx: Ctx, flight: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in flight.items() if not k.endswith("_blocked")}
    for cabin in ("economy", "business"):
        out[f"{cabin}_seats_left"] = _cabin_state(ctx, flight, cabin)["seats_left"]
    return out


def _is_international(ctx: Ctx, flight: dict[str, Any]) -> bool:
    countries = {
        r[0]
        for r in ctx.db.execute(
            "SELECT country FROM airports WHERE code IN (?, ?)", (flight["origin"], flight["destination"])
        )
    }
    return countries != {"United States"}


def _flight_refund(ctx: Ctx, booking: dict[str, Any], flight: dict[str, Any]) -> float:
    if flight["status"] == "cancelled" or booking["cabin"] == "business":
        share = 1.0
    else:
        hours = (datetime.strptime(flight["departs_at"], TIME_FMT) - ctx.now).total_seconds() / 3600
        share = 1.0 if hours >= 24 * 7 else 0.5 if hours >= 24 else 0.0
    return round(booking["fare_paid"] * share + booking["baggage_fees"], 2)


def _hotel_refund(ctx: Ctx, booking: dict[str, Any]) -> float:
    check_in = datetime.fromisoformat(booking["check_in"]) + timedelta(hours=15)
    if check_in - ctx.now >= timedelta(hours=48):
        return booking["total_price"]
    rate = ctx.db.execute(
        "SELECT nightly_rate FROM rooms WHERE hotel_id = ? AND room_type = ?",
        (booking["hotel_id"], booking["room_type"]),
    ).fetchone()[0]
    first = _nightly(rate, date.fromisoformat(booking["check_in"])) * booking["rooms"]
    return round(max(0.0, booking["total_price"] - first), 2)


def _points(ctx: Ctx, traveller_id: str, points: int, reason: str) -> int:
    balance = ctx.db.execute(
        "SELECT loyalty_points FROM travellers WHERE traveller_id = ?", (traveller_id,)
    ).fetchone()[0]
    points = max(points, -balance)
    if points:
        ctx.db.execute(
            "UPDATE travellers SET loyalty_points = loyalty_points + ? WHERE traveller_id = ?", (points, traveller_id)
        )
        ctx.db.execute(
            "INSERT INTO loyalty_ledger VALUES (?,?,?,?,?)",
            (next_id(ctx.db, "loyalty_ledger", "entry_id", "LOY", 5), traveller_id, points, reason, fake.iso(ctx.now)),
        )
    return balance + points


@travel.read(returns=("traveller",))
def search_travellers(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name or email, e.g. 'Patel'")] = "",
    loyalty_tier: Literal["basic", "silver", "gold", "platinum"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search travellers by name or email, optionally by loyalty tier. Returns ids such as 'TRV-0042'."""
    q = Query("SELECT traveller_id, name, email, nationality, loyalty_tier FROM travellers")
    q.contains(query, "name", "email").equal("loyalty_tier", loyalty_tier)
    return q.page(ctx.db, "travellers", order_by="traveller_id", limit=limit, offset=offset)


@travel.read(returns=("traveller", "itinerary"))
def get_traveller(ctx: Ctx, traveller_id: TravellerId) -> dict[str, Any]:
    """Get a traveller's profile, passport on file, loyalty tier and points, recent point movements and
    itinerary ids, e.g. get_traveller('TRV-0042')."""
    trav = TRAVELLER.get(ctx, traveller_id)
    trav["itinerary_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT itinerary_id FROM itineraries WHERE traveller_id = ? ORDER BY itinerary_id", (traveller_id,)
        )
    ]
    trav["recent_points"] = rows(
        ctx.db.execute(
            "SELECT points, reason, created_at FROM loyalty_ledger WHERE traveller_id = ? "
            "ORDER BY created_at DESC, entry_id DESC LIMIT 5",
            (traveller_id,),
        )
    )
    return trav


@travel.read(returns=("airport",))
def list_airports(
    ctx: Ctx,
    query: Annotated[
        str, Field(max_length=100, description="Part of a city, airport name or code, e.g. 'Seattle'")
    ] = "",
    country: Annotated[str | None, Field(max_length=60, description="Only this country, e.g. 'United States'")] = None,
) -> dict[str, Any]:
    """List airports with their IATA codes, e.g. list_airports('Seattle') gives 'SEA'."""
    q = Query("SELECT * FROM airports").contains(query, "city", "name", "code").equal("country", country)
    return q.page(ctx.db, "airports", order_by="code")


@travel.read(returns=("flight",))
def search_flights(
    ctx: Ctx,
    origin: AirportCode,
    destination: AirportCode,
    date: Day,
    cabin: Annotated[Cabin | None, Field(description="Only flights with seats left in this cabin")] = None,
    max_fare: Annotated[
        float | None, Field(gt=0, le=100_000, description="Highest fare in USD for the cabin (economy if none given)")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Find flights between two airports on a date, with fares and seats left per cabin,
    e.g. search_flights('JFK', 'LAX', '2026-06-10'). Status is scheduled, departed or cancelled."""
    day = _parse_day(ctx, date, "date")
    found = []
    for f in rows(
        ctx.db.execute(
            "SELECT flight_id FROM flights WHERE origin = ? AND destination = ? AND departs_at >= ? AND departs_at < ? "
            "ORDER BY departs_at, flight_id",
            (origin.upper(), destination.upper(), day.isoformat(), (day + timedelta(days=1)).isoformat()),
        )
    ):
        view = _flight_view(ctx, _flight(ctx, f["flight_id"]))
        if cabin is not None and view[f"{cabin}_seats_left"] <= 0:
            continue
        if max_fare is not None and view[f"{cabin or 'economy'}_fare"] > max_fare:
            continue
        found.append(view)
    page = found[offset : offset + limit]
    if (
        not found
        and not ctx.db.execute(
            "SELECT 1 FROM flights WHERE origin = ? AND destination = ?", (origin.upper(), destination.upper())
        ).fetchone()
    ):
        return {
            **listing("flights", []),
            "note": f"No route {origin.upper()}-{destination.upper()} is flown; try list_airports and other pairs.",
        }
    return {**listing("flights", page), "total": len(found)}


@travel.read(returns=("flight", "airport"))
def get_flight(ctx: Ctx, flight_id: FlightId) -> dict[str, Any]:
    """Get one flight: route, times, aircraft, status, fares and seats left per cabin, e.g. get_flight('FLT-0012')."""
    return _flight_view(ctx, _flight(ctx, flight_id))


@travel.read()
def get_seat_map(ctx: Ctx, flight_id: FlightId, cabin: Cabin | None = None) -> dict[str, Any]:
    """Show which seats of a flight are free, per cabin, e.g. get_seat_map('FLT-0012', 'economy').
    Business rows come first (seats A C D F), economy after (A-F; A and F are windows)."""
    flight = _flight(ctx, flight_id)
    out: dict[str, Any] = {"flight_id": flight_id, "aircraft": flight["aircraft"], "status": flight["status"]}
    for c in (cabin,) if cabin else ("business", "economy"):
        state = _cabin_state(ctx, flight, c)
        free = [s for s in state["layout"] if s not in state["taken"]]
        out[c] = {
            "rows": f"{state['layout'][0][:-1]}-{state['layout'][-1][:-1]}",
            "free_seats": free,
            "seats_left": state["seats_left"],
            "total_seats": len(state["layout"]),
        }
    return out


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
        for room in rows(
            ctx.db.execute("SELECT * FROM rooms WHERE hotel_id = ? ORDER BY nightly_rate", (hotel["hotel_id"],))
        ):
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


def _stay_dates(ctx: Ctx, check_in: str, check_out: str) -> tuple[date, date]:
    ci, co = _parse_day(ctx, check_in, "check_in"), _parse_day(ctx, check_out, "check_out")
    if co <= ci:
        raise ToolError(f"check_out {co} must be after check_in {ci}; a stay is at least one night.")
    if (co - ci).days > 30:
        raise ToolError(f"A stay of {(co - ci).days} nights is too long; book at most 30 nights at a time.")
    return ci, co


def _rooms_booked(ctx: Ctx, hotel_id: str, room_type: str, ci: date, co: date) -> int:
    """The most rooms of a type taken on any night of [ci, co)."""
    stays = ctx.db.execute(
        "SELECT check_in, check_out, rooms FROM hotel_bookings WHERE hotel_id = ? AND room_type = ? "
        "AND status = 'confirmed' AND check_in < ? AND check_out > ?",
        (hotel_id, room_type, co.isoformat(), ci.isoformat()),
    ).fetchall()
    worst = 0
    for i in range((co - ci).days):
        night = (ci + timedelta(days=i)).isoformat()
        worst = max(worst, sum(n for a, b, n in stays if a <= night < b))
    return worst


@travel.read(returns=("hotel",))
def get_hotel(ctx: Ctx, hotel_id: HotelId) -> dict[str, Any]:
    """Get a hotel: stars, rating, amenities and its room types with base nightly rates, e.g. get_hotel('HTL-001')."""
    hotel = HOTEL.get(ctx, hotel_id)
    hotel["rooms"] = rows(
        ctx.db.execute(
            "SELECT room_type, beds, max_guests, nightly_rate, inventory FROM rooms WHERE hotel_id = ? "
            "ORDER BY nightly_rate",
            (hotel_id,),
        )
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
    TRAVELLER.get(ctx, traveller_id)
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
    itin = ITINERARY.get(ctx, itinerary_id)
    flights = []
    for b in rows(
        ctx.db.execute("SELECT * FROM flight_bookings WHERE itinerary_id = ? ORDER BY booking_id", (itinerary_id,))
    ):
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
    for b in rows(
        ctx.db.execute("SELECT * FROM hotel_bookings WHERE itinerary_id = ? ORDER BY booking_id", (itinerary_id,))
    ):
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
    TRAVELLER.get(ctx, traveller_id)
    itin_id = next_id(ctx.db, "itineraries", "itinerary_id", "ITN")
    ctx.db.execute("INSERT INTO itineraries VALUES (?,?,?,?)", (itin_id, traveller_id, title, fake.iso(ctx.now)))
    return {"itinerary_id": itin_id, "traveller_id": traveller_id, "title": title}


SeatCode = Annotated[str, Field(pattern=r"^[0-9]{1,2}[A-Fa-f]$", description="Seat, row then letter, e.g. '14C'")]


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
    itin = ITINERARY.get(ctx, itinerary_id)
    trav = TRAVELLER.get(ctx, itin["traveller_id"])
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
    itin = ITINERARY.get(ctx, itinerary_id)
    hotel = HOTEL.get(ctx, hotel_id)
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


def _active_flight_booking(ctx: Ctx, booking_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    booking = FLIGHT_BOOKING.get(ctx, booking_id)
    if booking["status"] == "cancelled":
        raise ToolError(f"Flight booking {booking_id} is cancelled; book the flight again with book_flight.")
    flight = _flight(ctx, booking["flight_id"])
    if flight["status"] == "departed":
        raise ToolError(
            f"Flight {flight['flight_id']} of booking {booking_id} already departed ({flight['departs_at']}); it can "
            "no longer be changed."
        )
    return booking, flight


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
    booking = FLIGHT_BOOKING.get(ctx, booking_id)
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


@travel.write(requires=("book_hotel",))
def cancel_hotel_booking(ctx: Ctx, booking_id: HotelBookingId) -> dict[str, Any]:
    """Cancel a hotel booking, e.g. cancel_hotel_booking('HBK-0005'). Free until 48 h before check-in
    (15:00 on the check-in day), after that the first night is kept; a started stay cannot be cancelled."""
    booking = HOTEL_BOOKING.get(ctx, booking_id)
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
    trav = TRAVELLER.get(ctx, traveller_id)
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
    trav = TRAVELLER.get(ctx, booking["traveller_id"])
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


server = travel
