"""What a member wants done with messages: replying in a thread, reacting, fixing their own post, posting with an
@-mention, catching up on a thread, a colleague's posts or their own mentions."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.team_chat.intents import (
    EMOJI_WORDS,
    WORDS,
    colleague,
    find_me,
    in_first_page,
    intro,
    listed_message,
    me,
    me_and_channel,
    message_near,
    message_ref,
    my_channel,
    private,
    reach,
    reacted,
    then,
    three_lookups,
    visible_message,
)
from servers.team_chat.tools import chat


@chat.intent(covers=("search_users", "list_channels", "search_messages", "post_message"), weight=1.5, follows=True)
def reply_in_thread(s: Scene) -> None:
    """A member answers a message in its thread."""
    u = me(s)
    listed = listed_message(s, u) if s.turns and s.rng.random() < 0.7 else None
    m = listed or message_near(s, u["user_id"], "m.author_id != ?", u["user_id"])
    what = message_ref(s, m)
    text = s.rng.choice(WORDS.reply_texts)
    reply = s.given(text, f'"{text}"', "reply", "post_message", "text")
    s.say(WORDS.reply_in_thread, me=intro(s, u), what=what, reply=reply)
    if listed:  # the agent holds its id (and its channel's) from the listing
        uid, cid, hit = find_me(s, u), str(m["channel_id"]), m
        s.memory["message"] = m
    else:
        uid, cid, hit = reach(s, u, m)
    s.memory["posted"] = s.call("post_message", channel_id=cid, author_id=uid, text=text, thread_id=hit["message_id"])
    if then(s, chance=0.15):
        s.say(WORDS.reply_in_thread_then_show)
        s.call("search_messages", user_id=uid, thread_id=hit["message_id"])


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
        s.say(WORDS.react_to_message, me=intro(s, u), e=mine_word, what=what)
    else:
        s.say(WORDS.react_to_message_add, me=intro(s, u), e=EMOJI_WORDS[emoji], what=what)
    uid, cid, hit = reach(s, u, m)
    args: dict[str, Any] = {"message_id": hit["message_id"], "user_id": uid, "emoji": emoji}
    if take_back:
        args["remove"] = True
    s.call("add_reaction", **args)
    s.memory["message"] = hit | {"channel_id": cid}
    if not take_back:
        s.memory["reacted"] = args
    if then(s, chance=0.15):
        text = s.rng.choice(WORDS.reply_texts)
        s.say(WORDS.react_to_message_then_reply, t=text)
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
    s.say(WORDS.fix_my_message, me=intro(s, u), latest=latest, new=new)
    uid, cid = me_and_channel(s, u, {"name": m["channel"], "is_private": int(private(s, m))})
    hit = in_first_page(s, uid, m, channel_id=cid, author_id=uid)
    s.call("edit_message", message_id=hit["message_id"], user_id=uid, text=text)
    if then(s, chance=0.15):
        s.say(WORDS.fix_my_message_then_show)
        s.call("search_messages", user_id=uid, channel_id=cid, author_id=uid)


@chat.intent(covers=("search_users", "search_messages", "get_channel", "post_message", "add_reaction"), follows=True)
def who_mentioned_me(s: Scene) -> None:
    """A member catches up on the messages that @-mention them."""
    u = me(s, "user_id IN (SELECT user_id FROM mentions)")
    s.say(WORDS.who_mentioned_me, me=intro(s, u))
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
        s.say(WORDS.who_mentioned_me_then_channel)
        s.memory["channel"] = s.call("get_channel", channel_id=latest["channel_id"])
    elif mode == "reply":
        text = s.rng.choice(WORDS.reply_texts)
        s.say(WORDS.who_mentioned_me_then_reply, t=text)
        s.memory["posted"] = s.call(
            "post_message", channel_id=latest["channel_id"], author_id=uid, text=text, thread_id=latest["message_id"]
        )
    else:
        if reacted(s, latest["message_id"], uid, "eyes"):
            raise Skip("already reacted")
        s.say(WORDS.who_mentioned_me_then_eyes)
        args = {"message_id": latest["message_id"], "user_id": uid, "emoji": "eyes"}
        s.call("add_reaction", **args)
        s.memory["reacted"] = args


@chat.intent(covers=("search_users", "list_channels", "post_message", "search_messages"), weight=1.5)
def post_with_mention(s: Scene) -> None:
    """A member posts in a channel, tagging a colleague by name."""
    u = me(s)
    ch = my_channel(s, u["user_id"], "c.is_private = 0")
    other, named = colleague(s, "user_id != ?", u["user_id"])
    body = s.rng.choice(WORDS.mention_bodies)
    s.say(WORDS.post_with_mention, me=intro(s, u), c=ch["name"], other=named, body=body)
    uid, them, cid = three_lookups(s, u, other, ch)
    s.memory["posted"] = s.call("post_message", channel_id=cid, author_id=uid, text=f"@{them['handle']} {body}")
    s.memory["colleague"] = them
    if not then(s, chance=0.2):
        return
    s.say(WORDS.post_with_mention_then_channel)
    s.call("search_messages", user_id=uid, channel_id=cid)


@chat.intent(covers=("search_users", "list_channels", "search_messages", "post_message"))
def catch_up_on_thread(s: Scene) -> None:
    """A member reads the replies under a colleague's message."""
    u = me(s)
    m = visible_message(s, u["user_id"], "(SELECT COUNT(*) FROM messages r WHERE r.thread_id = m.message_id) > 0")
    what = message_ref(s, m)
    s.say(WORDS.catch_up_on_thread, me=intro(s, u), what=what)
    uid, cid, hit = reach(s, u, m)
    s.call("search_messages", user_id=uid, thread_id=hit["message_id"])
    s.memory["message"] = hit | {"channel_id": cid}
    if not then(s, chance=0.2):
        return
    text = s.rng.choice(WORDS.reply_texts)
    reply = s.given(text, f'"{text}"', "reply", "post_message", "text")
    s.say(WORDS.catch_up_on_thread_then_reply, r=reply)
    s.call("post_message", channel_id=cid, author_id=uid, text=text, thread_id=hit["message_id"])


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
    s.say(WORDS.colleague_in_channel, me=intro(s, u), other=named, c=ch["name"])
    uid, them, cid = three_lookups(s, u, other, ch)
    found = s.call("search_messages", user_id=uid, channel_id=cid, author_id=them["user_id"])["messages"]
    s.memory["colleague"] = them
    tops = [m for m in found if m["thread_id"] is None]
    if tops:
        s.memory["message"] = tops[0]
