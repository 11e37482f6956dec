"""What people want of the social network: reacting to friends' posts, following and cutting people
off, posting and taking posts down, looking around hashtags, feeds and followers.

People call themselves and others by handle or display name ("I'm @meisha", "Kwame Lewis") and
posts by who wrote them and a few of their words ("Kwame's post about packing light"), by hashtag,
as someone's latest post, or as something in their feed. The agent finds user ids with
``search_users`` (or the user's own ``list_connections``) and posts with ``list_posts`` (by author,
text or hashtag), ``get_user`` (latest post ids) or ``get_feed``.

A dialogue keeps who talks: the person is ``memory["me"]`` once their id was found; the post it is
about is ``memory["post"]`` and the other person ``memory["other"]``, so follow-ups ("and who else
liked it?", "follow them too") act on them. Short follow-ups live in ``intents_followups``, the
user's own posts (sharing, deleting) in ``intents_own``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from hub.kit.speaker import Says, Search, Speaker
from servers.social_media.tools import social_media

USERS = "SELECT user_id, handle, display_name, city, verified FROM users"
POSTS = "SELECT p.*, u.handle, u.display_name FROM posts p JOIN users u ON u.user_id = p.author_id"
NO_BLOCK = (
    "NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = {a} AND b.blocked_id = {b}) "
    "OR (b.blocker_id = {b} AND b.blocked_id = {a}))"
)
COMMENTS = (
    "Congrats, well deserved!",
    "Love this, thanks for sharing.",
    "Save me a seat next time!",
    "This made my day.",
    "So true, couldn't agree more.",
    "Looks amazing, where was this?",
    "Ha, I needed this today.",
    "Count me in next time!",
)
POST_TEXTS = (
    "Finally finished the bookshelf I've been building all month. #diy",
    "Sunday long run done, 18 km! #running",
    "Anyone up for board games on Friday?",
    "Trying a new sourdough recipe today. #baking",
    "Back from a week offline, what did I miss?",
    "Big news coming soon, stay tuned!",
    "First swim of the year, the lake was freezing. #summer",
    "Looking for podcast recommendations, go! #podcasts",
)


# The person talking ------------------------------------------------------------------------------


SPEAKER = Speaker(
    table="users",
    key="user_id",
    select=USERS,
    memory="me",
    name="display_name",
    search=Search("search_users", "users", by=("handle",), missing="the handle does not find the user"),
    keep=("handle",),
    late=True,
)
me = SPEAKER.me
find_me = SPEAKER.find
SAYS = (
    Says("I'm @{handle}", "handle"),
    Says("@{handle} here", "handle"),
    Says("This is {display_name} (@{handle})", "handle"),
    Says("It's {display_name}, @{handle} on here", "handle"),
)


def intro(s: Scene, u: dict[str, Any]) -> str:
    """How the person says who they are (nothing once found): one of ``SAYS`` drawn (``Speaker.who`` would always
    take the first, every handle being unique)."""
    return replace(SPEAKER, says=(s.rng.choice(SAYS),)).who(s, u)


def ask(s: Scene, u: dict[str, Any], *phrasings: str, minimal: Sequence[str] = (), **slots: Any) -> str:
    """The user's turn (``{me}``: ``intro``), then the agent finding their own user id."""
    s.say(*phrasings, minimal=minimal, me=intro(s, u), **slots)
    return find_me(s, u)


def handle(u: dict[str, Any]) -> str:
    return "@" + str(u["handle"])


def find_user(s: Scene, u: dict[str, Any], said: str = "") -> str:
    """Another user's id off a search by what the user said of them (a name), else their handle; none when the
    dialogue is already about them."""
    other = s.memory.get("other")
    if other and other["user_id"] == u["user_id"] and other.get("found"):
        return str(u["user_id"])
    query = said if said and not said.startswith("@") else u["handle"]
    hit = s.find(
        "search_users", "users", "user_id", u["user_id"], missing="the search does not find the user", query=query
    )
    remember_other(s, hit, found=True)
    return str(hit["user_id"])


