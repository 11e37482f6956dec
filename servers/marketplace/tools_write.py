"""The marketplace write tools: bids, listings created, changed and closed, offers made and accepted."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, next_id
from servers.marketplace.schema import increment
from servers.marketplace.tools import (
    MIN_OFFER_SHARE,
    CategoryName,
    ListingId,
    Money,
    OfferId,
    SellerId,
    UserId,
    _active_user,
    _highest,
    _open,
    _owned,
    _view,
    marketplace,
)


@marketplace.write(returns=("bid",))
def place_bid(ctx: Ctx, listing_id: ListingId, bidder_id: UserId, amount: Money) -> dict[str, Any]:
    """Bid on an active auction, e.g. place_bid('LST-0007', 'USR-0012', 105.0).

    The first bid must be at least the starting price; later bids must beat the highest bid by the
    listing's minimum increment (get_listing shows min_next_bid). Not on your own listing, nor after the end time."""
    listing = ListingId.get(ctx, listing_id)
    bidder = UserId.get(ctx, bidder_id)
    if listing["listing_type"] != "auction":
        raise ToolError(f"Listing {listing_id} is fixed price, not an auction; use make_offer instead of place_bid.")
    _open(ctx, listing)
    if listing["ends_at"] <= fake.iso(ctx.now):
        raise ToolError(
            f"The auction for {listing_id} ended at {listing['ends_at']}; no more bids. The seller can "
            "close it with close_listing."
        )
    if listing["seller_id"] == bidder_id:
        raise ToolError(f"{bidder_id} is the seller of {listing_id} and cannot bid on their own listing.")
    _active_user(bidder)
    top = _highest(ctx, listing_id)
    if top and top["bidder_id"] == bidder_id:
        raise ToolError(f"{bidder_id} is already the highest bidder on {listing_id} at {top['amount']:.2f} USD.")
    minimum = round(top["amount"] + listing["min_increment"], 2) if top else listing["price"]
    if amount + 1e-9 < minimum:
        what = (
            f"beat the highest bid of {top['amount']:.2f} USD by at least {listing['min_increment']:.2f}"
            if top
            else "be at least the starting price"
        )
        raise ToolError(f"A bid on {listing_id} must {what}: bid {minimum:.2f} USD or more.")
    bid_id = next_id(ctx.db, "bids", "bid_id", "BID", 5)
    ctx.db.execute(
        "INSERT INTO bids VALUES (?,?,?,?,?)", (bid_id, listing_id, bidder_id, round(amount, 2), fake.iso(ctx.now))
    )
    return {
        "bid_id": bid_id,
        "listing_id": listing_id,
        "bidder_id": bidder_id,
        "amount": round(amount, 2),
        "min_next_bid": round(amount + listing["min_increment"], 2),
        "ends_at": listing["ends_at"],
    }


@marketplace.write(returns=("listing",))
def create_listing(
    ctx: Ctx,
    seller_id: SellerId,
    title: Annotated[
        str, Field(min_length=3, max_length=120, description="What is for sale, e.g. 'Fender Stratocaster - Mint'")
    ],
    category: CategoryName,
    price: Money,
    listing_type: Literal["auction", "fixed_price"] = "fixed_price",
    condition: Literal["new", "like_new", "good", "fair", "for_parts"] = "good",
    duration_days: Annotated[int, Field(ge=1, le=30, description="Days until the listing ends, 1 to 30")] = 7,
    reserve_price: Annotated[
        float | None, Field(gt=0, le=10_000_000, description="Auctions only: the lowest price the item sells for")
    ] = None,
    description: Annotated[str, Field(max_length=2000, description="Details for buyers")] = "",
) -> dict[str, Any]:
    """List an item for sale as a seller, e.g. create_listing('USR-0003', 'Leica M6 - Clean', 'Cameras', 900.0,
    'auction').

    For an auction, price is the starting bid; for fixed price, the asking price. Returns the new listing id."""
    seller = UserId.get(ctx, seller_id)
    if seller["role"] != "seller":
        raise ToolError(
            f"{seller_id} is a buyer account; only seller accounts can create listings (search_users(role='seller'))."
        )
    _active_user(seller)
    if not title.strip():
        raise ToolError("The title must not be blank.")
    if reserve_price is not None:
        if listing_type != "auction":
            raise ToolError(
                "A reserve price only applies to auctions; leave reserve_price empty for fixed-price listings."
            )
        if reserve_price < price:
            raise ToolError(
                f"The reserve price ({reserve_price:.2f}) must be at least the starting price ({price:.2f})."
            )
    active = ctx.value("SELECT COUNT(*) FROM listings WHERE seller_id = ? AND status = 'active'", (seller_id,))
    if active >= 50:
        raise ToolError(f"{seller_id} already has 50 active listings, the maximum; close some first.")
    listing_id = next_id(ctx.db, "listings", "listing_id", "LST")
    ends = ctx.now + timedelta(days=duration_days)
    ctx.db.execute(
        "INSERT INTO listings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            listing_id,
            seller_id,
            title.strip(),
            description,
            category,
            condition,
            listing_type,
            round(price, 2),
            increment(price),
            reserve_price,
            "active",
            fake.iso(ctx.now),
            fake.iso(ends),
            None,
            None,
            None,
        ),
    )
    return _view(ctx, ListingId.get(ctx, listing_id))


