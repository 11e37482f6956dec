"""Trading: brokerage portfolios, cash, positions, orders, market data and a live order book.

Business rules: limit orders rest in the book until they fill or are cancelled; market orders and
crossing limit orders fill immediately against the opposite side of the book in price-time priority
(best price first, then oldest, then lowest order id) at the resting order's price, never against
the same portfolio's own orders. A buy needs available cash (cash minus what open buy orders
reserve at their limit price); a sell needs available shares (held minus what open sell orders
reserve); there is no short selling. A market order the book cannot fill completely is rejected.
Limit prices must lie within 25% of the last traded price. Frozen portfolios can deposit but cannot
trade or withdraw. Only open or partially filled orders can be cancelled; filled and cancelled
orders are final.
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
CREATE TABLE symbols (
    symbol TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    sector TEXT NOT NULL,
    exchange TEXT NOT NULL,
    last_price REAL NOT NULL,
    prev_close REAL NOT NULL
);
CREATE TABLE price_history (
    symbol TEXT NOT NULL REFERENCES symbols(symbol),
    date TEXT NOT NULL,
    open REAL NOT NULL,
    high REAL NOT NULL,
    low REAL NOT NULL,
    close REAL NOT NULL,
    volume INTEGER NOT NULL,
    PRIMARY KEY (symbol, date)
);
CREATE TABLE portfolios (
    portfolio_id TEXT PRIMARY KEY,
    owner_name TEXT NOT NULL,
    email TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('individual', 'joint', 'retirement', 'market_maker')),
    status TEXT NOT NULL CHECK (status IN ('active', 'frozen')),
    cash REAL NOT NULL,
    opened_at TEXT NOT NULL
);
CREATE TABLE cash_movements (
    movement_id TEXT PRIMARY KEY,
    portfolio_id TEXT NOT NULL REFERENCES portfolios(portfolio_id),
    kind TEXT NOT NULL CHECK (kind IN ('deposit', 'withdrawal')),
    amount REAL NOT NULL,
    cash_after REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX cash_movements_portfolio ON cash_movements(portfolio_id, created_at);
CREATE TABLE positions (
    portfolio_id TEXT NOT NULL REFERENCES portfolios(portfolio_id),
    symbol TEXT NOT NULL REFERENCES symbols(symbol),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    avg_cost REAL NOT NULL,
    PRIMARY KEY (portfolio_id, symbol)
);
CREATE TABLE orders (
    order_id TEXT PRIMARY KEY,
    portfolio_id TEXT NOT NULL REFERENCES portfolios(portfolio_id),
    symbol TEXT NOT NULL REFERENCES symbols(symbol),
    side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    type TEXT NOT NULL CHECK (type IN ('market', 'limit')),
    quantity INTEGER NOT NULL,
    limit_price REAL,
    filled_quantity INTEGER NOT NULL DEFAULT 0,
    avg_fill_price REAL,
    status TEXT NOT NULL CHECK (status IN ('open', 'partially_filled', 'filled', 'cancelled')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX orders_book ON orders(symbol, side, status, limit_price);
CREATE INDEX orders_portfolio ON orders(portfolio_id, created_at);
CREATE TABLE trades (
    trade_id TEXT PRIMARY KEY,
    symbol TEXT NOT NULL,
    price REAL NOT NULL,
    quantity INTEGER NOT NULL,
    buy_order_id TEXT,
    sell_order_id TEXT,
    buyer_portfolio_id TEXT NOT NULL,
    seller_portfolio_id TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX trades_buy ON trades(buy_order_id);
CREATE INDEX trades_sell ON trades(sell_order_id);
"""

