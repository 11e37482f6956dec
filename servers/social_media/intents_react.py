"""Reacting to posts on the social network: cheering a friend on, replying, taking a like back, catching up on
the timeline, seeing how one's own posts landed.
"""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.social_media.intents import (
    POSTS,
    WORDS,
    ask,
    ask_about,
    comment_text,
    find_me,
    find_own_post,
    me,
    others_post,
    own_post_ref,
    remember_other,
    remember_post,
    visible,
)
from servers.social_media.tools import social_media


@social_media.intent(
    covers=("search_users", "list_posts", "get_feed", "get_user", "like_post", "add_comment"), weight=2.0, follows=True
)
def cheer_on(s: Scene) -> None:
    """A user likes a friend's post (found by author, words, hashtag, as the latest, or in their feed), and maybe
    leaves a comment on it."""
    u = me(s)
    p = others_post(s, u, "p.post_id NOT IN (SELECT post_id FROM likes WHERE user_id = ?)", u["user_id"])
    uid, found = ask_about(s, u, p, WORDS.cheer_on)
    s.call("like_post", user_id=uid, post_id=found["post_id"])
    s.memory["liked"] = found["post_id"]
    if s.by_chance(0.4):
        text = comment_text(s)
        s.say(WORDS.cheer_on_then_reply, t=text)
        s.call("add_comment", user_id=uid, post_id=found["post_id"], content=text)


@social_media.intent(
    covers=("search_users", "list_posts", "get_feed", "get_user", "add_comment", "get_post"), weight=2.0, follows=True
)
def reply_to_post(s: Scene) -> None:
    """A user writes a comment under someone's post (the words are theirs: a clarify task may hold them back)."""
    u = me(s)
    known = s.memory.get("post")
    text = comment_text(s)
    body = s.given(text, f'"{text}"', "comment", "add_comment", "content")
    if (
        known
        and known["author_id"] != u["user_id"]
        and visible(s, u["user_id"], known["author_id"])
        and s.rng.random() < 0.7
    ):
        s.asked("add_comment", post_id=known["post_id"])
        s.say(WORDS.reply_to_post_continuing, body=body)
        s.call("add_comment", user_id=find_me(s, u), post_id=known["post_id"], content=body)
        return
    p = others_post(s, u)
    uid, found = ask_about(s, u, p, WORDS.reply_to_post, body=body)
    s.call("add_comment", user_id=uid, post_id=found["post_id"], content=body)
    if s.by_chance(0.4):
        s.say(WORDS.reply_to_post_then_thread)
        s.call("get_post", post_id=found["post_id"], viewer_id=uid)


@social_media.intent(covers=("search_users", "list_posts", "get_feed", "get_user", "unlike_post"), follows=True)
def take_back_like(s: Scene) -> None:
    """A user removes a like they gave by mistake."""
    u = me(s, "user_id IN (SELECT l.user_id FROM likes l JOIN posts p USING (post_id) WHERE l.user_id != p.author_id)")
    p = others_post(s, u, "p.post_id IN (SELECT post_id FROM likes WHERE user_id = ?)", u["user_id"])
    if s.memory.get("liked") == p["post_id"]:
        raise Skip("the like of this dialogue has its own undo")
    uid, found = ask_about(s, u, p, WORDS.take_back_like)
    s.call("unlike_post", user_id=uid, post_id=found["post_id"])


@social_media.intent(covers=("search_users", "get_feed", "like_post", "add_comment"), weight=1.5, follows=True)
def catch_up(s: Scene) -> None:
    """A user reads what the people they follow posted lately, then reacts to the newest one."""
    u = me(s, "user_id IN (SELECT follower_id FROM follows)")
    s.asked("get_feed", user_id=u["user_id"])
    uid = ask(s, u, WORDS.catch_up)
    posts = s.call("get_feed", user_id=uid, limit=5)["posts"]
    if not posts:
        raise Skip("an empty feed")
    top = posts[0]
    remember_post(s, top)
    remember_other(s, {"user_id": top["author_id"], "handle": top["handle"]}, found=True)
    if not s.room(1, 1) or s.rng.random() < 0.3:
        return
    liked = s.rows("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?", uid, top["post_id"])
    if liked or s.rng.random() < 0.4:
        text = comment_text(s)
        s.say(WORDS.catch_up_then_reply, t=text)
        s.call("add_comment", user_id=uid, post_id=top["post_id"], content=text)
        return
    s.say(WORDS.catch_up_then_like)
    s.call("like_post", user_id=uid, post_id=top["post_id"])
    s.memory["liked"] = top["post_id"]


@social_media.intent(covers=("search_users", "list_posts", "get_post"), follows=True)
def reactions_to_mine(s: Scene) -> None:
    """A user checks how one of their own posts is doing: its likes and who commented."""
    u = me(s, "user_id IN (SELECT author_id FROM posts)")
    p = s.pick(POSTS + " WHERE p.author_id = ?", u["user_id"])
    s.asked("get_post", post_id=p["post_id"])
    latest = s.rng.random() < 0.4
    what = own_post_ref(s, u, p, latest)
    uid = ask(s, u, WORDS.reactions_to_mine, what=what)
    found = find_own_post(s, p, uid, latest)
    remember_post(s, found)
    s.call("get_post", post_id=found["post_id"], viewer_id=uid)
