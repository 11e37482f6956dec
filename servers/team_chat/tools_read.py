"""Reading the workspace: members, channels and messages."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, Query, ToolError
from servers.team_chat.core import ChannelId, MessageId, UserId, chat, is_member, member_row, message_view


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
    found = ctx.rows(sql + " ORDER BY user_id LIMIT ? OFFSET ?", (*args, limit, offset))
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
        member_row(ctx, user_id)
        sql += " AND c.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?)"
        args.append(user_id)
    else:
        sql += " AND c.is_private = 0"
    if not include_archived:
        sql += " AND c.is_archived = 0"
    found = ctx.rows(sql + " ORDER BY c.channel_id LIMIT ? OFFSET ?", (*args, limit, offset))
    return {"channels": found, "count": len(found)}


@chat.read(returns=("channel", "user"))
def get_channel(ctx: Ctx, channel_id: ChannelId) -> dict[str, Any]:
    """Get a channel: name, topic, private/archived flags, creator and member ids, e.g. get_channel('CHN-0004')."""
    ch = ChannelId.get(ctx, channel_id)
    ch["member_ids"] = ctx.column(
        "SELECT user_id FROM channel_members WHERE channel_id = ? ORDER BY user_id", (channel_id,)
    )
    ch["member_count"] = len(ch["member_ids"])
    ch["message_count"] = ctx.value("SELECT COUNT(*) FROM messages WHERE channel_id = ?", (channel_id,))
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
    member_row(ctx, user_id)
    q = Query("SELECT m.message_id FROM messages m JOIN channels c ON c.channel_id = m.channel_id")
    if channel_id is not None:
        ch = ChannelId.get(ctx, channel_id)
        if ch["is_private"] and not is_member(ctx, channel_id, user_id):
            raise ToolError(
                f"#{ch['name']} ({channel_id}) is private and {user_id} is not a member; ask a member to invite them."
            )
        q.where("m.channel_id = ?", channel_id)
    else:
        q.where(
            "(c.is_private = 0 OR m.channel_id IN (SELECT channel_id FROM channel_members WHERE user_id = ?))", user_id
        )
    order = "m.created_at DESC, m.message_id DESC"
    if thread_id is not None:
        root = MessageId.get(ctx, thread_id)
        if root["thread_id"] is not None:
            raise ToolError(f"{thread_id} is itself a reply; its thread root is {root['thread_id']}.")
        q.where("m.thread_id = ?", thread_id)
        order = "m.created_at, m.message_id"
    elif author_id is None and mentions_user_id is None and query is None:
        q.where("m.thread_id IS NULL")
    q.equal("m.author_id", author_id)
    q.filter("m.message_id IN (SELECT message_id FROM mentions WHERE user_id = ?)", mentions_user_id)
    q.filter("m.text LIKE ?", None if query is None else f"%{query}%")
    ids = [r["message_id"] for r in q.rows(ctx.db, order, limit, offset)]
    found = [message_view(ctx, i) for i in ids]
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
