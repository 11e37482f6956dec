"""Trading intents about resting orders and cash: pull or reprice an order, add or take out cash."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip, money
from servers.trading.intents import (
    AVAILABLE,
    LIVE,
    WORDS,
    _fresh_holdings,
    find_me,
    following,
    investor_asks,
    lead,
    me,
    remember_order,
    seen,
    short_name,
)
from servers.trading.tools import trading


def order_ref(s: Scene, p: dict[str, Any], o: dict[str, Any]) -> str:
    side = "bid" if o["side"] == "buy" else "offer"
    return s.refer(
        o["order_id"],
        Ref(
            "my open {side} on {co}",
            f"SELECT order_id FROM orders WHERE portfolio_id = ? AND symbol = ? AND side = ? AND {LIVE}",
            p["portfolio_id"],
            o["symbol"],
            o["side"],
        ),
        Ref(
            "my {side} for {n} {co} at {at}",
            "SELECT order_id FROM orders WHERE portfolio_id = ? AND "
            f"symbol = ? AND side = ? AND {LIVE} AND quantity = ? AND limit_price = ?",
            p["portfolio_id"],
            o["symbol"],
            o["side"],
            o["quantity"],
            o["limit_price"],
        ),
        side=side,
        co=short_name(o["name"]),
        n=o["quantity"],
        at=money(o["limit_price"]),
    )


def locate_order(s: Scene, pid: str, o: dict[str, Any]) -> None:
    """Find a resting order the investor described: among their open orders (in that stock, or on that side)."""
    if seen(s, o["order_id"]):
        return
    r = s.rng.random()
    if r < 0.5:
        args: dict[str, Any] = {"portfolio_id": pid, "symbol": o["symbol"], "status": "open"}
    elif r < 0.75:
        args = {"portfolio_id": pid, "status": "open", "side": o["side"]}
    else:
        args = {"portfolio_id": pid, "status": "open"}
    found = s.call("list_orders", **args)["orders"]
    if o["order_id"] not in [x["order_id"] for x in found]:
        raise Skip("the order is not listed")


@trading.intent(covers=("list_portfolios", "list_orders", "cancel_order"), weight=1.5, follows=True)
def pull_resting_order(s: Scene) -> None:
    """An investor cancels a resting limit order they placed earlier."""
    p = me(s, "status = 'active' AND portfolio_id IN (SELECT portfolio_id FROM orders WHERE status = 'open')")
    o = s.pick(
        "SELECT o.*, s.name FROM orders o JOIN symbols s USING (symbol) WHERE o.portfolio_id = ? AND o.status = 'open' "
        "AND o.limit_price IS NOT NULL",
        p["portfolio_id"],
    )
    what = order_ref(s, p, o)
    pid = investor_asks(s, p, lead, WORDS.pull_resting_order, what=what)
    locate_order(s, pid, o)
    out = s.call("cancel_order", order_id=o["order_id"])
    remember_order(s, o | out)


@trading.intent(covers=("list_portfolios", "list_orders", "cancel_order", "place_order"), follows=True)
def reprice_order(s: Scene) -> None:
    """An investor moves a resting limit order to a new price (cancel it, place it again at the new price)."""
    p = me(s, "status = 'active' AND portfolio_id IN (SELECT portfolio_id FROM orders WHERE status = 'open')")
    known = s.memory.get("order") if following(s) else None
    where = "AND o.order_id = ?" if known else ""
    o = s.pick(
        "SELECT o.*, s.name, s.last_price FROM orders o JOIN symbols s USING (symbol) WHERE o.portfolio_id = ? "
        f"AND o.status = 'open' AND o.limit_price IS NOT NULL AND o.filled_quantity = 0 {where}",
        p["portfolio_id"],
        *([known["order_id"]] if known else []),
    )
    step = s.rng.choice((0.98, 1.02, 0.97, 1.03))
    price = round(o["limit_price"] * step, 2)
    if o["side"] == "buy":
        ask = s.value(
            f"SELECT MIN(limit_price) FROM orders WHERE symbol = ? AND side = 'sell' AND {LIVE} AND portfolio_id != ?",
            o["symbol"],
            p["portfolio_id"],
        )
        if ask is not None and price >= ask:
            raise Skip("the new bid would cross")
        room = s.value(f"SELECT {AVAILABLE} FROM portfolios p WHERE p.portfolio_id = ?", p["portfolio_id"])
        if o["quantity"] * (price - o["limit_price"]) > room:
            raise Skip("not enough cash for the higher bid")
    else:
        bid = s.value(
            f"SELECT MAX(limit_price) FROM orders WHERE symbol = ? AND side = 'buy' AND {LIVE} AND portfolio_id != ?",
            o["symbol"],
            p["portfolio_id"],
        )
        if bid is not None and price <= bid:
            raise Skip("the new offer would cross")
    if not o["last_price"] * 0.76 <= price <= o["last_price"] * 1.24:
        raise Skip("outside the price band")
    if known and seen(s, o["order_id"]):
        s.say(WORDS.reprice_order, at=money(price))
    else:
        what = order_ref(s, p, o)
        s.say(WORDS.reprice_order_opening, me=lead(s, p), what=what, What=what[:1].upper() + what[1:], at=money(price))
    pid = find_me(s, p)
    locate_order(s, pid, o)
    s.call("cancel_order", order_id=o["order_id"])
    new = s.call(
        "place_order",
        portfolio_id=pid,
        symbol=o["symbol"],
        side=o["side"],
        quantity=o["quantity"],
        type="limit",
        limit_price=price,
    )
    remember_order(s, new)


@trading.intent(covers=("list_portfolios", "deposit_cash", "withdraw_cash", "get_portfolio"), weight=1.5, follows=True)
def move_cash(s: Scene) -> None:
    """An investor adds cash to their account, or takes some of the free cash out."""
    p = me(s, "1=1")
    room = s.value(f"SELECT {AVAILABLE} FROM portfolios p WHERE p.portfolio_id = ?", p["portfolio_id"])
    out = p["status"] == "active" and room > 500 and s.rng.random() < 0.5
    if out:
        amount = float(s.rng.choice([a for a in (250, 500, 1000, 2000, 5000, 10_000) if a < room]))
    else:
        amount = float(s.rng.choice((500, 1000, 2500, 5000, 7500, 20_000)))
    tool = "withdraw_cash" if out else "deposit_cash"
    much = s.given(amount, money(amount), "amount", tool, "amount")
    s.say(
        *(WORDS.cash_out if out else WORDS.cash_in),
        minimal=["{me}I want[ {much}] out."] if out else ["{me}Fund it[ with {much}]."],
        me=lead(s, p),
        much=much,
    )
    pid = find_me(s, p)
    s.call(tool, portfolio_id=pid, amount=amount)
    if following(s) or s.rng.random() < 0.6:
        return  # a follow-up turn may carry on
    s.say(WORDS.move_cash)
    s.call("get_portfolio", portfolio_id=pid)


@trading.intent(covers=("list_portfolios", "get_portfolio", "withdraw_cash"), follows=True)
def take_out_free_cash(s: Scene) -> None:
    """An investor withdraws a share of whatever cash is free (the agent reads what is available first)."""
    p = me(s, "status = 'active'")
    share, words = s.rng.choice(((0.5, "half"), (0.25, "a quarter"), (0.1, "ten percent")))
    pid = investor_asks(s, p, lead, WORDS.take_out_free_cash, part=words)
    if _fresh_holdings(s, pid):
        raise Skip("the look at the account is the last call: a plain withdrawal")
    held = s.call("get_portfolio", portfolio_id=pid)
    amount = round(held["available_cash"] * share, 2)
    if amount < 10:
        raise Skip("too little free cash")
    s.call("withdraw_cash", portfolio_id=pid, amount=amount)
