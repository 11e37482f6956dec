"""What travellers want of the travel booking service: getting on a plane, a room, a better seat, a refund.

The user is the traveller and says who they are (their name); the agent finds their traveller id
with ``search_travellers`` and their trips with ``list_bookings``. People name places by city
("Seattle to Denver"), flights by route and day, stays by hotel and dates. A booking reference
printed on a confirmation email (an itinerary number such as ITN-0042) is an id a user really holds.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Given, Ref, Scene, Skip, clock, day
from servers.travel_booking.schema import _blocked, _layout
from servers.travel_booking.tools import travel

TRAVELLER = (
    "SELECT traveller_id, name, email, loyalty_tier, loyalty_points, passport_number, passport_expiry "
    "FROM travellers WHERE name IN (SELECT name FROM travellers GROUP BY name HAVING COUNT(*) = 1)"
)
FLIGHT_BOOKING = (
    "SELECT b.*, f.flight_number, f.origin, f.destination, f.departs_at, f.airline, f.aircraft, "
    "o.city AS from_city, d.city AS to_city FROM flight_bookings b JOIN flights f USING (flight_id) "
    "JOIN airports o ON o.code = f.origin JOIN airports d ON d.code = f.destination"
)
HOTEL_BOOKING = "SELECT b.*, h.name AS hotel, h.city FROM hotel_bookings b JOIN hotels h USING (hotel_id)"
FLIGHT = (
    "SELECT f.*, o.city AS from_city, d.city AS to_city, o.country AS from_country, d.country AS to_country "
    "FROM flights f JOIN airports o ON o.code = f.origin JOIN airports d ON d.code = f.destination"
)
TITLES = (
    "{city} conference",
    "Visit to {city}",
    "{city} with the kids",
    "{city} offsite",
    "Weekend in {city}",
    "{city} client meetings",
    "Summer in {city}",
    "{city} wedding",
)


def offer(hotel: dict[str, Any], search: dict[str, Any]) -> dict[str, Any] | None:
    """The cheapest room of a hotel a search listed, with the stay searched for (``None`` on a tie)."""
    rooms = sorted(hotel["rooms"], key=lambda r: r["total_price"])
    if not rooms or (len(rooms) > 1 and rooms[0]["total_price"] == rooms[1]["total_price"]):
        return None
    return {"hotel_id": hotel["hotel_id"], "name": hotel["name"], "room_type": rooms[0]["room_type"], **search}


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The traveller talking: the one an earlier turn established (``Skip`` when they do not fit), or a
    fresh pick among travellers whose name is unique."""
    known = talking(s)
    if known:
        found = s.rows(TRAVELLER + f" AND traveller_id = ? AND ({where})", known, *params)
        if not found:
            raise Skip("the traveller of the earlier turn does not fit")
        return found[0]
    if s.turns:
        raise Skip("a traveller's follow-up after a turn that was no traveller's")
    t = s.pick(TRAVELLER + f" AND ({where})", *params)
    s.be(t["name"])
    s.memory["speaker_id"] = t["traveller_id"]
    return t


def talking(s: Scene) -> str | None:
    """The traveller id of whoever talks: the one an earlier turn found, or the one the persona became."""
    known = s.memory.get("me")
    return str(known["traveller_id"]) if known else s.memory.get("speaker_id")


def as_traveller(s: Scene, where: str = "1=1", *params: Any) -> None:
    """Make the persona of an opening turn a traveller (one who fits ``where``, when one does), so a later turn
    can book, change or check what the dialogue found; a follow-up keeps whoever talks."""
    if s.speaker or s.turns:
        return
    fit = s.rows(TRAVELLER + f" AND ({where})", *params)
    t = s.rng.choice(fit) if fit else s.pick(TRAVELLER)
    s.be(t["name"])
    s.memory["speaker_id"] = t["traveller_id"]


def focus_booking(s: Scene, booking_id: str) -> None:
    """The flight booking the dialogue is about now (the agent holds its id), and its flight."""
    b = s.rows(FLIGHT_BOOKING + " WHERE b.booking_id = ?", booking_id)[0]
    s.memory["booking"] = b
    focus_flight(s, b["flight_id"])


def focus_flight(s: Scene, flight_id: str) -> None:
    """The flight the dialogue is about now (the agent holds its id)."""
    s.memory["flight"] = s.rows(FLIGHT + " WHERE f.flight_id = ?", flight_id)[0]


