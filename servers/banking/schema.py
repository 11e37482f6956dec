"""Banking tables: customers own accounts; an account has transactions and cards; a customer saves payees."""

SCHEMA = """
CREATE TABLE customers (
    customer_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    address TEXT NOT NULL,
    city TEXT NOT NULL,
    joined_at TEXT NOT NULL
);
CREATE TABLE accounts (
    account_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    type TEXT NOT NULL CHECK (type IN ('checking', 'savings', 'business')),
    nickname TEXT NOT NULL,
    balance REAL NOT NULL,
    overdraft_limit REAL NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('active', 'frozen', 'closed')),
    status_reason TEXT,
    opened_at TEXT NOT NULL
);
CREATE INDEX accounts_customer ON accounts(customer_id);
CREATE TABLE transactions (
    txn_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    kind TEXT NOT NULL,
    amount REAL NOT NULL,
    balance_after REAL NOT NULL,
    counterparty TEXT,
    description TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX transactions_account ON transactions(account_id, created_at);
CREATE TABLE transfers (
    transfer_id TEXT PRIMARY KEY,
    from_account TEXT NOT NULL,
    to_account TEXT NOT NULL,
    amount REAL NOT NULL,
    memo TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE payees (
    payee_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    name TEXT NOT NULL,
    bank_name TEXT NOT NULL,
    account_number TEXT NOT NULL,
    UNIQUE (customer_id, account_number)
);
CREATE TABLE cards (
    card_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    last4 TEXT NOT NULL,
    network TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'locked', 'cancelled')),
    daily_limit REAL NOT NULL,
    expires TEXT NOT NULL
);
"""
