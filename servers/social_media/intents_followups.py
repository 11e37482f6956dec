"""Short follow-ups on the social network: what a person asks right after an action, about the post, the other
person or themselves (``memory["post"]``, ``memory["other"]``, ``memory["me"]``), in one or two calls."""

from __future__ import annotations

from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.social_media.intents import COMMENTS, handle, visible
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
    text = s.rng.choice(COMMENTS)
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
        phrasings=(
            "How many likes does it have {now|so far}?",
            "What does it stand at now?",
            "Who else commented on it?",
            "Show me the post with its comments.",
            "What have other people said under it{ so far|}?",
            "{Is it getting|Has it got} any {love|reactions} yet?",
            "{Let me see|Pull up} {the post|it} {again|now}, comments and all.",
            "{How's|How is} {it|that post} doing{ now|}?",
        ),
        weight=1.5,
        asked=("post_id",),
    ),
    FollowUp(
        "like_it_too",
        "The user likes the post of the dialogue as well.",
        to_like,
        "like_post",
        phrasings=(
            "Like it too while you're at it.",
            "And give it a heart.",
            "Oh, and like that one for me.",
            "{Hit like|Leave a like} on it{ too|, please}.",
            "{I love it|That's great}, {like|heart} it for me.",
        ),
        weight=1.5,
        asked=False,
        then=lambda s, args, _: s.memory.update(liked=args["post_id"]),
    ),
    FollowUp(
        "undo_like",
        "The user takes back the like they just gave.",
        liked,
        "unlike_post",
        phrasings=(
            "Hmm, actually undo that like.",
            "Wait, take the heart back off.",
            "On second thought, unlike it.",
            "{Scratch|Remove} that like{, please|}.",
        ),
        asked=False,
        then=lambda s, args, _: s.memory.pop("liked"),
    ),
    FollowUp(
        "quick_comment",
        "The user leaves a short comment under someone else's post of the dialogue.",
        comment,
        "add_comment",
        phrasings=(
            "And comment {t}",
            'Write "{t}" under it.',
            "Reply to it with: {t}",
            'Leave {a|this} comment{ for me|}: "{t}"',
            'Can you {post|add} "{t}" {under it|as a reply}?',
        ),
        asked=("post_id",),
    ),
    FollowUp(
        "who_is_that",
        "The user asks about the other person of the dialogue (or the post's author).",
        them,
        "get_user",
        phrasings=(
            "Who is that person, by the way? Where are they?",
            "Tell me about them: bio, city, how many followers.",
            "What's their profile say?",
            "{Who is|Who's} this {person|account} {anyway|exactly}? Where are they based?",
            "{Give me|Show me} {their profile|a bit about them}{, please|}.",
        ),
        asked=("user_id",),
    ),
    FollowUp(
        "same_tag",
        "The user asks for other posts under the post's hashtag.",
        tagged,
        "list_posts",
        phrasings=(
            "What else is out there under #{tag}?",
            "Show me more #{tag} posts.",
            "Who else is posting with #{tag}?",
            "{What are|What's} {people|everyone else} saying {under|with} #{tag}?",
        ),
        asked=("hashtag",),
    ),
    FollowUp(
        "my_timeline",
        "The user asks for their home timeline now.",
        timeline,
        "get_feed",
        phrasings=(
            "What's in my timeline now?",
            "Show me my home feed.",
            "What are the people I follow posting?",
            "{Catch me up on|Take me through} my timeline{, please|}.",
            "Anything new from the people I {keep up with|follow}?",
            "What have the people I follow been up to{ lately|}?",
        ),
        asked=("user_id",),
    ),
    FollowUp(
        "my_numbers",
        "The user asks for their own profile numbers now.",
        lambda s: (mine(s), {}),
        "get_user",
        phrasings=(
            "How many followers do I have {now|at this point}?",
            "What do my profile numbers look like now?",
            "How many people follow me, and how many do I follow?",
            "{Where|How} do my {follower|} numbers stand {today|now}?",
            "{Quick check|Just curious}: {how many people follow me|what's my follower count} now?",
        ),
        asked=("user_id",),
    ),
    FollowUp(
        "follow_them",
        "The user follows the other person of the dialogue.",
        to_follow,
        "follow_user",
        phrasings=(
            "Follow {h} too.",
            "I want to see more from them: follow.",
            "Add them to the people I {follow|keep up with}.",
            "{Go ahead and|Please} follow them {for me|as well}.",
            "{I like their stuff|They seem interesting}; {follow them|add them to my list}.",
        ),
        weight=1.5,
        asked=False,
    ),
    FollowUp(
        "unfollow_them",
        "The user stops following the other person of the dialogue.",
        to_unfollow,
        "unfollow_user",
        phrasings=(
            "Actually, unfollow {h}.",
            "And stop following them.",
            "I'm done with their posts, unfollow.",
            "{Take|Drop} {h} off my list{ of people I follow|}.",
            "{Changed my mind|On second thought}, I don't want to follow {h} anymore.",
        ),
        asked=False,
        then=lambda s, args, _: s.memory.update(dropped=args["target_user_id"]),
    ),
    FollowUp(
        "my_posts",
        "The user asks for their own latest posts.",
        my_latest,
        "list_posts",
        phrasings=(
            "Show me my own recent posts.",
            "What have I posted lately?",
            "List my latest posts.",
            "{Remind me|Show me} what I've {shared|put up} {recently|this past while}.",
            "{What are|Which are} my {last few|most recent} posts?",
        ),
        asked=("author_id",),
    ),
    FollowUp(
        "take_it_down",
        "The user deletes the post of the dialogue when it is theirs.",
        own_post,
        "delete_post",
        phrasings=(
            "Actually, delete that post.",
            "Hmm, take it down after all.",
            "On second thought, remove it.",
            "{I regret that one|I posted that too soon}, {pull|take} it {down|off my profile}.",
            "{Delete|Remove} it{ please|}, I changed my mind.",
        ),
        asked=False,
        then=lambda s, args, _: s.memory.pop("post"),
    ),
)


follow_ups(social_media, FOLLOWS)
