"""Marketplace tools: search listings and users; bid, offer, list, update, close and sell."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, ToolError, fake
from servers.marketplace.schema import SCHEMA, CategoryName
from servers.marketplace.seed import seed

MIN_OFFER_SHARE = 0.5

marketplace = Server(
    "marketplace",
    "Peer-to-peer marketplace: auction and fixed-price listings, bids, offers, buyers and sellers.",
    SCHEMA,
    seed,
    family="commerce",
    id_max_length=40,
)


class UserId(EntityId, server=marketplace, example="USR-0012", finder="search_users"): ...


class ListingId(EntityId, server=marketplace, example="LST-0007", finder="search_listings"): ...


class OfferId(EntityId, server=marketplace, example="OFR-0004", finder="list_offers"): ...


SellerId = Annotated[str, UserId.ref("The seller's user id, e.g. 'USR-0239'")]
Money = Annotated[float, Field(gt=0, le=10_000_000, description="An amount in USD, e.g. 125.0")]

CURRENT = "COALESCE((SELECT MAX(amount) FROM bids b WHERE b.listing_id = l.listing_id), l.price)"
BID_COUNT = "(SELECT COUNT(*) FROM bids b WHERE b.listing_id = l.listing_id)"


def _active_user(user: dict[str, Any]) -> None:
    if user["status"] == "suspended":
        raise ToolError(f"User {user['user_id']} is suspended and cannot bid, make offers or sell.")


def _owned(listing: dict[str, Any], seller_id: str) -> None:
    if listing["seller_id"] != seller_id:
        raise ToolError(
            f"Listing {listing['listing_id']} is sold by {listing['seller_id']}, not {seller_id}; "
            "only its seller can change it."
        )


def _open(ctx: Ctx, listing: dict[str, Any]) -> None:
    if listing["status"] != "active":
        raise ToolError(
            f"Listing {listing['listing_id']} is {listing['status']} and no longer takes bids, offers or changes."
        )


def _highest(ctx: Ctx, listing_id: str) -> dict[str, Any] | None:
    found = ctx.rows(
        "SELECT * FROM bids WHERE listing_id = ? ORDER BY amount DESC, placed_at, bid_id LIMIT 1", (listing_id,)
    )
    return found[0] if found else None


def _view(ctx: Ctx, listing: dict[str, Any]) -> dict[str, Any]:
    """A listing as buyers see it: current price, bids, minimum next bid, time left; the reserve stays hidden."""
    out = dict(listing)
    reserve = out.pop("reserve_price")
    top = _highest(ctx, listing["listing_id"])
    out["bid_count"] = ctx.value("SELECT COUNT(*) FROM bids WHERE listing_id = ?", (listing["listing_id"],))
    out["current_price"] = top["amount"] if top else listing["price"]
    out["highest_bidder_id"] = top["bidder_id"] if top else None
    ended = listing["ends_at"] <= fake.iso(ctx.now)
    out["ended"] = ended
    left = datetime.fromisoformat(listing["ends_at"]) - ctx.now
    out["hours_left"] = 0.0 if ended else round(left.total_seconds() / 3600, 1)
    if listing["listing_type"] == "auction":
        out["min_next_bid"] = round(top["amount"] + listing["min_increment"], 2) if top else listing["price"]
        out["has_reserve"] = reserve is not None
        out["reserve_met"] = reserve is None or (top is not None and top["amount"] >= reserve)
    else:
        out["pending_offers"] = ctx.value(
            "SELECT COUNT(*) FROM offers WHERE listing_id = ? AND status = 'pending'", (listing["listing_id"],)
        )
    return out


LISTING_ORDER = {
    "ending_soon": "l.ends_at, l.listing_id",
    "newest": "l.created_at DESC, l.listing_id",
    "price_asc": "current_price, l.listing_id",
    "price_desc": "current_price DESC, l.listing_id",
}


@marketplace.read(returns=("listing", "user"))
def search_listings(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of the title, e.g. 'Stratocaster'")] = "",
    category: CategoryName | None = None,
    listing_type: Literal["auction", "fixed_price"] | None = None,
    status: Literal["active", "sold", "closed"] | None = "active",
    seller_id: Annotated[str | None, UserId.ref("Only this seller's listings, e.g. 'USR-0003'")] = None,
    max_price: Annotated[
        float | None, Field(ge=0, le=10_000_000, description="Only listings whose current price is at most this")
    ] = None,
    ending_within_hours: Annotated[
        int | None, Field(ge=1, le=24 * 60, description="Only listings ending within this many hours from now")
    ] = None,
    sort: Literal["ending_soon", "newest", "price_asc", "price_desc"] = "ending_soon",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search listings by title, category, type, status (default active), seller, price or end time,
    e.g. search_listings('Stratocaster', listing_type='auction'). Returns listing ids such as 'LST-0007' with current
    price."""
    q = Query(
        f"SELECT l.listing_id, l.title, l.category, l.condition, l.listing_type, l.seller_id, l.status, "
        f"l.ends_at, {CURRENT} AS current_price, {BID_COUNT} AS bid_count FROM listings l"
    )
    q.contains(query, "l.title").equal("l.category", category).equal("l.listing_type", listing_type)
    q.equal("l.status", status).equal("l.seller_id", seller_id).filter(f"{CURRENT} <= ?", max_price)
    if ending_within_hours is not None:
        q.where(
            "l.ends_at > ? AND l.ends_at <= ?",
            fake.iso(ctx.now),
            fake.iso(ctx.now + timedelta(hours=ending_within_hours)),
        )
    out = q.page(ctx.db, "listings", order_by=LISTING_ORDER[sort], limit=limit, offset=offset)
    out["now"] = fake.iso(ctx.now)
    return out


