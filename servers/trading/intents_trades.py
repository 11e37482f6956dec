"""Trading intents that trade: buy at market or with a cap, sell part of a holding, rest a bid below the market."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip, money
from servers.trading.intents import (
    AVAILABLE,
    FREE_SHARES,
    LINKABLE,
    WORDS,
    _fresh_holdings,
    best_ask,
    best_bid_size,
    dialogue_symbol,
    find_me,
    following,
    lead,
    me,
    remember_order,
    short_name,
    stock,
    ticker,
)
from servers.trading.tools import trading


@trading.intent(
    covers=("list_portfolios", "search_symbols", "get_quote", "place_order", "get_order_book"), weight=2.0, follows=True
)
def buy_shares(s: Scene) -> None:
    """An investor buys shares: at market after checking the price, or with a price cap."""
    p = me(
        s, f"status = 'active' AND portfolio_id IN (SELECT p.portfolio_id FROM portfolios p WHERE {AVAILABLE} > 1500)"
    )
    room = s.value(f"SELECT {AVAILABLE} FROM portfolios p WHERE p.portfolio_id = ?", p["portfolio_id"])
    resting = (s.memory.get("order") or {}).get("type") == "limit"  # a bid below the market: no market buy on top
    sym = dialogue_symbol(s) if following(s) and not resting and s.rng.random() < 0.6 else None
    if sym is None or sym["last_price"] * 1.1 >= room:
        sym = s.pick(f"SELECT * FROM symbols WHERE last_price * 1.1 < ? AND {LINKABLE}", room)
    ask, size = best_ask(s, sym["symbol"], p["portfolio_id"])
    fits = [q for q in (1, 2, 3, 5, 10, 15, 20, 25, 40, 50, 100) if q * ask * 1.02 < room and q <= size]
    if not fits:
        raise Skip("nothing fits the cash or the book")
    qty = s.rng.choice(fits[-4:])
    words, lookup = stock(s, sym)
    n = s.given(qty, f"{qty} shares", "quantity", "place_order", "quantity")
    how = s.rng.random()
    cap = round(ask * 1.02, 2) if s.level == "complete" and how < 0.3 else None
    same = following(s) and s.memory.get("symbol") == sym["symbol"] and not resting
    if same:
        s.say(WORDS.buy_shares, n=n)
    elif cap is not None:
        s.say(WORDS.buy_shares_capped, me=lead(s, p), co=words, n=n, cap=money(cap))
    elif how < 0.65:  # the investor wants to hear the price first
        s.say(WORDS.buy_shares_after_quote, me=lead(s, p), co=words, n=n)
    elif how < 0.8:  # ... or to see how much is offered
        s.say(WORDS.buy_shares_after_offers, me=lead(s, p), co=words, n=n)
    else:
        s.say(WORDS.buy_shares_at_market, me=lead(s, p), co=words, n=n)
    pid = find_me(s, p)
    sym_id = ticker(s, sym, lookup, words)
    if cap is None:
        if not same and how < 0.65:
            s.call("get_quote", symbol=sym_id)
        elif not same and how < 0.8:
            s.call("get_order_book", symbol=sym_id)
        order = s.call("place_order", portfolio_id=pid, symbol=sym_id, side="buy", quantity=qty)
    else:
        order = s.call(
            "place_order", portfolio_id=pid, symbol=sym_id, side="buy", quantity=qty, type="limit", limit_price=cap
        )
    remember_order(s, order)


@trading.intent(covers=("list_portfolios", "get_portfolio", "place_order"), weight=1.5, follows=True)
def trim_position(s: Scene) -> None:
    """An investor sells part (or all) of a holding at market, or offers it at a price."""
    p = me(s, "status = 'active' AND portfolio_id IN (SELECT portfolio_id FROM positions WHERE quantity >= 2)")
    traded = sorted({c.arguments["symbol"] for c in s.calls if c.tool == "place_order"})
    sym = s.memory.get("symbol") if following(s) else None
    if sym in traded:
        sym = None  # no selling right after trading it in the same dialogue: another holding
    pos = s.pick(
        "SELECT p.*, s.name, s.last_price FROM positions p JOIN symbols s USING (symbol) WHERE p.portfolio_id = ? "
        f"AND p.quantity >= 2 AND {FREE_SHARES} >= 2"
        + (" AND p.symbol = ?" if sym else "")
        + f" AND p.symbol NOT IN ({', '.join('?' * len(traded))})",
        p["portfolio_id"],
        *([sym] if sym else []),
        *traded,
    )
    share, words = s.rng.choice(((0.5, "half of my"), (1.0, "all my"), (0.25, "a quarter of my")))
    co = short_name(pos["name"])
    offer = s.rng.random() < 0.3
    price = round(pos["last_price"] * s.rng.choice((1.05, 1.1, 1.15)), 0 if pos["last_price"] > 50 else 2)
    if offer:
        s.say(WORDS.trim_position, me=lead(s, p), part=words, co=co, at=money(price))
    else:
        s.say(WORDS.trim_position_at_market, me=lead(s, p), part=words, co=co)
    pid = find_me(s, p)
    if _fresh_holdings(s, pid):
        free = int(
            s.value(f"SELECT {FREE_SHARES} FROM positions p WHERE portfolio_id = ? AND symbol = ?", pid, pos["symbol"])
        )
    else:
        held = s.call("get_portfolio", portfolio_id=pid)
        mine = [x for x in held["positions"] if x["symbol"] == pos["symbol"]]
        if not mine:
            raise Skip("the position is gone")
        free = int(mine[0]["available"])
    qty = max(1, int(free * share))
    if offer:
        order = s.call(
            "place_order",
            portfolio_id=pid,
            symbol=pos["symbol"],
            side="sell",
            quantity=qty,
            type="limit",
            limit_price=price,
        )
    else:
        if qty > best_bid_size(s, pos["symbol"], pid):
            raise Skip("the bids are too thin for a market sell")
        order = s.call("place_order", portfolio_id=pid, symbol=pos["symbol"], side="sell", quantity=qty)
    remember_order(s, order)


@trading.intent(covers=("list_portfolios", "search_symbols", "place_order", "get_quote"), weight=1.5, follows=True)
def rest_a_bid(s: Scene) -> None:
    """An investor rests a limit buy below the market (a fixed price, or a share below where it trades)."""
    p = me(
        s, f"status = 'active' AND portfolio_id IN (SELECT p.portfolio_id FROM portfolios p WHERE {AVAILABLE} > 1000)"
    )
    room = s.value(f"SELECT {AVAILABLE} FROM portfolios p WHERE p.portfolio_id = ?", p["portfolio_id"])
    sym = dialogue_symbol(s) if following(s) else None
    if sym is None or sym["last_price"] >= room / 3:
        sym = s.pick(f"SELECT * FROM symbols WHERE last_price < ? AND {LINKABLE}", room / 3)
    off = s.rng.choice((0.9, 0.92, 0.95))
    words, lookup = stock(s, sym)
    relative = s.rng.random() < 0.35
    n_qty = s.rng.choice((5, 10, 20, 50))
    if relative:
        price = round(sym["last_price"] * off, 2)
    else:
        price = round(sym["last_price"] * off, 0 if sym["last_price"] > 50 else 2)
    qty = max(1, min(int(room * 0.5 // price), n_qty))
    n = s.given(qty, f"{qty} shares", "quantity", "place_order", "quantity")
    if relative:
        s.say(WORDS.rest_a_bid, me=lead(s, p), co=words, pct=round(100 * (1 - off)), n=n)
    else:
        s.say(WORDS.rest_a_bid_at_price, me=lead(s, p), co=words, at=money(price), n=n)
    pid = find_me(s, p)
    sym_id = ticker(s, sym, lookup, words)
    if relative:
        quote = s.call("get_quote", symbol=sym_id)
        price = round(quote["last_price"] * off, 2)
        qty = max(1, min(int(room * 0.5 // price), n_qty))
        if n.value != qty:
            raise Skip("the quantity no longer fits")
    order = s.call(
        "place_order", portfolio_id=pid, symbol=sym_id, side="buy", quantity=qty, type="limit", limit_price=price
    )
    if order["status"] != "open":
        raise Skip("the bid crossed the book")
    remember_order(s, order)
