"""The team chat SQLite schema."""

SCHEMA = """
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    title TEXT NOT NULL,
    department TEXT NOT NULL,
    timezone TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'deactivated')),
    joined_at TEXT NOT NULL
);
CREATE TABLE channels (
    channel_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    topic TEXT NOT NULL,
    is_private INTEGER NOT NULL,
    is_archived INTEGER NOT NULL,
    created_by TEXT NOT NULL REFERENCES users(user_id),
    created_at TEXT NOT NULL
);
CREATE TABLE channel_members (
    channel_id TEXT NOT NULL REFERENCES channels(channel_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    joined_at TEXT NOT NULL,
    invited_by TEXT,
    PRIMARY KEY (channel_id, user_id)
);
CREATE INDEX channel_members_user ON channel_members(user_id);
CREATE TABLE messages (
    message_id TEXT PRIMARY KEY,
    channel_id TEXT NOT NULL REFERENCES channels(channel_id),
    author_id TEXT NOT NULL REFERENCES users(user_id),
    thread_id TEXT REFERENCES messages(message_id),
    text TEXT NOT NULL,
    created_at TEXT NOT NULL,
    edited_at TEXT
);
CREATE INDEX messages_channel ON messages(channel_id, created_at);
CREATE INDEX messages_thread ON messages(thread_id);
CREATE TABLE reactions (
    message_id TEXT NOT NULL REFERENCES messages(message_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    emoji TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (message_id, user_id, emoji)
);
CREATE TABLE mentions (
    message_id TEXT NOT NULL REFERENCES messages(message_id),
    user_id TEXT NOT NULL REFERENCES users(user_id),
    PRIMARY KEY (message_id, user_id)
);
CREATE INDEX mentions_user ON mentions(user_id);
"""
