"""Calendar: people, their calendars, events, invitees with RSVPs, and recurring series.

All times are office-local wall-clock times ('YYYY-MM-DDTHH:MM:SS', no time zones); "now" is the
fixed reference time (2026-06-01T09:00, a Monday). An event belongs to one calendar and is organised
by that calendar's owner. A recurring event is a series: its first occurrence is the event's own
start/end and a rule (daily, weekly or monthly, every `interval`, optionally on given weekdays,
ending after `count` occurrences or on an `until` date, or never) expands it; single occurrences
can be cancelled without cancelling the series.

Business rules: an event ends after it starts and lasts at most 7 days; new events and new times
cannot lie in the past; a past event (a series whose last occurrence has ended) cannot be changed,
cancelled or answered; a cancelled event stays cancelled; only invitees RSVP (the organiser does
not); an invitee is listed once; a time change resets invitees' answers to 'needs_action'; when a
tool is asked to check conflicts it refuses to double-book the organiser or any attending invitee
(declined invitees and cancelled events don't count as busy).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, parse_datetime, rows

SCHEMA = """
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    department TEXT NOT NULL,
    title TEXT NOT NULL,
    office TEXT NOT NULL
);
CREATE TABLE calendars (
    calendar_id TEXT PRIMARY KEY,
    owner_id TEXT NOT NULL REFERENCES users(user_id),
    name TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('primary', 'personal', 'team')),
    color TEXT NOT NULL
);
CREATE INDEX calendars_owner ON calendars(owner_id);
CREATE TABLE events (
    event_id TEXT PRIMARY KEY,
    calendar_id TEXT NOT NULL REFERENCES calendars(calendar_id),
    organizer_id TEXT NOT NULL REFERENCES users(user_id),
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    location TEXT NOT NULL,
    start TEXT NOT NULL,
    end TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('confirmed', 'tentative', 'cancelled')),
    cancel_reason TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX events_organizer ON events(organizer_id);
