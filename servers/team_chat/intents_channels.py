"""What a member wants done with channels: joining, leaving, bringing colleagues in, seeing who is where, catching
up on one; and how the workspace is staffed."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.team_chat.intents import (
    WORDS,
    ask_on_channel,
    channel_to_join,
    colleague,
    find_me,
    find_user,
    intro,
    me,
    me_and_channel,
    my_channel,
    reacted,
    then,
    three_lookups,
    who_is_there,
)
from servers.team_chat.tools import chat


@chat.intent(covers=("search_users", "list_channels", "join_channel", "post_message", "get_channel"), weight=1.5)
def join_and_say_hi(s: Scene) -> None:
    """A member joins a public channel and posts there."""
    u = me(s)
    ch = channel_to_join(s, u["user_id"])
    text = s.rng.choice(WORDS.join_and_say_hi_texts).format(c=ch["name"], topic=ch["topic"].lower())
    hello = s.given(text, f'"{text}"', "message", "post_message", "text")
    s.say(WORDS.join_and_say_hi, me=intro(s, u), c=ch["name"], hello=hello)
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
        "I'm {me}, please {add me to|put me in} #{c}.",
        "{me} here. {Sign me up for|Let me join} #{c}{|, please}.",
        "This is {me}; I'd {like|love} to {be in|follow} #{c}.",
        minimal="{me}: #{c}, let me in.",
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
        "{me} here. {Take me out of|Remove me from} #{c}, it's too {noisy|busy}.",
        "I'm {me}, please {remove me from|drop me from} #{c}.",
        "This is {me}. I don't {need|read} #{c} anymore, {get me out|let me leave}.",
        minimal="{me}: done with #{c}.",
    )
    s.call("leave_channel", channel_id=cid, user_id=uid)
    if then(s, chance=0.15):
        s.say(WORDS.leave_noisy_channel)
        s.call("get_channel", channel_id=cid)


@chat.intent(covers=("search_users", "list_channels", "invite_to_channel", "get_channel"), weight=1.5)
def bring_colleague_in(s: Scene) -> None:
    """A member adds a colleague to one of their channels (the only way into a private one)."""
    u = me(s)
    ch = my_channel(s, u["user_id"])
    other, named = colleague(
        s, "user_id NOT IN (SELECT user_id FROM channel_members WHERE channel_id = ?)", ch["channel_id"]
    )
    s.say(WORDS.bring_colleague_in, me=intro(s, u), other=named, c=ch["name"])
    uid, them, cid = three_lookups(s, u, other, ch)
    s.call("invite_to_channel", channel_id=cid, inviter_id=uid, user_id=them["user_id"])
    s.memory["colleague"] = them
    if then(s, chance=0.2):
        s.say(WORDS.bring_colleague_in_then_check)
        s.call("get_channel", channel_id=cid)


@chat.intent(covers=("search_users", "list_channels", "get_channel", "join_channel"))
def colleague_channels(s: Scene) -> None:
    """Someone checks which channels a colleague follows, then looks at one of them (or joins it)."""
    u = me(s) if s.rng.random() < 0.5 else None
    where = "user_id IN (SELECT user_id FROM channel_members)"
    other, named = colleague(s, where + (" AND user_id != ?" if u else ""), *([u["user_id"]] if u else []))
    outside = " AND c.channel_id NOT IN (SELECT channel_id FROM channel_members WHERE user_id = ?)" if u else ""
    ch = my_channel(s, other["user_id"], "c.is_private = 0" + outside, *([u["user_id"]] if u else []))
    if u:
        s.say(WORDS.colleague_channels_with_intro, me=intro(s, u), other=named)
    else:
        s.say(WORDS.colleague_channels_no_intro, other=named)
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
        s.say(WORDS.colleague_channels_then_join, c=ch["name"])
        uid = find_me(s, u)
        s.call("join_channel", channel_id=found["channel_id"], user_id=uid)
        return
    s.say(WORDS.colleague_channels, c=ch["name"])
    s.call("get_channel", channel_id=found["channel_id"])


@chat.intent(covers=("get_distinct_values", "search_users"))
def team_makeup(s: Scene) -> None:
    """Someone looks at how the workspace is staffed, then at one team."""
    field = s.rng.choice(("department", "title", "member_status"))
    s.say(
        {
            "department": "How many people do we have in each {department|team}?",
            "title": "What job titles do people have here, and how many {of each|hold each}?",
            "member_status": "How many accounts are active {versus|compared to} switched off?",
        }[field],
        {
            "department": "{Give me|What's} the headcount per department{|, please}.",
            "title": "{Break|Split} the workspace down by job title.",
            "member_status": "Are there {many|a lot of} deactivated accounts in the workspace?",
        }[field],
    )
    stats = s.call("get_distinct_values", field=field)["values"]
    if field == "department":
        dept = s.rng.choice(sorted(stats))
        s.say(WORDS.team_makeup, d=dept)
        s.call("search_users", department=dept)
    elif field == "title":
        title = s.rng.choice(sorted(stats))
        s.say(WORDS.team_makeup_by_title, t=title)
        s.call("search_users", query=title)
    else:
        if "deactivated" not in stats:
            raise Skip("nobody is deactivated")
        s.say(WORDS.team_makeup_deactivated)
        s.call("search_users", status="deactivated")


@chat.intent(covers=("search_users", "list_channels", "get_channel", "invite_to_channel"))
def make_sure_they_are_in(s: Scene) -> None:
    """A member checks whether a colleague is in one of their channels and, if not, brings them in."""
    u = me(s)
    ch = my_channel(s, u["user_id"])
    other, named = colleague(s, "user_id != ?", u["user_id"])
    inside = bool(
        s.rows("SELECT 1 FROM channel_members WHERE channel_id = ? AND user_id = ?", ch["channel_id"], other["user_id"])
    )
    s.say(WORDS.make_sure_they_are_in, me=intro(s, u), other=named, c=ch["name"])
    uid, them, cid = three_lookups(s, u, other, ch)
    s.call("get_channel", channel_id=cid)
    s.memory["colleague"] = them
    if not inside:
        s.say(WORDS.make_sure_they_are_in_then_add)
        s.call("invite_to_channel", channel_id=cid, inviter_id=uid, user_id=them["user_id"])


@chat.intent(covers=("search_users", "list_channels", "search_messages", "add_reaction", "post_message"), follows=True)
def channel_catch_up(s: Scene) -> None:
    """A member reads the latest in one of their channels, then picks out one post by who wrote it."""
    u = me(s)
    ch = my_channel(s, u["user_id"], "(SELECT COUNT(*) FROM messages x WHERE x.channel_id = c.channel_id) > 0")
    uid, cid = ask_on_channel(
        s,
        u,
        ch,
        "I'm {me}. What's been {happening|going on} in #{c}?",
        "{me} here: {catch me up on|fill me in on} #{c}.",
        "This is {me}. What did I miss in #{c}{| this week}?",
        minimal="{me}: #{c}, what's new?",
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
        text = s.rng.choice(WORDS.reply_texts)
        s.say(WORDS.channel_catch_up_then_reply, a=name, t=text)
        s.memory["posted"] = s.call("post_message", channel_id=cid, author_id=uid, text=text, thread_id=p["message_id"])
        return
    s.say(WORDS.channel_catch_up, a=name)
    if reacted(s, p["message_id"], uid, "thumbsup"):
        raise Skip("already reacted")
    args = {"message_id": p["message_id"], "user_id": uid, "emoji": "thumbsup"}
    s.call("add_reaction", **args)
    s.memory["reacted"] = args
