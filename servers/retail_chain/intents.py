"""What people want of the retail chain: shoppers holding an item for pickup, store staff releasing
holds, managers moving and receiving stock, analysts looking over the catalog.

People name locations by their name or city ("the Portland Pearl store", "our Denver stores") and
products by their name on the shelf. The agent finds store ids with ``list_stores`` (by city),
SKUs with ``search_products`` and stock with ``check_stock`` or ``list_store_inventory``.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from hub.kit.phrasings import phrasings
from servers.retail_chain.tools import StoreId, retail_chain

WORDS = phrasings(__package__)

SHOPPERS = (
    "Maria Lopez",
    "Tom Becker",
    "Priya Nair",
    "Sam O'Neill",
    "Grace Kim",
    "Luis Ortega",
    "Hannah Weiss",
    "Omar Haddad",
    "Julia Rossi",
    "Ken Watanabe",
)
SUPPLIERS = ("Acme Logistics", "Pioneer Supply", "Harbor Freight Lines", "Summit Distribution")
CATEGORY_WORDS = {
    "Tools": "tools",
    "Paint": "paint",
    "Electrical": "electrical supplies",
    "Plumbing": "plumbing parts",
    "Garden": "garden stuff",
    "Appliances": "appliances",
    "Lighting": "lighting",
    "Storage": "storage products",
}


def product_ref(s: Scene, p: dict[str, Any]) -> str:
    return s.named(p, "products", "sku", "the {name}")


def store_ref(s: Scene, store_id: str, name: str) -> str:
    return s.refer(store_id, Ref("the {name} store", "SELECT store_id FROM stores WHERE name = ?", name), name=name)


def find_product(s: Scene, p: dict[str, Any], **args: Any) -> str:
    """The item's SKU, searched by its name (and ``args``) unless it is the dialogue's item; it becomes that."""
    known = s.memory.get("product")
    if known and known["sku"] == p["sku"]:
        return str(known["sku"])
    hit = s.find("search_products", "products", "sku", p["sku"], missing="not found", query=p["name"], **args)
    s.memory["product"] = hit
    return str(hit["sku"])


def find_store(s: Scene, st: dict[str, Any]) -> str:
    found = s.discover(StoreId, st["store_id"], missing="the store is not listed in its city", city=st["city"])
    remember_store(s, found)
    return str(found["store_id"])


def remember_store(s: Scene, row: dict[str, Any]) -> None:
    """The location the dialogue is about now (a row a call listed: ``store_id``, a name, ``city``)."""
    s.memory["store"] = {
        "store_id": row["store_id"],
        "name": row.get("name") or row.get("store_name"),
        "city": row["city"],
    }


def brand_in_category(s: Scene, p: dict[str, Any], phrasings: tuple[str, ...]) -> None:
    """A question about the items of a brand (``{b}``) in a category (``{c}``), and the search that answers it."""
    s.say(*phrasings, b=p["brand"], c=CATEGORY_WORDS[p["category"]])
    s.call("search_products", query=p["brand"], category=p["category"])


def role(s: Scene, who: str) -> None:
    """Who is talking: a ``shopper`` (a customer, named) or ``staff`` (a store or head-office employee). A dialogue
    keeps its role; ``Skip`` when a follow-up needs the other one."""
    known = s.memory.get("role")
    if known is not None and known != who:
        raise Skip(f"the dialogue is with {known}, not {who}")
    s.memory["role"] = who


def staff(s: Scene) -> None:
    role(s, "staff")


def listed_store(s: Scene, store_id: str, **args: Any) -> dict[str, Any]:
    """The location as ``list_stores`` with ``args`` lists it; it becomes the dialogue's store."""
    found = s.discover(StoreId, store_id, missing="not listed", **args)
    remember_store(s, found)
    return found


def free_at(s: Scene, store_id: str, sku: str) -> Any:
    """How many units of the item the location can still sell (None when it does not carry it)."""
    return s.value("SELECT on_hand - reserved FROM inventory WHERE store_id = ? AND sku = ?", store_id, sku)


def as_shopper(s: Scene) -> None:
    """A shopper talks (one of ``SHOPPERS``)."""
    role(s, "shopper")
    s.be(s.rng.choice(SHOPPERS))


def stock_in_my_city(s: Scene, row: dict[str, Any], what: str, minimal: str) -> tuple[str, list[dict[str, Any]]]:
    """The shopper asks which stores of their city (``row["city"]``) have the item now: its SKU and the listing."""
    s.say(
        "Do any of your {city} stores have {what} {right now|today}?",
        "I'm in {city}. Where can I {get|buy} {what} today?",
        "Is {what} in stock anywhere in {city}{|, by any chance}?",
        minimal=[minimal],
        city=row["city"],
        what=what,
    )
    sku = find_product(s, row)
    return sku, s.call("check_stock", sku=sku, city=row["city"], min_available=1)["locations"]


