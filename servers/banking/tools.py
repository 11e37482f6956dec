"""Banking tools: discovery reads (customers, accounts, transactions, payees, cards) and money-moving writes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, ToolError, fake, next_id
from servers.banking.schema import SCHEMA
from servers.banking.seed import seed

MAX_TRANSFER = 25_000.0

banking = Server(
    "banking",
    "Retail banking: customers, accounts, balances, transfers, payees and cards.",
    SCHEMA,
    seed,
    family="money",
)


class CustomerId(EntityId, server=banking, example="CUS-0042", finder="search_customers"): ...


class AccountId(EntityId, server=banking, example="ACC-0107", finder="list_accounts"): ...


class PayeeId(EntityId, server=banking, example="PAY-0015", hint="Use list_payees to find the customer's payees."): ...


class CardId(EntityId, server=banking, example="CRD-0033", finder="list_cards"): ...


Amount = Annotated[float, Field(gt=0, le=1_000_000, description="Amount in USD, e.g. 250.00")]
AccountType = Literal["checking", "savings", "business"]


def _usable(acc: dict[str, Any]) -> None:
    if acc["status"] == "closed":
        raise ToolError(f"Account {acc['account_id']} is closed and cannot be used.")
    if acc["status"] == "frozen":
        raise ToolError(
            f"Account {acc['account_id']} is frozen ({acc['status_reason']}); "
            "unfreeze it with freeze_account(frozen=false) first."
        )


def _post(
    ctx: Ctx, acc: dict[str, Any], amount: float, kind: str, counterparty: str | None, description: str
) -> dict[str, Any]:
    """Apply a signed amount to an account and record the transaction."""
    if amount < 0 and acc["balance"] + acc["overdraft_limit"] + 1e-9 < -amount:
        raise ToolError(
            f"Insufficient funds in {acc['account_id']}: balance {acc['balance']:.2f} USD"
            f" (overdraft {acc['overdraft_limit']:.2f}), needed {-amount:.2f} USD."
        )
    balance = round(acc["balance"] + amount, 2)
    ctx.db.execute("UPDATE accounts SET balance = ? WHERE account_id = ?", (balance, acc["account_id"]))
    txn_id = next_id(ctx.db, "transactions", "txn_id", "TXN", 6)
    ctx.db.execute(
        "INSERT INTO transactions VALUES (?,?,?,?,?,?,?,?)",
        (txn_id, acc["account_id"], kind, round(amount, 2), balance, counterparty, description, fake.iso(ctx.now)),
    )
    return {"txn_id": txn_id, "account_id": acc["account_id"], "amount": round(amount, 2), "balance": balance}


# Read tools -------------------------------------------------------------------------------------


@banking.read(returns=("customer",))
def search_customers(
    ctx: Ctx,
    query: Annotated[str, Field(description="Part of a name, email or city, e.g. 'Garcia'")] = "",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search customers by name, email or city. Returns customer ids such as 'CUS-0042'."""
    q = Query("SELECT customer_id, name, email, city FROM customers").contains(query, "name", "email", "city")
    return q.page(ctx.db, "customers", order_by="customer_id", limit=limit, offset=offset)


