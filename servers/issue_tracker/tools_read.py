"""Reading the tracker: projects, users, issues and sprints."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, Query, rows
from servers.issue_tracker.core import (
    IssueId,
    IssueType,
    Priority,
    ProjectId,
    SprintId,
    Status,
    UserId,
    issue_view,
    tracker,
)


@tracker.read(returns=("project",))
def list_projects(
    ctx: Ctx,
    query: Annotated[
        str, Field(max_length=100, description="Part of a project key, name or description, e.g. 'mobile'")
    ] = "",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List projects with their lead and open issue counts, e.g. list_projects(query='web'). Project keys look like
    'WEB'."""
    q = Query(
        "SELECT p.project_id, p.name, p.description, p.lead_id, (SELECT COUNT(*) FROM issues i "
        "WHERE i.project_id = p.project_id AND i.status != 'done') AS unresolved_issues FROM projects p"
    )
    q.contains(query, "p.project_id", "p.name", "p.description")
    return q.page(ctx.db, "projects", order_by="p.project_id", limit=limit, offset=offset)


@tracker.read(returns=("project", "user", "sprint"))
def get_project(ctx: Ctx, project_id: ProjectId) -> dict[str, Any]:
    """Get a project: members and roles, labels, sprints by status and issue counts by status, e.g.
    get_project('WEB')."""
    project = ProjectId.get(ctx, project_id)
    q = ctx.db.execute
    project["members"] = rows(
        q(
            "SELECT m.user_id, u.name, m.role FROM project_members m JOIN users u USING (user_id) "
            "WHERE m.project_id = ? ORDER BY m.user_id",
            (project_id,),
        )
    )
    project["labels"] = [r[0] for r in q("SELECT name FROM labels WHERE project_id = ? ORDER BY name", (project_id,))]
    project["active_sprint_id"] = (
        q("SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'active'", (project_id,)).fetchone()
        or [None]
    )[0]
    project["planned_sprint_ids"] = [
        r[0]
        for r in q(
            "SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'planned' ORDER BY start_date, sprint_id",
            (project_id,),
        )
    ]
    project["issues_by_status"] = {
        s: n for s, n in q("SELECT status, COUNT(*) FROM issues WHERE project_id = ? GROUP BY status", (project_id,))
    }
    return project


@tracker.read(returns=("user",))
def search_users(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name, email or title, e.g. 'Patel'")] = "",
    project_id: Annotated[str | None, ProjectId.ref("Only members of this project, e.g. 'WEB'")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search users by name, email or title, optionally only a project's members. Returns user ids such as
    'USR-0007'."""
    if project_id is not None:
        ProjectId.get(ctx, project_id)
    q = Query("SELECT user_id, name, email, title FROM users").contains(query, "name", "email", "title")
    q.filter("user_id IN (SELECT user_id FROM project_members WHERE project_id = ?)", project_id)
    return q.page(ctx.db, "users", order_by="user_id", limit=limit, offset=offset)


@tracker.read(returns=("issue", "user", "sprint"))
def search_issues(
    ctx: Ctx,
    project_id: Annotated[str | None, ProjectId.ref("Only this project, e.g. 'WEB'")] = None,
    status: Status | None = None,
    type: IssueType | None = None,
    priority: Priority | None = None,
    assignee_id: Annotated[str | None, UserId.ref("Only issues assigned to this user, e.g. 'USR-0043'")] = None,
    unassigned: Annotated[bool, Field(description="Only issues with no assignee")] = False,
    sprint_id: Annotated[str | None, SprintId.ref("Only issues in this sprint, e.g. 'SPR-0005'")] = None,
    backlog: Annotated[bool, Field(description="Only issues not planned into any sprint")] = False,
    label: Annotated[
        str | None, Field(max_length=50, description="Only issues with this label, e.g. 'regression'")
    ] = None,
    query: Annotated[
        str | None, Field(max_length=200, description="Only issues whose title contains this, e.g. 'checkout'")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search issues with filters, most recently updated first, e.g.
    search_issues(project_id='WEB', status='open', type='bug')."""
    q = Query(
        "SELECT issue_id, project_id, type, title, status, priority, assignee_id, sprint_id, story_points, "
        "updated_at FROM issues"
    )
    q.equal("project_id", project_id).equal("status", status).equal("type", type).equal("priority", priority)
    q.equal("assignee_id", assignee_id).equal("sprint_id", sprint_id)
    if unassigned:
        q.where("assignee_id IS NULL")
    if backlog:
        q.where("sprint_id IS NULL")
    q.filter("issue_id IN (SELECT issue_id FROM issue_labels WHERE label = ?)", label)
    q.filter("title LIKE ?", None if query is None else f"%{query}%")
    return q.page(ctx.db, "issues", order_by="updated_at DESC, issue_id", limit=limit, offset=offset)


@tracker.read(returns=("issue", "user", "sprint", "comment"))
def get_issue(ctx: Ctx, issue_id: IssueId) -> dict[str, Any]:
    """Get one issue with labels, the transitions allowed from its status, comments and history, e.g.
    get_issue('WEB-0042')."""
    issue = issue_view(ctx, issue_id)
    issue["comments"] = ctx.rows(
        "SELECT comment_id, author_id, body, created_at FROM comments WHERE issue_id = ? "
        "ORDER BY created_at, comment_id LIMIT 50",
        (issue_id,),
    )
    issue["history"] = ctx.rows(
        "SELECT user_id, field, old_value, new_value, created_at FROM issue_events WHERE issue_id = ? "
        "ORDER BY created_at DESC, event_id DESC LIMIT 30",
        (issue_id,),
    )
    return issue


@tracker.read(returns=("sprint",))
def list_sprints(
    ctx: Ctx,
    project_id: ProjectId,
    status: Literal["planned", "active", "closed"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List a project's sprints, newest first, with committed points, e.g. list_sprints('WEB', status='planned')."""
    ProjectId.get(ctx, project_id)
    q = (
        Query(
            "SELECT s.sprint_id, s.name, s.status, s.start_date, s.end_date, s.capacity, (SELECT "
            "COALESCE(SUM(story_points), 0) FROM issues i WHERE i.sprint_id = s.sprint_id) AS committed_points "
            "FROM sprints s"
        )
        .where("s.project_id = ?", project_id)
        .equal("s.status", status)
    )
    return {
        "project_id": project_id,
        **q.page(ctx.db, "sprints", order_by="s.start_date DESC, s.sprint_id DESC", limit=limit, offset=offset),
    }


@tracker.read(returns=("sprint", "issue"))
def get_sprint(ctx: Ctx, sprint_id: SprintId) -> dict[str, Any]:
    """Get a sprint with its issues, committed and completed points, e.g. get_sprint('SPR-0005')."""
    sprint = SprintId.get(ctx, sprint_id)
    sprint["issues"] = ctx.rows(
        "SELECT issue_id, title, status, assignee_id, story_points FROM issues WHERE sprint_id = ? ORDER BY issue_id",
        (sprint_id,),
    )
    sprint["committed_points"] = sum(i["story_points"] or 0 for i in sprint["issues"])
    sprint["completed_points"] = sum(i["story_points"] or 0 for i in sprint["issues"] if i["status"] == "done")
    return sprint


tracker.distinct_values(
    {
        "status": ("issues", "status"),
        "type": ("issues", "type"),
        "priority": ("issues", "priority"),
        "label": ("issue_labels", "label"),
        "sprint_status": ("sprints", "status"),
        "member_role": ("project_members", "role"),
        "user_title": ("users", "title"),
    },
    example="label",
)