CREATE TABLE invitees (
    event_id TEXT NOT NULL REFERENCES events(event_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    response TEXT NOT NULL CHECK (response IN ('needs_action', 'accepted', 'declined', 'tentative')),
    optional INTEGER NOT NULL DEFAULT 0,
    responded_at TEXT,
    PRIMARY KEY (event_id, user_id)
);
CREATE INDEX invitees_user ON invitees(user_id);
CREATE TABLE recurrences (
    rule_id TEXT PRIMARY KEY,
    event_id TEXT NOT NULL UNIQUE REFERENCES events(event_id),
    freq TEXT NOT NULL CHECK (freq IN ('daily', 'weekly', 'monthly')),
    interval INTEGER NOT NULL CHECK (interval >= 1),
    by_weekday TEXT,
    count INTEGER,
    until TEXT
);
CREATE TABLE cancelled_occurrences (
    event_id TEXT NOT NULL REFERENCES events(event_id),
    occurrence_date TEXT NOT NULL,
    cancelled_at TEXT NOT NULL,
    PRIMARY KEY (event_id, occurrence_date)
);
"""

DEPARTMENTS = ("Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Design", "Legal", "Support")
JOB_TITLES = {
    "Engineering": ("Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager", "SRE"),
    "Sales": ("Account Executive", "Sales Development Rep", "Sales Manager", "Solutions Engineer"),
    "Marketing": ("Content Strategist", "Growth Marketer", "Marketing Manager", "Brand Designer"),
    "Finance": ("Financial Analyst", "Controller", "Accountant", "FP&A Manager"),
    "People Ops": ("Recruiter", "HR Business Partner", "People Ops Manager"),
    "Product": ("Product Manager", "Senior Product Manager", "Product Analyst"),
    "Design": ("Product Designer", "UX Researcher", "Design Lead"),
    "Legal": ("Counsel", "Paralegal", "Contracts Manager"),
    "Support": ("Support Specialist", "Support Lead", "Customer Success Manager"),
}
OFFICES = ("Seattle HQ", "Austin", "New York", "Remote", "Denver", "Boston")
ROOMS = ("Room 2A - Rainier", "Room 2B - Olympus", "Room 3A - Baker", "Room 3C - Shasta", "Room 4A - Hood",
         "Boardroom", "Cafe Commons", "Focus Pod 7", "Training Room 1")
VIDEO = ("Zoom", "Google Meet", "Microsoft Teams")
COLORS = ("blue", "green", "red", "purple", "orange", "teal", "gray", "yellow")
WORK_TOPICS = ("Sprint planning", "Design review", "Roadmap sync", "Pipeline review", "Budget check-in", "Incident postmortem",
               "Hiring debrief", "Quarterly business review", "Architecture deep dive", "Launch readiness", "Customer onboarding",
               "Vendor evaluation", "Performance calibration", "Content calendar review", "Contract review", "Demo prep",
               "Onboarding session", "Security training", "Data migration sync", "OKR planning")
TEAM_SERIES = (("Daily standup", "daily", 15), ("Weekly team sync", "weekly", 60), ("Backlog grooming", "weekly", 60),
               ("Monthly all-hands", "monthly", 60), ("Retro", "weekly", 45), ("Office hours", "weekly", 30))
PERSONAL = (("Dentist appointment", 60), ("Gym", 60), ("Pick up kids", 30), ("Doctor's visit", 45), ("Yoga class", 60),
            ("Car service", 90), ("Haircut", 30), ("Parent-teacher conference", 45), ("Lunch with friends", 90),
            ("Piano lesson", 45))
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
MAX_SERIES_SPAN = timedelta(days=731)
MAX_EVENT_SPAN = timedelta(days=7)
MAX_INVITEES = 50


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """140 people, ~330 calendars, ~1,500 events (45 days back to 60 ahead) with ~3,500 invitees and ~90 series."""
    users: list[tuple[Any, ...]] = []
    by_dept: dict[str, list[str]] = {d: [] for d in DEPARTMENTS}
    for i in range(1, 141):
        given, family = fake.person(rng)
        dept = DEPARTMENTS[i % len(DEPARTMENTS)] if i <= len(DEPARTMENTS) else rng.choice(DEPARTMENTS)
        uid = f"USR-{i:04d}"
        users.append((uid, f"{given} {family}", f"{given.lower()}.{family.lower()}{i}@northwind.example.com", dept,
                      rng.choice(JOB_TITLES[dept]), rng.choice(OFFICES)))
        by_dept[dept].append(uid)
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?,?)", users)
    names = {u[0]: u[1] for u in users}
    dept_of = {u[0]: u[3] for u in users}

    calendars: list[tuple[Any, ...]] = []
    primary: dict[str, str] = {}
    personal: dict[str, str] = {}
    team: dict[str, str] = {}
    for uid, name, *_ in users:
        cal = f"CAL-{len(calendars) + 1:04d}"
        calendars.append((cal, uid, name, "primary", rng.choice(COLORS)))
        primary[uid] = cal
        if rng.random() < 0.55:
            cal = f"CAL-{len(calendars) + 1:04d}"
            calendars.append((cal, uid, "Personal", "personal", rng.choice(COLORS)))
            personal[uid] = cal
    for dept, members in by_dept.items():
        cal = f"CAL-{len(calendars) + 1:04d}"
        calendars.append((cal, members[0], f"{dept} team", "team", rng.choice(COLORS)))
        team[dept] = cal
    db.executemany("INSERT INTO calendars VALUES (?,?,?,?,?)", calendars)

    events: list[tuple[Any, ...]] = []
    invitees: list[tuple[Any, ...]] = []
    rules: list[tuple[Any, ...]] = []
    exdates: list[tuple[Any, ...]] = []
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)

    def add_event(cal: str, org: str, title: str, desc: str, loc: str, start: datetime, minutes: int,
                  guests: list[str], status: str | None = None) -> str:
        eid = f"EVT-{len(events) + 1:05d}"
        end = start + timedelta(minutes=minutes)
        if status is None:
            status = rng.choices(("confirmed", "tentative", "cancelled"), (86, 8, 6))[0]
        reason = rng.choice(("Organizer out sick", "Rescheduled", "No longer needed", "Conflicts with offsite")) if status == "cancelled" else None
        created = min(start, now) - timedelta(days=rng.randint(1, 30), minutes=rng.randint(0, 600))
        events.append((eid, cal, org, title, desc, loc, _iso(start), _iso(end), status, reason,
                       _iso(created), _iso(created + timedelta(hours=rng.randint(0, 48)))))
        for g in guests:
            if end <= now:
                resp = rng.choices(("accepted", "declined", "tentative", "needs_action"), (70, 12, 8, 10))[0]
            else:
                resp = rng.choices(("accepted", "declined", "tentative", "needs_action"), (40, 10, 10, 40))[0]
            when = None if resp == "needs_action" else _iso(min(now - timedelta(minutes=5), created + timedelta(hours=rng.randint(1, 72))))
            invitees.append((eid, g, resp, 1 if rng.random() < 0.1 else 0, when))
        return eid

    def workday_slot(day_offset_lo: int, day_offset_hi: int, minutes: int) -> datetime:
        while True:
            day = today + timedelta(days=rng.randint(day_offset_lo, day_offset_hi))
            if day.weekday() < 5:
                break
        latest = 17 * 60 + 30 - minutes
        return day + timedelta(minutes=rng.randrange(8 * 60, max(8 * 60 + 1, latest + 1), 30))

    # Work meetings on primary calendars.
    all_ids = [u[0] for u in users]
    for uid in all_ids:
        colleagues = by_dept[dept_of[uid]]
        for _ in range(rng.randint(4, 10)):
            minutes = rng.choice((30, 30, 45, 60, 60, 90, 120))
            start = workday_slot(-45, 60, minutes)
            pool = [c for c in colleagues if c != uid]
            guests = rng.sample(pool, min(len(pool), rng.randint(1, 4)))
            if rng.random() < 0.4:
                guests += [g for g in rng.sample(all_ids, rng.randint(1, 2)) if g != uid and g not in guests]
            kind = rng.random()
            if kind < 0.2 and guests:
                title = f"1:1 {names[uid].split()[0]} / {names[guests[0]].split()[0]}"
                guests = guests[:1]
            elif kind < 0.32:
                title = f"Customer call: {rng.choice(fake.COMPANIES)}"
            elif kind < 0.38:
                title = f"Interview: {rng.choice(JOB_TITLES[dept_of[uid]])} candidate"
            else:
                title = rng.choice(WORK_TOPICS)
            loc = rng.choice(ROOMS) if rng.random() < 0.55 else rng.choice(VIDEO)
            add_event(primary[uid], uid, title, f"{title}. Agenda shared in the invite.", loc, start, minutes, guests)
    # Personal appointments.
    for uid, cal in personal.items():
        for _ in range(rng.randint(1, 4)):
            title, minutes = rng.choice(PERSONAL)
            day = today + timedelta(days=rng.randint(-30, 45))
            start = day + timedelta(minutes=rng.randrange(7 * 60, 19 * 60, 30))
            add_event(cal, uid, title, "", fake.address(rng), start, minutes, [],
                      status=rng.choices(("confirmed", "cancelled"), (94, 6))[0])
    # Recurring series: team rituals on team calendars, weekly 1:1s on primary calendars.
    for dept, cal in team.items():
        owner, members = by_dept[dept][0], by_dept[dept][1:]
        for title, freq, minutes in rng.sample(TEAM_SERIES, 3):
            first = workday_slot(-60, -7, minutes).replace(hour=rng.choice((9, 10, 11, 14, 15)), minute=rng.choice((0, 30)))
            count, until = None, None
            if rng.random() < 0.3:
                count = rng.randint(6, 30)
            elif rng.random() < 0.3:
                until = (today + timedelta(days=rng.randint(-10, 120))).date().isoformat()
            byday = "MO,TU,WE,TH,FR" if freq == "daily" else None
            eid = add_event(cal, owner, f"{dept} {title.lower()}" if freq != "monthly" else title, f"Recurring {title.lower()} for the {dept} team.",
                            rng.choice(ROOMS + VIDEO), first, minutes, members, status="confirmed")
            rules.append((f"RRL-{len(rules) + 1:04d}", eid, freq, 1, byday, count, until))
    for uid in rng.sample(all_ids, 60):
        pool = [c for c in by_dept[dept_of[uid]] if c != uid]
        if not pool:
            continue
        other = rng.choice(pool)
        first = workday_slot(-50, 10, 30)
        interval = rng.choice((1, 1, 2))
        count = rng.choice((None, None, 8, 12, 20))
        eid = add_event(primary[uid], uid, f"Weekly 1:1 {names[uid].split()[0]} / {names[other].split()[0]}", "Standing 1:1.",
                        rng.choice(VIDEO), first, 30, [other], status=rng.choices(("confirmed", "cancelled"), (95, 5))[0])
        rules.append((f"RRL-{len(rules) + 1:04d}", eid, "weekly", interval, WEEKDAYS[first.weekday()], count, None))
        if rng.random() < 0.35:
            skip = first + timedelta(weeks=interval * rng.randint(1, 6))
            exdates.append((eid, skip.date().isoformat(), _iso(now - timedelta(days=rng.randint(1, 20)))))
    db.executemany("INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", events)
    db.executemany("INSERT OR IGNORE INTO invitees VALUES (?,?,?,?,?)", invitees)
    db.executemany("INSERT INTO recurrences VALUES (?,?,?,?,?,?,?)", rules)
    db.executemany("INSERT OR IGNORE INTO cancelled_occurrences VALUES (?,?,?)", exdates)


calendar = Server("calendar", "Calendars: events, invitees and RSVPs, recurring series, free/busy and scheduling.", SCHEMA, seed)

UserId = Annotated[str, Field(max_length=40, description="User id, e.g. 'USR-0012'"), Entity("user")]
CalendarId = Annotated[str, Field(max_length=40, description="Calendar id, e.g. 'CAL-0017'"), Entity("calendar")]
EventId = Annotated[str, Field(max_length=40, description="Event id, e.g. 'EVT-00089'"), Entity("event")]
DateTimeStr = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$",
                                   description="Local date-time 'YYYY-MM-DDTHH:MM', e.g. '2026-06-03T14:00'")]
DateStr = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date 'YYYY-MM-DD', e.g. '2026-06-02'")]
DateOrTime = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$",
                                  description="A date 'YYYY-MM-DD' or date-time 'YYYY-MM-DDTHH:MM', e.g. '2026-06-01'")]
Weekday = Literal["MO", "TU", "WE", "TH", "FR", "SA", "SU"]
Title = Annotated[str, Field(min_length=1, max_length=200, description="Event title, e.g. 'Design review'")]
Text = Annotated[str, Field(max_length=2000)]


# Helpers ---------------------------------------------------------------------------------------


def _parse(value: str, name: str) -> datetime:
    return parse_datetime(value, name, "2026-06-03T14:00")


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def _user(ctx: Ctx, user_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM users WHERE user_id = ?", (user_id,),
                 f"No user {user_id!r}. Use search_users to find user ids.")


def _calendar(ctx: Ctx, calendar_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM calendars WHERE calendar_id = ?", (calendar_id,),
                 f"No calendar {calendar_id!r}. Use list_calendars to find calendar ids.")


def _event(ctx: Ctx, event_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM events WHERE event_id = ?", (event_id,),
                 f"No event {event_id!r}. Use list_events or list_upcoming_events to find event ids.")


def _rule(ctx: Ctx, event_id: str) -> dict[str, Any] | None:
    found = rows(ctx.db.execute("SELECT * FROM recurrences WHERE event_id = ?", (event_id,)))
    return found[0] if found else None


def _exdates(ctx: Ctx, event_id: str) -> set[str]:
    return {r[0] for r in ctx.db.execute("SELECT occurrence_date FROM cancelled_occurrences WHERE event_id = ?", (event_id,))}


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


def _occurrences(ev: dict[str, Any], rule: dict[str, Any] | None, exdates: set[str], lo: datetime, hi: datetime,
                 limit: int = 1000) -> list[tuple[datetime, datetime]]:
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
        raise ToolError(f"Event {ev['event_id']} is cancelled and cancelled events stay cancelled; create a new event with create_event instead.")
    finished = _series_end(ctx, ev)
    if finished is not None and finished <= ctx.now:
        raise ToolError(f"Event {ev['event_id']} ended at {_iso(finished)}, before now ({_iso(ctx.now)}); past events cannot be changed.")


def _busy(ctx: Ctx, user_id: str, lo: datetime, hi: datetime, skip_event: str | None = None) -> list[dict[str, Any]]:
    """The user's busy occurrences in [lo, hi): events they organise or attend (not declined), not cancelled."""
    found = rows(ctx.db.execute(
        "SELECT e.event_id, e.title, e.start, e.end, e.organizer_id FROM events e "
        "WHERE e.status != 'cancelled' AND e.start < ? "
        "AND (e.organizer_id = ? OR e.event_id IN (SELECT event_id FROM invitees WHERE user_id = ? AND response != 'declined')) "
        "AND (e.end > ? OR e.event_id IN (SELECT event_id FROM recurrences))", (_iso(hi), user_id, user_id, _iso(lo))))
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


def _check_conflicts(ctx: Ctx, people: list[str], start: datetime, end: datetime, skip_event: str | None = None) -> None:
    clashes = []
    for uid in people:
        for b in _busy(ctx, uid, start, end, skip_event):
            clashes.append(f"{uid} is busy with {b['event_id']} '{b['title']}' {b['start'][11:16]}-{b['end'][11:16]}")
    if clashes:
        raise ToolError(f"Double booking between {_iso(start)} and {_iso(end)}: " + "; ".join(clashes[:6])
                        + ". Pick another time (find_free_slot suggests free ones) or pass check_conflicts=false.")


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
    ev["invitees"] = rows(ctx.db.execute(
        "SELECT i.user_id, u.name, i.response, i.optional, i.responded_at FROM invitees i JOIN users u USING (user_id) "
        "WHERE i.event_id = ? ORDER BY i.user_id", (ev["event_id"],)))
    for i in ev["invitees"]:
        i["optional"] = bool(i["optional"])
    ev["recurrence"] = None if rule is None else {k: rule[k] for k in ("rule_id", "freq", "interval", "by_weekday", "count", "until")}
    ev["cancelled_occurrences"] = sorted(_exdates(ctx, ev["event_id"]))
    finished = _series_end(ctx, ev)
    ev["is_past"] = finished is not None and finished <= ctx.now
    return ev


# Read tools -------------------------------------------------------------------------------------


@calendar.read(returns=("user", "calendar"))
def search_users(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name, email or job title, e.g. 'Garcia'")] = "",
                 department: Literal["Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Design", "Legal", "Support"] | None = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Find people by name, email or job title, optionally in one department, e.g. search_users('Garcia').

    Returns user ids such as 'USR-0012' with the id of their primary calendar."""
    like = f"%{query}%"
    sql = ("SELECT u.user_id, u.name, u.email, u.department, u.title, u.office, c.calendar_id AS primary_calendar_id "
           "FROM users u LEFT JOIN calendars c ON c.owner_id = u.user_id AND c.kind = 'primary' "
           "WHERE (u.name LIKE ? OR u.email LIKE ? OR u.title LIKE ?)")
    args: list[Any] = [like, like, like]
    if department is not None:
        sql += " AND u.department = ?"
        args.append(department)
    found = rows(ctx.db.execute(sql + " ORDER BY u.user_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"users": found, "count": len(found)}


@calendar.read(returns=("calendar", "user"))
def list_calendars(ctx: Ctx, owner_id: Annotated[str | None, Field(max_length=40, description="Only calendars this user owns, e.g. 'USR-0012'"), Entity("user")] = None,
                   kind: Literal["primary", "personal", "team"] | None = None,
                   limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List calendars with their owner and number of events, e.g. list_calendars(owner_id='USR-0012'). Ids look like 'CAL-0017'."""
    if owner_id is not None:
        _user(ctx, owner_id)
    sql, args = ("SELECT c.*, u.name AS owner_name, (SELECT COUNT(*) FROM events e WHERE e.calendar_id = c.calendar_id) AS event_count "
                 "FROM calendars c JOIN users u ON u.user_id = c.owner_id WHERE 1=1"), []
    for column, value in (("c.owner_id", owner_id), ("c.kind", kind)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY c.calendar_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"calendars": found, "count": len(found)}


@calendar.read(returns=("event", "calendar", "user"))
def list_events(ctx: Ctx, calendar_id: Annotated[str | None, Field(max_length=40, description="Only events on this calendar, e.g. 'CAL-0017'"), Entity("calendar")] = None,
                organizer_id: Annotated[str | None, Field(max_length=40, description="Only events this user organises, e.g. 'USR-0012'"), Entity("user")] = None,
                invitee_id: Annotated[str | None, Field(max_length=40, description="Only events this user is invited to, e.g. 'USR-0012'"), Entity("user")] = None,
                status: Literal["confirmed", "tentative", "cancelled"] | None = None,
                starts_after: Annotated[DateOrTime | None, Field(description="Only events (series) starting at or after this, e.g. '2026-06-01'")] = None,
                starts_before: Annotated[DateOrTime | None, Field(description="Only events (series) starting before this, e.g. '2026-06-08'")] = None,
                query: Annotated[str, Field(max_length=100, description="Part of the title or location, e.g. 'review'")] = "",
                recurring: Annotated[bool | None, Field(description="true: only recurring series; false: only one-off events")] = None,
                limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List events by calendar, organiser, invitee, status, start range or title text, ordered by start.

    A recurring series is listed once, at its first occurrence; use list_occurrences to expand it.
    Example: list_events(organizer_id='USR-0012', starts_after='2026-06-01')."""
    lo = _parse(starts_after, "starts_after") if starts_after else None
    hi = _parse(starts_before, "starts_before") if starts_before else None
    if lo and hi and hi <= lo:
        raise ToolError("starts_before must be later than starts_after.")
    like = f"%{query}%"
    sql = ("SELECT e.event_id, e.calendar_id, e.organizer_id, e.title, e.location, e.start, e.end, e.status, "
           "(r.rule_id IS NOT NULL) AS recurring FROM events e LEFT JOIN recurrences r USING (event_id) "
           "WHERE (e.title LIKE ? OR e.location LIKE ?)")
    args: list[Any] = [like, like]
    for column, value in (("e.calendar_id", calendar_id), ("e.organizer_id", organizer_id), ("e.status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if invitee_id is not None:
        sql += " AND e.event_id IN (SELECT event_id FROM invitees WHERE user_id = ?)"
        args.append(invitee_id)
    if lo:
        sql += " AND e.start >= ?"
        args.append(_iso(lo))
    if hi:
        sql += " AND e.start < ?"
        args.append(_iso(hi))
    if recurring is not None:
        sql += " AND r.rule_id IS " + ("NOT NULL" if recurring else "NULL")
    found = rows(ctx.db.execute(sql + " ORDER BY e.start, e.event_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    for ev in found:
        ev["recurring"] = bool(ev["recurring"])
    return {"events": found, "count": len(found)}


@calendar.read(returns=("event", "calendar", "user"))
def get_event(ctx: Ctx, event_id: EventId) -> dict[str, Any]:
    """Get one event with its invitees and their RSVPs, its recurrence rule and cancelled occurrences, e.g. get_event('EVT-00089')."""
    return _event_view(ctx, _event(ctx, event_id))


@calendar.read(returns=("event",))
def list_upcoming_events(ctx: Ctx, user_id: UserId,
                         days: Annotated[int, Field(ge=1, le=60, description="How many days ahead of now to look, e.g. 7")] = 7,
                         include_declined: Annotated[bool, Field(description="Also show invitations the user declined")] = False,
                         limit: Limit = 50) -> dict[str, Any]:
    """What a user has coming up from now (2026-06-01T09:00) over the next `days` days, recurring series expanded, e.g. list_upcoming_events('USR-0012', days=7).

    Each item is one occurrence with the user's role (organizer or invitee) and RSVP; cancelled events are left out."""
    _user(ctx, user_id)
    lo, hi = ctx.now, ctx.now + timedelta(days=days)
    found = rows(ctx.db.execute(
        "SELECT e.event_id, e.title, e.location, e.start, e.end, e.organizer_id, i.response FROM events e "
        "LEFT JOIN invitees i ON i.event_id = e.event_id AND i.user_id = ? "
        "WHERE e.status != 'cancelled' AND e.start < ? AND (e.organizer_id = ? OR i.user_id IS NOT NULL) "
        "AND (e.end > ? OR e.event_id IN (SELECT event_id FROM recurrences))", (user_id, _iso(hi), user_id, _iso(lo))))
    out = []
    for ev in found:
        if ev["response"] == "declined" and not include_declined and ev["organizer_id"] != user_id:
            continue
        for s, e in _occurrences(ev, _rule(ctx, ev["event_id"]), _exdates(ctx, ev["event_id"]), lo, hi):
            out.append({"event_id": ev["event_id"], "title": ev["title"], "location": ev["location"], "start": _iso(s), "end": _iso(e),
                        "role": "organizer" if ev["organizer_id"] == user_id else "invitee",
                        "response": None if ev["organizer_id"] == user_id else ev["response"]})
    out.sort(key=lambda o: (o["start"], o["event_id"]))
    return {"user_id": user_id, "from": _iso(lo), "to": _iso(hi), "occurrences": out[:limit], "count": min(len(out), limit),
            "total": len(out)}


@calendar.read(returns=("event",))
def list_occurrences(ctx: Ctx, event_id: EventId,
                     from_date: Annotated[DateStr | None, Field(description="First day to include, e.g. '2026-06-01'; default today")] = None,
                     to_date: Annotated[DateStr | None, Field(description="Last day to include, e.g. '2026-06-30'; default 30 days after from_date")] = None,
                     limit: Limit = 50) -> dict[str, Any]:
    """Expand an event's recurrence into dated occurrences between two days (at most 366 days apart), e.g. list_occurrences('EVT-01244', '2026-06-01', '2026-06-30').

    A one-off event yields its single occurrence if it falls in the range; cancelled single occurrences are marked."""
    ev = _event(ctx, event_id)
    lo = _parse(from_date, "from_date") if from_date else ctx.now.replace(hour=0, minute=0, second=0)
    hi = (_parse(to_date, "to_date") if to_date else lo + timedelta(days=29)) + timedelta(days=1)
    if hi <= lo:
        raise ToolError("to_date must be on or after from_date.")
    if hi - lo > timedelta(days=367):
        raise ToolError("The range spans more than 366 days; ask for a shorter range.")
    rule = _rule(ctx, event_id)
    ex = _exdates(ctx, event_id)
    occ = _occurrences(ev, rule, set(), lo, hi, limit)
    items = [{"date": s.date().isoformat(), "start": _iso(s), "end": _iso(e),
              "status": "cancelled" if ev["status"] == "cancelled" or s.date().isoformat() in ex else ev["status"],
              "is_past": e <= ctx.now} for s, e in occ]
    return {"event_id": event_id, "title": ev["title"], "recurring": rule is not None, "occurrences": items, "count": len(items)}


@calendar.read(returns=("event",))
def get_free_busy(ctx: Ctx, user_id: UserId, date: Annotated[DateStr, Field(description="First day, e.g. '2026-06-02'")],
                  days: Annotated[int, Field(ge=1, le=14, description="How many days, e.g. 1")] = 1) -> dict[str, Any]:
    """A user's busy blocks (merged) and the events behind them over one or more days, e.g. get_free_busy('USR-0012', '2026-06-02').

    Declined invitations and cancelled events or occurrences don't count as busy."""
    _user(ctx, user_id)
    lo = _parse(date, "date")
    hi = lo + timedelta(days=days)
    blocks = _busy(ctx, user_id, lo, hi)
    merged = _merge(blocks)
    minutes = sum(int((min(e, hi) - max(s, lo)).total_seconds() // 60) for s, e in merged)
    return {"user_id": user_id, "from": _iso(lo), "to": _iso(hi), "busy": [{"start": _iso(s), "end": _iso(e)} for s, e in merged],
            "events": blocks, "busy_minutes": minutes}


@calendar.read()
def find_free_slot(ctx: Ctx, user_ids: Annotated[list[Annotated[str, Field(max_length=40)]], Field(min_length=1, max_length=20, description="Everyone who must attend, e.g. ['USR-0012', 'USR-0031']"), Entity("user")],
                   duration_minutes: Annotated[int, Field(ge=5, le=600, description="Meeting length in minutes, e.g. 30")],
                   from_date: Annotated[DateStr | None, Field(description="First day to search, e.g. '2026-06-02'; default today")] = None,
                   days: Annotated[int, Field(ge=1, le=30, description="How many days to search, e.g. 5")] = 5,
                   day_start_hour: Annotated[int, Field(ge=0, le=23, description="Earliest hour a slot may start, e.g. 9")] = 9,
                   day_end_hour: Annotated[int, Field(ge=1, le=24, description="Hour by which a slot must end, e.g. 17")] = 17,
                   include_weekends: bool = False,
                   limit: Annotated[int, Field(ge=1, le=20, description="How many slots at most")] = 5) -> dict[str, Any]:
    """Find times when all the given people are free, from now on, within working hours, e.g. find_free_slot(['USR-0012', 'USR-0031'], 30).

    Slots start on the quarter hour and never lie in the past; pass one to create_event(check_conflicts=true)."""
    people = list(dict.fromkeys(user_ids))
    for uid in people:
        _user(ctx, uid)
    if day_end_hour <= day_start_hour:
        raise ToolError("day_end_hour must be later than day_start_hour.")
    if duration_minutes > (day_end_hour - day_start_hour) * 60:
        raise ToolError(f"A {duration_minutes}-minute slot does not fit between {day_start_hour}:00 and {day_end_hour}:00; widen the hours or shorten it.")
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


DISTINCT_FIELDS = {"department": ("users", "department"), "office": ("users", "office"), "calendar_kind": ("calendars", "kind"),
                   "event_status": ("events", "status"), "location": ("events", "location"), "rsvp_response": ("invitees", "response"),
                   "recurrence_freq": ("recurrences", "freq")}


@calendar.read()
def get_distinct_values(ctx: Ctx, field: Literal["department", "office", "calendar_kind", "event_status", "location", "rsvp_response",
                                                 "recurrence_freq"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('rsvp_response')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY COUNT(*) DESC, {column} LIMIT 100").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


# Write tools ------------------------------------------------------------------------------------


def _invitee_list(ctx: Ctx, ids: list[str], organizer: str) -> list[str]:
    people = list(dict.fromkeys(ids))
    for uid in people:
        _user(ctx, uid)
        if uid == organizer:
            raise ToolError(f"{uid} organises this event (owner of the calendar) and attends anyway; leave them out of the invitees.")
    if len(people) > MAX_INVITEES:
        raise ToolError(f"At most {MAX_INVITEES} invitees per event.")
    return people


@calendar.write(returns=("event",))
def create_event(ctx: Ctx, calendar_id: CalendarId, title: Title,
                 start: Annotated[DateTimeStr, Field(description="Start, e.g. '2026-06-03T14:00'")],
                 end: Annotated[DateTimeStr, Field(description="End, after the start, e.g. '2026-06-03T14:30'")],
                 location: Annotated[str, Field(max_length=200, description="Room, address or video link, e.g. 'Room 2A - Rainier'")] = "",
                 description: Text = "",
                 invitee_ids: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=50, description="Users to invite, e.g. ['USR-0031']"), Entity("user")] = [],  # noqa: B006
                 status: Literal["confirmed", "tentative"] = "confirmed",
                 check_conflicts: Annotated[bool, Field(description="Refuse if the organiser or an invitee is already busy then")] = False) -> dict[str, Any]:
    """Create an event on a calendar (organised by the calendar's owner) and invite people, e.g.
    create_event('CAL-0017', 'Design review', '2026-06-03T13:00', '2026-06-03T13:30', invitee_ids=['USR-0031'], check_conflicts=True).

    The start must be in the future and the end after the start. Returns the new event id."""
    cal = _calendar(ctx, calendar_id)
    s, e = _parse(start, "start"), _parse(end, "end")
    _times(ctx, s, e)
    people = _invitee_list(ctx, invitee_ids, cal["owner_id"])
    if check_conflicts:
        _check_conflicts(ctx, [cal["owner_id"], *people], s, e)
    event_id = next_id(ctx.db, "events", "event_id", "EVT", 5)
    ctx.db.execute("INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                   (event_id, calendar_id, cal["owner_id"], title, description, location, _iso(s), _iso(e), status, None,
                    _iso(ctx.now), _iso(ctx.now)))
    ctx.db.executemany("INSERT INTO invitees VALUES (?,?,?,?,?)", [(event_id, uid, "needs_action", 0, None) for uid in people])
    return _event_view(ctx, _event(ctx, event_id))


@calendar.write(returns=("event",))
def update_event(ctx: Ctx, event_id: EventId, title: Title | None = None,
                 start: Annotated[DateTimeStr | None, Field(description="New start, e.g. '2026-06-04T10:00'; alone it keeps the duration")] = None,
                 end: Annotated[DateTimeStr | None, Field(description="New end, e.g. '2026-06-04T11:00'")] = None,
                 location: Annotated[str | None, Field(max_length=200, description="New location")] = None,
                 description: Annotated[str | None, Field(max_length=2000, description="New description")] = None,
                 status: Literal["confirmed", "tentative"] | None = None,
                 check_conflicts: Annotated[bool, Field(description="Refuse a new time that double-books the organiser or an attending invitee")] = False) -> dict[str, Any]:
    """Change an upcoming event's title, time, location, description or status, e.g. update_event('EVT-00089', start='2026-06-04T14:00').

    Moving a recurring series moves all its occurrences to start at the new time. A time change
    resets every invitee's RSVP to 'needs_action'. Past and cancelled events cannot be changed."""
    ev = _event(ctx, event_id)
    _modifiable(ctx, ev)
    changes: dict[str, Any] = {k: v for k, v in (("title", title), ("location", location), ("description", description), ("status", status))
                               if v is not None and v != ev[k]}
    if start is not None or end is not None:
        old_s, old_e = datetime.fromisoformat(ev["start"]), datetime.fromisoformat(ev["end"])
        s = _parse(start, "start") if start is not None else old_s
        e = _parse(end, "end") if end is not None else (s + (old_e - old_s) if start is not None else old_e)
        if (s, e) != (old_s, old_e):
            _times(ctx, s, e)
            rule = _rule(ctx, event_id)
            if rule and rule["until"] and s.date().isoformat() > rule["until"]:
                raise ToolError(f"The series ends on {rule['until']}, before the new start; change the rule with set_recurrence first.")
            if check_conflicts:
                people = [ev["organizer_id"]] + [r[0] for r in ctx.db.execute(
                    "SELECT user_id FROM invitees WHERE event_id = ? AND response != 'declined'", (event_id,))]
                _check_conflicts(ctx, people, s, e, skip_event=event_id)
            changes["start"], changes["end"] = _iso(s), _iso(e)
    if not changes:
        raise ToolError("Nothing to change: give at least one field whose value differs from the current event.")
    sets = ", ".join(f"{k} = ?" for k in changes)
    ctx.db.execute(f"UPDATE events SET {sets}, updated_at = ? WHERE event_id = ?", (*changes.values(), _iso(ctx.now), event_id))
    if "start" in changes:
        ctx.db.execute("UPDATE invitees SET response = 'needs_action', responded_at = NULL WHERE event_id = ?", (event_id,))
    out = _event_view(ctx, _event(ctx, event_id))
    out["changed"] = sorted(changes)
    return out


@calendar.write()
def cancel_event(ctx: Ctx, event_id: EventId,
                 reason: Annotated[str, Field(max_length=200, description="Why, e.g. 'Organizer out sick'")] = "Cancelled by organizer") -> dict[str, Any]:
    """Cancel an event or a whole recurring series, e.g. cancel_event('EVT-00089', 'Rescheduled'). Cancelling is final;
    to drop one date of a series use cancel_occurrence instead."""
    ev = _event(ctx, event_id)
    _modifiable(ctx, ev)
    ctx.db.execute("UPDATE events SET status = 'cancelled', cancel_reason = ?, updated_at = ? WHERE event_id = ?",
                   (reason, _iso(ctx.now), event_id))
    return {"event_id": event_id, "status": "cancelled", "reason": reason}


@calendar.write(returns=("event",))
def set_recurrence(ctx: Ctx, event_id: EventId, freq: Literal["daily", "weekly", "monthly", "none"],
                   interval: Annotated[int, Field(ge=1, le=52, description="Every how many days/weeks/months, e.g. 1")] = 1,
                   by_weekday: Annotated[list[Weekday] | None, Field(max_length=7, description="Daily or weekly only: the weekdays, e.g. ['MO', 'WE']")] = None,
                   count: Annotated[int | None, Field(ge=1, le=500, description="End after this many occurrences, e.g. 10")] = None,
                   until: Annotated[DateStr | None, Field(description="Last day occurrences may fall on, e.g. '2026-08-31'")] = None) -> dict[str, Any]:
    """Make an upcoming event repeat, replace its rule, or stop it repeating (freq='none'), e.g.
    set_recurrence('EVT-00089', 'weekly', by_weekday=['TU', 'TH'], count=10).

    Occurrences fall on by_weekday (default: the start's weekday). Give count or until, not both
    (neither: repeats with no end, shown for up to two years)."""
    ev = _event(ctx, event_id)
    _modifiable(ctx, ev)
    rule = _rule(ctx, event_id)
    if freq == "none":
        if rule is None:
            raise ToolError(f"Event {event_id} does not repeat; nothing to remove.")
        ctx.db.execute("DELETE FROM recurrences WHERE event_id = ?", (event_id,))
        ctx.db.execute("DELETE FROM cancelled_occurrences WHERE event_id = ?", (event_id,))
        return _event_view(ctx, _event(ctx, event_id))
    if count is not None and until is not None:
        raise ToolError("Give either count or until, not both.")
    if by_weekday and freq == "monthly":
        raise ToolError("by_weekday only applies to daily or weekly rules; a monthly rule repeats on the start's day of the month.")
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
        ctx.db.execute("UPDATE recurrences SET freq = ?, interval = ?, by_weekday = ?, count = ?, until = ? WHERE event_id = ?",
                       (freq, interval, days, count, until, event_id))
    else:
        rule_id = next_id(ctx.db, "recurrences", "rule_id", "RRL")
        ctx.db.execute("INSERT INTO recurrences VALUES (?,?,?,?,?,?,?)", (rule_id, event_id, freq, interval, days, count, until))
    ctx.db.execute("UPDATE events SET updated_at = ? WHERE event_id = ?", (_iso(ctx.now), event_id))
    return _event_view(ctx, _event(ctx, event_id))


@calendar.write(requires=("set_recurrence",))
def cancel_occurrence(ctx: Ctx, event_id: EventId, occurrence_date: Annotated[DateStr, Field(description="The date of the occurrence to drop, e.g. '2026-06-08'")]) -> dict[str, Any]:
    """Cancel one future occurrence of a recurring series, keeping the rest, e.g. cancel_occurrence('EVT-01244', '2026-06-15').

    Use list_occurrences to see which dates the series falls on."""
    ev = _event(ctx, event_id)
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
        raise ToolError(f"The occurrence on {occurrence_date} already started at {_iso(occ[0][0])}; past occurrences cannot be cancelled.")
    if occurrence_date in _exdates(ctx, event_id):
        raise ToolError(f"The occurrence on {occurrence_date} is already cancelled.")
    ctx.db.execute("INSERT INTO cancelled_occurrences VALUES (?,?,?)", (event_id, occurrence_date, _iso(ctx.now)))
    return {"event_id": event_id, "occurrence_date": occurrence_date, "status": "cancelled"}


@calendar.write()
def add_invitee(ctx: Ctx, event_id: EventId, user_id: UserId,
                optional: Annotated[bool, Field(description="Invite as optional attendee")] = False,
                check_conflicts: Annotated[bool, Field(description="Refuse if the person is already busy at that time")] = False) -> dict[str, Any]:
    """Invite a person to an upcoming event, e.g. add_invitee('EVT-00089', 'USR-0031'). Their RSVP starts as 'needs_action'."""
    ev = _event(ctx, event_id)
    _user(ctx, user_id)
    _modifiable(ctx, ev)
    if user_id == ev["organizer_id"]:
        raise ToolError(f"{user_id} organises event {event_id}; the organiser is not an invitee.")
    if ctx.db.execute("SELECT 1 FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id)).fetchone():
        raise ToolError(f"{user_id} is already invited to {event_id}; see get_event for their RSVP.")
    n = ctx.db.execute("SELECT COUNT(*) FROM invitees WHERE event_id = ?", (event_id,)).fetchone()[0]
    if n >= MAX_INVITEES:
        raise ToolError(f"Event {event_id} already has the maximum of {MAX_INVITEES} invitees; remove someone first.")
    if check_conflicts:
        upcoming = _occurrences(ev, _rule(ctx, event_id), _exdates(ctx, event_id), ctx.now, ctx.now + MAX_SERIES_SPAN, limit=1)
        if upcoming:
            _check_conflicts(ctx, [user_id], *upcoming[0])
    ctx.db.execute("INSERT INTO invitees VALUES (?,?,?,?,?)", (event_id, user_id, "needs_action", int(optional), None))
    return {"event_id": event_id, "user_id": user_id, "response": "needs_action", "optional": optional}


@calendar.write(requires=("add_invitee",))
def remove_invitee(ctx: Ctx, event_id: EventId, user_id: UserId) -> dict[str, Any]:
    """Take a person off an upcoming event's guest list, e.g. remove_invitee('EVT-00089', 'USR-0062')."""
    ev = _event(ctx, event_id)
    _modifiable(ctx, ev)
    if not ctx.db.execute("SELECT 1 FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id)).fetchone():
        raise ToolError(f"{user_id} is not invited to {event_id}; get_event lists its invitees.")
    ctx.db.execute("DELETE FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id))
    return {"event_id": event_id, "user_id": user_id, "removed": True}


@calendar.write()
def respond_to_invite(ctx: Ctx, event_id: EventId, user_id: UserId, response: Literal["accepted", "declined", "tentative"]) -> dict[str, Any]:
    """Record an invitee's RSVP to an upcoming event (for a series: the whole series), e.g. respond_to_invite('EVT-00089', 'USR-0062', 'accepted').

    Only invitees answer; the organiser does not RSVP."""
    ev = _event(ctx, event_id)
    found = ctx.db.execute("SELECT response FROM invitees WHERE event_id = ? AND user_id = ?", (event_id, user_id)).fetchone()
    if found is None:
        if user_id == ev["organizer_id"]:
            raise ToolError(f"{user_id} organises {event_id}; organisers don't RSVP.")
        raise ToolError(f"{user_id} is not invited to {event_id}; only invitees can RSVP (add them with add_invitee first).")
    _modifiable(ctx, ev)
    if found[0] == response:
        raise ToolError(f"{user_id} has already answered '{response}' for {event_id}.")
    ctx.db.execute("UPDATE invitees SET response = ?, responded_at = ? WHERE event_id = ? AND user_id = ?",
                   (response, _iso(ctx.now), event_id, user_id))
    return {"event_id": event_id, "user_id": user_id, "response": response, "previous": found[0]}


server = calendar
