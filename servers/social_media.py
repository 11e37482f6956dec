"""Social media: user profiles, posts, follows, feeds, likes, comments, hashtags and blocking.

Business rules: a user cannot follow themselves or follow someone twice; a post can be liked
once per user; when A blocks B, follows between them are removed both ways and neither can see
or interact with the other's posts (nor follow the other) until A unblocks; posts are at most
280 characters (1,000 for verified users) and carry at most 10 hashtags; comments are at most
500 characters; only a post's author can delete it (its likes and comments go with it).
"""

from __future__ import annotations

import random
import re
import sqlite3
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

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

TOPICS: dict[str, tuple[str, ...]] = {
    "running": ("Morning 10k along {street} in {city} done before work.", "New personal best at the {city} half marathon!",
                "Rainy tempo run today, legs are toast.", "Anyone else training for the fall marathon season?"),
    "coffee": ("The pour-over at this little place in {city} is unreal.", "Third coffee of the day and it is only 10am.",
               "Trying a new single-origin from Ethiopia this week.", "Cold brew season is officially open."),
    "travel": ("Landed in {city} for the week, recommendations welcome!", "Window seat, good book, no wifi. Perfect flight.",
               "Packing light is a skill I still have not mastered.", "Sunset walk through downtown {city} tonight."),
    "photography": ("Golden hour over {street} was something else.", "Shot this whole roll on a 50mm prime.",
                    "Editing three hundred photos from the weekend.", "Fog in {city} this morning made everything cinematic."),
    "python": ("Finally migrated our service to Python 3.12, tests all green.", "Type hints caught a bug before it shipped today.",
               "Hot take: list comprehensions are the best feature in any language.", "Refactored a 400 line function into eight small ones."),
    "startups": ("Big week at {company}: we shipped the new onboarding flow.", "Fundraising is a full-time job on top of your full-time job.",
                 "Talked to twelve customers this week. Every one said something surprising.", "Hiring our first designer at {company}!"),
    "cooking": ("Made fresh pasta from scratch tonight.", "Sunday meal prep: five lunches, zero regrets.",
                "Sourdough attempt number seven finally has an open crumb.", "Best tacos in {city}? Go."),
    "music": ("This album has been on repeat all week.", "Caught a great live set in {city} last night.",
              "Learning the opening riff of an old favorite on guitar.", "Vinyl haul from a record store on {street}."),
    "books": ("Finished a 600 page novel in four days.", "Book club pick this month is a slow burn but worth it.",
              "Library card is the best subscription there is.", "Reading on the train is my favorite part of the commute."),
    "gardening": ("The tomatoes are finally turning red.", "Planted basil, mint and far too much zucchini.",
                  "Composting is going better than expected.", "First sunflower of the season opened today."),
    "hiking": ("Summited before sunrise, worth every step.", "Twelve miles of trail outside {city} this weekend.",
               "New boots, old trail, happy feet.", "Spotted a family of deer on the ridge this morning."),
    "football": ("What a finish last night!", "Watch party in {city} was loud.", "That transfer rumor better be true.",
                 "Fantasy league draft is this weekend, send help."),
    "ai": ("Spent the afternoon evaluating language models on our support tickets.", "Prompting is just writing clear specs.",
           "Our team at {company} shipped an AI search feature today.", "Benchmarks are not the product."),
    "climate": ("Our building in {city} just switched to heat pumps.", "Biked to work every day this month.",
                "Community solar meeting tonight, come through.", "Planted thirty trees with the {company} volunteer crew."),
    "design": ("Spent the day simplifying a settings page to four options.", "Good typography is invisible.",
               "Redesigned our dashboard at {company}, feedback welcome.", "Whitespace is a feature."),
}
EXTRA_TAGS = ("weekend", "mondaymotivation", "tbt", "goodvibes", "learning", "community", "nofilter", "life")
COMMENTS = ("Love this!", "So true.", "Congrats, well deserved!", "Where is this?", "Need to try this.", "Same here, honestly.",
            "This made my day.", "Totally agree.", "Great shot!", "Tell me more!", "Ha, relatable.", "Saving this for later.",
            "Interesting take, not sure I agree.", "Wow.", "Count me in!", "Any tips for a beginner?")
