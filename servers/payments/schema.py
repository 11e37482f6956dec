"""The payments SQLite schema."""

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
