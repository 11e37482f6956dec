"""The email SQLite schema and the domain constants seed and tools share."""

from __future__ import annotations

SCHEMA = """
CREATE TABLE mailboxes (
    mailbox_id TEXT PRIMARY KEY,
    owner_name TEXT NOT NULL,
    address TEXT NOT NULL UNIQUE,
    department TEXT NOT NULL,
    signature TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE contacts (
    contact_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    company TEXT NOT NULL,
    phone TEXT NOT NULL,
    is_favorite INTEGER NOT NULL DEFAULT 0,
    UNIQUE (mailbox_id, email)
);
CREATE TABLE threads (
    thread_id TEXT PRIMARY KEY,
    subject TEXT NOT NULL,
    started_at TEXT NOT NULL
);
CREATE TABLE messages (
    message_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    thread_id TEXT NOT NULL REFERENCES threads(thread_id),
    folder TEXT NOT NULL CHECK (folder IN ('inbox', 'archive', 'trash', 'sent')),
    from_name TEXT NOT NULL,
    from_address TEXT NOT NULL,
    to_addresses TEXT NOT NULL,
    cc_addresses TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    is_read INTEGER NOT NULL,
    is_starred INTEGER NOT NULL,
    in_reply_to TEXT
);
CREATE INDEX messages_mailbox ON messages(mailbox_id, folder, sent_at);
CREATE INDEX messages_thread ON messages(thread_id);
CREATE TABLE drafts (
    draft_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    thread_id TEXT,
    in_reply_to TEXT,
    to_addresses TEXT NOT NULL,
    cc_addresses TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE labels (
    label_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    name TEXT NOT NULL,
    color TEXT NOT NULL,
    UNIQUE (mailbox_id, name)
);
CREATE TABLE message_labels (
    message_id TEXT NOT NULL REFERENCES messages(message_id),
    label_id TEXT NOT NULL REFERENCES labels(label_id),
    PRIMARY KEY (message_id, label_id)
);
"""

RESERVED = {"inbox", "archive", "trash", "sent", "drafts", "spam", "starred", "unread"}  # not label names
