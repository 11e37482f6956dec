"""Travel booking tools: find travellers, airports, flights and hotels; book, re-seat, add bags, cancel, redeem."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, EntityId, Limit, Offset, Query, Server, ToolError, fake, listing, next_id
from servers.travel_booking.schema import SCHEMA, TIME_FMT, _blocked, _layout, _nightly
from servers.travel_booking.seed import seed

travel = Server(
    "travel_booking",
    "Travel booking: flights, seat maps, hotels, itineraries, baggage, cancellations and loyalty points.",
    SCHEMA,
    seed,
    family="mobility",
)


class TravellerId(EntityId, server=travel, example="TRV-0042", finder="search_travellers"): ...


class FlightId(EntityId, server=travel, example="FLT-0012", finder="search_flights"): ...


class HotelId(EntityId, server=travel, example="HTL-001", finder="search_hotels"): ...


class ItineraryId(
    EntityId,
    server=travel,
    table="itineraries",
    example="ITN-0007",
    hint="Use get_traveller to see a traveller's itineraries, or create_itinerary.",
): ...


class FlightBookingId(
    EntityId,
    server=travel,
    key="booking_id",
    example="FBK-0010",
    hint="Use list_bookings to find a traveller's bookings.",
): ...


class HotelBookingId(
    EntityId,
    server=travel,
    key="booking_id",
    example="HBK-0005",
    hint="Use list_bookings to find a traveller's bookings.",
): ...


AirportCode = Annotated[
    str, Field(pattern=r"^[A-Za-z]{3}$", description="IATA airport code, e.g. 'JFK'"), Entity("airport")
]
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
    flight = FlightId.get(ctx, flight_id)
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
    rate = ctx.value(
        "SELECT nightly_rate FROM rooms WHERE hotel_id = ? AND room_type = ?",
        (booking["hotel_id"], booking["room_type"]),
    )
    first = _nightly(rate, date.fromisoformat(booking["check_in"])) * booking["rooms"]
    return round(max(0.0, booking["total_price"] - first), 2)


def _points(ctx: Ctx, traveller_id: str, points: int, reason: str) -> int:
    balance = ctx.value("SELECT loyalty_points FROM travellers WHERE traveller_id = ?", (traveller_id,))
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
    trav = TravellerId.get(ctx, traveller_id)
    trav["itinerary_ids"] = ctx.column(
        "SELECT itinerary_id FROM itineraries WHERE traveller_id = ? ORDER BY itinerary_id", (traveller_id,)
    )
    trav["recent_points"] = ctx.rows(
        "SELECT points, reason, created_at FROM loyalty_ledger WHERE traveller_id = ? "
        "ORDER BY created_at DESC, entry_id DESC LIMIT 5",
        (traveller_id,),
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
    for f in ctx.rows(
        "SELECT flight_id FROM flights WHERE origin = ? AND destination = ? AND departs_at >= ? AND departs_at < ? "
        "ORDER BY departs_at, flight_id",
        (origin.upper(), destination.upper(), day.isoformat(), (day + timedelta(days=1)).isoformat()),
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


SeatCode = Annotated[str, Field(pattern=r"^[0-9]{1,2}[A-Fa-f]$", description="Seat, row then letter, e.g. '14C'")]


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


def _active_flight_booking(ctx: Ctx, booking_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    booking = FlightBookingId.get(ctx, booking_id)
    if booking["status"] == "cancelled":
        raise ToolError(f"Flight booking {booking_id} is cancelled; book the flight again with book_flight.")
    flight = _flight(ctx, booking["flight_id"])
    if flight["status"] == "departed":
        raise ToolError(
            f"Flight {flight['flight_id']} of booking {booking_id} already departed ({flight['departs_at']}); it can "
            "no longer be changed."
        )
    return booking, flight


from servers.travel_booking import tools_book, tools_trips  # noqa: E402, F401  (register the other tools)

server = travel
