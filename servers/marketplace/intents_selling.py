"""Sellers on the marketplace: taking the best (or a given) offer, listing something new, repricing, ending an
auction early, taking an item down.
"""

from __future__ import annotations

from typing import Any

from hub.kit import fake
from hub.kit.intent import Scene, Skip, money
from servers.marketplace.intents import (
    NEW_ITEMS,
    SPANS,
    SPEAKER,
    TOP,
    WORDS,
    as_seller,
    ask,
    find_own_listing,
    me,
    own_item,
    remember,
    sell_to,
    seller_asks,
    seller_of,
)
from servers.marketplace.tools import marketplace


@marketplace.intent(covers=("search_users", "search_listings", "list_offers", "accept_offer", "get_user"), weight=1.5)
def take_best_offer(s: Scene) -> None:
    """A seller takes the highest pending offer on one of their fixed-price items."""
    item = own_item(
        s,
        "l.listing_type = 'fixed_price' AND EXISTS (SELECT 1 FROM offers o WHERE o.listing_id = l.listing_id AND "
        "o.status = 'pending')",
    )
    offers = s.rows(
        "SELECT o.offer_id, o.amount, b.status FROM offers o JOIN users b ON b.user_id = o.buyer_id "
        "WHERE o.listing_id = ? AND o.status = 'pending' ORDER BY o.amount DESC",
        item["listing_id"],
    )
    if offers[0]["status"] != "active" or (len(offers) > 1 and offers[0]["amount"] == offers[1]["amount"]):
        raise Skip("no clear best offer")
    uid, lid = seller_asks(s, item, WORDS.take_best_offer)
    pending = s.call("list_offers", listing_id=lid, status="pending")["offers"]
    best = max(pending, key=lambda o: o["amount"])
    sold = sell_to(s, best["offer_id"], uid)
    if not s.room(1, 1) or s.rng.random() < 0.3:
        return
    if s.rng.random() < 0.5:
        s.say(WORDS.take_best_offer_then_buyer)
        s.call("get_user", user_id=sold["buyer_id"])
    else:
        s.say(WORDS.take_best_offer_then_my_items)
        s.call("search_listings", seller_id=uid)


@marketplace.intent(covers=("search_users", "search_listings", "list_offers", "accept_offer"))
def accept_this_offer(s: Scene) -> None:
    """A seller accepts the offer of a given amount on their item (not necessarily the best one)."""
    item = own_item(
        s,
        "l.listing_type = 'fixed_price' AND EXISTS (SELECT 1 FROM offers o JOIN users b ON b.user_id = o.buyer_id "
        "WHERE o.listing_id = l.listing_id AND o.status = 'pending' AND b.status = 'active')",
    )
    o = s.pick(
        "SELECT o.* FROM offers o JOIN users b ON b.user_id = o.buyer_id WHERE o.listing_id = ? AND "
        "o.status = 'pending' AND b.status = 'active'",
        item["listing_id"],
    )
    if (
        len(
            s.rows(
                "SELECT 1 FROM offers WHERE listing_id = ? AND status = 'pending' AND amount = ?",
                item["listing_id"],
                o["amount"],
            )
        )
        > 1
    ):
        raise Skip("two offers of that amount")
    uid, lid = seller_asks(s, item, WORDS.accept_this_offer, amt=money(o["amount"]))
    pending = s.call("list_offers", listing_id=lid, status="pending")["offers"]
    hit = [x for x in pending if x["offer_id"] == o["offer_id"]]
    if not hit:
        raise Skip("not listed")
    sell_to(s, hit[0]["offer_id"], uid)


