"""Video meeting write tools: schedule, start, join, record and end meetings (the reads are in ``tools``)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, Entity, IsoDateTime, ToolError, fake, next_id
from servers.video_meeting.schema import PLAN_CAPACITY
from servers.video_meeting.tools import (
    EARLY_START,
    ActingUser,
    MeetingId,
    RecordingId,
    UserId,
    _authorize,
    _inside,
    _live,
    _meeting_view,
    _parse,
    _slot_end,
    video_meeting,
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
    cohost_id: Annotated[
        str | None, UserId.ref("An invitee who may record and end the meeting, e.g. 'USR-0042'")
    ] = None,
    agenda: Annotated[str, Field(max_length=2000)] = "",
) -> dict[str, Any]:
    """Schedule a meeting hosted by a user, e.g. schedule_meeting('USR-0017', 'Roadmap walkthrough', '2026-06-02T15:00',
    45, invitee_ids=['USR-0042']).

    The start must be in the future, the host must be free in that slot, and capacity (default: the plan's
    maximum) must hold the host and all invitees. Returns the new meeting id and join code."""
    host = UserId.get(ctx, host_id)
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
    return _meeting_view(ctx, MeetingId.get(ctx, meeting_id))


def _guests(ctx: Ctx, host_id: str, invitee_ids: list[str], cohost_id: str | None, cap: int) -> list[str]:
    """The distinct invitees, each a known user other than the host, who fit the capacity with the host."""
    guests = list(dict.fromkeys(invitee_ids))
    for g in guests:
        UserId.get(ctx, g)
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
    for other in ctx.rows(
        "SELECT meeting_id, scheduled_start, duration_minutes, title FROM meetings "
        "WHERE host_id = ? AND status IN ('scheduled', 'live') AND scheduled_start < ?",
        (host_id, fake.iso(t1)),
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
    m = MeetingId.get(ctx, meeting_id)
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
    return _meeting_view(ctx, MeetingId.get(ctx, meeting_id))


@video_meeting.write()
def join_meeting(ctx: Ctx, meeting_id: MeetingId, user_id: UserId) -> dict[str, Any]:
    """A user joins a live meeting, invited or not, if there is room, e.g. join_meeting('MTG-0372', 'USR-0042')."""
    m = MeetingId.get(ctx, meeting_id)
    UserId.get(ctx, user_id)
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
    m = MeetingId.get(ctx, meeting_id)
    _authorize(ctx, m, acting_user_id, "control recording", cohost_ok=True)
    _live(m, "record")
    host = UserId.get(ctx, m["host_id"])
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
    rec = RecordingId.get(ctx, recording_id)
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
    m = MeetingId.get(ctx, meeting_id)
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
    out = _meeting_view(ctx, MeetingId.get(ctx, meeting_id))
    out["stopped_recordings"] = stopped
    return out
