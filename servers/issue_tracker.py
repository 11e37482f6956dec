"""Issue tracker: projects, members, issues, sprints, labels, comments and a workflow.

Business rules: issues move open -> in_progress -> in_review -> done, in_progress -> open,
in_review -> in_progress and done -> open (reopen); any other transition is rejected with the
allowed ones listed. Starting work needs an assignee, and assignees must be project members.
An issue needs a story-point estimate (Fibonacci: 1, 2, 3, 5, 8, 13, 21) before it is planned
into a sprint, done issues are not re-estimated or moved, and a sprint's committed points may
not exceed its capacity. Sprints go planned -> active -> closed; closed sprints take no issues,
a project has at most one active sprint, a sprint starts only with issues in it, and a sprint
closes only when none of its issues is unfinished or `carry_over_to` names a planned sprint of
the same project to receive them. A reopened issue from a closed sprint goes back to the backlog.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

SCHEMA = """
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL
);
CREATE TABLE projects (
    project_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    lead_id TEXT NOT NULL REFERENCES users(user_id),
    created_at TEXT NOT NULL
);
CREATE TABLE project_members (
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    role TEXT NOT NULL CHECK (role IN ('lead', 'developer', 'qa', 'designer', 'viewer')),
    joined_at TEXT NOT NULL,
    PRIMARY KEY (project_id, user_id)
);
CREATE TABLE labels (
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    name TEXT NOT NULL,
    PRIMARY KEY (project_id, name)
);
CREATE TABLE sprints (
    sprint_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    name TEXT NOT NULL,
    goal TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('planned', 'active', 'closed')),
    start_date TEXT NOT NULL,
    end_date TEXT NOT NULL,
    capacity INTEGER NOT NULL,
    started_at TEXT,
    closed_at TEXT
);
CREATE INDEX sprints_project ON sprints(project_id, status);
CREATE TABLE issues (
    issue_id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(project_id),
    type TEXT NOT NULL CHECK (type IN ('bug', 'feature', 'task')),
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'in_review', 'done')),
    priority TEXT NOT NULL CHECK (priority IN ('low', 'medium', 'high', 'critical')),
    reporter_id TEXT NOT NULL REFERENCES users(user_id),
    assignee_id TEXT REFERENCES users(user_id),
    sprint_id TEXT REFERENCES sprints(sprint_id),
    story_points INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    resolved_at TEXT
);
CREATE INDEX issues_project ON issues(project_id, status);
CREATE INDEX issues_sprint ON issues(sprint_id);
CREATE TABLE issue_labels (
    issue_id TEXT NOT NULL REFERENCES issues(issue_id),
    label TEXT NOT NULL,
    PRIMARY KEY (issue_id, label)
);
CREATE TABLE comments (
    comment_id TEXT PRIMARY KEY,
    issue_id TEXT NOT NULL REFERENCES issues(issue_id),
    author_id TEXT NOT NULL REFERENCES users(user_id),
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX comments_issue ON comments(issue_id);
CREATE TABLE issue_events (
    event_id TEXT PRIMARY KEY,
    issue_id TEXT NOT NULL REFERENCES issues(issue_id),
    user_id TEXT,
    field TEXT NOT NULL,
    old_value TEXT,
    new_value TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX issue_events_issue ON issue_events(issue_id);
"""

STATUSES = ("open", "in_progress", "in_review", "done")
WORKFLOW = {"open": ("in_progress",), "in_progress": ("in_review", "open"), "in_review": ("done", "in_progress"), "done": ("open",)}
POINTS = (1, 2, 3, 5, 8, 13, 21)
PRIORITIES = ("low", "medium", "high", "critical")
TITLES = ("Software Engineer", "Senior Software Engineer", "Staff Engineer", "QA Engineer", "Product Designer",
          "Engineering Manager", "Product Manager", "SRE", "Data Engineer", "Mobile Engineer")
# (key, name, description, components, labels)
PROJECTS = (
    ("WEB", "Web Storefront", "The customer-facing web shop", ("checkout page", "product grid", "search bar", "cart drawer", "login form", "footer"),
     ("frontend", "accessibility", "performance", "seo", "ux", "regression")),
    ("MOB", "Mobile App", "iOS and Android apps", ("push notifications", "onboarding flow", "offline mode", "profile screen", "deep links", "dark mode"),
     ("ios", "android", "crash", "ux", "release-blocker", "regression")),
    ("API", "Public API", "REST and webhook API for partners", ("rate limiter", "auth tokens", "webhooks", "pagination", "orders endpoint", "OpenAPI spec"),
     ("backend", "security", "performance", "docs", "breaking-change", "tech-debt")),
    ("DATA", "Data Platform", "Pipelines, warehouse and dashboards", ("nightly ETL", "revenue dashboard", "event ingestion", "dbt models", "data catalog", "retention report"),
     ("pipeline", "data-quality", "dashboard", "tech-debt", "performance")),
    ("INFRA", "Infrastructure", "Kubernetes, CI/CD and observability", ("CI pipeline", "staging cluster", "alerting rules", "log retention", "TLS certificates", "autoscaler"),
     ("ci", "security", "monitoring", "cost", "tech-debt", "incident")),
    ("PAY", "Payments", "Checkout payments, refunds and payouts", ("refund flow", "card tokenization", "payout scheduler", "3-D Secure", "invoice PDFs", "currency conversion"),
     ("backend", "security", "compliance", "regression", "incident", "performance")),
)
BUG_TITLES = ("{c} crashes when the input is empty", "{c} shows the wrong total after an update", "{c} times out under load",
              "{c} fails for users with non-ASCII names", "{c} returns 500 on retry", "{c} is misaligned on small screens",
              "Race condition in {c}", "{c} leaks memory over long sessions")
FEATURE_TITLES = ("Add filtering to {c}", "Support bulk actions in {c}", "Redesign {c}", "Add audit logging to {c}",
                  "Localize {c} for German and Japanese", "Add metrics for {c}", "Let admins configure {c}")
TASK_TITLES = ("Upgrade dependencies of {c}", "Write tests for {c}", "Document {c}", "Refactor {c} into smaller modules",
               "Remove the feature flag around {c}", "Investigate flaky tests in {c}")
COMMENT_BODIES = ("I can reproduce this on staging.", "Root cause is in the retry logic, fix incoming.", "PR is up for review.",
                  "Can we get a screenshot?", "Moving this to the next sprint, we ran out of time.", "Verified on production, closing.",
                  "This also affects the mobile app.", "Added a regression test.", "Customer reported this again today.",
                  "Blocked on a decision from product.", "Estimate looks low to me, more like 5 points.", "Design is attached.")
GOALS = ("Ship the {c} improvements", "Stabilize {c}", "Burn down critical bugs", "Prepare the quarterly release", "Pay down tech debt in {c}")


def _d(t: datetime | date) -> str:
    return t.strftime("%Y-%m-%d")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """60 users, 6 projects with members and labels, ~40 sprints, ~600 issues, ~700 comments and their history."""
    users = []
    for i in range(1, 61):
        first, last = fake.person(rng)
        users.append((f"USR-{i:04d}", f"{first} {last}", fake.email_for(first, last, rng, i), rng.choice(TITLES)))
    db.executemany("INSERT INTO users VALUES (?,?,?,?)", users)
    ids = [u[0] for u in users]
    today = now.date()
    projects: list[tuple[Any, ...]] = []
    members: list[tuple[Any, ...]] = []
    labels: list[tuple[Any, ...]] = []
    sprints: list[tuple[Any, ...]] = []
    issues: list[tuple[Any, ...]] = []
    issue_labels: list[tuple[Any, ...]] = []
    comments: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []

    def event(issue_id: str, who: str | None, field: str, old: str | None, new: str | None, t: datetime) -> None:
        events.append((issue_id, who, field, old, new, t))

    for p, (key, name, desc, components, label_names) in enumerate(PROJECTS):
        team = rng.sample(ids, rng.randint(7, 12))
        lead = team[0]
        created = now - timedelta(days=rng.randint(300, 700))
        projects.append((key, name, desc, lead, fake.iso(created)))
        for n, uid in enumerate(team):
            role = "lead" if n == 0 else rng.choices(("developer", "qa", "designer", "viewer"), (65, 15, 12, 8))[0]
            members.append((key, uid, role, fake.iso(created + timedelta(days=rng.randint(0, 200)))))
        workers = [m[1] for m in members if m[0] == key and m[2] != "viewer"]
        labels.extend((key, lab) for lab in label_names)
        # Sprints: closed history, one active (except in one project), one or two planned.
        n_closed = rng.randint(3, 6)
        active_start = today - timedelta(days=rng.randint(2, 9))
        plan: list[tuple[str, date]] = [("closed", active_start - timedelta(days=14 * (n_closed - k))) for k in range(n_closed)]
        if key != "DATA":
            plan.append(("active", active_start))
        plan += [("planned", active_start + timedelta(days=14 * k)) for k in range(1, rng.randint(2, 3) + 1)]
        proj_sprints: list[list[Any]] = []
        for k, (status, start) in enumerate(plan, 1):
            sid = f"SPR-{len(sprints) + 1:04d}"
            capacity = rng.choice((30, 34, 40, 45, 50))
            started = fake.iso(datetime.combine(start, datetime.min.time()) + timedelta(hours=9)) if status != "planned" else None
            closed = fake.iso(datetime.combine(start + timedelta(days=13), datetime.min.time()) + timedelta(hours=17)) if status == "closed" else None
            sprints.append((sid, key, f"{key} Sprint {k}", rng.choice(GOALS).format(c=rng.choice(components)), status, _d(start),
                            _d(start + timedelta(days=13)), capacity, started, closed))
            proj_sprints.append([sid, status, start, capacity, 0])
        count = rng.randint(80, 120)
        for n in range(1, count + 1):
            issue_id = f"{key}-{n:04d}"
            kind = rng.choices(("bug", "feature", "task"), (40, 35, 25))[0]
            comp = rng.choice(components)
            title = rng.choice({"bug": BUG_TITLES, "feature": FEATURE_TITLES, "task": TASK_TITLES}[kind]).format(c=comp)
            title = title[0].upper() + title[1:]
            created_at = fake.moment(rng, now, (now - created).days, 0) - timedelta(minutes=30)
            reporter = rng.choice(team)
            priority = rng.choices(PRIORITIES, (20, 45, 25, 10))[0]
            points: int | None = rng.choice(POINTS[:6])
            sprint: list[Any] | None = rng.choice(proj_sprints) if rng.random() < 0.6 else None
            if sprint is not None and sprint[4] + points > sprint[3] - (0 if sprint[1] == "closed" else 6):
                sprint = None
            if sprint is None and rng.random() < 0.35:
                points = None
            if sprint is None:
                status = rng.choices(STATUSES, (75, 10, 5, 10))[0]
            elif sprint[1] == "closed":
                status = "done"
            elif sprint[1] == "active":
                status = rng.choices(STATUSES, (30, 30, 15, 25))[0]
            else:
                status = "open"
            if sprint is not None:
                sprint[4] += points or 0
                sprint_start = datetime.combine(sprint[2], datetime.min.time()) + timedelta(hours=9)
                created_at = min(created_at, sprint_start - timedelta(days=rng.randint(1, 30)))
            assignee = rng.choice(workers) if status != "open" or rng.random() < 0.5 else None
            if status != "open" and assignee is None:
                assignee = lead
            updated = created_at
            event(issue_id, reporter, "created", None, "open", created_at)
            path = {"open": (), "in_progress": ("in_progress",), "in_review": ("in_progress", "in_review"),
                    "done": ("in_progress", "in_review", "done")}[status]
            prev = "open"
            limit = (datetime.combine(sprint[2], datetime.min.time()) + timedelta(days=13, hours=16)
                     if sprint is not None and sprint[1] == "closed" else now - timedelta(minutes=5))
            for step in path:
                updated = min(limit, updated + timedelta(hours=rng.randint(2, 96)))
                event(issue_id, assignee, "status", prev, step, updated)
                prev = step
            resolved = fake.iso(updated) if status == "done" else None
            issues.append((issue_id, key, kind, title, f"{title}. Reported by the {name} team; see the linked comments for details.",
                           status, priority, reporter, assignee, sprint[0] if sprint else None, points, fake.iso(created_at),
                           fake.iso(updated), resolved))
            for lab in rng.sample(label_names, rng.choice((0, 1, 1, 2))):
                issue_labels.append((issue_id, lab))
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                when = created_at + (updated - created_at) * rng.random() + timedelta(minutes=1)
                comments.append((issue_id, rng.choice(team), rng.choice(COMMENT_BODIES), when))
    db.executemany("INSERT INTO projects VALUES (?,?,?,?,?)", projects)
    db.executemany("INSERT INTO project_members VALUES (?,?,?,?)", members)
    db.executemany("INSERT INTO labels VALUES (?,?)", labels)
    db.executemany("INSERT INTO sprints VALUES (?,?,?,?,?,?,?,?,?,?)", sprints)
    db.executemany("INSERT INTO issues VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", issues)
    db.executemany("INSERT INTO issue_labels VALUES (?,?)", issue_labels)
    comments.sort(key=lambda c: (c[3], c[0]))
    db.executemany("INSERT INTO comments VALUES (?,?,?,?,?)",
                   [(f"CMT-{i:05d}", iss, who, body, fake.iso(t)) for i, (iss, who, body, t) in enumerate(comments, 1)])
    events.sort(key=lambda e: (e[5], e[0]))
    db.executemany("INSERT INTO issue_events VALUES (?,?,?,?,?,?,?)",
                   [(f"EVT-{i:06d}", *e[:5], fake.iso(e[5])) for i, e in enumerate(events, 1)])


tracker = Server("issue_tracker", "Project issue tracking: projects, issues, sprints, assignees, labels, comments and a workflow.",
                 SCHEMA, seed)

ProjectId = Annotated[str, Field(description="Project key, e.g. 'WEB'"), Entity("project")]
IssueId = Annotated[str, Field(description="Issue key, e.g. 'WEB-0042'"), Entity("issue")]
SprintId = Annotated[str, Field(description="Sprint id, e.g. 'SPR-0005'"), Entity("sprint")]
UserId = Annotated[str, Field(description="The user acting, e.g. 'USR-0043'"), Entity("user")]
Status = Literal["open", "in_progress", "in_review", "done"]
Priority = Literal["low", "medium", "high", "critical"]
IssueType = Literal["bug", "feature", "task"]
DateStr = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date, YYYY-MM-DD, e.g. '2026-06-15'")]


def _project(ctx: Ctx, project_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM projects WHERE project_id = ?", (project_id,),
                 f"No project {project_id!r}. Use list_projects to find project keys such as 'WEB'.")


def _issue(ctx: Ctx, issue_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM issues WHERE issue_id = ?", (issue_id,),
                 f"No issue {issue_id!r}. Use search_issues to find issue keys such as 'WEB-0042'.")


def _sprint(ctx: Ctx, sprint_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM sprints WHERE sprint_id = ?", (sprint_id,),
                 f"No sprint {sprint_id!r}. Use list_sprints to find sprint ids.")


def _user(ctx: Ctx, user_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM users WHERE user_id = ?", (user_id,),
                 f"No user {user_id!r}. Use search_users to find user ids.")


def _member(ctx: Ctx, project_id: str, user_id: str, doing: str, assignable: bool = False) -> None:
    _user(ctx, user_id)
    found = ctx.db.execute("SELECT role FROM project_members WHERE project_id = ? AND user_id = ?", (project_id, user_id)).fetchone()
    if found is None:
        raise ToolError(f"{user_id} is not a member of project {project_id} and cannot {doing}; pick a member "
                        f"(search_users(project_id='{project_id}')) or add them with add_project_member.")
    if assignable and found[0] == "viewer":
        raise ToolError(f"{user_id} is a viewer on project {project_id} and cannot {doing}; pick a developer, qa or designer "
                        f"from get_project('{project_id}').")


def _date(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a real calendar date; use YYYY-MM-DD, e.g. '2026-06-15'.") from None


def _log(ctx: Ctx, issue_id: str, user_id: str | None, field: str, old: Any, new: Any) -> None:
    event_id = next_id(ctx.db, "issue_events", "event_id", "EVT", 6)
    ctx.db.execute("INSERT INTO issue_events VALUES (?,?,?,?,?,?,?)",
                   (event_id, issue_id, user_id, field, None if old is None else str(old), None if new is None else str(new), fake.iso(ctx.now)))
    ctx.db.execute("UPDATE issues SET updated_at = ? WHERE issue_id = ?", (fake.iso(ctx.now), issue_id))


def _committed(ctx: Ctx, sprint_id: str) -> int:
    return ctx.db.execute("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ?", (sprint_id,)).fetchone()[0]


def _issue_view(ctx: Ctx, issue_id: str) -> dict[str, Any]:
    issue = _issue(ctx, issue_id)
    issue["labels"] = [r[0] for r in ctx.db.execute("SELECT label FROM issue_labels WHERE issue_id = ? ORDER BY label", (issue_id,))]
    issue["allowed_transitions"] = list(WORKFLOW[issue["status"]])
    return issue


@tracker.read(returns=("project",))
def list_projects(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a project key, name or description, e.g. 'mobile'")] = "",
                  limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List projects with their lead and open issue counts, e.g. list_projects(query='web'). Project keys look like 'WEB'."""
    like = f"%{query}%"
    found = rows(ctx.db.execute(
        "SELECT p.project_id, p.name, p.description, p.lead_id, "
        "(SELECT COUNT(*) FROM issues i WHERE i.project_id = p.project_id AND i.status != 'done') AS unresolved_issues "
        "FROM projects p WHERE p.project_id LIKE ? OR p.name LIKE ? OR p.description LIKE ? ORDER BY p.project_id LIMIT ? OFFSET ?",
        (like, like, like, limit, offset)))
    return {"projects": found, "count": len(found)}


@tracker.read(returns=("project", "user", "sprint"))
def get_project(ctx: Ctx, project_id: ProjectId) -> dict[str, Any]:
    """Get a project: members and roles, labels, sprints by status and issue counts by status, e.g. get_project('WEB')."""
    project = _project(ctx, project_id)
    q = ctx.db.execute
    project["members"] = rows(q("SELECT m.user_id, u.name, m.role FROM project_members m JOIN users u USING (user_id) "
                                "WHERE m.project_id = ? ORDER BY m.user_id", (project_id,)))
    project["labels"] = [r[0] for r in q("SELECT name FROM labels WHERE project_id = ? ORDER BY name", (project_id,))]
    project["active_sprint_id"] = (q("SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'active'", (project_id,)).fetchone() or [None])[0]
    project["planned_sprint_ids"] = [r[0] for r in q("SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'planned' "
                                                     "ORDER BY start_date, sprint_id", (project_id,))]
    project["issues_by_status"] = {s: n for s, n in q("SELECT status, COUNT(*) FROM issues WHERE project_id = ? GROUP BY status", (project_id,))}
    return project


@tracker.read(returns=("user",))
def search_users(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name, email or title, e.g. 'Patel'")] = "",
                 project_id: Annotated[str | None, Field(description="Only members of this project, e.g. 'WEB'"), Entity("project")] = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search users by name, email or title, optionally only a project's members. Returns user ids such as 'USR-0007'."""
    like = f"%{query}%"
    sql, args = "SELECT user_id, name, email, title FROM users WHERE (name LIKE ? OR email LIKE ? OR title LIKE ?)", [like, like, like]
    if project_id is not None:
        _project(ctx, project_id)
        sql += " AND user_id IN (SELECT user_id FROM project_members WHERE project_id = ?)"
        args.append(project_id)
    found = rows(ctx.db.execute(sql + " ORDER BY user_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"users": found, "count": len(found)}


@tracker.read(returns=("issue", "user", "sprint"))
def search_issues(ctx: Ctx, project_id: Annotated[str | None, Field(description="Only this project, e.g. 'WEB'"), Entity("project")] = None,
                  status: Status | None = None, type: IssueType | None = None, priority: Priority | None = None,
                  assignee_id: Annotated[str | None, Field(description="Only issues assigned to this user, e.g. 'USR-0043'"), Entity("user")] = None,
                  unassigned: Annotated[bool, Field(description="Only issues with no assignee")] = False,
                  sprint_id: Annotated[str | None, Field(description="Only issues in this sprint, e.g. 'SPR-0005'"), Entity("sprint")] = None,
                  backlog: Annotated[bool, Field(description="Only issues not planned into any sprint")] = False,
                  label: Annotated[str | None, Field(max_length=50, description="Only issues with this label, e.g. 'regression'")] = None,
                  query: Annotated[str | None, Field(max_length=200, description="Only issues whose title contains this, e.g. 'checkout'")] = None,
                  limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search issues with filters, most recently updated first, e.g. search_issues(project_id='WEB', status='open', type='bug')."""
    sql, args = ("SELECT issue_id, project_id, type, title, status, priority, assignee_id, sprint_id, story_points, updated_at "
                 "FROM issues WHERE 1=1"), []
    for column, value in (("project_id", project_id), ("status", status), ("type", type), ("priority", priority),
                          ("assignee_id", assignee_id), ("sprint_id", sprint_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if unassigned:
        sql += " AND assignee_id IS NULL"
    if backlog:
        sql += " AND sprint_id IS NULL"
    if label is not None:
        sql += " AND issue_id IN (SELECT issue_id FROM issue_labels WHERE label = ?)"
        args.append(label)
    if query is not None:
        sql += " AND title LIKE ?"
        args.append(f"%{query}%")
    found = rows(ctx.db.execute(sql + " ORDER BY updated_at DESC, issue_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"issues": found, "count": len(found)}


@tracker.read(returns=("issue", "user", "sprint", "comment"))
def get_issue(ctx: Ctx, issue_id: IssueId) -> dict[str, Any]:
    """Get one issue with labels, the transitions allowed from its status, comments and history, e.g. get_issue('WEB-0042')."""
    issue = _issue_view(ctx, issue_id)
    issue["comments"] = rows(ctx.db.execute("SELECT comment_id, author_id, body, created_at FROM comments WHERE issue_id = ? "
                                            "ORDER BY created_at, comment_id LIMIT 50", (issue_id,)))
    issue["history"] = rows(ctx.db.execute("SELECT user_id, field, old_value, new_value, created_at FROM issue_events WHERE issue_id = ? "
                                           "ORDER BY created_at DESC, event_id DESC LIMIT 30", (issue_id,)))
    return issue


@tracker.read(returns=("sprint",))
def list_sprints(ctx: Ctx, project_id: ProjectId, status: Literal["planned", "active", "closed"] | None = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List a project's sprints, newest first, with committed points, e.g. list_sprints('WEB', status='planned')."""
    _project(ctx, project_id)
    sql, args = ("SELECT s.sprint_id, s.name, s.status, s.start_date, s.end_date, s.capacity, "
                 "(SELECT COALESCE(SUM(story_points), 0) FROM issues i WHERE i.sprint_id = s.sprint_id) AS committed_points "
                 "FROM sprints s WHERE s.project_id = ?"), [project_id]
    if status is not None:
        sql += " AND s.status = ?"
        args.append(status)
    found = rows(ctx.db.execute(sql + " ORDER BY s.start_date DESC, s.sprint_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"project_id": project_id, "sprints": found, "count": len(found)}


@tracker.read(returns=("sprint", "issue"))
def get_sprint(ctx: Ctx, sprint_id: SprintId) -> dict[str, Any]:
    """Get a sprint with its issues, committed and completed points, e.g. get_sprint('SPR-0005')."""
    sprint = _sprint(ctx, sprint_id)
    sprint["issues"] = rows(ctx.db.execute("SELECT issue_id, title, status, assignee_id, story_points FROM issues WHERE sprint_id = ? "
                                           "ORDER BY issue_id", (sprint_id,)))
    sprint["committed_points"] = sum(i["story_points"] or 0 for i in sprint["issues"])
    sprint["completed_points"] = sum(i["story_points"] or 0 for i in sprint["issues"] if i["status"] == "done")
    return sprint


DISTINCT_FIELDS = {"status": ("issues", "status"), "type": ("issues", "type"), "priority": ("issues", "priority"),
                   "label": ("issue_labels", "label"), "sprint_status": ("sprints", "status"), "member_role": ("project_members", "role"),
                   "user_title": ("users", "title")}


@tracker.read()
def get_distinct_values(ctx: Ctx, field: Literal["status", "type", "priority", "label", "sprint_status", "member_role", "user_title"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('label')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@tracker.write(returns=("issue",))
def create_issue(ctx: Ctx, project_id: ProjectId, reporter_id: UserId, type: IssueType,
                 title: Annotated[str, Field(min_length=1, max_length=200, description="A one-line summary, e.g. 'Checkout page crashes on empty cart'")],
                 description: Annotated[str, Field(max_length=5000, description="Details, steps to reproduce")] = "",
                 priority: Priority = "medium",
                 assignee_id: Annotated[str | None, Field(description="Assign right away to this project member, e.g. 'USR-0043'"), Entity("user")] = None) -> dict[str, Any]:
    """File a new issue in a project's backlog, e.g. create_issue('WEB', 'USR-0043', 'bug', 'Checkout page crashes on empty cart').

    It starts open, unestimated and in no sprint. Returns the new issue key."""
    project = _project(ctx, project_id)
    _user(ctx, reporter_id)
    if not title.strip():
        raise ToolError("The title cannot be blank; summarize the issue in one line.")
    if assignee_id is not None:
        _member(ctx, project_id, assignee_id, "be assigned issues", assignable=True)
    issue_id = next_id(ctx.db, "issues", "issue_id", project["project_id"])
    ts = fake.iso(ctx.now)
    ctx.db.execute("INSERT INTO issues VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (issue_id, project_id, type, title.strip(), description, "open", priority, reporter_id, assignee_id, None, None, ts, ts, None))
    _log(ctx, issue_id, reporter_id, "created", None, "open")
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def update_issue(ctx: Ctx, issue_id: IssueId, user_id: UserId,
                 title: Annotated[str | None, Field(max_length=200, description="New one-line summary")] = None,
                 description: Annotated[str | None, Field(max_length=5000, description="New details")] = None,
                 priority: Priority | None = None, type: IssueType | None = None) -> dict[str, Any]:
    """Change an issue's title, description, priority or type as user_id, e.g. update_issue('WEB-0042', 'USR-0043', priority='critical')."""
    issue = _issue(ctx, issue_id)
    _member(ctx, issue["project_id"], user_id, "edit its issues")
    changes = {k: v for k, v in (("title", title), ("description", description), ("priority", priority), ("type", type)) if v is not None}
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
        _log(ctx, issue_id, user_id, column, issue[column] if column != "description" else None, value if column != "description" else None)
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("issue",))
def assign_issue(ctx: Ctx, issue_id: IssueId,
                 assignee_id: Annotated[str | None, Field(description="The project member to assign, e.g. 'USR-0043'; null to unassign"), Entity("user")]) -> dict[str, Any]:
    """Assign an issue to a project member, or unassign it with null, e.g. assign_issue('WEB-0011', 'USR-0043').

    Issues in progress or in review must keep an assignee."""
    issue = _issue(ctx, issue_id)
    if assignee_id is None:
        if issue["assignee_id"] is None:
            raise ToolError(f"{issue_id} is already unassigned.")
        if issue["status"] in ("in_progress", "in_review"):
            raise ToolError(f"{issue_id} is {issue['status']} and must keep an assignee; reassign it to someone else "
                            f"or move it back to open with transition_issue first.")
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
    issue = _issue(ctx, issue_id)
    _member(ctx, issue["project_id"], user_id, "change its issues")
    current = issue["status"]
    if to_status == current:
        raise ToolError(f"{issue_id} is already {current}; allowed next: {', '.join(WORKFLOW[current])}.")
    if to_status not in WORKFLOW[current]:
        raise ToolError(f"{issue_id} cannot go from {current} to {to_status}; allowed from {current}: {', '.join(WORKFLOW[current])}.")
    if to_status == "in_progress" and issue["assignee_id"] is None:
        raise ToolError(f"{issue_id} has no assignee; assign it to a project member with assign_issue before starting work.")
    ctx.db.execute("UPDATE issues SET status = ?, resolved_at = ? WHERE issue_id = ?",
                   (to_status, fake.iso(ctx.now) if to_status == "done" else None, issue_id))
    _log(ctx, issue_id, user_id, "status", current, to_status)
    if to_status == "open" and current == "done" and issue["sprint_id"] is not None:
        if _sprint(ctx, issue["sprint_id"])["status"] == "closed":
            ctx.db.execute("UPDATE issues SET sprint_id = NULL WHERE issue_id = ?", (issue_id,))
            _log(ctx, issue_id, user_id, "sprint", issue["sprint_id"], None)
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("comment",))
def add_comment(ctx: Ctx, issue_id: IssueId, author_id: UserId,
                body: Annotated[str, Field(min_length=1, max_length=10_000, description="The comment, e.g. 'I can reproduce this on staging.'")]) -> dict[str, Any]:
    """Comment on an issue as author_id, e.g. add_comment('WEB-0042', 'USR-0043', 'I can reproduce this on staging.')."""
    _issue(ctx, issue_id)
    _user(ctx, author_id)
    if not body.strip():
        raise ToolError("A comment cannot be blank; write some text.")
    comment_id = next_id(ctx.db, "comments", "comment_id", "CMT", 5)
    ctx.db.execute("INSERT INTO comments VALUES (?,?,?,?,?)", (comment_id, issue_id, author_id, body.strip(), fake.iso(ctx.now)))
    ctx.db.execute("UPDATE issues SET updated_at = ? WHERE issue_id = ?", (fake.iso(ctx.now), issue_id))
    return {"comment_id": comment_id, "issue_id": issue_id, "author_id": author_id}


@tracker.write(returns=("issue",))
def label_issue(ctx: Ctx, issue_id: IssueId, label: Annotated[str, Field(min_length=1, max_length=50, description="One of the project's labels, e.g. 'regression'")],
                remove: Annotated[bool, Field(description="true to remove the label instead")] = False) -> dict[str, Any]:
    """Add one of the project's labels to an issue (or remove it with remove=true), e.g. label_issue('WEB-0042', 'regression')."""
    issue = _issue(ctx, issue_id)
    allowed = [r[0] for r in ctx.db.execute("SELECT name FROM labels WHERE project_id = ? ORDER BY name", (issue["project_id"],))]
    if label not in allowed:
        raise ToolError(f"{label!r} is not a label of project {issue['project_id']}; use one of: {', '.join(allowed)}.")
    has = ctx.db.execute("SELECT 1 FROM issue_labels WHERE issue_id = ? AND label = ?", (issue_id, label)).fetchone() is not None
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
def set_story_points(ctx: Ctx, issue_id: IssueId, points: Annotated[int, Field(ge=0, le=1000, description="Estimate on the Fibonacci scale: 1, 2, 3, 5, 8, 13 or 21")]) -> dict[str, Any]:
    """Estimate an issue in story points, e.g. set_story_points('WEB-0002', 5). Done issues keep their estimate."""
    issue = _issue(ctx, issue_id)
    if points not in POINTS:
        raise ToolError(f"{points} is not on the estimation scale; use one of {', '.join(map(str, POINTS))} (split anything bigger than 21).")
    if issue["status"] == "done":
        raise ToolError(f"{issue_id} is done; its estimate is frozen. Reopen it first to re-estimate.")
    if issue["story_points"] == points:
        raise ToolError(f"{issue_id} is already estimated at {points} points.")
    if issue["sprint_id"] is not None:
        sprint = _sprint(ctx, issue["sprint_id"])
        total = _committed(ctx, sprint["sprint_id"]) - (issue["story_points"] or 0) + points
        if total > sprint["capacity"]:
            raise ToolError(f"{sprint['sprint_id']} would hold {total} points, over its capacity of {sprint['capacity']}; "
                            f"move {issue_id} or another issue out of the sprint first.")
    ctx.db.execute("UPDATE issues SET story_points = ? WHERE issue_id = ?", (points, issue_id))
    _log(ctx, issue_id, None, "story_points", issue["story_points"], points)
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("issue",), requires=("set_story_points",))
def move_issue_to_sprint(ctx: Ctx, issue_id: IssueId,
                         sprint_id: Annotated[str | None, Field(description="A planned or active sprint of the issue's project, e.g. 'SPR-0005'; null for the backlog"), Entity("sprint")]) -> dict[str, Any]:
    """Plan an issue into a sprint, or back to the backlog with null, e.g. move_issue_to_sprint('WEB-0011', 'SPR-0006').

    The issue needs story points; the sprint must be planned or active and have capacity left."""
    issue = _issue(ctx, issue_id)
    if issue["status"] == "done":
        raise ToolError(f"{issue_id} is done and stays where it was completed; reopen it first to move it.")
    if sprint_id is None:
        if issue["sprint_id"] is None:
            raise ToolError(f"{issue_id} is already in the backlog.")
        ctx.db.execute("UPDATE issues SET sprint_id = NULL WHERE issue_id = ?", (issue_id,))
        _log(ctx, issue_id, None, "sprint", issue["sprint_id"], None)
        return _issue_view(ctx, issue_id)
    sprint = _sprint(ctx, sprint_id)
    if sprint["project_id"] != issue["project_id"]:
        raise ToolError(f"{sprint_id} belongs to project {sprint['project_id']}, but {issue_id} is in {issue['project_id']}; "
                        f"use list_sprints('{issue['project_id']}').")
    if sprint["status"] == "closed":
        raise ToolError(f"{sprint_id} is closed and takes no more issues; choose a planned or active sprint (list_sprints).")
    if issue["sprint_id"] == sprint_id:
        raise ToolError(f"{issue_id} is already in {sprint_id}.")
    if issue["story_points"] is None:
        raise ToolError(f"{issue_id} has no estimate; set its story points with set_story_points before planning it into a sprint.")
    total = _committed(ctx, sprint_id) + issue["story_points"]
    if total > sprint["capacity"]:
        raise ToolError(f"{sprint_id} has {_committed(ctx, sprint_id)} of {sprint['capacity']} points committed; {issue_id} "
                        f"({issue['story_points']} points) does not fit. Move something out or pick another sprint.")
    ctx.db.execute("UPDATE issues SET sprint_id = ? WHERE issue_id = ?", (sprint_id, issue_id))
    _log(ctx, issue_id, None, "sprint", issue["sprint_id"], sprint_id)
    return _issue_view(ctx, issue_id)


@tracker.write(returns=("sprint",))
def create_sprint(ctx: Ctx, project_id: ProjectId, name: Annotated[str, Field(min_length=1, max_length=100, description="Sprint name, e.g. 'WEB Sprint 8'")],
                  start_date: DateStr, end_date: DateStr,
                  capacity: Annotated[int, Field(ge=1, le=500, description="Story points the team can take on, e.g. 40")] = 40,
                  goal: Annotated[str, Field(max_length=300, description="What the sprint should achieve")] = "") -> dict[str, Any]:
    """Plan a new sprint for a project, e.g. create_sprint('WEB', 'WEB Sprint 8', '2026-07-11', '2026-07-24', 40).

    It must start today or later and last 1 to 28 days; names are unique within a project."""
    _project(ctx, project_id)
    start, end = _date(start_date, "start_date"), _date(end_date, "end_date")
    if start < ctx.now.date():
        raise ToolError(f"start_date {start_date} is in the past (today is {_d(ctx.now)}); plan sprints from today on.")
    if not 1 <= (end - start).days + 1 <= 28:
        raise ToolError(f"A sprint lasts 1 to 28 days; {start_date} to {end_date} is {(end - start).days + 1} days.")
    if not name.strip():
        raise ToolError("The sprint name cannot be blank.")
    if ctx.db.execute("SELECT 1 FROM sprints WHERE project_id = ? AND name = ?", (project_id, name.strip())).fetchone():
        raise ToolError(f"Project {project_id} already has a sprint named {name.strip()!r}; choose another name.")
    sprint_id = next_id(ctx.db, "sprints", "sprint_id", "SPR")
    ctx.db.execute("INSERT INTO sprints VALUES (?,?,?,?,?,?,?,?,?,?)",
                   (sprint_id, project_id, name.strip(), goal, "planned", start_date, end_date, capacity, None, None))
    return get_sprint(ctx, sprint_id)


@tracker.write(returns=("sprint",), requires=("move_issue_to_sprint",))
def start_sprint(ctx: Ctx, sprint_id: SprintId) -> dict[str, Any]:
    """Start a planned sprint, e.g. start_sprint('SPR-0028'). A project has one active sprint at a time, and the sprint needs issues."""
    sprint = _sprint(ctx, sprint_id)
    if sprint["status"] != "planned":
        raise ToolError(f"{sprint_id} is {sprint['status']}; only planned sprints can be started.")
    active = ctx.db.execute("SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'active'", (sprint["project_id"],)).fetchone()
    if active:
        raise ToolError(f"Project {sprint['project_id']} already has an active sprint ({active[0]}); close it with close_sprint first.")
    if not ctx.db.execute("SELECT 1 FROM issues WHERE sprint_id = ?", (sprint_id,)).fetchone():
        raise ToolError(f"{sprint_id} has no issues; plan some in with move_issue_to_sprint before starting it.")
    ctx.db.execute("UPDATE sprints SET status = 'active', started_at = ? WHERE sprint_id = ?", (fake.iso(ctx.now), sprint_id))
    return get_sprint(ctx, sprint_id)


@tracker.write(returns=("sprint",))
def close_sprint(ctx: Ctx, sprint_id: SprintId,
                 carry_over_to: Annotated[str | None, Field(description="A planned sprint of the same project to receive unfinished issues, e.g. 'SPR-0006'"), Entity("sprint")] = None) -> dict[str, Any]:
    """Close the active sprint, e.g. close_sprint('SPR-0005', carry_over_to='SPR-0006').

    If issues are unfinished, name a planned sprint to carry them over to (or move them out first); returns the velocity."""
    sprint = _sprint(ctx, sprint_id)
    if sprint["status"] != "active":
        raise ToolError(f"{sprint_id} is {sprint['status']}; only the active sprint can be closed.")
    unfinished = [r[0] for r in ctx.db.execute("SELECT issue_id FROM issues WHERE sprint_id = ? AND status != 'done' ORDER BY issue_id", (sprint_id,))]
    if carry_over_to is not None:
        target = _sprint(ctx, carry_over_to)
        if target["project_id"] != sprint["project_id"] or target["status"] != "planned":
            raise ToolError(f"{carry_over_to} must be a planned sprint of project {sprint['project_id']}; "
                            f"see list_sprints('{sprint['project_id']}', status='planned').")
    elif unfinished:
        shown = ", ".join(unfinished[:10]) + (" ..." if len(unfinished) > 10 else "")
        raise ToolError(f"{sprint_id} still has {len(unfinished)} unfinished issues ({shown}); pass carry_over_to=<a planned sprint id> "
                        f"or move them to the backlog with move_issue_to_sprint(issue, null) first.")
    for issue_id in unfinished:
        ctx.db.execute("UPDATE issues SET sprint_id = ? WHERE issue_id = ?", (carry_over_to, issue_id))
        _log(ctx, issue_id, None, "sprint", sprint_id, carry_over_to)
    ctx.db.execute("UPDATE sprints SET status = 'closed', closed_at = ? WHERE sprint_id = ?", (fake.iso(ctx.now), sprint_id))
    result = get_sprint(ctx, sprint_id)
    result["carried_over"] = unfinished
    result["velocity"] = result["completed_points"]
    return result


@tracker.write()
def add_project_member(ctx: Ctx, project_id: ProjectId, user_id: Annotated[str, Field(description="The user to add, e.g. 'USR-0007'"), Entity("user")],
                       role: Literal["developer", "qa", "designer", "viewer"] = "developer") -> dict[str, Any]:
    """Add a user to a project's team, e.g. add_project_member('WEB', 'USR-0007', 'developer'). Viewers cannot be assigned issues."""
    _project(ctx, project_id)
    _user(ctx, user_id)
    found = ctx.db.execute("SELECT role FROM project_members WHERE project_id = ? AND user_id = ?", (project_id, user_id)).fetchone()
    if found:
        raise ToolError(f"{user_id} is already a member of {project_id} (role {found[0]}).")
    ctx.db.execute("INSERT INTO project_members VALUES (?,?,?,?)", (project_id, user_id, role, fake.iso(ctx.now)))
    return {"project_id": project_id, "user_id": user_id, "role": role}


server = tracker
