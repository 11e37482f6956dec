"""The calendar tools: the server, its entities and the helpers the tools share; the reads live in ``tools_read``
(people, calendars, events, free/busy), the writes in ``tools_write`` (events, series, invitees, RSVPs)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, IsoDate, IsoDateOrTime, IsoDateTime, Server, ToolError, parse_datetime
from servers.calendar.schema import MAX_EVENT_SPAN, MAX_SERIES_SPAN, SCHEMA, WEEKDAYS
from servers.calendar.seed import seed

calendar = Server(
    "calendar",
    "Calendars: events, invitees and RSVPs, recurring series, free/busy and scheduling.",
    SCHEMA,
    seed,
    family="comms",
    id_max_length=40,
)


class UserId(EntityId, server=calendar, example="USR-0012", finder="search_users"): ...


class CalendarId(EntityId, server=calendar, example="CAL-0017", finder="list_calendars"): ...


class EventId(
    EntityId, server=calendar, example="EVT-00089", hint="Use list_events or list_upcoming_events to find event ids."
): ...


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
    found = ctx.rows("SELECT * FROM recurrences WHERE event_id = ?", (event_id,))
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
    found = ctx.rows(
        "SELECT e.event_id, e.title, e.start, e.end, e.organizer_id FROM events e "
        "WHERE e.status != 'cancelled' AND e.start < ? "
        "AND (e.organizer_id = ? OR e.event_id IN (SELECT event_id FROM invitees WHERE user_id = ? AND response "
        "!= 'declined')) "
        "AND (e.end > ? OR e.event_id IN (SELECT event_id FROM recurrences))",
        (_iso(hi), user_id, user_id, _iso(lo)),
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
    ev["invitees"] = ctx.rows(
        "SELECT i.user_id, u.name, i.response, i.optional, i.responded_at FROM invitees i JOIN users u USING "
        "(user_id) "
        "WHERE i.event_id = ? ORDER BY i.user_id",
        (ev["event_id"],),
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
