"""Maps: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from typing import Any

from tests.conftest import World

M = "maps"


def places(world: World, city: str = "Seattle", **kw: Any) -> list[dict[str, Any]]:
    return world.ok(M, "search_places", city=city, limit=50, **kw)["places"]


def test_geocode_and_reverse(world: World) -> None:
    match = world.ok(M, "geocode_address", address="363 Elm St, Seattle")["matches"][0]
    assert match["city"] == "Seattle" and match["address_id"].startswith("ADR-")
    back = world.ok(M, "reverse_geocode", lat=match["lat"], lon=match["lon"])
    assert back["address_id"] == match["address_id"] and back["distance_m"] == 0
    assert "No address matches" in world.err(M, "geocode_address", address="1 Nowhere Lane, Atlantis")
    assert "Give an address" in world.err(M, "geocode_address", address=" , ,")
    assert "No known address within 2 km" in world.err(M, "reverse_geocode", lat=0.0, lon=0.0)
    assert "invalid arguments" in world.err(M, "reverse_geocode", lat=91.0, lon=0.0)


def test_search_and_get_place(world: World) -> None:
    found = places(world, category="cafe")
    assert found and all(p["category"] == "cafe" for p in found)
    assert [p["rating"] for p in found] == sorted((p["rating"] for p in found), reverse=True)
    open_now = places(world, open_now=True)
    assert open_now and all(p["open_now"] for p in open_now)
    place = world.ok(M, "get_place", place_id=found[0]["place_id"])
    assert place["address"].endswith(place["address"].split(", ")[-1]) and set(place["hours"]) >= {"monday", "sunday"}
    assert place["open_now"] == found[0]["open_now"]
    assert world.ok(M, "search_places", query="zzzz-no-such-place")["count"] == 0
    assert "No place" in world.err(M, "get_place", place_id="PLC-9999")
    assert "invalid arguments" in world.err(M, "search_places", min_rating=7)


def test_search_nearby(world: World) -> None:
    centre = places(world)[0]
    near = world.ok(M, "search_nearby", place_id=centre["place_id"], radius_km=5)
    dists = [p["distance_km"] for p in near["places"]]
    assert (
        dists == sorted(dists)
        and all(d <= 5 for d in dists)
        and centre["place_id"] not in [p["place_id"] for p in near["places"]]
    )
    by_point = world.ok(M, "search_nearby", lat=centre["lat"], lon=centre["lon"], radius_km=5, category="restaurant")
    assert all(p["category"] == "restaurant" for p in by_point["places"])
    assert world.ok(M, "search_nearby", lat=0.0, lon=0.0, radius_km=1)["count"] == 0
    assert "Give both lat and lon" in world.err(M, "search_nearby", lat=47.6)
    assert "No place" in world.err(M, "search_nearby", place_id="PLC-0000")


def test_route_and_directions(world: World) -> None:
    a, b = places(world)[:2]
    walk = world.ok(M, "get_route", origin_place_id=a["place_id"], destination_place_id=b["place_id"], mode="walking")
    drive = world.ok(M, "get_route", origin_place_id=a["place_id"], destination_place_id=b["place_id"], mode="driving")
    assert walk["duration_min"] > drive["duration_min"] and walk["distance_km"] < drive["distance_km"]
    assert walk["depart_at"] == "2026-06-01T09:00:00" and walk["arrive_at"] > walk["depart_at"]
    steps = world.ok(
        M, "get_directions", origin_place_id=a["place_id"], destination_place_id=b["place_id"], mode="transit"
    )["steps"]
    assert steps[-1]["instruction"].startswith("Arrive at") and len(steps) == 4
    far = places(world, city="Boston")[0]
    assert "Transit runs only within a city" in world.err(
        M, "get_route", origin_place_id=a["place_id"], destination_place_id=far["place_id"], mode="transit"
    )
    assert "too far for walking" in world.err(
        M, "get_directions", origin_place_id=a["place_id"], destination_place_id=far["place_id"], mode="walking"
    )
    assert (
        world.ok(M, "get_route", origin_place_id=a["place_id"], destination_place_id=far["place_id"])["distance_km"]
        > 3000
    )
    assert "same place" in world.err(M, "get_route", origin_place_id=a["place_id"], destination_place_id=a["place_id"])
    assert "invalid arguments" in world.err(
        M, "get_directions", origin_place_id=a["place_id"], destination_place_id=b["place_id"], mode="flying"
    )


def test_reviews_and_write_review(world: World) -> None:
    place = places(world)[0]
    got = world.ok(M, "list_reviews", place_id=place["place_id"])
    assert got["count"] == place["review_count"] or got["count"] == 20
    users = world.ok(M, "search_users", limit=100)["users"]
    reviewed = {r["user_id"] for r in got["reviews"]}
    user = next(u for u in users if u["user_id"] not in reviewed)
    out = world.ok(
        M, "write_review", user_id=user["user_id"], place_id=place["place_id"], rating=5, text="Lovely spot."
    )
    after = world.ok(M, "get_place", place_id=place["place_id"])
    assert after["review_count"] == place["review_count"] + 1 and after["rating"] == out["place_rating"]
    assert after["latest_reviews"][0]["review_id"] == out["review_id"]
    assert (
        world.ok(M, "list_reviews", place_id=place["place_id"], min_rating=5)["reviews"][0]["review_id"]
        == out["review_id"]
    )
    assert "already reviewed" in world.err(
        M, "write_review", user_id=user["user_id"], place_id=place["place_id"], rating=1, text="x"
    )
    assert "blank" in world.err(
        M, "write_review", user_id=users[-1]["user_id"], place_id=place["place_id"], rating=3, text="   "
    )
    assert "invalid arguments" in world.err(
        M, "write_review", user_id=user["user_id"], place_id=place["place_id"], rating=6, text="x"
    )
    assert "No place" in world.err(M, "list_reviews", place_id="PLC-0000")


def test_users_and_lists(world: World) -> None:
    users = world.ok(M, "search_users", home_city="Seattle")["users"]
    assert users and all(u["home_city"] == "Seattle" for u in users)
    with_list = None
    for u in world.ok(M, "search_users", limit=100)["users"]:
        full = world.ok(M, "get_user", user_id=u["user_id"])
        if full["lists"]:
            with_list = full
            break
    assert with_list and with_list["home_address"]
    lst = world.ok(M, "get_place_list", list_id=with_list["lists"][0]["list_id"])
    assert len(lst["places"]) == with_list["lists"][0]["places"]
    assert "No user" in world.err(M, "get_user", user_id="USR-9999")
    assert "No place list" in world.err(M, "get_place_list", list_id="LST-9999")
    assert "invalid arguments" in world.err(M, "search_users", limit=0)


def test_save_place(world: World) -> None:
    user = world.ok(M, "search_users", home_city="Seattle")["users"][0]["user_id"]
    saved = {s["place_id"] for s in world.ok(M, "get_user", user_id=user)["saved_places"]}
    place = next(p for p in places(world) if p["place_id"] not in saved)
    out = world.ok(M, "save_place", user_id=user, place_id=place["place_id"], label="want to go", note="try brunch")
    mine = world.ok(M, "get_user", user_id=user)["saved_places"]
    assert {"saved_id": out["saved_id"], "label": "want to go"}.items() <= next(
        s for s in mine if s["place_id"] == place["place_id"]
    ).items()
    assert "already saved" in world.err(M, "save_place", user_id=user, place_id=place["place_id"])
    assert "No user" in world.err(M, "save_place", user_id="USR-0000", place_id=place["place_id"])


def test_create_list_and_add_places(world: World) -> None:
    user = world.ok(M, "search_users", limit=1)["users"][0]["user_id"]
    lst = world.ok(M, "create_place_list", user_id=user, name="Brunch spots", description="weekend", is_public=True)
    assert lst["list_id"] in [x["list_id"] for x in world.ok(M, "get_user", user_id=user)["lists"]]
    assert "already has a list" in world.err(M, "create_place_list", user_id=user, name="Brunch spots")
    assert "non-blank" in world.err(M, "create_place_list", user_id=user, name="   ")
    p1, p2 = places(world)[:2]
    world.ok(M, "add_place_to_list", list_id=lst["list_id"], place_id=p1["place_id"])
    world.ok(M, "add_place_to_list", list_id=lst["list_id"], place_id=p2["place_id"])
    got = world.ok(M, "get_place_list", list_id=lst["list_id"])
    assert {p["place_id"] for p in got["places"]} == {p1["place_id"], p2["place_id"]} and got["is_public"] is True
    assert "already on list" in world.err(M, "add_place_to_list", list_id=lst["list_id"], place_id=p1["place_id"])
    assert "No place list" in world.err(M, "add_place_to_list", list_id="LST-0000", place_id=p1["place_id"])


def test_distinct_values(world: World) -> None:
    cities = world.ok(M, "get_distinct_values", field="city")["values"]
    assert len(cities) == 20 and all(n >= 20 for n in cities.values())
    assert "cafe" in world.ok(M, "get_distinct_values", field="category")["values"]
    assert "invalid arguments" in world.err(M, "get_distinct_values", field="password")
