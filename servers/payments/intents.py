"""What people want of the payments platform: a merchant's bookkeeper billing, collecting, refunding.

The user works for one merchant and knows its customers by name, invoices by what they bill and
their amount (or by the number printed on them), and payments by when and how they were made.
The agent finds merchant and customer ids with ``search_customers`` (a merchant's name matches
its customers), invoices with ``list_invoices`` and payments with ``get_invoice``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, last_digits, money
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Search, Speaker
from servers.payments import tools_write  # noqa: F401  (the write tools register before the intents that cover them)
from servers.payments.tools import CustomerId, payments

WORDS = phrasings(__package__)

CUSTOMER = (
    "SELECT c.customer_id, c.name, c.email, c.merchant_id, m.name AS merchant, m.currency "
    "FROM customers c JOIN merchants m USING (merchant_id)"
)
INVOICE = (
    "SELECT i.*, c.name AS customer, m.name AS merchant FROM invoices i "
    "JOIN customers c USING (customer_id) JOIN merchants m ON m.merchant_id = i.merchant_id"
)
REASONS = WORDS.family("reasons")
METHODS = {"card": "card", "bank_transfer": "bank transfer", "wallet": "their wallet app"}
VOID_REASONS = {
    "issued in error": "was issued by mistake",
    "duplicate": "is a duplicate",
    "customer cancelled": "got cancelled by the customer",
}
SEND_NOW = (
    " And send it to them right away.",
    " Go ahead and issue it.",
    " It can go out {now|today}.",
    " Issue it straight away.",
    " Send it {straight out|over} {now|right away}.",
)
AS_DRAFT = ("", "", " Keep it as a draft for now.", " Leave it as a draft.", " Don't send it yet.")


# the customers are spoken about, never speak: the Speaker serves their discovery read only (``who`` always names
# them, where ``Speaker.who`` would say nothing once they were found)
CUSTOMERS = Speaker(
    CustomerId,
    select=CUSTOMER,
    memory="customer",
    search=Search(missing="the customer is past the first page of the search"),
    keep=("merchant_id", "email"),
)


def who(s: Scene, c: dict[str, Any]) -> str:
    """A customer as the merchant's staff name them, proven unique among all customers."""
    return s.refer(
        c["customer_id"],
        Ref("{name}", "SELECT customer_id FROM customers WHERE name = ?", c["name"]),
        Ref(
            "{name} (one of ours at {merchant})",
            "SELECT customer_id FROM customers WHERE name = ? AND merchant_id = ?",
            c["name"],
            c["merchant_id"],
        ),
        Ref("{name} ({email})", "SELECT customer_id FROM customers WHERE email = ?", c["email"]),
        name=c["name"],
        merchant=c["merchant"],
        email=c["email"],
    )


def find_customer(s: Scene, c: dict[str, Any]) -> dict[str, Any]:
    """The discovery call for a customer (skipped when an earlier turn already found them): as they are
    remembered (their id, name, merchant's id)."""
    CUSTOMERS.find(s, c)
    return dict(s.memory["customer"])


def current_customer(s: Scene, where: str, *params: Any, other: float = 0.0) -> dict[str, Any]:
    """The customer an earlier turn was about (a follow-up stays with them: ``Skip`` when they do not fit
    ``where``), else a fresh pick among the dialogue's merchant's customers (any merchant's in an opener).
    With chance ``other`` a follow-up moves on to another customer of the same merchant (the bookkeeper
    works through their list)."""
    earlier = s.memory.get("customer")
    if earlier and s.rng.random() < other:
        return s.pick(
            CUSTOMER + f" WHERE c.merchant_id = ? AND c.customer_id != ? AND ({where})",
            earlier["merchant_id"],
            earlier["customer_id"],
            *params,
        )
    known = s.recall(
        "customer", "customer_id", CUSTOMER + f" WHERE c.customer_id = ? AND ({where})", *params, who="customer"
    )
    if known is not None:
        return known
    mid = our_merchant(s)
    if mid:
        return s.pick(CUSTOMER + f" WHERE c.merchant_id = ? AND ({where})", mid, *params)
    return s.pick(CUSTOMER + f" WHERE {where}", *params)


