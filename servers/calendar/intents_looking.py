"""Calendar intents that look: the week ahead, a day, invitations, the next meeting, a colleague's calendar, the
rooms in use (helpers in ``intents``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, day
from servers.calendar.intents import WORDS, _iso, ask, colleague, find_me, find_other, me, organiser, remember, workday
from servers.calendar.tools import calendar

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
    s.say(WORDS.week_ahead, me=u["name"], span=span)
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
    s.say(WORDS.week_ahead_who_attends, t=o["title"], d=day(o["start"], s.now))
    s.call("get_event", event_id=o["event_id"])


@calendar.intent(covers=("search_users", "get_free_busy"))
def my_day(s: Scene) -> None:
    """An employee asks how full one of their days is."""
    u = me(s)
    d = workday(s, 0, 9)
    when = s.given(d.isoformat(), day(d, s.now), "day", "get_free_busy", "date")
    mine = ask(s, u, WORDS.my_day, when=when)
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
    s.say(WORDS.my_invitations, me=u["name"])
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
    s.say(WORDS.my_next_meeting, me=u["name"])
    mine = find_me(s, u)
    args: dict[str, Any] = {"organizer_id": mine["user_id"], "starts_after": _iso(s.now)[:16]}
    found = [e for e in s.call("list_events", **args)["events"] if e["status"] != "cancelled"]
    if not found:
        raise Skip("nothing ahead")
    remember(s, found[0], "organizer", bool(found[0]["recurring"]))
    if s.rng.random() < 0.5:
        return
    s.say(WORDS.my_next_meeting_guests)
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
    s.say(WORDS.colleague_calendar, who=named)
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
    s.say(WORDS.colleague_calendar_next_week, what=what)
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
    s.say(WORDS.room_bookings)
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
        s.say(WORDS.room_bookings_this_week, r=room)
        s.call("list_events", query=room, starts_after=lo, starts_before=hi_)
        return
    s.say(WORDS.room_bookings_from_now, r=room)
    s.call("list_events", query=room, starts_after=lo)