@banking.read(returns=("customer", "account"))
def get_customer(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """Get a customer's profile and the ids of their accounts, e.g. get_customer('CUS-0042')."""
    customer = CustomerId.get(ctx, customer_id)
    customer["account_ids"] = ctx.column(
        "SELECT account_id FROM accounts WHERE customer_id = ? ORDER BY account_id", (customer_id,)
    )
    return customer


@banking.read(returns=("account",))
def list_accounts(
    ctx: Ctx,
    customer_id: Annotated[str | None, CustomerId.ref("Only this customer's accounts, e.g. 'CUS-0042'")] = None,
    status: Literal["active", "frozen", "closed"] | None = None,
    type: AccountType | None = None,
    min_balance: Annotated[float | None, Field(description="Only accounts with at least this balance in USD")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List accounts, filtered by customer, status, type or minimum balance. Ids look like 'ACC-0107'."""
    q = Query("SELECT account_id, customer_id, type, nickname, balance, status FROM accounts")
    q.equal("customer_id", customer_id).equal("status", status).equal("type", type).filter("balance >= ?", min_balance)
    return q.page(ctx.db, "accounts", order_by="account_id", limit=limit, offset=offset)


@banking.read(returns=("account", "customer"))
def get_account(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """Get one account: owner, type, balance, overdraft limit and status, e.g. get_account('ACC-0107')."""
    return AccountId.get(ctx, account_id)


TransactionKind = Literal["deposit", "withdrawal", "card_payment", "transfer_in", "transfer_out", "payment"]


@banking.read(returns=("transaction",))
def list_transactions(
    ctx: Ctx,
    account_id: AccountId,
    kind: TransactionKind | None = None,
    since: Annotated[str | None, Field(description="Only on or after this ISO date, e.g. '2026-03-01'")] = None,
    limit: Limit = 20,
) -> dict[str, Any]:
    """List an account's transactions, newest first, e.g. list_transactions('ACC-0107', kind='deposit')."""
    AccountId.get(ctx, account_id)
    q = Query("SELECT * FROM transactions").equal("account_id", account_id).equal("kind", kind)
    q.filter("created_at >= ?", since)
    return q.page(ctx.db, "transactions", order_by="created_at DESC, txn_id DESC", limit=limit)


@banking.read(returns=("payee",))
def list_payees(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """List the payees a customer has saved, e.g. list_payees('CUS-0042')."""
    CustomerId.get(ctx, customer_id)
    return Query("SELECT * FROM payees").equal("customer_id", customer_id).page(ctx.db, "payees", order_by="payee_id")


@banking.read(returns=("card",))
def list_cards(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """List the cards linked to an account, e.g. list_cards('ACC-0107')."""
    AccountId.get(ctx, account_id)
    return Query("SELECT * FROM cards").equal("account_id", account_id).page(ctx.db, "cards", order_by="card_id")


banking.distinct_values(
    {
        "account_type": ("accounts", "type"),
        "account_status": ("accounts", "status"),
        "city": ("customers", "city"),
        "card_network": ("cards", "network"),
        "card_status": ("cards", "status"),
        "transaction_kind": ("transactions", "kind"),
        "payee_bank": ("payees", "bank_name"),
    },
    example="city",
)


# Write tools ------------------------------------------------------------------------------------

Note = Annotated[str, Field(max_length=200)]
Memo = Annotated[str, Field(max_length=200, description="A note for both statements, e.g. 'Rent June'")]
Name = Annotated[str, Field(min_length=1, max_length=100)]


@banking.write(returns=("account",))
def open_account(
    ctx: Ctx,
    customer_id: CustomerId,
    type: AccountType,
    initial_deposit: Annotated[
        float, Field(ge=0, le=1_000_000, description="Opening deposit in USD, e.g. 100.0")
    ] = 0.0,
) -> dict[str, Any]:
    """Open a new account for a customer, e.g. open_account('CUS-0042', 'savings', 500.0). Returns the new account
    id."""
    customer = CustomerId.get(ctx, customer_id)
    acc_id = next_id(ctx.db, "accounts", "account_id", "ACC")
    nickname = f"{customer['name'].split()[0]}'s {type}"
    ctx.db.execute(
        "INSERT INTO accounts VALUES (?,?,?,?,?,?,?,?,?)",
        (acc_id, customer_id, type, nickname, 0.0, 0.0, "active", None, fake.iso(ctx.now)),
    )
    if initial_deposit > 0:
        _post(ctx, AccountId.get(ctx, acc_id), initial_deposit, "deposit", None, "Opening deposit")
    return AccountId.get(ctx, acc_id)


@banking.write(returns=("transaction",))
def deposit_funds(
    ctx: Ctx,
    account_id: AccountId,
    amount: Amount,
    description: Annotated[Note, Field(description="What the deposit is for")] = "Deposit",
) -> dict[str, Any]:
    """Deposit money into an account, e.g. deposit_funds('ACC-0107', 250.0). Fails on a frozen or closed account."""
    acc = AccountId.get(ctx, account_id)
    _usable(acc)
    return _post(ctx, acc, amount, "deposit", None, description)


@banking.write(returns=("transaction",))
def withdraw_funds(
    ctx: Ctx,
    account_id: AccountId,
    amount: Amount,
    description: Annotated[Note, Field(description="What the withdrawal is for")] = "Withdrawal",
) -> dict[str, Any]:
    """Withdraw money from an account, e.g. withdraw_funds('ACC-0107', 60.0). Fails beyond balance plus overdraft."""
    acc = AccountId.get(ctx, account_id)
    _usable(acc)
    return _post(ctx, acc, -amount, "withdrawal", None, description)


@banking.write(returns=("transfer",))
def transfer_funds(
    ctx: Ctx, from_account_id: AccountId, to_account_id: AccountId, amount: Amount, memo: Memo = ""
) -> dict[str, Any]:
    """Move money between two accounts of this bank, e.g. transfer_funds('ACC-0107', 'ACC-0212', 300.0, 'Rent').

    At most 25,000 USD per transfer; both accounts must be active."""
    if from_account_id == to_account_id:
        raise ToolError("Source and destination are the same account; choose two different accounts.")
    if amount > MAX_TRANSFER:
        raise ToolError(
            f"{amount:.2f} USD exceeds the single-transfer limit of {MAX_TRANSFER:.2f} USD; "
            "split it into smaller transfers."
        )
    src, dst = AccountId.get(ctx, from_account_id), AccountId.get(ctx, to_account_id)
    _usable(src)
    _usable(dst)
    out = _post(ctx, src, -amount, "transfer_out", to_account_id, memo or f"Transfer to {to_account_id}")
    _post(
        ctx,
        AccountId.get(ctx, to_account_id),
        amount,
        "transfer_in",
        from_account_id,
        memo or f"Transfer from {from_account_id}",
    )
    transfer_id = next_id(ctx.db, "transfers", "transfer_id", "TRF")
    ctx.db.execute(
        "INSERT INTO transfers VALUES (?,?,?,?,?,?)",
        (transfer_id, from_account_id, to_account_id, round(amount, 2), memo, fake.iso(ctx.now)),
    )
    return {
        "transfer_id": transfer_id,
        "from_account_id": from_account_id,
        "to_account_id": to_account_id,
        "amount": round(amount, 2),
        "from_balance": out["balance"],
    }


@banking.write(returns=("payee",))
def add_payee(
    ctx: Ctx,
    customer_id: CustomerId,
    name: Annotated[Name, Field(description="Payee's name, e.g. 'Redwood Partners'")],
    bank_name: Annotated[Name, Field(description="The payee's bank, e.g. 'Pacific Trust'")],
    account_number: Annotated[
        str, Field(pattern=r"^\d{6,17}$", description="The payee's account number, 6 to 17 digits")
    ],
) -> dict[str, Any]:
    """Save a new payee for a customer, e.g. add_payee('CUS-0042', 'Redwood Partners', 'Pacific Trust',
    '4402918831')."""
    CustomerId.get(ctx, customer_id)
    if ctx.db.execute(
        "SELECT 1 FROM payees WHERE customer_id = ? AND account_number = ?", (customer_id, account_number)
    ).fetchone():
        raise ToolError(f"{customer_id} already has a payee with account number {account_number}; see list_payees.")
    payee_id = next_id(ctx.db, "payees", "payee_id", "PAY")
    ctx.db.execute("INSERT INTO payees VALUES (?,?,?,?,?)", (payee_id, customer_id, name, bank_name, account_number))
    return {"payee_id": payee_id, "customer_id": customer_id, "name": name}


@banking.write(returns=("transaction",))
def pay_payee(
    ctx: Ctx,
    account_id: AccountId,
    payee_id: PayeeId,
    amount: Amount,
    memo: Annotated[Note, Field(description="Payment reference, e.g. 'Invoice 2231'")] = "",
) -> dict[str, Any]:
    """Pay a saved payee from an account the same customer owns, e.g. pay_payee('ACC-0011', 'PAY-0015', 120.0)."""
    acc = AccountId.get(ctx, account_id)
    payee = PayeeId.get(ctx, payee_id)
    if payee["customer_id"] != acc["customer_id"]:
        raise ToolError(
            f"Payee {payee_id} belongs to {payee['customer_id']}, "
            f"not to the owner of {account_id} ({acc['customer_id']})."
        )
    _usable(acc)
    return _post(ctx, acc, -amount, "payment", payee["name"], memo or f"Payment to {payee['name']}")


@banking.write()
def freeze_account(
    ctx: Ctx,
    account_id: AccountId,
    frozen: Annotated[bool, Field(description="true to freeze, false to unfreeze")] = True,
    reason: Annotated[Note, Field(description="Why, e.g. 'lost wallet'")] = "customer request",
) -> dict[str, Any]:
    """Freeze or unfreeze an account, e.g. freeze_account('ACC-0107', frozen=True, reason='lost wallet')."""
    acc = AccountId.get(ctx, account_id)
    if acc["status"] == "closed":
        raise ToolError(f"Account {account_id} is closed; closed accounts cannot be frozen or unfrozen.")
    status = "frozen" if frozen else "active"
    if acc["status"] == status:
        raise ToolError(f"Account {account_id} is already {status}.")
    ctx.db.execute(
        "UPDATE accounts SET status = ?, status_reason = ? WHERE account_id = ?",
        (status, reason if frozen else None, account_id),
    )
    return {"account_id": account_id, "status": status}


@banking.write(requires=("withdraw_funds",))
def close_account(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """Close an account whose balance is exactly zero, e.g. close_account('ACC-0381'); its cards are cancelled."""
    acc = AccountId.get(ctx, account_id)
    _usable(acc)
    if abs(acc["balance"]) > 0.004:
        raise ToolError(
            f"Account {account_id} still holds {acc['balance']:.2f} USD; withdraw or transfer it before closing."
        )
    ctx.db.execute(
        "UPDATE accounts SET status = 'closed', status_reason = 'customer request' WHERE account_id = ?", (account_id,)
    )
    ctx.db.execute("UPDATE cards SET status = 'cancelled' WHERE account_id = ?", (account_id,))
    return {"account_id": account_id, "status": "closed"}


@banking.write()
def set_card_status(ctx: Ctx, card_id: CardId, status: Literal["active", "locked", "cancelled"]) -> dict[str, Any]:
    """Lock, unlock or cancel a card, e.g. set_card_status('CRD-0033', 'locked'). A cancelled card cannot be
    reactivated."""
    card = CardId.get(ctx, card_id)
    if card["status"] == "cancelled":
        raise ToolError(f"Card {card_id} is cancelled; order a new card instead.")
    if card["status"] == status:
        raise ToolError(f"Card {card_id} is already {status}.")
    ctx.db.execute("UPDATE cards SET status = ? WHERE card_id = ?", (status, card_id))
    return {"card_id": card_id, "status": status}
