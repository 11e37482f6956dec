"""Short follow-ups on video meetings: what a person asks or does right after an earlier turn, about the
meeting or the person the dialogue is already about ("who's on it now?", "tape it", "what's my next one?").
They never open a dialogue and never change who talks. Those that are one turn and one call on the
dialogue's meeting or user are rows of ``ONE_CALL``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake
from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip, clock
from hub.kit.phrasings import Said
from servers.video_meeting.intents import SLOT_END, WORDS, busy, find_user, iso, remember
from servers.video_meeting.schema import PLAN_CAPACITY
from servers.video_meeting.tools import video_meeting

Row = dict[str, Any]


def _me(s: Scene) -> dict[str, Any]:
    return dict(s.known("me", "no user in the dialogue yet"))


def _meeting(s: Scene) -> dict[str, Any]:
    return dict(s.known("meeting", "no meeting in the dialogue yet"))


def _on(fits: str, fixed: dict[str, Any] | None = None, on: str = "meeting") -> Callable[[Scene], tuple[Row, Row]]:
    """The call on the dialogue's meeting (acted on by its user) or, with ``on="me"``, on the dialogue's user as
    host; offered where ``fits`` (SQL: ?1 the meeting, ?2 the user, ?3 now) returns a row."""

    def about(s: Scene) -> tuple[Row, Row]:
        u = _me(s)
        if on == "me":
            mid, args = None, {"host_id": u["user_id"], **(fixed or {})}
        else:
            mid = _meeting(s)["meeting_id"]
            args = {"meeting_id": mid, "acting_user_id": u["user_id"], **(fixed or {})}
        used = max(int(n) for n in re.findall(r"\?(\d)", fits))
        if not s.rows(fits, *(mid, u["user_id"], iso(s))[:used]):
            raise Skip(f"{s.intent.name if s.intent else 'the follow-up'} does not fit the dialogue")
        return args, {}

    return about


def then(s: Scene, tool: str, args: dict[str, Any], *phrasings: Said) -> Any:
    """The user asks ``tool`` with ``args`` in one of ``phrasings`` (``Skip`` when the dialogue already did)."""
    s.asked(tool, **args)
    s.say(*phrasings)
    return s.call(tool, **args)


ONE_CALL = (
    FollowUp(
        "tape_it",
        "The host (or co-host) of the live meeting of the dialogue starts its cloud recording.",
        _on(
            "SELECT 1 FROM meetings m JOIN participants p USING (meeting_id) JOIN users h ON h.user_id = m.host_id "
            "WHERE m.meeting_id = ?1 AND m.status = 'live' AND p.user_id = ?2 AND p.role IN ('host', 'cohost') "
            "AND h.plan != 'basic' "
            "AND m.meeting_id NOT IN (SELECT meeting_id FROM recordings WHERE status = 'recording')",
            {"recording": True},
        ),
        "set_recording",
    ),
    FollowUp(
        "open_it",
        "The host opens the meeting of the dialogue, when it is about to begin.",
        _on(
            "SELECT 1 FROM meetings WHERE meeting_id = ?1 AND host_id = ?2 AND status = 'scheduled' "
            f"AND datetime(scheduled_start, '-60 minutes') <= datetime(?3) AND {SLOT_END} > datetime(?3) "
            "AND host_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')"
        ),
        "start_meeting",
    ),
    FollowUp(
        "taped_before",
        "Which of the user's hosted meetings have a recording.",
        _on("SELECT 1 FROM meetings WHERE host_id = ?2", {"has_recording": True}, "me"),
        "list_meetings",
        weight=0.7,
    ),
)
follow_ups(video_meeting, ONE_CALL, WORDS)


@video_meeting.intent(covers=("get_meeting",), follows=True, opens=False, weight=1.3)
def who_is_on_it(s: Scene) -> None:
    """Who is on the meeting the dialogue is about (and, for a live one, who is in it now)."""
    mid = _meeting(s)["meeting_id"]
    if s.value("SELECT status FROM meetings WHERE meeting_id = ?", mid) == "live":
        live = WORDS.who_is_on_it_live
        then(s, "get_meeting", {"meeting_id": mid}, *live)
        return
    then(s, "get_meeting", {"meeting_id": mid}, WORDS.who_is_on_it)


@video_meeting.intent(covers=("list_meetings",), follows=True, opens=False)
def rest_of_my_day(s: Scene) -> None:
    """What else the user has on today, or what they host next."""
    uid = _me(s)["user_id"]
    if s.rng.random() < 0.5:
        then(
            s,
            "list_meetings",
            {"participant_id": uid, "starts_after": iso(s)[:16], "starts_before": iso(s, 24 * 60)[:10]},
            WORDS.rest_of_my_day_today,
        )
        return
    found = then(
        s,
        "list_meetings",
        {"host_id": uid, "status": "scheduled", "starts_after": iso(s)[:16], "limit": 3},
        WORDS.rest_of_my_day,
    )
    if found["meetings"] and "meeting" not in s.memory:
        remember(s, found["meetings"][0])


@video_meeting.intent(covers=("list_recordings",), follows=True, opens=False)
def the_tapes(s: Scene) -> None:
    """The recordings of the meeting the dialogue is about, or all of the user's."""
    m = s.memory.get("meeting")
    if m and s.rows("SELECT 1 FROM recordings WHERE meeting_id = ?", m["meeting_id"]) and s.rng.random() < 0.7:
        then(s, "list_recordings", {"meeting_id": m["meeting_id"]}, WORDS.the_tapes_of_this_call)
        return
    uid = _me(s)["user_id"]
    if not s.rows("SELECT 1 FROM meetings WHERE host_id = ?", uid):
        raise Skip("the user hosts nothing")
    s.asked("list_recordings", host_id=uid)
    if s.rng.random() < 0.5:
        s.say(WORDS.the_tapes_ready)
        s.call("list_recordings", host_id=uid, status="ready")
        return
    s.say(WORDS.the_tapes)
    s.call("list_recordings", host_id=uid)


