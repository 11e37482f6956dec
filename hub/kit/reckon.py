"""Reckoning as a person does: numbers, dates, times and durations as people write them, resolved against a
reference date ("now"). Provenance (``hub.kit.provenance``) uses these to tell whether a value an agent must
send follows from what the user said.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

NUMBER = re.compile(r"(?<![\w.])(-)?[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")
WORDS = {
    "zero": 0,
    "one": 1,
    "single": 1,
    "two": 2,
    "couple": 2,
    "pair": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "dozen": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
}
FRACTIONS = {"half": 0.5, "third": 1 / 3, "quarter": 0.25, "all": 1.0, "double": 2.0, "twice": 2.0, "triple": 3.0}
MONTHS = ("january february march april may june july august september october november december").split()
WEEKDAYS = ("monday tuesday wednesday thursday friday saturday sunday").split()
CLOCK = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![a-z])|\b(\d{1,2}):(\d{2})\b")
DURATION = re.compile(
    r"\b(an?|one|\d+(?:\.\d+)?|[a-z]+)(?:\s+and\s+a\s+half)?\s+(minute|min|hour|hr|day|night|week|month)s?\b"
)


def number_words(text: str) -> set[float]:
    """Numbers written as words: "two", "a dozen", "twenty-five", "12th"."""
    out: set[float] = set()
    words = re.findall(r"[a-z]+", text.lower())
    for i, w in enumerate(words):
        if w not in WORDS:
            continue
        n = WORDS[w]
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if 20 <= n < 100 and nxt in WORDS and WORDS[nxt] < 10:
            out.add(float(n + WORDS[nxt]))
        out.add(float(n))
    for m in re.finditer(r"(\d+)(?:st|nd|rd|th)\b", text):
        out.add(float(m.group(1)))
    return out


def numbers_in(text: str) -> set[float]:
    """Every number ``text`` states: digits (a sign, thousands commas, decimals, a currency sign) and words."""
    out = {float((m.group(1) or "") + m.group(2).replace(",", "") + (m.group(3) or "")) for m in NUMBER.finditer(text)}
    return out | number_words(text)


def fractions_in(text: str) -> list[float]:
    """Shares a person says of an amount: "half", "a third", "a quarter", "all of it", "double"."""
    low = text.lower()
    return [f for w, f in FRACTIONS.items() if re.search(rf"\b{w}\b", low)]


def _count(word: str) -> float | None:
    if word in ("a", "an"):
        return 1.0
    if word in WORDS:
        return float(WORDS[word])
    try:
        return float(word)
    except ValueError:
        return None


def durations_in(text: str) -> list[timedelta]:
    """Spans the text names: "30 minutes", "an hour and a half", "2 nights", "one week", "half an hour"."""
    out: list[timedelta] = []
    low = text.lower()
    for m in DURATION.finditer(low):
        n = _count(m.group(1))
        if n is None:
            continue
        n += 0.5 if "and a half" in m.group(0) or low[m.end() :].startswith(" and a half") else 0.0
        unit = m.group(2)
        minutes = {"minute": 1, "min": 1, "hour": 60, "hr": 60, "day": 1440, "night": 1440, "week": 10080}.get(unit)
        out.append(timedelta(days=30 * n) if unit == "month" else timedelta(minutes=n * (minutes or 0)))
    if re.search(r"\bhalf an? hour\b", low):
        out.append(timedelta(minutes=30))
    if "fortnight" in low:
        out.append(timedelta(days=14))
    return out


def times_in(text: str) -> set[tuple[int, int]]:
    """Times of day the text names: "3 pm", "3:30pm", "15:30", "noon", "midnight"."""
    out: set[tuple[int, int]] = set()
    low = text.lower()
    for m in CLOCK.finditer(low):
        if m.group(4) is not None:
            hour, minute = int(m.group(4)), int(m.group(5))
        else:
            hour, minute = int(m.group(1)) % 12, int(m.group(2) or 0)
            hour += 12 if m.group(3).startswith("p") else 0
        if hour < 24 and minute < 60:
            out.add((hour, minute))
    for word, at in (("noon", (12, 0)), ("midday", (12, 0)), ("midnight", (0, 0))):
        if re.search(rf"\b{word}\b", low):
            out.add(at)
    for m in re.finditer(r"\bhalf past (\w+)", low):
        h = _count(m.group(1))
        if h is not None and 1 <= h <= 12:
            out |= {(int(h) % 12, 30), (int(h) % 12 + 12, 30)}
    for m in re.finditer(r"\b(\w+) o'clock", low):
        h = _count(m.group(1))
        if h is not None and 1 <= h <= 12:
            out |= {(int(h) % 12, 0), (int(h) % 12 + 12, 0)}
    return out


def dates_in(text: str, now: datetime) -> set[date]:
    """Days the text names, resolved from ``now``: relative words, weekdays (this, next, last), month and day."""
    low = text.lower()
    today = now.date()
    out: set[date] = set()
    for word, delta in (("today", 0), ("tonight", 0), ("tomorrow", 1), ("yesterday", -1)):
        if re.search(rf"\b{word}\b", low):
            out.add(today + timedelta(days=delta))
    for i, name in enumerate(WEEKDAYS):
        for m in re.finditer(rf"\b(?:(this|next|last|coming|on)\s+)?{name}\b", low):
            ahead = (i - today.weekday()) % 7
            behind = (today.weekday() - i) % 7 or 7
            if m.group(1) == "last":
                out.add(today - timedelta(days=behind))
            elif m.group(1) == "next":
                out |= {today + timedelta(days=ahead or 7), today + timedelta(days=ahead + 7)}
            else:
                out |= {today + timedelta(days=ahead), today - timedelta(days=behind)}
    months = "|".join(m[:3] + r"[a-z]*" for m in MONTHS)
    for m in re.finditer(rf"\b({months})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", low):
        _add_day(out, now, MONTHS.index(m.group(1)[:3] + MONTHS_TAIL[m.group(1)[:3]]) + 1, m.group(2), m.group(3))
    for m in re.finditer(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({months})\b(?:,?\s+(\d{{4}}))?", low):
        _add_day(out, now, MONTHS.index(m.group(2)[:3] + MONTHS_TAIL[m.group(2)[:3]]) + 1, m.group(1), m.group(3))
    for m in re.finditer(r"\b(\d{4})-(\d{2})-(\d{2})\b", low):
        try:
            out.add(date(int(m.group(1)), int(m.group(2)), int(m.group(3))))
        except ValueError:
            pass
    return out


MONTHS_TAIL = {m[:3]: m[3:] for m in MONTHS}


def _add_day(out: set[date], now: datetime, month: int, day: str, year: str | None) -> None:
    years = [int(year)] if year else [now.year - 1, now.year, now.year + 1]
    for y in years:
        try:
            out.add(date(y, month, int(day)))
        except ValueError:
            pass


def relative_phrases(day: date, now: datetime) -> list[str]:
    """Words for ``day`` that only make sense from ``now``: windows ("past five days", "this month", "last week")
    and counts ("in 3 days", "2 weeks ago")."""
    today = now.date()
    delta = (day - today).days
    n = abs(delta)
    counts = [str(n)] + [w for w, v in WORDS.items() if v == n and w not in ("single", "couple", "pair")]
    out: list[str] = []
    for s in counts:
        out += [f"{s} days ago", f"past {s} days", f"last {s} days"] if delta < 0 else []
        out += [f"in {s} days", f"next {s} days", f"{s} days from now"] if delta > 0 else []
    if n and n % 7 == 0:
        weeks = n // 7
        for s in [str(weeks)] + [w for w, v in WORDS.items() if v == weeks]:
            out += [f"past {s} weeks", f"last {s} weeks", f"{s} weeks ago"] if delta < 0 else [f"in {s} weeks"]
        if weeks == 1:
            out += ["last week", "past week", "a week ago", "the week"] if delta < 0 else ["next week", "in a week"]
    if 28 <= n <= 31:
        out += ["past month", "last month", "a month", "30 days", "thirty days"]
    if day == today.replace(day=1):
        out += ["this month", "month to date", "so far this month", "start of the month"]
    if day == (today.replace(day=1) - timedelta(days=1)).replace(day=1):
        out += ["last month"]
    if day == today - timedelta(days=today.weekday()):
        out += ["this week", "so far this week"]
    if day == today.replace(month=1, day=1):
        out += ["this year", "year to date", "so far this year"]
    return out


def says(phrase: str, text: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(phrase)}(?![a-z0-9])", text.lower()) is not None
