"""Video meeting tools: the server, its entities, and the reads that find users, meetings and recordings
(the writes are in ``tools_write``)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, IsoDateOrTime, Limit, Offset, Query, Server, ToolError, fake, parse_datetime
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


class UserId(EntityId, server=video_meeting, example="USR-0017", finder="search_users", max_length=40): ...


class MeetingId(EntityId, server=video_meeting, example="MTG-0372", finder="list_meetings", max_length=40): ...


class RecordingId(EntityId, server=video_meeting, example="REC-0001", finder="list_recordings"): ...


ActingUser = Annotated[
    str, UserId.ref("Who performs the action (must be the host, or a co-host where allowed), e.g. 'USR-0017'")
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
        ctx.value(
            "SELECT COUNT(*) FROM participants WHERE meeting_id = ? AND joined_at IS NOT NULL AND left_at IS NULL",
            (meeting_id,),
        )
    )


def _authorize(ctx: Ctx, m: dict[str, Any], user_id: str, action: str, cohost_ok: bool) -> None:
    UserId.get(ctx, user_id)
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
    out["participants"] = ctx.rows(
        "SELECT p.user_id, u.name, p.role, p.invited, p.joined_at, p.left_at, "
        "(p.joined_at IS NOT NULL AND p.left_at IS NULL) AS in_meeting "
        "FROM participants p JOIN users u USING (user_id) WHERE p.meeting_id = ? "
        "ORDER BY CASE p.role WHEN 'host' THEN 0 WHEN 'cohost' THEN 1 ELSE 2 END, p.user_id",
        (m["meeting_id"],),
    )
    for p in out["participants"]:
        p["invited"], p["in_meeting"] = bool(p["invited"]), bool(p["in_meeting"])
    out["in_meeting_count"] = sum(p["in_meeting"] for p in out["participants"])
    out["recordings"] = ctx.rows(
        "SELECT * FROM recordings WHERE meeting_id = ? ORDER BY recording_id", (m["meeting_id"],)
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
    host_id: Annotated[str | None, UserId.ref("Only meetings this user hosts, e.g. 'USR-0017'")] = None,
    participant_id: Annotated[
        str | None, UserId.ref("Only meetings this user is invited to or joined, e.g. 'USR-0017'")
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
    return _meeting_view(ctx, MeetingId.get(ctx, meeting_id))


@video_meeting.read(returns=("recording", "meeting"))
def list_recordings(
    ctx: Ctx,
    meeting_id: Annotated[str | None, MeetingId.ref("Only this meeting's recordings, e.g. 'MTG-0372'")] = None,
    host_id: Annotated[str | None, UserId.ref("Only recordings of meetings this user hosts, e.g. 'USR-0017'")] = None,
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