@video_meeting.intent(covers=("schedule_meeting",), follows=True, opens=False, weight=0.8)
def same_people_next_week(s: Scene) -> None:
    """After seeing who is on a meeting, the user books a follow-up call with the same people a week later."""
    u, m = _me(s), _meeting(s)
    views = [v for v in seen(s) if v.get("meeting_id") == m["meeting_id"]]
    if not views:
        raise Skip("the dialogue has not seen who is on it")
    guests = [p["user_id"] for p in views[-1]["participants"] if p["user_id"] != u["user_id"]]
    if not guests or u["user_id"] not in [p["user_id"] for p in views[-1]["participants"]]:
        raise Skip("the user is not on it, or nobody else is")
    start = datetime.fromisoformat(views[-1]["scheduled_start"]) + timedelta(days=7)
    start = start.replace(hour=s.rng.choice((10, 11, 14, 15, 16)), minute=0)
    if start <= s.now:
        raise Skip("a week after that meeting is already past")
    if busy(s, u["user_id"], start, 30):
        raise Skip("the user is busy then")
    if len(guests) + 1 > PLAN_CAPACITY[str(u.get("plan", "basic"))]:
        raise Skip("too many people")
    title = f"{m['title']} follow-up"
    s.say(WORDS.same_people_next_week, t=clock(start), n=title)
    out = s.call("schedule_meeting", host_id=u["user_id"], title=title, start=fake.iso(start)[:16], invitee_ids=guests)
    remember(s, out)


def seen(s: Scene) -> list[dict[str, Any]]:
    """The meetings the dialogue's calls showed with their participants."""
    shown = ("get_meeting", "schedule_meeting", "start_meeting", "end_meeting")
    return [c.result for c in s.calls if c.tool in shown and isinstance(c.result, dict)]


def someone_seen(s: Scene) -> dict[str, Any]:
    """One of the people a meeting the dialogue showed has on it (not the user), with a name only they have."""
    uid = _me(s)["user_id"]
    people = [p for v in seen(s) for p in v.get("participants") or () if p["user_id"] != uid]
    if not people:
        raise Skip("the dialogue has not listed anyone")
    p = s.rng.choice(people)
    if s.value("SELECT COUNT(*) FROM users WHERE name = ?", p["name"]) != 1:
        raise Skip("the name is not unique")
    return p


@video_meeting.intent(covers=("search_users",), follows=True, opens=False, weight=0.8)
def whose_plan(s: Scene) -> None:
    """After seeing who is on a meeting, the user asks which plan one of them is on (can they host a taped call?)."""
    p = someone_seen(s)
    s.asked("search_users", query=p["name"])
    s.say(WORDS.whose_plan, n=p["name"])
    s.call("search_users", query=p["name"])


@video_meeting.intent(covers=("search_users", "list_meetings", "list_recordings"), follows=True, opens=False)
def their_calls(s: Scene) -> None:
    """After seeing who is on a meeting, the user asks what one of them hosts next, or what they have recorded."""
    p = someone_seen(s)
    taped = s.rng.random() < 0.4
    if taped:
        if not s.rows(
            "SELECT 1 FROM recordings r JOIN meetings m USING (meeting_id) WHERE m.host_id = ?", p["user_id"]
        ):
            raise Skip("they have recorded nothing")
        s.say(WORDS.their_calls, n=p["name"])
    else:
        s.say(WORDS.their_calls_upcoming, n=p["name"])
    uid = find_user(s, p)
    if taped:
        s.call("list_recordings", host_id=uid)
    else:
        s.call(
            "list_meetings", host_id=uid, status="scheduled", starts_after=iso(s)[:16], starts_before=iso(s, 10080)[:10]
        )
