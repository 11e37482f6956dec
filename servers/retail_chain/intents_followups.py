"""Short follow-ups on the retail chain, and openers that only look something up: the next question a shopper or a
store employee asks about the product or the location the dialogue is about.

What an earlier turn left in ``s.memory``: ``role`` (``shopper`` or ``staff``: who is talking), ``product`` (the
item: ``sku``, ``name``, as a call listed it), ``store`` (the location: ``store_id``, ``name``, ``city``) and
``hold`` (a pickup reservation the shopper just made).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip
from servers.retail_chain.intents import (
    CATEGORY_WORDS,
    SHOPPERS,
    SUPPLIERS,
    as_shopper,
    brand_in_category,
    find_product,
    find_store,
    free_at,
    listed_store,
    product_ref,
    remember_store,
    role,
    stock_in_my_city,
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


def it(s: Scene) -> str:
    """How the user points at the item: "it" while nothing else was listed since they named it, else its name."""
    known = s.memory["product"]
    if known.get("named", True):
        return "it"
    s.memory["product"] = {**known, "named": True}  # a new dict: a rolled-back follow-up restores the old one
    return f"the {known['name']}"


def listed_others(s: Scene) -> None:
    """After a listing of other items, "it" no longer points at the dialogue's item."""
    known = s.memory.get("product")
    if known:
        s.memory["product"] = {**known, "named": False}


def staff(s: Scene) -> None:
    role(s, "staff")


def read_once(s: Scene, phrasings: tuple[str, ...], tool: str, args: dict[str, Any], **slots: Any) -> None:
    """A question (``slots`` fill its phrasings) and the read (``tool`` with ``args``) that answers it, unless the
    dialogue made that read already."""
    s.asked(tool, **args)
    s.say(*phrasings, **slots)
    s.call(tool, **args)


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
        it=it(s),
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
        "How much of {it} is there across {st}?",
        "Which {st} locations carry {it}, and how many?",
        "Break down the stock of {it} for our {st} locations.",
        st=st,
        it=it(s),
    )
    s.call("check_stock", sku=p["sku"], state=st)


@retail_chain.intent(covers=("check_stock",), follows=True, opens=False)
def most_of_it(s: Scene) -> None:
    """Where the most of the item sits right now."""
    p = product(s)
    s.asked("check_stock", sku=p["sku"])
    n = s.rng.choice((5, 10, 20))
    if s.rng.random() < 0.5:
        s.say("Where is most of {it} sitting right now?", "Which locations have the biggest pile of {it}?", it=it(s))
        s.call("check_stock", sku=p["sku"], limit=5)
    else:
        s.say("Where could we find at least {n} of {it}?", "Who has {n} or more of {it} to spare?", n=n, it=it(s))
        s.call("check_stock", sku=p["sku"], min_available=n)


@retail_chain.intent(covers=("search_products",), follows=True, opens=False)
def same_brand(s: Scene) -> None:
    """What else the item's brand makes in its category."""
    p = product(s)
    says = ("What else does {b} make in {c}?", "Show me the other {b} {c}.", "Any other {c} from {b}?")
    brand_in_category(s, p, says)
    listed_others(s)


@retail_chain.intent(covers=("list_transfers",), follows=True, opens=False)
def item_moves(s: Scene) -> None:
    """Where the item has been shipped between locations lately."""
    staff(s)
    p = product(s)
    says = (
        "Has {it} been moved between our locations lately?",
        "Where have we been shipping {it} internally?",
        "Any recent transfers of {it}?",
    )
    read_once(s, says, "list_transfers", {"sku": p["sku"]}, it=it(s))


# About the location -------------------------------------------------------------------------------------


@retail_chain.intent(covers=("get_store",), follows=True, opens=False, weight=1.3)
def store_details(s: Scene) -> None:
    """The address, phone and manager of the dialogue's store (and its pickup holds)."""
    st = store(s)
    says = (
        "What's the address there, and who do I call?",
        "Where exactly is that store?",
        "How do I find that store, and who runs it?",
    )
    read_once(s, says, "get_store", {"store_id": st["store_id"]})


