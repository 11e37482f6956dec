"""Payments: merchants, their customers, invoices, payments, refunds and webhooks.

Business rules: an invoice moves draft -> open -> paid, or draft/open -> void; paid and void are
final, and an open invoice that already took money cannot be voided. Only open invoices take
payments, never more than the amount still due; the invoice becomes paid when fully covered by
pending or settled payments. Refunds apply only to settled payments and never exceed what is
left unrefunded; a fully refunded payment becomes 'refunded'. Customers belong to one merchant
and are invoiced only by it. Webhook endpoints are https URLs (at most 5 per merchant, no
duplicates); every invoice or payment event is recorded as a delivery to each active endpoint of
the merchant subscribed to that event type.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

SCHEMA = """
CREATE TABLE merchants (
    merchant_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    category TEXT NOT NULL,
    currency TEXT NOT NULL,
    city TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE customers (
    customer_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX customers_merchant ON customers(merchant_id);
CREATE TABLE invoices (
    invoice_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    description TEXT NOT NULL,
    amount REAL NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'open', 'paid', 'void')),
    amount_paid REAL NOT NULL DEFAULT 0,
    due_date TEXT NOT NULL,
    created_at TEXT NOT NULL,
    finalized_at TEXT,
    paid_at TEXT,
    voided_at TEXT,
    void_reason TEXT
);
CREATE INDEX invoices_merchant ON invoices(merchant_id, status);
CREATE INDEX invoices_customer ON invoices(customer_id);
CREATE TABLE payments (
    payment_id TEXT PRIMARY KEY,
    invoice_id TEXT NOT NULL REFERENCES invoices(invoice_id),
    merchant_id TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    amount REAL NOT NULL,
    currency TEXT NOT NULL,
    method TEXT NOT NULL CHECK (method IN ('card', 'bank_transfer', 'wallet')),
    status TEXT NOT NULL CHECK (status IN ('pending', 'settled', 'failed', 'refunded')),
    refunded_amount REAL NOT NULL DEFAULT 0,
    failure_reason TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX payments_invoice ON payments(invoice_id);
CREATE TABLE refunds (
    refund_id TEXT PRIMARY KEY,
    payment_id TEXT NOT NULL REFERENCES payments(payment_id),
    amount REAL NOT NULL,
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX refunds_payment ON refunds(payment_id);
CREATE TABLE webhook_endpoints (
    endpoint_id TEXT PRIMARY KEY,
    merchant_id TEXT NOT NULL REFERENCES merchants(merchant_id),
    url TEXT NOT NULL,
    events TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
    created_at TEXT NOT NULL,
    UNIQUE (merchant_id, url)
);
CREATE TABLE webhook_deliveries (
    delivery_id TEXT PRIMARY KEY,
    endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(endpoint_id),
    merchant_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    object_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('delivered', 'failed')),
    response_code INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX deliveries_merchant ON webhook_deliveries(merchant_id, created_at);
"""

MERCHANT_WORDS = (("Bluebird", "Bakery", "food"), ("Copperleaf", "Studio", "design"), ("Lantern", "Software", "saas"),
                  ("Fernhill", "Dental", "health"), ("Marigold", "Florist", "retail"), ("Ridgeway", "Plumbing", "services"),
                  ("Oakhaven", "Yoga", "fitness"), ("Silverline", "Consulting", "services"), ("Tidepool", "Analytics", "saas"),
                  ("Brightwater", "Catering", "food"), ("Hollow Pine", "Furniture", "retail"), ("Kestrel", "Legal", "services"),
                  ("Northstar", "Tutoring", "education"), ("Pebble", "Pet Care", "services"), ("Quillon", "Print Shop", "retail"),
                  ("Saffron", "Kitchen", "food"), ("Driftwood", "Surf School", "education"), ("Amberly", "Photography", "design"),
                  ("Verdant", "Landscaping", "services"), ("Cobblestone", "Books", "retail"), ("Moonrise", "Cloud Hosting", "saas"),
                  ("Harborlight", "Physio", "health"), ("Juniper", "Language Lab", "education"), ("Summit", "Bike Repair", "services"))
ITEMS = {"food": ("Catering order", "Weekly bread subscription", "Event platter", "Wedding cake deposit"),
         "design": ("Logo design", "Brand identity package", "Photo shoot", "Website mockups"),
         "saas": ("Pro plan - monthly", "Team plan - annual", "API overage", "Onboarding package"),
         "health": ("Consultation", "Treatment session", "Follow-up visit", "Annual check-up"),
         "retail": ("Order", "Custom arrangement", "Bulk purchase", "Gift card"),
         "services": ("Service call", "Monthly retainer", "Repair work", "Advisory hours"),
         "fitness": ("10-class pass", "Monthly membership", "Private session", "Workshop ticket"),
         "education": ("Course fee", "Tutoring block (5 h)", "Exam prep package", "Term tuition")}
EVENT_TYPES = ("invoice.created", "invoice.finalized", "invoice.paid", "invoice.voided", "payment.succeeded", "payment.refunded")
MAX_ENDPOINTS = 5


def _iso(t: datetime) -> str:
    """Like fake.iso for the whole-second times a seed makes, several times faster."""
    return t.isoformat(timespec="seconds")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """24 merchants, ~600 customers, ~1,500 invoices in every status with consistent payments and refunds,
    webhook endpoints and the deliveries of the last 45 days."""
    merchants = []
    for i, (a, b, category) in enumerate(MERCHANT_WORDS, 1):
        currency = rng.choices(("USD", "EUR", "GBP"), (80, 12, 8))[0]
        merchants.append((f"MER-{i:03d}", f"{a} {b}", category, currency, fake.city(rng)[0], _iso(now - timedelta(days=rng.randint(400, 2500)))))
    db.executemany("INSERT INTO merchants VALUES (?,?,?,?,?,?)", merchants)
    customers = []
    for i in range(1, 601):
        m = rng.choice(merchants)
        first, last = fake.person(rng)
        customers.append((f"CST-{i:04d}", m[0], f"{first} {last}", fake.email_for(first, last, rng, i), _iso(fake.moment(rng, now, 700, -200))))
    db.executemany("INSERT INTO customers VALUES (?,?,?,?,?)", customers)
    by_merchant = {m[0]: m for m in merchants}
    invoices: list[Any] = []
    payments: list[Any] = []
    refunds: list[Any] = []
    events: list[Any] = []
    for c_id, m_id, *_ in customers:
        m = by_merchant[m_id]
        for _ in range(rng.randint(1, 4)):
            inv_id = f"INV-{len(invoices) + 1:05d}"
            created = fake.moment(rng, now, 180, 0) - timedelta(hours=1)
            amount = round(rng.choice((1, 1, 1, 5, 10)) * fake.money(rng, 15, 600), 2)
            status = rng.choices(("draft", "open", "paid", "void"), (8, 24, 58, 10))[0]
            due = (created + timedelta(days=rng.choice((7, 15, 30, 45)))).strftime("%Y-%m-%d")
            finalized = _iso(created + timedelta(hours=rng.randint(1, 48))) if status != "draft" else None
            if finalized and finalized > _iso(now):
                finalized = _iso(now - timedelta(minutes=5))
            paid_at = voided_at = reason = None
            paid = 0.0
            events.append((m_id, "invoice.created", inv_id, created))
            if finalized:
                events.append((m_id, "invoice.finalized", inv_id, datetime.fromisoformat(str(finalized))))
            if status in ("paid", "open"):
                parts = ([amount] if status == "paid" and rng.random() < 0.8 else
                         [round(amount * 0.5, 2), round(amount - round(amount * 0.5, 2), 2)] if status == "paid" else
                         [round(amount * rng.choice((0.25, 0.5)), 2)] if rng.random() < 0.2 else [])
                t = datetime.fromisoformat(str(finalized))
                if status == "open" and rng.random() < 0.1:
                    payments.append((f"PMT-{len(payments) + 1:05d}", inv_id, m_id, c_id, amount, m[3], "card", "failed", 0.0,
                                     rng.choice(("card_declined", "insufficient_funds", "expired_card")), _iso(t + timedelta(hours=2))))
                for part in parts:
                    t = min(now - timedelta(minutes=1), t + timedelta(days=rng.randint(0, 20), minutes=rng.randint(1, 600)))
                    method = rng.choices(("card", "bank_transfer", "wallet"), (65, 20, 15))[0]
                    pstatus = "pending" if method == "bank_transfer" and (now - t).days < 3 else "settled"
                    pay_id = f"PMT-{len(payments) + 1:05d}"
                    refunded = 0.0
                    if pstatus == "settled" and rng.random() < 0.06:
                        refunded = part if rng.random() < 0.5 else round(part * 0.3, 2)
                        rt = min(now - timedelta(minutes=1), t + timedelta(days=rng.randint(1, 10)))
                        refunds.append((f"RFD-{len(refunds) + 1:04d}", pay_id, refunded,
                                        rng.choice(("requested_by_customer", "duplicate", "service_not_rendered", "damaged_goods")), _iso(rt)))
                        events.append((m_id, "payment.refunded", pay_id, rt))
                        if refunded == part:
                            pstatus = "refunded"
                    payments.append((pay_id, inv_id, m_id, c_id, part, m[3], method, pstatus, refunded, None, _iso(t)))
                    events.append((m_id, "payment.succeeded", pay_id, t))
                    paid = round(paid + part, 2)
                if status == "paid":
                    paid_at = _iso(t)
                    events.append((m_id, "invoice.paid", inv_id, t))
            if status == "void":
                voided = datetime.fromisoformat(str(finalized)) + timedelta(days=rng.randint(0, 5))
                voided_at = _iso(min(voided, now - timedelta(minutes=1)))
                reason = rng.choice(("duplicate", "customer cancelled", "issued in error", "uncollectible"))
                events.append((m_id, "invoice.voided", inv_id, datetime.fromisoformat(voided_at)))
            invoices.append((inv_id, m_id, c_id, rng.choice(ITEMS[m[2]]), amount, m[3], status, paid, due,
                             _iso(created), finalized, paid_at, voided_at, reason))
    db.executemany("INSERT INTO invoices VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", invoices)
    db.executemany("INSERT INTO payments VALUES (?,?,?,?,?,?,?,?,?,?,?)", payments)
    db.executemany("INSERT INTO refunds VALUES (?,?,?,?,?)", refunds)
    endpoints: list[Any] = []
    for m in merchants:
        slug = m[1].lower().replace(" ", "")
        for j in range(rng.choice((0, 1, 1, 2))):
            subscribed = sorted(rng.sample(EVENT_TYPES, rng.randint(2, 6)))
            host = ("api", "hooks", "billing")[j]
            endpoints.append((f"WHE-{len(endpoints) + 1:03d}", m[0], f"https://{host}.{slug}.example.com/webhooks/payments",
                              ",".join(subscribed), "disabled" if rng.random() < 0.12 else "active",
                              _iso(now - timedelta(days=rng.randint(60, 400)))))
    db.executemany("INSERT INTO webhook_endpoints VALUES (?,?,?,?,?,?)", endpoints)
    since = now - timedelta(days=45)
    deliveries: list[Any] = []
    listening: dict[str, list[tuple[str, set[str]]]] = {}
    for ep in endpoints:
        if ep[4] == "active":
            listening.setdefault(ep[1], []).append((ep[0], set(ep[3].split(","))))
    for m_id, event, obj, t in sorted((e for e in events if e[3] >= since and e[0] in listening), key=lambda e: (e[3], e[2], e[1])):
        for ep_id, wanted in listening[m_id]:
            if event in wanted:
                failed = rng.random() < 0.05
                deliveries.append((f"WHD-{len(deliveries) + 1:05d}", ep_id, m_id, event, obj, "failed" if failed else "delivered",
                                   rng.choice((500, 502, 504)) if failed else 200, _iso(t)))
    db.executemany("INSERT INTO webhook_deliveries VALUES (?,?,?,?,?,?,?,?)", deliveries)


payments = Server("payments", "Payments platform: merchants, customers, invoices, payments, refunds and webhooks.", SCHEMA, seed)

MerchantId = Annotated[str, Field(description="Merchant id, e.g. 'MER-004'"), Entity("merchant")]
CustomerId = Annotated[str, Field(description="Customer id, e.g. 'CST-0042'"), Entity("customer")]
InvoiceId = Annotated[str, Field(description="Invoice id, e.g. 'INV-00017'"), Entity("invoice")]
PaymentId = Annotated[str, Field(description="Payment id, e.g. 'PMT-00012'"), Entity("payment")]
Amount = Annotated[float, Field(gt=0, le=1_000_000, description="Amount in the merchant's currency, e.g. 120.00")]
EventType = Literal["invoice.created", "invoice.finalized", "invoice.paid", "invoice.voided", "payment.succeeded", "payment.refunded"]


def _merchant(ctx: Ctx, merchant_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM merchants WHERE merchant_id = ?", (merchant_id,),
                 f"No merchant {merchant_id!r}. Use search_customers or get_distinct_values('merchant_id') to find merchant ids.")


def _customer(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM customers WHERE customer_id = ?", (customer_id,),
                 f"No customer {customer_id!r}. Use search_customers to find customer ids.")


def _invoice(ctx: Ctx, invoice_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM invoices WHERE invoice_id = ?", (invoice_id,),
                 f"No invoice {invoice_id!r}. Use list_invoices to find invoice ids.")


def _payment(ctx: Ctx, payment_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM payments WHERE payment_id = ?", (payment_id,),
                 f"No payment {payment_id!r}. Payment ids are listed by get_invoice.")


def _emit(ctx: Ctx, merchant_id: str, event_type: str, object_id: str) -> list[str]:
    """Record a delivery of the event to every active endpoint of the merchant subscribed to it."""
    ids = []
    for endpoint_id, events in ctx.db.execute("SELECT endpoint_id, events FROM webhook_endpoints WHERE merchant_id = ? AND status = 'active' "
                                              "ORDER BY endpoint_id", (merchant_id,)).fetchall():
        if event_type in events.split(","):
            delivery_id = next_id(ctx.db, "webhook_deliveries", "delivery_id", "WHD", 5)
            ctx.db.execute("INSERT INTO webhook_deliveries VALUES (?,?,?,?,?,?,?,?)",
                           (delivery_id, endpoint_id, merchant_id, event_type, object_id, "delivered", 200, fake.iso(ctx.now)))
            ids.append(delivery_id)
    return ids


@payments.read(returns=("customer", "merchant"))
def search_customers(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a customer's name or email, or of the merchant's name, e.g. 'Lopez'")] = "",
                     merchant_id: Annotated[str | None, Field(description="Only this merchant's customers, e.g. 'MER-004'"), Entity("merchant")] = None,
                     limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search customers by name, email or merchant name; each result names the merchant the customer belongs to,
    e.g. search_customers('Lopez') or search_customers(merchant_id='MER-004')."""
    like = f"%{query}%"
    sql = ("SELECT c.customer_id, c.name, c.email, c.merchant_id, m.name AS merchant_name FROM customers c JOIN merchants m USING (merchant_id) "
           "WHERE (c.name LIKE ? OR c.email LIKE ? OR m.name LIKE ?)")
    args: list[Any] = [like, like, like]
    if merchant_id is not None:
        sql += " AND c.merchant_id = ?"
        args.append(merchant_id)
    found = rows(ctx.db.execute(sql + " ORDER BY c.customer_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"customers": found, "count": len(found)}


@payments.read(returns=("invoice", "customer", "merchant"))
def list_invoices(ctx: Ctx, merchant_id: Annotated[str | None, Field(description="Only this merchant's invoices, e.g. 'MER-004'"), Entity("merchant")] = None,
                  customer_id: Annotated[str | None, Field(description="Only this customer's invoices, e.g. 'CST-0042'"), Entity("customer")] = None,
                  status: Literal["draft", "open", "paid", "void"] | None = None,
                  overdue: Annotated[bool, Field(description="Only open invoices whose due date has passed")] = False,
                  min_amount: Annotated[float | None, Field(ge=0, le=1e9, description="Only invoices of at least this amount")] = None,
                  limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List invoices, newest first, filtered by merchant, customer, status, amount or overdue,
    e.g. list_invoices(merchant_id='MER-004', status='open')."""
    sql = "SELECT invoice_id, merchant_id, customer_id, description, amount, currency, status, amount_paid, due_date, created_at FROM invoices WHERE 1=1"
    args: list[Any] = []
    for column, value in (("merchant_id", merchant_id), ("customer_id", customer_id), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if overdue:
        sql += " AND status = 'open' AND due_date < ?"
        args.append(ctx.now.strftime("%Y-%m-%d"))
    if min_amount is not None:
        sql += " AND amount >= ?"
        args.append(min_amount)
    found = rows(ctx.db.execute(sql + " ORDER BY created_at DESC, invoice_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"invoices": found, "count": len(found)}


@payments.read(returns=("invoice", "payment", "refund", "customer", "merchant"))
def get_invoice(ctx: Ctx, invoice_id: InvoiceId) -> dict[str, Any]:
    """Get one invoice with its customer, merchant, amount due, and its payments with their refunds,
    e.g. get_invoice('INV-00017')."""
    inv = _invoice(ctx, invoice_id)
    inv["customer_name"] = _customer(ctx, inv["customer_id"])["name"]
    inv["merchant_name"] = _merchant(ctx, inv["merchant_id"])["name"]
    inv["amount_due"] = round(inv["amount"] - inv["amount_paid"], 2) if inv["status"] == "open" else 0.0
    inv["overdue"] = inv["status"] == "open" and inv["due_date"] < ctx.now.strftime("%Y-%m-%d")
    pays = rows(ctx.db.execute("SELECT payment_id, amount, method, status, refunded_amount, failure_reason, created_at FROM payments "
                               "WHERE invoice_id = ? ORDER BY payment_id", (invoice_id,)))
    for p in pays:
        p["refunds"] = rows(ctx.db.execute("SELECT refund_id, amount, reason, created_at FROM refunds WHERE payment_id = ? ORDER BY refund_id",
                                           (p["payment_id"],)))
    inv["payments"] = pays
    return inv


@payments.read(returns=("webhook_endpoint", "webhook_delivery", "merchant"))
def list_webhook_deliveries(ctx: Ctx, merchant_id: MerchantId,
                            endpoint_id: Annotated[str | None, Field(description="Only deliveries to this endpoint, e.g. 'WHE-003'"), Entity("webhook_endpoint")] = None,
                            event_type: EventType | None = None,
                            status: Literal["delivered", "failed"] | None = None,
                            limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """A merchant's webhook endpoints and the event deliveries made to them, newest first,
    e.g. list_webhook_deliveries('MER-004', event_type='payment.succeeded')."""
    _merchant(ctx, merchant_id)
    endpoints = rows(ctx.db.execute("SELECT endpoint_id, url, events, status, created_at FROM webhook_endpoints WHERE merchant_id = ? "
                                    "ORDER BY endpoint_id", (merchant_id,)))
    for e in endpoints:
        e["events"] = e["events"].split(",")
    sql = "SELECT delivery_id, endpoint_id, event_type, object_id, status, response_code, created_at FROM webhook_deliveries WHERE merchant_id = ?"
    args: list[Any] = [merchant_id]
    for column, value in (("endpoint_id", endpoint_id), ("event_type", event_type), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY created_at DESC, delivery_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"merchant_id": merchant_id, "endpoints": endpoints, "deliveries": found, "count": len(found)}


DISTINCT_FIELDS = {"invoice_status": ("invoices", "status"), "payment_status": ("payments", "status"),
                   "payment_method": ("payments", "method"), "currency": ("invoices", "currency"),
                   "merchant_id": ("invoices", "merchant_id"), "merchant_category": ("merchants", "category"),
                   "event_type": ("webhook_deliveries", "event_type"), "refund_reason": ("refunds", "reason")}


@payments.read(returns=())
def get_distinct_values(ctx: Ctx, field: Literal["invoice_status", "payment_status", "payment_method", "currency", "merchant_id",
                                                 "merchant_category", "event_type", "refund_reason"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('invoice_status');
    'merchant_id' counts invoices per merchant."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@payments.write(returns=("invoice",))
def create_invoice(ctx: Ctx, merchant_id: MerchantId, customer_id: CustomerId, amount: Amount,
                   description: Annotated[str, Field(min_length=1, max_length=200, description="What is billed, e.g. 'Logo design'")],
                   due_in_days: Annotated[int, Field(ge=0, le=365, description="Days until the invoice is due")] = 30) -> dict[str, Any]:
    """Create a draft invoice from a merchant to one of its customers, e.g.
    create_invoice('MER-004', 'CST-0042', 250.0, 'Treatment session'). Finalize it with update_invoice_status(..., 'open')."""
    m = _merchant(ctx, merchant_id)
    c = _customer(ctx, customer_id)
    if c["merchant_id"] != merchant_id:
        raise ToolError(f"Customer {customer_id} belongs to merchant {c['merchant_id']}, not {merchant_id}; "
                        f"invoice them from {c['merchant_id']} or pick one of {merchant_id}'s customers (search_customers(merchant_id=...)).")
    if not description.strip():
        raise ToolError("description is blank; say what is billed, e.g. 'Logo design'.")
    inv_id = next_id(ctx.db, "invoices", "invoice_id", "INV", 5)
    due = (ctx.now + timedelta(days=due_in_days)).strftime("%Y-%m-%d")
    ctx.db.execute("INSERT INTO invoices VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (inv_id, merchant_id, customer_id, description.strip(), round(amount, 2), m["currency"], "draft", 0.0, due,
                    fake.iso(ctx.now), None, None, None, None))
    _emit(ctx, merchant_id, "invoice.created", inv_id)
    return get_invoice(ctx, inv_id)


@payments.write(returns=("invoice",), requires=("create_invoice",))
def update_invoice_status(ctx: Ctx, invoice_id: InvoiceId, status: Literal["open", "void"],
                          reason: Annotated[str, Field(max_length=200, description="Why an invoice is voided, e.g. 'issued in error'")] = "") -> dict[str, Any]:
    """Finalize a draft invoice (status='open', it can then be paid) or void a draft or open invoice
    (status='void'), e.g. update_invoice_status('INV-00017', 'void', reason='duplicate'). Paid and void invoices are final."""
    inv = _invoice(ctx, invoice_id)
    current = inv["status"]
    if current in ("paid", "void"):
        hint = " To return money, refund its payments with refund_payment." if current == "paid" else " Create a new invoice instead."
        raise ToolError(f"Invoice {invoice_id} is {current}, which is final.{hint}")
    if current == status:
        raise ToolError(f"Invoice {invoice_id} is already {status}.")
    if status == "void" and inv["amount_paid"] > 0:
        raise ToolError(f"Invoice {invoice_id} has already taken {inv['amount_paid']:.2f} {inv['currency']}; "
                        "refund its payments with refund_payment before voiding, or collect the rest with pay_invoice.")
    at = fake.iso(ctx.now)
    if status == "open":
        ctx.db.execute("UPDATE invoices SET status = 'open', finalized_at = ? WHERE invoice_id = ?", (at, invoice_id))
        _emit(ctx, inv["merchant_id"], "invoice.finalized", invoice_id)
    else:
        ctx.db.execute("UPDATE invoices SET status = 'void', voided_at = ?, void_reason = ? WHERE invoice_id = ?",
                       (at, reason or "voided by merchant", invoice_id))
        _emit(ctx, inv["merchant_id"], "invoice.voided", invoice_id)
    return {"invoice_id": invoice_id, "previous_status": current, "status": status}


@payments.write(returns=("payment", "invoice"), requires=("update_invoice_status",))
def pay_invoice(ctx: Ctx, invoice_id: InvoiceId, method: Literal["card", "bank_transfer", "wallet"] = "card",
                amount: Annotated[float | None, Field(gt=0, le=1_000_000, description="Amount to pay; omit to pay the whole amount due")] = None) -> dict[str, Any]:
    """Take a payment against an open invoice, by default the whole amount due, e.g. pay_invoice('INV-00017', 'card')
    or pay_invoice('INV-00017', 'wallet', amount=50.0). The payment settles at once; the invoice becomes paid when covered."""
    inv = _invoice(ctx, invoice_id)
    if inv["status"] == "draft":
        raise ToolError(f"Invoice {invoice_id} is still a draft; finalize it with update_invoice_status('{invoice_id}', 'open') first.")
    if inv["status"] != "open":
        raise ToolError(f"Invoice {invoice_id} is {inv['status']} and takes no payments.")
    due = round(inv["amount"] - inv["amount_paid"], 2)
    pay = due if amount is None else round(amount, 2)
    if pay <= 0:
        raise ToolError("The amount rounds to 0.00; pay at least 0.01.")
    if pay > due + 1e-9:
        raise ToolError(f"{pay:.2f} {inv['currency']} is more than the {due:.2f} {inv['currency']} still due on {invoice_id}; pay at most {due:.2f}.")
    pay_id = next_id(ctx.db, "payments", "payment_id", "PMT", 5)
    at = fake.iso(ctx.now)
    ctx.db.execute("INSERT INTO payments VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                   (pay_id, invoice_id, inv["merchant_id"], inv["customer_id"], pay, inv["currency"], method, "settled", 0.0, None, at))
    paid = round(inv["amount_paid"] + pay, 2)
    status = "paid" if paid >= inv["amount"] - 0.004 else "open"
    ctx.db.execute("UPDATE invoices SET amount_paid = ?, status = ?, paid_at = ? WHERE invoice_id = ?",
                   (paid, status, at if status == "paid" else None, invoice_id))
    deliveries = _emit(ctx, inv["merchant_id"], "payment.succeeded", pay_id)
    if status == "paid":
        deliveries += _emit(ctx, inv["merchant_id"], "invoice.paid", invoice_id)
    return {"payment_id": pay_id, "invoice_id": invoice_id, "amount": pay, "currency": inv["currency"], "status": "settled",
            "invoice_status": status, "amount_due": round(inv["amount"] - paid, 2), "webhook_deliveries": deliveries}


@payments.write(returns=("refund", "payment"), requires=("pay_invoice",))
def refund_payment(ctx: Ctx, payment_id: PaymentId,
                   amount: Annotated[float | None, Field(gt=0, le=1_000_000, description="Amount to refund; omit to refund everything not yet refunded")] = None,
                   reason: Literal["requested_by_customer", "duplicate", "service_not_rendered", "damaged_goods", "fraudulent"] = "requested_by_customer") -> dict[str, Any]:
    """Refund all or part of a settled payment, e.g. refund_payment('PMT-00012', amount=20.0, reason='damaged_goods').
    Only settled payments can be refunded, and never more than what is left unrefunded."""
    p = _payment(ctx, payment_id)
    if p["status"] == "pending":
        raise ToolError(f"Payment {payment_id} ({p['method']}) is still pending settlement and cannot be refunded yet; refund a settled payment.")
    if p["status"] == "failed":
        raise ToolError(f"Payment {payment_id} failed ({p['failure_reason']}); no money was taken, so there is nothing to refund.")
    if p["status"] == "refunded":
        raise ToolError(f"Payment {payment_id} is already fully refunded ({p['refunded_amount']:.2f} {p['currency']}).")
    left = round(p["amount"] - p["refunded_amount"], 2)
    value = left if amount is None else round(amount, 2)
    if value <= 0:
        raise ToolError("The amount rounds to 0.00; refund at least 0.01.")
    if value > left + 1e-9:
        raise ToolError(f"Cannot refund {value:.2f} {p['currency']} on {payment_id}: it was {p['amount']:.2f}, "
                        f"{p['refunded_amount']:.2f} is already refunded, so at most {left:.2f} can be refunded.")
    refund_id = next_id(ctx.db, "refunds", "refund_id", "RFD")
    ctx.db.execute("INSERT INTO refunds VALUES (?,?,?,?,?)", (refund_id, payment_id, value, reason, fake.iso(ctx.now)))
    refunded = round(p["refunded_amount"] + value, 2)
    status = "refunded" if refunded >= p["amount"] - 0.004 else "settled"
    ctx.db.execute("UPDATE payments SET refunded_amount = ?, status = ? WHERE payment_id = ?", (refunded, status, payment_id))
    deliveries = _emit(ctx, p["merchant_id"], "payment.refunded", payment_id)
    return {"refund_id": refund_id, "payment_id": payment_id, "amount": value, "currency": p["currency"],
            "payment_status": status, "refundable_left": round(p["amount"] - refunded, 2), "webhook_deliveries": deliveries}


@payments.write(returns=("webhook_endpoint",))
def register_webhook(ctx: Ctx, merchant_id: MerchantId,
                     url: Annotated[str, Field(min_length=1, max_length=300, description="The https endpoint URL, e.g. 'https://api.example.com/hooks'")],
                     events: Annotated[list[EventType], Field(min_length=1, max_length=6, description="Event types to deliver, e.g. ['payment.succeeded']")]) -> dict[str, Any]:
    """Register a webhook endpoint for a merchant; later invoice and payment events of the subscribed types are
    delivered to it, e.g. register_webhook('MER-004', 'https://hooks.fernhill.example.com/pay', ['payment.succeeded', 'invoice.paid'])."""
    _merchant(ctx, merchant_id)
    url = url.strip()
    if not url.startswith("https://") or len(url) <= len("https://") or any(ch.isspace() for ch in url):
        raise ToolError(f"{url!r} is not a valid https URL; webhook endpoints must use https, e.g. 'https://api.example.com/hooks'.")
    existing = ctx.db.execute("SELECT endpoint_id FROM webhook_endpoints WHERE merchant_id = ? AND url = ?", (merchant_id, url)).fetchone()
    if existing:
        raise ToolError(f"{merchant_id} already has endpoint {existing[0]} for {url}; see list_webhook_deliveries('{merchant_id}').")
    count = ctx.db.execute("SELECT COUNT(*) FROM webhook_endpoints WHERE merchant_id = ?", (merchant_id,)).fetchone()[0]
    if count >= MAX_ENDPOINTS:
        raise ToolError(f"{merchant_id} already has {count} webhook endpoints, the maximum; reuse an existing endpoint.")
    endpoint_id = next_id(ctx.db, "webhook_endpoints", "endpoint_id", "WHE", 3)
    subscribed = sorted(set(events))
    ctx.db.execute("INSERT INTO webhook_endpoints VALUES (?,?,?,?,?,?)",
                   (endpoint_id, merchant_id, url, ",".join(subscribed), "active", fake.iso(ctx.now)))
    return {"endpoint_id": endpoint_id, "merchant_id": merchant_id, "url": url, "events": subscribed, "status": "active"}


server = payments
