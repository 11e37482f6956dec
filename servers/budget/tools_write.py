"""Budget write tools: record and delete expenses, manage categories and their limits, schedule recurring
expenses."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, next_id
from servers.budget.schema import occurrences
from servers.budget.tools import (
    MAX_BACKDATE_DAYS,
    CategoryId,
    Day,
    ExpenseId,
    Merchant,
    Money,
    OptionalDay,
    _category,
    _day,
    _post,
    _raise_alerts,
    _spent,
    _status,
    budget,
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
    exp = ExpenseId.get(ctx, expense_id)
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
        str | None, CategoryId.ref("Category to move its expenses and recurring expenses to, e.g. 'CAT-021'")
    ] = None,
) -> dict[str, Any]:
    """Delete a category, e.g. delete_category('CAT-025', move_to_category_id='CAT-021'). A category that still has
    expenses or active recurring expenses can only be deleted when they are moved to another category."""
    cat = _category(ctx, category_id)
    n_exp = ctx.value("SELECT COUNT(*) FROM expenses WHERE category_id = ?", (category_id,))
    n_rec = ctx.value("SELECT COUNT(*) FROM recurring_expenses WHERE category_id = ? AND active = 1", (category_id,))
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
