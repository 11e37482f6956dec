"""Banking: customers, accounts, balances, transfers, payees and cards.

Business rules: a debit beyond balance plus overdraft fails; frozen accounts take no
debits or credits; closed accounts take nothing and only an empty account closes;
a single transfer is capped at 25,000 USD; a locked or cancelled card stays so
until changed (cancelled is final).
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

BANKS = ("First Harbor Bank", "Summit Credit Union", "Pacific Trust", "Lakeside Savings", "Metro National Bank")
MERCHANTS = ("Whole Grocer", "City Power & Light", "Metro Transit", "Blue Bottle Cafe", "Shell Station", "Netflix",
             "Amazon", "Target", "Home Depot", "Walgreens", "Delta Air Lines", "Uber", "Spotify", "Costco")
MAX_TRANSFER = 25_000.0


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """300 customers, ~650 accounts with consistent transaction histories, payees and cards."""
    customers = []
    for i in range(1, 301):
        first, last = fake.person(rng)
        city, state, _, _ = fake.city(rng)
        customers.append((f"CUS-{i:04d}", f"{first} {last}", fake.email_for(first, last, rng, i), fake.phone(rng),
                          fake.address(rng), city, fake.iso(fake.moment(rng, now, 3650, 0))))
    db.executemany("INSERT INTO customers VALUES (?,?,?,?,?,?,?)", customers)
    accounts: list[tuple[Any, ...]] = []
    txns: list[tuple[Any, ...]] = []
    cards: list[tuple[Any, ...]] = []
    payees: list[tuple[Any, ...]] = []
    for cus_id, name, *_ in customers:
        for kind in rng.sample(("checking", "savings", "business"), rng.choice((1, 2, 2, 3))):
            acc_id = f"ACC-{len(accounts) + 1:04d}"
            opened = fake.moment(rng, now, 2000, -30)
            balance = _seed_history(rng, acc_id, opened, now, txns)
            status = rng.choices(("active", "frozen", "closed"), (90, 7, 3))[0]
            if status == "closed":
                txns.append((f"TXN-{len(txns) + 1:06d}", acc_id, "withdrawal", -balance, 0.0, None,
                             "Closing withdrawal", fake.iso(now - timedelta(days=3))))
                balance = 0.0
            reason = {"frozen": rng.choice(("suspected fraud", "customer request", "court order")), "closed": "customer request"}.get(status)
            overdraft = 500.0 if kind == "checking" and rng.random() < 0.4 else 0.0
            accounts.append((acc_id, cus_id, kind, f"{name.split()[0]}'s {kind}", round(balance, 2), overdraft, status, reason, fake.iso(opened)))
            if kind != "savings":
                cards.append((f"CRD-{len(cards) + 1:04d}", acc_id, f"{rng.randint(0, 9999):04d}", rng.choice(("Visa", "Mastercard")),
                              "cancelled" if status == "closed" else rng.choices(("active", "locked"), (92, 8))[0],
                              rng.choice((500.0, 1000.0, 2500.0)), f"{rng.randint(2027, 2031)}-{rng.randint(1, 12):02d}"))
        for _ in range(rng.randint(0, 4)):
            payees.append((f"PAY-{len(payees) + 1:04d}", cus_id, fake.full_name(rng) if rng.random() < 0.6 else rng.choice(fake.COMPANIES),
                           rng.choice(BANKS), f"{rng.randint(10**9, 10**10 - 1)}"))
    db.executemany("INSERT INTO accounts VALUES (?,?,?,?,?,?,?,?,?)", accounts)
    db.executemany("INSERT INTO transactions VALUES (?,?,?,?,?,?,?,?)", txns)
    db.executemany("INSERT INTO cards VALUES (?,?,?,?,?,?,?)", cards)
    db.executemany("INSERT OR IGNORE INTO payees VALUES (?,?,?,?,?)", payees)


def _seed_history(rng: random.Random, acc_id: str, opened: datetime, now: datetime, txns: list[tuple[Any, ...]]) -> float:
    balance = 0.0
    t = opened
    for _ in range(rng.randint(3, 14)):
        t = min(now - timedelta(hours=1), t + timedelta(days=rng.randint(1, 60), minutes=rng.randint(0, 1440)))
        if balance < 200 or rng.random() < 0.35:
            amount = fake.money(rng, 200, 6000)
            kind, party, desc = "deposit", rng.choice(fake.COMPANIES), "Payroll deposit"
        else:
            amount = -min(balance, fake.money(rng, 5, 400))
            kind, party = "card_payment", rng.choice(MERCHANTS)
            desc = f"Card purchase at {party}"
        balance = round(balance + amount, 2)
        txns.append((f"TXN-{len(txns) + 1:06d}", acc_id, kind, round(amount, 2), balance, party, desc, fake.iso(t)))
    return balance


banking = Server("banking", "Retail banking: customers, accounts, balances, transfers, payees and cards.", SCHEMA, seed)

CustomerId = Annotated[str, Field(description="Customer id, e.g. 'CUS-0042'"), Entity("customer")]
AccountId = Annotated[str, Field(description="Account id, e.g. 'ACC-0107'"), Entity("account")]
PayeeId = Annotated[str, Field(description="Payee id, e.g. 'PAY-0015'"), Entity("payee")]
CardId = Annotated[str, Field(description="Card id, e.g. 'CRD-0033'"), Entity("card")]
Amount = Annotated[float, Field(gt=0, le=1_000_000, description="Amount in USD, e.g. 250.00")]


def _account(ctx: Ctx, account_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM accounts WHERE account_id = ?", (account_id,),
                 f"No account {account_id!r}. Use list_accounts to find account ids.")


def _customer(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM customers WHERE customer_id = ?", (customer_id,),
                 f"No customer {customer_id!r}. Use search_customers to find customer ids.")


def _usable(acc: dict[str, Any]) -> None:
    if acc["status"] == "closed":
        raise ToolError(f"Account {acc['account_id']} is closed and cannot be used.")
    if acc["status"] == "frozen":
        raise ToolError(f"Account {acc['account_id']} is frozen ({acc['status_reason']}); unfreeze it with freeze_account(frozen=false) first.")


def _post(ctx: Ctx, acc: dict[str, Any], amount: float, kind: str, counterparty: str | None, description: str) -> dict[str, Any]:
    """Apply a signed amount to an account and record the transaction."""
    if amount < 0 and acc["balance"] + acc["overdraft_limit"] + 1e-9 < -amount:
        raise ToolError(
            f"Insufficient funds in {acc['account_id']}: balance {acc['balance']:.2f} USD"
            f" (overdraft {acc['overdraft_limit']:.2f}), needed {-amount:.2f} USD."
        )
    balance = round(acc["balance"] + amount, 2)
    ctx.db.execute("UPDATE accounts SET balance = ? WHERE account_id = ?", (balance, acc["account_id"]))
    txn_id = next_id(ctx.db, "transactions", "txn_id", "TXN", 6)
    ctx.db.execute("INSERT INTO transactions VALUES (?,?,?,?,?,?,?,?)",
                   (txn_id, acc["account_id"], kind, round(amount, 2), balance, counterparty, description, fake.iso(ctx.now)))
    return {"txn_id": txn_id, "account_id": acc["account_id"], "amount": round(amount, 2), "balance": balance}


@banking.read(returns=("customer",))
def search_customers(ctx: Ctx, query: Annotated[str, Field(description="Part of a name, email or city, e.g. 'Garcia'")] = "",
                     limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search customers by name, email or city. Returns customer ids such as 'CUS-0042'."""
    like = f"%{query}%"
    found = rows(ctx.db.execute(
        "SELECT customer_id, name, email, city FROM customers WHERE name LIKE ? OR email LIKE ? OR city LIKE ? "
        "ORDER BY customer_id LIMIT ? OFFSET ?", (like, like, like, limit, offset)))
    return {"customers": found, "count": len(found)}


