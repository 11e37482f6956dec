"""Short follow-ups on the social network: what a person asks right after an action, about the post, the other
person or themselves (``memory["post"]``, ``memory["other"]``, ``memory["me"]``), in one or two calls."""

from __future__ import annotations

from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.social_media.intents import WORDS, handle, visible
from servers.social_media.tools import social_media


def known(s: Scene, key: str) -> dict[str, Any]:
    found = s.memory.get(key)
    if not found:
        raise Skip(f"no {key} in the dialogue")
    return dict(found)


def post_now(s: Scene) -> dict[str, Any]:
    """The dialogue's post as it stands (``Skip`` when it is gone)."""
    p = known(s, "post")
    if not s.rows("SELECT 1 FROM posts WHERE post_id = ?", p["post_id"]):
        raise Skip("the post is gone")
    return p


Act = tuple[dict[str, Any], dict[str, Any]]  # a call's arguments and the slots of its turn


def mine(s: Scene) -> dict[str, Any]:
    return {"user_id": known(s, "me")["user_id"]}


def seen(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    """The dialogue's post as the user may see it (``Skip`` when a block stands between them)."""
    me, p = known(s, "me"), post_now(s)
    if not visible(s, me["user_id"], p["author_id"]):
        raise Skip("blocked")
    return me, p


def read_post(s: Scene) -> Act:
    me, p = seen(s)
    return {"post_id": p["post_id"], "viewer_id": me["user_id"]}, {}


def others(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    """The user and someone else's post of the dialogue they may see (``Skip``: their own, or blocked)."""
    me, p = seen(s)
    if p["author_id"] == me["user_id"]:
        raise Skip("own")
    return me, p


def to_like(s: Scene) -> Act:
    me, p = others(s)
    if s.rows("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?", me["user_id"], p["post_id"]):
        raise Skip("liked already")
    return {"user_id": me["user_id"], "post_id": p["post_id"]}, {}


def liked(s: Scene) -> Act:
    me, p = known(s, "me"), post_now(s)
    if s.memory.get("liked") != p["post_id"]:
        raise Skip("no like in this dialogue")
    return {"user_id": me["user_id"], "post_id": p["post_id"]}, {}


def comment(s: Scene) -> Act:
    me, p = others(s)
    text = s.rng.choice(WORDS.comments)
    return {"user_id": me["user_id"], "post_id": p["post_id"], "content": text}, {"t": text}


def them(s: Scene) -> Act:
    me = known(s, "me")
    other = s.memory.get("other") or {"user_id": post_now(s)["author_id"]}
    if other["user_id"] == me["user_id"]:
        raise Skip("that is the user")
    return {"user_id": other["user_id"]}, {}


def tagged(s: Scene) -> Act:
    tag = s.value("SELECT tag FROM post_hashtags WHERE post_id = ? ORDER BY tag LIMIT 1", post_now(s)["post_id"])
    if not tag:
        raise Skip("no tag")
    return {"hashtag": tag, "limit": 10}, {"tag": tag}


def timeline(s: Scene) -> Act:
    me = known(s, "me")
    if not s.rows("SELECT 1 FROM follows WHERE follower_id = ?", me["user_id"]):
        raise Skip("follows nobody")
    return {"user_id": me["user_id"], "limit": 10}, {}


def my_latest(s: Scene) -> Act:
    me = known(s, "me")
    if not s.rows("SELECT 1 FROM posts WHERE author_id = ?", me["user_id"]):
        raise Skip("no posts")
    return {"author_id": me["user_id"], "limit": 5}, {}


def following(s: Scene, want: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """The user and the other person of the dialogue, when the user follows them (``want``) or not."""
    me, other = known(s, "me"), known(s, "other")
    follows = s.rows("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", me["user_id"], other["user_id"])
    if bool(follows) != want:
        raise Skip("follows already" if follows else "not following")
    return me, other


def to_follow(s: Scene) -> Act:
    me, other = following(s, False)
    if other["user_id"] == me["user_id"] or not visible(s, me["user_id"], other["user_id"]):
        raise Skip("self or blocked")
    if s.memory.get("dropped") == other["user_id"]:
        raise Skip("the dialogue just cut them off")
    return {"user_id": me["user_id"], "target_user_id": other["user_id"]}, {"h": handle(other)}


def to_unfollow(s: Scene) -> Act:
    me, other = following(s, True)
    return {"user_id": me["user_id"], "target_user_id": other["user_id"]}, {"h": handle(other)}


def own_post(s: Scene) -> Act:
    me, p = known(s, "me"), post_now(s)
    if p["author_id"] != me["user_id"]:
        raise Skip("not theirs")
    return {"user_id": me["user_id"], "post_id": p["post_id"]}, {}


FOLLOWS = (
    FollowUp(
        "how_is_it_doing",
        "The user asks how the post of the dialogue stands now: likes, comments.",
        read_post,
        "get_post",
        weight=1.5,
        asked=("post_id",),
    ),
    FollowUp(
        "like_it_too",
        "The user likes the post of the dialogue as well.",
        to_like,
        "like_post",
        weight=1.5,
        asked=False,
        then=lambda s, args, _: s.memory.update(liked=args["post_id"]),
    ),
    FollowUp(
        "undo_like",
        "The user takes back the like they just gave.",
        liked,
        "unlike_post",
        asked=False,
        then=lambda s, args, _: s.memory.pop("liked"),
    ),
    FollowUp(
        "quick_comment",
        "The user leaves a short comment under someone else's post of the dialogue.",
        comment,
        "add_comment",
        asked=("post_id",),
    ),
    FollowUp(
        "who_is_that",
        "The user asks about the other person of the dialogue (or the post's author).",
        them,
        "get_user",
        asked=("user_id",),
    ),
    FollowUp(
        "same_tag", "The user asks for other posts under the post's hashtag.", tagged, "list_posts", asked=("hashtag",)
    ),
    FollowUp("my_timeline", "The user asks for their home timeline now.", timeline, "get_feed", asked=("user_id",)),
    FollowUp(
        "my_numbers",
        "The user asks for their own profile numbers now.",
        lambda s: (mine(s), {}),
        "get_user",
        asked=("user_id",),
    ),
    FollowUp(
        "follow_them",
        "The user follows the other person of the dialogue.",
        to_follow,
        "follow_user",
        weight=1.5,
        asked=False,
    ),
    FollowUp(
        "unfollow_them",
        "The user stops following the other person of the dialogue.",
        to_unfollow,
        "unfollow_user",
        asked=False,
        then=lambda s, args, _: s.memory.update(dropped=args["target_user_id"]),
    ),
    FollowUp("my_posts", "The user asks for their own latest posts.", my_latest, "list_posts", asked=("author_id",)),
    FollowUp(
        "take_it_down",
        "The user deletes the post of the dialogue when it is theirs.",
        own_post,
        "delete_post",
        asked=False,
        then=lambda s, args, _: s.memory.pop("post"),
    ),
)


follow_ups(social_media, FOLLOWS, WORDS)
