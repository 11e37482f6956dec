"""Retail chain tables: stock per (location, SKU), and the transfers, restocks and reservations that move it."""

SCHEMA = """
CREATE TABLE stores (
    store_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('store', 'distribution_center')),
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    address TEXT NOT NULL,
    manager TEXT NOT NULL,
    phone TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
    status_note TEXT,
    opened_at TEXT NOT NULL
);
CREATE TABLE products (
    sku TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    category TEXT NOT NULL,
    brand TEXT NOT NULL,
    unit_price REAL NOT NULL,
    unit_cost REAL NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'discontinued'))
);
CREATE TABLE inventory (
    store_id TEXT NOT NULL REFERENCES stores(store_id),
    sku TEXT NOT NULL REFERENCES products(sku),
    on_hand INTEGER NOT NULL CHECK (on_hand >= 0),
    reserved INTEGER NOT NULL CHECK (reserved >= 0),
    reorder_point INTEGER NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (store_id, sku)
);
CREATE INDEX inventory_sku ON inventory(sku);
CREATE TABLE transfers (
    transfer_id TEXT PRIMARY KEY,
    sku TEXT NOT NULL REFERENCES products(sku),
    from_store_id TEXT NOT NULL REFERENCES stores(store_id),
    to_store_id TEXT NOT NULL REFERENCES stores(store_id),
    quantity INTEGER NOT NULL,
    note TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE restocks (
    restock_id TEXT PRIMARY KEY,
    store_id TEXT NOT NULL REFERENCES stores(store_id),
    sku TEXT NOT NULL REFERENCES products(sku),
    quantity INTEGER NOT NULL,
    supplier TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE reservations (
    reservation_id TEXT PRIMARY KEY,
    store_id TEXT NOT NULL REFERENCES stores(store_id),
    sku TEXT NOT NULL REFERENCES products(sku),
    quantity INTEGER NOT NULL,
    customer_name TEXT NOT NULL,
    customer_phone TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'picked_up', 'cancelled', 'expired')),
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX reservations_store ON reservations(store_id, status);
"""

MAX_TRANSFER = 500
MAX_RESERVE = 5
HOLD_HOURS = 48
