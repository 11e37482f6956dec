"""Payments goals on one invoice of a customer: bill them, take their payment, cancel or send out an invoice,
give money back. The agent finds the invoice as ``how_to_find`` draws (by its number, through the customer,
or through the merchant's customers).
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, day, money
from servers.payments.intents import (
    INVOICE,
    METHODS,
    REASONS,
    VOID_REASONS,
    WORDS,
    current_customer,
    find_customer,
    find_invoice,
    how_to_find,
    name_invoice,
    say_invoice,
    sending,
    unpaid_invoice,
    who,
)
from servers.payments.tools import payments


@payments.intent(
    covers=("search_customers", "create_invoice", "update_invoice_status", "get_invoice"), weight=1.5, follows=True
)
def bill_customer(s: Scene) -> None:
    """Bill a customer for something new, and send the invoice out."""
    c = current_customer(s, "1=1", other=0.4)
    amount = round(s.rng.choice((1, 1, 5, 10)) * s.rng.uniform(12, 480), 2)
    item = s.rng.choice(WORDS.items)
    days = s.rng.choice((7, 14, 30, 45))
    price = s.given(amount, money(amount, c["currency"]), "amount", "create_invoice", "amount")
    what = s.given(item, f"'{item}'", "description", "create_invoice", "description")
    send = s.rng.random() < 0.6
    then = sending(s, send)
    due = f"due in {days} days" if days != 30 else "on the usual 30 days"
    s.say(
        "{Can|Could} you bill {who}[ {price}] for {what}, {due}?" + then,
        "{who} needs an invoice from us for {what}[, {price}], {due}." + then,
        "{Please draw up|I need} an invoice to {who} for {what}[ ({price})], {due}." + then,
        "Invoice {who} for {what}[, {price}], {due}{, please|}." + then,
        minimal=["{who} owes us {price} for {what}; get that billed, {due}."],
        who=who(s, c),
        price=price,
        what=what,
        due=due,
    )
    found = find_customer(s, c)
    inv = s.call(
        "create_invoice",
        merchant_id=found["merchant_id"],
        customer_id=found["customer_id"],
        amount=amount,
        description=item,
        **({"due_in_days": days} if days != 30 else {}),
    )
    if send:
        s.call("update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    elif s.rng.random() < 0.5:
        s.say(WORDS.bill_customer)
        s.call("update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    else:
        s.say(WORDS.bill_customer_then_review)
        s.call("get_invoice", invoice_id=inv["invoice_id"])
    s.memory["invoice"] = inv


@payments.intent(covers=("search_customers", "list_invoices", "pay_invoice", "get_invoice"), weight=1.5, follows=True)
def settle_open_invoice(s: Scene) -> None:
    """A customer pays (all or part of) an open invoice."""
    c = current_customer(s, "c.customer_id IN (SELECT customer_id FROM invoices WHERE status = 'open')", other=0.4)
    inv = s.pick(INVOICE + " WHERE i.customer_id = ? AND i.status = 'open'", c["customer_id"])
    due = round(inv["amount"] - inv["amount_paid"], 2)
    method = s.rng.choice(list(METHODS))
    part = round(due * s.rng.choice((0.25, 0.5)), 2) if s.rng.random() < 0.3 and due > 20 else None
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "open ", path)
    how = f" by {METHODS[method]}" if not s.minimal else ""
    if part is not None:
        s.say(WORDS.settle_open_invoice, who=person, what=what, how=how, part=money(part, inv["currency"]))
    else:
        s.say(WORDS.settle_open_invoice_full, who=person, what=what, how=how)
    found = find_invoice(s, c, inv, "open", path)
    if found is None and part is None and s.room(2, 0) and s.rng.random() < 0.3:
        s.call("get_invoice", invoice_id=inv["invoice_id"])  # the agent checks what is due before charging
    args: dict[str, Any] = {"invoice_id": inv["invoice_id"]}
    if how:
        args["method"] = method
    if part is not None:
        args["amount"] = part
    paid = s.call("pay_invoice", **args)
    s.memory["invoice"] = inv
    s.memory["payment"] = {"payment_id": paid["payment_id"], "invoice_id": inv["invoice_id"]}
    if s.room() and (part is not None or s.rng.random() < 0.5):
        s.say(*WORDS.still_due)
        s.call("get_invoice", invoice_id=paid["invoice_id"])
    s.memory["invoice"] = inv


@payments.intent(covers=("search_customers", "list_invoices", "update_invoice_status", "get_invoice"), follows=True)
def void_invoice(s: Scene) -> None:
    """An invoice that should never have gone out is cancelled."""
    c, inv = unpaid_invoice(s, "('draft', 'open')")
    reason = s.rng.choice(list(VOID_REASONS))
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "", path)
    say_invoice(s, what, person, WORDS.void_invoice, why=VOID_REASONS[reason])
    find_invoice(s, c, inv, inv["status"], path)
    args = {"invoice_id": inv["invoice_id"], "status": "void"}
    if not s.minimal:
        args["reason"] = reason
    s.call("update_invoice_status", **args)
    s.memory["invoice"] = inv
    known = s.memory.get("customer")
    if not s.room() or s.rng.random() < 0.4:
        return
    if known and s.rng.random() < 0.5:
        s.say(WORDS.void_invoice_then_still_owed, who=known["name"])
        s.call("list_invoices", customer_id=known["customer_id"], status="open")
    else:
        s.say(WORDS.void_invoice_then_confirm)
        s.call("get_invoice", invoice_id=inv["invoice_id"])


@payments.intent(covers=("search_customers", "list_invoices", "update_invoice_status", "get_invoice"), follows=True)
def send_draft(s: Scene) -> None:
    """A draft invoice is checked and sent out; the user asks when it is due."""
    c = current_customer(s, "c.customer_id IN (SELECT customer_id FROM invoices WHERE status = 'draft')", other=0.3)
    inv = s.pick(INVOICE + " WHERE i.customer_id = ? AND i.status = 'draft'", c["customer_id"])
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "", path)
    say_invoice(s, what, person, WORDS.send_draft)
    find_invoice(s, c, inv, "draft", path)
    s.call("update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    s.memory["invoice"] = inv
    if path != "number" and s.by_chance(0.6):
        s.say(WORDS.send_draft_then_due_date)
        s.call("get_invoice", invoice_id=inv["invoice_id"])


@payments.intent(
    covers=("search_customers", "list_invoices", "get_invoice", "refund_payment"), weight=1.5, follows=True
)
def refund_customer(s: Scene) -> None:
    """A customer gets money back on a paid invoice (all of it, or part)."""
    c = current_customer(
        s,
        "c.customer_id IN (SELECT customer_id FROM payments WHERE status = 'settled' AND refunded_amount = 0)",
        other=0.3,
    )
    inv = s.pick(
        INVOICE + " WHERE i.customer_id = ? AND i.status = 'paid' AND (SELECT COUNT(*) FROM payments p "
        "WHERE p.invoice_id = i.invoice_id AND p.status = 'settled' AND p.refunded_amount = 0) = 1 "
        "AND (SELECT COUNT(*) FROM payments p WHERE p.invoice_id = i.invoice_id) = 1",
        c["customer_id"],
    )
    pay = s.rows("SELECT * FROM payments WHERE invoice_id = ?", inv["invoice_id"])[0]
    reason = s.rng.choice(list(REASONS))
    part = round(pay["amount"] * s.rng.choice((0.2, 0.5)), 2) if s.rng.random() < 0.35 else None
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "paid ", path)
    when = day(pay["created_at"], s.now)
    how_much = f"{money(part, pay['currency'])} back" if part is not None else "their money back"
    s.say(WORDS.refund_customer, who=person, why=s.rng.choice(REASONS[reason]), how_much=how_much, what=what, when=when)
    full = find_invoice(s, c, inv, "paid", path) or s.call("get_invoice", invoice_id=inv["invoice_id"])
    args: dict[str, Any] = {"payment_id": full["payments"][0]["payment_id"]}
    if reason != "requested_by_customer" or s.rng.random() < 0.5:
        args["reason"] = reason
    if part is not None:
        args["amount"] = part
    back = s.call("refund_payment", **args)
    s.memory["invoice"] = inv
    s.memory["payment"] = {"payment_id": back["payment_id"], "invoice_id": inv["invoice_id"]}
    if s.by_chance(0.4):
        s.say(WORDS.refund_customer_then_check)
        s.call("get_invoice", invoice_id=inv["invoice_id"])
    s.memory["refund"] = back
