"""What leads and managers want of the tracker: estimating and planning sprints, rolling a sprint over, building a
team, triaging, and looking over boards, backlogs and colleagues' work."""

from __future__ import annotations

from datetime import date, timedelta
from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip
from servers.issue_tracker.intents import (
    ROLES,
    SPRINT_ASKS,
    STATUS_WORDS,
    WORDS,
    board,
    find_user,
    issue_ref,
    locate,
    named_board,
    named_ticket,
    person,
    project_key,
    remember,
)
from servers.issue_tracker.tools import tracker


def _say(d: date) -> str:
    return f"{d.strftime('%B')} {d.day}"


@tracker.intent(covers=("search_issues", "get_issue", "set_story_points", "search_users"), weight=2.0, follows=True)
def estimate_and_plan(s: Scene) -> None:
    """A backlog ticket gets an estimate (planning it into the next sprint is a follow-up)."""
    points = s.rng.choice((1, 2, 3, 5, 8))
    i = s.pick(
        "SELECT i.* FROM issues i WHERE i.sprint_id IS NULL AND i.status != 'done' AND (i.story_points IS NULL "
        "OR i.story_points != ?) AND EXISTS (SELECT 1 FROM sprints p WHERE p.project_id = i.project_id AND "
        "p.status = 'planned')",
        points,
    )
    b, what = named_ticket(s, i)
    est = s.given(points, f"{points} point{'s' if points != 1 else ''}", "estimate", "set_story_points", "points")
    s.say(WORDS.estimate_and_plan, what=what, est=est)
    key = locate(s, i, what, b, backlog=True) if s.rng.random() < 0.6 else locate(s, i, what, b)
    s.call("set_story_points", issue_id=key, points=points)


@tracker.intent(covers=("list_projects", "list_sprints", "get_sprint", "search_issues"), weight=1.2)
def sprint_check_in(s: Scene) -> None:
    """A lead asks how the current sprint is going (what nobody has picked up yet is a follow-up)."""
    p = s.pick("SELECT p.* FROM projects p JOIN sprints s USING (project_id) WHERE s.status = 'active'")
    b, named = board(s, p["project_id"])
    s.say(WORDS.sprint_check_in, k=b)
    active = s.call("list_sprints", project_id=project_key(s, p["project_id"], named), status="active")["sprints"][0]
    s.call("get_sprint", sprint_id=active["sprint_id"])
    s.memory.update(project=p["project_id"], board=b, sprint=active["sprint_id"])
    if s.rng.random() < 0.5:
        status = s.rng.choice(("open", "in_review", "in_progress"))
        s.say(*SPRINT_ASKS[status])
        s.call("search_issues", sprint_id=active["sprint_id"], status=status)


@tracker.intent(covers=("list_projects", "list_sprints", "close_sprint", "start_sprint"), weight=1.2)
def roll_the_sprint(s: Scene) -> None:
    """The sprint ends: close it, carry what is unfinished into the next one, and start that one."""
    p, b, named = named_board(
        s,
        "EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id "
        "AND s.status = 'active') AND EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id AND "
        "s.status = 'planned')",
    )
    s.say(WORDS.roll_the_sprint, k=b)
    sprints = s.call("list_sprints", project_id=project_key(s, p["project_id"], named))["sprints"]
    active = next(x for x in sprints if x["status"] == "active")
    upcoming = sorted((x for x in sprints if x["status"] == "planned"), key=lambda x: x["start_date"])
    if not upcoming:
        raise Skip("no planned sprint listed")
    nxt = upcoming[0]
    left = s.value("SELECT COUNT(*) FROM issues WHERE sprint_id = ? AND status != 'done'", active["sprint_id"])
    if not left and not s.value("SELECT COUNT(*) FROM issues WHERE sprint_id = ?", nxt["sprint_id"]):
        raise Skip("the next sprint would start empty")
    s.call("close_sprint", sprint_id=active["sprint_id"], carry_over_to=nxt["sprint_id"])
    s.say(WORDS.roll_the_sprint_start_next)
    s.call("start_sprint", sprint_id=nxt["sprint_id"])
    s.memory.update(project=p["project_id"], board=b, sprint=nxt["sprint_id"])