@retail_chain.intent(covers=("list_store_inventory",), follows=True, opens=False, weight=1.3)
def store_low(s: Scene) -> None:
    """What else is below its reorder level at the dialogue's store."""
    staff(s)
    st = store(s)
    says = (
        "What else is running low there?",
        "Anything else below its reorder level at that store?",
        "Which other shelves there need refilling?",
    )
    read_once(s, says, "list_store_inventory", {"store_id": st["store_id"], "low_stock_only": True})
    listed_others(s)


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
    listed_others(s)


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


@retail_chain.intent(covers=("check_stock",), follows=True, opens=False, weight=1.3)
def item_at_store(s: Scene) -> None:
    """How many of the dialogue's item the dialogue's store can sell now."""
    p, st = product(s), store(s)
    if not s.rows("SELECT 1 FROM inventory WHERE sku = ? AND store_id = ?", p["sku"], st["store_id"]):
        raise Skip("the store does not carry it")
    says = (
        "How many of {it} can that store sell now?",
        "So what's the available count of {it} there now?",
        "How many of {it} are free on that shelf now?",
    )
    read_once(s, says, "check_stock", {"sku": p["sku"], "store_id": st["store_id"]}, it=it(s))


@retail_chain.intent(covers=("list_stores",), follows=True, opens=False)
def other_stores_nearby(s: Scene) -> None:
    """Which other locations are in the dialogue store's city (and whether they are open)."""
    st = store(s)
    says = (
        "Which other locations do we have in {c}?",
        "Is there another store in {c}?",
        "What else is there in {c}, and is it open?",
    )
    read_once(s, says, "list_stores", {"city": st["city"]}, c=st["city"])


# Actions --------------------------------------------------------------------------------------------------


@retail_chain.intent(covers=("cancel_reservation",), follows=True, opens=False, weight=1.3)
def call_off_hold(s: Scene) -> None:
    """The hold the dialogue made (or found) is called off."""
    hold = s.memory.get("hold")
    if not hold or s.value("SELECT status FROM reservations WHERE reservation_id = ?", hold) != "active":
        raise Skip("no active hold in the dialogue")
    if s.memory.get("role") == "shopper":
        s.say(
            "Actually, never mind, I found it elsewhere. Let that hold go.",
            "Sorry, plans changed: release what you put aside for me.",
            "Scratch that pickup, I won't make it.",
        )
    else:
        s.say(
            "They just called to say they won't come; release it.",
            "Free those units up again, the customer cancelled.",
            "Drop that hold, it's not needed anymore.",
        )
    s.call("cancel_reservation", reservation_id=hold)


@retail_chain.intent(covers=("cancel_reservation", "reserve_for_pickup"), follows=True, opens=False)
def change_hold(s: Scene) -> None:
    """The shopper wants a different quantity held: the hold is replaced by one for the new amount."""
    hold = s.memory.get("hold")
    if not hold or s.memory.get("role") != "shopper":
        raise Skip("no shopper's hold in the dialogue")
    r = s.rows("SELECT * FROM reservations WHERE reservation_id = ? AND status = 'active'", hold)
    if not r:
        raise Skip("the hold is gone")
    r0 = r[0]
    free = free_at(s, r0["store_id"], r0["sku"])
    qty = s.rng.choice([q for q in (1, 2, 3) if q != r0["quantity"]])
    if qty > free + r0["quantity"]:
        raise Skip("not enough there")
    s.say(
        "Actually, make it {n} instead.",
        "Can you change that to {n}?",
        "I need {n} after all, not {o}.",
        n=qty,
        o=r0["quantity"],
    )
    s.call("cancel_reservation", reservation_id=hold)
    args: dict[str, Any] = {"store_id": r0["store_id"], "sku": r0["sku"], "customer_name": r0["customer_name"]}
    if qty > 1:
        args["quantity"] = qty
    s.memory["hold"] = s.call("reserve_for_pickup", **args)["reservation_id"]


