"""Payments goals that fix or repeat earlier billing: a corrected invoice in place of a wrong one, the same
bill as last time, every draft of a customer sent (or dropped) at once. The agent reads the customer's
invoices first and acts on what the listing shows.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.payments.intents import (
    INVOICE,
    WORDS,
    current_customer,
    find_customer,
    invoice_ref,
    listed_before,
    sending,
    unpaid_invoice,
    who,
)
from servers.payments.tools import payments


def bill_like(s: Scene, like: dict[str, Any], amount: float) -> dict[str, Any]:
    """A new invoice as ``like`` (an invoice as listed: the same merchant, customer and description) for
    ``amount``."""
    new: dict[str, Any] = s.call(
        "create_invoice",
        merchant_id=like["merchant_id"],
        customer_id=like["customer_id"],
        amount=amount,
        description=like["description"],
    )
    return new


@payments.intent(
    covers=("search_customers", "list_invoices", "update_invoice_status", "create_invoice", "get_invoice"), follows=True
)
def reissue_corrected(s: Scene) -> None:
    """An unpaid invoice went out with the wrong amount: it is voided and a corrected one is issued."""
    c, inv = unpaid_invoice(s, "('open', 'draft')")
    factor = s.rng.choice((0.5, 0.8, 0.9, 1.1, 1.25))
    amount = round(inv["amount"] * factor, 2)
    right = s.given(amount, money(amount, inv["currency"]), "amount", "create_invoice", "amount")
    what = invoice_ref(s, inv, "unpaid " if inv["status"] == "open" else "draft ")
    send = inv["status"] == "open" or s.rng.random() < 0.5
    then = sending(s, send)
    s.say(
        "We got {what} for {who} wrong[: it should be {right}]. Cancel it and bill them again correctly." + then,
        "{who}'s {short} has the wrong amount on it. Please void it and raise a new one[ for {right}]." + then,
        "Redo {what} for {who}[ at {right}]: scrap the old one and issue a corrected invoice." + then,
        minimal=["{who}'s {short} needs fixing[: {right} is the right amount]."],
        what=what,
        short=what.removeprefix("the "),
        who=who(s, c),
        right=right,
    )
    old = listed_before(s, c["customer_id"], inv["invoice_id"], inv["status"])
    if not old:
        found = find_customer(s, c)
        listed = s.call("list_invoices", customer_id=found["customer_id"], status=inv["status"])["invoices"]
        old = [i for i in listed if i["invoice_id"] == inv["invoice_id"]]
    if not old:
        raise Skip("the invoice is past the first page")
    s.call("update_invoice_status", invoice_id=inv["invoice_id"], status="void", reason="wrong amount")
    new = bill_like(s, old[0], amount)
    if send and s.room():
        s.call("update_invoice_status", invoice_id=new["invoice_id"], status="open")
    s.memory["invoice"] = new
    if s.by_chance(0.5):
        s.say(WORDS.reissue_corrected)
        s.call("get_invoice", invoice_id=new["invoice_id"])


@payments.intent(covers=("search_customers", "list_invoices", "create_invoice", "update_invoice_status"), follows=True)
def bill_like_last_time(s: Scene) -> None:
    """A customer is billed again for the same thing and amount as their last paid invoice."""
    c = current_customer(s, "c.customer_id IN (SELECT customer_id FROM invoices WHERE status = 'paid')", other=0.4)
    paid = s.rows(
        INVOICE + " WHERE i.customer_id = ? AND i.status = 'paid' ORDER BY i.created_at DESC, i.invoice_id DESC",
        c["customer_id"],
    )
    last = paid[0]
    if len(paid) > 1 and paid[1]["created_at"] == last["created_at"]:
        raise Skip("two latest paid invoices")
    send = s.rng.random() < 0.6
    then = sending(s, send)
    amount = last["amount"]
    if s.rng.random() < 0.4:  # same thing, new price: the price is what only the user knows
        amount = round(last["amount"] * s.rng.choice((1.05, 1.1, 1.2)), 2)
        price = s.given(amount, money(amount, last["currency"]), "amount", "create_invoice", "amount")
        s.say(
            "Bill {who} for the same thing as their last paid invoice, but at our new price[ of {price}]." + then,
            "{who} wants a repeat of their last order; our rate went up[, so make it {price}]." + then,
            minimal=["{who}: same as last time, new price[ {price}]."],
            who=who(s, c),
            price=price,
        )
    else:
        s.say(
            "Bill {who} again for the same as their last paid invoice." + then,
            "{who} wants a repeat of what they had last time; invoice them the same amount." + then,
            "Same again for {who}: copy their most recent paid invoice into a new one." + then,
            minimal=["{who}: same as last time."],
            who=who(s, c),
        )
    found = find_customer(s, c)
    args: dict[str, Any] = {"customer_id": found["customer_id"], "status": "paid"}
    if s.rng.random() < 0.3:
        args["limit"] = 1
    listed = s.call("list_invoices", **args)["invoices"]
    if not listed or listed[0]["invoice_id"] != last["invoice_id"]:
        raise Skip("the listing does not start with the last paid invoice")
    new = bill_like(s, listed[0], amount)
    if send:
        s.call("update_invoice_status", invoice_id=new["invoice_id"], status="open")
    s.memory["invoice"] = new


@payments.intent(covers=("search_customers", "list_invoices", "update_invoice_status"))
def all_their_drafts(s: Scene) -> None:
    """Every draft of a customer (two or three) is sent out, or dropped, at once."""
    c = current_customer(
        s,
        "(SELECT COUNT(*) FROM invoices i WHERE i.customer_id = c.customer_id AND i.status = 'draft') BETWEEN 2 AND 3",
    )
    drafts = s.rows("SELECT invoice_id FROM invoices WHERE customer_id = ? AND status = 'draft'", c["customer_id"])
    send = s.rng.random() < 0.6
    name = who(s, c)
    if send:
        s.say(WORDS.all_their_drafts, who=name)
    else:
        s.say(WORDS.all_their_drafts_void, who=name)
    found = find_customer(s, c)
    listed = s.call("list_invoices", customer_id=found["customer_id"], status="draft")["invoices"]
    if sorted(i["invoice_id"] for i in listed) != sorted(d["invoice_id"] for d in drafts):
        raise Skip("the listing does not hold exactly the drafts")
    if not s.room(len(listed), 0):
        raise Skip("too many drafts for the dialogue")
    for i in listed:
        args: dict[str, Any] = {"invoice_id": i["invoice_id"], "status": "open" if send else "void"}
        if not send:
            args["reason"] = "customer cancelled"
        s.call("update_invoice_status", **args)
