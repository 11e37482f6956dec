"""The issue tracker seed: 60 users, 6 projects with members and labels, ~40 sprints, ~600 issues, comments, history.

Each kind of row comes from its own small function; the order of the draws from ``rng`` is part of the
seed's identity (the state hash), so the functions run in the order the rows depend on each other.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows
from servers.issue_tracker.schema import POINTS, PRIORITIES, STATUSES

TITLES = (
    "Software Engineer",
    "Senior Software Engineer",
    "Staff Engineer",
    "QA Engineer",
    "Product Designer",
    "Engineering Manager",
    "Product Manager",
    "SRE",
    "Data Engineer",
    "Mobile Engineer",
)
# (key, name, description, components, labels)
PROJECTS = (
    (
        "WEB",
        "Web Storefront",
        "The customer-facing web shop",
        ("checkout page", "product grid", "search bar", "cart drawer", "login form", "footer"),
        ("frontend", "accessibility", "performance", "seo", "ux", "regression"),
    ),
    (
        "MOB",
        "Mobile App",
        "iOS and Android apps",
        ("push notifications", "onboarding flow", "offline mode", "profile screen", "deep links", "dark mode"),
        ("ios", "android", "crash", "ux", "release-blocker", "regression"),
    ),
    (
        "API",
        "Public API",
        "REST and webhook API for partners",
        ("rate limiter", "auth tokens", "webhooks", "pagination", "orders endpoint", "OpenAPI spec"),
        ("backend", "security", "performance", "docs", "breaking-change", "tech-debt"),
    ),
    (
        "DATA",
        "Data Platform",
        "Pipelines, warehouse and dashboards",
        ("nightly ETL", "revenue dashboard", "event ingestion", "dbt models", "data catalog", "retention report"),
        ("pipeline", "data-quality", "dashboard", "tech-debt", "performance"),
    ),
    (
        "INFRA",
        "Infrastructure",
        "Kubernetes, CI/CD and observability",
        ("CI pipeline", "staging cluster", "alerting rules", "log retention", "TLS certificates", "autoscaler"),
        ("ci", "security", "monitoring", "cost", "tech-debt", "incident"),
    ),
    (
        "PAY",
        "Payments",
        "Checkout payments, refunds and payouts",
        ("refund flow", "card tokenization", "payout scheduler", "3-D Secure", "invoice PDFs", "currency conversion"),
        ("backend", "security", "compliance", "regression", "incident", "performance"),
    ),
)
BUG_TITLES = (
    "{c} crashes when the input is empty",
    "{c} shows the wrong total after an update",
    "{c} times out under load",
    "{c} fails for users with non-ASCII names",
    "{c} returns 500 on retry",
    "{c} is misaligned on small screens",
    "Race condition in {c}",
    "{c} leaks memory over long sessions",
)
FEATURE_TITLES = (
    "Add filtering to {c}",
    "Support bulk actions in {c}",
    "Redesign {c}",
    "Add audit logging to {c}",
    "Localize {c} for German and Japanese",
    "Add metrics for {c}",
    "Let admins configure {c}",
)
TASK_TITLES = (
    "Upgrade dependencies of {c}",
    "Write tests for {c}",
    "Document {c}",
    "Refactor {c} into smaller modules",
    "Remove the feature flag around {c}",
    "Investigate flaky tests in {c}",
)
COMMENT_BODIES = (
    "I can reproduce this on staging.",
    "Root cause is in the retry logic, fix incoming.",
    "PR is up for review.",
    "Can we get a screenshot?",
    "Moving this to the next sprint, we ran out of time.",
    "Verified on production, closing.",
    "This also affects the mobile app.",
    "Added a regression test.",
    "Customer reported this again today.",
    "Blocked on a decision from product.",
    "Estimate looks low to me, more like 5 points.",
    "Design is attached.",
)
GOALS = (
    "Ship the {c} improvements",
    "Stabilize {c}",
    "Burn down critical bugs",
    "Prepare the quarterly release",
    "Pay down tech debt in {c}",
)


def _d(t: datetime | date) -> str:
    return t.strftime("%Y-%m-%d")


@dataclass
class Rows:
    """The rows of every table; comments and history events get their ids once sorted by time."""

    rng: random.Random
    now: datetime
    projects: list[Row] = field(default_factory=list)
    members: list[Row] = field(default_factory=list)
    labels: list[Row] = field(default_factory=list)
    sprints: list[Row] = field(default_factory=list)
    issues: list[Row] = field(default_factory=list)
    issue_labels: list[Row] = field(default_factory=list)
    comments: list[Row] = field(default_factory=list)
    events: list[Row] = field(default_factory=list)

    def event(self, issue_id: str, who: str | None, field: str, old: str | None, new: str | None, t: datetime) -> None:
        self.events.append((issue_id, who, field, old, new, t))


@dataclass
class Team:
    """One project while its issues are made: who works on it and its sprints' running totals."""

    key: str
    name: str
    components: tuple[str, ...]
    label_names: tuple[str, ...]
    members: list[str]
    workers: list[str]
    created: datetime
    sprints: list[list[Any]] = field(default_factory=list)  # [sprint_id, status, start, capacity, committed]

    @property
    def lead(self) -> str:
        return self.members[0]


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """60 users, 6 projects with members and labels, ~40 sprints, ~600 issues, ~700 comments and their history."""
    people = users(rng)
    insert_rows(db, "users", people)
    out = Rows(rng, now)
    ids = [u[0] for u in people]
    for spec in PROJECTS:
        team = project(out, spec, ids)
        sprints(out, team)
        for n in range(1, rng.randint(80, 120) + 1):
            issue(out, team, n)
    insert_rows(db, "projects", out.projects)
    insert_rows(db, "project_members", out.members)
    insert_rows(db, "labels", out.labels)
    insert_rows(db, "sprints", out.sprints)
    insert_rows(db, "issues", out.issues)
    insert_rows(db, "issue_labels", out.issue_labels)
    out.comments.sort(key=lambda c: (c[3], c[0]))
    insert_rows(
        db,
        "comments",
        [(f"CMT-{i:05d}", iss, who, body, fake.iso(t)) for i, (iss, who, body, t) in enumerate(out.comments, 1)],
    )
    out.events.sort(key=lambda e: (e[5], e[0]))
    insert_rows(db, "issue_events", [(f"EVT-{i:06d}", *e[:5], fake.iso(e[5])) for i, e in enumerate(out.events, 1)])


