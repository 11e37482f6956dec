"""What people want of video meetings: hosts opening, recording and closing their calls, people
joining, booking new meetings and looking back at recordings.

The user says who they are (their name); the agent finds their user id with ``search_users`` and
their meetings with ``list_meetings`` (by host or participant, status and a time window). People
name meetings by title and time ("my 9:30 Sprint planning"), colleagues by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, clock, day
from servers.video_meeting.tools import video_meeting

UNIQUE_NAME = "name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
USERS = "SELECT user_id, name, email, department, plan FROM users"
MEETING = "SELECT m.*, u.name AS host FROM meetings m JOIN users u ON u.user_id = m.host_id"
NEW_TITLES = (
    "Roadmap walkthrough",
    "Pricing deep dive",
    "Offsite planning",
    "Quarter close prep",
    "Hiring sync",
    "Launch go/no-go",
    "Customer feedback review",
    "Migration kickoff",
)


OPEN_HI = ("I'm {name}:", "{name} here,", "This is {name}:", "{name} here:")
FOLLOW_HI = ("Also,", "While you're at it,", "One more thing:", "Next,")


def hi(s: Scene, u: dict[str, Any]) -> str:
    """How a request starts: the user says who they are when opening, links it to the last one when not."""
    if not s.turns:
        return s.rng.choice(OPEN_HI).format(name=u["name"])
    return s.rng.choice(FOLLOW_HI)


def ask(s: Scene, u: dict[str, Any], *phrasings: str, minimal: Sequence[str] = (), **slots: Any) -> str:
    """A request of the user (``{hi}``: who they are when opening), then the agent finding their own user id."""
    s.say(*phrasings, minimal=minimal, hi=hi(s, u), **slots)
    return find_user(s, u, own=True)


def remember(s: Scene, m: dict[str, Any]) -> None:
    """The meeting the dialogue is now about, as the agent knows it."""
    s.memory["meeting"] = {k: m[k] for k in ("meeting_id", "title", "scheduled_start", "host_id") if k in m}


def iso(s: Scene, minutes: int = 0) -> str:
    return fake.iso(s.now + timedelta(minutes=minutes))


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The user talking: the one an earlier turn established (``Skip`` when they do not fit), or a fresh pick."""
    known = s.recall("me", "user_id", USERS + f" WHERE user_id = ? AND ({where})", *params, who="user")
    if known is not None:
        return known
    if s.speaker is not None:  # an earlier turn named who talks without looking them up
        where, params = f"({where}) AND name = ?", (*params, s.speaker)
    u = s.pick(USERS + f" WHERE {UNIQUE_NAME} AND ({where})", *params)
    s.be(u["name"])
    return u


def find_user(s: Scene, u: dict[str, Any], own: bool = False) -> str:
    """A user id off a search by name (one's own is remembered for follow-ups)."""
    known = s.memory.get("me")
    if own and known and known["user_id"] == u["user_id"]:
        return str(known["user_id"])
    hit = s.find(
        "search_users",
        "users",
        "user_id",
        u["user_id"],
        missing="the user is not on the first page of the search",
        query=u["name"],
    )
    if own:
        s.memory["me"] = hit
    return str(hit["user_id"])


def person(s: Scene, u: dict[str, Any]) -> str:
    return s.refer(
        u["user_id"],
        Ref("{name}", "SELECT user_id FROM users WHERE name = ?", u["name"]),
        Ref(
            "{name} from {dept}",
            "SELECT user_id FROM users WHERE name = ? AND department = ?",
            u["name"],
            u["department"],
        ),
        name=u["name"],
        dept=u["department"],
    )


