"""Social media tools: find users and posts, read feeds; post, follow, like, comment and block."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, ToolError, fake, next_id
from servers.social_media.schema import COMMENT_LIMIT, MAX_HASHTAGS, POST_LIMIT, SCHEMA, VERIFIED_POST_LIMIT, hashtags
from servers.social_media.seed import seed

social_media = Server(
    "social_media",
    "A social network: profiles, posts, follows, feeds, likes, comments, hashtags and blocking.",
    SCHEMA,
    seed,
    family="comms",
)


class UserId(EntityId, server=social_media, example="USR-0012", finder="search_users"): ...


class PostId(
    EntityId, server=social_media, example="PST-00042", hint="Use list_posts or get_feed to find post ids."
): ...


ActingUserId = Annotated[str, UserId.ref("The user acting, e.g. 'USR-0012'")]
TargetUserId = Annotated[str, UserId.ref("The other user, e.g. 'USR-0007'")]
ViewerId = Annotated[str | None, UserId.ref("Who is looking, e.g. 'USR-0012': hides posts of users who blocked them")]
POST_COLUMNS = (
    "p.post_id, p.author_id, u.handle, p.content, p.created_at, "
    "(SELECT COUNT(*) FROM likes l WHERE l.post_id = p.post_id) AS like_count, "
    "(SELECT COUNT(*) FROM comments c WHERE c.post_id = p.post_id) AS comment_count"
)
NOT_BLOCKED = (
    "NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = p.author_id AND b.blocked_id = ?)"
    " OR (b.blocker_id = ? AND b.blocked_id = p.author_id))"
)
POSTS = f"SELECT {POST_COLUMNS} FROM posts p JOIN users u ON u.user_id = p.author_id"


def _blocked(ctx: Ctx, blocker: str, blocked: str) -> bool:
    return (
        ctx.db.execute("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (blocker, blocked)).fetchone()
        is not None
    )


def _check_visible(ctx: Ctx, viewer: str, author: str, what: str) -> None:
    """Raise if a block stands between ``viewer`` and ``author`` in either direction."""
    if viewer == author:
        return
    if _blocked(ctx, author, viewer):
        raise ToolError(f"{author} has blocked {viewer}; {viewer} cannot see or interact with {what}.")
    if _blocked(ctx, viewer, author):
        raise ToolError(
            f"{viewer} has blocked {author}; unblock with block_user('{viewer}', '{author}', unblock=True) "
            f"to see or interact with {what}."
        )


def _post_view(ctx: Ctx, post_id: str) -> dict[str, Any]:
    found = ctx.rows(
        f"SELECT {POST_COLUMNS} FROM posts p JOIN users u ON u.user_id = p.author_id WHERE p.post_id = ?", (post_id,)
    )[0]
    found["hashtags"] = ctx.column("SELECT tag FROM post_hashtags WHERE post_id = ? ORDER BY tag", (post_id,))
    return found


@social_media.read(returns=("user",))
def search_users(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a handle, name, bio or city, e.g. 'Garcia'")] = "",
    city: Annotated[str | None, Field(max_length=100, description="Only users in this city, e.g. 'Seattle'")] = None,
    verified: Annotated[bool | None, Field(description="Only verified (true) or unverified (false) users")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search users by handle, display name, bio or city. Returns user ids such as 'USR-0012'."""
    q = Query("SELECT user_id, handle, display_name, city, verified FROM users")
    q.contains(query, "handle", "display_name", "bio", "city").equal("city", city)
    q.equal("verified", None if verified is None else int(verified))
    return q.page(ctx.db, "users", order_by="user_id", limit=limit, offset=offset)


@social_media.read(returns=("user", "post"))
def get_user(ctx: Ctx, user_id: UserId) -> dict[str, Any]:
    """Get a profile with follower, following and post counts and the 5 latest post ids, e.g. get_user('USR-0012')."""
    user = UserId.get(ctx, user_id)
    q = ctx.db.execute
    user["followers"] = q("SELECT COUNT(*) FROM follows WHERE followee_id = ?", (user_id,)).fetchone()[0]
    user["following"] = q("SELECT COUNT(*) FROM follows WHERE follower_id = ?", (user_id,)).fetchone()[0]
    user["post_count"] = q("SELECT COUNT(*) FROM posts WHERE author_id = ?", (user_id,)).fetchone()[0]
    user["latest_post_ids"] = [
        r[0]
        for r in q(
            "SELECT post_id FROM posts WHERE author_id = ? ORDER BY created_at DESC, post_id DESC LIMIT 5", (user_id,)
        )
    ]
    user["verified"] = bool(user["verified"])
    return user


