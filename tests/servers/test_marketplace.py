"""Marketplace: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from typing import Any

from tests.conftest import World

M = "marketplace"


def live_auction(world: World, with_bids: bool = True) -> dict:
    for item in world.ok(M, "search_listings", listing_type="auction", limit=100)["listings"]:
        listing = world.ok(M, "get_listing", listing_id=item["listing_id"])
        if not listing["ended"] and (listing["bid_count"] > 0) == with_bids and listing["hours_left"] > 1:
            return listing
    raise AssertionError("no live auction")


def outsider(world: World, *exclude: str) -> str:
    users = world.ok(M, "search_users", status="active", limit=50)["users"]
    return next(u["user_id"] for u in users if u["user_id"] not in exclude)


def live_fixed(world: World) -> dict:
    for item in world.ok(M, "search_listings", listing_type="fixed_price", limit=100)["listings"]:
        listing = world.ok(M, "get_listing", listing_id=item["listing_id"])
        if not listing["ended"]:
            return listing
    raise AssertionError("no live fixed-price listing")


def test_search_and_get(world: World) -> None:
    found = world.ok(M, "search_listings", category="Cameras", limit=10)["listings"]
    assert found and all(x["category"] == "Cameras" and x["status"] == "active" for x in found)
    soon = world.ok(M, "search_listings", ending_within_hours=24, limit=100)["listings"]
    assert all(found["ends_at"] > "2026-06-01T09:00:00" for found in soon)
    cheap = world.ok(M, "search_listings", max_price=50.0, sort="price_desc", status=None, limit=20)["listings"]
    assert cheap and all(x["current_price"] <= 50 for x in cheap)
    assert "invalid arguments" in world.err(M, "search_listings", category="Spaceships")
    listing = world.ok(M, "get_listing", listing_id=found[0]["listing_id"])
    assert "reserve_price" not in listing and listing["current_price"] == found[0]["current_price"]
    assert "No listing" in world.err(M, "get_listing", listing_id="LST-9999")


def test_users_bids_offers_distinct(world: World) -> None:
    sellers = world.ok(M, "search_users", role="seller", limit=5)["users"]
    assert sellers and all(u["role"] == "seller" for u in sellers)
    assert "invalid arguments" in world.err(M, "search_users", role="admin")
    user = world.ok(M, "get_user", user_id=sellers[0]["user_id"])
    assert "active_listing_ids" in user
    assert "No user" in world.err(M, "get_user", user_id="")
    auction = live_auction(world)
    bids = world.ok(M, "list_bids", listing_id=auction["listing_id"])["bids"]
    assert bids[0]["amount"] == auction["current_price"] and bids[0]["bidder_id"] == auction["highest_bidder_id"]
    assert "No listing" in world.err(M, "list_bids", listing_id="LST-0000")
    pending = world.ok(M, "list_offers", status="pending", limit=5)["offers"]
    assert pending and all(o["status"] == "pending" for o in pending)
    assert "invalid arguments" in world.err(M, "list_offers", status="maybe")
    assert "auction" in world.ok(M, "get_distinct_values", field="listing_type")["values"]
    assert "invalid arguments" in world.err(M, "get_distinct_values", field="password")


def test_bidding_rules(world: World) -> None:
    auction = live_auction(world)
    lid, seller, top = auction["listing_id"], auction["seller_id"], auction["highest_bidder_id"]
    bidder = outsider(world, seller, top)
    low = auction["min_next_bid"] - 0.5
    assert "must beat the highest bid" in world.err(M, "place_bid", listing_id=lid, bidder_id=bidder, amount=low)
    assert "own listing" in world.err(M, "place_bid", listing_id=lid, bidder_id=seller, amount=auction["min_next_bid"])
    assert "already the highest bidder" in world.err(
        M, "place_bid", listing_id=lid, bidder_id=top, amount=auction["min_next_bid"] + 100
    )
    bid = world.ok(M, "place_bid", listing_id=lid, bidder_id=bidder, amount=auction["min_next_bid"])
    after = world.ok(M, "get_listing", listing_id=lid)
    assert after["highest_bidder_id"] == bidder and after["bid_count"] == auction["bid_count"] + 1
    assert after["min_next_bid"] == bid["min_next_bid"]
    assert lid in world.ok(M, "get_user", user_id=bidder)["leading_bid_listing_ids"]
    fixed = live_fixed(world)
    assert "use make_offer" in world.err(M, "place_bid", listing_id=fixed["listing_id"], bidder_id=bidder, amount=10.0)


def test_first_bid_and_ended_auction(world: World) -> None:
    fresh = live_auction(world, with_bids=False)
    bidder = outsider(world, fresh["seller_id"])
    assert "starting price" in world.err(
        M, "place_bid", listing_id=fresh["listing_id"], bidder_id=bidder, amount=fresh["price"] * 0.5
    )
    world.ok(M, "place_bid", listing_id=fresh["listing_id"], bidder_id=bidder, amount=fresh["price"])
    assert world.ok(M, "list_bids", listing_id=fresh["listing_id"])["count"] == 1
    ended = next(
        x
        for x in world.ok(M, "search_listings", listing_type="auction", sort="ending_soon", limit=100)["listings"]
        if x["ends_at"] <= "2026-06-01T09:00:00"
    )
    assert "ended" in world.err(
        M,
        "place_bid",
        listing_id=ended["listing_id"],
        bidder_id=outsider(world, ended["seller_id"]),
        amount=1_000_000.0,
    )
    closed = world.ok(M, "search_listings", status="sold", listing_type="auction", limit=1)["listings"][0]
    assert "is sold" in world.err(M, "place_bid", listing_id=closed["listing_id"], bidder_id=bidder, amount=1_000_000.0)
    suspended = world.ok(M, "search_users", status="suspended", limit=1)["users"][0]["user_id"]
    assert "suspended" in world.err(
        M, "place_bid", listing_id=fresh["listing_id"], bidder_id=suspended, amount=1_000_000.0
    )


def test_create_update_close_listing(world: World) -> None:
    seller = world.ok(M, "search_users", role="seller", status="active", limit=1)["users"][0]["user_id"]
    buyer = world.ok(M, "search_users", role="buyer", status="active", limit=1)["users"][0]["user_id"]
    assert "buyer account" in world.err(
        M, "create_listing", seller_id=buyer, title="My old bike", category="Sporting Goods", price=100.0
    )
    assert "reserve price" in world.err(
        M,
        "create_listing",
        seller_id=seller,
        title="Leica M6",
        category="Cameras",
        price=900.0,
        listing_type="auction",
        reserve_price=500.0,
    )
    new = world.ok(
        M,
        "create_listing",
        seller_id=seller,
        title="Leica M6 - Clean",
        category="Cameras",
        price=900.0,
        listing_type="auction",
        duration_days=5,
        reserve_price=1200.0,
    )
    got = world.ok(M, "get_listing", listing_id=new["listing_id"])
    assert (
        got["status"] == "active"
        and got["ends_at"] == "2026-06-06T09:00:00"
        and got["has_reserve"]
        and not got["reserve_met"]
    )
    assert new["listing_id"] in world.ok(M, "get_user", user_id=seller)["active_listing_ids"]
    world.ok(M, "update_listing", listing_id=new["listing_id"], seller_id=seller, price=850.0, extend_days=2)
    got = world.ok(M, "get_listing", listing_id=new["listing_id"])
    assert got["price"] == 850.0 and got["ends_at"] == "2026-06-08T09:00:00"
    assert "only its seller" in world.err(
        M, "update_listing", listing_id=new["listing_id"], seller_id=buyer, title="Mine now"
    )
    assert "Nothing to change" in world.err(M, "update_listing", listing_id=new["listing_id"], seller_id=seller)
    world.ok(M, "place_bid", listing_id=new["listing_id"], bidder_id=buyer, amount=1000.0)
    assert "already has bids" in world.err(
        M, "update_listing", listing_id=new["listing_id"], seller_id=seller, price=700.0
    )
    closed = world.ok(M, "close_listing", listing_id=new["listing_id"], seller_id=seller)
    assert closed["status"] == "closed"  # reserve of 1200 not met by the 1000 bid
    assert world.ok(M, "get_listing", listing_id=new["listing_id"])["status"] == "closed"
    assert "is closed" in world.err(M, "close_listing", listing_id=new["listing_id"], seller_id=seller)


def test_close_auction_sells_to_highest_bidder(world: World) -> None:
    auction = live_auction(world)
    if not auction["reserve_met"]:
        auction = next(
            world.ok(M, "get_listing", listing_id=x["listing_id"])
            for x in world.ok(M, "search_listings", listing_type="auction", limit=100)["listings"]
            if world.ok(M, "get_listing", listing_id=x["listing_id"])["bid_count"]
            and world.ok(M, "get_listing", listing_id=x["listing_id"])["reserve_met"]
        )
    out = world.ok(M, "close_listing", listing_id=auction["listing_id"], seller_id=auction["seller_id"])
    got = world.ok(M, "get_listing", listing_id=auction["listing_id"])
    assert out["status"] == got["status"] == "sold"
    assert got["buyer_id"] == auction["highest_bidder_id"] and got["sold_price"] == auction["current_price"]
    assert (
        auction["listing_id"] in world.ok(M, "get_user", user_id=auction["highest_bidder_id"])["purchased_listing_ids"]
    )


def test_offers(world: World) -> None:
    fixed = live_fixed(world)
    lid, seller = fixed["listing_id"], fixed["seller_id"]
    buyer = outsider(world, seller)
    already = {o["buyer_id"] for o in world.ok(M, "list_offers", listing_id=lid, status="pending")["offers"]}
    buyer = outsider(world, seller, *already)
    assert "at least half" in world.err(M, "make_offer", listing_id=lid, buyer_id=buyer, amount=fixed["price"] * 0.3)
    assert "own listing" in world.err(M, "make_offer", listing_id=lid, buyer_id=seller, amount=fixed["price"])
    offer = world.ok(
        M, "make_offer", listing_id=lid, buyer_id=buyer, amount=round(fixed["price"] * 0.8, 2), message="Cash ready"
    )
    assert offer["offer_id"] in [
        o["offer_id"] for o in world.ok(M, "list_offers", listing_id=lid, status="pending")["offers"]
    ]
    assert "already has pending offer" in world.err(
        M, "make_offer", listing_id=lid, buyer_id=buyer, amount=fixed["price"]
    )
    auction = live_auction(world)
    assert "use place_bid" in world.err(M, "make_offer", listing_id=auction["listing_id"], buyer_id=buyer, amount=10.0)
    assert "only its seller" in world.err(M, "accept_offer", offer_id=offer["offer_id"], seller_id=buyer)
    sold = world.ok(M, "accept_offer", offer_id=offer["offer_id"], seller_id=seller)
    got = world.ok(M, "get_listing", listing_id=lid)
    assert got["status"] == "sold" and got["buyer_id"] == buyer and got["sold_price"] == offer["amount"]
    assert world.ok(M, "list_offers", listing_id=lid, status="pending")["count"] == 0
    assert sold["offers_declined"] == len(already)
    assert "already accepted" in world.err(M, "accept_offer", offer_id=offer["offer_id"], seller_id=seller)
    assert "No offer" in world.err(M, "accept_offer", offer_id="OFR-9999", seller_id=seller)


def test_odd_inputs_are_tool_errors(world: World) -> None:
    cases: list[tuple[str, dict[str, Any]]] = [
        ("get_listing", {"listing_id": ""}),
        ("search_listings", {"query": "%_'", "offset": 100_000}),
        ("place_bid", {"listing_id": "LST-0007", "bidder_id": "nobody", "amount": 10_000_000.0}),
        ("update_listing", {"listing_id": "LST-0013", "seller_id": "USR-0204", "extend_days": 30}),
        ("make_offer", {"listing_id": "x" * 40, "buyer_id": "USR-0001", "amount": 1e-9}),
    ]
    for tool, args in cases:
        out = world.call(M, tool, **args)
        assert out.error_kind != "internal", (tool, out.error)
