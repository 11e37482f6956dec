"""The calendar tools: people, calendars, events, invitees, recurring series, free/busy."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import (
    Ctx,
    Entity,
    IsoDate,
    IsoDateOrTime,
    IsoDateTime,
    Limit,
    Offset,
    Query,
    Server,
    ToolError,
    next_id,
    parse_datetime,
    rows,
)
from servers.calendar.schema import (
    MAX_EVENT_SPAN,
    MAX_INVITEES,
    MAX_SERIES_SPAN,
    SCHEMA,
    WEEKDAYS,
)
from servers.calendar.seed import seed

calendar = Server(
    "calendar",
    "Calendars: events, invitees and RSVPs, recurring series, free/busy and scheduling.",
    SCHEMA,
    seed,
    family="comms",
)

USER = calendar.entity("user", table="users", key="user_id", example="USR-0012", finder="search_users", max_length=40)
CALENDAR = calendar.entity(
    "calendar", table="calendars", key="calendar_id", example="CAL-0017", finder="list_calendars", max_length=40
)
EVENT = calendar.entity(
    "event",
    table="events",
    key="event_id",
    example="EVT-00089",
    max_length=40,
    hint="Use list_events or list_upcoming_events to find event ids.",
)

UserId = Annotated[str, USER]
CalendarId = Annotated[str, CALENDAR]
EventId = Annotated[str, EVENT]
DateTimeStr = Annotated[IsoDateTime, Field(description="Local date-time 'YYYY-MM-DDTHH:MM', e.g. '2026-06-03T14:00'")]
DateStr = Annotated[IsoDate, Field(description="A date 'YYYY-MM-DD', e.g. '2026-06-02'")]
DateOrTime = Annotated[
    IsoDateOrTime, Field(description="A date 'YYYY-MM-DD' or date-time 'YYYY-MM-DDTHH:MM', e.g. '2026-06-01'")
]
Weekday = Literal["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
Title = Annotated[str, Field(min_length=1, max_length=200, description="Event title, e.g. 'Design review'")]
Text = Annotated[str, Field(max_length=2000)]


# Helpers ---------------------------------------------------------------------------------------


def _parse(value: str, name: str) -> datetime:
    return parse_datetime(value, name, "2026-06-03T14:00")


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def _rule(ctx: Ctx, event_id: str) -> dict[str, Any] | None:
    found = rows(ctx.db.execute("SELECT * FROM recurrences WHERE event_id = ?", (event_id,)))
    return found[0] if found else None


def _exdates(ctx: Ctx, event_id: str) -> set[str]:
    return {
        r[0]
        for r in ctx.db.execute("SELECT occurrence_date FROM cancelled_occurrences WHERE event_id = ?", (event_id,))
    }


def _starts(first: datetime, rule: dict[str, Any]) -> Iterator[datetime]:
    """Occurrence starts of a series in order, honouring count/until (exceptions are not removed here)."""
    interval = rule["interval"]
    days = sorted(WEEKDAYS.index(d) for d in rule["by_weekday"].split(",")) if rule.get("by_weekday") else None
    until = date.fromisoformat(rule["until"]) if rule.get("until") else None
    limit_day = min(until or date(2100, 12, 31), (first + MAX_SERIES_SPAN).date())
    n = 0

    def keep(s: datetime) -> bool:
        return s >= first

    def candidates() -> Iterator[datetime]:
        k = 0
        while True:
            if rule["freq"] == "daily":
                s = first + timedelta(days=k * interval)
                if days is None or s.weekday() in days:
                    yield s
                elif s.date() > limit_day:
                    yield s
            elif rule["freq"] == "weekly":
                monday = first - timedelta(days=first.weekday()) + timedelta(weeks=k * interval)
                for d in days or [first.weekday()]:
                    yield monday + timedelta(days=d)
            else:
                month0 = first.month - 1 + k * interval
                year, month = first.year + month0 // 12, month0 % 12 + 1
                if year > 2100:
                    yield datetime(2101, 1, 1)
                try:
                    yield first.replace(year=year, month=month)
                except ValueError:  # e.g. the 31st in a 30-day month: no occurrence that month
                    pass
            k += 1

    for s in candidates():
        if s.date() > limit_day:
            return
        if not keep(s):
            continue
        n += 1
        if rule.get("count") and n > rule["count"]:
            return
        yield s


def _occurrences(
    ev: dict[str, Any], rule: dict[str, Any] | None, exdates: set[str], lo: datetime, hi: datetime, limit: int = 1000
) -> list[tuple[datetime, datetime]]:
    """Occurrences (start, end) of an event overlapping [lo, hi), cancelled single dates left out."""
    start, end = datetime.fromisoformat(ev["start"]), datetime.fromisoformat(ev["end"])
    if rule is None:
        return [(start, end)] if start < hi and end > lo else []
    span = end - start
    out: list[tuple[datetime, datetime]] = []
    for s in _starts(start, rule):
        if s >= hi or len(out) >= limit:
            break
        if s + span > lo and s.date().isoformat() not in exdates:
            out.append((s, s + span))
    return out


def _series_end(ctx: Ctx, ev: dict[str, Any]) -> datetime | None:
    """When the event (or its whole series) ends; None for a series without an end."""
    rule = _rule(ctx, ev["event_id"])
    end = datetime.fromisoformat(ev["end"])
    if rule is None:
        return end
    if not rule["count"] and not rule["until"]:
        return datetime.fromisoformat(ev["start"]) + MAX_SERIES_SPAN + (end - datetime.fromisoformat(ev["start"]))
    last = None
    for s in _starts(datetime.fromisoformat(ev["start"]), rule):
        last = s
    return end if last is None else last + (end - datetime.fromisoformat(ev["start"]))


def _modifiable(ctx: Ctx, ev: dict[str, Any]) -> None:
    """Raise unless the event can still be changed: not cancelled, not entirely in the past."""
    if ev["status"] == "cancelled":
        raise ToolError(
            f"Event {ev['event_id']} is cancelled and cancelled events stay cancelled; create a new event with "
            f"create_event instead."
        )
    finished = _series_end(ctx, ev)
    if finished is not None and finished <= ctx.now:
        raise ToolError(
            f"Event {ev['event_id']} ended at {_iso(finished)}, before now ({_iso(ctx.now)}); past events cannot be "
            f"changed."
        )


def _busy(ctx: Ctx, user_id: str, lo: datetime, hi: datetime, skip_event: str | None = None) -> list[dict[str, Any]]:
    """The user's busy occurrences in [lo, hi): events they organise or attend (not declined), not cancelled."""
    found = rows(
        ctx.db.execute(
            "SELECT e.event_id, e.title, e.start, e.end, e.organizer_id FROM events e "
            "WHERE e.status != 'cancelled' AND e.start < ? "
            "AND (e.organizer_id = ? OR e.event_id IN (SELECT event_id FROM invitees WHERE user_id = ? AND response "
            "!= 'declined')) "
            "AND (e.end > ? OR e.event_id IN (SELECT event_id FROM recurrences))",
            (_iso(hi), user_id, user_id, _iso(lo)),
        )
    )
    out = []
    for ev in found:
        if ev["event_id"] == skip_event:
            continue
        for s, e in _occurrences(ev, _rule(ctx, ev["event_id"]), _exdates(ctx, ev["event_id"]), lo, hi):
            out.append({"event_id": ev["event_id"], "title": ev["title"], "start": _iso(s), "end": _iso(e)})
    out.sort(key=lambda b: (b["start"], b["event_id"]))
    return out