@social_media.read(returns=("user",))
def list_connections(
    ctx: Ctx,
    user_id: UserId,
    kind: Literal["followers", "following", "blocked"] = "followers",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List a user's followers, the users they follow, or the users they have blocked, e.g. list_connections('USR-0012',
    'following')."""
    UserId.get(ctx, user_id)
    table, mine, other = {
        "followers": ("follows", "followee_id", "follower_id"),
        "following": ("follows", "follower_id", "followee_id"),
        "blocked": ("blocks", "blocker_id", "blocked_id"),
    }[kind]
    q = Query(
        f"SELECT u.user_id, u.handle, u.display_name, t.created_at AS since FROM {table} t "
        f"JOIN users u ON u.user_id = t.{other}"
    ).equal(f"t.{mine}", user_id)
    return {
        "user_id": user_id,
        "kind": kind,
        **q.page(ctx.db, "users", order_by="t.created_at DESC, u.user_id", limit=limit, offset=offset),
    }


@social_media.read(returns=("post", "user"))
def list_posts(
    ctx: Ctx,
    author_id: Annotated[str | None, UserId.ref("Only this author's posts, e.g. 'USR-0012'")] = None,
    hashtag: Annotated[
        str | None,
        Field(max_length=60, description="Only posts with this hashtag, with or without '#', e.g. 'running'"),
    ] = None,
    query: Annotated[
        str | None, Field(max_length=200, description="Only posts whose text contains this, e.g. 'marathon'")
    ] = None,
    since: Annotated[
        str | None, Field(max_length=30, description="Only posts on or after this ISO date, e.g. '2026-05-01'")
    ] = None,
    viewer_id: ViewerId = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List posts newest first, filtered by author, hashtag, text or date, e.g. list_posts(hashtag='running').

    Pass viewer_id to leave out posts hidden from that user by a block."""
    q = Query(POSTS).equal("p.author_id", author_id).contains(query, "p.content")
    tag = None if hashtag is None else hashtag.lstrip("#").lower()
    q.filter("p.post_id IN (SELECT post_id FROM post_hashtags WHERE tag = ?)", tag).filter("p.created_at >= ?", since)
    if viewer_id is not None:
        UserId.get(ctx, viewer_id)
        q.where(NOT_BLOCKED, viewer_id, viewer_id)
    return q.page(ctx.db, "posts", order_by="p.created_at DESC, p.post_id DESC", limit=limit, offset=offset)


@social_media.read(returns=("post", "user", "comment"))
def get_post(ctx: Ctx, post_id: PostId, viewer_id: ViewerId = None) -> dict[str, Any]:
    """Get one post with its hashtags, like count and comments (oldest first), e.g. get_post('PST-00042').

    With viewer_id, fails if a block stands between the viewer and the author, and says whether the viewer liked it."""
    post = PostId.get(ctx, post_id)
    if viewer_id is not None:
        UserId.get(ctx, viewer_id)
        _check_visible(ctx, viewer_id, post["author_id"], f"post {post_id}")
    found = _post_view(ctx, post_id)
    found["comments"] = ctx.rows(
        "SELECT c.comment_id, c.author_id, u.handle, c.content, c.created_at "
        "FROM comments c JOIN users u ON u.user_id = c.author_id "
        "WHERE c.post_id = ? ORDER BY c.created_at, c.comment_id LIMIT 50",
        (post_id,),
    )
    if viewer_id is not None:
        found["liked_by_viewer"] = (
            ctx.db.execute("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?", (viewer_id, post_id)).fetchone()
            is not None
        )
    return found


