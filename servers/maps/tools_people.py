"""Maps tools about people: reviews, users with their saved places and lists, and the writes (save a place, make a
list, add to it, review)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from hub.kit import Ctx, Limit, Offset, Query, ToolError, fake, next_id
from servers.maps.tools import ListId, PlaceId, UserId, _place, maps


@maps.read(returns=("review", "user"))
def list_reviews(
    ctx: Ctx,
    place_id: PlaceId,
    min_rating: Annotated[int | None, Field(ge=1, le=5)] = None,
    max_rating: Annotated[int | None, Field(ge=1, le=5)] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List a place's reviews, newest first, optionally by star range, e.g. list_reviews('PLC-0042', max_rating=2)."""
    place = _place(ctx, place_id)
    q = Query("SELECT * FROM reviews").where("place_id = ?", place_id)
    q.filter("rating >= ?", min_rating).filter("rating <= ?", max_rating)
    return {
        "place_id": place_id,
        "rating": place["rating"],
        "review_count": place["review_count"],
        **q.page(ctx.db, "reviews", order_by="created_at DESC, review_id DESC", limit=limit, offset=offset),
    }


@maps.read(returns=("user",))
def search_users(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of a name or email, e.g. 'Chen'")] = "",
    home_city: Annotated[str | None, Field(max_length=60, description="Only users living in this city")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search map users by name or email, e.g. search_users('Chen'). Returns user ids like 'USR-0007'."""
    q = Query("SELECT user_id, name, email, home_city FROM users")
    q.contains(query, "name", "email").equal("home_city", home_city)
    return q.page(ctx.db, "users", order_by="user_id", limit=limit, offset=offset)


@maps.read(returns=("user", "place", "place_list", "address"))
def get_user(ctx: Ctx, user_id: UserId) -> dict[str, Any]:
    """Get a user's profile, home address, saved places (with labels) and place lists, e.g. get_user('USR-0007')."""
    user = UserId.get(ctx, user_id)
    user["home_address"] = ctx.value(
        "SELECT full_address FROM addresses WHERE address_id = ?", (user["home_address_id"],)
    )
    user["saved_places"] = ctx.rows(
        "SELECT s.saved_id, s.place_id, p.name, s.label, s.note, s.saved_at "
        "FROM saved_places s JOIN places p USING (place_id) "
        "WHERE s.user_id = ? ORDER BY s.saved_id",
        (user_id,),
    )
    user["lists"] = ctx.rows(
        "SELECT l.list_id, l.name, l.is_public, "
        "(SELECT COUNT(*) FROM list_items i WHERE i.list_id = l.list_id) AS places "
        "FROM place_lists l WHERE l.user_id = ? ORDER BY l.list_id",
        (user_id,),
    )
    user["review_count"] = ctx.value("SELECT COUNT(*) FROM reviews WHERE user_id = ?", (user_id,))
    return user


@maps.read(returns=("place_list", "place", "user"))
def get_place_list(ctx: Ctx, list_id: ListId) -> dict[str, Any]:
    """Get a place list with its places in the order they were added, e.g. get_place_list('LST-0003')."""
    lst = ListId.get(ctx, list_id)
    lst["places"] = ctx.rows(
        "SELECT i.place_id, p.name, p.category, p.rating, i.added_at "
        "FROM list_items i JOIN places p USING (place_id) "
        "WHERE i.list_id = ? ORDER BY i.added_at, i.place_id",
        (list_id,),
    )
    lst["is_public"] = bool(lst["is_public"])
    return lst


DISTINCT_FIELDS = {
    "city": ("places", "city"),
    "category": ("places", "category"),
    "cuisine": ("places", "cuisine"),
    "price_level": ("places", "price_level"),
    "street": ("addresses", "street"),
    "saved_label": ("saved_places", "label"),
    "home_city": ("users", "home_city"),
}


maps.distinct_values(DISTINCT_FIELDS, example="category", skip_null=True)


@maps.write(returns=("saved_place",))
def save_place(
    ctx: Ctx,
    user_id: UserId,
    place_id: PlaceId,
    label: Annotated[
        str, Field(min_length=1, max_length=40, description="A label, e.g. 'favorite' or 'want to go'")
    ] = "favorite",
    note: Annotated[str, Field(max_length=300, description="A private note")] = "",
) -> dict[str, Any]:
    """Save a place to a user's saved places, e.g. save_place('USR-0007', 'PLC-0042', 'want to go'). A place is saved
    once per user."""
    UserId.get(ctx, user_id)
    place = _place(ctx, place_id)
    dup = ctx.db.execute(
        "SELECT saved_id, label FROM saved_places WHERE user_id = ? AND place_id = ?", (user_id, place_id)
    ).fetchone()
    if dup:
        raise ToolError(f"{user_id} already saved {place['name']} as {dup[0]} (label '{dup[1]}'); see get_user.")
    saved_id = next_id(ctx.db, "saved_places", "saved_id", "SAV")
    ctx.db.execute(
        "INSERT INTO saved_places VALUES (?,?,?,?,?,?)",
        (saved_id, user_id, place_id, label.strip() or "favorite", note, fake.iso(ctx.now)),
    )
    return {
        "saved_id": saved_id,
        "user_id": user_id,
        "place_id": place_id,
        "name": place["name"],
        "label": label.strip() or "favorite",
    }


@maps.write(returns=("place_list",))
def create_place_list(
    ctx: Ctx,
    user_id: UserId,
    name: Annotated[str, Field(min_length=1, max_length=80, description="List name, e.g. 'Tokyo trip'")],
    description: Annotated[str, Field(max_length=300)] = "",
    is_public: bool = False,
) -> dict[str, Any]:
    """Create an empty place list for a user, e.g. create_place_list('USR-0007', 'Brunch spots'). Names are unique per
    user."""
    UserId.get(ctx, user_id)
    name = name.strip()
    if not name:
        raise ToolError("A list needs a non-blank name, e.g. 'Brunch spots'.")
    dup = ctx.db.execute("SELECT list_id FROM place_lists WHERE user_id = ? AND name = ?", (user_id, name)).fetchone()
    if dup:
        raise ToolError(
            f"{user_id} already has a list named {name!r} ({dup[0]}); add places to it with add_place_to_list or pick "
            "another name."
        )
    list_id = next_id(ctx.db, "place_lists", "list_id", "LST")
    ctx.db.execute(
        "INSERT INTO place_lists VALUES (?,?,?,?,?,?)",
        (list_id, user_id, name, description, int(is_public), fake.iso(ctx.now)),
    )
    return {"list_id": list_id, "user_id": user_id, "name": name}


@maps.write(requires=("create_place_list",))
def add_place_to_list(ctx: Ctx, list_id: ListId, place_id: PlaceId) -> dict[str, Any]:
    """Add a place to a place list, e.g. add_place_to_list('LST-0003', 'PLC-0042'). A list holds a place once, 100
    places at most."""
    lst = ListId.get(ctx, list_id)
    place = _place(ctx, place_id)
    if ctx.db.execute("SELECT 1 FROM list_items WHERE list_id = ? AND place_id = ?", (list_id, place_id)).fetchone():
        raise ToolError(f"{place['name']} ({place_id}) is already on list {lst['name']!r}.")
    size = ctx.value("SELECT COUNT(*) FROM list_items WHERE list_id = ?", (list_id,))
    if size >= 100:
        raise ToolError(f"List {lst['name']!r} is full (100 places); create another list with create_place_list.")
    ctx.db.execute("INSERT INTO list_items VALUES (?,?,?)", (list_id, place_id, fake.iso(ctx.now)))
    return {"list_id": list_id, "place_id": place_id, "places": size + 1}


@maps.write(returns=("review",))
def write_review(
    ctx: Ctx,
    user_id: UserId,
    place_id: PlaceId,
    rating: Annotated[int, Field(ge=1, le=5, description="Stars, 1 to 5")],
    text: Annotated[
        str, Field(min_length=1, max_length=1000, description="The review, e.g. 'Great espresso, tiny seating area.'")
    ],
) -> dict[str, Any]:
    """Review a place; the place's average rating and count update,
    e.g. write_review('USR-0007', 'PLC-0042', 4, 'Great espresso.').
    A user reviews a place once."""
    UserId.get(ctx, user_id)
    place = _place(ctx, place_id)
    dup = ctx.db.execute(
        "SELECT review_id FROM reviews WHERE user_id = ? AND place_id = ?", (user_id, place_id)
    ).fetchone()
    if dup:
        raise ToolError(f"{user_id} already reviewed {place['name']} ({dup[0]}); a place is reviewed once per user.")
    if not text.strip():
        raise ToolError("The review text is blank; say something about the place.")
    review_id = next_id(ctx.db, "reviews", "review_id", "REV", 5)
    ctx.db.execute(
        "INSERT INTO reviews VALUES (?,?,?,?,?,?)",
        (review_id, place_id, user_id, rating, text.strip(), fake.iso(ctx.now)),
    )
    count = place["review_count"] + 1
    avg = round((place["rating"] * place["review_count"] + rating) / count, 2)
    ctx.db.execute("UPDATE places SET rating = ?, review_count = ? WHERE place_id = ?", (avg, count, place_id))
    return {"review_id": review_id, "place_id": place_id, "rating": rating, "place_rating": avg, "review_count": count}


server = maps
