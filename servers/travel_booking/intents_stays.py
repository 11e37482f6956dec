"""Travel intents that look around or stay somewhere: what flies, rooms in a city or for a trip, a room given up,
a trip read by its reference, the next flight."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, clock, day, unique_best
from servers.travel_booking.intents import (
    FLIGHT,
    FLIGHT_BOOKING,
    HOTEL_BOOKING,
    WORDS,
    as_traveller,
    find_me,
    flight_day,
    focus_booking,
    focus_flight,
    intro,
    iso,
    me,
    my_booking,
    my_flight,
    offer,
    offer_cheapest,
    talking,
    upcoming,
)
from servers.travel_booking.tools import travel


@travel.intent(covers=("search_travellers", "list_bookings", "cancel_hotel_booking", "get_itinerary"), follows=True)
def drop_the_room(s: Scene) -> None:
    """A traveller no longer needs a hotel room they reserved."""
    known = talking(s)
    who = "b.traveller_id = ?" if known else "1=1"
    args = (known,) if known else ()
    h = s.pick(
        HOTEL_BOOKING + f" WHERE b.status = 'confirmed' AND b.check_in > ? AND {who}",
        (s.now - timedelta(hours=15)).date().isoformat(),
        *args,
    )
    t = me(s, "traveller_id = ?", h["traveller_id"])
    what = s.refer(
        h["booking_id"],
        Ref(
            "my room at the {hotel}",
            "SELECT booking_id FROM hotel_bookings WHERE traveller_id = ? AND status = 'confirmed' AND hotel_id = ?",
            h["traveller_id"],
            h["hotel_id"],
        ),
        Ref(
            "my room at the {hotel} from {ci}",
            "SELECT booking_id FROM hotel_bookings "
            "WHERE traveller_id = ? "
            "AND status = 'confirmed' AND hotel_id = ? AND check_in = ?",
            h["traveller_id"],
            h["hotel_id"],
            h["check_in"],
        ),
        hotel=h["hotel"],
        ci=day(h["check_in"], s.now).removeprefix("on "),
    )
    s.say(WORDS.drop_the_room, what=what, me=intro(s))
    tid = find_me(s, t)
    narrow = s.rng.choice(({"kind": "hotel", "status": "confirmed"}, {"kind": "hotel"}))
    listed = s.call("list_bookings", traveller_id=tid, **narrow)["hotel_bookings"]
    hit = [r for r in listed if r["booking_id"] == h["booking_id"]]
    if not hit:
        raise Skip("the stay is past the first page")
    s.call("cancel_hotel_booking", booking_id=hit[0]["booking_id"])
    s.memory["itinerary"] = hit[0]["itinerary_id"]
    s.memory["hotel"] = {"hotel_id": h["hotel_id"], "name": h["hotel"]}
    if not s.room(1, 1) or s.rng.random() < 0.3:
        return
    s.say(WORDS.drop_the_room_then_trip_cost)
    s.call("get_itinerary", itinerary_id=hit[0]["itinerary_id"])


@travel.intent(covers=("search_travellers", "list_bookings", "search_hotels", "book_hotel"), weight=1.5)
def room_for_the_trip(s: Scene) -> None:
    """A traveller flying somewhere adds the cheapest fitting hotel room there to the same trip."""
    b = upcoming(
        s,
        "f.departs_at > ? AND NOT EXISTS (SELECT 1 FROM hotel_bookings h WHERE h.itinerary_id = "
        "b.itinerary_id AND h.status = 'confirmed') AND d.city IN (SELECT city FROM hotels)",
        iso(s.now + timedelta(days=1)),
    )
    nights = s.rng.choice((1, 2, 3, 4))
    ci = date.fromisoformat(b["departs_at"][:10])
    co = ci + timedelta(days=nights)
    guests = s.rng.choice((1, 1, 2, 2, 3))
    stars = s.rng.choice((None, None, 3, 4))
    trip = my_flight(s, b)
    nice = f" with at least {stars} stars" if stars else ""
    two_rooms = guests == 3 and s.rng.random() < 0.5
    people = {1: "just me", 2: "two of us", 3: "three of us"}[guests] + (" in two rooms" if two_rooms else "")
    s.say(
        WORDS.room_for_the_trip,
        trip=trip,
        nice=nice,
        nights=nights,
        pl="s" if nights > 1 else "",
        people=people,
        People=people[:1].upper() + people[1:],
        me=intro(s),
    )
    listed = my_booking(s, b)
    if s.minimal:
        guests, stars = 1, None
    args: dict[str, Any] = {"city": b["to_city"], "check_in": ci.isoformat(), "check_out": co.isoformat()}
    if guests > 1:
        args["guests"] = guests
    if two_rooms and not s.minimal:
        args["rooms"] = 2
    if stars:
        args["min_stars"] = stars
    hotels = s.call("search_hotels", **args)["hotels"]
    options = [(r["total_price"], h["hotel_id"], r["room_type"], h["name"]) for h in hotels for r in h["rooms"]]
    if not options:
        raise Skip("nothing free")
    best = min(options)
    if sum(o[0] == best[0] for o in options) > 1:
        raise Skip("two rooms tie for the cheapest")
    s.say(WORDS.room_for_the_trip_then_cheapest)
    extra: dict[str, Any] = {"guests": guests} if guests > 1 else {}
    if "rooms" in args:
        extra["rooms"] = 2
    focus_booking(s, listed["booking_id"])
    s.memory["itinerary"] = listed["itinerary_id"]
    s.memory["hotel"] = {"hotel_id": best[1], "name": best[3]}
    s.call(
        "book_hotel",
        itinerary_id=listed["itinerary_id"],
        hotel_id=best[1],
        room_type=best[2],
        check_in=ci.isoformat(),
        check_out=co.isoformat(),
        **extra,
    )


@travel.intent(covers=("list_airports", "search_flights", "get_flight"))
def what_flies(s: Scene) -> None:
    """Someone looks at the options between two cities on a day, then at how full one of them is."""
    f = s.pick(
        FLIGHT + " WHERE f.departs_at > ? AND f.departs_at < ? AND (o.country != 'United States' OR "
        "d.country != 'United States')",
        iso(s.now + timedelta(days=1)),
        iso(s.now + timedelta(days=30)),
    )
    as_traveller(s)
    cheap = s.rng.random() < 0.4
    cap = float(round(f["economy_fare"] * 1.2 / 50 + 1) * 50)
    under = f" under ${cap:,.0f}" if cheap else ""
    when = flight_day(s, f)
    s.say(WORDS.what_flies, fr=f["from_city"], to=f["to_city"], when=when, under=under)
    intl = f["from_city"] if f["from_country"] != "United States" else f["to_city"]
    codes = [a["code"] for a in s.call("list_airports", query=intl)["airports"]]
    if codes != [f["origin"] if intl == f["from_city"] else f["destination"]]:
        raise Skip("the city names more than one airport")
    args: dict[str, Any] = {"origin": f["origin"], "destination": f["destination"], "date": f["departs_at"][:10]}
    if cheap and not s.minimal:
        args["max_fare"] = cap
    found = s.call("search_flights", **args)["flights"]
    hit = [x for x in found if x["flight_id"] == f["flight_id"]]
    if not hit:
        raise Skip("the flight is not among the results")
    focus_flight(s, hit[0]["flight_id"])
    if s.rng.random() < 0.3:
        return
    s.say(WORDS.what_flies_then_how_full, t=clock(f["departs_at"]))
    s.call("get_flight", flight_id=hit[0]["flight_id"])


@travel.intent(covers=("get_distinct_values", "search_hotels", "get_hotel"))
def favourite_chain(s: Scene) -> None:
    """A traveller loyal to a hotel chain asks where hotels are offered, then looks for the chain's one in a city."""
    h = s.pick(
        "SELECT * FROM hotels h WHERE (SELECT COUNT(*) FROM hotels x WHERE x.city = h.city AND x.chain = h.chain) = 1"
    )
    start = s.now.date() + timedelta(days=s.rng.randint(3, 40))
    end = start + timedelta(days=s.rng.choice((1, 2, 3)))
    as_traveller(s)
    s.say(WORDS.favourite_chain)
    found = s.call("get_distinct_values", field="hotel_city")["values"]
    if h["city"] not in found:
        raise Skip("not offered")
    ci = s.given(start.isoformat(), f"{start.strftime('%B')} {start.day}", "check-in date", "search_hotels", "check_in")
    party = " (two guests)" if s.rng.random() < 0.4 else ""
    s.say(
        WORDS.favourite_chain_then_hotel,
        chain=h["chain"],
        city=h["city"],
        ci=ci,
        co=f"{end.strftime('%B')} {end.day}" + party,
    )
    args: dict[str, Any] = {"city": h["city"], "check_in": start.isoformat(), "check_out": end.isoformat()}
    if party:
        args["guests"] = 2
    hotels = s.call("search_hotels", **args)["hotels"]
    hit = [x for x in hotels if x["hotel_id"] == h["hotel_id"]]
    if not hit:
        raise Skip("the chain's hotel has no room those nights")
    s.call("get_hotel", hotel_id=hit[0]["hotel_id"])
    s.memory["stay_offer"] = offer(hit[0], args)


