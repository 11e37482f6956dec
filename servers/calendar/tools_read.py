"""The calendar's read tools: people, calendars, events, upcoming meetings, occurrences, free/busy, free slots."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, Query, ToolError
from servers.calendar.tools import (
    CalendarId,
    DateOrTime,
    DateStr,
    EventId,
    UserId,
    _busy,
    _event_view,
    _exdates,
    _iso,
    _merge,
    _occurrences,
    _parse,
    _rule,
    calendar,
)

# Read tools -------------------------------------------------------------------------------------


@calendar.read(returns=("user", "calendar"))
def search_users(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name, email or job title, e.g. 'Garcia'")] = "",
    department: Literal[
        "Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Design", "Legal", "Support"
    ]
    | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Find people by name, email or job title, optionally in one department, e.g. search_users('Garcia').

    Returns user ids such as 'USR-0012' with the id of their primary calendar."""
    q = Query(
        "SELECT u.user_id, u.name, u.email, u.department, u.title, u.office, c.calendar_id AS primary_calendar_id "
        "FROM users u LEFT JOIN calendars c ON c.owner_id = u.user_id AND c.kind = 'primary'"
    )
    q.contains(query, "u.name", "u.email", "u.title").equal("u.department", department)
    return q.page(ctx.db, "users", order_by="u.user_id", limit=limit, offset=offset)