@marketplace.write(returns=("listing",))
def update_listing(
    ctx: Ctx,
    listing_id: ListingId,
    seller_id: SellerId,
    title: Annotated[str | None, Field(min_length=3, max_length=120, description="A new title")] = None,
    description: Annotated[str | None, Field(max_length=2000, description="A new description")] = None,
    price: Annotated[
        float | None, Field(gt=0, le=10_000_000, description="A new starting or asking price in USD")
    ] = None,
    extend_days: Annotated[
        int | None, Field(ge=1, le=30, description="Push the end time back by this many days")
    ] = None,
) -> dict[str, Any]:
    """Change an active listing's title, description, price or end time as its seller, e.g. update_listing('LST-0013',
    'USR-0204', price=90.0).

    An auction that has bids keeps its price and end time."""
    listing = ListingId.get(ctx, listing_id)
    _owned(listing, seller_id)
    _open(ctx, listing)
    if title is None and description is None and price is None and extend_days is None:
        raise ToolError("Nothing to change: give a title, description, price or extend_days.")
    has_bids = _highest(ctx, listing_id) is not None
    if has_bids and (price is not None or extend_days is not None):
        raise ToolError(
            f"Auction {listing_id} already has bids; its price and end time can no longer change (title "
            "and description can)."
        )
    if title is not None and not title.strip():
        raise ToolError("The title must not be blank.")
    if price is not None and listing["reserve_price"] is not None and price > listing["reserve_price"]:
        raise ToolError(f"The starting price cannot exceed the reserve price ({listing['reserve_price']:.2f}).")
    ends = listing["ends_at"]
    if extend_days is not None:
        base = max(datetime.fromisoformat(ends), ctx.now)
        ends = fake.iso(base + timedelta(days=extend_days))
        if datetime.fromisoformat(ends) > ctx.now + timedelta(days=60):
            raise ToolError("A listing cannot end more than 60 days from now; extend by fewer days.")
    ctx.db.execute(
        "UPDATE listings SET title = ?, description = ?, price = ?, min_increment = ?, ends_at = ? "
        "WHERE listing_id = ?",
        (
            title.strip() if title is not None else listing["title"],
            description if description is not None else listing["description"],
            round(price, 2) if price is not None else listing["price"],
            increment(price) if price is not None else listing["min_increment"],
            ends,
            listing_id,
        ),
    )
    return _view(ctx, ListingId.get(ctx, listing_id))


@marketplace.write(returns=("listing", "user"))
def close_listing(ctx: Ctx, listing_id: ListingId, seller_id: SellerId) -> dict[str, Any]:
    """End an active listing as its seller, e.g. close_listing('LST-0007', 'USR-0239').

    An auction with bids that meet the reserve is sold to the highest bidder at their bid; otherwise the
    listing closes unsold. Pending offers are declined."""
    listing = ListingId.get(ctx, listing_id)
    _owned(listing, seller_id)
    _open(ctx, listing)
    top = _highest(ctx, listing_id)
    buyer = price = None
    reserve = listing["reserve_price"]
    if listing["listing_type"] == "auction" and top and (reserve is None or top["amount"] >= reserve):
        buyer, price = top["bidder_id"], top["amount"]
    status = "sold" if buyer else "closed"
    ends = min(listing["ends_at"], fake.iso(ctx.now))
    ctx.db.execute(
        "UPDATE listings SET status = ?, buyer_id = ?, sold_price = ?, closed_at = ?, ends_at = ? WHERE listing_id = ?",
        (status, buyer, price, fake.iso(ctx.now), ends, listing_id),
    )
    declined = ctx.db.execute(
        "UPDATE offers SET status = 'declined' WHERE listing_id = ? AND status = 'pending'", (listing_id,)
    ).rowcount
    return {
        "listing_id": listing_id,
        "status": status,
        "buyer_id": buyer,
        "sold_price": price,
        "offers_declined": declined,
    }


