"""What people want of the marketplace: buyers bidding and making offers, sellers listing, repricing, taking
offers and ending auctions, browsers watching what ends soon.

People say who they are (their name) and name listings by their title ("my 'Leica M6 - Clean'", "the
'Espresso Machine - Rare' that Ana is selling"), by a listing number they saved, by seller, or by what they
are after ("the cheapest Cameras auction under $300"). The agent finds user ids with ``search_users``,
listings with ``search_listings`` (by title, seller, type, category, price) or ``get_listing`` (a number),
and offers with ``list_offers``.

A dialogue keeps who talks (``memory["me"]`` once their id was found); the listing it is about is
``memory["listing"]`` and the other person (a seller, a buyer, a bidder) ``memory["other"]``. Short
follow-ups live in ``intents_followups``, sellers looking back (relisting, sales, bids on
their auctions) in ``intents_sellers``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, money
from hub.kit.speaker import Search, Speaker
from servers.marketplace.tools import marketplace

ACTIVE = "SELECT user_id, name, city, role FROM users WHERE status = 'active'"
UNIQUE_NAME = "name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
LISTING = "SELECT l.*, u.name AS seller FROM listings l JOIN users u ON u.user_id = l.seller_id"
TOP = "(SELECT MAX(amount) FROM bids b WHERE b.listing_id = l.listing_id)"
NEW_ITEMS = (  # title, category, base price, how the seller speaks of it (the agent picks the category)
    ("Canon AE-1 Program - Clean", "Cameras", 180.0, "old film camera"),
    ("Vintage Road Bike - 56cm", "Sporting Goods", 240.0, "road bike"),
    ("Signed First Edition Novel", "Books & Media", 95.0, "signed novel"),
    ("Mid-Century Desk Lamp", "Home & Garden", 60.0, "desk lamp"),
    ("Yamaha Acoustic Guitar FG800", "Musical Instruments", 150.0, "acoustic guitar"),
    ("LEGO Castle Set 10305", "Toys & Hobbies", 320.0, "LEGO set"),
    ("Nintendo Switch OLED", "Electronics", 260.0, "game console"),
    ("Leather Weekender Bag", "Fashion", 120.0, "leather travel bag"),
    ("Framed Botanical Print", "Art", 85.0, "framed print"),
    ("Vintage Baseball Card Lot", "Collectibles", 140.0, "box of baseball cards"),
)
SPANS = {3: "three days", 5: "five days", 7: "a week", 10: "ten days", 14: "two weeks"}


# The person talking ------------------------------------------------------------------------------

SPEAKER = Speaker(
    table="users",
    key="user_id",
    select=f"{ACTIVE} AND {UNIQUE_NAME}",
    memory="me",
    search=Search("search_users", "users", missing="the user is not found by name"),
    late=True,
)
find_me = SPEAKER.find
ask = SPEAKER.asks


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The person talking (``SPEAKER.me``): once a turn made the persona someone not yet found, them."""
    if s.speaker and not s.memory.get("me"):
        return SPEAKER.me(s, f"name = ? AND ({where})", s.speaker, *params)
    return SPEAKER.me(s, where, *params)


def seller_of(item: dict[str, Any]) -> dict[str, Any]:
    """The seller of a listing (as ``LISTING`` reads it) as the speaker's row."""
    return {"user_id": item["seller_id"], "name": item["seller"]}


def find_user(s: Scene, u: dict[str, Any]) -> str:
    """Another user's id off a search by their name, kept as ``memory["other"]`` (no search once it holds them)."""
    known = s.memory.get("other")
    if known and known["user_id"] == u["user_id"]:
        return str(u["user_id"])
    hit = s.find(
        "search_users", "users", "user_id", u["user_id"], missing="the user is not found by name", query=u["name"]
    )
    s.memory["other"] = {"user_id": hit["user_id"], "name": hit["name"]}
    return str(hit["user_id"])


def remember(s: Scene, item: dict[str, Any]) -> None:
    """The listing the dialogue is about (what the agent read of it)."""
    s.memory["listing"] = {
        "listing_id": item["listing_id"],
        "title": item["title"],
        "seller_id": item["seller_id"],
        "listing_type": item["listing_type"],
        "category": item["category"],
    }


# Listings as people name them ----------------------------------------------------------------------


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


