"""What people want of team chat: a workspace member catching up, posting, replying, reacting, tidying.

The user is a member who says who they are (their name); the agent finds their member id with
``search_users``, channels by name with ``list_channels`` (private ones only among the member's own
channels), and messages with ``search_messages``. People name messages by author, channel, and a
few words of the text; colleagues by name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from servers.team_chat.tools import chat

ACTIVE = "SELECT user_id, handle, name, title, department FROM users WHERE status = 'active'"
POSTS = (
    "Heads up: I'm out Friday, ping {other} for anything urgent.",
    "Notes from today's sync are in the doc.",
    "Can someone take a look at the flaky test on main?",
    "Reminder: demo day is next Thursday.",
    "The staging database is back up.",
    "Who has context on the billing alerts from last night?",
    "Great work on the launch, everyone!",
    "I'll run the retro this week.",
    "Has anyone tried the new deploy checklist?",
    "Pushing the release to tomorrow morning.",
    "Lunch-and-learn on observability at noon.",
    "I'm picking up the on-call shift tonight.",
)
REPLY_TEXTS = (
    "Thanks, taking a look now.",
    "Agreed, let's do that.",
    "I can pick this up tomorrow.",
    "Could you share the dashboard link?",
    "Fixed on my side, can you retry?",
    "Sounds good to me!",
)
EMOJI_WORDS = {
    "thumbsup": "a thumbs-up",
    "tada": "a party popper",
    "eyes": "the eyes emoji",
    "heart": "a heart",
    "rocket": "a rocket",
    "white_check_mark": "a green check",
    "fire": "a fire emoji",
    "pray": "a thank-you",
}


def me(s: Scene) -> dict[str, Any]:
    """The member talking: the one an earlier turn established, or an active member with a unique name."""
    known = s.memory.get("me")
    if known:
        return dict(known)
    u = s.pick(ACTIVE + " AND name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)")
    s.be(u["name"])
    return u


def ask(s: Scene, opening: Sequence[str], follow: Sequence[str], minimal: Sequence[str] = (), **slots: Any) -> None:
    """A turn that opens the dialogue (the member says who they are) or continues it (they already did)."""
    if s.turns:
        s.say(*follow, **slots)
    else:
        s.say(*opening, minimal=minimal, **slots)


def then(s: Scene, calls: int = 1, chance: float = 0.2) -> bool:
    """Whether an intent adds its own next turn: by chance (rarely: the follow-up intents ask the same kind of
    next question, in many more combinations), and only when it fits."""
    return s.room(calls, 1) and s.rng.random() < chance


def intro(s: Scene, u: dict[str, Any]) -> str:
    """How the member introduces themself: by name, sometimes with their team (the agent can then
    narrow its search to that department)."""
    if s.memory.get("me") or s.rng.random() < 0.7:
        return str(u["name"])
    s.memory["me_department"] = u["department"]
    return f"{u['name']} from {u['department']}"


def my_channel(s: Scene, user_id: str, where: str = "", *params: Any) -> dict[str, Any]:
    """One of the member's channels that is not archived (``where``: a further SQL test on it, as ``c``)."""
    return s.pick(
        "SELECT c.* FROM channels c JOIN channel_members m USING (channel_id) WHERE m.user_id = ? AND "
        "c.is_archived = 0" + (f" AND {where}" if where else ""),
        user_id,
        *params,
    )


def channel_to_join(s: Scene, user_id: str) -> dict[str, Any]:
    """A public, active channel the member is not in."""
    return s.pick(
        "SELECT * FROM channels WHERE is_private = 0 AND is_archived = 0 AND channel_id NOT IN "
        "(SELECT channel_id FROM channel_members WHERE user_id = ?)",
        user_id,
    )


def reacted(s: Scene, message_id: str, user_id: str, emoji: str) -> bool:
    """Whether the member already put that emoji on the message."""
    return bool(
        s.rows("SELECT 1 FROM reactions WHERE message_id = ? AND user_id = ? AND emoji = ?", message_id, user_id, emoji)
    )


def member(s: Scene) -> dict[str, Any]:
    """The member talking, once an earlier turn found their id."""
    known = s.memory.get("me")
    if not known:
        raise Skip("no member in the dialogue yet")
    return dict(known)


def find_me(s: Scene, u: dict[str, Any]) -> str:
    """The discovery call for the member's own id (skipped once an earlier turn found it)."""
    if s.memory.get("me", {}).get("user_id") == u["user_id"]:
        return str(u["user_id"])
    args = {"query": u["name"]}
    if s.memory.get("me_department"):
        args["department"] = s.memory["me_department"]
    found = s.find(
        "search_users",
        "users",
        "user_id",
        u["user_id"],
        missing="the member is not on the first page of the search",
        **args,
    )
    s.memory["me"] = found
    return str(found["user_id"])


