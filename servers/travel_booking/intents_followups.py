"""What travellers ask next, about the flight booking, flight, trip or hotel the dialogue is about, and more
ways to start.

An earlier turn leaves the flight booking it ended on in ``s.memory["booking"]`` (with its flight in
``s.memory["flight"]``), the trip in ``s.memory["itinerary"]``, and a hotel room a search offered in
``s.memory["stay_offer"]``; the agent holds their ids. The traveller talking is found with
``search_travellers`` the first time a turn needs their id (``find_me``).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, clock, day, unique_best
from servers.travel_booking.intents import (
    FLIGHT,
    FLIGHT_BOOKING,
    TRAVELLER,
    as_traveller,
    find_me,
    flight_day,
    focus_booking,
    focus_flight,
    intro,
    iso,
    me,
    offer,
    talking,
)
from servers.travel_booking.tools import travel

BAG_WORDS = {1: "one more checked bag", 2: "two more checked bags"}


def the_booking(s: Scene) -> dict[str, Any]:
    """The flight booking of the dialogue as it is now: confirmed, the talking traveller's, still to fly."""
    b = s.memory.get("booking")
    if not b:
        raise Skip("no flight booking in the dialogue yet")
    now = s.rows(
        FLIGHT_BOOKING + " WHERE b.booking_id = ? AND b.status = 'confirmed' AND f.status = 'scheduled' "
        "AND f.departs_at > ?",
        b["booking_id"],
        iso(s.now + timedelta(hours=3)),
    )
    if not now or now[0]["traveller_id"] != talking(s):
        raise Skip("the booking is gone, flown, or not the talking traveller's")
    return dict(now[0])


def the_flight(s: Scene) -> dict[str, Any]:
    f = s.memory.get("flight")
    if not f:
        raise Skip("no flight in the dialogue yet")
    return dict(s.rows(FLIGHT + " WHERE f.flight_id = ?", f["flight_id"])[0])


def owns_trip(s: Scene, itinerary_id: str, traveller_id: str | None) -> bool:
    """Whether the trip is the traveller's."""
    sql = "SELECT 1 FROM itineraries WHERE itinerary_id = ? AND traveller_id = ?"
    return bool(s.rows(sql, itinerary_id, traveller_id))


def the_trip(s: Scene) -> str:
    itin = s.memory.get("itinerary")
    if not itin:
        raise Skip("no trip in the dialogue yet")
    if not owns_trip(s, itin, talking(s)):
        raise Skip("the trip is not the talking traveller's")
    return str(itin)


def offer_cheapest(s: Scene, args: dict[str, Any]) -> None:
    """The agent searches hotel rooms with ``args``; the cheapest room found becomes the offer of the dialogue."""
    hotels = s.call("search_hotels", **args)["hotels"]
    if not hotels:
        raise Skip("nothing free")
    best = unique_best(hotels, lambda h: min(r["total_price"] for r in h["rooms"]), tie="two hotels tie", lowest=True)
    s.memory["stay_offer"] = offer(best, args)


def seen(s: Scene, value: str) -> bool:
    """Whether an earlier call of the dialogue returned ``value`` (the agent holds it)."""
    return any(value in repr(c.result) for c in s.calls)


# About the booking and its flight --------------------------------------------------------------


@travel.intent(covers=("get_itinerary",), follows=True, opens=False)
def trip_cost_now(s: Scene) -> None:
    """The traveller asks what the trip costs all together now, and what cancelling would refund."""
    itin = the_trip(s)
    if not seen(s, itin):
        raise Skip("the agent has not seen the trip's reference")
    if any(c.tool == "get_itinerary" for c in list(s.calls)[-1:]):
        raise Skip("the trip was just read")
    s.say(
        "What's that whole trip costing me now?",
        "And where does the trip stand in total?",
        "What would I get back if I called the whole trip off today?",
        "Give me the full picture of that trip, please.",
    )
    s.call("get_itinerary", itinerary_id=itin)


@travel.intent(covers=("get_flight",), follows=True, opens=False)
def on_time(s: Scene) -> None:
    """The traveller asks about the flight: its times, status, aircraft, how full it is."""
    f = the_flight(s)
    s.asked("get_flight", flight_id=f["flight_id"])
    if not seen(s, f["flight_id"]):
        raise Skip("the agent has not seen the flight")
    s.say(
        "Is that flight still on schedule? When does it land?",
        "What plane is it, and how full is it?",
        "Remind me when it leaves and arrives.",
        "How many seats are left on it?",
    )
    s.call("get_flight", flight_id=f["flight_id"])


