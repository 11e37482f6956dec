"""Trading follow-ups: the short next turn an investor asks about the portfolio, stock or order the dialogue is
about (where the account stands, what is still working, how the order filled, pull it after all), and the
market watcher's questions."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, day
from servers.trading.intents import LINKABLE, dialogue_symbol, following, remember_order, seen, short_name
from servers.trading.tools import trading


def my_portfolio(s: Scene) -> str:
    known = s.memory.get("portfolio")
    if not known:
        raise Skip("no portfolio in the dialogue yet")
    return str(known["portfolio_id"])


def last_tool(s: Scene) -> str | None:
    calls = list(s.calls)
    return calls[-1].tool if calls else None


def dialogue_order(s: Scene) -> dict[str, Any]:
    known = s.memory.get("order")
    if not known:
        raise Skip("no order in the dialogue yet")
    return dict(s.rows("SELECT * FROM orders WHERE order_id = ?", known["order_id"])[0])


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: str, **slots: Any) -> Any:
    """The investor asks for a read the dialogue has not made yet (``Skip`` when it has); the agent makes it: its
    result."""
    s.asked(tool, **args)
    s.say(*phrasings, **slots)
    return s.call(tool, **args)


@trading.intent(covers=("get_portfolio",), follows=True, opens=False, weight=1.5)
def where_i_stand(s: Scene) -> None:
    """The investor asks for their cash and positions after what they just did."""
    pid = my_portfolio(s)
    if last_tool(s) == "get_portfolio":
        raise Skip("just looked")
    s.say(
        "Where does my account stand now?",
        "What's my cash and total value after that?",
        "Give me my positions and buying power now.",
    )
    s.call("get_portfolio", portfolio_id=pid)


@trading.intent(covers=("list_orders",), follows=True, opens=False, weight=1.5)
def working_orders(s: Scene) -> None:
    """The investor asks which of their orders are still working (in one stock, or on one side)."""
    pid = my_portfolio(s)
    sym = s.memory.get("symbol")
    side = s.rng.choice((None, "buy", "sell"))
    args: dict[str, Any] = {"portfolio_id": pid, "status": "open"}
    if sym and s.rng.random() < 0.5:
        args["symbol"] = sym
        s.say("Do I have anything else waiting in {t}?", "Any other {t} orders of mine still working?", t=sym)
    elif side:
        args["side"] = side
        s.say(
            "Which {w} orders do I still have out there?",
            "Show me my {w} orders that haven't filled.",
            w="buy" if side == "buy" else "sell",
        )
    else:
        s.say("What else do I have waiting in the market?", "Which of my orders are still working?")
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
        s.say("Which of my {t} orders have fully gone through?", "Show me my completed {t} trades.", t=sym)
    else:
        s.say("What else of mine has executed lately?", "Show me my orders that fully filled recently.")
    s.asked("list_orders", **args)
    s.call("list_orders", **args)


@trading.intent(covers=("get_quote",), follows=True, opens=False)
def price_now(s: Scene) -> None:
    """The investor asks for the live price of the stock the dialogue is about."""
    sym = s.memory.get("symbol")
    if not sym:
        raise Skip("no stock in the dialogue yet")
    ask_for(
        s,
        "get_quote",
        {"symbol": sym},
        "Where's {t} trading now?",
        "What's the bid and ask on {t} at the moment?",
        "And {t} right now?",
        t=sym,
    )


@trading.intent(covers=("get_price_history",), follows=True, opens=False)
def last_few_days(s: Scene) -> None:
    """The investor asks how the stock moved over the last few sessions."""
    sym = s.memory.get("symbol")
    if not sym:
        raise Skip("no stock in the dialogue yet")
    n = s.rng.choice((5, 10))
    s.asked("get_price_history", symbol=sym)
    s.say("How has {t} moved over the last {n} trading days?", "Show me {t}'s last {n} daily closes.", t=sym, n=n)
    s.call("get_price_history", symbol=sym, limit=n)


@trading.intent(covers=("get_order_book",), follows=True, opens=False)
def book_now(s: Scene) -> None:
    """The investor asks how much is bid and offered around the price of the stock talked about."""
    sym = s.memory.get("symbol")
    if not sym:
        raise Skip("no stock in the dialogue yet")
    ask_for(
        s,
        "get_order_book",
        {"symbol": sym},
        "How much is bid and offered on it around the price?",
        "What does the book on {t} look like now?",
        "Show me who's buying and selling {t} near the top.",
        t=sym,
    )


@trading.intent(covers=("get_order",), follows=True, opens=False, weight=1.5)
def order_fills(s: Scene) -> None:
    """The investor asks how the order the dialogue is about executed."""
    o = dialogue_order(s)
    if last_tool(s) == "get_order" or not seen(s, o["order_id"]) or o["status"] == "cancelled":
        raise Skip("just looked, the agent does not hold the order, or it was pulled")
    if o["filled_quantity"] == 0:
        s.say("Has any of it filled yet?", "Anything executed on that order so far?", "Is it still waiting?")
    else:
        s.say(
            "What did I end up paying per share?" if o["side"] == "buy" else "What did that bring in per share?",
            "How did that fill?",
            "Show me the fills on that order.",
            "Did it go through completely?",
        )
    s.call("get_order", order_id=o["order_id"])


@trading.intent(covers=("cancel_order",), follows=True, opens=False)
def pull_it_after_all(s: Scene) -> None:
    """The investor changes their mind about the order that is still working."""
    o = dialogue_order(s)
    if o["status"] not in ("open", "partially_filled") or not seen(s, o["order_id"]):
        raise Skip("nothing working to pull")
    s.say(
        "Actually, forget it, pull that order.",
        "Changed my mind: cancel it.",
        "Scrap that, I don't want it sitting there.",
    )
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
    ask_for(
        s,
        "get_quote",
        {"symbol": top["symbol"]},
        "How's my biggest holding doing today?",
        "What's my largest position trading at right now?",
        "And the one I have the most money in: where's it quoted?",
    )
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
        s.say(
            "How has it done over the last {w} weeks?",
            "Show me its daily prices since {when}.",
            "What has it traded at since {when}?",
            w=weeks,
            when=day(since, s.now).removeprefix("on "),
        )
    else:
        s.say(
            "How has {co} stock done over the last {w} weeks?",
            "Show me {co}'s daily prices since {when}.",
            "I'm curious about {co}: what has it traded at since {when}?",
            minimal=["{co} lately?"],
            co=co,
            w=weeks,
            when=day(since, s.now).removeprefix("on "),
        )
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
    s.say("And where is it right now?", "What's it at today?", "OK, and the live price?")
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
        s.say(
            "Who's sitting at the best {w} on it right now?",
            "Show me the order at the front of the best {w} there.",
            "What's the first order at the top {w} on it?",
            w=words,
        )
        book = s.call("get_order_book", symbol=sym["symbol"], depth=1)
    else:
        by_name = s.rng.random() < 0.3 and len(sym["symbol"]) >= 3
        t = short_name(sym["name"]) if by_name else sym["symbol"]
        s.say(
            "Show me the top {d} levels of the {t} book.",
            "How deep is {t} right now, {d} levels a side?",
            "What does the {t} order book look like, {d} levels?",
            minimal=["{t} book?"],
            t=t,
            d=depth,
        )
        if by_name:
            s.find("search_symbols", "symbols", "symbol", sym["symbol"], missing="not found by its name", query=t)
        book = s.call("get_order_book", symbol=sym["symbol"], **({} if s.minimal else {"depth": depth}))
        if not book[side]:
            raise Skip("that side of the book is empty")
        s.say(
            "Who's first in line at the best {w}?",
            "Show me the order at the front of the best {w}.",
            "Details on the first order at the top {w}, please.",
            w=words,
        )
    if not book[side]:
        raise Skip("that side of the book is empty")
    s.call("get_order", order_id=book[side][0]["order_ids"][0])
    if len(sym["symbol"]) >= 3:
        s.memory["symbol"] = sym["symbol"]


@trading.intent(covers=("get_distinct_values", "search_symbols"))
def sector_scan(s: Scene) -> None:
    """Someone browsing for ideas asks which sectors are listed, then for the stocks of one."""
    s.say(
        "Which sectors can I invest in here?",
        "What industries do the listed stocks cover?",
        "Break the market down by sector for me.",
        minimal=["Sectors?"],
    )
    sectors = sorted(s.call("get_distinct_values", field="sector")["values"])
    sector = s.rng.choice(sectors)
    exchange = s.rng.choice((None, None, "NYSE", "NASDAQ"))
    where = f" on the {exchange}" if exchange else ""
    s.say(
        "Show me the {sec} names{where}.",
        "Which {sec} stocks are listed{where}?",
        "What can I buy in {sec}{where}?",
        sec=sector,
        where=where,
    )
    listed = s.call("search_symbols", sector=sector, **({"exchange": exchange} if exchange else {}))["symbols"]
    s.memory["sector_listing"] = tuple(listed)


@trading.intent(covers=("search_symbols", "get_quote", "get_price_history"), follows=True)
def sector_mover(s: Scene) -> None:
    """Someone asks which stock of a sector moved most today, and looks closer at it."""
    listed = s.memory.get("sector_listing") if following(s) else None
    if following(s) and not listed:
        raise Skip("no sector listing in the dialogue")
    if listed:
        rows = list(listed)
        s.say(
            "Which of those is up the most since yesterday's close? Show me its quote.",
            "Which one of them moved most today? Get me the live numbers on it.",
            "Of those, which gained the most today, and how's it quoted now?",
        )
    else:
        sector = s.pick(  # a sector where some stocks gained today, so one of them can be the top gainer
            "SELECT sector FROM symbols GROUP BY sector HAVING COUNT(*) >= 3 AND "
            "SUM(last_price > prev_close AND length(symbol) >= 3) >= 2"
        )["sector"]
        s.say(
            "Which {sec} stock is up the most today? Show me its quote.",
            "What's the biggest gainer in {sec} since yesterday's close, and where is it now?",
            "Find me the {sec} name that moved most today and pull up its price.",
            minimal=["Top {sec} gainer today?"],
            sec=sector,
        )
        rows = s.call("search_symbols", sector=sector)["symbols"]
    up = [r for r in rows if r["last_price"] > r["prev_close"] and len(r["symbol"]) >= 3]
    if len(up) < 2:
        raise Skip("no clear gainer")
    gain = {r["symbol"]: r["last_price"] / r["prev_close"] for r in up}
    top = max(up, key=lambda r: gain[r["symbol"]])
    if sum(abs(g - gain[top["symbol"]]) < 1e-9 for g in gain.values()) > 1:
        raise Skip("a tie")
    s.call("get_quote", symbol=top["symbol"])
    s.memory["symbol"] = top["symbol"]
