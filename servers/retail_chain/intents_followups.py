"""Short follow-ups on the retail chain, and openers that only look something up: the next question a shopper or a
store employee asks about the product or the location the dialogue is about.

What an earlier turn left in ``s.memory``: ``role`` (``shopper`` or ``staff``: who is talking), ``product`` (the
item: ``sku``, ``name``, as a call listed it), ``store`` (the location: ``store_id``, ``name``, ``city``) and
``hold`` (a pickup reservation the shopper just made).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.synth.intent import Scene, Skip
from servers.retail_chain.intents import (
    CATEGORY_WORDS,
    SHOPPERS,
    SUPPLIERS,
    find_product,
    find_store,
    product_ref,
    remember_store,
    role,
    store_ref,
)
from servers.retail_chain.tools import retail_chain


def product(s: Scene) -> dict[str, Any]:
    """The item of the dialogue, read again now."""
    known = s.memory.get("product")
    if not known:
        raise Skip("no product in the dialogue")
    return s.rows("SELECT * FROM products WHERE sku = ?", known["sku"])[0]


def store(s: Scene) -> dict[str, Any]:
    """The location of the dialogue, read again now."""
    known = s.memory.get("store")
    if not known:
        raise Skip("no store in the dialogue")
    return s.rows("SELECT * FROM stores WHERE store_id = ?", known["store_id"])[0]


def staff(s: Scene) -> None:
    role(s, "staff")


# About the item ----------------------------------------------------------------------------------------


@retail_chain.intent(covers=("check_stock",), follows=True, opens=False)
def stock_in_city(s: Scene) -> None:
    """Whether the item is available in a city (another one than the dialogue's store, or the user's own)."""
    p = product(s)
    here = s.memory.get("store")
    row = s.pick(
        "SELECT DISTINCT s.city FROM inventory i JOIN stores s USING (store_id) WHERE i.sku = ? AND "
        "i.on_hand - i.reserved >= 1 AND s.city != ?",
        p["sku"],
        here["city"] if here else "",
    )
    s.say(
        "Is {it} available in {c} too?",
        "What about in {c}, anyone have {it} there?",
        "And in {c}? Where can I find {it} there?",
        it="it",
        c=row["city"],
    )
    s.call("check_stock", sku=p["sku"], city=row["city"], min_available=1)


@retail_chain.intent(covers=("check_stock",), follows=True, opens=False)
def stock_in_state(s: Scene) -> None:
    """How much of the item the locations of one state hold."""
    p = product(s)
    st = s.pick(
        "SELECT DISTINCT s.state FROM inventory i JOIN stores s USING (store_id) WHERE i.sku = ? AND "
        "i.on_hand - i.reserved >= 1",
        p["sku"],
    )["state"]
    s.say(
        "How much of it is there across {st}?",
        "Which {st} locations carry it, and how many?",
        "Break its stock down for our {st} locations.",
        st=st,
    )
    s.call("check_stock", sku=p["sku"], state=st)


@retail_chain.intent(covers=("check_stock",), follows=True, opens=False)
def most_of_it(s: Scene) -> None:
    """Where the most of the item sits right now."""
    p = product(s)
    s.asked("check_stock", sku=p["sku"])
    n = s.rng.choice((5, 10, 20))
    s.say(
        "Where is most of it sitting right now?",
        "Which locations have the biggest pile of it?",
        "Where could we find at least {n} of it?",
        n=n,
    )
    s.call("check_stock", sku=p["sku"], min_available=n, limit=5)


@retail_chain.intent(covers=("search_products",), follows=True, opens=False)
def same_brand(s: Scene) -> None:
    """What else the item's brand makes in its category."""
    p = product(s)
    s.say(
        "What else does {b} make in {c}?",
        "Show me the other {b} {c}.",
        "Any other {c} from {b}?",
        b=p["brand"],
        c=CATEGORY_WORDS[p["category"]],
    )
    s.call("search_products", query=p["brand"], category=p["category"])


@retail_chain.intent(covers=("list_transfers",), follows=True, opens=False)
def item_moves(s: Scene) -> None:
    """Where the item has been shipped between locations lately."""
    staff(s)
    p = product(s)
    s.asked("list_transfers", sku=p["sku"])
    s.say(
        "Has it been moved between our locations lately?",
        "Where have we been shipping it internally?",
        "Any recent transfers of it?",
    )
    s.call("list_transfers", sku=p["sku"])


# About the location -------------------------------------------------------------------------------------


