"""Openers about the calendar and the archive: booking calls (new ones, or again after one was called off),
who is coming, what is next, what got recorded, and an admin's overview of meetings and plans."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit import fake
from hub.kit.intent import Scene, Skip, clock, day, unique_best
from servers.video_meeting.intents import (
    MEETING,
    UNIQUE_NAME,
    USERS,
    WORDS,
    ask,
    busy,
    find_user,
    iso,
    me,
    next_day,
    person,
    remember,
)
from servers.video_meeting.tools import video_meeting


def free_slot(s: Scene, uid: str, length: int) -> Any:
    """A time in the coming days, on the hour or half hour, when the user hosts nothing (``Skip`` when busy)."""
    start = (s.now + timedelta(days=s.rng.randint(1, 12))).replace(
        hour=s.rng.choice((9, 10, 11, 13, 14, 15, 16)), minute=s.rng.choice((0, 0, 30)), second=0
    )
    if busy(s, uid, start, length):
        raise Skip("the host is busy then")
    return start


@video_meeting.intent(
    covers=("search_users", "list_meetings", "schedule_meeting", "get_meeting"), weight=1.5, follows=True
)
def book(s: Scene) -> None:
    """A user books a new meeting with a colleague or two at a time they are free."""
    u = me(s)
    guests = s.sample(USERS + f" WHERE {UNIQUE_NAME} AND user_id != ?", s.rng.choice((1, 1, 2)), u["user_id"])
    length = s.rng.choice((30, 30, 45, 60))
    start = free_slot(s, u["user_id"], length)
    title = s.rng.choice(WORDS.new_titles)
    name = s.given(title, f"'{title}'", "title", "schedule_meeting", "title")
    cohost = len(guests) == 2 and s.rng.random() < 0.5
    check = s.rng.random() < 0.35  # "if I'm not hosting anything then": the agent looks at the host's day first
    when = f"{day(start, s.now)} at {clock(start)}"
    uid = ask(
        s,
        u,
        WORDS.book_a_call_if_free if check else WORDS.book_a_call,
        names=" and ".join(person(s, g) for g in guests),
        when=when,
        slot=s.given(fake.iso(start)[:16], when, "time", "schedule_meeting", "start"),
        mins="" if length == 30 else f" for {length} minutes",
        name=name,
        extra=f", with {guests[0]['name']} as co-host" if cohost else "",
    )
    if check and not s.minimal:
        s.call("list_meetings", host_id=uid, starts_after=fake.iso(start)[:10], starts_before=next_day(fake.iso(start)))
    ids = [find_user(s, g) for g in guests]
    args: dict[str, Any] = {"host_id": uid, "title": name, "start": fake.iso(start)[:16], "invitee_ids": ids}
    if length != 30 and not s.minimal:
        args["duration_minutes"] = length
    if cohost and not s.minimal:
        args["cohost_id"] = ids[0]
    out = s.call("schedule_meeting", **args)
    remember(s, out)
    if s.by_chance(0.5):
        s.say(WORDS.book)
        s.call("get_meeting", meeting_id=out["meeting_id"])


@video_meeting.intent(covers=("search_users", "list_meetings", "get_meeting", "schedule_meeting"))
def rebook(s: Scene) -> None:
    """A host whose meeting was called off books it again, same title and people, at a new time only they know."""
    u = me(s, "user_id IN (SELECT host_id FROM meetings WHERE status = 'cancelled')")
    m = s.pick(
        MEETING + " WHERE m.host_id = ? AND m.status = 'cancelled' AND (SELECT COUNT(*) FROM meetings x WHERE "
        "x.host_id = m.host_id AND x.status = 'cancelled' AND x.title = m.title) = 1",
        u["user_id"],
    )
    start = free_slot(s, u["user_id"], m["duration_minutes"])
    when = f"{day(start, s.now)} at {clock(start)}"
    uid = ask(
        s,
        u,
        WORDS.rebook,
        title=m["title"],
        when=when,
        slot=s.given(fake.iso(start)[:16], when, "time", "schedule_meeting", "start"),
    )
    found = s.call("list_meetings", host_id=uid, status="cancelled", query=m["title"])["meetings"]
    hits = [x for x in found if x["title"] == m["title"]]
    if [x["meeting_id"] for x in hits] != [m["meeting_id"]]:
        raise Skip("the listing does not single it out")
    view = s.call("get_meeting", meeting_id=m["meeting_id"])
    guests = [p["user_id"] for p in view["participants"] if p["user_id"] != uid]
    if not guests:
        raise Skip("nobody else was invited")
    args: dict[str, Any] = {"host_id": uid, "title": m["title"], "start": fake.iso(start)[:16], "invitee_ids": guests}
    if m["duration_minutes"] != 30:
        args["duration_minutes"] = m["duration_minutes"]
    out = s.call("schedule_meeting", **args)
    remember(s, out)
    if s.by_chance(0.4):
        s.say(WORDS.rebook_then_code)
        s.call("get_meeting", meeting_id=out["meeting_id"])


@video_meeting.intent(covers=("search_users", "list_meetings", "get_meeting"), follows=True)
def whos_coming(s: Scene) -> None:
    """A participant asks who is coming to one of their upcoming meetings ("my 3 pm with Dana")."""
    ahead = "m.status = 'scheduled' AND m.scheduled_start > ? AND m.scheduled_start < ?"
    window = (iso(s), iso(s, 60 * 24 * 10))
    u = me(
        s,
        f"user_id IN (SELECT p.user_id FROM participants p JOIN meetings m USING (meeting_id) WHERE {ahead})",
        *window,
    )
    m = s.pick(
        MEETING + f" WHERE {ahead} AND m.meeting_id IN (SELECT meeting_id FROM participants WHERE user_id = ?)",
        *window,
        u["user_id"],
    )
    start = m["scheduled_start"]
    at_once = s.value(
        "SELECT COUNT(*) FROM meetings m JOIN participants p USING (meeting_id) WHERE p.user_id = ? "
        "AND substr(m.scheduled_start, 1, 16) = ?",
        u["user_id"],
        start[:16],
    )
    if at_once != 1:
        raise Skip("two meetings at that time")
    host = s.rows(USERS + " WHERE user_id = ?", m["host_id"])[0]
    uid = ask(
        s,
        u,
        WORDS.whos_coming,
        at=clock(start),
        when=day(start, s.now),
        with_="" if host["user_id"] == u["user_id"] else f" with {host['name']}",
    )
    d1 = next_day(start)
    found = s.call("list_meetings", participant_id=uid, starts_after=start[:10], starts_before=d1)["meetings"]
    hits = [x for x in found if x["scheduled_start"] == start]
    if len(hits) != 1:
        raise Skip("the day's listing does not single it out")
    s.call("get_meeting", meeting_id=hits[0]["meeting_id"])
    remember(s, hits[0])
    if not s.room() or s.rng.random() < 0.5:
        return
    s.say(WORDS.whos_coming_then_day)
    s.call("list_meetings", participant_id=uid, starts_after=start[:16], starts_before=d1)


@video_meeting.intent(covers=("search_users", "list_meetings"), weight=1.2)
def my_calls(s: Scene) -> None:
    """Someone asks which calls they are on today, tomorrow or over the next days."""
    span = s.rng.choice(("today", "tomorrow", "week"))
    lo = {"today": iso(s)[:10], "tomorrow": iso(s, 24 * 60)[:10], "week": iso(s)[:16]}[span]
    hi = {"today": iso(s, 24 * 60)[:10], "tomorrow": iso(s, 48 * 60)[:10], "week": iso(s, 7 * 24 * 60)[:10]}[span]
    late = span == "today" and s.rng.random() < 0.7  # someone not yet in a call that is going on
    on = "user_id IN (SELECT p.user_id FROM participants p JOIN meetings m USING (meeting_id) WHERE "
    u = me(
        s,
        on
        + "m.status IN ('scheduled', 'live') AND m.scheduled_start >= ? AND m.scheduled_start < ?)"
        + (f" AND {on}m.status = 'live' AND p.joined_at IS NULL AND p.role != 'host')" if late else ""),
        lo,
        hi,
    )
    uid = ask(
        s,
        u,
        WORDS.my_calls,
        w={"today": "for the rest of today", "tomorrow": "tomorrow", "week": "over the next seven days"}[span],
    )
    args: dict[str, Any] = {"participant_id": uid, "starts_after": lo}
    if not s.minimal:
        args["starts_before"] = hi
    ahead = [m for m in s.call("list_meetings", **args)["meetings"] if m["status"] in ("scheduled", "live")]
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
    if s.rng.random() < 0.5:  # someone whose next call is about to begin
        u = me(
            s,
            "user_id IN (SELECT host_id FROM meetings WHERE status = 'scheduled' AND scheduled_start > ? "
            "AND scheduled_start < ?) AND user_id NOT IN (SELECT host_id FROM meetings WHERE status = 'live')",
            iso(s),
            iso(s, 60),
        )
    else:
        u = me(
            s, "user_id IN (SELECT host_id FROM meetings WHERE status = 'scheduled' AND scheduled_start > ?)", iso(s)
        )
    s.asked("list_meetings", host_id=(s.memory.get("me") or {}).get("user_id"), status="scheduled")
    uid = ask(s, u, WORDS.next_i_host)
    found = s.call("list_meetings", host_id=uid, status="scheduled", starts_after=iso(s)[:16], limit=3)["meetings"]
    if not found:
        raise Skip("nothing ahead")
    remember(s, found[0])


@video_meeting.intent(covers=("search_users", "list_recordings", "get_meeting"), follows=True)
def watch_back(s: Scene) -> None:
    """A host looks for the recordings of their meetings, then asks who was at the longest one."""
    ready = "SELECT m.host_id FROM recordings r JOIN meetings m USING (meeting_id) WHERE r.status = 'ready'"
    uid = ask(s, me(s, f"user_id IN ({ready})"), WORDS.watch_back)
    s.asked("list_recordings", host_id=uid)
    recs = s.call("list_recordings", host_id=uid, status="ready")["recordings"]
    if not recs:
        raise Skip("none ready")
    top = unique_best(recs, lambda r: r["duration_seconds"] or 0, tie="a tie for the longest")
    if not s.room() or s.rng.random() < 0.4:
        return
    s.say(WORDS.watch_back_then_longest)
    s.call("get_meeting", meeting_id=top["meeting_id"])
    remember(s, {"meeting_id": top["meeting_id"], "title": top["title"], "host_id": uid})


@video_meeting.intent(covers=("search_users", "list_meetings", "list_recordings"), follows=True)
def recorded_calls(s: Scene) -> None:
    """A host asks which of their past calls were recorded, then maybe how long the tapes are."""
    uid = ask(
        s,
        me(s, "user_id IN (SELECT m.host_id FROM meetings m JOIN recordings r USING (meeting_id))"),
        WORDS.recorded_calls,
    )
    s.asked("list_meetings", host_id=uid, has_recording=True)
    found = s.call("list_meetings", host_id=uid, has_recording=True)["meetings"]
    if not found:
        raise Skip("none listed")
    m = found[-1]
    if not s.room() or s.rng.random() < 0.5 or sum(x["title"] == m["title"] for x in found) > 1:
        return
    remember(s, m)
    s.say(WORDS.recorded_calls_then_length, t=m["title"])
    s.call("list_recordings", meeting_id=m["meeting_id"])


@video_meeting.intent(covers=("get_distinct_values", "list_meetings"))
def whats_on(s: Scene) -> None:
    """An admin looks at how meetings break down by state, then at the ones going on now."""
    s.say(WORDS.whats_on)
    s.call("get_distinct_values", field="meeting_status")
    if s.rng.random() < 2 / 3:
        s.say(WORDS.whats_on_then_live)
        s.call("list_meetings", status="live")
    else:
        s.say(WORDS.whats_on_then_cancelled)
        s.call("list_meetings", status="cancelled", starts_after=iso(s)[:10])


@video_meeting.intent(covers=("get_distinct_values", "search_users"))
def plan_check(s: Scene) -> None:
    """An admin checks which plans are in use, then who in one department is on the top tier."""
    dept = s.pick("SELECT DISTINCT department FROM users WHERE plan = 'business'")["department"]
    s.say(WORDS.plan_check)
    if "business" not in str(s.call("get_distinct_values", field="plan")["values"]):
        raise Skip("no business plan")
    s.say(WORDS.plan_check_then_top_tier, dept=dept)
    s.call("search_users", query=dept, plan="business")