def unpaid_invoice(s: Scene, statuses: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A customer (as ``current_customer``, moving on now and then) with an invoice in ``statuses`` (an SQL list)
    that nothing was paid on, and one such invoice."""
    c = current_customer(
        s,
        f"c.customer_id IN (SELECT customer_id FROM invoices WHERE status IN {statuses} AND amount_paid = 0)",
        other=0.3,
    )
    inv = s.pick(
        INVOICE + f" WHERE i.customer_id = ? AND i.status IN {statuses} AND i.amount_paid = 0", c["customer_id"]
    )
    return c, inv


def our_merchant(s: Scene) -> str | None:
    """The merchant the user works for, once an earlier turn found its id (a follow-up stays with it)."""
    c = s.memory.get("customer")
    return str(c["merchant_id"]) if c else s.memory.get("merchant_id")


def merchant_of_dialogue(s: Scene, where: str, *params: Any) -> dict[str, Any]:
    """The merchant the user works for: the dialogue's (``Skip`` when it does not fit ``where``), else a
    fresh pick among the merchants that fit."""
    sql = "SELECT m.merchant_id, m.name, m.currency FROM merchants m WHERE (" + where + ")"
    mid = our_merchant(s)
    if mid:
        found = s.rows(sql + " AND m.merchant_id = ?", *params, mid)
        if not found:
            raise Skip("the dialogue's merchant does not fit")
        return found[0]
    return s.pick(sql, *params)


def find_merchant(s: Scene, merchant: str, merchant_id: str) -> str:
    """The merchant's id, read off a customer search by its name."""
    known = our_merchant(s)
    if known == merchant_id:
        return str(known)
    found = s.call("search_customers", query=merchant, limit=1)["customers"]
    if not found or found[0]["merchant_id"] != merchant_id:
        raise Skip("the merchant's name does not find its customers")
    s.memory["merchant_id"] = merchant_id
    return str(found[0]["merchant_id"])


def list_for(s: Scene, customer_id: str, inv: dict[str, Any], status: str) -> list[dict[str, Any]]:
    """The customer's invoices, filtered the way an agent would from what the user said: by status,
    or (when the user named the amount) by a floor just under it, or not at all."""
    seen = listed_before(s, customer_id, inv["invoice_id"], status)
    if seen:
        return seen  # an earlier turn listed it: the agent knows its id
    args: dict[str, Any] = {"customer_id": customer_id}
    draw = s.rng.random()
    if draw < 0.55:
        args["status"] = status
    elif draw < 0.7:
        args |= {"status": status, "min_amount": float(int(inv["amount"]))}
    found: list[dict[str, Any]] = s.call("list_invoices", **args)["invoices"]
    return [i for i in found if i["status"] == status]


def listed_before(s: Scene, customer_id: str, invoice_id: str, status: str) -> list[dict[str, Any]]:
    """The invoice as an earlier listing of the customer's invoices in this dialogue showed it, when it showed
    it in ``status`` (the state it is still in)."""
    for c in s.calls:
        if c.tool == "list_invoices" and c.arguments.get("customer_id", customer_id) == customer_id:
            rows = [i for i in c.result["invoices"] if i["invoice_id"] == invoice_id and i["status"] == status]
            if rows:
                return rows
    return []


def how_to_find(s: Scene) -> str:
    """How the agent will find the invoice: by the number the user reads off it, through the customer's
    search, or through the merchant's customer list (when the user names the merchant)."""
    if s.memory.get("customer"):
        return "search"
    draw = s.rng.random()
    return "number" if draw < 0.15 else "merchant" if draw < 0.35 else "search"


def name_invoice(s: Scene, c: dict[str, Any], inv: dict[str, Any], status_words: str, path: str) -> tuple[str, str]:
    """(the invoice, the customer) as the user names them for ``path``."""
    if path == "number":
        return f"invoice {inv['invoice_id']}", who(s, c)
    if path == "merchant":
        person = s.refer(
            c["customer_id"],
            Ref(
                "{name} (our customer at {m})",
                "SELECT customer_id FROM customers WHERE name = ? AND merchant_id = ?",
                c["name"],
                c["merchant_id"],
            ),
            name=c["name"],
            m=c["merchant"],
        )
        return invoice_ref(s, inv, status_words), person
    return invoice_ref(s, inv, status_words), who(s, c)


def find_invoice(s: Scene, c: dict[str, Any], inv: dict[str, Any], status: str, path: str) -> dict[str, Any] | None:
    """The discovery calls of ``path`` (the invoice itself when read by its number); ``Skip`` when the
    invoice is not where the agent would look."""
    for call in s.calls:
        if (
            call.tool == "get_invoice"
            and call.result["invoice_id"] == inv["invoice_id"]
            and call.result["status"] == status
        ):
            return dict(call.result)  # an earlier turn read it: the agent has it in front of it
    if path == "number":
        return dict(s.call("get_invoice", invoice_id=inv["invoice_id"]))
    if listed_before(s, c["customer_id"], inv["invoice_id"], status):
        return None  # an earlier turn listed it: no discovery needed
    if path == "merchant":
        mid = find_merchant(s, c["merchant"], c["merchant_id"])
        hits = s.discover(
            CustomerId,
            c["customer_id"],
            missing="the customer is not on the first page",
            query=c["name"],
            merchant_id=mid,
        )
        s.memory["customer"] = hits
        found = hits
    else:
        found = find_customer(s, c)
    listed = list_for(s, found["customer_id"], inv, status)
    if inv["invoice_id"] not in [i["invoice_id"] for i in listed]:
        raise Skip("the invoice is past the first page")
    return None


def sending(s: Scene, send: bool) -> str:
    """How a request to bill ends: send it now, or keep it a draft (mostly by saying nothing)."""
    return str(s.rng.choice(SEND_NOW if send else AS_DRAFT))


def say_invoice(s: Scene, what: str, person: str, *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> None:
    """A turn about an invoice (``{what}``, capitalised ``{What}``, ``{short}`` without "the") of ``{who}``."""
    short = what.removeprefix("the ")
    s.say(*phrasings, minimal=minimal, who=person, what=what, What=what[:1].upper() + what[1:], short=short, **slots)


def invoice_ref(s: Scene, inv: dict[str, Any], status_words: str) -> str:
    amount = money(inv["amount"], inv["currency"])
    return s.refer(
        inv["invoice_id"],
        Ref(
            "the {what} invoice",
            "SELECT invoice_id FROM invoices WHERE customer_id = ? AND status = ? AND description = ?",
            inv["customer_id"],
            inv["status"],
            inv["description"],
        ),
        Ref(
            "the {amount} {what} invoice",
            "SELECT invoice_id FROM invoices WHERE customer_id = ? AND status = ? AND description = ? AND amount = ?",
            inv["customer_id"],
            inv["status"],
            inv["description"],
            inv["amount"],
        ),
        what=f"{status_words}{inv['description']}".strip(),
        amount=amount,
    )


@payments.intent(covers=("get_invoice", "pay_invoice"))
def pay_by_number(s: Scene) -> None:
    """A customer reads an invoice number off the paper bill and pays what is still due."""
    mid = our_merchant(s)
    inv = (
        s.pick(INVOICE + " WHERE i.status = 'open' AND i.merchant_id = ?", mid)
        if mid
        else s.pick(INVOICE + " WHERE i.status = 'open'")
    )
    digits = last_digits(inv["invoice_id"], 5).lstrip("0")
    s.say(WORDS.pay_by_number, n=inv["invoice_id"], d=digits, m=inv["merchant"])
    s.call("get_invoice", invoice_id=inv["invoice_id"])
    method = s.rng.choice(list(METHODS))
    s.say(WORDS.pay_by_number_then_pay, how=METHODS[method])
    paid = s.call("pay_invoice", invoice_id=inv["invoice_id"], method=method)
    s.memory["invoice"] = inv
    s.memory["payment"] = {"payment_id": paid["payment_id"], "invoice_id": inv["invoice_id"]}
