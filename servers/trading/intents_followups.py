"""Trading follow-ups: the short next turn an investor asks about the portfolio, stock or order the dialogue is
about (where the account stands, what is still working, how the order filled, pull it after all), and the
market watcher's questions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip, day
from servers.trading.intents import LINKABLE, WORDS, dialogue_symbol, following, remember_order, seen, short_name
from servers.trading.tools import trading


def my_portfolio(s: Scene) -> str:
    known = s.known("portfolio", "no portfolio in the dialogue yet")
    return str(known["portfolio_id"])


def last_tool(s: Scene) -> str | None:
    calls = list(s.calls)
    return calls[-1].tool if calls else None


def dialogue_order(s: Scene) -> dict[str, Any]:
    known = s.known("order", "no order in the dialogue yet")
    return dict(s.rows("SELECT * FROM orders WHERE order_id = ?", known["order_id"])[0])


def on_account(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    if last_tool(s) == "get_portfolio":
        raise Skip("just looked")
    return {"portfolio_id": my_portfolio(s)}, {}


def on_stock(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    sym = s.known("symbol", "no stock in the dialogue yet")
    return {"symbol": sym}, {"t": sym}


def on_stock_days(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
    args, slots = on_stock(s)
    n = s.rng.choice((5, 10))
    return {**args, "limit": n}, {**slots, "n": n}


AGAIN = (
    FollowUp(
        "where_i_stand",
        "The investor asks for their cash and positions after what they just did.",
        on_account,
        "get_portfolio",
        weight=1.5,
        asked=False,
    ),
    FollowUp(
        "price_now",
        "The investor asks for the live price of the stock the dialogue is about.",
        on_stock,
        "get_quote",
        asked=("symbol",),
    ),
    FollowUp(
        "book_now",
        "The investor asks how much is bid and offered around the price of the stock talked about.",
        on_stock,
        "get_order_book",
        asked=("symbol",),
    ),
    FollowUp(
        "last_few_days",
        "The investor asks how the stock moved over the last few sessions.",
        on_stock_days,
        "get_price_history",
        asked=("symbol",),
    ),
)


follow_ups(trading, AGAIN, WORDS)


@trading.intent(covers=("list_orders",), follows=True, opens=False, weight=1.5)
def working_orders(s: Scene) -> None:
    """The investor asks which of their orders are still working (in one stock, or on one side)."""
    pid = my_portfolio(s)
    sym = s.memory.get("symbol")
    side = s.rng.choice((None, "buy", "sell"))
    args: dict[str, Any] = {"portfolio_id": pid, "status": "open"}
    if sym and s.rng.random() < 0.5:
        args["symbol"] = sym
        s.say(WORDS.working_orders, t=sym)
    elif side:
        args["side"] = side
        s.say(WORDS.working_orders_by_side, w="buy" if side == "buy" else "sell")
    else:
        s.say(WORDS.working_orders_all)
    s.asked("list_orders", **args)
    s.call("list_orders", **args)


@trading.intent(covers=("list_orders",), follows=True, opens=False)
def recent_fills(s: Scene) -> None:
    """The investor asks what of theirs went through lately (in the stock talked about, or at all)."""
    pid = my_portfolio(s)
    sym = s.memory.get("symbol")
    args: dict[str, Any] = {"portfolio_id": pid, "status": "filled"}
    if sym and s.rng.random() < 0.5:
        args["symbol"] = sym
        s.say(WORDS.recent_fills, t=sym)
    else:
        s.say(WORDS.recent_fills_all)
    s.asked("list_orders", **args)
    s.call("list_orders", **args)


@trading.intent(covers=("get_order",), follows=True, opens=False, weight=1.5)
def order_fills(s: Scene) -> None:
    """The investor asks how the order the dialogue is about executed."""
    o = dialogue_order(s)
    if last_tool(s) == "get_order" or not seen(s, o["order_id"]) or o["status"] == "cancelled":
        raise Skip("just looked, the agent does not hold the order, or it was pulled")
    if o["filled_quantity"] == 0:
        s.say(WORDS.order_fills)
    else:
        s.say(
            "What did I end up paying per share?" if o["side"] == "buy" else "What did that bring in per share?",
            "How did that fill?",
            "Show me the fills on that order{, please|}.",
            "Did it go through {completely|in full}?",
        )
    s.call("get_order", order_id=o["order_id"])


@trading.intent(covers=("cancel_order",), follows=True, opens=False)
def pull_it_after_all(s: Scene) -> None:
    """The investor changes their mind about the order that is still working."""
    o = dialogue_order(s)
    if o["status"] not in ("open", "partially_filled") or not seen(s, o["order_id"]):
        raise Skip("nothing working to pull")
    s.say(WORDS.pull_it_after_all)
    out = s.call("cancel_order", order_id=o["order_id"])
    remember_order(s, o | out)


@trading.intent(covers=("get_quote",), follows=True, opens=False)
def biggest_holding_today(s: Scene) -> None:
    """After a look at the portfolio, the investor asks how their biggest holding is trading today."""
    shown = [c.result for c in s.calls if c.tool == "get_portfolio"]
    if not shown:
        raise Skip("no look at the portfolio yet")
    positions = [x for x in shown[-1]["positions"] if len(x["symbol"]) >= 3]
    if len(positions) < 2:
        raise Skip("no clear biggest holding")
    top = max(positions, key=lambda x: x["market_value"])
    if sum(x["market_value"] == top["market_value"] for x in positions) > 1:
        raise Skip("a tie")
    s.asked("get_quote", symbol=top["symbol"])
    s.say(WORDS.biggest_holding_today)
    s.call("get_quote", symbol=top["symbol"])
    s.memory["symbol"] = top["symbol"]


# The market watcher -----------------------------------------------------------------------------


@trading.intent(covers=("search_symbols", "get_price_history", "get_quote"), weight=1.5, follows=True)
def how_has_it_done(s: Scene) -> None:
    """Someone looks at how a company's stock traded lately (and maybe at its live quote)."""
    sym = dialogue_symbol(s) if following(s) else s.pick(f"SELECT * FROM symbols WHERE {LINKABLE}")
    if sym is None:
        raise Skip("no stock in the dialogue")
    co = short_name(sym["name"])
    weeks = s.rng.choice((2, 3, 4, 6))
    since = (s.now - timedelta(weeks=weeks)).strftime("%Y-%m-%d")
    if following(s):
        s.say(WORDS.how_has_it_done_continuing, w=weeks, when=day(since, s.now).removeprefix("on "))
    else:
        s.say(WORDS.how_has_it_done_opening, co=co, w=weeks, when=day(since, s.now).removeprefix("on "))
    symbol = sym["symbol"]
    if not seen(s, symbol):
        symbol = s.find(
            "search_symbols",
            "symbols",
            "symbol",
            sym["symbol"],
            missing="the company is not found by its name",
            query=co,
        )["symbol"]
    s.call("get_price_history", symbol=symbol, **({} if s.minimal else {"since": since}))
    s.memory["symbol"] = symbol
    if following(s) or s.rng.random() < 0.5:
        return
    s.say(WORDS.how_has_it_done)
    s.call("get_quote", symbol=symbol)