def host_live_meeting(s: Scene, u: dict[str, Any], m: dict[str, Any]) -> tuple[str, str]:
    """The host's user id (a search by name) and the id of the live meeting they list as host: ``m``, their only
    live one (``Skip`` otherwise, as "my call" would be ambiguous)."""
    uid = find_user(s, u, own=True)
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
    lo, hi_ = iso(s, -240), iso(s, 60)
    today, tomorrow = iso(s)[:10], iso(s, 24 * 60)[:10]
    u = me(
        s,
        "user_id IN (SELECT host_id FROM meetings WHERE status = 'scheduled' AND scheduled_start BETWEEN ? AND ? "
        "AND datetime(scheduled_start, '+' || duration_minutes || ' minutes') > datetime(?)) "
        "AND user_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')",
        lo,
        hi_,
        iso(s),
    )
    m = s.pick(
        MEETING + " WHERE m.host_id = ? AND m.status = 'scheduled' AND m.scheduled_start BETWEEN ? AND ? "
        "AND datetime(m.scheduled_start, '+' || m.duration_minutes || ' minutes') > datetime(?)",
        u["user_id"],
        lo,
        hi_,
        iso(s),
    )
    what = meeting_ref(s, m)
    uid = ask(
        s,
        u,
        "{hi} everyone's waiting for {what}, open it up for me.",
        "{hi} get {what} going, I'm ready.",
        "{hi} please kick off {what} now.",
        minimal=["{hi} time for my next meeting, open it."],
        what=what,
    )
    listed = s.call("list_meetings", host_id=uid, status="scheduled", starts_after=today, starts_before=tomorrow)
    if m["meeting_id"] not in [x["meeting_id"] for x in listed["meetings"]]:
        raise Skip("the meeting is not listed")
    s.call("start_meeting", meeting_id=m["meeting_id"], acting_user_id=uid)
    remember(s, m)
    if not s.room() or s.rng.random() < 0.5:
        return
    if u["plan"] != "basic" and s.rng.random() < 0.8:
        s.say(
            "And capture it to the cloud so people can watch later.",
            "Can you make sure it's being taped?",
            "Also keep a copy of the call for the folks who couldn't make it.",
        )
        s.call("set_recording", meeting_id=m["meeting_id"], acting_user_id=uid, recording=True)
    else:
        s.say(
            "What else am I running today after this one?",
            "Anything else I'm hosting later today?",
            "What's left on my plate for the rest of the day?",
        )
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
        u = me(s)
        s.say(
            "OK, we're done. Close it for everyone.",
            "That's all for today, shut the call down.",
            "We can wrap it up now, end it please.",
        )
        uid = s.memory["me"]["user_id"]
        mid = known["meeting_id"]
    else:
        u = me(s, "user_id IN (SELECT host_id FROM meetings WHERE status = 'live')")
        m = s.pick(MEETING + " WHERE m.host_id = ? AND m.status = 'live'", u["user_id"])
        s.say(
            "{hi} {title} is over, close it for everyone.",
            "{hi} we're done with {title}, end the call.",
            "{hi} please wrap up my {title} call, we finished early.",
            minimal=["{hi} my call is done, shut it down."],
            hi=hi(s, u),
            title=f"'{m['title']}'",
        )
        uid, mid = host_live_meeting(s, u, m)
    out = s.call("end_meeting", meeting_id=mid, acting_user_id=uid)
    if not s.room() or s.rng.random() < 0.5:
        pass
    elif out["recordings"] and s.rng.random() < 0.8:
        s.say(
            "How long did the recording run?",
            "Is the video ready to share, and how big is it?",
            "What did we end up with on the recording side?",
        )
        s.call("list_recordings", meeting_id=mid)
    else:
        s.say("What's my next one?", "What am I hosting next?", "When is my next call, and what is it?")
        s.call("list_meetings", host_id=uid, status="scheduled", starts_after=iso(s)[:16], limit=3)
    remember(s, out)


@video_meeting.intent(covers=("search_users", "list_meetings", "join_meeting", "get_meeting"), follows=True)
def hop_in(s: Scene) -> None:
    """Someone invited to a live meeting gets in, then maybe asks who else is there."""
    late = (
        "user_id IN (SELECT p.user_id FROM participants p JOIN meetings m USING (meeting_id) WHERE m.status = 'live' "
        "AND p.role != 'host' AND (p.joined_at IS NULL OR p.left_at IS NOT NULL) AND (SELECT COUNT(*) FROM "
        "participants x WHERE x.meeting_id = m.meeting_id AND x.joined_at IS NOT NULL AND x.left_at IS NULL) "
        "< m.capacity) AND user_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')"
    )
    u = me(s, late)
    m = s.pick(
        MEETING + " WHERE m.status = 'live' AND (SELECT COUNT(*) FROM participants p WHERE p.meeting_id = "
        "m.meeting_id AND p.joined_at IS NOT NULL AND p.left_at IS NULL) < m.capacity AND m.meeting_id IN "
        "(SELECT meeting_id FROM participants WHERE user_id = ? AND role != 'host' AND (joined_at IS NULL OR "
        "left_at IS NOT NULL))",
        u["user_id"],
    )
    host = s.rows(USERS + " WHERE user_id = ?", m["host_id"])[0]
    what = meeting_ref(s, m, participant=u["user_id"])
    s.say(
        "{hi} I'm running late for {what} with {host}. Get me in.",
        "{hi} put me into {host}'s {what}, it already started.",
        "{hi} I need to be in {what} that {host} is running right now.",
        minimal=["{hi} I'm late for a call that's already going, get me in."],
        hi=hi(s, u),
        what=what,
        host=host["name"],
    )
    by_host = s.rng.random() < (0.5 if len(s.turns) == 1 else 0.2)
    uid = find_user(s, u, own=True)
    if by_host and not s.minimal:  # the user named the host: their live call
        host_id = find_user(s, host)
        live = s.call("list_meetings", host_id=host_id, status="live")["meetings"]
    else:
        live = s.call("list_meetings", participant_id=uid, status="live")["meetings"]
    if m["meeting_id"] not in [x["meeting_id"] for x in live]:
        raise Skip("not listed")
    s.call("join_meeting", meeting_id=m["meeting_id"], user_id=uid)
    remember(s, m)
    if not s.room() or s.rng.random() < 0.5:
        return
    s.say("Who else is on it right now?", "Who's in there with me?", "How many people made it so far?")
    s.call("get_meeting", meeting_id=m["meeting_id"])