SYMBOLS = (
    ("AAPL", "Apple Inc.", "Technology", "NASDAQ", 212.0), ("MSFT", "Microsoft Corp.", "Technology", "NASDAQ", 455.0),
    ("NVDA", "NVIDIA Corp.", "Technology", "NASDAQ", 138.0), ("GOOGL", "Alphabet Inc.", "Communication", "NASDAQ", 178.0),
    ("AMZN", "Amazon.com Inc.", "Consumer Discretionary", "NASDAQ", 201.0), ("META", "Meta Platforms Inc.", "Communication", "NASDAQ", 590.0),
    ("TSLA", "Tesla Inc.", "Consumer Discretionary", "NASDAQ", 245.0), ("JPM", "JPMorgan Chase & Co.", "Financials", "NYSE", 228.0),
    ("BAC", "Bank of America Corp.", "Financials", "NYSE", 41.5), ("GS", "Goldman Sachs Group", "Financials", "NYSE", 560.0),
    ("V", "Visa Inc.", "Financials", "NYSE", 318.0), ("JNJ", "Johnson & Johnson", "Health Care", "NYSE", 156.0),
    ("PFE", "Pfizer Inc.", "Health Care", "NYSE", 26.8), ("UNH", "UnitedHealth Group", "Health Care", "NYSE", 512.0),
    ("XOM", "Exxon Mobil Corp.", "Energy", "NYSE", 114.0), ("CVX", "Chevron Corp.", "Energy", "NYSE", 152.0),
    ("KO", "Coca-Cola Co.", "Consumer Staples", "NYSE", 69.4), ("PEP", "PepsiCo Inc.", "Consumer Staples", "NASDAQ", 148.0),
    ("WMT", "Walmart Inc.", "Consumer Staples", "NYSE", 94.0), ("COST", "Costco Wholesale", "Consumer Staples", "NASDAQ", 960.0),
    ("DIS", "Walt Disney Co.", "Communication", "NYSE", 108.0), ("NFLX", "Netflix Inc.", "Communication", "NASDAQ", 880.0),
    ("BA", "Boeing Co.", "Industrials", "NYSE", 172.0), ("CAT", "Caterpillar Inc.", "Industrials", "NYSE", 348.0),
    ("GE", "GE Aerospace", "Industrials", "NYSE", 196.0), ("INTC", "Intel Corp.", "Technology", "NASDAQ", 21.4),
    ("AMD", "Advanced Micro Devices", "Technology", "NASDAQ", 142.0), ("NKE", "Nike Inc.", "Consumer Discretionary", "NYSE", 74.0),
    ("MCD", "McDonald's Corp.", "Consumer Discretionary", "NYSE", 291.0), ("NEE", "NextEra Energy", "Utilities", "NYSE", 72.0),
)
MARKET_MAKERS = ("Harborview Securities", "Northgate Liquidity", "Citrine Markets", "Bluewater Execution",
                 "Lattice Capital Markets", "Stonebridge Trading")
PRICE_BAND = 0.25
ACTIVE = ("open", "partially_filled")


def _tick(price: float) -> float:
    return round(max(0.01, price), 2)