def intro(s: Scene) -> str:
    """ "I'm <name>. " on the turn that first needs the traveller's id (not once an earlier turn found it); some
    travellers add their loyalty tier, which the agent can filter the search by."""
    if s.memory.get("me"):
        return ""
    tier = s.value("SELECT loyalty_tier FROM travellers WHERE name = ?", s.persona.name)
    if tier and tier != "basic" and s.rng.random() < 0.35:
        s.memory["by_tier"] = tier
        return f"I'm {s.persona.name}, {tier} member. "
    return f"I'm {s.persona.name}. "


def find_me(s: Scene, t: dict[str, Any]) -> str:
    """The discovery call for the traveller's id (skipped once an earlier turn found it)."""
    if s.memory.get("me", {}).get("traveller_id") == t["traveller_id"]:
        return str(t["traveller_id"])
    tier = s.memory.pop("by_tier", None)
    hits = [
        r
        for r in s.call("search_travellers", query=t["name"], **({"loyalty_tier": tier} if tier else {}))["travellers"]
        if r["traveller_id"] == t["traveller_id"]
    ]
    if not hits:
        raise Skip("the traveller is not on the first page of the search")
    s.memory["me"] = {"traveller_id": t["traveller_id"], "name": t["name"]}
    return str(hits[0]["traveller_id"])


def flight_day(s: Scene, f: dict[str, Any]) -> Given:
    """The day of a flight as someone searching for it gives it ("March 14"): the date ``search_flights`` takes."""
    return s.given(
        f["departs_at"][:10], day(f["departs_at"], s.now).removeprefix("on "), "date", "search_flights", "date"
    )


def my_flight(s: Scene, b: dict[str, Any]) -> str:
    """A flight booking as its traveller names it: the route and the day, proven unique among theirs."""
    when = day(b["departs_at"], s.now)
    return s.refer(
        b["booking_id"],
        Ref(
            "my flight to {to} {when}",
            "SELECT b.booking_id FROM flight_bookings b JOIN flights f "
            "USING (flight_id) WHERE b.traveller_id = ? AND b.status = 'confirmed' AND f.destination = ? "
            "AND substr(f.departs_at, 1, 10) = ?",
            b["traveller_id"],
            b["destination"],
            b["departs_at"][:10],
        ),
        Ref(
            "my {fr}-{to} flight {when}",
            "SELECT b.booking_id FROM flight_bookings b JOIN flights f "
            "USING (flight_id) WHERE b.traveller_id = ? AND f.origin = ? AND f.destination = ? "
            "AND substr(f.departs_at, 1, 10) = ?",
            b["traveller_id"],
            b["origin"],
            b["destination"],
            b["departs_at"][:10],
        ),
        to=b["to_city"],
        fr=b["from_city"],
        when=when,
    )


def booked_flight(s: Scene, tid: str, b: dict[str, Any]) -> dict[str, Any]:
    """The discovery read of a traveller's confirmed flights, returning the listed booking."""
    narrow = s.rng.choice(({"kind": "flight", "status": "confirmed"}, {"kind": "flight"}, {"status": "confirmed"}))
    listed = s.call("list_bookings", traveller_id=tid, **narrow)["flight_bookings"]
    hit = [r for r in listed if r["booking_id"] == b["booking_id"]]
    if not hit:
        raise Skip("the booking is past the first page")
    return hit[0]


def my_booking(s: Scene, b: dict[str, Any]) -> dict[str, Any]:
    """The talking traveller's booking as the agent finds it: their id by a search, then the booking among theirs."""
    tid = find_me(s, {"traveller_id": b["traveller_id"], "name": s.persona.name})
    return booked_flight(s, tid, b)


