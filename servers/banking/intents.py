"""What people want of their bank: a customer checking balances, moving money, paying people, minding cards.

The user is a customer who gives their name (with their city or email when the name is shared); the
agent finds their customer id with ``search_customers`` and their accounts with ``list_accounts``.
Customers hold at most one account of each type, so "my checking account" names one account; cards
are named by their last four digits, payees by name, amounts and dates as people say them. A branch
analyst asks about the bank as a whole (``get_distinct_values``, filtered account lists).
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.banking.tools import CustomerId

WORDS = phrasings(__package__)

CUSTOMERS = "SELECT customer_id, name, email, city FROM customers"


ACCOUNTS = "SELECT * FROM accounts"


KIND_WORDS = {"checking": "checking account", "savings": "savings account", "business": "business account"}


PAYEES = (
    ("Jordan Ellis", "my landlord"),
    ("Brightside Dental", "my dentist"),
    ("Maple Street Daycare", "the daycare"),
    ("Ortega Plumbing", "the plumber"),
    ("Riverside HOA", "the HOA"),
    ("Lena Fischer", "my sister"),
    ("Summit Auto Loans", "the car loan"),
    ("Greenleaf Tutoring", "my kid's tutor"),
)


SPEAKER = Speaker(
    CustomerId,
    select=CUSTOMERS,
    memory="customer",
    says=(Says("{name}", "name"), Says("{name} from {city}", "name", "city"), Says("{name} ({email})", "email")),
    search=Search(by=("name", "email")),
    late=True,
)


me = SPEAKER.me


find_me = SPEAKER.find


def who(s: Scene, c: dict[str, Any]) -> str:
    """How the customer introduces themself (``SPEAKER.says``); some read their customer number off a
    statement, and then the agent needs no search."""
    if not s.turns and s.level == "complete" and s.rng.random() < 0.15:
        s.memory["customer"] = {"customer_id": c["customer_id"], "name": c["name"]}
        number = Ref(
            "{name}, customer number {customer_id}",
            "SELECT customer_id FROM customers WHERE customer_id = ?",
            c["customer_id"],
        )
        return s.refer(c["customer_id"], number, **c)
    return SPEAKER.who(s, c)


def customer_asks(s: Scene, c: dict[str, Any], *phrasings: Said, **slots: Any) -> str:
    """The customer's turn (``{me}`` filled by ``who``) in one of ``phrasings``, then the discovery call for them:
    their customer id."""
    s.say(*phrasings, me=who(s, c), **slots)
    return find_me(s, c)


def my_accounts(s: Scene, cid: str, **filters: Any) -> list[dict[str, Any]]:
    """The customer's accounts, listed once per dialogue (a later turn reads the same listing)."""
    key = f"accounts:{cid}:{sorted(filters.items())}"
    if key not in s.memory:
        s.memory[key] = s.call("list_accounts", customer_id=cid, **filters)["accounts"]
    return list(s.memory[key])


def account_of(s: Scene, cid: str, acc: dict[str, Any], narrow: bool = False) -> str:
    """The account id as the agent reads it off the customer's account list (``narrow``: the agent may list
    only accounts of the type the user named, or only active ones)."""
    filters: dict[str, Any] = {}
    if narrow and s.rng.random() < 0.5:
        filters = {"type": acc["type"]} if s.rng.random() < 0.6 or acc["status"] != "active" else {"status": "active"}
    hit = [a for a in my_accounts(s, cid, **filters) if a["account_id"] == acc["account_id"]]
    if not hit:
        raise Skip("the account is not on the customer's first page")
    return str(hit[0]["account_id"])


def acc_ref(s: Scene, acc: dict[str, Any]) -> str:
    """'my savings account': one account of each type per customer, proven."""
    return s.refer(
        acc["account_id"],
        Ref(
            "my {kind}",
            "SELECT account_id FROM accounts WHERE customer_id = ? AND type = ?",
            acc["customer_id"],
            acc["type"],
        ),
        kind=KIND_WORDS[acc["type"]],
    )


def owned(s: Scene, c: dict[str, Any], where: str, *params: Any) -> dict[str, Any]:
    return s.pick(ACCOUNTS + f" WHERE customer_id = ? AND ({where})", c["customer_id"], *params)


def payee_ref(s: Scene, customer_id: str, payee: dict[str, Any]) -> str:
    """A saved payee as its customer names it: by name, with its bank when that is not enough."""
    return s.refer(
        payee["payee_id"],
        Ref("{n}", "SELECT payee_id FROM payees WHERE customer_id = ? AND name = ?", customer_id, payee["name"]),
        Ref(
            "{n} at {bank}",
            "SELECT payee_id FROM payees WHERE customer_id = ? AND name = ? AND bank_name = ?",
            customer_id,
            payee["name"],
            payee["bank_name"],
        ),
        n=payee["name"],
        bank=payee["bank_name"],
    )


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: Said, **slots: Any) -> Any:
    """The customer asks for a read the dialogue has not made yet (``Skip`` when it has); the agent makes it: its
    result."""
    s.asked(tool, **args)
    s.say(*phrasings, **slots)
    return s.call(tool, **args)


def amount_of(s: Scene, low: float, high: float) -> float:
    """An amount a person would pick: round tens for large sums, cents for small ones."""
    if high < low:
        raise Skip("no room for an amount")
    value = s.rng.uniform(low, high)
    return float(round(value, -1)) if value > 100 and s.rng.random() < 0.7 else round(value, 2)


def current_account(s: Scene, where: str = "1=1") -> dict[str, Any]:
    """The account an earlier turn acted on, as it is now (``Skip`` when there is none or it does not fit)."""
    acc = s.memory.get("account")
    if not acc or not s.memory.get("customer"):
        raise Skip("no account in the dialogue yet")
    found = s.rows(ACCOUNTS + f" WHERE account_id = ? AND ({where})", acc["account_id"])
    if not found:
        raise Skip("the account does not fit")
    return found[0]


def seen(s: Scene, tool: str, listed: str, key: str, value: Any) -> bool:
    """Whether an earlier read of the dialogue listed the row (the agent holds its id and knows what it is)."""
    for c in s.calls:
        if c.tool == tool and isinstance(c.result, dict):
            if any(isinstance(r, dict) and r.get(key) == value for r in c.result.get(listed) or ()):
                return True
    return False


def reach_account(s: Scene, acc: dict[str, Any]) -> str:
    """The id of one of the customer's accounts: known when an earlier turn listed or read it, else read off
    their account list now."""
    aid = acc["account_id"]
    known = seen(s, "list_accounts", "accounts", "account_id", aid) or any(
        c.tool in ("get_account", "open_account") and c.result.get("account_id") == aid for c in s.calls
    )
    if known:
        return str(aid)
    if not any(a["account_id"] == aid for a in my_accounts(s, acc["customer_id"])):
        raise Skip("the account is not on the customer's first page")
    return str(aid)


def the_customer(s: Scene) -> dict[str, Any]:
    return dict(s.known("customer", "no customer in the dialogue yet"))
