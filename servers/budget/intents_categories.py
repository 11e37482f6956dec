"""Budget intents about categories: limits, starting and folding categories, subscriptions and what a bill cost."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, day, money
from servers.budget.intents import (
    NEW_CATEGORIES,
    SUBSCRIPTIONS,
    WORDS,
    cat_words,
    category,
    find_category,
    following,
    remember,
    remember_expense,
    seen,
    seen_limit,
    subject,
    this_month,
)
from servers.budget.tools import budget


@budget.intent(covers=("list_categories", "set_monthly_limit"), weight=1.5, follows=True)
def adjust_limit(s: Scene) -> None:
    """Someone who keeps going over (or under) a category's limit changes it, or makes it a hard cap."""
    cat = subject(s, "c.monthly_limit IS NOT NULL AND c.hard_limit = 0")
    if any(c.tool == "set_monthly_limit" and c.arguments["category_id"] == cat["category_id"] for c in s.calls):
        raise Skip("the limit was just set")
    hard = s.rng.random() < 0.25
    spent = (
        s.value("SELECT spent FROM month_totals WHERE category_id = ? AND month = ?", cat["category_id"], this_month(s))
        or 0.0
    )
    step = s.rng.choice((-0.2, 0.25, 0.5, 0.1))
    new = float(max(round(cat["monthly_limit"] * (1 + step), -1), round(spent + 10, -1) if hard else 10.0))
    if new == cat["monthly_limit"]:
        raise Skip("no change")
    cap = s.given(new, money(new), "new limit", "set_monthly_limit", "monthly_limit")
    strict = " and make it a hard cap" if hard else ""
    up = new > cat["monthly_limit"]
    if following(s) and s.rng.random() < 0.5 and seen_limit(s, cat["monthly_limit"]):
        s.say(
            WORDS.adjust_limit,
            cat=cat_words(cat["name"]),
            delta=money(abs(new - cat["monthly_limit"])),
            more="more" if up else "less",
            strict=strict,
            Change="Raise" if up else "Lower",
        )
    elif following(s):
        s.say(
            WORDS.adjust_limit_set_amount,
            cat=cat_words(cat["name"]),
            cap=cap,
            strict=strict,
            Change="Raise" if up else "Lower",
        )
    else:
        s.say(
            "I keep blowing through {cat}. Bump its budget[ to {cap}]{strict}."
            if up
            else "I never use all of {cat}. Bring its budget down[ to {cap}]{strict}.",
            "Change the {cat} {allowance|limit} per month[ to {cap}]{strict}.",
            "Let's set a new budget per month for {cat}[: {cap}]{strict}.",
            minimal=["New budget for {cat}[: {cap} a month]{strict}."],
            cat=cat_words(cat["name"]),
            cap=cap,
            strict=strict,
        )
    cid = find_category(s, cat)
    s.call("set_monthly_limit", category_id=cid, monthly_limit=new, **({"hard_limit": True} if hard else {}))
    remember(s, cat)
    s.memory["month"] = this_month(s)


@budget.intent(covers=("create_category", "add_expense"))
def start_tracking(s: Scene) -> None:
    """Someone starts tracking a new kind of spending (and may log the first expense in it)."""
    name, group, merchant, thing = s.rng.choice(NEW_CATEGORIES)
    if s.rows("SELECT 1 FROM categories WHERE name = ?", name):
        raise Skip("the category exists")
    limit = s.rng.choice((None, None, 100.0, 250.0, 500.0, 800.0))
    hard = limit is not None and s.rng.random() < 0.3
    label = s.given(name, f"'{name}'", "name", "create_category", "name")
    cap = f" with a {money(limit)} budget each month" if limit else ""
    cap += " that I can't go over" if hard else ""
    grouped = s.rng.random() < 0.5
    if grouped:
        s.say(WORDS.start_tracking_in_group, label=label, group=group, cap=cap, thing=thing)
    else:
        s.say(WORDS.start_tracking_no_group, label=label, cap=cap, thing=thing)
    args: dict[str, Any] = {"name": name} | ({"group": group} if grouped else {})
    if limit:
        args["monthly_limit"] = limit
    if hard:
        args["hard_limit"] = True
    new = s.call("create_category", **args)
    s.memory["category"] = {"category_id": new["category_id"], "name": name, "grp": new["group"], "merchant": merchant}
    s.memory["month"] = this_month(s)
    if s.rng.random() < 0.7:
        return  # a follow-up may log the first one
    amount = round(s.rng.uniform(15, 90 if limit is None else min(limit * 0.5, 200)), 2)
    s.say(WORDS.start_tracking, amt=money(amount), shop=merchant)
    out = s.call("add_expense", category_id=new["category_id"], amount=amount, merchant=merchant)
    remember_expense(s, out | {"merchant": merchant, "payment_method": "card", "note": ""}, True)


