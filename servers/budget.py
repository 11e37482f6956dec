"""Budget: a household's expenses by category, monthly limits, running month totals, alerts and
recurring expenses.

Business rules: every expense belongs to an existing category and has a positive amount, dated
today or in the past year (no future expenses; schedule those as recurring). Each expense adds to
its category's running total for that month; crossing 80% of the monthly limit raises a 'warning'
alert and crossing 100% an 'exceeded' alert (once per category and month). A category with a
hard limit refuses an expense that would take the month over the limit. Category names are
unique (case-insensitive); a category that still has expenses or active recurring expenses can
only be deleted by moving them to another category. Recurring expenses post every occurrence up
to today at once and then wait for their next date; monthly ones run on days 1 to 28.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import date, datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

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

# (group, name, monthly limit or None, hard limit, per-month count range, amount range, merchants)
CATEGORIES = (
    ("Housing", "Rent", None, False, (0, 0), (0, 0), ("Maple Court Apartments",)),
    ("Housing", "Utilities", 260.0, False, (1, 2), (45, 140), ("City Power & Light", "Metro Water", "Northern Gas Co")),
    ("Housing", "Internet & Phone", 170.0, False, (0, 0), (0, 0), ("Comcast", "T-Mobile")),
    ("Food", "Groceries", 950.0, False, (7, 11), (18, 140), ("Whole Grocer", "Trader Joe's", "Safeway", "Costco", "Aldi")),
    ("Food", "Dining Out", 300.0, True, (3, 8), (14, 85), ("Chipotle", "Olive Garden", "Sushi Zen", "Taqueria El Sol", "Pho 88", "Burger Barn")),
    ("Food", "Coffee", 60.0, True, (5, 12), (3.5, 7.5), ("Blue Bottle Cafe", "Starbucks", "Corner Espresso")),
    ("Transport", "Fuel", 180.0, False, (2, 5), (28, 65), ("Shell Station", "Chevron", "Costco Gas")),
    ("Transport", "Public Transit", 110.0, False, (0, 3), (2.75, 12), ("Metro Transit",)),
    ("Transport", "Rideshare", 100.0, False, (0, 4), (9, 38), ("Uber", "Lyft")),
    ("Transport", "Car Maintenance", 250.0, False, (0, 1), (40, 420), ("Jiffy Lube", "Midas", "Discount Tire")),
    ("Health", "Pharmacy", 60.0, False, (0, 2), (6, 45), ("Walgreens", "CVS")),
    ("Health", "Fitness", 70.0, False, (0, 1), (10, 25), ("Yoga Loft",)),
    ("Health", "Doctor", 150.0, False, (0, 1), (25, 180), ("Valley Medical Group", "Bright Smile Dental")),
    ("Entertainment", "Streaming", 45.0, False, (0, 0), (0, 0), ("Netflix", "Spotify")),
    ("Entertainment", "Movies & Events", 130.0, False, (0, 3), (12, 85), ("AMC Theatres", "Ticketmaster", "Alamo Drafthouse")),
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
    ("Rent", "Maple Court Apartments", 1950.0, "monthly", 1, True), ("Internet & Phone", "Comcast", 74.99, "monthly", 5, True),
    ("Internet & Phone", "T-Mobile", 55.0, "monthly", 12, True), ("Fitness", "Planet Fitness", 24.99, "monthly", 3, True),
    ("Streaming", "Netflix", 15.49, "monthly", 15, True), ("Streaming", "Spotify", 11.99, "monthly", 20, True),
    ("Streaming", "Hulu", 7.99, "monthly", 8, False), ("Insurance", "Geico", 142.3, "monthly", 10, True),
    ("Insurance", "Lemonade", 18.0, "monthly", 22, True), ("Public Transit", "Metro Transit", 64.0, "monthly", 2, True),
    ("Groceries", "Farm Box Weekly", 34.0, "weekly", 5, True),
)
ALERT_LEVELS = ((1.0, "exceeded"), (0.8, "warning"))


def _add_months(d: date, n: int) -> date:
    y, m = divmod(d.month - 1 + n, 12)
    return d.replace(year=d.year + y, month=m + 1, day=min(d.day, 28))


def _occurrences(start: date, frequency: str, through: date) -> tuple[list[date], date]:
    """Occurrence dates from start up to and including through, and the first date after it."""
    out, d, n = [], start, 0
    while d <= through:
        out.append(d)
        n += 1
        d = start + timedelta(weeks=n) if frequency == "weekly" else _add_months(start, n)
    return out, d


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """25 categories in 10 groups, 13 months of expenses (~1,000) with running month totals and the alerts
    they raised, and 11 recurring expenses whose past occurrences are posted."""
    today = now.date()
    first_month = _add_months(today.replace(day=1), -12)
    cats, cat_id, spec = [], {}, {}
    for i, (grp, name, limit, hard, count, amounts, merchants) in enumerate(CATEGORIES, 1):
        cid = f"CAT-{i:03d}"
        cats.append((cid, name, grp, limit, int(hard), f"{first_month.isoformat()}T08:00:00"))
        cat_id[name] = cid
        spec[cid] = (limit, hard, count, amounts, merchants)
    db.executemany("INSERT INTO categories VALUES (?,?,?,?,?,?)", cats)
    raw: list[Any] = []  # (date, category_id, amount, merchant, note, method, recurring_id)
    recurring: list[Any] = []
    for j, (cname, merchant, amount, freq, day, active) in enumerate(RECURRING, 1):
        rid = f"REC-{j:03d}"
        if freq == "weekly":
            start = first_month + timedelta(days=(day - first_month.weekday()) % 7)
        else:
            start = first_month.replace(day=day)
        through = today if active else _add_months(today, -rng.randint(2, 6))
        dates, following = _occurrences(start, freq, through)
        for d in dates:
            raw.append((d, cat_id[cname], amount, merchant, f"{freq} {merchant}", "bank_transfer" if cname in ("Rent", "Insurance") else "card", rid))
        recurring.append((rid, cat_id[cname], amount, merchant, freq, start.isoformat(), following.isoformat(), int(active),
                          f"{start.isoformat()}T08:00:00"))
    month = first_month
    while month <= today:
        days_in = ((_add_months(month, 1) - month).days if month.month != today.month or month.year != today.year else today.day)
        for cid, (limit, hard, (lo, hi), (a_lo, a_hi), merchants) in spec.items():
            for _ in range(rng.randint(lo, hi) if days_in > 3 else int(hi > 0 and rng.random() < 0.12)):
                d = month + timedelta(days=rng.randrange(days_in))
                amount = round(rng.uniform(a_lo, a_hi), 2)
                raw.append((d, cid, amount, rng.choice(merchants), "", rng.choices(("card", "cash"), (85, 15))[0], None))
        month = _add_months(month, 1)
    raw.sort(key=lambda r: (r[0], r[1], r[2], r[3]))
    expenses: list[Any] = []
    totals: dict[tuple[str, str], tuple[float, int]] = {}
    alerts: list[Any] = []
    for d, cid, amount, merchant, note, method, rid in raw:
        limit, hard = spec[cid][0], spec[cid][1]
        key = (cid, d.strftime("%Y-%m"))
        spent, n_exp = totals.get(key, (0.0, 0))
        if hard and limit is not None and spent + amount > limit:
            continue
        new = round(spent + amount, 2)
        totals[key] = (new, n_exp + 1)
        at = f"{d.isoformat()}T{rng.randint(8, 21):02d}:{rng.randint(0, 59):02d}:00"
        if d == today:
            at = f"{d.isoformat()}T08:{rng.randint(0, 59):02d}:00"
        expenses.append((f"EXP-{len(expenses) + 1:05d}", cid, amount, d.isoformat(), merchant, note, method, rid, at))
        if limit:
            for share, level in ALERT_LEVELS[::-1]:
                if spent < share * limit <= new:
                    alerts.append((f"ALR-{len(alerts) + 1:04d}", cid, key[1], level, new, limit, at))
    db.executemany("INSERT INTO expenses VALUES (?,?,?,?,?,?,?,?,?)", expenses)
    db.executemany("INSERT INTO month_totals VALUES (?,?,?,?)", [(c, m, s, n) for (c, m), (s, n) in totals.items()])
    db.executemany("INSERT INTO alerts VALUES (?,?,?,?,?,?,?)", alerts)
    db.executemany("INSERT INTO recurring_expenses VALUES (?,?,?,?,?,?,?,?,?)", recurring)


budget = Server("budget", "Household budget: expenses, categories, monthly limits, running totals, alerts and recurring expenses.", SCHEMA, seed)

CategoryId = Annotated[str, Field(description="Category id, e.g. 'CAT-004'"), Entity("category")]
ExpenseId = Annotated[str, Field(description="Expense id, e.g. 'EXP-00042'"), Entity("expense")]
Month = Annotated[str, Field(pattern=r"^\d{4}-\d{2}$", description="A month as YYYY-MM, e.g. '2026-05'")]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="An ISO date, e.g. '2026-05-14'")]
Money = Annotated[float, Field(ge=-1_000_000, le=1_000_000, description="Amount in USD, e.g. 42.50")]
Merchant = Annotated[str, Field(min_length=1, max_length=100, description="Who was paid, e.g. 'Whole Grocer'")]
MAX_BACKDATE_DAYS = 366


def _category(ctx: Ctx, category_id: str) -> dict[str, Any]:
    cat = fetch(ctx.db, "SELECT category_id, name, grp AS \"group\", monthly_limit, hard_limit, created_at FROM categories WHERE category_id = ?",
                (category_id,), f"Unknown category {category_id!r}. Use list_categories to find category ids, or create_category to add one.")
    cat["hard_limit"] = bool(cat["hard_limit"])
    return cat


def _expense(ctx: Ctx, expense_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM expenses WHERE expense_id = ?", (expense_id,),
                 f"No expense {expense_id!r}. Use list_expenses to find expense ids.")


def _month(value: str | None, ctx: Ctx) -> str:
    if value is None:
        return ctx.now.strftime("%Y-%m")
    if not 1 <= int(value[5:7]) <= 12:
        raise ToolError(f"{value!r} is not a valid month; use YYYY-MM with a month from 01 to 12, e.g. '2026-05'.")
    return value


def _day(value: str, name: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a valid calendar date; use YYYY-MM-DD, e.g. '2026-05-14'.") from None


def _spent(ctx: Ctx, category_id: str, month: str) -> tuple[float, int]:
    found = ctx.db.execute("SELECT spent, expense_count FROM month_totals WHERE category_id = ? AND month = ?", (category_id, month)).fetchone()
    return (found[0], found[1]) if found else (0.0, 0)


def _raise_alerts(ctx: Ctx, cat: dict[str, Any], month: str, before: float, after: float) -> list[dict[str, Any]]:
    """Record 'warning' (80%) and 'exceeded' (100%) alerts the first time a month's spend crosses them."""
    limit = cat["monthly_limit"]
    raised: list[dict[str, Any]] = []
    if not limit:
        return raised
    for share, level in ALERT_LEVELS[::-1]:
        if before < share * limit <= after and not ctx.db.execute(
                "SELECT 1 FROM alerts WHERE category_id = ? AND month = ? AND level = ?", (cat["category_id"], month, level)).fetchone():
            alert_id = next_id(ctx.db, "alerts", "alert_id", "ALR")
            ctx.db.execute("INSERT INTO alerts VALUES (?,?,?,?,?,?,?)",
                           (alert_id, cat["category_id"], month, level, after, limit, ctx.now.isoformat(timespec="seconds")))
            raised.append({"alert_id": alert_id, "level": level, "month": month, "spent": after, "monthly_limit": limit})
    return raised