@marketplace.read(returns=("listing", "user"))
def get_listing(ctx: Ctx, listing_id: ListingId) -> dict[str, Any]:
    """Get one listing: seller, type, condition, current price, bid count, highest bidder, minimum next bid,
    whether the reserve is met and hours left, e.g. get_listing('LST-0007')."""
    return _view(ctx, ListingId.get(ctx, listing_id))


@marketplace.read(returns=("bid", "user"))
def list_bids(ctx: Ctx, listing_id: ListingId, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List an auction's bids, highest first, e.g. list_bids('LST-0007')."""
    ListingId.get(ctx, listing_id)
    q = Query("SELECT * FROM bids").equal("listing_id", listing_id)
    return {
        "listing_id": listing_id,
        **q.page(ctx.db, "bids", order_by="amount DESC, placed_at, bid_id", limit=limit, offset=offset),
    }


@marketplace.read(returns=("user",))
def search_users(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name or email, e.g. 'Nguyen'")] = "",
    role: Literal["buyer", "seller"] | None = None,
    city: Annotated[str | None, Field(max_length=60, description="Only users in this city, e.g. 'Denver'")] = None,
    status: Literal["active", "suspended"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search buyers and sellers by name or email, role, city or status, e.g. search_users(role='seller',
    city='Denver'). Returns user ids such as 'USR-0012'."""
    q = Query("SELECT user_id, name, city, role, status, rating FROM users").contains(query, "name", "email")
    q.equal("role", role).equal("city", city).equal("status", status)
    return q.page(ctx.db, "users", order_by="user_id", limit=limit, offset=offset)


@marketplace.read(returns=("user", "listing"))
def get_user(ctx: Ctx, user_id: UserId) -> dict[str, Any]:
    """Get a user's profile with their active listing ids, items won or bought, and auctions they lead, e.g.
    get_user('USR-0012')."""
    user = UserId.get(ctx, user_id)
    user["active_listing_ids"] = ctx.column(
        "SELECT listing_id FROM listings WHERE seller_id = ? AND status = 'active' ORDER BY listing_id", (user_id,)
    )
    user["purchased_listing_ids"] = ctx.column(
        "SELECT listing_id FROM listings WHERE buyer_id = ? ORDER BY listing_id", (user_id,)
    )
    user["leading_bid_listing_ids"] = ctx.column(
        "SELECT l.listing_id FROM listings l WHERE l.status = 'active' AND l.listing_type = 'auction' AND "
        "(SELECT bidder_id FROM bids b WHERE b.listing_id = l.listing_id ORDER BY amount DESC, placed_at, bid_id "
        "LIMIT 1) = ? "
        "ORDER BY l.listing_id",
        (user_id,),
    )
    return user


@marketplace.read(returns=("offer", "listing", "user"))
def list_offers(
    ctx: Ctx,
    listing_id: Annotated[str | None, ListingId.ref("Only offers on this listing, e.g. 'LST-0013'")] = None,
    buyer_id: Annotated[str | None, UserId.ref("Only offers by this buyer, e.g. 'USR-0012'")] = None,
    status: Literal["pending", "accepted", "declined"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List offers on fixed-price listings, newest first, by listing, buyer or status, e.g.
    list_offers(status='pending'). Offer ids look like 'OFR-0005'."""
    q = Query("SELECT * FROM offers").equal("listing_id", listing_id).equal("buyer_id", buyer_id)
    q.equal("status", status)
    return q.page(ctx.db, "offers", order_by="created_at DESC, offer_id DESC", limit=limit, offset=offset)


marketplace.distinct_values(
    {
        "category": ("listings", "category"),
        "condition": ("listings", "condition"),
        "listing_type": ("listings", "listing_type"),
        "listing_status": ("listings", "status"),
        "user_city": ("users", "city"),
        "user_role": ("users", "role"),
        "user_status": ("users", "status"),
        "offer_status": ("offers", "status"),
    }
)