def users(rng: random.Random) -> list[Row]:
    found = []
    for i in range(1, 61):
        first, last = fake.person(rng)
        found.append((f"USR-{i:04d}", f"{first} {last}", fake.email_for(first, last, rng, i), rng.choice(TITLES)))
    return found


def project(out: Rows, spec: tuple[Any, ...], ids: list[str]) -> Team:
    """A project with its team (the first member leads) and its labels."""
    rng, now = out.rng, out.now
    key, name, desc, components, label_names = spec
    team = rng.sample(ids, rng.randint(7, 12))
    created = now - timedelta(days=rng.randint(300, 700))
    out.projects.append((key, name, desc, team[0], fake.iso(created)))
    for n, uid in enumerate(team):
        role = "lead" if n == 0 else rng.choices(("developer", "qa", "designer", "viewer"), (65, 15, 12, 8))[0]
        out.members.append((key, uid, role, fake.iso(created + timedelta(days=rng.randint(0, 200)))))
    workers = [m[1] for m in out.members if m[0] == key and m[2] != "viewer"]
    out.labels.extend((key, lab) for lab in label_names)
    return Team(key, name, components, label_names, team, workers, created)


def sprints(out: Rows, team: Team) -> None:
    """Closed history, one active sprint (except in DATA), one or two planned."""
    rng, key = out.rng, team.key
    today = out.now.date()
    n_closed = rng.randint(3, 6)
    active_start = today - timedelta(days=rng.randint(2, 9))
    plan: list[tuple[str, date]] = [
        ("closed", active_start - timedelta(days=14 * (n_closed - k))) for k in range(n_closed)
    ]
    if key != "DATA":
        plan.append(("active", active_start))
    plan += [("planned", active_start + timedelta(days=14 * k)) for k in range(1, rng.randint(2, 3) + 1)]
    for k, (status, start) in enumerate(plan, 1):
        sid = f"SPR-{len(out.sprints) + 1:04d}"
        capacity = rng.choice((30, 34, 40, 45, 50))
        begin = datetime.combine(start, datetime.min.time())
        started = fake.iso(begin + timedelta(hours=9)) if status != "planned" else None
        closed = fake.iso(begin + timedelta(days=13, hours=17)) if status == "closed" else None
        out.sprints.append(
            (
                sid,
                key,
                f"{key} Sprint {k}",
                rng.choice(GOALS).format(c=rng.choice(team.components)),
                status,
                _d(start),
                _d(start + timedelta(days=13)),
                capacity,
                started,
                closed,
            )
        )
        team.sprints.append([sid, status, start, capacity, 0])


