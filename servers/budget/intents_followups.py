"""Budget follow-ups: the short next turn a person asks about the category, month or expense the dialogue is about
(what else went in there, what recurs there, the whole month, undo or correct what was just logged)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip, day, money
from hub.kit.phrasings import Said
from servers.budget.intents import (
    WORDS,
    cat_words,
    dialogue_expense,
    fresh,
    in_month,
    month_before,
    month_words,
    remember_expense,
    room_in,
    seen,
    this_month,
)
from servers.budget.tools import budget


def current_category(s: Scene) -> dict[str, Any]:
    cat = s.memory.get("category")
    if not cat or not s.rows("SELECT 1 FROM categories WHERE category_id = ?", cat["category_id"]):
        raise Skip("no category in the dialogue yet")
    if not seen(s, cat["category_id"]):
        raise Skip("the agent has not seen the category's id")
    return dict(cat)


def fresh_read(s: Scene, tool: str, args: dict[str, Any], *phrasings: Said, **slots: Any) -> Any:
    """The user asks for a read not already on screen (``Skip`` otherwise); the agent makes it: its result."""
    fresh(s, tool, **args)
    s.say(*phrasings, **slots)
    return s.call(tool, **args)


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: Said, **slots: Any) -> Any:
    """The user asks for a read the dialogue has not made yet (``Skip`` when it has); the agent makes it: its
    result."""
    s.asked(tool, **args)
    s.say(*phrasings, **slots)
    return s.call(tool, **args)


def listing(s: Scene, args: dict[str, Any], *phrasings: Said, **slots: Any) -> None:
    """The user asks for the expenses that fit ``args``; the listing is kept for a detail."""
    s.memory["listed"] = tuple(fresh_read(s, "list_expenses", args, *phrasings, **slots)["expenses"])


def in_category(s: Scene, before: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """The expenses of the dialogue's category in its month (``before``: the month before, which becomes the
    dialogue's month)."""
    cat = current_category(s)
    month = s.memory.get("month") or this_month(s)
    if before:
        month = s.memory["month"] = month_before(month)
    slots = {"c": cat_words(cat["name"]), "m": in_month(month, s), "mm": month_words(month, s)}
    return {"category_id": cat["category_id"], "month": month}, slots


