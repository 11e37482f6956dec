"""What people want of the calendar: an employee planning their week, booking, moving and answering meetings.

The user is an employee who says who they are (their name); the agent finds their user id and primary
calendar with ``search_users``, their events with ``list_events`` (organiser, title words, the day) or
``list_upcoming_events`` ("my next Design review"), and the occurrences of a series with ``list_occurrences``.
People name events by title and day ("my Design review on Thursday"), series by what they are ("my weekly
1:1 with Dana"), colleagues by name.

A dialogue keeps one employee (``memory["me"]``, their search row) and what it is about: the meeting
(``memory["event"]``: id, title, start, whether the employee organises it or is invited, whether it repeats),
a colleague (``memory["other"]``) and a day (``memory["day"]``). Most intents open a dialogue or continue
one ("also move it to 3 pm"); the short follow-ups in ``intents_followups`` ask about or adjust what the
dialogue is about.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, clock, day
from servers.calendar.tools import calendar

UNIQUE_NAME = "name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
PEOPLE = "SELECT user_id, name, email, department, title, office FROM users"
LIVE = "status != 'cancelled'"
ONE_OFF = "event_id NOT IN (SELECT event_id FROM recurrences)"
NOT_PERSONAL = "e.calendar_id NOT IN (SELECT calendar_id FROM calendars WHERE kind = 'personal')"
NEW_TITLES = (
    "Hiring plan sync",
    "Q3 planning",
    "Pricing review",
    "Vendor shortlist",
    "Offsite logistics",
    "Launch retro",
    "Budget walkthrough",
    "Onboarding plan",
    "Customer feedback review",
    "Roadmap check-in",
    "Dashboard walkthrough",
    "Contract renewal prep",
)
CANCEL_WHY = {
    "The customer cancelled": "the customer pulled out",
    "Organizer out sick": "I'm out sick",
    "No longer needed": "we don't need it anymore",
    "Conflicts with offsite": "it clashes with the offsite",
}
FREQ_WORDS = {"weekly": "every week", "daily": "every weekday", "monthly": "once a month"}
OPEN_HI = ("I'm {name}:", "{name} here,", "This is {name}:", "{name} here:")
FOLLOW_HI = ("Also,", "While you're at it,", "One more thing:", "Next,", "And")


PRISTINE: dict[tuple[Any, ...], list[dict[str, Any]]] = {}


def pristine_rows(s: Scene, sql: str, *params: Any) -> list[dict[str, Any]]:
    """``s.rows``, remembered per world while the dialogue has made no call: the fork is then the world's seed
    state, so an opener's first picks need not query it again on every draw."""
    if any(True for _ in s.calls):
        return s.rows(sql, *params)
    key = (s.server.name, s.world, sql, params)
    if key not in PRISTINE:
        if len(PRISTINE) > 4000:
            PRISTINE.clear()
        PRISTINE[key] = s.rows(sql, *params)
    return PRISTINE[key]


def pick(s: Scene, sql: str, *params: Any) -> dict[str, Any]:
    """``s.pick`` on ``pristine_rows``."""
    found = pristine_rows(s, sql, *params)
    if not found:
        raise Skip(f"no row fits: {sql[:80]}")
    return dict(s.rng.choice(found))


def hi(s: Scene, u: dict[str, Any]) -> str:
    """How a request starts: the employee says who they are when opening, links it to the last one when not."""
    if not s.turns:
        return s.rng.choice(OPEN_HI).format(name=u["name"])
    return s.rng.choice(FOLLOW_HI)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The employee talking: the one an earlier turn established (``Skip`` unless they fit ``where``), or a
    fresh pick among people with a unique name."""
    known = s.memory.get("me")
    if known:
        if not s.rows(PEOPLE + f" WHERE user_id = ? AND ({where})", known["user_id"], *params):
            raise Skip("the employee of the earlier turn does not fit")
        return dict(known)
    if s.speaker is not None:  # an earlier turn named who talks without looking them up
        where, params = f"({where}) AND name = ?", (*params, s.speaker)
    u = pick(s, PEOPLE + f" WHERE {UNIQUE_NAME} AND ({where})", *params)
    s.be(u["name"])
    return u


def find_me(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    """The discovery call for the user's own id and primary calendar (once per dialogue)."""
    known = s.memory.get("me")
    if known and known["user_id"] == u["user_id"] and "primary_calendar_id" in known:
        return dict(known)
    found = find_user(s, u)
    s.memory["me"] = found
    return found