@budget.intent(covers=("list_categories", "delete_category", "get_monthly_summary"), follows=True)
def fold_category(s: Scene) -> None:
    """Someone stops tracking a category separately and folds it into a sibling in the same group."""
    if following(s):
        gone = subject(s, "c.category_id IN (SELECT category_id FROM categories GROUP BY grp HAVING COUNT(*) > 1)")
        keep = s.pick("SELECT * FROM categories WHERE grp = ? AND category_id != ?", gone["grp"], gone["category_id"])
        s.say(WORDS.fold_category, a=cat_words(gone["name"]), b=cat_words(keep["name"]))
    else:
        pair = s.pick(
            "SELECT a.category_id AS gone, b.category_id AS keep FROM categories a JOIN categories b "
            "ON a.grp = b.grp AND a.category_id != b.category_id"
        )
        gone, keep = category(s, pair["gone"]), category(s, pair["keep"])
        s.say(WORDS.fold_category_first_turn, a=cat_words(gone["name"]), b=cat_words(keep["name"]))
    if not (seen(s, gone["category_id"]) and seen(s, keep["category_id"])):
        how = s.rng.random()
        if how < 0.5:
            listed = s.call("list_categories", group=gone["grp"])["categories"]
        elif how < 0.75:
            listed = s.call("list_categories")["categories"]
        else:
            listed = s.call("get_monthly_summary", group=gone["grp"])["categories"]
        if not {gone["category_id"], keep["category_id"]} <= {c["category_id"] for c in listed}:
            raise Skip("not both listed")
    s.call("delete_category", category_id=gone["category_id"], move_to_category_id=keep["category_id"])
    remember(s, keep)
    s.memory.pop("expense", None)
    s.memory.pop("listed", None)
    s.memory["month"] = this_month(s)


@budget.intent(covers=("list_categories", "add_recurring_expense"), weight=1.5, follows=True)
def new_subscription(s: Scene) -> None:
    """Someone signs up for a subscription and schedules it."""
    options = list(SUBSCRIPTIONS)
    if following(s):
        cat = s.memory.get("category") or {}
        options = [o for o in options if o[2] == cat.get("name")]
    if not options:
        raise Skip("no subscription fits the dialogue's category")
    merchant, amount, cname = s.rng.choice(options)
    cat = s.pick("SELECT * FROM categories WHERE name = ? AND hard_limit = 0", cname)
    if s.rows("SELECT 1 FROM recurring_expenses WHERE merchant = ?", merchant):
        raise Skip("already scheduled")
    weekly = merchant == "Dog Walker Joe" and s.rng.random() < 0.5
    start = s.now.date() + timedelta(days=s.rng.randint(1, 25))
    if start.day > 28:
        start = start.replace(day=28)
    first = s.given(
        start.isoformat(), day(start, s.now).removeprefix("on "), "start date", "add_recurring_expense", "start_date"
    )
    per = "a week" if weekly else "a month"
    s.say(WORDS.new_subscription, m=merchant, amt=money(amount), cat=cat_words(cname), first=first, per=per)
    cid = find_category(s, cat)
    out = s.call(
        "add_recurring_expense",
        category_id=cid,
        amount=amount,
        merchant=merchant,
        frequency="weekly" if weekly else "monthly",
        start_date=start.isoformat(),
    )
    remember(s, cat)
    s.memory["recurring"] = {"recurring_id": out["recurring_id"], "merchant": merchant, "category_id": cid}


@budget.intent(covers=("list_recurring_expenses", "list_expenses", "list_categories"), follows=True)
def what_a_bill_cost(s: Scene) -> None:
    """Someone asks how much a recurring bill has cost so far."""
    known = s.memory.get("recurring")
    if following(s) and known:
        r = s.rows("SELECT * FROM recurring_expenses WHERE recurring_id = ?", known["recurring_id"])[0]
        s.say(WORDS.what_a_bill_cost, m=r["merchant"])
        s.call("list_expenses", recurring_id=r["recurring_id"])
        return
    where = (
        "(SELECT COUNT(*) FROM recurring_expenses x WHERE x.merchant = r.merchant) = 1 AND "
        "(SELECT COUNT(*) FROM expenses e WHERE e.recurring_id = r.recurring_id) >= 2"
    )
    if following(s):
        cat = s.known("category", "nothing to go on")
        r = s.pick(f"SELECT r.* FROM recurring_expenses r WHERE r.category_id = ? AND {where}", cat["category_id"])
        s.say(WORDS.what_a_bill_cost_in_category, m=r["merchant"])
        cid = find_category(s, category(s, r["category_id"]))
        found = s.call("list_recurring_expenses", category_id=cid)["recurring_expenses"]
    else:
        r = s.pick(f"SELECT r.* FROM recurring_expenses r WHERE {where}")
        stopped = not r["active"]
        s.say(
            *(WORDS.stopped if stopped else WORDS.on_file),
            minimal=["Cancelled bills?" if stopped else "Repeating stuff?"],
        )
        found = s.call("list_recurring_expenses", **({"active": False} if stopped else {}))["recurring_expenses"]
        s.say(WORDS.what_a_bill_cost_from_bills, m=r["merchant"])
    hit = [x for x in found if x["merchant"] == r["merchant"]]
    if not hit:
        raise Skip("not listed")
    listed = s.call("list_expenses", recurring_id=hit[0]["recurring_id"])["expenses"]
    s.memory["listed"] = tuple(listed)
    s.memory["recurring"] = {
        "recurring_id": r["recurring_id"],
        "merchant": r["merchant"],
        "category_id": r["category_id"],
    }
    remember(s, category(s, r["category_id"]))
