"""Travel intents about a traveller's flights: booking one, a seat, bags, points off the fare, a refund, the way
back."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, clock, day
from servers.travel_booking.intents import (
    FLIGHT,
    FLIGHT_BOOKING,
    TRAVELLER,
    WORDS,
    as_traveller,
    find_me,
    focus_booking,
    focus_flight,
    intro,
    iso,
    me,
    my_booking,
    my_flight,
    owns_trip,
    passport_fits,
    seen,
    talking,
    the_flight,
    upcoming,
)
from servers.travel_booking.schema import _blocked, _layout
from servers.travel_booking.tools import travel


@travel.intent(covers=("search_travellers", "search_flights", "create_itinerary", "book_flight"), weight=2.0)
def fly_somewhere(s: Scene) -> None:
    """A traveller gets a seat on the one flight of a route on a day, in a new trip."""
    t = me(s)
    f = s.pick(
        FLIGHT + " WHERE f.status = 'scheduled' AND f.departs_at > ? AND f.departs_at < ? "
        "AND (o.country = 'United States' AND d.country = 'United States' OR ? > ?) AND NOT EXISTS "
        "(SELECT 1 FROM flight_bookings b WHERE b.flight_id = f.flight_id AND b.traveller_id = ? "
        "AND b.status = 'confirmed')",
        iso(s.now + timedelta(days=2)),
        iso(s.now + timedelta(days=34)),
        t["passport_expiry"] or "",
        (s.now + timedelta(days=240)).date().isoformat(),
        t["traveller_id"],
    )
    cabin = "business" if s.rng.random() < 0.25 else "economy"
    title = s.rng.choice(WORDS.titles).format(city=f["to_city"])
    name = s.given(title, f"'{title}'", "trip name", "create_itinerary", "title")
    when = day(f["departs_at"], s.now)
    up = " in business" if cabin == "business" else ""
    s.say(WORDS.fly_somewhere, who=t["name"], fr=f["from_city"], to=f["to_city"], when=when, up=up, name=name)
    args: dict[str, Any] = {"origin": f["origin"], "destination": f["destination"], "date": f["departs_at"][:10]}
    if cabin == "business" and not s.minimal:
        args["cabin"] = "business"
    found = s.call("search_flights", **args)["flights"]
    hit = [x for x in found if x["flight_id"] == f["flight_id"]]
    if len(found) != 1 or not hit or hit[0][f"{cabin}_seats_left"] <= 0:
        raise Skip("not the one flight of the day, or the cabin is full")
    s.say(WORDS.fly_somewhere_then_book, up=up)
    tid = find_me(s, t)
    itin = s.call("create_itinerary", traveller_id=tid, title=title)
    booking = s.call(
        "book_flight",
        itinerary_id=itin["itinerary_id"],
        flight_id=hit[0]["flight_id"],
        **({"cabin": cabin} if cabin == "business" else {}),
    )
    focus_booking(s, booking["booking_id"])
    s.memory["itinerary"] = itin["itinerary_id"]


@travel.intent(covers=("search_travellers", "list_bookings", "get_seat_map", "select_seat"), weight=1.5, follows=True)
def window_seat(s: Scene) -> None:
    """A traveller moves to a window (or aisle) seat on an upcoming flight."""
    b = upcoming(s)
    where = s.rng.choice(("window", "aisle"))
    letters = "AF" if where == "window" else "CD"
    trip = my_flight(s, b)
    if s.rng.random() < 0.35 or not s.room(3, 2):
        return seat_i_saw(s, b, trip)
    s.say(WORDS.window_seat, trip=trip, Trip=trip[:1].upper() + trip[1:], where=where, me=intro(s))
    listed = my_booking(s, b)
    only = {"cabin": b["cabin"]} if s.rng.random() < 0.6 else {}
    seats = s.call("get_seat_map", flight_id=listed["flight_id"], **only)[b["cabin"]]["free_seats"]
    fit = [x for x in seats if x[-1] in letters and x != b["seat"]]
    if not fit:
        raise Skip(f"no free {where} seat")
    seat = s.rng.choice(fit[:6])
    s.say(WORDS.window_seat_then_pick, seat=seat)
    s.call("select_seat", booking_id=listed["booking_id"], seat=seat)
    focus_booking(s, listed["booking_id"])


def seat_i_saw(s: Scene, b: dict[str, Any], trip: str) -> None:
    """The traveller already saw a free seat in the airline's app and names it."""
    f = s.rows("SELECT * FROM flights WHERE flight_id = ?", b["flight_id"])[0]
    layout = _layout(f["aircraft"])[b["cabin"]]
    taken = _blocked(f["flight_id"], layout, f[f"{b['cabin']}_blocked"]) | {
        r["seat"]
        for r in s.rows(
            "SELECT seat FROM flight_bookings WHERE flight_id = ? AND status = 'confirmed' AND seat IS NOT NULL",
            f["flight_id"],
        )
    }
    free = [x for x in layout if x not in taken]
    if not free:
        raise Skip("the cabin is full")
    seat = s.rng.choice(free)
    pick = s.given(seat, seat, "seat", "select_seat", "seat")
    s.say(WORDS.seat_i_saw, seat=pick, trip=trip, me=intro(s))
    listed = my_booking(s, b)
    s.call("select_seat", booking_id=listed["booking_id"], seat=seat)
    if not s.room(1, 1):
        return
    s.say(WORDS.seat_i_saw_then_seat_map)
    s.call("get_seat_map", flight_id=listed["flight_id"], **({"cabin": b["cabin"]} if s.rng.random() < 0.5 else {}))
    focus_booking(s, listed["booking_id"])


