"""Travel booking: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from typing import Any

from tests.conftest import World

T = "travel_booking"
NOW = "2026-06-01T09:00:00"


def traveller(world: World, passport: bool | None = None, min_points: int = 0, nth: int = 0) -> dict[str, Any]:
    """The nth seeded traveller matching the filters (nth differs per call site, so travellers do not collide)."""
    for t in world.ok(T, "search_travellers", limit=100)["travellers"]:
        full = world.ok(T, "get_traveller", traveller_id=t["traveller_id"])
        if passport is not None and bool(full["passport_number"]) != passport:
            continue
        if full["loyalty_points"] >= min_points:
            if nth == 0:
                return full
            nth -= 1
    raise AssertionError("no matching traveller")


def new_itinerary(world: World, **kw: Any) -> dict[str, Any]:
    trav = traveller(world, **kw)
    return world.ok(T, "create_itinerary", traveller_id=trav["traveller_id"], title="Test trip")


def future_flight(
    world: World, origin: str = "JFK", destination: str = "LAX", day: str = "2026-06-20"
) -> dict[str, Any]:
    flights = world.ok(T, "search_flights", origin=origin, destination=destination, date=day, cabin="economy")[
        "flights"
    ]
    flights = [f for f in flights if f["status"] == "scheduled" and f["business_seats_left"] > 0]
    assert flights
    return flights[0]


def seeded_bookings(world: World, n: int = 100) -> list[dict[str, Any]]:
    out = []
    for t in world.ok(T, "search_travellers", limit=n)["travellers"]:
        out.extend(world.ok(T, "list_bookings", traveller_id=t["traveller_id"], status="confirmed")["flight_bookings"])
    return out


def test_travellers(world: World) -> None:
    found = world.ok(T, "search_travellers", query="", limit=3)["travellers"]
    assert len(found) == 3
    trav = world.ok(T, "get_traveller", traveller_id=found[0]["traveller_id"])
    assert trav["loyalty_tier"] in {"basic", "silver", "gold", "platinum"} and "itinerary_ids" in trav
    assert world.ok(T, "search_travellers", loyalty_tier="platinum")["travellers"]
    assert "No traveller" in world.err(T, "get_traveller", traveller_id="TRV-9999")
    assert "invalid arguments" in world.err(T, "search_travellers", loyalty_tier="diamond")


def test_airports_and_distinct(world: World) -> None:
    assert [a["code"] for a in world.ok(T, "list_airports", query="Seattle")["airports"]] == ["SEA"]
    assert world.ok(T, "list_airports", country="Japan")["airports"][0]["code"] == "NRT"
    assert "invalid arguments" in world.err(T, "list_airports", query="x" * 101)
    assert "Denver" in world.ok(T, "get_distinct_values", field="hotel_city")["values"]
    assert "invalid arguments" in world.err(T, "get_distinct_values", field="password")


def test_search_and_get_flight(world: World) -> None:
    flights = world.ok(T, "search_flights", origin="JFK", destination="LAX", date="2026-06-10")["flights"]
    assert flights and all(f["departs_at"].startswith("2026-06-10") for f in flights)
    flight = world.ok(T, "get_flight", flight_id=flights[0]["flight_id"])
    assert flight["origin"] == "JFK" and flight["economy_seats_left"] == flights[0]["economy_seats_left"]
    past = world.ok(T, "search_flights", origin="jfk", destination="lax", date="2026-05-30")["flights"]
    assert past and past[0]["status"] == "departed"
    assert world.ok(T, "search_flights", origin="JFK", destination="SLC", date="2026-06-10")["count"] == 0
    assert "not a valid calendar date" in world.err(
        T, "search_flights", origin="JFK", destination="LAX", date="2026-02-30"
    )
    assert "too far" in world.err(T, "search_flights", origin="JFK", destination="LAX", date="9999-12-31")
    assert "invalid arguments" in world.err(T, "search_flights", origin="JFKX", destination="LAX", date="2026-06-10")
    assert "No flight" in world.err(T, "get_flight", flight_id="FLT-9999")


def test_seat_map(world: World) -> None:
    flight = future_flight(world)
    seats = world.ok(T, "get_seat_map", flight_id=flight["flight_id"])
    assert seats["economy"]["seats_left"] == flight["economy_seats_left"]
    assert len(seats["economy"]["free_seats"]) >= seats["economy"]["seats_left"]
    assert all(s[-1] in "ACDF" for s in seats["business"]["free_seats"])
    assert "No flight" in world.err(T, "get_seat_map", flight_id="")


def test_hotels(world: World) -> None:
    hotels = world.ok(T, "search_hotels", city="Denver", check_in="2026-06-12", check_out="2026-06-15", guests=2)[
        "hotels"
    ]
    assert hotels and hotels[0]["rooms"][0]["total_price"] > 0
    hotel = world.ok(T, "get_hotel", hotel_id=hotels[0]["hotel_id"])
    assert hotel["city"] == "Denver" and hotel["rooms"]
    assert "must be after check_in" in world.err(
        T, "search_hotels", city="Denver", check_in="2026-06-15", check_out="2026-06-12"
    )
    assert "too long" in world.err(T, "search_hotels", city="Denver", check_in="2026-06-01", check_out="2026-08-15")
    assert "No hotel" in world.err(T, "get_hotel", hotel_id="HTL-999")


def test_bookings_and_itinerary(world: World) -> None:
    bookings = seeded_bookings(world, 20)
    assert bookings
    itin = world.ok(T, "get_itinerary", itinerary_id=bookings[0]["itinerary_id"])
    assert bookings[0]["booking_id"] in [b["booking_id"] for b in itin["flight_bookings"]]
    assert itin["total_paid"] > 0
    assert "No traveller" in world.err(T, "list_bookings", traveller_id="TRV-0000")
    assert "No itinerary" in world.err(T, "get_itinerary", itinerary_id="ITN-9999")


def test_create_itinerary_and_book_flight(world: World) -> None:
    trav = traveller(world)
    itin = world.ok(T, "create_itinerary", traveller_id=trav["traveller_id"], title="Conference")
    assert itin["itinerary_id"] in world.ok(T, "get_traveller", traveller_id=trav["traveller_id"])["itinerary_ids"]
    assert "No traveller" in world.err(T, "create_itinerary", traveller_id="TRV-9999", title="X")
    flight = future_flight(world)
    booking = world.ok(T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"])
    assert (
        world.ok(T, "get_flight", flight_id=flight["flight_id"])["economy_seats_left"]
        == flight["economy_seats_left"] - 1
    )
    got = world.ok(T, "get_itinerary", itinerary_id=itin["itinerary_id"])
    assert got["flight_bookings"][0]["booking_id"] == booking["booking_id"]
    assert got["flight_bookings"][0]["refund_if_cancelled_now"] == flight["economy_fare"]
    after = world.ok(T, "get_traveller", traveller_id=trav["traveller_id"])
    assert after["loyalty_points"] == trav["loyalty_points"] + booking["points_earned"]
    assert "already holds" in world.err(
        T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"]
    )
    assert "No itinerary" in world.err(T, "book_flight", itinerary_id="ITN-9999", flight_id=flight["flight_id"])


def test_book_flight_rules(world: World) -> None:
    itin = new_itinerary(world)
    departed = world.ok(T, "search_flights", origin="JFK", destination="LAX", date="2026-05-30")["flights"][0]
    assert "departed" in world.err(T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=departed["flight_id"])
    full = None
    for day in range(2, 31):
        for o, d in (("JFK", "LAX"), ("LAX", "JFK"), ("ORD", "SFO"), ("SFO", "ORD"), ("ATL", "MIA"), ("SEA", "DEN")):
            for f in world.ok(T, "search_flights", origin=o, destination=d, date=f"2026-06-{day:02d}")["flights"]:
                if f["status"] == "scheduled" and f["economy_seats_left"] == 0:
                    full = f
        if full:
            break
    assert full, "the seed has full flights"
    assert "fully booked" in world.err(T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=full["flight_id"])
    flight = future_flight(world)
    seat = world.ok(T, "get_seat_map", flight_id=flight["flight_id"], cabin="economy")["economy"]["free_seats"][0]
    taken = world.ok(
        T,
        "book_flight",
        itinerary_id=new_itinerary(world, passport=True, nth=3)["itinerary_id"],
        flight_id=flight["flight_id"],
        seat=seat,
    )
    assert "already taken" in world.err(
        T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"], seat=taken["seat"]
    )
    assert "does not exist" in world.err(
        T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"], seat="99A"
    )
    no_pp = new_itinerary(world, passport=False)
    intl = future_flight(world, "JFK", "LHR")
    assert "no passport" in world.err(T, "book_flight", itinerary_id=no_pp["itinerary_id"], flight_id=intl["flight_id"])
    world.ok(
        T,
        "update_passport",
        traveller_id=world.ok(T, "get_itinerary", itinerary_id=no_pp["itinerary_id"])["traveller_id"],
        passport_number="X1234567",
        expiry_date="2030-01-01",
    )
    world.ok(T, "book_flight", itinerary_id=no_pp["itinerary_id"], flight_id=intl["flight_id"], cabin="business")
    assert "invalid arguments" in world.err(
        T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"], cabin="first"
    )


def test_book_and_cancel_hotel(world: World) -> None:
    itin = new_itinerary(world)
    hotels = world.ok(T, "search_hotels", city="Denver", check_in="2026-06-12", check_out="2026-06-15")["hotels"]
    hotel, room = next((h, r) for h in hotels for r in h["rooms"] if r["room_type"] == "suite")
    booked = world.ok(
        T,
        "book_hotel",
        itinerary_id=itin["itinerary_id"],
        hotel_id=hotel["hotel_id"],
        room_type="suite",
        check_in="2026-06-12",
        check_out="2026-06-15",
        guests=2,
    )
    assert booked["total_price"] == room["total_price"] and booked["nights"] == 3

    def refusal(room_type: str, check_in: str, check_out: str, **more: Any) -> str:
        """Why booking ``room_type`` at the same hotel on the same itinerary fails."""
        return world.err(
            T,
            "book_hotel",
            itinerary_id=itin["itinerary_id"],
            hotel_id=hotel["hotel_id"],
            room_type=room_type,
            check_in=check_in,
            check_out=check_out,
            **more,
        )

    assert "fully booked" in refusal("suite", "2026-06-14", "2026-06-16")
    again = world.ok(T, "search_hotels", city="Denver", check_in="2026-06-12", check_out="2026-06-15")["hotels"]
    assert "suite" not in [r["room_type"] for h in again if h["hotel_id"] == hotel["hotel_id"] for r in h["rooms"]]
    assert "must be after" in refusal("standard", "2026-06-15", "2026-06-12")
    assert "in the past" in refusal("standard", "2026-05-20", "2026-05-22")
    assert "sleep at most" in refusal("standard", "2026-06-20", "2026-06-22", guests=7)
    cancelled = world.ok(T, "cancel_hotel_booking", booking_id=booked["booking_id"])
    assert cancelled["refund_amount"] == booked["total_price"]
    hb = world.ok(T, "get_itinerary", itinerary_id=itin["itinerary_id"])["hotel_bookings"][0]
    assert hb["status"] == "cancelled"
    assert "already cancelled" in world.err(T, "cancel_hotel_booking", booking_id=booked["booking_id"])
    assert "No hotel booking" in world.err(T, "cancel_hotel_booking", booking_id="HBK-9999")


def test_cancel_started_stay_fails(world: World) -> None:
    for t in world.ok(T, "search_travellers", limit=100)["travellers"]:
        for b in world.ok(T, "list_bookings", traveller_id=t["traveller_id"], kind="hotel", status="confirmed")[
            "hotel_bookings"
        ]:
            if b["check_in"] < NOW[:10]:
                assert "cannot be cancelled" in world.err(T, "cancel_hotel_booking", booking_id=b["booking_id"])
                return
    raise AssertionError("the seed has past stays")


def test_select_seat(world: World) -> None:
    flight = future_flight(world)
    a = world.ok(T, "book_flight", itinerary_id=new_itinerary(world)["itinerary_id"], flight_id=flight["flight_id"])
    free = world.ok(T, "get_seat_map", flight_id=flight["flight_id"], cabin="economy")["economy"]["free_seats"]
    world.ok(T, "select_seat", booking_id=a["booking_id"], seat=free[0])
    assert (
        free[0]
        not in world.ok(T, "get_seat_map", flight_id=flight["flight_id"], cabin="economy")["economy"]["free_seats"]
    )
    b = world.ok(
        T,
        "book_flight",
        itinerary_id=new_itinerary(world, passport=True, nth=3)["itinerary_id"],
        flight_id=flight["flight_id"],
    )
    assert "already taken" in world.err(T, "select_seat", booking_id=b["booking_id"], seat=free[0].lower())
    assert "is in business" in world.err(T, "select_seat", booking_id=b["booking_id"], seat="1A")
    assert "already has seat" in world.err(T, "select_seat", booking_id=a["booking_id"], seat=free[0])
    assert "invalid arguments" in world.err(T, "select_seat", booking_id=a["booking_id"], seat="A14")


def test_add_baggage(world: World) -> None:
    flight = future_flight(world)
    itin = new_itinerary(world)
    b = world.ok(T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"])
    assert world.ok(T, "add_baggage", booking_id=b["booking_id"], bags=1)["charged"] == 35.0
    assert world.ok(T, "add_baggage", booking_id=b["booking_id"], bags=2)["charged"] == 90.0
    fb = world.ok(T, "get_itinerary", itinerary_id=itin["itinerary_id"])["flight_bookings"][0]
    assert fb["checked_bags"] == 3 and fb["baggage_fees"] == 125.0
    assert "at most 4" in world.err(T, "add_baggage", booking_id=b["booking_id"], bags=2)
    biz = world.ok(
        T,
        "book_flight",
        itinerary_id=new_itinerary(world, passport=True, nth=3)["itinerary_id"],
        flight_id=flight["flight_id"],
        cabin="business",
    )
    assert world.ok(T, "add_baggage", booking_id=biz["booking_id"], bags=1)["charged"] == 35.0
    assert "No flight booking" in world.err(T, "add_baggage", booking_id="FBK-9999")


def test_cancel_flight_booking(world: World) -> None:
    flight = future_flight(world, day="2026-06-25")
    itin = new_itinerary(world)
    b = world.ok(T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"])
    world.ok(T, "add_baggage", booking_id=b["booking_id"], bags=1)
    out = world.ok(T, "cancel_flight_booking", booking_id=b["booking_id"])
    assert out["refund_amount"] == round(flight["economy_fare"] + 35, 2)
    fb = world.ok(T, "get_itinerary", itinerary_id=itin["itinerary_id"])["flight_bookings"][0]
    assert fb["status"] == "cancelled"
    assert (
        world.ok(T, "get_flight", flight_id=flight["flight_id"])["economy_seats_left"] == flight["economy_seats_left"]
    )
    assert "already cancelled" in world.err(T, "cancel_flight_booking", booking_id=b["booking_id"])
    assert "cancelled" in world.err(T, "select_seat", booking_id=b["booking_id"], seat="20A")
    soon = future_flight(world, day="2026-06-03")
    c = world.ok(T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=soon["flight_id"])
    assert world.ok(T, "cancel_flight_booking", booking_id=c["booking_id"])["refund_amount"] == round(
        soon["economy_fare"] * 0.5, 2
    )


def test_departed_booking_cannot_change(world: World) -> None:
    flown = [b for b in seeded_bookings(world) if b["departs_at"] < NOW]
    assert flown
    bid = flown[0]["booking_id"]
    assert "already departed" in world.err(T, "cancel_flight_booking", booking_id=bid)
    assert "already departed" in world.err(T, "add_baggage", booking_id=bid)


def test_update_passport(world: World) -> None:
    trav = traveller(world, passport=False)
    out = world.ok(
        T,
        "update_passport",
        traveller_id=trav["traveller_id"],
        passport_number="ab123456",
        expiry_date="2031-03-01",
        nationality="ca",
    )
    assert out["passport_number"] == "AB123456"
    got = world.ok(T, "get_traveller", traveller_id=trav["traveller_id"])
    assert got["passport_expiry"] == "2031-03-01" and got["nationality"] == "CA"
    assert "already expired" in world.err(
        T, "update_passport", traveller_id=trav["traveller_id"], passport_number="AB123456", expiry_date="2025-01-01"
    )
    assert "not a valid date" in world.err(
        T, "update_passport", traveller_id=trav["traveller_id"], passport_number="AB123456", expiry_date="2031-13-01"
    )
    assert "invalid arguments" in world.err(
        T, "update_passport", traveller_id=trav["traveller_id"], passport_number="AB-1", expiry_date="2031-03-01"
    )


def test_redeem_points(world: World) -> None:
    itin = new_itinerary(world, min_points=5000)
    flight = future_flight(world)
    b = world.ok(T, "book_flight", itinerary_id=itin["itinerary_id"], flight_id=flight["flight_id"])
    before = world.ok(T, "get_traveller", traveller_id=itin["traveller_id"])["loyalty_points"]
    out = world.ok(T, "redeem_points", booking_id=b["booking_id"], points=2000)
    assert out["fare_paid"] == round(flight["economy_fare"] - 20, 2)
    assert world.ok(T, "get_traveller", traveller_id=itin["traveller_id"])["loyalty_points"] == before - 2000
    assert "multiples of 100" in world.err(T, "redeem_points", booking_id=b["booking_id"], points=1050)
    assert "has only" in world.err(T, "redeem_points", booking_id=b["booking_id"], points=9_000_000)
    refund = world.ok(T, "cancel_flight_booking", booking_id=b["booking_id"])
    assert refund["points_returned"] == 2000
    after = world.ok(T, "get_traveller", traveller_id=itin["traveller_id"])["loyalty_points"]
    assert after == before - b["points_earned"]