@tracker.intent(
    covers=(
        "list_projects",
        "list_sprints",
        "create_sprint",
        "search_issues",
        "get_issue",
        "move_issue_to_sprint",
        "search_users",
    )
)
def plan_new_sprint(s: Scene) -> None:
    """A lead sets up a sprint after the last planned one and puts a backlog ticket in it."""
    p = s.pick(
        "SELECT p.* FROM projects p WHERE EXISTS (SELECT 1 FROM issues i WHERE i.project_id = p.project_id "
        "AND i.sprint_id IS NULL AND i.status != 'done' AND i.story_points IS NOT NULL)"
    )
    last = s.value("SELECT MAX(end_date) FROM sprints WHERE project_id = ?", p["project_id"])
    start = max(date.fromisoformat(last) + timedelta(days=1), s.now.date())
    end = start + timedelta(days=13)
    n = s.value("SELECT COUNT(*) FROM sprints WHERE project_id = ?", p["project_id"]) + 1
    name = f"{p['project_id']} Sprint {n}"
    capacity = s.rng.choice((30, 40, 40, 45))
    b, named = board(s, p["project_id"])
    called = s.given(name, f'"{name}"', "sprint name", "create_sprint", "name")
    room = "the usual capacity" if capacity == 40 else f"room for {capacity} points"
    s.say(WORDS.plan_new_sprint, k=b, n=called, a=_say(start), b=_say(end), c=room)
    key = project_key(s, p["project_id"], named)
    if not named:
        s.call("list_sprints", project_id=key, status="planned")
    extra = {} if capacity == 40 else {"capacity": capacity}
    made = s.call(
        "create_sprint", project_id=key, name=name, start_date=start.isoformat(), end_date=end.isoformat(), **extra
    )
    i = s.pick(
        "SELECT * FROM issues WHERE project_id = ? AND sprint_id IS NULL AND status != 'done' AND story_points "
        "IS NOT NULL AND story_points <= ?",
        p["project_id"],
        capacity,
    )
    what = issue_ref(s, i, b, by_key=False)
    s.say(WORDS.plan_new_sprint_add_ticket, what=what)
    key = locate(s, i, what, backlog=True)
    s.call("move_issue_to_sprint", issue_id=key, sprint_id=made["sprint_id"])
    s.memory.update(board=b, sprint=made["sprint_id"])


@tracker.intent(covers=("list_projects", "search_users", "add_project_member", "get_project"))
def add_to_team(s: Scene) -> None:
    """A lead adds someone to a project's team in a role (reviewing the team is a follow-up)."""
    p, b, named = named_board(s)
    role = s.rng.choice(("developer", "developer", "qa", "designer", "viewer"))
    u, who = person(s, "u.user_id NOT IN (SELECT user_id FROM project_members WHERE project_id = ?)", p["project_id"])
    s.say(WORDS.add_to_team, who=who, k=b, r=ROLES[role])
    key = project_key(s, p["project_id"], named)
    uid = find_user(s, u)
    args: dict[str, Any] = {"project_id": key, "user_id": uid}
    if role != "developer" and not s.minimal:
        args["role"] = role
    s.call("add_project_member", **args)
    s.memory.update(project=p["project_id"], board=b)
    if s.rng.random() < 0.5:
        s.say(WORDS.add_to_team_show_team, k=b)
        if s.rng.random() < 0.5:
            s.call("get_project", project_id=key)
        else:
            s.call("search_users", project_id=key)


@tracker.intent(covers=("list_projects", "get_project"), weight=0.7)
def busiest_project(s: Scene) -> None:
    """A manager looks at which projects carry the most unresolved work, then at one of them."""
    s.say(WORDS.busiest_project)
    found = s.call("list_projects")["projects"]
    p = s.rng.choice(found)
    s.say(WORDS.busiest_project_drill_in, n=p["name"])
    s.call("get_project", project_id=p["project_id"])
    s.memory.update(project=p["project_id"], board=p["name"])


