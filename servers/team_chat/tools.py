"""The team chat tools: members, channels, messages, threads and reactions."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fake, fetch, next_id, rows
from servers.team_chat.schema import SCHEMA
from servers.team_chat.seed import seed

GENERAL = "CHN-0001"
MAX_TEXT = 4000
MENTION = re.compile(r"(?<![\w.])@([a-z0-9_-]+(?:\.[a-z0-9_-]+)*)", re.IGNORECASE)

chat = Server(
    "team_chat",
    "Workspace chat: members, public and private channels, messages, threads, reactions and mentions.",
    SCHEMA,
    seed,
    family="comms",
)

UserId = Annotated[str, Field(description="The member acting, e.g. 'USR-0022'"), Entity("user")]
ChannelId = Annotated[str, Field(description="Channel id, e.g. 'CHN-0004' (#eng-backend)"), Entity("channel")]
MessageId = Annotated[str, Field(description="Message id, e.g. 'MSG-00149'"), Entity("message")]
Text = Annotated[
    str,
    Field(
        min_length=1,
        max_length=10_000,
        description="Message text; '@handle' mentions a member, e.g. '@ishah can you review?'",
    ),
]


def _user(ctx: Ctx, user_id: str, acting: bool = False) -> dict[str, Any]:
    user = fetch(
        ctx.db,
        "SELECT * FROM users WHERE user_id = ?",
        (user_id,),
        f"No member {user_id!r}. Use search_users to find member ids.",
    )
    if acting and user["status"] != "active":
        raise ToolError(f"Member {user_id} ({user['name']}) is deactivated and cannot act in the workspace.")
    return user


def _channel(ctx: Ctx, channel_id: str) -> dict[str, Any]:
    return fetch(
        ctx.db,
        "SELECT * FROM channels WHERE channel_id = ?",
        (channel_id,),
        f"No channel {channel_id!r}. Use list_channels to find channel ids.",
    )


def _message(ctx: Ctx, message_id: str) -> dict[str, Any]:
    return fetch(
        ctx.db,
        "SELECT * FROM messages WHERE message_id = ?",
        (message_id,),
        f"No message {message_id!r}. Use search_messages to find message ids.",
    )


def _is_member(ctx: Ctx, channel_id: str, user_id: str) -> bool:
    return (
        ctx.db.execute(
            "SELECT 1 FROM channel_members WHERE channel_id = ? AND user_id = ?", (channel_id, user_id)
        ).fetchone()
        is not None
    )


def _writable(ch: dict[str, Any]) -> None:
    if ch["is_archived"]:
        raise ToolError(f"#{ch['name']} ({ch['channel_id']}) is archived and read-only; use an active channel instead.")


def _require_member(ctx: Ctx, ch: dict[str, Any], user_id: str) -> None:
    if not _is_member(ctx, ch["channel_id"], user_id):
        how = (
            "it is private: a member must invite them with invite_to_channel"
            if ch["is_private"]
            else f"join it first with join_channel('{ch['channel_id']}', '{user_id}')"
        )
        raise ToolError(f"{user_id} is not a member of #{ch['name']} ({ch['channel_id']}); {how}.")


def _mentions(ctx: Ctx, ch: dict[str, Any], text: str) -> list[str]:
    """The member ids a text mentions; raises on unknown handles and on non-members of a private channel."""
    ids = []
    for handle in dict.fromkeys(h.lower()[:60] for h in MENTION.findall(text)):
        found = ctx.db.execute("SELECT user_id FROM users WHERE handle = ?", (handle,)).fetchone()
        if found is None:
            raise ToolError(f"No member with handle @{handle}; use search_users to find the right handle.")
        if ch["is_private"] and not _is_member(ctx, ch["channel_id"], found[0]):
            raise ToolError(
                f"@{handle} ({found[0]}) is not in private channel #{ch['name']}; "
                "invite them with invite_to_channel or drop the mention."
            )
        ids.append(found[0])
    return ids


def _clean(text: str) -> str:
    text = text.strip()
    if not text:
        raise ToolError("A message cannot be empty; write some text.")
    if len(text) > MAX_TEXT:
        raise ToolError(
            f"The message is {len(text)} characters; the limit is {MAX_TEXT}. Split it into several messages."
        )
    return text


def _message_view(ctx: Ctx, message_id: str) -> dict[str, Any]:
    msg = _message(ctx, message_id)
    msg["reply_count"] = ctx.db.execute("SELECT COUNT(*) FROM messages WHERE thread_id = ?", (message_id,)).fetchone()[
        0
    ]
    msg["reactions"] = {
        e: n
        for e, n in ctx.db.execute(
            "SELECT emoji, COUNT(*) FROM reactions WHERE message_id = ? GROUP BY emoji ORDER BY emoji", (message_id,)
        )
    }
    msg["mentions"] = [
        r[0]
        for r in ctx.db.execute("SELECT user_id FROM mentions WHERE message_id = ? ORDER BY user_id", (message_id,))
    ]
    return msg


@chat.read(returns=("user",))
def search_users(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name, handle or title, e.g. 'Garcia'")] = "",
    department: Literal["Engineering", "Product", "Design", "Marketing", "Sales", "Support", "Finance", "People"]
    | None = None,
    status: Literal["active", "deactivated"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search workspace members by name, handle or title. Returns member ids such as 'USR-0007' and @handles."""
    like = f"%{query}%"
    sql, args = (
        "SELECT user_id, handle, name, title, department, timezone, status FROM users "
        "WHERE (name LIKE ? OR handle LIKE ? OR title LIKE ?)",
        [like, like, like],
    )
    for column, value in (("department", department), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY user_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"users": found, "count": len(found)}


