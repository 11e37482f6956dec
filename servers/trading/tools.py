"""Trading tools: portfolios, symbols, quotes, price history, the order book and orders; move cash, place and
cancel orders (which match against the book)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import ISO_DATE, Ctx, Entity, Limit, Offset, Query, Server, ToolError, fake, fetch, next_id, rows
from servers.trading.ledger import (
    add_shares,
    best,
    held,
    move_cash,
    record_fill,
    record_movement,
    remove_shares,
    reserved_cash,
    reserved_shares,
)
from servers.trading.schema import PRICE_BAND, SCHEMA, tick
from servers.trading.seed import seed

trading = Server(
    "trading",
    "Brokerage trading: portfolios, cash, positions, orders, quotes, price history and an order book.",
    SCHEMA,
    seed,
    family="money",
)

PORTFOLIO = trading.entity(
    "portfolio", table="portfolios", key="portfolio_id", example="PRT-0042", finder="list_portfolios"
)
ORDER = trading.entity("order", table="orders", key="order_id", example="ORD-00021", finder="list_orders")

PortfolioId = Annotated[str, PORTFOLIO]
OrderId = Annotated[str, ORDER]
Symbol = Annotated[str, Field(min_length=1, max_length=12, description="Ticker symbol, e.g. 'AAPL'"), Entity("symbol")]
Amount = Annotated[float, Field(gt=0, le=10_000_000, description="Amount in USD, e.g. 1500.00")]
Quantity = Annotated[int, Field(ge=1, le=1_000_000, description="Number of shares, e.g. 10")]
Day = Annotated[str | None, Field(pattern=ISO_DATE, description="An ISO date, e.g. '2026-05-01'")]


def _symbol(ctx: Ctx, symbol: str) -> dict[str, Any]:
    return fetch(
        ctx.db,
        "SELECT * FROM symbols WHERE symbol = ?",
        (symbol.strip().upper(),),
        f"Unknown symbol {symbol!r}. Use search_symbols to find listed ticker symbols.",
    )


@trading.read(returns=("portfolio",))
def list_portfolios(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of the owner's name or email, e.g. 'Garcia'")] = "",
    kind: Literal["individual", "joint", "retirement", "market_maker"] | None = None,
    status: Literal["active", "frozen"] | None = None,
    min_cash: Annotated[
        float | None, Field(ge=0, le=1e12, description="Only portfolios with at least this much cash in USD")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List brokerage portfolios, filtered by owner name/email, kind, status or cash. Ids look like 'PRT-0042'."""
    q = Query("SELECT portfolio_id, owner_name, kind, status, cash FROM portfolios")
    q.contains(query, "owner_name", "email").equal("kind", kind).equal("status", status).filter("cash >= ?", min_cash)
    return q.page(ctx.db, "portfolios", order_by="portfolio_id", limit=limit, offset=offset)


@trading.read(returns=("portfolio", "symbol", "order"))
def get_portfolio(ctx: Ctx, portfolio_id: PortfolioId) -> dict[str, Any]:
    """Get a portfolio: cash (total, reserved by open buy orders, available), positions valued at the last
    price with unrealised P&L, open order ids and recent cash movements, e.g. get_portfolio('PRT-0042')."""
    p = PORTFOLIO.get(ctx, portfolio_id)
    reserved = reserved_cash(ctx, portfolio_id)
    positions = rows(
        ctx.db.execute(
            "SELECT p.symbol, p.quantity, p.avg_cost, s.last_price FROM positions p JOIN symbols s USING (symbol) "
            "WHERE p.portfolio_id = ? ORDER BY p.symbol",
            (portfolio_id,),
        )
    )
    value = 0.0
    for pos in positions:
        pos["reserved_for_sale"] = reserved_shares(ctx, portfolio_id, pos["symbol"])
        pos["available"] = pos["quantity"] - pos["reserved_for_sale"]
        pos["market_value"] = round(pos["quantity"] * pos["last_price"], 2)
        pos["unrealized_pnl"] = round(pos["quantity"] * (pos["last_price"] - pos["avg_cost"]), 2)
        value += pos["market_value"]
    p.update(
        reserved_cash=reserved,
        available_cash=round(p["cash"] - reserved, 2),
        positions=positions,
        positions_value=round(value, 2),
        total_value=round(value + p["cash"], 2),
    )
    p["open_order_ids"] = [
        r[0]
        for r in ctx.db.execute(
            "SELECT order_id FROM orders WHERE portfolio_id = ? AND status IN ('open', 'partially_filled') ORDER BY "
            "order_id LIMIT 100",
            (portfolio_id,),
        )
    ]
    p["recent_cash_movements"] = rows(
        ctx.db.execute(
            "SELECT movement_id, kind, amount, cash_after, created_at FROM cash_movements WHERE portfolio_id = ? "
            "ORDER BY created_at DESC, movement_id DESC LIMIT 5",
            (portfolio_id,),
        )
    )
    return p


