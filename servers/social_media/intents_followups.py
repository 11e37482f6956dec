"""Short follow-ups on the social network: what a person asks right after an action, about the post, the other
person or themselves (``memory["post"]``, ``memory["other"]``, ``memory["me"]``), in one or two calls."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.social_media.intents import COMMENTS, USERS, handle, visible
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


@social_media.intent(covers=("get_post",), follows=True, opens=False, weight=1.5)
def how_is_it_doing(s: Scene) -> None:
    """The user asks how the post of the dialogue stands now: likes, comments."""
    me, p = known(s, "me"), post_now(s)
    if not visible(s, me["user_id"], p["author_id"]):
        raise Skip("blocked")
    s.asked("get_post", post_id=p["post_id"])
    s.say(
        "How many likes does it have now?",
        "What does it stand at now?",
        "Who else commented on it?",
        "Show me the post with its comments.",
    )
    s.call("get_post", post_id=p["post_id"], viewer_id=me["user_id"])


@social_media.intent(covers=("like_post",), follows=True, opens=False, weight=1.5)
def like_it_too(s: Scene) -> None:
    """The user likes the post of the dialogue as well."""
    me, p = known(s, "me"), post_now(s)
    if p["author_id"] == me["user_id"] or not visible(s, me["user_id"], p["author_id"]):
        raise Skip("own or blocked")
    if s.rows("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?", me["user_id"], p["post_id"]):
        raise Skip("liked already")
    s.say("Like it too while you're at it.", "And give it a heart.", "Oh, and like that one for me.")
    s.call("like_post", user_id=me["user_id"], post_id=p["post_id"])
    s.memory["liked"] = p["post_id"]


@social_media.intent(covers=("unlike_post",), follows=True, opens=False)
def undo_like(s: Scene) -> None:
    """The user takes back the like they just gave."""
    me, p = known(s, "me"), post_now(s)
    if s.memory.get("liked") != p["post_id"]:
        raise Skip("no like in this dialogue")
    s.say("Hmm, actually undo that like.", "Wait, take the heart back off.", "On second thought, unlike it.")
    s.call("unlike_post", user_id=me["user_id"], post_id=p["post_id"])
    s.memory.pop("liked")


@social_media.intent(covers=("add_comment",), follows=True, opens=False)
def quick_comment(s: Scene) -> None:
    """The user leaves a short comment under someone else's post of the dialogue."""
    me, p = known(s, "me"), post_now(s)
    if p["author_id"] == me["user_id"] or not visible(s, me["user_id"], p["author_id"]):
        raise Skip("own or blocked")
    s.asked("add_comment", post_id=p["post_id"])
    text = s.rng.choice(COMMENTS)
    s.say("And comment {t}", 'Write "{t}" under it.', "Reply to it with: {t}", t=text)
    s.call("add_comment", user_id=me["user_id"], post_id=p["post_id"], content=text)


@social_media.intent(covers=("get_user",), follows=True, opens=False)
def who_is_that(s: Scene) -> None:
    """The user asks about the other person of the dialogue (or the post's author)."""
    me = known(s, "me")
    other = s.memory.get("other") or {"user_id": post_now(s)["author_id"]}
    if other["user_id"] == me["user_id"]:
        raise Skip("that is the user")
    s.asked("get_user", user_id=other["user_id"])
    s.say(
        "Who is that person, by the way? Where are they?",
        "Tell me about them: bio, city, how many followers.",
        "What's their profile say?",
    )
    s.call("get_user", user_id=other["user_id"])