@travel.intent(covers=("get_itinerary",), weight=1.0)
def trip_by_reference(s: Scene) -> None:
    """A traveller reads the trip reference off the confirmation email and asks what is in it."""
    b = s.pick(
        FLIGHT_BOOKING + " WHERE b.status = 'confirmed' AND f.status = 'scheduled' AND f.departs_at > ? AND "
        "(SELECT COUNT(*) FROM flight_bookings x WHERE x.itinerary_id = b.itinerary_id) = 1",
        iso(s.now + timedelta(days=1)),
    )
    as_traveller(s, "traveller_id = ?", b["traveller_id"])
    if talking(s) != b["traveller_id"]:
        raise Skip("the trip is not the talking traveller's")
    s.say(WORDS.trip_by_reference, ref=b["itinerary_id"])
    s.call("get_itinerary", itinerary_id=b["itinerary_id"])
    s.memory["itinerary"] = b["itinerary_id"]
    focus_booking(s, b["booking_id"])


@travel.intent(covers=("search_travellers", "list_bookings"), weight=1.5)
def my_next_flight(s: Scene) -> None:
    """A traveller asks about their next flight; it becomes the booking of the dialogue."""
    t = me(
        s,
        "traveller_id IN (SELECT b.traveller_id FROM flight_bookings b JOIN flights f USING (flight_id) "
        "WHERE b.status = 'confirmed' AND f.status = 'scheduled' AND f.departs_at > ?)",
        iso(s.now),
    )
    s.say(WORDS.my_next_flight, me=intro(s))
    tid = find_me(s, t)
    narrow = s.rng.choice(({"kind": "flight", "status": "confirmed"}, {"kind": "flight"}, {"status": "confirmed"}))
    listed = s.call("list_bookings", traveller_id=tid, **narrow)["flight_bookings"]
    ahead = [b for b in listed if b["status"] == "confirmed" and b["departs_at"] > iso(s.now)]
    if not ahead:
        raise Skip("nothing ahead on the first page")
    nxt = unique_best(ahead, lambda b: b["departs_at"], tie="two flights leave at once", lowest=True)
    s.memory["itinerary"] = nxt["itinerary_id"]
    focus_booking(s, nxt["booking_id"])


