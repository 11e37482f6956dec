"""Issue tracker: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

I = "issue_tracker"  # noqa: E741 (the server, as every call below names it)
DEV = "USR-0043"  # a WEB developer
OUTSIDER = "USR-0007"  # not on the WEB team


def new_issue(world: World, **kw: object) -> dict:
    args = {"project_id": "WEB", "reporter_id": DEV, "type": "bug", "title": "Checkout page crashes on empty cart"} | kw
    return world.ok(I, "create_issue", **args)


def test_projects(world: World) -> None:
    projects = world.ok(I, "list_projects")["projects"]
    assert {p["project_id"] for p in projects} >= {"WEB", "MOB", "API"}
    assert world.ok(I, "list_projects", query="mobile")["projects"][0]["project_id"] == "MOB"
    web = world.ok(I, "get_project", project_id="WEB")
    assert DEV in {m["user_id"] for m in web["members"]} and web["active_sprint_id"] == "SPR-0005"
    assert "No project" in world.err(I, "get_project", project_id="NOPE")
    assert "invalid arguments" in world.err(I, "list_projects", limit=1000)


def test_users_and_distinct(world: World) -> None:
    team = world.ok(I, "search_users", project_id="WEB", limit=100)["users"]
    assert DEV in {u["user_id"] for u in team} and OUTSIDER not in {u["user_id"] for u in team}
    assert "No project" in world.err(I, "search_users", project_id="ZZZ")
    assert set(world.ok(I, "get_distinct_values", field="status")["values"]) == {
        "open",
        "in_progress",
        "in_review",
        "done",
    }
    assert "invalid arguments" in world.err(I, "get_distinct_values", field="secret")


def test_search_and_get_issue(world: World) -> None:
    bugs = world.ok(I, "search_issues", project_id="WEB", type="bug", status="open", limit=10)["issues"]
    assert bugs and all(b["type"] == "bug" and b["status"] == "open" for b in bugs)
    assert world.ok(I, "search_issues", sprint_id="SPR-0005")["count"] > 0
    assert all(i["sprint_id"] is None for i in world.ok(I, "search_issues", backlog=True, unassigned=True)["issues"])
    issue = world.ok(I, "get_issue", issue_id="WEB-0042")
    assert issue["allowed_transitions"] == ["in_progress"] and issue["history"]
    assert "No issue" in world.err(I, "get_issue", issue_id="WEB-9999")
    assert "invalid arguments" in world.err(I, "search_issues", priority="urgent")


def test_sprints_read(world: World) -> None:
    planned = world.ok(I, "list_sprints", project_id="WEB", status="planned")["sprints"]
    assert {s["sprint_id"] for s in planned} == {"SPR-0006", "SPR-0007"}
    sprint = world.ok(I, "get_sprint", sprint_id="SPR-0005")
    assert sprint["status"] == "active" and sprint["committed_points"] <= sprint["capacity"]
    assert "No sprint" in world.err(I, "get_sprint", sprint_id="SPR-9999")
    assert "No project" in world.err(I, "list_sprints", project_id="")


def test_create_and_update_issue(world: World) -> None:
    issue = new_issue(world, priority="high")
    assert issue["issue_id"].startswith("WEB-") and issue["status"] == "open" and issue["sprint_id"] is None
    world.ok(I, "update_issue", issue_id=issue["issue_id"], user_id=DEV, priority="critical", title="Checkout crash")
    got = world.ok(I, "get_issue", issue_id=issue["issue_id"])
    assert got["priority"] == "critical" and got["title"] == "Checkout crash"
    assert "not a member" in world.err(
        I, "create_issue", project_id="WEB", reporter_id=DEV, type="task", title="x", assignee_id=OUTSIDER
    )
    assert "blank" in world.err(I, "create_issue", project_id="WEB", reporter_id=DEV, type="task", title="   ")
    assert "Nothing to change" in world.err(I, "update_issue", issue_id=issue["issue_id"], user_id=DEV)
    assert "already has" in world.err(I, "update_issue", issue_id=issue["issue_id"], user_id=DEV, priority="critical")
    assert "not a member" in world.err(I, "update_issue", issue_id=issue["issue_id"], user_id=OUTSIDER, priority="low")


def test_assign_and_project_members(world: World) -> None:
    issue = new_issue(world)
    assert "not a member" in world.err(I, "assign_issue", issue_id=issue["issue_id"], assignee_id=OUTSIDER)
    world.ok(I, "add_project_member", project_id="WEB", user_id=OUTSIDER, role="developer")
    assert OUTSIDER in {m["user_id"] for m in world.ok(I, "get_project", project_id="WEB")["members"]}
    assert "already a member" in world.err(I, "add_project_member", project_id="WEB", user_id=OUTSIDER)
    world.ok(I, "assign_issue", issue_id=issue["issue_id"], assignee_id=OUTSIDER)
    assert world.ok(I, "get_issue", issue_id=issue["issue_id"])["assignee_id"] == OUTSIDER
    assert "already assigned" in world.err(I, "assign_issue", issue_id=issue["issue_id"], assignee_id=OUTSIDER)
    world.ok(I, "assign_issue", issue_id=issue["issue_id"], assignee_id=None)
    assert world.ok(I, "get_issue", issue_id=issue["issue_id"])["assignee_id"] is None
    assert "already unassigned" in world.err(I, "assign_issue", issue_id=issue["issue_id"], assignee_id=None)


def test_viewers_cannot_be_assigned(world: World) -> None:
    world.ok(I, "add_project_member", project_id="WEB", user_id=OUTSIDER, role="viewer")
    assert "viewer" in world.err(I, "assign_issue", issue_id="WEB-0011", assignee_id=OUTSIDER)


def test_workflow_transitions(world: World) -> None:
    issue = new_issue(world)
    iid = issue["issue_id"]
    assert "no assignee" in world.err(I, "transition_issue", issue_id=iid, user_id=DEV, to_status="in_progress")
    err = world.err(I, "transition_issue", issue_id=iid, user_id=DEV, to_status="done")
    assert "allowed from open: in_progress" in err
    world.ok(I, "assign_issue", issue_id=iid, assignee_id=DEV)
    for status in ("in_progress", "in_review", "done"):
        world.ok(I, "transition_issue", issue_id=iid, user_id=DEV, to_status=status)
    got = world.ok(I, "get_issue", issue_id=iid)
    assert got["status"] == "done" and got["resolved_at"] and got["allowed_transitions"] == ["open"]
    assert "already done" in world.err(I, "transition_issue", issue_id=iid, user_id=DEV, to_status="done")
    assert "not a member" in world.err(I, "transition_issue", issue_id=iid, user_id=OUTSIDER, to_status="open")
    world.ok(I, "transition_issue", issue_id=iid, user_id=DEV, to_status="open")
    assert world.ok(I, "get_issue", issue_id=iid)["resolved_at"] is None


def test_in_progress_keeps_assignee(world: World) -> None:
    busy = world.ok(I, "search_issues", project_id="WEB", status="in_progress", limit=1)["issues"][0]
    assert "must keep an assignee" in world.err(I, "assign_issue", issue_id=busy["issue_id"], assignee_id=None)


def test_reopen_from_closed_sprint_goes_to_backlog(world: World) -> None:
    done = world.ok(I, "search_issues", sprint_id="SPR-0004", status="done", limit=1)["issues"][0]
    world.ok(I, "transition_issue", issue_id=done["issue_id"], user_id=DEV, to_status="open")
    assert world.ok(I, "get_issue", issue_id=done["issue_id"])["sprint_id"] is None


def test_comments(world: World) -> None:
    c = world.ok(I, "add_comment", issue_id="WEB-0042", author_id=DEV, body="I can reproduce this on staging.")
    assert c["comment_id"] in {x["comment_id"] for x in world.ok(I, "get_issue", issue_id="WEB-0042")["comments"]}
    assert "blank" in world.err(I, "add_comment", issue_id="WEB-0042", author_id=DEV, body="  ")
    assert "No user" in world.err(I, "add_comment", issue_id="WEB-0042", author_id="USR-9999", body="hi")


def test_labels(world: World) -> None:
    labels = world.ok(I, "get_project", project_id="WEB")["labels"]
    issue = new_issue(world)
    world.ok(I, "label_issue", issue_id=issue["issue_id"], label=labels[0])
    assert (
        world.ok(I, "search_issues", label=labels[0], project_id="WEB", limit=1)["issues"][0]["issue_id"]
        == issue["issue_id"]
    )
    assert "already carries" in world.err(I, "label_issue", issue_id=issue["issue_id"], label=labels[0])
    assert "use one of" in world.err(I, "label_issue", issue_id=issue["issue_id"], label="ios")
    world.ok(I, "label_issue", issue_id=issue["issue_id"], label=labels[0], remove=True)
    assert world.ok(I, "get_issue", issue_id=issue["issue_id"])["labels"] == []
    assert "nothing to remove" in world.err(I, "label_issue", issue_id=issue["issue_id"], label=labels[0], remove=True)


def test_story_points_and_planning(world: World) -> None:
    issue = new_issue(world)
    iid = issue["issue_id"]
    assert "no estimate" in world.err(I, "move_issue_to_sprint", issue_id=iid, sprint_id="SPR-0006")
    assert "estimation scale" in world.err(I, "set_story_points", issue_id=iid, points=4)
    world.ok(I, "set_story_points", issue_id=iid, points=3)
    assert world.ok(I, "get_issue", issue_id=iid)["story_points"] == 3
    assert "closed" in world.err(I, "move_issue_to_sprint", issue_id=iid, sprint_id="SPR-0004")
    other = world.ok(I, "list_sprints", project_id="MOB", status="planned")["sprints"][0]["sprint_id"]
    assert "belongs to project MOB" in world.err(I, "move_issue_to_sprint", issue_id=iid, sprint_id=other)
    world.ok(I, "move_issue_to_sprint", issue_id=iid, sprint_id="SPR-0006")
    assert iid in {i["issue_id"] for i in world.ok(I, "get_sprint", sprint_id="SPR-0006")["issues"]}
    assert "already in SPR-0006" in world.err(I, "move_issue_to_sprint", issue_id=iid, sprint_id="SPR-0006")
    sprint = world.ok(I, "get_sprint", sprint_id="SPR-0006")
    assert "capacity" in world.err(I, "set_story_points", issue_id=iid, points=21)
    big = new_issue(world)
    world.ok(I, "set_story_points", issue_id=big["issue_id"], points=21)
    assert sprint["committed_points"] + 21 > sprint["capacity"]
    assert "does not fit" in world.err(I, "move_issue_to_sprint", issue_id=big["issue_id"], sprint_id="SPR-0006")
    world.ok(I, "move_issue_to_sprint", issue_id=iid, sprint_id=None)
    assert world.ok(I, "get_issue", issue_id=iid)["sprint_id"] is None


def test_create_and_start_sprint(world: World) -> None:
    assert "in the past" in world.err(
        I, "create_sprint", project_id="WEB", name="Late", start_date="2026-01-01", end_date="2026-01-10"
    )
    assert "not a real calendar date" in world.err(
        I, "create_sprint", project_id="WEB", name="Odd", start_date="2026-02-30", end_date="2026-03-05"
    )
    assert "1 to 28 days" in world.err(
        I, "create_sprint", project_id="WEB", name="Long", start_date="2026-07-11", end_date="2026-09-01"
    )
    assert "already has a sprint named" in world.err(
        I, "create_sprint", project_id="WEB", name="WEB Sprint 1", start_date="2026-07-11", end_date="2026-07-24"
    )
    sprint = world.ok(
        I,
        "create_sprint",
        project_id="WEB",
        name="WEB Sprint 8",
        start_date="2026-07-11",
        end_date="2026-07-24",
        capacity=20,
    )
    assert sprint["sprint_id"] in {
        s["sprint_id"] for s in world.ok(I, "list_sprints", project_id="WEB", status="planned")["sprints"]
    }
    assert "already has an active sprint (SPR-0005)" in world.err(I, "start_sprint", sprint_id=sprint["sprint_id"])
    assert "only planned" in world.err(I, "start_sprint", sprint_id="SPR-0005")
    data = world.ok(
        I, "create_sprint", project_id="DATA", name="DATA hotfix", start_date="2026-06-01", end_date="2026-06-05"
    )
    assert "has no issues" in world.err(I, "start_sprint", sprint_id=data["sprint_id"])
    planned = world.ok(I, "list_sprints", project_id="DATA", status="planned", limit=100)["sprints"]
    target = next(s for s in planned if s["committed_points"] > 0)
    world.ok(I, "start_sprint", sprint_id=target["sprint_id"])
    assert world.ok(I, "get_project", project_id="DATA")["active_sprint_id"] == target["sprint_id"]


def test_close_sprint(world: World) -> None:
    assert "unfinished issues" in world.err(I, "close_sprint", sprint_id="SPR-0005")
    assert "planned sprint of project WEB" in world.err(
        I, "close_sprint", sprint_id="SPR-0005", carry_over_to="SPR-0004"
    )
    before = world.ok(I, "get_sprint", sprint_id="SPR-0005")
    unfinished = {i["issue_id"] for i in before["issues"] if i["status"] != "done"}
    out = world.ok(I, "close_sprint", sprint_id="SPR-0005", carry_over_to="SPR-0006")
    assert set(out["carried_over"]) == unfinished and out["velocity"] == before["completed_points"]
    assert world.ok(I, "get_sprint", sprint_id="SPR-0005")["status"] == "closed"
    assert unfinished <= {i["issue_id"] for i in world.ok(I, "get_sprint", sprint_id="SPR-0006")["issues"]}
    assert "only the active sprint" in world.err(I, "close_sprint", sprint_id="SPR-0005")
    world.ok(I, "start_sprint", sprint_id="SPR-0006")
    assert world.ok(I, "get_project", project_id="WEB")["active_sprint_id"] == "SPR-0006"