def describe(s: Scene, item: dict[str, Any]) -> tuple[str, str]:
    """How a buyer names someone else's listing, and so how the agent finds it: by title (a search), by its seller
    (the seller's listings), or by the listing number they saved (read directly)."""
    how = s.rng.choice(("title", "title", "title", "seller", "seller", "number"))
    if (
        how == "title"
        and s.value("SELECT COUNT(*) FROM listings WHERE title = ? AND status = 'active'", item["title"]) != 1
    ):
        how = "seller"  # the title alone is ambiguous: the agent needs the seller's id to tell them apart
    if how == "number":
        return f"listing {item['listing_id']} ('{item['title']}')", how
    if how == "seller":
        seller = {"user_id": item["seller_id"], "name": item["seller"]}
        if not s.rows(ACTIVE + f" AND user_id = ? AND {UNIQUE_NAME}", seller["user_id"]):
            raise Skip("the seller's name is not unique")
        else:
            return s.refer(
                item["listing_id"],
                Ref(
                    "the '{title}' {seller} is selling",
                    "SELECT listing_id FROM listings WHERE seller_id = ? AND title = ? AND status = 'active'",
                    item["seller_id"],
                    item["title"],
                ),
                title=item["title"],
                seller=item["seller"],
            ), how
    return listing_ref(s, item), how


def locate(s: Scene, item: dict[str, Any], how: str) -> dict[str, Any]:
    """The agent's discovery of a listing the way the user described it; remembered for follow-ups."""
    missing = "the listing is not on the first page"
    if how == "number":
        found = s.call("get_listing", listing_id=item["listing_id"])
    elif how == "seller":
        sid = find_user(s, {"user_id": item["seller_id"], "name": item["seller"]})
        found = s.find(
            "search_listings",
            "listings",
            "listing_id",
            item["listing_id"],
            missing=missing,
            seller_id=sid,
            query=item["title"],
        )
    else:
        kind = {"listing_type": item["listing_type"]} if s.rng.random() < 0.5 else {}
        found = s.find(
            "search_listings",
            "listings",
            "listing_id",
            item["listing_id"],
            missing=missing,
            query=item["title"],
            **kind,
        )
    remember(s, found)
    return found


def as_seller(s: Scene, item: dict[str, Any]) -> str:
    """The item's seller talks (the persona becomes them): how they name their own item."""
    known = s.memory.get("me")
    if known and known["user_id"] != item["seller_id"]:
        raise Skip("someone else talks")
    if not known:
        s.be(item["seller"])
    return listing_ref(s, item, own=True)


def find_own_listing(s: Scene, item: dict[str, Any]) -> tuple[str, str]:
    """The seller's user id (a search by their name), then their item's listing id (a search among theirs, or the
    listing the dialogue is already about)."""
    uid = find_me(s, seller_of(item))
    if s.memory.get("listing", {}).get("listing_id") == item["listing_id"]:
        return uid, str(item["listing_id"])
    found = s.find(
        "search_listings",
        "listings",
        "listing_id",
        item["listing_id"],
        missing="not on the first page",
        seller_id=uid,
        query=item["title"],
    )
    remember(s, found)
    return uid, str(found["listing_id"])


def seller_asks(
    s: Scene, item: dict[str, Any], *phrasings: str, minimal: Sequence[str], **slots: Any
) -> tuple[str, str]:
    """A seller's request about their own item (``{what}``, named as ``as_seller`` says), and the agent finding their
    user id and the item's listing id (``find_own_listing``)."""
    what = as_seller(s, item)
    s.say(*phrasings, minimal=minimal, me=SPEAKER.who(s, seller_of(item)), what=what, **slots)
    return find_own_listing(s, item)


def sell_to(s: Scene, offer_id: str, uid: str) -> dict[str, Any]:
    """The seller accepts an offer: the sale, whose buyer becomes the other person of the dialogue."""
    sold: dict[str, Any] = s.call("accept_offer", offer_id=offer_id, seller_id=uid)
    s.memory["other"] = {"user_id": sold["buyer_id"], "name": ""}
    return sold


def own_item(s: Scene, where: str, *params: Any) -> dict[str, Any]:
    """An active listing of the person talking (or of a seller with a unique name, who then talks)."""
    known = s.memory.get("me")
    who = "u.user_id = ?" if known else f"u.status = 'active' AND u.{UNIQUE_NAME}"
    args: tuple[Any, ...] = (known["user_id"],) if known else ()
    if not known and s.speaker:
        who, args = who + " AND u.name = ?", (s.speaker,)
    return s.pick(LISTING + f" WHERE l.status = 'active' AND {who} AND ({where})", *args, *params)