@travel.intent(covers=("get_seat_map", "select_seat"), follows=True, opens=False)
def better_seat(s: Scene) -> None:
    """The traveller wants a window or aisle seat on the booked flight; the agent reads the free seats first."""
    b = the_booking(s)
    where = s.rng.choice(("window", "aisle"))
    letters = "AF" if where == "window" else "CD"
    s.say(
        "Can you get me a {w} seat on it?",
        "I'd like to sit by the {w} on that flight.",
        "Move me to a {w} seat there, if one's free.",
        w=where,
    )
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
    s.say(
        "Which seats are still open on it{c}?",
        "How empty is that plane{c}?",
        "Show me what's free{c} on that flight.",
        c=f" in {cabin}" if cabin else "",
    )
    s.call("get_seat_map", flight_id=f["flight_id"], **({"cabin": cabin} if cabin else {}))


@travel.intent(covers=("add_baggage",), follows=True, opens=False)
def bag_for_it(s: Scene) -> None:
    """The traveller adds checked bags to the booked flight."""
    b = the_booking(s)
    n = s.rng.choice((1, 1, 2))
    if b["checked_bags"] + n > 4:
        raise Skip("too many bags")
    s.say(
        "Also put {bags} on that flight.",
        "I'll be bringing {bags} on it.",
        "Add {bags} to that booking, please.",
        bags=BAG_WORDS[n],
    )
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
    s.say(
        "Use {n} of my points on that fare.",
        "Knock {n} points off that flight for me.",
        "Can I pay part of it with points? {n}, please.",
        n=f"{n:,}",
    )
    s.call("redeem_points", booking_id=b["booking_id"], points=n)


@travel.intent(covers=("cancel_flight_booking",), follows=True, opens=False)
def drop_that_flight(s: Scene) -> None:
    """The traveller cancels the booked flight after all."""
    b = the_booking(s)
    if not seen(s, b["booking_id"]):
        raise Skip("the agent has not seen the booking")
    s.say(
        "Actually, cancel that flight.",
        "On second thought, I won't take that flight. Cancel it.",
        "Hmm, drop that booking after all.",
    )
    s.call("cancel_flight_booking", booking_id=b["booking_id"])


# The traveller ---------------------------------------------------------------------------------


@travel.intent(covers=("search_travellers", "get_traveller"), follows=True, opens=False)
def points_now(s: Scene) -> None:
    """The traveller asks about their points balance and tier."""
    t = me(s)
    if s.memory.get("me"):
        s.asked("get_traveller", traveller_id=t["traveller_id"])
    s.say(
        "{me}How many points do I have now?",
        "{me}What's my loyalty balance after that?",
        "{me}Which tier am I on these days?",
        me=intro(s),
    )
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
    s.say(
        "{me}What other {st}{w} do I have?",
        "{me}Show me all my {st}{w}.",
        "{me}Which {st}{w} are on my account?",
        me=intro(s),
        st=state,
        w=words,
    )
    tid = find_me(s, t)
    args: dict[str, Any] = {"traveller_id": tid}
    if kind:
        args["kind"] = kind
    if status:
        args["status"] = status
    if any(c.tool == "list_bookings" and c.arguments == args for c in s.calls):
        raise Skip("listed already")
    s.call("list_bookings", **args)


# Staying there ---------------------------------------------------------------------------------


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
        "I'll need a room in {city} for {n} night{pl} when I land{g}{st}. What's free?",
        "Any hotels in {city} from that day, {n} night{pl}{g}{st}?",
        "Where could I stay in {city} for {n} night{pl} after that flight{g}{st}?",
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


@travel.intent(covers=("get_hotel",), follows=True, opens=False)
def tell_me_about_it(s: Scene) -> None:
    """The traveller asks what the hotel of the dialogue (offered, booked or given up) is like."""
    o = s.memory.get("stay_offer") or s.memory.get("hotel")
    if not o or not seen(s, o["hotel_id"]):
        raise Skip("no hotel in the dialogue")
    s.asked("get_hotel", hotel_id=o["hotel_id"])
    s.say(
        "What's the {name} like? Amenities?",
        "Tell me more about the {name}.",
        "Does the {name} have a gym or breakfast?",
        name=o["name"],
    )
    s.call("get_hotel", hotel_id=o["hotel_id"])


