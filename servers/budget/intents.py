"""What people want of their household budget: logging spending, reviewing months, tuning limits, subscriptions.

There is one household, so the user never introduces themself. They name categories by name
("groceries", "dining out"), months as people say them ("April", "last month"), expenses by where,
when and how much. The agent finds category ids with ``list_categories``, expenses with
``list_expenses`` and subscriptions with ``list_recurring_expenses``.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.synth.intent import Ref, Scene, Skip, day, money
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
)


def month_words(month: str, s: Scene) -> str:
    """'2026-05' -> 'last month' / 'this month' / 'April' / 'December 2025'."""
    d = date.fromisoformat(month + "-01")
    this = s.now.date().replace(day=1)
    if d == this:
        return "this month"
    if d == (this - timedelta(days=1)).replace(day=1):
        return "last month"
    return d.strftime("%B") if d.year == this.year else d.strftime("%B %Y")


def cat_words(name: str) -> str:
    return name.lower()


def find_category(s: Scene, cat: dict[str, Any]) -> str:
    """The category id, read off a listing by (part of) its name."""
    known = s.memory.get("categories", {})
    if cat["category_id"] in known:
        return str(cat["category_id"])
    if s.rng.random() < 0.5:  # there are few categories: one page of all of them
        listed = s.call("list_categories")["categories"]
    else:
        listed = s.call("list_categories", query=cat["name"].split(" ")[0].rstrip("'s"))["categories"]
    hit = [c for c in listed if c["category_id"] == cat["category_id"]]
    if not hit:
        raise Skip("the category is not found by its first word")
    s.memory.setdefault("categories", {})[cat["category_id"]] = hit[0]
    return str(hit[0]["category_id"])


def this_month(s: Scene) -> str:
    return s.now.strftime("%Y-%m")


@budget.intent(covers=("list_categories", "add_expense", "get_monthly_summary"), weight=2.0)
def log_spending(s: Scene) -> None:
    """Someone records what they just spent (or spent a few days ago) and checks how that part of the budget looks."""
    month = this_month(s)
    back = s.rng.choice((0, 0, 1, 2, 3))
    when = s.now.date() - timedelta(days=back)
    cat = s.pick(
        f"SELECT c.*, {SPENT} AS spent FROM categories c WHERE c.hard_limit = 0 OR c.monthly_limit - {SPENT} > 40",
        when.strftime("%Y-%m"),
        when.strftime("%Y-%m"),
    )
    merchants = [
        r["merchant"]
        for r in s.rows("SELECT DISTINCT merchant FROM expenses WHERE category_id = ?", cat["category_id"])
    ]
    if not merchants:
        raise Skip("no merchant known for the category")
    merchant = s.rng.choice(merchants)
    room = (cat["monthly_limit"] - cat["spent"]) if cat["hard_limit"] else 400.0
    amount = round(s.rng.uniform(4, max(5.0, min(room - 1, 220))), 2)
    price = s.given(amount, money(amount), "amount", "add_expense", "amount")
    shop = s.given(merchant, merchant, "merchant", "add_expense", "merchant")
    when_words = "" if back == 0 else f" {day(when, s.now)}"
    method = s.rng.choice((None, None, "cash", "bank_transfer")) if s.level == "complete" else None
    note = s.rng.choice(NOTES) if s.level == "complete" and s.rng.random() < 0.25 else None
    extra = {None: "", "cash": " Paid cash.", "bank_transfer": " It went by bank transfer."}[method]
    extra += f" Note: '{note}'." if note else ""
    s.say(
        "I spent {price} at {shop}{when}, put it under {cat}.{extra}",
        "Log {price} for {cat} at {shop}{when}.{extra}",
        "Just paid {shop} {price}{when}. That's {cat}.{extra}",
        minimal=["{shop}{when}, {price}, {cat}."],
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
    s.call("add_expense", **args)
    s.memory["category"] = {"category_id": cid, "name": cat["name"]}
    s.say(
        "How's that whole area of my budget looking this month?",
        "Where do I stand on that group of spending now?",
        "Am I still within budget for that kind of thing this month, all categories around it included?",
    )
    if s.room():
        s.call("get_monthly_summary", group=cat["grp"])
    s.memory["month"] = month


@budget.intent(covers=("list_expenses", "delete_expense", "list_categories"), weight=1.5)
def remove_duplicate(s: Scene) -> None:
    """Someone spots an expense logged by mistake (or twice) and has it removed, then checks the category."""
    since = (s.now.date() - timedelta(days=45)).isoformat()
    e = s.pick(
        "SELECT e.*, c.name AS category FROM expenses e JOIN categories c USING (category_id) "
        "WHERE e.date >= ? AND e.recurring_id IS NULL",
        since,
    )
    what = s.refer(
        e["expense_id"],
        Ref(
            "the {amt} {m} charge",
            "SELECT expense_id FROM expenses WHERE merchant = ? AND amount = ?",
            e["merchant"],
            e["amount"],
        ),
        Ref(
            "the {amt} {m} charge from {when}",
            "SELECT expense_id FROM expenses WHERE merchant = ? AND amount = ? AND date = ?",
            e["merchant"],
            e["amount"],
            e["date"],
        ),
        amt=money(e["amount"]),
        m=e["merchant"],
        when=day(e["date"], s.now),
    )
    s.say(
        "{What} shouldn't be there, I entered it by mistake. Please remove it.",
        "Delete {what}, it's a duplicate.",
        "{What} isn't mine; get rid of it.",
        minimal=["{What} is wrong, take it out."],
        what=what,
        What=what[:1].upper() + what[1:],
    )
    if s.rng.random() < 0.5:
        found = s.call("list_expenses", merchant=e["merchant"], month=e["date"][:7])["expenses"]
    else:  # the amount the user named pins it down as well
        found = s.call("list_expenses", merchant=e["merchant"], min_amount=e["amount"], max_amount=e["amount"])[
            "expenses"
        ]
    if e["expense_id"] not in [x["expense_id"] for x in found]:
        raise Skip("the expense is past the first page")
    s.call("delete_expense", expense_id=e["expense_id"])
    s.memory["month"] = e["date"][:7]
    s.memory["category"] = {"category_id": e["category_id"], "name": e["category"]}
    if s.rng.random() < 0.4:
        return  # a follow-up turn may carry on
    m = month_words(e["date"][:7], s)
    s.say(
        "What's {cat} at for {m} now?",
        "So how much have I spent on {cat} {inm} after that?",
        "Check {cat} for {m} again, please.",
        cat=cat_words(e["category"]),
        m=m,
        inm=m if m.endswith(" month") else f"in {m}",
    )
    word = e["category"].split(" ")[0]
    s.call("list_categories", query=word, month=e["date"][:7])


@budget.intent(covers=("list_expenses", "get_expense"))
def biggest_purchase(s: Scene) -> None:
    """Someone looks at what they spent at one store in a month, and at the largest of those."""
    row = s.pick(
        "SELECT merchant, substr(date, 1, 7) AS month FROM expenses GROUP BY merchant, month "
        "HAVING COUNT(*) BETWEEN 2 AND 20 AND COUNT(DISTINCT amount) = COUNT(*)"
    )
    m = month_words(row["month"], s)
    s.say(
        "What did I spend at {shop} in {m}?",
        "Show me my {shop} purchases from {m}.",
        "List everything from {shop} in {m}, please.",
        minimal=["{shop}, {m}?"],
        shop=row["merchant"],
        m=m,
    )
    found = s.call("list_expenses", merchant=row["merchant"], month=row["month"])["expenses"]
    if not found:
        raise Skip("nothing listed")
    top = max(found, key=lambda x: x["amount"])
    s.say(
        "Which category did the biggest one go under?",
        "Tell me more about the largest of those.",
        "What's the story on the most expensive one?",
    )
    s.call("get_expense", expense_id=top["expense_id"])


@budget.intent(covers=("list_categories", "set_monthly_limit", "get_monthly_summary"), weight=1.5)
def adjust_limit(s: Scene) -> None:
    """Someone who keeps going over (or under) a category's limit changes it, then looks at the month."""
    cat = s.pick("SELECT * FROM categories WHERE monthly_limit IS NOT NULL AND hard_limit = 0")
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
    s.say(
        "I keep blowing through {cat}. Bump its budget[ to {cap}]{strict}."
        if up
        else "I never use all of {cat}. Bring its budget down[ to {cap}]{strict}.",
        "Change the monthly {cat} allowance[ to {cap}]{strict}.",
        "Let's give {cat}[ {cap}] a month from now on{strict}.",
        minimal=["{cat}[: {cap}] a month{strict}."],
        cat=cat_words(cat["name"]),
        cap=cap,
        strict=strict,
    )
    cid = find_category(s, cat)
    s.call("set_monthly_limit", category_id=cid, monthly_limit=new, **({"hard_limit": True} if hard else {}))
    s.memory["category"] = {"category_id": cid, "name": cat["name"]}
    s.memory["month"] = this_month(s)
    if s.rng.random() < 0.4:
        return
    s.say(
        "Now how do that category and its neighbours look this month?",
        "Give me this month's picture for that whole group now.",
        "And where am I on that area of the budget?",
    )
    s.call("get_monthly_summary", group=cat["grp"])


