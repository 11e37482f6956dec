"""Ids and seeds that callers choose, checked where they enter the hub (REST, MCP, ``/ws``, the dashboard).

A session id is 1 to 128 characters from ``A-Z a-z 0-9 . _ : -``: it travels in URLs
(``/api/sessions/{sid}``, ``/sessions/{sid}/mcp``), headers (``X-Hub-Session``) and the store, and
must mean the same thing in each. A seed is an integer SQLite can hold (a signed 64-bit value).
"""

from __future__ import annotations

import re

from hub.errors import BadId, BadRequest

SESSION_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
SESSION_ID_RULE = "1 to 128 characters from A-Z, a-z, 0-9, '.', '_', ':' and '-'"
MIN_SEED, MAX_SEED = -(2**63), 2**63 - 1


def session_id(value: object, what: str = "session id") -> str:
    """``value`` when it is a valid session id; BadId naming the rule otherwise."""
    if not isinstance(value, str):
        raise BadId(f"a {what} must be a string, got {type(value).__name__}")
    if not SESSION_ID.fullmatch(value):
        raise BadId(
            f"{what} {value[:60]!r}{'…' if len(value) > 60 else ''} is not valid: a {what} is {SESSION_ID_RULE}"
        )
    return value


def seed(value: object) -> int:
    """``value`` when it is an integer seed SQLite can hold; BadRequest otherwise."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(f"a seed must be an integer, got {type(value).__name__}")
    if not MIN_SEED <= value <= MAX_SEED:
        raise BadRequest(f"a seed must lie in [-2**63, 2**63 - 1], got {str(value)[:40]}")
    return value