@social_media.read(returns=("post", "user"))
def get_feed(ctx: Ctx, user_id: UserId, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """A user's home feed: posts of the users they follow, newest first, e.g. get_feed('USR-0012')."""
    UserId.get(ctx, user_id)
    q = Query(POSTS).where("p.author_id IN (SELECT followee_id FROM follows WHERE follower_id = ?)", user_id)
    q.where(NOT_BLOCKED, user_id, user_id)
    return {
        "user_id": user_id,
        **q.page(ctx.db, "posts", order_by="p.created_at DESC, p.post_id DESC", limit=limit, offset=offset),
    }


social_media.distinct_values(
    {"hashtag": ("post_hashtags", "tag"), "city": ("users", "city"), "verified": ("users", "verified")},
    doc="The distinct values of a field with their counts, e.g. get_distinct_values('hashtag') for hashtags in use.",
)


@social_media.write(returns=("post",))
def create_post(
    ctx: Ctx,
    author_id: ActingUserId,
    content: Annotated[
        str,
        Field(
            min_length=1,
            max_length=5000,
            description="The post text; '#word' adds a hashtag, e.g. 'Morning run done #running'",
        ),
    ],
) -> dict[str, Any]:
    """Publish a post as author_id, e.g. create_post('USR-0012', 'Morning run done #running'). Returns the new post id.

    At most 280 characters (1,000 for verified users) and 10 hashtags."""
    user = UserId.get(ctx, author_id)
    text = content.strip()
    if not text:
        raise ToolError("A post cannot be empty; write some text.")
    cap = VERIFIED_POST_LIMIT if user["verified"] else POST_LIMIT
    if len(text) > cap:
        raise ToolError(
            f"The post is {len(text)} characters; {author_id} may post at most {cap}. Shorten it by {len(text) - cap}."
        )
    tags = hashtags(text)
    if len(tags) > MAX_HASHTAGS:
        raise ToolError(f"The post has {len(tags)} hashtags; at most {MAX_HASHTAGS} are allowed. Remove some.")
    post_id = next_id(ctx.db, "posts", "post_id", "PST", 5)
    ctx.db.execute("INSERT INTO posts VALUES (?,?,?,?)", (post_id, author_id, text, fake.iso(ctx.now)))
    ctx.db.executemany("INSERT INTO post_hashtags VALUES (?,?)", [(post_id, t) for t in tags])
    return _post_view(ctx, post_id)


@social_media.write(requires=("create_post",))
def delete_post(ctx: Ctx, user_id: ActingUserId, post_id: PostId) -> dict[str, Any]:
    """Delete a post; only its author may, e.g. delete_post('USR-0012', 'PST-00043'). Its likes and comments are removed
    too."""
    UserId.get(ctx, user_id)
    post = PostId.get(ctx, post_id)
    if post["author_id"] != user_id:
        raise ToolError(f"Only the author ({post['author_id']}) can delete {post_id}; {user_id} is not the author.")
    for table in ("likes", "comments", "post_hashtags", "posts"):
        ctx.db.execute(f"DELETE FROM {table} WHERE post_id = ?", (post_id,))
    return {"post_id": post_id, "deleted": True}


@social_media.write()
def follow_user(ctx: Ctx, user_id: ActingUserId, target_user_id: TargetUserId) -> dict[str, Any]:
    """Make user_id follow target_user_id, e.g. follow_user('USR-0012', 'USR-0007'). Their posts then appear in
    user_id's feed."""
    UserId.get(ctx, user_id)
    UserId.get(ctx, target_user_id)
    if user_id == target_user_id:
        raise ToolError(f"{user_id} cannot follow themselves; choose another user.")
    _check_visible(ctx, user_id, target_user_id, f"{target_user_id}'s profile")
    if ctx.db.execute(
        "SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", (user_id, target_user_id)
    ).fetchone():
        raise ToolError(f"{user_id} already follows {target_user_id}.")
    ctx.db.execute("INSERT INTO follows VALUES (?,?,?)", (user_id, target_user_id, fake.iso(ctx.now)))
    return {"user_id": user_id, "following": target_user_id}


@social_media.write(requires=("follow_user",))
def unfollow_user(ctx: Ctx, user_id: ActingUserId, target_user_id: TargetUserId) -> dict[str, Any]:
    """Make user_id stop following target_user_id, e.g. unfollow_user('USR-0012', 'USR-0008')."""
    UserId.get(ctx, user_id)
    UserId.get(ctx, target_user_id)
    if not ctx.db.execute(
        "DELETE FROM follows WHERE follower_id = ? AND followee_id = ?", (user_id, target_user_id)
    ).rowcount:
        raise ToolError(f"{user_id} does not follow {target_user_id}; see list_connections('{user_id}', 'following').")
    return {"user_id": user_id, "unfollowed": target_user_id}


@social_media.write()
def like_post(ctx: Ctx, user_id: ActingUserId, post_id: PostId) -> dict[str, Any]:
    """Like a post as user_id, e.g. like_post('USR-0012', 'PST-00042'). A user can like a post only once."""
    UserId.get(ctx, user_id)
    post = PostId.get(ctx, post_id)
    _check_visible(ctx, user_id, post["author_id"], f"post {post_id}")
    if ctx.db.execute("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?", (user_id, post_id)).fetchone():
        raise ToolError(f"{user_id} already liked {post_id}.")
    ctx.db.execute("INSERT INTO likes VALUES (?,?,?)", (user_id, post_id, fake.iso(ctx.now)))
    return {"post_id": post_id, "user_id": user_id, "like_count": _post_view(ctx, post_id)["like_count"]}


@social_media.write(requires=("like_post",))
def unlike_post(ctx: Ctx, user_id: ActingUserId, post_id: PostId) -> dict[str, Any]:
    """Remove user_id's like from a post, e.g. unlike_post('USR-0012', 'PST-00059')."""
    UserId.get(ctx, user_id)
    PostId.get(ctx, post_id)
    if not ctx.db.execute("DELETE FROM likes WHERE user_id = ? AND post_id = ?", (user_id, post_id)).rowcount:
        raise ToolError(f"{user_id} has not liked {post_id}; nothing to remove.")
    return {"post_id": post_id, "user_id": user_id, "like_count": _post_view(ctx, post_id)["like_count"]}


@social_media.write(returns=("comment",))
def add_comment(
    ctx: Ctx,
    user_id: ActingUserId,
    post_id: PostId,
    content: Annotated[
        str,
        Field(min_length=1, max_length=5000, description="The comment text, at most 500 characters, e.g. 'Congrats!'"),
    ],
) -> dict[str, Any]:
    """Comment on a post as user_id, e.g. add_comment('USR-0012', 'PST-00042', 'Congrats!'). Returns the new comment
    id."""
    UserId.get(ctx, user_id)
    post = PostId.get(ctx, post_id)
    _check_visible(ctx, user_id, post["author_id"], f"post {post_id}")
    text = content.strip()
    if not text:
        raise ToolError("A comment cannot be empty; write some text.")
    if len(text) > COMMENT_LIMIT:
        raise ToolError(f"The comment is {len(text)} characters; the limit is {COMMENT_LIMIT}. Shorten it.")
    comment_id = next_id(ctx.db, "comments", "comment_id", "CMT", 5)
    ctx.db.execute("INSERT INTO comments VALUES (?,?,?,?,?)", (comment_id, post_id, user_id, text, fake.iso(ctx.now)))
    return {"comment_id": comment_id, "post_id": post_id, "author_id": user_id, "content": text}


@social_media.write()
def block_user(
    ctx: Ctx,
    user_id: ActingUserId,
    target_user_id: TargetUserId,
    unblock: Annotated[bool, Field(description="true to lift an existing block instead")] = False,
) -> dict[str, Any]:
    """Block (or with unblock=true, unblock) target_user_id as user_id, e.g. block_user('USR-0012', 'USR-0007').

    Blocking removes follows between the two users in both directions."""
    UserId.get(ctx, user_id)
    UserId.get(ctx, target_user_id)
    if user_id == target_user_id:
        raise ToolError(f"{user_id} cannot block or unblock themselves.")
    exists = _blocked(ctx, user_id, target_user_id)
    if unblock:
        if not exists:
            raise ToolError(
                f"{user_id} has not blocked {target_user_id}; see list_connections('{user_id}', 'blocked')."
            )
        ctx.db.execute("DELETE FROM blocks WHERE blocker_id = ? AND blocked_id = ?", (user_id, target_user_id))
        return {"user_id": user_id, "unblocked": target_user_id}
    if exists:
        raise ToolError(f"{user_id} has already blocked {target_user_id}.")
    ctx.db.execute("INSERT INTO blocks VALUES (?,?,?)", (user_id, target_user_id, fake.iso(ctx.now)))
    removed = ctx.db.execute(
        "DELETE FROM follows WHERE (follower_id = ? AND followee_id = ?) OR (follower_id = ? AND followee_id = ?)",
        (user_id, target_user_id, target_user_id, user_id),
    ).rowcount
    return {"user_id": user_id, "blocked": target_user_id, "follows_removed": removed}
