"""Video meetings: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

V = "video_meeting"


def user_on(world: World, plan: str, n: int = 0) -> str:
    """The n-th user on a plan who is not hosting a live meeting right now."""
    busy = {m["host_id"] for m in world.ok(V, "list_meetings", status="live", limit=100)["meetings"]}
    return [
        u["user_id"] for u in world.ok(V, "search_users", plan=plan, limit=50)["users"] if u["user_id"] not in busy
    ][n]


def test_search_users(world: World) -> None:
    pros = world.ok(V, "search_users", plan="pro", limit=100)["users"]
    assert pros and all(u["plan"] == "pro" and u["max_capacity"] == 300 and u["cloud_recording"] for u in pros)
    assert world.ok(V, "search_users", query=pros[0]["name"])["count"] >= 1
    assert "invalid arguments" in world.err(V, "search_users", plan="platinum")


def test_list_and_get_meetings(world: World) -> None:
    live = world.ok(V, "list_meetings", status="live", limit=100)["meetings"]
    assert len(live) == 14 and all(m["status"] == "live" and m["in_meeting_count"] >= 1 for m in live)
    host = live[0]["host_id"]
    hosted = world.ok(V, "list_meetings", host_id=host, limit=100)["meetings"]
    assert all(m["host_id"] == host for m in hosted)
    week = world.ok(V, "list_meetings", starts_after="2026-06-01", starts_before="2026-06-08", limit=100)["meetings"]
    assert week and all("2026-06-01" <= m["scheduled_start"] < "2026-06-08" for m in week)
    recorded = world.ok(V, "list_meetings", has_recording=True, limit=100)["meetings"]
    assert recorded and all(m["recordings"] > 0 and m["status"] in ("ended", "live") for m in recorded)
    full = world.ok(V, "get_meeting", meeting_id=live[0]["meeting_id"])
    assert full["participants"][0]["role"] == "host" and full["in_meeting_count"] == live[0]["in_meeting_count"]
    assert "No meeting" in world.err(V, "get_meeting", meeting_id="MTG-9999")
    assert "not a real date" in world.err(V, "list_meetings", starts_after="2026-02-30")
    assert "later than" in world.err(V, "list_meetings", starts_after="2026-06-08", starts_before="2026-06-01")


def test_list_recordings_and_distinct_values(world: World) -> None:
    recs = world.ok(V, "list_recordings", status="ready", limit=100)["recordings"]
    assert recs and all(r["duration_seconds"] > 0 for r in recs)
    one = world.ok(V, "list_recordings", meeting_id=recs[0]["meeting_id"])
    assert one["count"] >= 1 and one["recordings"][0]["meeting_id"] == recs[0]["meeting_id"]
    assert "invalid arguments" in world.err(V, "list_recordings", status="deleted")
    values = world.ok(V, "get_distinct_values", field="meeting_status")["values"]
    assert set(values) == {"scheduled", "live", "ended", "cancelled"}
    assert "invalid arguments" in world.err(V, "get_distinct_values", field="password")


def test_schedule_meeting_rules(world: World) -> None:
    host = user_on(world, "basic")
    guests = [u["user_id"] for u in world.ok(V, "search_users", limit=5, offset=50)["users"] if u["user_id"] != host][
        :3
    ]
    m = world.ok(
        V,
        "schedule_meeting",
        host_id=host,
        title="Roadmap walkthrough",
        start="2026-06-20T15:00",
        duration_minutes=45,
        invitee_ids=guests,
        cohost_id=guests[0],
    )
    got = world.ok(V, "get_meeting", meeting_id=m["meeting_id"])
    assert got["status"] == "scheduled" and got["capacity"] == 100
    assert {p["user_id"]: p["role"] for p in got["participants"]} == {
        host: "host",
        guests[0]: "cohost",
        guests[1]: "attendee",
        guests[2]: "attendee",
    }
    assert "already hosts" in world.err(V, "schedule_meeting", host_id=host, title="Clash", start="2026-06-20T15:30")
    assert "basic plan" in world.err(
        V, "schedule_meeting", host_id=host, title="Big", start="2026-06-21T15:00", capacity=500
    )
    assert "cannot hold" in world.err(
        V, "schedule_meeting", host_id=host, title="Small", start="2026-06-21T15:00", capacity=2, invitee_ids=guests
    )
    assert "in the past" in world.err(V, "schedule_meeting", host_id=host, title="Old", start="2026-05-01T10:00")
    assert "leave them out" in world.err(
        V, "schedule_meeting", host_id=host, title="Me", start="2026-06-21T15:00", invitee_ids=[host]
    )
    assert "must be one of the invitees" in world.err(
        V, "schedule_meeting", host_id=host, title="X", start="2026-06-21T15:00", cohost_id=guests[0]
    )
    assert "No user" in world.err(V, "schedule_meeting", host_id="USR-0000", title="X", start="2026-06-21T15:00")
    assert "not a real date" in world.err(V, "schedule_meeting", host_id=host, title="X", start="2026-06-31T15:00")
    assert "invalid arguments" in world.err(
        V, "schedule_meeting", host_id=host, title="X", start="2026-06-21T15:00", duration_minutes=10**9
    )


def test_meeting_lifecycle(world: World) -> None:
    host = user_on(world, "pro", 3)
    guest, other, outsider = (u["user_id"] for u in world.ok(V, "search_users", limit=3, offset=90)["users"])
    m = world.ok(
        V,
        "schedule_meeting",
        host_id=host,
        title="Standup",
        start="2026-06-01T09:30",
        duration_minutes=15,
        capacity=3,
        invitee_ids=[guest, other],
        cohost_id=other,
    )
    mid = m["meeting_id"]
    assert "has not started yet" in world.err(V, "join_meeting", meeting_id=mid, user_id=guest)
    assert "not started yet" in world.err(V, "set_recording", meeting_id=mid, acting_user_id=host)
    assert "Only the host" in world.err(V, "start_meeting", meeting_id=mid, acting_user_id=guest)
    world.ok(V, "start_meeting", meeting_id=mid, acting_user_id=host)
    live = world.ok(V, "get_meeting", meeting_id=mid)
    assert live["status"] == "live" and live["started_at"] == "2026-06-01T09:00:00" and live["in_meeting_count"] == 1
    assert "already live" in world.err(V, "start_meeting", meeting_id=mid, acting_user_id=host)
    world.ok(V, "join_meeting", meeting_id=mid, user_id=guest)
    assert "already in" in world.err(V, "join_meeting", meeting_id=mid, user_id=guest)
    world.ok(V, "join_meeting", meeting_id=mid, user_id=other)
    assert "is full (3/3" in world.err(V, "join_meeting", meeting_id=mid, user_id=outsider)
    rec = world.ok(V, "set_recording", meeting_id=mid, acting_user_id=other)
    assert world.ok(V, "list_recordings", meeting_id=mid)["recordings"][0]["status"] == "recording"
    assert "already being recorded" in world.err(V, "set_recording", meeting_id=mid, acting_user_id=host)
    assert "host or a co-host" in world.err(V, "set_recording", meeting_id=mid, acting_user_id=guest)
    assert "host or a co-host" in world.err(V, "end_meeting", meeting_id=mid, acting_user_id=outsider)
    ended = world.ok(V, "end_meeting", meeting_id=mid, acting_user_id=other)
    assert ended["stopped_recordings"][0]["recording_id"] == rec["recording_id"]
    after = world.ok(V, "get_meeting", meeting_id=mid)
    assert after["status"] == "ended" and after["in_meeting_count"] == 0
    assert world.ok(V, "list_recordings", meeting_id=mid)["recordings"][0]["status"] == "ready"
    assert "already ended" in world.err(V, "join_meeting", meeting_id=mid, user_id=outsider)
    assert "already ended" in world.err(V, "start_meeting", meeting_id=mid, acting_user_id=host)
    assert "already ended" in world.err(V, "end_meeting", meeting_id=mid, acting_user_id=host)
    assert "already ended" in world.err(V, "set_recording", meeting_id=mid, acting_user_id=host)


def test_start_meeting_time_window(world: World) -> None:
    host = user_on(world, "business", 1)
    later = world.ok(V, "schedule_meeting", host_id=host, title="Later", start="2026-06-01T11:00", duration_minutes=30)
    assert "can be started from 2026-06-01T10:00:00" in world.err(
        V, "start_meeting", meeting_id=later["meeting_id"], acting_user_id=host
    )
    missed = next(
        m for m in world.ok(V, "list_meetings", status="scheduled", starts_before="2026-05-31", limit=100)["meetings"]
    )
    assert "without the meeting starting" in world.err(
        V, "start_meeting", meeting_id=missed["meeting_id"], acting_user_id=missed["host_id"]
    )
    cancelled = world.ok(V, "list_meetings", status="cancelled", limit=1)["meetings"][0]
    assert "cancelled" in world.err(
        V, "start_meeting", meeting_id=cancelled["meeting_id"], acting_user_id=cancelled["host_id"]
    )
    assert "cancelled" in world.err(V, "join_meeting", meeting_id=cancelled["meeting_id"], user_id=host)
    now_slot = world.ok(V, "schedule_meeting", host_id=host, title="Now", start="2026-06-01T09:15", duration_minutes=15)
    world.ok(V, "start_meeting", meeting_id=now_slot["meeting_id"], acting_user_id=host)
    second = world.ok(
        V, "schedule_meeting", host_id=host, title="Back to back", start="2026-06-01T09:30", duration_minutes=15
    )
    assert "already hosting live meeting" in world.err(
        V, "start_meeting", meeting_id=second["meeting_id"], acting_user_id=host
    )


def test_recording_needs_paid_plan_and_join_seeded_live(world: World) -> None:
    meetings = [
        world.ok(V, "get_meeting", meeting_id=m["meeting_id"])
        for m in world.ok(V, "list_meetings", status="live", limit=100)["meetings"]
    ]
    plans = {
        u["user_id"]: u["plan"]
        for u in world.ok(V, "search_users", limit=100)["users"]
        + world.ok(V, "search_users", limit=100, offset=100)["users"]
    }
    basic = next(m for m in meetings if plans[m["host_id"]] == "basic")
    assert "no cloud recording" in world.err(
        V, "set_recording", meeting_id=basic["meeting_id"], acting_user_id=basic["host_id"]
    )
    paid = next(
        m
        for m in meetings
        if plans[m["host_id"]] != "basic" and not any(r["status"] == "recording" for r in m["recordings"])
    )
    assert "not being recorded" in world.err(
        V, "set_recording", meeting_id=paid["meeting_id"], acting_user_id=paid["host_id"], recording=False
    )
    world.ok(V, "set_recording", meeting_id=paid["meeting_id"], acting_user_id=paid["host_id"])
    world.ok(V, "set_recording", meeting_id=paid["meeting_id"], acting_user_id=paid["host_id"], recording=False)
    assert [r["status"] for r in world.ok(V, "list_recordings", meeting_id=paid["meeting_id"])["recordings"]] == [
        "ready"
    ]
    roomy = next(m for m in meetings if m["in_meeting_count"] < m["capacity"])
    inside = {p["user_id"] for p in roomy["participants"] if p["in_meeting"]}
    newcomer = next(u for u in plans if u not in inside)
    world.ok(V, "join_meeting", meeting_id=roomy["meeting_id"], user_id=newcomer)
    assert (
        world.ok(V, "get_meeting", meeting_id=roomy["meeting_id"])["in_meeting_count"] == roomy["in_meeting_count"] + 1
    )
    assert "No user" in world.err(V, "join_meeting", meeting_id=roomy["meeting_id"], user_id="USR-0000")
    assert "No meeting" in world.err(V, "end_meeting", meeting_id="MTG-0000", acting_user_id=roomy["host_id"])
