"""Plain (non-entity) argument values: from the sampling context, the schema, or the parameter's name.

Order of preference for a required plain parameter: an enum value; a real value of the same key
in the sampling context (a city that exists, a merchant that exists); a value shaped like the
description's example (``e.g. '2026-06-03T14:00'`` gives a datetime a few days after the
reference date); a value from a small phrase bank keyed by the parameter's name; the example itself.
"""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake

EXAMPLE = re.compile(r"e\.g\.\s*(?:'([^']*)'|\"([^\"]*)\"|(-?\d+(?:\.\d+)?))")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$")
TIME = re.compile(r"^\d{2}:\d{2}$")

PHRASES: dict[str, tuple[str, ...]] = {
    "title": (
        "Quarterly review",
        "Team sync",
        "Budget planning",
        "Client kickoff",
        "Roadmap walkthrough",
        "Design review",
        "Offsite prep",
        "Vendor check-in",
        "Launch retro",
        "Hiring debrief",
    ),
    "name": (
        "Weekend plans",
        "Spring cleanup",
        "Family trip",
        "Project Falcon",
        "Home office",
        "Evening Glow",
        "Focus mode",
        "Summer list",
        "Side project",
        "Q3 goals",
    ),
    "subject": ("Discovery call", "Follow-up on pricing", "Contract questions", "Renewal check-in", "Demo recap"),
    "content": (
        "Morning run done #running",
        "Great meetup today #community",
        "New blog post is live #writing",
        "Coffee and code #devlife",
        "Loving this weather #sunny",
    ),
    "text": (
        "Can someone review this?",
        "Heads up: deploy at 5pm",
        "Great spot, friendly staff.",
        "Thanks for the quick turnaround!",
        "Notes from today's call are in the doc.",
    ),
    "body": (
        "I can reproduce this on staging.",
        "Looks good to me.",
        "Please see the attached notes.",
        "Following up on our conversation.",
        "Let's discuss this tomorrow.",
    ),
    "description": ("Logo design", "Consulting hours", "Monthly retainer", "Website refresh", "Annual support plan"),
    "memo": ("Rent June", "Dinner split", "Utilities", "Birthday gift", "Savings top-up"),
    "note": ("Paid by card", "Shared with roommate", "Business expense", "Reimbursable", "One-off"),
    "reason": ("customer request", "duplicate", "no longer needed", "changed plans", "billing error"),
    "comment": ("Great food, fast delivery!", "Arrived warm", "Would order again", "A bit late but tasty"),
    "message": ("Is this still available?", "Would you take a lower price?", "Can you ship this week?"),
    "agenda": ("Status, blockers, next steps", "Demo and Q&A", "Planning for next sprint"),
    "goal": ("Ship the checkout redesign", "Stabilize the API", "Close out onboarding bugs"),
    "label": ("Follow up", "Important", "Receipts", "Travel", "regression"),
    "merchant": ("Whole Grocer", "Blue Bottle Cafe", "Metro Transit", "City Power & Light", "Target"),
    "company": ("Lumen Media", "Redwood Partners", "Northwind Traders", "Blue Harbor Labs", "Apex Analytics"),
    "customer_name": ("Maria Lopez", "James Chen", "Aisha Patel", "Tom Becker", "Lena Novak"),
    "bank_name": ("Pacific Trust", "Summit Credit Union", "Lakeside Savings", "First Harbor Bank"),
    "supplier": ("Acme Supply", "Northwind Wholesale", "Global Goods"),
    "pattern": ("TODO", "error", "import", "2026", "total"),
    "replacement": ("DONE", "warning", "from", "2027", "sum"),
    "query": ("report", "notes", "invoice", "plan", "draft"),
    "emoji": ("thumbsup", "tada", "eyes", "rocket", "heart"),
    "instructions": ("Leave at the door", "Ring the bell", "Call on arrival"),
}


def example_of(schema: dict[str, Any]) -> Any:
    """The example value a description gives (``e.g. 'X'`` or ``e.g. 42``), or None."""
    m = EXAMPLE.search(str(schema.get("description", "")))
    if not m:
        return None
    if m.group(3) is not None:
        text = m.group(3)
        return float(text) if "." in text else int(text)
    return m.group(1) if m.group(1) is not None else m.group(2)


