"""Short follow-ups of a team chat dialogue: the next thing the member asks about the message, channel or
colleague the dialogue is already about ("give it a thumbs-up too", "actually, make my post say ...", "what
else has Ana posted?", "add her to that channel as well").

They never open a dialogue; each reads what an earlier turn left in ``s.memory`` (the member under ``"me"``,
the channel under ``"channel"``, the message under ``"message"``, what the member posted under ``"posted"``,
their reaction under ``"reacted"``, a colleague under ``"colleague"``) and ``Skip``s when it is not there or
no longer fits. The one-question, one-call ones are rows of ``TURNS``.
"""

from __future__ import annotations

from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.team_chat.intents import WORDS, colleague, find_user, member
from servers.team_chat.tools import GENERAL, chat

Row = dict[str, Any]
Call = tuple[dict[str, Any], dict[str, Any]]


def channel(s: Scene, mine: bool | None = None) -> Row:
    """The channel the dialogue is about, as it is now: writable, and (``mine``) one the member is or is not in."""
    known = s.known("channel", "no channel in the dialogue yet")
    ch = s.rows("SELECT * FROM channels WHERE channel_id = ? AND is_archived = 0", known["channel_id"])
    if not ch:
        raise Skip("the channel is archived")
    if mine is not None:
        inside = s.rows(
            "SELECT 1 FROM channel_members WHERE channel_id = ? AND user_id = ?",
            known["channel_id"],
            member(s)["user_id"],
        )
        if bool(inside) != mine:
            raise Skip("the member is not where this needs them")
    return ch[0]


def message(s: Scene) -> Row:
    """The top-level message the dialogue is about, in a channel the member can still act in."""
    known = s.known("message", "no message in the dialogue yet")
    found = s.rows(
        "SELECT m.*, u.name AS author, c.name AS channel FROM messages m JOIN users u ON u.user_id = m.author_id "
        "JOIN channels c ON c.channel_id = m.channel_id WHERE m.message_id = ? AND m.thread_id IS NULL AND "
        "c.is_archived = 0 AND m.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?)",
        known["message_id"],
        member(s)["user_id"],
    )
    if not found:
        raise Skip("the message cannot be acted on")
    return found[0]


def their(m: Row, u: Row) -> str:
    return "my message" if m["author_id"] == u["user_id"] else f"{m['author'].split()[0]}'s message"


def _colleague(s: Scene) -> Row:
    """The colleague the dialogue is about, or the author of its message (not the member)."""
    them = s.memory.get("colleague")
    if not them and s.memory.get("message"):
        author = s.memory["message"]["author_id"]
        if author == (s.memory.get("me") or {}).get("user_id"):
            raise Skip("one's own message")
        them = s.rows("SELECT user_id, name, department FROM users WHERE user_id = ?", author)[0]
    if not them:
        raise Skip("no colleague in the dialogue")
    return dict(them)


def _roster(s: Scene) -> Call:
    ch = s.known("channel", "no channel in the dialogue yet")
    return {"channel_id": ch["channel_id"]}, {"c": ch["name"]}


def _thread(s: Scene) -> Call:
    u, m = member(s), message(s)
    return {"user_id": u["user_id"], "thread_id": m["message_id"]}, {"it": their(m, u)}


def _leave(s: Scene) -> Call:
    ch = channel(s, mine=True)
    if ch["channel_id"] == GENERAL:
        raise Skip("#general cannot be left")
    return {"channel_id": ch["channel_id"], "user_id": member(s)["user_id"]}, {"c": ch["name"]}


def _join(s: Scene) -> Call:
    ch = channel(s, mine=False)
    if ch["is_private"]:
        raise Skip("private")
    return {"channel_id": ch["channel_id"], "user_id": member(s)["user_id"]}, {"c": ch["name"]}


def _where(s: Scene) -> Call:
    them = _colleague(s)
    return {"user_id": them["user_id"]}, {"f": them["name"].split()[0]}