def find_connection(s: Scene, o: dict[str, Any], uid: str, kind: str) -> str:
    """Another user's id off the user's own list of people they follow or who follow them (``kind``)."""
    hit = s.find(
        "list_connections", "users", "user_id", o["user_id"], missing="not listed", user_id=uid, kind=kind, limit=100
    )
    remember_other(s, o, found=True)
    return str(hit["user_id"])


def remember_other(s: Scene, u: dict[str, Any], found: bool = True) -> None:
    s.memory["other"] = {
        "user_id": u["user_id"],
        "handle": u["handle"],
        "display_name": u.get("display_name") or "",
        "found": found,
    }


def someone(s: Scene, u: dict[str, Any], by_handle: bool = False) -> str:
    """Another user as people name them: display name when unique, else the handle."""
    refs = [Ref("{h}", "SELECT user_id FROM users WHERE handle = ?", u["handle"])]
    if not by_handle and s.rng.random() < 0.6:
        refs.insert(0, Ref("{name}", "SELECT user_id FROM users WHERE display_name = ?", u["display_name"]))
    return s.refer(u["user_id"], *refs, name=u["display_name"], h=handle(u))


def no_block(a: str, b: str) -> str:
    """SQL: no block stands between the users in columns/placeholders ``a`` and ``b``."""
    return NO_BLOCK.format(a=a, b=b)


def visible(s: Scene, viewer: str, author: str) -> bool:
    """No block stands between the two users (either way)."""
    return viewer == author or bool(s.rows("SELECT 1 WHERE " + no_block("?", "?"), viewer, author, author, viewer))


def user(s: Scene, user_id: str) -> dict[str, Any]:
    return s.rows(USERS + " WHERE user_id = ?", user_id)[0]


# Posts as people recall them ---------------------------------------------------------------------


def words(content: str) -> str:
    """A few words of a post's text that a person remembers (before any hashtag)."""
    text = content.split("#", 1)[0].strip().rstrip(".!?,")
    return " ".join(text.split()[:4])


def post_ref(s: Scene, p: dict[str, Any], who: str) -> str:
    w = words(p["content"])
    if len(w) < 8:
        raise Skip("too few words to name the post")
    return s.refer(
        p["post_id"],
        Ref(
            '{who}\'s post that starts "{w}"',
            "SELECT post_id FROM posts WHERE author_id = ? AND content LIKE ? || '%'",
            p["author_id"],
            w,
        ),
        Ref(
            '{who}\'s post {d} that starts "{w}"',
            "SELECT post_id FROM posts WHERE author_id = ? AND content LIKE ? || '%' AND substr(created_at, 1, 10) = ?",
            p["author_id"],
            w,
            p["created_at"][:10],
        ),
        who=who,
        w=w,
        d=when(s, p["created_at"]),
    )


def when(s: Scene, created_at: str) -> str:
    """'from yesterday', 'from last Tuesday', 'on May 3': when a post went up, as a person says it."""
    d = day(created_at, s.now)
    return d if d.startswith("on ") else f"from {d}"


def latest_ref(s: Scene, p: dict[str, Any], who: str) -> str:
    return s.refer(
        p["post_id"],
        Ref(
            "{who}'s latest post",
            "SELECT post_id FROM posts WHERE author_id = ? ORDER BY created_at DESC, post_id DESC LIMIT 1",
            p["author_id"],
        ),
        who=who,
    )


def own_post_ref(s: Scene, u: dict[str, Any], p: dict[str, Any], latest: bool, dated: bool = False) -> str:
    """How a user names a post of their own: their latest, or by its first words (``dated``: or by those words and
    the day it went up)."""
    if latest:
        return s.refer(
            p["post_id"],
            Ref(
                "my latest post",
                "SELECT post_id FROM posts WHERE author_id = ? ORDER BY created_at DESC, post_id DESC LIMIT 1",
                u["user_id"],
            ),
        )
    w = words(p["content"])
    if len(w) < 8:
        raise Skip("too few words")
    refs = [
        Ref(
            'my post that starts "{w}"',
            "SELECT post_id FROM posts WHERE author_id = ? AND content LIKE ? || '%'",
            u["user_id"],
            w,
        )
    ]
    if not dated:
        return s.refer(p["post_id"], *refs, w=w)
    refs.append(
        Ref(
            'my post {d} that starts "{w}"',
            "SELECT post_id FROM posts WHERE author_id = ? AND content LIKE ? || '%' AND substr(created_at, 1, 10) = ?",
            u["user_id"],
            w,
            p["created_at"][:10],
        )
    )
    return s.refer(p["post_id"], *refs, w=w, d=when(s, p["created_at"]))


