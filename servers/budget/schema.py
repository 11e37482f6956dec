"""Budget tables and calendar rules: categories with limits, expenses, running month totals, alerts and
recurring expenses."""

from __future__ import annotations

from datetime import date, timedelta

SCHEMA = """
CREATE TABLE categories (
    category_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    grp TEXT NOT NULL,
    monthly_limit REAL,
    hard_limit INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE TABLE expenses (
    expense_id TEXT PRIMARY KEY,
    category_id TEXT NOT NULL REFERENCES categories(category_id),
    amount REAL NOT NULL CHECK (amount > 0),
    date TEXT NOT NULL,
    merchant TEXT NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    payment_method TEXT NOT NULL CHECK (payment_method IN ('card', 'cash', 'bank_transfer')),
    recurring_id TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX expenses_category ON expenses(category_id, date);
CREATE INDEX expenses_date ON expenses(date);
CREATE TABLE month_totals (
    category_id TEXT NOT NULL REFERENCES categories(category_id),
    month TEXT NOT NULL,
    spent REAL NOT NULL,
    expense_count INTEGER NOT NULL,
    PRIMARY KEY (category_id, month)
);
CREATE TABLE alerts (
    alert_id TEXT PRIMARY KEY,
    category_id TEXT NOT NULL REFERENCES categories(category_id),
    month TEXT NOT NULL,
    level TEXT NOT NULL CHECK (level IN ('warning', 'exceeded')),
    spent REAL NOT NULL,
    monthly_limit REAL NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (category_id, month, level)
);
CREATE TABLE recurring_expenses (
    recurring_id TEXT PRIMARY KEY,
    category_id TEXT NOT NULL REFERENCES categories(category_id),
    amount REAL NOT NULL,
    merchant TEXT NOT NULL,
    frequency TEXT NOT NULL CHECK (frequency IN ('weekly', 'monthly')),
    start_date TEXT NOT NULL,
    next_date TEXT NOT NULL,
    active INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
"""

ALERT_LEVELS = ((1.0, "exceeded"), (0.8, "warning"))


def add_months(d: date, n: int) -> date:
    """The same day n months later (days past the 28th become the 28th)."""
    y, m = divmod(d.month - 1 + n, 12)
    return d.replace(year=d.year + y, month=m + 1, day=min(d.day, 28))


def occurrences(start: date, frequency: str, through: date) -> tuple[list[date], date]:
    """Occurrence dates from start up to and including through, and the first date after it."""
    out, d, n = [], start, 0
    while d <= through:
        out.append(d)
        n += 1
        d = start + timedelta(weeks=n) if frequency == "weekly" else add_months(start, n)
    return out, d