@retail_chain.intent(covers=("search_products", "check_stock"), follows=True, opens=False)
def also_have_other(s: Scene) -> None:
    """The user asks whether the dialogue's store also has another item (of the same category)."""
    p, st = product(s), store(s)
    other = s.pick(
        "SELECT p.* FROM products p JOIN inventory i USING (sku) WHERE i.store_id = ? AND p.category = ? AND "
        "p.sku != ?",
        st["store_id"],
        p["category"],
        p["sku"],
    )
    what = product_ref(s, other)
    s.say(
        "Do they also have {w} there?",
        "And {w}: any at that store?",
        "While you're looking, how many of {w} does that store have?",
        w=what,
    )
    s.call("check_stock", sku=find_product_in(s, other), store_id=st["store_id"])


@retail_chain.intent(covers=("search_products",), follows=True, opens=False)
def chain_total(s: Scene) -> None:
    """How much of the dialogue's item is available across the whole chain (and whether it is still sold)."""
    p = product(s)
    says = (
        "How many of {it} do we have chain-wide?",
        "Is {it} still an active item, and how much is out there in total?",
        "What's the price and total availability of {it}?",
    )
    read_once(s, says, "search_products", {"query": p["name"]}, it=it(s))


@retail_chain.intent(covers=("restock_item",), follows=True, opens=False)
def restock_listed(s: Scene) -> None:
    """After seeing what runs low at a store, a delivery of one of those items is booked in."""
    staff(s)
    listed = [
        (c.arguments["store_id"], r)
        for c in s.calls
        if c.tool == "list_store_inventory" and c.arguments.get("low_stock_only")
        for r in c.result["items"]
    ]
    if not listed:
        raise Skip("nothing low listed")
    sid, item = s.rng.choice(listed)
    if sum(r["name"] == item["name"] for _, r in listed) > 1:
        raise Skip("listed twice")
    if s.value("SELECT status FROM products WHERE sku = ?", item["sku"]) != "active":
        raise Skip("discontinued")
    if s.value("SELECT status FROM stores WHERE store_id = ?", sid) != "open":
        raise Skip("a closed location receives nothing")
    qty = s.rng.choice((24, 36, 48, 60))
    sup = s.rng.choice(SUPPLIERS)
    s.say(
        "{sup} just delivered {n} of the {i}; book that in.",
        "We got {n} units of the {i} from {sup}, please log it.",
        "Record {n} of the {i} from {sup}.",
        sup=sup,
        n=qty,
        i=item["name"],
    )
    s.call("restock_item", store_id=sid, sku=item["sku"], quantity=qty, supplier=sup)


@retail_chain.intent(covers=("list_stores", "transfer_stock"), follows=True, opens=False)
def send_to_sister(s: Scene) -> None:
    """Units of the dialogue's item go from the dialogue's store to another branch in the same city."""
    staff(s)
    p, st = product(s), store(s)
    other = s.rows(
        "SELECT * FROM stores WHERE city = ? AND store_id != ? AND status = 'open' AND kind = 'store'",
        st["city"],
        st["store_id"],
    )
    free = free_at(s, st["store_id"], p["sku"])
    qty = s.rng.choice((2, 4, 5))
    if len(other) != 1 or (free or 0) < qty:
        raise Skip("no single sister store, or too little")
    s.say(
        "Send {n} of {it} over to our other {c} store.",
        "Move {n} of {it} to the other branch in {c}.",
        "Our other {c} location could use {n} of {it}; ship them over.",
        n=qty,
        it=it(s),
        c=st["city"],
    )
    sister = s.find("list_stores", "stores", "store_id", other[0]["store_id"], missing="not listed", city=st["city"])
    s.call("transfer_stock", sku=p["sku"], from_store_id=st["store_id"], to_store_id=sister["store_id"], quantity=qty)


