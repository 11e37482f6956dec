"""What people want of the calendar: an employee planning their week, booking, moving and answering meetings.

The user is an employee who says who they are (their name); the agent finds their user id and primary
calendar with ``search_users``, their events with ``list_events`` (organiser, title words, the day) or
``list_upcoming_events``, and the occurrences of a series with ``list_occurrences``. People name events by
title and day ("my Design review on Thursday"), series by what they are ("my weekly 1:1 with Dana"),
colleagues by name.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hub.synth.intent import Ref, Scene, Skip, clock, day
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


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The employee talking: the one an earlier turn established (``Skip`` unless they fit ``where``), or a
    fresh pick among people with a unique name."""
    known = s.memory.get("me")
    if known:
        if not s.rows(PEOPLE + f" WHERE user_id = ? AND ({where})", known["user_id"], *params):
            raise Skip("the employee of the earlier turn does not fit")
        return dict(known)
    u = s.pick(PEOPLE + f" WHERE {UNIQUE_NAME} AND ({where})", *params)
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


def colleague(s: Scene, where: str, *params: Any) -> tuple[dict[str, Any], str]:
    """Someone else, named so that exactly one person fits."""
    u = s.pick(PEOPLE + f" WHERE ({where})", *params)
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


def my_event(s: Scene, ev: dict[str, Any], owner: str) -> str:
    """An event as its organiser recalls it: the title and the day, then the time too."""
    d = ev["start"][:10]
    return s.refer(
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
        title=ev["title"],
        day=day(d, s.now),
        time=clock(ev["start"]),
    )


def locate_mine(s: Scene, owner: str, ev: dict[str, Any]) -> dict[str, Any]:
    """Find one of the user's own events the way they described it: by title words and day."""
    d = date.fromisoformat(ev["start"][:10])
    found = s.call(
        "list_events",
        organizer_id=owner,
        query=ev["title"],
        starts_after=d.isoformat(),
        starts_before=(d + timedelta(days=1)).isoformat(),
    )["events"]
    hit = [e for e in found if e["event_id"] == ev["event_id"]]
    if not hit:
        raise Skip("the event is not in the listing")
    return hit[0]


UPCOMING = f"SELECT * FROM events WHERE {LIVE} AND {ONE_OFF} AND start > ? AND start < ? AND ({{extra}})"


def organiser(s: Scene, extra: str = "1=1") -> dict[str, Any]:
    """The employee talking, as the organiser of some upcoming one-off meeting that fits ``extra``."""
    return me(s, "user_id IN (SELECT organizer_id FROM (" + UPCOMING.format(extra=extra) + "))", *_window(s))


def upcoming_mine(s: Scene, u: dict[str, Any], extra: str = "1=1") -> dict[str, Any]:
    """A one-off, not cancelled, future event the user organises (in the next four weeks)."""
    return s.pick(UPCOMING.format(extra=extra) + " AND organizer_id = ?", *_window(s), u["user_id"])


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


# Looking at the calendar ---------------------------------------------------------------------------


@calendar.intent(covers=("search_users", "list_upcoming_events", "get_event"), weight=1.2)
def week_ahead(s: Scene) -> None:
    """An employee asks what is coming up, then who is coming to one of those meetings."""
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
    s.say(
        "Who's going to the {t} {d}?",
        "Who else is in the {t} {d}?",
        "Pull up the {t} {d}, who's been asked?",
        t=o["title"],
        d=day(o["start"], s.now),
    )
    s.call("get_event", event_id=o["event_id"])


