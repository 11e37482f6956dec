"""The issue tracker tools: projects, members, issues, sprints, labels, comments and the workflow."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, IsoDate, Limit, Offset, Query, Server, ToolError, fake, next_id, rows
from servers.issue_tracker.schema import POINTS, SCHEMA, WORKFLOW
from servers.issue_tracker.seed import seed

tracker = Server(
    "issue_tracker",
    "Project issue tracking: projects, issues, sprints, assignees, labels, comments and a workflow.",
    SCHEMA,
    seed,
    family="work",
)

PROJECT = tracker.entity(
    "project",
    table="projects",
    key="project_id",
    example="WEB",
    description="Project key, e.g. 'WEB'",
    hint="Use list_projects to find project keys such as 'WEB'.",
)
ISSUE = tracker.entity(
    "issue",
    table="issues",
    key="issue_id",
    example="WEB-0042",
    description="Issue key, e.g. 'WEB-0042'",
    hint="Use search_issues to find issue keys such as 'WEB-0042'.",
)
SPRINT = tracker.entity("sprint", table="sprints", key="sprint_id", example="SPR-0005", finder="list_sprints")
USER = tracker.entity("user", table="users", key="user_id", example="USR-0043", finder="search_users")

ProjectId = Annotated[str, PROJECT]
IssueId = Annotated[str, ISSUE]
SprintId = Annotated[str, SPRINT]
UserId = Annotated[str, USER.ref("The user acting, e.g. 'USR-0043'")]
Status = Literal["open", "in_progress", "in_review", "done"]
Priority = Literal["low", "medium", "high", "critical"]
IssueType = Literal["bug", "feature", "task"]
DateStr = Annotated[IsoDate, Field(description="A date, YYYY-MM-DD, e.g. '2026-06-15'")]


def _member(ctx: Ctx, project_id: str, user_id: str, doing: str, assignable: bool = False) -> None:
    USER.get(ctx, user_id)
    found = ctx.db.execute(
        "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?", (project_id, user_id)
    ).fetchone()
    if found is None:
        raise ToolError(
            f"{user_id} is not a member of project {project_id} and cannot {doing}; pick a member "
            f"(search_users(project_id='{project_id}')) or add them with add_project_member."
        )
    if assignable and found[0] == "viewer":
        raise ToolError(
            f"{user_id} is a viewer on project {project_id} and cannot {doing}; pick a developer, qa or designer "
            f"from get_project('{project_id}')."
        )


def _date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a real calendar date; use YYYY-MM-DD, e.g. '2026-06-15'.") from None


def _log(ctx: Ctx, issue_id: str, user_id: str | None, field: str, old: Any, new: Any) -> None:
    event_id = next_id(ctx.db, "issue_events", "event_id", "EVT", 6)
    ctx.db.execute(
        "INSERT INTO issue_events VALUES (?,?,?,?,?,?,?)",
        (
            event_id,
            issue_id,
            user_id,
            field,
            None if old is None else str(old),
            None if new is None else str(new),
            fake.iso(ctx.now),
        ),
    )
    ctx.db.execute("UPDATE issues SET updated_at = ? WHERE issue_id = ?", (fake.iso(ctx.now), issue_id))


def _committed(ctx: Ctx, sprint_id: str) -> int:
    return ctx.db.execute(
        "SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ?", (sprint_id,)
    ).fetchone()[0]


def _issue_view(ctx: Ctx, issue_id: str) -> dict[str, Any]:
    issue = ISSUE.get(ctx, issue_id)
    issue["labels"] = [
        r[0] for r in ctx.db.execute("SELECT label FROM issue_labels WHERE issue_id = ? ORDER BY label", (issue_id,))
    ]
    issue["allowed_transitions"] = list(WORKFLOW[issue["status"]])
    return issue


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
    project = PROJECT.get(ctx, project_id)
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
    project_id: Annotated[str | None, PROJECT.ref("Only members of this project, e.g. 'WEB'")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search users by name, email or title, optionally only a project's members. Returns user ids such as
    'USR-0007'."""
    if project_id is not None:
        PROJECT.get(ctx, project_id)
    q = Query("SELECT user_id, name, email, title FROM users").contains(query, "name", "email", "title")
    q.filter("user_id IN (SELECT user_id FROM project_members WHERE project_id = ?)", project_id)
    return q.page(ctx.db, "users", order_by="user_id", limit=limit, offset=offset)


