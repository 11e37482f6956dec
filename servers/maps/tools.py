"""Maps tools: the server, its entities and the reads about places (geocoding, place search and details, nearby
search, routes and directions); reviews, users, lists and the writes live in ``tools_people``."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, Limit, Offset, Query, Server, ToolError, fake, fetch, listing
from servers.maps.schema import DAYS, MODES, SCHEMA, Mode, _bearing, _km
from servers.maps.seed import seed

maps = Server(
    "maps",
    "Maps: geocoding, places with ratings and hours, nearby search, routes and directions, saved places, lists, "
    "reviews.",
    SCHEMA,
    seed,
    family="mobility",
)


class PlaceId(
    EntityId, server=maps, example="PLC-0042", hint="Use search_places or search_nearby to find place ids."
): ...


class UserId(EntityId, server=maps, example="USR-0007", finder="search_users"): ...


class ListId(
    EntityId,
    server=maps,
    type="place_list",
    key="list_id",
    example="LST-0003",
    hint="get_user shows a user's lists; create_place_list makes a new one.",
): ...


Lat = Annotated[float, Field(ge=-90, le=90, description="Latitude in degrees, e.g. 47.6062")]
Lon = Annotated[float, Field(ge=-180, le=180, description="Longitude in degrees, e.g. -122.3321")]
Category = Literal[
    "restaurant", "cafe", "bar", "museum", "park", "pharmacy", "supermarket", "gas_station", "hotel", "gym", "bookstore"
]


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:])


def _open_at(place: dict[str, Any], when: datetime) -> bool:
    """Open at ``when``: hours may run past midnight, in which case the early hours belong to the previous day."""
    opens, closes = _minutes(place["opens"]), _minutes(place["closes"])
    t = when.hour * 60 + when.minute
    today, yesterday = DAYS[when.weekday()], DAYS[(when.weekday() - 1) % 7]
    if closes > opens:
        return place["closed_on"] != today and opens <= t < closes
    return (place["closed_on"] != today and t >= opens) or (place["closed_on"] != yesterday and t < closes)


def _hours(place: dict[str, Any]) -> dict[str, str]:
    return {d: "closed" if d == place["closed_on"] else f"{place['opens']}-{place['closes']}" for d in DAYS}


def _place(ctx: Ctx, place_id: str) -> dict[str, Any]:
    """The place with its full address (a join, so not ``PlaceId.get``)."""
    return fetch(
        ctx.db,
        "SELECT p.*, a.full_address AS address FROM places p JOIN addresses a USING (address_id) WHERE place_id = ?",
        (place_id,),
        PlaceId.not_found(place_id),
    )


def _summary(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any]:
    return {
        "place_id": p["place_id"],
        "name": p["name"],
        "category": p["category"],
        "cuisine": p["cuisine"],
        "city": p["city"],
        "lat": p["lat"],
        "lon": p["lon"],
        "rating": p["rating"],
        "review_count": p["review_count"],
        "price_level": p["price_level"],
        "open_now": _open_at(p, ctx.now),
    }


@maps.read(returns=("address",))
def geocode_address(
    ctx: Ctx,
    address: Annotated[
        str,
        Field(
            min_length=3,
            max_length=200,
            description="A street address, e.g. '363 Elm St, Seattle' (number and street, then city)",
        ),
    ],
    limit: Annotated[int, Field(ge=1, le=20, description="How many candidates at most")] = 5,
) -> dict[str, Any]:
    """Turn an address into coordinates, e.g. geocode_address('363 Elm St, Seattle'). Returns the best matches
    with latitude, longitude and address ids like 'ADR-0107'; a place's address also geocodes."""
    parts = [p.strip() for p in address.replace(".", " ").split(",") if p.strip()]
    if not parts:
        raise ToolError("Give an address such as '363 Elm St, Seattle'.")
    q = Query("SELECT * FROM addresses")
    for part in parts:
        q.where("full_address LIKE ?", f"%{' '.join(part.split())}%")
    found = q.rows(ctx.db, order_by="address_id", limit=limit)
    if not found:
        hint = ctx.rows(
            "SELECT full_address FROM addresses WHERE full_address LIKE ? ORDER BY address_id LIMIT 3",
            (f"%{parts[-1]}%",),
        )
        raise ToolError(
            f"No address matches {address!r}. Check the street number and spelling"
            + (
                f"; known addresses there include {', '.join(h['full_address'] for h in hint)}."
                if hint
                else "; covered cities are listed by get_distinct_values('city')."
            )
        )
    return listing(
        "matches", [{k: a[k] for k in ("address_id", "full_address", "city", "zip", "lat", "lon")} for a in found]
    )