def _post(ctx: Ctx, cat: dict[str, Any], amount: float, day: date, merchant: str, note: str, method: str,
          recurring_id: str | None) -> dict[str, Any]:
    month = day.strftime("%Y-%m")
    spent, count = _spent(ctx, cat["category_id"], month)
    after = round(spent + amount, 2)
    limit = cat["monthly_limit"]
    if cat["hard_limit"] and limit is not None and after > limit + 1e-9:
        raise ToolError(f"{cat['name']} ({cat['category_id']}) has a hard limit of {limit:.2f} USD a month; {month} spend is {spent:.2f}, "
                        f"so {amount:.2f} more would reach {after:.2f}. Raise the limit with set_monthly_limit, or record it in another category.")
    expense_id = next_id(ctx.db, "expenses", "expense_id", "EXP", 5)
    ctx.db.execute("INSERT INTO expenses VALUES (?,?,?,?,?,?,?,?,?)",
                   (expense_id, cat["category_id"], amount, day.isoformat(), merchant, note, method, recurring_id, ctx.now.isoformat(timespec="seconds")))
    ctx.db.execute("INSERT INTO month_totals VALUES (?,?,?,?) ON CONFLICT (category_id, month) DO UPDATE SET spent = excluded.spent, "
                   "expense_count = excluded.expense_count", (cat["category_id"], month, after, count + 1))
    alerts = _raise_alerts(ctx, cat, month, spent, after)
    out = {"expense_id": expense_id, "category_id": cat["category_id"], "amount": amount, "date": day.isoformat(),
           "month": month, "month_spent": after, "monthly_limit": limit,
           "remaining": round(limit - after, 2) if limit is not None else None, "alerts": alerts}
    if limit is not None and after > limit:
        out["warning"] = f"{cat['name']} is over its {month} limit: {after:.2f} of {limit:.2f} USD spent."
    elif alerts:
        out["warning"] = f"{cat['name']} has used {100 * after / limit:.0f}% of its {month} limit ({after:.2f} of {limit:.2f} USD)."
    return out


