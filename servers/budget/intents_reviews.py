"""Budget intents that review months: a month's summary, where money goes, what is left, month against month."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.budget.intents import (
    WORDS,
    cat_words,
    category,
    find_category,
    following,
    fresh,
    in_month,
    last_month,
    list_spending,
    month_before,
    month_words,
    remember,
    seen,
    subject,
    this_month,
)
from servers.budget.tools import budget


@budget.intent(covers=("get_monthly_summary", "list_expenses"), weight=1.5, follows=True)
def month_review(s: Scene) -> None:
    """Someone reviews a past month (or one area of it) and digs into a category that went over."""
    group = None
    if following(s):
        month = s.known("month", "no month in the dialogue")
        if month == this_month(s):
            month = last_month(s)
        fresh(s, "get_monthly_summary", month=month)
        s.say(WORDS.month_review, m=month_words(month, s), im=in_month(month, s))
    else:
        row = s.pick(
            "SELECT t.month, c.grp FROM month_totals t JOIN categories c USING (category_id) WHERE t.month < ? AND "
            "c.monthly_limit IS NOT NULL AND t.spent > c.monthly_limit GROUP BY t.month, c.grp",
            this_month(s),
        )
        month = row["month"]
        group = row["grp"] if s.rng.random() < 0.35 else None
        s.say(
            "How did I do against my budget {m}?" if not group else "How did {g} do against plan {m}?",
            "Give me the rundown for {mm}: where did I overspend?"
            if not group
            else "Give me the {g} rundown for {mm}: anything over?",
            "Let's review {mm}. Which areas went over?" if not group else "Let's review {g} for {mm}.",
            minimal=["{mm} review?" if not group else "{g}, {mm}?"],
            m=in_month(month, s),
            mm=month_words(month, s),
            g=(group or "").lower(),
        )
    summary = s.call("get_monthly_summary", month=month, **({"group": group} if group else {}))
    over = [c for c in summary["categories"] if c["status"] == "over"]
    s.memory["month"] = month
    if not over:
        raise Skip("nothing over")
    worst = max(over, key=lambda c: c["spent"] - c["monthly_limit"])
    if not following(s):
        s.say(WORDS.month_review_worst_items)
    list_spending(s, category_id=worst["category_id"], month=month)
    remember(s, category(s, worst["category_id"]))


@budget.intent(covers=("get_distinct_values", "list_expenses"))
def where_money_goes(s: Scene) -> None:
    """Someone asks which stores they pay, then what they spent at one of them lately."""
    s.say(WORDS.where_money_goes)
    merchants = s.call("get_distinct_values", field="merchant")["values"]
    shop = s.rng.choice(sorted(m for m in merchants if len(m) >= 3))
    floor = s.rng.choice((None, 25, 50))
    more = f" over {money(floor)}" if floor else ""
    s.say(WORDS.where_money_goes_at_shop, shop=shop, more=more)
    list_spending(s, merchant=shop, **({"min_amount": float(floor)} if floor else {}))


@budget.intent(covers=("list_categories", "get_monthly_summary"), weight=1.5, follows=True)
def how_much_left(s: Scene) -> None:
    """Someone asks how much is left (or was spent) in a category, or how one area of the budget is doing."""
    cat = subject(s, "c.monthly_limit IS NOT NULL")
    month = this_month(s) if following(s) or s.rng.random() < 0.6 else last_month(s)
    by_group = s.rng.random() < 0.3 and cat["grp"] != "Other"
    if by_group:
        args: dict[str, Any] = {"group": cat["grp"]} | ({} if month == this_month(s) else {"month": month})
        fresh(s, "get_monthly_summary", **args)
        s.say(WORDS.how_much_left, g=cat["grp"].lower(), m=in_month(month, s))
        listed = s.call("get_monthly_summary", **args)["categories"]
    else:
        args = {"query": cat["name"]} if s.rng.random() < 0.4 else {}  # one page holds every category
        args |= {} if month == this_month(s) else {"month": month}
        fresh(s, "list_categories", **args)
        if month == this_month(s):
            s.say(WORDS.how_much_left_this_month, c=cat_words(cat["name"]), C=cat["name"])
        else:
            s.say(WORDS.how_much_left_past_month, c=cat_words(cat["name"]), C=cat["name"], m=in_month(month, s))
        listed = s.call("list_categories", **args)["categories"]
    if cat["category_id"] not in {c["category_id"] for c in listed}:
        raise Skip("the category is not listed")
    remember(s, cat)
    s.memory["month"] = month


@budget.intent(covers=("list_categories", "list_expenses"), follows=True)
def compare_months(s: Scene) -> None:
    """Someone compares a category's spend across two months."""
    cat = subject(s, "c.category_id IN (SELECT category_id FROM month_totals GROUP BY category_id HAVING COUNT(*) > 2)")
    a = s.memory.get("month") if following(s) else None
    a = a or s.rng.choice((this_month(s), last_month(s)))
    b = month_before(a)
    s.say(
        WORDS.compare_months,
        c=cat_words(cat["name"]),
        C=cat["name"],
        a=month_words(a, s),
        b=month_words(b, s),
        ia=in_month(a, s),
        ib=in_month(b, s),
    )
    if s.rng.random() < 0.5 or seen(s, cat["category_id"]):
        cid = find_category(s, cat)
        s.call("list_expenses", category_id=cid, month=a)
        s.call("list_expenses", category_id=cid, month=b)
    else:
        for m in (a, b):
            listed = s.call("list_categories", query=cat["name"], month=m)["categories"]
            if cat["category_id"] not in {c["category_id"] for c in listed}:
                raise Skip("the category is not listed")
    remember(s, cat)
    s.memory["month"] = b