@retail_chain.intent(covers=("reserve_for_pickup",), follows=True, opens=False)
def hold_for_caller(s: Scene) -> None:
    """A store employee holds the dialogue's item at the dialogue's store for a customer on the phone."""
    staff(s)
    p, st = product(s), store(s)
    free = free_at(s, st["store_id"], p["sku"])
    if st["kind"] != "store" or st["status"] != "open" or not free:
        raise Skip("cannot hold there")
    who = s.rng.choice(SHOPPERS)
    s.say(
        "{w} is on the phone and wants {one} held there.",
        "Put {one} aside at that store for {w}, please.",
        "A customer, {w}, will pick up {one} there tomorrow; hold it.",
        w=who,
        one="one" if it(s) == "it" else f"one {p['name']}",
    )
    out = s.call("reserve_for_pickup", store_id=st["store_id"], sku=p["sku"], customer_name=who)
    s.memory["hold"] = out["reservation_id"]


@retail_chain.intent(covers=("get_store", "cancel_reservation"), follows=True, opens=False)
def clear_a_hold(s: Scene) -> None:
    """The store's holds are looked at and one customer's is released (they called it off)."""
    staff(s)
    st = store(s)
    rows = s.rows(
        "SELECT r.*, p.name FROM reservations r JOIN products p USING (sku) WHERE r.store_id = ? AND "
        "r.status = 'active'",
        st["store_id"],
    )
    r = s.choose(rows, itemgetter("customer_name"), none="no holds", alike="a customer holds two")
    s.say(
        "Also, {w} called: they won't collect their {i} there. Release it.",
        "{w} cancelled their pickup of the {i} at that store; free it up.",
        "Let go of {w}'s hold on the {i} there.",
        w=r["customer_name"],
        i=r["name"],
    )
    held = s.call("get_store", store_id=st["store_id"])["active_reservations"]
    mine = [x for x in held if x["customer_name"] == r["customer_name"]]
    if len(mine) != 1:
        raise Skip("not listed")
    s.call("cancel_reservation", reservation_id=mine[0]["reservation_id"])


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
    now = free_at(s, row["store_id"], p["sku"])
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
        "Also, {sup} just dropped off {n} more of {it} there; book that in.",
        "We got {n} of {it} from {sup} at that store this morning, please log it.",
        "Record a delivery of {n} of {it} from {sup} there.",
        sup=sup,
        it=it(s),
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
    s.say(
        "Do we carry {what}, and how many are available across the chain?",
        "How many of {what} do we have chain-wide?",
        "Is {what} still active, and how much is out there?",
        minimal=["{what}: do we have it?"],
        what=what,
    )
    args: dict[str, Any] = {"category": row["category"]} if by_cat else {}
    find_product_in(s, row, **args)


def find_product_in(s: Scene, row: dict[str, Any], **args: Any) -> str:
    """The item's SKU, searched by its name (and ``args``); it becomes the dialogue's item."""
    hit = s.find(
        "search_products", "products", "sku", row["sku"], missing="not found by its name", query=row["name"], **args
    )
    s.memory["product"] = hit
    return str(hit["sku"])


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
    if items and s.rng.random() < 0.6 and s.room(calls=1, turns=1):
        item = s.choose(items, itemgetter("name"), none="nothing", alike="same name")
        s.memory["product"] = {"sku": item["sku"], "name": item["name"]}
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
    way = "both" if s.minimal else s.rng.choice(("in", "out", "both"))
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
    found = listed_store(s, st["store_id"], **args)
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
    listed_store(s, st["store_id"], city=st["city"], status="open")


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