def find_own_post(s: Scene, p: dict[str, Any], uid: str, latest: bool) -> dict[str, Any]:
    """The agent lists the user's posts: the latest one only, or those with the words the user quoted."""
    args: dict[str, Any] = (
        {"author_id": uid, "limit": 1} if latest else {"author_id": uid, "query": words(p["content"])}
    )
    return s.find("list_posts", "posts", "post_id", p["post_id"], missing="not listed", **args)


def first_tag(s: Scene, post_id: str) -> str | None:
    return s.value("SELECT tag FROM post_hashtags WHERE post_id = ? ORDER BY tag LIMIT 1", post_id)


def describe(s: Scene, p: dict[str, Any], uid_known: str) -> tuple[str, str, str]:
    """How the user names someone else's post, and so how the agent will find it: by author and words, by words
    alone (the author's handle tells the hits apart), by hashtag, as the author's latest, or from their feed."""
    author = user(s, p["author_id"])
    ways = ["author", "author", "words", "latest"]
    if first_tag(s, p["post_id"]):
        ways.append("tag")
    if s.rows("SELECT 1 FROM follows WHERE follower_id = ? AND followee_id = ?", uid_known, p["author_id"]) and p[
        "post_id"
    ] in [r["post_id"] for r in feed_page(s, uid_known)]:
        ways += ["feed", "feed"]
    how = s.rng.choice(ways)
    if how in ("author", "latest"):
        who = someone(s, author)
        return (post_ref(s, p, who) if how == "author" else latest_ref(s, p, who)), how, who
    if how == "tag":
        tag = first_tag(s, p["post_id"])
        w = words(p["content"])
        if len(w) < 8:
            raise Skip("too few words to name the post")
        text = s.refer(
            p["post_id"],
            Ref(
                '{who}\'s #{tag} post that starts "{w}"',
                "SELECT post_id FROM posts WHERE author_id = ? AND content LIKE ? || '%' AND post_id IN "
                "(SELECT post_id FROM post_hashtags WHERE tag = ?)",
                p["author_id"],
                w,
                tag,
            ),
            who=handle(author),
            tag=tag,
            w=w,
        )
        return text, how, handle(author)
    text = post_ref(s, p, handle(author))
    if how == "feed":
        return text.replace("'s post", "'s post in my feed", 1), how, handle(author)
    return text, how, handle(author)


def feed_page(s: Scene, user_id: str) -> list[dict[str, Any]]:
    """The first page of a user's feed as ``get_feed`` shows it (posts of people they follow, no blocks)."""
    return s.rows(
        "SELECT p.post_id FROM posts p WHERE p.author_id IN (SELECT followee_id FROM follows WHERE follower_id = ?) "
        "AND " + no_block("p.author_id", "?") + " ORDER BY p.created_at DESC, p.post_id DESC LIMIT 20",
        user_id,
        user_id,
        user_id,
    )


def locate(s: Scene, p: dict[str, Any], how: str, said: str, uid: str) -> dict[str, Any]:
    """The agent's discovery of a post the way the user described it; remembers it for follow-ups."""
    author = user(s, p["author_id"])
    w = words(p["content"])
    missing = "the post is not on the first page"
    if how == "feed":
        found = s.find("get_feed", "posts", "post_id", p["post_id"], missing=missing, user_id=uid)
    elif how == "words":
        found = s.find("list_posts", "posts", "post_id", p["post_id"], missing=missing, query=w, viewer_id=uid)
    elif how == "tag":
        tag = first_tag(s, p["post_id"])
        found = s.find("list_posts", "posts", "post_id", p["post_id"], missing=missing, hashtag=tag, query=w)
    elif how == "latest":
        aid = find_user(s, author, said)
        if s.rng.random() < 0.5:
            latest = s.call("get_user", user_id=aid)["latest_post_ids"]
            if not latest or latest[0] != p["post_id"]:
                raise Skip("not the latest")
            found = {"post_id": latest[0], "author_id": aid, "handle": author["handle"], "content": p["content"]}
        else:
            found = s.find("list_posts", "posts", "post_id", p["post_id"], missing=missing, author_id=aid, limit=1)
    else:
        aid = find_user(s, author, said)
        found = s.find("list_posts", "posts", "post_id", p["post_id"], missing=missing, author_id=aid, query=w)
    remember_post(s, found)
    if not s.memory.get("other") or s.memory["other"]["user_id"] != author["user_id"]:
        remember_other(s, author)
    return found


