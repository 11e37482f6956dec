"""What people want of the social network: reacting to friends' posts, following and cutting people
off, posting and taking posts down, looking around hashtags and followers.

People call themselves and others by handle or display name ("I'm @meisha", "Kwame Lewis") and
posts by who wrote them and a few of their words ("Kwame's post about packing light"). The agent
finds user ids with ``search_users`` (or the user's own ``list_connections``) and posts with
``list_posts`` (by author and text).
"""

from __future__ import annotations

from typing import Any

from hub.synth.intent import Ref, Scene, Skip, day
from servers.social_media.tools import social_media

USERS = "SELECT user_id, handle, display_name, city FROM users"
COMMENTS = (
    "Congrats, well deserved!",
    "Love this, thanks for sharing.",
    "Save me a seat next time!",
    "This made my day.",
    "So true, couldn't agree more.",
    "Looks amazing, where was this?",
)
POSTS = (
    "Finally finished the bookshelf I've been building all month. #diy",
    "Sunday long run done, 18 km! #running",
    "Anyone up for board games on Friday?",
    "Trying a new sourdough recipe today. #baking",
    "Back from a week offline, what did I miss?",
    "Big news coming soon, stay tuned!",
)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    u = s.pick(USERS + f" WHERE {where}", *params)
    s.be(u["display_name"])
    return u


def handle(u: dict[str, Any]) -> str:
    return "@" + str(u["handle"])


def find_user(s: Scene, u: dict[str, Any], said: str = "") -> str:
    """A user id off a search by what the user said of them (a name) or else their handle."""
    query = said if said and not said.startswith("@") else u["handle"]
    hit = s.find(
        "search_users", "users", "user_id", u["user_id"], missing="the handle does not find the user", query=query
    )
    return str(hit["user_id"])


def someone(s: Scene, u: dict[str, Any]) -> str:
    """Another user as people name them: display name when unique, else the handle."""
    return s.refer(
        u["user_id"],
        Ref("{name}", "SELECT user_id FROM users WHERE display_name = ?", u["display_name"]),
        Ref("{h}", "SELECT user_id FROM users WHERE handle = ?", u["handle"]),
        name=u["display_name"],
        h=handle(u),
    )


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
            '{who}\'s post from {d} that starts "{w}"',
            "SELECT post_id FROM posts WHERE author_id = ? AND content LIKE ? || '%' AND substr(created_at, 1, 10) = ?",
            p["author_id"],
            w,
            p["created_at"][:10],
        ),
        who=who,
        w=w,
        d=day(p["created_at"], s.now),
    )


@social_media.intent(covers=("search_users", "list_posts", "like_post", "add_comment"), weight=1.5)
def cheer_on(s: Scene) -> None:
    """A user likes a friend's post and leaves a comment on it."""
    p = s.pick("SELECT p.* FROM posts p")
    u = me(
        s, "user_id != ? AND user_id NOT IN (SELECT user_id FROM likes WHERE post_id = ?)", p["author_id"], p["post_id"]
    )
    if s.rows(
        "SELECT 1 FROM blocks WHERE (blocker_id = ? AND blocked_id = ?) OR (blocker_id = ? AND blocked_id = ?)",
        u["user_id"],
        p["author_id"],
        p["author_id"],
        u["user_id"],
    ):
        raise Skip("a block stands between them")
    author = s.rows(USERS + " WHERE user_id = ?", p["author_id"])[0]
    who = someone(s, author)
    what = post_ref(s, p, who)
    s.say(
        "I'm {me}. Give {what} a heart.",
        "This is {me}: I love {what}, show it some love.",
        "{me} here. Like {what} for me.",
        minimal=["I'm {me}; {what} deserves some love."],
        me=handle(u),
        what=what,
    )
    uid = find_user(s, u)
    aid = find_user(s, author, who)
    found = s.find(
        "list_posts", "posts", "post_id", p["post_id"], missing="not found", author_id=aid, query=words(p["content"])
    )
    s.call("like_post", user_id=uid, post_id=found["post_id"])
    text = s.rng.choice(COMMENTS)
    s.say("And tell them: {t}", "Also drop a reply under it: {t}", 'Write under it "{t}"', t=text)
    s.call("add_comment", user_id=uid, post_id=found["post_id"], content=text)


@social_media.intent(covers=("search_users", "follow_user", "get_feed"), weight=1.5)
def follow(s: Scene) -> None:
    """A user starts following someone and looks at their feed."""
    u = me(s)
    other = s.pick(
        USERS + " WHERE user_id != ? AND user_id NOT IN (SELECT followee_id FROM follows WHERE "
        "follower_id = ?) AND user_id NOT IN (SELECT blocked_id FROM blocks WHERE blocker_id = ?) "
        "AND user_id NOT IN (SELECT blocker_id FROM blocks WHERE blocked_id = ?)",
        u["user_id"],
        u["user_id"],
        u["user_id"],
        u["user_id"],
    )
    who = someone(s, other)
    s.say(
        "I'm {me}. I want to see what {who} shares from now on.",
        "{me} here: add {who} to the people I keep up with.",
        "This is {me}. Subscribe me to {who}.",
        minimal=["I'm {me}; I want {who} in my timeline."],
        me=handle(u),
        who=who,
    )
    uid = find_user(s, u)
    oid = find_user(s, other, who)
    s.call("follow_user", user_id=uid, target_user_id=oid)
    s.say(
        "What's in my timeline now?",
        "Show me my home timeline.",
        "What are the latest things people I keep up with posted?",
    )
    s.call("get_feed", user_id=uid, limit=10)