def _merge(blocks: list[dict[str, Any]]) -> list[tuple[datetime, datetime]]:
    merged: list[tuple[datetime, datetime]] = []
    for s, e in sorted((datetime.fromisoformat(b["start"]), datetime.fromisoformat(b["end"])) for b in blocks):
        if merged and s <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], e))
        else:
            merged.append((s, e))
    return merged


def _check_conflicts(
    ctx: Ctx, people: list[str], start: datetime, end: datetime, skip_event: str | None = None
) -> None:
    clashes = []
    for uid in people:
        for b in _busy(ctx, uid, start, end, skip_event):
            clashes.append(f"{uid} is busy with {b['event_id']} '{b['title']}' {b['start'][11:16]}-{b['end'][11:16]}")
    if clashes:
        raise ToolError(
            f"Double booking between {_iso(start)} and {_iso(end)}: "
            + "; ".join(clashes[:6])
            + ". Pick another time (find_free_slot suggests free ones) or pass check_conflicts=false."
        )


def _times(ctx: Ctx, start: datetime, end: datetime) -> None:
    if end <= start:
        raise ToolError(f"The end ({_iso(end)}) must be after the start ({_iso(start)}).")
    if end - start > MAX_EVENT_SPAN:
        raise ToolError("An event lasts at most 7 days; use a recurring rule (set_recurrence) for repeated events.")
    if start < ctx.now:
        raise ToolError(f"The start {_iso(start)} is in the past (now is {_iso(ctx.now)}); choose a future time.")


