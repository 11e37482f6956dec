"""Short follow-ups on the marketplace: what a person asks right after a bid, an offer, a sale or a look around,
about the listing, the other person or themselves (``memory["listing"]``, ``memory["other"]``, ``memory["me"]``),
in one call."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hub.kit import fake
from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip, money
from servers.marketplace.intents import SPANS, WORDS
from servers.marketplace.tools import UserId, marketplace


def known(s: Scene, key: str) -> dict[str, Any]:
    found = s.memory.get(key)
    if not found:
        raise Skip(f"no {key} in the dialogue")
    return dict(found)


def listing_row(s: Scene) -> dict[str, Any]:
    item = known(s, "listing")
    return s.rows("SELECT * FROM listings WHERE listing_id = ?", item["listing_id"])[0]


@marketplace.intent(covers=("get_user",), follows=True, opens=False)
def about_them(s: Scene) -> None:
    """The user asks about the other person of the dialogue (a buyer, the winner, a bidder), or else about the
    seller of the listing of the dialogue."""
    other = s.memory.get("other")
    me = s.memory.get("me")
    if other and not any(c.tool == "get_user" and c.arguments.get("user_id") == other["user_id"] for c in s.calls):
        s.say(WORDS.about_them_other_party)
        s.call("get_user", user_id=other["user_id"])
        return
    item = known(s, "listing")
    if me and me["user_id"] == item["seller_id"]:
        raise Skip("their own")
    s.asked("get_user", user_id=item["seller_id"])
    s.say(WORDS.about_them)
    s.call("get_user", user_id=item["seller_id"])


@marketplace.intent(covers=("list_offers",), follows=True, opens=False)
def offers_on_mine(s: Scene) -> None:
    """The seller asks what offers their listing has (pending or all)."""
    me, item = known(s, "me"), known(s, "listing")
    if item["seller_id"] != me["user_id"] or item["listing_type"] != "fixed_price":
        raise Skip("not their fixed-price listing")
    s.asked("list_offers", listing_id=item["listing_id"])
    pending = s.rng.random() < 0.5
    if pending:
        s.say(WORDS.offers_on_mine)
        s.call("list_offers", listing_id=item["listing_id"], status="pending")
    else:
        s.say(WORDS.offers_on_mine_all)
        s.call("list_offers", listing_id=item["listing_id"])


@marketplace.intent(covers=("search_listings",), follows=True, opens=False, weight=1.5)
def more_from_seller(s: Scene) -> None:
    """The user asks what else the seller of the listing has up (their own, for a seller)."""
    item = known(s, "listing")
    me = s.memory.get("me")
    own = me is not None and me["user_id"] == item["seller_id"]
    s.asked("search_listings", seller_id=item["seller_id"])
    if own:
        s.say(WORDS.more_from_seller)
    else:
        s.say(WORDS.more_from_seller_theirs)
    s.call("search_listings", seller_id=item["seller_id"])


@marketplace.intent(covers=("search_listings",), follows=True, opens=False)
def similar_items(s: Scene) -> None:
    """The user asks for other live items of the same category and kind (under a budget, sometimes)."""
    item = known(s, "listing")
    s.asked("search_listings", category=item["category"])
    kind = "auctions" if item["listing_type"] == "auction" else "buy-it-now listings"
    if s.rng.random() < 0.5:
        s.say(WORDS.similar_items, c=item["category"], k=kind)
        s.call("search_listings", category=item["category"], listing_type=item["listing_type"], limit=10)
    else:
        cap = float(s.rng.choice((100, 250, 500)))
        s.say(WORDS.similar_items_under_cap, c=item["category"], cap=money(cap))
        s.call("search_listings", category=item["category"], max_price=cap, sort="price_asc", limit=10)


@marketplace.intent(covers=("update_listing",), follows=True, opens=False)
def adjust_mine(s: Scene) -> None:
    """The seller adjusts the listing of the dialogue: a lower price or more days (no bids on it)."""
    me = known(s, "me")
    row = listing_row(s)
    if row["seller_id"] != me["user_id"] or row["status"] != "active":
        raise Skip("not their live listing")
    if s.rows("SELECT 1 FROM bids WHERE listing_id = ?", row["listing_id"]):
        raise Skip("has bids")
    done = {k for c in s.calls if c.tool == "update_listing" for k in c.arguments}
    if s.rng.random() < 0.5:
        if "price" in done:
            raise Skip("repriced in this dialogue already")
        new = float(round(row["price"] * 0.9))
        if row["reserve_price"] is not None and new > row["reserve_price"]:
            raise Skip("above reserve")
        s.say(WORDS.adjust_mine, p=money(new))
        s.call("update_listing", listing_id=row["listing_id"], seller_id=me["user_id"], price=new)
    else:
        if "extend_days" in done:
            raise Skip("extended in this dialogue already")
        d = s.rng.choice((3, 7))
        s.say(WORDS.adjust_mine_extend, d=SPANS[d])
        s.call("update_listing", listing_id=row["listing_id"], seller_id=me["user_id"], extend_days=d)


def talking(s: Scene) -> dict[str, Any]:
    """The person talking: found earlier in the dialogue, or (when they only said their name) found now by it."""
    me = s.memory.get("me")
    if me:
        return dict(me)
    if not s.speaker:
        raise Skip("nobody said who they are")
    u = s.rows("SELECT user_id, name FROM users WHERE name = ? AND status = 'active'", s.speaker)
    if len(u) != 1:
        raise Skip("the name is not unique")
    hit = s.discover(UserId, u[0]["user_id"], missing="not found", query=s.speaker)
    s.memory["me"] = {"user_id": hit["user_id"], "name": hit["name"]}
    return {"user_id": hit["user_id"], "name": hit["name"]}


@marketplace.intent(covers=("search_users", "place_bid"), follows=True, opens=False)
def bid_on_it(s: Scene) -> None:
    """After looking at an auction, the user bids the minimum that leads."""
    row = listing_row(s)
    if row["listing_type"] != "auction" or row["status"] != "active" or row["ends_at"] <= fake.iso(s.now):
        raise Skip("not a live auction")
    user = s.memory.get("me") or {"user_id": s.value("SELECT user_id FROM users WHERE name = ?", s.speaker)}
    if row["seller_id"] == user["user_id"]:
        raise Skip("own")
    top = s.rows(
        "SELECT bidder_id, amount FROM bids WHERE listing_id = ? ORDER BY amount DESC, placed_at, bid_id LIMIT 1",
        row["listing_id"],
    )
    if top and top[0]["bidder_id"] == user["user_id"]:
        raise Skip("leads")
    amount = round(top[0]["amount"] + row["min_increment"], 2) if top else row["price"]
    s.say(WORDS.bid_on_it, p=money(amount))
    me = talking(s)
    s.call("place_bid", listing_id=row["listing_id"], bidder_id=me["user_id"], amount=amount)


def auction(s: Scene) -> dict[str, Any]:
    item = known(s, "listing")
    if item["listing_type"] != "auction":
        raise Skip("not an auction")
    return {"listing_id": item["listing_id"], "limit": 10}


def waiting(s: Scene) -> dict[str, Any]:
    me = known(s, "me")
    if not s.rows("SELECT 1 FROM offers WHERE buyer_id = ? AND status = 'pending'", me["user_id"]):
        raise Skip("none")
    return {"buyer_id": me["user_id"], "status": "pending"}


def own_fixed(s: Scene) -> dict[str, Any]:
    me, row = known(s, "me"), listing_row(s)
    if row["seller_id"] != me["user_id"] or row["status"] != "active" or row["listing_type"] != "fixed_price":
        raise Skip("not their live fixed-price listing")
    return {"listing_id": row["listing_id"], "seller_id": me["user_id"]}


SAME = ("listing_id", "user_id", "buyer_id")


def _call(args: Callable[[Scene], dict[str, Any]]) -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    """The call's arguments, read off the dialogue (``Skip`` when it holds nothing that fits); no slots."""
    return lambda s: (args(s), {})


