"""Trading write tools: move cash, place orders (which match against the book) and cancel them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, Query, ToolError, fake, next_id
from servers.trading.ledger import (
    add_shares,
    held,
    move_cash,
    record_fill,
    record_movement,
    remove_shares,
    reserved_cash,
    reserved_shares,
)
from servers.trading.schema import PRICE_BAND, tick
from servers.trading.tools import Amount, OrderId, PortfolioId, Quantity, Symbol, _symbol, get_order, trading


@trading.write(returns=("portfolio",))
def deposit_cash(ctx: Ctx, portfolio_id: PortfolioId, amount: Amount) -> dict[str, Any]:
    """Deposit cash into a portfolio, e.g. deposit_cash('PRT-0042', 5000.0). Returns the new cash balance."""
    PortfolioId.get(ctx, portfolio_id)
    cash = move_cash(ctx, portfolio_id, round(amount, 2))
    movement_id = record_movement(ctx, portfolio_id, "deposit", amount, cash)
    return {"portfolio_id": portfolio_id, "movement_id": movement_id, "deposited": round(amount, 2), "cash": cash}


@trading.write(returns=("portfolio",))
def withdraw_cash(ctx: Ctx, portfolio_id: PortfolioId, amount: Amount) -> dict[str, Any]:
    """Withdraw available cash from a portfolio, e.g. withdraw_cash('PRT-0042', 1000.0). Cash reserved by open
    buy orders cannot be withdrawn; cancel those orders first."""
    p = PortfolioId.get(ctx, portfolio_id)
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
    p = PortfolioId.get(ctx, portfolio_id)
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
    order = OrderId.get(ctx, order_id)
    fills = [_fill(ctx, order, resting, take, at) for resting, take in plan]
    result = get_order(ctx, order_id)
    result["fills"] = fills
    result["cash"] = PortfolioId.get(ctx, portfolio_id)["cash"]
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
    order = OrderId.get(ctx, order_id)
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