@retail_chain.intent(covers=("search_products", "check_stock", "reserve_for_pickup"), weight=1.5)
def hold_for_pickup(s: Scene) -> None:
    """A shopper asks where in their city an item is in stock and has some held at one store."""
    row = s.pick(
        "SELECT s.store_id, s.name AS store, s.city, p.sku, p.name, i.on_hand - i.reserved AS available "
        "FROM inventory i JOIN stores s USING (store_id) JOIN products p USING (sku) "
        "WHERE s.kind = 'store' AND s.status = 'open' AND i.on_hand - i.reserved >= 1"
    )
    qty = min(row["available"], s.rng.choice((1, 1, 2, 3)))
    shopper = s.rng.choice(SHOPPERS)
    role(s, "shopper")
    s.be(shopper)
    name = s.given(shopper, shopper, "name", "reserve_for_pickup", "customer_name")
    what = product_ref(s, row)
    many = "one" if qty == 1 else f"{qty} of them"
    if s.rng.random() < 0.5:
        sku, stock = stock_in_my_city(s, row, what, "I need {what} in {city}; can someone hold one for me?")
        s.say(WORDS.hold_for_pickup, many=many, store=row["store"], name=name)
    else:
        s.say(
            WORDS.hold_for_pickup_direct,
            what=what,
            many="" if qty == 1 else f" ({qty} of them)",
            store=row["store"],
            city=row["city"],
            name=name,
        )
        sku = find_product(s, row)
        stock = s.call("check_stock", sku=sku, city=row["city"], min_available=1)["locations"]
    here = [x["store_id"] for x in stock if x["store_name"] == row["store"]]
    if not here:
        raise Skip("the store is not listed")
    args: dict[str, Any] = {"store_id": here[0], "sku": sku, "customer_name": name}
    if qty > 1:
        args["quantity"] = qty
    out = s.call("reserve_for_pickup", **args)
    s.memory["hold"] = out["reservation_id"]
    remember_store(s, {"store_id": out["store_id"], "name": row["store"], "city": row["city"]})


@retail_chain.intent(covers=("list_stores", "get_store", "cancel_reservation"), weight=1.5)
def release_hold(s: Scene) -> None:
    """Store staff release a customer's pickup hold the customer called off."""
    role(s, "staff")
    r = s.pick(
        "SELECT r.*, s.name AS store, s.city, p.name FROM reservations r JOIN stores s USING (store_id) "
        "JOIN products p USING (sku) WHERE r.status = 'active'"
    )
    if (
        s.value(
            "SELECT COUNT(*) FROM reservations WHERE store_id = ? AND status = 'active' AND customer_name = ?",
            r["store_id"],
            r["customer_name"],
        )
        != 1
    ):
        raise Skip("the customer holds two things there")
    where = store_ref(s, r["store_id"], r["store"])
    s.say(WORDS.release_hold, where=where, who=r["customer_name"], item=r["name"])
    sid = find_store(s, r)
    held = [
        x for x in s.call("get_store", store_id=sid)["active_reservations"] if x["customer_name"] == r["customer_name"]
    ]
    if len(held) != 1:
        raise Skip("the hold is not listed")
    out = s.call("cancel_reservation", reservation_id=held[0]["reservation_id"])
    s.memory["product"] = {"sku": out["sku"], "name": r["name"]}


@retail_chain.intent(covers=("search_products", "check_stock", "transfer_stock"), weight=1.5, follows=True)
def rebalance(s: Scene) -> None:
    """A store manager running low on an item pulls units from the location that has the most."""
    row = s.pick(
        "SELECT s.store_id, s.name AS store, s.city, p.sku, p.name, i.on_hand FROM inventory i "
        "JOIN stores s USING (store_id) JOIN products p USING (sku) WHERE s.status = 'open' "
        "AND s.kind = 'store' AND i.on_hand < i.reorder_point"
    )
    role(s, "staff")
    known = s.memory.get("store")
    if known and known["store_id"] != row["store_id"]:
        raise Skip("another store than the dialogue's")
    qty = s.rng.choice((5, 10, 12, 20, 24))
    where = store_ref(s, row["store_id"], row["store"])
    what = product_ref(s, row)
    s.say(
        WORDS.rebalance,
        where=where,
        Where=where[:1].upper() + where[1:],
        what=what,
        qty=s.given(qty, str(qty), "quantity", "transfer_stock", "quantity"),
    )
    sku = find_product(s, row)
    every = s.call("check_stock", sku=sku)["locations"]
    here = [x["store_id"] for x in every if x["store_name"] == row["store"]]
    stock = [x for x in every if x["store_name"] != row["store"]]
    if (
        not here
        or not stock
        or stock[0]["available"] < qty
        or (len(stock) > 1 and stock[0]["available"] == stock[1]["available"])
    ):
        raise Skip("no clear best source")
    sid = here[0]
    s.call(
        "transfer_stock", sku=sku, from_store_id=stock[0]["store_id"], to_store_id=sid, quantity=qty, note="low stock"
    )
    remember_store(s, {"store_id": sid, "name": row["store"], "city": row["city"]})


