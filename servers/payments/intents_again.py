"""Follow-up programs of payments dialogues: the customer pays the invoice now, gets part of a payment back,
the same is done to their other invoice, they get billed again; and what the merchant's endpoints heard.
Each reads what the dialogue left in ``s.memory`` and ``Skip``s when it is not there or no longer fits.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.payments.intents import INVOICE, METHODS, WORDS
from servers.payments.intents_followups import dialogue_invoice
from servers.payments.tools import payments

REFUND_WHY = WORDS.family("refund_why")


@payments.intent(covers=("pay_invoice",), follows=True, opens=False, weight=1.2)
def pay_it_now(s: Scene) -> None:
    """The customer pays the invoice of the dialogue right away (all that is due, or a part)."""
    inv = dialogue_invoice(s, "i.status = 'open'")
    if any(c.tool == "pay_invoice" and c.arguments.get("invoice_id") == inv["invoice_id"] for c in s.calls):
        raise Skip("the dialogue paid it already")
    due = round(inv["amount"] - inv["amount_paid"], 2)
    method = s.rng.choice(list(METHODS))
    part = round(due * 0.5, 2) if s.rng.random() < 0.3 and due > 20 else None
    if part is not None:
        s.say(WORDS.pay_it_now, part=money(part, inv["currency"]), how=METHODS[method])
    else:
        s.say(WORDS.pay_it_now_full, how=METHODS[method])
    paid = s.call(
        "pay_invoice", invoice_id=inv["invoice_id"], method=method, **({"amount": part} if part is not None else {})
    )
    s.memory["payment"] = {"payment_id": paid["payment_id"], "invoice_id": inv["invoice_id"]}


@payments.intent(covers=("refund_payment",), follows=True, opens=False)
def refund_some_of_it(s: Scene) -> None:
    """Part (or the rest) of the payment the dialogue made or refunded goes back to the customer."""
    known = s.known("payment", "no payment in the dialogue yet")
    pay = s.rows("SELECT * FROM payments WHERE payment_id = ? AND status = 'settled'", known["payment_id"])
    if not pay:
        raise Skip("the payment cannot be refunded")
    left = round(pay[0]["amount"] - pay[0]["refunded_amount"], 2)
    reason = s.rng.choice(list(REFUND_WHY))
    part = round(left * s.rng.choice((0.1, 0.25, 0.5)), 2)
    if part < 1:
        raise Skip("too little to refund")
    full = pay[0]["refunded_amount"] > 0 and s.rng.random() < 0.5
    ours = any(c.tool == "pay_invoice" and c.result.get("payment_id") == known["payment_id"] for c in s.calls)
    if full:
        s.say(WORDS.refund_some_of_it, why=s.rng.choice(REFUND_WHY[reason]))
    elif ours:
        s.say(WORDS.refund_some_of_it_part, amt=money(part, pay[0]["currency"]), why=s.rng.choice(REFUND_WHY[reason]))
    else:
        s.say(
            WORDS.refund_some_of_it_earlier_pay,
            amt=money(part, pay[0]["currency"]),
            why=(why := s.rng.choice(REFUND_WHY[reason])),
            Why=why[:1].upper() + why[1:],
        )
    args: dict[str, Any] = {"payment_id": known["payment_id"]}
    if not full:
        args["amount"] = part
    if reason != "requested_by_customer":
        args["reason"] = reason
    s.call("refund_payment", **args)


@payments.intent(covers=("list_invoices", "pay_invoice", "update_invoice_status"), follows=True, opens=False)
def same_for_the_other(s: Scene) -> None:
    """ "Do the same for her other one": what the dialogue just did to an invoice (pay, send, cancel), done to
    the customer's one other invoice in that state (read off a listing the dialogue made, or listed now)."""
    inv = dialogue_invoice(s)
    acts = [c for c in s.calls if c.tool in ("pay_invoice", "update_invoice_status")]
    if not acts or acts[-1].arguments.get("invoice_id") != inv["invoice_id"]:
        raise Skip("the dialogue did nothing to its invoice")
    act = acts[-1]
    what = "pay" if act.tool == "pay_invoice" else str(act.arguments["status"])
    states = {"pay": ("open",), "open": ("draft",), "void": ("draft", "open")}[what]
    others = s.rows(
        INVOICE + f" WHERE i.customer_id = ? AND i.status IN ({', '.join('?' * len(states))}) "
        "AND i.invoice_id != ? AND i.amount_paid = 0",
        inv["customer_id"],
        *states,
        inv["invoice_id"],
    )
    if len(others) != 1:
        raise Skip("no single other invoice in that state")
    other = others[0]
    phrasings = WORDS.family("same_for_the_other")[what]
    s.say(*phrasings, st="unpaid" if other["status"] == "open" else "draft")
    seen = [
        r["invoice_id"]
        for c in s.calls
        if c.tool == "list_invoices" and c.arguments.get("customer_id") == inv["customer_id"]
        for r in c.result.get("invoices", ())
    ]
    if other["invoice_id"] not in seen:
        found = s.call("list_invoices", customer_id=inv["customer_id"], status=other["status"])["invoices"]
        if other["invoice_id"] not in [r["invoice_id"] for r in found]:
            raise Skip("the other invoice is past the first page")
    rest = {k: v for k, v in act.arguments.items() if k in ("method", "status", "reason")}
    done = s.call(act.tool, invoice_id=other["invoice_id"], **rest)
    if what == "pay":
        s.memory["payment"] = {"payment_id": done["payment_id"], "invoice_id": other["invoice_id"]}
    s.memory["invoice"] = other


