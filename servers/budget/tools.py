"""Budget tools: categories and their month's spend, expenses, summaries and recurring expenses; record,
delete and schedule expenses, and manage categories and limits."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import (
    ISO_DATE,
    ISO_MONTH,
    Ctx,
    IsoDate,
    IsoMonth,
    Limit,
    Offset,
    Query,
    Server,
    ToolError,
    fetch,
    listing,
    next_id,
    rows,
)
from servers.budget.schema import ALERT_LEVELS, SCHEMA, occurrences
from servers.budget.seed import seed

MAX_BACKDATE_DAYS = 366

budget = Server(
    "budget",
    "Household budget: expenses, categories, monthly limits, running totals, alerts and recurring expenses.",
    SCHEMA,
    seed,
    family="money",
)

CATEGORY = budget.entity("category", table="categories", key="category_id", example="CAT-004", finder="list_categories")
EXPENSE = budget.entity("expense", table="expenses", key="expense_id", example="EXP-00042", finder="list_expenses")
RECURRING_EXPENSE = budget.entity(
    "recurring_expense",
    table="recurring_expenses",
    key="recurring_id",
    example="REC-001",
    finder="list_recurring_expenses",
)

CategoryId = Annotated[str, CATEGORY]
ExpenseId = Annotated[str, EXPENSE]
Month = Annotated[IsoMonth, Field(description="A month as YYYY-MM, e.g. '2026-05'")]
Day = Annotated[IsoDate, Field(description="An ISO date, e.g. '2026-05-14'")]
Money = Annotated[float, Field(ge=-1_000_000, le=1_000_000, description="Amount in USD, e.g. 42.50")]
Merchant = Annotated[str, Field(min_length=1, max_length=100, description="Who was paid, e.g. 'Whole Grocer'")]
OptionalMonth = Annotated[str | None, Field(pattern=ISO_MONTH)]
OptionalDay = Annotated[str | None, Field(pattern=ISO_DATE)]


def _category(ctx: Ctx, category_id: str) -> dict[str, Any]:
    cat = fetch(
        ctx.db,
        'SELECT category_id, name, grp AS "group", monthly_limit, hard_limit, created_at FROM '
        "categories WHERE category_id = ?",
        (category_id,),
        f"Unknown category {category_id!r}. Use list_categories to find category ids, or create_category to add one.",
    )
    cat["hard_limit"] = bool(cat["hard_limit"])
    return cat


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
    found = ctx.db.execute(
        "SELECT spent, expense_count FROM month_totals WHERE category_id = ? AND month = ?", (category_id, month)
    ).fetchone()
    return (found[0], found[1]) if found else (0.0, 0)


def _raise_alerts(ctx: Ctx, cat: dict[str, Any], month: str, before: float, after: float) -> list[dict[str, Any]]:
    """Record 'warning' (80%) and 'exceeded' (100%) alerts the first time a month's spend crosses them."""
    limit = cat["monthly_limit"]
    raised: list[dict[str, Any]] = []
    if not limit:
        return raised
    for share, level in ALERT_LEVELS[::-1]:
        if (
            before < share * limit <= after
            and not ctx.db.execute(
                "SELECT 1 FROM alerts WHERE category_id = ? AND month = ? AND level = ?",
                (cat["category_id"], month, level),
            ).fetchone()
        ):
            alert_id = next_id(ctx.db, "alerts", "alert_id", "ALR")
            ctx.db.execute(
                "INSERT INTO alerts VALUES (?,?,?,?,?,?,?)",
                (alert_id, cat["category_id"], month, level, after, limit, ctx.now.isoformat(timespec="seconds")),
            )
            raised.append(
                {"alert_id": alert_id, "level": level, "month": month, "spent": after, "monthly_limit": limit}
            )
    return raised


