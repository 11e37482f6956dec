"""Video meetings: users on plans, scheduled meetings, live participants and cloud recordings.

A meeting is scheduled by its host for a slot (start + duration), goes live when the host starts
it, people join while it is live, and it ends when the host (or a co-host) ends it. "Now" is the
fixed reference time 2026-06-01T09:00.

Business rules: only the host starts a meeting, the host or a co-host records and ends it; a
meeting can be started from 60 minutes before its slot until the slot is over, once (an ended or
cancelled meeting never restarts, a missed slot means scheduling a new meeting); a host runs one
live meeting at a time and cannot double-book their own slots; people join only live meetings, at
most `capacity` at once, and capacity is capped by the host's plan (basic 100, pro 300, business
1000); cloud recording needs a pro or business plan and exists only while a meeting is live;
ending a meeting stops its recording and moves everyone out.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
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
    plan TEXT NOT NULL CHECK (plan IN ('basic', 'pro', 'business'))
);
CREATE TABLE meetings (
    meeting_id TEXT PRIMARY KEY,
    host_id TEXT NOT NULL REFERENCES users(user_id),
    title TEXT NOT NULL,
    agenda TEXT NOT NULL,
    scheduled_start TEXT NOT NULL,
    duration_minutes INTEGER NOT NULL,
    capacity INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'live', 'ended', 'cancelled')),
    started_at TEXT,
    ended_at TEXT,
    join_code TEXT NOT NULL,
    cancel_reason TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX meetings_host ON meetings(host_id, scheduled_start);
CREATE TABLE participants (
    meeting_id TEXT NOT NULL REFERENCES meetings(meeting_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    role TEXT NOT NULL CHECK (role IN ('host', 'cohost', 'attendee')),
    invited INTEGER NOT NULL,
    joined_at TEXT,
    left_at TEXT,
    PRIMARY KEY (meeting_id, user_id)
);
CREATE INDEX participants_user ON participants(user_id);
CREATE TABLE recordings (
    recording_id TEXT PRIMARY KEY,
    meeting_id TEXT NOT NULL REFERENCES meetings(meeting_id),
    started_by TEXT NOT NULL REFERENCES users(user_id),
    started_at TEXT NOT NULL,
    ended_at TEXT,
    duration_seconds INTEGER,
    size_mb REAL,
    status TEXT NOT NULL CHECK (status IN ('recording', 'ready'))
);
CREATE INDEX recordings_meeting ON recordings(meeting_id);
"""

PLAN_CAPACITY = {"basic": 100, "pro": 300, "business": 1000}
DEPARTMENTS = ("Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Design", "Support", "Legal")
TITLES = ("Weekly team sync", "Sprint planning", "Customer demo: {c}", "Quarterly business review", "Design critique", "1:1 check-in",
          "Hiring panel", "Incident review", "Town hall", "Onboarding: new hires", "Vendor pitch: {c}", "Roadmap walkthrough",
          "Sales kickoff", "Board prep", "Training: security basics", "Partner call: {c}", "Retrospective", "Office hours",
          "Product launch rehearsal", "Budget review")
AGENDAS = ("Status updates, blockers, next steps.", "Walk through the deck and collect feedback.", "Review metrics and decide on priorities.",
           "Q&A with leadership.", "Demo of the new release, then open discussion.", "Go through open action items.")
