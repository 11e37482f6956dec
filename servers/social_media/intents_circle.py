"""Follow-up programs on the social network about people: what else the other person posted, who follows whom,
blocking (or lifting the block), who else lives in their city. Each reads what the dialogue left in
``s.memory`` and ``Skip``s when it is not there or no longer fits.
"""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.social_media.intents import THEIR_CIRCLE, USERS, WORDS, handle, visible
from servers.social_media.intents_followups import known, post_now
from servers.social_media.tools import social_media


@social_media.intent(covers=("list_posts",), follows=True, opens=False, weight=1.5)
def more_from_them(s: Scene) -> None:
    """The user asks what else the other person has posted (since a date, sometimes)."""
    me = known(s, "me")
    other = s.memory.get("other") or {"user_id": post_now(s)["author_id"]}
    if other["user_id"] == me["user_id"] or not visible(s, me["user_id"], other["user_id"]):
        raise Skip("self or blocked")
    s.asked("list_posts", author_id=other["user_id"])
    if s.rng.random() < 0.5:
        s.say(WORDS.more_from_them)
        s.call("list_posts", author_id=other["user_id"], viewer_id=me["user_id"], limit=5)
    else:
        since = s.now.date().fromordinal(s.now.date().toordinal() - 30)
        s.say(WORDS.more_from_them_past_month)
        s.call("list_posts", author_id=other["user_id"], since=since.isoformat(), viewer_id=me["user_id"])


MY_CIRCLE = WORDS.family("my_circle")


@social_media.intent(covers=("list_connections",), follows=True, opens=False)
def my_circle(s: Scene) -> None:
    """The user asks who they follow, who follows them, or whom they have blocked."""
    me = known(s, "me")
    kind = s.rng.choice(
        ("following", "followers", "blocked") if s.memory.get("blocked") else ("following", "followers")
    )
    s.asked("list_connections", user_id=me["user_id"], kind=kind)
    s.say(*MY_CIRCLE[kind])
    s.call("list_connections", user_id=me["user_id"], kind=kind)


@social_media.intent(covers=("list_connections",), follows=True, opens=False)
def their_circle(s: Scene) -> None:
    """The user asks who follows the other person, or whom they follow (does the other follow me back?)."""
    me, other = known(s, "me"), known(s, "other")
    if other["user_id"] == me["user_id"]:
        raise Skip("self")
    kind = s.rng.choice(("followers", "following"))
    s.asked("list_connections", user_id=other["user_id"], kind=kind)
    s.say(*THEIR_CIRCLE[kind], h=handle(other))
    s.call("list_connections", user_id=other["user_id"], kind=kind)


@social_media.intent(covers=("block_user",), follows=True, opens=False)
def block_them(s: Scene) -> None:
    """The user blocks the other person of the dialogue, or lifts the block they just set."""
    me, other = known(s, "me"), known(s, "other")
    if other["user_id"] == me["user_id"]:
        raise Skip("self")
    undo = s.memory.get("blocked") == other["user_id"]
    if undo:
        s.say(WORDS.block_them_undo)
        s.call("block_user", user_id=me["user_id"], target_user_id=other["user_id"], unblock=True)
        s.memory.pop("blocked")
        return
    if s.rows("SELECT 1 FROM blocks WHERE blocker_id = ? AND blocked_id = ?", me["user_id"], other["user_id"]):
        raise Skip("blocked already")
    s.say(WORDS.block_them, h=handle(other))
    s.call("block_user", user_id=me["user_id"], target_user_id=other["user_id"])
    s.memory["blocked"] = s.memory["dropped"] = other["user_id"]


@social_media.intent(covers=("search_users",), follows=True, opens=False, weight=0.5)
def same_city(s: Scene) -> None:
    """The user asks who else on the network is in the other person's city."""
    me = known(s, "me")
    other = s.memory.get("other")
    u = s.rows(USERS + " WHERE user_id = ?", (other or me)["user_id"])[0]
    s.asked("search_users", city=u["city"])
    who = "they live in" if other and other["user_id"] != me["user_id"] else "I live in"
    s.say(WORDS.same_city, who=who, h=handle(u))
    s.call("search_users", city=u["city"])
