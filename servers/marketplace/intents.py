"""What people want of the marketplace: buyers bidding and making offers, sellers listing, taking
offers and ending auctions, browsers watching what ends soon.

People say who they are (their name) and name listings by their title ("my 'Leica M6 - Clean'",
"the 'Espresso Machine - Rare' that Ana is selling"). The agent finds user ids with
``search_users``, listings with ``search_listings`` (by title, seller, type) and offers with
``list_offers``.
"""

from __future__ import annotations

import math
from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub import fake
from hub.synth.intent import Ref, Scene, Skip, money
from servers.marketplace.tools import marketplace

ACTIVE = "SELECT user_id, name, city, role FROM users WHERE status = 'active'"
LISTING = "SELECT l.*, u.name AS seller FROM listings l JOIN users u ON u.user_id = l.seller_id"
TOP = "(SELECT MAX(amount) FROM bids b WHERE b.listing_id = l.listing_id)"
NEW_ITEMS = (
    ("Canon AE-1 Program - Clean", "Cameras", 180.0),
    ("Vintage Road Bike - 56cm", "Sporting Goods", 240.0),
    ("Signed First Edition Novel", "Books & Media", 95.0),
    ("Mid-Century Desk Lamp", "Home & Garden", 60.0),
    ("Yamaha Acoustic Guitar FG800", "Musical Instruments", 150.0),
    ("LEGO Castle Set 10305", "Toys & Hobbies", 320.0),
    ("Nintendo Switch OLED", "Electronics", 260.0),
    ("Leather Weekender Bag", "Fashion", 120.0),
)


def me(s: Scene, where: str, *params: Any) -> dict[str, Any]:
    u = s.pick(ACTIVE + " AND name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1) AND " + where, *params)
    s.be(u["name"])
    return u


def find_user(s: Scene, u: dict[str, Any]) -> str:
    hit = s.find(
        "search_users", "users", "user_id", u["user_id"], missing="the user is not found by name", query=u["name"]
    )
    return str(hit["user_id"])


def listing_ref(s: Scene, item: dict[str, Any], own: bool = False) -> str:
    """A listing by its title, then by title and seller (a seller's own: by title among theirs)."""
    if own:
        return s.refer(
            item["listing_id"],
            Ref(
                "my '{title}'",
                "SELECT listing_id FROM listings WHERE seller_id = ? AND title = ? AND status = 'active'",
                item["seller_id"],
                item["title"],
            ),
            title=item["title"],
        )
    return s.refer(
        item["listing_id"],
        Ref("the '{title}'", "SELECT listing_id FROM listings WHERE title = ? AND status = 'active'", item["title"]),
        Ref(
            "the '{title}' {seller} is selling",
            "SELECT l.listing_id FROM listings l JOIN users u "
            "ON u.user_id = l.seller_id WHERE l.title = ? AND u.name = ? AND l.status = 'active'",
            item["title"],
            item["seller"],
        ),
        title=item["title"],
        seller=item["seller"],
    )


def find_listing(s: Scene, item: dict[str, Any], **filters: Any) -> str:
    found = s.find(
        "search_listings",
        "listings",
        "listing_id",
        item["listing_id"],
        missing="the listing is not on the first page",
        query=item["title"],
        **filters,
    )
    return str(found["listing_id"])


def as_seller(s: Scene, item: dict[str, Any]) -> str:
    """The item's seller talks (the persona becomes them): how they name their own item."""
    s.be(item["seller"])
    return listing_ref(s, item, own=True)


def find_own_listing(s: Scene, item: dict[str, Any]) -> tuple[str, str]:
    """The seller's user id (a search by their name), then their item's listing id (a search among theirs)."""
    uid = find_user(s, {"user_id": item["seller_id"], "name": item["seller"]})
    return uid, find_listing(s, item, seller_id=uid)


@marketplace.intent(covers=("search_users", "search_listings", "get_listing", "place_bid"), weight=1.5)
def bid(s: Scene) -> None:
    """A buyer checks what it takes to lead an auction, then bids."""
    now = fake.iso(s.now)
    item = s.pick(LISTING + " WHERE l.listing_type = 'auction' AND l.status = 'active' AND l.ends_at > ?", now)
    u = me(
        s,
        "user_id != ? AND user_id NOT IN (SELECT bidder_id FROM bids WHERE listing_id = ? AND amount = "
        "(SELECT MAX(amount) FROM bids WHERE listing_id = ?))",
        item["seller_id"],
        item["listing_id"],
        item["listing_id"],
    )
    top = s.value("SELECT MAX(amount) FROM bids WHERE listing_id = ?", item["listing_id"])
    floor = top + item["min_increment"] if top is not None else item["price"]
    amount = float(math.ceil((floor + s.rng.choice((0, 0, 5, 10, 25))) / 5) * 5)
    what = listing_ref(s, item)
    s.say(
        "I'm {me} and I want {what}. What would I have to bid to lead?",
        "{me} here. How much does it take to be on top for {what}?",
        "This is {me}: what's the lowest I can offer in the auction for {what}?",
        minimal=["I'm {me}; I'd like to win {what}."],
        me=u["name"],
        what=what,
    )
    uid = find_user(s, u)
    lid = find_listing(s, item, listing_type="auction")
    view = s.call("get_listing", listing_id=lid)
    if view["min_next_bid"] > amount:
        raise Skip("the floor moved")
    price = s.given(amount, money(amount), "amount", "place_bid", "amount")
    s.say("OK, put in {price} for me.", "Bid {price} then.", "Go ahead with {price}.", price=price)
    s.call("place_bid", listing_id=lid, bidder_id=uid, amount=price)