@banking.read(returns=("customer", "account"))
def get_customer(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """Get a customer's profile and the ids of their accounts, e.g. get_customer('CUS-0042')."""
    customer = _customer(ctx, customer_id)
    customer["account_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT account_id FROM accounts WHERE customer_id = ? ORDER BY account_id", (customer_id,))]
    return customer


@banking.read(returns=("account",))
def list_accounts(ctx: Ctx, customer_id: Annotated[str | None, Field(description="Only this customer's accounts, e.g. 'CUS-0042'"), Entity("customer")] = None,
                  status: Literal["active", "frozen", "closed"] | None = None,
                  type: Literal["checking", "savings", "business"] | None = None,
                  min_balance: Annotated[float | None, Field(description="Only accounts with at least this balance in USD")] = None,
                  limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List accounts, filtered by customer, status, type or minimum balance. Ids look like 'ACC-0107'."""
    sql = "SELECT account_id, customer_id, type, nickname, balance, status FROM accounts WHERE 1=1"
    args: list[Any] = []
    for column, value in (("customer_id", customer_id), ("status", status), ("type", type)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if min_balance is not None:
        sql += " AND balance >= ?"
        args.append(min_balance)
    found = rows(ctx.db.execute(sql + " ORDER BY account_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"accounts": found, "count": len(found)}


@banking.read(returns=("account", "customer"))
def get_account(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """Get one account: owner, type, balance, overdraft limit and status, e.g. get_account('ACC-0107')."""
    return _account(ctx, account_id)


@banking.read(returns=("transaction",))
def list_transactions(ctx: Ctx, account_id: AccountId,
                      kind: Literal["deposit", "withdrawal", "card_payment", "transfer_in", "transfer_out", "payment"] | None = None,
                      since: Annotated[str | None, Field(description="Only on or after this ISO date, e.g. '2026-03-01'")] = None,
                      limit: Limit = 20) -> dict[str, Any]:
    """List an account's transactions, newest first, e.g. list_transactions('ACC-0107', kind='deposit')."""
    _account(ctx, account_id)
    sql = "SELECT * FROM transactions WHERE account_id = ?"
    args: list[Any] = [account_id]
    if kind is not None:
        sql += " AND kind = ?"
        args.append(kind)
    if since is not None:
        sql += " AND created_at >= ?"
        args.append(since)
    found = rows(ctx.db.execute(sql + " ORDER BY created_at DESC, txn_id DESC LIMIT ?", (*args, limit)))
    return {"transactions": found, "count": len(found)}


@banking.read(returns=("payee",))
def list_payees(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """List the payees a customer has saved, e.g. list_payees('CUS-0042')."""
    _customer(ctx, customer_id)
    found = rows(ctx.db.execute("SELECT * FROM payees WHERE customer_id = ? ORDER BY payee_id", (customer_id,)))
    return {"payees": found, "count": len(found)}


@banking.read(returns=("card",))
def list_cards(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """List the cards linked to an account, e.g. list_cards('ACC-0107')."""
    _account(ctx, account_id)
    found = rows(ctx.db.execute("SELECT * FROM cards WHERE account_id = ? ORDER BY card_id", (account_id,)))
    return {"cards": found, "count": len(found)}


DISTINCT_FIELDS = {"account_type": ("accounts", "type"), "account_status": ("accounts", "status"),
                   "city": ("customers", "city"), "card_network": ("cards", "network"),
                   "card_status": ("cards", "status"), "transaction_kind": ("transactions", "kind"),
                   "payee_bank": ("payees", "bank_name")}


@banking.read()
def get_distinct_values(ctx: Ctx, field: Literal["account_type", "account_status", "city", "card_network", "card_status",
                                                 "transaction_kind", "payee_bank"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('city')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@banking.write(returns=("account",))
def open_account(ctx: Ctx, customer_id: CustomerId, type: Literal["checking", "savings", "business"],
                 initial_deposit: Annotated[float, Field(ge=0, le=1_000_000, description="Opening deposit in USD, e.g. 100.0")] = 0.0) -> dict[str, Any]:
    """Open a new account for a customer, e.g. open_account('CUS-0042', 'savings', 500.0). Returns the new account id."""
    customer = _customer(ctx, customer_id)
    acc_id = next_id(ctx.db, "accounts", "account_id", "ACC")
    ctx.db.execute("INSERT INTO accounts VALUES (?,?,?,?,?,?,?,?,?)",
                   (acc_id, customer_id, type, f"{customer['name'].split()[0]}'s {type}", 0.0, 0.0, "active", None, fake.iso(ctx.now)))
    if initial_deposit > 0:
        _post(ctx, _account(ctx, acc_id), initial_deposit, "deposit", None, "Opening deposit")
    return _account(ctx, acc_id)


@banking.write(returns=("transaction",))
def deposit_funds(ctx: Ctx, account_id: AccountId, amount: Amount,
                  description: Annotated[str, Field(max_length=200, description="What the deposit is for")] = "Deposit") -> dict[str, Any]:
    """Deposit money into an account, e.g. deposit_funds('ACC-0107', 250.0). Fails on a frozen or closed account."""
    acc = _account(ctx, account_id)
    _usable(acc)
    return _post(ctx, acc, amount, "deposit", None, description)


@banking.write(returns=("transaction",))
def withdraw_funds(ctx: Ctx, account_id: AccountId, amount: Amount,
                   description: Annotated[str, Field(max_length=200, description="What the withdrawal is for")] = "Withdrawal") -> dict[str, Any]:
    """Withdraw money from an account, e.g. withdraw_funds('ACC-0107', 60.0). Fails beyond balance plus overdraft."""
    acc = _account(ctx, account_id)
    _usable(acc)
    return _post(ctx, acc, -amount, "withdrawal", None, description)


@banking.write(returns=("transfer",))
def transfer_funds(ctx: Ctx, from_account_id: AccountId, to_account_id: AccountId, amount: Amount,
                   memo: Annotated[str, Field(max_length=200, description="A note for both statements, e.g. 'Rent June'")] = "") -> dict[str, Any]:
    """Move money between two accounts of this bank, e.g. transfer_funds('ACC-0107', 'ACC-0212', 300.0, 'Rent').

    At most 25,000 USD per transfer; both accounts must be active."""
    if from_account_id == to_account_id:
        raise ToolError("Source and destination are the same account; choose two different accounts.")
    if amount > MAX_TRANSFER:
        raise ToolError(f"{amount:.2f} USD exceeds the single-transfer limit of {MAX_TRANSFER:.2f} USD; split it into smaller transfers.")
    src, dst = _account(ctx, from_account_id), _account(ctx, to_account_id)
    _usable(src)
    _usable(dst)
    out = _post(ctx, src, -amount, "transfer_out", to_account_id, memo or f"Transfer to {to_account_id}")
    _post(ctx, _account(ctx, to_account_id), amount, "transfer_in", from_account_id, memo or f"Transfer from {from_account_id}")
    transfer_id = next_id(ctx.db, "transfers", "transfer_id", "TRF")
    ctx.db.execute("INSERT INTO transfers VALUES (?,?,?,?,?,?)",
                   (transfer_id, from_account_id, to_account_id, round(amount, 2), memo, fake.iso(ctx.now)))
    return {"transfer_id": transfer_id, "from_account_id": from_account_id, "to_account_id": to_account_id,
            "amount": round(amount, 2), "from_balance": out["balance"]}


@banking.write(returns=("payee",))
def add_payee(ctx: Ctx, customer_id: CustomerId, name: Annotated[str, Field(min_length=1, max_length=100, description="Payee's name, e.g. 'Redwood Partners'")],
              bank_name: Annotated[str, Field(min_length=1, max_length=100, description="The payee's bank, e.g. 'Pacific Trust'")],
              account_number: Annotated[str, Field(pattern=r"^\d{6,17}$", description="The payee's account number, 6 to 17 digits")]) -> dict[str, Any]:
    """Save a new payee for a customer, e.g. add_payee('CUS-0042', 'Redwood Partners', 'Pacific Trust', '4402918831')."""
    _customer(ctx, customer_id)
    if ctx.db.execute("SELECT 1 FROM payees WHERE customer_id = ? AND account_number = ?", (customer_id, account_number)).fetchone():
        raise ToolError(f"{customer_id} already has a payee with account number {account_number}; see list_payees.")
    payee_id = next_id(ctx.db, "payees", "payee_id", "PAY")
    ctx.db.execute("INSERT INTO payees VALUES (?,?,?,?,?)", (payee_id, customer_id, name, bank_name, account_number))
    return {"payee_id": payee_id, "customer_id": customer_id, "name": name}


@banking.write(returns=("transaction",))
def pay_payee(ctx: Ctx, account_id: AccountId, payee_id: PayeeId, amount: Amount,
              memo: Annotated[str, Field(max_length=200, description="Payment reference, e.g. 'Invoice 2231'")] = "") -> dict[str, Any]:
    """Pay a saved payee from an account the same customer owns, e.g. pay_payee('ACC-0107', 'PAY-0015', 120.0)."""
    acc = _account(ctx, account_id)
    payee = fetch(ctx.db, "SELECT * FROM payees WHERE payee_id = ?", (payee_id,),
                  f"No payee {payee_id!r}. Use list_payees to find the customer's payees.")
    if payee["customer_id"] != acc["customer_id"]:
        raise ToolError(f"Payee {payee_id} belongs to {payee['customer_id']}, not to the owner of {account_id} ({acc['customer_id']}).")
    _usable(acc)
    return _post(ctx, acc, -amount, "payment", payee["name"], memo or f"Payment to {payee['name']}")


@banking.write()
def freeze_account(ctx: Ctx, account_id: AccountId, frozen: Annotated[bool, Field(description="true to freeze, false to unfreeze")] = True,
                   reason: Annotated[str, Field(max_length=200, description="Why, e.g. 'lost wallet'")] = "customer request") -> dict[str, Any]:
    """Freeze or unfreeze an account, e.g. freeze_account('ACC-0107', frozen=True, reason='lost wallet')."""
    acc = _account(ctx, account_id)
    if acc["status"] == "closed":
        raise ToolError(f"Account {account_id} is closed; closed accounts cannot be frozen or unfrozen.")
    status = "frozen" if frozen else "active"
    if acc["status"] == status:
        raise ToolError(f"Account {account_id} is already {status}.")
    ctx.db.execute("UPDATE accounts SET status = ?, status_reason = ? WHERE account_id = ?",
                   (status, reason if frozen else None, account_id))
    return {"account_id": account_id, "status": status}


@banking.write(requires=("withdraw_funds",))
def close_account(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """Close an account whose balance is exactly zero, e.g. close_account('ACC-0107'); its cards are cancelled."""
    acc = _account(ctx, account_id)
    _usable(acc)
    if abs(acc["balance"]) > 0.004:
        raise ToolError(f"Account {account_id} still holds {acc['balance']:.2f} USD; withdraw or transfer it before closing.")
    ctx.db.execute("UPDATE accounts SET status = 'closed', status_reason = 'customer request' WHERE account_id = ?", (account_id,))
    ctx.db.execute("UPDATE cards SET status = 'cancelled' WHERE account_id = ?", (account_id,))
    return {"account_id": account_id, "status": "closed"}


@banking.write()
def set_card_status(ctx: Ctx, card_id: CardId, status: Literal["active", "locked", "cancelled"]) -> dict[str, Any]:
    """Lock, unlock or cancel a card, e.g. set_card_status('CRD-0033', 'locked'). A cancelled card cannot be reactivated."""
    card = fetch(ctx.db, "SELECT * FROM cards WHERE card_id = ?", (card_id,), f"No card {card_id!r}. Use list_cards to find card ids.")
    if card["status"] == "cancelled":
        raise ToolError(f"Card {card_id} is cancelled; order a new card instead.")
    if card["status"] == status:
        raise ToolError(f"Card {card_id} is already {status}.")
    ctx.db.execute("UPDATE cards SET status = ? WHERE card_id = ?", (status, card_id))
    return {"card_id": card_id, "status": status}


server = banking
