"""Buyers and browsers on the marketplace: bidding, making offers, hunting bargains, checking whether they still
lead, what became of their offers, what ends soon, how categories spread, who sells an item.
"""

from __future__ import annotations

from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, money
from servers.marketplace.intents import (
    LISTING,
    SPEAKER,
    TOP,
    WORDS,
    ask,
    bid_amount,
    find_me,
    listed,
    listing_ref,
    locate,
    me,
    open_auction,
    open_fixed,
    remember,
    wanted,
    wanted_id,
)
from servers.marketplace.tools import marketplace


@marketplace.intent(covers=("search_users", "search_listings", "get_listing", "place_bid"), weight=2.0, follows=True)
def bid(s: Scene) -> None:
    """A buyer asks what it takes to lead an auction, then bids; or bids an amount they name straight away."""
    u = me(s)
    item, what, how = wanted(s, u, "auction", open_auction)
    amount = bid_amount(s, item)
    price = s.given(amount, money(amount), "amount", "place_bid", "amount")
    direct = s.rng.random() < 0.5
    said, minimal = (
        (WORDS.bid, "{me}I'd like to win {what}[, bid {price}].")
        if direct
        else (WORDS.lead, "{me}I'd like to win {what}.")
    )
    s.say(*said, minimal=[minimal], me=SPEAKER.who(s, u), what=what, **({"price": price} if direct else {}))
    uid = find_me(s, u)
    lid = wanted_id(s, item, how)
    if not direct:
        if how != "number":
            view = s.call("get_listing", listing_id=lid)
            if view["min_next_bid"] > amount:
                raise Skip("the floor moved")
        s.say(WORDS.bid_then_amount, price=price)
    s.call("place_bid", listing_id=lid, bidder_id=uid, amount=price)
    s.memory["bid"] = lid


@marketplace.intent(
    covers=("search_users", "search_listings", "get_listing", "make_offer", "list_offers"), weight=2.0, follows=True
)
def offer(s: Scene) -> None:
    """A buyer makes an offer below the asking price of a fixed-price item."""
    u = me(s)
    item, what, how = wanted(s, u, "fixed_price", open_fixed)
    amount = float(round(item["price"] * s.rng.choice((0.6, 0.7, 0.8, 0.9)) / 5) * 5)
    if amount < item["price"] / 2:
        raise Skip("too low")
    price = s.given(amount, money(amount), "amount", "make_offer", "amount")
    uid = ask(s, u, WORDS.offer, what=what, What=what[:1].upper() + what[1:], ask=money(item["price"]), price=price)
    lid = wanted_id(s, item, how)
    out = s.call("make_offer", listing_id=lid, buyer_id=uid, amount=price)
    s.memory["offer"] = out["offer_id"]
    if s.by_chance(0.4):
        s.say(*WORDS.waiting_offers)
        s.call("list_offers", buyer_id=uid, status="pending")


@marketplace.intent(covers=("search_users", "search_listings", "make_offer", "place_bid"), follows=True)
def bargain_hunt(s: Scene) -> None:
    """A buyer looks for the cheapest live item of a kind under a budget, and makes an offer or a bid on it."""
    u = me(s)
    auction = s.rng.random() < 0.5
    kind = "auction" if auction else "fixed_price"
    cat = s.pick("SELECT DISTINCT category FROM listings WHERE status = 'active' AND listing_type = ?", kind)[
        "category"
    ]
    found = s.rows(
        "SELECT l.*, " + TOP + " AS top FROM listings l WHERE l.status = "
        "'active' AND l.category = ? AND l.listing_type = ?",
        cat,
        kind,
    )
    priced = sorted(
        ((r["top"] if r["top"] is not None else r["price"], r["listing_id"], r) for r in found), key=itemgetter(0, 1)
    )
    if not priced:
        raise Skip("nothing of that kind")
    budgets = [b for b in (50, 100, 200, 300, 500, 1000, 2000, 5000) if b >= priced[0][0]]
    if not budgets:
        raise Skip("nothing under any budget")
    cap = float(s.rng.choice(budgets[:3]))
    if len(priced) > 1 and priced[0][0] == priced[1][0]:
        raise Skip("a tie for the cheapest")
    item = priced[0][2]
    if item["seller_id"] == u["user_id"] or item["ends_at"] <= fake.iso(s.now):
        raise Skip("own or over")
    if auction:
        if s.rows(
            "SELECT 1 FROM bids WHERE listing_id = ? AND bidder_id = ? AND amount = ?",
            item["listing_id"],
            u["user_id"],
            item["top"],
        ):
            raise Skip("leads already")
        amount = float(item["top"] + item["min_increment"] if item["top"] is not None else item["price"])
        what = "bid the minimum on it"
    else:
        if s.rows(
            "SELECT 1 FROM offers WHERE listing_id = ? AND buyer_id = ? AND status = 'pending'",
            item["listing_id"],
            u["user_id"],
        ):
            raise Skip("offered already")
        amount = round(item["price"] * 0.8, 2)  # exact to the cent: what "80% of the asking price" is
        what = "offer 80% of the asking price"
    uid = ask(
        s,
        u,
        WORDS.bargain_hunt,
        cat=cat,
        kind="auction" if auction else "buy-it-now listing",
        cap=money(cap),
        what=what,
        What=what[:1].upper() + what[1:],
    )
    hits = s.call("search_listings", category=cat, listing_type=kind, max_price=cap, sort="price_asc", limit=5)[
        "listings"
    ]
    if not hits or hits[0]["listing_id"] != item["listing_id"]:
        raise Skip("the search disagrees")
    remember(s, hits[0])
    if auction:
        s.call("place_bid", listing_id=item["listing_id"], bidder_id=uid, amount=amount)
        s.memory["bid"] = item["listing_id"]
    else:
        out = s.call("make_offer", listing_id=item["listing_id"], buyer_id=uid, amount=amount)
        s.memory["offer"] = out["offer_id"]