def bid_amount(s: Scene, item: dict[str, Any]) -> float:
    top = s.value("SELECT MAX(amount) FROM bids WHERE listing_id = ?", item["listing_id"])
    floor = top + item["min_increment"] if top is not None else item["price"]
    return float(math.ceil((floor + s.rng.choice((0, 0, 5, 10, 25))) / 5) * 5)


def open_auction(s: Scene, u: dict[str, Any], where: str = "1=1", *params: Any) -> dict[str, Any]:
    """An active auction, not yet over, that ``u`` does not sell and does not lead."""
    return s.pick(
        LISTING + " WHERE l.listing_type = 'auction' AND l.status = 'active' AND l.ends_at > ? AND l.seller_id != ? "
        "AND ? NOT IN (SELECT bidder_id FROM bids WHERE listing_id = l.listing_id AND amount = " + TOP + ")"
        f" AND ({where})",
        fake.iso(s.now),
        u["user_id"],
        u["user_id"],
        *params,
    )


def open_fixed(s: Scene, u: dict[str, Any], where: str = "1=1", *params: Any) -> dict[str, Any]:
    """An active fixed-price listing, not yet over, that ``u`` does not sell and has no pending offer on."""
    return s.pick(
        LISTING + " WHERE l.listing_type = 'fixed_price' AND l.status = 'active' AND l.ends_at > ? AND "
        "l.seller_id != ? AND l.listing_id NOT IN (SELECT listing_id FROM offers WHERE buyer_id = ? AND "
        f"status = 'pending') AND ({where})",
        fake.iso(s.now),
        u["user_id"],
        u["user_id"],
        *params,
    )


Picker = Callable[..., dict[str, Any]]  # open_auction, open_fixed


def wanted(s: Scene, u: dict[str, Any], kind: str, pick: Picker) -> tuple[dict[str, Any], str, str]:
    """The listing of ``kind`` a buyer is after, with how they name it and how it is found: mostly the one of the
    dialogue ("it") when it is still open to them, else another that ``pick`` finds (named as ``describe`` says)."""
    known = s.memory.get("listing")
    if known and known["listing_type"] == kind and s.rng.random() < 0.7:
        return pick(s, u, "l.listing_id = ?", known["listing_id"]), "it", "known"
    item = pick(s, u)
    what, how = describe(s, item)
    return item, what, how


def wanted_id(s: Scene, item: dict[str, Any], how: str) -> str:
    """The id of the listing ``wanted`` chose: found the way the buyer named it, or known from the dialogue."""
    return str(locate(s, item, how)["listing_id"]) if how != "known" else str(item["listing_id"])


# Buying ------------------------------------------------------------------------------------------


