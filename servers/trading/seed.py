"""The trading seed: 30 symbols with 60 trading days of history, 6 market makers and 240 customer portfolios
with positions, filled and cancelled order history, and a live order book on every symbol.

Every customer's fills are drawn right after the customer; the order of the draws from ``rng`` is part of
the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows
from servers.trading.schema import tick

SYMBOLS = (
    ("AAPL", "Apple Inc.", "Technology", "NASDAQ", 212.0),
    ("MSFT", "Microsoft Corp.", "Technology", "NASDAQ", 455.0),
    ("NVDA", "NVIDIA Corp.", "Technology", "NASDAQ", 138.0),
    ("GOOGL", "Alphabet Inc.", "Communication", "NASDAQ", 178.0),
    ("AMZN", "Amazon.com Inc.", "Consumer Discretionary", "NASDAQ", 201.0),
    ("META", "Meta Platforms Inc.", "Communication", "NASDAQ", 590.0),
    ("TSLA", "Tesla Inc.", "Consumer Discretionary", "NASDAQ", 245.0),
    ("JPM", "JPMorgan Chase & Co.", "Financials", "NYSE", 228.0),
    ("BAC", "Bank of America Corp.", "Financials", "NYSE", 41.5),
    ("GS", "Goldman Sachs Group", "Financials", "NYSE", 560.0),
    ("V", "Visa Inc.", "Financials", "NYSE", 318.0),
    ("JNJ", "Johnson & Johnson", "Health Care", "NYSE", 156.0),
    ("PFE", "Pfizer Inc.", "Health Care", "NYSE", 26.8),
    ("UNH", "UnitedHealth Group", "Health Care", "NYSE", 512.0),
    ("XOM", "Exxon Mobil Corp.", "Energy", "NYSE", 114.0),
    ("CVX", "Chevron Corp.", "Energy", "NYSE", 152.0),
    ("KO", "Coca-Cola Co.", "Consumer Staples", "NYSE", 69.4),
    ("PEP", "PepsiCo Inc.", "Consumer Staples", "NASDAQ", 148.0),
    ("WMT", "Walmart Inc.", "Consumer Staples", "NYSE", 94.0),
    ("COST", "Costco Wholesale", "Consumer Staples", "NASDAQ", 960.0),
    ("DIS", "Walt Disney Co.", "Communication", "NYSE", 108.0),
    ("NFLX", "Netflix Inc.", "Communication", "NASDAQ", 880.0),
    ("BA", "Boeing Co.", "Industrials", "NYSE", 172.0),
    ("CAT", "Caterpillar Inc.", "Industrials", "NYSE", 348.0),
    ("GE", "GE Aerospace", "Industrials", "NYSE", 196.0),
    ("INTC", "Intel Corp.", "Technology", "NASDAQ", 21.4),
    ("AMD", "Advanced Micro Devices", "Technology", "NASDAQ", 142.0),
    ("NKE", "Nike Inc.", "Consumer Discretionary", "NYSE", 74.0),
    ("MCD", "McDonald's Corp.", "Consumer Discretionary", "NYSE", 291.0),
    ("NEE", "NextEra Energy", "Utilities", "NYSE", 72.0),
)
MARKET_MAKERS = (
    "Harborview Securities",
    "Northgate Liquidity",
    "Citrine Markets",
    "Bluewater Execution",
    "Lattice Capital Markets",
    "Stonebridge Trading",
)


@dataclass
class Rows:
    """The market so far: price history, and the portfolios, orders and trades drawn on it."""

    rng: random.Random
    now: datetime
    days: list[datetime]
    closes: dict[str, list[float]]
    mm_ids: list[str] = field(default_factory=list)
    portfolios: list[list[Any]] = field(default_factory=list)
    movements: list[Row] = field(default_factory=list)
    positions: list[Row] = field(default_factory=list)
    orders: list[Row] = field(default_factory=list)
    trades: list[Row] = field(default_factory=list)
    held: dict[str, dict[str, int]] = field(default_factory=dict)

    def order_id(self) -> str:
        return f"ORD-{len(self.orders) + 1:05d}"


def iso(t: datetime) -> str:
    """Like fake.iso for the whole-second times a seed makes, several times faster."""
    return t.isoformat(timespec="seconds")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """30 symbols with 60 trading days of history, 6 market makers and 240 customer portfolios with
    positions, filled and cancelled order history, and a live order book on every symbol."""
    days = trading_days(now)
    symbols, history, closes = market(rng, [day.strftime("%Y-%m-%d") for day in days])
    insert_rows(db, "symbols", symbols)
    insert_rows(db, "price_history", history)
    out = Rows(rng, now, days, closes)
    market_makers(out)
    for i in range(len(MARKET_MAKERS) + 1, len(MARKET_MAKERS) + 241):
        customer(out, i)
    resting_orders(out)
    quotes(out)
    insert_rows(db, "portfolios", [tuple(p) for p in out.portfolios])
    insert_rows(db, "cash_movements", out.movements)
    insert_rows(db, "positions", out.positions)
    insert_rows(db, "orders", out.orders)
    insert_rows(db, "trades", out.trades)


def trading_days(now: datetime) -> list[datetime]:
    """The 60 weekdays before now, oldest first."""
    days: list[datetime] = []
    d = now - timedelta(days=1)
    while len(days) < 60:
        if d.weekday() < 5:
            days.append(d)
        d -= timedelta(days=1)
    return days[::-1]


def market(rng: random.Random, day_strs: list[str]) -> tuple[list[Row], list[Row], dict[str, list[float]]]:
    """Symbols, their daily bars (a random walk from the base price) and closing prices."""
    symbols: list[Row] = []
    history: list[Row] = []
    closes: dict[str, list[float]] = {}
    for sym, name, sector, exchange, base in SYMBOLS:
        price = base * rng.uniform(0.85, 1.1)
        series = []
        for day in day_strs:
            open_ = price
            price = max(1.0, price * (1 + rng.gauss(0.0004, 0.017)))
            hi = max(open_, price) * (1 + rng.uniform(0, 0.01))
            lo = min(open_, price) * (1 - rng.uniform(0, 0.01))
            history.append((sym, day, tick(open_), tick(hi), tick(lo), tick(price), rng.randint(2, 90) * 100_000))
            series.append(tick(price))
        closes[sym] = series
        symbols.append((sym, name, sector, exchange, series[-1], series[-2]))
    return symbols, history, closes


def market_makers(out: Rows) -> None:
    """Six well-funded desks holding every symbol."""
    for i, firm in enumerate(MARKET_MAKERS, 1):
        pid = f"PRT-{i:04d}"
        out.mm_ids.append(pid)
        opened = out.now - timedelta(days=out.rng.randint(900, 3000))
        cash = 25_000_000.0
        out.portfolios.append(
            [pid, firm, f"desk{i}@{firm.split()[0].lower()}.example.com", "market_maker", "active", cash, iso(opened)]
        )
        out.movements.append((f"CSH-{len(out.movements) + 1:05d}", pid, "deposit", cash, cash, iso(opened)))
        for sym, *_ in SYMBOLS:
            out.positions.append((pid, sym, 200_000, out.closes[sym][0]))


def customer(out: Rows, i: int) -> None:
    """A funded customer portfolio with a few filled buys and maybe some cancelled limit orders."""
    rng, now = out.rng, out.now
    pid = f"PRT-{i:04d}"
    first, last = fake.person(rng)
    kind = rng.choices(("individual", "joint", "retirement"), (70, 12, 18))[0]
    if kind == "joint":
        owner = f"{first} & {fake.FIRST_NAMES[rng.randrange(len(fake.FIRST_NAMES))]} {last}"
    else:
        owner = f"{first} {last}"
    status = "frozen" if rng.random() < 0.05 else "active"
    opened = fake.moment(rng, now, 2500, -90)
    deposit = float(rng.choice((5_000, 10_000, 25_000, 50_000, 100_000, 250_000)))
    out.movements.append((f"CSH-{len(out.movements) + 1:05d}", pid, "deposit", deposit, deposit, iso(opened)))
    cash = deposit
    for sym in rng.sample([s[0] for s in SYMBOLS], rng.randint(0, 6)):
        cash = holding(out, pid, sym, cash)
    out.portfolios.append([pid, owner, fake.email_for(first, last, rng, i), kind, status, cash, iso(opened)])
    for _ in range(rng.randint(0, 2)):
        sym, *_ = rng.choice(SYMBOLS)
        at = iso(rng.choice(out.days).replace(hour=15, minute=rng.randint(0, 59)))
        price = tick(out.closes[sym][-1] * rng.uniform(0.85, 0.95))
        out.orders.append(
            (out.order_id(), pid, sym, "buy", "limit", rng.randint(1, 40), price, 0, None, "cancelled", at, at)
        )


def holding(out: Rows, pid: str, sym: str, cash: float) -> float:
    """One or two filled buys of a symbol from market makers; returns the cash left."""
    rng = out.rng
    qty_total, cost_total = 0, 0.0
    for _ in range(rng.choice((1, 1, 2))):
        day_idx = rng.randrange(len(out.days) - 1)
        price = tick(out.closes[sym][day_idx] * rng.uniform(0.99, 1.01))
        qty = int(cash * rng.uniform(0.05, 0.25) // price)
        if qty < 1:
            continue
        cash = round(cash - qty * price, 2)
        qty_total += qty
        cost_total += qty * price
        at = iso(out.days[day_idx].replace(hour=rng.randint(14, 19), minute=rng.randint(0, 59)))
        oid = out.order_id()
        otype = rng.choice(("market", "limit"))
        out.orders.append(
            (oid, pid, sym, "buy", otype, qty, price if otype == "limit" else None, qty, price, "filled", at, at)
        )
        out.trades.append(
            (f"TRD-{len(out.trades) + 1:05d}", sym, price, qty, oid, None, pid, rng.choice(out.mm_ids), at)
        )
    if qty_total:
        out.positions.append((pid, sym, qty_total, round(cost_total / qty_total, 4)))
        out.held.setdefault(pid, {})[sym] = qty_total
    return cash


def resting_orders(out: Rows) -> None:
    """Customer limit orders away from the touch, backed by cash and shares."""
    rng, now = out.rng, out.now
    customer_ids = [p[0] for p in out.portfolios if p[3] != "market_maker" and p[4] == "active"]
    cash_of = {p[0]: p[5] for p in out.portfolios}
    reserved_cash = {p[0]: 0.0 for p in out.portfolios if p[3] != "market_maker"}
    for _ in range(170):
        pid = rng.choice(customer_ids)
        at = iso(fake.moment(rng, now, 20, 0) - timedelta(hours=1))
        mine = [sym for sym, q in out.held.get(pid, {}).items() if q > 0]
        if mine and rng.random() < 0.45:
            sym = rng.choice(mine)
            qty = rng.randint(1, out.held[pid][sym])
            out.held[pid][sym] -= qty
            price = tick(out.closes[sym][-1] * rng.uniform(1.02, 1.12))
            side = "sell"
        else:
            sym = rng.choice(SYMBOLS)[0]
            price = tick(out.closes[sym][-1] * rng.uniform(0.88, 0.98))
            qty = rng.randint(1, 60)
            if reserved_cash[pid] + qty * price > cash_of[pid]:
                continue
            reserved_cash[pid] += qty * price
            side = "buy"
        out.orders.append((out.order_id(), pid, sym, side, "limit", qty, price, 0, None, "open", at, at))


def quotes(out: Rows) -> None:
    """Market-maker quotes: five levels a side, one or two orders per level, on every symbol."""
    rng = out.rng
    book_time = out.now - timedelta(minutes=30)
    for sym, *_ in SYMBOLS:
        close = out.closes[sym][-1]
        step = max(0.01, round(close * 0.001, 2))
        half = max(0.01, round(close * 0.0004, 2))
        for level in range(5):
            for side, price in (
                ("buy", tick(close - half - level * step)),
                ("sell", tick(close + half + level * step)),
            ):
                for mm in rng.sample(out.mm_ids, rng.choice((1, 2))):
                    book_time += timedelta(seconds=rng.randint(1, 5))
                    at = iso(book_time)
                    out.orders.append(
                        (
                            out.order_id(),
                            mm,
                            sym,
                            side,
                            "limit",
                            rng.randint(1, 12) * 50,
                            price,
                            0,
                            None,
                            "open",
                            at,
                            at,
                        )
                    )