BIOS = ("Runner, reader, coffee enthusiast.", "Software engineer at {company}.", "Designer. Dog person. {city}.",
        "Photographer based in {city}.", "Building things at {company}.", "Home cook and weekend hiker.",
        "Music, books and long walks.", "Product manager. Opinions my own.", "Climate nerd and gardener.",
        "Traveling one city at a time.", "Data scientist at {company}.", "Just here for the football takes.")


def _tags(content: str) -> list[str]:
    seen: list[str] = []
    for tag in HASHTAG.findall(content):
        if tag.lower() not in seen:
            seen.append(tag.lower())
    return seen


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """150 users, ~1,300 follows, 600 posts with hashtags, ~1,600 likes, ~400 comments, a few blocks."""
    users, handles = [], set()
    for i in range(1, 151):
        first, last = fake.person(rng)
        handle = f"{first.lower()}{last.lower()[:rng.randint(1, len(last))]}"
        while handle in handles:
            handle += str(rng.randint(0, 9))
        handles.add(handle)
        city = fake.city(rng)[0]
        bio = rng.choice(BIOS).format(company=rng.choice(fake.COMPANIES), city=city)
        users.append((f"USR-{i:04d}", handle, f"{first} {last}", bio, city, int(rng.random() < 0.08),
                      fake.iso(fake.moment(rng, now, 2500, -200))))
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?,?,?)", users)
    ids = [u[0] for u in users]
    interests = {uid: rng.sample(list(TOPICS), 3) for uid in ids}
    popular = ids[:30]
    follows: dict[tuple[str, str], str] = {}
    for uid in ids:
        n = rng.randint(2, 10)
        for target in rng.sample(popular, min(3, n)) + rng.sample(ids, n):
            if target != uid:
                follows[(uid, target)] = fake.iso(fake.moment(rng, now, 400, -1))
    blocks = {}
    for _ in range(20):
        a, b = rng.sample(ids, 2)
        if (b, a) not in blocks:
            blocks[(a, b)] = fake.iso(fake.moment(rng, now, 200, -1))
            follows.pop((a, b), None)
            follows.pop((b, a), None)
    db.executemany("INSERT INTO follows VALUES (?,?,?)", [(a, b, t) for (a, b), t in sorted(follows.items())])
    db.executemany("INSERT INTO blocks VALUES (?,?,?)", [(a, b, t) for (a, b), t in sorted(blocks.items())])
    posts: list[tuple[Any, ...]] = []
    tags: list[tuple[str, str]] = []
    likes: dict[tuple[str, str], str] = {}
    comments: list[tuple[Any, ...]] = []
    moments = sorted(fake.moment(rng, now, 120, 0) - timedelta(minutes=1) for _ in range(600))
    for n, t in enumerate(moments, 1):
        author = rng.choice(popular) if rng.random() < 0.3 else rng.choice(ids)
        topic = rng.choice(interests[author])
        text = rng.choice(TOPICS[topic]).format(city=rng.choice(fake.CITIES)[0], street=rng.choice(fake.STREETS),
                                                company=rng.choice(fake.COMPANIES))
        extra = [f"#{topic}"] + ([f"#{rng.choice(EXTRA_TAGS)}"] if rng.random() < 0.35 else [])
        content = f"{text} {' '.join(extra)}"
        post_id = f"PST-{n:05d}"
        posts.append((post_id, author, content, fake.iso(t)))
        tags.extend((post_id, tag) for tag in _tags(content))
        blocked = {b for a, b in blocks if a == author} | {a for a, b in blocks if b == author}
        age = max(1, int((now - t).total_seconds() // 60))
        for liker in rng.sample(ids, rng.choice((0, 1, 1, 2, 2, 3, 4, 6, 9))):
            if liker not in blocked:
                likes[(liker, post_id)] = fake.iso(t + timedelta(minutes=rng.randint(1, age)))
        for _ in range(rng.choice((0, 0, 0, 0, 1, 1, 2))):
            commenter = rng.choice(ids)
            if commenter not in blocked:
                comments.append((commenter, post_id, rng.choice(COMMENTS), t + timedelta(minutes=rng.randint(1, age))))
    db.executemany("INSERT INTO posts VALUES (?,?,?,?)", posts)
    db.executemany("INSERT INTO post_hashtags VALUES (?,?)", tags)
    db.executemany("INSERT INTO likes VALUES (?,?,?)", [(u, p, t) for (u, p), t in sorted(likes.items())])
    comments.sort(key=lambda c: (c[3], c[1]))
    db.executemany("INSERT INTO comments VALUES (?,?,?,?,?)",
                   [(f"CMT-{i:05d}", p, u, text, fake.iso(t)) for i, (u, p, text, t) in enumerate(comments, 1)])


social = Server("social_media", "A social network: profiles, posts, follows, feeds, likes, comments, hashtags and blocking.",
                SCHEMA, seed)

UserId = Annotated[str, Field(description="User id, e.g. 'USR-0012'"), Entity("user")]
ActingUserId = Annotated[str, Field(description="The user acting, e.g. 'USR-0012'"), Entity("user")]
TargetUserId = Annotated[str, Field(description="The other user, e.g. 'USR-0007'"), Entity("user")]
PostId = Annotated[str, Field(description="Post id, e.g. 'PST-00042'"), Entity("post")]
ViewerId = Annotated[str | None, Field(description="Who is looking, e.g. 'USR-0012': hides posts of users who blocked them"), Entity("user")]
POST_COLUMNS = ("p.post_id, p.author_id, u.handle, p.content, p.created_at, "
                "(SELECT COUNT(*) FROM likes l WHERE l.post_id = p.post_id) AS like_count, "
                "(SELECT COUNT(*) FROM comments c WHERE c.post_id = p.post_id) AS comment_count")
NOT_BLOCKED = (" AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = p.author_id AND b.blocked_id = ?)"
               " OR (b.blocker_id = ? AND b.blocked_id = p.author_id))")


def _user(ctx: Ctx, user_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM users WHERE user_id = ?", (user_id,),
                 f"No user {user_id!r}. Use search_users to find user ids.")


def _post(ctx: Ctx, post_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM posts WHERE post_id = ?", (post_id,),
                 f"No post {post_id!r}. Use list_posts or get_feed to find post ids.")


def _blocked(ctx: Ctx, blocker: str, blocked: str) -> bool:
    return ctx.db.execute("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (blocker, blocked)).fetchone() is not None


def _check_visible(ctx: Ctx, viewer: str, author: str, what: str) -> None:
    """Raise if a block stands between ``viewer`` and ``author`` in either direction."""
    if viewer == author:
        return
    if _blocked(ctx, author, viewer):
        raise ToolError(f"{author} has blocked {viewer}; {viewer} cannot see or interact with {what}.")
    if _blocked(ctx, viewer, author):
        raise ToolError(f"{viewer} has blocked {author}; unblock with block_user('{viewer}', '{author}', unblock=True) "
                        f"to see or interact with {what}.")


def _post_view(ctx: Ctx, post_id: str) -> dict[str, Any]:
    found = rows(ctx.db.execute(f"SELECT {POST_COLUMNS} FROM posts p JOIN users u ON u.user_id = p.author_id "
                                "WHERE p.post_id = ?", (post_id,)))[0]
    found["hashtags"] = [r[0] for r in ctx.db.execute("SELECT tag FROM post_hashtags WHERE post_id = ? ORDER BY tag", (post_id,))]
    return found


@social.read(returns=("user",))
def search_users(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a handle, name, bio or city, e.g. 'Garcia'")] = "",
                 city: Annotated[str | None, Field(max_length=100, description="Only users in this city, e.g. 'Seattle'")] = None,
                 verified: Annotated[bool | None, Field(description="Only verified (true) or unverified (false) users")] = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search users by handle, display name, bio or city. Returns user ids such as 'USR-0012'."""
    like = f"%{query}%"
    sql = "SELECT user_id, handle, display_name, city, verified FROM users WHERE (handle LIKE ? OR display_name LIKE ? OR bio LIKE ? OR city LIKE ?)"
    args: list[Any] = [like, like, like, like]
    if city is not None:
        sql += " AND city = ?"
        args.append(city)
    if verified is not None:
        sql += " AND verified = ?"
        args.append(int(verified))
    found = rows(ctx.db.execute(sql + " ORDER BY user_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"users": found, "count": len(found)}


@social.read(returns=("user", "post"))
def get_user(ctx: Ctx, user_id: UserId) -> dict[str, Any]:
    """Get a profile with follower, following and post counts and the 5 latest post ids, e.g. get_user('USR-0012')."""
    user = _user(ctx, user_id)
    q = ctx.db.execute
    user["followers"] = q("SELECT COUNT(*) FROM follows WHERE followee_id = ?", (user_id,)).fetchone()[0]
    user["following"] = q("SELECT COUNT(*) FROM follows WHERE follower_id = ?", (user_id,)).fetchone()[0]
    user["post_count"] = q("SELECT COUNT(*) FROM posts WHERE author_id = ?", (user_id,)).fetchone()[0]
    user["latest_post_ids"] = [r[0] for r in q("SELECT post_id FROM posts WHERE author_id = ? ORDER BY created_at DESC, post_id DESC LIMIT 5",
                                                 (user_id,))]
    user["verified"] = bool(user["verified"])
    return user


@social.read(returns=("user",))
def list_connections(ctx: Ctx, user_id: UserId, kind: Literal["followers", "following", "blocked"] = "followers",
                     limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List a user's followers, the users they follow, or the users they have blocked, e.g. list_connections('USR-0012', 'following')."""
    _user(ctx, user_id)
    table, mine, other = {"followers": ("follows", "followee_id", "follower_id"), "following": ("follows", "follower_id", "followee_id"),
                          "blocked": ("blocks", "blocker_id", "blocked_id")}[kind]
    found = rows(ctx.db.execute(
        f"SELECT u.user_id, u.handle, u.display_name, t.created_at AS since FROM {table} t JOIN users u ON u.user_id = t.{other} "
        f"WHERE t.{mine} = ? ORDER BY t.created_at DESC, u.user_id LIMIT ? OFFSET ?", (user_id, limit, offset)))
    return {"user_id": user_id, "kind": kind, "users": found, "count": len(found)}


@social.read(returns=("post", "user"))
def list_posts(ctx: Ctx, author_id: Annotated[str | None, Field(description="Only this author's posts, e.g. 'USR-0012'"), Entity("user")] = None,
               hashtag: Annotated[str | None, Field(max_length=60, description="Only posts with this hashtag, with or without '#', e.g. 'running'")] = None,
               query: Annotated[str | None, Field(max_length=200, description="Only posts whose text contains this, e.g. 'marathon'")] = None,
               since: Annotated[str | None, Field(max_length=30, description="Only posts on or after this ISO date, e.g. '2026-05-01'")] = None,
               viewer_id: ViewerId = None, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List posts newest first, filtered by author, hashtag, text or date, e.g. list_posts(hashtag='running').

    Pass viewer_id to leave out posts hidden from that user by a block."""
    sql = f"SELECT {POST_COLUMNS} FROM posts p JOIN users u ON u.user_id = p.author_id WHERE 1=1"
    args: list[Any] = []
    if author_id is not None:
        sql += " AND p.author_id = ?"
        args.append(author_id)
    if hashtag is not None:
        sql += " AND p.post_id IN (SELECT post_id FROM post_hashtags WHERE tag = ?)"
        args.append(hashtag.lstrip("#").lower())
    if query is not None:
        sql += " AND p.content LIKE ?"
        args.append(f"%{query}%")
    if since is not None:
        sql += " AND p.created_at >= ?"
        args.append(since)
    if viewer_id is not None:
        _user(ctx, viewer_id)
        sql += NOT_BLOCKED
        args += [viewer_id, viewer_id]
    found = rows(ctx.db.execute(sql + " ORDER BY p.created_at DESC, p.post_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"posts": found, "count": len(found)}


@social.read(returns=("post", "user", "comment"))
def get_post(ctx: Ctx, post_id: PostId, viewer_id: ViewerId = None) -> dict[str, Any]:
    """Get one post with its hashtags, like count and comments (oldest first), e.g. get_post('PST-00042').

    With viewer_id, fails if a block stands between the viewer and the author, and says whether the viewer liked it."""
    post = _post(ctx, post_id)
    if viewer_id is not None:
        _user(ctx, viewer_id)
        _check_visible(ctx, viewer_id, post["author_id"], f"post {post_id}")
    found = _post_view(ctx, post_id)
    found["comments"] = rows(ctx.db.execute(
        "SELECT c.comment_id, c.author_id, u.handle, c.content, c.created_at FROM comments c JOIN users u ON u.user_id = c.author_id "
        "WHERE c.post_id = ? ORDER BY c.created_at, c.comment_id LIMIT 50", (post_id,)))
    if viewer_id is not None:
        found["liked_by_viewer"] = ctx.db.execute("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?",
                                                  (viewer_id, post_id)).fetchone() is not None
    return found


@social.read(returns=("post", "user"))
def get_feed(ctx: Ctx, user_id: UserId, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """A user's home feed: posts of the users they follow, newest first, e.g. get_feed('USR-0012')."""
    _user(ctx, user_id)
    found = rows(ctx.db.execute(
        f"SELECT {POST_COLUMNS} FROM posts p JOIN users u ON u.user_id = p.author_id "
        "WHERE p.author_id IN (SELECT followee_id FROM follows WHERE follower_id = ?)" + NOT_BLOCKED +
        " ORDER BY p.created_at DESC, p.post_id DESC LIMIT ? OFFSET ?", (user_id, user_id, user_id, limit, offset)))
    return {"user_id": user_id, "posts": found, "count": len(found)}


DISTINCT_FIELDS = {"hashtag": ("post_hashtags", "tag"), "city": ("users", "city"), "verified": ("users", "verified")}


@social.read()
def get_distinct_values(ctx: Ctx, field: Literal["hashtag", "city", "verified"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('hashtag') for hashtags in use."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {str(v): n for v, n in found}}


@social.write(returns=("post",))
def create_post(ctx: Ctx, author_id: ActingUserId,
                content: Annotated[str, Field(min_length=1, max_length=5000, description="The post text; '#word' adds a hashtag, e.g. 'Morning run done #running'")]) -> dict[str, Any]:
    """Publish a post as author_id, e.g. create_post('USR-0012', 'Morning run done #running'). Returns the new post id.

    At most 280 characters (1,000 for verified users) and 10 hashtags."""
    user = _user(ctx, author_id)
    text = content.strip()
    if not text:
        raise ToolError("A post cannot be empty; write some text.")
    cap = VERIFIED_POST_LIMIT if user["verified"] else POST_LIMIT
    if len(text) > cap:
        raise ToolError(f"The post is {len(text)} characters; {author_id} may post at most {cap}. Shorten it by {len(text) - cap}.")
    tags = _tags(text)
    if len(tags) > MAX_HASHTAGS:
        raise ToolError(f"The post has {len(tags)} hashtags; at most {MAX_HASHTAGS} are allowed. Remove some.")
    post_id = next_id(ctx.db, "posts", "post_id", "PST", 5)
    ctx.db.execute("INSERT INTO posts VALUES (?,?,?,?)", (post_id, author_id, text, fake.iso(ctx.now)))
    ctx.db.executemany("INSERT INTO post_hashtags VALUES (?,?)", [(post_id, t) for t in tags])
    return _post_view(ctx, post_id)


@social.write(requires=("create_post",))
def delete_post(ctx: Ctx, user_id: ActingUserId, post_id: PostId) -> dict[str, Any]:
    """Delete a post; only its author may, e.g. delete_post('USR-0012', 'PST-00042'). Its likes and comments are removed too."""
    _user(ctx, user_id)
    post = _post(ctx, post_id)
    if post["author_id"] != user_id:
        raise ToolError(f"Only the author ({post['author_id']}) can delete {post_id}; {user_id} is not the author.")
    for table in ("likes", "comments", "post_hashtags", "posts"):
        ctx.db.execute(f"DELETE FROM {table} WHERE post_id = ?", (post_id,))
    return {"post_id": post_id, "deleted": True}


@social.write()
def follow_user(ctx: Ctx, user_id: ActingUserId, target_user_id: TargetUserId) -> dict[str, Any]:
    """Make user_id follow target_user_id, e.g. follow_user('USR-0012', 'USR-0007'). Their posts then appear in user_id's feed."""
    _user(ctx, user_id)
    _user(ctx, target_user_id)
    if user_id == target_user_id:
        raise ToolError(f"{user_id} cannot follow themselves; choose another user.")
    _check_visible(ctx, user_id, target_user_id, f"{target_user_id}'s profile")
    if ctx.db.execute("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", (user_id, target_user_id)).fetchone():
        raise ToolError(f"{user_id} already follows {target_user_id}.")
    ctx.db.execute("INSERT INTO follows VALUES (?,?,?)", (user_id, target_user_id, fake.iso(ctx.now)))
    return {"user_id": user_id, "following": target_user_id}


@social.write(requires=("follow_user",))
def unfollow_user(ctx: Ctx, user_id: ActingUserId, target_user_id: TargetUserId) -> dict[str, Any]:
    """Make user_id stop following target_user_id, e.g. unfollow_user('USR-0012', 'USR-0007')."""
    _user(ctx, user_id)
    _user(ctx, target_user_id)
    if not ctx.db.execute("DELETE FROM follows WHERE follower_id = ? AND followee_id = ?", (user_id, target_user_id)).rowcount:
        raise ToolError(f"{user_id} does not follow {target_user_id}; see list_connections('{user_id}', 'following').")
    return {"user_id": user_id, "unfollowed": target_user_id}


@social.write()
def like_post(ctx: Ctx, user_id: ActingUserId, post_id: PostId) -> dict[str, Any]:
    """Like a post as user_id, e.g. like_post('USR-0012', 'PST-00042'). A user can like a post only once."""
    _user(ctx, user_id)
    post = _post(ctx, post_id)
    _check_visible(ctx, user_id, post["author_id"], f"post {post_id}")
    if ctx.db.execute("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?", (user_id, post_id)).fetchone():
        raise ToolError(f"{user_id} already liked {post_id}.")
    ctx.db.execute("INSERT INTO likes VALUES (?,?,?)", (user_id, post_id, fake.iso(ctx.now)))
    return {"post_id": post_id, "user_id": user_id, "like_count": _post_view(ctx, post_id)["like_count"]}


@social.write(requires=("like_post",))
def unlike_post(ctx: Ctx, user_id: ActingUserId, post_id: PostId) -> dict[str, Any]:
    """Remove user_id's like from a post, e.g. unlike_post('USR-0012', 'PST-00042')."""
    _user(ctx, user_id)
    _post(ctx, post_id)
    if not ctx.db.execute("DELETE FROM likes WHERE user_id = ? AND post_id = ?", (user_id, post_id)).rowcount:
        raise ToolError(f"{user_id} has not liked {post_id}; nothing to remove.")
    return {"post_id": post_id, "user_id": user_id, "like_count": _post_view(ctx, post_id)["like_count"]}


@social.write(returns=("comment",))
def add_comment(ctx: Ctx, user_id: ActingUserId, post_id: PostId,
                content: Annotated[str, Field(min_length=1, max_length=5000, description="The comment text, at most 500 characters, e.g. 'Congrats!'")]) -> dict[str, Any]:
    """Comment on a post as user_id, e.g. add_comment('USR-0012', 'PST-00042', 'Congrats!'). Returns the new comment id."""
    _user(ctx, user_id)
    post = _post(ctx, post_id)
    _check_visible(ctx, user_id, post["author_id"], f"post {post_id}")
    text = content.strip()
    if not text:
        raise ToolError("A comment cannot be empty; write some text.")
    if len(text) > COMMENT_LIMIT:
        raise ToolError(f"The comment is {len(text)} characters; the limit is {COMMENT_LIMIT}. Shorten it.")
    comment_id = next_id(ctx.db, "comments", "comment_id", "CMT", 5)
    ctx.db.execute("INSERT INTO comments VALUES (?,?,?,?,?)", (comment_id, post_id, user_id, text, fake.iso(ctx.now)))
    return {"comment_id": comment_id, "post_id": post_id, "author_id": user_id, "content": text}


@social.write()
def block_user(ctx: Ctx, user_id: ActingUserId, target_user_id: TargetUserId,
               unblock: Annotated[bool, Field(description="true to lift an existing block instead")] = False) -> dict[str, Any]:
    """Block (or with unblock=true, unblock) target_user_id as user_id, e.g. block_user('USR-0012', 'USR-0007').

    Blocking removes follows between the two users in both directions."""
    _user(ctx, user_id)
    _user(ctx, target_user_id)
    if user_id == target_user_id:
        raise ToolError(f"{user_id} cannot block or unblock themselves.")
    exists = _blocked(ctx, user_id, target_user_id)
    if unblock:
        if not exists:
            raise ToolError(f"{user_id} has not blocked {target_user_id}; see list_connections('{user_id}', 'blocked').")
        ctx.db.execute("DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (user_id, target_user_id))
        return {"user_id": user_id, "unblocked": target_user_id}
    if exists:
        raise ToolError(f"{user_id} has already blocked {target_user_id}.")
    ctx.db.execute("INSERT INTO blocks VALUES (?,?,?)", (user_id, target_user_id, fake.iso(ctx.now)))
    removed = ctx.db.execute("DELETE FROM follows WHERE (follower_id = ? AND followee_id = ?) OR (follower_id = ? AND followee_id = ?)",
                             (user_id, target_user_id, target_user_id, user_id)).rowcount
    return {"user_id": user_id, "blocked": target_user_id, "follows_removed": removed}


server = social