def _team(s: Scene) -> Call:
    them = s.known("colleague", "no colleague in the dialogue")
    return {"department": them["department"], "status": "active"}, {
        "f": them["name"].split()[0],
        "d": them["department"],
    }


TURNS = (
    FollowUp("channel_roster", "The member asks who is in the channel the dialogue is about.", _roster, "get_channel"),
    FollowUp("thread_so_far", "The replies under the message the dialogue is about.", _thread, "search_messages"),
    FollowUp("leave_it", "The member leaves the channel the dialogue is about.", _leave, "leave_channel", weight=0.7),
    FollowUp(
        "join_it", "The member joins the (public) channel the dialogue is about.", _join, "join_channel", weight=0.8
    ),
    FollowUp(
        "colleague_where",
        "Which channels the colleague the dialogue is about (or the author of its message) is in.",
        _where,
        "list_channels",
    ),
    FollowUp(
        "teammates",
        "Who else is on the team of the colleague the dialogue is about.",
        _team,
        "search_users",
        weight=0.7,
    ),
)


follow_ups(chat, TURNS, WORDS)


# On the channel of the dialogue -----------------------------------------------------------------


@chat.intent(covers=("post_message",), follows=True, opens=False)
def post_there(s: Scene) -> None:
    """A new post in the channel the dialogue is about."""
    u = member(s)
    ch = channel(s, mine=True)
    text = s.rng.choice(WORDS.posts).format(other="me")
    s.say(WORDS.post_there, t=text, c=ch["name"])
    s.memory["posted"] = s.call("post_message", channel_id=ch["channel_id"], author_id=u["user_id"], text=text)


@chat.intent(covers=("search_messages",), follows=True, opens=False, weight=1.5)
def channel_news(s: Scene) -> None:
    """The member asks what has been going on in the channel the dialogue is about."""
    me_, ch = s.memory.get("me"), s.memory.get("channel")
    if not me_ or not ch or ch.get("is_archived"):
        raise Skip("no member and channel in the dialogue yet")
    if ch.get("is_private") and not s.rows(
        "SELECT 1 FROM channel_members WHERE channel_id = ? AND user_id = ?", ch["channel_id"], me_["user_id"]
    ):
        raise Skip("the member cannot read that private channel (any more)")
    mode = s.rng.choice(("latest", "mentions", "words"))
    args = {"user_id": me_["user_id"], "channel_id": ch["channel_id"]}
    if mode == "mentions":
        s.say(WORDS.channel_news, c=ch["name"])
        args["mentions_user_id"] = me_["user_id"]
    elif mode == "words":
        word = s.rng.choice(("deploy", "review", "release", "customer", "doc"))
        s.say(WORDS.channel_news_about_word, c=ch["name"], w=word)
        args["query"] = word
    else:
        s.say(WORDS.channel_news_latest, c=ch["name"])
    s.call("search_messages", **args)


@chat.intent(covers=("list_channels",), follows=True, opens=False)
def my_channels(s: Scene) -> None:
    """The member asks which channels they are in."""
    me_ = member(s)
    archived = s.rng.random() < 0.3
    s.say(WORDS.my_channels if archived else WORDS.my_channels_without_archived)
    args: dict[str, Any] = {"user_id": me_["user_id"]}
    if archived:
        args["include_archived"] = True
    s.call("list_channels", **args)


# On the colleague of the dialogue ---------------------------------------------------------------


@chat.intent(covers=("search_users", "search_messages"), follows=True, opens=False)
def colleague_posts(s: Scene) -> None:
    """What the colleague the dialogue is about (or one the member names now) has been posting."""
    u = member(s)
    them = s.memory.get("colleague")
    if them:
        s.asked("search_messages", author_id=them["user_id"])
        s.say(WORDS.colleague_posts, f=them["name"].split()[0])
    else:
        other, named = colleague(s, "user_id != ? AND user_id IN (SELECT author_id FROM messages)", u["user_id"])
        s.say(WORDS.colleague_posts_new_colleague, o=named)
        them = find_user(s, other)
        s.memory["colleague"] = them
    s.call("search_messages", user_id=u["user_id"], author_id=them["user_id"])
