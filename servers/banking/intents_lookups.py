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
    cid = customer_asks(
        s,
        c,
        "I'm {me}. Can you show me the latest {words} on {what}?",
        "{me} here: what's been happening on {what}?",
        "Hi, it's {me}. I'd like to go over {what}, recent {words} especially.",
        minimal=["{me}: what's new on {what}?"],
        what=what,
        words=words,
    )
    aid = account_of(s, cid, acc, narrow=True)
    args: dict[str, Any] = {"account_id": aid}
    if kind and not s.minimal:
        args["kind"] = kind
    s.call("list_transactions", **args)
    s.say(
        "Just the ones since {when}, please.",
        "Only what's from {when} on?",
        "Narrow that to {when} onwards.",
        "{Could you|Can you} {limit|cut} that to {when} {and later|onwards}?",
        "{Only|Just} {since|from} {when}{|, please} - the older ones don't matter.",
        "What came {through|in} {since|after} {when}?",
        when=day(since, s.now).removeprefix("on "),
    )
    s.call("list_transactions", **args, since=since)
    s.memory["account"] = acc


@banking.intent(covers=("search_customers", "get_customer", "get_account"))
def profile_and_balance(s: Scene) -> None:
    """A customer checks what the bank has on file for them, then one account's balance and overdraft."""
    c = me(s, "customer_id IN (SELECT customer_id FROM accounts GROUP BY customer_id HAVING COUNT(*) >= 2)")
    acc = owned(s, c, "status != 'closed'")
    cid = customer_asks(
        s,
        c,
        "{me} here. What address and phone number do you have for me, and which accounts are mine?",
        "This is {me}. Could you read me back my details on file and the accounts I hold?",
        "I'm {me}; I just moved, so first tell me what contact info you have and list my accounts.",
        minimal=["{me}: what's on my profile?"],
    )
    profile = s.call("get_customer", customer_id=cid)
    if acc["account_id"] not in profile["account_ids"]:
        raise Skip("the account is not on the profile")
    kind = WORDS[acc["type"]]
    s.say(
        "What's the balance on the {kind}, and is there an overdraft on it?",
        "How much is in the {kind} right now?",
        "And the {kind}: what's it at, and is it in good standing?",
        "{Could you|Can you} {check|look at} the {kind} {too|as well} - {balance|what's in it} and {overdraft|limits}?",
        "{What's|How's} the {kind} {doing|looking}{| at the moment}?",
        kind=kind,
    )
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
        s.say(
            "I'm {me}. Which of my accounts can I use right now, and what's in them?",
            "{me} here: what are my active accounts holding?",
            minimal=["{me}: my usable accounts?"],
            me=who(s, c),
        )
    elif draw < 0.5:
        filters = {"type": acc["type"]}
        s.say(
            "I'm {me}. What's the balance in {what}?",
            "{me} here: how much is in {what} today?",
            "This is {me}. Can you tell me where {what} stands?",
            minimal=["{me}: {what} balance?"],
            me=who(s, c),
            what=acc_ref(s, acc),
        )
    else:
        s.say(
            "I'm {me}. How much do I have in each of my accounts?",
            "{me} here: can you run through my balances?",
            "This is {me}. What accounts do I have with you and what's in them?",
            minimal=["{me}: my balances?"],
            me=who(s, c),
        )
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
    s.say(
        "This is {name}. My statement says account {aid}; what's the balance on it right now?",
        "Hi, {name} here. Can you check account {aid} for me? I want to know what's in it.",
        "I'm {name}. Is account {aid} in good standing, and what does it hold?",
        minimal=["{name}: account {aid}?"],
        name=c["name"],
        aid=acc["account_id"],
    )
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
    cid = customer_asks(
        s,
        c,
        "I'm {me}. Which cards do I have on {what}, and are they all working?",
        "{me} here: what cards are linked to {what}?",
        "This is {me}. I've lost track of my cards; which ones go with {what}?",
        minimal=["{me}: cards on {what}?"],
        what=what,
    )
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
        s.say(
            "What {states|statuses} can an account be in across the bank?",
            "Which account statuses do we have {on the books|in use}?",
            "{Give me|Show me} the account statuses in use.",
            minimal=["Account statuses?"],
        )
        if status not in s.call("get_distinct_values", field="account_status")["values"]:
            raise Skip("no account in that status")
        big = f" holding at least {money(floor)}" if floor else ""
        s.say(
            "{Show me|Pull up} the {st} ones{big}.",
            "Which accounts are {st}{big}{| right now}?",
            "{Give me|I need} the {st} accounts{big}.",
            st=status,
            big=big,
        )
        s.call("list_accounts", status=status, **({"min_balance": float(floor)} if floor else {}))
    else:
        s.say(
            "Which cities do our customers {live in|come from}?",
            "What cities is our customer base spread over?",
            "{Show me|Give me} the cities we have customers in.",
            minimal=["Customer cities?"],
        )
        cities = s.call("get_distinct_values", field="city")["values"]
        city = s.rng.choice(sorted(cities))
        s.say(
            "Who are our customers in {c}?",
            "{Pull up|Find} the customers based in {c}.",
            "Show me everyone {from|living in} {c}.",
            c=city,
        )
        s.call("search_customers", query=city)
