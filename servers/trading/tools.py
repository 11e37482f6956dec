"""Trading tools: portfolios, symbols, quotes, price history, the order book and orders; move cash, place and
cancel orders (which match against the book)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import ISO_DATE, Ctx, Entity, EntityId, Limit, Offset, Query, Server, ToolError, fake, fetch
from servers.trading.ledger import best, reserved_cash, reserved_shares
from servers.trading.schema import SCHEMA
from servers.trading.seed import seed

trading = Server(
    "trading",
    "Brokerage trading: portfolios, cash, positions, orders, quotes, price history and an order book.",
    SCHEMA,
    seed,
    family="money",
)


class PortfolioId(EntityId, server=trading, example="PRT-0042", finder="list_portfolios"): ...


class OrderId(EntityId, server=trading, example="ORD-00021", finder="list_orders"): ...


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
    p = PortfolioId.get(ctx, portfolio_id)
    reserved = reserved_cash(ctx, portfolio_id)
    positions = ctx.rows(
        "SELECT p.symbol, p.quantity, p.avg_cost, s.last_price FROM positions p JOIN symbols s USING (symbol) "
        "WHERE p.portfolio_id = ? ORDER BY p.symbol",
        (portfolio_id,),
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
    p["open_order_ids"] = ctx.column(
        "SELECT order_id FROM orders WHERE portfolio_id = ? AND status IN ('open', 'partially_filled') ORDER BY "
        "order_id LIMIT 100",
        (portfolio_id,),
    )
    p["recent_cash_movements"] = ctx.rows(
        "SELECT movement_id, kind, amount, cash_after, created_at FROM cash_movements WHERE portfolio_id = ? "
        "ORDER BY created_at DESC, movement_id DESC LIMIT 5",
        (portfolio_id,),
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
    volume = ctx.value(
        "SELECT COALESCE(SUM(quantity), 0) FROM trades WHERE symbol = ? AND created_at >= ?",
        (s["symbol"], ctx.now.strftime("%Y-%m-%d")),
    )
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
    ctx: Ctx, symbol: Symbol, depth: Annotated[int, Field(ge=1, le=20, description="Price levels per side")] = 5
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
    portfolio_id: Annotated[str | None, PortfolioId.ref("Only this portfolio's orders, e.g. 'PRT-0042'")] = None,
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
    order = OrderId.get(ctx, order_id)
    order["remaining_quantity"] = order["quantity"] - order["filled_quantity"]
    order["fills"] = ctx.rows(
        "SELECT trade_id, price, quantity, buyer_portfolio_id, seller_portfolio_id, created_at FROM trades "
        "WHERE buy_order_id = ? OR sell_order_id = ? ORDER BY trade_id",
        (order_id, order_id),
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


from servers.trading import tools_write  # noqa: E402, F401  (registers the write tools on the server)
