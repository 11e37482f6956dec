"""What travellers ask next, about the flight booking, flight, trip or hotel the dialogue is about.

An earlier turn leaves the flight booking it ended on in ``s.memory["booking"]`` (with its flight in
``s.memory["flight"]``), the trip in ``s.memory["itinerary"]``, and a hotel room a search offered in
``s.memory["stay_offer"]``; the agent holds their ids. The traveller talking is found with
``search_travellers`` the first time a turn needs their id (``find_me``).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.travel_booking.intents import (
    BAG_WORDS,
    WORDS,
    find_me,
    intro,
    iso,
    me,
    offer_cheapest,
    owns_trip,
    seen,
    the_booking,
    the_flight,
    the_trip,
)
from servers.travel_booking.tools import travel


def on_trip(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    itin = the_trip(s)
    if any(c.tool == "get_itinerary" for c in list(s.calls)[-1:]):
        raise Skip("the trip was just read")
    return {"itinerary_id": itin}, {}


def on_flight(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    return {"flight_id": the_flight(s)["flight_id"]}, {}


def on_booking(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    return {"booking_id": the_booking(s)["booking_id"]}, {}


def on_hotel(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    o = s.memory.get("stay_offer") or s.memory.get("hotel")
    if not o:
        raise Skip("no hotel in the dialogue")
    return {"hotel_id": o["hotel_id"]}, {"name": o["name"]}


def _seen_all(s: Scene, args: dict[str, Any]) -> None:
    if not all(seen(s, v) for v in args.values()):
        raise Skip("the agent has not seen that id")


AGAIN = (
    FollowUp(
        "trip_cost_now",
        "The traveller asks what the trip costs all together now, and what cancelling would refund.",
        on_trip,
        "get_itinerary",
        asked=False,
        check=_seen_all,
    ),
    FollowUp(
        "on_time",
        "The traveller asks about the flight: its times, status, aircraft, how full it is.",
        on_flight,
        "get_flight",
        check=_seen_all,
    ),
    FollowUp(
        "drop_that_flight",
        "The traveller cancels the booked flight after all.",
        on_booking,
        "cancel_flight_booking",
        asked=False,
        check=_seen_all,
    ),
    FollowUp(
        "tell_me_about_it",
        "The traveller asks what the hotel of the dialogue (offered, booked or given up) is like.",
        on_hotel,
        "get_hotel",
        check=_seen_all,
    ),
)


follow_ups(travel, AGAIN, WORDS)


@travel.intent(covers=("get_seat_map", "select_seat"), follows=True, opens=False)
def better_seat(s: Scene) -> None:
    """The traveller wants a window or aisle seat on the booked flight; the agent reads the free seats first."""
    b = the_booking(s)
    where = s.rng.choice(("window", "aisle"))
    letters = "AF" if where == "window" else "CD"
    s.say(WORDS.better_seat, w=where)
    only = {"cabin": b["cabin"]} if s.rng.random() < 0.6 else {}
    free = s.call("get_seat_map", flight_id=b["flight_id"], **only)[b["cabin"]]["free_seats"]
    fit = [x for x in free if x[-1] in letters and x != b["seat"]]
    if not fit:
        raise Skip(f"no free {where} seat")
    s.call("select_seat", booking_id=b["booking_id"], seat=fit[0])


@travel.intent(covers=("get_seat_map",), follows=True, opens=False)
def how_empty(s: Scene) -> None:
    """The traveller asks which seats are still free on the flight of the dialogue."""
    f = the_flight(s)
    if not seen(s, f["flight_id"]) or any(c.tool == "get_seat_map" for c in s.calls):
        raise Skip("the agent has not seen the flight, or read its seats")
    cabin = s.rng.choice((None, "economy", "business"))
    s.say(WORDS.how_empty, c=f" in {cabin}" if cabin else "")
    s.call("get_seat_map", flight_id=f["flight_id"], **({"cabin": cabin} if cabin else {}))


@travel.intent(covers=("add_baggage",), follows=True, opens=False)
def bag_for_it(s: Scene) -> None:
    """The traveller adds checked bags to the booked flight."""
    b = the_booking(s)
    n = s.rng.choice((1, 1, 2))
    if b["checked_bags"] + n > 4:
        raise Skip("too many bags")
    s.say(WORDS.bag_for_it, bags=BAG_WORDS[n])
    s.call("add_baggage", booking_id=b["booking_id"], **({"bags": n} if n > 1 else {}))


@travel.intent(covers=("redeem_points",), follows=True, opens=False)
def points_off_it(s: Scene) -> None:
    """The traveller puts some loyalty points toward the booked fare."""
    b = the_booking(s)
    points = s.value("SELECT loyalty_points FROM travellers WHERE traveller_id = ?", b["traveller_id"])
    options = [p for p in (1000, 2000, 3000, 5000) if p <= points and p / 100 <= b["fare_paid"]]
    if not options:
        raise Skip("too few points or too small a fare")
    n = s.rng.choice(options)
    s.say(WORDS.points_off_it, n=f"{n:,}")
    s.call("redeem_points", booking_id=b["booking_id"], points=n)


@travel.intent(covers=("search_travellers", "get_traveller"), follows=True, opens=False)
def points_now(s: Scene) -> None:
    """The traveller asks about their points balance and tier."""
    t = me(s)
    if s.memory.get("me"):
        s.asked("get_traveller", traveller_id=t["traveller_id"])
    s.say(WORDS.points_now, me=intro(s))
    tid = find_me(s, t)
    s.call("get_traveller", traveller_id=tid)


@travel.intent(covers=("search_travellers", "list_bookings"), follows=True, opens=False)
def what_else_booked(s: Scene) -> None:
    """The traveller asks what else they have booked: flights, stays, or what they cancelled."""
    t = me(s)
    kind = s.rng.choice(("flight", "hotel", None))
    status = s.rng.choice(("confirmed", "cancelled", None))
    words = {"flight": "flights", "hotel": "hotel stays", None: "bookings"}[kind]
    state = {"confirmed": "confirmed ", "cancelled": "cancelled ", None: ""}[status]
    s.say(WORDS.what_else_booked, me=intro(s), st=state, w=words)
    tid = find_me(s, t)
    args: dict[str, Any] = {"traveller_id": tid}
    if kind:
        args["kind"] = kind
    if status:
        args["status"] = status
    if any(c.tool == "list_bookings" and c.arguments == args for c in s.calls):
        raise Skip("listed already")
    s.call("list_bookings", **args)


@travel.intent(covers=("search_hotels",), follows=True, opens=False)
def somewhere_to_sleep(s: Scene) -> None:
    """For the flight of the dialogue, the traveller asks for hotel rooms in the arrival city from the day they
    land; the cheapest room becomes the offer of the dialogue."""
    f = the_flight(s)
    if not s.rows("SELECT 1 FROM hotels WHERE city = ?", f["to_city"]) or f["departs_at"] <= iso(s.now):
        raise Skip("no hotels there, or the flight left")
    nights = s.rng.choice((1, 2, 3, 5))
    ci = date.fromisoformat(f["arrives_at"][:10])
    guests = s.rng.choice((1, 1, 2))
    stars = s.rng.choice((None, None, 4))
    s.say(
        WORDS.somewhere_to_sleep,
        city=f["to_city"],
        n=nights,
        pl="s" if nights > 1 else "",
        g=", two of us" if guests == 2 else "",
        st=", four stars or better" if stars else "",
    )
    args: dict[str, Any] = {
        "city": f["to_city"],
        "check_in": ci.isoformat(),
        "check_out": (ci + timedelta(days=nights)).isoformat(),
    }
    if guests > 1:
        args["guests"] = guests
    if stars:
        args["min_stars"] = stars
    offer_cheapest(s, args)


@travel.intent(covers=("search_travellers", "create_itinerary", "book_hotel"), follows=True, opens=False)
def take_that_room(s: Scene) -> None:
    """The traveller books the cheapest room the search offered, into the trip of the dialogue (or a new one)."""
    o = s.known("stay_offer", "no hotel offered")
    t = me(s)
    trip = s.memory.get("itinerary")
    if trip and not owns_trip(s, trip, t["traveller_id"]):
        trip = None
    if trip and not seen(s, trip):
        raise Skip("the agent has not seen the trip's reference")
    title = f"{o['city']} stay"
    s.say(WORDS.take_that_room, me=intro(s), into=", same trip" if trip else f" as a new trip called '{title}'")
    if not trip:
        tid = find_me(s, t)
        trip = s.call("create_itinerary", traveller_id=tid, title=title)["itinerary_id"]
    extra = {k: o[k] for k in ("guests",) if k in o}
    s.call(
        "book_hotel",
        itinerary_id=trip,
        hotel_id=o["hotel_id"],
        room_type=o["room_type"],
        check_in=o["check_in"],
        check_out=o["check_out"],
        **extra,
    )
    s.memory["itinerary"] = trip
    s.memory.pop("stay_offer", None)