@tracker.read(returns=("issue", "user", "sprint"))
def search_issues(
    ctx: Ctx,
    project_id: Annotated[str | None, PROJECT.ref("Only this project, e.g. 'WEB'")] = None,
    status: Status | None = None,
    type: IssueType | None = None,
    priority: Priority | None = None,
    assignee_id: Annotated[str | None, USER.ref("Only issues assigned to this user, e.g. 'USR-0043'")] = None,
    unassigned: Annotated[bool, Field(description="Only issues with no assignee")] = False,
    sprint_id: Annotated[str | None, SPRINT.ref("Only issues in this sprint, e.g. 'SPR-0005'")] = None,
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
    issue = _issue_view(ctx, issue_id)
    issue["comments"] = rows(
        ctx.db.execute(
            "SELECT comment_id, author_id, body, created_at FROM comments WHERE issue_id = ? "
            "ORDER BY created_at, comment_id LIMIT 50",
            (issue_id,),
        )
    )
    issue["history"] = rows(
        ctx.db.execute(
            "SELECT user_id, field, old_value, new_value, created_at FROM issue_events WHERE issue_id = ? "
            "ORDER BY created_at DESC, event_id DESC LIMIT 30",
            (issue_id,),
        )
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
    PROJECT.get(ctx, project_id)
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
    sprint = SPRINT.get(ctx, sprint_id)
    sprint["issues"] = rows(
        ctx.db.execute(
            "SELECT issue_id, title, status, assignee_id, story_points FROM issues WHERE sprint_id = ? "
            "ORDER BY issue_id",
            (sprint_id,),
        )
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
    assignee_id: Annotated[str | None, USER.ref("Assign right away to this project member, e.g. 'USR-0043'")] = None,
) -> dict[str, Any]:
    """File a new issue in a project's backlog, e.g.
    create_issue('WEB', 'USR-0043', 'bug', 'Checkout page crashes on empty cart').

    It starts open, unestimated and in no sprint. Returns the new issue key."""
    project = PROJECT.get(ctx, project_id)
    USER.get(ctx, reporter_id)
    if not title.strip():
        raise ToolError("The title cannot be blank; summarize the issue in one line.")
    if assignee_id is not None:
        _member(ctx, project_id, assignee_id, "be assigned issues", assignable=True)
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
    _log(ctx, issue_id, reporter_id, "created", None, "open")
    return _issue_view(ctx, issue_id)


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
    issue = ISSUE.get(ctx, issue_id)
    _member(ctx, issue["project_id"], user_id, "edit its issues")
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
        _log(
            ctx,
            issue_id,
            user_id,
            column,
            issue[column] if column != "description" else None,
            value if column != "description" else None,
        )
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def assign_issue(
    ctx: Ctx,
    issue_id: IssueId,
    assignee_id: Annotated[str | None, USER.ref("The project member to assign, e.g. 'USR-0043'; null to unassign")],
) -> dict[str, Any]:
    """Assign an issue to a project member, or unassign it with null, e.g. assign_issue('WEB-0011', 'USR-0043').

    Issues in progress or in review must keep an assignee."""
    issue = ISSUE.get(ctx, issue_id)
    if assignee_id is None:
        if issue["assignee_id"] is None:
            raise ToolError(f"{issue_id} is already unassigned.")
        if issue["status"] in ("in_progress", "in_review"):
            raise ToolError(
                f"{issue_id} is {issue['status']} and must keep an assignee; reassign it to someone else "
                f"or move it back to open with transition_issue first."
            )
    else:
        _member(ctx, issue["project_id"], assignee_id, "be assigned issues", assignable=True)
        if issue["assignee_id"] == assignee_id:
            raise ToolError(f"{issue_id} is already assigned to {assignee_id}.")
    ctx.db.execute("UPDATE issues SET assignee_id = ? WHERE issue_id = ?", (assignee_id, issue_id))
    _log(ctx, issue_id, None, "assignee", issue["assignee_id"], assignee_id)
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def transition_issue(ctx: Ctx, issue_id: IssueId, user_id: UserId, to_status: Status) -> dict[str, Any]:
    """Move an issue along the workflow as user_id, e.g. transition_issue('WEB-0042', 'USR-0043', 'in_progress').

    Allowed: open->in_progress, in_progress->in_review|open, in_review->done|in_progress, done->open (reopen).
    Starting work needs an assignee. Reopening an issue of a closed sprint returns it to the backlog."""
    issue = ISSUE.get(ctx, issue_id)
    _member(ctx, issue["project_id"], user_id, "change its issues")
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
    _log(ctx, issue_id, user_id, "status", current, to_status)
    if to_status == "open" and current == "done" and issue["sprint_id"] is not None:
        if SPRINT.get(ctx, issue["sprint_id"])["status"] == "closed":
            ctx.db.execute("UPDATE issues SET sprint_id = NULL WHERE issue_id = ?", (issue_id,))
            _log(ctx, issue_id, user_id, "sprint", issue["sprint_id"], None)
    return _issue_view(ctx, issue_id)


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
    ISSUE.get(ctx, issue_id)
    USER.get(ctx, author_id)
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
    issue = ISSUE.get(ctx, issue_id)
    allowed = [
        r[0]
        for r in ctx.db.execute("SELECT name FROM labels WHERE project_id = ? ORDER BY name", (issue["project_id"],))
    ]
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
    _log(ctx, issue_id, None, "label", label if remove else None, None if remove else label)
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def set_story_points(
    ctx: Ctx,
    issue_id: IssueId,
    points: Annotated[
        int, Field(ge=0, le=1000, description="Estimate on the Fibonacci scale: 1, 2, 3, 5, 8, 13 or 21")
    ],
) -> dict[str, Any]:
    """Estimate an issue in story points, e.g. set_story_points('WEB-0002', 5). Done issues keep their estimate."""
    issue = ISSUE.get(ctx, issue_id)
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
        sprint = SPRINT.get(ctx, issue["sprint_id"])
        total = _committed(ctx, sprint["sprint_id"]) - (issue["story_points"] or 0) + points
        if total > sprint["capacity"]:
            raise ToolError(
                f"{sprint['sprint_id']} would hold {total} points, over its capacity of {sprint['capacity']}; "
                f"move {issue_id} or another issue out of the sprint first."
            )
    ctx.db.execute("UPDATE issues SET story_points = ? WHERE issue_id = ?", (points, issue_id))
    _log(ctx, issue_id, None, "story_points", issue["story_points"], points)
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("issue",), requires=("set_story_points",))
def move_issue_to_sprint(
    ctx: Ctx,
    issue_id: IssueId,
    sprint_id: Annotated[
        str | None,
        SPRINT.ref("A planned or active sprint of the issue's project, e.g. 'SPR-0005'; null for the backlog"),
    ],
) -> dict[str, Any]:
    """Plan an issue into a sprint, or back to the backlog with null, e.g. move_issue_to_sprint('WEB-0011', 'SPR-0006').

    The issue needs story points; the sprint must be planned or active and have capacity left."""
    issue = ISSUE.get(ctx, issue_id)
    if issue["status"] == "done":
        raise ToolError(f"{issue_id} is done and stays where it was completed; reopen it first to move it.")
    if sprint_id is None:
        if issue["sprint_id"] is None:
            raise ToolError(f"{issue_id} is already in the backlog.")
        ctx.db.execute("UPDATE issues SET sprint_id = NULL WHERE issue_id = ?", (issue_id,))
        _log(ctx, issue_id, None, "sprint", issue["sprint_id"], None)
        return _issue_view(ctx, issue_id)
    sprint = SPRINT.get(ctx, sprint_id)
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
    total = _committed(ctx, sprint_id) + issue["story_points"]
    if total > sprint["capacity"]:
        raise ToolError(
            f"{sprint_id} has {_committed(ctx, sprint_id)} of {sprint['capacity']} points committed; {issue_id} "
            f"({issue['story_points']} points) does not fit. Move something out or pick another sprint."
        )
    ctx.db.execute("UPDATE issues SET sprint_id = ? WHERE issue_id = ?", (sprint_id, issue_id))
    _log(ctx, issue_id, None, "sprint", issue["sprint_id"], sprint_id)
    return _issue_view(ctx, issue_id)


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
    PROJECT.get(ctx, project_id)
    start, end = _date(start_date, "start_date"), _date(end_date, "end_date")
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
    sprint = SPRINT.get(ctx, sprint_id)
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
        str | None, SPRINT.ref("A planned sprint of the same project to receive unfinished issues, e.g. 'SPR-0006'")
    ] = None,
) -> dict[str, Any]:
    """Close the active sprint, e.g. close_sprint('SPR-0005', carry_over_to='SPR-0006').

    If issues are unfinished, name a planned sprint to carry them over to (or move them out first); returns the
    velocity."""
    sprint = SPRINT.get(ctx, sprint_id)
    if sprint["status"] != "active":
        raise ToolError(f"{sprint_id} is {sprint['status']}; only the active sprint can be closed.")
    unfinished = [
        r[0]
        for r in ctx.db.execute(
            "SELECT issue_id FROM issues WHERE sprint_id = ? AND status != 'done' ORDER BY issue_id", (sprint_id,)
        )
    ]
    if carry_over_to is not None:
        target = SPRINT.get(ctx, carry_over_to)
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
        _log(ctx, issue_id, None, "sprint", sprint_id, carry_over_to)
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
    user_id: Annotated[str, USER.ref("The user to add, e.g. 'USR-0007'")],
    role: Literal["developer", "qa", "designer", "viewer"] = "developer",
) -> dict[str, Any]:
    """Add a user to a project's team, e.g. add_project_member('WEB', 'USR-0007', 'developer'). Viewers cannot be
    assigned issues."""
    PROJECT.get(ctx, project_id)
    USER.get(ctx, user_id)
    found = ctx.db.execute(
        "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?", (project_id, user_id)
    ).fetchone()
    if found:
        raise ToolError(f"{user_id} is already a member of {project_id} (role {found[0]}).")
    ctx.db.execute("INSERT INTO project_members VALUES (?,?,?,?)", (project_id, user_id, role, fake.iso(ctx.now)))
    return {"project_id": project_id, "user_id": user_id, "role": role}


server = tracker