@social_media.intent(covers=("search_users", "list_connections", "unfollow_user", "block_user"), weight=1.5)
def cut_off(s: Scene) -> None:
    """A user drops someone they keep up with, and maybe shuts them out entirely."""
    u = me(s, "user_id IN (SELECT follower_id FROM follows)")
    other = s.pick(
        USERS + " WHERE user_id IN (SELECT followee_id FROM follows WHERE follower_id = ?) AND user_id "
        "NOT IN (SELECT blocked_id FROM blocks WHERE blocker_id = ?)",
        u["user_id"],
        u["user_id"],
    )
    s.say(
        "I'm {me}. I'm done with {who}'s posts, stop showing them to me.",
        "{me} here: I don't want to keep up with {who} anymore.",
        "This is {me}. Take {who} off the list of people I keep up with.",
        minimal=["I'm {me}; enough of {who}."],
        me=handle(u),
        who=handle(other),
    )
    uid = find_user(s, u)
    following = [
        x
        for x in s.call("list_connections", user_id=uid, kind="following", limit=100)["users"]
        if x["handle"] == other["handle"]
    ]
    if not following:
        raise Skip("not on the first page")
    s.call("unfollow_user", user_id=uid, target_user_id=following[0]["user_id"])
    if s.rng.random() < 0.7:
        s.say(
            "Actually, make sure they can't reach me or see my stuff at all.",
            "And shut them out completely, I don't want them seeing my posts.",
            "Go further: cut all contact with them.",
        )
        s.call("block_user", user_id=uid, target_user_id=following[0]["user_id"])
    else:
        s.say("Who do I still keep up with?", "So who's left on my list?", "Who am I still subscribed to?")
        s.call("list_connections", user_id=uid, kind="following")


@social_media.intent(covers=("search_users", "create_post", "get_post", "delete_post"), weight=1.5)
def share(s: Scene) -> None:
    """A user shares something new, then checks it or takes it back down."""
    u = me(s)
    text = s.rng.choice(POSTS)
    body = s.given(text, f'"{text}"', "text", "create_post", "content")
    s.say(
        "I'm {me}. Put this up on my profile[: {body}]",
        "{me} here. Share this for me[: {body}]",
        "This is {me}; publish a new update[: {body}]",
        minimal=["I'm {me}; I have something to share[: {body}]"],
        me=handle(u),
        body=body,
    )
    uid = find_user(s, u)
    out = s.call("create_post", author_id=uid, content=body)
    if s.rng.random() < 0.5:
        s.say(
            "Hmm, I posted that too soon. Take it down.",
            "On second thought, remove it.",
            "Actually, I regret that one, pull it.",
        )
        s.call("delete_post", user_id=uid, post_id=out["post_id"])
    else:
        s.say(
            "Did the hashtags get picked up? Show me the post.",
            "Let me see how it looks now.",
            "Pull it up so I can check it.",
        )
        s.call("get_post", post_id=out["post_id"], viewer_id=uid)


@social_media.intent(covers=("search_users", "list_posts", "unlike_post", "get_post"))
def take_back_like(s: Scene) -> None:
    """A user removes a like they gave by mistake."""
    lk = s.pick("SELECT l.user_id, p.* FROM likes l JOIN posts p USING (post_id) WHERE l.user_id != p.author_id")
    u = s.rows(USERS + " WHERE user_id = ?", lk["user_id"])[0]
    s.be(u["display_name"])
    author = s.rows(USERS + " WHERE user_id = ?", lk["author_id"])[0]
    what = post_ref(s, lk, handle(author))
    s.say(
        "I'm {me}. I liked {what} by accident, undo that.",
        "{me} here: remove my like from {what}.",
        "This is {me}. Take my heart off {what}.",
        minimal=["I'm {me}; I didn't mean to like {what}."],
        me=handle(u),
        what=what,
    )
    uid = find_user(s, u)
    found = s.find(
        "list_posts", "posts", "post_id", lk["post_id"], missing="not listed", query=words(lk["content"]), viewer_id=uid
    )
    s.call("unlike_post", user_id=uid, post_id=found["post_id"])
    s.say("How many likes does it have now?", "What does it stand at now?", "Who else still likes it?")
    s.call("get_post", post_id=found["post_id"], viewer_id=uid)


@social_media.intent(covers=("search_users", "get_user", "list_connections"))
def size_up(s: Scene) -> None:
    """Someone looks up a person's profile, then at who follows them."""
    u = s.pick(USERS + " WHERE user_id IN (SELECT followee_id FROM follows)")
    who = someone(s, u)
    s.say(
        "Tell me about {who}: where are they, how many people follow them?",
        "What's {who}'s profile like?",
        "Look up {who} for me: bio, city, audience.",
        minimal=["Who is {who}?"],
        who=who,
    )
    uid = find_user(s, u, who)
    s.call("get_user", user_id=uid)
    s.say("Who are their followers?", "Show me who keeps up with them.", "List the people following them.")
    s.call("list_connections", user_id=uid, kind="followers")


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
    s.say(
        "Show me the newest posts under the most common one.",
        "What are people saying under the top one?",
        "Latest posts with the most used tag, please.",
    )
    s.call("list_posts", hashtag=str(top), limit=10)
