"""What people want of their household budget: logging spending, reviewing months, tuning limits, subscriptions.

There is one household, so the user never introduces themself. They name categories by name
("groceries", "dining out"), months as people say them ("April", "last month"), expenses by where,
when and how much. The agent finds category ids with ``list_categories`` (or reads them off a month's
summary), expenses with ``list_expenses`` and subscriptions with ``list_recurring_expenses``.

Most intents open a dialogue and continue one: a continuation stays on what the dialogue is about,
kept in ``s.memory``: ``category`` (the category talked about), ``month``, ``expense`` (the expense just
logged, looked at or removed), ``listed`` (the expenses a listing showed) and ``recurring`` (a bill).
Short follow-ups (``intents_followups``) ask what a person asks next.
"""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day, money
from hub.kit.phrasings import phrasings
from servers.budget import tools_write  # noqa: F401  (the writes: registered before intents cover them)
from servers.budget.tools import CategoryId

WORDS = phrasings(__package__)

SPENT = "COALESCE((SELECT spent FROM month_totals t WHERE t.category_id = c.category_id AND t.month = ?), 0)"
NEW_CATEGORIES = (
    ("Childcare", "Family", "Little Sprouts Daycare", "daycare"),
    ("Kids' Activities", "Family", "Little Gym", "the kids' gym class"),
    ("Home Office", "Work", "Staples", "printer ink"),
    ("Charity", "Giving", "Red Cross", "a donation"),
    ("Garden", "Home", "Green Thumb Nursery", "plants for the balcony"),
    ("Hobbies", "Personal", "Michaels", "craft supplies"),
)
SUBSCRIPTIONS = (
    ("Disney+", 13.99, "Streaming"),
    ("YouTube Premium", 13.99, "Streaming"),
    ("Audible", 14.95, "Books & Games"),
    ("ClassPass", 49.0, "Fitness"),
    ("iCloud Storage", 2.99, "Internet & Phone"),
    ("Dog Walker Joe", 60.0, "Pet Care"),
    ("Meal Kit Co", 69.99, "Groceries"),
    ("Duolingo", 12.99, "Courses"),
    ("Peloton App", 12.99, "Fitness"),
    ("Kindle Unlimited", 11.99, "Books & Games"),
    ("Pet Insurance Plus", 32.5, "Pet Care"),
    ("Google Fi", 20.0, "Internet & Phone"),
)


# Words --------------------------------------------------------------------------------------------


def month_words(month: str, s: Scene) -> str:
    """'2026-05' -> 'last month' / 'this month' / 'April' / 'December 2025'."""
    d = date.fromisoformat(month + "-01")
    this = s.now.date().replace(day=1)
    if d == this:
        return "this month"
    if d == (this - timedelta(days=1)).replace(day=1):
        return "last month"
    return d.strftime("%B") if d.year == this.year else d.strftime("%B %Y")


def in_month(month: str, s: Scene) -> str:
    m = month_words(month, s)
    return m if m.endswith(" month") else f"in {m}"


def cat_words(name: str) -> str:
    return name.lower()


def upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def this_month(s: Scene) -> str:
    return s.now.strftime("%Y-%m")


def last_month(s: Scene) -> str:
    return (s.now.date().replace(day=1) - timedelta(days=1)).strftime("%Y-%m")


def month_before(month: str) -> str:
    return (date.fromisoformat(month + "-01") - timedelta(days=1)).strftime("%Y-%m")


# The dialogue's state -----------------------------------------------------------------------------


def following(s: Scene) -> bool:
    """Whether this intent continues a dialogue (an earlier intent already ran)."""
    return len(s.intents) > 1


def seen(s: Scene, value: str) -> bool:
    """Whether a result earlier in the dialogue carried ``value`` (the agent already holds that id)."""
    quoted = json.dumps(value)
    return any(quoted in json.dumps(c.result) for c in s.calls)


def fresh(s: Scene, tool: str, **args: Any) -> None:
    """``Skip`` a read the dialogue already made with nothing written since (the agent has the answer)."""
    for c in reversed(list(s.calls)):
        if c.kind == "write":
            return
        if c.tool == tool and c.arguments == args:
            raise Skip(f"{tool} already read")


def seen_limit(s: Scene, limit: float) -> bool:
    """Whether a result earlier in the dialogue showed this monthly limit (the agent can add to it)."""
    shown = f'"monthly_limit": {json.dumps(limit)}'
    return any(shown in json.dumps(c.result) for c in s.calls)


def category(s: Scene, category_id: str) -> dict[str, Any]:
    return s.rows("SELECT * FROM categories WHERE category_id = ?", category_id)[0]


def remember(s: Scene, cat: dict[str, Any], **extra: Any) -> None:
    """Make ``cat`` what the dialogue is about (a fresh dict: memory is restored shallowly on rollback)."""
    s.memory["category"] = {"category_id": cat["category_id"], "name": cat["name"], "grp": cat["grp"], **extra}


