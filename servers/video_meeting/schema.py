"""Video meeting tables: users host meetings; participants and recordings belong to a meeting."""

SCHEMA = """
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    department TEXT NOT NULL,
    plan TEXT NOT NULL CHECK (plan IN ('basic', 'pro', 'business'))
);
CREATE TABLE meetings (
    meeting_id TEXT PRIMARY KEY,
    host_id TEXT NOT NULL REFERENCES users(user_id),
    title TEXT NOT NULL,
    agenda TEXT NOT NULL,
    scheduled_start TEXT NOT NULL,
    duration_minutes INTEGER NOT NULL,
    capacity INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('scheduled', 'live', 'ended', 'cancelled')),
    started_at TEXT,
    ended_at TEXT,
    join_code TEXT NOT NULL,
    cancel_reason TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX meetings_host ON meetings(host_id, scheduled_start);
CREATE TABLE participants (
    meeting_id TEXT NOT NULL REFERENCES meetings(meeting_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    role TEXT NOT NULL CHECK (role IN ('host', 'cohost', 'attendee')),
    invited INTEGER NOT NULL,
    joined_at TEXT,
    left_at TEXT,
    PRIMARY KEY (meeting_id, user_id)
);
CREATE INDEX participants_user ON participants(user_id);
CREATE TABLE recordings (
    recording_id TEXT PRIMARY KEY,
    meeting_id TEXT NOT NULL REFERENCES meetings(meeting_id),
    started_by TEXT NOT NULL REFERENCES users(user_id),
    started_at TEXT NOT NULL,
    ended_at TEXT,
    duration_seconds INTEGER,
    size_mb REAL,
    status TEXT NOT NULL CHECK (status IN ('recording', 'ready'))
);
CREATE INDEX recordings_meeting ON recordings(meeting_id);
"""

PLAN_CAPACITY = {"basic": 100, "pro": 300, "business": 1000}
