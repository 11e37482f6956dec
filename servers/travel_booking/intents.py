"""What travellers want of the travel booking service: getting on a plane, a room, a better seat, a refund.

The user is the traveller and says who they are (their name); the agent finds their traveller id
with ``search_travellers`` and their trips with ``list_bookings``. People name places by city
("Seattle to Denver"), flights by route and day, stays by hotel and dates. A booking reference
printed on a confirmation email (an itinerary number such as ITN-0042) is an id a user really holds.

This module holds what the intents share (``SPEAKER``, how a booking, flight or trip is named and found) and the
traveller's own account; the intents live in ``intents_flights``, ``intents_stays`` and ``intents_followups``.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Given, Ref, Scene, Skip, day, unique_best
from hub.kit.phrasings import phrasings
from hub.kit.speaker import BECAME, Says, Search, Speaker
from servers.travel_booking.tools import TravellerId, travel

WORDS = phrasings(__package__)

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

BAG_WORDS = {1: "one more checked bag", 2: "two more checked bags"}


def offer(hotel: dict[str, Any], search: dict[str, Any]) -> dict[str, Any] | None:
    """The cheapest room of a hotel a search listed, with the stay searched for (``None`` on a tie)."""
    rooms = sorted(hotel["rooms"], key=lambda r: r["total_price"])
    if not rooms or (len(rooms) > 1 and rooms[0]["total_price"] == rooms[1]["total_price"]):
        return None
    return {"hotel_id": hotel["hotel_id"], "name": hotel["name"], "room_type": rooms[0]["room_type"], **search}


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S")


SPEAKER = Speaker(
    TravellerId,
    select=TRAVELLER,
    memory="me",
    says=(Says("I'm {name}. ", "name"),),
    search=Search(missing="the traveller is not on the first page of the search"),
)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The traveller talking (``SPEAKER.me``), also the one an opener without a traveller made the persona
    (``as_traveller``) before any turn found them."""
    t = SPEAKER.me(s, where, *params)
    s.memory[BECAME] = t["traveller_id"]
    return t


def talking(s: Scene) -> str | None:
    """The traveller id of whoever talks: the one an earlier turn found, or the one the persona became."""
    known = s.memory.get("me")
    return str(known["traveller_id"]) if known else s.memory.get(BECAME)


def as_traveller(s: Scene, where: str = "1=1", *params: Any) -> None:
    """Make the persona of an opening turn a traveller (one who fits ``where``, when one does), so a later turn
    can book, change or check what the dialogue found; a follow-up keeps whoever talks."""
    if s.speaker or s.turns:
        return
    fit = s.rows(TRAVELLER + f" AND ({where})", *params)
    SPEAKER.become(s, s.rng.choice(fit) if fit else s.pick(TRAVELLER))


def focus_booking(s: Scene, booking_id: str) -> None:
    """The flight booking the dialogue is about now (the agent holds its id), and its flight."""
    b = s.rows(FLIGHT_BOOKING + " WHERE b.booking_id = ?", booking_id)[0]
    s.memory["booking"] = b
    focus_flight(s, b["flight_id"])


def focus_flight(s: Scene, flight_id: str) -> None:
    """The flight the dialogue is about now (the agent holds its id)."""
    s.memory["flight"] = s.rows(FLIGHT + " WHERE f.flight_id = ?", flight_id)[0]


def intro(s: Scene) -> str:
    """How the traveller talking says who they are (``SPEAKER.who``; nothing once an earlier turn found them);
    some add their loyalty tier, which the agent can then filter the search by."""
    t = s.rows(TRAVELLER + " AND traveller_id = ?", talking(s))[0]
    if not SPEAKER.known(s, t) and t["loyalty_tier"] != "basic" and s.rng.random() < 0.35:
        s.memory["by_tier"] = t["loyalty_tier"]
        return f"I'm {t['name']}, {t['loyalty_tier']} member. "
    return SPEAKER.who(s, t)


def find_me(s: Scene, t: dict[str, Any]) -> str:
    """The discovery call for the traveller's id (none once an earlier turn found it), by name and, when they
    said it, their tier."""
    tier = s.memory.pop("by_tier", None)
    return SPEAKER.find(s, t, **({"loyalty_tier": tier} if tier else {}))


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


def the_booking(s: Scene) -> dict[str, Any]:
    """The flight booking of the dialogue as it is now: confirmed, the talking traveller's, still to fly."""
    b = s.known("booking", "no flight booking in the dialogue yet")
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
    f = s.known("flight", "no flight in the dialogue yet")
    return dict(s.rows(FLIGHT + " WHERE f.flight_id = ?", f["flight_id"])[0])


def owns_trip(s: Scene, itinerary_id: str, traveller_id: str | None) -> bool:
    """Whether the trip is the traveller's."""
    sql = "SELECT 1 FROM itineraries WHERE itinerary_id = ? AND traveller_id = ?"
    return bool(s.rows(sql, itinerary_id, traveller_id))


def the_trip(s: Scene) -> str:
    itin = s.known("itinerary", "no trip in the dialogue yet")
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


def passport_fits(s: Scene, traveller_id: str | None, f: dict[str, Any]) -> bool:
    """Whether the traveller may fly ``f`` (an international flight needs a passport valid 6 months on)."""
    t = s.rows(TRAVELLER + " AND traveller_id = ?", traveller_id)
    if not t:
        return False
    if f["from_country"] == f["to_country"]:
        return True
    needed = (date.fromisoformat(f["departs_at"][:10]) + timedelta(days=183)).isoformat()
    return (t[0]["passport_expiry"] or "") >= needed


# The traveller's account --------------------------------------------------------------------


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
    s.say(WORDS.renewed_passport, who=t["name"], num=num, exp=exp)
    tid = find_me(s, t)
    s.call("update_passport", traveller_id=tid, passport_number=number, expiry_date=expiry.isoformat())
    s.say(WORDS.renewed_passport_then_points)
    s.call("get_traveller", traveller_id=tid)


@travel.intent(covers=("search_travellers", "get_traveller", "list_bookings"))
def my_standing(s: Scene) -> None:
    """A traveller checks their points and tier, then what trips they have coming up."""
    t = me(s, "traveller_id IN (SELECT traveller_id FROM flight_bookings WHERE status = 'confirmed')")
    s.say(WORDS.my_standing, who=t["name"])
    tid = find_me(s, t)
    s.call("get_traveller", traveller_id=tid)
    kind = s.rng.choice(("flight", "hotel", None))
    words = {"flight": "flights", "hotel": "hotel stays", None: "trips"}[kind]
    s.say(WORDS.my_standing_then_bookings, w=words)
    args: dict[str, Any] = {"traveller_id": tid, "status": "confirmed"}
    if kind:
        args["kind"] = kind
    s.call("list_bookings", **args)


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
        s.say(WORDS.pay_with_points_fixed, pts=pts, trip=trip, me=intro(s))
    else:
        s.say(WORDS.pay_with_points_max, trip=trip, me=intro(s))
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
    s.say(WORDS.pay_with_points)
    s.call("get_itinerary", itinerary_id=listed["itinerary_id"])
