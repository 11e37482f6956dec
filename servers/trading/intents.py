"""What people want of their broker: an investor checking positions, buying and selling, minding orders and cash.

The investor gives their name (joint owners both names; with the kind of portfolio or their email
when the name is shared); the agent finds the portfolio with ``list_portfolios``. Stocks are named by
ticker ("NVDA") or by the company ("Nvidia"), which the agent looks up with ``search_symbols``.
Orders are named by what they do ("my open bid on Microsoft"), never by their id. A market watcher
asks about sectors, price history and the book.

Most intents open a dialogue and continue one: a continuation keeps the investor (``memory['portfolio']``)
and stays on the stock (``memory['symbol']``) or order (``memory['order']``) the dialogue is about. Short
follow-ups live in ``intents_followups``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day, money
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
FREE_SHARES = (
    "p.quantity - COALESCE((SELECT SUM(o.quantity - o.filled_quantity) FROM orders o WHERE o.portfolio_id = "
    "p.portfolio_id AND o.symbol = p.symbol AND o.side = 'sell' AND o.status IN ('open', 'partially_filled')), 0)"
)
LIVE = "status IN ('open', 'partially_filled')"


def short_name(name: str) -> str:
    """'Walt Disney Co.' -> 'Walt Disney', 'Meta Platforms Inc.' -> 'Meta': how people name a company."""
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return name[: -len(suffix)].rstrip(" ,&").removesuffix(" &")
    return name


def following(s: Scene) -> bool:
    """Whether this intent continues a dialogue (an earlier intent already ran)."""
    return len(s.intents) > 1


def seen(s: Scene, value: Any) -> bool:
    """Whether a result earlier in the dialogue carried ``value`` (the agent already holds it)."""
    quoted = json.dumps(value)
    return any(quoted in json.dumps(c.result) for c in s.calls)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The investor talking: the one an earlier turn established, else a fresh pick among all that fit."""
    known = s.recall(
        "portfolio", "portfolio_id", OWNER + f" AND portfolio_id = ? AND ({where})", *params, who="investor"
    )
    if known is not None:
        return known
    if following(s):
        raise Skip("a continuation keeps the investor of the dialogue")
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
    Returns the words and whether a lookup is needed (none once the dialogue showed the ticker)."""
    short = short_name(sym["name"])
    if s.rng.random() < 0.25:
        return sym["symbol"], False
    text = s.refer(sym["symbol"], Ref("{n}", "SELECT symbol FROM symbols WHERE name LIKE ?", short + "%"), n=short)
    return text, not seen(s, sym["symbol"])


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


def best_ask(s: Scene, symbol: str, portfolio_id: str) -> tuple[float, int]:
    """The best ask of others on ``symbol`` and the shares resting at it."""
    row = s.rows(
        "SELECT limit_price, SUM(quantity - filled_quantity) AS size FROM orders WHERE symbol = ? AND side = 'sell' "
        f"AND {LIVE} AND portfolio_id != ? GROUP BY limit_price ORDER BY limit_price LIMIT 1",
        symbol,
        portfolio_id,
    )
    if not row:
        raise Skip("no ask in the book")
    return float(row[0]["limit_price"]), int(row[0]["size"])


def best_bid_size(s: Scene, symbol: str, portfolio_id: str) -> int:
    """How many shares others bid for ``symbol`` in all (a market sell fills against them)."""
    return int(
        s.value(
            "SELECT COALESCE(SUM(quantity - filled_quantity), 0) FROM orders WHERE symbol = ? AND side = 'buy' "
            f"AND {LIVE} AND portfolio_id != ?",
            symbol,
            portfolio_id,
        )
    )


def dialogue_symbol(s: Scene) -> dict[str, Any] | None:
    """The stock the dialogue is about (a continuation), if any."""
    sym = s.memory.get("symbol")
    if not sym:
        return None
    return s.rows("SELECT * FROM symbols WHERE symbol = ?", sym)[0]


def remember_order(s: Scene, order: dict[str, Any]) -> None:
    s.memory["order"] = {k: order.get(k) for k in ("order_id", "symbol", "side", "type", "quantity", "limit_price")}
    if len(order["symbol"]) >= 3:
        s.memory["symbol"] = order["symbol"]


def lead(s: Scene, p: dict[str, Any]) -> str:
    """The opening words of a turn: who is talking on an opening turn, nothing on a continuation."""
    return "" if following(s) else who(s, p) + ". "


def investor_asks(
    s: Scene, p: dict[str, Any], intro: Callable[[Scene, dict[str, Any]], str], *phrasings: str, **slots: Any
) -> str:
    """A turn of the investor (``{me}`` filled by ``intro``: ``who`` or ``lead``) in one of ``phrasings``, then
    the discovery call for their portfolio: its id."""
    s.say(*phrasings, me=intro(s, p), **slots)
    return find_me(s, p)


# Looking ----------------------------------------------------------------------------------------


@trading.intent(covers=("list_portfolios", "get_portfolio", "get_quote"), weight=1.5)
def how_am_i_doing(s: Scene) -> None:
    """An investor checks their holdings (and maybe the live quote of one of them)."""
    p = me(s, "portfolio_id IN (SELECT portfolio_id FROM positions)")
    pid = investor_asks(
        s,
        p,
        who,
        "{me}. How is my portfolio doing overall?",
        "{me}: what am I holding right now and what's it worth?",
        "{me}. Give me a rundown of my positions and cash, please.",
        minimal=["{me}: how are my investments?"],
    )
    held = s.call("get_portfolio", portfolio_id=pid)
    if s.rng.random() < 0.6:
        return  # a follow-up may ask about one holding
    linkable = [x for x in held["positions"] if len(x["symbol"]) >= 3]
    if not linkable:
        raise Skip("no holding to ask about")
    pos = s.rng.choice(linkable)
    name = s.value("SELECT name FROM symbols WHERE symbol = ?", pos["symbol"])
    s.say(
        "What's {co} trading at right now, and where are the bid and ask?",
        "Pull up a live quote on my {co} shares.",
        "How is {co} moving today?",
        co=short_name(name),
    )
    s.call("get_quote", symbol=pos["symbol"])
    s.memory["symbol"] = pos["symbol"]


@trading.intent(covers=("list_portfolios", "list_orders", "get_order", "search_symbols"), follows=True)
def order_history(s: Scene) -> None:
    """An investor looks back at their orders in one stock and at the fills of the latest one."""
    p = me(s, "portfolio_id IN (SELECT portfolio_id FROM orders WHERE status IN ('filled', 'partially_filled'))")
    sym = dialogue_symbol(s) if following(s) else None
    if following(s) and sym is None:
        raise Skip("no stock in the dialogue")
    where = "AND o.symbol = ?" if sym else ""
    o = s.pick(
        "SELECT o.symbol, s.name FROM orders o JOIN symbols s USING (symbol) WHERE o.portfolio_id = ? "
        f"AND o.status IN ('filled', 'partially_filled') {where}",
        p["portfolio_id"],
        *([sym["symbol"]] if sym else []),
    )
    co = short_name(o["name"])
    if following(s):
        s.say(
            "What price did I get the last time an order of mine in {co} went through?",
            "When did I last trade {co}, and at what price?",
            "Show me how my latest executed {co} order filled.",
            co=co,
        )
    else:
        s.say(
            "{me}. What orders have I placed on {co}?",
            "{me}: show me my trading history in {co}.",
            "{me}. List everything I've ordered in {co}, please.",
            minimal=["{me}: my {co} orders?"],
            me=who(s, p),
            co=co,
        )
    pid = find_me(s, p)
    args: dict[str, Any] = {"portfolio_id": pid, "symbol": o["symbol"]}
    if following(s) and s.rng.random() < 0.5:
        args["status"] = "filled"
    orders = s.call("list_orders", **args)["orders"]
    if len(o["symbol"]) >= 3:
        s.memory["symbol"] = o["symbol"]
    filled = [x for x in orders if x["status"] in ("filled", "partially_filled")]
    if not filled:
        raise Skip("no fill on the first page")
    if not following(s):
        s.say(
            "What price did I actually get on the latest one that went through?",
            "Show me the fills of the most recent executed one.",
            "Break down how the last filled one executed.",
        )
    remember_order(s, s.call("get_order", order_id=filled[0]["order_id"]))


# Trading ----------------------------------------------------------------------------------------


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
        s.say(
            "Get me another {n} of it at market.",
            "Let's add {n} to that, market price is fine.",
            "Pick up another {n} at whatever it's trading at.",
            n=n,
        )
    elif cap is not None:
        s.say(
            "{me}Get me[ {n} of] {co}, but don't pay more than {cap} a share.",
            "{me}I want {co}[, {n}], capped at {cap} each.",
            "{me}Get me[ {n} of] {co} as long as it's {cap} or less.",
            me=lead(s, p),
            co=words,
            n=n,
            cap=money(cap),
        )
    elif how < 0.65:  # the investor wants to hear the price first
        s.say(
            "{me}What's {co} at right now? I want[ {n} of] it at market.",
            "{me}Get me into {co}[, {n}], market order, after you check the price.",
            "{me}Check where {co} is trading and pick[ {n} of] it up at market.",
            minimal=["{me}Price on {co}? I want[ {n} of] it."],
            me=lead(s, p),
            co=words,
            n=n,
        )
    elif how < 0.8:  # ... or to see how much is offered
        s.say(
            "{me}How much {co} is for sale near the top of the book? Grab[ {n} of] it at market if there's enough.",
            "{me}Look at who's offering {co}, then take[ {n} of] it at market.",
            "{me}Check the {co} offers first; if they're there, grab[ {n} of] it at market.",
            minimal=["{me}{co} offers? Take[ {n} of] it."],
            me=lead(s, p),
            co=words,
            n=n,
        )
    else:
        s.say(
            "{me}Pick me up[ {n} of] {co} at whatever the market price is.",
            "{me}Get me[ {n} of] {co} at market.",
            "{me}Put me into {co}[, {n}], market order.",
            minimal=["{me}I want {co}[, {n}]."],
            me=lead(s, p),
            co=words,
            n=n,
        )
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
        s.say(
            "{me}Offer {part} {co} shares at {at}; let it sit until someone takes it.",
            "{me}Put {part} {co} up for sale at {at} a share.",
            "{me}I'd let {part} {co} go at {at}. Leave the order resting.",
            minimal=["{me}Let {part} {co} go at {at}."],
            me=lead(s, p),
            part=words,
            co=co,
            at=money(price),
        )
    else:
        s.say(
            "{me}Unload {part} {co} shares at market.",
            "{me}I want out of {part} {co} position, at market.",
            "{me}Dump {part} {co} stock, current price is fine.",
            minimal=["{me}Cash out {part} {co}."],
            me=lead(s, p),
            part=words,
            co=co,
        )
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


def _fresh_holdings(s: Scene, pid: str) -> bool:
    """Whether the dialogue's latest call is a look at this portfolio (the agent knows what is free to sell)."""
    last = list(s.calls)[-1:]
    return bool(last) and last[0].tool == "get_portfolio" and last[0].arguments.get("portfolio_id") == pid


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
        s.say(
            "{me}Put in a bid for[ {n} of] {co} {pct}% under where it trades now.",
            "{me}I'd take[ {n} of] {co} if it dips {pct}% from here; leave the order resting.",
            "{me}Park a standing bid on {co}[ for {n}], {pct}% below the current price.",
            minimal=["{me}{co}, {pct}% lower[, {n}]."],
            me=lead(s, p),
            co=words,
            pct=round(100 * (1 - off)),
            n=n,
        )
    else:
        s.say(
            "{me}Put in a bid for[ {n} of] {co} at {at}, good until cancelled.",
            "{me}I'd like[ {n} of] {co} if it drops to {at}; leave the order resting.",
            "{me}Park a standing bid on {co}[ for {n}] at {at}.",
            minimal=["{me}{co} at {at}[, {n}]."],
            me=lead(s, p),
            co=words,
            at=money(price),
            n=n,
        )
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
    pid = investor_asks(
        s,
        p,
        lead,
        "{me}Please cancel {what}.",
        "{me}Pull {what}, I don't want it anymore.",
        "{me}Take {what} out of the market.",
        minimal=["{me}Kill {what}."],
        what=what,
    )
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
        s.say(
            "Actually, move that order to {at}.",
            "Hmm, make it {at} instead.",
            "Change the price on it to {at}, same number of shares.",
            at=money(price),
        )
    else:
        what = order_ref(s, p, o)
        s.say(
            "{me}Move {what} to {at}.",
            "{me}Change the price on {what}: {at} instead.",
            "{me}Reprice {what} at {at}, keep the size.",
            minimal=["{me}{What}: {at} now."],
            me=lead(s, p),
            what=what,
            What=what[:1].upper() + what[1:],
            at=money(price),
        )
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
    if following(s):
        s.say(
            "Also send {much} of the cash back to my bank." if out else "Also put another {much} into the account.",
            "While you're at it, take {much} out." if out else "While you're at it, top it up by {much}.",
            "And withdraw {much}, please." if out else "And add {much} in cash, please.",
            much=much,
        )
    elif out:
        s.say(
            "{me}. I need[ {much}] of my cash sent back to me.",
            "{me}: take some of my uninvested cash out[: {much}].",
            "{me}. Please pull[ {much}] out of the account.",
            minimal=["{me}: I want[ {much}] out."],
            me=who(s, p),
            much=much,
        )
    else:
        s.say(
            "{me}. I'm adding[ {much}] to my account.",
            "{me}: top up my cash[ by {much}], please.",
            "{me}. Put[ {much}] in so I have more to invest.",
            minimal=["{me}: fund it[ with {much}]."],
            me=who(s, p),
            much=much,
        )
    pid = find_me(s, p)
    s.call(tool, portfolio_id=pid, amount=amount)
    if following(s) or s.rng.random() < 0.6:
        return  # a follow-up turn may carry on
    s.say(
        "What's my total value and free cash now?",
        "So where does my account stand now?",
        "How much can I invest at this point?",
    )
    s.call("get_portfolio", portfolio_id=pid)


@trading.intent(covers=("list_portfolios", "get_portfolio", "withdraw_cash"), follows=True)
def take_out_free_cash(s: Scene) -> None:
    """An investor withdraws a share of whatever cash is free (the agent reads what is available first)."""
    p = me(s, "status = 'active'")
    share, words = s.rng.choice(((0.5, "half"), (0.25, "a quarter"), (0.1, "ten percent")))
    pid = investor_asks(
        s,
        p,
        lead,
        "{me}Send {part} of my free cash to my bank.",
        "{me}Withdraw {part} of whatever cash isn't tied up.",
        "{me}I'd like {part} of the uninvested cash out, please.",
        minimal=["{me}Take out {part} of my free cash."],
        part=words,
    )
    if _fresh_holdings(s, pid):
        raise Skip("the look at the account is the last call: a plain withdrawal")
    held = s.call("get_portfolio", portfolio_id=pid)
    amount = round(held["available_cash"] * share, 2)
    if amount < 10:
        raise Skip("too little free cash")
    s.call("withdraw_cash", portfolio_id=pid, amount=amount)


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
        sector = s.pick("SELECT sector FROM symbols GROUP BY sector HAVING COUNT(*) >= 3")["sector"]
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
