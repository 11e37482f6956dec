"""Short follow-ups on the calendar: what a person asks or adjusts right after an earlier turn, about the
meeting, the colleague or the day the dialogue is already about ("who's coming now?", "push it back half an
hour", "and is Dana free that day?"). They never open a dialogue and never change who talks.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, clock, day
from servers.calendar.intents import (
    NEW_TITLES,
    _iso,
    first_name,
    next_day,
    remember,
    the_meeting,
)
from servers.calendar.schema import ROOMS
from servers.calendar.tools import calendar


def _me(s: Scene) -> dict[str, Any]:
    known = s.memory.get("me")
    if not known:
        raise Skip("no employee in the dialogue yet")
    return dict(known)


def _event(s: Scene) -> dict[str, Any]:
    known = s.memory.get("event")
    if not known:
        raise Skip("no meeting in the dialogue yet")
    return dict(known)


def _day(s: Scene) -> str:
    d = s.memory.get("day") or (s.memory.get("event") or {}).get("start", "")[:10]
    if not d:
        raise Skip("no day in the dialogue yet")
    return str(d)


def _when(s: Scene, d: str) -> str:
    """How the user points at the dialogue's day again: "that day" or by its name."""
    return "that day" if s.rng.random() < 0.6 else day(d, s.now)


def _mine(s: Scene, extra: str = "1=1") -> dict[str, Any]:
    ev = the_meeting(s, extra)
    if ev is None:
        raise Skip("the dialogue is not about an upcoming one-off meeting the employee runs")
    return ev


# Looking again --------------------------------------------------------------------------------------


@calendar.intent(covers=("get_event",), follows=True, opens=False, weight=1.3)
def guest_list_now(s: Scene) -> None:
    """Who is on the meeting the dialogue is about, and what they answered."""
    ev = _event(s)
    if s.rows("SELECT 1 FROM events WHERE event_id = ? AND status = 'cancelled'", ev["event_id"]):
        raise Skip("the meeting is cancelled")
    s.asked("get_event", event_id=ev["event_id"])
    s.say(
        "Who's on that one now, and have they answered?",
        "Show me who's coming to it.",
        "Who's invited to the {t}?",
        "What does the guest list look like for it now?",
        t=ev["title"],
    )
    s.call("get_event", event_id=ev["event_id"])


@calendar.intent(covers=("get_free_busy",), follows=True, opens=False, weight=1.3)
def how_busy_that_day(s: Scene) -> None:
    """How full the employee's day is, or the colleague's the dialogue is about (the day it is about)."""
    u, other, d = _me(s), s.memory.get("other"), _day(s)
    if other and s.rng.random() < 0.4:
        s.asked("get_free_busy", user_id=other["user_id"], date=d)
        s.say(
            "Does {f} have much else on {w}?",
            "And how busy is {f} {w}?",
            "What does {f}'s day look like {w}?",
            f=first_name(other["name"]),
            w=_when(s, d),
        )
        s.call("get_free_busy", user_id=other["user_id"], date=d)
        return
    s.asked("get_free_busy", user_id=u["user_id"], date=d)
    s.say("How packed am I {w} now?", "What does my day look like {w}?", "So when am I busy {w}?", w=_when(s, d))
    s.call("get_free_busy", user_id=u["user_id"], date=d)


@calendar.intent(covers=("list_upcoming_events",), follows=True, opens=False)
def my_week_now(s: Scene) -> None:
    """What the employee has coming up now."""
    u = _me(s)
    s.asked("list_upcoming_events", user_id=u["user_id"])
    days = s.rng.choice((3, 7, 7, 14))
    span = {3: "the next three days", 7: "this week", 14: "the next two weeks"}[days]
    s.say("What does {span} look like for me now?", "So what's on my plate for {span}?", span=span)
    args: dict[str, Any] = {"user_id": u["user_id"]}
    if days != 7:
        args["days"] = days
    s.call("list_upcoming_events", **args)