@retail_chain.intent(covers=("search_products", "check_stock"), weight=1.2)
def brand_shopping(s: Scene) -> None:
    """A shopper asks what a brand has in a category, then where one of those items is in stock in their city."""
    row = s.pick(
        "SELECT DISTINCT p.brand, p.category, s.city FROM products p JOIN inventory i USING (sku) JOIN stores s "
        "USING (store_id) WHERE s.kind = 'store' AND s.status = 'open' AND i.on_hand - i.reserved >= 1"
    )
    as_shopper(s)
    s.say(
        "What {c} do you sell from {b}?",
        "Which {b} {c} do you carry?",
        "I'm after {b} {c}; what have you got?",
        minimal=["{b} {c}?"],
        b=row["brand"],
        c=CATEGORY_WORDS[row["category"]],
    )
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
    s.say(
        "Is the {n} in stock in {c}?",
        "Where in {c} can I get the {n}?",
        "Which {c} stores have the {n} right now?",
        n=item["name"],
        c=row["city"],
    )
    s.call("check_stock", sku=item["sku"], city=row["city"], min_available=1)


@retail_chain.intent(covers=("list_stores", "list_store_inventory"), weight=0.8)
def warehouse_stock(s: Scene) -> None:
    """A buyer asks what a distribution center holds in one category."""
    staff(s)
    dc = s.pick("SELECT * FROM stores WHERE kind = 'distribution_center'")
    cat = s.pick(
        "SELECT DISTINCT p.category FROM inventory i JOIN products p USING (sku) WHERE i.store_id = ?", dc["store_id"]
    )["category"]
    s.say(
        "How much {c} is sitting in the {city} warehouse?",
        "What {c} does our {city} distribution center hold?",
        "Show me the {city} distribution center's {c}.",
        minimal=["{city} warehouse: {c}?"],
        c=CATEGORY_WORDS[cat],
        city=dc["city"],
    )
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
    s.say(
        "I'm at {w}. A customer[, {n},] called and wants {i} held here.",
        "Please put {i} aside at {w} for a phone customer[ ({n})].",
        "Hold {i} at {w}[ for {n}], they'll pick it up tomorrow.",
        w=where,
        i=what,
        n=name,
    )
    sid = find_store(s, {"store_id": row["store_id"], "city": row["city"]})
    sku = find_product(s, row)
    out = s.call("reserve_for_pickup", store_id=sid, sku=sku, customer_name=who)
    s.memory["hold"] = out["reservation_id"]


@retail_chain.intent(covers=("get_store",), follows=True, opens=False)
def one_of_the_listed(s: Scene) -> None:
    """After a listing of locations, the user asks about one of them by name (it becomes the dialogue's store)."""
    listed: dict[str, dict[str, Any]] = {}
    for c in s.calls:
        if c.tool == "check_stock":
            listed.update({r["store_name"]: {**r, "name": r["store_name"]} for r in c.result["locations"]})
        elif c.tool == "list_stores":
            listed.update({r["name"]: r for r in c.result["stores"]})
    here = s.memory.get("store")
    names = sorted(n for n, r in listed.items() if not here or r["store_id"] != here["store_id"])
    if not names:
        raise Skip("no other location listed")
    row = listed[s.rng.choice(names)]
    s.asked("get_store", store_id=row["store_id"])
    s.say(
        "Tell me more about the {n} one: address and who runs it.",
        "Where exactly is {n}, and what's their number?",
        "How do I reach {n}?",
        n=row["name"],
    )
    s.call("get_store", store_id=row["store_id"])
    remember_store(s, row)


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
        "Does {w} have {i} in stock?",
        "Before I drive over: is {i} available at {w}?" if shopper else "What's {w}'s count on {i}?",
        minimal=["{i} at {w}?"],
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
        "Send some of {i}[ ({n} units)] from {a} over to {b}.",
        "{b} is out of {i}; move some over from {a}[, {n} units].",
        "Ship[ {n} units of] {i} from {a} to {b}, please.",
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
    s.say(
        "Which shipments of {i} have come into {w}?",
        "When did {w} last get {i} from another location?",
        "Show me the transfers of {i} into {w}.",
        i=product_ref(s, t),
        w=store_ref(s, t["to_store_id"], t["store"]),
    )
    sid = find_store(s, {"store_id": t["to_store_id"], "city": t["city"]})
    sku = find_product(s, t)
    s.call("list_transfers", store_id=sid, sku=sku, direction="in")
