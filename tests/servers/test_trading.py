"""Trading: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

T = "trading"


def customer(world: World, min_cash: float = 0.0) -> dict:
    found = world.ok(T, "list_portfolios", kind="individual", status="active", min_cash=min_cash, limit=1)["portfolios"]
    return found[0]


def rich_customer(world: World) -> str:
    pid = customer(world)["portfolio_id"]
    world.ok(T, "deposit_cash", portfolio_id=pid, amount=1_000_000.0)
    return pid


def test_list_and_get_portfolio(world: World) -> None:
    found = world.ok(T, "list_portfolios", limit=3)["portfolios"]
    assert len(found) == 3 and found[0]["kind"] == "market_maker"
    assert world.ok(T, "list_portfolios", query="zzzz-nobody")["count"] == 0
    p = world.ok(T, "get_portfolio", portfolio_id="PRT-0042")
    assert p["available_cash"] == round(p["cash"] - p["reserved_cash"], 2)
    assert "No portfolio" in world.err(T, "get_portfolio", portfolio_id="PRT-9999")
    assert "invalid arguments" in world.err(T, "list_portfolios", kind="hedge_fund")


def test_symbols_quotes_history_book(world: World) -> None:
    assert "BAC" in [s["symbol"] for s in world.ok(T, "search_symbols", query="bank")["symbols"]]
    assert world.ok(T, "search_symbols", sector="Energy")["count"] == 2
    assert "invalid arguments" in world.err(T, "search_symbols", limit=0)
    q = world.ok(T, "get_quote", symbol="aapl")
    assert q["symbol"] == "AAPL" and q["bid"] < q["ask"]
    assert "Unknown symbol" in world.err(T, "get_quote", symbol="ZZZZ")
    bars = world.ok(T, "get_price_history", symbol="MSFT", since="2026-05-01", limit=100)["bars"]
    assert bars and all(b["date"] >= "2026-05-01" for b in bars) and bars == sorted(bars, key=lambda b: b["date"])
    assert "not a valid calendar date" in world.err(T, "get_price_history", symbol="MSFT", since="2026-02-30")
    assert "after until" in world.err(T, "get_price_history", symbol="MSFT", since="2026-05-10", until="2026-05-01")
    book = world.ok(T, "get_order_book", symbol="AAPL", depth=3)
    assert len(book["bids"]) == 3 and book["bids"][0]["price"] > book["bids"][1]["price"]
    assert book["asks"][0]["price"] < book["asks"][1]["price"] and book["asks"][0]["price"] == q["ask"]
    assert "Unknown symbol" in world.err(T, "get_order_book", symbol="NOPE")


def test_orders_and_distinct(world: World) -> None:
    orders = world.ok(T, "list_orders", portfolio_id="PRT-0042", limit=100)["orders"]
    assert orders and all(o["portfolio_id"] == "PRT-0042" for o in orders)
    got = world.ok(T, "get_order", order_id=orders[0]["order_id"])
    assert got["order_id"] == orders[0]["order_id"] and "fills" in got
    assert world.ok(T, "get_order", order_id="ORD-00001")["fills"]
    assert "No order" in world.err(T, "get_order", order_id="ORD-99999")
    assert "invalid arguments" in world.err(T, "list_orders", status="pending")
    assert "Technology" in world.ok(T, "get_distinct_values", field="sector")["values"]
    assert "invalid arguments" in world.err(T, "get_distinct_values", field="ssn")


def test_market_buy_walks_the_book_in_price_time_priority(world: World) -> None:
    pid = rich_customer(world)
    book = world.ok(T, "get_order_book", symbol="NVDA", depth=2)
    best, second = book["asks"][0], book["asks"][1]
    qty = best["quantity"] + 1
    before = world.ok(T, "get_portfolio", portfolio_id=pid)
    order = world.ok(T, "place_order", portfolio_id=pid, symbol="NVDA", side="buy", quantity=qty)
    assert order["status"] == "filled" and order["filled_quantity"] == qty
    assert [f["counterparty_order_id"] for f in order["fills"]] == best["order_ids"] + [second["order_ids"][0]]
    assert order["fills"][-1]["price"] == second["price"]
    after = world.ok(T, "get_portfolio", portfolio_id=pid)
    cost = round(best["quantity"] * best["price"] + second["price"], 2)
    assert after["cash"] == round(before["cash"] - cost, 2)
    assert next(p for p in after["positions"] if p["symbol"] == "NVDA")["quantity"] >= qty
    assert world.ok(T, "get_quote", symbol="NVDA")["last_price"] == second["price"]
    assert world.ok(T, "get_order_book", symbol="NVDA", depth=1)["asks"][0]["price"] == second["price"]
    filled = world.ok(T, "get_order", order_id=best["order_ids"][0])
    assert filled["status"] == "filled"


def test_limit_order_rests_and_cancels(world: World) -> None:
    pid = rich_customer(world)
    q = world.ok(T, "get_quote", symbol="KO")
    price = round(q["bid"] - 0.5, 2)
    order = world.ok(
        T, "place_order", portfolio_id=pid, symbol="KO", side="buy", quantity=10, type="limit", limit_price=price
    )
    assert order["status"] == "open" and not order["fills"]
    assert world.ok(T, "get_portfolio", portfolio_id=pid)["reserved_cash"] >= round(10 * price, 2)
    levels = world.ok(T, "get_order_book", symbol="KO", depth=20)["bids"]
    assert any(order["order_id"] in lvl["order_ids"] for lvl in levels)
    world.ok(T, "cancel_order", order_id=order["order_id"])
    assert world.ok(T, "get_order", order_id=order["order_id"])["status"] == "cancelled"
    assert "already cancelled" in world.err(T, "cancel_order", order_id=order["order_id"])
    assert "filled order cannot be cancelled" in world.err(T, "cancel_order", order_id="ORD-00001")
    assert "No order" in world.err(T, "cancel_order", order_id="ORD-00000")


def test_crossing_limit_sell_fills_then_rests(world: World) -> None:
    pid = rich_customer(world)
    world.ok(T, "place_order", portfolio_id=pid, symbol="PFE", side="buy", quantity=100)
    bid = world.ok(T, "get_order_book", symbol="PFE", depth=1)["bids"][0]
    qty = min(bid["quantity"] + 5, 100)
    order = world.ok(
        T,
        "place_order",
        portfolio_id=pid,
        symbol="PFE",
        side="sell",
        quantity=qty,
        type="limit",
        limit_price=bid["price"],
    )
    assert order["filled_quantity"] == min(bid["quantity"], qty)
    assert order["status"] == ("partially_filled" if qty > bid["quantity"] else "filled")
    if order["status"] == "partially_filled":
        assert world.ok(T, "get_order_book", symbol="PFE", depth=1)["asks"][0]["order_ids"] == [order["order_id"]]


def test_trading_rules(world: World) -> None:
    poor = customer(world)
    assert "Insufficient cash" in world.err(
        T, "place_order", portfolio_id=poor["portfolio_id"], symbol="COST", side="buy", quantity=1000
    )
    assert "Short selling" in world.err(
        T, "place_order", portfolio_id=poor["portfolio_id"], symbol="GE", side="sell", quantity=1_000_000
    )
    assert "Unknown symbol" in world.err(
        T, "place_order", portfolio_id=poor["portfolio_id"], symbol="XYZQ", side="buy", quantity=1
    )
    assert "needs limit_price" in world.err(
        T, "place_order", portfolio_id=poor["portfolio_id"], symbol="KO", side="buy", quantity=1, type="limit"
    )
    assert "outside the allowed band" in world.err(
        T,
        "place_order",
        portfolio_id=poor["portfolio_id"],
        symbol="KO",
        side="buy",
        quantity=1,
        type="limit",
        limit_price=1.0,
    )
    pid = rich_customer(world)
    assert "only" in world.err(T, "place_order", portfolio_id=pid, symbol="KO", side="buy", quantity=900_000)
    frozen = world.ok(T, "list_portfolios", status="frozen", limit=1)["portfolios"][0]["portfolio_id"]
    assert "frozen" in world.err(T, "place_order", portfolio_id=frozen, symbol="KO", side="buy", quantity=1)
    assert "invalid arguments" in world.err(T, "place_order", portfolio_id=pid, symbol="KO", side="short", quantity=1)


def test_deposit_and_withdraw(world: World) -> None:
    pid = customer(world)["portfolio_id"]
    before = world.ok(T, "get_portfolio", portfolio_id=pid)["cash"]
    world.ok(T, "deposit_cash", portfolio_id=pid, amount=250.0)
    world.ok(T, "withdraw_cash", portfolio_id=pid, amount=100.0)
    p = world.ok(T, "get_portfolio", portfolio_id=pid)
    assert p["cash"] == round(before + 150, 2)
    assert [m["kind"] for m in p["recent_cash_movements"][:2]] == ["withdrawal", "deposit"]
    assert "available cash" in world.err(T, "withdraw_cash", portfolio_id=pid, amount=9_999_999.0)
    assert "No portfolio" in world.err(T, "deposit_cash", portfolio_id="PRT-0000", amount=1.0)
    assert "invalid arguments" in world.err(T, "deposit_cash", portfolio_id=pid, amount=-5.0)
    frozen = world.ok(T, "list_portfolios", status="frozen", limit=1)["portfolios"][0]["portfolio_id"]
    assert "frozen" in world.err(T, "withdraw_cash", portfolio_id=frozen, amount=1.0)


def test_reserved_cash_blocks_withdrawal(world: World) -> None:
    pid = customer(world)["portfolio_id"]
    world.ok(T, "deposit_cash", portfolio_id=pid, amount=10_000.0)
    p = world.ok(T, "get_portfolio", portfolio_id=pid)
    price = round(world.ok(T, "get_quote", symbol="BAC")["bid"] - 0.2, 2)
    qty = int(p["available_cash"] // price)
    world.ok(
        T, "place_order", portfolio_id=pid, symbol="BAC", side="buy", quantity=qty, type="limit", limit_price=price
    )
    assert "reserved by open buy orders" in world.err(T, "withdraw_cash", portfolio_id=pid, amount=p["available_cash"])