EARLY_START = timedelta(minutes=60)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """150 users, ~700 meetings (60 days back to 30 ahead, a dozen live now), ~4,000 participants and ~150 recordings."""
    users = []
    for i in range(1, 151):
        first, last = fake.person(rng)
        users.append((f"USR-{i:04d}", f"{first} {last}", f"{first.lower()}.{last.lower()}{i}@{rng.choice(fake.EMAIL_DOMAINS)}",
                      rng.choice(DEPARTMENTS), rng.choices(("basic", "pro", "business"), (45, 38, 17))[0]))
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?)", users)
    plan = {u[0]: u[4] for u in users}
    ids = [u[0] for u in users]
    meetings: list[tuple[Any, ...]] = []
    parts: list[tuple[Any, ...]] = []
    recs: list[tuple[Any, ...]] = []
    live_hosts: set[str] = set()

    def make(status: str, start: datetime, host: str | None = None) -> None:
        host = host or rng.choice(ids)
        mid = f"MTG-{len(meetings) + 1:04d}"
        minutes = rng.choice((15, 30, 30, 45, 60, 60, 90, 120))
        cap = PLAN_CAPACITY[plan[host]] if rng.random() < 0.75 else rng.choice((4, 6, 8, 10, 25, 50))
        guests = [g for g in rng.sample(ids, rng.randint(1, 7)) if g != host][: cap - 1]
        title = rng.choice(TITLES).format(c=rng.choice(fake.COMPANIES))
        happened = status in ("ended", "live")
        started = start + timedelta(minutes=rng.randint(-5, 8))
        ended = started + timedelta(minutes=max(5, minutes + rng.randint(-15, 20)))
        started_s = _iso(started) if happened else None
        ended_s = _iso(ended) if status == "ended" else None
        reason = rng.choice(("Host unavailable", "Moved to email", "Duplicate invite", "Rescheduled")) if status == "cancelled" else None
        created = min(start, now) - timedelta(days=rng.randint(1, 20), minutes=rng.randint(0, 900))
        meetings.append((mid, host, title, rng.choice(AGENDAS), _iso(start), minutes, cap, status, started_s, ended_s,
                         f"{rng.randint(100, 999)}-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}", reason, _iso(created)))
        cohost = guests[0] if guests and rng.random() < 0.3 else None
        parts.append((mid, host, "host", 1, started_s, ended_s))
        walkins = [w for w in rng.sample(ids, rng.randint(0, 2)) if w != host and w not in guests] if happened else []
        inside = 1
        for g in guests + walkins:
            joined = left = None
            if happened and rng.random() < 0.8 and inside < cap:
                j = started + timedelta(minutes=rng.randint(0, 10))
                joined = _iso(min(j, now - timedelta(minutes=1)))
                if status == "ended":
                    left = _iso(max(j, ended - timedelta(minutes=rng.randint(0, 10))))
                elif rng.random() < 0.15:
                    left = _iso(min(j + timedelta(minutes=rng.randint(1, 20)), now - timedelta(minutes=1)))
                else:
                    inside += 1
            parts.append((mid, g, "cohost" if g == cohost else "attendee", int(g in guests), joined, left))
        if happened and plan[host] != "basic" and rng.random() < 0.45:
            by = rng.choice([host] + ([cohost] if cohost else []))
            r0 = started + timedelta(minutes=rng.randint(0, 5))
            if status == "ended":
                r1 = max(r0 + timedelta(minutes=1), ended - timedelta(minutes=rng.randint(0, 5)))
                secs = int((r1 - r0).total_seconds())
                recs.append((f"REC-{len(recs) + 1:04d}", mid, by, _iso(r0), _iso(r1), secs, round(secs * rng.uniform(0.08, 0.2), 1), "ready"))
            else:
                recs.append((f"REC-{len(recs) + 1:04d}", mid, by, _iso(min(r0, now - timedelta(minutes=1))), None, None, None, "recording"))

    for _ in range(360):
        day = now - timedelta(days=rng.randint(1, 60))
        start = day.replace(hour=rng.randint(7, 18), minute=rng.choice((0, 15, 30, 45)))
        make(rng.choices(("ended", "cancelled", "scheduled"), (91, 6, 3))[0], start)  # a 'scheduled' one in the past was missed
    for _ in range(14):
        host = rng.choice([i for i in ids if i not in live_hosts])
        live_hosts.add(host)
        make("live", now - timedelta(minutes=rng.choice((5, 10, 15, 20, 30, 40))), host)
    for _ in range(10):
        make("scheduled", now + timedelta(minutes=rng.choice((15, 30, 45, 60))))
    for _ in range(240):
        day = now + timedelta(days=rng.randint(0, 30))
        start = day.replace(hour=rng.randint(10, 18), minute=rng.choice((0, 15, 30, 45)))
        make(rng.choices(("scheduled", "cancelled"), (93, 7))[0], start)
    # Ids follow the schedule: sort by start and renumber, keeping references consistent.
    order = sorted(meetings, key=lambda m: (m[4], m[0]))
    renum = {m[0]: f"MTG-{n:04d}" for n, m in enumerate(order, 1)}
    db.executemany("INSERT INTO meetings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", [(renum[m[0]], *m[1:]) for m in meetings])
    db.executemany("INSERT OR IGNORE INTO participants VALUES (?,?,?,?,?,?)", [(renum[p[0]], *p[1:]) for p in parts])
    db.executemany("INSERT INTO recordings VALUES (?,?,?,?,?,?,?,?)", [(r[0], renum[r[1]], *r[2:]) for r in recs])


