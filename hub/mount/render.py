"""How a mounted server's results and errors read to the model: the hub's compact JSON, or a benchmark's own text.

- ``compact`` (the default): a string as it is, anything else as compact JSON; an error reads
  ``Error: <Type>: <message>``.
- ``repr``: what BFCL's harness shows (``execute_multi_turn_func_call``): a string as it is, a dict as
  ``json.dumps`` (its ``str`` when that fails), anything else as ``str`` (Python's repr of lists, tuples,
  ``True``, ``None``); an error reads ``Error during execution: <message>``.
- ``json``: what tau2's environment shows (``Environment.to_json_str``): a string as it is, anything else as
  ``json.dumps`` with its default spacing, pydantic models dumped, numbers and booleans inside as strings;
  an error reads ``Error: <message>``.

A rendered result is a string, so every door (the model's text, MCP, events, the store) carries the same text.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from typing import Any, Literal

from hub.kit import ToolError

Render = Literal["compact", "repr", "json"]
RENDERS: tuple[str, ...] = ("compact", "repr", "json")


class RenderedError(ToolError):
    """A tool's failure with the exact text the model reads (no ``Error:`` prefix is added to it)."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


def render_result(mode: Render, value: Any) -> Any:
    """The value a tool call returns under ``mode`` (``compact`` leaves it for the hub's JSON encoding)."""
    if mode == "repr":
        return _bfcl(value)
    if mode == "json":
        return _tau2(value)
    return value


def render_error(mode: Render, exc: BaseException) -> ToolError:
    """The ToolError a failing call raises under ``mode``."""
    message = f"{type(exc).__name__}: {exc}"
    if mode == "repr":
        return RenderedError(message, f"Error during execution: {exc}")
    if mode == "json":
        return RenderedError(message, f"Error: {exc}")
    return ToolError(message)


def _bfcl(value: Any) -> str:
    if type(value) is str:
        return value
    if type(value) is dict:
        try:
            return json.dumps(value)
        except (TypeError, ValueError):  # an object inside that JSON has no form for
            return str(value)
    return str(value)


def _tau2(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(_tau2_part(value), default=str)


def _tau2_part(value: Any) -> Any:
    if hasattr(value, "model_dump") and callable(value.model_dump):
        return value.model_dump()
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, (int, float, bool)):
        return str(value)
    if isinstance(value, list):
        return [_tau2_part(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_tau2_part(v) for v in value)
    if isinstance(value, dict):
        return {k: _tau2_part(v) for k, v in value.items()}
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise ValueError(f"Unsupported type: {type(value)}")
