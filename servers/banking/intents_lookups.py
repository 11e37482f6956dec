"""Banking goals that start with a look at what the customer holds: their balances, one account read by
the number on a statement, the cards on an account. What comes back is left in ``s.memory`` so the next
turn can act on it ("move $300 of that into savings", "lock the one ending 4421").
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.banking.intents import ACCOUNTS, acc_ref, customer_asks, find_me, me, my_accounts, owned, who
from servers.banking.tools import banking


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
