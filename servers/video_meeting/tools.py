"""Video meeting tools: find users and meetings, then schedule, start, join, record and end meetings."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import (
    Ctx,
    Entity,
    IsoDateOrTime,
    IsoDateTime,
    Limit,
    Offset,
    Query,
    Server,
    ToolError,
    fake,
    next_id,
    parse_datetime,
    rows,
)
from servers.video_meeting.schema import PLAN_CAPACITY, SCHEMA
from servers.video_meeting.seed import seed

EARLY_START = timedelta(minutes=60)

video_meeting = Server(
    "video_meeting",
    "Video meetings: scheduling, hosts and participants, live sessions and cloud recordings.",
    SCHEMA,
    seed,
    family="comms",
)

USER = video_meeting.entity(
    "user", table="users", key="user_id", example="USR-0017", finder="search_users", max_length=40
)
MEETING = video_meeting.entity(
    "meeting", table="meetings", key="meeting_id", example="MTG-0372", finder="list_meetings", max_length=40
)
RECORDING = video_meeting.entity(
    "recording", table="recordings", key="recording_id", example="REC-0001", finder="list_recordings"
)

UserId = Annotated[str, USER]
MeetingId = Annotated[str, MEETING]
ActingUser = Annotated[
    str, USER.ref("Who performs the action (must be the host, or a co-host where allowed), e.g. 'USR-0017'")
]
DateOrTime = Annotated[
    IsoDateOrTime, Field(description="A date 'YYYY-MM-DD' or date-time 'YYYY-MM-DDTHH:MM', e.g. '2026-06-01'")
]
Text = Annotated[str, Field(max_length=100)]


def _parse(value: str, name: str) -> datetime:
    return parse_datetime(value, name, "2026-06-02T15:00")


def _slot_end(m: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(m["scheduled_start"]) + timedelta(minutes=m["duration_minutes"])


def _inside(ctx: Ctx, meeting_id: str) -> int:
    return int(
        ctx.db.execute(
            "SELECT COUNT(*) FROM participants WHERE meeting_id = ? AND joined_at IS NOT NULL AND left_at IS NULL",
            (meeting_id,),
        ).fetchone()[0]
    )


def _authorize(ctx: Ctx, m: dict[str, Any], user_id: str, action: str, cohost_ok: bool) -> None:
    USER.get(ctx, user_id)
    if user_id == m["host_id"]:
        return
    role = ctx.db.execute(
        "SELECT role FROM participants WHERE meeting_id = ? AND user_id = ?", (m["meeting_id"], user_id)
    ).fetchone()
    if cohost_ok and role and role[0] == "cohost":
        return
    who = "the host or a co-host" if cohost_ok else "the host"
    raise ToolError(
        f"Only {who} of {m['meeting_id']} can {action}; its host is {m['host_id']} and {user_id} is "
        f"{'a ' + role[0] if role else 'not a participant'}."
    )


def _live(m: dict[str, Any], action: str) -> None:
    status = m["status"]
    if status == "live":
        return
    if status == "ended":
        raise ToolError(
            f"Meeting {m['meeting_id']} already ended at {m['ended_at']}; you cannot {action} it. "
            "Schedule a new meeting instead."
        )
    if status == "cancelled":
        raise ToolError(f"Meeting {m['meeting_id']} was cancelled ({m['cancel_reason']}); you cannot {action} it.")
    raise ToolError(
        f"Meeting {m['meeting_id']} has not started yet (scheduled for {m['scheduled_start']}); "
        "the host must start_meeting first."
    )


def _meeting_view(ctx: Ctx, m: dict[str, Any]) -> dict[str, Any]:
    out = dict(m)
    out["participants"] = rows(
        ctx.db.execute(
            "SELECT p.user_id, u.name, p.role, p.invited, p.joined_at, p.left_at, "
            "(p.joined_at IS NOT NULL AND p.left_at IS NULL) AS in_meeting "
            "FROM participants p JOIN users u USING (user_id) WHERE p.meeting_id = ? "
            "ORDER BY CASE p.role WHEN 'host' THEN 0 WHEN 'cohost' THEN 1 ELSE 2 END, p.user_id",
            (m["meeting_id"],),
        )
    )
    for p in out["participants"]:
        p["invited"], p["in_meeting"] = bool(p["invited"]), bool(p["in_meeting"])
    out["in_meeting_count"] = sum(p["in_meeting"] for p in out["participants"])
    out["recordings"] = rows(
        ctx.db.execute("SELECT * FROM recordings WHERE meeting_id = ? ORDER BY recording_id", (m["meeting_id"],))
    )
    return out


# Read tools -------------------------------------------------------------------------------------


@video_meeting.read(returns=("user",))
def search_users(
    ctx: Ctx,
    query: Annotated[Text, Field(description="Part of a name, email or department, e.g. 'Patel'")] = "",
    plan: Literal["basic", "pro", "business"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Find users by name, email or department, optionally on one plan, e.g. search_users('Patel'). Ids look like
    'USR-0017'."""
    q = Query("SELECT * FROM users").contains(query, "name", "email", "department").equal("plan", plan)
    out = q.page(ctx.db, "users", order_by="user_id", limit=limit, offset=offset)
    for u in out["users"]:
        u["max_capacity"] = PLAN_CAPACITY[u["plan"]]
        u["cloud_recording"] = u["plan"] != "basic"
    return out


