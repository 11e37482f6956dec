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
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.social_media.tools import UserId

WORDS = phrasings(__package__)

USERS = "SELECT user_id, handle, display_name, city, verified FROM users"
POSTS = "SELECT p.*, u.handle, u.display_name FROM posts p JOIN users u ON u.user_id = p.author_id"
NO_BLOCK = (
    "NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = {a} AND b.blocked_id = {b}) "
    "OR (b.blocker_id = {b} AND b.blocked_id = {a}))"
)

THEIR_CIRCLE = WORDS.family("their_circle")


# The person talking ------------------------------------------------------------------------------


SPEAKER = Speaker(
    UserId,
    select=USERS,
    memory="me",
    name="display_name",
    search=Search(by=("handle",), missing="the handle does not find the user"),
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


def ask(s: Scene, u: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> str:
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
    hit = s.discover(UserId, u["user_id"], missing="the search does not find the user", query=query)
    remember_other(s, hit, found=True)
    return str(hit["user_id"])


def about_other(s: Scene, u: dict[str, Any], o: dict[str, Any], *phrasings: Said) -> tuple[str, str]:
    """A later turn about the other person of the dialogue (``{h}``), then the agent finding the user and them."""
    s.say(*phrasings, h=handle(o))
    return find_me(s, u), find_user(s, o)


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


def ask_about(
    s: Scene, u: dict[str, Any], p: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any
) -> tuple[str, dict[str, Any]]:
    """The user's turn about someone else's post (``{what}``/``{What}``: as ``describe`` names it), then the agent
    finding the user and the post."""
    what, how, said = describe(s, p, u["user_id"])
    uid = ask(s, u, *phrasings, minimal=minimal, what=what, What=what[:1].upper() + what[1:], **slots)
    return uid, locate(s, p, how, said, uid)


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
    return str(s.rng.choice(WORDS.comments))