@calendar.read(returns=("calendar", "user"))
def list_calendars(
    ctx: Ctx,
    owner_id: Annotated[str | None, UserId.ref("Only calendars this user owns, e.g. 'USR-0012'")] = None,
    kind: Literal["primary", "personal", "team"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List calendars with their owner and number of events, e.g. list_calendars(owner_id='USR-0012'). Ids look like
    'CAL-0017'."""
    if owner_id is not None:
        UserId.get(ctx, owner_id)
    q = Query(
        "SELECT c.*, u.name AS owner_name, (SELECT COUNT(*) FROM events e WHERE e.calendar_id = c.calendar_id) "
        "AS event_count FROM calendars c JOIN users u ON u.user_id = c.owner_id"
    )
    q.equal("c.owner_id", owner_id).equal("c.kind", kind)
    return q.page(ctx.db, "calendars", order_by="c.calendar_id", limit=limit, offset=offset)


@calendar.read(returns=("event", "calendar", "user"))
def list_events(
    ctx: Ctx,
    calendar_id: Annotated[str | None, CalendarId.ref("Only events on this calendar, e.g. 'CAL-0017'")] = None,
    organizer_id: Annotated[str | None, UserId.ref("Only events this user organises, e.g. 'USR-0012'")] = None,
    invitee_id: Annotated[str | None, UserId.ref("Only events this user is invited to, e.g. 'USR-0012'")] = None,
    status: Literal["confirmed", "tentative", "cancelled"] | None = None,
    starts_after: Annotated[
        DateOrTime | None, Field(description="Only events (series) starting at or after this, e.g. '2026-06-01'")
    ] = None,
    starts_before: Annotated[
        DateOrTime | None, Field(description="Only events (series) starting before this, e.g. '2026-06-08'")
    ] = None,
    query: Annotated[str, Field(max_length=100, description="Part of the title or location, e.g. 'review'")] = "",
    recurring: Annotated[
        bool | None, Field(description="true: only recurring series; false: only one-off events")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List events by calendar, organiser, invitee, status, start range or title text, ordered by start.

    A recurring series is listed once, at its first occurrence; use list_occurrences to expand it.
    Example: list_events(organizer_id='USR-0012', starts_after='2026-06-01')."""
    lo = _parse(starts_after, "starts_after") if starts_after else None
    hi = _parse(starts_before, "starts_before") if starts_before else None
    if lo and hi and hi <= lo:
        raise ToolError("starts_before must be later than starts_after.")
    q = Query(
        "SELECT e.event_id, e.calendar_id, e.organizer_id, e.title, e.location, e.start, e.end, e.status, "
        "(r.rule_id IS NOT NULL) AS recurring FROM events e LEFT JOIN recurrences r USING (event_id)"
    )
    q.contains(query, "e.title", "e.location")
    q.equal("e.calendar_id", calendar_id).equal("e.organizer_id", organizer_id).equal("e.status", status)
    q.filter("e.event_id IN (SELECT event_id FROM invitees WHERE user_id = ?)", invitee_id)
    q.filter("e.start >= ?", _iso(lo) if lo else None).filter("e.start < ?", _iso(hi) if hi else None)
    q.flag(recurring, "r.rule_id IS NOT NULL")
    out = q.page(ctx.db, "events", order_by="e.start, e.event_id", limit=limit, offset=offset)
    for ev in out["events"]:
        ev["recurring"] = bool(ev["recurring"])
    return out


@calendar.read(returns=("event", "calendar", "user"))
def get_event(ctx: Ctx, event_id: EventId) -> dict[str, Any]:
    """Get one event with its invitees and their RSVPs, its recurrence rule and cancelled occurrences, e.g.
    get_event('EVT-00089')."""
    return _event_view(ctx, EventId.get(ctx, event_id))


@calendar.read(returns=("event",))
def list_upcoming_events(
    ctx: Ctx,
    user_id: UserId,
    days: Annotated[int, Field(ge=1, le=60, description="How many days ahead of now to look, e.g. 7")] = 7,
    include_declined: Annotated[bool, Field(description="Also show invitations the user declined")] = False,
    limit: Limit = 50,
) -> dict[str, Any]:
    """What a user has coming up from now (the world's reference time) over the next `days` days, recurring series
    expanded, e.g. list_upcoming_events('USR-0012', days=7).

    Each item is one occurrence with the user's role (organizer or invitee) and RSVP; cancelled events are left out."""
    UserId.get(ctx, user_id)
    lo, hi = ctx.now, ctx.now + timedelta(days=days)
    found = ctx.rows(
        "SELECT e.event_id, e.title, e.location, e.start, e.end, e.organizer_id, i.response FROM events e "
        "LEFT JOIN invitees i ON i.event_id = e.event_id AND i.user_id = ? "
        "WHERE e.status != 'cancelled' AND e.start < ? AND (e.organizer_id = ? OR i.user_id IS NOT NULL) "
        "AND (e.end > ? OR e.event_id IN (SELECT event_id FROM recurrences))",
        (user_id, _iso(hi), user_id, _iso(lo)),
    )
    out = []
    for ev in found:
        if ev["response"] == "declined" and not include_declined and ev["organizer_id"] != user_id:
            continue
        for s, e in _occurrences(ev, _rule(ctx, ev["event_id"]), _exdates(ctx, ev["event_id"]), lo, hi):
            out.append(
                {
                    "event_id": ev["event_id"],
                    "title": ev["title"],
                    "location": ev["location"],
                    "start": _iso(s),
                    "end": _iso(e),
                    "role": "organizer" if ev["organizer_id"] == user_id else "invitee",
                    "response": None if ev["organizer_id"] == user_id else ev["response"],
                }
            )
    out.sort(key=lambda o: (o["start"], o["event_id"]))
    return {
        "user_id": user_id,
        "from": _iso(lo),
        "to": _iso(hi),
        "occurrences": out[:limit],
        "count": min(len(out), limit),
        "total": len(out),
    }


@calendar.read(returns=("event",))
def list_occurrences(
    ctx: Ctx,
    event_id: EventId,
    from_date: Annotated[
        DateStr | None, Field(description="First day to include, e.g. '2026-06-01'; default today")
    ] = None,
    to_date: Annotated[
        DateStr | None, Field(description="Last day to include, e.g. '2026-06-30'; default 30 days after from_date")
    ] = None,
    limit: Limit = 50,
) -> dict[str, Any]:
    """Expand an event's recurrence into dated occurrences between two days (at most 366 days apart), e.g.
    list_occurrences('EVT-01244', '2026-06-01', '2026-06-30').

    A one-off event yields its single occurrence if it falls in the range; cancelled single occurrences are marked."""
    ev = EventId.get(ctx, event_id)
    lo = _parse(from_date, "from_date") if from_date else ctx.now.replace(hour=0, minute=0, second=0)
    hi = (_parse(to_date, "to_date") if to_date else lo + timedelta(days=29)) + timedelta(days=1)
    if hi <= lo:
        raise ToolError("to_date must be on or after from_date.")
    if hi - lo > timedelta(days=367):
        raise ToolError("The range spans more than 366 days; ask for a shorter range.")
    rule = _rule(ctx, event_id)
    ex = _exdates(ctx, event_id)
    occ = _occurrences(ev, rule, set(), lo, hi, limit)
    items = [
        {
            "date": s.date().isoformat(),
            "start": _iso(s),
            "end": _iso(e),
            "status": "cancelled" if ev["status"] == "cancelled" or s.date().isoformat() in ex else ev["status"],
            "is_past": e <= ctx.now,
        }
        for s, e in occ
    ]
    return {
        "event_id": event_id,
        "title": ev["title"],
        "recurring": rule is not None,
        "occurrences": items,
        "count": len(items),
    }


@calendar.read(returns=("event",))
def get_free_busy(
    ctx: Ctx,
    user_id: UserId,
    date: Annotated[DateStr, Field(description="First day, e.g. '2026-06-02'")],
    days: Annotated[int, Field(ge=1, le=14, description="How many days, e.g. 1")] = 1,
) -> dict[str, Any]:
    """A user's busy blocks (merged) and the events behind them over one or more days, e.g.
    get_free_busy('USR-0012', '2026-06-02').

    Declined invitations and cancelled events or occurrences don't count as busy."""
    UserId.get(ctx, user_id)
    lo = _parse(date, "date")
    hi = lo + timedelta(days=days)
    blocks = _busy(ctx, user_id, lo, hi)
    merged = _merge(blocks)
    minutes = sum(int((min(e, hi) - max(s, lo)).total_seconds() // 60) for s, e in merged)
    return {
        "user_id": user_id,
        "from": _iso(lo),
        "to": _iso(hi),
        "busy": [{"start": _iso(s), "end": _iso(e)} for s, e in merged],
        "events": blocks,
        "busy_minutes": minutes,
    }


@calendar.read()
def find_free_slot(
    ctx: Ctx,
    user_ids: Annotated[
        list[Annotated[str, Field(max_length=40)]],
        Field(min_length=1, max_length=20, description="Everyone who must attend, e.g. ['USR-0012', 'USR-0031']"),
        Entity("user"),
    ],
    duration_minutes: Annotated[int, Field(ge=5, le=600, description="Meeting length in minutes, e.g. 30")],
    from_date: Annotated[
        DateStr | None, Field(description="First day to search, e.g. '2026-06-02'; default today")
    ] = None,
    days: Annotated[int, Field(ge=1, le=30, description="How many days to search, e.g. 5")] = 5,
    day_start_hour: Annotated[int, Field(ge=0, le=23, description="Earliest hour a slot may start, e.g. 9")] = 9,
    day_end_hour: Annotated[int, Field(ge=1, le=24, description="Hour by which a slot must end, e.g. 17")] = 17,
    include_weekends: bool = False,
    limit: Annotated[int, Field(ge=1, le=20, description="How many slots at most")] = 5,
) -> dict[str, Any]:
    """Find times when all the given people are free, from now on, within working hours, e.g.
    find_free_slot(['USR-0012', 'USR-0031'], 30).

    Slots start on the quarter hour and never lie in the past; pass one to create_event(check_conflicts=true)."""
    people = list(dict.fromkeys(user_ids))
    for uid in people:
        UserId.get(ctx, uid)
    if day_end_hour <= day_start_hour:
        raise ToolError("day_end_hour must be later than day_start_hour.")
    if duration_minutes > (day_end_hour - day_start_hour) * 60:
        raise ToolError(
            f"A {duration_minutes}-minute slot does not fit between {day_start_hour}:00 and {day_end_hour}:00; widen "
            f"the hours or shorten it."
        )
    first = _parse(from_date, "from_date") if from_date else ctx.now.replace(hour=0, minute=0, second=0)
    if first + timedelta(days=days) <= ctx.now:
        raise ToolError(f"The whole range lies in the past (now is {_iso(ctx.now)}); search from today or later.")
    lo, hi = first, first + timedelta(days=days)
    busy = _merge([b for uid in people for b in _busy(ctx, uid, lo, hi)])
    earliest = ctx.now + timedelta(minutes=(-ctx.now.minute) % 15)
    need = timedelta(minutes=duration_minutes)
    slots: list[dict[str, str]] = []
    for d in range(days):
        day = first + timedelta(days=d)
        if day.weekday() >= 5 and not include_weekends:
            continue
        t = max(day + timedelta(hours=day_start_hour), earliest)
        stop = day + timedelta(hours=day_end_hour)
        while t + need <= stop and len(slots) < limit:
            clash = next((e for s, e in busy if s < t + need and e > t), None)
            if clash is None:
                slots.append({"start": _iso(t), "end": _iso(t + need)})
                t += need
            else:
                t = clash + timedelta(minutes=(-clash.minute) % 15)
        if len(slots) >= limit:
            break
    return {"user_ids": people, "duration_minutes": duration_minutes, "slots": slots, "count": len(slots)}


calendar.distinct_values(
    {
        "department": ("users", "department"),
        "office": ("users", "office"),
        "calendar_kind": ("calendars", "kind"),
        "event_status": ("events", "status"),
        "location": ("events", "location"),
        "rsvp_response": ("invitees", "response"),
        "recurrence_freq": ("recurrences", "freq"),
    },
    example="rsvp_response",
    top=100,
)
