"""Social media tables: users, follows and blocks between them, posts with hashtags, likes and comments."""

from __future__ import annotations

import re

SCHEMA = """
CREATE TABLE users (
    user_id TEXT PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    bio TEXT NOT NULL,
    city TEXT NOT NULL,
    verified INTEGER NOT NULL DEFAULT 0,
    joined_at TEXT NOT NULL
);
CREATE TABLE follows (
    follower_id TEXT NOT NULL REFERENCES users(user_id),
    followee_id TEXT NOT NULL REFERENCES users(user_id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (follower_id, followee_id)
);
CREATE INDEX follows_followee ON follows(followee_id);
CREATE TABLE blocks (
    blocker_id TEXT NOT NULL REFERENCES users(user_id),
    blocked_id TEXT NOT NULL REFERENCES users(user_id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (blocker_id, blocked_id)
);
CREATE TABLE posts (
    post_id TEXT PRIMARY KEY,
    author_id TEXT NOT NULL REFERENCES users(user_id),
    content TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX posts_author ON posts(author_id, created_at);
CREATE TABLE post_hashtags (
    post_id TEXT NOT NULL REFERENCES posts(post_id),
    tag TEXT NOT NULL,
    PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_hashtags_tag ON post_hashtags(tag);
CREATE TABLE likes (
    user_id TEXT NOT NULL REFERENCES users(user_id),
    post_id TEXT NOT NULL REFERENCES posts(post_id),
    created_at TEXT NOT NULL,
    PRIMARY KEY (user_id, post_id)
);
CREATE INDEX likes_post ON likes(post_id);
CREATE TABLE comments (
    comment_id TEXT PRIMARY KEY,
    post_id TEXT NOT NULL REFERENCES posts(post_id),
    author_id TEXT NOT NULL REFERENCES users(user_id),
    content TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX comments_post ON comments(post_id, created_at);
"""

POST_LIMIT = 280
VERIFIED_POST_LIMIT = 1000
COMMENT_LIMIT = 500
MAX_HASHTAGS = 10
HASHTAG = re.compile(r"#(\w{1,50})")


def hashtags(content: str) -> list[str]:
    """The distinct hashtags of a text, lower-cased, in order of appearance."""
    seen: list[str] = []
    for tag in HASHTAG.findall(content):
        if tag.lower() not in seen:
            seen.append(tag.lower())
    return seen