def _event_view(ctx: Ctx, ev: dict[str, Any]) -> dict[str, Any]:
    rule = _rule(ctx, ev["event_id"])
    ev = dict(ev)
    ev["invitees"] = rows(
        ctx.db.execute(
            "SELECT i.user_id, u.name, i.response, i.optional, i.responded_at FROM invitees i JOIN users u USING "
            "(user_id) "
            "WHERE i.event_id = ? ORDER BY i.user_id",
            (ev["event_id"],),
        )
    )
    for i in ev["invitees"]:
        i["optional"] = bool(i["optional"])
    ev["recurrence"] = (
        None if rule is None else {k: rule[k] for k in ("rule_id", "freq", "interval", "by_weekday", "count", "until")}
    )
    ev["cancelled_occurrences"] = sorted(_exdates(ctx, ev["event_id"]))
    finished = _series_end(ctx, ev)
    ev["is_past"] = finished is not None and finished <= ctx.now
    return ev


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
    owner_id: Annotated[str | None, USER.ref("Only calendars this user owns, e.g. 'USR-0012'")] = None,
    kind: Literal["primary", "personal", "team"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List calendars with their owner and number of events, e.g. list_calendars(owner_id='USR-0012'). Ids look like
    'CAL-0017'."""
    if owner_id is not None:
        USER.get(ctx, owner_id)
    q = Query(
        "SELECT c.*, u.name AS owner_name, (SELECT COUNT(*) FROM events e WHERE e.calendar_id = c.calendar_id) "
        "AS event_count FROM calendars c JOIN users u ON u.user_id = c.owner_id"
    )
    q.equal("c.owner_id", owner_id).equal("c.kind", kind)
    return q.page(ctx.db, "calendars", order_by="c.calendar_id", limit=limit, offset=offset)


@calendar.read(returns=("event", "calendar", "user"))
def list_events(
    ctx: Ctx,
    calendar_id: Annotated[str | None, CALENDAR.ref("Only events on this calendar, e.g. 'CAL-0017'")] = None,
    organizer_id: Annotated[str | None, USER.ref("Only events this user organises, e.g. 'USR-0012'")] = None,
    invitee_id: Annotated[str | None, USER.ref("Only events this user is invited to, e.g. 'USR-0012'")] = None,
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
    return _event_view(ctx, EVENT.get(ctx, event_id))


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
    USER.get(ctx, user_id)
    lo, hi = ctx.now, ctx.now + timedelta(days=days)
    found = rows(
        ctx.db.execute(
            "SELECT e.event_id, e.title, e.location, e.start, e.end, e.organizer_id, i.response FROM events e "
            "LEFT JOIN invitees i ON i.event_id = e.event_id AND i.user_id = ? "
            "WHERE e.status != 'cancelled' AND e.start < ? AND (e.organizer_id = ? OR i.user_id IS NOT NULL) "
            "AND (e.end > ? OR e.event_id IN (SELECT event_id FROM recurrences))",
            (user_id, _iso(hi), user_id, _iso(lo)),
        )
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
    ev = EVENT.get(ctx, event_id)
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
    USER.get(ctx, user_id)
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
        USER.get(ctx, uid)
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


# Write tools ------------------------------------------------------------------------------------


def _invitee_list(ctx: Ctx, ids: list[str], organizer: str) -> list[str]:
    people = list(dict.fromkeys(ids))
    for uid in people:
        USER.get(ctx, uid)
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
    cal = CALENDAR.get(ctx, calendar_id)
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
    return _event_view(ctx, EVENT.get(ctx, event_id))


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
    ev = EVENT.get(ctx, event_id)
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
                people = [ev["organizer_id"]] + [
                    r[0]
                    for r in ctx.db.execute(
                        "SELECT user_id FROM invitees WHERE event_id = ? AND response != 'declined'", (event_id,)
                    )
                ]
                _check_conflicts(ctx, people, s, e, skip_event=event_id)
            changes["start"], changes["end"] = _iso(s), _iso(e)
    if not changes:
        raise ToolError("Nothing to change: give at least one field whose value differs from the current event.")
    sets = ", ".join(f"{k} = ?" for k in changes)
    ctx.db.execute(
        f"UPDATE events SET {sets}, updated_at = ? WHERE event_id = ?", (*changes.values(), _iso(ctx.now), event_id)
    )
    if "start" in changes:
        ctx.db.execute(
            "UPDATE invitees SET response = 'needs_action', responded_at = NULL WHERE event_id = ?", (event_id,)
        )
    out = _event_view(ctx, EVENT.get(ctx, event_id))
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
    ev = EVENT.get(ctx, event_id)
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
    ev = EVENT.get(ctx, event_id)
    _modifiable(ctx, ev)
    rule = _rule(ctx, event_id)
    if freq == "none":
        if rule is None:
            raise ToolError(f"Event {event_id} does not repeat; nothing to remove.")
        ctx.db.execute("DELETE FROM recurrences WHERE event_id = ?", (event_id,))
        ctx.db.execute("DELETE FROM cancelled_occurrences WHERE event_id = ?", (event_id,))
        return _event_view(ctx, EVENT.get(ctx, event_id))
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
    return _event_view(ctx, EVENT.get(ctx, event_id))


@calendar.write(requires=("set_recurrence",))
def cancel_occurrence(
    ctx: Ctx,
    event_id: EventId,
    occurrence_date: Annotated[DateStr, Field(description="The date of the occurrence to drop, e.g. '2026-06-08'")],
) -> dict[str, Any]:
    """Cancel one future occurrence of a recurring series, keeping the rest, e.g.
    cancel_occurrence('EVT-01244', '2026-06-15').

    Use list_occurrences to see which dates the series falls on."""
    ev = EVENT.get(ctx, event_id)
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
    ev = EVENT.get(ctx, event_id)
    USER.get(ctx, user_id)
    _modifiable(ctx, ev)
    if user_id == ev["organizer_id"]:
        raise ToolError(f"{user_id} organises event {event_id}; the organiser is not an invitee.")
    if ctx.db.execute("SELECT 1 FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id)).fetchone():
        raise ToolError(f"{user_id} is already invited to {event_id}; see get_event for their RSVP.")
    n = ctx.db.execute("SELECT COUNT(*) FROM invitees WHERE event_id = ?", (event_id,)).fetchone()[0]
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
    ev = EVENT.get(ctx, event_id)
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
    ev = EVENT.get(ctx, event_id)
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