@trading.intent(covers=("get_order_book", "get_order", "search_symbols"), follows=True)
def book_depth(s: Scene) -> None:
    """A trader looks at the depth of the book on a ticker and at the oldest order at the best price."""
    sym = dialogue_symbol(s) if following(s) else s.pick("SELECT * FROM symbols")
    if sym is None:
        raise Skip("no stock in the dialogue")
    depth = s.rng.choice((3, 5, 10))
    side, words = s.rng.choice((("asks", "ask"), ("bids", "bid")))
    if following(s):
        s.say(WORDS.book_depth, w=words)
        book = s.call("get_order_book", symbol=sym["symbol"], depth=1)
    else:
        by_name = s.rng.random() < 0.3 and len(sym["symbol"]) >= 3
        t = short_name(sym["name"]) if by_name else sym["symbol"]
        s.say(WORDS.book_depth_opening, t=t, d=depth)
        if by_name:
            s.find("search_symbols", "symbols", "symbol", sym["symbol"], missing="not found by its name", query=t)
        book = s.call("get_order_book", symbol=sym["symbol"], **({} if s.minimal else {"depth": depth}))
        if not book[side]:
            raise Skip("that side of the book is empty")
        s.say(WORDS.book_depth_then_front_order, w=words)
    if not book[side]:
        raise Skip("that side of the book is empty")
    s.call("get_order", order_id=book[side][0]["order_ids"][0])
    if len(sym["symbol"]) >= 3:
        s.memory["symbol"] = sym["symbol"]