@retail_chain.intent(covers=("list_stores", "search_products", "list_store_inventory", "restock_item"), weight=1.5)
def receive_delivery(s: Scene) -> None:
    """A store's receiving clerk checks what is running low, then books in a supplier delivery."""
    st = s.pick(
        "SELECT s.store_id, s.name, s.city FROM stores s WHERE s.status = 'open' AND EXISTS (SELECT 1 FROM "
        "inventory i JOIN products p USING (sku) WHERE i.store_id = s.store_id AND i.on_hand < i.reorder_point "
        "AND p.status = 'active')"
    )
    role(s, "staff")
    where = store_ref(s, st["store_id"], st["name"])
    qty = s.rng.choice((24, 36, 48, 60, 100))
    supplier = s.rng.choice(SUPPLIERS)
    n = s.given(qty, str(qty), "quantity", "restock_item", "quantity")
    if s.rng.random() < 0.5:
        item = s.pick(
            "SELECT p.sku, p.name FROM inventory i JOIN products p USING (sku) WHERE i.store_id = ? "
            "AND p.status = 'active'",
            st["store_id"],
        )
        what = product_ref(s, item)
        s.say(
            WORDS.receive_delivery_direct,
            sup=supplier,
            what=what,
            where=where,
            Where=where[:1].upper() + where[1:],
            n=n,
        )
        sid = find_store(s, st)
        sku = find_product(s, item)
        s.call("restock_item", store_id=sid, sku=sku, quantity=n, supplier=supplier)
        return
    s.say(*WORDS.low, minimal=["{w}: low stock?"], w=where)
    sid = find_store(s, st)
    low = [
        x
        for x in s.call("list_store_inventory", store_id=sid, low_stock_only=True)["items"]
        if s.value("SELECT status FROM products WHERE sku = ?", x["sku"]) == "active"
    ]
    if not low:
        raise Skip("nothing low and active on the first page")
    item = s.rng.choice(low)
    s.say(WORDS.receive_delivery, sup=supplier, item=item["name"], n=n)
    s.call("restock_item", store_id=sid, sku=item["sku"], quantity=n, supplier=supplier)
    s.memory["product"] = {"sku": item["sku"], "name": item["name"]}


@retail_chain.intent(covers=("get_distinct_values", "search_products"))
def browse_brands(s: Scene) -> None:
    """An analyst looks at which brands the chain carries, then at one brand's items in a category."""
    role(s, "staff")
    p = s.pick("SELECT brand, category FROM products GROUP BY brand, category")
    s.say(WORDS.browse_brands)
    brands = s.call("get_distinct_values", field="brand")
    if p["brand"] not in str(brands):
        raise Skip("the brand is not listed")
    brand_in_category(s, p, ("Show me the {b} {c}.", "What {c} do we have from {b}?", "Which {b} {c} do we stock?"))


@retail_chain.intent(covers=("list_stores", "get_store"))
def closed_locations(s: Scene) -> None:
    """Someone asks which locations are closed, then for the details of one (why, who manages it)."""
    role(s, "staff")
    st = s.pick("SELECT store_id, name, state FROM stores WHERE status = 'closed'")
    by_state = s.rng.random() < 0.4
    s.say(
        "Which of our locations are shut at the moment?"
        if not by_state
        else "Which of our {state} locations are shut at the moment?",
        "Any stores closed {right now|at the moment}?" if not by_state else "Anything closed in {state} right now?",
        "Give me the list of closed locations." if not by_state else "List the closed locations in {state}.",
        minimal=["Closed stores?"],
        state=st["state"],
    )
    args: dict[str, Any] = {"status": "closed"}
    if by_state:
        args["state"] = st["state"]
    found = listed_store(s, st["store_id"], **args)
    s.say(*WORDS.reach, n=st["name"])
    s.call("get_store", store_id=found["store_id"])
