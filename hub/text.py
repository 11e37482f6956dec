"""Text the hub can store, render and send: valid UTF-8, whatever arrived.

JSON may carry lone surrogates (``"\\ud800"``): valid in a Python ``str``, but not UTF-8, so SQLite,
templates and sockets refuse them. Every boundary that parses JSON itself (``/ws``, ``/api``) passes
what it read through ``storable`` (only when the raw text holds such an escape, so the usual message
costs one regex scan), and MCP passes a call's arguments (the SDK parsed them); the store passes every
text column through ``storable_text``.
"""

from __future__ import annotations

import re
from typing import Any

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def storable_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode()
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text)
    return text


def storable(data: Any) -> Any:
    """Decoded JSON with every string (keys included) made storable; iterative, so any depth is fine."""
    if isinstance(data, str):
        return storable_text(data)
    stack = [data]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in list(items):
            if isinstance(value, str):
                node[key] = storable_text(value)
            elif isinstance(value, (dict, list)):
                stack.append(value)
            if isinstance(node, dict) and isinstance(key, str) and storable_text(key) != key:
                node[storable_text(key)] = node.pop(key)
    return data