@marketplace.intent(covers=("search_users", "create_listing", "update_listing"), weight=1.5, follows=True)
def sell(s: Scene) -> None:
    """A seller puts a new item up, then maybe adjusts the price or runs it longer."""
    u = me(
        s,
        "role = 'seller' AND (SELECT COUNT(*) FROM listings l WHERE l.seller_id = users.user_id "
        "AND l.status = 'active') < 50",
    )
    title, category, base, noun = s.rng.choice(NEW_ITEMS)
    if s.rows("SELECT 1 FROM listings WHERE seller_id = ? AND title = ?", u["user_id"], title):
        raise Skip("already listed")
    auction = s.rng.random() < 0.4
    price = float(round(base * s.rng.uniform(0.8, 1.2)))
    name = s.given(title, f"'{title}'", "title", "create_listing", "title")
    days = s.rng.choice((None, None, 3, 5, 10, 14))
    how = s.rng.choice(
        ("let people bid on it, starting at {p}", "bids starting from {p}")
        if auction
        else ("asking {p} flat", "buy-it-now at {p}")
    )
    span = f" for {SPANS[days]}" if days else ""
    uid = ask(
        s,
        u,
        "{me}Put my {noun} up for sale[, titled {name}]: " + how + "{span}.",
        "{me}List my {noun} for me[ as {name}], " + how + "{span}.",
        "{me}I'd like to sell my {noun}[: {name}], " + how + "{span}.",
        minimal=["{me}I want to sell my {noun}[, {name}], " + how + "{span}."],
        noun=noun,
        name=name,
        p=money(price),
        span=span,
    )
    args: dict[str, Any] = {"seller_id": uid, "title": name, "category": category, "price": price}
    if auction:
        args["listing_type"] = "auction"
    if days:
        args["duration_days"] = days
    out = s.call("create_listing", **args)
    remember(s, out)
    if not s.room(1, 1) or s.rng.random() < 0.3:
        return
    if s.rng.random() < 0.5:
        lower = float(round(price * 0.9))
        s.say(WORDS.sell, p=money(lower))
        s.call("update_listing", listing_id=out["listing_id"], seller_id=uid, price=lower)
    else:
        more = s.rng.choice((3, 7, 14))
        s.say(WORDS.sell_then_extend, d=SPANS[more])
        s.call("update_listing", listing_id=out["listing_id"], seller_id=uid, extend_days=more)


@marketplace.intent(covers=("search_users", "search_listings", "get_listing", "update_listing"), follows=True)
def reprice(s: Scene) -> None:
    """A seller changes the price of, extends, or retitles one of their live items (no bids yet)."""
    item = own_item(
        s, "NOT EXISTS (SELECT 1 FROM bids b WHERE b.listing_id = l.listing_id) AND l.ends_at > ?", fake.iso(s.now)
    )
    what = as_seller(s, item)
    change = s.rng.choice(("price", "price", "extend", "title"))
    args: dict[str, Any] = {}
    if change == "price":
        new = float(round(item["price"] * s.rng.choice((0.8, 0.85, 0.9, 1.1))))
        if item["reserve_price"] is not None and new > item["reserve_price"]:
            raise Skip("above the reserve")
        text, args = "drop {what} to {p}" if new < item["price"] else "raise {what} to {p}", {"price": new}
        slots = {"p": money(new)}
    elif change == "extend":
        d = s.rng.choice((3, 5, 7))
        text, args, slots = "keep {what} up {d} longer", {"extend_days": d}, {"d": SPANS[d]}
    else:
        new_title = item["title"] + " - Price Drop"
        if len(new_title) > 120:
            raise Skip("too long")
        text, args, slots = "rename {what} to '{t}'", {"title": new_title}, {"t": new_title}
    s.say(
        "{me}Please " + text + ".",
        "{me}Can you " + text + "?",
        "{me}I want to " + text + ".",
        minimal=["{me}" + text[:1].upper() + text[1:] + "."],
        me=SPEAKER.who(s, seller_of(item)),
        what=what,
        **slots,
    )
    uid, lid = find_own_listing(s, item)
    out = s.call("update_listing", listing_id=lid, seller_id=uid, **args)
    remember(s, out)
    if s.by_chance(0.3):
        s.say(WORDS.reprice)
        s.call("get_listing", listing_id=lid)


@marketplace.intent(covers=("search_users", "search_listings", "close_listing", "get_user"), follows=True)
def end_early(s: Scene) -> None:
    """A seller ends an auction early (selling to the top bidder when the reserve is met) and asks who won."""
    item = own_item(
        s, f"l.listing_type = 'auction' AND {TOP} IS NOT NULL AND (l.reserve_price IS NULL OR {TOP} >= l.reserve_price)"
    )
    uid, lid = seller_asks(s, item, WORDS.end_early)
    out = s.call("close_listing", listing_id=lid, seller_id=uid)
    if out["buyer_id"] is None:
        raise Skip("not sold")
    s.memory["other"] = {"user_id": out["buyer_id"], "name": ""}
    if s.by_chance(0.7):
        s.say(WORDS.end_early_then_winner)
        s.call("get_user", user_id=out["buyer_id"])


@marketplace.intent(covers=("search_users", "search_listings", "close_listing"), follows=True)
def take_down(s: Scene) -> None:
    """A seller takes a fixed-price item off the market (sold elsewhere), declining what offers it has."""
    item = own_item(s, "l.listing_type = 'fixed_price'")
    what = as_seller(s, item)
    s.say(WORDS.take_down, me=SPEAKER.who(s, seller_of(item)), what=what, What=what[:1].upper() + what[1:])
    uid, lid = find_own_listing(s, item)
    s.call("close_listing", listing_id=lid, seller_id=uid)