@travel.intent(covers=("search_travellers", "list_bookings", "add_baggage", "get_itinerary"), weight=1.5, follows=True)
def extra_suitcase(s: Scene) -> None:
    """A traveller brings more luggage on an upcoming flight, then asks what the trip costs now."""
    b = upcoming(s, "b.checked_bags <= 2")
    n = s.rng.choice((1, 1, 2)) if b["checked_bags"] < 2 else 1
    trip = my_flight(s, b)
    bags = "one more suitcase" if n == 1 else "two more suitcases"
    s.say(WORDS.extra_suitcase, bags=bags, trip=trip, me=intro(s))
    listed = my_booking(s, b)
    args: dict[str, Any] = {"booking_id": listed["booking_id"]}
    if n != 1 or s.minimal:
        args["bags"] = n if not s.minimal else 1
    s.call("add_baggage", **args)
    focus_booking(s, listed["booking_id"])
    s.memory["itinerary"] = listed["itinerary_id"]
    if s.by_chance(0.5):
        s.say(WORDS.extra_suitcase_then_trip_cost)
        s.call("get_itinerary", itinerary_id=listed["itinerary_id"])


@travel.intent(covers=("get_itinerary", "cancel_flight_booking"), weight=1.5)
def cancel_by_reference(s: Scene) -> None:
    """A traveller reads the trip reference off the confirmation email, asks what a cancellation refunds, and
    cancels the flight."""
    b = s.pick(FLIGHT_BOOKING + " WHERE b.status = 'confirmed' AND f.departs_at > ?", iso(s.now + timedelta(hours=2)))
    as_traveller(s, "traveller_id = ?", b["traveller_id"])
    if talking(s) != b["traveller_id"]:
        raise Skip("the trip is not the talking traveller's")
    what = s.refer(
        b["booking_id"],
        Ref(
            "the flight to {to}",
            "SELECT b.booking_id FROM flight_bookings b JOIN flights f USING "
            "(flight_id) WHERE b.itinerary_id = ? AND b.status = 'confirmed' AND f.destination = ?",
            b["itinerary_id"],
            b["destination"],
        ),
        Ref(
            "the {fr} to {to} flight {when}",
            "SELECT b.booking_id FROM flight_bookings b JOIN flights f "
            "USING (flight_id) WHERE b.itinerary_id = ? AND f.origin = ? AND f.destination = ? "
            "AND b.status = 'confirmed'",
            b["itinerary_id"],
            b["origin"],
            b["destination"],
        ),
        to=b["to_city"],
        fr=b["from_city"],
        when=day(b["departs_at"], s.now),
    )
    s.say(WORDS.cancel_by_reference, ref=b["itinerary_id"], what=what)
    trip = s.call("get_itinerary", itinerary_id=b["itinerary_id"])
    hit = [x for x in trip["flight_bookings"] if x["booking_id"] == b["booking_id"]]
    if not hit or hit[0].get("refund_if_cancelled_now") is None:
        raise Skip("the flight cannot be called off")
    s.memory["itinerary"] = b["itinerary_id"]
    if s.rng.random() < 0.3:
        focus_booking(s, b["booking_id"])
        return
    s.say(WORDS.cancel_by_reference_then_cancel)
    s.call("cancel_flight_booking", booking_id=hit[0]["booking_id"])


# Follow-ups: the way back, booking the flight of the dialogue ---------------------------------


@travel.intent(covers=("search_flights",), follows=True, opens=False)
def way_back(s: Scene) -> None:
    """The traveller asks for flights home a few days after the flight of the dialogue; the earliest becomes the
    flight of the dialogue."""
    f = the_flight(s)
    back = date.fromisoformat(f["departs_at"][:10]) + timedelta(days=s.rng.choice((2, 3, 4, 7)))
    found = s.rows(
        FLIGHT + " WHERE f.origin = ? AND f.destination = ? AND substr(f.departs_at, 1, 10) = ? "
        "AND f.status = 'scheduled'",
        f["destination"],
        f["origin"],
        back.isoformat(),
    )
    if not found:
        raise Skip("nothing flies back that day")
    s.say(WORDS.way_back, when=day(back.isoformat(), s.now), to=f["to_city"], fr=f["from_city"])
    got = s.call("search_flights", origin=f["destination"], destination=f["origin"], date=back.isoformat())["flights"]
    if not got:
        raise Skip("none listed")
    focus_flight(s, got[0]["flight_id"])