@marketplace.intent(covers=("search_users", "search_listings", "get_listing", "place_bid"), weight=2.0, follows=True)
def bid(s: Scene) -> None:
    """A buyer asks what it takes to lead an auction, then bids; or bids an amount they name straight away."""
    u = me(s)
    item, what, how = wanted(s, u, "auction", open_auction)
    amount = bid_amount(s, item)
    price = s.given(amount, money(amount), "amount", "place_bid", "amount")
    direct = s.rng.random() < 0.5
    if direct:
        s.say(
            "{me}Bid on {what} for me[: {price}].",
            "{me}I want {what}; put in a bid[ of {price}].",
            "{me}Go ahead and bid[ {price}] on {what}.",
            minimal=["{me}I'd like to win {what}[, bid {price}]."],
            me=SPEAKER.who(s, u),
            what=what,
            price=price,
        )
    else:
        s.say(
            "{me}I want {what}. What would I have to bid to lead?",
            "{me}How much does it take to be on top for {what}?",
            "{me}What's the lowest I can bid on {what}?",
            minimal=["{me}I'd like to win {what}."],
            me=SPEAKER.who(s, u),
            what=what,
        )
    uid = find_me(s, u)
    lid = wanted_id(s, item, how)
    if not direct:
        if how != "number":
            view = s.call("get_listing", listing_id=lid)
            if view["min_next_bid"] > amount:
                raise Skip("the floor moved")
        s.say("OK, put in {price} for me.", "Bid {price} then.", "Go ahead with {price}.", price=price)
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
    uid = ask(
        s,
        u,
        "{me}{What} is listed at {ask}; I'd like to offer less[: {price}].",
        "{me}I'd like to haggle on {what}.[ Would they take {price}?]",
        "{me}Send an offer for {what}[ of {price}] please.",
        minimal=["{me}I want {what} but cheaper[, {price}]."],
        what=what,
        What=what[:1].upper() + what[1:],
        ask=money(item["price"]),
        price=price,
    )
    lid = wanted_id(s, item, how)
    out = s.call("make_offer", listing_id=lid, buyer_id=uid, amount=price)
    s.memory["offer"] = out["offer_id"]
    if s.room(1, 1) and s.rng.random() < 0.4:
        s.say(
            "What other offers do I have waiting?",
            "Which of my offers are still open?",
            "Anything else I offered on that hasn't been answered?",
        )
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
        ((r["top"] if r["top"] is not None else r["price"], r["listing_id"], r) for r in found),
        key=itemgetter(0, 1),
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
        "{me}Find me the cheapest {cat} {kind} under {cap} and {what}.",
        "{me}What's the lowest-priced {cat} {kind} below {cap}? {What}.",
        "{me}I'm hunting for a {cat} bargain, {kind}s only, max {cap}: take the cheapest and {what}.",
        minimal=["{me}Cheapest {cat} {kind} under {cap}: {what}."],
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
        uid = ask(
            s,
            u,
            "{me}Which auctions am I winning right now?",
            "{me}Where am I the top bidder at the moment?",
            "{me}Am I still ahead anywhere? List the auctions I lead.",
            minimal=["{me}What am I winning?"],
        )
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
    uid = ask(
        s,
        u,
        "{me}Has anyone outbid me on {what}? If so, raise my bid to the minimum that leads.",
        "{me}If I'm no longer on top for {what}, bid just enough to lead again.",
        "{me}Check {what}: when someone beat my bid, put in the lowest bid that wins it back.",
        minimal=["{me}Get me back on top for {what}."],
        what=what,
    )
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
    if status:
        s.say(
            "{me}Which of my offers are {word}?",
            "{me}Show me my offers that were {word}.",
            "{me}Did sellers answer me? I want the offers of mine that are {word}.",
            minimal=["{me}My offers that are {word}?"],
            me=SPEAKER.who(s, u),
            word=word,
        )
    else:
        s.say(
            "{me}What happened to the offers I made?",
            "{me}Show me all my offers and where they stand.",
            minimal=["{me}My offers?"],
            me=SPEAKER.who(s, u),
        )
    uid = find_me(s, u)
    args: dict[str, Any] = {"buyer_id": uid} | ({"status": status} if status else {})
    offers = s.call("list_offers", **args)["offers"]
    if not offers:
        raise Skip("no such offers")
    if s.room(1, 1) and s.rng.random() < 0.5:
        s.say("Tell me more about the listing of the newest one.", "What's the item behind the latest one?")
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
    s.say(
        "{me}Which {cat} auctions wrap up in the next three days?",
        "{me}Show me {cat} auctions closing within 72 hours.",
        "{me}Any {cat} auctions about to finish (next 3 days)?",
        minimal=["{me}{cat} auctions ending soon?"],
        me=SPEAKER.who(s, u),
        cat=row["category"],
    )
    found = [
        x
        for x in s.call("search_listings", category=row["category"], listing_type="auction", ending_within_hours=72)[
            "listings"
        ]
        if x["bid_count"]
    ]
    pick = s.choose(found, itemgetter("title"), none="none with bids", alike="two with that title")
    remember(s, pick)
    s.say(
        "Who's leading on the '{t}'?",
        "Who is ahead on '{t}' and how good are their ratings?",
        "For '{t}': who has the top bid?",
        t=pick["title"],
    )
    bids = s.call("list_bids", listing_id=pick["listing_id"], limit=5)["bids"]
    s.call("get_user", user_id=bids[0]["bidder_id"])
    s.memory["other"] = {"user_id": bids[0]["bidder_id"], "name": ""}


@marketplace.intent(covers=("get_distinct_values", "search_listings"))
def category_mix(s: Scene) -> None:
    """An analyst looks at how listings spread over categories, then at the priciest or newest live ones in one."""
    cat = s.pick("SELECT DISTINCT category FROM listings WHERE status = 'active'")["category"]
    s.say(
        "How do listings break down by category?",
        "Which categories have the most listings?",
        "Give me listing counts per category.",
        minimal=["Categories?"],
    )
    s.call("get_distinct_values", field="category")
    if s.rng.random() < 0.5:
        s.say(
            "What are the most expensive live ones in {cat}?",
            "Show me the priciest {cat} items up right now.",
            "Top-priced {cat} listings still open?",
            cat=cat,
        )
        top = s.call("search_listings", category=cat, sort="price_desc", limit=5)["listings"]
    else:
        s.say(
            "What's the newest in {cat}?", "Show me the latest {cat} listings.", "What just went up in {cat}?", cat=cat
        )
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
    s.say(
        "{me}Who's selling {what}, and are they any good?",
        "{me}Before I buy {what}: what's the seller's rating and where are they?",
        "{me}Tell me about the seller of {what}.",
        minimal=["{me}Is the seller of {what} trustworthy?"],
        me=SPEAKER.who(s, u),
        what=what,
    )
    found = s.find(
        "search_listings", "listings", "listing_id", item["listing_id"], missing="not listed", query=item["title"]
    )
    remember(s, found)
    s.call("get_user", user_id=found["seller_id"])
    s.memory["other"] = {"user_id": item["seller_id"], "name": item["seller"]}
    if s.room(1, 1) and s.rng.random() < 0.5:
        s.say("And the item itself: condition, price now, time left?", "What does the listing itself say?")
        s.call("get_listing", listing_id=found["listing_id"])


