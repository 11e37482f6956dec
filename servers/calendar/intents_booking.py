"""Calendar intents that book: a free slot found and taken, a meeting at a given time, personal time blocked
(helpers in ``intents``)."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, clock, day
from servers.calendar.intents import (
    NEW_TITLES,
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
    title = s.rng.choice(NEW_TITLES)
    at_once = s.rng.random() < 0.4
    if at_once:
        t = s.given(title, f"'{title}'", "title", "create_event", "title")
        s.say(
            "{hi} {book|grab} the first {m} minutes {who} and I both have free {when}[ and call it {t}].",
            "{hi} {grab|take} the earliest {m}-minute {gap|slot} {who} and I share {when}[, title it {t}].",
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
            "{hi} when are {who} and I both {free|available}[ for {m}] {when}?",
            "{hi} {find|look for} a {window|slot} with {who} {when}[, {m} long].",
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
            "{Grab|Take} the first one and call it '{t}'.",
            "Book the earliest of those as '{t}', and invite {f}.",
            "Put '{t}' in the first free slot.",
            "{The first one works|The earliest is fine}. {Book it|Set it up} as '{t}' with {f}.",
            "{Let's go with|I'll take} the {earliest|first} slot - {call it|title} '{t}' and {invite|include} {f}.",
            "{Perfect|Great}, put '{t}' in the first {one|slot} and {invite|send an invite to} {f}.",
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
        "{hi} {could you|can you|please} book[ {what}] {day} at {time} with {who}? {m} minutes{| is enough}.",
        "{hi} I {need|want} {m} minutes with {who} {day} at {time}.[ Call it {what}.]",
        "{hi} {schedule|arrange} a meeting with {who} {day}, {time} to {until}[ - {what}].",
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
        "{And|So} how {full|busy} is {f}'s {day|calendar} {then|that day}?",
        "{Can|Could} you {check|look at} {f}'s {schedule|calendar} {for the rest of that day|around then}?",
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
        "{hi} {block|hold} {day}, {a} to {b}, on my personal calendar[ for a {t}].",
        "{hi} add[ my {t}] to my personal calendar: {day}, {a} until {b}.",
        "{hi} {I need|keep} {day} {a}-{b} {free|clear} for me[ - {t}]. Personal calendar, please.",
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
        "{And|So} {what else|anything else} {have I got|is there} on my personal {side|calendar} {that day|then}?",
        "{Can|Could} you {list|show} {my other personal plans|the rest of my personal calendar} for that day?",
    )
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
    s.say(
        "And book a 30-minute '{t}' with the same people the week after, {first time|whenever} we're all free.",
        "{Set up|Book} a half-hour '{t}' with everyone who hasn't declined, a week later, whenever we're all free.",
        "{Let's|We should} {meet again|follow up} a week later: '{t}', 30 minutes, same people, first free slot.",
        t=title,
    )
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
