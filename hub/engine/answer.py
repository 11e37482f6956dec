"""Does a reply tell the user what they asked? The check behind the answer term R_ans.

A turn that asks for information records the values the user wanted (``Turn.answer``: a balance, names, a
date). The reply on that turn states a value when it says it in any usual form:

- a number: as digits with or without thousands separators, a currency sign or a unit (``1234.5`` is said by
  "$1,234.50", "1234.5", "1 234.50 EUR"), rounded to no fewer decimals than the value has up to two
  (``78.694`` is said by "78.69"; ``78.69`` is not said by "78.7"); a whole number up to twenty also in words
  ("three");
- a date or time (ISO ``2026-06-02``, ``2026-06-02T16:00``): as written, or by its month and day ("June 2",
  "2 Jun", "06/02") and, with a time, its hour ("4 pm", "16:00", "4:00 PM");
- a string: as a whole phrase in any case, underscores read as spaces (``in_progress`` = "In progress");
- a boolean: by a yes/no word (yes, true, on, enabled, open, ... / no, false, off, disabled, closed, ...);
- a list: each member stated.

R_ans for a task is the mean over its answer turns of the share of values the turn's reply states.

    value            reply                                        stated
    1234.5           "Your balance is $1,234.50."                  yes
    "Alice Wong"     "That was alice wong."                        yes
    "2026-06-02"     "It's on Tuesday, June 2."                    yes
    "2026-06-02T16:00"  "June 2 at 4 pm"                           yes
    78.69            "About $79."                                  no
    "in_progress"    "It's in progress."                           yes
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

NUMBER = re.compile(r"(?<![\w.-])-?\d{1,3}(?:[, ]\d{3})+(?:\.\d+)?|(?<![\w.-])-?\d+(?:\.\d+)?")
WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()
MONTHS = "january february march april may june july august september october november december".split()
BOOLEAN_WORDS = {
    True: ("yes", "true", "on", "enabled", "active", "open", "unlocked"),
    False: ("no", "false", "off", "disabled", "inactive", "closed", "locked"),
}


def numbers_in(text: str) -> list[tuple[float, int]]:
    """Every number written in ``text`` with how many decimals it was written with."""
    out = []
    for m in NUMBER.finditer(text):
        raw = m.group().replace(",", "").replace(" ", "")
        decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
        out.append((float(raw), decimals))
    low = text.lower()
    out += [(float(i), 0) for i, w in enumerate(WORDS) if re.search(rf"\b{w}\b", low)]
    return out


def _decimals(value: float) -> int:
    text = repr(float(value))
    return 0 if text.endswith(".0") else len(text.split(".", 1)[1]) if "." in text and "e" not in text else 2


def number_stated(value: float, text: str) -> bool:
    need = min(2, _decimals(value))
    return any(
        d >= need and abs(n - value) <= 0.5 * 10.0**-d + 1e-9 and (d > 0 or float(value).is_integer())
        for n, d in numbers_in(text)
    )


def _when(value: str) -> datetime | None:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?", value):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def date_stated(when: datetime, has_time: bool, text: str) -> bool:
    low = text.lower()
    month = MONTHS[when.month - 1]
    forms = [
        rf"\b{month[:3]}[a-z]*\.?\s+{when.day}(?:st|nd|rd|th)?\b",
        rf"\b{when.day}(?:st|nd|rd|th)?\s+(?:of\s+)?{month[:3]}",
        rf"\b0?{when.month}/0?{when.day}\b",
        rf"\b{when:%Y-%m-%d}\b",
    ]
    if not any(re.search(f, low) for f in forms):
        return False
    if not has_time:
        return True
    hour12 = when.hour % 12 or 12
    half = "am" if when.hour < 12 else "pm"
    minute = f":{when.minute:02d}" if when.minute else r"(?::00)?"
    times = [rf"\b{when.hour:02d}:{when.minute:02d}\b", rf"\b{when.hour}:{when.minute:02d}\b"]
    times.append(rf"\b{hour12}{minute}\s*{half[0]}\.?\s*m\b")
    if when.hour == 12 and when.minute == 0:
        times.append(r"\bnoon\b")
    return any(re.search(t, low) for t in times)


def stated(value: Any, text: str) -> bool:
    """Whether ``text`` states ``value`` (see the module docstring)."""
    if isinstance(value, bool):
        low = text.lower()
        return any(re.search(rf"\b{w}\b", low) for w in BOOLEAN_WORDS[value])
    if isinstance(value, (int, float)):
        return number_stated(float(value), text)
    if isinstance(value, str):
        when = _when(value)
        if when is not None:
            return value in text or date_stated(when, "T" in value or " " in value, text)
        phrase = " ".join(re.findall(r"[a-z0-9]+", value.lower().replace("_", " ")))
        words = " ".join(re.findall(r"[a-z0-9]+", text.lower()))
        return bool(phrase) and re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", words) is not None
    if isinstance(value, list):
        return all(stated(v, text) for v in value)
    return value is None


def answer_share(values: Sequence[Any], text: str) -> float:
    """The share of ``values`` that ``text`` states (1 with none)."""
    return sum(stated(v, text) for v in values) / len(values) if values else 1.0
