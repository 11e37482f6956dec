"""Changing issues: filing, editing, assigning, moving through the workflow, comments, labels, estimates."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, next_id
from servers.issue_tracker.core import (
    IssueId,
    IssueType,
    Priority,
    ProjectId,
    SprintId,
    Status,
    UserId,
    committed_points,
    issue_view,
    log_change,
    must_be_member,
    tracker,
)
from servers.issue_tracker.schema import POINTS, WORKFLOW


@tracker.write(returns=("issue",))
def create_issue(
    ctx: Ctx,
    project_id: ProjectId,
    reporter_id: UserId,
    type: IssueType,
    title: Annotated[
        str,
        Field(
            min_length=1, max_length=200, description="A one-line summary, e.g. 'Checkout page crashes on empty cart'"
        ),
    ],
    description: Annotated[str, Field(max_length=5000, description="Details, steps to reproduce")] = "",
    priority: Priority = "medium",
    assignee_id: Annotated[str | None, UserId.ref("Assign right away to this project member, e.g. 'USR-0043'")] = None,
) -> dict[str, Any]:
    """File a new issue in a project's backlog, e.g.
    create_issue('WEB', 'USR-0043', 'bug', 'Checkout page crashes on empty cart').

    It starts open, unestimated and in no sprint. Returns the new issue key."""
    project = ProjectId.get(ctx, project_id)
    UserId.get(ctx, reporter_id)
    if not title.strip():
        raise ToolError("The title cannot be blank; summarize the issue in one line.")
    if assignee_id is not None:
        must_be_member(ctx, project_id, assignee_id, "be assigned issues", assignable=True)
    issue_id = next_id(ctx.db, "issues", "issue_id", project["project_id"])
    ts = fake.iso(ctx.now)
    ctx.db.execute(
        "INSERT INTO issues VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            issue_id,
            project_id,
            type,
            title.strip(),
            description,
            "open",
            priority,
            reporter_id,
            assignee_id,
            None,
            None,
            ts,
            ts,
            None,
        ),
    )
    log_change(ctx, issue_id, reporter_id, "created", None, "open")
    return issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def update_issue(
    ctx: Ctx,
    issue_id: IssueId,
    user_id: UserId,
    title: Annotated[str | None, Field(max_length=200, description="New one-line summary")] = None,
    description: Annotated[str | None, Field(max_length=5000, description="New details")] = None,
    priority: Priority | None = None,
    type: IssueType | None = None,
) -> dict[str, Any]:
    """Change an issue's title, description, priority or type as user_id, e.g.
    update_issue('WEB-0042', 'USR-0043', priority='critical')."""
    issue = IssueId.get(ctx, issue_id)
    must_be_member(ctx, issue["project_id"], user_id, "edit its issues")
    changes = {
        k: v
        for k, v in (("title", title), ("description", description), ("priority", priority), ("type", type))
        if v is not None
    }
    if not changes:
        raise ToolError("Nothing to change: pass at least one of title, description, priority or type.")
    if "title" in changes:
        changes["title"] = changes["title"].strip()
        if not changes["title"]:
            raise ToolError("The title cannot be blank.")
    changes = {k: v for k, v in changes.items() if v != issue[k]}
    if not changes:
        raise ToolError(f"{issue_id} already has these values; nothing changed.")
    for column, value in changes.items():
        ctx.db.execute(f"UPDATE issues SET {column} = ? WHERE issue_id = ?", (value, issue_id))
        log_change(
            ctx,
            issue_id,
            user_id,
            column,
            issue[column] if column != "description" else None,
            value if column != "description" else None,
        )
    return issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def assign_issue(
    ctx: Ctx,
    issue_id: IssueId,
    assignee_id: Annotated[str | None, UserId.ref("The project member to assign, e.g. 'USR-0043'; null to unassign")],
) -> dict[str, Any]:
    """Assign an issue to a project member, or unassign it with null, e.g. assign_issue('WEB-0011', 'USR-0043').

    Issues in progress or in review must keep an assignee."""
    issue = IssueId.get(ctx, issue_id)
    if assignee_id is None:
        if issue["assignee_id"] is None:
            raise ToolError(f"{issue_id} is already unassigned.")
        if issue["status"] in ("in_progress", "in_review"):
            raise ToolError(
                f"{issue_id} is {issue['status']} and must keep an assignee; reassign it to someone else "
                f"or move it back to open with transition_issue first."
            )
    else:
        must_be_member(ctx, issue["project_id"], assignee_id, "be assigned issues", assignable=True)
        if issue["assignee_id"] == assignee_id:
            raise ToolError(f"{issue_id} is already assigned to {assignee_id}.")
    ctx.db.execute("UPDATE issues SET assignee_id = ? WHERE issue_id = ?", (assignee_id, issue_id))
    log_change(ctx, issue_id, None, "assignee", issue["assignee_id"], assignee_id)
    return issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def transition_issue(ctx: Ctx, issue_id: IssueId, user_id: UserId, to_status: Status) -> dict[str, Any]:
    """Move an issue along the workflow as user_id, e.g. transition_issue('WEB-0042', 'USR-0043', 'in_progress').

    Allowed: open->in_progress, in_progress->in_review|open, in_review->done|in_progress, done->open (reopen).
    Starting work needs an assignee. Reopening an issue of a closed sprint returns it to the backlog."""
    issue = IssueId.get(ctx, issue_id)
    must_be_member(ctx, issue["project_id"], user_id, "change its issues")
    current = issue["status"]
    if to_status == current:
        raise ToolError(f"{issue_id} is already {current}; allowed next: {', '.join(WORKFLOW[current])}.")
    if to_status not in WORKFLOW[current]:
        raise ToolError(
            f"{issue_id} cannot go from {current} to {to_status}; allowed from {current}: "
            f"{', '.join(WORKFLOW[current])}."
        )
    if to_status == "in_progress" and issue["assignee_id"] is None:
        raise ToolError(
            f"{issue_id} has no assignee; assign it to a project member with assign_issue before starting work."
        )
    ctx.db.execute(
        "UPDATE issues SET status = ?, resolved_at = ? WHERE issue_id = ?",
        (to_status, fake.iso(ctx.now) if to_status == "done" else None, issue_id),
    )
    log_change(ctx, issue_id, user_id, "status", current, to_status)
    if to_status == "open" and current == "done" and issue["sprint_id"] is not None:
        if SprintId.get(ctx, issue["sprint_id"])["status"] == "closed":
            ctx.db.execute("UPDATE issues SET sprint_id = NULL WHERE issue_id = ?", (issue_id,))
            log_change(ctx, issue_id, user_id, "sprint", issue["sprint_id"], None)
    return issue_view(ctx, issue_id)


@tracker.write(returns=("comment",))
def add_comment(
    ctx: Ctx,
    issue_id: IssueId,
    author_id: UserId,
    body: Annotated[
        str, Field(min_length=1, max_length=10_000, description="The comment, e.g. 'I can reproduce this on staging.'")
    ],
) -> dict[str, Any]:
    """Comment on an issue as author_id, e.g.
    add_comment('WEB-0042', 'USR-0043', 'I can reproduce this on staging.')."""
    IssueId.get(ctx, issue_id)
    UserId.get(ctx, author_id)
    if not body.strip():
        raise ToolError("A comment cannot be blank; write some text.")
    comment_id = next_id(ctx.db, "comments", "comment_id", "CMT", 5)
    ctx.db.execute(
        "INSERT INTO comments VALUES (?,?,?,?,?)", (comment_id, issue_id, author_id, body.strip(), fake.iso(ctx.now))
    )
    ctx.db.execute("UPDATE issues SET updated_at = ? WHERE issue_id = ?", (fake.iso(ctx.now), issue_id))
    return {"comment_id": comment_id, "issue_id": issue_id, "author_id": author_id}


@tracker.write(returns=("issue",))
def label_issue(
    ctx: Ctx,
    issue_id: IssueId,
    label: Annotated[
        str, Field(min_length=1, max_length=50, description="One of the project's labels, e.g. 'regression'")
    ],
    remove: Annotated[bool, Field(description="true to remove the label instead")] = False,
) -> dict[str, Any]:
    """Add one of the project's labels to an issue (or remove it with remove=true), e.g.
    label_issue('WEB-0042', 'regression')."""
    issue = IssueId.get(ctx, issue_id)
    allowed = ctx.column("SELECT name FROM labels WHERE project_id = ? ORDER BY name", (issue["project_id"],))
    if label not in allowed:
        raise ToolError(f"{label!r} is not a label of project {issue['project_id']}; use one of: {', '.join(allowed)}.")
    has = (
        ctx.db.execute("SELECT 1 FROM issue_labels WHERE issue_id = ? AND label = ?", (issue_id, label)).fetchone()
        is not None
    )
    if remove:
        if not has:
            raise ToolError(f"{issue_id} does not carry the label {label!r}; nothing to remove.")
        ctx.db.execute("DELETE FROM issue_labels WHERE issue_id = ? AND label = ?", (issue_id, label))
    else:
        if has:
            raise ToolError(f"{issue_id} already carries the label {label!r}.")
        ctx.db.execute("INSERT INTO issue_labels VALUES (?,?)", (issue_id, label))
    log_change(ctx, issue_id, None, "label", label if remove else None, None if remove else label)
    return issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def set_story_points(
    ctx: Ctx,
    issue_id: IssueId,
    points: Annotated[
        int, Field(ge=0, le=1000, description="Estimate on the Fibonacci scale: 1, 2, 3, 5, 8, 13 or 21")
    ],
) -> dict[str, Any]:
    """Estimate an issue in story points, e.g. set_story_points('WEB-0002', 5). Done issues keep their estimate."""
    issue = IssueId.get(ctx, issue_id)
    if points not in POINTS:
        raise ToolError(
            f"{points} is not on the estimation scale; use one of {', '.join(map(str, POINTS))} (split anything "
            f"bigger than 21)."
        )
    if issue["status"] == "done":
        raise ToolError(f"{issue_id} is done; its estimate is frozen. Reopen it first to re-estimate.")
    if issue["story_points"] == points:
        raise ToolError(f"{issue_id} is already estimated at {points} points.")
    if issue["sprint_id"] is not None:
        sprint = SprintId.get(ctx, issue["sprint_id"])
        total = committed_points(ctx, sprint["sprint_id"]) - (issue["story_points"] or 0) + points
        if total > sprint["capacity"]:
            raise ToolError(
                f"{sprint['sprint_id']} would hold {total} points, over its capacity of {sprint['capacity']}; "
                f"move {issue_id} or another issue out of the sprint first."
            )
    ctx.db.execute("UPDATE issues SET story_points = ? WHERE issue_id = ?", (points, issue_id))
    log_change(ctx, issue_id, None, "story_points", issue["story_points"], points)
    return issue_view(ctx, issue_id)
