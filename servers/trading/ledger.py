"""The bookkeeping every order touches: reserved cash and shares, positions, cash and fills."""

from __future__ import annotations

from typing import Any

from hub.kit import Ctx, fake, next_id


def reserved_cash(ctx: Ctx, portfolio_id: str) -> float:
    value = ctx.db.execute(
        "SELECT SUM((quantity - filled_quantity) * limit_price) FROM orders WHERE portfolio_id = ? "
        "AND side = 'buy' AND status IN ('open', 'partially_filled')",
        (portfolio_id,),
    ).fetchone()[0]
    return round(value or 0.0, 2)


def reserved_shares(ctx: Ctx, portfolio_id: str, symbol: str) -> int:
    value = ctx.db.execute(
        "SELECT SUM(quantity - filled_quantity) FROM orders WHERE portfolio_id = ? AND symbol = ? "
        "AND side = 'sell' AND status IN ('open', 'partially_filled')",
        (portfolio_id, symbol),
    ).fetchone()[0]
    return int(value or 0)


def held(ctx: Ctx, portfolio_id: str, symbol: str) -> tuple[int, float]:
    found = ctx.db.execute(
        "SELECT quantity, avg_cost FROM positions WHERE portfolio_id = ? AND symbol = ?", (portfolio_id, symbol)
    ).fetchone()
    return (found[0], found[1]) if found else (0, 0.0)


def best(ctx: Ctx, symbol: str, side: str) -> tuple[float | None, int]:
    order = "DESC" if side == "buy" else "ASC"
    found = ctx.db.execute(
        "SELECT limit_price, SUM(quantity - filled_quantity) FROM orders WHERE symbol = ? "
        "AND side = ? "
        "AND status IN ('open', 'partially_filled') GROUP BY limit_price ORDER BY limit_price "
        f"{order} LIMIT 1",
        (symbol, side),
    ).fetchone()
    return (found[0], int(found[1])) if found else (None, 0)


def move_cash(ctx: Ctx, portfolio_id: str, delta: float) -> float:
    ctx.db.execute("UPDATE portfolios SET cash = ROUND(cash + ?, 2) WHERE portfolio_id = ?", (delta, portfolio_id))
    return ctx.db.execute("SELECT cash FROM portfolios WHERE portfolio_id = ?", (portfolio_id,)).fetchone()[0]


def add_shares(ctx: Ctx, portfolio_id: str, symbol: str, qty: int, price: float) -> None:
    have, cost = held(ctx, portfolio_id, symbol)
    if have:
        ctx.db.execute(
            "UPDATE positions SET quantity = ?, avg_cost = ? WHERE portfolio_id = ? AND symbol = ?",
            (have + qty, round((have * cost + qty * price) / (have + qty), 4), portfolio_id, symbol),
        )
    else:
        ctx.db.execute("INSERT INTO positions VALUES (?,?,?,?)", (portfolio_id, symbol, qty, price))


def remove_shares(ctx: Ctx, portfolio_id: str, symbol: str, qty: int) -> None:
    have, _ = held(ctx, portfolio_id, symbol)
    if have - qty <= 0:
        ctx.db.execute("DELETE FROM positions WHERE portfolio_id = ? AND symbol = ?", (portfolio_id, symbol))
    else:
        ctx.db.execute(
            "UPDATE positions SET quantity = ? WHERE portfolio_id = ? AND symbol = ?",
            (have - qty, portfolio_id, symbol),
        )


def record_fill(ctx: Ctx, order: dict[str, Any], qty: int, price: float) -> None:
    filled = order["filled_quantity"] + qty
    avg = round(((order["avg_fill_price"] or 0.0) * order["filled_quantity"] + price * qty) / filled, 4)
    status = "filled" if filled >= order["quantity"] else "partially_filled"
    ctx.db.execute(
        "UPDATE orders SET filled_quantity = ?, avg_fill_price = ?, status = ?, updated_at = ? WHERE order_id = ?",
        (filled, avg, status, fake.iso(ctx.now), order["order_id"]),
    )
    order.update(filled_quantity=filled, avg_fill_price=avg, status=status)


def record_movement(ctx: Ctx, portfolio_id: str, kind: str, amount: float, cash_after: float) -> str:
    movement_id = next_id(ctx.db, "cash_movements", "movement_id", "CSH", 5)
    ctx.db.execute(
        "INSERT INTO cash_movements VALUES (?,?,?,?,?,?)",
        (movement_id, portfolio_id, kind, round(amount, 2), cash_after, fake.iso(ctx.now)),
    )
    return movement_id