video_meeting = Server("video_meeting", "Video meetings: scheduling, hosts and participants, live sessions and cloud recordings.", SCHEMA, seed)

UserId = Annotated[str, Field(max_length=40, description="User id, e.g. 'USR-0017'"), Entity("user")]
MeetingId = Annotated[str, Field(max_length=40, description="Meeting id, e.g. 'MTG-0372'"), Entity("meeting")]
ActingUser = Annotated[str, Field(max_length=40, description="Who performs the action (must be the host, or a co-host where allowed), e.g. 'USR-0017'"), Entity("user")]
DateOrTime = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$",
                                  description="A date 'YYYY-MM-DD' or date-time 'YYYY-MM-DDTHH:MM', e.g. '2026-06-01'")]


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def _parse(value: str, name: str) -> datetime:
    return parse_datetime(value, name, "2026-06-02T15:00")


def _user(ctx: Ctx, user_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM users WHERE user_id = ?", (user_id,), f"No user {user_id!r}. Use search_users to find user ids.")


def _meeting(ctx: Ctx, meeting_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM meetings WHERE meeting_id = ?", (meeting_id,),
                 f"No meeting {meeting_id!r}. Use list_meetings to find meeting ids.")


def _slot_end(m: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(m["scheduled_start"]) + timedelta(minutes=m["duration_minutes"])


def _inside(ctx: Ctx, meeting_id: str) -> int:
    return ctx.db.execute("SELECT COUNT(*) FROM participants WHERE meeting_id = ? AND joined_at IS NOT NULL AND left_at IS NULL",
                          (meeting_id,)).fetchone()[0]


def _authorize(ctx: Ctx, m: dict[str, Any], user_id: str, action: str, cohost_ok: bool) -> None:
    _user(ctx, user_id)
    if user_id == m["host_id"]:
        return
    role = ctx.db.execute("SELECT role FROM participants WHERE meeting_id = ? AND user_id = ?", (m["meeting_id"], user_id)).fetchone()
    if cohost_ok and role and role[0] == "cohost":
        return
    who = "the host or a co-host" if cohost_ok else "the host"
    raise ToolError(f"Only {who} of {m['meeting_id']} can {action}; its host is {m['host_id']} and {user_id} is "
                    f"{'a ' + role[0] if role else 'not a participant'}.")


def _live(m: dict[str, Any], action: str) -> None:
    status = m["status"]
    if status == "live":
        return
    if status == "ended":
        raise ToolError(f"Meeting {m['meeting_id']} already ended at {m['ended_at']}; you cannot {action} it. Schedule a new meeting instead.")
    if status == "cancelled":
        raise ToolError(f"Meeting {m['meeting_id']} was cancelled ({m['cancel_reason']}); you cannot {action} it.")
    raise ToolError(f"Meeting {m['meeting_id']} has not started yet (scheduled for {m['scheduled_start']}); the host must start_meeting first.")


def _meeting_view(ctx: Ctx, m: dict[str, Any]) -> dict[str, Any]:
    out = dict(m)
    out["participants"] = rows(ctx.db.execute(
        "SELECT p.user_id, u.name, p.role, p.invited, p.joined_at, p.left_at, "
        "(p.joined_at IS NOT NULL AND p.left_at IS NULL) AS in_meeting FROM participants p JOIN users u USING (user_id) "
        "WHERE p.meeting_id = ? ORDER BY CASE p.role WHEN 'host' THEN 0 WHEN 'cohost' THEN 1 ELSE 2 END, p.user_id", (m["meeting_id"],)))
    for p in out["participants"]:
        p["invited"], p["in_meeting"] = bool(p["invited"]), bool(p["in_meeting"])
    out["in_meeting_count"] = sum(p["in_meeting"] for p in out["participants"])
    out["recordings"] = rows(ctx.db.execute("SELECT * FROM recordings WHERE meeting_id = ? ORDER BY recording_id", (m["meeting_id"],)))
    return out


# Read tools -------------------------------------------------------------------------------------


@video_meeting.read(returns=("user",))
def search_users(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name, email or department, e.g. 'Patel'")] = "",
                 plan: Literal["basic", "pro", "business"] | None = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Find users by name, email or department, optionally on one plan, e.g. search_users('Patel'). Ids look like 'USR-0017'."""
    like = f"%{query}%"
    sql, args = "SELECT * FROM users WHERE (name LIKE ? OR email LIKE ? OR department LIKE ?)", [like, like, like]
    if plan is not None:
        sql += " AND plan = ?"
        args.append(plan)
    found = rows(ctx.db.execute(sql + " ORDER BY user_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    for u in found:
        u["max_capacity"] = PLAN_CAPACITY[u["plan"]]
        u["cloud_recording"] = u["plan"] != "basic"
    return {"users": found, "count": len(found)}


@video_meeting.read(returns=("meeting", "user"))
def list_meetings(ctx: Ctx, host_id: Annotated[str | None, Field(max_length=40, description="Only meetings this user hosts, e.g. 'USR-0017'"), Entity("user")] = None,
                  participant_id: Annotated[str | None, Field(max_length=40, description="Only meetings this user is invited to or joined, e.g. 'USR-0017'"), Entity("user")] = None,
                  status: Literal["scheduled", "live", "ended", "cancelled"] | None = None,
                  starts_after: Annotated[DateOrTime | None, Field(description="Scheduled at or after this, e.g. '2026-06-01'")] = None,
                  starts_before: Annotated[DateOrTime | None, Field(description="Scheduled before this, e.g. '2026-06-08'")] = None,
                  query: Annotated[str, Field(max_length=100, description="Part of the title, e.g. 'sync'")] = "",
                  has_recording: Annotated[bool | None, Field(description="true: only meetings with a recording; false: only without")] = None,
                  limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List meetings by host, participant, status, scheduled time or title, ordered by scheduled start, e.g. list_meetings(status='live')."""
    sql = ("SELECT m.meeting_id, m.host_id, m.title, m.scheduled_start, m.duration_minutes, m.capacity, m.status, m.started_at, m.ended_at, "
           "(SELECT COUNT(*) FROM participants p WHERE p.meeting_id = m.meeting_id AND p.joined_at IS NOT NULL AND p.left_at IS NULL) AS in_meeting_count, "
           "(SELECT COUNT(*) FROM recordings r WHERE r.meeting_id = m.meeting_id) AS recordings "
           "FROM meetings m WHERE m.title LIKE ?")
    args: list[Any] = [f"%{query}%"]
    if host_id is not None:
        sql += " AND m.host_id = ?"
        args.append(host_id)
    if participant_id is not None:
        sql += " AND m.meeting_id IN (SELECT meeting_id FROM participants WHERE user_id = ?)"
        args.append(participant_id)
    if status is not None:
        sql += " AND m.status = ?"
        args.append(status)
    lo = _parse(starts_after, "starts_after") if starts_after else None
    hi = _parse(starts_before, "starts_before") if starts_before else None
    if lo and hi and hi <= lo:
        raise ToolError("starts_before must be later than starts_after.")
    if lo:
        sql += " AND m.scheduled_start >= ?"
        args.append(_iso(lo))
    if hi:
        sql += " AND m.scheduled_start < ?"
        args.append(_iso(hi))
    if has_recording is not None:
        sql += f" AND {'' if has_recording else 'NOT '}EXISTS (SELECT 1 FROM recordings r WHERE r.meeting_id = m.meeting_id)"
    found = rows(ctx.db.execute(sql + " ORDER BY m.scheduled_start, m.meeting_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"meetings": found, "count": len(found)}


@video_meeting.read(returns=("meeting", "user", "recording"))
def get_meeting(ctx: Ctx, meeting_id: MeetingId) -> dict[str, Any]:
    """One meeting with its slot, status, capacity, participants (who is in it now) and recordings, e.g. get_meeting('MTG-0372')."""
    return _meeting_view(ctx, _meeting(ctx, meeting_id))


@video_meeting.read(returns=("recording", "meeting"))
def list_recordings(ctx: Ctx, meeting_id: Annotated[str | None, Field(max_length=40, description="Only this meeting's recordings, e.g. 'MTG-0372'"), Entity("meeting")] = None,
                    host_id: Annotated[str | None, Field(max_length=40, description="Only recordings of meetings this user hosts, e.g. 'USR-0017'"), Entity("user")] = None,
                    status: Literal["recording", "ready"] | None = None,
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List cloud recordings by meeting, host or status ('recording' = still running), newest first, e.g. list_recordings(host_id='USR-0017')."""
    sql = ("SELECT r.*, m.title, m.host_id FROM recordings r JOIN meetings m USING (meeting_id) WHERE 1=1")
    args: list[Any] = []
    for column, value in (("r.meeting_id", meeting_id), ("m.host_id", host_id), ("r.status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY r.started_at DESC, r.recording_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    total = sum(r["duration_seconds"] or 0 for r in found)
    return {"recordings": found, "count": len(found), "total_duration_seconds": total}


DISTINCT_FIELDS = {"meeting_status": ("meetings", "status"), "plan": ("users", "plan"), "department": ("users", "department"),
                   "participant_role": ("participants", "role"), "recording_status": ("recordings", "status"),
                   "duration_minutes": ("meetings", "duration_minutes")}


@video_meeting.read()
def get_distinct_values(ctx: Ctx, field: Literal["meeting_status", "plan", "department", "participant_role", "recording_status",
                                                 "duration_minutes"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('meeting_status')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {str(v): n for v, n in found}}


# Write tools ------------------------------------------------------------------------------------


@video_meeting.write(returns=("meeting",))
def schedule_meeting(ctx: Ctx, host_id: UserId, title: Annotated[str, Field(min_length=1, max_length=200, description="Title, e.g. 'Roadmap walkthrough'")],
                     start: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$", description="Start 'YYYY-MM-DDTHH:MM', e.g. '2026-06-02T15:00'")],
                     duration_minutes: Annotated[int, Field(ge=5, le=720, description="Length in minutes, e.g. 45")] = 30,
                     capacity: Annotated[int | None, Field(ge=2, le=1000, description="Most people inside at once; default and maximum set by the host's plan")] = None,
                     invitee_ids: Annotated[list[Annotated[str, Field(max_length=40)]], Field(max_length=100, description="Users to invite, e.g. ['USR-0042']"), Entity("user")] = [],  # noqa: B006
                     cohost_id: Annotated[str | None, Field(max_length=40, description="An invitee who may record and end the meeting, e.g. 'USR-0042'"), Entity("user")] = None,
                     agenda: Annotated[str, Field(max_length=2000)] = "") -> dict[str, Any]:
    """Schedule a meeting hosted by a user, e.g. schedule_meeting('USR-0017', 'Roadmap walkthrough', '2026-06-02T15:00', 45, invitee_ids=['USR-0042']).

    The start must be in the future, the host must be free in that slot, and capacity (default: the plan's
    maximum) must hold the host and all invitees. Returns the new meeting id and join code."""
    host = _user(ctx, host_id)
    t0 = _parse(start, "start")
    if t0 < ctx.now:
        raise ToolError(f"The start {_iso(t0)} is in the past (now is {_iso(ctx.now)}); choose a future time.")
    limit = PLAN_CAPACITY[host["plan"]]
    cap = limit if capacity is None else capacity
    if cap > limit:
        raise ToolError(f"{host_id} is on the {host['plan']} plan, which allows at most {limit} participants; lower the capacity.")
    guests = list(dict.fromkeys(invitee_ids))
    for g in guests:
        _user(ctx, g)
    if host_id in guests:
        raise ToolError(f"{host_id} is the host; leave them out of invitee_ids.")
    if 1 + len(guests) > cap:
        raise ToolError(f"Capacity {cap} cannot hold the host and {len(guests)} invitees; raise the capacity or invite fewer people.")
    if cohost_id is not None and cohost_id not in guests:
        raise ToolError(f"The co-host {cohost_id} must be one of the invitees; add them to invitee_ids.")
    t1 = t0 + timedelta(minutes=duration_minutes)
    for other in rows(ctx.db.execute("SELECT meeting_id, scheduled_start, duration_minutes, title FROM meetings "
                                     "WHERE host_id = ? AND status IN ('scheduled', 'live') AND scheduled_start < ?", (host_id, _iso(t1)))):
        if _slot_end(other) > t0:
            raise ToolError(f"{host_id} already hosts {other['meeting_id']} '{other['title']}' at {other['scheduled_start']} "
                            f"({other['duration_minutes']} min), overlapping this slot; pick another time.")
    meeting_id = next_id(ctx.db, "meetings", "meeting_id", "MTG")
    n = int(meeting_id[4:])
    code = f"{100 + n * 37 % 900}-{100 + n * 53 % 900}-{1000 + n * 7919 % 9000}"
    ctx.db.execute("INSERT INTO meetings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (meeting_id, host_id, title, agenda, _iso(t0), duration_minutes, cap, "scheduled", None, None, code, None, _iso(ctx.now)))
    ctx.db.execute("INSERT INTO participants VALUES (?,?,?,?,?,?)", (meeting_id, host_id, "host", 1, None, None))
    ctx.db.executemany("INSERT INTO participants VALUES (?,?,?,?,?,?)",
                       [(meeting_id, g, "cohost" if g == cohost_id else "attendee", 1, None, None) for g in guests])
    return _meeting_view(ctx, _meeting(ctx, meeting_id))


@video_meeting.write(returns=("meeting",))
def start_meeting(ctx: Ctx, meeting_id: MeetingId, acting_user_id: ActingUser) -> dict[str, Any]:
    """The host starts a scheduled meeting, which goes live with the host inside, e.g. start_meeting('MTG-0376', 'USR-0143').

    Possible from 60 minutes before the slot until the slot is over; ended, cancelled or missed meetings cannot start."""
    m = _meeting(ctx, meeting_id)
    _authorize(ctx, m, acting_user_id, "start it", cohost_ok=False)
    if m["status"] == "live":
        raise ToolError(f"Meeting {meeting_id} is already live since {m['started_at']}; participants can join_meeting now.")
    if m["status"] != "scheduled":
        _live(m, "start")
    opens = datetime.fromisoformat(m["scheduled_start"]) - EARLY_START
    if ctx.now < opens:
        raise ToolError(f"Meeting {meeting_id} is scheduled for {m['scheduled_start']}; it can be started from {_iso(opens)} (now is {_iso(ctx.now)}).")
    if ctx.now >= _slot_end(m):
        raise ToolError(f"The slot of {meeting_id} ended at {_iso(_slot_end(m))} without the meeting starting; schedule a new meeting.")
    other = ctx.db.execute("SELECT meeting_id FROM meetings WHERE host_id = ? AND status = 'live'", (m["host_id"],)).fetchone()
    if other:
        raise ToolError(f"{m['host_id']} is already hosting live meeting {other[0]}; end it with end_meeting first.")
    ctx.db.execute("UPDATE meetings SET status = 'live', started_at = ? WHERE meeting_id = ?", (_iso(ctx.now), meeting_id))
    ctx.db.execute("UPDATE participants SET joined_at = ?, left_at = NULL WHERE meeting_id = ? AND user_id = ?",
                   (_iso(ctx.now), meeting_id, m["host_id"]))
    return _meeting_view(ctx, _meeting(ctx, meeting_id))


@video_meeting.write()
def join_meeting(ctx: Ctx, meeting_id: MeetingId, user_id: UserId) -> dict[str, Any]:
    """A user joins a live meeting, invited or not, if there is room, e.g. join_meeting('MTG-0372', 'USR-0042')."""
    m = _meeting(ctx, meeting_id)
    _user(ctx, user_id)
    _live(m, "join")
    part = ctx.db.execute("SELECT joined_at, left_at FROM participants WHERE meeting_id = ? AND user_id = ?", (meeting_id, user_id)).fetchone()
    if part and part[0] and not part[1]:
        raise ToolError(f"{user_id} is already in meeting {meeting_id}.")
    inside = _inside(ctx, meeting_id)
    if inside >= m["capacity"]:
        raise ToolError(f"Meeting {meeting_id} is full ({inside}/{m['capacity']} inside); someone has to leave first.")
    if part:
        ctx.db.execute("UPDATE participants SET joined_at = ?, left_at = NULL WHERE meeting_id = ? AND user_id = ?", (_iso(ctx.now), meeting_id, user_id))
    else:
        ctx.db.execute("INSERT INTO participants VALUES (?,?,?,?,?,?)", (meeting_id, user_id, "attendee", 0, _iso(ctx.now), None))
    return {"meeting_id": meeting_id, "user_id": user_id, "joined_at": _iso(ctx.now), "in_meeting_count": inside + 1, "capacity": m["capacity"]}


@video_meeting.write(returns=("recording",))
def set_recording(ctx: Ctx, meeting_id: MeetingId, acting_user_id: ActingUser,
                  recording: Annotated[bool, Field(description="true to start the cloud recording, false to stop it")] = True) -> dict[str, Any]:
    """Start or stop the cloud recording of a live meeting (host or co-host), e.g. set_recording('MTG-0371', 'USR-0065', True).

    Needs a host on the pro or business plan; a stopped recording is ready to view in list_recordings."""
    m = _meeting(ctx, meeting_id)
    _authorize(ctx, m, acting_user_id, "control recording", cohost_ok=True)
    _live(m, "record")
    host = _user(ctx, m["host_id"])
    if host["plan"] == "basic":
        raise ToolError(f"The host {m['host_id']} is on the basic plan, which has no cloud recording; a pro or business host is needed.")
    running = ctx.db.execute("SELECT recording_id, started_at FROM recordings WHERE meeting_id = ? AND status = 'recording'", (meeting_id,)).fetchone()
    if recording:
        if running:
            raise ToolError(f"Meeting {meeting_id} is already being recorded ({running[0]} since {running[1]}).")
        rec_id = next_id(ctx.db, "recordings", "recording_id", "REC")
        ctx.db.execute("INSERT INTO recordings VALUES (?,?,?,?,?,?,?,?)", (rec_id, meeting_id, acting_user_id, _iso(ctx.now), None, None, None, "recording"))
        return {"recording_id": rec_id, "meeting_id": meeting_id, "status": "recording", "started_at": _iso(ctx.now)}
    if not running:
        raise ToolError(f"Meeting {meeting_id} is not being recorded; start a recording with recording=true.")
    return _stop(ctx, running[0])


def _stop(ctx: Ctx, recording_id: str) -> dict[str, Any]:
    rec = fetch(ctx.db, "SELECT * FROM recordings WHERE recording_id = ?", (recording_id,), f"No recording {recording_id!r}.")
    secs = max(0, int((ctx.now - datetime.fromisoformat(rec["started_at"])).total_seconds()))
    size = round(secs * 0.12, 1)
    ctx.db.execute("UPDATE recordings SET status = 'ready', ended_at = ?, duration_seconds = ?, size_mb = ? WHERE recording_id = ?",
                   (_iso(ctx.now), secs, size, recording_id))
    return {"recording_id": recording_id, "meeting_id": rec["meeting_id"], "status": "ready", "duration_seconds": secs, "size_mb": size}


@video_meeting.write(returns=("meeting", "recording"), requires=("start_meeting",))
def end_meeting(ctx: Ctx, meeting_id: MeetingId, acting_user_id: ActingUser) -> dict[str, Any]:
    """End a live meeting for everyone (host or co-host), e.g. end_meeting('MTG-0372', 'USR-0017'). A running recording is stopped and becomes ready."""
    m = _meeting(ctx, meeting_id)
    _authorize(ctx, m, acting_user_id, "end it", cohost_ok=True)
    _live(m, "end")
    stopped = [_stop(ctx, r[0]) for r in ctx.db.execute("SELECT recording_id FROM recordings WHERE meeting_id = ? AND status = 'recording'",
                                                        (meeting_id,)).fetchall()]
    ctx.db.execute("UPDATE participants SET left_at = ? WHERE meeting_id = ? AND joined_at IS NOT NULL AND left_at IS NULL", (_iso(ctx.now), meeting_id))
    ctx.db.execute("UPDATE meetings SET status = 'ended', ended_at = ? WHERE meeting_id = ?", (_iso(ctx.now), meeting_id))
    out = _meeting_view(ctx, _meeting(ctx, meeting_id))
    out["stopped_recordings"] = stopped
    return out


server = video_meeting
