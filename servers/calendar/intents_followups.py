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
    NEW_TITLES,
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
        phrasings=(
            "Who's on that one now, and have they answered?",
            "Show me who's coming to it.",
            "Who's invited to the {t}?",
            "What does the guest list look like for it now?",
            "{Has everyone|Have people} {answered|replied} {yet|so far}? Who's {coming|in}?",
            "{Could|Can} you {check|pull up} {who's on|the guest list for} the {t}{| now}?",
            "{Remind me|Tell me} who {I've got|is} on the {t}{|, and who said yes}.",
            "{So|OK,} {who's|who is} {attending|confirmed} {now|at this point}?",
        ),
    ),
    FollowUp(
        "my_week_now",
        "What the employee has coming up now.",
        _week,
        "list_upcoming_events",
        weight=1.0,
        asked=("user_id",),
        phrasings=(
            "What does {span} look like for me now?",
            "So what's on my plate for {span}?",
            "{And|OK, and} what's {coming up|ahead} for me {over|in} {span}?",
            "{Can|Could} you {run me through|go over} {span} {again|once more}?",
            "{With that done|Now}, {how does|what does} {span} look?",
            "{Show|Give} me {span}{| as it stands now}.",
        ),
    ),
    FollowUp(
        "series_dates",
        "The dates a recurring meeting of the dialogue falls on next.",
        _dates,
        "list_occurrences",
        weight=1.0,
        asked=("event_id",),
        phrasings=(
            "When does it happen over the next {n} weeks?",
            "List its dates for the next {n} weeks.",
            "Which days does that series land on in the coming {n} weeks?",
            "{So|OK,} {which dates|what dates} {does that give me|is it on} {over|for} the next {n} weeks?",
            "{Show|Give} me the {sessions|meetings} {in|over} the {next|coming} {n} weeks.",
            "{When are|What are} the {next|upcoming} {sessions|occurrences}, {say|for} the next {n} weeks?",
        ),
    ),
    FollowUp(
        "next_common_gap",
        "When the employee and the colleague of the dialogue are next both free.",
        _gap,
        "find_free_slot",
        weight=1.0,
        asked=("user_ids",),
        phrasings=(
            "When are {f} and I next both free for {m} minutes?",
            "Find the next {m} minutes {f} and I share.",
            "When could {f} and I grab {m} minutes together?",
            "{Is there|Find me} {a|some} {m}-minute {gap|window} when {f} and I are both free{| soon}?",
            "{Could|Can} you {look for|find} {m} minutes {f} and I {both have free|have in common}?",
            "{Next|Earliest} time {f} and I {could meet|are both open} for {m} minutes?",
        ),
    ),
)


follow_ups(calendar, LOOKS)


@calendar.intent(covers=("get_free_busy",), follows=True, opens=False, weight=1.3)
def how_busy_that_day(s: Scene) -> None:
    """How full the employee's day is, or the colleague's the dialogue is about (the day it is about)."""
    u, other, d = talking(s), s.memory.get("other"), the_day(s)
    if other and s.rng.random() < 0.4:
        s.asked("get_free_busy", user_id=other["user_id"], date=d)
        s.say(
            "Does {f} have much else on {w}?",
            "And how busy is {f} {w}?",
            "What does {f}'s day look like {w}?",
            "{Is|How} {f} {free|booked up} {w}? {Anything else on|What's on their calendar}?",
            "{Could|Can} you {check|look at} {f}'s {calendar|schedule} for {w}?",
            f=first_name(other["name"]),
            w=that_day(s, d),
        )
        s.call("get_free_busy", user_id=other["user_id"], date=d)
        return
    s.asked("get_free_busy", user_id=u["user_id"], date=d)
    s.say(
        "How packed am I {w} now?",
        "What does my day look like {w}?",
        "So when am I busy {w}?",
        "{And|OK, and} {how full is|what's left of} my {day|calendar} {w}?",
        "{Show|Give} me my {busy times|schedule} for {w}{|, please}.",
        "{Am I|Will I be} {free at all|swamped} {w}? {Check|Look at} my day.",
        w=that_day(s, d),
    )
    s.call("get_free_busy", user_id=u["user_id"], date=d)


