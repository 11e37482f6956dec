"""What people want of their broker: an investor checking positions, buying and selling, minding orders and cash.

The investor gives their name (joint owners both names; with the kind of portfolio or their email
when the name is shared); the agent finds the portfolio with ``list_portfolios``. Stocks are named by
ticker ("NVDA") or by the company ("Nvidia"), which the agent looks up with ``search_symbols``.
Orders are named by what they do ("my open bid on Microsoft"), never by their id. A market watcher
asks about sectors, price history and the book.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.synth.intent import Ref, Scene, Skip, day, money
from servers.trading.tools import trading

OWNER = "SELECT portfolio_id, owner_name, email, kind, status, cash FROM portfolios WHERE kind != 'market_maker'"
KIND_WORDS = {"individual": "brokerage account", "joint": "joint account", "retirement": "retirement account"}
SUFFIXES = (" Inc.", " Corp.", " Co.", " Group", " Wholesale", " Platforms Inc.", " Holdings")
# Calls are linked by the values results carry, and a one- or two-letter ticker ('V', 'GE') is too short to
# count as one, so the steps that pass a ticker on use the longer ones.
LINKABLE = "length(symbol) >= 3"
AVAILABLE = (
    "(p.cash - COALESCE((SELECT SUM((o.quantity - o.filled_quantity) * o.limit_price) FROM orders o "
    "WHERE o.portfolio_id = p.portfolio_id AND o.side = 'buy' AND o.status IN ('open', "
    "'partially_filled')), 0))"
)


def short_name(name: str) -> str:
    """'Walt Disney Co.' -> 'Walt Disney', 'Meta Platforms Inc.' -> 'Meta': how people name a company."""
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return name[: -len(suffix)].rstrip(" ,&").removesuffix(" &")
    return name


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The investor talking: the one an earlier turn established, else a fresh pick among all that fit."""
    known = s.recall(
        "portfolio", "portfolio_id", OWNER + f" AND portfolio_id = ? AND ({where})", *params, who="investor"
    )
    if known is not None:
        return known
    p = s.pick(OWNER + f" AND ({where})", *params)
    s.be(
        p["owner_name"].split(" & ")[0] + " " + p["owner_name"].split()[-1]
        if " & " in p["owner_name"]
        else p["owner_name"]
    )
    return p


def who(s: Scene, p: dict[str, Any]) -> str:
    """How the investor introduces themself, with their account, proven to pick out one portfolio; some say
    which kind of account it is (and the agent filters on it)."""
    if p["kind"] == "retirement" and s.rng.random() < 0.5:
        s.memory["said_kind"] = True
        return s.refer(
            p["portfolio_id"],
            Ref(
                "I'm {name}, about my {kind}",
                "SELECT portfolio_id FROM portfolios WHERE owner_name = ? AND kind = ?",
                p["owner_name"],
                p["kind"],
            ),
            name=p["owner_name"],
            kind=KIND_WORDS[p["kind"]],
        )
    return s.refer(
        p["portfolio_id"],
        Ref(
            "It's {name} about our joint account" if p["kind"] == "joint" else "I'm {name}",
            "SELECT portfolio_id FROM portfolios WHERE owner_name = ?",
            p["owner_name"],
        ),
        Ref(
            "I'm {name}, about my {kind}",
            "SELECT portfolio_id FROM portfolios WHERE owner_name = ? AND kind = ?",
            p["owner_name"],
            p["kind"],
        ),
        Ref("I'm {name} ({email})", "SELECT portfolio_id FROM portfolios WHERE email = ?", p["email"]),
        name=p["owner_name"],
        kind=KIND_WORDS.get(p["kind"], "account"),
        email=p["email"],
    )


def find_me(s: Scene, p: dict[str, Any]) -> str:
    """The discovery call for the portfolio id (skipped once an earlier turn found it)."""
    known = s.memory.get("portfolio")
    if known and known["portfolio_id"] == p["portfolio_id"]:
        return str(known["portfolio_id"])
    shared = s.rows(
        "SELECT 1 FROM portfolios WHERE owner_name = ? AND portfolio_id != ?", p["owner_name"], p["portfolio_id"]
    )
    args: dict[str, Any] = {"query": p["email"] if shared and s.rng.random() < 0.5 else p["owner_name"]}
    if (shared or s.memory.get("said_kind")) and "@" not in args["query"]:
        args["kind"] = p["kind"]
    hit = s.find(
        "list_portfolios",
        "portfolios",
        "portfolio_id",
        p["portfolio_id"],
        missing="the portfolio is past the first page",
        **args,
    )
    s.memory["portfolio"] = hit
    return str(hit["portfolio_id"])


