"""What people want of video meetings: hosts opening, recording and closing their calls, people
joining, booking new meetings and looking back at recordings.

The user says who they are (their name); the agent finds their user id with ``search_users`` and
their meetings with ``list_meetings`` (by host or participant, status and a time window). People
name meetings by title and time ("my 9:30 Sprint planning"), colleagues by name. This module holds
who talks and how meetings are named, and the intents around a live call.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, clock, day
from hub.kit.phrasings import phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.video_meeting import tools_write  # noqa: F401  (the write tools, before the intents that cover them)
from servers.video_meeting.tools import UserId, video_meeting

WORDS = phrasings(__package__)

UNIQUE_NAME = "name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
USERS = "SELECT user_id, name, email, department, plan FROM users"
MEETING = "SELECT m.*, u.name AS host FROM meetings m JOIN users u ON u.user_id = m.host_id"
SLOT_END = "datetime(scheduled_start, '+' || duration_minutes || ' minutes')"

SPEAKER = Speaker(
    UserId,
    select=f"{USERS} WHERE {UNIQUE_NAME}",
    says=(Says("I'm {name}", "name"),),
    again=("Also,", "While you're at it,", "One more thing:", "Next,"),
    search=Search(missing="the user is not on the first page of the search"),
    keep=("plan",),
    late=True,
)
ask = SPEAKER.asks
find_me = SPEAKER.find


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The user talking (``SPEAKER.me``); when an earlier turn named who talks without looking them up, them."""
    if s.speaker is not None and "me" not in s.memory:
        where, params = f"({where}) AND name = ?", (*params, s.speaker)
    return SPEAKER.me(s, where, *params)


def find_user(s: Scene, u: dict[str, Any]) -> str:
    """Someone else's user id, off a search by their name."""
    hit = s.discover(UserId, u["user_id"], missing="not on the first page", query=u["name"])
    return str(hit["user_id"])


def remember(s: Scene, m: dict[str, Any]) -> None:
    """The meeting the dialogue is now about, as the agent knows it."""
    s.memory["meeting"] = {k: m[k] for k in ("meeting_id", "title", "scheduled_start", "host_id") if k in m}


def iso(s: Scene, minutes: int = 0) -> str:
    return fake.iso(s.now + timedelta(minutes=minutes))


def next_day(start: str) -> str:
    return (datetime.fromisoformat(start) + timedelta(days=1)).strftime("%Y-%m-%d")


def busy(s: Scene, uid: str, start: datetime, minutes: int) -> bool:
    """Whether the user hosts something that overlaps ``minutes`` from ``start``."""
    return bool(
        s.rows(
            f"SELECT 1 FROM meetings WHERE host_id = ? AND status IN ('scheduled', 'live') AND scheduled_start < ? "
            f"AND {SLOT_END} > datetime(?)",
            uid,
            fake.iso(start + timedelta(minutes=minutes)),
            fake.iso(start),
        )
    )


def person(s: Scene, u: dict[str, Any]) -> str:
    return s.named(u, "users", "user_id", "{name}", "{name} from {department}")


def host_live_meeting(s: Scene, u: dict[str, Any], m: dict[str, Any]) -> tuple[str, str]:
    """The host's user id (a search by name) and the id of the live meeting they list as host: ``m``, their only
    live one (``Skip`` otherwise, as "my call" would be ambiguous)."""
    uid = find_me(s, u)
    live = s.call("list_meetings", host_id=uid, status="live")["meetings"]
    if [x["meeting_id"] for x in live] != [m["meeting_id"]]:
        raise Skip("not the host's only live meeting")
    return uid, str(live[0]["meeting_id"])