def upcoming(s: Scene, extra: str = "1=1", *params: Any) -> dict[str, Any]:
    """A confirmed flight booking of the traveller talking (or of a fresh one), on a flight still to fly."""
    known = talking(s)
    who = "b.traveller_id = ?" if known else "1=1"
    args = (known,) if known else ()
    b = s.pick(
        FLIGHT_BOOKING + f" WHERE b.status = 'confirmed' AND f.status = 'scheduled' AND f.departs_at > ? "
        f"AND {who} AND ({extra}) AND b.traveller_id IN (SELECT traveller_id FROM travellers WHERE name IN "
        "(SELECT name FROM travellers GROUP BY name HAVING COUNT(*) = 1))",
        iso(s.now + timedelta(hours=3)),
        *args,
        *params,
    )
    me(s, "traveller_id = ?", b["traveller_id"])
    return b


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
    title = s.rng.choice(TITLES).format(city=f["to_city"])
    name = s.given(title, f"'{title}'", "trip name", "create_itinerary", "title")
    when = day(f["departs_at"], s.now)
    up = " in business" if cabin == "business" else ""
    s.say(
        "I'm {who}[ and I'm planning a trip I'll call {name}]. What flies from {fr} to {to} {when}{up}?",
        "{who} here. I have to get from {fr} to {to} {when}{up}[ (it's for the trip I call {name})]. What's there?",
        "Hi, it's {who}[, sorting out my {name} trip]. Is there a plane {fr} to {to} {when}{up}?",
        minimal=["I'm {who}[, planning {name}], and I have to be in {to} {when}, leaving from {fr}."],
        who=t["name"],
        fr=f["from_city"],
        to=f["to_city"],
        when=when,
        up=up,
        name=name,
    )
    args: dict[str, Any] = {"origin": f["origin"], "destination": f["destination"], "date": f["departs_at"][:10]}
    if cabin == "business" and not s.minimal:
        args["cabin"] = "business"
    found = s.call("search_flights", **args)["flights"]
    hit = [x for x in found if x["flight_id"] == f["flight_id"]]
    if len(found) != 1 or not hit or hit[0][f"{cabin}_seats_left"] <= 0:
        raise Skip("not the one flight of the day, or the cabin is full")
    s.say(
        "That works. Put me on it{up}, as a new trip.",
        "Great, reserve me a seat on that one{up} in a new trip.",
        "Perfect, grab me a place on it{up}. Keep it as its own trip.",
        up=up,
    )
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
    s.say(
        "{me}Which {where} seats are still free on {trip}?",
        "{me}On {trip}, is there a {where} seat open?",
        "{me}I'd love to sit by the {where} on {trip}. What's available?",
        minimal=["{me}{Trip}: any {where} seats?"],
        trip=trip,
        Trip=trip[:1].upper() + trip[1:],
        where=where,
        me=intro(s),
    )
    listed = my_booking(s, b)
    only = {"cabin": b["cabin"]} if s.rng.random() < 0.6 else {}
    seats = s.call("get_seat_map", flight_id=listed["flight_id"], **only)[b["cabin"]]["free_seats"]
    fit = [x for x in seats if x[-1] in letters and x != b["seat"]]
    if not fit:
        raise Skip(f"no free {where} seat")
    seat = s.rng.choice(fit[:6])
    s.say("I'll take {seat}.", "Move me to {seat}, please.", "{seat} sounds good, switch me over.", seat=seat)
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
    s.say(
        "{me}Please change my seat on {trip}[ to {seat}]; the app shows it's open.",
        "{me}Can I sit somewhere else on {trip}?[ I'd like {seat}.]",
        "{me}I'd rather have a different seat on {trip}.[ {seat} is free.]",
        minimal=["{me}New seat on {trip}[: {seat}]."],
        seat=pick,
        trip=trip,
        me=intro(s),
    )
    listed = my_booking(s, b)
    s.call("select_seat", booking_id=listed["booking_id"], seat=seat)
    if not s.room(1, 1):
        return
    s.say(
        "Are the seats around it still open? My colleague might join.",
        "How empty is that part of the plane?",
        "What else is free nearby, in case a friend comes along?",
    )
    s.call("get_seat_map", flight_id=listed["flight_id"], **({"cabin": b["cabin"]} if s.rng.random() < 0.5 else {}))
    focus_booking(s, listed["booking_id"])


