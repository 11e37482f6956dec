"""Budget intents about expenses: logging, removing, refiling and correcting them, the biggest purchase."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, day, money
from servers.budget.intents import (
    SPENT,
    WORDS,
    cat_words,
    category,
    dialogue_expense,
    expense_ref,
    find_category,
    following,
    in_month,
    last_month,
    list_spending,
    locate_expense,
    merchant_of,
    month_before,
    month_words,
    remember,
    remember_expense,
    room_in,
    seen,
    subject,
    upper,
)
from servers.budget.tools import budget


@budget.intent(covers=("list_categories", "add_expense"), weight=2.0, follows=True)
def log_spending(s: Scene) -> None:
    """Someone records what they just spent (or spent a few days ago) in a category."""
    back = s.rng.choice((0, 0, 1, 2)) if following(s) else s.rng.choice((0, 1, 1, 2, 3, 4))
    when = s.now.date() - timedelta(days=back)
    month = when.strftime("%Y-%m")
    cat = subject(s, f"c.hard_limit = 0 OR c.monthly_limit - {SPENT} > 40", month)
    merchant = merchant_of(s, cat)
    amount = round(s.rng.uniform(4, max(5.0, min(room_in(s, cat, month) - 1, 220))), 2)
    price = s.given(amount, money(amount), "amount", "add_expense", "amount")
    shop = s.given(merchant, merchant, "merchant", "add_expense", "merchant")
    when_words = "" if back == 0 else f" {day(when, s.now)}"
    method = s.rng.choice((None, None, "cash", "bank_transfer")) if s.level == "complete" else None
    note = s.rng.choice(WORDS.notes) if s.level == "complete" and s.rng.random() < 0.25 else None
    extra = {None: "", "cash": " Paid cash.", "bank_transfer": " It went by bank transfer."}[method]
    extra += f" Note: '{note}'." if note else ""
    if following(s):
        s.say(
            "Also, I paid {shop} {price} {day} for {cat}. {Put that in too|Add that as well}.{extra}",
            "{One more|Another one} for {cat}: {price} at {shop} {day}.{extra}"
            if any(c.tool == "add_expense" for c in s.calls)
            else "By the way, {shop} took {price} {day}; log it under {cat}.{extra}",
            "While you're at it, {shop} took {price} {day}. That's {cat} too.{extra}"
            if any(c.tool == "add_expense" for c in s.calls)
            else "While you're at it, log {price} at {shop} {day} under {cat}.{extra}",
            day=day(when, s.now),
            price=price,
            shop=shop,
            cat=cat_words(cat["name"]),
            extra=extra,
        )
    else:
        s.say(WORDS.log_spending, price=price, shop=shop, cat=cat_words(cat["name"]), when=when_words, extra=extra)
    cid = find_category(s, cat)
    args: dict[str, Any] = {"category_id": cid, "amount": amount, "merchant": merchant}
    if back:
        args["date"] = when.isoformat()
    if method:
        args["payment_method"] = method
    if note:
        args["note"] = note
    out = s.call("add_expense", **args)
    remember(s, cat)
    remember_expense(s, out | {"merchant": merchant, "payment_method": method or "card", "note": note or ""}, True)
    s.memory["month"] = month


@budget.intent(covers=("list_expenses", "delete_expense", "list_categories"), weight=1.5, follows=True)
def remove_expense(s: Scene) -> None:
    """Someone spots an expense logged by mistake (or twice) and has it removed."""
    since = (s.now.date() - timedelta(days=45)).isoformat()
    if following(s):
        e = _dialogue_target(s, since)
        what = "that one" if focused(s, e) else expense_ref(s, e)
        s.say(WORDS.remove_expense, what=what, What=upper(what))
    else:
        e = s.pick(
            "SELECT e.*, c.name AS category FROM expenses e JOIN categories c USING (category_id) "
            "WHERE e.date >= ? AND e.recurring_id IS NULL",
            since,
        )
        what = expense_ref(s, e)
        s.say(WORDS.remove_expense_first_turn, what=what, What=upper(what))
    locate_expense(s, e, what)
    s.call("delete_expense", expense_id=e["expense_id"])
    s.memory["month"] = e["date"][:7]
    remember(s, category(s, e["category_id"]))
    s.memory.pop("expense", None)


def focused(s: Scene, e: dict[str, Any]) -> bool:
    """Whether ``e`` is the one expense the dialogue is about (the user can say "that one")."""
    return bool((s.memory.get("expense") or {}).get("expense_id") == e["expense_id"] and seen(s, e["expense_id"]))


def _dialogue_target(s: Scene, since: str) -> dict[str, Any]:
    """The expense a continuation acts on: the one the dialogue is about, else one a listing showed."""
    if s.memory.get("expense"):
        e = dialogue_expense(s)
        if e["recurring_id"]:
            raise Skip("a bill's occurrence is not a mistake")
        return e
    listed = [x for x in s.memory.get("listed", ()) if not x.get("recurring_id") and x["date"] >= since]
    if not listed:
        raise Skip("nothing listed to act on")
    pick = s.rng.choice(listed)
    found = s.rows(
        "SELECT e.*, c.name AS category FROM expenses e JOIN categories c USING (category_id) WHERE expense_id = ?",
        pick["expense_id"],
    )
    if not found:
        raise Skip("the listed expense is gone")
    return found[0]


@budget.intent(covers=("list_expenses", "delete_expense", "list_categories", "add_expense"), follows=True)
def refile_expense(s: Scene) -> None:
    """Someone notices an expense went under the wrong category and has it moved to the right one."""
    since = (s.now.date() - timedelta(days=45)).isoformat()
    e = (
        _dialogue_target(s, since)
        if following(s)
        else s.pick(
            "SELECT e.*, c.name AS category FROM expenses e JOIN categories c USING (category_id) "
            "WHERE e.date >= ? AND e.recurring_id IS NULL",
            since,
        )
    )
    old = category(s, e["category_id"])
    new = s.pick(
        f"SELECT c.* FROM categories c WHERE c.grp = ? AND c.category_id != ? AND "
        f"(c.hard_limit = 0 OR c.monthly_limit - {SPENT} > ?)",
        old["grp"],
        old["category_id"],
        e["date"][:7],
        e["amount"],
    )
    what = "that one" if following(s) and focused(s, e) else expense_ref(s, e)
    s.say(WORDS.refile_expense, what=what, What=upper(what), new=cat_words(new["name"]), old=cat_words(old["name"]))
    locate_expense(s, e, what)
    s.call("delete_expense", expense_id=e["expense_id"])
    cid = find_category(s, new)
    args: dict[str, Any] = {"category_id": cid, "amount": e["amount"], "merchant": e["merchant"], "date": e["date"]}
    if e["payment_method"] != "card":
        args["payment_method"] = e["payment_method"]
    if e["note"]:
        args["note"] = e["note"]
    out = s.call("add_expense", **args)
    remember(s, new)
    remember_expense(
        s, out | {"merchant": e["merchant"], "payment_method": e["payment_method"], "note": e["note"]}, True
    )
    s.memory["month"] = e["date"][:7]


@budget.intent(covers=("list_expenses", "get_expense", "list_categories"), follows=True)
def biggest_purchase(s: Scene) -> None:
    """Someone looks at what they spent at one store (or in one category) in a month, and at the largest."""
    if following(s):
        cat = subject(s)
        month = s.memory.get("month") or last_month(s)
        cid = find_category(s, cat)
        s.say(WORDS.biggest_purchase, c=cat_words(cat["name"]), m=in_month(month, s))
        found = list_spending(s, category_id=cid, month=month)
    elif s.rng.random() < 0.6:
        row = s.pick(
            "SELECT merchant, substr(date, 1, 7) AS month FROM expenses GROUP BY merchant, month "
            "HAVING COUNT(*) BETWEEN 2 AND 20 AND COUNT(DISTINCT amount) = COUNT(*)"
        )
        s.say(
            WORDS.biggest_purchase_at_shop,
            shop=row["merchant"],
            m=in_month(row["month"], s),
            mm=month_words(row["month"], s),
        )
        found = list_spending(s, merchant=row["merchant"], month=row["month"])
        month = row["month"]
    else:
        month = s.rng.choice((last_month(s), month_before(last_month(s))))
        floor = s.rng.choice((100, 150, 200))
        s.say(WORDS.biggest_purchase_over_amount, amt=money(floor), m=in_month(month, s), mm=month_words(month, s))
        found = list_spending(s, month=month, min_amount=float(floor))
    if not found:
        raise Skip("nothing listed")
    top = max(found, key=lambda x: x["amount"])
    if sum(x["amount"] == top["amount"] for x in found) > 1:
        raise Skip("two biggest")
    if not following(s):
        s.say(WORDS.biggest_purchase_details)
    out = s.call("get_expense", expense_id=top["expense_id"])
    remember_expense(s, out, False)
    remember(s, category(s, out["category_id"]))
    s.memory["month"] = month


@budget.intent(covers=("list_expenses", "delete_expense", "add_expense", "list_categories"))
def correct_amount(s: Scene) -> None:
    """Someone finds an expense logged with the wrong amount and has it corrected (there is no edit: the agent
    removes it and records it again with the right amount, keeping its day, store and category)."""
    since = (s.now.date() - timedelta(days=30)).isoformat()
    e = s.pick(
        "SELECT e.*, c.name AS category FROM expenses e JOIN categories c USING (category_id) "
        "WHERE e.date >= ? AND e.recurring_id IS NULL AND c.hard_limit = 0",
        since,
    )
    new = round(e["amount"] * s.rng.choice((0.5, 0.9, 1.1, 1.5, 2.0)), 2)
    if new == e["amount"]:
        raise Skip("no change")
    what = expense_ref(s, e)
    right = s.given(new, money(new), "right amount", "add_expense", "amount")
    s.say(WORDS.correct_amount, what=what, What=upper(what), right=right)
    locate_expense(s, e, what)
    s.call("delete_expense", expense_id=e["expense_id"])
    args: dict[str, Any] = {
        "category_id": e["category_id"],
        "amount": new,
        "merchant": e["merchant"],
        "date": e["date"],
    }
    if e["payment_method"] != "card":
        args["payment_method"] = e["payment_method"]
    if e["note"]:
        args["note"] = e["note"]
    out = s.call("add_expense", **args)
    remember(s, category(s, e["category_id"]))
    remember_expense(
        s, out | {"merchant": e["merchant"], "payment_method": e["payment_method"], "note": e["note"]}, True
    )
    s.memory["month"] = e["date"][:7]