@travel.intent(
    covers=("search_travellers", "create_itinerary", "search_flights", "book_flight"), follows=True, opens=False
)
def book_that_one(s: Scene) -> None:
    """The traveller books the flight of the dialogue into the trip of the dialogue, or into a new trip."""
    f = the_flight(s)
    tid = talking(s)
    trip = s.memory.get("itinerary")
    if trip and (not seen(s, trip) or not owns_trip(s, trip, tid)):
        trip = None
    if not seen(s, f["flight_id"]) or f["status"] != "scheduled" or f["departs_at"] <= iso(s.now):
        raise Skip("the agent has not seen the flight, or it left")
    if s.rows(
        "SELECT 1 FROM flight_bookings WHERE flight_id = ? AND traveller_id = ? AND status = 'confirmed'",
        f["flight_id"],
        tid,
    ):
        return book_the_way_back(s, f, trip)
    t = s.rows(TRAVELLER + " AND traveller_id = ?", tid)
    intl = f["from_country"] != f["to_country"]
    if not t or (
        intl
        and (t[0]["passport_expiry"] or "")
        < (date.fromisoformat(f["departs_at"][:10]) + timedelta(days=183)).isoformat()
    ):
        raise Skip("no valid passport for an international flight")
    views = [
        x
        for c in s.calls
        if isinstance(c.result, dict)
        for x in (c.result.get("flights") or [c.result])
        if isinstance(x, dict) and x.get("flight_id") == f["flight_id"] and "economy_seats_left" in x
    ]
    if not views or views[-1]["economy_seats_left"] <= 0:
        raise Skip("the agent has not seen seats left in economy")
    title = f"Trip to {f['to_city']}"
    if trip:
        s.say(WORDS.book_that_one, t=clock(f["departs_at"]))
    else:
        s.say(WORDS.book_that_one_new_trip, me=intro(s), t=clock(f["departs_at"]), title=title)
        trip = s.call("create_itinerary", traveller_id=find_me(s, t[0]), title=title)["itinerary_id"]
    made = s.call("book_flight", itinerary_id=trip, flight_id=f["flight_id"])
    s.memory["itinerary"] = trip
    focus_booking(s, made["booking_id"])


def book_the_way_back(s: Scene, f: dict[str, Any], trip: str | None) -> None:
    """The traveller is on the flight of the dialogue and books the earliest flight back, a few days on, into the
    same trip."""
    if not trip:
        raise Skip("no trip to add the way back to")
    out = date.fromisoformat(f["departs_at"][:10])
    days = s.rows(
        "SELECT DISTINCT substr(departs_at, 1, 10) AS d FROM flights WHERE origin = ? AND destination = ? "
        "AND status = 'scheduled' AND departs_at > ? AND departs_at < ?",
        f["destination"],
        f["origin"],
        (out + timedelta(days=1)).isoformat(),
        (out + timedelta(days=15)).isoformat(),
    )
    if not days:
        raise Skip("nothing flies back within two weeks")
    back = date.fromisoformat(s.rng.choice(days)["d"])
    options = s.rows(
        FLIGHT + " WHERE f.origin = ? AND f.destination = ? AND substr(f.departs_at, 1, 10) = ? "
        "AND f.status = 'scheduled' ORDER BY f.departs_at, f.flight_id",
        f["destination"],
        f["origin"],
        back.isoformat(),
    )
    if not options or not passport_fits(s, talking(s), options[0]):
        raise Skip("nothing flies back that day, or the passport does not allow it")
    if s.rows(
        "SELECT 1 FROM flight_bookings WHERE flight_id = ? AND traveller_id = ? AND status = 'confirmed'",
        options[0]["flight_id"],
        talking(s),
    ):
        raise Skip("already booked on the way back")
    s.say(WORDS.book_the_way_back, when=day(back.isoformat(), s.now))
    found = s.call("search_flights", origin=f["destination"], destination=f["origin"], date=back.isoformat())
    first = [x for x in found["flights"] if x["status"] == "scheduled" and x["economy_seats_left"] > 0]
    if not first or first[0]["flight_id"] != options[0]["flight_id"]:
        raise Skip("the first flight back is full")
    made = s.call("book_flight", itinerary_id=trip, flight_id=first[0]["flight_id"])
    focus_booking(s, made["booking_id"])
