"""The calendar's write tools: create, update and cancel events, recurring series and their occurrences,
invitees and RSVPs."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, ToolError, next_id
from servers.calendar.schema import MAX_INVITEES, MAX_SERIES_SPAN, WEEKDAYS
from servers.calendar.tools import (
    CalendarId,
    DateStr,
    DateTimeStr,
    EventId,
    Text,
    Title,
    UserId,
    Weekday,
    _check_conflicts,
    _event_view,
    _exdates,
    _iso,
    _modifiable,
    _occurrences,
    _parse,
    _rule,
    _starts,
    _times,
    calendar,
)

# Write tools ------------------------------------------------------------------------------------


def _invitee_list(ctx: Ctx, ids: list[str], organizer: str) -> list[str]:
    people = list(dict.fromkeys(ids))
    for uid in people:
        UserId.get(ctx, uid)
        if uid == organizer:
            raise ToolError(
                f"{uid} organises this event (owner of the calendar) and attends anyway; leave them out of the "
                f"invitees."
            )
    if len(people) > MAX_INVITEES:
        raise ToolError(f"At most {MAX_INVITEES} invitees per event.")
    return people


@calendar.write(returns=("event",))
def create_event(
    ctx: Ctx,
    calendar_id: CalendarId,
    title: Title,
    start: Annotated[DateTimeStr, Field(description="Start, e.g. '2026-06-03T14:00'")],
    end: Annotated[DateTimeStr, Field(description="End, after the start, e.g. '2026-06-03T14:30'")],
    location: Annotated[
        str, Field(max_length=200, description="Room, address or video link, e.g. 'Room 2A - Rainier'")
    ] = "",
    description: Text = "",
    invitee_ids: Annotated[
        list[Annotated[str, Field(max_length=40)]],
        Field(max_length=50, description="Users to invite, e.g. ['USR-0031']"),
        Entity("user"),
    ] = [],  # noqa: B006
    status: Literal["confirmed", "tentative"] = "confirmed",
    check_conflicts: Annotated[
        bool, Field(description="Refuse if the organiser or an invitee is already busy then")
    ] = False,
) -> dict[str, Any]:
    """Create an event on a calendar (organised by the calendar's owner) and invite people, e.g.
    create_event('CAL-0017', 'Design review', '2026-06-03T13:00', '2026-06-03T13:30', invitee_ids=['USR-0031'],
    check_conflicts=True).

    The start must be in the future and the end after the start. Returns the new event id."""
    cal = CalendarId.get(ctx, calendar_id)
    s, e = _parse(start, "start"), _parse(end, "end")
    _times(ctx, s, e)
    people = _invitee_list(ctx, invitee_ids, cal["owner_id"])
    if check_conflicts:
        _check_conflicts(ctx, [cal["owner_id"], *people], s, e)
    event_id = next_id(ctx.db, "events", "event_id", "EVT", 5)
    ctx.db.execute(
        "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            event_id,
            calendar_id,
            cal["owner_id"],
            title,
            description,
            location,
            _iso(s),
            _iso(e),
            status,
            None,
            _iso(ctx.now),
            _iso(ctx.now),
        ),
    )
    ctx.db.executemany(
        "INSERT INTO invitees VALUES (?,?,?,?,?)", [(event_id, uid, "needs_action", 0, None) for uid in people]
    )
    return _event_view(ctx, EventId.get(ctx, event_id))


@calendar.write(returns=("event",))
def update_event(
    ctx: Ctx,
    event_id: EventId,
    title: Title | None = None,
    start: Annotated[
        DateTimeStr | None, Field(description="New start, e.g. '2026-06-04T10:00'; alone it keeps the duration")
    ] = None,
    end: Annotated[DateTimeStr | None, Field(description="New end, e.g. '2026-06-04T11:00'")] = None,
    location: Annotated[str | None, Field(max_length=200, description="New location")] = None,
    description: Annotated[str | None, Field(max_length=2000, description="New description")] = None,
    status: Literal["confirmed", "tentative"] | None = None,
    check_conflicts: Annotated[
        bool, Field(description="Refuse a new time that double-books the organiser or an attending invitee")
    ] = False,
) -> dict[str, Any]:
    """Change an upcoming event's title, time, location, description or status, e.g.
    update_event('EVT-00089', start='2026-06-04T14:00').

    Moving a recurring series moves all its occurrences to start at the new time. A time change
    resets every invitee's RSVP to 'needs_action'. Past and cancelled events cannot be changed."""
    ev = EventId.get(ctx, event_id)
    _modifiable(ctx, ev)
    changes: dict[str, Any] = {
        k: v
        for k, v in (("title", title), ("location", location), ("description", description), ("status", status))
        if v is not None and v != ev[k]
    }
    if start is not None or end is not None:
        old_s, old_e = datetime.fromisoformat(ev["start"]), datetime.fromisoformat(ev["end"])
        s = _parse(start, "start") if start is not None else old_s
        e = _parse(end, "end") if end is not None else (s + (old_e - old_s) if start is not None else old_e)
        if (s, e) != (old_s, old_e):
            _times(ctx, s, e)
            rule = _rule(ctx, event_id)
            if rule and rule["until"] and s.date().isoformat() > rule["until"]:
                raise ToolError(
                    f"The series ends on {rule['until']}, before the new start; change the rule with set_recurrence "
                    f"first."
                )
            if check_conflicts:
                people = [ev["organizer_id"]] + ctx.column(
                    "SELECT user_id FROM invitees WHERE event_id = ? AND response != 'declined'", (event_id,)
                )
                _check_conflicts(ctx, people, s, e, skip_event=event_id)
            changes["start"], changes["end"] = _iso(s), _iso(e)
    if not changes:
        raise ToolError("Nothing to change: give at least one field whose value differs from the current event.")
    EventId.update(ctx, event_id, {**changes, "updated_at": _iso(ctx.now)})
    if "start" in changes:
        ctx.db.execute(
            "UPDATE invitees SET response = 'needs_action', responded_at = NULL WHERE event_id = ?", (event_id,)
        )
    out = _event_view(ctx, EventId.get(ctx, event_id))
    out["changed"] = sorted(changes)
    return out


@calendar.write()
def cancel_event(
    ctx: Ctx,
    event_id: EventId,
    reason: Annotated[
        str, Field(max_length=200, description="Why, e.g. 'Organizer out sick'")
    ] = "Cancelled by organizer",
) -> dict[str, Any]:
    """Cancel an event or a whole recurring series, e.g. cancel_event('EVT-00089', 'Rescheduled'). Cancelling is final;
    to drop one date of a series use cancel_occurrence instead."""
    ev = EventId.get(ctx, event_id)
    _modifiable(ctx, ev)
    ctx.db.execute(
        "UPDATE events SET status = 'cancelled', cancel_reason = ?, updated_at = ? WHERE event_id = ?",
        (reason, _iso(ctx.now), event_id),
    )
    return {"event_id": event_id, "status": "cancelled", "reason": reason}


@calendar.write(returns=("event",))
def set_recurrence(
    ctx: Ctx,
    event_id: EventId,
    freq: Literal["daily", "weekly", "monthly", "none"],
    interval: Annotated[int, Field(ge=1, le=52, description="Every how many days/weeks/months, e.g. 1")] = 1,
    by_weekday: Annotated[
        list[Weekday] | None, Field(max_length=7, description="Daily or weekly only: the weekdays, e.g. ['MO', 'WE']")
    ] = None,
    count: Annotated[int | None, Field(ge=1, le=500, description="End after this many occurrences, e.g. 10")] = None,
    until: Annotated[DateStr | None, Field(description="Last day occurrences may fall on, e.g. '2026-08-31'")] = None,
) -> dict[str, Any]:
    """Make an upcoming event repeat, replace its rule, or stop it repeating (freq='none'), e.g.
    set_recurrence('EVT-00089', 'weekly', by_weekday=['TU', 'TH'], count=10).

    Occurrences fall on by_weekday (default: the start's weekday). Give count or until, not both
    (neither: repeats with no end, shown for up to two years)."""
    ev = EventId.get(ctx, event_id)
    _modifiable(ctx, ev)
    rule = _rule(ctx, event_id)
    if freq == "none":
        if rule is None:
            raise ToolError(f"Event {event_id} does not repeat; nothing to remove.")
        ctx.db.execute("DELETE FROM recurrences WHERE event_id = ?", (event_id,))
        ctx.db.execute("DELETE FROM cancelled_occurrences WHERE event_id = ?", (event_id,))
        return _event_view(ctx, EventId.get(ctx, event_id))
    if count is not None and until is not None:
        raise ToolError("Give either count or until, not both.")
    if by_weekday and freq == "monthly":
        raise ToolError(
            "by_weekday only applies to daily or weekly rules; a monthly rule repeats on the start's day of the month."
        )
    start = datetime.fromisoformat(ev["start"])
    if until is not None:
        u = _parse(until, "until")
        if u.date() < start.date():
            raise ToolError(f"until ({until}) is before the event's first occurrence ({ev['start'][:10]}).")
        if u - start > MAX_SERIES_SPAN:
            raise ToolError("until may be at most two years after the first occurrence.")
        until = u.date().isoformat()
    days = ",".join(sorted(set(by_weekday), key=WEEKDAYS.index)) if by_weekday else None
    new = {"freq": freq, "interval": interval, "by_weekday": days, "count": count, "until": until}
    if rule and all(rule[k] == v for k, v in new.items()):
        raise ToolError(f"Event {event_id} already repeats with exactly this rule.")
    probe = dict(new)
    first = next(iter(_starts(start, probe)), None)
    if first is None:
        raise ToolError("This rule yields no occurrence at all; check by_weekday, count and until.")
    if rule:
        ctx.db.execute(
            "UPDATE recurrences SET freq = ?, interval = ?, by_weekday = ?, count = ?, until = ? WHERE event_id = ?",
            (freq, interval, days, count, until, event_id),
        )
    else:
        rule_id = next_id(ctx.db, "recurrences", "rule_id", "RRL")
        ctx.db.execute(
            "INSERT INTO recurrences VALUES (?,?,?,?,?,?,?)", (rule_id, event_id, freq, interval, days, count, until)
        )
    ctx.db.execute("UPDATE events SET updated_at = ? WHERE event_id = ?", (_iso(ctx.now), event_id))
    return _event_view(ctx, EventId.get(ctx, event_id))


@calendar.write(requires=("set_recurrence",))
def cancel_occurrence(
    ctx: Ctx,
    event_id: EventId,
    occurrence_date: Annotated[DateStr, Field(description="The date of the occurrence to drop, e.g. '2026-06-08'")],
) -> dict[str, Any]:
    """Cancel one future occurrence of a recurring series, keeping the rest, e.g.
    cancel_occurrence('EVT-01244', '2026-06-15').

    Use list_occurrences to see which dates the series falls on."""
    ev = EventId.get(ctx, event_id)
    rule = _rule(ctx, event_id)
    if rule is None:
        raise ToolError(f"Event {event_id} is not recurring; cancel it with cancel_event instead.")
    _modifiable(ctx, ev)
    day = _parse(occurrence_date, "occurrence_date")
    occ = _occurrences(ev, rule, set(), day, day + timedelta(days=1))
    occ = [(s, e) for s, e in occ if s.date() == day.date()]
    if not occ:
        raise ToolError(f"Series {event_id} has no occurrence on {occurrence_date}; list_occurrences shows its dates.")
    if occ[0][0] < ctx.now:
        raise ToolError(
            f"The occurrence on {occurrence_date} already started at {_iso(occ[0][0])}; past occurrences cannot be "
            f"cancelled."
        )
    if occurrence_date in _exdates(ctx, event_id):
        raise ToolError(f"The occurrence on {occurrence_date} is already cancelled.")
    ctx.db.execute("INSERT INTO cancelled_occurrences VALUES (?,?,?)", (event_id, occurrence_date, _iso(ctx.now)))
    return {"event_id": event_id, "occurrence_date": occurrence_date, "status": "cancelled"}


@calendar.write()
def add_invitee(
    ctx: Ctx,
    event_id: EventId,
    user_id: UserId,
    optional: Annotated[bool, Field(description="Invite as optional attendee")] = False,
    check_conflicts: Annotated[bool, Field(description="Refuse if the person is already busy at that time")] = False,
) -> dict[str, Any]:
    """Invite a person to an upcoming event, e.g. add_invitee('EVT-00089', 'USR-0031'). Their RSVP starts as
    'needs_action'."""
    ev = EventId.get(ctx, event_id)
    UserId.get(ctx, user_id)
    _modifiable(ctx, ev)
    if user_id == ev["organizer_id"]:
        raise ToolError(f"{user_id} organises event {event_id}; the organiser is not an invitee.")
    if ctx.db.execute("SELECT 1 FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id)).fetchone():
        raise ToolError(f"{user_id} is already invited to {event_id}; see get_event for their RSVP.")
    n = ctx.value("SELECT COUNT(*) FROM invitees WHERE event_id = ?", (event_id,))
    if n >= MAX_INVITEES:
        raise ToolError(f"Event {event_id} already has the maximum of {MAX_INVITEES} invitees; remove someone first.")
    if check_conflicts:
        upcoming = _occurrences(
            ev, _rule(ctx, event_id), _exdates(ctx, event_id), ctx.now, ctx.now + MAX_SERIES_SPAN, limit=1
        )
        if upcoming:
            _check_conflicts(ctx, [user_id], *upcoming[0])
    ctx.db.execute("INSERT INTO invitees VALUES (?,?,?,?,?)", (event_id, user_id, "needs_action", int(optional), None))
    return {"event_id": event_id, "user_id": user_id, "response": "needs_action", "optional": optional}


@calendar.write(requires=("add_invitee",))
def remove_invitee(ctx: Ctx, event_id: EventId, user_id: UserId) -> dict[str, Any]:
    """Take a person off an upcoming event's guest list, e.g. remove_invitee('EVT-00089', 'USR-0062')."""
    ev = EventId.get(ctx, event_id)
    _modifiable(ctx, ev)
    if not ctx.db.execute("SELECT 1 FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id)).fetchone():
        raise ToolError(f"{user_id} is not invited to {event_id}; get_event lists its invitees.")
    ctx.db.execute("DELETE FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id))
    return {"event_id": event_id, "user_id": user_id, "removed": True}


@calendar.write()
def respond_to_invite(
    ctx: Ctx, event_id: EventId, user_id: UserId, response: Literal["accepted", "declined", "tentative"]
) -> dict[str, Any]:
    """Record an invitee's RSVP to an upcoming event (for a series: the whole series), e.g.
    respond_to_invite('EVT-00089', 'USR-0062', 'accepted').

    Only invitees answer; the organiser does not RSVP."""
    ev = EventId.get(ctx, event_id)
    found = ctx.db.execute(
        "SELECT response FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id)
    ).fetchone()
    if found is None:
        if user_id == ev["organizer_id"]:
            raise ToolError(f"{user_id} organises {event_id}; organisers don't RSVP.")
        raise ToolError(
            f"{user_id} is not invited to {event_id}; only invitees can RSVP (add them with add_invitee first)."
        )
    _modifiable(ctx, ev)
    if found[0] == response:
        raise ToolError(f"{user_id} has already answered '{response}' for {event_id}.")
    ctx.db.execute(
        "UPDATE invitees SET response = ?, responded_at = ? WHERE event_id = ? AND user_id = ?",
        (response, _iso(ctx.now), event_id, user_id),
    )
    return {"event_id": event_id, "user_id": user_id, "response": response, "previous": found[0]}


server = calendar
