"""The team chat tools: members, channels, messages, threads and reactions."""

from __future__ import annotations

from servers.team_chat import tools_read, tools_write  # noqa: F401  (registers them)
from servers.team_chat.core import GENERAL, chat

__all__ = ["GENERAL", "chat"]
