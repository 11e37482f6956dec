"""Short follow-ups on the calendar: what a person asks or adjusts right after an earlier turn, about the
meeting, the colleague or the day the dialogue is already about ("who's coming now?", "push it back half an
hour", "and is Dana free that day?"). They never open a dialogue and never change who talks.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip, clock
from servers.calendar.intents import (
    WORDS,
    _iso,
    first_name,
    next_day,
    remember,
    running,
    talking,
    that_day,
    the_day,
    the_event,
)
from servers.calendar.schema import ROOMS
from servers.calendar.tools import calendar

# Looking again --------------------------------------------------------------------------------------


def _guests(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    ev = the_event(s)
    if s.rows("SELECT 1 FROM events WHERE event_id = ? AND status = 'cancelled'", ev["event_id"]):
        raise Skip("the meeting is cancelled")
    return {"event_id": ev["event_id"]}, {"t": ev["title"]}


def _week(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    days = s.rng.choice((3, 7, 7, 14))
    span = {3: "the next three days", 7: "this week", 14: "the next two weeks"}[days]
    return {"user_id": talking(s)["user_id"], **({"days": days} if days != 7 else {})}, {"span": span}


def _dates(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    ev = the_event(s)
    if not ev["recurring"]:
        raise Skip("the meeting does not repeat")
    weeks = s.rng.choice((4, 8))
    until = (s.now.date() + timedelta(weeks=weeks)).isoformat()
    return {"event_id": ev["event_id"], "from_date": s.now.date().isoformat(), "to_date": until}, {"n": weeks}


def _gap(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    u, other = talking(s), s.memory.get("other")
    if not other or other["user_id"] == u["user_id"]:
        raise Skip("no colleague in the dialogue yet")
    minutes = s.rng.choice((15, 30, 60))
    args = {"user_ids": [u["user_id"], other["user_id"]], "duration_minutes": minutes, "limit": 3}
    return args, {"f": first_name(other["name"]), "m": minutes}


LOOKS = (
    FollowUp(
        "guest_list_now",
        "Who is on the meeting the dialogue is about, and what they answered.",
        _guests,
        "get_event",
        weight=1.3,
        asked=("event_id",),
    ),
    FollowUp(
        "my_week_now",
        "What the employee has coming up now.",
        _week,
        "list_upcoming_events",
        weight=1.0,
        asked=("user_id",),
    ),
    FollowUp(
        "series_dates",
        "The dates a recurring meeting of the dialogue falls on next.",
        _dates,
        "list_occurrences",
        weight=1.0,
        asked=("event_id",),
    ),
    FollowUp(
        "next_common_gap",
        "When the employee and the colleague of the dialogue are next both free.",
        _gap,
        "find_free_slot",
        weight=1.0,
        asked=("user_ids",),
    ),
)


follow_ups(calendar, LOOKS, WORDS)


@calendar.intent(covers=("get_free_busy",), follows=True, opens=False, weight=1.3)
def how_busy_that_day(s: Scene) -> None:
    """How full the employee's day is, or the colleague's the dialogue is about (the day it is about)."""
    u, other, d = talking(s), s.memory.get("other"), the_day(s)
    if other and s.rng.random() < 0.4:
        s.asked("get_free_busy", user_id=other["user_id"], date=d)
        s.say(WORDS.how_busy_that_day_colleague, f=first_name(other["name"]), w=that_day(s, d))
        s.call("get_free_busy", user_id=other["user_id"], date=d)
        return
    s.asked("get_free_busy", user_id=u["user_id"], date=d)
    s.say(WORDS.how_busy_that_day, w=that_day(s, d))
    s.call("get_free_busy", user_id=u["user_id"], date=d)


@calendar.intent(covers=("list_calendars",), follows=True, opens=False, weight=0.6)
def whose_calendars(s: Scene) -> None:
    """Which calendars the employee (or the colleague of the dialogue) keeps."""
    other = s.memory.get("other")
    if other and s.rng.random() < 0.5:
        s.asked("list_calendars", owner_id=other["user_id"])
        s.say(WORDS.whose_calendars_colleague, f=first_name(other["name"]))
        s.call("list_calendars", owner_id=other["user_id"])
        return
    u = talking(s)
    s.asked("list_calendars", owner_id=u["user_id"])
    s.say(WORDS.whose_calendars)
    s.call("list_calendars", owner_id=u["user_id"])


# Adjusting ------------------------------------------------------------------------------------------


@calendar.intent(covers=("update_event",), follows=True, opens=False, weight=1.5)
def adjust_it(s: Scene) -> None:
    """The organiser adjusts the meeting of the dialogue: a new name, a room, a little later, provisional or firm."""
    ev = running(s)
    how = s.rng.choice(("title", "room", "later", "status"))
    if how == "title":
        title = s.rng.choice([t for t in WORDS.new_titles if t != ev["title"]])
        s.say(WORDS.adjust_it, t=title)
        out = s.call("update_event", event_id=ev["event_id"], title=title)
    elif how == "room":
        room = s.rng.choice([r for r in ROOMS if r != ev["location"]])
        s.say(WORDS.adjust_it_room, r=room)
        out = s.call("update_event", event_id=ev["event_id"], location=room)
    elif how == "later":
        minutes = s.rng.choice((15, 30, 60))
        start = datetime.fromisoformat(ev["start"]) + timedelta(minutes=minutes)
        end = datetime.fromisoformat(ev["end"]) + timedelta(minutes=minutes)
        if end.date() != start.date() or end.hour >= 19:
            raise Skip("it would run into the evening")
        by = {15: "a quarter of an hour", 30: "half an hour", 60: "an hour"}[minutes]
        s.say(WORDS.adjust_it_later, by=by, t=clock(start))
        out = s.call("update_event", event_id=ev["event_id"], start=_iso(start)[:16])
    elif s.value("SELECT status FROM events WHERE event_id = ?", ev["event_id"]) == "tentative":
        s.say(WORDS.adjust_it_confirm)
        out = s.call("update_event", event_id=ev["event_id"], status="confirmed")
    else:
        s.say(WORDS.adjust_it_tentative)
        out = s.call("update_event", event_id=ev["event_id"], status="tentative")
    remember(s, out, "organizer")


@calendar.intent(covers=("list_events",), follows=True, opens=False)
def other_meetings(s: Scene) -> None:
    """Which other meetings the employee runs on the dialogue's day, or is invited to this week."""
    u = talking(s)
    d = s.memory.get("day")
    if d and s.rng.random() < 0.5:
        s.asked("list_events", organizer_id=u["user_id"], starts_after=d)
        s.say(WORDS.other_meetings_i_organise, w=that_day(s, d))
        s.call("list_events", organizer_id=u["user_id"], starts_after=d, starts_before=next_day(d))
        return
    s.asked("list_events", invitee_id=u["user_id"])
    s.say(WORDS.other_meetings)
    s.call(
        "list_events",
        invitee_id=u["user_id"],
        starts_after=s.now.date().isoformat(),
        starts_before=(s.now.date() + timedelta(days=7)).isoformat(),
    )


@calendar.intent(covers=("remove_invitee",), follows=True, opens=False, weight=0.7)
def drop_them_again(s: Scene) -> None:
    """The organiser takes the colleague of the dialogue back off the meeting of the dialogue."""
    ev, other = running(s), s.memory.get("other")
    if not other or not s.rows(
        "SELECT 1 FROM invitees WHERE event_id = ? AND user_id = ?", ev["event_id"], other["user_id"]
    ):
        raise Skip("the colleague is not on that meeting")
    s.say(WORDS.drop_them_again, f=first_name(other["name"]))
    s.call("remove_invitee", event_id=ev["event_id"], user_id=other["user_id"])