def remember_post(s: Scene, p: dict[str, Any]) -> None:
    s.memory["post"] = {
        "post_id": p["post_id"],
        "author_id": p["author_id"],
        "content": p.get("content", ""),
        "handle": p.get("handle", ""),
    }


def others_post(s: Scene, u: dict[str, Any], where: str = "1=1", *params: Any) -> dict[str, Any]:
    """A post by someone else that no block keeps from ``u``, fitting ``where``."""
    return s.pick(
        POSTS + " WHERE p.author_id != ? AND " + no_block("p.author_id", "?") + f" AND ({where})",
        u["user_id"],
        u["user_id"],
        u["user_id"],
        *params,
    )


def comment_text(s: Scene) -> str:
    return str(s.rng.choice(COMMENTS))


# Reacting to posts -------------------------------------------------------------------------------


@social_media.intent(
    covers=("search_users", "list_posts", "get_feed", "get_user", "like_post", "add_comment"), weight=2.0, follows=True
)
def cheer_on(s: Scene) -> None:
    """A user likes a friend's post (found by author, words, hashtag, as the latest, or in their feed), and maybe
    leaves a comment on it."""
    u = me(s)
    p = others_post(s, u, "p.post_id NOT IN (SELECT post_id FROM likes WHERE user_id = ?)", u["user_id"])
    what, how, said = describe(s, p, u["user_id"])
    uid = ask(
        s,
        u,
        "{me}Give {what} a heart.",
        "{me}I love {what}, show it some love.",
        "{me}Like {what} for me.",
        "{me}Can you heart {what}?",
        minimal=["{me}{What} deserves some love."],
        what=what,
        What=what[:1].upper() + what[1:],
    )
    found = locate(s, p, how, said, uid)
    s.call("like_post", user_id=uid, post_id=found["post_id"])
    s.memory["liked"] = found["post_id"]
    if s.room(1, 1) and s.rng.random() < 0.4:
        text = comment_text(s)
        s.say("And tell them: {t}", "Also drop a reply under it: {t}", 'Write under it "{t}"', t=text)
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
        s.say(
            "Also comment on it[: {body}].",
            "Leave a note under that post[ saying {body}].",
            "Reply to it for me[: {body}].",
            body=body,
        )
        s.call("add_comment", user_id=find_me(s, u), post_id=known["post_id"], content=body)
        return
    p = others_post(s, u)
    what, how, said = describe(s, p, u["user_id"])
    uid = ask(
        s,
        u,
        "{me}Comment on {what}[: {body}].",
        "{me}Leave a reply under {what}[ saying {body}].",
        "{me}I want to answer {what}[, write {body}].",
        minimal=["{me}Reply to {what} for me[: {body}]."],
        what=what,
        body=body,
    )
    found = locate(s, p, how, said, uid)
    s.call("add_comment", user_id=uid, post_id=found["post_id"], content=body)
    if s.room(1, 1) and s.rng.random() < 0.4:
        s.say(
            "What have other people said under it?",
            "Show me the whole thread now.",
            "Who else commented there?",
        )
        s.call("get_post", post_id=found["post_id"], viewer_id=uid)


@social_media.intent(covers=("search_users", "list_posts", "get_feed", "get_user", "unlike_post"), follows=True)
def take_back_like(s: Scene) -> None:
    """A user removes a like they gave by mistake."""
    u = me(s, "user_id IN (SELECT l.user_id FROM likes l JOIN posts p USING (post_id) WHERE l.user_id != p.author_id)")
    p = others_post(s, u, "p.post_id IN (SELECT post_id FROM likes WHERE user_id = ?)", u["user_id"])
    if s.memory.get("liked") == p["post_id"]:
        raise Skip("the like of this dialogue has its own undo")
    what, how, said = describe(s, p, u["user_id"])
    uid = ask(
        s,
        u,
        "{me}I liked {what} by accident, undo that.",
        "{me}Remove my like from {what}.",
        "{me}Take my heart off {what}.",
        minimal=["{me}I didn't mean to like {what}."],
        what=what,
    )
    found = locate(s, p, how, said, uid)
    s.call("unlike_post", user_id=uid, post_id=found["post_id"])