@budget.intent(covers=("create_category", "add_expense"), weight=1.5)
def start_tracking(s: Scene) -> None:
    """Someone starts tracking a new kind of spending and logs the first expense in it."""
    name, group, merchant, thing = s.rng.choice(NEW_CATEGORIES)
    if s.rows("SELECT 1 FROM categories WHERE name = ?", name):
        raise Skip("the category exists")
    limit = s.rng.choice((None, 100.0, 250.0, 500.0, 800.0))
    label = s.given(name, f"'{name}'", "name", "create_category", "name")
    cap = f" with a {money(limit)} monthly budget" if limit else ""
    s.say(
        "Start a new category[ called {label}] under {group}{cap}.",
        "I want to track {thing} separately: add a {group} category[ named {label}]{cap}.",
        "Can you set up[ {label} as] a new spending category in {group}{cap}?",
        minimal=["I need a new {group} category[, {label}]{cap}."],
        label=label,
        group=group,
        cap=cap,
        thing=thing,
    )
    new = s.call("create_category", name=name, group=group, **({"monthly_limit": limit} if limit else {}))
    amount = round(s.rng.uniform(15, 90 if limit is None else min(limit * 0.5, 200)), 2)
    s.say(
        "First one: {amt} at {shop} today.",
        "Log {amt} to it from {shop} today.",
        "And record the {amt} I paid {shop} today there.",
        amt=money(amount),
        shop=merchant,
    )
    s.call("add_expense", category_id=new["category_id"], amount=amount, merchant=merchant)
    s.memory["category"] = {"category_id": new["category_id"], "name": name}
    s.memory["month"] = this_month(s)


