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
from servers.team_chat.intents import POSTS, colleague, find_user, member
from servers.team_chat.tools import GENERAL, chat

Row = dict[str, Any]
Call = tuple[dict[str, Any], dict[str, Any]]


def channel(s: Scene, mine: bool | None = None) -> Row:
    """The channel the dialogue is about, as it is now: writable, and (``mine``) one the member is or is not in."""
    known = s.memory.get("channel")
    if not known:
        raise Skip("no channel in the dialogue yet")
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
    known = s.memory.get("message")
    if not known:
        raise Skip("no message in the dialogue yet")
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
    ch = s.memory.get("channel")
    if not ch:
        raise Skip("no channel in the dialogue yet")
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
    them = s.memory.get("colleague")
    if not them:
        raise Skip("no colleague in the dialogue")
    return {"department": them["department"], "status": "active"}, {
        "f": them["name"].split()[0],
        "d": them["department"],
    }


TURNS = (
    FollowUp(
        "channel_roster",
        "The member asks who is in the channel the dialogue is about.",
        _roster,
        "get_channel",
        phrasings=(
            "Who's in #{c}, by the way?",
            "How {big|busy} is #{c}{| these days}?",
            "How many {people|members} does #{c} have{| now}?",
            "{Remind me|Tell me} who's in #{c}.",
            "Is #{c} a big channel, or just a few of us?",
            "What's #{c} {for|about}, and who {follows|is in} it?",
        ),
    ),
    FollowUp(
        "thread_so_far",
        "The replies under the message the dialogue is about.",
        _thread,
        "search_messages",
        phrasings=(
            "What have people {replied|said} {to|in answer to} {it}?",
            "{Show me|Open} the thread under {it}.",
            "Any {answers|replies} under {it} yet?",
            "{Did anyone|Has anybody} {respond to|answer} {it}?",
            "I'd like to {read|see} the replies to {it}.",
            "What's the thread on {it} saying{| so far}?",
        ),
    ),
    FollowUp(
        "leave_it",
        "The member leaves the channel the dialogue is about.",
        _leave,
        "leave_channel",
        phrasings=(
            "Now take me out of #{c}{| please}.",
            "OK, I'm done with #{c}, {get me out|remove me}.",
            "{Remove me from|Drop me from} #{c}{| too}.",
            "I don't {need|want} #{c} anymore; please leave it for me.",
            "Can you get me out of #{c}? {It's too noisy|I never read it}.",
        ),
        weight=0.7,
    ),
    FollowUp(
        "join_it",
        "The member joins the (public) channel the dialogue is about.",
        _join,
        "join_channel",
        phrasings=(
            "Put me in #{c} {too|as well}.",
            "Sounds interesting, add me to #{c}.",
            "I want to follow #{c} myself.",
            "{Can you|Please} {sign me up for|add me to} #{c}?",
            "#{c} looks {useful|like my kind of channel}. Let me join.",
        ),
        weight=0.8,
    ),
    FollowUp(
        "colleague_where",
        "Which channels the colleague the dialogue is about (or the author of its message) is in.",
        _where,
        "list_channels",
        phrasings=(
            "Which channels is {f} {in|part of}?",
            "Where else does {f} {hang out|post}?",
            "What channels does {f} {follow|belong to}?",
            "{Show me|List} {f}'s channels.",
            "I want to {reach|find} {f} in the right place. Which channels are they in?",
            "Is {f} in {many|a lot of} channels? Which ones?",
        ),
    ),
    FollowUp(
        "teammates",
        "Who else is on the team of the colleague the dialogue is about.",
        _team,
        "search_users",
        phrasings=(
            "Who else is on {f}'s team{| besides them}?",
            "Who {works|sits} with {f} in {d}?",
            "{Show me|List} the other people in {d}.",
            "Which {d} folks {sit with|work alongside} {f}?",
            "I {want to|should} know {f}'s teammates. Who's in {d}?",
        ),
        weight=0.7,
    ),
)


follow_ups(chat, TURNS)


# On the channel of the dialogue -----------------------------------------------------------------


@chat.intent(covers=("post_message",), follows=True, opens=False)
def post_there(s: Scene) -> None:
    """A new post in the channel the dialogue is about."""
    u = member(s)
    ch = channel(s, mine=True)
    text = s.rng.choice(POSTS).format(other="me")
    s.say(
        'Also {post|write} "{t}" in #{c}.',
        'Let #{c} know: "{t}"',
        'Then drop "{t}" in #{c}{| for me}.',
        '{Write|Send} "{t}" to #{c}{| for me}.',
        'Can you tell everyone in #{c} "{t}"',
        t=text,
        c=ch["name"],
    )
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
        s.say(
            "Has anyone mentioned me in #{c}{| lately}?",
            "Any messages in #{c} tagging me?",
            "{Did|Has} anybody {@-mention|ping} me in #{c}{| lately}?",
            "Was I {tagged|called out} in #{c} recently?",
            c=ch["name"],
        )
        args["mentions_user_id"] = me_["user_id"]
    elif mode == "words":
        word = s.rng.choice(("deploy", "review", "release", "customer", "doc"))
        s.say(
            "Did anyone in #{c} talk about the {w}?",
            "{Search|Look through} #{c} for anything about {w}.",
            "{Anything|Any chatter} about the {w} in #{c}?",
            "What did #{c} {say|post} about the {w}?",
            c=ch["name"],
            w=word,
        )
        args["query"] = word
    else:
        s.say(
            "What's the latest in #{c}?",
            "Catch me up on #{c}{|, please}.",
            "What have people been {saying|discussing} in #{c}?",
            "{Anything new|What's new} in #{c}{| today}?",
            "{Fill me in|Bring me up to speed} on #{c}.",
            c=ch["name"],
        )
    s.call("search_messages", **args)


@chat.intent(covers=("list_channels",), follows=True, opens=False)
def my_channels(s: Scene) -> None:
    """The member asks which channels they are in."""
    me_ = member(s)
    archived = s.rng.random() < 0.3
    s.say(
        *(
            (
                "Which channels am I in {now|at the moment}, archived ones included?",
                "{List|Show} my channels, including the archived ones.",
                "{What|Which} channels do I {belong to|follow}, {old|} archived ones too?",
                "{Remind me|Show me} where I'm a member, archived channels included.",
                "Can I see my channel list with the archived ones{| as well}?",
            )
            if archived
            else (
                "Which channels am I in {now|at the moment}?",
                "{List|Show} my channels{| for me}.",
                "{What|Which} channels do I {belong to|follow}{ now|}?",
                "{Remind me|Show me} where I'm a member.",
                "Can I see my {channel list|channels}{| please}?",
            )
        )
    )
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
        s.say(
            "What has {f} posted {lately|recently}?",
            "{Show me|Pull up} {f}'s recent messages.",
            "{What's|What has} {f} been {saying|writing} {lately|recently}?",
            "Let me see {f}'s latest {posts|messages}.",
            f=them["name"].split()[0],
        )
    else:
        other, named = colleague(s, "user_id != ? AND user_id IN (SELECT author_id FROM messages)", u["user_id"])
        s.say(
            "What has {o} been posting {lately|recently}?",
            "{Show me|Tell me} what {o} wrote recently.",
            "{Pull up|Find} {o}'s {recent|latest} messages.",
            "I'm curious what {o} {has been saying|posted} {lately|this week}.",
            o=named,
        )
        them = find_user(s, other)
        s.memory["colleague"] = them
    s.call("search_messages", user_id=u["user_id"], author_id=them["user_id"])
