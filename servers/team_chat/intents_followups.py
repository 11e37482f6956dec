"""Short follow-ups of a team chat dialogue: the next thing the member asks about the message, channel or
colleague the dialogue is already about ("give it a thumbs-up too", "actually, make my post say ...", "what
else has Ana posted?", "add her to that channel as well").

They never open a dialogue; each reads what an earlier turn left in ``s.memory`` (the member under ``"me"``,
the channel under ``"channel"``, the message under ``"message"``, what the member posted under ``"posted"``,
their reaction under ``"reacted"``, a colleague under ``"colleague"``) and ``Skip``s when it is not there or
no longer fits.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.team_chat.intents import EMOJI_WORDS, POSTS, REPLY_TEXTS, colleague, find_user, member, reacted
from servers.team_chat.tools import GENERAL, chat


def channel(s: Scene, mine: bool | None = None) -> dict[str, Any]:
    """The channel the dialogue is about, as it is now: writable, and (``mine``) one the member is or is not in."""
    known = s.memory.get("channel")
    if not known:
        raise Skip("no channel in the dialogue yet")
    ch = s.rows("SELECT * FROM channels WHERE channel_id = ? AND is_archived = 0", known["channel_id"])
    if not ch:
        raise Skip("the channel is archived")
    if mine is not None:
        inside = bool(
            s.rows(
                "SELECT 1 FROM channel_members WHERE channel_id = ? AND user_id = ?",
                known["channel_id"],
                member(s)["user_id"],
            )
        )
        if inside != mine:
            raise Skip("the member is not where this needs them")
    return ch[0]


def message(s: Scene) -> dict[str, Any]:
    """The top-level message the dialogue is about, in a channel the member can still act in."""
    known = s.memory.get("message")
    if not known:
        raise Skip("no message in the dialogue yet")
    u = member(s)
    found = s.rows(
        "SELECT m.*, u.name AS author, c.name AS channel FROM messages m JOIN users u ON u.user_id = m.author_id "
        "JOIN channels c ON c.channel_id = m.channel_id WHERE m.message_id = ? AND m.thread_id IS NULL AND "
        "c.is_archived = 0 AND m.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?)",
        known["message_id"],
        u["user_id"],
    )
    if not found:
        raise Skip("the message cannot be acted on")
    return found[0]


def their(m: dict[str, Any], u: dict[str, Any]) -> str:
    return "my message" if m["author_id"] == u["user_id"] else f"{m['author'].split()[0]}'s message"


# On the message of the dialogue ------------------------------------------------------------------


@chat.intent(covers=("add_reaction",), follows=True, opens=False, weight=1.2)
def react_to_it(s: Scene) -> None:
    """An emoji on the message the dialogue is about."""
    u, m = member(s), message(s)
    if m["author_id"] == u["user_id"]:
        raise Skip("one's own message")
    emoji = s.rng.choice(list(EMOJI_WORDS))
    if reacted(s, m["message_id"], u["user_id"], emoji):
        raise Skip("already reacted")
    s.say(
        "Put {e} on {it} while you're at it.",
        "Give {it} {e} too.",
        "And react to {it} with {e}.",
        e=EMOJI_WORDS[emoji],
        it=their(m, u),
    )
    args = {"message_id": m["message_id"], "user_id": u["user_id"], "emoji": emoji}
    s.call("add_reaction", **args)
    s.memory["reacted"] = args


@chat.intent(covers=("add_reaction",), follows=True, opens=False, weight=0.8)
def take_reaction_back(s: Scene) -> None:
    """The member changes their mind about the reaction they just added."""
    args = s.memory.get("reacted")
    if not args:
        raise Skip("no reaction in the dialogue")
    if not reacted(s, args["message_id"], args["user_id"], args["emoji"]):
        raise Skip("the reaction is gone")
    word = EMOJI_WORDS[args["emoji"]].removeprefix("a ").removeprefix("the ")
    s.say("Actually, take my {e} back off.", "Hmm, remove that {e} again.", "On second thought, undo the {e}.", e=word)
    s.call("add_reaction", **args, remove=True)
    s.memory.pop("reacted")


@chat.intent(covers=("post_message",), follows=True, opens=False, weight=1.2)
def reply_to_it(s: Scene) -> None:
    """A reply in the thread of the message the dialogue is about."""
    u, m = member(s), message(s)
    text = s.rng.choice(REPLY_TEXTS)
    s.say(
        'Reply under {it}: "{t}"',
        'Answer {it} in its thread with "{t}"',
        'Drop a reply on {it}: "{t}"',
        it=their(m, u),
        t=text,
    )
    s.memory["posted"] = s.call(
        "post_message", channel_id=m["channel_id"], author_id=u["user_id"], text=text, thread_id=m["message_id"]
    )


@chat.intent(covers=("search_messages",), follows=True, opens=False)
def thread_so_far(s: Scene) -> None:
    """The replies under the message the dialogue is about."""
    u, m = member(s), message(s)
    s.asked("search_messages", thread_id=m["message_id"])
    s.say(
        "What have people replied to {it}?",
        "Show me the thread under {it}.",
        "Any answers under {it} yet?",
        it=their(m, u),
    )
    s.call("search_messages", user_id=u["user_id"], thread_id=m["message_id"])


# On what the member posted ----------------------------------------------------------------------


@chat.intent(covers=("edit_message",), follows=True, opens=False)
def fix_what_i_posted(s: Scene) -> None:
    """The member rewords what they just posted."""
    posted = s.memory.get("posted")
    if not posted:
        raise Skip("nothing posted in the dialogue")
    now = s.rows(
        "SELECT m.text FROM messages m JOIN channels c USING (channel_id) WHERE m.message_id = ? AND c.is_archived = 0",
        posted["message_id"],
    )
    if not now or now[0]["text"] != posted["text"]:
        raise Skip("the post cannot be edited, or was edited already")
    old = posted["text"].rstrip(".!?")
    text = old + s.rng.choice((" (edited: see the doc)", ", thanks!", " - will confirm by EOD."))
    if text == posted["text"]:
        raise Skip("the same text")
    s.say(
        'Actually, make what I just posted read "{t}"',
        'Fix my post so it says "{t}"',
        'Can you change my last post to "{t}"?',
        t=text,
    )
    s.call("edit_message", message_id=posted["message_id"], user_id=posted["author_id"], text=text)


# On the channel of the dialogue -----------------------------------------------------------------


@chat.intent(covers=("post_message",), follows=True, opens=False)
def post_there(s: Scene) -> None:
    """A new post in the channel the dialogue is about."""
    u = member(s)
    ch = channel(s, mine=True)
    text = s.rng.choice(POSTS).format(other="me")
    s.say('Also post "{t}" in #{c}.', 'Let #{c} know: "{t}"', 'Then drop "{t}" in #{c}.', t=text, c=ch["name"])
    s.memory["posted"] = s.call("post_message", channel_id=ch["channel_id"], author_id=u["user_id"], text=text)


@chat.intent(covers=("leave_channel",), follows=True, opens=False, weight=0.7)
def leave_it(s: Scene) -> None:
    """The member leaves the channel the dialogue is about."""
    u = member(s)
    ch = channel(s, mine=True)
    if ch["channel_id"] == GENERAL:
        raise Skip("#general cannot be left")
    s.say("Now take me out of #{c}.", "OK, I'm done with #{c}, get me out.", c=ch["name"])
    s.call("leave_channel", channel_id=ch["channel_id"], user_id=u["user_id"])


@chat.intent(covers=("join_channel",), follows=True, opens=False, weight=0.8)
def join_it(s: Scene) -> None:
    """The member joins the (public) channel the dialogue is about."""
    u = member(s)
    ch = channel(s, mine=False)
    if ch["is_private"]:
        raise Skip("private")
    s.say("Put me in #{c} too.", "Sounds interesting, add me to #{c}.", "I want to follow #{c} myself.", c=ch["name"])
    s.call("join_channel", channel_id=ch["channel_id"], user_id=u["user_id"])


# On the colleague of the dialogue ---------------------------------------------------------------


@chat.intent(covers=("search_users", "search_messages"), follows=True, opens=False)
def colleague_posts(s: Scene) -> None:
    """What the colleague the dialogue is about (or one the member names now) has been posting."""
    u = member(s)
    them = s.memory.get("colleague")
    if them:
        s.asked("search_messages", author_id=them["user_id"])
        s.say("What has {f} posted lately?", "Show me {f}'s recent messages.", f=them["name"].split()[0])
    else:
        other, named = colleague(s, "user_id != ? AND user_id IN (SELECT author_id FROM messages)", u["user_id"])
        s.say("What has {o} been posting lately?", "Show me what {o} wrote recently.", o=named)
        them = find_user(s, other)
        s.memory["colleague"] = them
    s.call("search_messages", user_id=u["user_id"], author_id=them["user_id"])


@chat.intent(covers=("list_channels",), follows=True, opens=False)
def colleague_where(s: Scene) -> None:
    """Which channels the colleague the dialogue is about (or the author of its message) is in."""
    them = s.memory.get("colleague")
    if not them and s.memory.get("message"):
        author = s.memory["message"]["author_id"]
        if author == (s.memory.get("me") or {}).get("user_id"):
            raise Skip("one's own message")
        them = s.rows("SELECT user_id, name FROM users WHERE user_id = ?", author)[0]
    if not them:
        raise Skip("no colleague in the dialogue")
    s.asked("list_channels", user_id=them["user_id"])
    s.say("Which channels is {f} in?", "Where else does {f} hang out?", f=them["name"].split()[0])
    s.call("list_channels", user_id=them["user_id"])


@chat.intent(covers=("search_users",), follows=True, opens=False, weight=0.7)
def teammates(s: Scene) -> None:
    """Who else is on the team of the colleague the dialogue is about."""
    them = s.memory.get("colleague")
    if not them:
        raise Skip("no colleague in the dialogue")
    s.asked("search_users", department=them["department"])
    s.say(
        "Who else is on {f}'s team?",
        "Who works with {f} in {d}?",
        f=them["name"].split()[0],
        d=them["department"],
    )
    s.call("search_users", department=them["department"], status="active")
