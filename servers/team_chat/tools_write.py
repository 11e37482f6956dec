"""Acting in the workspace: joining, leaving and inviting to channels, posting, editing, reacting."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, Entity, ToolError, fake, next_id
from servers.team_chat.core import (
    GENERAL,
    ChannelId,
    MessageId,
    Text,
    UserId,
    chat,
    clean_text,
    is_member,
    member_row,
    mentions_in,
    message_view,
    require_member,
    writable,
)


@chat.write()
def join_channel(ctx: Ctx, channel_id: ChannelId, user_id: UserId) -> dict[str, Any]:
    """Join a public channel as user_id, e.g. join_channel('CHN-0004', 'USR-0007'). Private channels need an invite."""
    member_row(ctx, user_id, acting=True)
    ch = ChannelId.get(ctx, channel_id)
    writable(ch)
    if is_member(ctx, channel_id, user_id):
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
    member_row(ctx, user_id)
    ch = ChannelId.get(ctx, channel_id)
    writable(ch)
    if channel_id == GENERAL:
        raise ToolError("#general is the workspace default channel; members cannot leave it.")
    if not is_member(ctx, channel_id, user_id):
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
    member_row(ctx, inviter_id, acting=True)
    ch = ChannelId.get(ctx, channel_id)
    writable(ch)
    if not is_member(ctx, channel_id, inviter_id):
        raise ToolError(
            f"{inviter_id} is not a member of #{ch['name']} and cannot invite; "
            "ask one of its members (see get_channel)."
        )
    target = member_row(ctx, user_id)
    if target["status"] != "active":
        raise ToolError(f"Member {user_id} is deactivated and cannot be invited.")
    if is_member(ctx, channel_id, user_id):
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
    member_row(ctx, author_id, acting=True)
    ch = ChannelId.get(ctx, channel_id)
    writable(ch)
    require_member(ctx, ch, author_id)
    clean = clean_text(text)
    if thread_id is not None:
        root = MessageId.get(ctx, thread_id)
        if root["channel_id"] != channel_id:
            raise ToolError(
                f"Message {thread_id} is in {root['channel_id']}, not {channel_id}; reply in its own channel."
            )
        if root["thread_id"] is not None:
            raise ToolError(f"{thread_id} is a reply; reply to its thread root {root['thread_id']} instead.")
    mentioned = mentions_in(ctx, ch, clean)
    message_id = next_id(ctx.db, "messages", "message_id", "MSG", 5)
    ctx.db.execute(
        "INSERT INTO messages VALUES (?,?,?,?,?,?,?)",
        (message_id, channel_id, author_id, thread_id, clean, fake.iso(ctx.now), None),
    )
    ctx.db.executemany("INSERT INTO mentions VALUES (?,?)", [(message_id, u) for u in mentioned])
    return message_view(ctx, message_id)


@chat.write(requires=("post_message",))
def edit_message(ctx: Ctx, message_id: MessageId, user_id: UserId, text: Text) -> dict[str, Any]:
    """Replace the text of one's own message, e.g. edit_message('MSG-00149', 'USR-0084',
    'Deploy to prod done, all green').

    Only the author can edit; archived channels are read-only."""
    member_row(ctx, user_id, acting=True)
    msg = MessageId.get(ctx, message_id)
    if msg["author_id"] != user_id:
        raise ToolError(
            f"Only the author ({msg['author_id']}) can edit {message_id}; {user_id} cannot edit others' messages."
        )
    ch = ChannelId.get(ctx, msg["channel_id"])
    writable(ch)
    clean = clean_text(text)
    if clean == msg["text"]:
        raise ToolError(f"{message_id} already has exactly this text; nothing to change.")
    mentioned = mentions_in(ctx, ch, clean)
    ctx.db.execute(
        "UPDATE messages SET text = ?, edited_at = ? WHERE message_id = ?", (clean, fake.iso(ctx.now), message_id)
    )
    ctx.db.execute("DELETE FROM mentions WHERE message_id = ?", (message_id,))
    ctx.db.executemany("INSERT INTO mentions VALUES (?,?)", [(message_id, u) for u in mentioned])
    return message_view(ctx, message_id)


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
    member_row(ctx, user_id, acting=True)
    msg = MessageId.get(ctx, message_id)
    ch = ChannelId.get(ctx, msg["channel_id"])
    writable(ch)
    require_member(ctx, ch, user_id)
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
    return {"message_id": message_id, "reactions": message_view(ctx, message_id)["reactions"]}