@chat.read(returns=("channel",))
def list_channels(
    ctx: Ctx,
    user_id: Annotated[
        str | None,
        Field(description="Only channels this member belongs to (this also shows their private ones), e.g. 'USR-0007'"),
        Entity("user"),
    ] = None,
    query: Annotated[str, Field(max_length=100, description="Part of a channel name or topic, e.g. 'eng'")] = "",
    include_archived: Annotated[bool, Field(description="Include archived (read-only) channels")] = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List channels with member counts, e.g. list_channels(query='eng'). Without user_id only public channels are
    listed."""
    like = f"%{query}%"
    sql = (
        "SELECT c.channel_id, c.name, c.topic, c.is_private, c.is_archived, "
        "(SELECT COUNT(*) FROM channel_members m WHERE m.channel_id = c.channel_id) AS member_count FROM channels c "
        "WHERE (c.name LIKE ? OR c.topic LIKE ?)"
    )
    args: list[Any] = [like, like]
    if user_id is not None:
        _user(ctx, user_id)
        sql += " AND c.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?)"
        args.append(user_id)
    else:
        sql += " AND c.is_private = 0"
    if not include_archived:
        sql += " AND c.is_archived = 0"
    found = rows(ctx.db.execute(sql + " ORDER BY c.channel_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"channels": found, "count": len(found)}


@chat.read(returns=("channel", "user"))
def get_channel(ctx: Ctx, channel_id: ChannelId) -> dict[str, Any]:
    """Get a channel: name, topic, private/archived flags, creator and member ids, e.g. get_channel('CHN-0004')."""
    ch = _channel(ctx, channel_id)
    ch["member_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT user_id FROM channel_members WHERE channel_id = ? ORDER BY user_id", (channel_id,)
        )
    ]
    ch["member_count"] = len(ch["member_ids"])
    ch["message_count"] = ctx.db.execute(
        "SELECT COUNT(*) FROM messages WHERE channel_id = ?", (channel_id,)
    ).fetchone()[0]
    return ch


@chat.read(returns=("message", "channel", "user"))
def search_messages(
    ctx: Ctx,
    user_id: UserId,
    channel_id: Annotated[
        str | None, Field(description="Only this channel, e.g. 'CHN-0004'"), Entity("channel")
    ] = None,
    thread_id: Annotated[
        str | None,
        Field(description="Only replies in the thread of this root message, oldest first, e.g. 'MSG-00149'"),
        Entity("message"),
    ] = None,
    author_id: Annotated[
        str | None, Field(description="Only messages by this member, e.g. 'USR-0012'"), Entity("user")
    ] = None,
    mentions_user_id: Annotated[
        str | None, Field(description="Only messages that @mention this member, e.g. 'USR-0007'"), Entity("user")
    ] = None,
    query: Annotated[
        str | None, Field(max_length=200, description="Only messages containing this text, e.g. 'deploy'")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Read messages as user_id, newest first (a thread oldest first), e.g. search_messages('USR-0022',
    channel_id='CHN-0004').

    Private channels are readable only by their members. Without thread_id only top-level messages
    are listed, with their reply counts."""
    _user(ctx, user_id)
    sql, args = "SELECT m.message_id FROM messages m JOIN channels c ON c.channel_id = m.channel_id WHERE 1=1", []
    if channel_id is not None:
        ch = _channel(ctx, channel_id)
        if ch["is_private"] and not _is_member(ctx, channel_id, user_id):
            raise ToolError(
                f"#{ch['name']} ({channel_id}) is private and {user_id} is not a member; ask a member to invite them."
            )
        sql += " AND m.channel_id = ?"
        args.append(channel_id)
    else:
        sql += " AND (c.is_private = 0 OR m.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?))"
        args.append(user_id)
    order = " ORDER BY m.created_at DESC, m.message_id DESC"
    if thread_id is not None:
        root = _message(ctx, thread_id)
        if root["thread_id"] is not None:
            raise ToolError(f"{thread_id} is itself a reply; its thread root is {root['thread_id']}.")
        sql += " AND m.thread_id = ?"
        args.append(thread_id)
        order = " ORDER BY m.created_at, m.message_id"
    elif author_id is None and mentions_user_id is None and query is None:
        sql += " AND m.thread_id IS NULL"
    if author_id is not None:
        sql += " AND m.author_id = ?"
        args.append(author_id)
    if mentions_user_id is not None:
        sql += " AND m.message_id IN (SELECT message_id FROM mentions WHERE user_id = ?)"
        args.append(mentions_user_id)
    if query is not None:
        sql += " AND m.text LIKE ?"
        args.append(f"%{query}%")
    ids = [r[0] for r in ctx.db.execute(sql + order + " LIMIT ? OFFSET ?", (*args, limit, offset))]
    found = [_message_view(ctx, i) for i in ids]
    return {"messages": found, "count": len(found)}


DISTINCT_FIELDS = {
    "department": ("users", "department"),
    "title": ("users", "title"),
    "timezone": ("users", "timezone"),
    "member_status": ("users", "status"),
    "emoji": ("reactions", "emoji"),
}


@chat.read()
def get_distinct_values(
    ctx: Ctx, field: Literal["department", "title", "timezone", "member_status", "emoji"]
) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('department')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@chat.write()
def join_channel(ctx: Ctx, channel_id: ChannelId, user_id: UserId) -> dict[str, Any]:
    """Join a public channel as user_id, e.g. join_channel('CHN-0004', 'USR-0007'). Private channels need an invite."""
    _user(ctx, user_id, acting=True)
    ch = _channel(ctx, channel_id)
    _writable(ch)
    if _is_member(ctx, channel_id, user_id):
        raise ToolError(f"{user_id} is already a member of #{ch['name']}.")
    if ch["is_private"]:
        raise ToolError(
            f"#{ch['name']} ({channel_id}) is private; a member must invite {user_id} with invite_to_channel."
        )
    ctx.db.execute("INSERT INTO channel_members VALUES (?,?,?,?)", (channel_id, user_id, fake.iso(ctx.now), None))
    return {"channel_id": channel_id, "user_id": user_id, "joined": True}


@chat.write(requires=("join_channel",))
def leave_channel(ctx: Ctx, channel_id: ChannelId, user_id: UserId) -> dict[str, Any]:
    """Leave a channel as user_id, e.g. leave_channel('CHN-0004', 'USR-0022'). #general cannot be left."""
    _user(ctx, user_id)
    ch = _channel(ctx, channel_id)
    _writable(ch)
    if channel_id == GENERAL:
        raise ToolError("#general is the workspace default channel; members cannot leave it.")
    if not _is_member(ctx, channel_id, user_id):
        raise ToolError(f"{user_id} is not a member of #{ch['name']}; nothing to leave.")
    ctx.db.execute("DELETE FROM channel_members WHERE channel_id = ? AND user_id = ?", (channel_id, user_id))
    return {"channel_id": channel_id, "user_id": user_id, "left": True}


@chat.write()
def invite_to_channel(
    ctx: Ctx,
    channel_id: ChannelId,
    inviter_id: Annotated[
        str,
        Field(description="The member sending the invite, a member of the channel, e.g. 'USR-0022'"),
        Entity("user"),
    ],
    user_id: Annotated[str, Field(description="The member to add, e.g. 'USR-0007'"), Entity("user")],
) -> dict[str, Any]:
    """Add a member to a channel on a current member's invite, e.g. invite_to_channel('CHN-0018', 'USR-0022',
    'USR-0007').

    The only way into a private channel."""
    _user(ctx, inviter_id, acting=True)
    ch = _channel(ctx, channel_id)
    _writable(ch)
    if not _is_member(ctx, channel_id, inviter_id):
        raise ToolError(
            f"{inviter_id} is not a member of #{ch['name']} and cannot invite; "
            "ask one of its members (see get_channel)."
        )
    target = _user(ctx, user_id)
    if target["status"] != "active":
        raise ToolError(f"Member {user_id} is deactivated and cannot be invited.")
    if _is_member(ctx, channel_id, user_id):
        raise ToolError(f"{user_id} is already a member of #{ch['name']}.")
    ctx.db.execute("INSERT INTO channel_members VALUES (?,?,?,?)", (channel_id, user_id, fake.iso(ctx.now), inviter_id))
    return {"channel_id": channel_id, "user_id": user_id, "invited_by": inviter_id}


@chat.write(returns=("message",))
def post_message(
    ctx: Ctx,
    channel_id: ChannelId,
    author_id: UserId,
    text: Text,
    thread_id: Annotated[
        str | None, Field(description="Reply in the thread of this root message, e.g. 'MSG-00149'"), Entity("message")
    ] = None,
) -> dict[str, Any]:
    """Post a message (or a thread reply with thread_id) as author_id, e.g. post_message('CHN-0004', 'USR-0022',
    'Deploy done').

    The author must be a channel member; the channel must not be archived."""
    _user(ctx, author_id, acting=True)
    ch = _channel(ctx, channel_id)
    _writable(ch)
    _require_member(ctx, ch, author_id)
    clean = _clean(text)
    if thread_id is not None:
        root = _message(ctx, thread_id)
        if root["channel_id"] != channel_id:
            raise ToolError(
                f"Message {thread_id} is in {root['channel_id']}, not {channel_id}; reply in its own channel."
            )
        if root["thread_id"] is not None:
            raise ToolError(f"{thread_id} is a reply; reply to its thread root {root['thread_id']} instead.")
    mentioned = _mentions(ctx, ch, clean)
    message_id = next_id(ctx.db, "messages", "message_id", "MSG", 5)
    ctx.db.execute(
        "INSERT INTO messages VALUES (?,?,?,?,?,?,?)",
        (message_id, channel_id, author_id, thread_id, clean, fake.iso(ctx.now), None),
    )
    ctx.db.executemany("INSERT INTO mentions VALUES (?,?)", [(message_id, u) for u in mentioned])
    return _message_view(ctx, message_id)


@chat.write(requires=("post_message",))
def edit_message(ctx: Ctx, message_id: MessageId, user_id: UserId, text: Text) -> dict[str, Any]:
    """Replace the text of one's own message, e.g. edit_message('MSG-00149', 'USR-0084',
    'Deploy to prod done, all green').

    Only the author can edit; archived channels are read-only."""
    _user(ctx, user_id, acting=True)
    msg = _message(ctx, message_id)
    if msg["author_id"] != user_id:
        raise ToolError(
            f"Only the author ({msg['author_id']}) can edit {message_id}; {user_id} cannot edit others' messages."
        )
    ch = _channel(ctx, msg["channel_id"])
    _writable(ch)
    clean = _clean(text)
    if clean == msg["text"]:
        raise ToolError(f"{message_id} already has exactly this text; nothing to change.")
    mentioned = _mentions(ctx, ch, clean)
    ctx.db.execute(
        "UPDATE messages SET text = ?, edited_at = ? WHERE message_id = ?", (clean, fake.iso(ctx.now), message_id)
    )
    ctx.db.execute("DELETE FROM mentions WHERE message_id = ?", (message_id,))
    ctx.db.executemany("INSERT INTO mentions VALUES (?,?)", [(message_id, u) for u in mentioned])
    return _message_view(ctx, message_id)


@chat.write()
def add_reaction(
    ctx: Ctx,
    message_id: MessageId,
    user_id: UserId,
    emoji: Annotated[
        str, Field(pattern=r"^[a-z0-9_+-]{1,32}$", description="Emoji short name, e.g. 'thumbsup', 'tada', 'eyes'")
    ],
    remove: Annotated[bool, Field(description="true to take back one's own reaction instead")] = False,
) -> dict[str, Any]:
    """React to a message with an emoji as user_id (or take it back with remove=true), e.g. add_reaction('MSG-00149',
    'USR-0022', 'tada').

    Only channel members can react; each member reacts with a given emoji once."""
    _user(ctx, user_id, acting=True)
    msg = _message(ctx, message_id)
    ch = _channel(ctx, msg["channel_id"])
    _writable(ch)
    _require_member(ctx, ch, user_id)
    exists = (
        ctx.db.execute(
            "SELECT 1 FROM reactions WHERE message_id = ? AND user_id = ? AND emoji = ?", (message_id, user_id, emoji)
        ).fetchone()
        is not None
    )
    if remove:
        if not exists:
            raise ToolError(f"{user_id} has not reacted :{emoji}: to {message_id}; nothing to remove.")
        ctx.db.execute(
            "DELETE FROM reactions WHERE message_id = ? AND user_id = ? AND emoji = ?", (message_id, user_id, emoji)
        )
    else:
        if exists:
            raise ToolError(f"{user_id} already reacted :{emoji}: to {message_id}.")
        ctx.db.execute("INSERT INTO reactions VALUES (?,?,?,?)", (message_id, user_id, emoji, fake.iso(ctx.now)))
    return {"message_id": message_id, "reactions": _message_view(ctx, message_id)["reactions"]}