MEETING_ROW = (
    "SELECT m.meeting_id, m.host_id, m.title, m.scheduled_start, m.duration_minutes, m.capacity, m.status, "
    "m.started_at, m.ended_at, (SELECT COUNT(*) FROM participants p WHERE p.meeting_id = m.meeting_id "
    "AND p.joined_at IS NOT NULL AND p.left_at IS NULL) AS in_meeting_count, "
    "(SELECT COUNT(*) FROM recordings r WHERE r.meeting_id = m.meeting_id) AS recordings FROM meetings m"
)
HAS_RECORDING = "EXISTS (SELECT 1 FROM recordings r WHERE r.meeting_id = m.meeting_id)"


@video_meeting.read(returns=("meeting", "user"))
def list_meetings(
    ctx: Ctx,
    host_id: Annotated[str | None, USER.ref("Only meetings this user hosts, e.g. 'USR-0017'")] = None,
    participant_id: Annotated[
        str | None, USER.ref("Only meetings this user is invited to or joined, e.g. 'USR-0017'")
    ] = None,
    status: Literal["scheduled", "live", "ended", "cancelled"] | None = None,
    starts_after: Annotated[
        DateOrTime | None, Field(description="Scheduled at or after this, e.g. '2026-06-01'")
    ] = None,
    starts_before: Annotated[DateOrTime | None, Field(description="Scheduled before this, e.g. '2026-06-08'")] = None,
    query: Annotated[Text, Field(description="Part of the title, e.g. 'sync'")] = "",
    has_recording: Annotated[
        bool | None, Field(description="true: only meetings with a recording; false: only without")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List meetings by host, participant, status, scheduled time or title, ordered by scheduled start, e.g.
    list_meetings(status='live')."""
    lo = _parse(starts_after, "starts_after") if starts_after else None
    hi = _parse(starts_before, "starts_before") if starts_before else None
    if lo and hi and hi <= lo:
        raise ToolError("starts_before must be later than starts_after.")
    q = Query(MEETING_ROW).contains(query, "m.title").equal("m.host_id", host_id).equal("m.status", status)
    q.filter("m.meeting_id IN (SELECT meeting_id FROM participants WHERE user_id = ?)", participant_id)
    q.filter("m.scheduled_start >= ?", lo and fake.iso(lo)).filter("m.scheduled_start < ?", hi and fake.iso(hi))
    q.flag(has_recording, HAS_RECORDING)
    return q.page(ctx.db, "meetings", order_by="m.scheduled_start, m.meeting_id", limit=limit, offset=offset)


@video_meeting.read(returns=("meeting", "user", "recording"))
def get_meeting(ctx: Ctx, meeting_id: MeetingId) -> dict[str, Any]:
    """One meeting with its slot, status, capacity, participants (who is in it now) and recordings, e.g.
    get_meeting('MTG-0372')."""
    return _meeting_view(ctx, MEETING.get(ctx, meeting_id))


@video_meeting.read(returns=("recording", "meeting"))
def list_recordings(
    ctx: Ctx,
    meeting_id: Annotated[str | None, MEETING.ref("Only this meeting's recordings, e.g. 'MTG-0372'")] = None,
    host_id: Annotated[str | None, USER.ref("Only recordings of meetings this user hosts, e.g. 'USR-0017'")] = None,
    status: Literal["recording", "ready"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List cloud recordings by meeting, host or status ('recording' = still running), newest first, e.g.
    list_recordings(host_id='USR-0017')."""
    q = Query("SELECT r.*, m.title, m.host_id FROM recordings r JOIN meetings m USING (meeting_id)")
    q.equal("r.meeting_id", meeting_id).equal("m.host_id", host_id).equal("r.status", status)
    out = q.page(ctx.db, "recordings", order_by="r.started_at DESC, r.recording_id DESC", limit=limit, offset=offset)
    out["total_duration_seconds"] = sum(r["duration_seconds"] or 0 for r in out["recordings"])
    return out


video_meeting.distinct_values(
    {
        "meeting_status": ("meetings", "status"),
        "plan": ("users", "plan"),
        "department": ("users", "department"),
        "participant_role": ("participants", "role"),
        "recording_status": ("recordings", "status"),
        "duration_minutes": ("meetings", "duration_minutes"),
    }
)


# Write tools ------------------------------------------------------------------------------------


InviteeIds = Annotated[
    list[Annotated[str, Field(max_length=40)]],
    Field(max_length=100, description="Users to invite, e.g. ['USR-0042']"),
    Entity("user"),
]


@video_meeting.write(returns=("meeting",))
def schedule_meeting(
    ctx: Ctx,
    host_id: UserId,
    title: Annotated[str, Field(min_length=1, max_length=200, description="Title, e.g. 'Roadmap walkthrough'")],
    start: Annotated[IsoDateTime, Field(description="Start 'YYYY-MM-DDTHH:MM', e.g. '2026-06-02T15:00'")],
    duration_minutes: Annotated[int, Field(ge=5, le=720, description="Length in minutes, e.g. 45")] = 30,
    capacity: Annotated[
        int | None,
        Field(ge=2, le=1000, description="Most people inside at once; default and maximum set by the host's plan"),
    ] = None,
    invitee_ids: InviteeIds = [],  # noqa: B006
    cohost_id: Annotated[str | None, USER.ref("An invitee who may record and end the meeting, e.g. 'USR-0042'")] = None,
    agenda: Annotated[str, Field(max_length=2000)] = "",
) -> dict[str, Any]:
    """Schedule a meeting hosted by a user, e.g. schedule_meeting('USR-0017', 'Roadmap walkthrough', '2026-06-02T15:00',
    45, invitee_ids=['USR-0042']).

    The start must be in the future, the host must be free in that slot, and capacity (default: the plan's
    maximum) must hold the host and all invitees. Returns the new meeting id and join code."""
    host = USER.get(ctx, host_id)
    t0 = _parse(start, "start")
    if t0 < ctx.now:
        raise ToolError(f"The start {fake.iso(t0)} is in the past (now is {fake.iso(ctx.now)}); choose a future time.")
    limit = PLAN_CAPACITY[host["plan"]]
    cap = limit if capacity is None else capacity
    if cap > limit:
        raise ToolError(
            f"{host_id} is on the {host['plan']} plan, which allows at most {limit} participants; lower the capacity."
        )
    guests = _guests(ctx, host_id, invitee_ids, cohost_id, cap)
    _check_free(ctx, host_id, t0, t0 + timedelta(minutes=duration_minutes))
    meeting_id = next_id(ctx.db, "meetings", "meeting_id", "MTG")
    n = int(meeting_id[4:])
    code = f"{100 + n * 37 % 900}-{100 + n * 53 % 900}-{1000 + n * 7919 % 9000}"
    ctx.db.execute(
        "INSERT INTO meetings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            meeting_id,
            host_id,
            title,
            agenda,
            fake.iso(t0),
            duration_minutes,
            cap,
            "scheduled",
            None,
            None,
            code,
            None,
            fake.iso(ctx.now),
        ),
    )
    ctx.db.execute("INSERT INTO participants VALUES (?,?,?,?,?,?)", (meeting_id, host_id, "host", 1, None, None))
    ctx.db.executemany(
        "INSERT INTO participants VALUES (?,?,?,?,?,?)",
        [(meeting_id, g, "cohost" if g == cohost_id else "attendee", 1, None, None) for g in guests],
    )
    return _meeting_view(ctx, MEETING.get(ctx, meeting_id))


def _guests(ctx: Ctx, host_id: str, invitee_ids: list[str], cohost_id: str | None, cap: int) -> list[str]:
    """The distinct invitees, each a known user other than the host, who fit the capacity with the host."""
    guests = list(dict.fromkeys(invitee_ids))
    for g in guests:
        USER.get(ctx, g)
    if host_id in guests:
        raise ToolError(f"{host_id} is the host; leave them out of invitee_ids.")
    if 1 + len(guests) > cap:
        raise ToolError(
            f"Capacity {cap} cannot hold the host and {len(guests)} invitees; "
            "raise the capacity or invite fewer people."
        )
    if cohost_id is not None and cohost_id not in guests:
        raise ToolError(f"The co-host {cohost_id} must be one of the invitees; add them to invitee_ids.")
    return guests


def _check_free(ctx: Ctx, host_id: str, t0: datetime, t1: datetime) -> None:
    """A host cannot double-book their own slots."""
    for other in rows(
        ctx.db.execute(
            "SELECT meeting_id, scheduled_start, duration_minutes, title FROM meetings "
            "WHERE host_id = ? AND status IN ('scheduled', 'live') AND scheduled_start < ?",
            (host_id, fake.iso(t1)),
        )
    ):
        if _slot_end(other) > t0:
            raise ToolError(
                f"{host_id} already hosts {other['meeting_id']} '{other['title']}' at "
                f"{other['scheduled_start']} ({other['duration_minutes']} min), overlapping this slot; "
                "pick another time."
            )


@video_meeting.write(returns=("meeting",))
def start_meeting(ctx: Ctx, meeting_id: MeetingId, acting_user_id: ActingUser) -> dict[str, Any]:
    """The host starts a scheduled meeting, which goes live with the host inside, e.g. start_meeting('MTG-0376',
    'USR-0143').

    Possible from 60 minutes before the slot until the slot is over; ended, cancelled or missed meetings cannot
    start."""
    m = MEETING.get(ctx, meeting_id)
    _authorize(ctx, m, acting_user_id, "start it", cohost_ok=False)
    if m["status"] == "live":
        raise ToolError(
            f"Meeting {meeting_id} is already live since {m['started_at']}; participants can join_meeting now."
        )
    if m["status"] != "scheduled":
        _live(m, "start")
    opens = datetime.fromisoformat(m["scheduled_start"]) - EARLY_START
    if ctx.now < opens:
        raise ToolError(
            f"Meeting {meeting_id} is scheduled for {m['scheduled_start']}; it can be started from "
            f"{fake.iso(opens)} (now is {fake.iso(ctx.now)})."
        )
    if ctx.now >= _slot_end(m):
        raise ToolError(
            f"The slot of {meeting_id} ended at {fake.iso(_slot_end(m))} without the meeting starting; "
            "schedule a new meeting."
        )
    other = ctx.db.execute(
        "SELECT meeting_id FROM meetings WHERE host_id = ? AND status = 'live'", (m["host_id"],)
    ).fetchone()
    if other:
        raise ToolError(f"{m['host_id']} is already hosting live meeting {other[0]}; end it with end_meeting first.")
    now = fake.iso(ctx.now)
    ctx.db.execute("UPDATE meetings SET status = 'live', started_at = ? WHERE meeting_id = ?", (now, meeting_id))
    ctx.db.execute(
        "UPDATE participants SET joined_at = ?, left_at = NULL WHERE meeting_id = ? AND user_id = ?",
        (now, meeting_id, m["host_id"]),
    )
    return _meeting_view(ctx, MEETING.get(ctx, meeting_id))


@video_meeting.write()
def join_meeting(ctx: Ctx, meeting_id: MeetingId, user_id: UserId) -> dict[str, Any]:
    """A user joins a live meeting, invited or not, if there is room, e.g. join_meeting('MTG-0372', 'USR-0042')."""
    m = MEETING.get(ctx, meeting_id)
    USER.get(ctx, user_id)
    _live(m, "join")
    part = ctx.db.execute(
        "SELECT joined_at, left_at FROM participants WHERE meeting_id = ? AND user_id = ?", (meeting_id, user_id)
    ).fetchone()
    if part and part[0] and not part[1]:
        raise ToolError(f"{user_id} is already in meeting {meeting_id}.")
    inside = _inside(ctx, meeting_id)
    if inside >= m["capacity"]:
        raise ToolError(f"Meeting {meeting_id} is full ({inside}/{m['capacity']} inside); someone has to leave first.")
    now = fake.iso(ctx.now)
    if part:
        ctx.db.execute(
            "UPDATE participants SET joined_at = ?, left_at = NULL WHERE meeting_id = ? AND user_id = ?",
            (now, meeting_id, user_id),
        )
    else:
        ctx.db.execute("INSERT INTO participants VALUES (?,?,?,?,?,?)", (meeting_id, user_id, "attendee", 0, now, None))
    return {
        "meeting_id": meeting_id,
        "user_id": user_id,
        "joined_at": now,
        "in_meeting_count": inside + 1,
        "capacity": m["capacity"],
    }


@video_meeting.write(returns=("recording",))
def set_recording(
    ctx: Ctx,
    meeting_id: MeetingId,
    acting_user_id: ActingUser,
    recording: Annotated[bool, Field(description="true to start the cloud recording, false to stop it")] = True,
) -> dict[str, Any]:
    """Start or stop the cloud recording of a live meeting (host or co-host), e.g. set_recording('MTG-0371', 'USR-0065',
    True).

    Needs a host on the pro or business plan; a stopped recording is ready to view in list_recordings."""
    m = MEETING.get(ctx, meeting_id)
    _authorize(ctx, m, acting_user_id, "control recording", cohost_ok=True)
    _live(m, "record")
    host = USER.get(ctx, m["host_id"])
    if host["plan"] == "basic":
        raise ToolError(
            f"The host {m['host_id']} is on the basic plan, which has no cloud recording; "
            "a pro or business host is needed."
        )
    running = ctx.db.execute(
        "SELECT recording_id, started_at FROM recordings WHERE meeting_id = ? AND status = 'recording'", (meeting_id,)
    ).fetchone()
    if not recording:
        if not running:
            raise ToolError(f"Meeting {meeting_id} is not being recorded; start a recording with recording=true.")
        return _stop(ctx, running[0])
    if running:
        raise ToolError(f"Meeting {meeting_id} is already being recorded ({running[0]} since {running[1]}).")
    rec_id = next_id(ctx.db, "recordings", "recording_id", "REC")
    now = fake.iso(ctx.now)
    ctx.db.execute(
        "INSERT INTO recordings VALUES (?,?,?,?,?,?,?,?)",
        (rec_id, meeting_id, acting_user_id, now, None, None, None, "recording"),
    )
    return {"recording_id": rec_id, "meeting_id": meeting_id, "status": "recording", "started_at": now}


def _stop(ctx: Ctx, recording_id: str) -> dict[str, Any]:
    rec = RECORDING.get(ctx, recording_id)
    secs = max(0, int((ctx.now - datetime.fromisoformat(rec["started_at"])).total_seconds()))
    size = round(secs * 0.12, 1)
    ctx.db.execute(
        "UPDATE recordings SET status = 'ready', ended_at = ?, duration_seconds = ?, size_mb = ? "
        "WHERE recording_id = ?",
        (fake.iso(ctx.now), secs, size, recording_id),
    )
    return {
        "recording_id": recording_id,
        "meeting_id": rec["meeting_id"],
        "status": "ready",
        "duration_seconds": secs,
        "size_mb": size,
    }


@video_meeting.write(returns=("meeting", "recording"), requires=("start_meeting",))
def end_meeting(ctx: Ctx, meeting_id: MeetingId, acting_user_id: ActingUser) -> dict[str, Any]:
    """End a live meeting for everyone (host or co-host), e.g. end_meeting('MTG-0372', 'USR-0017'). A running recording
    is stopped and becomes ready."""
    m = MEETING.get(ctx, meeting_id)
    _authorize(ctx, m, acting_user_id, "end it", cohost_ok=True)
    _live(m, "end")
    running = ctx.db.execute(
        "SELECT recording_id FROM recordings WHERE meeting_id = ? AND status = 'recording'", (meeting_id,)
    ).fetchall()
    stopped = [_stop(ctx, r[0]) for r in running]
    now = fake.iso(ctx.now)
    ctx.db.execute(
        "UPDATE participants SET left_at = ? WHERE meeting_id = ? AND joined_at IS NOT NULL AND left_at IS NULL",
        (now, meeting_id),
    )
    ctx.db.execute("UPDATE meetings SET status = 'ended', ended_at = ? WHERE meeting_id = ?", (now, meeting_id))
    out = _meeting_view(ctx, MEETING.get(ctx, meeting_id))
    out["stopped_recordings"] = stopped
    return out
