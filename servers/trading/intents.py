"""What people want of their broker: an investor checking positions, buying and selling, minding orders and cash.

The investor gives their name (joint owners both names; with the kind of portfolio or their email
when the name is shared); the agent finds the portfolio with ``list_portfolios``. Stocks are named by
ticker ("NVDA") or by the company ("Nvidia"), which the agent looks up with ``search_symbols``.
Orders are named by what they do ("my open bid on Microsoft"), never by their id. A market watcher
asks about sectors, price history and the book.

Most intents open a dialogue and continue one: a continuation keeps the investor (``memory['portfolio']``)
and stays on the stock (``memory['symbol']``) or order (``memory['order']``) the dialogue is about. The intents live
here (looking), in ``intents_trades``, ``intents_orders`` and ``intents_followups`` (short follow-ups and the
market watcher).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.trading.tools import PortfolioId, trading

WORDS = phrasings(__package__)

OWNER = (
    "SELECT portfolio_id, owner_name, email, kind, status, cash, CASE kind WHEN 'joint' THEN 'It''s ' || owner_name "
    "|| ' about our joint account' ELSE 'I''m ' || owner_name END AS hello, CASE kind WHEN 'individual' THEN "
    "'brokerage account' WHEN 'joint' THEN 'joint account' WHEN 'retirement' THEN 'retirement account' ELSE "
    "'account' END AS account FROM portfolios WHERE kind != 'market_maker'"
)
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


SPEAKER = Speaker(
    PortfolioId,
    select=OWNER,
    memory="portfolio",
    name="owner_name",
    says=(
        Says("{hello}", "owner_name"),
        Says("I'm {owner_name}, about my {account}", "owner_name", "kind"),
        Says("I'm {owner_name} ({email})", "email"),
    ),
    search=Search(by=("owner_name", "email"), missing="the portfolio is past the first page"),
)
BY_NAME = replace(SPEAKER, search=Search(by=("owner_name",), missing="the portfolio is past the first page"))


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The investor talking (``SPEAKER.me``); joint owners talk as one of them ("Ana & Ben Ruiz": Ana Ruiz)."""
    fresh = not s.memory.get("portfolio")
    p = SPEAKER.me(s, where, *params)
    if fresh and " & " in p["owner_name"]:
        s.be(p["owner_name"].split(" & ")[0] + " " + p["owner_name"].split()[-1])
    return p


def who(s: Scene, p: dict[str, Any]) -> str:
    """How the investor introduces themself (``SPEAKER.says``); some say which kind of account it is (and the
    agent filters on it)."""
    if p["kind"] == "retirement" and not SPEAKER.known(s, p) and s.rng.random() < 0.5:
        s.memory["said_kind"] = True
        sql = "SELECT portfolio_id FROM portfolios WHERE owner_name = ? AND kind = ?"
        return s.refer(p["portfolio_id"], Ref(SPEAKER.says[1].text, sql, p["owner_name"], p["kind"]), **p)
    return SPEAKER.who(s, p)


def find_me(s: Scene, p: dict[str, Any]) -> str:
    """The discovery call for the portfolio id (none once an earlier turn found it): by email where the name is
    shared, or by name (with the kind of account where the name is shared or the investor said it)."""
    shared = s.value("SELECT COUNT(*) FROM portfolios WHERE owner_name = ?", p["owner_name"]) > 1
    if shared and not SPEAKER.known(s, p) and s.rng.random() < 0.5:
        return SPEAKER.find(s, p)
    return BY_NAME.find(s, p, **({"kind": p["kind"]} if shared or s.memory.get("said_kind") else {}))


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
    """The opening words of a turn: who is talking on an opening turn, nothing once an earlier turn found them."""
    said = who(s, p)
    return f"{said}. " if said else ""


def _fresh_holdings(s: Scene, pid: str) -> bool:
    """Whether the dialogue's latest call is a look at this portfolio (the agent knows what is free to sell)."""
    last = list(s.calls)[-1:]
    return bool(last) and last[0].tool == "get_portfolio" and last[0].arguments.get("portfolio_id") == pid


def investor_asks(
    s: Scene, p: dict[str, Any], intro: Callable[[Scene, dict[str, Any]], str], *phrasings: Said, **slots: Any
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
    pid = investor_asks(s, p, who, WORDS.how_am_i_doing)
    held = s.call("get_portfolio", portfolio_id=pid)
    if s.rng.random() < 0.6:
        return  # a follow-up may ask about one holding
    linkable = [x for x in held["positions"] if len(x["symbol"]) >= 3]
    if not linkable:
        raise Skip("no holding to ask about")
    pos = s.rng.choice(linkable)
    name = s.value("SELECT name FROM symbols WHERE symbol = ?", pos["symbol"])
    s.say(WORDS.how_am_i_doing_then_quote, co=short_name(name))
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
        s.say(WORDS.order_history, co=co)
    else:
        s.say(WORDS.order_history_opening, me=who(s, p), co=co)
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
        s.say(WORDS.order_history_then_fills)
    remember_order(s, s.call("get_order", order_id=filled[0]["order_id"]))


# The market watcher: sectors ------------------------------------------------------------------


@trading.intent(covers=("get_distinct_values", "search_symbols"))
def sector_scan(s: Scene) -> None:
    """Someone browsing for ideas asks which sectors are listed, then for the stocks of one."""
    s.say(WORDS.sector_scan)
    sectors = sorted(s.call("get_distinct_values", field="sector")["values"])
    sector = s.rng.choice(sectors)
    exchange = s.rng.choice((None, None, "NYSE", "NASDAQ"))
    where = f" on the {exchange}" if exchange else ""
    s.say(WORDS.sector_scan_then_stocks, sec=sector, where=where)
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
        s.say(WORDS.sector_mover)
    else:
        sector = s.pick(  # a sector where some stocks gained today, so one of them can be the top gainer
            "SELECT sector FROM symbols GROUP BY sector HAVING COUNT(*) >= 3 AND "
            "SUM(last_price > prev_close AND length(symbol) >= 3) >= 2"
        )["sector"]
        s.say(WORDS.sector_mover_opening, sec=sector)
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