@video_meeting.intent(
    covers=("search_users", "list_meetings", "schedule_meeting", "get_meeting"), weight=1.5, follows=True
)
def book(s: Scene) -> None:
    """A user books a new meeting with a colleague or two at a time they are free."""
    u = me(s)
    guests = s.sample(USERS + f" WHERE {UNIQUE_NAME} AND user_id != ?", s.rng.choice((1, 1, 2)), u["user_id"])
    days = s.rng.randint(1, 12)
    hour = s.rng.choice((9, 10, 11, 13, 14, 15, 16))
    minute = s.rng.choice((0, 0, 30))
    start = (s.now + timedelta(days=days)).replace(hour=hour, minute=minute, second=0)
    length = s.rng.choice((30, 30, 45, 60))
    end = start + timedelta(minutes=length)
    if s.rows(
        "SELECT 1 FROM meetings WHERE host_id = ? AND status IN ('scheduled', 'live') AND scheduled_start < ? "
        "AND datetime(scheduled_start, '+' || duration_minutes || ' minutes') > datetime(?)",
        u["user_id"],
        fake.iso(end),
        fake.iso(start),
    ):
        raise Skip("the host is busy then")
    title = s.rng.choice(NEW_TITLES)
    name = s.given(title, f"'{title}'", "title", "schedule_meeting", "title")
    names = " and ".join(person(s, g) for g in guests)
    cohost = len(guests) == 2 and s.rng.random() < 0.5
    extra = f", with {guests[0]['name']} as co-host" if cohost else ""
    mins = "" if length == 30 else f" for {length} minutes"
    check = s.rng.random() < 0.35  # "if I'm not hosting anything then": the agent looks at the host's day first
    when = f"{day(start, s.now)} at {clock(start)}"
    slot = s.given(fake.iso(start)[:16], when, "time", "schedule_meeting", "start")
    uid = ask(
        s,
        u,
        *(
            (
                "{hi} if I'm not hosting anything {when}, set up a call with {names}{mins}[, call it {name}]{extra}.",
                "{hi} check I'm free {when}, then book me{mins} with {names}[ for {name}]{extra}.",
            )
            if check
            else (
                "{hi} set up a call with {names}[ {slot}]{mins}[, call it {name}]{extra}.",
                "{hi} book me[ {slot}]{mins} with {names}[ for {name}]{extra}.",
                "{hi} I need {names} on a video call[ {slot}]{mins}[; title it {name}]{extra}.",
            )
        ),
        minimal=["{hi} get {names} and me on a call {when}[ about {name}]."],
        names=names,
        when=when,
        slot=slot,
        mins=mins,
        name=name,
        extra=extra,
    )
    if check and not s.minimal:
        s.call(
            "list_meetings",
            host_id=uid,
            starts_after=fake.iso(start)[:10],
            starts_before=fake.iso(start + timedelta(days=1))[:10],
        )
    ids = [find_user(s, g) for g in guests]
    args: dict[str, Any] = {"host_id": uid, "title": name, "start": fake.iso(start)[:16], "invitee_ids": ids}
    if length != 30 and not s.minimal:
        args["duration_minutes"] = length
    if cohost and not s.minimal:
        args["cohost_id"] = ids[0]
    out = s.call("schedule_meeting", **args)
    remember(s, out)
    if s.room() and s.rng.random() < 0.5:
        s.say(
            "What's the join code I should send around?",
            "Read me back the details, I want the join code.",
            "Double-check it for me: who's on it and what's the code?",
        )
        s.call("get_meeting", meeting_id=out["meeting_id"])