@travel.intent(covers=("search_travellers", "list_bookings", "add_baggage", "get_itinerary"), weight=1.5, follows=True)
def extra_suitcase(s: Scene) -> None:
    """A traveller brings more luggage on an upcoming flight, then asks what the trip costs now."""
    b = upcoming(s, "b.checked_bags <= 2")
    n = s.rng.choice((1, 1, 2)) if b["checked_bags"] < 2 else 1
    trip = my_flight(s, b)
    bags = "one more suitcase" if n == 1 else "two more suitcases"
    s.say(
        "{me}I'll have {bags} to check on {trip}. Please sort that out.",
        "{me}Can you put {bags} on {trip}? I'm checking them in.",
        "{me}I'm travelling heavier than planned: {bags} in the hold on {trip}.",
        minimal=["{me}I need more luggage allowance on {trip}."],
        bags=bags,
        trip=trip,
        me=intro(s),
    )
    listed = my_booking(s, b)
    args: dict[str, Any] = {"booking_id": listed["booking_id"]}
    if n != 1 or s.minimal:
        args["bags"] = n if not s.minimal else 1
    s.call("add_baggage", **args)
    focus_booking(s, listed["booking_id"])
    s.memory["itinerary"] = listed["itinerary_id"]
    if s.room(1, 1) and s.rng.random() < 0.5:
        s.say(
            "What's that whole trip costing me now?",
            "And what have I paid for that trip in total?",
            "How much is the trip all together after the bag fee?",
        )
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
    s.say(
        "My confirmation email says trip {ref}. If I drop {what}, how much do I get back?",
        "Reference {ref}: what would I be refunded for {what} if I call it off now?",
        "I have trip {ref}. Plans changed. What's the refund on {what}?",
        minimal=["Trip {ref}: what's the refund if I don't take {what}?"],
        ref=b["itinerary_id"],
        what=what,
    )
    trip = s.call("get_itinerary", itinerary_id=b["itinerary_id"])
    hit = [x for x in trip["flight_bookings"] if x["booking_id"] == b["booking_id"]]
    if not hit or hit[0].get("refund_if_cancelled_now") is None:
        raise Skip("the flight cannot be called off")
    s.memory["itinerary"] = b["itinerary_id"]
    if s.rng.random() < 0.3:
        focus_booking(s, b["booking_id"])
        return
    s.say("OK, go ahead and cancel it.", "Fine, call it off then.", "Right, drop that flight.")
    s.call("cancel_flight_booking", booking_id=hit[0]["booking_id"])


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
    s.say(
        "{me}I won't need {what} after all. Please call it off.",
        "{me}Plans changed, so I'm giving up {what}.",
        "{me}Can you release {what}? I'm staying with friends instead.",
        minimal=["{me}I'm not using {what} any more."],
        what=what,
        me=intro(s),
    )
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
    s.say(
        "What does the rest of that trip still cost me?",
        "So where does the whole trip stand now?",
        "How much did I get back, and what's left of that trip?",
    )
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
        "{me}I'm flying in on {trip}. What rooms{nice} are there for {nights} night{pl}, {people}?",
        "{me}Need a place to stay after {trip}: {nights} night{pl}, {people}{nice}. What's free?",
        "{me}Where could I sleep{nice} for {nights} night{pl} when I land from {trip}? {People}.",
        minimal=["{me}I need somewhere to sleep for {nights} night{pl} after {trip}."],
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
    s.say(
        "The cheapest one is fine, put it on that trip.",
        "Go with the lowest price and tie it to that trip.",
        "Take the least expensive option, same trip as the flight.",
    )
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


@travel.intent(covers=("search_travellers", "update_passport", "get_traveller"))
def renewed_passport(s: Scene) -> None:
    """A traveller records a renewed passport, then asks about their loyalty standing."""
    t = me(s)
    years = s.rng.choice((5, 10))
    expiry = (s.now + timedelta(days=365 * years - s.rng.randint(10, 200))).date()
    number = f"{s.rng.choice('XKPRM')}{s.rng.randint(10_000_000, 99_999_999)}"
    if number == t["passport_number"]:
        raise Skip("same number")
    num = s.given(number, number, "passport number", "update_passport", "passport_number")
    exp = s.given(
        expiry.isoformat(),
        f"{expiry.strftime('%B')} {expiry.day}, {expiry.year}",
        "expiry date",
        "update_passport",
        "expiry_date",
    )
    s.say(
        "I'm {who} and I just got a new passport[, number {num}][, valid until {exp}]. Please put it on my profile.",
        "{who} here. My passport was renewed[: {num}][, expiring {exp}]. Can you record it?",
        "New passport for {who}[ (number {num}][, expires {exp})], so you have the right one on file.",
        who=t["name"],
        num=num,
        exp=exp,
    )
    tid = find_me(s, t)
    s.call("update_passport", traveller_id=tid, passport_number=number, expiry_date=expiry.isoformat())
    s.say(
        "While you're at it, how many points do I have?",
        "And what's my loyalty balance these days?",
        "Also, which tier am I on now?",
    )
    s.call("get_traveller", traveller_id=tid)