def stock(s: Scene, sym: dict[str, Any]) -> tuple[str, bool]:
    """A stock as the investor names it: its ticker, or its company name (which the agent must look up).
    Returns the words and whether a lookup is needed."""
    if s.rng.random() < 0.55:
        return sym["symbol"], False
    short = short_name(sym["name"])
    text = s.refer(sym["symbol"], Ref("{n}", "SELECT symbol FROM symbols WHERE name LIKE ?", short + "%"), n=short)
    return text, True


def ticker(s: Scene, sym: dict[str, Any], lookup: bool, words: str) -> str:
    """The ticker, read off a symbol search when the investor named the company."""
    if not lookup:
        return str(sym["symbol"])
    found = s.find(
        "search_symbols",
        "symbols",
        "symbol",
        sym["symbol"],
        missing="the company is not found by its name",
        query=words,
    )
    return str(found["symbol"])


def best_ask(s: Scene, symbol: str, portfolio_id: str) -> float:
    price = s.value(
        "SELECT MIN(limit_price) FROM orders WHERE symbol = ? AND side = 'sell' AND status IN ('open', "
        "'partially_filled') AND portfolio_id != ?",
        symbol,
        portfolio_id,
    )
    if price is None:
        raise Skip("no ask in the book")
    return float(price)


# Looking ----------------------------------------------------------------------------------------


@trading.intent(covers=("list_portfolios", "get_portfolio", "get_quote"), weight=1.5)
def how_am_i_doing(s: Scene) -> None:
    """An investor checks their holdings and then the live quote of one of them."""
    p = me(s, "portfolio_id IN (SELECT portfolio_id FROM positions)")
    pos = s.pick(
        f"SELECT p.*, s.name FROM positions p JOIN symbols s USING (symbol) WHERE p.portfolio_id = ? AND {LINKABLE}",
        p["portfolio_id"],
    )
    s.say(
        "{me}. How is my portfolio doing overall?",
        "{me}: what am I holding right now and what's it worth?",
        "{me}. Give me a rundown of my positions and cash, please.",
        minimal=["{me}: how are my investments?"],
        me=who(s, p),
    )
    pid = find_me(s, p)
    held = s.call("get_portfolio", portfolio_id=pid)
    if pos["symbol"] not in [x["symbol"] for x in held["positions"]]:
        raise Skip("the position is gone")
    s.say(
        "What's {co} trading at right now, and where are the bid and ask?",
        "Pull up a live quote on my {co} shares.",
        "How is {co} moving today?",
        co=short_name(pos["name"]),
    )
    s.call("get_quote", symbol=pos["symbol"])
    s.memory["symbol"] = pos["symbol"]


@trading.intent(covers=("list_portfolios", "list_orders", "get_order"))
def order_history(s: Scene) -> None:
    """An investor looks back at their orders in one stock and at the fills of the latest one."""
    p = me(s, "portfolio_id IN (SELECT portfolio_id FROM orders WHERE status IN ('filled', 'partially_filled'))")
    o = s.pick(
        "SELECT o.symbol, s.name FROM orders o JOIN symbols s USING (symbol) WHERE o.portfolio_id = ? "
        "AND o.status IN ('filled', 'partially_filled')",
        p["portfolio_id"],
    )
    co = short_name(o["name"])
    s.say(
        "{me}. What orders have I placed on {co}?",
        "{me}: show me my trading history in {co}.",
        "{me}. List everything I've ordered in {co}, please.",
        minimal=["{me}: my {co} orders?"],
        me=who(s, p),
        co=co,
    )
    pid = find_me(s, p)
    orders = s.call("list_orders", portfolio_id=pid, symbol=o["symbol"])["orders"]
    if len(o["symbol"]) >= 3:
        s.memory["symbol"] = o["symbol"]
    filled = [x for x in orders if x["status"] in ("filled", "partially_filled")]
    if not filled:
        raise Skip("no fill on the first page")
    s.say(
        "What price did I actually get on the latest one that went through?",
        "Show me the fills of the most recent executed one.",
        "Break down how the last filled one executed.",
    )
    s.call("get_order", order_id=filled[0]["order_id"])


# Trading ----------------------------------------------------------------------------------------