def _iso(t: datetime) -> str:
    """Like fake.iso for the whole-second times a seed makes, several times faster."""
    return t.isoformat(timespec="seconds")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """30 symbols with 60 trading days of history, 6 market makers and 240 customer portfolios with
    positions, filled and cancelled order history, and a live order book on every symbol."""
    days: list[datetime] = []
    d = now - timedelta(days=1)
    while len(days) < 60:
        if d.weekday() < 5:
            days.append(d)
        d -= timedelta(days=1)
    days.reverse()
    day_strs = [day.strftime("%Y-%m-%d") for day in days]
    history: list[Any] = []
    symbols: list[Any] = []
    closes: dict[str, list[float]] = {}
    for sym, name, sector, exchange, base in SYMBOLS:
        price = base * rng.uniform(0.85, 1.1)
        series = []
        for day in day_strs:
            open_ = price
            price = max(1.0, price * (1 + rng.gauss(0.0004, 0.017)))
            hi = max(open_, price) * (1 + rng.uniform(0, 0.01))
            lo = min(open_, price) * (1 - rng.uniform(0, 0.01))
            history.append((sym, day, _tick(open_), _tick(hi), _tick(lo), _tick(price),
                            rng.randint(2, 90) * 100_000))
            series.append(_tick(price))
        closes[sym] = series
        symbols.append((sym, name, sector, exchange, series[-1], series[-2]))
    db.executemany("INSERT INTO symbols VALUES (?,?,?,?,?,?)", symbols)
    db.executemany("INSERT INTO price_history VALUES (?,?,?,?,?,?,?)", history)

    portfolios: list[Any] = []
    movements: list[Any] = []
    positions: list[Any] = []
    orders: list[Any] = []
    trades: list[Any] = []
    mm_ids = []
    for i, firm in enumerate(MARKET_MAKERS, 1):
        pid = f"PRT-{i:04d}"
        mm_ids.append(pid)
        opened = now - timedelta(days=rng.randint(900, 3000))
        cash = 25_000_000.0
        portfolios.append((pid, firm, f"desk{i}@{firm.split()[0].lower()}.example.com", "market_maker", "active", cash, _iso(opened)))
        movements.append((f"CSH-{len(movements) + 1:05d}", pid, "deposit", cash, cash, _iso(opened)))
        for sym, *_ in SYMBOLS:
            positions.append((pid, sym, 200_000, closes[sym][0]))
    reserved_cash: dict[str, float] = {}
    held: dict[str, dict[str, int]] = {}
    for i in range(len(MARKET_MAKERS) + 1, len(MARKET_MAKERS) + 241):
        pid = f"PRT-{i:04d}"
        first, last = fake.person(rng)
        kind = rng.choices(("individual", "joint", "retirement"), (70, 12, 18))[0]
        owner = f"{first} {last}" if kind != "joint" else f"{first} & {fake.FIRST_NAMES[rng.randrange(len(fake.FIRST_NAMES))]} {last}"
        status = "frozen" if rng.random() < 0.05 else "active"
        opened = fake.moment(rng, now, 2500, -90)
        deposit = float(rng.choice((5_000, 10_000, 25_000, 50_000, 100_000, 250_000)))
        movements.append((f"CSH-{len(movements) + 1:05d}", pid, "deposit", deposit, deposit, _iso(opened)))
        cash = deposit
        for sym in rng.sample([s[0] for s in SYMBOLS], rng.randint(0, 6)):
            n_buys = rng.choice((1, 1, 2))
            qty_total, cost_total = 0, 0.0
            for _ in range(n_buys):
                day_idx = rng.randrange(len(days) - 1)
                price = _tick(closes[sym][day_idx] * rng.uniform(0.99, 1.01))
                budget = cash * rng.uniform(0.05, 0.25)
                qty = int(budget // price)
                if qty < 1:
                    continue
                cash = round(cash - qty * price, 2)
                qty_total += qty
                cost_total += qty * price
                at = _iso(days[day_idx].replace(hour=rng.randint(14, 19), minute=rng.randint(0, 59)))
                oid = f"ORD-{len(orders) + 1:05d}"
                otype = rng.choice(("market", "limit"))
                orders.append((oid, pid, sym, "buy", otype, qty, price if otype == "limit" else None, qty, price, "filled", at, at))
                trades.append((f"TRD-{len(trades) + 1:05d}", sym, price, qty, oid, None, pid, rng.choice(mm_ids), at))
            if qty_total:
                positions.append((pid, sym, qty_total, round(cost_total / qty_total, 4)))
                held.setdefault(pid, {})[sym] = qty_total
        portfolios.append([pid, owner, fake.email_for(first, last, rng, i), kind, status, cash, _iso(opened)])
        reserved_cash[pid] = 0.0
        # cancelled history
        for _ in range(rng.randint(0, 2)):
            sym, *_ = rng.choice(SYMBOLS)
            at = _iso(rng.choice(days).replace(hour=15, minute=rng.randint(0, 59)))
            price = _tick(closes[sym][-1] * rng.uniform(0.85, 0.95))
            orders.append((f"ORD-{len(orders) + 1:05d}", pid, sym, "buy", "limit", rng.randint(1, 40), price, 0, None, "cancelled", at, at))
    # resting customer limit orders away from the touch, backed by cash and shares
    customer_ids = [p[0] for p in portfolios if p[3] != "market_maker" and p[4] == "active"]
    cash_of = {p[0]: p[5] for p in portfolios}
    for _ in range(170):
        pid = rng.choice(customer_ids)
        at = _iso(fake.moment(rng, now, 20, 0) - timedelta(hours=1))
        mine = [sym for sym, q in held.get(pid, {}).items() if q > 0]
        if mine and rng.random() < 0.45:
            sym = rng.choice(mine)
            qty = rng.randint(1, held[pid][sym])
            held[pid][sym] -= qty
            price = _tick(closes[sym][-1] * rng.uniform(1.02, 1.12))
            side = "sell"
        else:
            sym = rng.choice(SYMBOLS)[0]
            price = _tick(closes[sym][-1] * rng.uniform(0.88, 0.98))
            qty = rng.randint(1, 60)
            if reserved_cash[pid] + qty * price > cash_of[pid]:
                continue
            reserved_cash[pid] += qty * price
            side = "buy"
        orders.append((f"ORD-{len(orders) + 1:05d}", pid, sym, side, "limit", qty, price, 0, None, "open", at, at))
    # market-maker quotes: five levels a side, one or two orders per level, on every symbol
    book_time = now - timedelta(minutes=30)
    for sym, *_ in SYMBOLS:
        close = closes[sym][-1]
        step = max(0.01, round(close * 0.001, 2))
        half = max(0.01, round(close * 0.0004, 2))
        for level in range(5):
            for side, price in (("buy", _tick(close - half - level * step)), ("sell", _tick(close + half + level * step))):
                for mm in rng.sample(mm_ids, rng.choice((1, 2))):
                    book_time += timedelta(seconds=rng.randint(1, 5))
                    at = _iso(book_time)
                    orders.append((f"ORD-{len(orders) + 1:05d}", mm, sym, side, "limit", rng.randint(1, 12) * 50, price, 0, None, "open", at, at))
    db.executemany("INSERT INTO portfolios VALUES (?,?,?,?,?,?,?)", portfolios)
    db.executemany("INSERT INTO cash_movements VALUES (?,?,?,?,?,?)", movements)
    db.executemany("INSERT INTO positions VALUES (?,?,?,?)", positions)
    db.executemany("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", orders)
    db.executemany("INSERT INTO trades VALUES (?,?,?,?,?,?,?,?,?)", trades)


trading = Server("trading", "Brokerage trading: portfolios, cash, positions, orders, quotes, price history and an order book.", SCHEMA, seed)

PortfolioId = Annotated[str, Field(description="Portfolio id, e.g. 'PRT-0042'"), Entity("portfolio")]
OrderId = Annotated[str, Field(description="Order id, e.g. 'ORD-00021'"), Entity("order")]
Symbol = Annotated[str, Field(min_length=1, max_length=12, description="Ticker symbol, e.g. 'AAPL'"), Entity("symbol")]
Amount = Annotated[float, Field(gt=0, le=10_000_000, description="Amount in USD, e.g. 1500.00")]
Quantity = Annotated[int, Field(ge=1, le=1_000_000, description="Number of shares, e.g. 10")]
Day = Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="An ISO date, e.g. '2026-05-01'")]