@travel.intent(
    covers=("search_travellers", "get_traveller", "list_bookings", "redeem_points", "get_itinerary"), follows=True
)
def pay_with_points(s: Scene) -> None:
    """A traveller puts loyalty points toward the fare of an upcoming flight."""
    b = upcoming(
        s,
        "b.fare_paid >= 10 AND f.status = 'scheduled' AND (SELECT loyalty_points FROM travellers t "
        "WHERE t.traveller_id = b.traveller_id) >= 1000",
    )
    t = me(s, "traveller_id = ?", b["traveller_id"])
    trip = my_flight(s, b)
    most = min(t["loyalty_points"] // 100 * 100, int(b["fare_paid"]) * 100)
    if most < 1000:
        raise Skip("too few points or too small a fare")
    fixed = s.rng.random() < 0.5
    points = s.rng.choice([p for p in (1000, 2000, 5000, 10000) if p <= most] or [most]) if fixed else most
    if fixed:
        pts = s.given(points, f"{points:,}", "number of points", "redeem_points", "points")
        s.say(
            "{me}Use[ {pts} of] my points toward {trip}.",
            "{me}I'd like to knock[ {pts}] points off the fare of {trip}.",
            "{me}Put[ {pts}] loyalty points against {trip}, please.",
            pts=pts,
            trip=trip,
            me=intro(s),
        )
    else:
        s.say(
            "{me}Use as many of my points as you can on {trip}.",
            "{me}Can my points cover {trip}? Use as many as allowed.",
            "Take the fare of {trip} down as far as my points go.",
            minimal=["{me}Put my points toward {trip}."],
            trip=trip,
            me=intro(s),
        )
    tid = find_me(s, t)
    if not fixed:
        bal = s.call("get_traveller", traveller_id=tid)["loyalty_points"]
        if bal // 100 * 100 != t["loyalty_points"] // 100 * 100:
            raise Skip("balance moved")
    listed = booked_flight(s, tid, b)
    s.call("redeem_points", booking_id=listed["booking_id"], points=points)
    focus_booking(s, listed["booking_id"])
    s.memory["itinerary"] = listed["itinerary_id"]
    if not s.room(1, 1) or s.rng.random() < 0.3:
        return
    s.say(
        "So what's that trip costing me now?",
        "What do I still pay for that trip after the points?",
        "Show me the trip total with the discount.",
    )
    s.call("get_itinerary", itinerary_id=listed["itinerary_id"])


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
    s.say(
        "What can I fly from {fr} to {to}[ {when}]{under}?",
        "Any planes between {fr} and {to}[ {when}]{under}?",
        "I'm looking at going {fr} to {to}[ {when}]. What's on offer{under}?",
        minimal=["Options from {fr} to {to}[ {when}]?"],
        fr=f["from_city"],
        to=f["to_city"],
        when=when,
        under=under,
    )
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
    s.say(
        "How full is the {t} one?",
        "Is the {t} departure filling up?",
        "How many seats are left on the {t} flight?",
        t=clock(f["departs_at"]),
    )
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
    s.say(
        "Which cities can I stay in through you?",
        "In what cities do you have places to stay?",
        "Where do you have hotels? Just the cities.",
    )
    found = s.call("get_distinct_values", field="hotel_city")["values"]
    if h["city"] not in found:
        raise Skip("not offered")
    ci = s.given(start.isoformat(), f"{start.strftime('%B')} {start.day}", "check-in date", "search_hotels", "check_in")
    party = " (two guests)" if s.rng.random() < 0.4 else ""
    s.say(
        "I'm loyal to {chain}. Is there one in {city} with rooms {ci} to {co}? Tell me about it.",
        "Do you have a {chain} in {city} free from {ci} to {co}? What's it like?",
        "Check if the {chain} in {city} has space {ci} through {co}, and what it offers.",
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


@travel.intent(covers=("search_travellers", "get_traveller", "list_bookings"))
def my_standing(s: Scene) -> None:
    """A traveller checks their points and tier, then what trips they have coming up."""
    t = me(s, "traveller_id IN (SELECT traveller_id FROM flight_bookings WHERE status = 'confirmed')")
    s.say(
        "I'm {who}. How many loyalty points have I built up, and what tier am I?",
        "{who} here, what's my points balance looking like?",
        "Can you tell me my loyalty status? I'm {who}.",
        minimal=["I'm {who}: how am I doing on points?"],
        who=t["name"],
    )
    tid = find_me(s, t)
    s.call("get_traveller", traveller_id=tid)
    kind = s.rng.choice(("flight", "hotel", None))
    words = {"flight": "flights", "hotel": "hotel stays", None: "trips"}[kind]
    s.say(
        "And which {w} do I have on the books?",
        "What {w} have I got confirmed right now?",
        "Remind me of my confirmed {w}.",
        w=words,
    )
    args: dict[str, Any] = {"traveller_id": tid, "status": "confirmed"}
    if kind:
        args["kind"] = kind
    s.call("list_bookings", **args)