@social_media.intent(covers=("list_posts",), follows=True, opens=False, weight=1.5)
def more_from_them(s: Scene) -> None:
    """The user asks what else the other person has posted (since a date, sometimes)."""
    me = known(s, "me")
    other = s.memory.get("other") or {"user_id": post_now(s)["author_id"]}
    if other["user_id"] == me["user_id"] or not visible(s, me["user_id"], other["user_id"]):
        raise Skip("self or blocked")
    s.asked("list_posts", author_id=other["user_id"])
    if s.rng.random() < 0.5:
        s.say("What else have they posted lately?", "Show me their other recent posts.", "What else do they post?")
        s.call("list_posts", author_id=other["user_id"], viewer_id=me["user_id"], limit=5)
    else:
        since = s.now.date().fromordinal(s.now.date().toordinal() - 30)
        s.say("Anything else from them this past month?", "What have they posted in the last 30 days?")
        s.call("list_posts", author_id=other["user_id"], since=since.isoformat(), viewer_id=me["user_id"])


@social_media.intent(covers=("list_posts",), follows=True, opens=False)
def same_tag(s: Scene) -> None:
    """The user asks for other posts under the post's hashtag."""
    p = post_now(s)
    tag = s.value("SELECT tag FROM post_hashtags WHERE post_id = ? ORDER BY tag LIMIT 1", p["post_id"])
    if not tag:
        raise Skip("no tag")
    s.asked("list_posts", hashtag=tag)
    s.say(
        "What else is out there under #{tag}?",
        "Show me more #{tag} posts.",
        "Who else is posting with #{tag}?",
        tag=tag,
    )
    s.call("list_posts", hashtag=tag, limit=10)


@social_media.intent(covers=("get_feed",), follows=True, opens=False)
def my_timeline(s: Scene) -> None:
    """The user asks for their home timeline now."""
    me = known(s, "me")
    s.asked("get_feed", user_id=me["user_id"])
    if not s.rows("SELECT 1 FROM follows WHERE follower_id = ?", me["user_id"]):
        raise Skip("follows nobody")
    s.say("What's in my timeline now?", "Show me my home feed.", "What are the people I follow posting?")
    s.call("get_feed", user_id=me["user_id"], limit=10)


@social_media.intent(covers=("list_connections",), follows=True, opens=False)
def my_circle(s: Scene) -> None:
    """The user asks who they follow, who follows them, or whom they have blocked."""
    me = known(s, "me")
    kind = s.rng.choice(
        ("following", "followers", "blocked") if s.memory.get("blocked") else ("following", "followers")
    )
    s.asked("list_connections", user_id=me["user_id"], kind=kind)
    if kind == "following":
        s.say("Who do I still keep up with?", "So who's left on my list?", "Who am I following now?")
    elif kind == "followers":
        s.say("Who follows me these days?", "And who are my followers now?", "Remind me who follows me.")
    else:
        s.say("Who else have I blocked?", "Show me everyone I've blocked.", "Which accounts have I shut out?")
    s.call("list_connections", user_id=me["user_id"], kind=kind)


@social_media.intent(covers=("get_user",), follows=True, opens=False)
def my_numbers(s: Scene) -> None:
    """The user asks for their own profile numbers now."""
    me = known(s, "me")
    s.asked("get_user", user_id=me["user_id"])
    s.say(
        "How many followers do I have now?",
        "What do my profile numbers look like now?",
        "How many people follow me, and how many do I follow?",
    )
    s.call("get_user", user_id=me["user_id"])


@social_media.intent(covers=("list_connections",), follows=True, opens=False)
def their_circle(s: Scene) -> None:
    """The user asks who follows the other person, or whom they follow (does the other follow me back?)."""
    me, other = known(s, "me"), known(s, "other")
    if other["user_id"] == me["user_id"]:
        raise Skip("self")
    kind = s.rng.choice(("followers", "following"))
    s.asked("list_connections", user_id=other["user_id"], kind=kind)
    if kind == "followers":
        s.say("Who else follows them?", "Who are their followers?", "Show me who keeps up with {h}.", h=handle(other))
    else:
        s.say(
            "Do they follow me back? Show me who they follow.",
            "Which accounts does {h} follow?",
            "Who is {h} following?",
            h=handle(other),
        )
    s.call("list_connections", user_id=other["user_id"], kind=kind)