def issue(out: Rows, team: Team, n: int) -> None:
    """One issue with a status path consistent with its sprint, labels and comments."""
    rng, now, key = out.rng, out.now, team.key
    issue_id = f"{key}-{n:04d}"
    kind = rng.choices(("bug", "feature", "task"), (40, 35, 25))[0]
    comp = rng.choice(team.components)
    title = rng.choice({"bug": BUG_TITLES, "feature": FEATURE_TITLES, "task": TASK_TITLES}[kind]).format(c=comp)
    title = title[0].upper() + title[1:]
    created_at = fake.moment(rng, now, (now - team.created).days, 0) - timedelta(minutes=30)
    reporter = rng.choice(team.members)
    priority = rng.choices(PRIORITIES, (20, 45, 25, 10))[0]
    points: int | None = rng.choice(POINTS[:6])
    sprint: list[Any] | None = rng.choice(team.sprints) if rng.random() < 0.6 else None
    if sprint is not None and sprint[4] + points > sprint[3] - (0 if sprint[1] == "closed" else 6):
        sprint = None
    if sprint is None and rng.random() < 0.35:
        points = None
    status = _status(rng, sprint)
    if sprint is not None:
        sprint[4] += points or 0
        sprint_start = datetime.combine(sprint[2], datetime.min.time()) + timedelta(hours=9)
        created_at = min(created_at, sprint_start - timedelta(days=rng.randint(1, 30)))
    assignee = rng.choice(team.workers) if status != "open" or rng.random() < 0.5 else None
    if status != "open" and assignee is None:
        assignee = team.lead
    updated = created_at
    out.event(issue_id, reporter, "created", None, "open", created_at)
    path = {
        "open": (),
        "in_progress": ("in_progress",),
        "in_review": ("in_progress", "in_review"),
        "done": ("in_progress", "in_review", "done"),
    }[status]
    prev = "open"
    limit = (
        datetime.combine(sprint[2], datetime.min.time()) + timedelta(days=13, hours=16)
        if sprint is not None and sprint[1] == "closed"
        else now - timedelta(minutes=5)
    )
    for step in path:
        updated = min(limit, updated + timedelta(hours=rng.randint(2, 96)))
        out.event(issue_id, assignee, "status", prev, step, updated)
        prev = step
    resolved = fake.iso(updated) if status == "done" else None
    out.issues.append(
        (
            issue_id,
            key,
            kind,
            title,
            f"{title}. Reported by the {team.name} team; see the linked comments for details.",
            status,
            priority,
            reporter,
            assignee,
            sprint[0] if sprint else None,
            points,
            fake.iso(created_at),
            fake.iso(updated),
            resolved,
        )
    )
    for lab in rng.sample(team.label_names, rng.choice((0, 1, 1, 2))):
        out.issue_labels.append((issue_id, lab))
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        when = created_at + (updated - created_at) * rng.random() + timedelta(minutes=1)
        out.comments.append((issue_id, rng.choice(team.members), rng.choice(COMMENT_BODIES), when))


def _status(rng: random.Random, sprint: list[Any] | None) -> str:
    if sprint is None:
        return rng.choices(STATUSES, (75, 10, 5, 10))[0]
    if sprint[1] == "closed":
        return "done"
    if sprint[1] == "active":
        return rng.choices(STATUSES, (30, 30, 15, 25))[0]
    return "open"
