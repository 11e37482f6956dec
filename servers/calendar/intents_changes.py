"""Calendar intents that change meetings the employee runs (move, call off, make recurring, skip a date); each
opens a dialogue or continues one about the same meeting ("actually, move it to 3 pm"). The shared helpers are
in ``intents``, guests and invitations in ``intents_guests``.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, clock, day
from servers.calendar.intents import (
    CANCEL_WHY,
    FREQ_WORDS,
    WORDS,
    _iso,
    find_me,
    hi,
    locate_mine,
    me,
    my_event,
    organiser,
    pick,
    remember,
    the_event,
    the_meeting,
    upcoming_mine,
)
from servers.calendar.tools import calendar

# Changing my own meetings --------------------------------------------------------------------------


def _mine_to_change(s: Scene, extra: str = "1=1") -> tuple[dict[str, Any], dict[str, Any], str | None, str]:
    """The organiser, the meeting, how they name it (None: "it", the meeting the dialogue is about) and how the
    agent should look it up."""
    ev = the_meeting(s, extra) if s.rng.random() < 0.8 else None
    if ev is not None:
        return me(s), ev, None, "known"
    u = organiser(s, extra)
    ev = upcoming_mine(s, u, extra)
    known = s.memory.get("event")
    if known and known["event_id"] == ev["event_id"]:
        raise Skip("the meeting of the dialogue is named as 'it'")
    text, how = my_event(s, ev, u["user_id"])
    return u, ev, text, how


def _found(s: Scene, u: dict[str, Any], ev: dict[str, Any], how: str) -> dict[str, Any]:
    if how == "known":
        return dict(s.memory["event"])
    mine = find_me(s, u)
    return locate_mine(s, mine["user_id"], ev, how)


@calendar.intent(
    covers=("search_users", "list_events", "list_upcoming_events", "update_event", "get_event"),
    weight=1.3,
    follows=True,
)
def move_meeting(s: Scene) -> None:
    """The organiser moves a meeting to another time; then maybe asks who has to confirm again."""
    u, ev, what, how = _mine_to_change(s)
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
    to = (
        f"{day(new_day, s.now).removeprefix('on ')} at {clock(new)}"
        if new_day != old.date()
        else f"{clock(new)} the same day"
    )
    if what is None:
        s.say(WORDS.move_meeting_that_one, to=to)
    else:
        s.say(WORDS.move_meeting_named, hi=hi(s, u), what=what, to=to)
    found = _found(s, u, ev, how)
    moved = s.call("update_event", event_id=found["event_id"], start=_iso(new)[:16])
    remember(s, moved, "organizer")
    if not s.room() or s.rng.random() < 0.6:
        return
    s.say(WORDS.move_meeting)
    s.call("get_event", event_id=found["event_id"])


@calendar.intent(
    covers=("search_users", "list_events", "list_upcoming_events", "cancel_event", "get_free_busy"), follows=True
)
def call_off_meeting(s: Scene) -> None:
    """The organiser cancels a meeting, then maybe looks at the day it freed up."""
    u, ev, what, how = _mine_to_change(s)
    reason = s.rng.choice(list(CANCEL_WHY))
    if what is None:
        s.say(WORDS.call_off_meeting_that_one, why=CANCEL_WHY[reason])
    else:
        s.say(WORDS.call_off_meeting_named, hi=hi(s, u), what=what, why=CANCEL_WHY[reason])
    found = _found(s, u, ev, how)
    args: dict[str, Any] = {"event_id": found["event_id"]}
    if not s.minimal:
        args["reason"] = reason
    s.call("cancel_event", **args)
    s.memory["day"] = ev["start"][:10]
    s.memory.pop("event", None)
    if not s.room() or s.rng.random() < 0.6:
        return
    s.say(WORDS.call_off_meeting)
    s.call("get_free_busy", user_id=s.memory["me"]["user_id"], date=ev["start"][:10])


@calendar.intent(
    covers=("search_users", "list_events", "list_upcoming_events", "set_recurrence", "list_occurrences"), follows=True
)
def make_it_recurring(s: Scene) -> None:
    """A one-off meeting becomes a regular one; the organiser maybe checks the dates it lands on."""
    extra = (
        "CAST(strftime('%w', start) AS INTEGER) BETWEEN 1 AND 5 "
        "AND calendar_id NOT IN (SELECT calendar_id FROM calendars WHERE kind = 'personal')"
    )
    u, ev, what, how = _mine_to_change(s, extra)
    freq = s.rng.choice(("weekly", "weekly", "daily", "monthly"))
    count = s.rng.choice((4, 6, 8, 10))
    often = s.given(freq, FREQ_WORDS[freq], "how often", "set_recurrence", "freq")
    if what is None:
        s.say(WORDS.make_it_recurring_that_one, how=often, n=count)
    else:
        s.say(WORDS.make_it_recurring_named, hi=hi(s, u), what=what, how=often, n=count)
    found = _found(s, u, ev, how)
    args: dict[str, Any] = {"event_id": found["event_id"], "freq": freq, "count": count}
    if freq == "daily":
        args["by_weekday"] = ["MO", "TU", "WE", "TH", "FR"]
    made = s.call("set_recurrence", **args)
    remember(s, made, "organizer", recurring=True)
    if not s.room() or s.rng.random() < 0.5:
        return
    s.say(WORDS.make_it_recurring)
    first = ev["start"][:10]
    last = date.fromisoformat(first) + timedelta(days={"daily": 20, "weekly": 7 * count, "monthly": 31 * count}[freq])
    s.call("list_occurrences", event_id=found["event_id"], from_date=first, to_date=last.isoformat())


@calendar.intent(
    covers=("search_users", "list_events", "list_occurrences", "cancel_occurrence"), weight=1.2, follows=True
)
def skip_one_session(s: Scene) -> None:
    """The organiser of a weekly 1:1 skips one date of it (the date said up front, or picked from the list)."""
    u = me(
        s,
        "user_id IN (SELECT e.organizer_id FROM events e JOIN recurrences r USING (event_id) "
        "WHERE e.status != 'cancelled' AND e.title LIKE 'Weekly 1:1%' AND (r.until IS NULL OR r.until > ?))",
        s.now.date().isoformat(),
    )
    ev = pick(
        s,
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
    if s.rng.random() < 0.5:
        _skip_known_date(s, u, ev, what)
        return
    s.say(WORDS.skip_one_session, hi=hi(s, u), what=what)
    found = _series(s, u, ev)
    occ = s.call("list_occurrences", event_id=found["event_id"])["occurrences"]
    ahead = [o for o in occ if o["status"] != "cancelled" and o["start"] > _iso(s.now)]
    if not ahead:
        raise Skip("no future occurrence")
    if not s.room(calls=1):
        return
    o = s.rng.choice(ahead)
    s.say(WORDS.skip_one_session_drop_date, d=day(o["date"], s.now))
    s.call("cancel_occurrence", event_id=found["event_id"], occurrence_date=o["date"])
    s.memory["day"] = o["date"]


def _series(s: Scene, u: dict[str, Any], ev: dict[str, Any]) -> dict[str, Any]:
    mine = find_me(s, u)
    found = s.find(
        "list_events",
        "events",
        "event_id",
        ev["event_id"],
        missing="the series is not in the listing",
        organizer_id=mine["user_id"],
        recurring=True,
        query="1:1",
    )
    remember(s, found, "organizer", recurring=True)
    return found


def _skip_known_date(s: Scene, u: dict[str, Any], ev: dict[str, Any], what: str) -> None:
    """The user names the date to skip: the agent finds the series and drops that date."""
    rows = s.rows("SELECT occurrence_date FROM cancelled_occurrences WHERE event_id = ?", ev["event_id"])
    gone = {r["occurrence_date"] for r in rows}
    first = datetime.fromisoformat(ev["start"])
    k0 = max(0, (s.now - first).days // 7)
    dates = [
        (first + timedelta(weeks=k)).date()
        for k in range(k0, k0 + 8)
        if first + timedelta(weeks=k) > s.now + timedelta(days=1)
    ][:6]
    dates = [d for d in dates if d.isoformat() not in gone]
    rule = s.rows("SELECT freq, interval, by_weekday, count, until FROM recurrences WHERE event_id = ?", ev["event_id"])
    if not dates or not rule or rule[0]["freq"] != "weekly" or rule[0]["interval"] != 1 or rule[0]["count"]:
        raise Skip("not a plain weekly series")
    if rule[0]["by_weekday"] not in (None, first.strftime("%a")[:2].upper()):
        raise Skip("the series falls on other weekdays")
    d = s.rng.choice(dates)
    if rule[0]["until"] and d.isoformat() > rule[0]["until"]:
        raise Skip("the series ends before")
    when = s.given(d.isoformat(), day(d, s.now), "date", "cancel_occurrence", "occurrence_date")
    s.say(WORDS.skip_known_date, hi=hi(s, u), what=what, when=when)
    found = _series(s, u, ev)
    s.call("cancel_occurrence", event_id=found["event_id"], occurrence_date=d.isoformat())
    s.memory["day"] = d.isoformat()


@calendar.intent(covers=("cancel_occurrence",), follows=True, opens=False)
def skip_one_date(s: Scene) -> None:
    """The organiser drops one upcoming date of the recurring meeting of the dialogue."""
    ev = the_event(s)
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
    s.say(WORDS.skip_one_date, d=day(d, s.now))
    s.call("cancel_occurrence", event_id=ev["event_id"], occurrence_date=d.isoformat())
    s.memory["day"] = d.isoformat()