@video_meeting.intent(covers=("search_users", "list_meetings", "get_meeting"), follows=True)
def whos_coming(s: Scene) -> None:
    """A participant asks who is coming to one of their upcoming meetings ("my 3 pm with Dana")."""
    u = me(
        s,
        "user_id IN (SELECT p.user_id FROM participants p JOIN meetings m USING (meeting_id) "
        "WHERE m.status = 'scheduled' AND m.scheduled_start > ? AND m.scheduled_start < ?)",
        iso(s),
        iso(s, 60 * 24 * 10),
    )
    m = s.pick(
        MEETING + " WHERE m.status = 'scheduled' AND m.scheduled_start > ? AND m.scheduled_start < ? "
        "AND m.meeting_id IN (SELECT meeting_id FROM participants WHERE user_id = ?)",
        iso(s),
        iso(s, 60 * 24 * 10),
        u["user_id"],
    )
    start = m["scheduled_start"]
    dup = s.rows(
        "SELECT m.meeting_id FROM meetings m JOIN participants p USING (meeting_id) WHERE p.user_id = ? "
        "AND substr(m.scheduled_start, 1, 10) = ? AND substr(m.scheduled_start, 12, 5) = ?",
        u["user_id"],
        start[:10],
        start[11:16],
    )
    if len(dup) != 1:
        raise Skip("two meetings at that time")
    own = m["host_id"] == u["user_id"]
    other = s.rows(USERS + " WHERE user_id = ?", m["host_id"])[0] if not own else None
    with_ = f" with {other['name']}" if other else ""
    uid = ask(
        s,
        u,
        "{hi} who's on the list for my {at}{with_} {when}?",
        "{hi} who'll be at my {at}{with_} {when}?",
        "{hi} what's the guest list for the {at} {when}{with_}?",
        minimal=["{hi} who is in my {at} {when}?"],
        at=clock(start),
        when=day(start, s.now),
        with_=with_,
    )
    d0 = start[:10]
    d1 = (datetime.fromisoformat(start) + timedelta(days=1)).strftime("%Y-%m-%d")
    found = s.call("list_meetings", participant_id=uid, starts_after=d0, starts_before=d1)["meetings"]
    hits = [x for x in found if x["scheduled_start"] == start]
    if len(hits) != 1:
        raise Skip("the day's listing does not single it out")
    s.call("get_meeting", meeting_id=hits[0]["meeting_id"])
    remember(s, hits[0])
    if not s.room() or s.rng.random() < 0.5:
        return
    s.say(
        "And what else do I have after it that day?",
        "Anything after that one the same day?",
        "What comes later that day for me?",
    )
    s.call("list_meetings", participant_id=uid, starts_after=start[:16], starts_before=d1)


@video_meeting.intent(covers=("search_users", "list_recordings", "get_meeting"), follows=True)
def watch_back(s: Scene) -> None:
    """A host looks for the recordings of their meetings, then asks who was at the longest one."""
    u = me(
        s, "user_id IN (SELECT m.host_id FROM recordings r JOIN meetings m USING (meeting_id) WHERE r.status = 'ready')"
    )
    uid = ask(
        s,
        u,
        "{hi} what recordings do I have from my meetings?",
        "{hi} which of my calls got recorded?",
        "{hi} can I see the videos saved from the meetings I ran?",
        minimal=["{hi} my recordings?"],
    )
    s.asked("list_recordings", host_id=uid)
    recs = [r for r in s.call("list_recordings", host_id=uid, status="ready")["recordings"]]
    if not recs:
        raise Skip("none ready")
    top = max(recs, key=lambda r: r["duration_seconds"] or 0)
    if sum(r["duration_seconds"] == top["duration_seconds"] for r in recs) > 1:
        raise Skip("a tie for the longest")
    if not s.room() or s.rng.random() < 0.4:
        return
    s.say(
        "Who attended the longest one?",
        "The longest of those: who was there?",
        "Pull up the meeting behind the longest recording, who showed up?",
    )
    s.call("get_meeting", meeting_id=top["meeting_id"])
    remember(s, {"meeting_id": top["meeting_id"], "title": top["title"], "host_id": uid})


