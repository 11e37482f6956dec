"""Calendar intents that book: a free slot found and taken, a meeting at a given time, personal time blocked
(helpers in ``intents``)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, clock, day
from servers.calendar.intents import (
    WORDS,
    _iso,
    ask,
    colleague,
    find_me,
    find_other,
    first_name,
    hi,
    me,
    next_day,
    remember,
    running,
    talking,
    workday,
)
from servers.calendar.tools import calendar

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
    title = s.rng.choice(WORDS.new_titles)
    at_once = s.rng.random() < 0.4
    if at_once:
        t = s.given(title, f"'{title}'", "title", "create_event", "title")
        s.say(WORDS.find_time_and_book, hi=hi(s, u), who=named, m=minutes, when=when, t=t)
    else:
        length = s.given(minutes, f"{minutes} minutes", "length", "find_free_slot", "duration_minutes")
        s.say(WORDS.find_time_and_book_ask_slots, hi=hi(s, u), who=named, m=length, when=when)
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
        s.say(WORDS.find_time_and_book_take_first, t=title, f=first_name(other["name"]))
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
    title = s.rng.choice(WORDS.new_titles)
    what = s.given(title, f"'{title}'", "title", "create_event", "title")
    mine = ask(
        s,
        u,
        WORDS.book_at_time,
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
    s.say(WORDS.book_at_time_their_day, f=first_name(other["name"]))
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
    mine = ask(s, u, WORDS.block_personal_time, t=title, day=day(d, s.now), a=clock(start), b=clock(end))
    cals = s.call("list_calendars", owner_id=mine["user_id"], kind="personal")["calendars"]
    if not cals:
        raise Skip("no personal calendar listed")
    made = s.call(
        "create_event", calendar_id=cals[0]["calendar_id"], title=what, start=_iso(start)[:16], end=_iso(end)[:16]
    )
    remember(s, made, "organizer")
    if not s.room() or s.rng.random() < 0.6:
        return
    s.say(WORDS.block_personal_time_rest_of_day)
    s.call(
        "list_events", calendar_id=cals[0]["calendar_id"], starts_after=d.isoformat(), starts_before=next_day(str(d))
    )


@calendar.intent(covers=("find_free_slot", "create_event"), follows=True, opens=False, weight=0.8)
def book_a_follow_up(s: Scene) -> None:
    """After seeing who is on a meeting, the organiser books a follow-up with the same people the week after."""
    u, ev = talking(s), running(s)
    views = [
        c.result
        for c in s.calls
        if c.tool in ("get_event", "create_event", "update_event")
        and isinstance(c.result, dict)
        and c.result.get("event_id") == ev["event_id"]
    ]
    if not views or "primary_calendar_id" not in u:
        raise Skip("the dialogue has not seen who is on it")
    guests = [g["user_id"] for g in views[-1]["invitees"] if g["response"] != "declined"]
    if not guests or len(guests) > 6:
        raise Skip("no guests to meet again, or too many")
    start = date.fromisoformat(ev["start"][:10]) + timedelta(days=7)
    title = f"{ev['title']} follow-up"
    if len(title) > 120:
        raise Skip("title too long")
    s.say(WORDS.book_a_follow_up, t=title)
    slots = s.call(
        "find_free_slot", user_ids=[u["user_id"], *guests], duration_minutes=30, from_date=start.isoformat(), days=5
    )["slots"]
    if not slots:
        raise Skip("no shared slot that week")
    made = s.call(
        "create_event",
        calendar_id=u["primary_calendar_id"],
        title=title,
        start=slots[0]["start"],
        end=slots[0]["end"],
        invitee_ids=guests,
    )
    remember(s, made, "organizer")
