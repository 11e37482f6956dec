"""Short follow-ups on video meetings: what a person asks or does right after an earlier turn, about the
meeting or the person the dialogue is already about ("who's on it now?", "tape it", "what's my next one?").
They never open a dialogue and never change who talks.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake
from hub.kit.intent import Scene, Skip, clock
from servers.video_meeting.intents import iso, remember
from servers.video_meeting.tools import video_meeting


def _me(s: Scene) -> dict[str, Any]:
    known = s.memory.get("me")
    if not known:
        raise Skip("no user in the dialogue yet")
    return dict(known)


def _meeting(s: Scene) -> dict[str, Any]:
    known = s.memory.get("meeting")
    if not known:
        raise Skip("no meeting in the dialogue yet")
    return dict(known)


@video_meeting.intent(covers=("get_meeting",), follows=True, opens=False, weight=1.3)
def who_is_on_it(s: Scene) -> None:
    """Who is on the meeting the dialogue is about (and, for a live one, who is in it now)."""
    m = _meeting(s)
    s.asked("get_meeting", meeting_id=m["meeting_id"])
    status = s.value("SELECT status FROM meetings WHERE meeting_id = ?", m["meeting_id"])
    if status == "live":
        s.say("Who's in there right now?", "How many people are on it at the moment?", "Who has joined so far?")
    else:
        s.say(
            "Who's on the list for it?",
            "What's the join code for that one, and who's coming?",
            "Read me the details of that call.",
        )
    s.call("get_meeting", meeting_id=m["meeting_id"])


@video_meeting.intent(covers=("list_meetings",), follows=True, opens=False)
def rest_of_my_day(s: Scene) -> None:
    """What else the user has on today, or what they host next."""
    u = _me(s)
    if s.rng.random() < 0.5:
        s.asked("list_meetings", participant_id=u["user_id"])
        s.say("What other calls do I have today?", "Anything else on my calendar today?", "What's left for me today?")
        s.call(
            "list_meetings", participant_id=u["user_id"], starts_after=iso(s)[:16], starts_before=iso(s, 24 * 60)[:10]
        )
        return
    s.asked("list_meetings", host_id=u["user_id"], status="scheduled")
    s.say("What's the next one I'm hosting?", "When do I host next?", "Which of my own calls comes next?")
    found = s.call("list_meetings", host_id=u["user_id"], status="scheduled", starts_after=iso(s)[:16], limit=3)
    if found["meetings"] and "meeting" not in s.memory:
        remember(s, found["meetings"][0])


@video_meeting.intent(covers=("list_recordings",), follows=True, opens=False)
def the_tapes(s: Scene) -> None:
    """The recordings of the meeting the dialogue is about, or all of the user's."""
    m = s.memory.get("meeting")
    has = m and s.rows("SELECT 1 FROM recordings WHERE meeting_id = ?", m["meeting_id"])
    if m and has and s.rng.random() < 0.7:
        s.asked("list_recordings", meeting_id=m["meeting_id"])
        s.say("Is there a recording of it?", "What recordings does that call have?", "How long is its recording?")
        s.call("list_recordings", meeting_id=m["meeting_id"])
        return
    u = _me(s)
    if not s.rows("SELECT 1 FROM meetings WHERE host_id = ?", u["user_id"]):
        raise Skip("the user hosts nothing")
    s.asked("list_recordings", host_id=u["user_id"])
    ready = s.rng.random() < 0.5
    s.say(
        "Which of my recordings are ready to watch?" if ready else "What recordings do I have overall?",
        "Show me my finished recordings." if ready else "List all the recordings of my calls.",
    )
    args: dict[str, Any] = {"host_id": u["user_id"]}
    if ready:
        args["status"] = "ready"
    s.call("list_recordings", **args)


@video_meeting.intent(covers=("set_recording",), follows=True, opens=False)
def tape_it(s: Scene) -> None:
    """The host (or co-host) of the live meeting of the dialogue starts its cloud recording."""
    u, m = _me(s), _meeting(s)
    ok = s.rows(
        "SELECT 1 FROM meetings m JOIN participants p USING (meeting_id) JOIN users h ON h.user_id = m.host_id "
        "WHERE m.meeting_id = ? AND m.status = 'live' AND p.user_id = ? AND p.role IN ('host', 'cohost') "
        "AND h.plan != 'basic' AND m.meeting_id NOT IN (SELECT meeting_id FROM recordings WHERE status = 'recording')",
        m["meeting_id"],
        u["user_id"],
    )
    if not ok:
        raise Skip("the user cannot start a recording there")
    s.say(
        "Start recording it, please.",
        "Can you tape this one for the people who missed it?",
        "Turn on the cloud recording.",
    )
    s.call("set_recording", meeting_id=m["meeting_id"], acting_user_id=u["user_id"], recording=True)


@video_meeting.intent(covers=("list_meetings",), follows=True, opens=False, weight=0.7)
def taped_before(s: Scene) -> None:
    """Which of the user's hosted meetings have a recording."""
    u = _me(s)
    if not s.rows("SELECT 1 FROM meetings WHERE host_id = ?", u["user_id"]):
        raise Skip("the user hosts nothing")
    s.asked("list_meetings", host_id=u["user_id"], has_recording=True)
    s.say(
        "Which of my calls have been recorded so far?",
        "Which meetings I ran have a recording?",
        "Do any of my meetings have a recording I could rewatch?",
        "Were any of the calls I hosted recorded?",
    )
    s.call("list_meetings", host_id=u["user_id"], has_recording=True)