def _post(
    ctx: Ctx,
    cat: dict[str, Any],
    amount: float,
    day: date,
    merchant: str,
    note: str,
    method: str,
    recurring_id: str | None,
) -> dict[str, Any]:
    month = day.strftime("%Y-%m")
    spent, count = _spent(ctx, cat["category_id"], month)
    after = round(spent + amount, 2)
    limit = cat["monthly_limit"]
    if cat["hard_limit"] and limit is not None and after > limit + 1e-9:
        raise ToolError(
            f"{cat['name']} ({cat['category_id']}) has a hard limit of {limit:.2f} USD a month; {month} "
            f"spend is {spent:.2f}, "
            f"so {amount:.2f} more would reach {after:.2f}. Raise the limit with set_monthly_limit, or "
            "record it in another category."
        )
    expense_id = next_id(ctx.db, "expenses", "expense_id", "EXP", 5)
    ctx.db.execute(
        "INSERT INTO expenses VALUES (?,?,?,?,?,?,?,?,?)",
        (
            expense_id,
            cat["category_id"],
            amount,
            day.isoformat(),
            merchant,
            note,
            method,
            recurring_id,
            ctx.now.isoformat(timespec="seconds"),
        ),
    )
    ctx.db.execute(
        "INSERT INTO month_totals VALUES (?,?,?,?) ON CONFLICT (category_id, month) DO UPDATE SET spent = "
        "excluded.spent, "
        "expense_count = excluded.expense_count",
        (cat["category_id"], month, after, count + 1),
    )
    alerts = _raise_alerts(ctx, cat, month, spent, after)
    out = {
        "expense_id": expense_id,
        "category_id": cat["category_id"],
        "amount": amount,
        "date": day.isoformat(),
        "month": month,
        "month_spent": after,
        "monthly_limit": limit,
        "remaining": round(limit - after, 2) if limit is not None else None,
        "alerts": alerts,
    }
    if limit is not None and after > limit:
        out["warning"] = f"{cat['name']} is over its {month} limit: {after:.2f} of {limit:.2f} USD spent."
    elif alerts:
        out["warning"] = (
            f"{cat['name']} has used {100 * after / limit:.0f}% of its {month} limit ({after:.2f} of {limit:.2f} USD)."
        )
    return out


def _status(spent: float, limit: float | None) -> str:
    if not limit:
        return "no_limit"
    return "over" if spent > limit else "warning" if spent >= 0.8 * limit else "ok"