@budget.intent(covers=("list_categories", "delete_category", "get_monthly_summary"))
def fold_category(s: Scene) -> None:
    """Someone stops tracking a category separately and folds it into a sibling in the same group."""
    pair = s.pick(
        "SELECT a.category_id AS gone, a.name AS gone_name, b.category_id AS keep, b.name AS keep_name, "
        "a.grp FROM categories a JOIN categories b ON a.grp = b.grp AND a.category_id != b.category_id"
    )
    s.say(
        "I don't need {a} on its own anymore. Merge it into {b} and drop it.",
        "Fold {a} into {b}, please; one category is enough.",
        "Get rid of {a} and move its spending into {b}.",
        minimal=["{a} goes into {b}."],
        a=cat_words(pair["gone_name"]),
        b=cat_words(pair["keep_name"]),
    )
    cats = s.call("list_categories", group=pair["grp"])["categories"]
    ids = {c["category_id"] for c in cats}
    if not {pair["gone"], pair["keep"]} <= ids:
        raise Skip("not both listed")
    s.call("delete_category", category_id=pair["gone"], move_to_category_id=pair["keep"])
    s.say(
        "How does that group look this month now?",
        "Show me this month's numbers for those categories.",
        "What's that part of the budget at for the month after that?",
    )
    s.call("get_monthly_summary", group=pair["grp"])


@budget.intent(covers=("list_categories", "add_recurring_expense", "list_recurring_expenses"), weight=1.5)
def new_subscription(s: Scene) -> None:
    """Someone signs up for a subscription and schedules it; then reviews what recurs."""
    merchant, amount, cname = s.rng.choice(SUBSCRIPTIONS)
    cat = s.pick("SELECT * FROM categories WHERE name = ? AND hard_limit = 0", cname)
    if s.rows("SELECT 1 FROM recurring_expenses WHERE merchant = ?", merchant):
        raise Skip("already scheduled")
    start = s.now.date() + timedelta(days=s.rng.randint(1, 25))
    if start.day > 28:
        start = start.replace(day=28)
    first = s.given(
        start.isoformat(), day(start, s.now).removeprefix("on "), "start date", "add_recurring_expense", "start_date"
    )
    s.say(
        "I just subscribed to {m} for {amt} a month[, first charge {first}]. File it under {cat}.",
        "Add {m} as a monthly {cat} bill, {amt}[, starting {first}].",
        "New subscription: {m}, {amt} monthly, {cat}[; it starts {first}].",
        minimal=["{m}, {amt}/month[ from {first}], {cat}."],
        m=merchant,
        amt=money(amount),
        cat=cat_words(cname),
        first=first,
    )
    cid = find_category(s, cat)
    s.call(
        "add_recurring_expense",
        category_id=cid,
        amount=amount,
        merchant=merchant,
        frequency="monthly",
        start_date=start.isoformat(),
    )
    s.memory["category"] = {"category_id": cid, "name": cname}
    if s.rng.random() < 0.4:
        return
    s.say(
        "What else do I have recurring under {cat} now?",
        "List the {cat} bills that repeat.",
        "Which {cat} payments are set to recur at this point?",
        cat=cat_words(cname),
    )
    s.call("list_recurring_expenses", category_id=cid)


