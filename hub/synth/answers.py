"""What the reply to a reading turn must tell the user (``Turn.answer``), when the intent did not say (``tell``).

Taken from the turn's last result, the way a person would check the reply:
- "how many ...": the count;
- a list of rows: what each row is called (a field the turn asks about, its name, title, subject, ...; else what
  it is about: a description, a merchant, an amount, a closing price, a date or a start time; else its own id),
  for the first three; an empty list: that there is none (``False``, said by "no"), or 0 when asked how many;
- counts by value (``{"values": {"light": 318, ...}}``): the values;
- one entity or a summary: the fields the turn asks about, by their words ("bio, city, how many followers") or
  by the question's form ("how long": a duration, "what's left": a balance; a list field by what its rows are
  called, or that it is empty), else what it is called.
An entity is a result with its own id and a handful of fields, even when it carries lists (a user's listings, a
contact's deals); a listing is anything else that holds a list of rows. Values the user already said are never
an answer; ids only name rows that have nothing else (an order, a transfer).
"""

from __future__ import annotations

import re
from typing import Any

from hub.kit.intent import CallRecord
from hub.kit.provenance import ID_LIKE

NAMED = (
    "name",
    "display_name",
    "full_name",
    "nickname",
    "title",
    "subject",
    "label",
    "handle",
    "symbol",
    "flight_number",
    "city",
    "path",
    "url",
)
ABOUT = (  # what a row without a name is about, then its figure, then when it is (a price bar, a busy slot)
    "description",
    "merchant",
    "merchant_name",
    "code",
    "text",
    "body",
    "category",
    "line",
    "amount",
    "total",
    "price",
    "close",
    "date",
    "start",
)
ENTITY_FIELDS = 5
WHICH = re.compile(r"\bwhich\b|\bwhat \w+s (?:of|do|did|have|has|are|were)\b", re.IGNORECASE)
QUESTIONS = (  # what a question asks for by its form, as words of the keys that hold it
    (re.compile(r"\bhow long\b", re.IGNORECASE), ("duration", "minutes", "length")),
    (re.compile(r"\bhow far\b", re.IGNORECASE), ("distance",)),
    (re.compile(r"\bhow much\b|\bcosts?\b", re.IGNORECASE), ("amount", "balance", "price", "total", "fare", "cost")),
    (re.compile(r"\bwhen\b|\bwhat (?:time|day|date)\b", re.IGNORECASE), ("start", "date", "due", "end")),
    (re.compile(r"\bleft\b|\bremaining\b|\bavailable\b", re.IGNORECASE), ("balance", "remaining", "available")),
    (re.compile(r"\bwhere\b", re.IGNORECASE), ("address", "location", "city")),
    (re.compile(r"\bwho\b", re.IGNORECASE), ("name", "owner", "manager", "handle")),
)
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
    """The rows a listing returned: its first list of rows that is not empty, else an empty one; None for an
    entity (see the module docstring) or a result without rows."""
    if not isinstance(result, dict) or _entity(result):
        return None
    listed = [v for v in result.values() if _row_list(v)]
    return next((rows for rows in listed if rows), listed[0] if listed else None)


def _entity(result: dict[str, Any]) -> bool:
    fields = sum(not isinstance(v, (list, dict)) for v in result.values())
    return fields >= ENTITY_FIELDS and any(k.endswith("_id") for k in result)


def _row_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(r, dict) for r in value)


def _from_rows(result: dict[str, Any], rows: list[dict[str, Any]], text: str) -> list[Any]:
    if COUNT.search(text):
        total = result.get("total", result.get("count"))
        return [total if isinstance(total, int) and not isinstance(total, bool) else len(rows)]
    return _listed(rows, text)


def _listed(rows: list[Any], text: str) -> list[Any]:
    """What a person names of a list: that it is empty, or its first members (rows by what they are called)."""
    if not rows:
        return [False]
    found = [_called(r, text) if isinstance(r, dict) else r for r in rows[:MAX_VALUES]]
    return [
        v for v in found if v is not None and (isinstance(v, bool) or _plain(v) or _own_id(v)) and not _said(v, text)
    ]


def _from_entity(result: dict[str, Any], text: str) -> list[Any]:
    values = result.get("values")
    if isinstance(values, dict) and values and len(result) <= 3:
        return [k for k in list(values)[:5] if not _said(k, text)]
    asked: list[Any] = []
    for k in _asked(result, text):
        v = result[k]
        if COUNT.search(text) and isinstance(v, list):
            asked.append(len(v))
        elif _plain(v) and not _said(v, text):
            asked.append(v)
        elif isinstance(v, list):
            asked.extend(_listed(v, text))
    if asked:
        return asked[:MAX_VALUES]
    called = _called(result, text)
    return [called] if called is not None else []


def _asked(row: dict[str, Any], text: str) -> list[str]:
    """The keys of ``row`` the text asks about: by their words ("bio, city") or by the question ("how long")."""
    words = _stems(text)
    hints = [h for pattern, keys in QUESTIONS if pattern.search(text) for h in keys]
    return [k for k in row if words & _stems(k.replace("_", " ")) or any(h in k for h in hints)]


def _called(row: dict[str, Any], text: str) -> Any:
    """What a person calls a row: a field the text asks about, its name (or title, subject, ...), what it is
    about or its amount, else its own id (an order or a transfer has nothing else); None when all are said."""
    asked = [] if WHICH.search(text) else _asked(row, text)  # "which ones": the rows by name, not their fields
    plain = [row[k] for k in (*asked, *NAMED, *_names(row), *ABOUT) if _plain(row.get(k))]
    ids = [v for k, v in row.items() if k.endswith("_id") and _own_id(v)][:1]
    return next((v for v in (*plain, *ids) if not _said(v, text)), None)


def _names(row: dict[str, Any]) -> list[str]:
    return [k for k in row if k.endswith("_name")]


def _own_id(value: Any) -> bool:
    return isinstance(value, str) and ID_LIKE.match(value) is not None


def _plain(value: Any) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, str):
        return 0 < len(value) <= 80 and not ID_LIKE.match(value)
    return isinstance(value, (int, float))


def _said(value: Any, text: str) -> bool:
    return str(value).lower() in text.lower()


def _stems(text: str) -> set[str]:
    """The words of ``text`` cut to five letters, without a plural s ("bids" meets "bid_count")."""
    return {w.removesuffix("s")[:5] for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in _COMMON}


_COMMON = frozenset({"the", "and", "for", "what", "which", "with", "from", "about", "this", "that", "have", "your"})