@calendar.intent(covers=("list_calendars",), follows=True, opens=False, weight=0.6)
def whose_calendars(s: Scene) -> None:
    """Which calendars the employee (or the colleague of the dialogue) keeps."""
    other = s.memory.get("other")
    if other and s.rng.random() < 0.5:
        s.asked("list_calendars", owner_id=other["user_id"])
        s.say("Which calendars does {f} keep?", "What calendars does {f} have?", f=first_name(other["name"]))
        s.call("list_calendars", owner_id=other["user_id"])
        return
    u = _me(s)
    s.asked("list_calendars", owner_id=u["user_id"])
    s.say("Which calendars do I have, by the way?", "Remind me what calendars I keep.")
    s.call("list_calendars", owner_id=u["user_id"])


@calendar.intent(covers=("list_occurrences",), follows=True, opens=False)
def series_dates(s: Scene) -> None:
    """The dates a recurring meeting of the dialogue falls on next."""
    ev = _event(s)
    if not ev["recurring"]:
        raise Skip("the meeting does not repeat")
    s.asked("list_occurrences", event_id=ev["event_id"])
    weeks = s.rng.choice((4, 8))
    s.say(
        "When does it happen over the next {n} weeks?",
        "List its dates for the next {n} weeks.",
        "Which days does that series land on in the coming {n} weeks?",
        n=weeks,
    )
    s.call(
        "list_occurrences",
        event_id=ev["event_id"],
        from_date=s.now.date().isoformat(),
        to_date=(s.now.date() + timedelta(weeks=weeks)).isoformat(),
    )


@calendar.intent(covers=("find_free_slot",), follows=True, opens=False)
def next_common_gap(s: Scene) -> None:
    """When the employee and the colleague of the dialogue are next both free."""
    u, other = _me(s), s.memory.get("other")
    if not other or other["user_id"] == u["user_id"]:
        raise Skip("no colleague in the dialogue yet")
    s.asked("find_free_slot", user_ids=[u["user_id"], other["user_id"]])
    minutes = s.rng.choice((15, 30, 60))
    s.say(
        "When are {f} and I next both free for {m} minutes?",
        "Find the next {m} minutes {f} and I share.",
        "When could {f} and I grab {m} minutes together?",
        f=first_name(other["name"]),
        m=minutes,
    )
    s.call("find_free_slot", user_ids=[u["user_id"], other["user_id"]], duration_minutes=minutes, limit=3)


# Adjusting ------------------------------------------------------------------------------------------


@calendar.intent(covers=("update_event",), follows=True, opens=False, weight=1.5)
def adjust_it(s: Scene) -> None:
    """The organiser adjusts the meeting of the dialogue: a new name, a room, a little later, provisional or firm."""
    ev = _mine(s)
    how = s.rng.choice(("title", "room", "later", "status"))
    if how == "title":
        title = s.rng.choice([t for t in NEW_TITLES if t != ev["title"]])
        s.say(
            "Actually, call it '{t}' instead.",
            "Rename that one to '{t}'.",
            "Can you change its name to '{t}'?",
            t=title,
        )
        out = s.call("update_event", event_id=ev["event_id"], title=title)
    elif how == "room":
        room = s.rng.choice([r for r in ROOMS if r != ev["location"]])
        s.say("Put it in {r}, please.", "Let's hold it in {r}.", "Book {r} for it.", r=room)
        out = s.call("update_event", event_id=ev["event_id"], location=room)
    elif how == "later":
        minutes = s.rng.choice((15, 30, 60))
        start = datetime.fromisoformat(ev["start"]) + timedelta(minutes=minutes)
        end = datetime.fromisoformat(ev["end"]) + timedelta(minutes=minutes)
        if end.date() != start.date() or end.hour >= 19:
            raise Skip("it would run into the evening")
        by = {15: "a quarter of an hour", 30: "half an hour", 60: "an hour"}[minutes]
        s.say(
            "Push it back {by}, so it starts at {t}.",
            "Make it {by} later, {t} start.",
            "Can it start at {t} instead? Same length.",
            by=by,
            t=clock(start),
        )
        out = s.call("update_event", event_id=ev["event_id"], start=_iso(start)[:16])
    elif s.value("SELECT status FROM events WHERE event_id = ?", ev["event_id"]) == "tentative":
        s.say("It's happening for sure now, firm it up.", "Mark it as confirmed.", "That one's definite now.")
        out = s.call("update_event", event_id=ev["event_id"], status="confirmed")
    else:
        s.say("Mark it as provisional for now.", "It's not final yet, flag it as tentative.", "Pencil it in only.")
        out = s.call("update_event", event_id=ev["event_id"], status="tentative")
    remember(s, out, "organizer")


