"""The banking seed: 300 customers, ~650 accounts with consistent transaction histories, payees and cards.

Each table's rows come from their own small function; the order of the draws from ``rng`` is part of
the seed's identity (the state hash), so the functions run in the order the rows depend on each other.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hub.kit import Row, fake, insert_rows

BANKS = ("First Harbor Bank", "Summit Credit Union", "Pacific Trust", "Lakeside Savings", "Metro National Bank")
MERCHANTS = (
    "Whole Grocer",
    "City Power & Light",
    "Metro Transit",
    "Blue Bottle Cafe",
    "Shell Station",
    "Netflix",
    "Amazon",
    "Target",
    "Home Depot",
    "Walgreens",
    "Delta Air Lines",
    "Uber",
    "Spotify",
    "Costco",
)
FREEZE_REASONS = ("suspected fraud", "customer request", "court order")


@dataclass
class Rows:
    """The rows of every table, filled customer by customer."""

    customers: list[Row] = field(default_factory=list)
    accounts: list[Row] = field(default_factory=list)
    transactions: list[Row] = field(default_factory=list)
    cards: list[Row] = field(default_factory=list)
    payees: list[Row] = field(default_factory=list)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """300 customers, ~650 accounts with consistent transaction histories, payees and cards."""
    out = Rows(customers=customers(rng, now))
    for cus_id, name, *_ in out.customers:
        for kind in rng.sample(("checking", "savings", "business"), rng.choice((1, 2, 2, 3))):
            account(rng, now, out, cus_id, name, kind)
        payees(rng, out, cus_id)
    insert_rows(db, "customers", out.customers)
    insert_rows(db, "accounts", out.accounts)
    insert_rows(db, "transactions", out.transactions)
    insert_rows(db, "cards", out.cards)
    insert_rows(db, "payees", out.payees, or_ignore=True)


def customers(rng: random.Random, now: datetime) -> list[Row]:
    found = []
    for i in range(1, 301):
        first, last = fake.person(rng)
        city, _, _, _ = fake.city(rng)
        found.append(
            (
                f"CUS-{i:04d}",
                f"{first} {last}",
                fake.email_for(first, last, rng, i),
                fake.phone(rng),
                fake.address(rng),
                city,
                fake.iso(fake.moment(rng, now, 3650, 0)),
            )
        )
    return found


def account(rng: random.Random, now: datetime, out: Rows, cus_id: str, name: str, kind: str) -> None:
    """One account with its history, a closing withdrawal if closed, and a card unless it is savings."""
    acc_id = f"ACC-{len(out.accounts) + 1:04d}"
    opened = fake.moment(rng, now, 2000, -30)
    balance = history(rng, acc_id, opened, now, out.transactions)
    status = rng.choices(("active", "frozen", "closed"), (90, 7, 3))[0]
    if status == "closed":
        out.transactions.append(
            (
                f"TXN-{len(out.transactions) + 1:06d}",
                acc_id,
                "withdrawal",
                -balance,
                0.0,
                None,
                "Closing withdrawal",
                fake.iso(now - timedelta(days=3)),
            )
        )
        balance = 0.0
    freeze_reason = rng.choice(FREEZE_REASONS)
    reason = {"frozen": freeze_reason, "closed": "customer request"}.get(status)
    overdraft = 500.0 if kind == "checking" and rng.random() < 0.4 else 0.0
    out.accounts.append(
        (
            acc_id,
            cus_id,
            kind,
            f"{name.split()[0]}'s {kind}",
            round(balance, 2),
            overdraft,
            status,
            reason,
            fake.iso(opened),
        )
    )
    if kind != "savings":
        out.cards.append(card(rng, f"CRD-{len(out.cards) + 1:04d}", acc_id, status))


def history(rng: random.Random, acc_id: str, opened: datetime, now: datetime, txns: list[Row]) -> float:
    """Deposits and card payments since the account opened; returns the balance they leave."""
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


def card(rng: random.Random, card_id: str, acc_id: str, account_status: str) -> Row:
    last4 = f"{rng.randint(0, 9999):04d}"
    network = rng.choice(("Visa", "Mastercard"))
    status = "cancelled" if account_status == "closed" else rng.choices(("active", "locked"), (92, 8))[0]
    limit = rng.choice((500.0, 1000.0, 2500.0))
    return (card_id, acc_id, last4, network, status, limit, f"{rng.randint(2027, 2031)}-{rng.randint(1, 12):02d}")


def payees(rng: random.Random, out: Rows, cus_id: str) -> None:
    for _ in range(rng.randint(0, 4)):
        name = fake.full_name(rng) if rng.random() < 0.6 else rng.choice(fake.COMPANIES)
        out.payees.append(
            (f"PAY-{len(out.payees) + 1:04d}", cus_id, name, rng.choice(BANKS), f"{rng.randint(10**9, 10**10 - 1)}")
        )
