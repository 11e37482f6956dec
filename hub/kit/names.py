"""Flat tool names: ``{server}__{tool}``, as offered to models and on the all-tools MCP endpoint."""

from __future__ import annotations

SEP = "__"


def tool_name(server: str, tool: str) -> str:
    return f"{server}{SEP}{tool}"


def split_name(name: str) -> tuple[str, str] | None:
    """``"banking__get_account"`` -> ``("banking", "get_account")``; None if not of that form."""
    server, sep, tool = name.partition(SEP)
    return (server, tool) if sep and server and tool else None