# Selling -----------------------------------------------------------------------------------------


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
    uid, lid = seller_asks(
        s,
        item,
        "{me}Who's offered what for {what}? I'll take the best one.",
        "{me}Sell {what} to whoever offered the most.",
        "{me}Accept the highest offer on {what}, please.",
        minimal=["{me}Just sell {what} to the best offer."],
    )
    pending = s.call("list_offers", listing_id=lid, status="pending")["offers"]
    best = max(pending, key=lambda o: o["amount"])
    sold = sell_to(s, best["offer_id"], uid)
    if not s.room(1, 1) or s.rng.random() < 0.3:
        return
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
    uid, lid = seller_asks(
        s,
        item,
        "{me}I'll take the {amt} offer on {what}.",
        "{me}Someone offered {amt} for {what}; accept it.",
        "{me}Go with the {amt} offer for {what}.",
        minimal=["{me}{amt} for {what} works, accept it."],
        amt=money(o["amount"]),
    )
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
        s.say(
            "Hmm, make it {p} instead.",
            "Actually lower the price to {p}.",
            "Let's ask {p} for it instead.",
            p=money(lower),
        )
        s.call("update_listing", listing_id=out["listing_id"], seller_id=uid, price=lower)
    else:
        more = s.rng.choice((3, 7, 14))
        s.say("Let it run {d} longer.", "Give it an extra {d}.", "Keep it up {d} more.", d=SPANS[more])
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
    if s.room(1, 1) and s.rng.random() < 0.3:
        s.say("Show me how it looks now.", "Pull up the listing so I can check.", "How does it read now?")
        s.call("get_listing", listing_id=lid)


@marketplace.intent(covers=("search_users", "search_listings", "close_listing", "get_user"), follows=True)
def end_early(s: Scene) -> None:
    """A seller ends an auction early (selling to the top bidder when the reserve is met) and asks who won."""
    item = own_item(
        s,
        f"l.listing_type = 'auction' AND {TOP} IS NOT NULL AND (l.reserve_price IS NULL OR {TOP} >= l.reserve_price)",
    )
    uid, lid = seller_asks(
        s,
        item,
        "{me}I'm happy with the bids on {what}; end it now.",
        "{me}Close the auction for {what} early, I'll sell.",
        "{me}Stop {what} now and let the top bidder have it.",
        minimal=["{me}Wrap up {what} now."],
    )
    out = s.call("close_listing", listing_id=lid, seller_id=uid)
    if out["buyer_id"] is None:
        raise Skip("not sold")
    s.memory["other"] = {"user_id": out["buyer_id"], "name": ""}
    if s.room(1, 1) and s.rng.random() < 0.7:
        s.say(
            "Who won it, and where are they based?",
            "Who's the buyer? I need to know where to ship.",
            "Tell me about the winner: name, city, rating.",
        )
        s.call("get_user", user_id=out["buyer_id"])


@marketplace.intent(covers=("search_users", "search_listings", "close_listing"), follows=True)
def take_down(s: Scene) -> None:
    """A seller takes a fixed-price item off the market (sold elsewhere), declining what offers it has."""
    item = own_item(s, "l.listing_type = 'fixed_price'")
    what = as_seller(s, item)
    s.say(
        "{me}I sold {what} elsewhere, take it down.",
        "{me}Pull {what} off the market please.",
        "{me}End {what}, it's no longer available.",
        minimal=["{me}{What} is gone, remove it."],
        me=SPEAKER.who(s, seller_of(item)),
        what=what,
        What=what[:1].upper() + what[1:],
    )
    uid, lid = find_own_listing(s, item)
    s.call("close_listing", listing_id=lid, seller_id=uid)
