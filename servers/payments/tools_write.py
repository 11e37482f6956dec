"""The payments write tools: invoices issued and moved on, payments taken, refunds and webhooks."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, next_id
from servers.payments.tools import (
    MAX_ENDPOINTS,
    Amount,
    CustomerId,
    EventType,
    InvoiceId,
    MerchantId,
    PaymentId,
    get_invoice,
    payments,
)


def _emit(ctx: Ctx, merchant_id: str, event_type: str, object_id: str) -> list[str]:
    """Record a delivery of the event to every active endpoint of the merchant subscribed to it."""
    ids = []
    for endpoint_id, events in ctx.db.execute(
        "SELECT endpoint_id, events FROM webhook_endpoints WHERE merchant_id = ? AND status = 'active' "
        "ORDER BY endpoint_id",
        (merchant_id,),
    ).fetchall():
        if event_type in events.split(","):
            delivery_id = next_id(ctx.db, "webhook_deliveries", "delivery_id", "WHD", 5)
            ctx.db.execute(
                "INSERT INTO webhook_deliveries VALUES (?,?,?,?,?,?,?,?)",
                (delivery_id, endpoint_id, merchant_id, event_type, object_id, "delivered", 200, fake.iso(ctx.now)),
            )
            ids.append(delivery_id)
    return ids


def _portion(amount: float | None, left: float, verb: str) -> float:
    """``amount`` rounded to the cent, or all that is ``left`` when not given; a ToolError if it rounds to 0."""
    value = left if amount is None else round(amount, 2)
    if value <= 0:
        raise ToolError(f"The amount rounds to 0.00; {verb} at least 0.01.")
    return value


@payments.write(returns=("invoice",))
def create_invoice(
    ctx: Ctx,
    merchant_id: MerchantId,
    customer_id: CustomerId,
    amount: Amount,
    description: Annotated[str, Field(min_length=1, max_length=200, description="What is billed, e.g. 'Logo design'")],
    due_in_days: Annotated[int, Field(ge=0, le=365, description="Days until the invoice is due")] = 30,
) -> dict[str, Any]:
    """Create a draft invoice from a merchant to one of its customers, e.g.
    create_invoice('MER-004', 'CST-0065', 250.0, 'Treatment session'). Finalize it with update_invoice_status(...,
    'open')."""
    m = MerchantId.get(ctx, merchant_id)
    c = CustomerId.get(ctx, customer_id)
    if c["merchant_id"] != merchant_id:
        raise ToolError(
            f"Customer {customer_id} belongs to merchant {c['merchant_id']}, not {merchant_id}; "
            f"invoice them from {c['merchant_id']} or pick one of {merchant_id}'s customers "
            "(search_customers(merchant_id=...))."
        )
    if not description.strip():
        raise ToolError("description is blank; say what is billed, e.g. 'Logo design'.")
    inv_id = next_id(ctx.db, "invoices", "invoice_id", "INV", 5)
    due = (ctx.now + timedelta(days=due_in_days)).strftime("%Y-%m-%d")
    ctx.db.execute(
        "INSERT INTO invoices VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            inv_id,
            merchant_id,
            customer_id,
            description.strip(),
            round(amount, 2),
            m["currency"],
            "draft",
            0.0,
            due,
            fake.iso(ctx.now),
            None,
            None,
            None,
            None,
        ),
    )
    _emit(ctx, merchant_id, "invoice.created", inv_id)
    return get_invoice(ctx, inv_id)


@payments.write(returns=("invoice",), requires=("create_invoice",))
def update_invoice_status(
    ctx: Ctx,
    invoice_id: InvoiceId,
    status: Literal["open", "void"],
    reason: Annotated[str, Field(max_length=200, description="Why an invoice is voided, e.g. 'issued in error'")] = "",
) -> dict[str, Any]:
    """Finalize a draft invoice (status='open', it can then be paid) or void a draft or open invoice
    (status='void'), e.g. update_invoice_status('INV-00004', 'void', reason='duplicate'). Paid and void invoices are
    final."""
    inv = InvoiceId.get(ctx, invoice_id)
    current = inv["status"]
    if current in ("paid", "void"):
        hint = (
            " To return money, refund its payments with refund_payment."
            if current == "paid"
            else " Create a new invoice instead."
        )
        raise ToolError(f"Invoice {invoice_id} is {current}, which is final.{hint}")
    if current == status:
        raise ToolError(f"Invoice {invoice_id} is already {status}.")
    if status == "void" and inv["amount_paid"] > 0:
        raise ToolError(
            f"Invoice {invoice_id} has already taken {inv['amount_paid']:.2f} {inv['currency']}; "
            "refund its payments with refund_payment before voiding, or collect the rest with pay_invoice."
        )
    at = fake.iso(ctx.now)
    if status == "open":
        ctx.db.execute("UPDATE invoices SET status = 'open', finalized_at = ? WHERE invoice_id = ?", (at, invoice_id))
        _emit(ctx, inv["merchant_id"], "invoice.finalized", invoice_id)
    else:
        ctx.db.execute(
            "UPDATE invoices SET status = 'void', voided_at = ?, void_reason = ? WHERE invoice_id = ?",
            (at, reason or "voided by merchant", invoice_id),
        )
        _emit(ctx, inv["merchant_id"], "invoice.voided", invoice_id)
    return {"invoice_id": invoice_id, "previous_status": current, "status": status}


@payments.write(returns=("payment", "invoice"), requires=("update_invoice_status",))
def pay_invoice(
    ctx: Ctx,
    invoice_id: InvoiceId,
    method: Literal["card", "bank_transfer", "wallet"] = "card",
    amount: Annotated[
        float | None, Field(gt=0, le=1_000_000, description="Amount to pay; omit to pay the whole amount due")
    ] = None,
) -> dict[str, Any]:
    """Take a payment against an open invoice, by default the whole amount due, e.g. pay_invoice('INV-00017', 'card')
    or pay_invoice('INV-00017', 'wallet', amount=50.0). The payment settles at once; the invoice becomes paid when
    covered."""
    inv = InvoiceId.get(ctx, invoice_id)
    if inv["status"] == "draft":
        raise ToolError(
            f"Invoice {invoice_id} is still a draft; "
            f"finalize it with update_invoice_status('{invoice_id}', 'open') first."
        )
    if inv["status"] != "open":
        raise ToolError(f"Invoice {invoice_id} is {inv['status']} and takes no payments.")
    due = round(inv["amount"] - inv["amount_paid"], 2)
    pay = _portion(amount, due, "pay")
    if pay > due + 1e-9:
        raise ToolError(
            f"{pay:.2f} {inv['currency']} is more than the {due:.2f} {inv['currency']} still due on {invoice_id}; "
            f"pay at most {due:.2f}."
        )
    pay_id = next_id(ctx.db, "payments", "payment_id", "PMT", 5)
    at = fake.iso(ctx.now)
    ctx.db.execute(
        "INSERT INTO payments VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            pay_id,
            invoice_id,
            inv["merchant_id"],
            inv["customer_id"],
            pay,
            inv["currency"],
            method,
            "settled",
            0.0,
            None,
            at,
        ),
    )
    paid = round(inv["amount_paid"] + pay, 2)
    status = "paid" if paid >= inv["amount"] - 0.004 else "open"
    ctx.db.execute(
        "UPDATE invoices SET amount_paid = ?, status = ?, paid_at = ? WHERE invoice_id = ?",
        (paid, status, at if status == "paid" else None, invoice_id),
    )
    deliveries = _emit(ctx, inv["merchant_id"], "payment.succeeded", pay_id)
    if status == "paid":
        deliveries += _emit(ctx, inv["merchant_id"], "invoice.paid", invoice_id)
    return {
        "payment_id": pay_id,
        "invoice_id": invoice_id,
        "amount": pay,
        "currency": inv["currency"],
        "status": "settled",
        "invoice_status": status,
        "amount_due": round(inv["amount"] - paid, 2),
        "webhook_deliveries": deliveries,
    }


@payments.write(returns=("refund", "payment"), requires=("pay_invoice",))
def refund_payment(
    ctx: Ctx,
    payment_id: PaymentId,
    amount: Annotated[
        float | None,
        Field(gt=0, le=1_000_000, description="Amount to refund; omit to refund everything not yet refunded"),
    ] = None,
    reason: Literal[
        "requested_by_customer", "duplicate", "service_not_rendered", "damaged_goods", "fraudulent"
    ] = "requested_by_customer",
) -> dict[str, Any]:
    """Refund all or part of a settled payment, e.g. refund_payment('PMT-00012', amount=20.0, reason='damaged_goods').
    Only settled payments can be refunded, and never more than what is left unrefunded."""
    p = PaymentId.get(ctx, payment_id)
    if p["status"] == "pending":
        raise ToolError(
            f"Payment {payment_id} ({p['method']}) is still pending settlement and cannot be refunded yet; "
            "refund a settled payment."
        )
    if p["status"] == "failed":
        raise ToolError(
            f"Payment {payment_id} failed ({p['failure_reason']}); no money was taken, so there is nothing to refund."
        )
    if p["status"] == "refunded":
        raise ToolError(f"Payment {payment_id} is already fully refunded ({p['refunded_amount']:.2f} {p['currency']}).")
    left = round(p["amount"] - p["refunded_amount"], 2)
    value = _portion(amount, left, "refund")
    if value > left + 1e-9:
        raise ToolError(
            f"Cannot refund {value:.2f} {p['currency']} on {payment_id}: it was {p['amount']:.2f}, "
            f"{p['refunded_amount']:.2f} is already refunded, so at most {left:.2f} can be refunded."
        )
    refund_id = next_id(ctx.db, "refunds", "refund_id", "RFD")
    ctx.db.execute("INSERT INTO refunds VALUES (?,?,?,?,?)", (refund_id, payment_id, value, reason, fake.iso(ctx.now)))
    refunded = round(p["refunded_amount"] + value, 2)
    status = "refunded" if refunded >= p["amount"] - 0.004 else "settled"
    ctx.db.execute(
        "UPDATE payments SET refunded_amount = ?, status = ? WHERE payment_id = ?", (refunded, status, payment_id)
    )
    deliveries = _emit(ctx, p["merchant_id"], "payment.refunded", payment_id)
    return {
        "refund_id": refund_id,
        "payment_id": payment_id,
        "amount": value,
        "currency": p["currency"],
        "payment_status": status,
        "refundable_left": round(p["amount"] - refunded, 2),
        "webhook_deliveries": deliveries,
    }


@payments.write(returns=("webhook_endpoint",))
def register_webhook(
    ctx: Ctx,
    merchant_id: MerchantId,
    url: Annotated[
        str,
        Field(min_length=1, max_length=300, description="The https endpoint URL, e.g. 'https://api.example.com/hooks'"),
    ],
    events: Annotated[
        list[EventType],
        Field(min_length=1, max_length=6, description="Event types to deliver, e.g. ['payment.succeeded']"),
    ],
) -> dict[str, Any]:
    """Register a webhook endpoint for a merchant; later invoice and payment events of the subscribed types are
    delivered to it, e.g. register_webhook('MER-004', 'https://hooks.fernhill.example.com/pay', ['payment.succeeded',
    'invoice.paid'])."""
    MerchantId.get(ctx, merchant_id)
    url = url.strip()
    if not url.startswith("https://") or len(url) <= len("https://") or any(ch.isspace() for ch in url):
        raise ToolError(
            f"{url!r} is not a valid https URL; webhook endpoints must use https, e.g. 'https://api.example.com/hooks'."
        )
    existing = ctx.db.execute(
        "SELECT endpoint_id FROM webhook_endpoints WHERE merchant_id = ? AND url = ?", (merchant_id, url)
    ).fetchone()
    if existing:
        raise ToolError(
            f"{merchant_id} already has endpoint {existing[0]} for {url}; see list_webhook_deliveries('{merchant_id}')."
        )
    count = ctx.value("SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = ?", (merchant_id,))
    if count >= MAX_ENDPOINTS:
        raise ToolError(
            f"{merchant_id} already has {count} webhook endpoints, the maximum; reuse an existing endpoint."
        )
    endpoint_id = next_id(ctx.db, "webhook_endpoints", "endpoint_id", "WHE", 3)
    subscribed = sorted(set(events))
    ctx.db.execute(
        "INSERT INTO webhook_endpoints VALUES (?,?,?,?,?,?)",
        (endpoint_id, merchant_id, url, ",".join(subscribed), "active", fake.iso(ctx.now)),
    )
    return {
        "endpoint_id": endpoint_id,
        "merchant_id": merchant_id,
        "url": url,
        "events": subscribed,
        "status": "active",
    }
