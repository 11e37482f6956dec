"""Payments goals that start by looking something up: an invoice by the number on a receipt, what a
customer owes, which invoice a webhook notice was about. What comes back is left in ``s.memory`` so
the next turn can act on it ("they'll pay it now", "cancel that one", "bill them again").
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, day, last_digits
from servers.payments.intents import INVOICE, WORDS, current_customer, find_customer, find_merchant, our_merchant, who
from servers.payments.tools import payments

STATUS_WORDS = {"open": "still open", "draft": "sitting in drafts", "paid": "already paid", "void": "cancelled"}


def remember_invoice(s: Scene, inv: dict[str, Any]) -> None:
    """What a read of one invoice tells the next turn: the invoice, its customer, and a payment that can
    still be refunded (the only settled one on it)."""
    s.memory["invoice"] = inv
    s.memory.setdefault(
        "customer", {"customer_id": inv["customer_id"], "name": inv["customer_name"], "merchant_id": inv["merchant_id"]}
    )
    settled = [p for p in inv.get("payments", ()) if p["status"] == "settled"]
    if len(settled) == 1:
        s.memory["payment"] = {"payment_id": settled[0]["payment_id"], "invoice_id": inv["invoice_id"]}


@payments.intent(covers=("get_invoice",), weight=1.2)
def invoice_by_number(s: Scene) -> None:
    """Someone holding an invoice (its number is printed on it) asks where it stands."""
    inv = s.pick(INVOICE + " WHERE i.status IN ('open', 'draft', 'paid')")
    digits = last_digits(inv["invoice_id"], 5).lstrip("0")
    s.say(WORDS.invoice_by_number, n=inv["invoice_id"], d=digits, m=inv["merchant"])
    remember_invoice(s, s.call("get_invoice", invoice_id=inv["invoice_id"]))


@payments.intent(covers=("search_customers", "list_invoices"), weight=1.5, follows=True)
def what_they_owe(s: Scene) -> None:
    """The bookkeeper asks what a customer has open, in drafts, or has paid (to act on one of them next)."""
    status = s.rng.choice(("open", "open", "draft", "paid"))
    c = current_customer(s, "c.customer_id IN (SELECT customer_id FROM invoices WHERE status = ?)", status, other=0.5)
    s.asked("list_invoices", customer_id=c["customer_id"], status=status)
    mine = s.rows(INVOICE + " WHERE i.customer_id = ? AND i.status = ?", c["customer_id"], status)
    overdue = status == "open" and s.rng.random() < 0.3
    minimal = "{who}: anything overdue?" if overdue else "{who}: {w}?"
    s.say(*(WORDS.behind if overdue else WORDS.holds), minimal=[minimal], who=who(s, c), w=STATUS_WORDS[status])
    found = find_customer(s, c)
    args: dict[str, Any] = {"customer_id": found["customer_id"]}
    args |= {"overdue": True} if overdue else {"status": status}
    listed = s.call("list_invoices", **args)["invoices"]
    if len(listed) == 1 and len(mine) == 1:
        s.memory["invoice"] = listed[0]


@payments.intent(covers=("search_customers", "list_webhook_deliveries", "get_invoice"), follows=True)
def which_invoice_was_that(s: Scene) -> None:
    """A developer sees a paid-invoice (or voided-invoice) notice and asks which invoice it was about."""
    event = s.rng.choice(("invoice.paid", "invoice.voided", "invoice.finalized"))
    words = {"invoice.paid": "paid-invoice", "invoice.voided": "cancelled-invoice", "invoice.finalized": "new-invoice"}
    mid = our_merchant(s)
    m = s.pick(
        "SELECT m.merchant_id, m.name FROM merchants m WHERE m.merchant_id IN (SELECT merchant_id FROM "
        "webhook_deliveries WHERE event_type = ?)" + (" AND m.merchant_id = ?" if mid else ""),
        event,
        *([mid] if mid else []),
    )
    latest = s.rows(
        "SELECT object_id, created_at FROM webhook_deliveries WHERE merchant_id = ? AND event_type = ? "
        "ORDER BY created_at DESC, delivery_id DESC LIMIT 1",
        m["merchant_id"],
        event,
    )[0]
    if s.turns:
        s.say(WORDS.which_invoice_was_that, w=words[event], when=day(latest["created_at"], s.now))
    else:
        s.say(WORDS.which_invoice_was_that_opening, m=m["name"], w=words[event], when=day(latest["created_at"], s.now))
    found = find_merchant(s, m["name"], m["merchant_id"])
    out = s.call("list_webhook_deliveries", merchant_id=found, event_type=event, limit=s.rng.choice((1, 5, 20)))
    if not out["deliveries"] or out["deliveries"][0]["object_id"] != latest["object_id"]:
        raise Skip("the listing does not start with the latest notice")
    inv = s.call("get_invoice", invoice_id=out["deliveries"][0]["object_id"])
    s.memory["invoice"] = inv
    if inv["status"] == "paid":
        remember_invoice(s, inv)