def _status(spent: float, limit: float | None) -> str:
    if not limit:
        return "no_limit"
    return "over" if spent > limit else "warning" if spent >= 0.8 * limit else "ok"


@budget.read(returns=("category",))
def list_categories(ctx: Ctx, group: Annotated[str | None, Field(max_length=40, description="Only this group, e.g. 'Food'")] = None,
                    query: Annotated[str, Field(max_length=40, description="Part of the category name, e.g. 'din'")] = "",
                    month: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}$", description="Month whose spend to show, YYYY-MM; default the current month")] = None,
                    limit: Limit = 50, offset: Offset = 0) -> dict[str, Any]:
    """List budget categories with their monthly limit and the month's spend and remaining amount,
    e.g. list_categories(group='Food') shows 'CAT-004' Groceries."""
    m = _month(month, ctx)
    sql = ("SELECT c.category_id, c.name, c.grp AS \"group\", c.monthly_limit, c.hard_limit, COALESCE(t.spent, 0) AS spent, "
           "COALESCE(t.expense_count, 0) AS expense_count FROM categories c LEFT JOIN month_totals t ON t.category_id = c.category_id "
           "AND t.month = ? WHERE c.name LIKE ?")
    args: list[Any] = [m, f"%{query}%"]
    if group is not None:
        sql += " AND c.grp = ?"
        args.append(group)
    found = rows(ctx.db.execute(sql + " ORDER BY c.category_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    for c in found:
        c["hard_limit"] = bool(c["hard_limit"])
        c["remaining"] = round(c["monthly_limit"] - c["spent"], 2) if c["monthly_limit"] is not None else None
        c["status"] = _status(c["spent"], c["monthly_limit"])
    return {"month": m, "categories": found, "count": len(found)}


@budget.read(returns=("expense", "category"))
def list_expenses(ctx: Ctx, category_id: Annotated[str | None, Field(description="Only this category, e.g. 'CAT-004'"), Entity("category")] = None,
                  month: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}$", description="Only this month, YYYY-MM, e.g. '2026-05'")] = None,
                  merchant: Annotated[str | None, Field(max_length=100, description="Part of the merchant's name, e.g. 'Costco'")] = None,
                  min_amount: Annotated[float | None, Field(ge=0, le=1_000_000, description="Only expenses of at least this amount")] = None,
                  max_amount: Annotated[float | None, Field(ge=0, le=1_000_000, description="Only expenses of at most this amount")] = None,
                  recurring_id: Annotated[str | None, Field(description="Only occurrences of this recurring expense, e.g. 'REC-001'"), Entity("recurring_expense")] = None,
                  limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List expenses, newest first, filtered by category, month, merchant, amount or recurring expense,
    e.g. list_expenses(category_id='CAT-004', month='2026-05')."""
    sql = "SELECT * FROM expenses WHERE 1=1"
    args: list[Any] = []
    if month is not None:
        sql += " AND date LIKE ?"
        args.append(_month(month, ctx) + "-%")
    for column, value in (("category_id", category_id), ("recurring_id", recurring_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if merchant is not None:
        sql += " AND merchant LIKE ?"
        args.append(f"%{merchant}%")
    if min_amount is not None:
        sql += " AND amount >= ?"
        args.append(min_amount)
    if max_amount is not None:
        sql += " AND amount <= ?"
        args.append(max_amount)
    found = rows(ctx.db.execute(sql + " ORDER BY date DESC, expense_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"expenses": found, "count": len(found)}


@budget.read(returns=("expense", "category", "recurring_expense"))
def get_expense(ctx: Ctx, expense_id: ExpenseId) -> dict[str, Any]:
    """Get one expense with its category name, e.g. get_expense('EXP-00042')."""
    exp = _expense(ctx, expense_id)
    exp["category_name"] = _category(ctx, exp["category_id"])["name"]
    return exp


@budget.read(returns=("category", "alert"))
def get_monthly_summary(ctx: Ctx, month: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}$", description="YYYY-MM; default the current month")] = None,
                        group: Annotated[str | None, Field(max_length=40, description="Only categories of this group, e.g. 'Food'")] = None) -> dict[str, Any]:
    """A month's spend per category against its limit (ok / warning / over / no_limit), the totals and the
    alerts raised that month, e.g. get_monthly_summary('2026-05')."""
    m = _month(month, ctx)
    sql = ("SELECT c.category_id, c.name, c.grp AS \"group\", c.monthly_limit, COALESCE(t.spent, 0) AS spent, "
           "COALESCE(t.expense_count, 0) AS expense_count FROM categories c LEFT JOIN month_totals t "
           "ON t.category_id = c.category_id AND t.month = ?")
    args: list[Any] = [m]
    if group is not None:
        sql += " WHERE c.grp = ?"
        args.append(group)
    cats = rows(ctx.db.execute(sql + " ORDER BY c.category_id", args))
    for c in cats:
        c["remaining"] = round(c["monthly_limit"] - c["spent"], 2) if c["monthly_limit"] is not None else None
        c["status"] = _status(c["spent"], c["monthly_limit"])
    alerts = rows(ctx.db.execute("SELECT a.alert_id, a.category_id, c.name, a.level, a.spent, a.monthly_limit, a.created_at FROM alerts a "
                                 "JOIN categories c USING (category_id) WHERE a.month = ? ORDER BY a.alert_id", (m,)))
    if group is not None:
        ids = {c["category_id"] for c in cats}
        alerts = [a for a in alerts if a["category_id"] in ids]
    limited = [c for c in cats if c["monthly_limit"] is not None]
    return {"month": m, "total_spent": round(sum(c["spent"] for c in cats), 2),
            "total_limit": round(sum(c["monthly_limit"] for c in limited), 2),
            "over_limit": [c["category_id"] for c in cats if c["status"] == "over"], "categories": cats, "alerts": alerts}


@budget.read(returns=("recurring_expense", "category"))
def list_recurring_expenses(ctx: Ctx, category_id: Annotated[str | None, Field(description="Only this category, e.g. 'CAT-001'"), Entity("category")] = None,
                            active: Annotated[bool | None, Field(description="true: only active ones; false: only stopped ones")] = None) -> dict[str, Any]:
    """List recurring expenses (rent, subscriptions, ...) with their next date, e.g. list_recurring_expenses(active=True) shows 'REC-001'."""
    sql = "SELECT * FROM recurring_expenses WHERE 1=1"
    args: list[Any] = []
    if category_id is not None:
        sql += " AND category_id = ?"
        args.append(category_id)
    if active is not None:
        sql += " AND active = ?"
        args.append(int(active))
    found = rows(ctx.db.execute(sql + " ORDER BY recurring_id LIMIT 100", args))
    for r in found:
        r["active"] = bool(r["active"])
    return {"recurring_expenses": found, "count": len(found)}


DISTINCT_FIELDS = {"group": ("categories", "grp"), "merchant": ("expenses", "merchant"), "payment_method": ("expenses", "payment_method"),
                   "frequency": ("recurring_expenses", "frequency"), "alert_level": ("alerts", "level"),
                   "month": ("month_totals", "month")}


@budget.read()
def get_distinct_values(ctx: Ctx, field: Literal["group", "merchant", "payment_method", "frequency", "alert_level", "month"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('group')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


def _check_amount(amount: float) -> float:
    value = round(amount, 2)
    if value <= 0:
        raise ToolError(f"Amount {amount} is not positive; expenses are recorded as positive amounts in USD. "
                        "To undo an expense, delete it with delete_expense.")
    return value


@budget.write(returns=("expense", "alert"))
def add_expense(ctx: Ctx, category_id: CategoryId, amount: Money, merchant: Merchant,
                date: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="When it was spent, YYYY-MM-DD; default today")] = None,
                note: Annotated[str, Field(max_length=200, description="A free-text note")] = "",
                payment_method: Literal["card", "cash", "bank_transfer"] = "card") -> dict[str, Any]:
    """Record an expense in a category, e.g. add_expense('CAT-004', 82.40, 'Whole Grocer', date='2026-05-30').
    Returns the month's new spend for the category and any limit alert it raised; a hard-limited category
    refuses an expense that would go over its limit."""
    cat = _category(ctx, category_id)
    value = _check_amount(amount)
    today = ctx.now.date()
    day = today if date is None else _day(date, "date")
    if day > today:
        raise ToolError(f"{day.isoformat()} is in the future (today is {today.isoformat()}); record it on the day it is spent "
                        "or schedule it with add_recurring_expense.")
    if (today - day).days > MAX_BACKDATE_DAYS:
        raise ToolError(f"{day.isoformat()} is more than a year ago; the budget only takes expenses from the last {MAX_BACKDATE_DAYS} days.")
    if not merchant.strip():
        raise ToolError("merchant is blank; say who was paid, e.g. 'Whole Grocer'.")
    return _post(ctx, cat, value, day, merchant.strip(), note, payment_method, None)


@budget.write(returns=("expense",), requires=("add_expense",))
def delete_expense(ctx: Ctx, expense_id: ExpenseId) -> dict[str, Any]:
    """Delete an expense and take it off its month's total, e.g. delete_expense('EXP-00042'). Alerts already raised stay on record."""
    exp = _expense(ctx, expense_id)
    month = exp["date"][:7]
    spent, count = _spent(ctx, exp["category_id"], month)
    ctx.db.execute("DELETE FROM expenses WHERE expense_id = ?", (expense_id,))
    if count <= 1:
        ctx.db.execute("DELETE FROM month_totals WHERE category_id = ? AND month = ?", (exp["category_id"], month))
        spent = 0.0
    else:
        spent = round(max(0.0, spent - exp["amount"]), 2)
        ctx.db.execute("UPDATE month_totals SET spent = ?, expense_count = ? WHERE category_id = ? AND month = ?",
                       (spent, count - 1, exp["category_id"], month))
    return {"deleted": expense_id, "category_id": exp["category_id"], "month": month, "month_spent": spent}


@budget.write(returns=("category",))
def create_category(ctx: Ctx, name: Annotated[str, Field(min_length=1, max_length=40, description="Category name, e.g. 'Childcare'")],
                    group: Annotated[str, Field(min_length=1, max_length=40, description="Group it belongs to, e.g. 'Family'")] = "Other",
                    monthly_limit: Annotated[float | None, Field(ge=0, le=1_000_000, description="Monthly limit in USD; omit for none")] = None,
                    hard_limit: Annotated[bool, Field(description="true: refuse expenses that would exceed the limit")] = False) -> dict[str, Any]:
    """Create a budget category, e.g. create_category('Childcare', 'Family', monthly_limit=800.0). Names are unique, ignoring case."""
    name, group = name.strip(), group.strip()
    if not name or not group:
        raise ToolError("name and group must not be blank, e.g. create_category('Childcare', 'Family').")
    clash = ctx.db.execute("SELECT category_id FROM categories WHERE name = ?", (name,)).fetchone()
    if clash:
        raise ToolError(f"A category named {name!r} already exists as {clash[0]}; use it or pick another name.")
    if hard_limit and monthly_limit is None:
        raise ToolError("hard_limit needs a monthly_limit; pass monthly_limit or set hard_limit=false.")
    cid = next_id(ctx.db, "categories", "category_id", "CAT", 3)
    ctx.db.execute("INSERT INTO categories VALUES (?,?,?,?,?,?)",
                   (cid, name, group, None if monthly_limit is None else round(monthly_limit, 2), int(hard_limit), ctx.now.isoformat(timespec="seconds")))
    return _category(ctx, cid)


@budget.write(returns=("category", "alert"))
def set_monthly_limit(ctx: Ctx, category_id: CategoryId,
                      monthly_limit: Annotated[float | None, Field(ge=0, le=1_000_000, description="New monthly limit in USD; null removes the limit")],
                      hard_limit: Annotated[bool, Field(description="true: refuse expenses that would exceed the limit")] = False) -> dict[str, Any]:
    """Set, change or remove a category's monthly limit, e.g. set_monthly_limit('CAT-005', 350.0). The current month is checked
    against the new limit at once (alerts may be raised); a hard limit below what is already spent this month is refused."""
    cat = _category(ctx, category_id)
    month = ctx.now.strftime("%Y-%m")
    spent, _ = _spent(ctx, category_id, month)
    limit = None if monthly_limit is None else round(monthly_limit, 2)
    if hard_limit and limit is None:
        raise ToolError("hard_limit needs a monthly_limit; pass a number or set hard_limit=false.")
    if hard_limit and spent > limit:  # type: ignore[operator]
        raise ToolError(f"{cat['name']} has already spent {spent:.2f} USD in {month}; a hard limit of {limit:.2f} would be broken at once. "
                        f"Set a limit of at least {spent:.2f} or use hard_limit=false.")
    ctx.db.execute("UPDATE categories SET monthly_limit = ?, hard_limit = ? WHERE category_id = ?", (limit, int(hard_limit), category_id))
    cat.update(monthly_limit=limit, hard_limit=hard_limit)
    alerts = _raise_alerts(ctx, cat, month, 0.0, spent) if limit else []
    return {**cat, "month": month, "spent": spent, "remaining": round(limit - spent, 2) if limit is not None else None,
            "status": _status(spent, limit), "alerts": alerts}


@budget.write(returns=("category",))
def delete_category(ctx: Ctx, category_id: CategoryId,
                    move_to_category_id: Annotated[str | None, Field(description="Category to move its expenses and recurring expenses to, e.g. 'CAT-021'"),
                                                   Entity("category")] = None) -> dict[str, Any]:
    """Delete a category, e.g. delete_category('CAT-025', move_to_category_id='CAT-021'). A category that still has expenses or
    active recurring expenses can only be deleted when they are moved to another category."""
    cat = _category(ctx, category_id)
    n_exp = ctx.db.execute("SELECT COUNT(*) FROM expenses WHERE category_id = ?", (category_id,)).fetchone()[0]
    n_rec = ctx.db.execute("SELECT COUNT(*) FROM recurring_expenses WHERE category_id = ? AND active = 1", (category_id,)).fetchone()[0]
    moved_to = None
    if move_to_category_id is not None:
        if move_to_category_id == category_id:
            raise ToolError("move_to_category_id is the category being deleted; choose a different category.")
        moved_to = _category(ctx, move_to_category_id)["category_id"]
    if (n_exp or n_rec) and moved_to is None:
        raise ToolError(f"{cat['name']} ({category_id}) still has {n_exp} expenses and {n_rec} active recurring expenses; pass "
                        "move_to_category_id to move them to another category, or delete the expenses first.")
    if moved_to is not None:
        for month, spent, count in ctx.db.execute("SELECT month, spent, expense_count FROM month_totals WHERE category_id = ?", (category_id,)).fetchall():
            ctx.db.execute("INSERT INTO month_totals VALUES (?,?,?,?) ON CONFLICT (category_id, month) DO UPDATE SET "
                           "spent = ROUND(spent + excluded.spent, 2), expense_count = expense_count + excluded.expense_count",
                           (moved_to, month, spent, count))
        ctx.db.execute("UPDATE expenses SET category_id = ? WHERE category_id = ?", (moved_to, category_id))
        ctx.db.execute("UPDATE recurring_expenses SET category_id = ? WHERE category_id = ?", (moved_to, category_id))
    else:
        ctx.db.execute("DELETE FROM recurring_expenses WHERE category_id = ?", (category_id,))
    ctx.db.execute("DELETE FROM month_totals WHERE category_id = ?", (category_id,))
    ctx.db.execute("DELETE FROM alerts WHERE category_id = ?", (category_id,))
    ctx.db.execute("DELETE FROM categories WHERE category_id = ?", (category_id,))
    return {"deleted": category_id, "name": cat["name"], "moved_to": moved_to, "moved_expenses": n_exp if moved_to else 0}


@budget.write(returns=("recurring_expense", "expense"))
def add_recurring_expense(ctx: Ctx, category_id: CategoryId, amount: Money, merchant: Merchant,
                          frequency: Literal["weekly", "monthly"], start_date: Day) -> dict[str, Any]:
    """Schedule a recurring expense, e.g. add_recurring_expense('CAT-014', 13.99, 'Disney+', 'monthly', '2026-05-18').
    Occurrences from start_date up to today are posted at once (as expenses, with their alerts); later ones wait for
    next_date. start_date may be up to 90 days back or a year ahead; monthly ones must start on day 1 to 28."""
    cat = _category(ctx, category_id)
    value = _check_amount(amount)
    start = _day(start_date, "start_date")
    today = ctx.now.date()
    if (today - start).days > 90:
        raise ToolError(f"start_date {start.isoformat()} is more than 90 days back; start it later and record older payments with add_expense.")
    if (start - today).days > 365:
        raise ToolError(f"start_date {start.isoformat()} is more than a year ahead; pick a date within the next 365 days.")
    if frequency == "monthly" and start.day > 28:
        raise ToolError(f"Monthly recurring expenses run on day 1 to 28 so every month has the day; start on day 28 or earlier, not {start.day}.")
    if not merchant.strip():
        raise ToolError("merchant is blank; say who is paid, e.g. 'Netflix'.")
    rid = next_id(ctx.db, "recurring_expenses", "recurring_id", "REC", 3)
    dates, following = _occurrences(start, frequency, today)
    ctx.db.execute("INSERT INTO recurring_expenses VALUES (?,?,?,?,?,?,?,?,?)",
                   (rid, category_id, value, merchant.strip(), frequency, start.isoformat(), following.isoformat(), 1,
                    ctx.now.isoformat(timespec="seconds")))
    posted = []
    for d in dates:
        posted.append(_post(ctx, _category(ctx, category_id), value, d, merchant.strip(), f"{frequency} {merchant.strip()}", "card", rid))
    return {"recurring_id": rid, "category_id": category_id, "amount": value, "frequency": frequency, "start_date": start.isoformat(),
            "next_date": following.isoformat(), "posted": [p["expense_id"] for p in posted],
            "alerts": [a for p in posted for a in p["alerts"]]}


server = budget