@payments.intent(covers=("search_customers",), follows=True, opens=False, weight=0.6)
def contact_on_file(s: Scene) -> None:
    """The user wants the email on file for the customer of the dialogue's invoice (not searched yet)."""
    inv = dialogue_invoice(s)
    if any(
        r["customer_id"] == inv["customer_id"]
        for c in s.calls
        if c.tool == "search_customers"
        for r in c.result["customers"]
    ):
        raise Skip("the dialogue found the customer already")
    if s.rows(
        "SELECT 1 FROM customers WHERE name = ? AND merchant_id = ? AND customer_id != ?",
        inv["customer"],
        inv["merchant_id"],
        inv["customer_id"],
    ):
        raise Skip("the name is shared")
    s.say(WORDS.contact_on_file)
    found = s.call("search_customers", query=inv["customer"], merchant_id=inv["merchant_id"])["customers"]
    if inv["customer_id"] not in [c["customer_id"] for c in found]:
        raise Skip("the customer is past the first page")
    s.memory["customer"] = next(c for c in found if c["customer_id"] == inv["customer_id"])


@payments.intent(covers=("create_invoice",), follows=True, opens=False, weight=0.8)
def bill_them_again(s: Scene) -> None:
    """The customer of the dialogue gets another (draft) invoice for something else."""
    c = s.known("customer", "no customer found in the dialogue yet")
    if s.intents[-2:-1] == ["bill_them_again"]:
        raise Skip("the last turn billed them again already")
    currency = s.value("SELECT currency FROM merchants WHERE merchant_id = ?", c["merchant_id"])
    amount = round(s.rng.uniform(15, 600), 2)
    item = s.rng.choice(WORDS.items)
    s.say(WORDS.bill_them_again, f=c["name"].split(" ")[0], amt=money(amount, currency), item=item)
    inv = s.call(
        "create_invoice", merchant_id=c["merchant_id"], customer_id=c["customer_id"], amount=amount, description=item
    )
    s.memory["invoice"] = inv


@payments.intent(covers=("list_webhook_deliveries",), follows=True, opens=False, weight=0.7)
def merchant_notifications(s: Scene) -> None:
    """The user checks the notifications their merchant's endpoints got."""
    c = s.memory.get("customer")
    mid = c["merchant_id"] if c else s.memory.get("merchant_id")
    if not mid or not s.rows("SELECT 1 FROM webhook_endpoints WHERE merchant_id = ?", mid):
        raise Skip("no merchant with endpoints in the dialogue yet")
    kind = s.rng.choice(("invoice.paid", "payment.refunded", "invoice.voided", None))
    words = {
        "invoice.paid": "paid-invoice",
        "payment.refunded": "refund",
        "invoice.voided": "cancelled-invoice",
        None: "recent",
    }[kind]
    s.say(WORDS.merchant_notifications, w=words)
    args: dict[str, Any] = {"merchant_id": mid}
    if kind:
        args["event_type"] = kind
    s.asked("list_webhook_deliveries", **args)
    s.call("list_webhook_deliveries", **args)