@maps.read(returns=("address", "place"))
def reverse_geocode(ctx: Ctx, lat: Lat, lon: Lon) -> dict[str, Any]:
    """Find the nearest known street address (within 2 km) and the places at it,
    e.g. reverse_geocode(47.6062, -122.3321)."""
    near = ctx.rows(
        "SELECT * FROM addresses WHERE lat BETWEEN ? AND ? AND lon BETWEEN ? AND ?",
        (lat - 0.03, lat + 0.03, lon - 0.04, lon + 0.04),
    )
    best = min(near, key=lambda a: (_km(lat, lon, a["lat"], a["lon"]), a["address_id"]), default=None)
    if best is None or _km(lat, lon, best["lat"], best["lon"]) > 2.0:
        raise ToolError(
            f"No known address within 2 km of ({lat}, {lon}); the map covers the cities listed by "
            "get_distinct_values('city')."
        )
    places = ctx.column("SELECT place_id FROM places WHERE address_id = ? ORDER BY place_id", (best["address_id"],))
    return {
        "address_id": best["address_id"],
        "full_address": best["full_address"],
        "city": best["city"],
        "lat": best["lat"],
        "lon": best["lon"],
        "distance_m": round(_km(lat, lon, best["lat"], best["lon"]) * 1000),
        "place_ids": places,
    }


