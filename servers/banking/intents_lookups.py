"""Banking goals that start with a look at what the customer holds: their balances, one account read by
the number on a statement, the cards on an account. What comes back is left in ``s.memory`` so the next
turn can act on it ("move $300 of that into savings", "lock the one ending 4421"). A branch analyst looks at
the bank as a whole.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, day, money
from servers.banking.intents import (
    ACCOUNTS,
    KIND_WORDS,
    WORDS,
    acc_ref,
    account_of,
    customer_asks,
    find_me,
    me,
    my_accounts,
    owned,
    who,
)
from servers.banking.tools import banking


@banking.intent(covers=("search_customers", "list_accounts", "list_transactions"), weight=1.5)
def recent_activity(s: Scene) -> None:
    """A customer checks what came in or went out of one account lately."""
    recent = (s.now - timedelta(days=150)).strftime("%Y-%m-%d")
    busy = (
        "status != 'closed' AND (SELECT COUNT(*) FROM transactions t WHERE t.account_id = accounts.account_id "
        "AND t.created_at >= ?) >= 2"
    )
    c = me(s, f"customer_id IN (SELECT customer_id FROM accounts WHERE {busy})", recent)
    acc = owned(s, c, busy, recent)
    kind, words = s.rng.choice((("card_payment", "card purchases"), ("deposit", "deposits"), (None, "transactions")))
    dates = [
        r["created_at"]
        for r in s.rows(
            "SELECT created_at FROM transactions WHERE account_id = ? ORDER BY created_at DESC", acc["account_id"]
        )
    ]
    start = date.fromisoformat(dates[min(2, len(dates) - 1)][:10]).replace(day=1)
    if start == s.now.date():
        start = (start - timedelta(days=1)).replace(day=1)
    since = start.isoformat()
    what = acc_ref(s, acc)
    cid = customer_asks(s, c, WORDS.recent_activity, what=what, words=words)
    aid = account_of(s, cid, acc, narrow=True)
    args: dict[str, Any] = {"account_id": aid}
    if kind and not s.minimal:
        args["kind"] = kind
    s.call("list_transactions", **args)
    s.say(WORDS.recent_activity_since_date, when=day(since, s.now).removeprefix("on "))
    s.call("list_transactions", **args, since=since)
    s.memory["account"] = acc


@banking.intent(covers=("search_customers", "get_customer", "get_account"))
def profile_and_balance(s: Scene) -> None:
    """A customer checks what the bank has on file for them, then one account's balance and overdraft."""
    c = me(s, "customer_id IN (SELECT customer_id FROM accounts GROUP BY customer_id HAVING COUNT(*) >= 2)")
    acc = owned(s, c, "status != 'closed'")
    cid = customer_asks(s, c, WORDS.profile_and_balance)
    profile = s.call("get_customer", customer_id=cid)
    if acc["account_id"] not in profile["account_ids"]:
        raise Skip("the account is not on the profile")
    kind = KIND_WORDS[acc["type"]]
    s.say(WORDS.profile_and_balance_account, kind=kind)
    s.call("get_account", account_id=acc["account_id"])
    s.memory["account"] = acc


@banking.intent(covers=("search_customers", "list_accounts"), weight=1.5)
def my_balances(s: Scene) -> None:
    """A customer asks what they hold and how much is in each account (or only the usable ones, or one type)."""
    c = me(s, "customer_id IN (SELECT customer_id FROM accounts WHERE status != 'closed')")
    acc = owned(s, c, "status != 'closed'")
    draw = s.rng.random()
    filters: dict[str, Any] = {}
    if draw < 0.25:
        filters = {"status": "active"}
        s.say(WORDS.my_balances, me=who(s, c))
    elif draw < 0.5:
        filters = {"type": acc["type"]}
        s.say(WORDS.my_balances_one_type, me=who(s, c), what=acc_ref(s, acc))
    else:
        s.say(WORDS.my_balances_all, me=who(s, c))
    cid = find_me(s, c)
    listed = my_accounts(s, cid, **filters)
    hit = [a for a in listed if a["account_id"] == acc["account_id"]]
    if hit:
        s.memory["account"] = {**hit[0], "customer_id": cid}


@banking.intent(covers=("get_account",), weight=0.8)
def account_by_number(s: Scene) -> None:
    """A customer reads their account number off a statement and asks about that account."""
    acc = s.pick(ACCOUNTS + " WHERE status != 'closed'")
    c = s.rows("SELECT customer_id, name FROM customers WHERE customer_id = ?", acc["customer_id"])[0]
    s.be(c["name"])
    s.say(WORDS.account_by_number, name=c["name"], aid=acc["account_id"])
    got = s.call("get_account", account_id=acc["account_id"])
    s.memory["customer"] = {"customer_id": got["customer_id"], "name": c["name"]}
    s.memory["account"] = got


@banking.intent(covers=("search_customers", "list_accounts", "list_cards"))
def cards_i_have(s: Scene) -> None:
    """A customer asks which cards they have on one of their accounts (and whether they work)."""
    c = me(
        s,
        "customer_id IN (SELECT a.customer_id FROM accounts a JOIN cards k USING (account_id) "
        "WHERE a.status != 'closed')",
    )
    acc = owned(s, c, "status != 'closed' AND account_id IN (SELECT account_id FROM cards)")
    what = acc_ref(s, acc)
    cid = customer_asks(s, c, WORDS.cards_i_have, what=what)
    filters = {"type": acc["type"]} if s.rng.random() < 0.4 else {}
    if not any(a["account_id"] == acc["account_id"] for a in my_accounts(s, cid, **filters)):
        raise Skip("the account is not on the first page")
    s.call("list_cards", account_id=acc["account_id"])
    s.memory["account"] = acc


@banking.intent(covers=("get_distinct_values", "list_accounts", "search_customers"))
def branch_review(s: Scene) -> None:
    """A branch analyst looks at how accounts or customers spread, then drills into one group."""
    if s.rng.random() < 0.5:
        status = s.rng.choice(("frozen", "closed"))
        floor = s.rng.choice((None, 1000, 5000))
        s.say(WORDS.branch_review)
        if status not in s.call("get_distinct_values", field="account_status")["values"]:
            raise Skip("no account in that status")
        big = f" holding at least {money(floor)}" if floor else ""
        s.say(WORDS.branch_review_status_accounts, st=status, big=big)
        s.call("list_accounts", status=status, **({"min_balance": float(floor)} if floor else {}))
    else:
        s.say(WORDS.branch_review_cities)
        cities = s.call("get_distinct_values", field="city")["values"]
        city = s.rng.choice(sorted(cities))
        s.say(WORDS.branch_review_city_customers, c=city)
        s.call("search_customers", query=city)