def _portfolio(ctx: Ctx, portfolio_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM portfolios WHERE portfolio_id = ?", (portfolio_id,),
                 f"No portfolio {portfolio_id!r}. Use list_portfolios to find portfolio ids.")


def _symbol(ctx: Ctx, symbol: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM symbols WHERE symbol = ?", (symbol.strip().upper(),),
                 f"Unknown symbol {symbol!r}. Use search_symbols to find listed ticker symbols.")


def _order(ctx: Ctx, order_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM orders WHERE order_id = ?", (order_id,),
                 f"No order {order_id!r}. Use list_orders to find order ids.")


def _reserved_cash(ctx: Ctx, portfolio_id: str) -> float:
    value = ctx.db.execute("SELECT SUM((quantity - filled_quantity) * limit_price) FROM orders WHERE portfolio_id = ? "
                           "AND side = 'buy' AND status IN ('open', 'partially_filled')", (portfolio_id,)).fetchone()[0]
    return round(value or 0.0, 2)


def _reserved_shares(ctx: Ctx, portfolio_id: str, symbol: str) -> int:
    value = ctx.db.execute("SELECT SUM(quantity - filled_quantity) FROM orders WHERE portfolio_id = ? AND symbol = ? "
                           "AND side = 'sell' AND status IN ('open', 'partially_filled')", (portfolio_id, symbol)).fetchone()[0]
    return int(value or 0)


def _held(ctx: Ctx, portfolio_id: str, symbol: str) -> tuple[int, float]:
    found = ctx.db.execute("SELECT quantity, avg_cost FROM positions WHERE portfolio_id = ? AND symbol = ?", (portfolio_id, symbol)).fetchone()
    return (found[0], found[1]) if found else (0, 0.0)


def _best(ctx: Ctx, symbol: str, side: str) -> tuple[float | None, int]:
    order = "DESC" if side == "buy" else "ASC"
    found = ctx.db.execute(f"SELECT limit_price, SUM(quantity - filled_quantity) FROM orders WHERE symbol = ? AND side = ? "
                           f"AND status IN ('open', 'partially_filled') GROUP BY limit_price ORDER BY limit_price {order} LIMIT 1",
                           (symbol, side)).fetchone()
    return (found[0], int(found[1])) if found else (None, 0)


def _move_cash(ctx: Ctx, portfolio_id: str, delta: float) -> float:
    ctx.db.execute("UPDATE portfolios SET cash = ROUND(cash + ?, 2) WHERE portfolio_id = ?", (delta, portfolio_id))
    return ctx.db.execute("SELECT cash FROM portfolios WHERE portfolio_id = ?", (portfolio_id,)).fetchone()[0]


def _add_shares(ctx: Ctx, portfolio_id: str, symbol: str, qty: int, price: float) -> None:
    have, cost = _held(ctx, portfolio_id, symbol)
    if have:
        ctx.db.execute("UPDATE positions SET quantity = ?, avg_cost = ? WHERE portfolio_id = ? AND symbol = ?",
                       (have + qty, round((have * cost + qty * price) / (have + qty), 4), portfolio_id, symbol))
    else:
        ctx.db.execute("INSERT INTO positions VALUES (?,?,?,?)", (portfolio_id, symbol, qty, price))


def _remove_shares(ctx: Ctx, portfolio_id: str, symbol: str, qty: int) -> None:
    have, _ = _held(ctx, portfolio_id, symbol)
    if have - qty <= 0:
        ctx.db.execute("DELETE FROM positions WHERE portfolio_id = ? AND symbol = ?", (portfolio_id, symbol))
    else:
        ctx.db.execute("UPDATE positions SET quantity = ? WHERE portfolio_id = ? AND symbol = ?", (have - qty, portfolio_id, symbol))