def meeting_ref(s: Scene, m: dict[str, Any], participant: str | None = None) -> str:
    """A meeting as its host (or ``participant``) names it: by title, then title and time, then day too."""
    who = participant or m["host_id"]
    mine = (
        "SELECT meeting_id FROM meetings WHERE host_id = ? "
        if participant is None
        else "SELECT meeting_id FROM meetings WHERE meeting_id IN (SELECT meeting_id FROM participants "
        "WHERE user_id = ?) "
    )
    when = m["scheduled_start"]
    return s.refer(
        m["meeting_id"],
        Ref("the {title} meeting", mine + "AND title = ? AND status = ?", who, m["title"], m["status"]),
        Ref(
            "the {clock} {title}",
            mine + "AND title = ? AND status = ? AND substr(scheduled_start, 12, 5) = ?",
            who,
            m["title"],
            m["status"],
            when[11:16],
        ),
        Ref("the {title} {day} at {clock}", mine + "AND title = ? AND scheduled_start = ?", who, m["title"], when),
        title=f"'{m['title']}'",
        clock=clock(when),
        day=day(when, s.now),
    )


@video_meeting.intent(
    covers=("search_users", "list_meetings", "start_meeting", "set_recording"), weight=1.5, follows=True
)
def kick_off(s: Scene) -> None:
    """A host opens a meeting that is about to begin, and maybe has it recorded."""
    lo, hi, now = iso(s, -240), iso(s, 60), iso(s)
    today, tomorrow = now[:10], iso(s, 24 * 60)[:10]
    soon = f"status = 'scheduled' AND scheduled_start BETWEEN ? AND ? AND {SLOT_END} > datetime(?)"
    u = me(
        s,
        f"user_id IN (SELECT host_id FROM meetings WHERE {soon}) "
        "AND user_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')",
        lo,
        hi,
        now,
    )
    m = s.pick(
        MEETING + f" WHERE m.host_id = ? AND m.meeting_id IN (SELECT meeting_id FROM meetings WHERE {soon})",
        u["user_id"],
        lo,
        hi,
        now,
    )
    uid = ask(s, u, WORDS.kick_off, what=meeting_ref(s, m))
    if (s.memory.get("meeting") or {}).get("meeting_id") != m["meeting_id"]:  # else an earlier turn listed it
        listed = s.call("list_meetings", host_id=uid, status="scheduled", starts_after=today, starts_before=tomorrow)
        if m["meeting_id"] not in [x["meeting_id"] for x in listed["meetings"]]:
            raise Skip("the meeting is not listed")
    s.call("start_meeting", meeting_id=m["meeting_id"], acting_user_id=uid)
    remember(s, m)
    if not s.room() or s.rng.random() < 0.5:
        return
    if u["plan"] != "basic" and s.rng.random() < 0.8:
        s.say(WORDS.kick_off_then_record)
        s.call("set_recording", meeting_id=m["meeting_id"], acting_user_id=uid, recording=True)
        return
    s.say(WORDS.kick_off_then_today)
    s.call("list_meetings", host_id=uid, status="scheduled", starts_after=today, starts_before=tomorrow)


@video_meeting.intent(
    covers=("search_users", "list_meetings", "end_meeting", "list_recordings"), weight=1.5, follows=True
)
def wrap_up(s: Scene) -> None:
    """The host (or a co-host) closes a live meeting and asks what the recording came to."""
    known, who = s.memory.get("meeting"), (s.memory.get("me") or {}).get("user_id")
    if known and s.rows(
        "SELECT 1 FROM meetings m JOIN participants p USING (meeting_id) WHERE m.meeting_id = ? AND m.status = 'live' "
        "AND p.user_id = ? AND p.role IN ('host', 'cohost')",
        known["meeting_id"],
        who,
    ):
        me(s)
        s.say(WORDS.wrap_up)
        uid, mid = str(who), known["meeting_id"]
    else:
        u = me(s, "user_id IN (SELECT host_id FROM meetings WHERE status = 'live')")
        m = s.pick(MEETING + " WHERE m.host_id = ? AND m.status = 'live'", u["user_id"])
        s.say(WORDS.wrap_up_opening, me=SPEAKER.who(s, u), title=f"'{m['title']}'")
        uid, mid = host_live_meeting(s, u, m)
    out = s.call("end_meeting", meeting_id=mid, acting_user_id=uid)
    if not s.room() or s.rng.random() < 0.5:
        pass
    elif out["recordings"] and s.rng.random() < 0.8:
        s.say(WORDS.wrap_up_then_recording)
        s.call("list_recordings", meeting_id=mid)
    else:
        s.say(WORDS.wrap_up_then_next_call)
        s.call("list_meetings", host_id=uid, status="scheduled", starts_after=iso(s)[:16], limit=3)
    remember(s, out)