@budget.read(returns=("category",))
def list_categories(
    ctx: Ctx,
    group: Annotated[str | None, Field(max_length=40, description="Only this group, e.g. 'Food'")] = None,
    query: Annotated[str, Field(max_length=40, description="Part of the category name, e.g. 'din'")] = "",
    month: Annotated[
        OptionalMonth, Field(description="Month whose spend to show, YYYY-MM; default the current month")
    ] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List budget categories with their monthly limit and the month's spend and remaining amount,
    e.g. list_categories(group='Food') shows 'CAT-004' Groceries."""
    m = _month(month, ctx)
    q = Query(
        'SELECT c.category_id, c.name, c.grp AS "group", c.monthly_limit, c.hard_limit, '
        "COALESCE(t.spent, 0) AS spent, COALESCE(t.expense_count, 0) AS expense_count FROM categories c "
        "LEFT JOIN month_totals t ON t.category_id = c.category_id AND t.month = ?",
        args=[m],
    )
    q.contains(query, "c.name").equal("c.grp", group)
    found = q.rows(ctx.db, order_by="c.category_id", limit=limit, offset=offset)
    for c in found:
        c["hard_limit"] = bool(c["hard_limit"])
        c["remaining"] = round(c["monthly_limit"] - c["spent"], 2) if c["monthly_limit"] is not None else None
        c["status"] = _status(c["spent"], c["monthly_limit"])
    return {"month": m, **listing("categories", found)}


@budget.read(returns=("expense", "category"))
def list_expenses(
    ctx: Ctx,
    category_id: Annotated[str | None, CATEGORY.ref("Only this category, e.g. 'CAT-004'")] = None,
    month: Annotated[OptionalMonth, Field(description="Only this month, YYYY-MM, e.g. '2026-05'")] = None,
    merchant: Annotated[
        str | None, Field(max_length=100, description="Part of the merchant's name, e.g. 'Costco'")
    ] = None,
    min_amount: Annotated[
        float | None, Field(ge=0, le=1_000_000, description="Only expenses of at least this amount")
    ] = None,
    max_amount: Annotated[
        float | None, Field(ge=0, le=1_000_000, description="Only expenses of at most this amount")
    ] = None,
    recurring_id: Annotated[
        str | None, RECURRING_EXPENSE.ref("Only occurrences of this recurring expense, e.g. 'REC-001'")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List expenses, newest first, filtered by category, month, merchant, amount or recurring expense,
    e.g. list_expenses(category_id='CAT-004', month='2026-05')."""
    q = Query("SELECT * FROM expenses").filter("date LIKE ?", None if month is None else _month(month, ctx) + "-%")
    q.equal("category_id", category_id).equal("recurring_id", recurring_id).contains(merchant, "merchant")
    q.filter("amount >= ?", min_amount).filter("amount <= ?", max_amount)
    return q.page(ctx.db, "expenses", order_by="date DESC, expense_id DESC", limit=limit, offset=offset)


@budget.read(returns=("expense", "category", "recurring_expense"))
def get_expense(ctx: Ctx, expense_id: ExpenseId) -> dict[str, Any]:
    """Get one expense with its category name, e.g. get_expense('EXP-00042')."""
    exp = EXPENSE.get(ctx, expense_id)
    exp["category_name"] = _category(ctx, exp["category_id"])["name"]
    return exp


@budget.read(returns=("category", "alert"))
def get_monthly_summary(
    ctx: Ctx,
    month: Annotated[OptionalMonth, Field(description="YYYY-MM; default the current month")] = None,
    group: Annotated[str | None, Field(max_length=40, description="Only categories of this group, e.g. 'Food'")] = None,
) -> dict[str, Any]:
    """A month's spend per category against its limit (ok / warning / over / no_limit), the totals and the
    alerts raised that month, e.g. get_monthly_summary('2026-05')."""
    m = _month(month, ctx)
    q = Query(
        'SELECT c.category_id, c.name, c.grp AS "group", c.monthly_limit, COALESCE(t.spent, 0) AS spent, '
        "COALESCE(t.expense_count, 0) AS expense_count FROM categories c LEFT JOIN month_totals t "
        "ON t.category_id = c.category_id AND t.month = ?",
        args=[m],
    )
    cats = q.equal("c.grp", group).rows(ctx.db, order_by="c.category_id")
    for c in cats:
        c["remaining"] = round(c["monthly_limit"] - c["spent"], 2) if c["monthly_limit"] is not None else None
        c["status"] = _status(c["spent"], c["monthly_limit"])
    alerts = rows(
        ctx.db.execute(
            "SELECT a.alert_id, a.category_id, c.name, a.level, a.spent, a.monthly_limit, "
            "a.created_at FROM alerts a "
            "JOIN categories c USING (category_id) WHERE a.month = ? ORDER BY a.alert_id",
            (m,),
        )
    )
    if group is not None:
        ids = {c["category_id"] for c in cats}
        alerts = [a for a in alerts if a["category_id"] in ids]
    limited = [c for c in cats if c["monthly_limit"] is not None]
    return {
        "month": m,
        "total_spent": round(sum(c["spent"] for c in cats), 2),
        "total_limit": round(sum(c["monthly_limit"] for c in limited), 2),
        "over_limit": [c["category_id"] for c in cats if c["status"] == "over"],
        "categories": cats,
        "alerts": alerts,
    }


@budget.read(returns=("recurring_expense", "category"))
def list_recurring_expenses(
    ctx: Ctx,
    category_id: Annotated[str | None, CATEGORY.ref("Only this category, e.g. 'CAT-001'")] = None,
    active: Annotated[bool | None, Field(description="true: only active ones; false: only stopped ones")] = None,
) -> dict[str, Any]:
    """List recurring expenses (rent, subscriptions, ...) with their next date, e.g.
    list_recurring_expenses(active=True) shows 'REC-001'."""
    q = Query("SELECT * FROM recurring_expenses").equal("category_id", category_id)
    found = q.equal("active", None if active is None else int(active)).rows(ctx.db, order_by="recurring_id", limit=100)
    for r in found:
        r["active"] = bool(r["active"])
    return listing("recurring_expenses", found)


budget.distinct_values(
    {
        "group": ("categories", "grp"),
        "merchant": ("expenses", "merchant"),
        "payment_method": ("expenses", "payment_method"),
        "frequency": ("recurring_expenses", "frequency"),
        "alert_level": ("alerts", "level"),
        "month": ("month_totals", "month"),
    },
    example="group",
)


def _check_amount(amount: float) -> float:
    value = round(amount, 2)
    if value <= 0:
        raise ToolError(
            f"Amount {amount} is not positive; expenses are recorded as positive amounts in USD. "
            "To undo an expense, delete it with delete_expense."
        )
    return value


@budget.write(returns=("expense", "alert"))
def add_expense(
    ctx: Ctx,
    category_id: CategoryId,
    amount: Money,
    merchant: Merchant,
    date: Annotated[OptionalDay, Field(description="When it was spent, YYYY-MM-DD; default today")] = None,
    note: Annotated[str, Field(max_length=200, description="A free-text note")] = "",
    payment_method: Literal["card", "cash", "bank_transfer"] = "card",
) -> dict[str, Any]:
    """Record an expense in a category, e.g. add_expense('CAT-004', 82.40, 'Whole Grocer', date='2026-05-30').
    Returns the month's new spend for the category and any limit alert it raised; a hard-limited category
    refuses an expense that would go over its limit."""
    cat = _category(ctx, category_id)
    value = _check_amount(amount)
    today = ctx.now.date()
    day = today if date is None else _day(date, "date")
    if day > today:
        raise ToolError(
            f"{day.isoformat()} is in the future (today is {today.isoformat()}); record it on the day "
            "it is spent "
            "or schedule it with add_recurring_expense."
        )
    if (today - day).days > MAX_BACKDATE_DAYS:
        raise ToolError(
            f"{day.isoformat()} is more than a year ago; the budget only takes expenses from the last "
            f"{MAX_BACKDATE_DAYS} days."
        )
    if not merchant.strip():
        raise ToolError("merchant is blank; say who was paid, e.g. 'Whole Grocer'.")
    return _post(ctx, cat, value, day, merchant.strip(), note, payment_method, None)


@budget.write(returns=("expense",), requires=("add_expense",))
def delete_expense(ctx: Ctx, expense_id: ExpenseId) -> dict[str, Any]:
    """Delete an expense and take it off its month's total, e.g. delete_expense('EXP-00042'). Alerts already raised stay
    on record."""
    exp = EXPENSE.get(ctx, expense_id)
    month = exp["date"][:7]
    spent, count = _spent(ctx, exp["category_id"], month)
    ctx.db.execute("DELETE FROM expenses WHERE expense_id = ?", (expense_id,))
    if count <= 1:
        ctx.db.execute("DELETE FROM month_totals WHERE category_id = ? AND month = ?", (exp["category_id"], month))
        spent = 0.0
    else:
        spent = round(max(0.0, spent - exp["amount"]), 2)
        ctx.db.execute(
            "UPDATE month_totals SET spent = ?, expense_count = ? WHERE category_id = ? AND month = ?",
            (spent, count - 1, exp["category_id"], month),
        )
    return {"deleted": expense_id, "category_id": exp["category_id"], "month": month, "month_spent": spent}


@budget.write(returns=("category",))
def create_category(
    ctx: Ctx,
    name: Annotated[str, Field(min_length=1, max_length=40, description="Category name, e.g. 'Childcare'")],
    group: Annotated[
        str, Field(min_length=1, max_length=40, description="Group it belongs to, e.g. 'Family'")
    ] = "Other",
    monthly_limit: Annotated[
        float | None, Field(ge=0, le=1_000_000, description="Monthly limit in USD; omit for none")
    ] = None,
    hard_limit: Annotated[bool, Field(description="true: refuse expenses that would exceed the limit")] = False,
) -> dict[str, Any]:
    """Create a budget category, e.g. create_category('Childcare', 'Family', monthly_limit=800.0). Names are unique,
    ignoring case."""
    name, group = name.strip(), group.strip()
    if not name or not group:
        raise ToolError("name and group must not be blank, e.g. create_category('Childcare', 'Family').")
    clash = ctx.db.execute("SELECT category_id FROM categories WHERE name = ?", (name,)).fetchone()
    if clash:
        raise ToolError(f"A category named {name!r} already exists as {clash[0]}; use it or pick another name.")
    if hard_limit and monthly_limit is None:
        raise ToolError("hard_limit needs a monthly_limit; pass monthly_limit or set hard_limit=false.")
    cid = next_id(ctx.db, "categories", "category_id", "CAT", 3)
    ctx.db.execute(
        "INSERT INTO categories VALUES (?,?,?,?,?,?)",
        (
            cid,
            name,
            group,
            None if monthly_limit is None else round(monthly_limit, 2),
            int(hard_limit),
            ctx.now.isoformat(timespec="seconds"),
        ),
    )
    return _category(ctx, cid)


@budget.write(returns=("category", "alert"))
def set_monthly_limit(
    ctx: Ctx,
    category_id: CategoryId,
    monthly_limit: Annotated[
        float | None, Field(ge=0, le=1_000_000, description="New monthly limit in USD; null removes the limit")
    ],
    hard_limit: Annotated[bool, Field(description="true: refuse expenses that would exceed the limit")] = False,
) -> dict[str, Any]:
    """Set, change or remove a category's monthly limit, e.g. set_monthly_limit('CAT-005', 350.0). The current month is
    checked against the new limit at once (alerts may be raised); a hard limit below what is already spent this month is
    refused."""
    cat = _category(ctx, category_id)
    month = ctx.now.strftime("%Y-%m")
    spent, _ = _spent(ctx, category_id, month)
    limit = None if monthly_limit is None else round(monthly_limit, 2)
    if hard_limit and limit is None:
        raise ToolError("hard_limit needs a monthly_limit; pass a number or set hard_limit=false.")
    if hard_limit and spent > limit:  # type: ignore[operator]
        raise ToolError(
            f"{cat['name']} has already spent {spent:.2f} USD in {month}; a hard limit of {limit:.2f} "
            "would be broken at once. "
            f"Set a limit of at least {spent:.2f} or use hard_limit=false."
        )
    ctx.db.execute(
        "UPDATE categories SET monthly_limit = ?, hard_limit = ? WHERE category_id = ?",
        (limit, int(hard_limit), category_id),
    )
    cat.update(monthly_limit=limit, hard_limit=hard_limit)
    alerts = _raise_alerts(ctx, cat, month, 0.0, spent) if limit else []
    return {
        **cat,
        "month": month,
        "spent": spent,
        "remaining": round(limit - spent, 2) if limit is not None else None,
        "status": _status(spent, limit),
        "alerts": alerts,
    }


@budget.write(returns=("category",))
def delete_category(
    ctx: Ctx,
    category_id: CategoryId,
    move_to_category_id: Annotated[
        str | None, CATEGORY.ref("Category to move its expenses and recurring expenses to, e.g. 'CAT-021'")
    ] = None,
) -> dict[str, Any]:
    """Delete a category, e.g. delete_category('CAT-025', move_to_category_id='CAT-021'). A category that still has
    expenses or active recurring expenses can only be deleted when they are moved to another category."""
    cat = _category(ctx, category_id)
    n_exp = ctx.db.execute("SELECT COUNT(*) FROM expenses WHERE category_id = ?", (category_id,)).fetchone()[0]
    n_rec = ctx.db.execute(
        "SELECT COUNT(*) FROM recurring_expenses WHERE category_id = ? AND active = 1", (category_id,)
    ).fetchone()[0]
    moved_to = None
    if move_to_category_id is not None:
        if move_to_category_id == category_id:
            raise ToolError("move_to_category_id is the category being deleted; choose a different category.")
        moved_to = _category(ctx, move_to_category_id)["category_id"]
    if (n_exp or n_rec) and moved_to is None:
        raise ToolError(
            f"{cat['name']} ({category_id}) still has {n_exp} expenses and {n_rec} active recurring "
            "expenses; pass "
            "move_to_category_id to move them to another category, or delete the expenses first."
        )
    if moved_to is not None:
        for month, spent, count in ctx.db.execute(
            "SELECT month, spent, expense_count FROM month_totals WHERE category_id = ?", (category_id,)
        ).fetchall():
            ctx.db.execute(
                "INSERT INTO month_totals VALUES (?,?,?,?) ON CONFLICT (category_id, month) DO UPDATE SET "
                "spent = ROUND(spent + excluded.spent, 2), expense_count = expense_count + "
                "excluded.expense_count",
                (moved_to, month, spent, count),
            )
        ctx.db.execute("UPDATE expenses SET category_id = ? WHERE category_id = ?", (moved_to, category_id))
        ctx.db.execute("UPDATE recurring_expenses SET category_id = ? WHERE category_id = ?", (moved_to, category_id))
    else:
        ctx.db.execute("DELETE FROM recurring_expenses WHERE category_id = ?", (category_id,))
    ctx.db.execute("DELETE FROM month_totals WHERE category_id = ?", (category_id,))
    ctx.db.execute("DELETE FROM alerts WHERE category_id = ?", (category_id,))
    ctx.db.execute("DELETE FROM categories WHERE category_id = ?", (category_id,))
    return {
        "deleted": category_id,
        "name": cat["name"],
        "moved_to": moved_to,
        "moved_expenses": n_exp if moved_to else 0,
    }


@budget.write(returns=("recurring_expense", "expense"))
def add_recurring_expense(
    ctx: Ctx,
    category_id: CategoryId,
    amount: Money,
    merchant: Merchant,
    frequency: Literal["weekly", "monthly"],
    start_date: Day,
) -> dict[str, Any]:
    """Schedule a recurring expense, e.g. add_recurring_expense('CAT-014', 13.99, 'Disney+', 'monthly', '2026-05-18').
    Occurrences from start_date up to today are posted at once (as expenses, with their alerts); later ones wait for
    next_date. start_date may be up to 90 days back or a year ahead; monthly ones must start on day 1 to 28."""
    _category(ctx, category_id)
    value = _check_amount(amount)
    start = _day(start_date, "start_date")
    today = ctx.now.date()
    if (today - start).days > 90:
        raise ToolError(
            f"start_date {start.isoformat()} is more than 90 days back; start it later and record older "
            "payments with add_expense."
        )
    if (start - today).days > 365:
        raise ToolError(
            f"start_date {start.isoformat()} is more than a year ahead; pick a date within the next 365 days."
        )
    if frequency == "monthly" and start.day > 28:
        raise ToolError(
            "Monthly recurring expenses run on day 1 to 28 so every month has the day; start on day 28 or "
            f"earlier, not {start.day}."
        )
    if not merchant.strip():
        raise ToolError("merchant is blank; say who is paid, e.g. 'Netflix'.")
    rid = next_id(ctx.db, "recurring_expenses", "recurring_id", "REC", 3)
    dates, following = occurrences(start, frequency, today)
    ctx.db.execute(
        "INSERT INTO recurring_expenses VALUES (?,?,?,?,?,?,?,?,?)",
        (
            rid,
            category_id,
            value,
            merchant.strip(),
            frequency,
            start.isoformat(),
            following.isoformat(),
            1,
            ctx.now.isoformat(timespec="seconds"),
        ),
    )
    posted = []
    for d in dates:
        posted.append(
            _post(
                ctx,
                _category(ctx, category_id),
                value,
                d,
                merchant.strip(),
                f"{frequency} {merchant.strip()}",
                "card",
                rid,
            )
        )
    return {
        "recurring_id": rid,
        "category_id": category_id,
        "amount": value,
        "frequency": frequency,
        "start_date": start.isoformat(),
        "next_date": following.isoformat(),
        "posted": [p["expense_id"] for p in posted],
        "alerts": [a for p in posted for a in p["alerts"]],
    }
