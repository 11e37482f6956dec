"""Trading follow-ups: the short next turn an investor asks about the portfolio, stock or order the dialogue is
about (where the account stands, what is still working, how the order filled, pull it after all)."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.trading.intents import remember_order, seen
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