@marketplace.write(returns=("offer",))
def make_offer(
    ctx: Ctx,
    listing_id: ListingId,
    buyer_id: UserId,
    amount: Money,
    message: Annotated[str, Field(max_length=500, description="A note to the seller")] = "",
) -> dict[str, Any]:
    """Offer a price on an active fixed-price listing, e.g. make_offer('LST-0013', 'USR-0012', 80.0,
    'Can pick up today').

    At least half the asking price, not on your own listing, one pending offer per buyer and listing."""
    listing = ListingId.get(ctx, listing_id)
    buyer = UserId.get(ctx, buyer_id)
    if listing["listing_type"] != "fixed_price":
        raise ToolError(f"Listing {listing_id} is an auction; use place_bid instead of make_offer.")
    _open(ctx, listing)
    if listing["ends_at"] <= fake.iso(ctx.now):
        raise ToolError(f"Listing {listing_id} expired at {listing['ends_at']} and takes no offers.")
    if listing["seller_id"] == buyer_id:
        raise ToolError(f"{buyer_id} is the seller of {listing_id} and cannot make an offer on their own listing.")
    _active_user(buyer)
    if amount < listing["price"] * MIN_OFFER_SHARE:
        raise ToolError(
            f"Offers on {listing_id} must be at least half the asking price of {listing['price']:.2f} USD, "
            f"i.e. {listing['price'] * MIN_OFFER_SHARE:.2f} USD or more."
        )
    pending = ctx.db.execute(
        "SELECT offer_id FROM offers WHERE listing_id = ? AND buyer_id = ? AND status = 'pending'",
        (listing_id, buyer_id),
    ).fetchone()
    if pending:
        raise ToolError(
            f"{buyer_id} already has pending offer {pending[0]} on {listing_id}; wait for the seller to answer."
        )
    offer_id = next_id(ctx.db, "offers", "offer_id", "OFR")
    ctx.db.execute(
        "INSERT INTO offers VALUES (?,?,?,?,?,?,?)",
        (offer_id, listing_id, buyer_id, round(amount, 2), message, "pending", fake.iso(ctx.now)),
    )
    return {
        "offer_id": offer_id,
        "listing_id": listing_id,
        "buyer_id": buyer_id,
        "amount": round(amount, 2),
        "status": "pending",
    }


@marketplace.write(returns=("listing", "user"), requires=("make_offer",))
def accept_offer(ctx: Ctx, offer_id: OfferId, seller_id: SellerId) -> dict[str, Any]:
    """Accept a pending offer as the listing's seller, selling the item at the offered price, e.g.
    accept_offer('OFR-0004', 'USR-0204').

    The other pending offers on the listing are declined."""
    offer = OfferId.get(ctx, offer_id)
    listing = ListingId.get(ctx, offer["listing_id"])
    _owned(listing, seller_id)
    if offer["status"] != "pending":
        raise ToolError(f"Offer {offer_id} is already {offer['status']}; only pending offers can be accepted.")
    _open(ctx, listing)
    buyer = UserId.get(ctx, offer["buyer_id"])
    if buyer["status"] == "suspended":
        raise ToolError(f"The buyer {buyer['user_id']} has been suspended; accept another offer instead.")
    ctx.db.execute("UPDATE offers SET status = 'accepted' WHERE offer_id = ?", (offer_id,))
    declined = ctx.db.execute(
        "UPDATE offers SET status = 'declined' WHERE listing_id = ? AND status = 'pending'", (listing["listing_id"],)
    ).rowcount
    ctx.db.execute(
        "UPDATE listings SET status = 'sold', buyer_id = ?, sold_price = ?, closed_at = ? WHERE listing_id = ?",
        (offer["buyer_id"], offer["amount"], fake.iso(ctx.now), listing["listing_id"]),
    )
    return {
        "offer_id": offer_id,
        "listing_id": listing["listing_id"],
        "status": "sold",
        "buyer_id": offer["buyer_id"],
        "sold_price": offer["amount"],
        "offers_declined": declined,
    }