@social_media.intent(covers=("follow_user",), follows=True, opens=False, weight=1.5)
def follow_them(s: Scene) -> None:
    """The user follows the other person of the dialogue."""
    me, other = known(s, "me"), known(s, "other")
    if other["user_id"] == me["user_id"] or not visible(s, me["user_id"], other["user_id"]):
        raise Skip("self or blocked")
    if s.rows("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", me["user_id"], other["user_id"]):
        raise Skip("follows already")
    if s.memory.get("dropped") == other["user_id"]:
        raise Skip("the dialogue just cut them off")
    s.say(
        "Follow {h} too.", "I want to see more from them: follow.", "Add them to the people I follow.", h=handle(other)
    )
    s.call("follow_user", user_id=me["user_id"], target_user_id=other["user_id"])


@social_media.intent(covers=("unfollow_user",), follows=True, opens=False)
def unfollow_them(s: Scene) -> None:
    """The user stops following the other person of the dialogue."""
    me, other = known(s, "me"), known(s, "other")
    if not s.rows("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", me["user_id"], other["user_id"]):
        raise Skip("not following")
    s.say(
        "Actually, unfollow {h}.", "And stop following them.", "I'm done with their posts, unfollow.", h=handle(other)
    )
    s.call("unfollow_user", user_id=me["user_id"], target_user_id=other["user_id"])
    s.memory["dropped"] = other["user_id"]


@social_media.intent(covers=("block_user",), follows=True, opens=False)
def block_them(s: Scene) -> None:
    """The user blocks the other person of the dialogue, or lifts the block they just set."""
    me, other = known(s, "me"), known(s, "other")
    if other["user_id"] == me["user_id"]:
        raise Skip("self")
    undo = s.memory.get("blocked") == other["user_id"]
    if undo:
        s.say("Hmm, undo that block.", "On second thought, unblock them.", "Actually lift the block again.")
        s.call("block_user", user_id=me["user_id"], target_user_id=other["user_id"], unblock=True)
        s.memory.pop("blocked")
        return
    if s.rows("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", me["user_id"], other["user_id"]):
        raise Skip("blocked already")
    s.say("Block {h} while you're at it.", "And block them, I don't want them near my stuff.", h=handle(other))
    s.call("block_user", user_id=me["user_id"], target_user_id=other["user_id"])
    s.memory["blocked"] = s.memory["dropped"] = other["user_id"]


@social_media.intent(covers=("list_posts",), follows=True, opens=False)
def my_posts(s: Scene) -> None:
    """The user asks for their own latest posts."""
    me = known(s, "me")
    s.asked("list_posts", author_id=me["user_id"])
    if not s.rows("SELECT 1 FROM posts WHERE author_id = ?", me["user_id"]):
        raise Skip("no posts")
    s.say("Show me my own recent posts.", "What have I posted lately?", "List my latest posts.")
    s.call("list_posts", author_id=me["user_id"], limit=5)


@social_media.intent(covers=("delete_post",), follows=True, opens=False)
def take_it_down(s: Scene) -> None:
    """The user deletes the post of the dialogue when it is theirs."""
    me, p = known(s, "me"), post_now(s)
    if p["author_id"] != me["user_id"]:
        raise Skip("not theirs")
    s.say("Actually, delete that post.", "Hmm, take it down after all.", "On second thought, remove it.")
    s.call("delete_post", user_id=me["user_id"], post_id=p["post_id"])
    s.memory.pop("post")


@social_media.intent(covers=("search_users",), follows=True, opens=False, weight=0.5)
def same_city(s: Scene) -> None:
    """The user asks who else on the network is in the other person's city."""
    me = known(s, "me")
    other = s.memory.get("other")
    u = s.rows(USERS + " WHERE user_id = ?", (other or me)["user_id"])[0]
    s.asked("search_users", city=u["city"])
    who = "they live in" if other and other["user_id"] != me["user_id"] else "I live in"
    s.say(
        "Who else is on here from the city {who}?", "Find other people in the same city as {h}.", who=who, h=handle(u)
    )
    s.call("search_users", city=u["city"])
