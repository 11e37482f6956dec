"""Social media: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

S = "social_media"


def stranger_pair(world: World) -> tuple[str, str]:
    """Two users with no follow or block between them."""
    for a in ("USR-0012", "USR-0040", "USR-0101"):
        following = {
            u["user_id"] for u in world.ok(S, "list_connections", user_id=a, kind="following", limit=100)["users"]
        }
        blocked = {u["user_id"] for u in world.ok(S, "list_connections", user_id=a, kind="blocked", limit=100)["users"]}
        for n in range(60, 150):
            b = f"USR-{n:04d}"
            theirs = {
                u["user_id"] for u in world.ok(S, "list_connections", user_id=b, kind="blocked", limit=100)["users"]
            }
            if b != a and b not in following and b not in blocked and a not in theirs:
                return a, b
    raise AssertionError("no stranger pair")


def test_search_and_get_user(world: World) -> None:
    found = world.ok(S, "search_users", query="", limit=3)["users"]
    assert len(found) == 3
    user = world.ok(S, "get_user", user_id=found[0]["user_id"])
    assert user["handle"] == found[0]["handle"] and "followers" in user
    assert world.ok(S, "search_users", verified=True)["count"] > 0
    assert "No user" in world.err(S, "get_user", user_id="USR-9999")
    assert "invalid arguments" in world.err(S, "search_users", limit=0)


def test_list_connections(world: World) -> None:
    following = world.ok(S, "list_connections", user_id="USR-0012", kind="following")
    assert following["count"] > 0
    assert "No user" in world.err(S, "list_connections", user_id="", kind="followers")
    assert "invalid arguments" in world.err(S, "list_connections", user_id="USR-0012", kind="friends")


def test_list_and_get_post(world: World) -> None:
    posts = world.ok(S, "list_posts", hashtag="#running", limit=5)["posts"]
    assert posts and all(p["created_at"] >= q["created_at"] for p, q in zip(posts, posts[1:]))
    post = world.ok(S, "get_post", post_id=posts[0]["post_id"])
    assert "running" in post["hashtags"]
    assert world.ok(S, "list_posts", author_id=post["author_id"], since="2026-01-01")["count"] > 0
    assert "No post" in world.err(S, "get_post", post_id="PST-99999")
    assert "No user" in world.err(S, "list_posts", viewer_id="nobody")


def test_get_feed_and_distinct(world: World) -> None:
    feed = world.ok(S, "get_feed", user_id="USR-0012")["posts"]
    following = {
        u["user_id"] for u in world.ok(S, "list_connections", user_id="USR-0012", kind="following", limit=100)["users"]
    }
    assert feed and all(p["author_id"] in following for p in feed)
    assert "No user" in world.err(S, "get_feed", user_id="USR-0000")
    assert "running" in world.ok(S, "get_distinct_values", field="hashtag")["values"]
    assert "invalid arguments" in world.err(S, "get_distinct_values", field="password")


def test_create_and_delete_post(world: World) -> None:
    post = world.ok(S, "create_post", author_id="USR-0012", content="Sunrise ride along the river #cycling #Weekend")
    assert set(post["hashtags"]) == {"cycling", "weekend"}
    assert world.ok(S, "list_posts", author_id="USR-0012", limit=1)["posts"][0]["post_id"] == post["post_id"]
    assert "characters" in world.err(S, "create_post", author_id="USR-0001", content="x" * 281)
    assert "empty" in world.err(S, "create_post", author_id="USR-0012", content="   ")
    assert "hashtags" in world.err(
        S, "create_post", author_id="USR-0012", content=" ".join(f"#t{i}" for i in range(11))
    )
    assert "Only the author" in world.err(S, "delete_post", user_id="USR-0007", post_id=post["post_id"])
    world.ok(S, "delete_post", user_id="USR-0012", post_id=post["post_id"])
    assert "No post" in world.err(S, "get_post", post_id=post["post_id"])


def test_verified_users_post_longer(world: World) -> None:
    verified = world.ok(S, "search_users", verified=True, limit=1)["users"][0]["user_id"]
    post = world.ok(S, "create_post", author_id=verified, content="y" * 600)
    assert len(world.ok(S, "get_post", post_id=post["post_id"])["content"]) == 600


def test_follow_and_unfollow(world: World) -> None:
    a, b = stranger_pair(world)
    world.ok(S, "follow_user", user_id=a, target_user_id=b)
    assert b in {u["user_id"] for u in world.ok(S, "list_connections", user_id=a, kind="following", limit=100)["users"]}
    post = world.ok(S, "create_post", author_id=b, content="Hello followers")
    assert world.ok(S, "get_feed", user_id=a, limit=1)["posts"][0]["post_id"] == post["post_id"]
    assert "already follows" in world.err(S, "follow_user", user_id=a, target_user_id=b)
    assert "themselves" in world.err(S, "follow_user", user_id=a, target_user_id=a)
    world.ok(S, "unfollow_user", user_id=a, target_user_id=b)
    assert b not in {
        u["user_id"] for u in world.ok(S, "list_connections", user_id=a, kind="following", limit=100)["users"]
    }
    assert "does not follow" in world.err(S, "unfollow_user", user_id=a, target_user_id=b)


def test_like_and_unlike(world: World) -> None:
    a, b = stranger_pair(world)
    post = world.ok(S, "create_post", author_id=b, content="Like me")
    assert world.ok(S, "like_post", user_id=a, post_id=post["post_id"])["like_count"] == 1
    seen = world.ok(S, "get_post", post_id=post["post_id"], viewer_id=a)
    assert seen["like_count"] == 1 and seen["liked_by_viewer"] is True
    assert "already liked" in world.err(S, "like_post", user_id=a, post_id=post["post_id"])
    world.ok(S, "unlike_post", user_id=a, post_id=post["post_id"])
    assert world.ok(S, "get_post", post_id=post["post_id"])["like_count"] == 0
    assert "has not liked" in world.err(S, "unlike_post", user_id=a, post_id=post["post_id"])
    assert "No post" in world.err(S, "like_post", user_id=a, post_id="PST-00000")


def test_comments(world: World) -> None:
    a, b = stranger_pair(world)
    post = world.ok(S, "create_post", author_id=b, content="Comment below")
    comment = world.ok(S, "add_comment", user_id=a, post_id=post["post_id"], content="Nice one!")
    assert [c["comment_id"] for c in world.ok(S, "get_post", post_id=post["post_id"])["comments"]] == [
        comment["comment_id"]
    ]
    assert "limit is 500" in world.err(S, "add_comment", user_id=a, post_id=post["post_id"], content="z" * 501)
    assert "empty" in world.err(S, "add_comment", user_id=a, post_id=post["post_id"], content=" ")


def test_blocking_hides_posts_and_interactions(world: World) -> None:
    a, b = stranger_pair(world)
    world.ok(S, "follow_user", user_id=b, target_user_id=a)
    post = world.ok(S, "create_post", author_id=a, content="Only for friends")
    out = world.ok(S, "block_user", user_id=a, target_user_id=b)
    assert out["follows_removed"] == 1
    assert b in {u["user_id"] for u in world.ok(S, "list_connections", user_id=a, kind="blocked", limit=100)["users"]}
    assert a not in {
        u["user_id"] for u in world.ok(S, "list_connections", user_id=b, kind="following", limit=100)["users"]
    }
    assert "has blocked" in world.err(S, "get_post", post_id=post["post_id"], viewer_id=b)
    assert "has blocked" in world.err(S, "like_post", user_id=b, post_id=post["post_id"])
    assert "has blocked" in world.err(S, "add_comment", user_id=b, post_id=post["post_id"], content="hey")
    assert "has blocked" in world.err(S, "follow_user", user_id=b, target_user_id=a)
    assert post["post_id"] not in {p["post_id"] for p in world.ok(S, "list_posts", author_id=a, viewer_id=b)["posts"]}
    assert "unblock" in world.err(S, "follow_user", user_id=a, target_user_id=b)
    assert "already blocked" in world.err(S, "block_user", user_id=a, target_user_id=b)
    assert "themselves" in world.err(S, "block_user", user_id=a, target_user_id=a)
    world.ok(S, "block_user", user_id=a, target_user_id=b, unblock=True)
    world.ok(S, "like_post", user_id=b, post_id=post["post_id"])
    assert world.ok(S, "get_post", post_id=post["post_id"], viewer_id=b)["liked_by_viewer"] is True
    assert "has not blocked" in world.err(S, "block_user", user_id=a, target_user_id=b, unblock=True)