@video_meeting.intent(covers=("search_users", "list_meetings", "join_meeting", "get_meeting"), follows=True)
def hop_in(s: Scene) -> None:
    """Someone invited to a live meeting gets in, then maybe asks who else is there."""
    room = "(SELECT COUNT(*) FROM participants x WHERE x.meeting_id = m.meeting_id AND x.joined_at IS NOT NULL "
    room += "AND x.left_at IS NULL) < m.capacity"
    out = "role != 'host' AND (joined_at IS NULL OR left_at IS NOT NULL)"
    u = me(
        s,
        f"user_id IN (SELECT p.user_id FROM participants p JOIN meetings m USING (meeting_id) WHERE m.status = 'live' "
        f"AND p.{out} AND {room}) "
        "AND user_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')",
    )
    m = s.pick(
        MEETING + f" WHERE m.status = 'live' AND {room} AND m.meeting_id IN "
        f"(SELECT meeting_id FROM participants WHERE user_id = ? AND {out})",
        u["user_id"],
    )
    host = s.rows(USERS + " WHERE user_id = ?", m["host_id"])[0]
    s.say(WORDS.hop_in, me=SPEAKER.who(s, u), what=meeting_ref(s, m, participant=u["user_id"]), host=host["name"])
    by_host = s.rng.random() < (0.5 if len(s.turns) == 1 else 0.2)
    uid = find_me(s, u)
    if by_host and not s.minimal:  # the user named the host: their live call
        live = s.call("list_meetings", host_id=find_user(s, host), status="live")["meetings"]
    else:
        live = s.call("list_meetings", participant_id=uid, status="live")["meetings"]
    if m["meeting_id"] not in [x["meeting_id"] for x in live]:
        raise Skip("not listed")
    s.call("join_meeting", meeting_id=m["meeting_id"], user_id=uid)
    remember(s, m)
    if not s.room() or s.rng.random() < 0.5:
        return
    s.say(WORDS.hop_in_then_who_is_on)
    s.call("get_meeting", meeting_id=m["meeting_id"])


@video_meeting.intent(covers=("search_users", "list_meetings", "set_recording", "list_recordings"), follows=True)
def stop_taping(s: Scene) -> None:
    """A host stops a running recording but keeps the call going (right after starting it, or on a call they run)."""
    taping = "m.status = 'live' AND m.meeting_id IN (SELECT meeting_id FROM recordings WHERE status = 'recording')"
    u = me(s, f"user_id IN (SELECT m.host_id FROM meetings m WHERE {taping})")
    known = s.memory.get("meeting")
    ours = s.rows(MEETING + f" WHERE m.host_id = ? AND {taping}", u["user_id"])
    if known and [r["meeting_id"] for r in ours] == [known["meeting_id"]] and "me" in s.memory:
        s.say(WORDS.stop_taping)
        uid, mid = str(s.memory["me"]["user_id"]), str(known["meeting_id"])
    else:
        if not ours:
            raise Skip("the user is taping no live call")
        m = s.rng.choice(ours)
        s.say(WORDS.stop_taping_opening, me=SPEAKER.who(s, u), title=f"'{m['title']}'")
        if s.rng.random() < 0.5 and not s.minimal:  # "whatever I'm recording": the running recordings
            uid = find_me(s, u)
            running = s.call("list_recordings", host_id=uid, status="recording")["recordings"]
            if [r["meeting_id"] for r in running] != [m["meeting_id"]]:
                raise Skip("not the host's only running recording")
            mid = str(running[0]["meeting_id"])
        else:
            uid, mid = host_live_meeting(s, u, m)
        remember(s, m)
    s.call("set_recording", meeting_id=mid, acting_user_id=uid, recording=False)
    if s.by_chance(0.5):
        s.say(WORDS.stop_taping_then_clip)
        s.call("list_recordings", meeting_id=mid, status="ready")
