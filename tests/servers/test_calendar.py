"""Calendar: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

C = "calendar"


def user_with_primary(world: World, n: int = 0) -> dict:
    return world.ok(C, "search_users", limit=20)["users"][n]


def future_event(world: World, **filters: object) -> dict:
    """A confirmed one-off event that starts after now and has invitees."""
    for ev in world.ok(
        C, "list_events", starts_after="2026-06-02", status="confirmed", recurring=False, limit=50, **filters
    )["events"]:
        if world.ok(C, "get_event", event_id=ev["event_id"])["invitees"]:
            return world.ok(C, "get_event", event_id=ev["event_id"])
    raise AssertionError("no future event with invitees")


def past_event(world: World) -> dict:
    return world.ok(C, "list_events", starts_before="2026-05-01", status="confirmed", recurring=False, limit=1)[
        "events"
    ][0]


def open_series(world: World) -> dict:
    """A confirmed weekly series without an end (so it is never past)."""
    for ev in world.ok(C, "list_events", recurring=True, status="confirmed", limit=100)["events"]:
        full = world.ok(C, "get_event", event_id=ev["event_id"])
        rule = full["recurrence"]
        if rule["freq"] == "weekly" and rule["count"] is None and rule["until"] is None and rule["interval"] == 1:
            return full
    raise AssertionError("no open weekly series")


def test_search_users_and_list_calendars(world: World) -> None:
    users = world.ok(C, "search_users", department="Engineering", limit=5)["users"]
    assert users and all(u["department"] == "Engineering" for u in users)
    uid = users[0]["user_id"]
    cals = world.ok(C, "list_calendars", owner_id=uid)["calendars"]
    assert users[0]["primary_calendar_id"] in [c["calendar_id"] for c in cals]
    assert world.ok(C, "list_calendars", kind="team", limit=100)["count"] == 9
    assert "invalid arguments" in world.err(C, "search_users", department="Space")
    assert "No user" in world.err(C, "list_calendars", owner_id="USR-9999")


def test_list_and_get_events(world: World) -> None:
    uid = user_with_primary(world)["user_id"]
    events = world.ok(C, "list_events", organizer_id=uid, starts_after="2026-06-01", limit=100)["events"]
    assert events and all(e["organizer_id"] == uid and e["start"] >= "2026-06-01" for e in events)
    assert [e["start"] for e in events] == sorted(e["start"] for e in events)
    ev = world.ok(C, "get_event", event_id=events[0]["event_id"])
    assert ev["organizer_id"] == uid and "invitees" in ev and ev["is_past"] is False
    assert "No event" in world.err(C, "get_event", event_id="EVT-99999")
    assert "not a real date" in world.err(C, "list_events", starts_after="2026-02-30")
    assert "later than" in world.err(C, "list_events", starts_after="2026-06-05", starts_before="2026-06-01")
    assert "invalid arguments" in world.err(C, "list_events", starts_after="June 5")


def test_upcoming_events_expand_series(world: World) -> None:
    series = open_series(world)
    guest = series["invitees"][0]["user_id"]
    up = world.ok(C, "list_upcoming_events", user_id=guest, days=21, limit=100)
    mine = [o for o in up["occurrences"] if o["event_id"] == series["event_id"]]
    if series["invitees"][0]["response"] != "declined":
        assert len(mine) >= 2  # a weekly series shows up more than once in three weeks
    assert all("2026-06-01T09:00:00" <= o["start"] <= "2026-06-22T09:00:00" for o in up["occurrences"])
    assert "No user" in world.err(C, "list_upcoming_events", user_id="USR-0000")
    assert "invalid arguments" in world.err(C, "list_upcoming_events", user_id=guest, days=0)


def test_list_occurrences(world: World) -> None:
    series = open_series(world)
    occ = world.ok(C, "list_occurrences", event_id=series["event_id"], from_date="2026-06-01", to_date="2026-06-28")
    assert occ["recurring"] and 3 <= occ["count"] <= 4
    assert len({o["start"][11:] for o in occ["occurrences"]}) == 1
    one_off = future_event(world)
    single = world.ok(
        C,
        "list_occurrences",
        event_id=one_off["event_id"],
        from_date=one_off["start"][:10],
        to_date=one_off["start"][:10],
    )
    assert single["count"] == 1 and not single["recurring"]
    assert "on or after" in world.err(
        C, "list_occurrences", event_id=series["event_id"], from_date="2026-06-10", to_date="2026-06-01"
    )
    assert "366 days" in world.err(
        C, "list_occurrences", event_id=series["event_id"], from_date="2026-01-01", to_date="2027-06-01"
    )
    assert "not a real date" in world.err(C, "list_occurrences", event_id=series["event_id"], from_date="2026-13-01")


def test_free_busy_and_find_free_slot(world: World) -> None:
    a, b = (u["user_id"] for u in world.ok(C, "search_users", department="Sales", limit=2)["users"])
    fb = world.ok(C, "get_free_busy", user_id=a, date="2026-06-02", days=3)
    assert all(x["start"] < x["end"] for x in fb["busy"])
    slots = world.ok(C, "find_free_slot", user_ids=[a, b], duration_minutes=45, from_date="2026-06-02", days=3)["slots"]
    assert slots
    for uid in (a, b):
        busy = world.ok(C, "get_free_busy", user_id=uid, date="2026-06-02", days=3)["busy"]
        for s in slots:
            assert not any(x["start"] < s["end"] and x["end"] > s["start"] for x in busy)
            assert "09:00" <= s["start"][11:16] and s["end"][11:16] <= "17:00"
    today = world.ok(C, "find_free_slot", user_ids=[a], duration_minutes=30, days=1)["slots"]
    assert all(s["start"] >= "2026-06-01T09:00:00" for s in today)
    assert "does not fit" in world.err(
        C, "find_free_slot", user_ids=[a], duration_minutes=600, day_start_hour=9, day_end_hour=17
    )
    assert "later than" in world.err(
        C, "find_free_slot", user_ids=[a], duration_minutes=30, day_start_hour=17, day_end_hour=9
    )
    assert "in the past" in world.err(
        C, "find_free_slot", user_ids=[a], duration_minutes=30, from_date="2026-01-01", days=3
    )
    assert "No user" in world.err(C, "find_free_slot", user_ids=[a, "USR-0000"], duration_minutes=30)
    assert "not a real date" in world.err(C, "get_free_busy", user_id=a, date="2026-02-31")


def test_distinct_values(world: World) -> None:
    assert "needs_action" in world.ok(C, "get_distinct_values", field="rsvp_response")["values"]
    assert set(world.ok(C, "get_distinct_values", field="recurrence_freq")["values"]) == {"daily", "weekly", "monthly"}
    assert "invalid arguments" in world.err(C, "get_distinct_values", field="password")


def test_create_event_and_conflicts(world: World) -> None:
    org, guest = (u for u in world.ok(C, "search_users", department="Design", limit=2)["users"])
    slot = world.ok(
        C, "find_free_slot", user_ids=[org["user_id"], guest["user_id"]], duration_minutes=60, from_date="2026-06-03"
    )["slots"][0]
    ev = world.ok(
        C,
        "create_event",
        calendar_id=org["primary_calendar_id"],
        title="Design critique",
        start=slot["start"],
        end=slot["end"],
        invitee_ids=[guest["user_id"]],
        location="Room 2A - Rainier",
        check_conflicts=True,
    )
    got = world.ok(C, "get_event", event_id=ev["event_id"])
    assert got["organizer_id"] == org["user_id"] and got["invitees"][0]["response"] == "needs_action"
    upcoming = world.ok(C, "list_upcoming_events", user_id=guest["user_id"], days=14, limit=100)["occurrences"]
    assert ev["event_id"] in [o["event_id"] for o in upcoming]
    assert "Double booking" in world.err(
        C,
        "create_event",
        calendar_id=org["primary_calendar_id"],
        title="Clash",
        start=slot["start"],
        end=slot["end"],
        check_conflicts=True,
    )
    world.ok(
        C,
        "create_event",
        calendar_id=org["primary_calendar_id"],
        title="Overlap allowed",
        start=slot["start"],
        end=slot["end"],
    )
    cal = org["primary_calendar_id"]
    assert "must be after" in world.err(
        C, "create_event", calendar_id=cal, title="X", start="2026-06-03T10:00", end="2026-06-03T09:00"
    )
    assert "in the past" in world.err(
        C, "create_event", calendar_id=cal, title="X", start="2026-05-03T10:00", end="2026-05-03T11:00"
    )
    assert "organises" in world.err(
        C,
        "create_event",
        calendar_id=cal,
        title="X",
        start="2026-06-03T10:00",
        end="2026-06-03T11:00",
        invitee_ids=[org["user_id"]],
    )
    assert "No calendar" in world.err(
        C, "create_event", calendar_id="CAL-9999", title="X", start="2026-06-03T10:00", end="2026-06-03T11:00"
    )
    assert "not a real date" in world.err(
        C, "create_event", calendar_id=cal, title="X", start="2026-06-31T10:00", end="2026-07-01T11:00"
    )
    assert "out of range" in world.err(
        C, "create_event", calendar_id=cal, title="X", start="9999-12-31T23:00", end="9999-12-31T23:59"
    )
    assert "invalid arguments" in world.err(
        C, "create_event", calendar_id=cal, title="", start="2026-06-03T10:00", end="2026-06-03T11:00"
    )


def test_update_event_resets_rsvps(world: World) -> None:
    ev = future_event(world)
    new_start = "2026-07-20T10:00"
    moved = world.ok(C, "update_event", event_id=ev["event_id"], start=new_start, location="Boardroom")
    assert set(moved["changed"]) == {"start", "end", "location"}
    got = world.ok(C, "get_event", event_id=ev["event_id"])
    duration = (int(ev["end"][11:13]) * 60 + int(ev["end"][14:16])) - (
        int(ev["start"][11:13]) * 60 + int(ev["start"][14:16])
    )
    assert got["start"] == "2026-07-20T10:00:00" and got["location"] == "Boardroom"
    assert (int(got["end"][11:13]) * 60 + int(got["end"][14:16])) - 600 == duration
    assert {i["response"] for i in got["invitees"]} == {"needs_action"}
    assert "Nothing to change" in world.err(C, "update_event", event_id=ev["event_id"], location="Boardroom")
    assert "past events cannot be changed" in world.err(
        C, "update_event", event_id=past_event(world)["event_id"], title="New"
    )
    assert "must be after" in world.err(C, "update_event", event_id=ev["event_id"], end="2026-07-20T09:00")
    assert "No event" in world.err(C, "update_event", event_id="EVT-00000", title="New")


def test_cancel_event_is_final(world: World) -> None:
    ev = future_event(world)
    world.ok(C, "cancel_event", event_id=ev["event_id"], reason="No longer needed")
    got = world.ok(C, "get_event", event_id=ev["event_id"])
    assert got["status"] == "cancelled" and got["cancel_reason"] == "No longer needed"
    assert "stay cancelled" in world.err(C, "cancel_event", event_id=ev["event_id"])
    assert "stay cancelled" in world.err(C, "update_event", event_id=ev["event_id"], title="Back on")
    assert "past events cannot be changed" in world.err(C, "cancel_event", event_id=past_event(world)["event_id"])
    upcoming = world.ok(C, "list_upcoming_events", user_id=ev["organizer_id"], days=60, limit=100)["occurrences"]
    assert ev["event_id"] not in [o["event_id"] for o in upcoming]


def test_set_recurrence_and_cancel_occurrence(world: World) -> None:
    ev = future_event(world)
    day = ev["start"][:10]
    world.ok(C, "set_recurrence", event_id=ev["event_id"], freq="weekly", count=3)
    occ = world.ok(C, "list_occurrences", event_id=ev["event_id"], from_date=day, to_date="2026-12-31")["occurrences"]
    assert len(occ) == 3
    second = occ[1]["date"]
    world.ok(C, "cancel_occurrence", event_id=ev["event_id"], occurrence_date=second)
    occ = world.ok(C, "list_occurrences", event_id=ev["event_id"], from_date=day, to_date="2026-12-31")["occurrences"]
    assert [o["status"] for o in occ] == [ev["status"], "cancelled", ev["status"]]
    assert second in world.ok(C, "get_event", event_id=ev["event_id"])["cancelled_occurrences"]
    assert "already cancelled" in world.err(C, "cancel_occurrence", event_id=ev["event_id"], occurrence_date=second)
    assert "no occurrence" in world.err(C, "cancel_occurrence", event_id=ev["event_id"], occurrence_date="2027-01-01")
    world.ok(C, "set_recurrence", event_id=ev["event_id"], freq="daily", by_weekday=["MO", "WE"], until="2026-09-30")
    rule = world.ok(C, "get_event", event_id=ev["event_id"])["recurrence"]
    assert rule["by_weekday"] == "MO,WE" and rule["until"] == "2026-09-30"
    assert "already repeats" in world.err(
        C, "set_recurrence", event_id=ev["event_id"], freq="daily", by_weekday=["WE", "MO"], until="2026-09-30"
    )
    assert "not both" in world.err(
        C, "set_recurrence", event_id=ev["event_id"], freq="weekly", count=2, until="2026-09-01"
    )
    assert "by_weekday only" in world.err(
        C, "set_recurrence", event_id=ev["event_id"], freq="monthly", by_weekday=["MO"]
    )
    assert "before the event" in world.err(
        C, "set_recurrence", event_id=ev["event_id"], freq="weekly", until="2026-01-01"
    )
    world.ok(C, "set_recurrence", event_id=ev["event_id"], freq="none")
    assert world.ok(C, "get_event", event_id=ev["event_id"])["recurrence"] is None
    assert "does not repeat" in world.err(C, "set_recurrence", event_id=ev["event_id"], freq="none")
    assert "not recurring" in world.err(C, "cancel_occurrence", event_id=ev["event_id"], occurrence_date=day)
    assert "invalid arguments" in world.err(C, "set_recurrence", event_id=ev["event_id"], freq="weekly", count=10**12)


def test_cancel_occurrence_of_seeded_series(world: World) -> None:
    series = open_series(world)
    occ = world.ok(C, "list_occurrences", event_id=series["event_id"], from_date="2026-06-02", to_date="2026-06-30")[
        "occurrences"
    ]
    target = next(o for o in occ if o["status"] != "cancelled")
    world.ok(C, "cancel_occurrence", event_id=series["event_id"], occurrence_date=target["date"])
    upcoming = world.ok(C, "list_upcoming_events", user_id=series["organizer_id"], days=30, limit=100)["occurrences"]
    assert target["start"] not in [o["start"] for o in upcoming if o["event_id"] == series["event_id"]]
    past_day = world.ok(
        C, "list_occurrences", event_id=series["event_id"], from_date=series["start"][:10], to_date="2026-05-31"
    )["occurrences"]
    assert "past occurrences" in world.err(
        C, "cancel_occurrence", event_id=series["event_id"], occurrence_date=past_day[0]["date"]
    )


def test_invitees_and_rsvp(world: World) -> None:
    ev = future_event(world)
    invited = {i["user_id"] for i in ev["invitees"]}
    newcomer = next(
        u["user_id"]
        for u in world.ok(C, "search_users", limit=50)["users"]
        if u["user_id"] not in invited and u["user_id"] != ev["organizer_id"]
    )
    assert "not invited" in world.err(
        C, "respond_to_invite", event_id=ev["event_id"], user_id=newcomer, response="accepted"
    )
    assert "not invited" in world.err(C, "remove_invitee", event_id=ev["event_id"], user_id=newcomer)
    world.ok(C, "add_invitee", event_id=ev["event_id"], user_id=newcomer, optional=True)
    assert "already invited" in world.err(C, "add_invitee", event_id=ev["event_id"], user_id=newcomer)
    assert "organiser is not an invitee" in world.err(
        C, "add_invitee", event_id=ev["event_id"], user_id=ev["organizer_id"]
    )
    assert "No user" in world.err(C, "add_invitee", event_id=ev["event_id"], user_id="USR-0000")
    world.ok(C, "respond_to_invite", event_id=ev["event_id"], user_id=newcomer, response="declined")
    row = next(i for i in world.ok(C, "get_event", event_id=ev["event_id"])["invitees"] if i["user_id"] == newcomer)
    assert row["response"] == "declined" and row["optional"] is True and row["responded_at"] == "2026-06-01T09:00:00"
    assert "already answered" in world.err(
        C, "respond_to_invite", event_id=ev["event_id"], user_id=newcomer, response="declined"
    )
    assert "organisers don't RSVP" in world.err(
        C, "respond_to_invite", event_id=ev["event_id"], user_id=ev["organizer_id"], response="accepted"
    )
    world.ok(C, "remove_invitee", event_id=ev["event_id"], user_id=newcomer)
    assert newcomer not in {i["user_id"] for i in world.ok(C, "get_event", event_id=ev["event_id"])["invitees"]}


def test_past_event_rsvp_and_invite_fail(world: World) -> None:
    for ev in world.ok(C, "list_events", starts_before="2026-05-01", status="confirmed", recurring=False, limit=50)[
        "events"
    ]:
        full = world.ok(C, "get_event", event_id=ev["event_id"])
        if full["invitees"]:
            break
    guest = full["invitees"][0]
    other = "accepted" if guest["response"] != "accepted" else "declined"
    assert "past events" in world.err(
        C, "respond_to_invite", event_id=full["event_id"], user_id=guest["user_id"], response=other
    )
    assert "past events" in world.err(C, "remove_invitee", event_id=full["event_id"], user_id=guest["user_id"])


def test_add_invitee_conflict_check(world: World) -> None:
    org, guest = (u for u in world.ok(C, "search_users", department="Legal", limit=2)["users"])
    slot = world.ok(
        C, "find_free_slot", user_ids=[org["user_id"], guest["user_id"]], duration_minutes=30, from_date="2026-06-04"
    )["slots"][0]
    world.ok(
        C,
        "create_event",
        calendar_id=guest["primary_calendar_id"],
        title="Guest busy",
        start=slot["start"],
        end=slot["end"],
    )
    ev = world.ok(
        C, "create_event", calendar_id=org["primary_calendar_id"], title="Sync", start=slot["start"], end=slot["end"]
    )
    assert "Double booking" in world.err(
        C, "add_invitee", event_id=ev["event_id"], user_id=guest["user_id"], check_conflicts=True
    )
    world.ok(C, "add_invitee", event_id=ev["event_id"], user_id=guest["user_id"])