@tracker.intent(covers=("get_distinct_values", "search_issues"), weight=0.6)
def label_hotspots(s: Scene) -> None:
    """A manager looks at the labels in use, then at the open tickets carrying one of them."""
    s.say(WORDS.label_hotspots)
    labels = s.call("get_distinct_values", field="label")["values"]
    label = s.rng.choice(sorted(x for x in labels if len(x) >= 3))  # shorter values do not count as carried
    if not s.value(
        "SELECT COUNT(*) FROM issues i JOIN issue_labels l USING (issue_id) WHERE l.label = ? AND i.status = 'open'",
        label,
    ):
        raise Skip("nothing open with that label")
    s.say(WORDS.label_hotspots_open_tagged, l=label)
    s.call("search_issues", label=label, status="open")


@tracker.intent(covers=("list_projects", "search_issues", "search_users", "assign_issue"))
def triage_critical(s: Scene) -> None:
    """A lead finds the unowned critical tickets of a project and gives the newest to a team member."""
    p, b, named = named_board(
        s,
        "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = p.project_id AND "
        "i.priority = 'critical' AND i.assignee_id IS NULL AND i.status = 'open')",
    )
    s.say(WORDS.triage_critical, k=b)
    key = project_key(s, p["project_id"], named)
    found = s.call("search_issues", project_id=key, priority="critical", unassigned=True, status="open")["issues"]
    if not found:
        raise Skip("nothing listed")
    top = found[0]
    other, who = person(
        s,
        "u.user_id IN (SELECT user_id FROM project_members WHERE project_id = ? AND role != 'viewer')",
        p["project_id"],
    )
    s.say(WORDS.triage_critical_assign_newest, o=who)
    s.call("assign_issue", issue_id=top["issue_id"], assignee_id=find_user(s, other, key))
    remember(s, top, b)


@tracker.intent(covers=("search_users", "search_issues"), weight=1.2)
def colleague_load(s: Scene) -> None:
    """A lead asks what a colleague is working on, and picks one of their tickets to go on with."""
    row = s.pick(
        "SELECT u.* FROM users u WHERE EXISTS (SELECT 1 FROM issues i WHERE i.assignee_id = u.user_id AND "
        "i.status IN ('in_progress', 'in_review'))"
    )
    u, named = person(s, "u.user_id = ?", row["user_id"])
    status = s.rng.choice(("in_progress", "in_review"))
    s.say(WORDS.colleague_load, o=named, st=STATUS_WORDS[status])
    found = s.call("search_issues", assignee_id=find_user(s, u), status=status)["issues"]
    i = s.choose(found, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    remember(s, i, i["project_id"], named=False)


@tracker.intent(covers=("list_projects", "get_project", "search_users"), weight=1.2)
def team_of_board(s: Scene) -> None:
    """A member asks who is on a board's team (with their roles, or just the names)."""
    p, b, named = named_board(s)
    s.say(WORDS.team_of_board, b=b)
    key = project_key(s, p["project_id"], named)
    if s.rng.random() < 0.5:
        s.call("get_project", project_id=key)
    else:
        s.call("search_users", project_id=key)
    s.memory.update(project=p["project_id"], board=b)


@tracker.intent(covers=("list_projects", "list_sprints", "get_sprint"), weight=1.2)
def next_sprint_plan(s: Scene) -> None:
    """A lead asks what is planned for a board's next sprint."""
    p, b, named = named_board(
        s, "EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id AND s.status = 'planned')"
    )
    s.say(WORDS.next_sprint_plan, b=b)
    planned = s.call("list_sprints", project_id=project_key(s, p["project_id"], named), status="planned")["sprints"]
    nxt = min(planned, key=itemgetter("start_date"))
    if sum(x["start_date"] == nxt["start_date"] for x in planned) > 1:
        raise Skip("two sprints start together")
    s.call("get_sprint", sprint_id=nxt["sprint_id"])
    s.memory.update(project=p["project_id"], board=b, sprint=nxt["sprint_id"])
