"""The issue tracker server, its entity types and the helpers its tools share."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, IsoDate, Server, ToolError, fake, fetch, next_id
from servers.issue_tracker.schema import SCHEMA, WORKFLOW
from servers.issue_tracker.seed import seed

tracker = Server(
    "issue_tracker",
    "Project issue tracking: projects, issues, sprints, assignees, labels, comments and a workflow.",
    SCHEMA,
    seed,
    family="work",
)


class ProjectId(
    EntityId,
    server=tracker,
    example="WEB",
    description="Project key, e.g. 'WEB'",
    hint="Use list_projects to find project keys such as 'WEB'.",
): ...


class IssueId(
    EntityId,
    server=tracker,
    example="WEB-0042",
    description="Issue key, e.g. 'WEB-0042'",
    hint="Use search_issues to find issue keys such as 'WEB-0042'.",
): ...


class SprintId(EntityId, server=tracker, example="SPR-0005", finder="list_sprints"): ...


class UserId(
    EntityId, server=tracker, example="USR-0043", finder="search_users", description="The user acting, e.g. 'USR-0043'"
): ...


Status = Literal["open", "in_progress", "in_review", "done"]
Priority = Literal["low", "medium", "high", "critical"]
IssueType = Literal["bug", "feature", "task"]
DateStr = Annotated[IsoDate, Field(description="A date, YYYY-MM-DD, e.g. '2026-06-15'")]


def must_be_member(ctx: Ctx, project_id: str, user_id: str, doing: str, assignable: bool = False) -> None:
    UserId.get(ctx, user_id)
    found = fetch(
        ctx.db,
        "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?",
        (project_id, user_id),
        f"{user_id} is not a member of project {project_id} and cannot {doing}; pick a member "
        f"(search_users(project_id='{project_id}')) or add them with add_project_member.",
    )
    if assignable and found["role"] == "viewer":
        raise ToolError(
            f"{user_id} is a viewer on project {project_id} and cannot {doing}; pick a developer, qa or designer "
            f"from get_project('{project_id}')."
        )


def parse_date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a real calendar date; use YYYY-MM-DD, e.g. '2026-06-15'.") from None


def log_change(ctx: Ctx, issue_id: str, user_id: str | None, field: str, old: Any, new: Any) -> None:
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


def committed_points(ctx: Ctx, sprint_id: str) -> int:
    return ctx.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ?", (sprint_id,))


def issue_view(ctx: Ctx, issue_id: str) -> dict[str, Any]:
    issue = IssueId.get(ctx, issue_id)
    issue["labels"] = ctx.column("SELECT label FROM issue_labels WHERE issue_id = ? ORDER BY label", (issue_id,))
    issue["allowed_transitions"] = list(WORKFLOW[issue["status"]])
    return issue