@budget.intent(covers=("list_recurring_expenses", "list_expenses"))
def what_a_bill_cost(s: Scene) -> None:
    """Someone asks how much a recurring bill has cost so far."""
    r = s.pick(
        "SELECT r.*, c.name AS category FROM recurring_expenses r JOIN categories c USING (category_id) "
        "WHERE (SELECT COUNT(*) FROM recurring_expenses x WHERE x.merchant = r.merchant) = 1 AND "
        "(SELECT COUNT(*) FROM expenses e WHERE e.recurring_id = r.recurring_id) >= 2"
    )
    s.say(
        "What repeating charges do I have on file?",
        "Which bills and subscriptions are set up to recur?",
        "Show me my recurring payments.",
        minimal=["Recurring stuff?"],
    )
    found = s.call("list_recurring_expenses")["recurring_expenses"]
    hit = [x for x in found if x["merchant"] == r["merchant"]]
    if not hit:
        raise Skip("not listed")
    s.say(
        "Show me every {m} payment that's gone out so far.",
        "How many times have I paid {m}? List them.",
        "Pull up all the {m} charges.",
        m=r["merchant"],
    )
    s.call("list_expenses", recurring_id=hit[0]["recurring_id"])


@budget.intent(covers=("get_monthly_summary", "list_expenses"), weight=1.5)
def month_review(s: Scene) -> None:
    """Someone reviews a past month and digs into a category that went over."""
    row = s.pick(
        "SELECT t.month FROM month_totals t JOIN categories c USING (category_id) WHERE t.month < ? AND "
        "c.monthly_limit IS NOT NULL AND t.spent > c.monthly_limit GROUP BY t.month",
        this_month(s),
    )
    m = month_words(row["month"], s)
    s.say(
        "How did I do against my budget in {m}?",
        "Give me the rundown for {m}: where did I overspend?",
        "Let's review {m}. Which categories went over?",
        minimal=["{m} review?"],
        m=m,
    )
    summary = s.call("get_monthly_summary", month=row["month"])
    over = [c for c in summary["categories"] if c["status"] == "over"]
    if not over:
        raise Skip("nothing over")
    worst = max(over, key=lambda c: c["spent"] - c["monthly_limit"])
    s.say(
        "Show me what I spent in the one I blew the most.",
        "Which expenses pushed the worst one over? List them.",
        "Break down the category that went furthest over.",
    )
    s.call("list_expenses", category_id=worst["category_id"], month=row["month"])


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
        "Show me the {shop} expenses{more}.",
        shop=shop,
        more=more,
    )
    s.call("list_expenses", merchant=shop, **({"min_amount": float(floor)} if floor else {}))


# Follow-ups: a short next turn about the category or month the dialogue is already about ------------


def current_category(s: Scene) -> dict[str, Any]:
    cat = s.memory.get("category")
    if not cat or not s.rows("SELECT 1 FROM categories WHERE category_id = ?", cat["category_id"]):
        raise Skip("no category in the dialogue yet")
    return dict(cat)


@budget.intent(covers=("list_expenses",), follows=True, opens=False, weight=1.5)
def what_else_in_category(s: Scene) -> None:
    """The user asks what else went into the category this month."""
    cat = current_category(s)
    args = {"category_id": cat["category_id"], "month": this_month(s)}
    s.asked("list_expenses", **args)
    s.say(
        "What else have I spent on {c} this month?",
        "Show me everything in {c} so far this month.",
        "Which {c} expenses do I have this month?",
        c=cat_words(cat["name"]),
    )
    s.call("list_expenses", **args)


@budget.intent(covers=("list_recurring_expenses",), follows=True, opens=False)
def recurring_in_category(s: Scene) -> None:
    """The user asks which repeating bills are filed under the category."""
    cat = current_category(s)
    s.asked("list_recurring_expenses", category_id=cat["category_id"])
    s.say(
        "Do I have any repeating bills under {c}?",
        "Anything that recurs in {c}?",
        "Which subscriptions land in {c}?",
        c=cat_words(cat["name"]),
    )
    s.call("list_recurring_expenses", category_id=cat["category_id"])


@budget.intent(covers=("get_monthly_summary",), follows=True, opens=False, weight=1.5)
def month_overall(s: Scene) -> None:
    """The user widens the view to the whole month."""
    month = s.memory.get("month")
    if not month:
        raise Skip("no month in the dialogue yet")
    s.asked("get_monthly_summary", month=month)
    s.say(
        "And how does {m} look across all categories?",
        "Give me the overall picture for {m}.",
        "Am I over anywhere else in {m}?",
        m=month_words(month, s),
    )
    s.call("get_monthly_summary", month=month)
