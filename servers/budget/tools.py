"""Budget tools: the server, its entities and helpers, and the reads (categories and their month's spend,
expenses, summaries, recurring expenses); the writes live in ``tools_write``."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from pydantic import Field

from hub.kit import (
    ISO_DATE,
    ISO_MONTH,
    Ctx,
    EntityId,
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
)
from servers.budget.schema import ALERT_LEVELS, SCHEMA
from servers.budget.seed import seed

MAX_BACKDATE_DAYS = 366

budget = Server(
    "budget",
    "Household budget: expenses, categories, monthly limits, running totals, alerts and recurring expenses.",
    SCHEMA,
    seed,
    family="money",
)


class CategoryId(EntityId, server=budget, table="categories", example="CAT-004", finder="list_categories"): ...


class ExpenseId(EntityId, server=budget, example="EXP-00042", finder="list_expenses"): ...


class RecurringExpenseId(
    EntityId, server=budget, key="recurring_id", example="REC-001", finder="list_recurring_expenses"
): ...


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
    category_id: Annotated[str | None, CategoryId.ref("Only this category, e.g. 'CAT-004'")] = None,
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
        str | None, RecurringExpenseId.ref("Only occurrences of this recurring expense, e.g. 'REC-001'")
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
    exp = ExpenseId.get(ctx, expense_id)
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
    alerts = ctx.rows(
        "SELECT a.alert_id, a.category_id, c.name, a.level, a.spent, a.monthly_limit, "
        "a.created_at FROM alerts a "
        "JOIN categories c USING (category_id) WHERE a.month = ? ORDER BY a.alert_id",
        (m,),
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
    category_id: Annotated[str | None, CategoryId.ref("Only this category, e.g. 'CAT-001'")] = None,
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
