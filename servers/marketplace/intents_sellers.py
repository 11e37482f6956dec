"""Sellers looking back on the marketplace: relisting what did not sell, what they have sold, who bids on their
auctions. Openers that also continue a dialogue of the same seller (see ``intents``)."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.marketplace.intents import (
    LISTING,
    SPEAKER,
    TOP,
    UNIQUE_NAME,
    WORDS,
    as_seller,
    ask,
    find_own_listing,
    listed,
    me,
    own_item,
    remember,
    seller_of,
)
from servers.marketplace.tools import marketplace


@marketplace.intent(covers=("search_users", "search_listings", "create_listing"), follows=True)
def relist(s: Scene) -> None:
    """A seller puts an item that closed unsold back up, at the same or a lower price."""
    item = s.pick(
        LISTING
        + " WHERE l.status = 'closed' AND u.role = 'seller' AND "
        + ("u.user_id = ?" if s.memory.get("me") else f"u.status = 'active' AND u.{UNIQUE_NAME}")
        + " AND NOT EXISTS (SELECT 1 FROM listings x WHERE x.seller_id = l.seller_id AND x.title = l.title AND "
        "x.status = 'active')",
        *([s.memory["me"]["user_id"]] if s.memory.get("me") else []),
    )
    if (
        s.value(
            "SELECT COUNT(*) FROM listings WHERE seller_id = ? AND title = ? AND status = 'closed'",
            item["seller_id"],
            item["title"],
        )
        != 1
    ):
        raise Skip("closed more than once")
    u = me(s, "user_id = ?", item["seller_id"])
    cheaper = s.rng.random() < 0.5
    price = float(round(item["price"] * 0.85)) if cheaper else float(item["price"])
    uid = ask(s, u, WORDS.relist, t=item["title"], how=f" at {money(price)}" if cheaper else ", same price as before")
    old = listed(s, item, seller_id=uid, status="closed")
    args: dict[str, Any] = {"seller_id": uid, "title": old["title"], "category": old["category"], "price": price}
    if old["listing_type"] == "auction":
        args["listing_type"] = "auction"
    out = s.call("create_listing", **args)
    remember(s, out)


@marketplace.intent(covers=("search_users", "search_listings"), follows=True)
def my_sales(s: Scene) -> None:
    """A seller asks what they have sold (in a category, sometimes)."""
    u = me(s, "user_id IN (SELECT seller_id FROM listings WHERE status = 'sold')")
    s.asked("search_listings", seller_id=u["user_id"], status="sold")
    cat = None
    if s.rng.random() < 0.4:
        cat = s.pick("SELECT DISTINCT category FROM listings WHERE seller_id = ? AND status = 'sold'", u["user_id"])[
            "category"
        ]
    uid = ask(s, u, WORDS.my_sales, c=f" in {cat}" if cat else "")
    args: dict[str, Any] = {"seller_id": uid, "status": "sold", "sort": "newest"}
    if cat:
        args["category"] = cat
    out = s.call("search_listings", **args)["listings"]
    if out:
        remember(s, out[0])


@marketplace.intent(covers=("search_users", "search_listings", "list_bids", "get_listing"), follows=True)
def bids_on_mine(s: Scene) -> None:
    """A seller asks who is bidding on one of their auctions, or how it stands."""
    item = own_item(s, f"l.listing_type = 'auction' AND {TOP} IS NOT NULL")
    what = as_seller(s, item)
    history = s.rng.random() < 0.5
    s.asked("list_bids" if history else "get_listing", listing_id=item["listing_id"])
    s.say(
        "{me}Who's bidding on {what}?" if history else "{me}How is {what} doing? Reserve met yet?",
        "{me}Show me the bids on {what}." if history else "{me}Where does {what} stand: top bid, time left?",
        "{me}{Who has|Who's} bid on {what} {so far|yet}?" if history else "{me}{Any|Is there} action on {what} yet?",
        minimal=["{me}Any action on {what}?"],
        me=SPEAKER.who(s, seller_of(item)),
        what=what,
    )
    _, lid = find_own_listing(s, item)
    if history:
        s.call("list_bids", listing_id=lid, limit=10)
    else:
        s.call("get_listing", listing_id=lid)