@retail_chain.intent(covers=("get_store",), follows=True, opens=False)
def store_details(s: Scene) -> None:
    """The address, phone and manager of the dialogue's store (and its pickup holds)."""
    st = store(s)
    s.asked("get_store", store_id=st["store_id"])
    s.say(
        "What's the address there, and who do I call?",
        "Where exactly is that store?",
        "How do I find that store, and who runs it?",
    )
    s.call("get_store", store_id=st["store_id"])


@retail_chain.intent(covers=("list_store_inventory",), follows=True, opens=False)
def store_low(s: Scene) -> None:
    """What else is below its reorder level at the dialogue's store."""
    staff(s)
    st = store(s)
    s.asked("list_store_inventory", store_id=st["store_id"], low_stock_only=True)
    s.say(
        "What else is running low there?",
        "Anything else below its reorder level at that store?",
        "Which other shelves there need refilling?",
    )
    s.call("list_store_inventory", store_id=st["store_id"], low_stock_only=True)


@retail_chain.intent(covers=("list_store_inventory",), follows=True, opens=False)
def store_category(s: Scene) -> None:
    """What the dialogue's store holds in one category."""
    st = store(s)
    cat = s.pick(
        "SELECT DISTINCT p.category FROM inventory i JOIN products p USING (sku) WHERE i.store_id = ?", st["store_id"]
    )["category"]
    s.say(
        "What {c} do they have there?",
        "Show me that store's {c}.",
        "How are they stocked on {c}?",
        c=CATEGORY_WORDS[cat],
    )
    s.call("list_store_inventory", store_id=st["store_id"], category=cat)


@retail_chain.intent(covers=("list_transfers",), follows=True, opens=False)
def store_incoming(s: Scene) -> None:
    """What has been shipped into (or out of) the dialogue's store lately."""
    staff(s)
    st = store(s)
    way = s.rng.choice(("in", "out"))
    if way == "in":
        s.say(
            "What else has been shipped to that store lately?",
            "Show me the recent deliveries from our own locations into that store.",
            "Which internal shipments came in there recently?",
        )
    else:
        s.say(
            "What has that store sent out to other locations lately?",
            "Which shipments left that store recently?",
            "Show me what that store gave away to other branches.",
        )
    s.call("list_transfers", store_id=st["store_id"], direction=way)


@retail_chain.intent(covers=("check_stock",), follows=True, opens=False)
def item_at_store(s: Scene) -> None:
    """How many of the dialogue's item the dialogue's store can sell now."""
    p, st = product(s), store(s)
    if not s.rows("SELECT 1 FROM inventory WHERE sku = ? AND store_id = ?", p["sku"], st["store_id"]):
        raise Skip("the store does not carry it")
    s.asked("check_stock", sku=p["sku"], store_id=st["store_id"])
    s.say(
        "How many of those can that store sell now?",
        "So what's the available count there now?",
        "How many are free on that shelf after that?",
    )
    s.call("check_stock", sku=p["sku"], store_id=st["store_id"])


@retail_chain.intent(covers=("list_stores",), follows=True, opens=False)
def other_stores_nearby(s: Scene) -> None:
    """Which other locations are in the dialogue store's city (and whether they are open)."""
    st = store(s)
    s.asked("list_stores", city=st["city"])
    s.say(
        "Which other locations do we have in {c}?",
        "Is there another store in {c}?",
        "What else is there in {c}, and is it open?",
        c=st["city"],
    )
    s.call("list_stores", city=st["city"])


# Actions --------------------------------------------------------------------------------------------------


@retail_chain.intent(covers=("cancel_reservation",), follows=True, opens=False)
def call_off_hold(s: Scene) -> None:
    """The shopper calls off the hold they just made."""
    hold = s.memory.get("hold")
    if not hold or s.value("SELECT status FROM reservations WHERE reservation_id = ?", hold) != "active":
        raise Skip("no active hold in the dialogue")
    s.say(
        "Actually, never mind, I found it elsewhere. Let that hold go.",
        "Sorry, plans changed: release what you put aside for me.",
        "Scratch that pickup, I won't make it.",
    )
    s.call("cancel_reservation", reservation_id=hold)