def subject(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The category the dialogue is about (a continuation) or one drawn among those that fit (an opening)."""
    if following(s):
        cat = s.known("category", "no category in the dialogue yet")
        found = s.rows(
            f"SELECT c.* FROM categories c WHERE c.category_id = ? AND ({where})", cat["category_id"], *params
        )
        if not found:
            raise Skip("the dialogue's category does not fit")
        return found[0]
    return s.pick(f"SELECT c.* FROM categories c WHERE {where}", *params)


def find_category(s: Scene, cat: dict[str, Any]) -> str:
    """The category id: known from an earlier result, else read off a listing (all, or by part of its name)."""
    cid = str(cat["category_id"])
    if seen(s, cid):
        return cid
    r = s.rng.random()
    args: dict[str, Any] = {}
    if r < 0.08:
        args["query"] = cat["name"].split(" ")[0].rstrip("'s")
    elif r < 0.12:
        args["query"] = cat["name"]
    s.discover(CategoryId, cid, missing="the category is not listed", **args)
    return cid


def merchant_of(s: Scene, cat: dict[str, Any]) -> str:
    """A store the household pays for this category (a new category brings its own)."""
    known = s.memory.get("category") or {}
    if known.get("category_id") == cat["category_id"] and known.get("merchant"):
        return str(known["merchant"])
    merchants = [
        r["merchant"]
        for r in s.rows(
            "SELECT DISTINCT merchant FROM expenses WHERE category_id = ? AND recurring_id IS NULL", cat["category_id"]
        )
    ]
    if not merchants:
        raise Skip("no merchant known for the category")
    return str(s.rng.choice(merchants))


def room_in(s: Scene, cat: dict[str, Any], month: str) -> float:
    """What the category can still take this month (hard-limited ones refuse more)."""
    if not cat["hard_limit"] or cat["monthly_limit"] is None:
        return 400.0
    spent = s.value("SELECT spent FROM month_totals WHERE category_id = ? AND month = ?", cat["category_id"], month)
    return float(cat["monthly_limit"] - (spent or 0.0))


def expense_ref(s: Scene, e: dict[str, Any]) -> str:
    """An expense as people recall it: how much, where, and when if needed."""
    bare = Ref(
        "the {amt} {m} charge",
        "SELECT expense_id FROM expenses WHERE merchant = ? AND amount = ?",
        e["merchant"],
        e["amount"],
    )
    return s.refer(
        e["expense_id"],
        *((bare,) if s.rng.random() < 0.5 else ()),  # some people say the day as well
        Ref(
            "the {amt} {m} charge from {when}",
            "SELECT expense_id FROM expenses WHERE merchant = ? AND amount = ? AND date = ?",
            e["merchant"],
            e["amount"],
            e["date"],
        ),
        amt=money(e["amount"]),
        m=e["merchant"],
        when=day(e["date"], s.now).removeprefix("on "),
    )


def locate_expense(s: Scene, e: dict[str, Any], what: str) -> None:
    """Find an expense the user described (``what``), by what they said: store and amount, or, when they said
    the day, store and month, amount and month, or the category's month; no call when an earlier result of the
    dialogue already listed it."""
    if seen(s, e["expense_id"]):
        return
    r = s.rng.random() if " from " in what else 0.5
    if r < 0.4:
        args: dict[str, Any] = {"merchant": e["merchant"], "month": e["date"][:7]}
    elif r < 0.7:
        args = {"merchant": e["merchant"], "min_amount": e["amount"], "max_amount": e["amount"]}
    elif r < 0.85:
        args = {"month": e["date"][:7], "min_amount": e["amount"], "max_amount": e["amount"]}
    else:
        cid = find_category(s, category(s, e["category_id"]))
        args = {"category_id": cid, "month": e["date"][:7]}
    listed = s.call("list_expenses", **args)["expenses"]
    if e["expense_id"] not in [x["expense_id"] for x in listed]:
        raise Skip("the expense is past the first page")
    s.memory["listed"] = tuple(listed)


def remember_expense(s: Scene, e: dict[str, Any], added: bool) -> None:
    keys = ("expense_id", "category_id", "amount", "merchant", "date", "payment_method", "note", "recurring_id")
    s.memory["expense"] = {k: e.get(k) for k in keys} | {"added": added}


def dialogue_expense(s: Scene, *, added: bool | None = None) -> dict[str, Any]:
    """The expense the dialogue is about, read again now; ``Skip`` when there is none (or it is gone)."""
    e = s.memory.get("expense")
    if not e or (added is not None and e["added"] != added):
        raise Skip("no expense in the dialogue")
    found = s.rows(
        "SELECT e.*, c.name AS category FROM expenses e JOIN categories c USING (category_id) WHERE expense_id = ?",
        e["expense_id"],
    )
    if not found:
        raise Skip("the expense is gone")
    return found[0] | {"added": e["added"]}


# Openers that also continue a dialogue --------------------------------------------------------------


def list_spending(s: Scene, **args: Any) -> list[dict[str, Any]]:
    """Expenses listed with ``args``: what an identical listing since the last write showed, else a new call."""
    for c in reversed(list(s.calls)):
        if c.kind == "write":
            break
        if c.tool == "list_expenses" and c.arguments == args:
            s.memory["listed"] = tuple(c.result["expenses"])
            return list(c.result["expenses"])
    listed = list(s.call("list_expenses", **args)["expenses"])
    s.memory["listed"] = tuple(listed)
    return listed