@marketplace.intent(covers=("search_users", "search_listings", "make_offer", "list_offers"), weight=1.5)
def offer(s: Scene) -> None:
    """A buyer makes an offer below the asking price of a fixed-price item."""
    item = s.pick(
        LISTING + " WHERE l.listing_type = 'fixed_price' AND l.status = 'active' AND l.ends_at > ?", fake.iso(s.now)
    )
    u = me(
        s,
        "user_id != ? AND user_id NOT IN (SELECT buyer_id FROM offers WHERE listing_id = ? AND status = 'pending')",
        item["seller_id"],
        item["listing_id"],
    )
    amount = float(round(item["price"] * s.rng.choice((0.6, 0.7, 0.8, 0.9)) / 5) * 5)
    if amount < item["price"] / 2:
        raise Skip("too low")
    price = s.given(amount, money(amount), "amount", "make_offer", "amount")
    what = listing_ref(s, item)
    s.say(
        "I'm {me}. {What} is listed at {ask}; tell the seller I'd pay[ {price}].",
        "{me} here: I'd like to haggle on {what}[, would they take {price}]?",
        "This is {me}. Send an offer for {what}[ of {price}] please.",
        minimal=["I'm {me}; I want {what} but cheaper[, {price}]."],
        me=u["name"],
        what=what,
        What=what[:1].upper() + what[1:],
        ask=money(item["price"]),
        price=price,
    )
    uid = find_user(s, u)
    lid = find_listing(s, item, listing_type="fixed_price")
    s.call("make_offer", listing_id=lid, buyer_id=uid, amount=price)
    if s.room():
        s.say(
            "What other offers do I have waiting?",
            "Which of my offers are still open?",
            "Anything else I offered on that hasn't been answered?",
        )
        s.call("list_offers", buyer_id=uid, status="pending")


@marketplace.intent(covers=("search_users", "search_listings", "list_offers", "accept_offer", "get_user"), weight=1.5)
def take_best_offer(s: Scene) -> None:
    """A seller takes the highest pending offer on one of their fixed-price items."""
    item = s.pick(
        LISTING + " WHERE l.listing_type = 'fixed_price' AND l.status = 'active' AND u.status = 'active' "
        "AND u.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1) AND EXISTS (SELECT 1 FROM "
        "offers o JOIN users b ON b.user_id = o.buyer_id WHERE o.listing_id = l.listing_id AND "
        "o.status = 'pending' AND b.status = 'active')"
    )
    offers = s.rows(
        "SELECT o.offer_id, o.amount, b.status FROM offers o JOIN users b ON b.user_id = o.buyer_id "
        "WHERE o.listing_id = ? AND o.status = 'pending' ORDER BY o.amount DESC",
        item["listing_id"],
    )
    if offers[0]["status"] != "active" or (len(offers) > 1 and offers[0]["amount"] == offers[1]["amount"]):
        raise Skip("no clear best offer")
    what = as_seller(s, item)
    s.say(
        "I'm {me}. Who's offered what for {what}? I'll take the best one.",
        "{me} here: sell {what} to whoever offered the most.",
        "This is {me}. Accept the highest offer on {what}, please.",
        minimal=["I'm {me}; just sell {what} to the best offer."],
        me=item["seller"],
        what=what,
    )
    uid, lid = find_own_listing(s, item)
    pending = s.call("list_offers", listing_id=lid, status="pending")["offers"]
    best = max(pending, key=lambda o: o["amount"])
    sold = s.call("accept_offer", offer_id=best["offer_id"], seller_id=uid)
    if s.rng.random() < 0.5:
        s.say(
            "Who's the buyer, and where do I ship it?",
            "Who bought it? I need their city.",
            "Tell me about the buyer: name, city, rating.",
        )
        s.call("get_user", user_id=sold["buyer_id"])
    else:
        s.say(
            "What else of mine is still up for sale?",
            "Which of my other listings are still live?",
            "What do I have left on the market?",
        )
        s.call("search_listings", seller_id=uid)