@retail_chain.intent(covers=("reserve_for_pickup",), follows=True, opens=False)
def hold_one_there(s: Scene) -> None:
    """After seeing where the item is, the shopper has some held at one of the listed stores."""
    if s.memory.get("role") != "shopper" or s.memory.get("hold"):
        raise Skip("not a shopper looking, or already holding")
    p = product(s)
    listed = [
        r
        for c in s.calls
        if c.tool == "check_stock" and c.arguments.get("sku") == p["sku"]
        for r in c.result["locations"]
        if r["kind"] == "store" and r["status"] == "open" and r["available"] >= 1
    ]
    if not listed:
        raise Skip("no open store listed")
    row = s.rng.choice(listed)
    if sum(r["store_name"] == row["store_name"] for r in listed) > 1:
        raise Skip("listed twice")
    now = s.value("SELECT on_hand - reserved FROM inventory WHERE sku = ? AND store_id = ?", p["sku"], row["store_id"])
    qty = min(now or 0, s.rng.choice((1, 1, 2)))
    if qty < 1:
        raise Skip("nothing left there")
    s.say(
        "Great, please put {many} aside at {st} for {n}.",
        "Hold {many} for me at {st}; the name is {n}.",
        "Can you keep {many} at {st} for pickup? I'm {n}.",
        many="one" if qty == 1 else "two",
        st=row["store_name"],
        n=s.persona.name,
    )
    args: dict[str, Any] = {"store_id": row["store_id"], "sku": p["sku"], "customer_name": s.persona.name}
    if qty > 1:
        args["quantity"] = qty
    out = s.call("reserve_for_pickup", **args)
    s.memory["hold"] = out["reservation_id"]
    remember_store(s, row)


@retail_chain.intent(covers=("restock_item",), follows=True, opens=False)
def book_delivery_here(s: Scene) -> None:
    """A supplier delivery of the dialogue's item came in at the dialogue's store."""
    staff(s)
    p, st = product(s), store(s)
    if p["status"] != "active" or st["status"] != "open":
        raise Skip("cannot be restocked there")
    qty = s.rng.choice((12, 24, 36, 48))
    sup = s.rng.choice(SUPPLIERS)
    s.say(
        "Also, {sup} just dropped off {n} more of it there; book that in.",
        "We got {n} of it from {sup} at that store this morning, please log it.",
        "Record a delivery of {n} of it from {sup} there.",
        sup=sup,
        n=qty,
    )
    s.call("restock_item", store_id=st["store_id"], sku=p["sku"], quantity=qty, supplier=sup)


@retail_chain.intent(covers=("check_stock", "transfer_stock"), follows=True, opens=False)
def top_up_from_dc(s: Scene) -> None:
    """The dialogue's store gets some of the item from the distribution center that has the most."""
    staff(s)
    p, st = product(s), store(s)
    if st["status"] != "open" or st["kind"] != "store":
        raise Skip("not an open store")
    qty = s.rng.choice((5, 10, 20))
    s.say(
        "Send that store {n} more from whichever warehouse has the most.",
        "Top them up with {n} from a distribution center.",
        "Have the distribution center with the most ship {n} over there.",
        n=qty,
    )
    every = s.call("check_stock", sku=p["sku"], min_available=qty)["locations"]
    dcs = [r for r in every if r["kind"] == "distribution_center"]
    if not dcs or (len(dcs) > 1 and dcs[0]["available"] == dcs[1]["available"]):
        raise Skip("no clear warehouse")
    s.call(
        "transfer_stock",
        sku=p["sku"],
        from_store_id=dcs[0]["store_id"],
        to_store_id=st["store_id"],
        quantity=qty,
        note="top-up",
    )


# Openers that look something up ---------------------------------------------------------------------------


@retail_chain.intent(covers=("search_products", "check_stock"), weight=1.5)
def shopper_looks(s: Scene) -> None:
    """A shopper asks whether an item is in stock in their city (or anywhere), before deciding."""
    row = s.pick(
        "SELECT DISTINCT s.city, p.sku, p.name FROM inventory i JOIN stores s USING (store_id) JOIN products p "
        "USING (sku) WHERE s.kind = 'store' AND s.status = 'open' AND i.on_hand - i.reserved >= 1"
    )
    role(s, "shopper")
    s.be(s.rng.choice(SHOPPERS))
    what = product_ref(s, row)
    s.say(
        "Do any of your {c} stores have {what} right now?",
        "I'm in {c}. Where can I get {what} today?",
        "Is {what} in stock anywhere in {c}?",
        minimal=["Looking for {what} around {c}."],
        c=row["city"],
        what=what,
    )
    sku = find_product(s, row)
    s.call("check_stock", sku=sku, city=row["city"], min_available=1)


@retail_chain.intent(covers=("search_products",), weight=1.2)
def catalog_lookup(s: Scene) -> None:
    """Someone asks whether the chain carries an item and how many are available chain-wide."""
    staff(s)
    row = s.pick("SELECT * FROM products")
    what = product_ref(s, row)
    by_cat = s.rng.random() < 0.4
    s.say(
        "Do we carry {what}, and how many are available across the chain?",
        "How many of {what} do we have chain-wide?",
        "Is {what} still active, and how much is out there?",
        minimal=["{what}: do we have it?"],
        what=what,
    )
    args: dict[str, Any] = {"category": row["category"]} if by_cat else {}
    find_product_in(s, row, **args)


