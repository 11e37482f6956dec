"""The issue tracker SQLite schema and the workflow constants seed and tools share."""

from __future__ import annotations

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
