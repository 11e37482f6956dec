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
from servers.budget.tools import budget

SPENT = "COALESCE((SELECT spent FROM month_totals t WHERE t.category_id = c.category_id AND t.month = ?), 0)"
NEW_CATEGORIES = (
    ("Childcare", "Family", "Little Sprouts Daycare", "daycare"),
    ("Kids' Activities", "Family", "Little Gym", "the kids' gym class"),
    ("Home Office", "Work", "Staples", "printer ink"),
    ("Charity", "Giving", "Red Cross", "a donation"),
    ("Garden", "Home", "Green Thumb Nursery", "plants for the balcony"),
    ("Hobbies", "Personal", "Michaels", "craft supplies"),
)
NOTES = ("split with roommate", "birthday dinner", "work trip, expense it", "for the party", "stocking up")
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
        cat = s.memory.get("category")
        if not cat:
            raise Skip("no category in the dialogue yet")
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
    s.find("list_categories", "categories", "category_id", cid, missing="the category is not listed", **args)
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
    note = s.rng.choice(NOTES) if s.level == "complete" and s.rng.random() < 0.25 else None
    extra = {None: "", "cash": " Paid cash.", "bank_transfer": " It went by bank transfer."}[method]
    extra += f" Note: '{note}'." if note else ""
    if following(s):
        s.say(
            "Also, I paid {shop} {price} {day} for {cat}. Put that in too.{extra}",
            "One more for {cat}: {price} at {shop} {day}.{extra}"
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
        s.say(
            "I spent {price} at {shop}{when}, put it under {cat}.{extra}",
            "Log {price} for {cat} at {shop}{when}.{extra}",
            "Just paid {shop} {price}{when}. That's {cat}.{extra}",
            "Put my {shop} purchase{when}[ ({price})] under {cat}.{extra}",
            minimal=["{shop}{when}, {price}, {cat}.", "Put my {shop} purchase{when}[ ({price})] under {cat}."],
            price=price,
            shop=shop,
            cat=cat_words(cat["name"]),
            when=when_words,
            extra=extra,
        )
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
        s.say(
            "{What} shouldn't be there actually; take it out.",
            "Hmm, {what} is a mistake. Remove it, please.",
            "Get rid of {what}, I logged it twice.",
            what=what,
            What=upper(what),
        )
    else:
        e = s.pick(
            "SELECT e.*, c.name AS category FROM expenses e JOIN categories c USING (category_id) "
            "WHERE e.date >= ? AND e.recurring_id IS NULL",
            since,
        )
        what = expense_ref(s, e)
        s.say(
            "{What} shouldn't be there, I entered it by mistake. Please remove it.",
            "Take out {what}, it's a duplicate.",
            "{What} isn't mine; get rid of it.",
            minimal=["{What} is wrong, take it out."],
            what=what,
            What=upper(what),
        )
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
    s.say(
        "{What} is really {new}, not {old}. Move it over.",
        "I filed {what} under {old} by mistake; it belongs in {new}.",
        "Can you put {what} under {new} instead of {old}?",
        minimal=["{What} should be {new}."],
        what=what,
        What=upper(what),
        new=cat_words(new["name"]),
        old=cat_words(old["name"]),
    )
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
        s.say(
            "What was the biggest {c} purchase {m}? Give me the details.",
            "Which {c} spend {m} was the largest, and what was it?",
            "Pull up the priciest thing in {c} {m}.",
            c=cat_words(cat["name"]),
            m=in_month(month, s),
        )
        found = _listing(s, category_id=cid, month=month)
    elif s.rng.random() < 0.6:
        row = s.pick(
            "SELECT merchant, substr(date, 1, 7) AS month FROM expenses GROUP BY merchant, month "
            "HAVING COUNT(*) BETWEEN 2 AND 20 AND COUNT(DISTINCT amount) = COUNT(*)"
        )
        s.say(
            "What did I spend at {shop} {m}?",
            "Show me my {shop} purchases from {mm}.",
            "List everything from {shop} {m}, please.",
            minimal=["{shop}, {mm}?"],
            shop=row["merchant"],
            m=in_month(row["month"], s),
            mm=month_words(row["month"], s),
        )
        found = _listing(s, merchant=row["merchant"], month=row["month"])
        month = row["month"]
    else:
        month = s.rng.choice((last_month(s), month_before(last_month(s))))
        floor = s.rng.choice((100, 150, 200))
        s.say(
            "Did I spend more than {amt} on anything {m}?",
            "Anything over {amt} {m}? List those.",
            "Show me every purchase above {amt} from {mm}.",
            minimal=["Big purchases {m}?"],
            amt=money(floor),
            m=in_month(month, s),
            mm=month_words(month, s),
        )
        found = _listing(s, month=month, min_amount=float(floor))
    if not found:
        raise Skip("nothing listed")
    top = max(found, key=lambda x: x["amount"])
    if sum(x["amount"] == top["amount"] for x in found) > 1:
        raise Skip("two biggest")
    if not following(s):
        s.say(
            "Which category did the biggest one go under?",
            "Tell me more about the largest of those.",
            "What's the story on the most expensive one?",
        )
    out = s.call("get_expense", expense_id=top["expense_id"])
    remember_expense(s, out, False)
    remember(s, category(s, out["category_id"]))
    s.memory["month"] = month


def _listing(s: Scene, **args: Any) -> list[dict[str, Any]]:
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
            "{Change} the {cat} budget by {delta} a month{strict}.",
            "Give {cat} {delta} {more} each month from now on{strict}.",
            "{Change} that allowance by {delta}{strict}, please.",
            cat=cat_words(cat["name"]),
            delta=money(abs(new - cat["monthly_limit"])),
            more="more" if up else "less",
            strict=strict,
            Change="Raise" if up else "Lower",
        )
    elif following(s):
        s.say(
            "Let's give {cat} {cap} a month from now on{strict}.",
            "{Change} the {cat} budget to {cap}{strict}.",
            "Set that one's allowance at {cap}{strict} then.",
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
            "Change the {cat} allowance per month[ to {cap}]{strict}.",
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
        s.say(
            "Start a new category[ called {label}] under {group}{cap}.",
            "I want to track {thing} separately: add a {group} bucket[ named {label}]{cap}.",
            "Can you set up[ {label} as] a new spending bucket in {group}{cap}?",
            minimal=["I need a new {group} bucket[, {label}]{cap}."],
            label=label,
            group=group,
            cap=cap,
            thing=thing,
        )
    else:
        s.say(
            "I want to keep {thing} apart from everything else. Make a new bucket for it[ called {label}]{cap}.",
            "Start tracking {thing} on its own[ as {label}]{cap}.",
            "New category please[: {label}]{cap}. It's for {thing}.",
            minimal=["Track {thing} separately[ as {label}]{cap}."],
            label=label,
            cap=cap,
            thing=thing,
        )
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
    s.say(
        "First one: {amt} at {shop} today.",
        "Log {amt} to it from {shop} today.",
        "And record the {amt} I paid {shop} today there.",
        amt=money(amount),
        shop=merchant,
    )
    out = s.call("add_expense", category_id=new["category_id"], amount=amount, merchant=merchant)
    remember_expense(s, out | {"merchant": merchant, "payment_method": "card", "note": ""}, True)


@budget.intent(covers=("list_categories", "delete_category", "get_monthly_summary"), follows=True)
def fold_category(s: Scene) -> None:
    """Someone stops tracking a category separately and folds it into a sibling in the same group."""
    if following(s):
        gone = subject(s, "c.category_id IN (SELECT category_id FROM categories GROUP BY grp HAVING COUNT(*) > 1)")
        keep = s.pick("SELECT * FROM categories WHERE grp = ? AND category_id != ?", gone["grp"], gone["category_id"])
        s.say(
            "You know what, I don't need {a} on its own. Fold it into {b}.",
            "Actually, merge {a} into {b} and drop it.",
            "Let's stop tracking {a} separately; its spending can go under {b}.",
            a=cat_words(gone["name"]),
            b=cat_words(keep["name"]),
        )
    else:
        pair = s.pick(
            "SELECT a.category_id AS gone, b.category_id AS keep FROM categories a JOIN categories b "
            "ON a.grp = b.grp AND a.category_id != b.category_id"
        )
        gone, keep = category(s, pair["gone"]), category(s, pair["keep"])
        s.say(
            "I don't need {a} on its own anymore. Merge it into {b} and drop it.",
            "Fold {a} into {b}, please; one bucket is enough.",
            "Get rid of {a} and move its spending into {b}.",
            minimal=["{a} goes into {b}."],
            a=cat_words(gone["name"]),
            b=cat_words(keep["name"]),
        )
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
    s.say(
        "I just subscribed to {m} for {amt} {per}[, first charge {first}]. File it under {cat}.",
        "Add {m} as a {cat} bill, {amt} {per}[, starting {first}].",
        "New subscription: {m}, {amt} {per}, {cat}[; it starts {first}].",
        minimal=["{m}, {amt} {per}[ from {first}], {cat}."],
        m=merchant,
        amt=money(amount),
        cat=cat_words(cname),
        first=first,
        per=per,
    )
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
        s.say(
            "Has {m} charged me anything yet?",
            "Did any {m} payment go out already?",
            "Show me what {m} has taken so far.",
            m=r["merchant"],
        )
        s.call("list_expenses", recurring_id=r["recurring_id"])
        return
    where = (
        "(SELECT COUNT(*) FROM recurring_expenses x WHERE x.merchant = r.merchant) = 1 AND "
        "(SELECT COUNT(*) FROM expenses e WHERE e.recurring_id = r.recurring_id) >= 2"
    )
    if following(s):
        cat = s.memory.get("category")
        if not cat:
            raise Skip("nothing to go on")
        r = s.pick(f"SELECT r.* FROM recurring_expenses r WHERE r.category_id = ? AND {where}", cat["category_id"])
        s.say(
            "How much has {m} cost me so far? List the payments.",
            "Show me every {m} charge that's gone out.",
            "What have I paid {m} up to now?",
            m=r["merchant"],
        )
        cid = find_category(s, category(s, r["category_id"]))
        found = s.call("list_recurring_expenses", category_id=cid)["recurring_expenses"]
    else:
        r = s.pick(f"SELECT r.* FROM recurring_expenses r WHERE {where}")
        stopped = not r["active"]
        s.say(
            "Which bills did I cancel?" if stopped else "What repeating charges do I have on file?",
            "Which subscriptions have I stopped?" if stopped else "Which bills and subscriptions are set up to repeat?",
            "Show me the regular payments I've ended." if stopped else "Show me my regular payments.",
            minimal=["Cancelled bills?" if stopped else "Repeating stuff?"],
        )
        found = s.call("list_recurring_expenses", **({"active": False} if stopped else {}))["recurring_expenses"]
        s.say(
            "Show me every {m} payment that's gone out so far.",
            "How many times have I paid {m}? List them.",
            "Pull up all the {m} charges.",
            m=r["merchant"],
        )
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


@budget.intent(covers=("get_monthly_summary", "list_expenses"), weight=1.5, follows=True)
def month_review(s: Scene) -> None:
    """Someone reviews a past month (or one area of it) and digs into a category that went over."""
    group = None
    if following(s):
        month = s.memory.get("month")
        if not month:
            raise Skip("no month in the dialogue")
        if month == this_month(s):
            month = last_month(s)
        fresh(s, "get_monthly_summary", month=month)
        s.say(
            "How did {m} go overall? Show me what went into whatever I overspent most.",
            "Step back: which area went furthest over {im}, and what did I buy there?",
            "Compare everything to plan for {m}, then list the purchases in the worst one.",
            m=month_words(month, s),
            im=in_month(month, s),
        )
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
        s.say(
            "Show me what I spent in the one I blew the most.",
            "Which purchases pushed the worst one over? List them.",
            "Break down the one that went furthest over.",
        )
    _listing(s, category_id=worst["category_id"], month=month)
    remember(s, category(s, worst["category_id"]))


@budget.intent(covers=("get_distinct_values", "list_expenses"))
def where_money_goes(s: Scene) -> None:
    """Someone asks which stores they pay, then what they spent at one of them lately."""
    s.say(
        "Which stores and companies have I paid?",
        "Give me the list of everyone I've spent money with.",
        "Where does my money go? List the payees by name.",
        minimal=["Who have I paid?"],
    )
    merchants = s.call("get_distinct_values", field="merchant")["values"]
    shop = s.rng.choice(sorted(m for m in merchants if len(m) >= 3))
    floor = s.rng.choice((None, 25, 50))
    more = f" over {money(floor)}" if floor else ""
    s.say(
        "What have I spent at {shop}{more}?",
        "List my {shop} charges{more}.",
        "Show me the {shop} purchases{more}.",
        shop=shop,
        more=more,
    )
    _listing(s, merchant=shop, **({"min_amount": float(floor)} if floor else {}))


@budget.intent(covers=("list_categories", "get_monthly_summary"), weight=1.5, follows=True)
def how_much_left(s: Scene) -> None:
    """Someone asks how much is left (or was spent) in a category, or how one area of the budget is doing."""
    cat = subject(s, "c.monthly_limit IS NOT NULL")
    month = this_month(s) if following(s) or s.rng.random() < 0.6 else last_month(s)
    by_group = s.rng.random() < 0.3 and cat["grp"] != "Other"
    if by_group:
        args: dict[str, Any] = {"group": cat["grp"]} | ({} if month == this_month(s) else {"month": month})
        fresh(s, "get_monthly_summary", **args)
        s.say(
            "How's the {g} side of things looking {m}?",
            "Am I on track with {g} spending {m}?",
            "Where do I stand on {g} {m}?",
            minimal=["{g} {m}?"],
            g=cat["grp"].lower(),
            m=in_month(month, s),
        )
        listed = s.call("get_monthly_summary", **args)["categories"]
    else:
        args = {"query": cat["name"]} if s.rng.random() < 0.4 else {}  # one page holds every category
        args |= {} if month == this_month(s) else {"month": month}
        fresh(s, "list_categories", **args)
        if month == this_month(s):
            s.say(
                "How much do I have left for {c} this month?",
                "What's left in the {c} budget now?",
                "Am I still under on {c}?",
                minimal=["{C} left?"],
                c=cat_words(cat["name"]),
                C=cat["name"],
            )
        else:
            s.say(
                "How much did {c} come to {m}, against what I'd planned?",
                "Did I stay under on {c} {m}?",
                "What was my {c} spend {m}?",
                minimal=["{C}, {m}?"],
                c=cat_words(cat["name"]),
                C=cat["name"],
                m=in_month(month, s),
            )
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
        "Did I spend more on {c} {ia} or {ib}?",
        "How does {c} {a} compare with {b}?",
        "Was {c} up or down {a} versus {b}?",
        minimal=["{C}: {a} vs {b}?"],
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
    s.say(
        "{What} is wrong[: it should be {right}]. Fix it, please.",
        "I mistyped {what}[; it was really {right}]. Correct it.",
        "{What} needs fixing[, the receipt says {right}].",
        minimal=["{What} is off[, it's {right}]."],
        what=what,
        What=upper(what),
        right=right,
    )
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
