"""The payments tools: discovery reads, invoices, payments, refunds and webhooks."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Entity, EntityId, Limit, Offset, Query, Server
from servers.payments.schema import SCHEMA
from servers.payments.seed import seed

MAX_ENDPOINTS = 5

payments = Server(
    "payments",
    "Payments platform: merchants, customers, invoices, payments, refunds and webhooks.",
    SCHEMA,
    seed,
    family="money",
)


class MerchantId(
    EntityId,
    server=payments,
    example="MER-004",
    hint="Use search_customers or get_distinct_values('merchant_id') to find merchant ids.",
): ...


class CustomerId(EntityId, server=payments, example="CST-0042", finder="search_customers"): ...


class InvoiceId(EntityId, server=payments, example="INV-00017", finder="list_invoices"): ...


class PaymentId(EntityId, server=payments, example="PMT-00012", hint="Payment ids are listed by get_invoice."): ...


Amount = Annotated[float, Field(gt=0, le=1_000_000, description="Amount in the merchant's currency, e.g. 120.00")]
EventType = Literal[
    "invoice.created", "invoice.finalized", "invoice.paid", "invoice.voided", "payment.succeeded", "payment.refunded"
]


@payments.read(returns=("customer", "merchant"))
def search_customers(
    ctx: Ctx,
    query: Annotated[
        str,
        Field(
            max_length=100, description="Part of a customer's name or email, or of the merchant's name, e.g. 'Lopez'"
        ),
    ] = "",
    merchant_id: Annotated[
        str | None, Field(description="Only this merchant's customers, e.g. 'MER-004'"), Entity("merchant")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search customers by name, email or merchant name; each result names the merchant the customer belongs to,
    e.g. search_customers('Lopez') or search_customers(merchant_id='MER-004')."""
    like = f"%{query}%"
    sql = (
        "SELECT c.customer_id, c.name, c.email, c.merchant_id, m.name AS merchant_name "
        "FROM customers c JOIN merchants m USING (merchant_id) "
        "WHERE (c.name LIKE ? OR c.email LIKE ? OR m.name LIKE ?)"
    )
    args: list[Any] = [like, like, like]
    if merchant_id is not None:
        sql += " AND c.merchant_id = ?"
        args.append(merchant_id)
    found = ctx.rows(sql + " ORDER BY c.customer_id LIMIT ? OFFSET ?", (*args, limit, offset))
    return {"customers": found, "count": len(found)}


@payments.read(returns=("invoice", "customer", "merchant"))
def list_invoices(
    ctx: Ctx,
    merchant_id: Annotated[
        str | None, Field(description="Only this merchant's invoices, e.g. 'MER-004'"), Entity("merchant")
    ] = None,
    customer_id: Annotated[
        str | None, Field(description="Only this customer's invoices, e.g. 'CST-0042'"), Entity("customer")
    ] = None,
    status: Literal["draft", "open", "paid", "void"] | None = None,
    overdue: Annotated[bool, Field(description="Only open invoices whose due date has passed")] = False,
    min_amount: Annotated[
        float | None, Field(ge=0, le=1e9, description="Only invoices of at least this amount")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List invoices, newest first, filtered by merchant, customer, status, amount or overdue,
    e.g. list_invoices(merchant_id='MER-004', status='open')."""
    q = Query(
        "SELECT invoice_id, merchant_id, customer_id, description, amount, currency, status, amount_paid, due_date, "
        "created_at FROM invoices"
    )
    q.equal("merchant_id", merchant_id).equal("customer_id", customer_id).equal("status", status)
    if overdue:
        q.where("status = 'open' AND due_date < ?", ctx.now.strftime("%Y-%m-%d"))
    q.filter("amount >= ?", min_amount)
    return q.page(ctx.db, "invoices", order_by="created_at DESC, invoice_id DESC", limit=limit, offset=offset)


@payments.read(returns=("invoice", "payment", "refund", "customer", "merchant"))
def get_invoice(ctx: Ctx, invoice_id: InvoiceId) -> dict[str, Any]:
    """Get one invoice with its customer, merchant, amount due, and its payments with their refunds,
    e.g. get_invoice('INV-00017')."""
    inv = InvoiceId.get(ctx, invoice_id)
    inv["customer_name"] = CustomerId.get(ctx, inv["customer_id"])["name"]
    inv["merchant_name"] = MerchantId.get(ctx, inv["merchant_id"])["name"]
    inv["amount_due"] = round(inv["amount"] - inv["amount_paid"], 2) if inv["status"] == "open" else 0.0
    inv["overdue"] = inv["status"] == "open" and inv["due_date"] < ctx.now.strftime("%Y-%m-%d")
    pays = ctx.rows(
        "SELECT payment_id, amount, method, status, refunded_amount, failure_reason, created_at FROM payments "
        "WHERE invoice_id = ? ORDER BY payment_id",
        (invoice_id,),
    )
    for p in pays:
        p["refunds"] = ctx.rows(
            "SELECT refund_id, amount, reason, created_at FROM refunds WHERE payment_id = ? ORDER BY refund_id",
            (p["payment_id"],),
        )
    inv["payments"] = pays
    return inv


@payments.read(returns=("webhook_endpoint", "webhook_delivery", "merchant"))
def list_webhook_deliveries(
    ctx: Ctx,
    merchant_id: MerchantId,
    endpoint_id: Annotated[
        str | None, Field(description="Only deliveries to this endpoint, e.g. 'WHE-003'"), Entity("webhook_endpoint")
    ] = None,
    event_type: EventType | None = None,
    status: Literal["delivered", "failed"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """A merchant's webhook endpoints and the event deliveries made to them, newest first,
    e.g. list_webhook_deliveries('MER-004', event_type='payment.succeeded')."""
    MerchantId.get(ctx, merchant_id)
    endpoints = ctx.rows(
        "SELECT endpoint_id, url, events, status, created_at FROM webhook_endpoints WHERE merchant_id = ? "
        "ORDER BY endpoint_id",
        (merchant_id,),
    )
    for e in endpoints:
        e["events"] = e["events"].split(",")
    sql = (
        "SELECT delivery_id, endpoint_id, event_type, object_id, status, response_code, created_at "
        "FROM webhook_deliveries WHERE merchant_id = ?"
    )
    args: list[Any] = [merchant_id]
    for column, value in (("endpoint_id", endpoint_id), ("event_type", event_type), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = ctx.rows(sql + " ORDER BY created_at DESC, delivery_id DESC LIMIT ? OFFSET ?", (*args, limit, offset))
    return {"merchant_id": merchant_id, "endpoints": endpoints, "deliveries": found, "count": len(found)}


DISTINCT_FIELDS = {
    "invoice_status": ("invoices", "status"),
    "payment_status": ("payments", "status"),
    "payment_method": ("payments", "method"),
    "currency": ("invoices", "currency"),
    "merchant_id": ("invoices", "merchant_id"),
    "merchant_category": ("merchants", "category"),
    "event_type": ("webhook_deliveries", "event_type"),
    "refund_reason": ("refunds", "reason"),
}


@payments.read(returns=())
def get_distinct_values(
    ctx: Ctx,
    field: Literal[
        "invoice_status",
        "payment_status",
        "payment_method",
        "currency",
        "merchant_id",
        "merchant_category",
        "event_type",
        "refund_reason",
    ],
) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('invoice_status');
    'merchant_id' counts invoices per merchant."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}