@social_media.intent(covers=("search_users", "get_feed", "like_post", "add_comment"), weight=1.5, follows=True)
def catch_up(s: Scene) -> None:
    """A user reads what the people they follow posted lately, then reacts to the newest one."""
    u = me(s, "user_id IN (SELECT follower_id FROM follows)")
    s.asked("get_feed", user_id=u["user_id"])
    uid = ask(
        s,
        u,
        "{me}What have the people I follow been up to?",
        "{me}Catch me up on my timeline.",
        "{me}Anything new from the people I keep up with?",
        minimal=["{me}What did I miss?"],
    )
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
        s.say("Answer the newest one with: {t}", 'Reply "{t}" under the first one.', t=text)
        s.call("add_comment", user_id=uid, post_id=top["post_id"], content=text)
        return
    s.say("Like the newest one.", "Heart the top one for me.", "Give the most recent one a like.")
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
    uid = ask(
        s,
        u,
        "{me}How is {what} doing? Likes, comments?",
        "{me}Who reacted to {what}?",
        "{me}Did anyone comment on {what}?",
        minimal=["{me}Any love for {what}?"],
        what=what,
    )
    found = find_own_post(s, p, uid, latest)
    remember_post(s, found)
    s.call("get_post", post_id=found["post_id"], viewer_id=uid)


# People --------------------------------------------------------------------------------------------


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
        s.say(
            "Follow them too.",
            "I want to see more from {h}: follow them.",
            "Add {h} to the people I keep up with.",
            h=handle(o),
        )
        uid = find_me(s, u)
        oid = find_user(s, o)
    else:
        if post:
            raise Skip("the dialogue is about a post")
        o = followable(s, u)
        who = someone(s, o)
        uid = ask(
            s,
            u,
            "{me}I want to see what {who} shares from now on.",
            "{me}Add {who} to the people I keep up with.",
            "{me}Subscribe me to {who}.",
            minimal=["{me}I want {who} in my timeline."],
            who=who,
        )
        oid = find_user(s, o, who)
    s.call("follow_user", user_id=uid, target_user_id=oid)
    remember_other(s, o, found=True)
    if s.room(1, 1) and s.rng.random() < 0.4:
        s.say(
            "What's in my timeline now?",
            "Show me my home timeline.",
            "What are the latest things people I keep up with posted?",
        )
        s.call("get_feed", user_id=uid, limit=10)