def _record_fill(ctx: Ctx, order: dict[str, Any], qty: int, price: float) -> None:
    filled = order["filled_quantity"] + qty
    avg = round(((order["avg_fill_price"] or 0.0) * order["filled_quantity"] + price * qty) / filled, 4)
    status = "filled" if filled >= order["quantity"] else "partially_filled"
    ctx.db.execute("UPDATE orders SET filled_quantity = ?, avg_fill_price = ?, status = ?, updated_at = ? WHERE order_id = ?",
                   (filled, avg, status, fake.iso(ctx.now), order["order_id"]))
    order.update(filled_quantity=filled, avg_fill_price=avg, status=status)


@trading.read(returns=("portfolio",))
def list_portfolios(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of the owner's name or email, e.g. 'Garcia'")] = "",
                    kind: Literal["individual", "joint", "retirement", "market_maker"] | None = None,
                    status: Literal["active", "frozen"] | None = None,
                    min_cash: Annotated[float | None, Field(ge=0, le=1e12, description="Only portfolios with at least this much cash in USD")] = None,
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List brokerage portfolios, filtered by owner name/email, kind, status or cash. Ids look like 'PRT-0042'."""
    like = f"%{query}%"
    sql = "SELECT portfolio_id, owner_name, kind, status, cash FROM portfolios WHERE (owner_name LIKE ? OR email LIKE ?)"
    args: list[Any] = [like, like]
    for column, value in (("kind", kind), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if min_cash is not None:
        sql += " AND cash >= ?"
        args.append(min_cash)
    found = rows(ctx.db.execute(sql + " ORDER BY portfolio_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"portfolios": found, "count": len(found)}


@trading.read(returns=("portfolio", "symbol", "order"))
def get_portfolio(ctx: Ctx, portfolio_id: PortfolioId) -> dict[str, Any]:
    """Get a portfolio: cash (total, reserved by open buy orders, available), positions valued at the last
    price with unrealised P&L, open order ids and recent cash movements, e.g. get_portfolio('PRT-0042')."""
    p = _portfolio(ctx, portfolio_id)
    reserved = _reserved_cash(ctx, portfolio_id)
    positions = rows(ctx.db.execute(
        "SELECT p.symbol, p.quantity, p.avg_cost, s.last_price FROM positions p JOIN symbols s USING (symbol) "
        "WHERE p.portfolio_id = ? ORDER BY p.symbol", (portfolio_id,)))
    value = 0.0
    for pos in positions:
        pos["reserved_for_sale"] = _reserved_shares(ctx, portfolio_id, pos["symbol"])
        pos["available"] = pos["quantity"] - pos["reserved_for_sale"]
        pos["market_value"] = round(pos["quantity"] * pos["last_price"], 2)
        pos["unrealized_pnl"] = round(pos["quantity"] * (pos["last_price"] - pos["avg_cost"]), 2)
        value += pos["market_value"]
    p.update(reserved_cash=reserved, available_cash=round(p["cash"] - reserved, 2), positions=positions,
             positions_value=round(value, 2), total_value=round(value + p["cash"], 2))
    p["open_order_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT order_id FROM orders WHERE portfolio_id = ? AND status IN ('open', 'partially_filled') ORDER BY order_id LIMIT 100", (portfolio_id,))]
    p["recent_cash_movements"] = rows(ctx.db.execute(
        "SELECT movement_id, kind, amount, cash_after, created_at FROM cash_movements WHERE portfolio_id = ? "
        "ORDER BY created_at DESC, movement_id DESC LIMIT 5", (portfolio_id,)))
    return p


@trading.read(returns=("symbol",))
def search_symbols(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a ticker or company name, e.g. 'Micro'")] = "",
                   sector: Annotated[str | None, Field(max_length=60, description="Only this sector, e.g. 'Technology'")] = None,
                   exchange: Literal["NYSE", "NASDAQ"] | None = None,
                   limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search listed symbols by ticker or company name, sector or exchange, e.g. search_symbols('bank') finds 'BAC'."""
    like = f"%{query}%"
    sql = "SELECT symbol, name, sector, exchange, last_price, prev_close FROM symbols WHERE (symbol LIKE ? OR name LIKE ?)"
    args: list[Any] = [like, like]
    if sector is not None:
        sql += " AND sector = ?"
        args.append(sector)
    if exchange is not None:
        sql += " AND exchange = ?"
        args.append(exchange)
    found = rows(ctx.db.execute(sql + " ORDER BY symbol LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"symbols": found, "count": len(found)}


@trading.read(returns=("symbol",))
def get_quote(ctx: Ctx, symbol: Symbol) -> dict[str, Any]:
    """Get the live quote for a symbol: last price, previous close, change, best bid and ask with sizes,
    e.g. get_quote('AAPL')."""
    s = _symbol(ctx, symbol)
    bid, bid_size = _best(ctx, s["symbol"], "buy")
    ask, ask_size = _best(ctx, s["symbol"], "sell")
    change = round(s["last_price"] - s["prev_close"], 2)
    volume = ctx.db.execute("SELECT COALESCE(SUM(quantity), 0) FROM trades WHERE symbol = ? AND created_at >= ?",
                            (s["symbol"], ctx.now.strftime("%Y-%m-%d"))).fetchone()[0]
    return {**s, "change": change, "change_pct": round(100 * change / s["prev_close"], 2), "bid": bid, "bid_size": bid_size,
            "ask": ask, "ask_size": ask_size, "spread": round(ask - bid, 2) if bid is not None and ask is not None else None,
            "volume_today": volume, "as_of": fake.iso(ctx.now)}


def _date(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").strftime("%Y-%m-%d")
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a valid calendar date; use YYYY-MM-DD, e.g. '2026-05-01'.") from None


@trading.read(returns=("symbol",))
def get_price_history(ctx: Ctx, symbol: Symbol, since: Day = None, until: Day = None,
                      limit: Annotated[int, Field(ge=1, le=100, description="At most this many trading days, the most recent ones")] = 20) -> dict[str, Any]:
    """Daily open/high/low/close/volume bars for a symbol, oldest first, e.g. get_price_history('MSFT', since='2026-05-01')."""
    s = _symbol(ctx, symbol)
    since, until = _date(since, "since"), _date(until, "until")
    if since and until and since > until:
        raise ToolError(f"since ({since}) is after until ({until}); swap them.")
    sql = "SELECT date, open, high, low, close, volume FROM price_history WHERE symbol = ?"
    args: list[Any] = [s["symbol"]]
    if since:
        sql += " AND date >= ?"
        args.append(since)
    if until:
        sql += " AND date <= ?"
        args.append(until)
    bars = rows(ctx.db.execute(sql + " ORDER BY date DESC LIMIT ?", (*args, limit)))[::-1]
    return {"symbol": s["symbol"], "bars": bars, "count": len(bars)}


@trading.read(returns=("symbol", "order"))
def get_order_book(ctx: Ctx, symbol: Symbol,
                   depth: Annotated[int, Field(ge=1, le=20, description="Price levels per side")] = 5) -> dict[str, Any]:
    """The live order book of a symbol: resting limit orders aggregated by price level, best first, with the
    order ids at each level in time priority, e.g. get_order_book('AAPL', depth=3)."""
    s = _symbol(ctx, symbol)
    book = {}
    for side, name, order in (("buy", "bids", "DESC"), ("sell", "asks", "ASC")):
        levels = []
        for price, qty, ids in ctx.db.execute(
                f"SELECT limit_price, SUM(quantity - filled_quantity), GROUP_CONCAT(order_id) FROM "
                f"(SELECT * FROM orders WHERE symbol = ? AND side = ? AND status IN ('open', 'partially_filled') ORDER BY created_at, order_id) "
                f"GROUP BY limit_price ORDER BY limit_price {order} LIMIT ?", (s["symbol"], side, depth)):
            levels.append({"price": price, "quantity": int(qty), "order_ids": ids.split(",")})
        book[name] = levels
    return {"symbol": s["symbol"], "last_price": s["last_price"], **book}


@trading.read(returns=("order", "portfolio", "symbol"))
def list_orders(ctx: Ctx, portfolio_id: Annotated[str | None, Field(description="Only this portfolio's orders, e.g. 'PRT-0042'"), Entity("portfolio")] = None,
                symbol: Annotated[str | None, Field(max_length=12, description="Only this ticker, e.g. 'AAPL'"), Entity("symbol")] = None,
                status: Literal["open", "partially_filled", "filled", "cancelled"] | None = None,
                side: Literal["buy", "sell"] | None = None,
                limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List orders, newest first, filtered by portfolio, symbol, status or side, e.g. list_orders(portfolio_id='PRT-0042', status='open')."""
    sql = "SELECT * FROM orders WHERE 1=1"
    args: list[Any] = []
    for column, value in (("portfolio_id", portfolio_id), ("symbol", symbol.strip().upper() if symbol else symbol),
                          ("status", status), ("side", side)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY created_at DESC, order_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"orders": found, "count": len(found)}


@trading.read(returns=("order", "portfolio", "symbol", "trade"))
def get_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Get one order with its fills (trades), e.g. get_order('ORD-00001')."""
    order = _order(ctx, order_id)
    order["remaining_quantity"] = order["quantity"] - order["filled_quantity"]
    order["fills"] = rows(ctx.db.execute(
        "SELECT trade_id, price, quantity, buyer_portfolio_id, seller_portfolio_id, created_at FROM trades "
        "WHERE buy_order_id = ? OR sell_order_id = ? ORDER BY trade_id", (order_id, order_id)))
    return order


DISTINCT_FIELDS = {"sector": ("symbols", "sector"), "exchange": ("symbols", "exchange"), "portfolio_kind": ("portfolios", "kind"),
                   "portfolio_status": ("portfolios", "status"), "order_status": ("orders", "status"),
                   "order_type": ("orders", "type"), "order_side": ("orders", "side")}


@trading.read()
def get_distinct_values(ctx: Ctx, field: Literal["sector", "exchange", "portfolio_kind", "portfolio_status", "order_status",
                                                 "order_type", "order_side"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('sector')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


def _record_movement(ctx: Ctx, portfolio_id: str, kind: str, amount: float, cash_after: float) -> str:
    movement_id = next_id(ctx.db, "cash_movements", "movement_id", "CSH", 5)
    ctx.db.execute("INSERT INTO cash_movements VALUES (?,?,?,?,?,?)",
                   (movement_id, portfolio_id, kind, round(amount, 2), cash_after, fake.iso(ctx.now)))
    return movement_id


@trading.write(returns=("portfolio",))
def deposit_cash(ctx: Ctx, portfolio_id: PortfolioId, amount: Amount) -> dict[str, Any]:
    """Deposit cash into a portfolio, e.g. deposit_cash('PRT-0042', 5000.0). Returns the new cash balance."""
    _portfolio(ctx, portfolio_id)
    cash = _move_cash(ctx, portfolio_id, round(amount, 2))
    movement_id = _record_movement(ctx, portfolio_id, "deposit", amount, cash)
    return {"portfolio_id": portfolio_id, "movement_id": movement_id, "deposited": round(amount, 2), "cash": cash}


@trading.write(returns=("portfolio",))
def withdraw_cash(ctx: Ctx, portfolio_id: PortfolioId, amount: Amount) -> dict[str, Any]:
    """Withdraw available cash from a portfolio, e.g. withdraw_cash('PRT-0042', 1000.0). Cash reserved by open
    buy orders cannot be withdrawn; cancel those orders first."""
    p = _portfolio(ctx, portfolio_id)
    if p["status"] == "frozen":
        raise ToolError(f"Portfolio {portfolio_id} is frozen; withdrawals are blocked until compliance lifts the freeze.")
    available = round(p["cash"] - _reserved_cash(ctx, portfolio_id), 2)
    if amount > available + 1e-9:
        raise ToolError(f"Cannot withdraw {amount:.2f} USD from {portfolio_id}: available cash is {available:.2f} USD "
                        f"(cash {p['cash']:.2f}, reserved by open buy orders {p['cash'] - available:.2f}). "
                        "Withdraw less or cancel open buy orders.")
    cash = _move_cash(ctx, portfolio_id, -round(amount, 2))
    movement_id = _record_movement(ctx, portfolio_id, "withdrawal", -amount, cash)
    return {"portfolio_id": portfolio_id, "movement_id": movement_id, "withdrawn": round(amount, 2), "cash": cash}


@trading.write(returns=("order", "trade", "portfolio", "symbol"))
def place_order(ctx: Ctx, portfolio_id: PortfolioId, symbol: Symbol, side: Literal["buy", "sell"], quantity: Quantity,
                type: Literal["market", "limit"] = "market",
                limit_price: Annotated[float | None, Field(gt=0, le=1_000_000, description="Limit price in USD per share; required for limit orders, e.g. 210.50")] = None) -> dict[str, Any]:
    """Place a buy or sell order, e.g. place_order('PRT-0042', 'AAPL', 'buy', 10) or
    place_order('PRT-0042', 'MSFT', 'sell', 5, type='limit', limit_price=470.0).

    Market orders fill at once against the book (best price first) or are rejected if the book is too thin;
    limit orders fill as far as they cross the book and the rest rests in the book. Buys need available cash,
    sells need available shares (no short selling)."""
    p = _portfolio(ctx, portfolio_id)
    s = _symbol(ctx, symbol)
    sym = s["symbol"]
    if p["status"] == "frozen":
        raise ToolError(f"Portfolio {portfolio_id} is frozen and cannot trade.")
    if type == "limit":
        if limit_price is None:
            raise ToolError("A limit order needs limit_price; pass it or use type='market'.")
        limit_price = round(limit_price, 2)
        low, high = _tick(s["last_price"] * (1 - PRICE_BAND)), _tick(s["last_price"] * (1 + PRICE_BAND))
        if not low <= limit_price <= high:
            raise ToolError(f"Limit price {limit_price:.2f} is outside the allowed band for {sym} "
                            f"({low:.2f} to {high:.2f}, 25% around the last price {s['last_price']:.2f}).")
    elif limit_price is not None:
        raise ToolError("Market orders take no limit_price; drop it or use type='limit'.")
    if side == "sell":
        have, _ = _held(ctx, portfolio_id, sym)
        reserved = _reserved_shares(ctx, portfolio_id, sym)
        if quantity > have - reserved:
            raise ToolError(f"Cannot sell {quantity} {sym}: {portfolio_id} holds {have} shares, {reserved} of them reserved by "
                            f"open sell orders, so {max(0, have - reserved)} are available. Short selling is not allowed.")
    opposite = "sell" if side == "buy" else "buy"
    sql = ("SELECT * FROM orders WHERE symbol = ? AND side = ? AND status IN ('open', 'partially_filled') AND portfolio_id != ?")
    args: list[Any] = [sym, opposite, portfolio_id]
    if limit_price is not None:
        sql += " AND limit_price <= ?" if side == "buy" else " AND limit_price >= ?"
        args.append(limit_price)
    sql += " ORDER BY limit_price ASC, created_at, order_id" if side == "buy" else " ORDER BY limit_price DESC, created_at, order_id"
    plan, left = [], quantity
    for resting in rows(ctx.db.execute(sql, args)):
        take = min(left, resting["quantity"] - resting["filled_quantity"])
        plan.append((resting, take))
        left -= take
        if not left:
            break
    if type == "market" and left:
        raise ToolError(f"The {sym} book has only {quantity - left} shares on the {'ask' if side == 'buy' else 'bid'} side; "
                        "reduce the quantity or place a limit order that can rest in the book.")
    cost = sum(take * r["limit_price"] for r, take in plan)
    if side == "buy":
        need = cost + left * (limit_price or 0.0)
        available = round(p["cash"] - _reserved_cash(ctx, portfolio_id), 2)
        if need > available + 1e-9:
            raise ToolError(f"Insufficient cash in {portfolio_id}: the order needs {need:.2f} USD, available cash is {available:.2f} USD. "
                            "Deposit cash, cancel open buy orders or reduce the quantity.")
    order_id = next_id(ctx.db, "orders", "order_id", "ORD", 5)
    at = fake.iso(ctx.now)
    ctx.db.execute("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                   (order_id, portfolio_id, sym, side, type, quantity, limit_price, 0, None, "open", at, at))
    order = _order(ctx, order_id)
    fills = []
    for resting, take in plan:
        price = resting["limit_price"]
        buyer, seller = (portfolio_id, resting["portfolio_id"]) if side == "buy" else (resting["portfolio_id"], portfolio_id)
        buy_oid, sell_oid = (order_id, resting["order_id"]) if side == "buy" else (resting["order_id"], order_id)
        trade_id = next_id(ctx.db, "trades", "trade_id", "TRD", 5)
        ctx.db.execute("INSERT INTO trades VALUES (?,?,?,?,?,?,?,?,?)", (trade_id, sym, price, take, buy_oid, sell_oid, buyer, seller, at))
        _move_cash(ctx, buyer, -round(take * price, 2))
        _move_cash(ctx, seller, round(take * price, 2))
        _add_shares(ctx, buyer, sym, take, price)
        _remove_shares(ctx, seller, sym, take)
        _record_fill(ctx, resting, take, price)
        _record_fill(ctx, order, take, price)
        ctx.db.execute("UPDATE symbols SET last_price = ? WHERE symbol = ?", (price, sym))
        fills.append({"trade_id": trade_id, "price": price, "quantity": take, "counterparty_order_id": resting["order_id"]})
    result = get_order(ctx, order_id)
    result["fills"] = fills
    result["cash"] = _portfolio(ctx, portfolio_id)["cash"]
    return result


@trading.write(returns=("order",), requires=("place_order",))
def cancel_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Cancel an open or partially filled order, e.g. cancel_order('ORD-00021'); the unfilled rest leaves the
    book and its reserved cash or shares are released. Filled and cancelled orders cannot be cancelled."""
    order = _order(ctx, order_id)
    if order["status"] == "filled":
        raise ToolError(f"Order {order_id} is already filled ({order['filled_quantity']} {order['symbol']} at "
                        f"{order['avg_fill_price']}); a filled order cannot be cancelled. Place an opposite order to unwind it.")
    if order["status"] == "cancelled":
        raise ToolError(f"Order {order_id} is already cancelled.")
    ctx.db.execute("UPDATE orders SET status = 'cancelled', updated_at = ? WHERE order_id = ?", (fake.iso(ctx.now), order_id))
    return {"order_id": order_id, "status": "cancelled", "filled_quantity": order["filled_quantity"],
            "cancelled_quantity": order["quantity"] - order["filled_quantity"]}


server = trading