@maps.read(returns=("place",))
def search_places(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name or cuisine, e.g. 'coffee'")] = "",
    city: Annotated[str | None, Field(max_length=60, description="City, e.g. 'Seattle'")] = None,
    category: Category | None = None,
    min_rating: Annotated[float | None, Field(ge=0, le=5, description="Lowest average rating, e.g. 4.0")] = None,
    max_price_level: Annotated[
        int | None, Field(ge=1, le=4, description="Highest price level, 1 ($) to 4 ($$$$)")
    ] = None,
    open_now: Annotated[bool, Field(description="Only places open right now")] = False,
    sort_by: Literal["rating", "review_count", "name"] = "rating",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search places by name, cuisine, city, category, rating and price,
    e.g. search_places('coffee', city='Seattle', open_now=True).
    Returns place ids like 'PLC-0042'."""
    q = Query("SELECT * FROM places").contains(query.strip(), "name", "IFNULL(cuisine, '')", "category")
    q.filter("city LIKE ?", city).equal("category", category).filter("rating >= ?", min_rating)
    q.filter("price_level <= ?", max_price_level)
    order = {"rating": "rating DESC, review_count DESC", "review_count": "review_count DESC", "name": "name"}[sort_by]
    found = [_summary(ctx, p) for p in q.rows(ctx.db, order_by=f"{order}, place_id")]
    if open_now:
        found = [p for p in found if p["open_now"]]
    return {**listing("places", found[offset : offset + limit]), "total": len(found)}


@maps.read(returns=("place", "address", "review"))
def get_place(ctx: Ctx, place_id: PlaceId) -> dict[str, Any]:
    """Get a place: address, coordinates, phone, website, price level, rating, weekly opening hours, whether it
    is open now, and its three latest reviews, e.g. get_place('PLC-0042')."""
    p = _place(ctx, place_id)
    p["hours"] = _hours(p)
    p["open_now"] = _open_at(p, ctx.now)
    p["latest_reviews"] = ctx.rows(
        "SELECT review_id, user_id, rating, text, created_at FROM reviews WHERE place_id = ? "
        "ORDER BY created_at DESC, review_id DESC LIMIT 3",
        (place_id,),
    )
    return p


@maps.read(returns=("place",))
def search_nearby(
    ctx: Ctx,
    lat: Annotated[float | None, Field(ge=-90, le=90, description="Centre latitude; or give place_id")] = None,
    lon: Annotated[float | None, Field(ge=-180, le=180, description="Centre longitude; or give place_id")] = None,
    place_id: Annotated[str | None, PlaceId.ref("Search around this place instead of lat/lon, e.g. 'PLC-0042'")] = None,
    radius_km: Annotated[float, Field(gt=0, le=50, description="Search radius in km")] = 2.0,
    category: Category | None = None,
    open_now: Annotated[bool, Field(description="Only places open right now")] = False,
    limit: Limit = 10,
) -> dict[str, Any]:
    """Find places within a radius of a point or of a place, nearest first, with distances,
    e.g. search_nearby(lat=47.6062, lon=-122.3321, radius_km=5, category='restaurant') or
    search_nearby(place_id='PLC-0042')."""
    if place_id is not None:
        centre = _place(ctx, place_id)
        lat, lon = centre["lat"], centre["lon"]
    elif lat is None or lon is None:
        raise ToolError("Give both lat and lon, or a place_id to search around.")
    dlat = radius_km / 111.0
    dlon = radius_km / (111.0 * max(0.05, math.cos(math.radians(lat))))
    q = Query("SELECT * FROM places").where("lat BETWEEN ? AND ?", lat - dlat, lat + dlat)
    q.where("lon BETWEEN ? AND ?", lon - dlon, lon + dlon).equal("category", category)
    found = []
    for p in q.rows(ctx.db):
        d = _km(lat, lon, p["lat"], p["lon"])
        if d <= radius_km and p["place_id"] != place_id and (not open_now or _open_at(p, ctx.now)):
            found.append({**_summary(ctx, p), "distance_km": round(d, 3)})
    found.sort(key=lambda p: (p["distance_km"], p["place_id"]))
    return {"centre": {"lat": lat, "lon": lon}, **listing("places", found[:limit]), "total": len(found)}


def _route(
    ctx: Ctx, origin_place_id: str, destination_place_id: str, mode: str
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    if origin_place_id == destination_place_id:
        raise ToolError("Origin and destination are the same place; pick two different places.")
    a, b = _place(ctx, origin_place_id), _place(ctx, destination_place_id)
    factor, speed, wait, cap = MODES[mode]
    km = round(_km(a["lat"], a["lon"], b["lat"], b["lon"]) * factor, 2)
    if mode == "transit" and a["city"] != b["city"]:
        raise ToolError(
            f"Transit runs only within a city; {a['name']} is in {a['city']} and {b['name']} in {b['city']}. Use "
            "driving."
        )
    if km > cap:
        raise ToolError(
            f"{km:.0f} km is too far for {mode} (limit {cap:.0f} km)"
            + ("; use driving." if mode != "driving" else "; fly instead.")
        )
    if mode == "driving" and km > 30:
        minutes = 30 / speed * 60 + (km - 30) / 70.0 * 60
    else:
        minutes = km / speed * 60 + wait
    minutes = max(1, round(minutes))
    route = {
        "origin_place_id": origin_place_id,
        "destination_place_id": destination_place_id,
        "mode": mode,
        "distance_km": km,
        "duration_min": minutes,
        "depart_at": fake.iso(ctx.now),
        "arrive_at": fake.iso(ctx.now + timedelta(minutes=minutes)),
    }
    return route, a, b


@maps.read(returns=("place",))
def get_route(
    ctx: Ctx, origin_place_id: PlaceId, destination_place_id: PlaceId, mode: Mode = "driving"
) -> dict[str, Any]:
    """Distance and travel time between two places by driving, walking, cycling or transit, leaving now,
    e.g. get_route('PLC-0042', 'PLC-0047', 'walking'). Also says whether the destination is open on arrival."""
    route, _, b = _route(ctx, origin_place_id, destination_place_id, mode)
    route["open_on_arrival"] = _open_at(b, datetime.fromisoformat(route["arrive_at"]))
    return route


@maps.read(returns=("place",))
def get_directions(
    ctx: Ctx, origin_place_id: PlaceId, destination_place_id: PlaceId, mode: Mode = "driving"
) -> dict[str, Any]:
    """Turn-by-turn directions between two places, e.g. get_directions('PLC-0042', 'PLC-0047', 'cycling')."""
    route, a, b = _route(ctx, origin_place_id, destination_place_id, mode)
    heading = _bearing(a["lat"], a["lon"], b["lat"], b["lon"])
    compass = ("north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest")[
        round(heading / 45) % 8
    ]
    street_a = ctx.value("SELECT street FROM addresses WHERE address_id = ?", (a["address_id"],))
    street_b = ctx.value("SELECT street FROM addresses WHERE address_id = ?", (b["address_id"],))
    middle = fake.STREETS[int(abs(a["lat"] * 1000 + b["lon"] * 1000)) % len(fake.STREETS)]
    km = route["distance_km"]
    legs = [
        (f"Head {compass} on {street_a}", 0.15),
        (f"Turn {'right' if heading % 90 > 45 else 'left'} onto {middle}", 0.6),
        (f"Turn {'left' if heading % 90 > 45 else 'right'} onto {street_b}", 0.25),
    ]
    if mode == "transit":
        legs[1] = (f"Board the {middle} line toward {b['city']} centre and ride {max(1, round(km / 0.9))} stops", 0.6)
    steps = [
        {
            "step": i + 1,
            "instruction": text,
            "distance_km": round(km * share, 2),
            "duration_min": max(1, round(route["duration_min"] * share)),
        }
        for i, (text, share) in enumerate(legs)
    ]
    steps.append(
        {
            "step": len(steps) + 1,
            "instruction": f"Arrive at {b['name']}, {b['address']}",
            "distance_km": 0.0,
            "duration_min": 0,
        }
    )
    return {**route, "steps": steps}
