"""Parse a model's raw output into text and tool calls.

Accepted forms:
- Hermes / Qwen: ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``, several per message;
  ``arguments`` may also be a JSON string. ``<think>...</think>`` blocks are ignored.
- OpenAI: an assistant message ``{"content": ..., "tool_calls": [{"id", "type": "function",
  "function": {"name", "arguments": "<json string>"}}]}``, given as a dict or as JSON text.

Malformed calls never raise: each becomes a ``ParsedCall`` with ``error`` set (it still counts as
a call the model tried to make) and a format error is recorded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

TOOL_CALL_RE = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL)
OPEN_TAG = "<tool_call>"
CLOSE_TAG = "</tool_call>"


@dataclass
class ParsedCall:
    name: str | None
    arguments: Any
    id: str
    error: str | None = None  # a format error: the call cannot be executed


@dataclass
class ParsedMessage:
    content: str
    calls: list[ParsedCall] = field(default_factory=list)
    format_errors: list[str] = field(default_factory=list)


def parse_model_output(output: str | dict[str, Any], *, call_prefix: str = "call") -> ParsedMessage:
    """Text and tool calls of one model message (a raw string or an OpenAI-style assistant dict)."""
    if isinstance(output, dict):
        return _parse_openai(output, call_prefix)
    if not isinstance(output, str):
        return ParsedMessage(
            "", [], [f"model output must be a string or a message object, got {type(output).__name__}"]
        )
    stripped = output.strip()
    if stripped.startswith("{") and '"tool_calls"' in stripped:
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            return _parse_openai(data, call_prefix)
    return _parse_hermes(output, call_prefix)


def _parse_hermes(text: str, prefix: str) -> ParsedMessage:
    visible = THINK_RE.sub("", text)
    if "<think>" in visible and "</think>" not in visible:
        visible = visible.split("<think>", 1)[0]
    calls: list[ParsedCall] = []
    errors: list[str] = []
    for n, match in enumerate(TOOL_CALL_RE.finditer(visible)):
        call = _call_from_json(match.group(1), f"{prefix}_{n}")
        calls.append(call)
        if call.error:
            errors.append(call.error)
    rest = TOOL_CALL_RE.sub("", visible)
    if OPEN_TAG in rest:
        tail = rest.split(OPEN_TAG, 1)[1]
        call = ParsedCall(
            None, None, f"{prefix}_{len(calls)}", f"unterminated <tool_call> (no {CLOSE_TAG}): {tail[:80]!r}"
        )
        calls.append(call)
        errors.append(call.error or "")
        rest = rest.split(OPEN_TAG, 1)[0]
    elif CLOSE_TAG in rest:
        errors.append(f"stray {CLOSE_TAG} without <tool_call>")
    return ParsedMessage(rest.replace(CLOSE_TAG, "").strip(), calls, errors)


def _call_from_json(body: str, call_id: str) -> ParsedCall:
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        return ParsedCall(
            None, None, call_id, f"tool call is not valid JSON ({exc.msg} at char {exc.pos}): {body.strip()[:80]!r}"
        )
    if not isinstance(data, dict):
        return ParsedCall(None, None, call_id, f"tool call must be a JSON object, got {type(data).__name__}")
    if "function" in data and isinstance(data["function"], dict):  # an OpenAI tool_call object inside the tags
        data = {**data["function"], "id": data.get("id")}
    return _call_from_fields(
        data.get("name"), data.get("arguments", data.get("parameters", {})), str(data.get("id") or call_id)
    )


def _call_from_fields(name: Any, arguments: Any, call_id: str) -> ParsedCall:
    if not isinstance(name, str) or not name:
        return ParsedCall(None, arguments, call_id, f'tool call has no "name" string: {str(name)[:60]!r}')
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return ParsedCall(name, arguments, call_id, f"arguments of {name} are not valid JSON: {exc.msg}")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return ParsedCall(
            name, arguments, call_id, f"arguments of {name} must be a JSON object, got {type(arguments).__name__}"
        )
    return ParsedCall(name, arguments, call_id)


def _parse_openai(message: dict[str, Any], prefix: str) -> ParsedMessage:
    content = message.get("content")
    text = content if isinstance(content, str) else ""
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        return ParsedMessage(text, [], [f"tool_calls must be a list, got {type(raw_calls).__name__}"])
    calls: list[ParsedCall] = []
    errors: list[str] = []
    for n, raw in enumerate(raw_calls):
        call = _openai_call(raw, f"{prefix}_{n}")
        calls.append(call)
        if call.error:
            errors.append(call.error)
    if not raw_calls and text and OPEN_TAG in text:  # Hermes calls inside an OpenAI message's content
        return _parse_hermes(text, prefix)
    return ParsedMessage(text.strip(), calls, errors)


def _openai_call(raw: Any, call_id: str) -> ParsedCall:
    if not isinstance(raw, dict):
        return ParsedCall(None, None, call_id, f"a tool_calls entry must be an object, got {type(raw).__name__}")
    fn = raw.get("function", raw)
    if not isinstance(fn, dict):
        return ParsedCall(None, None, call_id, 'tool_calls entry has no "function" object')
    return _call_from_fields(fn.get("name"), fn.get("arguments", {}), str(raw.get("id") or call_id))