def branches(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-null alternatives of a (possibly nullable) schema."""
    options = schema.get("anyOf") or schema.get("oneOf")
    if options:
        return [b for b in options if b.get("type") != "null"] or [schema]
    return [schema]


def main_type(schema: dict[str, Any]) -> str | None:
    for b in branches(schema):
        t = b.get("type")
        if isinstance(t, list):
            t = next((x for x in t if x != "null"), None)
        if t:
            return str(t)
    return None


def enum_of(schema: dict[str, Any]) -> list[Any]:
    for b in branches(schema):
        if "enum" in b:
            return list(b["enum"])
    return []


def bounds(schema: dict[str, Any]) -> tuple[float | None, float | None]:
    b = branches(schema)[0]
    lo = b.get("minimum", b.get("exclusiveMinimum"))
    hi = b.get("maximum", b.get("exclusiveMaximum"))
    return lo, hi


class ValueMaker:
    """Plain argument values for one task, from one seeded rng and the reference date."""

    def __init__(self, rng: random.Random, now: datetime) -> None:
        self.rng = rng
        self.now = now

    def make(self, name: str, schema: dict[str, Any], pool: dict[str, list[Any]]) -> Any:
        enum = enum_of(schema)
        if enum:
            return self.rng.choice(enum)
        kind = main_type(schema)
        if kind == "boolean":
            return self.rng.choice((True, False))
        if kind == "integer":
            return self.integer(name, schema, pool)
        if kind == "number":
            return self.number(name, schema, pool)
        if kind == "array":
            return self.array(name, schema, pool)
        return self.string(name, schema, pool)

    def integer(self, name: str, schema: dict[str, Any], pool: dict[str, list[Any]]) -> int:
        lo, hi = bounds(schema)
        lo_i = int(lo) if lo is not None else 0
        hi_i = int(hi) if hi is not None else 1000
        n = name.lower()
        if "point" in n and "100" in str(schema.get("description", "")):
            return max(lo_i, min(hi_i, 100 * self.rng.randint(1, 20)))
        if "point" in n:
            return self.rng.choice([p for p in (1, 2, 3, 5, 8, 13) if lo_i <= p <= hi_i] or [lo_i])
        if any(k in n for k in ("position", "percent", "brightness")):
            return max(lo_i, min(hi_i, 10 * self.rng.randint(0, 10)))
        if any(k in n for k in ("star", "rating")):
            return self.rng.randint(max(lo_i, 1), min(hi_i, 5))
        if "minute" in n:
            return max(lo_i, min(hi_i, self.rng.choice((15, 30, 45, 60, 90))))
        ex = example_of(schema)
        if isinstance(ex, int) and lo_i <= ex <= hi_i and self.rng.random() < 0.3:
            return ex
        top = min(hi_i, max(lo_i + 1, 5 if lo_i <= 1 else lo_i + 10))
        return self.rng.randint(max(lo_i, 1 if lo_i <= 1 and top > 1 else lo_i), top)

    def number(self, name: str, schema: dict[str, Any], pool: dict[str, list[Any]]) -> float:
        lo, hi = bounds(schema)
        n = name.lower()
        if n in ("lat", "lon", "latitude", "longitude") and pool.get(n):
            return float(self.rng.choice(pool[n]))
        if "temp" in n:
            return float(self.rng.choice((19, 20, 21, 22, 23)))
        if "psi" in n or "pressure" in n:
            return float(self.rng.choice((32, 33, 34, 35, 36)))
        ex = example_of(schema)
        scale = float(ex) if isinstance(ex, (int, float)) and ex > 0 else 100.0
        value = round(self.rng.uniform(0.1, 2.0) * scale, 2)
        if scale >= 1000:
            value = float(round(value, -1))
        if lo is not None:
            value = max(value, float(lo) + 0.01)
        if hi is not None:
            value = min(value, float(hi))
        return value

    def array(self, name: str, schema: dict[str, Any], pool: dict[str, list[Any]]) -> list[Any]:
        items = schema.get("items", {})
        if not isinstance(items, dict):
            items = {}
        enum = items.get("enum") or enum_of(items)
        if enum:
            return self.rng.sample(list(enum), self.rng.randint(1, min(2, len(enum))))
        singular = name[:-1] if name.endswith("s") else name
        return [self.make(singular, items, pool)]

    def string(self, name: str, schema: dict[str, Any], pool: dict[str, list[Any]]) -> str:
        ex = example_of(schema)
        shaped = self._shaped(name, schema, ex)
        if shaped is not None:
            return shaped
        n = name.lower()
        real = [v for v in pool.get(n, []) if isinstance(v, str)]
        if real and n not in ("title", "name", "content", "text", "body", "subject", "description"):
            return self.rng.choice(real)
        for key in (n, n.split("_")[-1]):
            if key in PHRASES:
                return self.rng.choice(PHRASES[key])
        if isinstance(ex, str) and ex:
            return ex
        return self.rng.choice(PHRASES["note"])

    def _shaped(self, name: str, schema: dict[str, Any], ex: Any) -> str | None:
        pattern = str(schema.get("pattern", ""))
        n = name.lower()
        text = ex if isinstance(ex, str) else ""
        if DATETIME.match(text) or "T\\d{2}:\\d{2}" in pattern:
            return self._moment(hours=True).strftime("%Y-%m-%dT%H:%M")
        if DATE.match(text) or pattern == "^\\d{4}-\\d{2}-\\d{2}$" or n.endswith("date") or n in ("since", "until"):
            return self._moment(hours=False).strftime("%Y-%m-%d")
        if TIME.match(text):
            return f"{self.rng.choice((7, 8, 18, 19, 21)):02d}:{self.rng.choice((0, 15, 30)):02d}"
        if "email" in n or ("@" in text and "address" in n):
            first, last = fake.person(self.rng)
            return f"{first.lower()}.{last.lower()}@example.com"
        if n == "url" or text.startswith("http"):
            kind = self.rng.choice(("billing", "events", "orders"))
            return f"https://hooks.example.com/{kind}/{self.rng.randint(100, 999)}"
        if "phone" in n:
            return fake.phone(self.rng)
        if n == "zip" or "\\d{5}" in pattern:
            return f"{self.rng.randint(10000, 99999)}"
        if n == "state" and "[A-Z]{2}" in pattern:
            return self.rng.choice(("CO", "CA", "NY", "TX", "WA", "IL"))
        if n == "street":
            return fake.address(self.rng).split(",")[0]
        if n == "seat" or "[A-Fa-f]" in pattern:
            return f"{self.rng.randint(5, 30)}{self.rng.choice('ABCDEF')}"
        if "passport" in n:
            return f"{self.rng.choice('XYZKP')}{self.rng.randint(10**7, 10**8 - 1)}"
        if "account_number" in n or "\\d{6,17}" in pattern:
            return f"{self.rng.randint(10**9, 10**10 - 1)}"
        if n == "mode" and "[0-7]" in pattern:
            return self.rng.choice(("644", "600", "755"))
        if n == "fields":
            return self.rng.choice(("1", "2", "1,3", "2-3"))
        if "archive" in n:
            return (
                f"backups/{self.rng.choice(('notes', 'projects', 'docs', 'photos'))}-{self.rng.randint(1, 999)}.tar.gz"
            )
        if n.endswith("path") and isinstance(ex, str):
            folder = self.rng.choice(("notes", "drafts", "reports"))
            stem = self.rng.choice(("todo", "plan", "summary"))
            return f"Documents/{folder}/{stem}-{self.rng.randint(1, 99)}.md"
        return None

    def _moment(self, hours: bool) -> datetime:
        if hours and self.rng.random() < 0.15:  # soon: something that can start now (a meeting within the hour)
            return self.now + timedelta(minutes=self.rng.choice((30, 45, 60)))
        day = self.now + timedelta(days=self.rng.randint(1, 20))
        if hours:
            return day.replace(
                hour=self.rng.choice((9, 10, 11, 13, 14, 15, 16)),
                minute=self.rng.choice((0, 30)),
                second=0,
                microsecond=0,
            )
        return day