@calendar.intent(covers=("search_users", "list_calendars", "list_events"))
def colleague_calendar(s: Scene) -> None:
    """Someone looks at which calendars a colleague keeps and what is on one of them next week."""
    lo, hi = _iso(s.now), _iso(s.now + timedelta(days=7))
    u, named = colleague(
        s,
        "user_id IN (SELECT c.owner_id FROM calendars c JOIN events e USING (calendar_id) "
        "WHERE e.start > ? AND e.start < ? AND c.kind != 'personal')",
        lo,
        hi,
    )
    s.say(
        "Which calendars does {who} keep?",
        "What calendars does {who} have?",
        "Can you list {who}'s calendars for me?",
        minimal=["{who}'s calendars?"],
        who=named,
    )
    them = find_user(s, u)
    cals = s.call("list_calendars", owner_id=them["user_id"])["calendars"]
    busy = [
        c
        for c in cals
        if c["kind"] != "personal"
        and s.value(
            "SELECT COUNT(*) FROM events WHERE calendar_id = ? AND start > ? AND start < ?", c["calendar_id"], lo, hi
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
    lo, hi = s.now.date().isoformat(), (s.now.date() + timedelta(days=7)).isoformat()
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
        and s.value("SELECT COUNT(*) FROM events WHERE location LIKE ? AND start >= ? AND start < ?", f"%{r}%", lo, hi)
    ]
    if not rooms:
        raise Skip("no room booked this week")
    room = s.rng.choice(rooms)
    s.say(
        "What's booked in {r} this week?",
        "Who has {r} over the next seven days?",
        "Show me this week's meetings in {r}.",
        r=room,
    )
    s.call("list_events", query=room, starts_after=lo, starts_before=hi)


# Booking ------------------------------------------------------------------------------------------


@calendar.intent(covers=("search_users", "find_free_slot", "create_event"), weight=1.5)
def find_time_and_book(s: Scene) -> None:
    """Two colleagues need a meeting: find when both are free, then book the first slot."""
    u = me(s)
    other, named = colleague(s, "user_id != ? AND department = ?", u["user_id"], u["department"])
    minutes = s.rng.choice((30, 30, 45, 60))
    days = s.rng.choice((2, 3, 5))
    when = {2: "today or tomorrow", 3: "in the next three days", 5: "this week"}[days]
    s.say(
        "I'm {me}. When are {who} and I both free for {m} minutes {when}?",
        "{me} here. Find me {m} minutes with {who} {when}.",
        "This is {me}: {who} and I need to talk for {m} minutes {when}. What times work for both of us?",
        minimal=["{me} here, I need some time with {who}."],
        me=u["name"],
        who=named,
        m=minutes,
        when=when,
    )
    mine = find_me(s, u)
    them = find_user(s, other)
    args: dict[str, Any] = {"user_ids": [mine["user_id"], them["user_id"]], "duration_minutes": minutes}
    if days != 5:
        args["days"] = days
    slots = s.call("find_free_slot", **args)["slots"]
    if not slots:
        raise Skip("no common free slot")
    title = s.rng.choice(NEW_TITLES)
    s.say(
        "Grab the first one and call it '{t}'.",
        "Book the earliest of those as '{t}', and invite {f}.",
        "Put '{t}' in the first free slot.",
        t=title,
        f=first_name(other["name"]),
    )
    s.call(
        "create_event",
        calendar_id=mine["primary_calendar_id"],
        title=title,
        start=slots[0]["start"],
        end=slots[0]["end"],
        invitee_ids=[them["user_id"]],
        check_conflicts=True,
    )


@calendar.intent(covers=("search_users", "create_event", "get_free_busy"), weight=1.2)
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
    s.say(
        "I'm {me}. Put[ {what}] on my calendar {day} at {time} for {m} minutes with {who}.",
        "{me} here: {who} and I settled on {bare} at {time}, {m} minutes. Please send the invite[ for {what}].",
        "This is {me}. Set up[ {what}] with {who}, {day} {time} to {until}.",
        me=u["name"],
        what=what,
        day=day(d, s.now),
        bare=day(d, s.now).removeprefix("on "),
        time=clock(start),
        m=minutes,
        who=named,
        until=clock(end),
    )
    mine = find_me(s, u)
    them = find_user(s, other)
    s.call(
        "create_event",
        calendar_id=mine["primary_calendar_id"],
        title=title,
        start=_iso(start)[:16],
        end=_iso(end)[:16],
        invitee_ids=[them["user_id"]],
    )
    s.say(
        "Does {f} have anything else going on that day?",
        "What does {f}'s day look like then?",
        "Is {f} busy at other times that day?",
        f=first_name(other["name"]),
    )
    s.call("get_free_busy", user_id=them["user_id"], date=d.isoformat())


# Changing my own meetings --------------------------------------------------------------------------


@calendar.intent(covers=("search_users", "list_events", "update_event", "get_event"), weight=1.3)
def move_meeting(s: Scene) -> None:
    """The organiser moves a meeting to another time; then asks who has to confirm again."""
    extra = "event_id IN (SELECT event_id FROM invitees)"
    u = organiser(s, extra)
    ev = upcoming_mine(s, u, extra)
    old = datetime.fromisoformat(ev["start"])
    shift = s.rng.choice((1, 1, 2, 7, 0))
    new_day = old.date() + timedelta(days=shift)
    if new_day.weekday() >= 5:
        new_day += timedelta(days=7 - new_day.weekday())
    new = datetime(
        new_day.year, new_day.month, new_day.day, s.rng.choice((9, 10, 11, 13, 14, 15, 16)), s.rng.choice((0, 30))
    )
    if new == old or new <= s.now:
        raise Skip("no real move")
    what = my_event(s, ev, u["user_id"])
    to = (
        f"{day(new_day, s.now).removeprefix('on ')} at {clock(new)}"
        if new_day != old.date()
        else f"{clock(new)} the same day"
    )
    s.say(
        "I'm {me}. Can you push {what} to {to}?",
        "{me} here: {what} needs to move to {to}.",
        "This is {me}. Please shift {what} to {to}, same length.",
        minimal=["{me}: {what} has to move to {to}."],
        me=u["name"],
        what=what,
        to=to,
    )
    mine = find_me(s, u)
    found = locate_mine(s, mine["user_id"], ev)
    s.call("update_event", event_id=found["event_id"], start=_iso(new)[:16])
    s.say(
        "Who has to confirm again now?",
        "Who still needs to accept the new time?",
        "Show me the invite list with their answers.",
    )
    s.call("get_event", event_id=found["event_id"])
    s.memory["event"] = found


@calendar.intent(covers=("search_users", "list_events", "cancel_event", "get_free_busy"))
def call_off_meeting(s: Scene) -> None:
    """The organiser cancels a meeting, then looks at the day it freed up."""
    u = organiser(s)
    ev = upcoming_mine(s, u)
    reason = s.rng.choice(list(CANCEL_WHY))
    what = my_event(s, ev, u["user_id"])
    s.say(
        "I'm {me}. Call off {what}, {why}.",
        "{me} here. {What} isn't happening, {why}. Please cancel it.",
        "This is {me}: scrap {what}; {why}.",
        minimal=["{me}: {what} is off."],
        me=u["name"],
        what=what,
        What=what[:1].upper() + what[1:],
        why=CANCEL_WHY[reason],
    )
    mine = find_me(s, u)
    found = locate_mine(s, mine["user_id"], ev)
    args: dict[str, Any] = {"event_id": found["event_id"]}
    if not s.minimal:
        args["reason"] = reason
    s.call("cancel_event", **args)
    s.say(
        "What does the rest of that day look like for me now?",
        "So how busy am I that day?",
        "What's still on for me that day?",
    )
    s.call("get_free_busy", user_id=mine["user_id"], date=ev["start"][:10])


@calendar.intent(covers=("search_users", "list_events", "set_recurrence", "list_occurrences"))
def make_it_recurring(s: Scene) -> None:
    """A one-off meeting becomes a regular one; the organiser checks the dates it lands on."""
    extra = "CAST(strftime('%w', start) AS INTEGER) BETWEEN 1 AND 5"
    u = organiser(s, extra)
    ev = upcoming_mine(s, u, extra)
    freq = s.rng.choice(("weekly", "weekly", "daily", "monthly"))
    count = s.rng.choice((4, 6, 8, 10))
    how = s.given(freq, FREQ_WORDS[freq], "how often", "set_recurrence", "freq")
    what = my_event(s, ev, u["user_id"])
    s.say(
        "I'm {me}. Make {what} repeat[ {how}], {n} times in all.",
        "{me} here: {what} should become a regular thing[, {how}], for {n} sessions.",
        "This is {me}. Turn {what} into a series[ that happens {how}], ending after {n}.",
        me=u["name"],
        what=what,
        how=how,
        n=count,
    )
    mine = find_me(s, u)
    found = locate_mine(s, mine["user_id"], ev)
    args: dict[str, Any] = {"event_id": found["event_id"], "freq": freq, "count": count}
    if freq == "daily":
        args["by_weekday"] = ["MO", "TU", "WE", "TH", "FR"]
    s.call("set_recurrence", **args)
    s.say("Which dates does that give me?", "List the dates it will fall on.", "When are all the sessions then?")
    first = ev["start"][:10]
    last = date.fromisoformat(first) + timedelta(days={"daily": 20, "weekly": 7 * count, "monthly": 31 * count}[freq])
    s.call("list_occurrences", event_id=found["event_id"], from_date=first, to_date=last.isoformat())


@calendar.intent(covers=("search_users", "list_events", "list_occurrences", "cancel_occurrence"), weight=1.2)
def skip_one_session(s: Scene) -> None:
    """The organiser of a weekly 1:1 skips one date of it."""
    u = me(
        s,
        "user_id IN (SELECT e.organizer_id FROM events e JOIN recurrences r USING (event_id) "
        "WHERE e.status != 'cancelled' AND e.title LIKE 'Weekly 1:1%' AND (r.until IS NULL OR r.until > ?))",
        s.now.date().isoformat(),
    )
    ev = s.pick(
        "SELECT e.* FROM events e JOIN recurrences r USING (event_id) WHERE e.organizer_id = ? AND "
        "e.status != 'cancelled' AND e.title LIKE 'Weekly 1:1%'",
        u["user_id"],
    )
    other = ev["title"].rsplit("/", 1)[-1].strip()
    what = s.refer(
        ev["event_id"],
        Ref(
            "my weekly 1:1 with {o}",
            "SELECT e.event_id FROM events e JOIN recurrences USING (event_id) "
            "WHERE e.organizer_id = ? AND e.title = ? AND e.status != 'cancelled'",
            u["user_id"],
            ev["title"],
        ),
        o=other,
    )
    s.say(
        "I'm {me}. When does {what} happen over the next month?",
        "{me} here: list the upcoming dates of {what}.",
        "This is {me}. Which days is {what} on in the coming weeks?",
        minimal=["{me}: {what}, upcoming dates?"],
        me=u["name"],
        what=what,
    )
    mine = find_me(s, u)
    found = s.call("list_events", organizer_id=mine["user_id"], recurring=True, query="1:1")["events"]
    if ev["event_id"] not in [e["event_id"] for e in found]:
        raise Skip("the series is not in the listing")
    occ = s.call("list_occurrences", event_id=ev["event_id"])["occurrences"]
    ahead = [o for o in occ if o["status"] != "cancelled" and o["start"] > _iso(s.now)]
    if not ahead:
        raise Skip("no future occurrence")
    o = s.rng.choice(ahead)
    s.say(
        "I'm out {d}, drop that one.",
        "Skip the one {d}, please; I'm travelling.",
        "Cancel just the session {d}, keep the rest.",
        d=day(o["date"], s.now),
    )
    s.call("cancel_occurrence", event_id=ev["event_id"], occurrence_date=o["date"])


# Guests and answers --------------------------------------------------------------------------------


@calendar.intent(covers=("list_events", "search_users", "add_invitee", "get_free_busy"), weight=1.2)
def bring_someone_in(s: Scene) -> None:
    """The organiser adds a colleague to a meeting (found by its title and day), then checks they are free."""
    ev = s.pick(
        f"SELECT e.*, u.name AS organizer FROM events e JOIN users u ON u.user_id = e.organizer_id WHERE "
        f"e.{LIVE} AND e.{ONE_OFF} AND e.start > ? AND e.start < ? AND u.{UNIQUE_NAME} AND {NOT_PERSONAL} "
        f"AND (SELECT COUNT(*) "
        f"FROM events x WHERE (x.title LIKE '%' || e.title || '%' OR x.location LIKE '%' || e.title || '%') "
        f"AND substr(x.start, 1, 10) = substr(e.start, 1, 10)) = 1",
        _iso(s.now),
        _iso(s.now + timedelta(days=21)),
    )
    if s.memory.get("me") and s.memory["me"]["user_id"] != ev["organizer_id"]:
        raise Skip("another organiser")
    s.be(ev["organizer"])
    other, named = colleague(
        s,
        "user_id != ? AND user_id NOT IN (SELECT user_id FROM invitees WHERE event_id = ?)",
        ev["organizer_id"],
        ev["event_id"],
    )
    d = ev["start"][:10]
    what = s.refer(
        ev["event_id"],
        Ref("my {t} {d}", "SELECT event_id FROM events WHERE title = ? AND substr(start, 1, 10) = ?", ev["title"], d),
        t=ev["title"],
        d=day(d, s.now),
    )
    optional = s.rng.random() < 0.3
    s.say(
        "Add {who} to {what}" + (", just as optional." if optional else "."),
        "{who} should be in {what} too" + (" (optional is fine)." if optional else ", please send an invite."),
        "Can you get {who} onto {what}?" + (" They don't have to come." if optional else ""),
        minimal=["{who} needs to be in {what}."],
        who=named,
        what=what,
    )
    found = s.call(
        "list_events",
        query=ev["title"],
        starts_after=d,
        starts_before=(date.fromisoformat(d) + timedelta(days=1)).isoformat(),
    )["events"]
    if [e["event_id"] for e in found] != [ev["event_id"]]:
        raise Skip("the listing is ambiguous")
    them = find_user(s, other)
    args: dict[str, Any] = {"event_id": ev["event_id"], "user_id": them["user_id"]}
    if optional and not s.minimal:
        args["optional"] = True
    s.call("add_invitee", **args)
    s.say(
        "Is {f} actually free then?",
        "Does {f} have anything else that day?",
        "Check {f}'s day for clashes.",
        f=first_name(other["name"]),
    )
    s.call("get_free_busy", user_id=them["user_id"], date=d)


@calendar.intent(covers=("search_users", "list_events", "get_event", "remove_invitee"))
def trim_guest_list(s: Scene) -> None:
    """The organiser reviews who is invited to a meeting, then takes someone off."""
    extra = "(SELECT COUNT(*) FROM invitees i WHERE i.event_id = events.event_id) >= 2"
    u = organiser(s, extra)
    ev = upcoming_mine(s, u, extra)
    what = my_event(s, ev, u["user_id"])
    s.say(
        "I'm {me}. Who's on the invite for {what}?",
        "{me} here: who did I ask to {what}?",
        "This is {me}. Show me the guest list of {what}.",
        minimal=["{me}: {what}, who's coming?"],
        me=u["name"],
        what=what,
    )
    mine = find_me(s, u)
    found = locate_mine(s, mine["user_id"], ev)
    full = s.call("get_event", event_id=found["event_id"])
    guest = s.rng.choice(full["invitees"])
    if sum(g["name"] == guest["name"] for g in full["invitees"]) > 1:
        raise Skip("two guests share the name")
    s.say(
        "Take {g} off it, they don't need to be there.",
        "Drop {g} from that one.",
        "{g} can skip it, remove them please.",
        g=guest["name"],
    )
    s.call("remove_invitee", event_id=found["event_id"], user_id=guest["user_id"])


@calendar.intent(covers=("search_users", "list_upcoming_events", "respond_to_invite", "get_event"), weight=1.3)
def answer_invite(s: Scene) -> None:
    """An invitee accepts, declines or tentatively answers a meeting they were asked to."""
    lo, hi = _iso(s.now), _iso(s.now + timedelta(days=14))
    u = me(
        s,
        "user_id IN (SELECT i.user_id FROM invitees i JOIN events e USING (event_id) WHERE e.start > ? "
        "AND e.start < ? AND e.status != 'cancelled' AND e.event_id NOT IN (SELECT event_id FROM recurrences))",
        lo,
        hi,
    )
    ev = s.pick(
        "SELECT e.*, i.response, o.name AS organizer FROM events e JOIN invitees i USING (event_id) "
        "JOIN users o ON o.user_id = e.organizer_id WHERE i.user_id = ? AND e.start > ? AND e.start < ? AND "
        f"e.{LIVE} AND e.{ONE_OFF}",
        u["user_id"],
        lo,
        hi,
    )
    answer = s.rng.choice([r for r in ("accepted", "declined", "tentative") if r != ev["response"]])
    d = ev["start"][:10]
    what = s.refer(
        ev["event_id"],
        Ref(
            "the {t} {d}",
            "SELECT e.event_id FROM events e JOIN invitees i USING (event_id) WHERE "
            "i.user_id = ? AND e.title = ? AND substr(e.start, 1, 10) = ?",
            u["user_id"],
            ev["title"],
            d,
        ),
        Ref(
            "{o}'s {t} {d}",
            "SELECT e.event_id FROM events e JOIN invitees i USING (event_id) WHERE "
            "i.user_id = ? AND e.title = ? AND substr(e.start, 1, 10) = ? AND e.organizer_id = ?",
            u["user_id"],
            ev["title"],
            d,
            ev["organizer_id"],
        ),
        t=ev["title"],
        d=day(d, s.now),
        o=ev["organizer"],
    )
    said = {
        "accepted": ("I'll be at {what}, let them know.", "Count me in for {what}.", "Yes to {what} from me."),
        "declined": (
            "I can't make {what}, say no for me.",
            "Please turn down {what}.",
            "I'm not going to {what}; let the organiser know.",
        ),
        "tentative": (
            "I might make {what}, put me down as a maybe.",
            "Mark me as unsure for {what}.",
            "Not sure about {what} yet; answer maybe.",
        ),
    }[answer]
    s.say(*("I'm {me}. " + p for p in said), minimal=["I'm {me}. " + said[1]], me=u["name"], what=what)
    mine = find_me(s, u)
    days = (date.fromisoformat(d) - s.now.date()).days + 1
    out = s.call("list_upcoming_events", user_id=mine["user_id"], days=max(days, 1), include_declined=True, limit=100)[
        "occurrences"
    ]
    if ev["event_id"] not in [o["event_id"] for o in out]:
        raise Skip("the invitation is not in the listing")
    s.call("respond_to_invite", event_id=ev["event_id"], user_id=mine["user_id"], response=answer)
    s.say("Who else is going?", "Who else has said yes so far?", "What have the others answered?")
    s.call("get_event", event_id=ev["event_id"])


@calendar.intent(covers=("search_users", "get_free_busy", "find_free_slot"))
def is_she_free(s: Scene) -> None:
    """Someone checks a colleague's day, then looks for a half hour both of them have free that day."""
    u = me(s)
    other, named = colleague(s, "user_id != ?", u["user_id"])
    d = workday(s, 0, 10)
    s.say(
        "I'm {me}. How busy is {who} {day}?",
        "{me} here: what does {who}'s day look like {day}?",
        "This is {me}. When is {who} tied up {day}?",
        minimal=["{me}: is {who} around {day}?"],
        me=u["name"],
        who=named,
        day=day(d, s.now),
    )
    them = find_user(s, other)
    s.call("get_free_busy", user_id=them["user_id"], date=d.isoformat())
    s.say(
        "Is there half an hour that day when we're both free?",
        "Find a 30-minute gap we share that day.",
        "When could the two of us grab 30 minutes that day?",
    )
    mine = find_me(s, u)
    s.call(
        "find_free_slot",
        user_ids=[mine["user_id"], them["user_id"]],
        duration_minutes=30,
        from_date=d.isoformat(),
        days=1,
    )


@calendar.intent(covers=("search_users", "list_calendars", "create_event", "list_events"))
def block_personal_time(s: Scene) -> None:
    """An employee puts a private appointment on their personal calendar, then checks that day's entries there."""
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
    s.say(
        "I'm {me}. Put[ a {t}] on my personal calendar {day} from {a} to {b}.",
        "{me} here: block {day}, {a} to {b}, on my personal calendar[ for a {t}].",
        "This is {me}. Add[ my {t}] to my personal calendar: {day}, {a} until {b}.",
        me=u["name"],
        t=title,
        day=day(d, s.now),
        a=clock(start),
        b=clock(end),
    )
    mine = find_me(s, u)
    cals = s.call("list_calendars", owner_id=mine["user_id"], kind="personal")["calendars"]
    if not cals:
        raise Skip("no personal calendar listed")
    s.call("create_event", calendar_id=cals[0]["calendar_id"], title=what, start=_iso(start)[:16], end=_iso(end)[:16])
    s.say(
        "What else is on my personal calendar that day?",
        "Anything else personal that day?",
        "Show me everything on my personal calendar that day.",
    )
    s.call(
        "list_events",
        calendar_id=cals[0]["calendar_id"],
        starts_after=d.isoformat(),
        starts_before=(d + timedelta(days=1)).isoformat(),
    )