@marketplace.intent(covers=("search_users", "create_listing", "update_listing"), weight=1.5)
def sell(s: Scene) -> None:
    """A seller puts a new item up, then adjusts the price or runs it longer."""
    u = me(
        s,
        "role = 'seller' AND (SELECT COUNT(*) FROM listings l WHERE l.seller_id = users.user_id "
        "AND l.status = 'active') < 50",
    )
    title, category, base = s.rng.choice(NEW_ITEMS)
    if s.rows("SELECT 1 FROM listings WHERE seller_id = ? AND title = ?", u["user_id"], title):
        raise Skip("already listed")
    auction = s.rng.random() < 0.4
    price = float(round(base * s.rng.uniform(0.8, 1.2)))
    name = s.given(title, f"'{title}'", "title", "create_listing", "title")
    how = "an auction starting at {p}" if auction else "a fixed price of {p}"
    s.say(
        "I'm {me}. Put my {cat} item up for sale[, titled {name}], as " + how + ".",
        "{me} here: list something for me in {cat}[ called {name}], " + how + ".",
        "This is {me}. I'd like to sell an item in {cat}[: {name}], " + how + ".",
        minimal=["I'm {me}; I want to sell something[, {name}], " + how + "."],
        me=u["name"],
        cat=category,
        name=name,
        p=money(price),
    )
    uid = find_user(s, u)
    args: dict[str, Any] = {"seller_id": uid, "title": name, "category": category, "price": price}
    if auction:
        args["listing_type"] = "auction"
    out = s.call("create_listing", **args)
    if s.rng.random() < 0.5 and not auction:
        lower = float(round(price * 0.9))
        s.say(
            "Hmm, make it {p} instead.",
            "Actually lower the price to {p}.",
            "Let's ask {p} for it instead.",
            p=money(lower),
        )
        s.call("update_listing", listing_id=out["listing_id"], seller_id=uid, price=lower)
    else:
        days = s.rng.choice((3, 7, 14))
        s.say("Let it run {d} days longer than usual.", "Give it an extra {d} days.", "Extend it by {d} days.", d=days)
        s.call("update_listing", listing_id=out["listing_id"], seller_id=uid, extend_days=days)


@marketplace.intent(covers=("search_users", "search_listings", "close_listing", "get_user"))
def end_early(s: Scene) -> None:
    """A seller ends an auction early (selling to the top bidder when the reserve is met) and asks who won."""
    item = s.pick(
        LISTING + f" WHERE l.listing_type = 'auction' AND l.status = 'active' AND u.status = 'active' "
        "AND u.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1) AND "
        f"{TOP} IS NOT NULL AND (l.reserve_price IS NULL OR {TOP} >= l.reserve_price)"
    )
    what = as_seller(s, item)
    s.say(
        "I'm {me}. I'm happy with the bids on {what}; end it now.",
        "{me} here: close the auction for {what} early, I'll sell.",
        "This is {me}. Stop {what} now and let the top bidder have it.",
        minimal=["I'm {me}; wrap up {what} now."],
        me=item["seller"],
        what=what,
    )
    uid, lid = find_own_listing(s, item)
    out = s.call("close_listing", listing_id=lid, seller_id=uid)
    if out["buyer_id"] is None:
        raise Skip("not sold")
    s.say(
        "Who won it, and where are they based?",
        "Who's the buyer? I need to know where to ship.",
        "Tell me about the winner: name, city, rating.",
    )
    s.call("get_user", user_id=out["buyer_id"])


@marketplace.intent(covers=("search_listings", "list_bids", "get_user"))
def ending_soon(s: Scene) -> None:
    """A bargain hunter looks at auctions ending soon in a category, then at who leads one of them."""
    row = s.pick(
        "SELECT category FROM listings l WHERE listing_type = 'auction' AND status = 'active' AND ends_at > ? "
        "AND ends_at <= ? AND EXISTS (SELECT 1 FROM bids b WHERE b.listing_id = l.listing_id) "
        "GROUP BY category",
        fake.iso(s.now),
        fake.iso(s.now + timedelta(hours=72)),
    )
    hours = 72
    s.say(
        "Which {cat} auctions wrap up in the next three days?",
        "Show me {cat} auctions closing within 72 hours.",
        "Any {cat} auctions about to finish (next 3 days)?",
        minimal=["{cat} auctions ending soon?"],
        cat=row["category"],
    )
    found = [
        x
        for x in s.call("search_listings", category=row["category"], listing_type="auction", ending_within_hours=hours)[
            "listings"
        ]
        if x["bid_count"]
    ]
    pick = s.choose(found, itemgetter("title"), none="none with bids", alike="two with that title")
    s.say(
        "Who's leading on the '{t}'?",
        "Who is ahead on '{t}' and how good are their ratings?",
        "For '{t}': who has the top bid?",
        t=pick["title"],
    )
    bids = s.call("list_bids", listing_id=pick["listing_id"], limit=5)["bids"]
    s.call("get_user", user_id=bids[0]["bidder_id"])


@marketplace.intent(covers=("get_distinct_values", "search_listings"))
def category_mix(s: Scene) -> None:
    """An analyst looks at how listings spread over categories, then at the priciest live ones in one."""
    cat = s.pick("SELECT DISTINCT category FROM listings WHERE status = 'active'")["category"]
    s.say(
        "How do listings break down by category?",
        "Which categories have the most listings?",
        "Give me listing counts per category.",
        minimal=["Categories?"],
    )
    s.call("get_distinct_values", field="category")
    s.say(
        "What are the most expensive live ones in {cat}?",
        "Show me the priciest {cat} items up right now.",
        "Top-priced {cat} listings still open?",
        cat=cat,
    )
    s.call("search_listings", category=cat, sort="price_desc", limit=5)
