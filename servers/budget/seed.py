"""The budget seed: 25 categories in 10 groups, 13 months of expenses (~1,000) with running month totals and
the alerts they raised, and 11 recurring expenses whose past occurrences are posted.

Expenses are drawn month by month and category by category, then posted in date order as the tools would
(hard limits refuse, totals accumulate, alerts fire once); the order of the draws from ``rng`` is part of the
seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from hub.kit import Row, insert_rows
from servers.budget.schema import ALERT_LEVELS, add_months, occurrences

# (group, name, monthly limit or None, hard limit, per-month count range, amount range, merchants)
CATEGORIES = (
    ("Housing", "Rent", None, False, (0, 0), (0, 0), ("Maple Court Apartments",)),
    ("Housing", "Utilities", 260.0, False, (1, 2), (45, 140), ("City Power & Light", "Metro Water", "Northern Gas Co")),
    ("Housing", "Internet & Phone", 170.0, False, (0, 0), (0, 0), ("Comcast", "T-Mobile")),
    (
        "Food",
        "Groceries",
        950.0,
        False,
        (7, 11),
        (18, 140),
        ("Whole Grocer", "Trader Joe's", "Safeway", "Costco", "Aldi"),
    ),
    (
        "Food",
        "Dining Out",
        300.0,
        True,
        (3, 8),
        (14, 85),
        ("Chipotle", "Olive Garden", "Sushi Zen", "Taqueria El Sol", "Pho 88", "Burger Barn"),
    ),
    ("Food", "Coffee", 60.0, True, (5, 12), (3.5, 7.5), ("Blue Bottle Cafe", "Starbucks", "Corner Espresso")),
    ("Transport", "Fuel", 180.0, False, (2, 5), (28, 65), ("Shell Station", "Chevron", "Costco Gas")),
    ("Transport", "Public Transit", 110.0, False, (0, 3), (2.75, 12), ("Metro Transit",)),
    ("Transport", "Rideshare", 100.0, False, (0, 4), (9, 38), ("Uber", "Lyft")),
    ("Transport", "Car Maintenance", 250.0, False, (0, 1), (40, 420), ("Jiffy Lube", "Midas", "Discount Tire")),
    ("Health", "Pharmacy", 60.0, False, (0, 2), (6, 45), ("Walgreens", "CVS")),
    ("Health", "Fitness", 70.0, False, (0, 1), (10, 25), ("Yoga Loft",)),
    ("Health", "Doctor", 150.0, False, (0, 1), (25, 180), ("Valley Medical Group", "Bright Smile Dental")),
    ("Entertainment", "Streaming", 45.0, False, (0, 0), (0, 0), ("Netflix", "Spotify")),
    (
        "Entertainment",
        "Movies & Events",
        130.0,
        False,
        (0, 3),
        (12, 85),
        ("AMC Theatres", "Ticketmaster", "Alamo Drafthouse"),
    ),
    ("Entertainment", "Books & Games", 70.0, False, (0, 2), (8, 60), ("Powell's Books", "Steam", "Barnes & Noble")),
    ("Shopping", "Clothing", 150.0, False, (0, 3), (18, 120), ("Uniqlo", "Target", "Nordstrom Rack", "REI")),
    ("Shopping", "Electronics", 300.0, False, (0, 1), (25, 650), ("Best Buy", "Amazon", "Apple Store")),
    ("Shopping", "Household", 150.0, False, (1, 4), (8, 70), ("Target", "Home Depot", "IKEA", "Amazon")),
    ("Personal", "Haircuts", 60.0, False, (0, 1), (28, 55), ("Fade Factory", "Salon Lumiere")),
    ("Personal", "Gifts", None, False, (0, 2), (20, 150), ("Etsy", "Amazon", "Macy's")),
    ("Travel", "Travel", 800.0, False, (0, 1), (90, 1100), ("Delta Air Lines", "Marriott", "Airbnb", "Amtrak")),
    ("Pets", "Pet Care", 120.0, False, (1, 3), (12, 75), ("Petco", "Chewy", "Happy Paws Vet")),
    ("Insurance", "Insurance", 220.0, False, (0, 0), (0, 0), ("Geico", "Lemonade")),
    ("Education", "Courses", None, False, (0, 1), (15, 200), ("Coursera", "Udemy", "Community College")),
)
# (category name, merchant, amount, frequency, day of month or weekday, active)
RECURRING = (
    ("Rent", "Maple Court Apartments", 1950.0, "monthly", 1, True),
    ("Internet & Phone", "Comcast", 74.99, "monthly", 5, True),
    ("Internet & Phone", "T-Mobile", 55.0, "monthly", 12, True),
    ("Fitness", "Planet Fitness", 24.99, "monthly", 3, True),
    ("Streaming", "Netflix", 15.49, "monthly", 15, True),
    ("Streaming", "Spotify", 11.99, "monthly", 20, True),
    ("Streaming", "Hulu", 7.99, "monthly", 8, False),
    ("Insurance", "Geico", 142.3, "monthly", 10, True),
    ("Insurance", "Lemonade", 18.0, "monthly", 22, True),
    ("Public Transit", "Metro Transit", 64.0, "monthly", 2, True),
    ("Groceries", "Farm Box Weekly", 34.0, "weekly", 5, True),
)
Spec = tuple[float | None, bool, tuple[int, int], tuple[float, float], tuple[str, ...]]
Draft = tuple[date, str, float, str, str, str, str | None]  # date, category, amount, merchant, note, method, recurring


@dataclass
class Ledger:
    """Posted expenses with the month totals and alerts they produce."""

    expenses: list[Row] = field(default_factory=list)
    totals: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)
    alerts: list[Row] = field(default_factory=list)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """25 categories in 10 groups, 13 months of expenses (~1,000) with running month totals and the alerts
    they raised, and 11 recurring expenses whose past occurrences are posted."""
    today = now.date()
    first_month = add_months(today.replace(day=1), -12)
    cats, cat_id, spec = categories(first_month)
    insert_rows(db, "categories", cats)
    drafts: list[Draft] = []
    recurring = recurring_expenses(rng, today, first_month, cat_id, drafts)
    month = first_month
    while month <= today:
        month_expenses(rng, today, month, spec, drafts)
        month = add_months(month, 1)
    drafts.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    ledger = post(rng, today, spec, drafts)
    insert_rows(db, "expenses", ledger.expenses)
    insert_rows(db, "month_totals", [(c, m, s, n) for (c, m), (s, n) in ledger.totals.items()])
    insert_rows(db, "alerts", ledger.alerts)
    insert_rows(db, "recurring_expenses", recurring)


def categories(first_month: date) -> tuple[list[Row], dict[str, str], dict[str, Spec]]:
    """The category rows, their ids by name, and how each one spends."""
    cats, cat_id, spec = [], {}, {}
    for i, (grp, name, limit, hard, count, amounts, merchants) in enumerate(CATEGORIES, 1):
        cid = f"CAT-{i:03d}"
        cats.append((cid, name, grp, limit, int(hard), f"{first_month.isoformat()}T08:00:00"))
        cat_id[name] = cid
        spec[cid] = (limit, hard, count, amounts, merchants)
    return cats, cat_id, spec


def recurring_expenses(
    rng: random.Random, today: date, first_month: date, cat_id: dict[str, str], drafts: list[Draft]
) -> list[Row]:
    """The recurring expenses, with every past occurrence drafted as an expense; stopped ones ended months ago."""
    found: list[Row] = []
    for j, (cname, merchant, amount, freq, day, active) in enumerate(RECURRING, 1):
        rid = f"REC-{j:03d}"
        if freq == "weekly":
            start = first_month + timedelta(days=(day - first_month.weekday()) % 7)
        else:
            start = first_month.replace(day=day)
        through = today if active else add_months(today, -rng.randint(2, 6))
        dates, following = occurrences(start, freq, through)
        method = "bank_transfer" if cname in ("Rent", "Insurance") else "card"
        drafts.extend((d, cat_id[cname], amount, merchant, f"{freq} {merchant}", method, rid) for d in dates)
        found.append(
            (
                rid,
                cat_id[cname],
                amount,
                merchant,
                freq,
                start.isoformat(),
                following.isoformat(),
                int(active),
                f"{start.isoformat()}T08:00:00",
            )
        )
    return found


def month_expenses(rng: random.Random, today: date, month: date, spec: dict[str, Spec], drafts: list[Draft]) -> None:
    """One month of everyday spending; the current month has only its first days."""
    current = month.month == today.month and month.year == today.year
    days_in = today.day if current else (add_months(month, 1) - month).days
    for cid, (_, _, (lo, hi), (a_lo, a_hi), merchants) in spec.items():
        for _ in range(rng.randint(lo, hi) if days_in > 3 else int(hi > 0 and rng.random() < 0.12)):
            d = month + timedelta(days=rng.randrange(days_in))
            amount = round(rng.uniform(a_lo, a_hi), 2)
            drafts.append((d, cid, amount, rng.choice(merchants), "", rng.choices(("card", "cash"), (85, 15))[0], None))


def post(rng: random.Random, today: date, spec: dict[str, Spec], drafts: list[Draft]) -> Ledger:
    """Post drafted expenses in date order: a hard limit refuses what would exceed it, crossings raise alerts."""
    out = Ledger()
    for d, cid, amount, merchant, note, method, rid in drafts:
        limit, hard = spec[cid][0], spec[cid][1]
        key = (cid, d.strftime("%Y-%m"))
        spent, n_exp = out.totals.get(key, (0.0, 0))
        if hard and limit is not None and spent + amount > limit:
            continue
        new = round(spent + amount, 2)
        out.totals[key] = (new, n_exp + 1)
        at = f"{d.isoformat()}T{rng.randint(8, 21):02d}:{rng.randint(0, 59):02d}:00"
        if d == today:
            at = f"{d.isoformat()}T08:{rng.randint(0, 59):02d}:00"
        out.expenses.append(
            (f"EXP-{len(out.expenses) + 1:05d}", cid, amount, d.isoformat(), merchant, note, method, rid, at)
        )
        if limit:
            for share, level in ALERT_LEVELS[::-1]:
                if spent < share * limit <= new:
                    out.alerts.append((f"ALR-{len(out.alerts) + 1:04d}", cid, key[1], level, new, limit, at))
    return out
