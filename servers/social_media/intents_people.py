"""People on the social network: following (back, locals), cutting people off and blocking them, making peace,
sizing someone up; and looking around hashtags.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Scene, Skip
from servers.social_media.intents import (
    THEIR_CIRCLE,
    USERS,
    WORDS,
    about_other,
    ask,
    find_connection,
    find_user,
    handle,
    me,
    no_block,
    remember_other,
    remember_post,
    someone,
    user,
)
from servers.social_media.tools import UserId, social_media


def followable(s: Scene, u: dict[str, Any], where: str = "1=1", *params: Any) -> dict[str, Any]:
    return s.pick(
        USERS
        + " WHERE user_id != ? AND user_id NOT IN (SELECT followee_id FROM follows WHERE follower_id = ?) AND "
        + no_block("user_id", "?")
        + f" AND ({where})",
        u["user_id"],
        u["user_id"],
        u["user_id"],
        u["user_id"],
        *params,
    )


@social_media.intent(covers=("search_users", "follow_user", "get_feed"), weight=1.5, follows=True)
def follow(s: Scene) -> None:
    """A user starts following someone (named, or the author of the post the dialogue is about), and maybe looks at
    their timeline."""
    u = me(s)
    post = s.memory.get("post")
    other = s.memory.get("other")
    if other and other["user_id"] != u["user_id"] and s.rng.random() < 0.7:
        if s.memory.get("dropped") == other["user_id"]:
            raise Skip("the dialogue just cut them off")
        o = followable(s, u, "user_id = ?", other["user_id"])
        uid, oid = about_other(s, u, o, WORDS.follow)
    else:
        if post:
            raise Skip("the dialogue is about a post")
        o = followable(s, u)
        who = someone(s, o)
        uid = ask(s, u, WORDS.follow_new_person, who=who)
        oid = find_user(s, o, who)
    s.call("follow_user", user_id=uid, target_user_id=oid)
    remember_other(s, o, found=True)
    if s.by_chance(0.4):
        s.say(WORDS.follow_then_timeline)
        s.call("get_feed", user_id=uid, limit=10)


@social_media.intent(covers=("search_users", "list_connections", "follow_user"), follows=True)
def follow_back(s: Scene) -> None:
    """A user follows back the most recent of their followers they do not follow yet."""
    u = me(s, "user_id IN (SELECT followee_id FROM follows)")
    s.asked("list_connections", user_id=u["user_id"], kind="followers")
    uid = ask(s, u, WORDS.follow_back)
    fans = s.call("list_connections", user_id=uid, kind="followers", limit=20)["users"]
    mine = {r["followee_id"] for r in s.rows("SELECT followee_id FROM follows WHERE follower_id = ?", uid)}
    fresh = [f for f in fans if f["user_id"] not in mine]
    if not fresh:
        raise Skip("follows everyone back")
    if len(fresh) > 1 and fresh[0]["since"] == fresh[1]["since"]:
        raise Skip("a tie for the newest")
    s.call("follow_user", user_id=uid, target_user_id=fresh[0]["user_id"])
    remember_other(s, fresh[0], found=True)


@social_media.intent(covers=("search_users", "follow_user"), follows=True)
def locals_to_follow(s: Scene) -> None:
    """A user looks for people in their city (verified ones, maybe) and follows one they pick by name."""
    u = me(s)
    verified = s.rng.random() < 0.3
    where = "city = ?" + (" AND verified = 1" if verified else "")
    hits = s.rows(USERS + f" WHERE {where} ORDER BY user_id LIMIT 20", u["city"])
    o = followable(s, u, "city = ?" + (" AND verified = 1" if verified else ""), u["city"])
    if o["user_id"] not in [h["user_id"] for h in hits]:
        raise Skip("not on the first page")
    kind = "verified people" if verified else "people"
    uid = ask(s, u, WORDS.locals_to_follow, kind=kind, city=u["city"], h=handle(o))
    args: dict[str, Any] = {"city": u["city"], "verified": True} if verified else {"city": u["city"]}
    hit = s.discover(UserId, o["user_id"], missing="not listed", **args)
    s.call("follow_user", user_id=uid, target_user_id=hit["user_id"])
    remember_other(s, hit, found=True)


@social_media.intent(
    covers=("search_users", "list_connections", "unfollow_user", "block_user"), weight=1.5, follows=True
)
def cut_off(s: Scene) -> None:
    """A user drops someone they keep up with (found in their following list or by a search), and maybe shuts
    them out entirely."""
    u = me(s, "user_id IN (SELECT follower_id FROM follows)")
    other = s.memory.get("other")
    where = "user_id = ?" if other else "1=1"
    o = s.pick(
        USERS + f" WHERE user_id IN (SELECT followee_id FROM follows WHERE follower_id = ?) AND ({where})",
        u["user_id"],
        *([other["user_id"]] if other else []),
    )
    if other:
        uid, oid = about_other(s, u, o, WORDS.cut_off)
    else:
        by_list = s.rng.random() < 0.6
        uid = ask(s, u, WORDS.cut_off_new_person, who=handle(o))
        if by_list:
            oid = find_connection(s, o, uid, "following")
        else:
            oid = find_user(s, o)
    s.call("unfollow_user", user_id=uid, target_user_id=oid)
    s.memory["dropped"] = oid
    if s.by_chance(0.5):
        s.say(WORDS.cut_off_then_block)
        s.call("block_user", user_id=uid, target_user_id=oid)
        s.memory["blocked"] = s.memory["dropped"] = oid


@social_media.intent(covers=("search_users", "list_connections", "block_user"), follows=True)
def shut_out(s: Scene) -> None:
    """A user blocks someone who bothers them: a follower of theirs, or someone they name."""
    u = me(s, "user_id IN (SELECT followee_id FROM follows)")
    from_followers = s.rng.random() < 0.5
    if from_followers:
        o = s.pick(USERS + " WHERE user_id IN (SELECT follower_id FROM follows WHERE followee_id = ?)", u["user_id"])
    else:
        o = s.pick(
            USERS + " WHERE user_id != ? AND user_id NOT IN (SELECT blocked_id FROM blocks WHERE blocker_id = ?)",
            u["user_id"],
            u["user_id"],
        )
    uid = ask(s, u, WORDS.shut_out, h=handle(o), where=" (they follow me)" if from_followers else "")
    if from_followers:
        oid = find_connection(s, o, uid, "followers")
    else:
        oid = find_user(s, o)
    s.call("block_user", user_id=uid, target_user_id=oid)
    s.memory["blocked"] = s.memory["dropped"] = oid


@social_media.intent(covers=("search_users", "list_connections", "block_user"))
def make_peace(s: Scene) -> None:
    """A user lifts a block they set on someone (found in their blocked list)."""
    u = me(s, "user_id IN (SELECT blocker_id FROM blocks)")
    o = s.pick(USERS + " WHERE user_id IN (SELECT blocked_id FROM blocks WHERE blocker_id = ?)", u["user_id"])
    if s.memory.get("blocked") == o["user_id"]:
        raise Skip("the block of this dialogue has its own undo")
    uid = ask(s, u, WORDS.make_peace, h=handle(o))
    hit = s.find(
        "list_connections", "users", "user_id", o["user_id"], missing="not listed", user_id=uid, kind="blocked"
    )
    s.call("block_user", user_id=uid, target_user_id=hit["user_id"], unblock=True)
    remember_other(s, hit, found=True)


@social_media.intent(covers=("search_users", "get_user", "list_connections"), follows=True)
def size_up(s: Scene) -> None:
    """Someone looks up a person's profile (or the author of the post the dialogue is about), then who follows
    them or whom they follow."""
    other = s.memory.get("other")
    if other:
        o = user(s, other["user_id"])
        s.asked("get_user", user_id=o["user_id"])
        s.say(WORDS.size_up, h=handle(o))
        oid = find_user(s, o)
    else:
        o = s.pick(USERS + " WHERE user_id IN (SELECT followee_id FROM follows)")
        who = someone(s, o)
        s.say(WORDS.size_up_new_person, who=who)
        oid = find_user(s, o, who)
    s.call("get_user", user_id=oid)
    if not s.room(1, 1) or (other and s.rng.random() < 0.5):
        return
    kind = s.rng.choice(("followers", "following"))
    s.say(*THEIR_CIRCLE[kind], h=handle(o))
    s.call("list_connections", user_id=oid, kind=kind)


@social_media.intent(covers=("get_distinct_values", "list_posts"))
def trending(s: Scene) -> None:
    """Someone asks which hashtags people use most, then reads the latest posts under one."""
    s.say(WORDS.trending)
    tags = s.call("get_distinct_values", field="hashtag")["values"]
    if not tags:
        raise Skip("no tags")
    ranked = sorted(tags.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        raise Skip("a tie for the most used tag")
    top = ranked[0][0]
    if s.rng.random() < 0.5:
        s.say(WORDS.trending_then_latest)
        posts = s.call("list_posts", hashtag=str(top), limit=10)["posts"]
    else:
        since = (s.now - timedelta(days=7)).date().isoformat()
        s.say(WORDS.trending_then_past_week)
        posts = s.call("list_posts", hashtag=str(top), since=since)["posts"]
    if posts:
        remember_post(s, posts[0])


@social_media.intent(covers=("search_users", "list_posts", "like_post"), follows=True)
def browse_tag(s: Scene) -> None:
    """A user reads the newest posts under a hashtag they care about (since a date they name) and likes the
    newest one they have not liked yet."""
    u = me(s)
    tag = s.pick("SELECT tag FROM post_hashtags GROUP BY tag HAVING COUNT(*) >= 3 AND tag NOT IN ('tbt', 'life')")[
        "tag"
    ]
    since = s.rng.random() < 0.4
    start_day = date.fromordinal(s.now.date().toordinal() - s.rng.choice((7, 14, 30)))
    uid = ask(
        s, u, WORDS.browse_tag, tag=tag, when=f" since {start_day.strftime('%B')} {start_day.day}" if since else ""
    )
    args: dict[str, Any] = {"hashtag": tag, "viewer_id": uid, "limit": 10}
    if since:
        args["since"] = start_day.isoformat()
    posts = s.call("list_posts", **args)["posts"]
    if not posts:
        raise Skip("nothing under the tag")
    top = posts[0]
    if top["author_id"] == uid or s.rows("SELECT 1 FROM likes WHERE user_id = ? AND post_id = ?", uid, top["post_id"]):
        raise Skip("the newest is theirs or liked already")
    s.call("like_post", user_id=uid, post_id=top["post_id"])
    s.memory["liked"] = top["post_id"]
    remember_post(s, top)
    remember_other(s, {"user_id": top["author_id"], "handle": top["handle"]}, found=True)