@video_meeting.intent(covers=("search_users", "list_meetings", "set_recording", "list_recordings"), follows=True)
def stop_taping(s: Scene) -> None:
    """A host stops a running recording but keeps the call going (right after starting it, or on a call they run)."""
    taping = "m.status = 'live' AND m.meeting_id IN (SELECT meeting_id FROM recordings WHERE status = 'recording')"
    u = me(s, f"user_id IN (SELECT m.host_id FROM meetings m WHERE {taping})")
    known = s.memory.get("meeting")
    ours = [r for r in s.rows(MEETING + f" WHERE m.host_id = ? AND {taping}", u["user_id"])]
    if known and [r["meeting_id"] for r in ours] == [known["meeting_id"]] and "me" in s.memory:
        s.say(
            "We're getting to the confidential part: stop taping, but keep the call on.",
            "Pause the recording for now, the meeting itself continues.",
            "Actually, switch the capture off for a bit. Don't end the call.",
        )
        uid, mid = str(s.memory["me"]["user_id"]), str(known["meeting_id"])
    else:
        if not ours:
            raise Skip("the user is taping no live call")
        m = s.rng.choice(ours)
        s.say(
            "{hi} stop the recording of {title}, we're moving to the confidential part. Keep the call on.",
            "{hi} pause the taping of my {title} call, the meeting itself continues.",
            "{hi} turn off the cloud capture on {title} for now, don't end it.",
            minimal=["{hi} stop taping my call, keep the call running."],
            hi=hi(s, u),
            title=f"'{m['title']}'",
        )
        if s.rng.random() < 0.5 and not s.minimal:  # "whatever I'm recording": the running recordings
            uid = find_user(s, u, own=True)
            running = s.call("list_recordings", host_id=uid, status="recording")["recordings"]
            if [r["meeting_id"] for r in running] != [m["meeting_id"]]:
                raise Skip("not the host's only running recording")
            mid = str(running[0]["meeting_id"])
        else:
            uid, mid = host_live_meeting(s, u, m)
        remember(s, m)
    s.call("set_recording", meeting_id=mid, acting_user_id=uid, recording=False)
    if s.room() and s.rng.random() < 0.5:
        s.say("How much footage did we get?", "How long was that clip in the end?", "Is the clip ready to view?")
        s.call("list_recordings", meeting_id=mid, status="ready")


@video_meeting.intent(covers=("get_distinct_values", "list_meetings"))
def whats_on(s: Scene) -> None:
    """An admin looks at how meetings break down by state, then at the ones going on now."""
    s.say(
        "What states can meetings be in, and how many are in each?",
        "Give me the meeting counts per state.",
        "How do our meetings break down: going on, done, called off, upcoming?",
        minimal=["Meeting breakdown by state?"],
    )
    s.call("get_distinct_values", field="meeting_status")
    which = s.rng.choice(("live", "live", "cancelled"))
    if which == "live":
        s.say(
            "Which ones are happening right now?",
            "List the calls in progress at the moment.",
            "Show me what's on the air now.",
        )
        s.call("list_meetings", status="live")
    else:
        lo = iso(s)[:10]
        s.say(
            "Which upcoming ones got called off?",
            "Show me the ones cancelled from today on.",
            "Anything ahead of us that was scrapped?",
        )
        s.call("list_meetings", status="cancelled", starts_after=lo)


@video_meeting.intent(covers=("get_distinct_values", "search_users"))
def plan_check(s: Scene) -> None:
    """An admin checks which plans are in use, then who in one department is on the top tier."""
    dept = s.pick("SELECT DISTINCT department FROM users WHERE plan = 'business'")["department"]
    s.say(
        "Which subscription tiers does our meeting tool have, and how many people are on each?",
        "What plans are people on across the company?",
        "Break down our users by plan for me.",
        minimal=["Plans in use?"],
    )
    plans = s.call("get_distinct_values", field="plan")["values"]
    top = "business" if "business" in str(plans) else None
    if top is None:
        raise Skip("no business plan")
    s.say(
        "Who in {dept} has the top tier?",
        "Which {dept} people are on the biggest plan?",
        "List the {dept} folks with the most expensive plan.",
        dept=dept,
    )
    s.call("search_users", query=dept, plan=top)