@trading.intent(covers=("list_portfolios", "search_symbols", "get_quote", "place_order", "get_order"), weight=2.0)
def buy_at_market(s: Scene) -> None:
    """An investor checks the price of a stock and buys some shares at market."""
    p = me(
        s, f"status = 'active' AND portfolio_id IN (SELECT p.portfolio_id FROM portfolios p WHERE {AVAILABLE} > 1500)"
    )
    room = s.value(f"SELECT {AVAILABLE} FROM portfolios p WHERE p.portfolio_id = ?", p["portfolio_id"])
    sym = s.pick(f"SELECT * FROM symbols WHERE last_price * 1.1 < ? AND {LINKABLE}", room)
    ask = best_ask(s, sym["symbol"], p["portfolio_id"])
    fits = [q for q in (1, 2, 3, 5, 10, 15, 20, 25, 40, 50, 100) if q * ask * 1.05 < room]
    qty = s.rng.choice(fits[-4:])
    words, lookup = stock(s, sym)
    n = s.given(qty, f"{qty} shares", "quantity", "place_order", "quantity")
    cap = round(ask * 1.02, 2) if s.level == "complete" and s.rng.random() < 0.35 else None
    if cap is not None:
        s.say(
            "{me}. Buy[ {n} of] {co}, but don't pay more than {cap} a share.",
            "{me}: I want {co}[, {n}], with a limit of {cap}.",
            "{me}. Get me[ {n} of] {co} as long as it's {cap} or less.",
            me=who(s, p),
            co=words,
            n=n,
            cap=money(cap),
        )
    else:
        s.say(
            "{me}. What's {co} at right now? I want to buy[ {n}] at market.",
            "{me}: pick me up[ {n} of] {co} at whatever the market price is.",
            "{me}. Get me into {co}[, {n}], market order, after you check the price.",
            minimal=["{me}: buy {co}[, {n}]."],
            me=who(s, p),
            co=words,
            n=n,
        )
    pid = find_me(s, p)
    sym_id = ticker(s, sym, lookup, words)
    if cap is None:
        s.call("get_quote", symbol=sym_id)
        order = s.call("place_order", portfolio_id=pid, symbol=sym_id, side="buy", quantity=qty)
    else:
        order = s.call(
            "place_order", portfolio_id=pid, symbol=sym_id, side="buy", quantity=qty, type="limit", limit_price=cap
        )
    if s.room():
        s.say("What did I end up paying per share?", "How did that fill?", "Show me the fills on that order.")
        s.call("get_order", order_id=order["order_id"])
    s.memory["symbol"] = sym_id


@trading.intent(covers=("list_portfolios", "get_portfolio", "place_order", "get_order"), weight=1.5)
def trim_position(s: Scene) -> None:
    """An investor sells part (or all) of a holding at market."""
    p = me(s, "status = 'active' AND portfolio_id IN (SELECT portfolio_id FROM positions WHERE quantity >= 2)")
    pos = s.pick(
        "SELECT p.*, s.name FROM positions p JOIN symbols s USING (symbol) WHERE p.portfolio_id = ? "
        "AND p.quantity >= 2 AND p.quantity - COALESCE((SELECT SUM(o.quantity - o.filled_quantity) FROM "
        "orders o WHERE o.portfolio_id = p.portfolio_id AND o.symbol = p.symbol AND o.side = 'sell' AND "
        "o.status IN ('open', 'partially_filled')), 0) >= 2",
        p["portfolio_id"],
    )
    share, words = s.rng.choice(((0.5, "half of my"), (1.0, "all my"), (0.25, "a quarter of my")))
    co = short_name(pos["name"])
    s.say(
        "{me}. Sell {part} {co} shares at market.",
        "{me}: I want out of {part} {co} position, sell at market.",
        "{me}. Dump {part} {co} stock, current price is fine.",
        minimal=["{me}: cash out {part} {co}."],
        me=who(s, p),
        part=words,
        co=co,
    )
    pid = find_me(s, p)
    held = s.call("get_portfolio", portfolio_id=pid)
    mine = [x for x in held["positions"] if x["symbol"] == pos["symbol"]]
    if not mine:
        raise Skip("the position is gone")
    qty = max(1, int(mine[0]["available"] * share))
    order = s.call("place_order", portfolio_id=pid, symbol=pos["symbol"], side="sell", quantity=qty)
    if len(pos["symbol"]) >= 3:
        s.memory["symbol"] = pos["symbol"]
    s.say("What did that bring in per share?", "How much did I get for them?", "Show me how the sale executed.")
    s.call("get_order", order_id=order["order_id"])