FOLLOWS = (
    FollowUp(
        "where_it_stands",
        "The user asks how the listing of the dialogue stands now: price, bids, time left.",
        _call(lambda s: {"listing_id": known(s, "listing")["listing_id"]}),
        "get_listing",
        weight=1.5,
        asked=SAME,
    ),
    FollowUp(
        "bid_history",
        "The user asks for the bids on the auction of the dialogue.",
        _call(auction),
        "list_bids",
        asked=SAME,
    ),
    FollowUp(
        "my_account",
        "The user asks what they have going: their live listings, what they bought, what they lead.",
        _call(lambda s: {"user_id": known(s, "me")["user_id"]}),
        "get_user",
        asked=SAME,
    ),
    FollowUp(
        "my_waiting_offers",
        "The user asks which of their offers are still waiting for an answer.",
        _call(waiting),
        "list_offers",
        phrasings=WORDS.waiting_offers,
        weight=1.5,
        asked=("buyer_id",),
    ),
    FollowUp(
        "pull_it",
        "The seller ends the fixed-price listing of the dialogue after all.",
        _call(own_fixed),
        "close_listing",
        weight=0.7,
        asked=SAME,
    ),
)


# a read asked again on the same ``asked`` arguments is skipped
ROWS = [replace(r, asked=r.asked if marketplace.tools[r.tool].kind == "read" else False) for r in FOLLOWS]
follow_ups(marketplace, ROWS, WORDS)