@social_media.intent(covers=("search_users", "list_connections", "follow_user"), follows=True)
def follow_back(s: Scene) -> None:
    """A user follows back the most recent of their followers they do not follow yet."""
    u = me(s, "user_id IN (SELECT followee_id FROM follows)")
    s.asked("list_connections", user_id=u["user_id"], kind="followers")
    uid = ask(
        s,
        u,
        "{me}Who started following me lately? Follow back the newest one I'm not following yet.",
        "{me}Follow back my most recent new follower if I don't follow them already.",
        "{me}Check my followers and follow back the latest one I haven't followed.",
        minimal=["{me}Return the follow for my newest follower."],
    )
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
    uid = ask(
        s,
        u,
        "{me}Who are the {kind} here from {city}? Follow {h} among them.",
        "{me}Find {kind} in {city}; I want to follow {h}.",
        "{me}Show me {kind} based in {city} and follow {h}.",
        minimal=["{me}Follow {h} from the {city} crowd."],
        kind=kind,
        city=u["city"],
        h=handle(o),
    )
    args: dict[str, Any] = {"city": u["city"], "verified": True} if verified else {"city": u["city"]}
    hit = s.find("search_users", "users", "user_id", o["user_id"], missing="not listed", **args)
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
        s.say(
            "Actually, stop following {h}.",
            "On second thought, unfollow them.",
            "I've changed my mind about {h}, drop them from my list.",
            h=handle(o),
        )
        uid = find_me(s, u)
        oid = find_user(s, o)
    else:
        by_list = s.rng.random() < 0.6
        uid = ask(
            s,
            u,
            "{me}I'm done with {who}'s posts, stop showing them to me.",
            "{me}I don't want to keep up with {who} anymore.",
            "{me}Take {who} off the list of people I keep up with.",
            minimal=["{me}Enough of {who}."],
            who=handle(o),
        )
        if by_list:
            oid = find_connection(s, o, uid, "following")
        else:
            oid = find_user(s, o)
    s.call("unfollow_user", user_id=uid, target_user_id=oid)
    s.memory["dropped"] = oid
    if s.room(1, 1) and s.rng.random() < 0.5:
        s.say(
            "Actually, make sure they can't reach me or see my stuff at all.",
            "And shut them out completely, I don't want them seeing my posts.",
            "Go further: cut all contact with them.",
        )
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
    uid = ask(
        s,
        u,
        "{me}{h} keeps bothering me{where}. Block them.",
        "{me}I want {h}{where} gone: they shouldn't see or reach me.",
        "{me}Please shut {h}{where} out of my account.",
        minimal=["{me}Block {h}{where}."],
        h=handle(o),
        where=" (they follow me)" if from_followers else "",
    )
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
    uid = ask(
        s,
        u,
        "{me}I blocked {h} a while ago; lift that.",
        "{me}Unblock {h}, we've made up.",
        "{me}Let {h} see my posts again: take the block off.",
        minimal=["{me}I'm fine with {h} again."],
        h=handle(o),
    )
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
        s.say(
            "Who is {h} anyway? Where are they based?",
            "Tell me a bit about {h}.",
            "What's {h}'s profile like?",
            h=handle(o),
        )
        oid = find_user(s, o)
    else:
        o = s.pick(USERS + " WHERE user_id IN (SELECT followee_id FROM follows)")
        who = someone(s, o)
        s.say(
            "Tell me about {who}: where are they, how many people follow them?",
            "What's {who}'s profile like?",
            "Look up {who} for me: bio, city, audience.",
            minimal=["Who is {who}?"],
            who=who,
        )
        oid = find_user(s, o, who)
    s.call("get_user", user_id=oid)
    if not s.room(1, 1) or (other and s.rng.random() < 0.5):
        return
    kind = s.rng.choice(("followers", "following"))
    if kind == "followers":
        s.say("Who are their followers?", "Show me who keeps up with them.", "List the people following them.")
    else:
        s.say("And who do they follow?", "Whose posts do they keep up with?", "Which accounts do they follow?")
    s.call("list_connections", user_id=oid, kind=kind)


@social_media.intent(covers=("get_distinct_values", "list_posts"))
def trending(s: Scene) -> None:
    """Someone asks which hashtags people use most, then reads the latest posts under one."""
    s.say(
        "What hashtags are people using the most?",
        "Which tags are popular here?",
        "Give me the hashtags in use, most common first.",
        minimal=["Popular tags?"],
    )
    tags = s.call("get_distinct_values", field="hashtag")["values"]
    if not tags:
        raise Skip("no tags")
    ranked = sorted(tags.items(), key=lambda kv: -kv[1])
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        raise Skip("a tie for the most used tag")
    top = ranked[0][0]
    if s.rng.random() < 0.5:
        s.say(
            "Show me the newest posts under the most common one.",
            "What are people saying under the top one?",
            "Latest posts with the most used tag, please.",
        )
        posts = s.call("list_posts", hashtag=str(top), limit=10)["posts"]
    else:
        since = (s.now - timedelta(days=7)).date().isoformat()
        s.say(
            "What went up under the top one this past week?",
            "Any posts with the most used tag in the last seven days?",
            "Show me this week's posts under the most common one.",
        )
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
        s,
        u,
        "{me}What's new under #{tag}{when}? Like the newest one for me.",
        "{me}Show me #{tag} posts{when} and heart the most recent.",
        "{me}I follow #{tag}: anything{when}? Give the latest a like.",
        minimal=["{me}Like the newest #{tag} post{when}."],
        tag=tag,
        when=f" since {start_day.strftime('%B')} {start_day.day}" if since else "",
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