@video_meeting.intent(covers=("start_meeting",), follows=True, opens=False)
def open_it(s: Scene) -> None:
    """The host opens the meeting of the dialogue, when it is about to begin."""
    u, m = _me(s), _meeting(s)
    ok = s.rows(
        "SELECT 1 FROM meetings WHERE meeting_id = ? AND host_id = ? AND status = 'scheduled' "
        "AND datetime(scheduled_start, '-60 minutes') <= datetime(?) "
        "AND datetime(scheduled_start, '+' || duration_minutes || ' minutes') > datetime(?) "
        "AND host_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')",
        m["meeting_id"],
        u["user_id"],
        iso(s),
        iso(s),
    )
    if not ok:
        raise Skip("the user cannot open that meeting now")
    s.say("Open it now, people are waiting.", "Let's get that one started.", "Start it for me, I'm ready.")
    s.call("start_meeting", meeting_id=m["meeting_id"], acting_user_id=u["user_id"])


FOLLOW_UP_HOURS = (10, 11, 14, 15, 16)


@video_meeting.intent(covers=("schedule_meeting",), follows=True, opens=False, weight=0.8)
def same_people_next_week(s: Scene) -> None:
    """After seeing who is on a meeting, the user books a follow-up call with the same people a week later."""
    u, m = _me(s), _meeting(s)
    views = [
        c.result
        for c in s.calls
        if c.tool in ("get_meeting", "schedule_meeting", "start_meeting", "end_meeting")
        and isinstance(c.result, dict)
        and c.result.get("meeting_id") == m["meeting_id"]
    ]
    if not views:
        raise Skip("the dialogue has not seen who is on it")
    guests = [p["user_id"] for p in views[-1]["participants"] if p["user_id"] != u["user_id"]]
    if not guests or u["user_id"] not in [p["user_id"] for p in views[-1]["participants"]]:
        raise Skip("the user is not on it, or nobody else is")
    start = datetime.fromisoformat(views[-1]["scheduled_start"]) + timedelta(days=7)
    start = start.replace(hour=s.rng.choice(FOLLOW_UP_HOURS), minute=0)
    if start <= s.now:
        raise Skip("a week after that meeting is already past")
    if s.rows(
        "SELECT 1 FROM meetings WHERE host_id = ? AND status IN ('scheduled', 'live') AND scheduled_start < ? "
        "AND datetime(scheduled_start, '+' || duration_minutes || ' minutes') > datetime(?)",
        u["user_id"],
        fake.iso(start + timedelta(minutes=30)),
        fake.iso(start),
    ):
        raise Skip("the user is busy then")
    if len(guests) + 1 > {"basic": 100, "pro": 300, "business": 1000}[str(u.get("plan", "basic"))]:
        raise Skip("too many people")
    title = f"{m['title']} follow-up"
    s.say(
        "Set up a follow-up with the same people a week later at {t}, call it '{n}'.",
        "Book '{n}' with everyone on it, one week on, {t}.",
        t=clock(start),
        n=title,
    )
    out = s.call("schedule_meeting", host_id=u["user_id"], title=title, start=fake.iso(start)[:16], invitee_ids=guests)
    remember(s, out)


def someone_seen(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    """One of the people a meeting the dialogue showed has on it (not the user), with a name only they have."""
    seen = [
        p
        for c in s.calls
        if c.tool in ("get_meeting", "schedule_meeting", "start_meeting", "end_meeting") and isinstance(c.result, dict)
        for p in c.result.get("participants") or ()
        if p["user_id"] != u["user_id"]
    ]
    if not seen:
        raise Skip("the dialogue has not listed anyone")
    p = s.rng.choice(seen)
    if s.value("SELECT COUNT(*) FROM users WHERE name = ?", p["name"]) != 1:
        raise Skip("the name is not unique")
    return p


@video_meeting.intent(covers=("search_users",), follows=True, opens=False, weight=0.8)
def whose_plan(s: Scene) -> None:
    """After seeing who is on a meeting, the user asks which plan one of them is on (can they host a taped call?)."""
    p = someone_seen(s, _me(s))
    s.asked("search_users", query=p["name"])
    s.say(
        "Which plan is {n} on? Could they host a recorded call?",
        "Can {n} record meetings, what plan do they have?",
        "What's {n}'s plan, by the way?",
        n=p["name"],
    )
    s.call("search_users", query=p["name"])


@video_meeting.intent(covers=("search_users", "list_meetings", "list_recordings"), follows=True, opens=False)
def their_calls(s: Scene) -> None:
    """After seeing who is on a meeting, the user asks what one of them hosts next, or what they have recorded."""
    p = someone_seen(s, _me(s))
    taped = s.rng.random() < 0.4
    if taped:
        if not s.rows(
            "SELECT 1 FROM recordings r JOIN meetings m USING (meeting_id) WHERE m.host_id = ?", p["user_id"]
        ):
            raise Skip("they have recorded nothing")
        s.say("Has {n} recorded any of the calls they ran?", "Which recordings does {n} have?", n=p["name"])
    else:
        s.say("What is {n} hosting over the next week?", "Which calls is {n} running in the coming days?", n=p["name"])
    hit = s.find("search_users", "users", "user_id", p["user_id"], missing="not on the first page", query=p["name"])
    if taped:
        s.call("list_recordings", host_id=hit["user_id"])
    else:
        s.call(
            "list_meetings",
            host_id=hit["user_id"],
            status="scheduled",
            starts_after=iso(s)[:16],
            starts_before=iso(s, 7 * 24 * 60)[:10],
        )