@trading.read(returns=("symbol",))
def search_symbols(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a ticker or company name, e.g. 'Micro'")] = "",
    sector: Annotated[str | None, Field(max_length=60, description="Only this sector, e.g. 'Technology'")] = None,
    exchange: Literal["NYSE", "NASDAQ"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search listed symbols by ticker or company name, sector or exchange, e.g. search_symbols('bank') finds 'BAC'."""
    q = Query("SELECT symbol, name, sector, exchange, last_price, prev_close FROM symbols")
    q.contains(query, "symbol", "name").equal("sector", sector).equal("exchange", exchange)
    return q.page(ctx.db, "symbols", order_by="symbol", limit=limit, offset=offset)


@trading.read(returns=("symbol",))
def get_quote(ctx: Ctx, symbol: Symbol) -> dict[str, Any]:
    """Get the live quote for a symbol: last price, previous close, change, best bid and ask with sizes,
    e.g. get_quote('AAPL')."""
    s = _symbol(ctx, symbol)
    bid, bid_size = best(ctx, s["symbol"], "buy")
    ask, ask_size = best(ctx, s["symbol"], "sell")
    change = round(s["last_price"] - s["prev_close"], 2)
    volume = ctx.db.execute(
        "SELECT COALESCE(SUM(quantity), 0) FROM trades WHERE symbol = ? AND created_at >= ?",
        (s["symbol"], ctx.now.strftime("%Y-%m-%d")),
    ).fetchone()[0]
    return {
        **s,
        "change": change,
        "change_pct": round(100 * change / s["prev_close"], 2),
        "bid": bid,
        "bid_size": bid_size,
        "ask": ask,
        "ask_size": ask_size,
        "spread": round(ask - bid, 2) if bid is not None and ask is not None else None,
        "volume_today": volume,
        "as_of": fake.iso(ctx.now),
    }


def _date(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").strftime("%Y-%m-%d")
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a valid calendar date; use YYYY-MM-DD, e.g. '2026-05-01'.") from None


@trading.read(returns=("symbol",))
def get_price_history(
    ctx: Ctx,
    symbol: Symbol,
    since: Day = None,
    until: Day = None,
    limit: Annotated[int, Field(ge=1, le=100, description="At most this many trading days, the most recent ones")] = 20,
) -> dict[str, Any]:
    """Daily open/high/low/close/volume bars for a symbol, oldest first, e.g. get_price_history('MSFT',
    since='2026-05-01')."""
    s = _symbol(ctx, symbol)
    since, until = _date(since, "since"), _date(until, "until")
    if since and until and since > until:
        raise ToolError(f"since ({since}) is after until ({until}); swap them.")
    q = Query("SELECT date, open, high, low, close, volume FROM price_history").equal("symbol", s["symbol"])
    q.filter("date >= ?", since or None).filter("date <= ?", until or None)
    bars = q.rows(ctx.db, order_by="date DESC", limit=limit)[::-1]
    return {"symbol": s["symbol"], "bars": bars, "count": len(bars)}


@trading.read(returns=("symbol", "order"))
def get_order_book(
    ctx: Ctx,
    symbol: Symbol,
    depth: Annotated[int, Field(ge=1, le=20, description="Price levels per side")] = 5,
) -> dict[str, Any]:
    """The live order book of a symbol: resting limit orders aggregated by price level, best first, with the
    order ids at each level in time priority, e.g. get_order_book('AAPL', depth=3)."""
    s = _symbol(ctx, symbol)
    book = {}
    for side, name, order in (("buy", "bids", "DESC"), ("sell", "asks", "ASC")):
        levels = []
        for price, qty, ids in ctx.db.execute(
            f"SELECT limit_price, SUM(quantity - filled_quantity), GROUP_CONCAT(order_id) FROM "
            "(SELECT * FROM orders WHERE symbol = ? AND side = ? AND status IN ('open', 'partially_filled') ORDER "
            "BY created_at, order_id) "
            f"GROUP BY limit_price ORDER BY limit_price {order} LIMIT ?",
            (s["symbol"], side, depth),
        ):
            levels.append({"price": price, "quantity": int(qty), "order_ids": ids.split(",")})
        book[name] = levels
    return {"symbol": s["symbol"], "last_price": s["last_price"], **book}


@trading.read(returns=("order", "portfolio", "symbol"))
def list_orders(
    ctx: Ctx,
    portfolio_id: Annotated[str | None, PORTFOLIO.ref("Only this portfolio's orders, e.g. 'PRT-0042'")] = None,
    symbol: Annotated[
        str | None, Field(max_length=12, description="Only this ticker, e.g. 'AAPL'"), Entity("symbol")
    ] = None,
    status: Literal["open", "partially_filled", "filled", "cancelled"] | None = None,
    side: Literal["buy", "sell"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List orders, newest first, filtered by portfolio, symbol, status or side, e.g.
    list_orders(portfolio_id='PRT-0042', status='open')."""
    q = Query("SELECT * FROM orders").equal("portfolio_id", portfolio_id)
    q.equal("symbol", symbol.strip().upper() if symbol else symbol).equal("status", status).equal("side", side)
    return q.page(ctx.db, "orders", order_by="created_at DESC, order_id DESC", limit=limit, offset=offset)


@trading.read(returns=("order", "portfolio", "symbol", "trade"))
def get_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Get one order with its fills (trades), e.g. get_order('ORD-00001')."""
    order = ORDER.get(ctx, order_id)
    order["remaining_quantity"] = order["quantity"] - order["filled_quantity"]
    order["fills"] = rows(
        ctx.db.execute(
            "SELECT trade_id, price, quantity, buyer_portfolio_id, seller_portfolio_id, created_at FROM trades "
            "WHERE buy_order_id = ? OR sell_order_id = ? ORDER BY trade_id",
            (order_id, order_id),
        )
    )
    return order


trading.distinct_values(
    {
        "sector": ("symbols", "sector"),
        "exchange": ("symbols", "exchange"),
        "portfolio_kind": ("portfolios", "kind"),
        "portfolio_status": ("portfolios", "status"),
        "order_status": ("orders", "status"),
        "order_type": ("orders", "type"),
        "order_side": ("orders", "side"),
    }
)


@trading.write(returns=("portfolio",))
def deposit_cash(ctx: Ctx, portfolio_id: PortfolioId, amount: Amount) -> dict[str, Any]:
    """Deposit cash into a portfolio, e.g. deposit_cash('PRT-0042', 5000.0). Returns the new cash balance."""
    PORTFOLIO.get(ctx, portfolio_id)
    cash = move_cash(ctx, portfolio_id, round(amount, 2))
    movement_id = record_movement(ctx, portfolio_id, "deposit", amount, cash)
    return {"portfolio_id": portfolio_id, "movement_id": movement_id, "deposited": round(amount, 2), "cash": cash}


@trading.write(returns=("portfolio",))
def withdraw_cash(ctx: Ctx, portfolio_id: PortfolioId, amount: Amount) -> dict[str, Any]:
    """Withdraw available cash from a portfolio, e.g. withdraw_cash('PRT-0042', 1000.0). Cash reserved by open
    buy orders cannot be withdrawn; cancel those orders first."""
    p = PORTFOLIO.get(ctx, portfolio_id)
    if p["status"] == "frozen":
        raise ToolError(
            f"Portfolio {portfolio_id} is frozen; withdrawals are blocked until compliance lifts the freeze."
        )
    available = round(p["cash"] - reserved_cash(ctx, portfolio_id), 2)
    if amount > available + 1e-9:
        raise ToolError(
            f"Cannot withdraw {amount:.2f} USD from {portfolio_id}: available cash is {available:.2f} USD "
            f"(cash {p['cash']:.2f}, reserved by open buy orders {p['cash'] - available:.2f}). "
            "Withdraw less or cancel open buy orders."
        )
    cash = move_cash(ctx, portfolio_id, -round(amount, 2))
    movement_id = record_movement(ctx, portfolio_id, "withdrawal", -amount, cash)
    return {"portfolio_id": portfolio_id, "movement_id": movement_id, "withdrawn": round(amount, 2), "cash": cash}


@trading.write(returns=("order", "trade", "portfolio", "symbol"))
def place_order(
    ctx: Ctx,
    portfolio_id: PortfolioId,
    symbol: Symbol,
    side: Literal["buy", "sell"],
    quantity: Quantity,
    type: Literal["market", "limit"] = "market",
    limit_price: Annotated[
        float | None,
        Field(gt=0, le=1_000_000, description="Limit price in USD per share; required for limit orders, e.g. 210.50"),
    ] = None,
) -> dict[str, Any]:
    """Place a buy or sell order, e.g. place_order('PRT-0042', 'AAPL', 'buy', 10) or
    place_order('PRT-0033', 'MSFT', 'sell', 5, type='limit', limit_price=470.0).

    Market orders fill at once against the book (best price first) or are rejected if the book is too thin;
    limit orders fill as far as they cross the book and the rest rests in the book. Buys need available cash,
    sells need available shares (no short selling)."""
    p = PORTFOLIO.get(ctx, portfolio_id)
    s = _symbol(ctx, symbol)
    sym = s["symbol"]
    if p["status"] == "frozen":
        raise ToolError(f"Portfolio {portfolio_id} is frozen and cannot trade.")
    limit_price = _checked_limit(s, type, limit_price)
    if side == "sell":
        _check_shares(ctx, portfolio_id, sym, quantity)
    plan, left = _match(ctx, portfolio_id, sym, side, quantity, limit_price)
    if type == "market" and left:
        raise ToolError(
            f"The {sym} book has only {quantity - left} shares on the {'ask' if side == 'buy' else 'bid'} "
            "side; reduce the quantity or place a limit order that can rest in the book."
        )
    if side == "buy":
        _check_cash(ctx, p, sum(take * r["limit_price"] for r, take in plan) + left * (limit_price or 0.0))
    order_id = next_id(ctx.db, "orders", "order_id", "ORD", 5)
    at = fake.iso(ctx.now)
    ctx.db.execute(
        "INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (order_id, portfolio_id, sym, side, type, quantity, limit_price, 0, None, "open", at, at),
    )
    order = ORDER.get(ctx, order_id)
    fills = [_fill(ctx, order, resting, take, at) for resting, take in plan]
    result = get_order(ctx, order_id)
    result["fills"] = fills
    result["cash"] = PORTFOLIO.get(ctx, portfolio_id)["cash"]
    return result


def _checked_limit(s: dict[str, Any], type: str, limit_price: float | None) -> float | None:
    """A limit order's price, rounded to the cent and within the band around the last price; None for a market order."""
    if type != "limit":
        if limit_price is not None:
            raise ToolError("Market orders take no limit_price; drop it or use type='limit'.")
        return None
    if limit_price is None:
        raise ToolError("A limit order needs limit_price; pass it or use type='market'.")
    limit_price = round(limit_price, 2)
    low, high = tick(s["last_price"] * (1 - PRICE_BAND)), tick(s["last_price"] * (1 + PRICE_BAND))
    if not low <= limit_price <= high:
        raise ToolError(
            f"Limit price {limit_price:.2f} is outside the allowed band for {s['symbol']} "
            f"({low:.2f} to {high:.2f}, 25% around the last price {s['last_price']:.2f})."
        )
    return limit_price


def _check_shares(ctx: Ctx, portfolio_id: str, sym: str, quantity: int) -> None:
    """No short selling: a sell needs shares held and not reserved by open sell orders."""
    have, _ = held(ctx, portfolio_id, sym)
    reserved = reserved_shares(ctx, portfolio_id, sym)
    if quantity > have - reserved:
        raise ToolError(
            f"Cannot sell {quantity} {sym}: {portfolio_id} holds {have} shares, {reserved} of them "
            f"reserved by open sell orders, so {max(0, have - reserved)} are available. "
            "Short selling is not allowed."
        )


def _match(
    ctx: Ctx, portfolio_id: str, sym: str, side: str, quantity: int, limit_price: float | None
) -> tuple[list[tuple[dict[str, Any], int]], int]:
    """The resting orders an order fills against, in price-time priority, and the quantity left unfilled."""
    q = Query("SELECT * FROM orders").equal("symbol", sym).equal("side", "sell" if side == "buy" else "buy")
    q.where("status IN ('open', 'partially_filled')").where("portfolio_id != ?", portfolio_id)
    q.filter("limit_price <= ?" if side == "buy" else "limit_price >= ?", limit_price)
    best_first = "limit_price ASC" if side == "buy" else "limit_price DESC"
    plan, left = [], quantity
    for resting in q.rows(ctx.db, order_by=f"{best_first}, created_at, order_id"):
        take = min(left, resting["quantity"] - resting["filled_quantity"])
        plan.append((resting, take))
        left -= take
        if not left:
            break
    return plan, left


def _check_cash(ctx: Ctx, p: dict[str, Any], need: float) -> None:
    available = round(p["cash"] - reserved_cash(ctx, p["portfolio_id"]), 2)
    if need > available + 1e-9:
        raise ToolError(
            f"Insufficient cash in {p['portfolio_id']}: the order needs {need:.2f} USD, available cash is "
            f"{available:.2f} USD. Deposit cash, cancel open buy orders or reduce the quantity."
        )


def _fill(ctx: Ctx, order: dict[str, Any], resting: dict[str, Any], take: int, at: str) -> dict[str, Any]:
    """Trade ``take`` shares between an incoming order and a resting one at the resting order's price."""
    price, sym = resting["limit_price"], order["symbol"]
    buy, sell = (order, resting) if order["side"] == "buy" else (resting, order)
    trade_id = next_id(ctx.db, "trades", "trade_id", "TRD", 5)
    ctx.db.execute(
        "INSERT INTO trades VALUES (?,?,?,?,?,?,?,?,?)",
        (trade_id, sym, price, take, buy["order_id"], sell["order_id"], buy["portfolio_id"], sell["portfolio_id"], at),
    )
    move_cash(ctx, buy["portfolio_id"], -round(take * price, 2))
    move_cash(ctx, sell["portfolio_id"], round(take * price, 2))
    add_shares(ctx, buy["portfolio_id"], sym, take, price)
    remove_shares(ctx, sell["portfolio_id"], sym, take)
    record_fill(ctx, resting, take, price)
    record_fill(ctx, order, take, price)
    ctx.db.execute("UPDATE symbols SET last_price = ? WHERE symbol = ?", (price, sym))
    return {"trade_id": trade_id, "price": price, "quantity": take, "counterparty_order_id": resting["order_id"]}


@trading.write(returns=("order",), requires=("place_order",))
def cancel_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Cancel an open or partially filled order, e.g. cancel_order('ORD-01145'); the unfilled rest leaves the
    book and its reserved cash or shares are released. Filled and cancelled orders cannot be cancelled."""
    order = ORDER.get(ctx, order_id)
    if order["status"] == "filled":
        raise ToolError(
            f"Order {order_id} is already filled ({order['filled_quantity']} {order['symbol']} at "
            f"{order['avg_fill_price']}); a filled order cannot be cancelled. Place an opposite order "
            "to unwind it."
        )
    if order["status"] == "cancelled":
        raise ToolError(f"Order {order_id} is already cancelled.")
    ctx.db.execute(
        "UPDATE orders SET status = 'cancelled', updated_at = ? WHERE order_id = ?", (fake.iso(ctx.now), order_id)
    )
    return {
        "order_id": order_id,
        "status": "cancelled",
        "filled_quantity": order["filled_quantity"],
        "cancelled_quantity": order["quantity"] - order["filled_quantity"],
    }
