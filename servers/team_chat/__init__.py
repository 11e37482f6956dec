"""Team chat: workspace members, channels, messages, threads, reactions and mentions.

Business rules: only channel members can post, reply or react; public channels can be joined
freely, private channels only through an invite from a member; archived channels are read-only
(no posting, editing, reacting, joining, leaving or inviting); private channels' messages are
readable only by their members; #general is the workspace default and cannot be left; only a
message's author can edit it; replies go to a thread's root message in the same channel;
@handle mentions must name real members, and in a private channel only its members;
deactivated members cannot act or be invited.
"""

from __future__ import annotations

from servers.team_chat import intents_channels, intents_followups, intents_messages, intents_on_message  # noqa: F401
from servers.team_chat.schema import SCHEMA
from servers.team_chat.seed import seed
from servers.team_chat.tools import chat

__all__ = ["SCHEMA", "seed", "server"]

server = chat