@travel.intent(covers=("list_airports", "search_flights"), weight=1.5)
def flights_on_a_day(s: Scene) -> None:
    """Someone asks what flies between two cities on a day (the airports found by city); the first flight
    becomes the flight of the dialogue."""
    f = s.pick(
        FLIGHT + " WHERE f.status = 'scheduled' AND f.departs_at > ? AND f.departs_at < ?",
        iso(s.now + timedelta(days=1)),
        iso(s.now + timedelta(days=40)),
    )
    as_traveller(s)
    when = flight_day(s, f)
    s.say(WORDS.flights_on_a_day, fr=f["from_city"], to=f["to_city"], when=when)
    codes = []
    for city in (f["from_city"], f["to_city"]):
        got = [a["code"] for a in s.call("list_airports", query=city)["airports"]]
        if len(got) != 1:
            raise Skip("a city with more than one airport")
        codes.append(got[0])
    found = s.call("search_flights", origin=codes[0], destination=codes[1], date=f["departs_at"][:10])["flights"]
    if not found:
        raise Skip("nothing that day")
    focus_flight(s, found[0]["flight_id"])


@travel.intent(covers=("search_hotels",), weight=1.0)
def rooms_in_town(s: Scene) -> None:
    """Someone asks for hotel rooms in a city for some nights; the cheapest becomes the offer of the dialogue."""
    city = s.pick("SELECT DISTINCT city FROM hotels")["city"]
    as_traveller(s)
    start = s.now.date() + timedelta(days=s.rng.randint(3, 45))
    nights = s.rng.choice((1, 2, 3, 4))
    ci = s.given(start.isoformat(), f"{start.strftime('%B')} {start.day}", "check-in date", "search_hotels", "check_in")
    cap = s.rng.choice((None, None, 150, 250))
    s.say(
        WORDS.rooms_in_town,
        city=city,
        n=nights,
        pl="s" if nights > 1 else "",
        ci=ci,
        cap=f", under ${cap} a night" if cap else "",
    )
    args: dict[str, Any] = {
        "city": city,
        "check_in": start.isoformat(),
        "check_out": (start + timedelta(days=nights)).isoformat(),
    }
    if cap:
        args["max_nightly_rate"] = cap
    offer_cheapest(s, args)