@calendar.intent(covers=("list_calendars",), follows=True, opens=False, weight=0.6)
def whose_calendars(s: Scene) -> None:
    """Which calendars the employee (or the colleague of the dialogue) keeps."""
    other = s.memory.get("other")
    if other and s.rng.random() < 0.5:
        s.asked("list_calendars", owner_id=other["user_id"])
        s.say(
            "Which calendars does {f} keep?",
            "What calendars does {f} have?",
            "{Does|Has} {f} {got|have} more than one calendar? {Which ones|List them}.",
            "{Show|List} {f}'s calendars{|, please}.",
            f=first_name(other["name"]),
        )
        s.call("list_calendars", owner_id=other["user_id"])
        return
    u = talking(s)
    s.asked("list_calendars", owner_id=u["user_id"])
    s.say(
        "Which calendars do I have, by the way?",
        "Remind me what calendars I keep.",
        "{What|Which} calendars {are mine|do I own}{|, again}?",
        "{Could|Can} you {list|show} {my calendars|the calendars I have}?",
        "{By the way|Quick one}: how many calendars do I {have|keep}, and which?",
    )
    s.call("list_calendars", owner_id=u["user_id"])


# Adjusting ------------------------------------------------------------------------------------------


@calendar.intent(covers=("update_event",), follows=True, opens=False, weight=1.5)
def adjust_it(s: Scene) -> None:
    """The organiser adjusts the meeting of the dialogue: a new name, a room, a little later, provisional or firm."""
    ev = running(s)
    how = s.rng.choice(("title", "room", "later", "status"))
    if how == "title":
        title = s.rng.choice([t for t in NEW_TITLES if t != ev["title"]])
        s.say(
            "Actually, call it '{t}' instead.",
            "Rename that one to '{t}'.",
            "Can you change its name to '{t}'?",
            "{Let's|Better} {call|rename} it '{t}'{| instead}.",
            t=title,
        )
        out = s.call("update_event", event_id=ev["event_id"], title=title)
    elif how == "room":
        room = s.rng.choice([r for r in ROOMS if r != ev["location"]])
        s.say(
            "Put it in {r}, please.",
            "Let's hold it in {r}.",
            "Book {r} for it.",
            "{Can|Could} we {have|use} {r} for it{| instead}?",
            "{Move|Switch} it to {r}{|, please}.",
            r=room,
        )
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
            "Make it {by} later, {t} start{|, same length}.",
            "Can it start at {t} instead? Same length.",
            "{Shift|Move} it {back |}{by}, so the start is {t}.",
            by=by,
            t=clock(start),
        )
        out = s.call("update_event", event_id=ev["event_id"], start=_iso(start)[:16])
    elif s.value("SELECT status FROM events WHERE event_id = ?", ev["event_id"]) == "tentative":
        s.say(
            "It's happening for sure now, firm it up.",
            "Mark it as confirmed{|, please}.",
            "That one's definite now.",
            "{It's on|We're going ahead} - {confirm it|set it to confirmed}.",
        )
        out = s.call("update_event", event_id=ev["event_id"], status="confirmed")
    else:
        s.say(
            "Mark it as provisional for now.",
            "It's not final yet, flag it as tentative.",
            "{Pencil it in|Keep it pencilled in} only.",
            "{It might still move|Not sure it'll happen} - {make it|mark it} tentative.",
        )
        out = s.call("update_event", event_id=ev["event_id"], status="tentative")
    remember(s, out, "organizer")


@calendar.intent(covers=("list_events",), follows=True, opens=False)
def other_meetings(s: Scene) -> None:
    """Which other meetings the employee runs on the dialogue's day, or is invited to this week."""
    u = talking(s)
    d = s.memory.get("day")
    if d and s.rng.random() < 0.5:
        s.asked("list_events", organizer_id=u["user_id"], starts_after=d)
        s.say(
            "What else am I running {w}?",
            "Which other meetings have I set up {w}?",
            "Anything else I organise {w}?",
            "{And|So} {what other meetings|which others} am I {hosting|running} {w}?",
            "{Show|List} the {other |}meetings I've {set up|organised} {w}.",
            w=that_day(s, d),
        )
        s.call("list_events", organizer_id=u["user_id"], starts_after=d, starts_before=next_day(d))
        return
    s.asked("list_events", invitee_id=u["user_id"])
    s.say(
        "What have other people invited me to this week?",
        "Which meetings am I a guest at over the next seven days?",
        "And what am I asked to by others this week?",
        "{Which|What} {invitations|invites} do I have {this week|for the next seven days}?",
        "{Show|List} the meetings {others|other people} {have invited me to|put me on} {this week|over the next week}.",
        "{Am I|What am I} {invited to|on} {anything|any meetings} {someone else runs|others organise} this week?",
    )
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
    s.say(
        "Actually, take {f} off it again.",
        "On reflection {f} doesn't need to be there, remove them.",
        "Drop {f} from it after all.",
        "{Remove|Take} {f} {off the invite|off the list}{|, please}.",
        "{Hmm|Wait}, {f} {doesn't need to come|can skip it} - {take them off|remove them}.",
        "{Let's not|No need to} {include|invite} {f}{| after all}. {Remove|Drop} them.",
        f=first_name(other["name"]),
    )
    s.call("remove_invitee", event_id=ev["event_id"], user_id=other["user_id"])
