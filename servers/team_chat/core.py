"""The team chat server, its entity types and the helpers its tools share."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, EntityId, Server, ToolError, fetch
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


class UserId(
    EntityId,
    server=chat,
    example="USR-0022",
    finder="search_users",
    noun="member",
    description="The member acting, e.g. 'USR-0022'",
): ...


# eng-backend)"
class ChannelId(
    EntityId,
    server=chat,
    example="CHN-0004",
    finder="list_channels",
    description="Channel id, e.g. 'CHN-0004' (#eng-backend)",
): ...


class MessageId(EntityId, server=chat, example="MSG-00149", finder="search_messages"): ...


Text = Annotated[
    str,
    Field(
        min_length=1,
        max_length=10_000,
        description="Message text; '@handle' mentions a member, e.g. '@ishah can you review?'",
    ),
]


def member_row(ctx: Ctx, user_id: str, acting: bool = False) -> dict[str, Any]:
    """The member (``acting``: who must be active to act)."""
    user = UserId.get(ctx, user_id)
    if acting and user["status"] != "active":
        raise ToolError(f"Member {user_id} ({user['name']}) is deactivated and cannot act in the workspace.")
    return user


def is_member(ctx: Ctx, channel_id: str, user_id: str) -> bool:
    return (
        ctx.db.execute(
            "SELECT 1 FROM channel_members WHERE channel_id = ? AND user_id = ?", (channel_id, user_id)
        ).fetchone()
        is not None
    )


def writable(ch: dict[str, Any]) -> None:
    if ch["is_archived"]:
        raise ToolError(f"#{ch['name']} ({ch['channel_id']}) is archived and read-only; use an active channel instead.")


def require_member(ctx: Ctx, ch: dict[str, Any], user_id: str) -> None:
    if not is_member(ctx, ch["channel_id"], user_id):
        how = (
            "it is private: a member must invite them with invite_to_channel"
            if ch["is_private"]
            else f"join it first with join_channel('{ch['channel_id']}', '{user_id}')"
        )
        raise ToolError(f"{user_id} is not a member of #{ch['name']} ({ch['channel_id']}); {how}.")


def mentions_in(ctx: Ctx, ch: dict[str, Any], text: str) -> list[str]:
    """The member ids a text mentions; raises on unknown handles and on non-members of a private channel."""
    ids = []
    for handle in dict.fromkeys(h.lower()[:60] for h in MENTION.findall(text)):
        no_one = f"No member with handle @{handle}; use search_users to find the right handle."
        user_id = fetch(ctx.db, "SELECT user_id FROM users WHERE handle = ?", (handle,), no_one)["user_id"]
        if ch["is_private"] and not is_member(ctx, ch["channel_id"], user_id):
            raise ToolError(
                f"@{handle} ({user_id}) is not in private channel #{ch['name']}; "
                "invite them with invite_to_channel or drop the mention."
            )
        ids.append(user_id)
    return ids


def clean_text(text: str) -> str:
    text = text.strip()
    if not text:
        raise ToolError("A message cannot be empty; write some text.")
    if len(text) > MAX_TEXT:
        raise ToolError(
            f"The message is {len(text)} characters; the limit is {MAX_TEXT}. Split it into several messages."
        )
    return text


def message_view(ctx: Ctx, message_id: str) -> dict[str, Any]:
    msg = MessageId.get(ctx, message_id)
    msg["reply_count"] = ctx.value("SELECT COUNT(*) FROM messages WHERE thread_id = ?", (message_id,))
    msg["reactions"] = {
        e: n
        for e, n in ctx.db.execute(
            "SELECT emoji, COUNT(*) FROM reactions WHERE message_id = ? GROUP BY emoji ORDER BY emoji", (message_id,)
        )
    }
    msg["mentions"] = ctx.column("SELECT user_id FROM mentions WHERE message_id = ? ORDER BY user_id", (message_id,))
    return msg