@calendar.intent(covers=("list_events",), follows=True, opens=False)
def other_meetings(s: Scene) -> None:
    """Which other meetings the employee runs on the dialogue's day, or is invited to this week."""
    u = _me(s)
    d = s.memory.get("day")
    if d and s.rng.random() < 0.5:
        s.asked("list_events", organizer_id=u["user_id"], starts_after=d)
        s.say(
            "What else am I running {w}?",
            "Which other meetings have I set up {w}?",
            "Anything else I organise {w}?",
            w=_when(s, d),
        )
        s.call("list_events", organizer_id=u["user_id"], starts_after=d, starts_before=next_day(d))
        return
    s.asked("list_events", invitee_id=u["user_id"])
    s.say(
        "What have other people invited me to this week?",
        "Which meetings am I a guest at over the next seven days?",
        "And what am I asked to by others this week?",
    )
    s.call(
        "list_events",
        invitee_id=u["user_id"],
        starts_after=s.now.date().isoformat(),
        starts_before=(s.now.date() + timedelta(days=7)).isoformat(),
    )


@calendar.intent(covers=("cancel_occurrence",), follows=True, opens=False)
def skip_one_date(s: Scene) -> None:
    """The organiser drops one upcoming date of the recurring meeting of the dialogue."""
    ev = _event(s)
    if not ev["recurring"] or ev["role"] != "organizer":
        raise Skip("not a series the employee runs")
    rule = s.rows("SELECT freq, interval, by_weekday, count FROM recurrences WHERE event_id = ?", ev["event_id"])
    if not rule or rule[0]["freq"] != "weekly" or rule[0]["interval"] != 1 or rule[0]["by_weekday"]:
        raise Skip("not a plain weekly series")
    first = datetime.fromisoformat(ev["start"])
    k0 = max(1, (s.now - first).days // 7 + 1)
    dates = [(first + timedelta(weeks=k)).date() for k in range(k0, k0 + 3)]
    if rule[0]["count"]:
        dates = [d for d in dates if (d - first.date()).days // 7 < rule[0]["count"]]
    gone = {
        r["occurrence_date"]
        for r in s.rows("SELECT occurrence_date FROM cancelled_occurrences WHERE event_id = ?", ev["event_id"])
    }
    dates = [d for d in dates if d.isoformat() not in gone and datetime.combine(d, first.time()) > s.now]
    if not dates:
        raise Skip("no date to skip")
    d = s.rng.choice(dates)
    s.say(
        "I'm away {d}, so skip that one.",
        "Drop the session {d}, keep the rest.",
        "Cancel just the one {d}.",
        d=day(d, s.now),
    )
    s.call("cancel_occurrence", event_id=ev["event_id"], occurrence_date=d.isoformat())
    s.memory["day"] = d.isoformat()


@calendar.intent(covers=("remove_invitee",), follows=True, opens=False, weight=0.7)
def drop_them_again(s: Scene) -> None:
    """The organiser takes the colleague of the dialogue back off the meeting of the dialogue."""
    ev, other = _mine(s), s.memory.get("other")
    if not other or not s.rows(
        "SELECT 1 FROM invitees WHERE event_id = ? AND user_id = ?", ev["event_id"], other["user_id"]
    ):
        raise Skip("the colleague is not on that meeting")
    s.say(
        "Actually, take {f} off it again.",
        "On reflection {f} doesn't need to be there, remove them.",
        "Drop {f} from it after all.",
        f=first_name(other["name"]),
    )
    s.call("remove_invitee", event_id=ev["event_id"], user_id=other["user_id"])


@calendar.intent(covers=("find_free_slot", "create_event"), follows=True, opens=False, weight=0.8)
def book_a_follow_up(s: Scene) -> None:
    """After seeing who is on a meeting, the organiser books a follow-up with the same people the week after."""
    u, ev = _me(s), _mine(s)
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
        "And book a 30-minute '{t}' with the same people the week after, first time we're all free.",
        "Set up a half-hour '{t}' with everyone who hasn't declined, a week later, whenever we're all free.",
        t=title,
    )
    slots = s.call(
        "find_free_slot",
        user_ids=[u["user_id"], *guests],
        duration_minutes=30,
        from_date=start.isoformat(),
        days=5,
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