def find_product_in(s: Scene, row: dict[str, Any], **args: Any) -> None:
    hit = s.find(
        "search_products", "products", "sku", row["sku"], missing="not found by its name", query=row["name"], **args
    )
    s.memory["product"] = hit


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
        s.say(
            "What's running low at {w}?",
            "I'm at {w}: which items are below their reorder level?",
            "Which shelves at {w} need refilling?",
            minimal=["{w}: low stock?"],
            w=where,
        )
    else:
        s.say(
            "What {c} does {w} have in?",
            "How is {w} stocked on {c}?",
            "Give me the {c} on hand at {w}.",
            minimal=["{w}: {c}?"],
            c=CATEGORY_WORDS[cat],
            w=where,
        )
    sid = find_store(s, st)
    args: dict[str, Any] = {"low_stock_only": True} if low else {"category": cat}
    items = s.call("list_store_inventory", store_id=sid, **args)["items"]
    if items and s.rng.random() < 0.6:
        item = s.choose(items, itemgetter("name"), none="nothing", alike="same name")
        s.memory["product"] = {"sku": item["sku"], "name": item["name"]}
        if s.room(calls=1, turns=1):
            s.say(
                "Where else do we have the {n}?",
                "Which other locations have the {n} to spare?",
                "Who could send us some {n}?",
                n=item["name"],
            )
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
    way = s.rng.choice(("in", "out", "both"))
    said = {"in": "received from", "out": "sent to", "both": "traded with"}[way]
    s.say(
        "What has {w} {d} our other locations lately?",
        "Show me what {w} {d} other branches recently.",
        "Which shipments has {w} {d} other stores?",
        minimal=["{w}: recent shipments?"],
        w=where,
        d=said,
    )
    sid = find_store(s, st)
    args: dict[str, Any] = {} if way == "both" else {"direction": way}
    s.call("list_transfers", store_id=sid, **args)


@retail_chain.intent(covers=("list_stores", "get_store"), weight=1.0)
def stores_in_city(s: Scene) -> None:
    """Someone asks which locations are in a city (or a state), then about one of them."""
    st = s.pick("SELECT * FROM stores WHERE kind = 'store'")
    by_state = s.rng.random() < 0.3
    s.say(
        "Which of our locations are in {w}?",
        "What stores do we have in {w}?",
        "List our {w} locations.",
        minimal=["{w} stores?"],
        w=st["state"] if by_state else st["city"],
    )
    args = {"state": st["state"]} if by_state else {"city": st["city"]}
    found = s.find("list_stores", "stores", "store_id", st["store_id"], missing="not listed", **args)
    remember_store(s, found)
    if s.room(calls=1, turns=1) and s.rng.random() < 0.5:
        s.say(
            "Tell me about {n}: address, manager, phone.",
            "Who runs {n}, and where is it?",
            "How do I reach {n}?",
            n=st["name"],
        )
        s.call("get_store", store_id=found["store_id"])


@retail_chain.intent(covers=("get_distinct_values", "list_stores"), weight=0.6)
def where_we_are(s: Scene) -> None:
    """An analyst asks which cities the chain is in, then for the open locations of one."""
    staff(s)
    st = s.pick("SELECT * FROM stores WHERE kind = 'store' AND status = 'open'")
    s.say("Which cities are we in?", "In what cities do we have locations?", "Give me our cities with counts.")
    s.call("get_distinct_values", field="city")
    s.say("Show me the open ones in {c}.", "Which {c} locations are open?", "What's open in {c}?", c=st["city"])
    found = s.find(
        "list_stores", "stores", "store_id", st["store_id"], missing="not listed", city=st["city"], status="open"
    )
    remember_store(s, found)


@retail_chain.intent(covers=("search_products", "check_stock"), weight=1.0)
def discontinued_check(s: Scene) -> None:
    """A buyer checks the discontinued items of a category and where units of one are left."""
    staff(s)
    row = s.pick("SELECT * FROM products WHERE status = 'discontinued'")
    s.say(
        "Which {c} have we stopped selling?",
        "What {c} are discontinued?",
        "Show me the discontinued {c}.",
        minimal=["Discontinued {c}?"],
        c=CATEGORY_WORDS[row["category"]],
    )
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
    s.say(
        "Where are units of the {n} still sitting?",
        "Which locations still hold the {n}?",
        "How many of the {n} are left, and where?",
        n=row["name"],
    )
    s.call("check_stock", sku=hit["sku"], min_available=1)