def dialogue_month(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    month = s.known("month", "no month in the dialogue yet")
    return {"month": month}, {"m": month_words(month, s), "im": in_month(month, s)}


ASKS = (
    FollowUp(
        "what_else_in_category",
        "The user asks what else went into the category in the dialogue's month.",
        in_category,
        "list_expenses",
        weight=1.5,
        asked=False,
    ),
    FollowUp(
        "month_before_in_category",
        "The user asks how the category looked the month before the one talked about.",
        lambda s: in_category(s, before=True),
        "list_expenses",
        asked=False,
    ),
    FollowUp(
        "recurring_in_category",
        "The user asks which repeating bills are filed under the category.",
        lambda s: ({"category_id": (cat := current_category(s))["category_id"]}, {"c": cat_words(cat["name"])}),
        "list_recurring_expenses",
        asked=True,
    ),
    FollowUp(
        "month_overall",
        "The user widens the view to the whole month.",
        dialogue_month,
        "get_monthly_summary",
        weight=1.5,
        asked=False,
    ),
    FollowUp(
        "group_overall",
        "The user asks how the category's whole area of the budget (its group) looks this month.",
        lambda s: ({"group": current_category(s)["grp"]}, {}),
        "get_monthly_summary",
        asked=False,
    ),
)


def _fresh(tool: str) -> Callable[[Scene, dict[str, Any]], None]:
    return lambda s, args: fresh(s, tool, **args)


def _listed(s: Scene, args: dict[str, Any], out: Any) -> None:
    s.memory["listed"] = tuple(out["expenses"])  # a listing of expenses is kept for a detail


# a read asked once, or again after a write; the turn hears the slots its phrasings name
follow_ups(
    budget,
    [
        replace(
            a,
            check=None if a.asked else _fresh(a.tool),
            said_only=True,
            then=_listed if a.tool == "list_expenses" else None,
        )
        for a in ASKS
    ],
    WORDS,
)


@budget.intent(covers=("delete_expense",), follows=True, opens=False)
def undo_expense(s: Scene) -> None:
    """The user takes back what was just logged."""
    e = dialogue_expense(s, added=True)
    s.say(WORDS.undo_expense, amt=money(e["amount"]))
    s.call("delete_expense", expense_id=e["expense_id"])
    s.memory.pop("expense", None)


@budget.intent(covers=("delete_expense", "add_expense"), follows=True, opens=False)
def fix_amount(s: Scene) -> None:
    """The user corrects the amount of what was just logged ("actually it was $42, not $24")."""
    e = dialogue_expense(s, added=True)
    cat = s.rows("SELECT * FROM categories WHERE category_id = ?", e["category_id"])[0]
    new = round(e["amount"] * s.rng.choice((0.5, 0.9, 1.1, 1.5, 2.0)), 2)
    if new > e["amount"] and new - e["amount"] > room_in(s, cat, e["date"][:7]) - 1:
        raise Skip("the corrected amount would break the hard limit")
    s.say(WORDS.fix_amount, m=e["merchant"], new=money(new), old=money(e["amount"]))
    s.call("delete_expense", expense_id=e["expense_id"])
    args: dict[str, Any] = {"category_id": e["category_id"], "amount": new, "merchant": e["merchant"]}
    if e["date"] != s.now.date().isoformat():
        args["date"] = e["date"]
    if e["payment_method"] != "card":
        args["payment_method"] = e["payment_method"]
    if e["note"]:
        args["note"] = e["note"]
    out = s.call("add_expense", **args)
    remember_expense(s, e | out | {"amount": new}, True)


@budget.intent(covers=("list_expenses",), follows=True, opens=False)
def merchant_history(s: Scene) -> None:
    """The user asks what else they spent at the store of the expense the dialogue is about."""
    e = dialogue_expense(s)
    month = e["date"][:7] if s.rng.random() < 0.5 else None
    args: dict[str, Any] = {"merchant": e["merchant"]} | ({"month": month} if month else {})
    listing(
        s,
        args,
        "How often have I paid {m} {when}?" if month else "What else have I spent at {m}?",
        "Show me all my {m} spending {when}." if month else "List every {m} purchase you can find.",
        "Was that my only {m} charge {when}?" if month else "Have I been to {m} a lot lately?",
        m=e["merchant"],
        when=in_month(month, s) if month else "",
    )


@budget.intent(covers=("get_expense",), follows=True, opens=False)
def listed_detail(s: Scene) -> None:
    """The user asks for the details of one expense a listing showed (the priciest, or the latest)."""
    listed = [
        x
        for x in s.memory.get("listed") or ()
        if s.rows("SELECT 1 FROM expenses WHERE expense_id = ?", x["expense_id"])
    ]
    if len(listed) < 2 or len(listed) < len(s.memory.get("listed") or ()):
        raise Skip("no listing to pick from")
    if s.rng.random() < 0.5:
        pick = max(listed, key=lambda x: x["amount"])
        if sum(x["amount"] == pick["amount"] for x in listed) > 1:
            raise Skip("two priciest")
        which = f"the {money(pick['amount'])} one"
    else:
        pick = listed[0]  # newest first
        if sum(x["date"] == pick["date"] for x in listed) > 1:
            raise Skip("two on the latest day")
        which = f"the one from {day(pick['date'], s.now).removeprefix('on ')}"
    out = ask_for(s, "get_expense", {"expense_id": pick["expense_id"]}, WORDS.listed_detail, w=which)
    remember_expense(s, out, False)