@video_meeting.intent(covers=("search_users", "list_meetings"), weight=1.2)
def my_calls(s: Scene) -> None:
    """Someone asks which calls they are on today, tomorrow or over the next days."""
    span = s.rng.choice(("today", "tomorrow", "week"))
    lo = {"today": iso(s)[:10], "tomorrow": iso(s, 24 * 60)[:10], "week": iso(s)[:16]}[span]
    hi_ = {"today": iso(s, 24 * 60)[:10], "tomorrow": iso(s, 48 * 60)[:10], "week": iso(s, 7 * 24 * 60)[:10]}[span]
    late = span == "today" and s.rng.random() < 0.7  # someone not yet in a call that is going on
    u = me(
        s,
        "user_id IN (SELECT p.user_id FROM participants p JOIN meetings m USING (meeting_id) "
        "WHERE m.status IN ('scheduled', 'live') AND m.scheduled_start >= ? AND m.scheduled_start < ?)"
        + (
            " AND user_id IN (SELECT p.user_id FROM participants p JOIN meetings m USING (meeting_id) WHERE "
            "m.status = 'live' AND p.joined_at IS NULL AND p.role != 'host')"
            if late
            else ""
        ),
        lo,
        hi_,
    )
    words = {"today": "for the rest of today", "tomorrow": "tomorrow", "week": "over the next seven days"}[span]
    s.say(
        "I'm {me}. Which calls am I on {w}?",
        "{me} here: what video meetings do I have {w}?",
        "This is {me}. Run me through my calls {w}.",
        minimal=["{me}: my calls?"],
        me=u["name"],
        w=words,
    )
    uid = find_user(s, u, own=True)
    args: dict[str, Any] = {"participant_id": uid, "starts_after": lo}
    if not s.minimal:
        args["starts_before"] = hi_
    found = s.call("list_meetings", **args)["meetings"]
    ahead = [m for m in found if m["status"] in ("scheduled", "live")]
    if not ahead:
        raise Skip("nothing scheduled")
    out = [
        m
        for m in ahead
        if m["status"] == "live"
        and s.rows(
            "SELECT 1 FROM participants WHERE meeting_id = ? AND user_id = ? AND joined_at IS NULL",
            m["meeting_id"],
            uid,
        )
    ]
    if out or len(ahead) == 1:  # "it" then points at the call in progress, or the only one
        remember(s, (out or ahead)[0])


@video_meeting.intent(covers=("search_users", "list_meetings"), follows=True)
def next_i_host(s: Scene) -> None:
    """A host asks which meeting they run next."""
    soon = (
        "user_id IN (SELECT host_id FROM meetings WHERE status = 'scheduled' AND scheduled_start > ? "
        "AND scheduled_start < ?) AND user_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')"
    )
    if s.rng.random() < 0.5:  # someone whose next call is about to begin
        u = me(s, soon, iso(s), iso(s, 60))
    else:
        u = me(
            s, "user_id IN (SELECT host_id FROM meetings WHERE status = 'scheduled' AND scheduled_start > ?)", iso(s)
        )
    s.asked("list_meetings", host_id=(s.memory.get("me") or {}).get("user_id"), status="scheduled")
    uid = ask(
        s,
        u,
        "{hi} what's the next meeting I'm hosting?",
        "{hi} which call of mine is up next?",
        "{hi} when do I host my next call?",
    )
    found = s.call("list_meetings", host_id=uid, status="scheduled", starts_after=iso(s)[:16], limit=3)["meetings"]
    if not found:
        raise Skip("nothing ahead")
    remember(s, found[0])


@video_meeting.intent(covers=("search_users", "list_meetings", "list_recordings"), follows=True)
def recorded_calls(s: Scene) -> None:
    """A host asks which of their past calls were recorded, then maybe how long the tapes are."""
    u = me(s, "user_id IN (SELECT m.host_id FROM meetings m JOIN recordings r USING (meeting_id))")
    uid = ask(
        s,
        u,
        "{hi} which of my meetings got recorded?",
        "{hi} what calls of mine have a recording?",
        "{hi} list the meetings I hosted that were taped.",
        minimal=["{hi} my taped calls?"],
    )
    s.asked("list_meetings", host_id=uid, has_recording=True)
    found = s.call("list_meetings", host_id=uid, has_recording=True)["meetings"]
    if not found:
        raise Skip("none listed")
    m = found[-1]
    if not s.room() or s.rng.random() < 0.5 or sum(x["title"] == m["title"] for x in found) > 1:
        return
    remember(s, m)
    s.say(
        "How long is the recording of the '{t}' one?",
        "What did we get on tape for '{t}'?",
        "Is the '{t}' recording ready to watch?",
        t=m["title"],
    )
    s.call("list_recordings", meeting_id=m["meeting_id"])
