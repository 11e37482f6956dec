"""Openers on the retail chain that only look something up: a shopper checking where an item is, store staff
looking over their shelves and shipments, an analyst browsing the catalog and the locations."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip
from servers.retail_chain.intents import (
    CATEGORY_WORDS,
    SHOPPERS,
    WORDS,
    as_shopper,
    find_product,
    find_store,
    listed_store,
    product_ref,
    role,
    staff,
    stock_in_my_city,
    store_ref,
)
from servers.retail_chain.tools import retail_chain


@retail_chain.intent(covers=("search_products", "check_stock"), weight=1.5)
def shopper_looks(s: Scene) -> None:
    """A shopper asks whether an item is in stock in their city (or anywhere), before deciding."""
    row = s.pick(
        "SELECT DISTINCT s.city, p.sku, p.name FROM inventory i JOIN stores s USING (store_id) JOIN products p "
        "USING (sku) WHERE s.kind = 'store' AND s.status = 'open' AND i.on_hand - i.reserved >= 1"
    )
    as_shopper(s)
    what = product_ref(s, row)
    stock_in_my_city(s, row, what, "Looking for {what} around {city}.")


@retail_chain.intent(covers=("search_products",), weight=1.2)
def catalog_lookup(s: Scene) -> None:
    """Someone asks whether the chain carries an item and how many are available chain-wide."""
    staff(s)
    row = s.pick("SELECT * FROM products")
    what = product_ref(s, row)
    by_cat = s.rng.random() < 0.4
    s.say(WORDS.catalog_lookup, what=what)
    args: dict[str, Any] = {"category": row["category"]} if by_cat else {}
    find_product(s, row, **args)


@retail_chain.intent(covers=("list_stores", "list_store_inventory", "check_stock"), weight=1.2)
def store_shelf(s: Scene) -> None:
    """A store employee asks what their location holds in one category (or what is running low)."""
    staff(s)
    st = s.pick("SELECT * FROM stores WHERE status = 'open'")
    where = store_ref(s, st["store_id"], st["name"])
    low = s.rng.random() < 0.5
    cat = s.pick(
        "SELECT DISTINCT p.category FROM inventory i JOIN products p USING (sku) WHERE i.store_id = ?", st["store_id"]
    )["category"]
    if low:
        s.say(*WORDS.low, minimal=["{w}: low stock?"], w=where)
    else:
        s.say(WORDS.store_shelf, c=CATEGORY_WORDS[cat], w=where)
    sid = find_store(s, st)
    args: dict[str, Any] = {"low_stock_only": True} if low else {"category": cat}
    items = s.call("list_store_inventory", store_id=sid, **args)["items"]
    if items and s.rng.random() < 0.6 and s.room(calls=1, turns=1):
        item = s.choose(items, itemgetter("name"), none="nothing", alike="same name")
        s.memory["product"] = {"sku": item["sku"], "name": item["name"]}
        s.say(WORDS.store_shelf_then_other_stores, n=item["name"])
        s.call("check_stock", sku=item["sku"], min_available=1, limit=10)


@retail_chain.intent(covers=("list_stores", "list_transfers"), weight=1.0)
def store_shipments(s: Scene) -> None:
    """A store manager asks what their location received from (or sent to) other locations lately."""
    staff(s)
    st = s.pick(
        "SELECT s.* FROM stores s WHERE EXISTS (SELECT 1 FROM transfers t WHERE t.to_store_id = s.store_id OR "
        "t.from_store_id = s.store_id)"
    )
    where = store_ref(s, st["store_id"], st["name"])
    way = "both" if s.minimal else s.rng.choice(("in", "out", "both"))
    said = {"in": "received from", "out": "sent to", "both": "traded with"}[way]
    s.say(WORDS.store_shipments, w=where, d=said)
    sid = find_store(s, st)
    args: dict[str, Any] = {} if way == "both" else {"direction": way}
    s.call("list_transfers", store_id=sid, **args)


@retail_chain.intent(covers=("list_stores", "get_store"), weight=1.0)
def stores_in_city(s: Scene) -> None:
    """Someone asks which locations are in a city (or a state), then about one of them."""
    st = s.pick("SELECT * FROM stores WHERE kind = 'store'")
    by_state = s.rng.random() < 0.3
    s.say(WORDS.stores_in_city, w=st["state"] if by_state else st["city"])
    args = {"state": st["state"]} if by_state else {"city": st["city"]}
    found = listed_store(s, st["store_id"], **args)
    if s.by_chance(0.5):
        s.say(*WORDS.reach, n=st["name"])
        s.call("get_store", store_id=found["store_id"])


@retail_chain.intent(covers=("get_distinct_values", "list_stores"), weight=0.6)
def where_we_are(s: Scene) -> None:
    """An analyst asks which cities the chain is in, then for the open locations of one."""
    staff(s)
    st = s.pick("SELECT * FROM stores WHERE kind = 'store' AND status = 'open'")
    s.say(WORDS.where_we_are)
    s.call("get_distinct_values", field="city")
    s.say(WORDS.where_we_are_then_open_in_city, c=st["city"])
    listed_store(s, st["store_id"], city=st["city"], status="open")


@retail_chain.intent(covers=("search_products", "check_stock"), weight=1.0)
def discontinued_check(s: Scene) -> None:
    """A buyer checks the discontinued items of a category and where units of one are left."""
    staff(s)
    row = s.pick("SELECT * FROM products WHERE status = 'discontinued'")
    s.say(WORDS.discontinued_check, c=CATEGORY_WORDS[row["category"]])
    hit = s.find(
        "search_products",
        "products",
        "sku",
        row["sku"],
        missing="not listed",
        category=row["category"],
        status="discontinued",
    )
    s.memory["product"] = hit
    s.say(WORDS.discontinued_check_then_where, n=row["name"])
    s.call("check_stock", sku=hit["sku"], min_available=1)


@retail_chain.intent(covers=("search_products", "check_stock"), weight=1.2)
def brand_shopping(s: Scene) -> None:
    """A shopper asks what a brand has in a category, then where one of those items is in stock in their city."""
    row = s.pick(
        "SELECT DISTINCT p.brand, p.category, s.city FROM products p JOIN inventory i USING (sku) JOIN stores s "
        "USING (store_id) WHERE s.kind = 'store' AND s.status = 'open' AND i.on_hand - i.reserved >= 1"
    )
    as_shopper(s)
    s.say(WORDS.brand_shopping, b=row["brand"], c=CATEGORY_WORDS[row["category"]])
    found = s.call("search_products", query=row["brand"], category=row["category"])["products"]
    item = s.choose(found, itemgetter("name"), none="nothing listed", alike="same name")
    if not s.rows(
        "SELECT 1 FROM inventory i JOIN stores s USING (store_id) WHERE i.sku = ? AND s.city = ? AND "
        "i.on_hand - i.reserved >= 1",
        item["sku"],
        row["city"],
    ):
        raise Skip("not in stock in the city")
    s.memory["product"] = item
    s.say(WORDS.brand_shopping_then_in_city, n=item["name"], c=row["city"])
    s.call("check_stock", sku=item["sku"], city=row["city"], min_available=1)


@retail_chain.intent(covers=("list_stores", "list_store_inventory"), weight=0.8)
def warehouse_stock(s: Scene) -> None:
    """A buyer asks what a distribution center holds in one category."""
    staff(s)
    dc = s.pick("SELECT * FROM stores WHERE kind = 'distribution_center'")
    cat = s.pick(
        "SELECT DISTINCT p.category FROM inventory i JOIN products p USING (sku) WHERE i.store_id = ?", dc["store_id"]
    )["category"]
    s.say(WORDS.warehouse_stock, c=CATEGORY_WORDS[cat], city=dc["city"])
    found = listed_store(s, dc["store_id"], city=dc["city"], kind="distribution_center")
    s.call("list_store_inventory", store_id=found["store_id"], category=cat)


@retail_chain.intent(covers=("list_stores", "search_products", "reserve_for_pickup"), weight=1.0)
def phone_order_hold(s: Scene) -> None:
    """A store employee holds an item for a customer who called, at their store."""
    staff(s)
    row = s.pick(
        "SELECT s.store_id, s.name AS store, s.city, p.sku, p.name FROM inventory i JOIN stores s USING (store_id) "
        "JOIN products p USING (sku) WHERE s.kind = 'store' AND s.status = 'open' AND i.on_hand - i.reserved >= 1"
    )
    who = s.rng.choice(SHOPPERS)
    name = s.given(who, who, "customer's name", "reserve_for_pickup", "customer_name")
    where = store_ref(s, row["store_id"], row["store"])
    what = product_ref(s, row)
    s.say(WORDS.phone_order_hold, w=where, i=what, n=name)
    sid = find_store(s, {"store_id": row["store_id"], "city": row["city"]})
    sku = find_product(s, row)
    out = s.call("reserve_for_pickup", store_id=sid, sku=sku, customer_name=who)
    s.memory["hold"] = out["reservation_id"]


def store_and_item(s: Scene, where: str = "1=1") -> dict[str, Any]:
    """A location and an item it carries (first column names as in the queries below)."""
    return s.pick(
        "SELECT s.store_id, s.name AS store, s.city, s.kind, s.status, p.sku, p.name, p.brand, p.category, "
        "i.on_hand - i.reserved AS available FROM inventory i JOIN stores s USING (store_id) JOIN products p "
        f"USING (sku) WHERE {where}"
    )


@retail_chain.intent(covers=("search_products", "list_stores", "check_stock"), weight=1.3)
def stock_at_store(s: Scene) -> None:
    """Someone asks how many of an item one location has (a shopper before driving over, or staff)."""
    row = store_and_item(s, "s.status = 'open' AND s.kind = 'store'")
    shopper = s.rng.random() < 0.5
    if shopper:
        as_shopper(s)
    else:
        role(s, "staff")
    where = store_ref(s, row["store_id"], row["store"])
    what = product_ref(s, row)
    s.say(
        "How many of {i} does {w} have right now?",
        "Does {w} have {i} {in stock|on the shelf}?",
        "Before I drive over: is {i} available at {w}?" if shopper else "What's {w}'s count on {i}?",
        minimal=["{i} at {w}?", "{i} at {w}: {any left|in stock}?"],
        i=what,
        w=where,
    )
    if s.rng.random() < 0.5:
        sku = find_product(s, row)
        sid = find_store(s, row)
    else:
        sid = find_store(s, row)
        sku = find_product(s, row)
    s.call("check_stock", sku=sku, store_id=sid)


@retail_chain.intent(covers=("list_stores", "search_products", "transfer_stock"), weight=1.0)
def move_between_branches(s: Scene) -> None:
    """A manager sends units of an item from their store to the other branch in the same city."""
    staff(s)
    row = store_and_item(
        s,
        "s.status = 'open' AND i.on_hand - i.reserved >= 5 AND (SELECT COUNT(*) FROM stores o WHERE o.city = "
        "s.city AND o.status = 'open' AND o.kind = 'store' AND o.store_id != s.store_id) = 1",
    )
    other = s.rows(
        "SELECT * FROM stores WHERE city = ? AND status = 'open' AND kind = 'store' AND store_id != ?",
        row["city"],
        row["store_id"],
    )[0]
    qty = s.rng.choice((2, 3, 5))
    s.say(
        WORDS.move_between_branches,
        n=s.given(qty, str(qty), "quantity", "transfer_stock", "quantity"),
        i=product_ref(s, row),
        a=store_ref(s, row["store_id"], row["store"]),
        b=store_ref(s, other["store_id"], other["name"]),
    )
    sid = find_store(s, row)
    dst = find_store(s, other)
    sku = find_product(s, row)
    s.call("transfer_stock", sku=sku, from_store_id=sid, to_store_id=dst, quantity=qty, note="rebalance")
    s.memory.pop("store", None)  # two stores in play: "that store" would not say which


@retail_chain.intent(covers=("list_stores", "search_products", "list_transfers"), weight=0.8)
def store_item_moves(s: Scene) -> None:
    """A manager asks which shipments of one item came into (or left) their store."""
    staff(s)
    t = s.pick(
        "SELECT t.*, s.name AS store, s.city, p.name FROM transfers t JOIN stores s ON s.store_id = t.to_store_id "
        "JOIN products p USING (sku)"
    )
    s.say(WORDS.store_item_moves, i=product_ref(s, t), w=store_ref(s, t["to_store_id"], t["store"]))
    sid = find_store(s, {"store_id": t["to_store_id"], "city": t["city"]})
    sku = find_product(s, t)
    s.call("list_transfers", store_id=sid, sku=sku, direction="in")


@retail_chain.intent(covers=("search_products", "list_transfers", "check_stock"), follows=True)
def where_it_went(s: Scene) -> None:
    """A buyer asks where an item has been shipped between locations lately, then where it sits now."""
    role(s, "staff")
    known = s.memory.get("product")
    p = s.pick(
        "SELECT p.sku, p.name FROM products p WHERE EXISTS (SELECT 1 FROM transfers t WHERE t.sku = p.sku)"
        + (" AND p.sku = ?" if known else ""),
        *([known["sku"]] if known else []),
    )
    s.say(*WORDS.moves, minimal=["Recent moves of {it}?"], it="it" if known else product_ref(s, p))
    sku = find_product(s, p)
    s.call("list_transfers", sku=sku)
    if s.room(calls=1, turns=1):
        s.say(*WORDS.most, it="it")
        s.call("check_stock", sku=sku, min_available=1, limit=5)