def ask(s: Scene, u: dict[str, Any], *phrasings: str, minimal: Sequence[str] = (), **slots: Any) -> dict[str, Any]:
    """A request of the employee (``{hi}``: who they are when opening), then the agent finding them (``find_me``)."""
    s.say(*phrasings, minimal=minimal, hi=hi(s, u), **slots)
    return find_me(s, u)


def find_user(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    hit = s.find(
        "search_users",
        "users",
        "user_id",
        u["user_id"],
        missing="the person is not on the first page of the search",
        query=u["name"],
    )
    return dict(hit)


def find_other(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    """A colleague's search row, remembered as the colleague the dialogue is about."""
    found = find_user(s, u)
    s.memory["other"] = found
    return found


def colleague(s: Scene, where: str, *params: Any) -> tuple[dict[str, Any], str]:
    """Someone else, named so that exactly one person fits; in a follow-up, the colleague the dialogue is
    already about when they fit (then named by first name)."""
    known = s.memory.get("other")
    if known and s.rows(PEOPLE + f" WHERE user_id = ? AND ({where})", known["user_id"], *params):
        if s.rng.random() < 0.7:
            return dict(known), first_name(known["name"])
    u = pick(s, PEOPLE + f" WHERE ({where})", *params)
    text = s.refer(
        u["user_id"],
        Ref("{name}", "SELECT user_id FROM users WHERE name = ?", u["name"]),
        Ref(
            "{name} from {dept}",
            "SELECT user_id FROM users WHERE name = ? AND department = ?",
            u["name"],
            u["department"],
        ),
        Ref("{name} ({email})", "SELECT user_id FROM users WHERE email = ?", u["email"]),
        name=u["name"],
        dept=u["department"],
        email=u["email"],
    )
    return u, text


def first_name(name: str) -> str:
    return name.split(" ", 1)[0]


def remember(s: Scene, ev: dict[str, Any], role: str, recurring: bool = False) -> None:
    """The meeting the dialogue is now about, as the agent knows it."""
    s.memory["event"] = {
        "event_id": ev["event_id"],
        "title": ev["title"],
        "start": ev["start"],
        "end": ev["end"],
        "role": role,
        "recurring": recurring,
    }
    s.memory["day"] = ev["start"][:10]


def my_event(s: Scene, ev: dict[str, Any], owner: str) -> tuple[str, str]:
    """An event as its organiser recalls it, and how the agent should look it up: "my next Design review"
    (their upcoming meetings) or "my Design review on Thursday" (a listing by title and day)."""
    d = ev["start"][:10]
    slots = {"title": ev["title"], "day": day(d, s.now), "time": clock(ev["start"])}
    soon = ev["start"] < _iso(s.now + timedelta(days=14))
    series = s.rows(
        "SELECT 1 FROM events e JOIN recurrences USING (event_id) WHERE e.title = ? AND e.organizer_id = ?",
        ev["title"],
        owner,
    )
    if soon and not series and s.rng.random() < 0.4:
        try:
            text = s.refer(
                ev["event_id"],
                Ref(
                    "my next {title}",
                    f"SELECT event_id FROM events WHERE organizer_id = ? AND title = ? AND {LIVE} AND start > ? "
                    "ORDER BY start LIMIT 1",
                    owner,
                    ev["title"],
                    _iso(s.now),
                ),
                **slots,
            )
            return text, "next"
        except Skip:
            pass
    text = s.refer(
        ev["event_id"],
        Ref(
            "my {title} {day}",
            "SELECT event_id FROM events WHERE organizer_id = ? AND title = ? AND substr(start, 1, 10) = ?",
            owner,
            ev["title"],
            d,
        ),
        Ref(
            "my {title} {day} at {time}",
            "SELECT event_id FROM events WHERE organizer_id = ? AND title = ? AND start = ?",
            owner,
            ev["title"],
            ev["start"],
        ),
        **slots,
    )
    return text, "day"


def locate_mine(s: Scene, owner: str, ev: dict[str, Any], how: str = "day") -> dict[str, Any]:
    """Find one of the user's own events the way they described it: their next one of that title among what
    is coming up, or by title words and day."""
    if how == "next":
        days = min(60, max(1, (date.fromisoformat(ev["start"][:10]) - s.now.date()).days + 1))
        out = s.call("list_upcoming_events", user_id=owner, days=days)["occurrences"]
        same = [o for o in out if o["title"] == ev["title"] and o["role"] == "organizer"]
        if not same or same[0]["event_id"] != ev["event_id"]:
            raise Skip("their next one of that title is another")
        return dict(same[0])
    d = date.fromisoformat(ev["start"][:10])
    return s.find(
        "list_events",
        "events",
        "event_id",
        ev["event_id"],
        missing="the event is not in the listing",
        organizer_id=owner,
        query=ev["title"],
        starts_after=d.isoformat(),
        starts_before=(d + timedelta(days=1)).isoformat(),
    )


UPCOMING = f"SELECT * FROM events WHERE {LIVE} AND {ONE_OFF} AND start > ? AND start < ? AND ({{extra}})"


def organiser(s: Scene, extra: str = "1=1") -> dict[str, Any]:
    """The employee talking, as the organiser of some upcoming one-off meeting that fits ``extra``."""
    return me(s, "user_id IN (SELECT organizer_id FROM (" + UPCOMING.format(extra=extra) + "))", *_window(s))


def upcoming_mine(s: Scene, u: dict[str, Any], extra: str = "1=1") -> dict[str, Any]:
    """A one-off, not cancelled, future event the user organises (in the next four weeks)."""
    return pick(s, UPCOMING.format(extra=extra) + " AND organizer_id = ?", *_window(s), u["user_id"])


def the_meeting(s: Scene, extra: str = "1=1") -> dict[str, Any] | None:
    """The meeting the dialogue is about, when the employee organises it, it is a one-off still ahead and it fits
    ``extra`` (a follow-up then says "it")."""
    ev = s.memory.get("event")
    if not ev or ev["role"] != "organizer" or "me" not in s.memory:
        return None
    found = s.rows(UPCOMING.format(extra=extra) + " AND event_id = ?", *_window(s), ev["event_id"])
    return found[0] if found else None


def _window(s: Scene) -> tuple[str, str]:
    return _iso(s.now), _iso(s.now + timedelta(days=28))


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def workday(s: Scene, lo: int, hi: int) -> date:
    for _ in range(20):
        d = (s.now + timedelta(days=s.rng.randint(lo, hi))).date()
        if d.weekday() < 5:
            return d
    raise Skip("no workday drawn")


def next_day(d: str) -> str:
    return (date.fromisoformat(d[:10]) + timedelta(days=1)).isoformat()


# Looking at the calendar ---------------------------------------------------------------------------


@calendar.intent(covers=("search_users", "list_upcoming_events", "get_event"), weight=1.2)
def week_ahead(s: Scene) -> None:
    """An employee asks what is coming up, then maybe who is coming to one of those meetings."""
    u = me(
        s,
        "user_id IN (SELECT user_id FROM invitees i JOIN events e USING (event_id) WHERE e.start > ? "
        "AND e.start < ? AND e.status != 'cancelled')",
        _iso(s.now),
        _iso(s.now + timedelta(days=5)),
    )
    days = s.rng.choice((3, 5, 7, 7, 10))
    span = {3: "the next three days", 5: "the next five days", 7: "this coming week", 10: "the next ten days"}[days]
    s.say(
        "I'm {me}. What's on my plate for {span}?",
        "{me} here, can you run me through {span}?",
        "This is {me}. What meetings do I have over {span}?",
        minimal=["{me}: what's coming up for me?"],
        me=u["name"],
        span=span,
    )
    mine = find_me(s, u)
    args: dict[str, Any] = {"user_id": mine["user_id"]}
    if not s.minimal and days != 7:
        args["days"] = days
    out = s.call("list_upcoming_events", **args)["occurrences"]
    invited = [o for o in out if o["role"] == "invitee"]
    if not invited:
        raise Skip("nothing the user is invited to")
    o = s.rng.choice(invited)
    same = [x for x in out if x["title"] == o["title"] and x["start"][:10] == o["start"][:10]]
    if len(same) != 1:
        raise Skip("two meetings share that title on that day")
    if s.rng.random() < 0.5:
        return
    remember(s, o, "invitee", bool(s.rows("SELECT 1 FROM recurrences WHERE event_id = ?", o["event_id"])))
    s.say(
        "Who's going to the {t} {d}?",
        "Who else is in the {t} {d}?",
        "Pull up the {t} {d}, who's been asked?",
        t=o["title"],
        d=day(o["start"], s.now),
    )
    s.call("get_event", event_id=o["event_id"])


@calendar.intent(covers=("search_users", "get_free_busy"))
def my_day(s: Scene) -> None:
    """An employee asks how full one of their days is."""
    u = me(s)
    d = workday(s, 0, 9)
    when = s.given(d.isoformat(), day(d, s.now), "day", "get_free_busy", "date")
    mine = ask(
        s,
        u,
        "{hi} how packed is my day[ {when}]?",
        "{hi} what does my schedule look like[ {when}]?",
        "{hi} when am I tied up[ {when}]?",
        minimal=["{hi} am I busy[ {when}]?"],
        when=when,
    )
    s.call("get_free_busy", user_id=mine["user_id"], date=d.isoformat())
    s.memory["day"] = d.isoformat()


@calendar.intent(covers=("search_users", "list_events"))
def my_invitations(s: Scene) -> None:
    """An employee asks which meetings other people have asked them to over the next days."""
    u = me(
        s,
        "user_id IN (SELECT i.user_id FROM invitees i JOIN events e USING (event_id) WHERE e.start > ? "
        "AND e.start < ? AND e.status != 'cancelled')",
        _iso(s.now),
        _iso(s.now + timedelta(days=7)),
    )
    s.say(
        "I'm {me}. Which meetings have people invited me to this week?",
        "{me} here: what am I on the guest list for over the next seven days?",
        "This is {me}. What invitations do I have for the coming week?",
        minimal=["{me}: my invitations?"],
        me=u["name"],
    )
    mine = find_me(s, u)
    args: dict[str, Any] = {
        "invitee_id": mine["user_id"],
        "starts_after": s.now.date().isoformat(),
        "starts_before": (s.now.date() + timedelta(days=7)).isoformat(),
    }
    found = s.call("list_events", **args)["events"]
    if not found:
        raise Skip("no invitation listed")
    if len(found) == 1:  # "that one" then points at it
        remember(s, found[0], "invitee", bool(found[0]["recurring"]))


@calendar.intent(covers=("search_users", "list_events", "get_event"))
def my_next_meeting(s: Scene) -> None:
    """An employee asks which meeting they run next."""
    u = organiser(s)
    s.say(
        "I'm {me}. What's the next meeting I'm running?",
        "{me} here: which meeting of mine is up next?",
        "This is {me}. When's the next thing I'm hosting?",
        minimal=["{me}: my next meeting?"],
        me=u["name"],
    )
    mine = find_me(s, u)
    args: dict[str, Any] = {"organizer_id": mine["user_id"], "starts_after": _iso(s.now)[:16]}
    found = [e for e in s.call("list_events", **args)["events"] if e["status"] != "cancelled"]
    if not found:
        raise Skip("nothing ahead")
    remember(s, found[0], "organizer", bool(found[0]["recurring"]))
    if s.rng.random() < 0.5:
        return
    s.say("Who's coming to it?", "Who did I invite to that one?", "And who's on the guest list?")
    s.call("get_event", event_id=found[0]["event_id"])


@calendar.intent(covers=("search_users", "list_calendars", "list_events"))
def colleague_calendar(s: Scene) -> None:
    """Someone looks at which calendars a colleague keeps and what is on one of them next week."""
    lo, hi_ = _iso(s.now), _iso(s.now + timedelta(days=7))
    u, named = colleague(
        s,
        "user_id IN (SELECT c.owner_id FROM calendars c JOIN events e USING (calendar_id) "
        "WHERE e.start > ? AND e.start < ? AND c.kind != 'personal')",
        lo,
        hi_,
    )
    s.say(
        "Which calendars does {who} keep?",
        "What calendars does {who} have?",
        "Can you pull up {who}'s calendars for me?",
        minimal=["{who}'s calendars?"],
        who=named,
    )
    them = find_other(s, u)
    cals = s.call("list_calendars", owner_id=them["user_id"])["calendars"]
    busy = [
        c
        for c in cals
        if c["kind"] != "personal"
        and s.value(
            "SELECT COUNT(*) FROM events WHERE calendar_id = ? AND start > ? AND start < ?", c["calendar_id"], lo, hi_
        )
    ]
    if not busy:
        raise Skip("nothing on their calendars next week")
    cal = s.rng.choice(busy)
    what = {"primary": "main calendar", "personal": "personal calendar"}.get(cal["kind"], f"'{cal['name']}' calendar")
    s.say(
        "What's on the {what} over the next seven days?",
        "And what's coming up on the {what} this week?",
        "Show me the next week of that {what}.",
        what=what,
    )
    s.call(
        "list_events",
        calendar_id=cal["calendar_id"],
        starts_after=s.now.date().isoformat(),
        starts_before=(s.now.date() + timedelta(days=7)).isoformat(),
    )


@calendar.intent(covers=("get_distinct_values", "list_events"))
def room_bookings(s: Scene) -> None:
    """An office manager looks at where meetings happen, then at one room's bookings this week."""
    lo, hi_ = s.now.date().isoformat(), (s.now.date() + timedelta(days=7)).isoformat()
    s.say(
        "Where do our meetings usually happen? Give me the most used rooms and links.",
        "Which meeting places get booked the most?",
        "What locations show up most on our calendars?",
    )
    spots = s.call("get_distinct_values", field="location")["values"]
    rooms = [
        r
        for r in spots
        if r.startswith(("Room", "Boardroom", "Cafe", "Focus", "Training"))
        and s.value("SELECT COUNT(*) FROM events WHERE location LIKE ? AND start >= ? AND start < ?", f"%{r}%", lo, hi_)
    ]
    if not rooms:
        raise Skip("no room booked this week")
    room = s.rng.choice(rooms)
    if s.rng.random() < 0.5:
        s.say(
            "What's booked in {r} this week?",
            "Who has {r} over the next seven days?",
            "Show me this week's meetings in {r}.",
            r=room,
        )
        s.call("list_events", query=room, starts_after=lo, starts_before=hi_)
        return
    s.say("Anything booked in {r} from now on?", "What's coming up in {r}?", "Who has {r} from today on?", r=room)
    s.call("list_events", query=room, starts_after=lo)


# Booking ------------------------------------------------------------------------------------------


@calendar.intent(covers=("search_users", "find_free_slot", "create_event"), weight=1.5, follows=True)
def find_time_and_book(s: Scene) -> None:
    """Two colleagues need a meeting: find when both are free, then book the first slot (in one go, or after
    seeing the options)."""
    u = me(s)
    other, named = colleague(s, "user_id != ? AND department = ?", u["user_id"], u["department"])
    minutes = s.rng.choice((30, 30, 45, 60))
    days = s.rng.choice((2, 3, 5))
    when = {2: "today or tomorrow", 3: "in the next three days", 5: "this week"}[days]
    title = s.rng.choice(NEW_TITLES)
    at_once = s.rng.random() < 0.4
    if at_once:
        t = s.given(title, f"'{title}'", "title", "create_event", "title")
        s.say(
            "{hi} book the first {m} minutes {who} and I both have free {when}[ and call it {t}].",
            "{hi} grab the earliest {m}-minute gap {who} and I share {when}[, title it {t}].",
            "{hi} get {who} and me together for {m} minutes {when}, first time that works[, as {t}].",
            minimal=["{hi} put me and {who} together soon[ for {t}]."],
            hi=hi(s, u),
            who=named,
            m=minutes,
            when=when,
            t=t,
        )
    else:
        length = s.given(minutes, f"{minutes} minutes", "length", "find_free_slot", "duration_minutes")
        s.say(
            "{hi} when are {who} and I both free[ for {m}] {when}?",
            "{hi} find me a window with {who} {when}[, {m} long].",
            "{hi} {who} and I need to talk {when}[ for {m}]. What times work for both of us?",
            minimal=["{hi} I need some time with {who}[, about {m}]."],
            hi=hi(s, u),
            who=named,
            m=length,
            when=when,
        )
    mine = find_me(s, u)
    them = find_other(s, other)
    args: dict[str, Any] = {"user_ids": [mine["user_id"], them["user_id"]], "duration_minutes": minutes}
    if days != 5 and not s.minimal:
        args["days"] = days
    slots = s.call("find_free_slot", **args)["slots"]
    if not slots:
        raise Skip("no common free slot")
    if not at_once:
        if not s.room(calls=1):
            return
        s.say(
            "Grab the first one and call it '{t}'.",
            "Book the earliest of those as '{t}', and invite {f}.",
            "Put '{t}' in the first free slot.",
            t=title,
            f=first_name(other["name"]),
        )
    made = s.call(
        "create_event",
        calendar_id=mine["primary_calendar_id"],
        title=title,
        start=slots[0]["start"],
        end=slots[0]["end"],
        invitee_ids=[them["user_id"]],
        check_conflicts=True,
    )
    remember(s, made, "organizer")


@calendar.intent(covers=("search_users", "create_event", "get_free_busy"), weight=1.2, follows=True)
def book_at_time(s: Scene) -> None:
    """An employee puts a meeting with a colleague at a time they already agreed on."""
    u = me(s)
    other, named = colleague(s, "user_id != ?", u["user_id"])
    d = workday(s, 1, 12)
    hour = s.rng.choice((9, 10, 11, 13, 14, 15, 16))
    minutes = s.rng.choice((30, 45, 60))
    start = datetime(d.year, d.month, d.day, hour, s.rng.choice((0, 30)))
    end = start + timedelta(minutes=minutes)
    title = s.rng.choice(NEW_TITLES)
    what = s.given(title, f"'{title}'", "title", "create_event", "title")
    mine = ask(
        s,
        u,
        "{hi} put[ {what}] on my calendar {day} at {time} for {m} minutes with {who}.",
        "{hi} {who} and I settled on {bare} at {time}, {m} minutes. Please send the invite[ for {what}].",
        "{hi} set up[ {what}] with {who}, {day} {time} to {until}.",
        what=what,
        day=day(d, s.now),
        bare=day(d, s.now).removeprefix("on "),
        time=clock(start),
        m=minutes,
        who=named,
        until=clock(end),
    )
    them = find_other(s, other)
    args: dict[str, Any] = {
        "calendar_id": mine["primary_calendar_id"],
        "title": title,
        "start": _iso(start)[:16],
        "end": _iso(end)[:16],
        "invitee_ids": [them["user_id"]],
    }
    made = s.call("create_event", **args)
    remember(s, made, "organizer")
    if not s.room() or s.rng.random() < 0.6:
        return
    s.say(
        "Does {f} have anything else going on that day?",
        "What does {f}'s day look like then?",
        "Is {f} busy at other times that day?",
        f=first_name(other["name"]),
    )
    s.call("get_free_busy", user_id=them["user_id"], date=d.isoformat())


@calendar.intent(covers=("search_users", "list_calendars", "create_event", "list_events"), follows=True)
def block_personal_time(s: Scene) -> None:
    """An employee puts a private appointment on their personal calendar, then maybe checks that day there."""
    u = me(s, "user_id IN (SELECT owner_id FROM calendars WHERE kind = 'personal')")
    d = workday(s, 1, 14)
    what, minutes = s.rng.choice(
        (
            ("Dentist appointment", 60),
            ("Car service", 90),
            ("Haircut", 30),
            ("Parent-teacher conference", 45),
            ("Doctor's visit", 45),
        )
    )
    hour = s.rng.choice((8, 12, 16, 17))
    start = datetime(d.year, d.month, d.day, hour, 0)
    end = start + timedelta(minutes=minutes)
    title = s.given(what, what.lower(), "what it is", "create_event", "title")
    mine = ask(
        s,
        u,
        "{hi} put[ a {t}] on my personal calendar {day} from {a} to {b}.",
        "{hi} block {day}, {a} to {b}, on my personal calendar[ for a {t}].",
        "{hi} add[ my {t}] to my personal calendar: {day}, {a} until {b}.",
        t=title,
        day=day(d, s.now),
        a=clock(start),
        b=clock(end),
    )
    cals = s.call("list_calendars", owner_id=mine["user_id"], kind="personal")["calendars"]
    if not cals:
        raise Skip("no personal calendar listed")
    made = s.call(
        "create_event", calendar_id=cals[0]["calendar_id"], title=what, start=_iso(start)[:16], end=_iso(end)[:16]
    )
    remember(s, made, "organizer")
    if not s.room() or s.rng.random() < 0.6:
        return
    s.say(
        "What else is on my personal calendar that day?",
        "Anything else personal that day?",
        "Show me everything on my personal calendar that day.",
    )
    s.call(
        "list_events", calendar_id=cals[0]["calendar_id"], starts_after=d.isoformat(), starts_before=next_day(str(d))
    )