def find_user(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    """A colleague's member record, searched by name (and team, when the user named it)."""
    args = {"query": u["name"]}
    if u.get("named_with_department"):
        args["department"] = u["department"]
    return s.find(
        "search_users",
        "users",
        "user_id",
        u["user_id"],
        missing="the colleague is not on the first page of the search",
        **args,
    )


def colleague(s: Scene, where: str, *params: Any) -> tuple[dict[str, Any], str]:
    """Another active member, named so that exactly one member fits."""
    u = s.pick(ACTIVE + f" AND ({where})", *params)
    by_name = Ref("{name}", "SELECT user_id FROM users WHERE name = ?", u["name"])
    with_team = Ref(
        "{name} from {dept}", "SELECT user_id FROM users WHERE name = ? AND department = ?", u["name"], u["department"]
    )
    refs = (with_team,) if s.rng.random() < 0.3 else (by_name, with_team)
    text = s.refer(u["user_id"], *refs, name=u["name"], dept=u["department"])
    u = dict(u) | {"named_with_department": text.endswith(f" from {u['department']}")}
    return u, text


def find_channel(s: Scene, ch: dict[str, Any], user_id: str | None = None) -> str:
    """The channel's id from a listing by name (as the member, for private channels)."""
    known = s.memory.get("channel")
    if known and known["name"] == ch["name"]:
        return str(known["channel_id"])  # an earlier turn found it
    args: dict[str, Any] = {"query": ch["name"]}
    if user_id is not None and (ch["is_private"] or s.rng.random() < 0.3):
        args["user_id"] = user_id
    found = s.find("list_channels", "channels", "name", ch["name"], missing="the channel is not listed", **args)
    s.memory["channel"] = found
    return str(found["channel_id"])


def message_ref(s: Scene, m: dict[str, Any]) -> str:
    """A top-level message as people recall it: author, channel, a few words, when."""
    words = " ".join(m["text"].split()[:5]).rstrip(",.!?:")
    return s.refer(
        m["message_id"],
        Ref(
            '{author}\'s "{words}..." message in #{channel}',
            "SELECT message_id FROM messages WHERE channel_id = ? AND author_id = ? AND text LIKE ? "
            "AND thread_id IS NULL",
            m["channel_id"],
            m["author_id"],
            words + "%",
        ),
        Ref(
            '{author}\'s "{words}..." message in #{channel} from {when}',
            "SELECT message_id FROM messages WHERE channel_id = ? AND author_id = ? AND text LIKE ? "
            "AND thread_id IS NULL AND substr(created_at, 1, 10) = ?",
            m["channel_id"],
            m["author_id"],
            words + "%",
            m["created_at"][:10],
        ),
        author=m["author"],
        words=words,
        channel=m["channel"],
        when=day(m["created_at"], s.now),
    )


def visible_message(s: Scene, user_id: str, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """A top-level message in an active channel the member belongs to."""
    return s.pick(
        "SELECT m.*, u.name AS author, c.name AS channel FROM messages m JOIN users u ON u.user_id = "
        "m.author_id JOIN channels c ON c.channel_id = m.channel_id WHERE m.thread_id IS NULL AND "
        "c.is_archived = 0 AND m.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?) "
        f"AND ({where})",
        user_id,
        *params,
    )


def message_near(s: Scene, user_id: str, where: str, *params: Any) -> dict[str, Any]:
    """A message as ``visible_message``, often in the channel the dialogue is already about ("and in the same
    channel, ...")."""
    here = s.memory.get("channel")
    if here and not s.room(3, 0):  # short of room: only where the agent knows the channel
        return visible_message(s, user_id, f"({where}) AND m.channel_id = ?", *params, here["channel_id"])
    if here and s.rng.random() < 0.6:
        try:
            return visible_message(s, user_id, f"({where}) AND m.channel_id = ?", *params, here["channel_id"])
        except Skip:
            pass
    return visible_message(s, user_id, where, *params)


def locate(s: Scene, user_id: str, m: dict[str, Any]) -> dict[str, Any]:
    """Find a message the way the user described it: by its author (whose member id the agent looks up first), or
    by its words."""
    if m["author_id"] == user_id:
        return _in_first_page(s, user_id, m, channel_id=m["channel_id"], author_id=user_id)
    named = s.value("SELECT COUNT(*) FROM users WHERE name = ?", m["author"]) == 1
    if s.room(4, 1) and s.rng.random() < 0.6 and named:
        them = find_user(s, {"name": m["author"], "user_id": m["author_id"]})
        s.memory["colleague"] = them
        return _in_first_page(s, user_id, m, channel_id=m["channel_id"], author_id=them["user_id"])
    return _in_first_page(s, user_id, m, channel_id=m["channel_id"], query=words_of(m))


def words_of(m: dict[str, Any]) -> str:
    return " ".join(m["text"].split()[:5]).rstrip(",.!?:")


def me_and_channel(s: Scene, u: dict[str, Any], ch: dict[str, Any]) -> tuple[str, str]:
    """The member's id and the channel's: a private channel is listed as the member (so them first); otherwise
    either lookup may come first."""
    if ch["is_private"] or s.rng.random() < 0.5:
        uid = find_me(s, u)
        return uid, find_channel(s, ch, uid)
    cid = find_channel(s, ch)
    return find_me(s, u), cid


def ask_on_channel(
    s: Scene, u: dict[str, Any], ch: dict[str, Any], opening: Sequence[str], follow: Sequence[str], minimal: str
) -> tuple[str, str]:
    """The member's turn about one channel (``{me}``, ``{c}`` in the phrasings), then their id and the channel's."""
    ask(s, opening, follow, minimal=[minimal], me=intro(s, u), c=ch["name"])
    return me_and_channel(s, u, ch)


def three_lookups(
    s: Scene, u: dict[str, Any], other: dict[str, Any], ch: dict[str, Any]
) -> tuple[str, dict[str, Any], str]:
    """The member's id, a colleague's record and a channel's id, looked up in whichever order the agent likes (a
    private channel is listed as the member, so after them)."""
    order = s.rng.choice(("mtc", "mct", "tmc", "cmt", "ctm", "tcm"))
    if ch["is_private"]:
        order = order.replace("c", "") + "c"
    uid, them, cid = "", {}, ""
    for step in order:
        if step == "m":
            uid = find_me(s, u)
        elif step == "t":
            them = find_user(s, other)
        else:
            cid = find_channel(s, ch, uid or None)
    return uid, them, cid


def reach(s: Scene, u: dict[str, Any], m: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """The member's id, the message's channel id and the message: searched for by its words across the member's
    channels (the channel comes with it), or looked up in its channel (by author or words)."""
    alike = s.value(
        "SELECT COUNT(*) FROM messages x JOIN channels c ON c.channel_id = x.channel_id WHERE x.text LIKE ? AND "
        "(c.is_private = 0 OR x.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?))",
        f"%{words_of(m)}%",
        u["user_id"],
    )
    short = not s.room(3, 0)  # little room left: the one search the agent needs
    if (short or s.rng.random() < 0.35) and alike == 1 and (s.memory.get("channel") or {}).get("name") != m["channel"]:
        uid = find_me(s, u)
        hit = _in_first_page(s, uid, m, query=words_of(m))
        s.memory["channel"] = s.rows("SELECT * FROM channels WHERE channel_id = ?", hit["channel_id"])[0]
        return uid, str(hit["channel_id"]), hit
    uid, cid = me_and_channel(s, u, {"name": m["channel"], "is_private": int(_private(s, m))})
    return uid, cid, locate(s, uid, m | {"channel_id": cid})


def _in_first_page(s: Scene, user_id: str, m: dict[str, Any], **filters: Any) -> dict[str, Any]:
    found = s.call("search_messages", user_id=user_id, **filters)["messages"]
    hit = [x for x in found if x["message_id"] == m["message_id"]]
    if not hit:
        raise Skip("the message is not on the first page")
    s.memory["message"] = hit[0]
    return hit[0]


def who_is_there(s: Scene, cid: str) -> None:
    """The member's next turn, once in a channel: who else is in it."""
    s.say("Who else is in there now?", "How many people are in that channel?", "What's that channel about again?")
    s.call("get_channel", channel_id=cid)


@chat.intent(covers=("search_users", "list_channels", "join_channel", "post_message", "get_channel"), weight=1.5)
def join_and_say_hi(s: Scene) -> None:
    """A member joins a public channel and posts there."""
    u = me(s)
    ch = channel_to_join(s, u["user_id"])
    text = s.rng.choice(
        (
            "Hi all, glad to be here!",
            "Hello #{c}! Looking forward to following along.",
            "Hey everyone, joining to keep up with {topic}.",
        )
    ).format(c=ch["name"], topic=ch["topic"].lower())
    hello = s.given(text, f'"{text}"', "message", "post_message", "text")
    ask(
        s,
        (
            "I'm {me}. Get me into #{c}[ and post {hello} there].",
            "This is {me}: add me to #{c}[, then say {hello}].",
            "{me} here. I want to follow #{c}[; once I'm in, post {hello}].",
        ),
        ("Also get me into #{c}[ and post {hello} there].", "Then add me to #{c}[ and say {hello}]."),
        minimal=["{me} here, want to be in #{c} and say hi[: {hello}]."],
        me=intro(s, u),
        c=ch["name"],
        hello=hello,
    )
    uid, cid = me_and_channel(s, u, ch)
    s.call("join_channel", channel_id=cid, user_id=uid)
    s.memory["posted"] = s.call("post_message", channel_id=cid, author_id=uid, text=text)
    if then(s):
        who_is_there(s, cid)


@chat.intent(covers=("search_users", "list_channels", "join_channel", "get_channel"))
def join_and_look_around(s: Scene) -> None:
    """A member joins a public channel and asks who is there."""
    u = me(s)
    ch = channel_to_join(s, u["user_id"])
    uid, cid = ask_on_channel(
        s,
        u,
        ch,
        (
            "I'm {me}, please add me to #{c}.",
            "{me} here. Sign me up for #{c}.",
            "This is {me}; I'd like to be in #{c}.",
        ),
        ("Sign me up for #{c} too.", "I'd also like to be in #{c}.", "And add me to #{c}."),
        "{me}: #{c}, let me in.",
    )
    s.call("join_channel", channel_id=cid, user_id=uid)
    if then(s, chance=0.15):
        who_is_there(s, cid)


@chat.intent(covers=("search_users", "list_channels", "leave_channel", "get_channel"), follows=True)
def leave_noisy_channel(s: Scene) -> None:
    """A member leaves a channel they no longer follow."""
    u = me(s)
    ch = my_channel(s, u["user_id"], "c.channel_id != 'CHN-0001'")
    uid, cid = ask_on_channel(
        s,
        u,
        ch,
        (
            "{me} here. Take me out of #{c}, it's too noisy.",
            "I'm {me}, please remove me from #{c}.",
            "This is {me}. I don't need #{c} anymore, get me out.",
        ),
        ("Also take me out of #{c}, it's too noisy.", "And I don't need #{c} anymore, get me out."),
        "{me}: done with #{c}.",
    )
    s.call("leave_channel", channel_id=cid, user_id=uid)
    if then(s, chance=0.15):
        s.say("How many members does it have left?", "Who's still in there?", "Is anyone still in that one?")
        s.call("get_channel", channel_id=cid)


@chat.intent(covers=("search_users", "list_channels", "invite_to_channel", "get_channel"), weight=1.5)
def bring_colleague_in(s: Scene) -> None:
    """A member adds a colleague to one of their channels (the only way into a private one)."""
    u = me(s)
    ch = my_channel(s, u["user_id"])
    other, named = colleague(
        s, "user_id NOT IN (SELECT user_id FROM channel_members WHERE channel_id = ?)", ch["channel_id"]
    )
    ask(
        s,
        (
            "I'm {me}. Can you add {other} to #{c}?",
            "{me} here. {other} should be in #{c}, please invite them.",
            "This is {me}: bring {other} into #{c}, they're joining the project.",
        ),
        ("Can you also add {other} to #{c}?", "And {other} should be in #{c}, please invite them."),
        minimal=["{me}: {other} needs #{c}."],
        me=intro(s, u),
        other=named,
        c=ch["name"],
    )
    uid, them, cid = three_lookups(s, u, other, ch)
    s.call("invite_to_channel", channel_id=cid, inviter_id=uid, user_id=them["user_id"])
    s.memory["colleague"] = them
    if then(s, chance=0.2):
        s.say("How many people are in it now?", "Who's in that channel now?", "Double-check they're in, please.")
        s.call("get_channel", channel_id=cid)


@chat.intent(covers=("search_users", "list_channels", "search_messages", "post_message"), weight=1.5, follows=True)
def reply_in_thread(s: Scene) -> None:
    """A member answers a message in its thread."""
    u = me(s)
    m = message_near(s, u["user_id"], "m.author_id != ?", u["user_id"])
    what = message_ref(s, m)
    text = s.rng.choice(REPLY_TEXTS)
    reply = s.given(text, f'"{text}"', "reply", "post_message", "text")
    ask(
        s,
        (
            "I'm {me}. Reply to {what} in its thread[: {reply}].",
            "{me} here: answer {what} in the thread[, say {reply}].",
            "This is {me}. Please respond under {what}[ with {reply}].",
        ),
        ("Also reply to {what} in its thread[: {reply}].", "And answer {what} in the thread[, say {reply}]."),
        me=intro(s, u),
        what=what,
        reply=reply,
    )
    uid, cid, hit = reach(s, u, m)
    s.memory["posted"] = s.call("post_message", channel_id=cid, author_id=uid, text=text, thread_id=hit["message_id"])
    if then(s, chance=0.15):
        s.say(
            "Show me the whole thread now.",
            "What does the thread look like with my reply?",
            "Read me the replies under it.",
        )
        s.call("search_messages", user_id=uid, thread_id=hit["message_id"])


def _private(s: Scene, m: dict[str, Any]) -> bool:
    return bool(s.value("SELECT is_private FROM channels WHERE channel_id = ?", m["channel_id"]))


@chat.intent(covers=("search_users", "list_channels", "search_messages", "add_reaction", "post_message"))
def react_to_message(s: Scene) -> None:
    """A member reacts to a colleague's message with an emoji (or takes a reaction back)."""
    u = me(s)
    mine = s.rows(
        "SELECT r.message_id, r.emoji FROM reactions r JOIN messages m USING (message_id) JOIN channels c "
        "ON c.channel_id = m.channel_id WHERE r.user_id = ? AND m.thread_id IS NULL AND c.is_archived = 0 "
        "AND r.emoji IN ('thumbsup', 'tada', 'eyes', 'heart', 'rocket', 'white_check_mark', 'fire', 'pray')",
        u["user_id"],
    )
    take_back = bool(mine) and s.rng.random() < 0.3
    if take_back:
        pick = s.rng.choice(mine)
        m = visible_message(s, u["user_id"], "m.message_id = ?", pick["message_id"])
        emoji = pick["emoji"]
    else:
        m = message_near(s, u["user_id"], "m.author_id != ?", u["user_id"])
        emoji = s.rng.choice(list(EMOJI_WORDS))
        if reacted(s, m["message_id"], u["user_id"], emoji):
            raise Skip("already reacted")
    what = message_ref(s, m)
    if take_back:
        mine_word = EMOJI_WORDS[emoji].removeprefix("a ").removeprefix("the ")
        ask(
            s,
            ("I'm {me}. Take back my {e} on {what}.", "{me} here: remove my {e} reaction from {what}."),
            ("Also take back my {e} on {what}.", "And remove my {e} from {what}."),
            me=intro(s, u),
            e=mine_word,
            what=what,
        )
    else:
        ask(
            s,
            (
                "I'm {me}. Put {e} on {what}.",
                "{me} here. React to {what} with {e}, please.",
                "This is {me}: give {what} {e}.",
            ),
            ("Also put {e} on {what}.", "And give {what} {e}."),
            me=intro(s, u),
            e=EMOJI_WORDS[emoji],
            what=what,
        )
    uid, cid, hit = reach(s, u, m)
    args: dict[str, Any] = {"message_id": hit["message_id"], "user_id": uid, "emoji": emoji}
    if take_back:
        args["remove"] = True
    s.call("add_reaction", **args)
    s.memory["message"] = hit | {"channel_id": cid}
    if not take_back:
        s.memory["reacted"] = args
    if then(s, chance=0.15):
        text = s.rng.choice(REPLY_TEXTS)
        s.say('And answer it in the thread: "{t}"', 'Also reply under it with "{t}"', t=text)
        s.memory["posted"] = s.call(
            "post_message", channel_id=cid, author_id=uid, text=text, thread_id=hit["message_id"]
        )


@chat.intent(covers=("search_users", "list_channels", "search_messages", "edit_message"))
def fix_my_message(s: Scene) -> None:
    """A member corrects their latest message in a channel."""
    u = me(s)
    m = visible_message(
        s,
        u["user_id"],
        "m.author_id = ? AND m.created_at = (SELECT MAX(created_at) FROM messages x "
        "WHERE x.author_id = m.author_id AND x.channel_id = m.channel_id AND x.thread_id IS NULL)",
        u["user_id"],
    )
    latest = s.refer(
        m["message_id"],
        Ref(
            "my last message in #{c}",
            "SELECT message_id FROM messages WHERE "
            "author_id = ? AND channel_id = ? AND thread_id IS NULL AND created_at = ?",
            u["user_id"],
            m["channel_id"],
            m["created_at"],
        ),
        c=m["channel"],
    )
    text = m["text"].rstrip(".!?") + s.rng.choice((" (updated)", " - see the doc for details.", ", thanks all!"))
    new = s.given(text, f'"{text}"', "new text", "edit_message", "text")
    ask(
        s,
        (
            "I'm {me}. There's a mistake in {latest}; change it[ to {new}].",
            "{me} here. Please fix {latest}[ so it reads {new}].",
            "This is {me}: reword {latest}[ as {new}].",
        ),
        ("Also, there's a mistake in {latest}; change it[ to {new}].", "And please fix {latest}[ so it reads {new}]."),
        me=intro(s, u),
        latest=latest,
        new=new,
    )
    uid, cid = me_and_channel(s, u, {"name": m["channel"], "is_private": int(_private(s, m))})
    hit = _in_first_page(s, uid, m, channel_id=cid, author_id=uid)
    s.call("edit_message", message_id=hit["message_id"], user_id=uid, text=text)
    if then(s, chance=0.15):
        s.say("Show me how it reads now.", "Let me see my messages there now.", "Did the edit stick?")
        s.call("search_messages", user_id=uid, channel_id=cid, author_id=uid)


@chat.intent(covers=("search_users", "search_messages", "get_channel", "post_message", "add_reaction"), follows=True)
def who_mentioned_me(s: Scene) -> None:
    """A member catches up on the messages that @-mention them."""
    known = s.memory.get("me")
    if known:
        u = dict(known)
    else:
        u = s.pick(
            ACTIVE + " AND user_id IN (SELECT user_id FROM mentions) AND name IN (SELECT name FROM users "
            "GROUP BY name HAVING COUNT(*) = 1)"
        )
        s.be(u["name"])
    ask(
        s,
        (
            "I'm {me}. Did anyone tag me lately?",
            "{me} here. Where have people @-mentioned me?",
            "This is {me}: what messages call me out by name?",
        ),
        ("By the way, did anyone tag me lately?", "Where have people @-mentioned me recently?"),
        minimal=["{me}: any mentions?"],
        me=intro(s, u),
    )
    uid = find_me(s, u)
    s.asked("search_messages", user_id=uid, mentions_user_id=uid)
    found = s.call("search_messages", user_id=uid, mentions_user_id=uid)["messages"]
    if not found:
        raise Skip("no visible mention")
    s.memory["message"] = found[0]
    if not then(s, chance=0.2):
        return
    latest = found[0]
    mode = s.rng.choice(("channel", "reply", "react"))
    can_act = s.rows(
        "SELECT 1 FROM channels c JOIN channel_members m USING (channel_id) WHERE c.channel_id = ? AND "
        "c.is_archived = 0 AND m.user_id = ?",
        latest["channel_id"],
        uid,
    )
    if latest["thread_id"] is not None or latest["author_id"] == uid or not can_act:
        mode = "channel"
    else:  # the agent holds the channel's id from the result
        s.memory["channel"] = s.rows("SELECT * FROM channels WHERE channel_id = ?", latest["channel_id"])[0]
    if mode == "channel":
        s.say("Which channel was the latest one in, and who's in it?", "Tell me about the channel of the newest one.")
        s.memory["channel"] = s.call("get_channel", channel_id=latest["channel_id"])
    elif mode == "reply":
        text = s.rng.choice(REPLY_TEXTS)
        s.say('Answer the newest one in its thread: "{t}"', 'Reply under the latest one with "{t}"', t=text)
        s.memory["posted"] = s.call(
            "post_message", channel_id=latest["channel_id"], author_id=uid, text=text, thread_id=latest["message_id"]
        )
    else:
        if reacted(s, latest["message_id"], uid, "eyes"):
            raise Skip("already reacted")
        s.say("Put the eyes emoji on the newest one so they know I saw it.", "Give the latest one an eyes reaction.")
        args = {"message_id": latest["message_id"], "user_id": uid, "emoji": "eyes"}
        s.call("add_reaction", **args)
        s.memory["reacted"] = args


@chat.intent(covers=("search_users", "list_channels", "get_channel", "join_channel"))
def colleague_channels(s: Scene) -> None:
    """Someone checks which channels a colleague follows, then looks at one of them (or joins it)."""
    u = me(s) if s.rng.random() < 0.5 else None
    where = "user_id IN (SELECT user_id FROM channel_members)"
    other, named = colleague(s, where + (" AND user_id != ?" if u else ""), *([u["user_id"]] if u else []))
    outside = " AND c.channel_id NOT IN (SELECT channel_id FROM channel_members WHERE user_id = ?)" if u else ""
    ch = my_channel(s, other["user_id"], "c.is_private = 0" + outside, *([u["user_id"]] if u else []))
    if u:
        s.say(
            "I'm {me}. Which channels is {other} in? I might follow some of them.",
            "{me} here: what channels does {other} follow?",
            me=intro(s, u),
            other=named,
        )
    else:
        s.say(
            "Which channels is {other} in?",
            "What channels does {other} follow?",
            "Can you list the channels {other} is a member of?",
            other=named,
        )
    them = find_user(s, other)
    s.memory["colleague"] = them
    found = s.find(
        "list_channels",
        "channels",
        "name",
        ch["name"],
        missing="the channel is not on the first page",
        user_id=them["user_id"],
    )
    s.memory["channel"] = found
    if u and s.rng.random() < 0.6:
        s.say("Add me to #{c} as well.", "#{c} sounds useful, put me in it.", "Sign me up for #{c} too.", c=ch["name"])
        uid = find_me(s, u)
        s.call("join_channel", channel_id=found["channel_id"], user_id=uid)
        return
    s.say(
        "What's #{c} about, and how many people are in it?",
        "Tell me more about #{c}.",
        "Who else is in #{c}?",
        c=ch["name"],
    )
    s.call("get_channel", channel_id=found["channel_id"])


@chat.intent(covers=("get_distinct_values", "search_users"))
def team_makeup(s: Scene) -> None:
    """Someone looks at how the workspace is staffed, then at one team."""
    field = s.rng.choice(("department", "title", "member_status"))
    s.say(
        {
            "department": "How many people do we have in each department?",
            "title": "What job titles do people have here, and how many of each?",
            "member_status": "How many accounts are active versus switched off?",
        }[field],
        {
            "department": "Give me a headcount per department.",
            "title": "Break the workspace down by job title.",
            "member_status": "Are there many deactivated accounts in the workspace?",
        }[field],
    )
    stats = s.call("get_distinct_values", field=field)["values"]
    if field == "department":
        dept = s.rng.choice(sorted(stats))
        s.say("Who's in {d}?", "List the {d} folks for me.", "Show me the people in {d}.", d=dept)
        s.call("search_users", department=dept)
    elif field == "title":
        title = s.rng.choice(sorted(stats))
        s.say("Who are the {t}s?", "Find me everyone with the title {t}.", t=title)
        s.call("search_users", query=title)
    else:
        if "deactivated" not in stats:
            raise Skip("nobody is deactivated")
        s.say("List the deactivated ones.", "Who are the switched-off ones?", "Which accounts are deactivated?")
        s.call("search_users", status="deactivated")


@chat.intent(covers=("search_users", "list_channels", "post_message", "search_messages"), weight=1.5)
def post_with_mention(s: Scene) -> None:
    """A member posts in a channel, tagging a colleague by name."""
    u = me(s)
    ch = my_channel(s, u["user_id"], "c.is_private = 0")
    other, named = colleague(s, "user_id != ?", u["user_id"])
    body = s.rng.choice(
        (
            "can you look at the numbers before Friday?",
            "thanks for the help yesterday!",
            "your review is needed on the new proposal.",
            "let's sync after lunch.",
        )
    )
    ask(
        s,
        (
            "I'm {me}. Post in #{c} tagging {other}: {body}",
            "{me} here. Ping {other} in #{c}: {body}",
            'This is {me}: in #{c}, mention {other} and say "{body}"',
        ),
        ("Also ping {other} in #{c}: {body}", 'Then, in #{c}, mention {other} and say "{body}"'),
        me=intro(s, u),
        c=ch["name"],
        other=named,
        body=body,
    )
    uid, them, cid = three_lookups(s, u, other, ch)
    s.memory["posted"] = s.call("post_message", channel_id=cid, author_id=uid, text=f"@{them['handle']} {body}")
    s.memory["colleague"] = them
    if not then(s, chance=0.2):
        return
    s.say(
        "Show me the latest messages there.",
        "What's been said in that channel lately?",
        "Did it go through? Show me the channel.",
    )
    s.call("search_messages", user_id=uid, channel_id=cid)


@chat.intent(covers=("search_users", "list_channels", "search_messages", "post_message"))
def catch_up_on_thread(s: Scene) -> None:
    """A member reads the replies under a colleague's message."""
    u = me(s)
    m = visible_message(s, u["user_id"], "(SELECT COUNT(*) FROM messages r WHERE r.thread_id = m.message_id) > 0")
    what = message_ref(s, m)
    ask(
        s,
        (
            "I'm {me}. What did people answer to {what}?",
            "{me} here. Catch me up on the replies to {what}.",
            "This is {me}: what's the thread under {what} saying?",
        ),
        ("What did people answer to {what}?", "Also catch me up on the replies to {what}."),
        me=intro(s, u),
        what=what,
    )
    uid, cid, hit = reach(s, u, m)
    s.call("search_messages", user_id=uid, thread_id=hit["message_id"])
    s.memory["message"] = hit | {"channel_id": cid}
    if not then(s, chance=0.2):
        return
    text = s.rng.choice(REPLY_TEXTS)
    reply = s.given(text, f'"{text}"', "reply", "post_message", "text")
    s.say("Add my reply to that thread: {r}", "Answer them there: {r}", r=reply)
    s.call("post_message", channel_id=cid, author_id=uid, text=text, thread_id=hit["message_id"])


# Follow-ups: a short next turn about the member or channel the dialogue is already about ----------


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
    if mode == "mentions":
        s.say("Has anyone mentioned me in #{c}?", "Any messages in #{c} tagging me?", c=ch["name"])
        s.call("search_messages", user_id=me_["user_id"], channel_id=ch["channel_id"], mentions_user_id=me_["user_id"])
    elif mode == "words":
        word = s.rng.choice(("deploy", "review", "release", "customer", "doc"))
        s.say("Did anyone in #{c} talk about the {w}?", "Search #{c} for anything about {w}.", c=ch["name"], w=word)
        s.call("search_messages", user_id=me_["user_id"], channel_id=ch["channel_id"], query=word)
    else:
        s.say(
            "What's the latest in #{c}?", "Catch me up on #{c}.", "What have people been saying in #{c}?", c=ch["name"]
        )
        s.call("search_messages", user_id=me_["user_id"], channel_id=ch["channel_id"])


@chat.intent(covers=("get_channel",), follows=True, opens=False)
def channel_roster(s: Scene) -> None:
    """The member asks who is in the channel the dialogue is about."""
    ch = s.memory.get("channel")
    if not ch:
        raise Skip("no channel in the dialogue yet")
    s.asked("get_channel", channel_id=ch["channel_id"])
    s.say("Who's in #{c}, by the way?", "How big is #{c}?", c=ch["name"])
    s.call("get_channel", channel_id=ch["channel_id"])


@chat.intent(covers=("list_channels",), follows=True, opens=False)
def my_channels(s: Scene) -> None:
    """The member asks which channels they are in."""
    me_ = member(s)
    archived = s.rng.random() < 0.3
    s.say(
        "Which channels am I in now[, archived ones included]?" if archived else "Which channels am I in now?",
        "List my channels[, including the archived ones]." if archived else "List my channels.",
    )
    args: dict[str, Any] = {"user_id": me_["user_id"]}
    if archived:
        args["include_archived"] = True
    s.call("list_channels", **args)


@chat.intent(covers=("search_users", "list_channels", "search_messages", "add_reaction", "post_message"), follows=True)
def channel_catch_up(s: Scene) -> None:
    """A member reads the latest in one of their channels, then picks out one post by who wrote it."""
    u = me(s)
    ch = my_channel(s, u["user_id"], "(SELECT COUNT(*) FROM messages x WHERE x.channel_id = c.channel_id) > 0")
    uid, cid = ask_on_channel(
        s,
        u,
        ch,
        (
            "I'm {me}. What's been happening in #{c}?",
            "{me} here: catch me up on #{c}.",
            "This is {me}. What did I miss in #{c}?",
        ),
        ("What's been happening in #{c}?", "Catch me up on #{c} too.", "And what did I miss in #{c}?"),
        "{me}: #{c}, what's new?",
    )
    s.asked("search_messages", channel_id=cid, user_id=uid)
    posts = s.call("search_messages", user_id=uid, channel_id=cid)["messages"]
    if not then(s, chance=0.15):
        return
    others = [p for p in posts if p["author_id"] != uid]
    authors = {p["author_id"]: n for p in others for n in [sum(q["author_id"] == p["author_id"] for q in others)]}
    alone = [p for p in others if authors[p["author_id"]] == 1]
    p = s.choose(alone, lambda r: r["author_id"], none="no post stands out", alike="same author")
    name = s.value("SELECT name FROM users WHERE user_id = ?", p["author_id"])
    s.memory["message"] = p
    if s.rng.random() < 0.4:
        text = s.rng.choice(REPLY_TEXTS)
        s.say('Answer {a}\'s post there: "{t}"', 'Reply under the post from {a} with "{t}"', a=name, t=text)
        s.memory["posted"] = s.call("post_message", channel_id=cid, author_id=uid, text=text, thread_id=p["message_id"])
        return
    s.say(
        "What did {a} write there? Give it a thumbs-up.",
        "{a}'s post there deserves a thumbs-up.",
        "Put a thumbs-up on the post from {a}.",
        a=name,
    )
    if reacted(s, p["message_id"], uid, "thumbsup"):
        raise Skip("already reacted")
    args = {"message_id": p["message_id"], "user_id": uid, "emoji": "thumbsup"}
    s.call("add_reaction", **args)
    s.memory["reacted"] = args


@chat.intent(covers=("search_users", "list_channels", "search_messages"))
def colleague_in_channel(s: Scene) -> None:
    """A member asks what a colleague has been saying in one of their shared channels."""
    u = me(s)
    ch = my_channel(s, u["user_id"])
    other, named = colleague(
        s,
        "user_id != ? AND user_id IN (SELECT author_id FROM messages WHERE channel_id = ? AND thread_id IS NULL)",
        u["user_id"],
        ch["channel_id"],
    )
    ask(
        s,
        (
            "I'm {me}. What has {other} been posting in #{c}?",
            "{me} here: show me {other}'s messages in #{c}.",
            "This is {me}. What did {other} say in #{c} lately?",
        ),
        ("What has {other} been posting in #{c}?", "Also show me {other}'s messages in #{c}."),
        me=intro(s, u),
        other=named,
        c=ch["name"],
    )
    uid, them, cid = three_lookups(s, u, other, ch)
    found = s.call("search_messages", user_id=uid, channel_id=cid, author_id=them["user_id"])["messages"]
    s.memory["colleague"] = them
    tops = [m for m in found if m["thread_id"] is None]
    if tops:
        s.memory["message"] = tops[0]


@chat.intent(covers=("search_users", "list_channels", "get_channel", "invite_to_channel"))
def make_sure_they_are_in(s: Scene) -> None:
    """A member checks whether a colleague is in one of their channels and, if not, brings them in."""
    u = me(s)
    ch = my_channel(s, u["user_id"])
    other, named = colleague(s, "user_id != ?", u["user_id"])
    inside = bool(
        s.rows("SELECT 1 FROM channel_members WHERE channel_id = ? AND user_id = ?", ch["channel_id"], other["user_id"])
    )
    s.say(
        "I'm {me}. Is {other} in #{c}?",
        "{me} here: can you check whether {other} is in #{c}?",
        "This is {me}. Does {other} follow #{c}?",
        minimal=["{me}: {other} and #{c}?"],
        me=intro(s, u),
        other=named,
        c=ch["name"],
    )
    uid, them, cid = three_lookups(s, u, other, ch)
    s.call("get_channel", channel_id=cid)
    s.memory["colleague"] = them
    if not inside:
        s.say("They're not? Add them then.", "Then please bring them in.", "OK, invite them.")
        s.call("invite_to_channel", channel_id=cid, inviter_id=uid, user_id=them["user_id"])
