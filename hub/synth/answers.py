"""What the reply to a reading turn must tell the user (``Turn.answer``), when the intent did not say (``tell``).

Taken from the turn's last result, the way a person would check the reply:
- "how many ...": the count;
- a list of rows: what each row is called (its name, title, subject, ...), for the first three;
- counts by value (``{"values": {"light": 318, ...}}``): the values;
- one entity or a summary: the fields the turn asks about by their words ("bio, city, how many followers"), else
  what it is called.
Values the user already said are never an answer; ids are not either (a person wants names and numbers).
"""

from __future__ import annotations

import re
from typing import Any

from hub.kit.intent import CallRecord
from hub.kit.provenance import ID_LIKE

NAMED = ("name", "display_name", "full_name", "title", "subject", "label", "handle", "symbol", "city", "path", "url")
ABOUT = ("description", "merchant", "service", "text", "body", "category", "amount", "total", "price", "status")
COUNT = re.compile(r"\bhow many\b|\bcount\b|\bnumber of\b", re.IGNORECASE)
MAX_VALUES = 3


def default_answer(calls: list[CallRecord], text: str) -> list[Any]:
    """The values a reply to ``text`` must state, from the last of ``calls`` (all reads), else none."""
    if not calls or any(c.kind != "read" for c in calls):
        return []
    result = calls[-1].result
    rows = _rows(result)
    if rows is not None:
        return _from_rows(result, rows, text)
    if isinstance(result, dict):
        return _from_entity(result, text)
    return []


def _rows(result: Any) -> list[dict[str, Any]] | None:
    """The rows a listing returned (None: the result is one entity, perhaps with related rows inside)."""
    if not isinstance(result, dict):
        return None
    fields = sum(not isinstance(v, (list, dict)) for v in result.values())
    if fields >= 5 and any(k.endswith("_id") for k in result):
        return None
    listed = [v for v in result.values() if isinstance(v, list) and all(isinstance(r, dict) for r in v)]
    return next((rows for rows in listed if rows), listed[0] if listed else None)


def _from_rows(result: dict[str, Any], rows: list[dict[str, Any]], text: str) -> list[Any]:
    if COUNT.search(text) or not rows:  # a count; nothing found is a count too (0)
        total = result.get("total", result.get("count"))
        return [total if isinstance(total, int) and not isinstance(total, bool) else len(rows)]
    found = [_called(r, text) for r in rows[:MAX_VALUES]]
    return [v for v in found if v is not None]


def _from_entity(result: dict[str, Any], text: str) -> list[Any]:
    values = result.get("values")
    if isinstance(values, dict) and values and len(result) <= 3:
        return [k for k in list(values)[:5] if not _said(k, text)]
    words = _stems(text)
    asked = [
        v
        for k, v in result.items()
        if _plain(v) and not _said(v, text) and any(w in words for w in _stems(k.replace("_", " ")))
    ]
    if asked:
        return asked[:MAX_VALUES]
    called = _called(result, text)
    return [called] if called is not None else []


def _called(row: dict[str, Any], text: str) -> Any:
    """What a person calls a row: its name (or title, subject, ...), else what it is about, else its amount."""
    for key in (*NAMED, *ABOUT):
        value = row.get(key)
        if _plain(value) and not isinstance(value, bool) and not _said(value, text):
            return value
    return None


def _plain(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return 0 < len(value) <= 80 and not ID_LIKE.match(value)
    return isinstance(value, (int, float))


def _said(value: Any, text: str) -> bool:
    return str(value).lower() in text.lower()


def _stems(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in _COMMON}


_COMMON = frozenset({"the", "and", "for", "what", "which", "with", "from", "about", "this", "that", "have", "your"})