@travel.intent(covers=("search_travellers", "create_itinerary", "book_hotel"), follows=True, opens=False)
def take_that_room(s: Scene) -> None:
    """The traveller books the cheapest room the search offered, into the trip of the dialogue (or a new one)."""
    o = s.memory.get("stay_offer")
    if not o:
        raise Skip("no hotel offered")
    t = me(s)
    trip = s.memory.get("itinerary")
    if trip and not owns_trip(s, trip, t["traveller_id"]):
        trip = None
    if trip and not seen(s, trip):
        raise Skip("the agent has not seen the trip's reference")
    title = f"{o['city']} stay"
    s.say(
        "{me}Book the cheapest room there{into}.",
        "{me}I'll take the least expensive option{into}.",
        "{me}Go ahead with the cheapest room{into}.",
        me=intro(s),
        into=", same trip" if trip else f" as a new trip called '{title}'",
    )
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


# Flights ---------------------------------------------------------------------------------------


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
    s.say(
        "And coming back {when}: what flies {to} to {fr}?",
        "What about the return, {when}?",
        "I'd fly home {when}. Options?",
        when=day(back.isoformat(), s.now),
        to=f["to_city"],
        fr=f["from_city"],
    )
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
        s.say(
            "Book me on the {t} one, same trip.",
            "Put that {t} flight on the same trip.",
            "Great, reserve the {t} departure for me in that trip.",
            t=clock(f["departs_at"]),
        )
    else:
        s.say(
            "{me}Book me on the {t} one, as a new trip called '{title}'.",
            "{me}I'll take the {t} flight. Make it a new trip, '{title}'.",
            me=intro(s),
            t=clock(f["departs_at"]),
            title=title,
        )
        trip = s.call("create_itinerary", traveller_id=find_me(s, t[0]), title=title)["itinerary_id"]
    made = s.call("book_flight", itinerary_id=trip, flight_id=f["flight_id"])
    s.memory["itinerary"] = trip
    focus_booking(s, made["booking_id"])


def passport_fits(s: Scene, traveller_id: str | None, f: dict[str, Any]) -> bool:
    """Whether the traveller may fly ``f`` (an international flight needs a passport valid 6 months on)."""
    t = s.rows(TRAVELLER + " AND traveller_id = ?", traveller_id)
    if not t:
        return False
    if f["from_country"] == f["to_country"]:
        return True
    needed = (date.fromisoformat(f["departs_at"][:10]) + timedelta(days=183)).isoformat()
    return (t[0]["passport_expiry"] or "") >= needed


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
    s.say(
        "Also get me home: the earliest flight back {when}, on the same trip.",
        "Book my return too, {when}, whichever leaves first. Same trip.",
        "And the way back {when}, the first flight of the day, please. Add it to that trip.",
        when=day(back.isoformat(), s.now),
    )
    found = s.call("search_flights", origin=f["destination"], destination=f["origin"], date=back.isoformat())
    first = [x for x in found["flights"] if x["status"] == "scheduled" and x["economy_seats_left"] > 0]
    if not first or first[0]["flight_id"] != options[0]["flight_id"]:
        raise Skip("the first flight back is full")
    made = s.call("book_flight", itinerary_id=trip, flight_id=first[0]["flight_id"])
    focus_booking(s, made["booking_id"])


# More ways to start ----------------------------------------------------------------------------


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
    s.say(
        "What's booked on trip {ref}?",
        "My confirmation says {ref}. Can you go over what's in it?",
        "Trip {ref}: what did I pay, and what's in it?",
        ref=b["itinerary_id"],
    )
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
    s.say(
        "{me}When's my next flight?",
        "{me}What flight do I have coming up next?",
        "{me}Remind me of my next trip by air.",
        minimal=["{me}My next flight?"],
        me=intro(s),
    )
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
    s.say(
        "Which flights go from {fr} to {to}[ {when}]?",
        "I need to get from {fr} to {to}[ {when}]. What flies?",
        "Show me the planes {fr} to {to}[ {when}].",
        minimal=["{fr} to {to}[ {when}]?"],
        fr=f["from_city"],
        to=f["to_city"],
        when=when,
    )
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
        "Any rooms in {city} for {n} night{pl}[ from {ci}]{cap}?",
        "I need a hotel in {city}[ starting {ci}], {n} night{pl}{cap}.",
        "Where can I stay in {city} for {n} night{pl}[, checking in {ci}]{cap}?",
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
