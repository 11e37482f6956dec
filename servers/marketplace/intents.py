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
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Search, Speaker
from servers.marketplace import tools_write  # noqa: F401  (the write tools register before the intents that cover them)
from servers.marketplace.tools import ListingId, UserId

WORDS = phrasings(__package__)

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
    UserId,
    select=f"{ACTIVE} AND {UNIQUE_NAME}",
    memory="me",
    search=Search(missing="the user is not found by name"),
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
    hit = s.discover(UserId, u["user_id"], missing="the user is not found by name", query=u["name"])
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


def listed(s: Scene, item: dict[str, Any], **narrow: Any) -> dict[str, Any]:
    """The listing as a search for its title (narrowed by ``narrow``) shows it."""
    missing = "the listing is not on the first page"
    return s.discover(ListingId, item["listing_id"], missing=missing, query=item["title"], **narrow)


def locate(s: Scene, item: dict[str, Any], how: str) -> dict[str, Any]:
    """The agent's discovery of a listing the way the user described it; remembered for follow-ups."""
    if how == "number":
        found = s.call("get_listing", listing_id=item["listing_id"])
    elif how == "seller":
        found = listed(s, item, seller_id=find_user(s, seller_of(item)))
    else:
        found = listed(s, item, **({"listing_type": item["listing_type"]} if s.rng.random() < 0.5 else {}))
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
    found = listed(s, item, seller_id=uid)
    remember(s, found)
    return uid, str(found["listing_id"])


def seller_asks(
    s: Scene, item: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any
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
