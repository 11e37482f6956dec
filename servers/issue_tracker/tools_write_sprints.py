"""Planning: issues into sprints, sprints created, started and closed, project members added."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, next_id
from servers.issue_tracker.core import (
    DateStr,
    IssueId,
    ProjectId,
    SprintId,
    UserId,
    committed_points,
    issue_view,
    log_change,
    parse_date,
    tracker,
)
from servers.issue_tracker.tools_read import get_sprint


@tracker.write(returns=("issue",), requires=("set_story_points",))
def move_issue_to_sprint(
    ctx: Ctx,
    issue_id: IssueId,
    sprint_id: Annotated[
        str | None,
        SprintId.ref("A planned or active sprint of the issue's project, e.g. 'SPR-0005'; null for the backlog"),
    ],
) -> dict[str, Any]:
    """Plan an issue into a sprint, or back to the backlog with null, e.g. move_issue_to_sprint('WEB-0011', 'SPR-0006').

    The issue needs story points; the sprint must be planned or active and have capacity left."""
    issue = IssueId.get(ctx, issue_id)
    if issue["status"] == "done":
        raise ToolError(f"{issue_id} is done and stays where it was completed; reopen it first to move it.")
    if sprint_id is None:
        if issue["sprint_id"] is None:
            raise ToolError(f"{issue_id} is already in the backlog.")
        ctx.db.execute("UPDATE issues SET sprint_id = NULL WHERE issue_id = ?", (issue_id,))
        log_change(ctx, issue_id, None, "sprint", issue["sprint_id"], None)
        return issue_view(ctx, issue_id)
    sprint = SprintId.get(ctx, sprint_id)
    if sprint["project_id"] != issue["project_id"]:
        raise ToolError(
            f"{sprint_id} belongs to project {sprint['project_id']}, but {issue_id} is in {issue['project_id']}; "
            f"use list_sprints('{issue['project_id']}')."
        )
    if sprint["status"] == "closed":
        raise ToolError(
            f"{sprint_id} is closed and takes no more issues; choose a planned or active sprint (list_sprints)."
        )
    if issue["sprint_id"] == sprint_id:
        raise ToolError(f"{issue_id} is already in {sprint_id}.")
    if issue["story_points"] is None:
        raise ToolError(
            f"{issue_id} has no estimate; set its story points with set_story_points before planning it into a sprint."
        )
    total = committed_points(ctx, sprint_id) + issue["story_points"]
    if total > sprint["capacity"]:
        raise ToolError(
            f"{sprint_id} has {committed_points(ctx, sprint_id)} of {sprint['capacity']} points committed; {issue_id} "
            f"({issue['story_points']} points) does not fit. Move something out or pick another sprint."
        )
    ctx.db.execute("UPDATE issues SET sprint_id = ? WHERE issue_id = ?", (sprint_id, issue_id))
    log_change(ctx, issue_id, None, "sprint", issue["sprint_id"], sprint_id)
    return issue_view(ctx, issue_id)


@tracker.write(returns=("sprint",))
def create_sprint(
    ctx: Ctx,
    project_id: ProjectId,
    name: Annotated[str, Field(min_length=1, max_length=100, description="Sprint name, e.g. 'WEB Sprint 8'")],
    start_date: DateStr,
    end_date: DateStr,
    capacity: Annotated[int, Field(ge=1, le=500, description="Story points the team can take on, e.g. 40")] = 40,
    goal: Annotated[str, Field(max_length=300, description="What the sprint should achieve")] = "",
) -> dict[str, Any]:
    """Plan a new sprint for a project, e.g. create_sprint('WEB', 'WEB Sprint 8', '2026-07-11', '2026-07-24', 40).

    It must start today or later and last 1 to 28 days; names are unique within a project."""
    ProjectId.get(ctx, project_id)
    start, end = parse_date(start_date, "start_date"), parse_date(end_date, "end_date")
    if start < ctx.now.date():
        raise ToolError(
            f"start_date {start_date} is in the past (today is {ctx.now.strftime('%Y-%m-%d')}); plan sprints from "
            f"today on."
        )
    if not 1 <= (end - start).days + 1 <= 28:
        raise ToolError(f"A sprint lasts 1 to 28 days; {start_date} to {end_date} is {(end - start).days + 1} days.")
    if not name.strip():
        raise ToolError("The sprint name cannot be blank.")
    if ctx.db.execute("SELECT 1 FROM sprints WHERE project_id = ? AND name = ?", (project_id, name.strip())).fetchone():
        raise ToolError(f"Project {project_id} already has a sprint named {name.strip()!r}; choose another name.")
    sprint_id = next_id(ctx.db, "sprints", "sprint_id", "SPR")
    ctx.db.execute(
        "INSERT INTO sprints VALUES (?,?,?,?,?,?,?,?,?,?)",
        (sprint_id, project_id, name.strip(), goal, "planned", start_date, end_date, capacity, None, None),
    )
    return get_sprint(ctx, sprint_id)


@tracker.write(returns=("sprint",), requires=("move_issue_to_sprint",))
def start_sprint(ctx: Ctx, sprint_id: SprintId) -> dict[str, Any]:
    """Start a planned sprint, e.g. start_sprint('SPR-0028'). A project has one active sprint at a time, and the sprint
    needs issues."""
    sprint = SprintId.get(ctx, sprint_id)
    if sprint["status"] != "planned":
        raise ToolError(f"{sprint_id} is {sprint['status']}; only planned sprints can be started.")
    active = ctx.db.execute(
        "SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'active'", (sprint["project_id"],)
    ).fetchone()
    if active:
        raise ToolError(
            f"Project {sprint['project_id']} already has an active sprint ({active[0]}); close it with close_sprint "
            f"first."
        )
    if not ctx.db.execute("SELECT 1 FROM issues WHERE sprint_id = ?", (sprint_id,)).fetchone():
        raise ToolError(f"{sprint_id} has no issues; plan some in with move_issue_to_sprint before starting it.")
    ctx.db.execute(
        "UPDATE sprints SET status = 'active', started_at = ? WHERE sprint_id = ?", (fake.iso(ctx.now), sprint_id)
    )
    return get_sprint(ctx, sprint_id)


@tracker.write(returns=("sprint",))
def close_sprint(
    ctx: Ctx,
    sprint_id: SprintId,
    carry_over_to: Annotated[
        str | None, SprintId.ref("A planned sprint of the same project to receive unfinished issues, e.g. 'SPR-0006'")
    ] = None,
) -> dict[str, Any]:
    """Close the active sprint, e.g. close_sprint('SPR-0005', carry_over_to='SPR-0006').

    If issues are unfinished, name a planned sprint to carry them over to (or move them out first); returns the
    velocity."""
    sprint = SprintId.get(ctx, sprint_id)
    if sprint["status"] != "active":
        raise ToolError(f"{sprint_id} is {sprint['status']}; only the active sprint can be closed.")
    unfinished = ctx.column(
        "SELECT issue_id FROM issues WHERE sprint_id = ? AND status != 'done' ORDER BY issue_id", (sprint_id,)
    )
    if carry_over_to is not None:
        target = SprintId.get(ctx, carry_over_to)
        if target["project_id"] != sprint["project_id"] or target["status"] != "planned":
            raise ToolError(
                f"{carry_over_to} must be a planned sprint of project {sprint['project_id']}; "
                f"see list_sprints('{sprint['project_id']}', status='planned')."
            )
    elif unfinished:
        shown = ", ".join(unfinished[:10]) + (" ..." if len(unfinished) > 10 else "")
        raise ToolError(
            f"{sprint_id} still has {len(unfinished)} unfinished issues ({shown}); pass carry_over_to=<a planned "
            f"sprint id> "
            f"or move them to the backlog with move_issue_to_sprint(issue, null) first."
        )
    for issue_id in unfinished:
        ctx.db.execute("UPDATE issues SET sprint_id = ? WHERE issue_id = ?", (carry_over_to, issue_id))
        log_change(ctx, issue_id, None, "sprint", sprint_id, carry_over_to)
    ctx.db.execute(
        "UPDATE sprints SET status = 'closed', closed_at = ? WHERE sprint_id = ?", (fake.iso(ctx.now), sprint_id)
    )
    result = get_sprint(ctx, sprint_id)
    result["carried_over"] = unfinished
    result["velocity"] = result["completed_points"]
    return result


@tracker.write()
def add_project_member(
    ctx: Ctx,
    project_id: ProjectId,
    user_id: Annotated[str, UserId.ref("The user to add, e.g. 'USR-0007'")],
    role: Literal["developer", "qa", "designer", "viewer"] = "developer",
) -> dict[str, Any]:
    """Add a user to a project's team, e.g. add_project_member('WEB', 'USR-0007', 'developer'). Viewers cannot be
    assigned issues."""
    ProjectId.get(ctx, project_id)
    UserId.get(ctx, user_id)
    found = ctx.db.execute(
        "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?", (project_id, user_id)
    ).fetchone()
    if found:
        raise ToolError(f"{user_id} is already a member of {project_id} (role {found[0]}).")
    ctx.db.execute("INSERT INTO project_members VALUES (?,?,?,?)", (project_id, user_id, role, fake.iso(ctx.now)))
    return {"project_id": project_id, "user_id": user_id, "role": role}


server = tracker
