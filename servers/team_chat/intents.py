"""What people want of team chat: a workspace member catching up, posting, replying, reacting, tidying.

The user is a member who says who they are (their name); the agent finds their member id with
``search_users``, channels by name with ``list_channels`` (private ones only among the member's own
channels), and messages with ``search_messages``. People name messages by author, channel, and a
few words of the text; colleagues by name.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.team_chat.core import UserId

WORDS = phrasings(__package__)

ACTIVE = "SELECT user_id, handle, name, title, department FROM users WHERE status = 'active'"
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


SPEAKER = Speaker(
    UserId,
    select=ACTIVE,
    says=(Says("{name}", "name"),),
    search=Search(missing="the member is not on the first page of the search"),
    keep=("department",),
    late=True,
)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The member talking: the one an earlier turn established, or an active member with a unique name."""
    return SPEAKER.me(s, f"name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1) AND ({where})", *params)


def then(s: Scene, calls: int = 1, chance: float = 0.2) -> bool:
    """Whether an intent adds its own next turn: by chance (rarely: the follow-up intents ask the same kind of
    next question, in many more combinations), and only when it fits."""
    return s.by_chance(chance, calls)


def intro(s: Scene, u: dict[str, Any]) -> str:
    """How the member introduces themself: by name, sometimes with their team (the agent can then narrow its search
    to that department); nothing once an earlier turn did."""
    if s.turns:
        return ""
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
    return dict(s.known("me", "no member in the dialogue yet"))


def find_me(s: Scene, u: dict[str, Any]) -> str:
    """The discovery call for the member's own id (narrowed to their team when they named it)."""
    team = s.memory.get("me_department")
    return SPEAKER.find(s, u, **({"department": team} if team else {}))


def find_user(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    """A colleague's member record, searched by name (and team, when the user named it)."""
    args = {"query": u["name"]}
    if u.get("named_with_department"):
        args["department"] = u["department"]
    return s.discover(UserId, u["user_id"], missing="the colleague is not on the first page of the search", **args)


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
        return in_first_page(s, user_id, m, channel_id=m["channel_id"], author_id=user_id)
    named = s.value("SELECT COUNT(*) FROM users WHERE name = ?", m["author"]) == 1
    if s.room(4, 1) and s.rng.random() < 0.6 and named:
        them = find_user(s, {"name": m["author"], "user_id": m["author_id"]})
        s.memory["colleague"] = them
        return in_first_page(s, user_id, m, channel_id=m["channel_id"], author_id=them["user_id"])
    return in_first_page(s, user_id, m, channel_id=m["channel_id"], query=words_of(m))


def words_of(m: dict[str, Any]) -> str:
    return " ".join(m["text"].split()[:5]).rstrip(",.!?:")


def listed_message(s: Scene, u: dict[str, Any]) -> dict[str, Any] | None:
    """A colleague's top-level message that a search of the dialogue listed (the agent holds its id), if any."""
    ids = sorted(
        {
            r["message_id"]
            for c in s.calls
            if c.tool == "search_messages"
            for r in c.result["messages"]
            if r["thread_id"] is None and r["author_id"] != u["user_id"]
        }
    )
    try:
        return visible_message(s, u["user_id"], f"m.message_id IN ({', '.join('?' * len(ids))})", *ids) if ids else None
    except Skip:  # none of them in a channel the member is in
        return None


def me_and_channel(s: Scene, u: dict[str, Any], ch: dict[str, Any]) -> tuple[str, str]:
    """The member's id and the channel's: a private channel is listed as the member (so them first); otherwise
    either lookup may come first."""
    if ch["is_private"] or s.rng.random() < 0.5:
        uid = find_me(s, u)
        return uid, find_channel(s, ch, uid)
    cid = find_channel(s, ch)
    return find_me(s, u), cid


def ask_on_channel(s: Scene, u: dict[str, Any], ch: dict[str, Any], *phrasings: Said, minimal: str) -> tuple[str, str]:
    """The member's turn about one channel (``{me}``, ``{c}`` in the phrasings), then their id and the channel's."""
    s.say(*phrasings, minimal=[minimal], me=intro(s, u), c=ch["name"])
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
        hit = in_first_page(s, uid, m, query=words_of(m))
        s.memory["channel"] = s.rows("SELECT * FROM channels WHERE channel_id = ?", hit["channel_id"])[0]
        return uid, str(hit["channel_id"]), hit
    uid, cid = me_and_channel(s, u, {"name": m["channel"], "is_private": int(private(s, m))})
    return uid, cid, locate(s, uid, m | {"channel_id": cid})


def in_first_page(s: Scene, user_id: str, m: dict[str, Any], **filters: Any) -> dict[str, Any]:
    found = s.call("search_messages", user_id=user_id, **filters)["messages"]
    hit = [x for x in found if x["message_id"] == m["message_id"]]
    if not hit:
        raise Skip("the message is not on the first page")
    s.memory["message"] = hit[0]
    return hit[0]


def who_is_there(s: Scene, cid: str) -> None:
    """The member's next turn, once in a channel: who else is in it."""
    s.say(WORDS.who_is_there)
    s.call("get_channel", channel_id=cid)


def private(s: Scene, m: dict[str, Any]) -> bool:
    return bool(s.value("SELECT is_private FROM channels WHERE channel_id = ?", m["channel_id"]))