@trading.intent(covers=("list_portfolios", "search_symbols", "place_order", "cancel_order", "list_orders"), weight=1.5)
def bid_then_pull(s: Scene) -> None:
    """An investor rests a limit buy below the market, then changes their mind and pulls it."""
    p = me(
        s, f"status = 'active' AND portfolio_id IN (SELECT p.portfolio_id FROM portfolios p WHERE {AVAILABLE} > 1000)"
    )
    room = s.value(f"SELECT {AVAILABLE} FROM portfolios p WHERE p.portfolio_id = ?", p["portfolio_id"])
    sym = s.pick(f"SELECT * FROM symbols WHERE last_price < ? AND {LINKABLE}", room / 3)
    price = round(sym["last_price"] * s.rng.choice((0.9, 0.92, 0.95)), 0 if sym["last_price"] > 50 else 2)
    qty = max(1, min(int(room * 0.5 // price), s.rng.choice((5, 10, 20, 50))))
    words, lookup = stock(s, sym)
    at = money(price)
    n = s.given(qty, str(qty), "quantity", "place_order", "quantity")
    s.say(
        "{me}. Put in a bid for[ {n} shares of] {co} at {at}, good until cancelled.",
        "{me}: I'd like[ {n}] {co} if it drops to {at}; leave the order resting.",
        "{me}. Set a buy limit on {co}[ for {n} shares] at {at}.",
        minimal=["{me}: {co} at {at}[, {n} shares]."],
        me=who(s, p),
        co=words,
        at=at,
        n=n,
    )
    pid = find_me(s, p)
    sym_id = ticker(s, sym, lookup, words)
    order = s.call(
        "place_order", portfolio_id=pid, symbol=sym_id, side="buy", quantity=qty, type="limit", limit_price=price
    )
    if order["status"] != "open":
        raise Skip("the bid crossed the book")
    s.memory["symbol"] = sym_id
    if s.rng.random() < 0.5:
        s.say(
            "Actually, forget it, pull that order.",
            "Changed my mind: cancel that bid.",
            "Scrap it, I don't want it sitting there.",
        )
        s.call("cancel_order", order_id=order["order_id"])
    else:
        s.say(
            "What else do I have waiting in the market?",
            "Which of my orders are still open now?",
            "List my working orders, please.",
        )
        s.call("list_orders", portfolio_id=pid, status="open")


@trading.intent(covers=("list_portfolios", "list_orders", "cancel_order", "get_portfolio"), weight=1.5)
def pull_resting_order(s: Scene) -> None:
    """An investor cancels a resting limit order they placed earlier and checks what it freed up."""
    p = me(s, "status = 'active' AND portfolio_id IN (SELECT portfolio_id FROM orders WHERE status = 'open')")
    o = s.pick(
        "SELECT o.*, s.name FROM orders o JOIN symbols s USING (symbol) WHERE o.portfolio_id = ? AND o.status = 'open'",
        p["portfolio_id"],
    )
    side = "bid" if o["side"] == "buy" else "offer"
    what = s.refer(
        o["order_id"],
        Ref(
            "my open {side} on {co}",
            "SELECT order_id FROM orders WHERE portfolio_id = ? AND symbol = ? AND side = ? AND status = 'open'",
            p["portfolio_id"],
            o["symbol"],
            o["side"],
        ),
        Ref(
            "my {side} for {n} {co} at {at}",
            "SELECT order_id FROM orders WHERE portfolio_id = ? AND "
            "symbol = ? AND side = ? AND status = 'open' AND quantity = ? AND limit_price = ?",
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
    s.say(
        "{me}. Please cancel {what}.",
        "{me}: pull {what}, I don't want it anymore.",
        "{me}. Take {what} out of the market.",
        minimal=["{me}: kill {what}."],
        me=who(s, p),
        what=what,
    )
    pid = find_me(s, p)
    found = s.call("list_orders", portfolio_id=pid, symbol=o["symbol"], status="open")["orders"]
    if o["order_id"] not in [x["order_id"] for x in found]:
        raise Skip("the order is not listed")
    s.call("cancel_order", order_id=o["order_id"])
    if len(o["symbol"]) >= 3:
        s.memory["symbol"] = o["symbol"]
    if s.rng.random() < 0.4:
        return
    s.say(
        "How much cash do I have free now?",
        "What's my buying power after that?",
        "So what's available to trade with now?",
    )
    s.call("get_portfolio", portfolio_id=pid)


@trading.intent(covers=("list_portfolios", "deposit_cash", "withdraw_cash", "get_portfolio"), weight=1.5)
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
    if out:
        s.say(
            "{me}. I need[ {much}] of my cash sent back to me.",
            "{me}: take[ {much}] out of my uninvested cash.",
            "{me}. Please pull[ {much}] out of the account.",
            minimal=["{me}: I want[ {much}] out."],
            me=who(s, p),
            much=much,
        )
    else:
        s.say(
            "{me}. I'm adding[ {much}] to my account.",
            "{me}: top up my cash by[ {much}], please.",
            "{me}. Put[ {much}] in so I have more to invest.",
            minimal=["{me}: fund it[ with {much}]."],
            me=who(s, p),
            much=much,
        )
    pid = find_me(s, p)
    s.call(tool, portfolio_id=pid, amount=amount)
    if s.rng.random() < 0.4:
        return  # a follow-up turn may carry on
    s.say(
        "What's my total value and free cash now?",
        "So where does my account stand now?",
        "How much can I invest at this point?",
    )
    s.call("get_portfolio", portfolio_id=pid)


# The market watcher -----------------------------------------------------------------------------


@trading.intent(covers=("search_symbols", "get_price_history", "get_quote"), weight=1.5)
def how_has_it_done(s: Scene) -> None:
    """Someone looks at how a company's stock traded lately, then at its live quote."""
    sym = s.pick(f"SELECT * FROM symbols WHERE {LINKABLE}")
    co = short_name(sym["name"])
    weeks = s.rng.choice((2, 3, 4, 6))
    since = (s.now - timedelta(weeks=weeks)).strftime("%Y-%m-%d")
    s.say(
        "How has {co} stock done over the last {w} weeks?",
        "Show me {co}'s daily prices since {when}.",
        "I'm curious about {co}: what has it traded at since {when}?",
        minimal=["{co} lately?"],
        co=co,
        w=weeks,
        when=day(since, s.now).removeprefix("on "),
    )
    found = s.find(
        "search_symbols", "symbols", "symbol", sym["symbol"], missing="the company is not found by its name", query=co
    )
    s.call("get_price_history", symbol=found["symbol"], **({} if s.minimal else {"since": since}))
    s.say("And where is it right now?", "What's it at today?", "OK, and the live price?")
    s.call("get_quote", symbol=found["symbol"])


@trading.intent(covers=("get_order_book", "get_order"))
def book_depth(s: Scene) -> None:
    """A trader looks at the depth of the book on a ticker and at the oldest order at the best price."""
    sym = s.pick("SELECT symbol FROM symbols")
    depth = s.rng.choice((3, 5, 10))
    side, words = s.rng.choice((("asks", "ask"), ("bids", "bid")))
    s.say(
        "Show me the top {d} levels of the {t} book.",
        "How deep is {t} right now, {d} levels a side?",
        "What does the {t} order book look like, {d} levels?",
        minimal=["{t} book?"],
        t=sym["symbol"],
        d=depth,
    )
    book = s.call("get_order_book", symbol=sym["symbol"], **({} if s.minimal else {"depth": depth}))
    if not book[side]:
        raise Skip("that side of the book is empty")
    s.say(
        "Who's first in line at the best {w}?",
        "Show me the order at the front of the best {w}.",
        "Details on the first order at the top {w}, please.",
        w=words,
    )
    s.call("get_order", order_id=book[side][0]["order_ids"][0])


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
    s.call("search_symbols", sector=sector, **({"exchange": exchange} if exchange else {}))


# Follow-ups: a short next turn about the portfolio or stock the dialogue is already about -------------


def my_portfolio(s: Scene) -> str:
    known = s.memory.get("portfolio")
    if not known:
        raise Skip("no portfolio in the dialogue yet")
    return str(known["portfolio_id"])


@trading.intent(covers=("get_portfolio",), follows=True, opens=False, weight=1.5)
def where_i_stand(s: Scene) -> None:
    """The investor asks for their cash and positions after what they just did."""
    pid = my_portfolio(s)
    if [c.tool for c in s.calls][-1:] == ["get_portfolio"]:
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


@trading.intent(covers=("get_quote",), follows=True, opens=False)
def price_now(s: Scene) -> None:
    """The investor asks for the live price of the stock the dialogue is about."""
    sym = s.memory.get("symbol")
    if not sym:
        raise Skip("no stock in the dialogue yet")
    s.asked("get_quote", symbol=sym)
    s.say("Where's {t} trading now?", "What's the bid and ask on {t} at the moment?", "And {t} right now?", t=sym)
    s.call("get_quote", symbol=sym)


@trading.intent(covers=("get_price_history",), follows=True, opens=False)
def last_few_days(s: Scene) -> None:
    """The investor asks how the stock moved over the last few sessions."""
    sym = s.memory.get("symbol")
    if not sym:
        raise Skip("no stock in the dialogue yet")
    n = s.rng.choice((5, 10))
    s.say("How has {t} moved over the last {n} trading days?", "Show me {t}'s last {n} daily closes.", t=sym, n=n)
    s.call("get_price_history", symbol=sym, limit=n)