@marketplace.intent(covers=("search_users", "search_listings", "get_user", "get_listing", "place_bid"), follows=True)
def still_winning(s: Scene) -> None:
    """A bidder asks which auctions they lead, or, on one auction they were outbid on, bids back to the top."""
    u = me(s, "user_id IN (SELECT bidder_id FROM bids)")
    s.asked("get_user", user_id=u["user_id"])
    whole = s.rng.random() < 0.5
    if whole:
        uid = ask(s, u, WORDS.still_winning_list)
        s.call("get_user", user_id=uid)
        return
    item = s.pick(
        LISTING + " WHERE l.status = 'active' AND l.listing_type = 'auction' AND l.ends_at > ? AND l.listing_id IN "
        "(SELECT listing_id FROM bids WHERE bidder_id = ?) AND (SELECT bidder_id FROM bids b WHERE b.listing_id = "
        "l.listing_id ORDER BY amount DESC, placed_at, bid_id LIMIT 1) != ?",
        fake.iso(s.now),
        u["user_id"],
        u["user_id"],
    )
    what = listing_ref(s, item)
    uid = ask(s, u, WORDS.still_winning, what=what)
    if s.memory.get("listing", {}).get("listing_id") == item["listing_id"]:
        lid = str(item["listing_id"])
    else:
        lid = str(locate(s, item, "title")["listing_id"])
    view = s.call("get_listing", listing_id=lid)
    if view["highest_bidder_id"] == uid:
        raise Skip("still leads")
    s.call("place_bid", listing_id=lid, bidder_id=uid, amount=view["min_next_bid"])
    s.memory["bid"] = lid


@marketplace.intent(covers=("search_users", "list_offers", "get_listing"), follows=True)
def my_offers(s: Scene) -> None:
    """A buyer asks what became of the offers they made (answered ones, or the ones still waiting)."""
    u = me(s, "user_id IN (SELECT buyer_id FROM offers)")
    status = s.rng.choice(("pending", "declined", "accepted", None))
    word = {"pending": "still waiting", "declined": "turned down", "accepted": "accepted", None: "any"}[status]
    s.asked("list_offers", buyer_id=u["user_id"])
    minimal = "{me}My offers that are {word}?" if status else "{me}My offers?"
    s.say(*(WORDS.offers_that if status else WORDS.all_offers), minimal=[minimal], me=SPEAKER.who(s, u), word=word)
    uid = find_me(s, u)
    args: dict[str, Any] = {"buyer_id": uid} | ({"status": status} if status else {})
    offers = s.call("list_offers", **args)["offers"]
    if not offers:
        raise Skip("no such offers")
    if s.by_chance(0.5):
        s.say(WORDS.my_offers)
        view = s.call("get_listing", listing_id=offers[0]["listing_id"])
        remember(s, view)


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
    u = me(s)
    s.say(WORDS.ending_soon, me=SPEAKER.who(s, u), cat=row["category"])
    found = [
        x
        for x in s.call("search_listings", category=row["category"], listing_type="auction", ending_within_hours=72)[
            "listings"
        ]
        if x["bid_count"]
    ]
    pick = s.choose(found, itemgetter("title"), none="none with bids", alike="two with that title")
    remember(s, pick)
    s.say(WORDS.ending_soon_then_leader, t=pick["title"])
    bids = s.call("list_bids", listing_id=pick["listing_id"], limit=5)["bids"]
    s.call("get_user", user_id=bids[0]["bidder_id"])
    s.memory["other"] = {"user_id": bids[0]["bidder_id"], "name": ""}


@marketplace.intent(covers=("get_distinct_values", "search_listings"))
def category_mix(s: Scene) -> None:
    """An analyst looks at how listings spread over categories, then at the priciest or newest live ones in one."""
    cat = s.pick("SELECT DISTINCT category FROM listings WHERE status = 'active'")["category"]
    s.say(WORDS.category_mix)
    s.call("get_distinct_values", field="category")
    if s.rng.random() < 0.5:
        s.say(WORDS.category_mix_then_priciest, cat=cat)
        top = s.call("search_listings", category=cat, sort="price_desc", limit=5)["listings"]
    else:
        s.say(WORDS.category_mix_then_newest, cat=cat)
        top = s.call("search_listings", category=cat, sort="newest", limit=5)["listings"]
    if top:
        remember(s, top[0])


@marketplace.intent(covers=("search_listings", "get_user", "get_listing"))
def who_sells_it(s: Scene) -> None:
    """A buyer checks out who is selling an item before committing: the seller's rating and city."""
    u = me(s)
    item = s.pick(
        LISTING + " WHERE l.status = 'active' AND l.ends_at > ? AND l.seller_id != ? AND (SELECT COUNT(*) FROM "
        "listings x WHERE x.title = l.title AND x.status = 'active') = 1",
        fake.iso(s.now),
        u["user_id"],
    )
    what = s.refer(
        item["listing_id"],
        Ref("the '{title}'", "SELECT listing_id FROM listings WHERE title = ? AND status = 'active'", item["title"]),
        title=item["title"],
    )
    s.say(WORDS.who_sells_it, me=SPEAKER.who(s, u), what=what)
    found = listed(s, item)
    remember(s, found)
    s.call("get_user", user_id=found["seller_id"])
    s.memory["other"] = {"user_id": item["seller_id"], "name": item["seller"]}
    if s.by_chance(0.5):
        s.say(WORDS.who_sells_it_then_listing)
        s.call("get_listing", listing_id=found["listing_id"])
