"""Follow-ups on the retail chain that change something: holds released or changed, deliveries booked in, units
moved between locations, and the agent's read of a location listed earlier in the dialogue."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip
from servers.retail_chain.intents import (
    SHOPPERS,
    SUPPLIERS,
    WORDS,
    find_product,
    free_at,
    product_ref,
    remember_store,
    staff,
)
from servers.retail_chain.intents_followups import it, product, store
from servers.retail_chain.tools import StoreId, retail_chain


@retail_chain.intent(covers=("cancel_reservation",), follows=True, opens=False, weight=1.3)
def call_off_hold(s: Scene) -> None:
    """The hold the dialogue made (or found) is called off."""
    hold = s.memory.get("hold")
    if not hold or s.value("SELECT status FROM reservations WHERE reservation_id = ?", hold) != "active":
        raise Skip("no active hold in the dialogue")
    if s.memory.get("role") == "shopper":
        s.say(WORDS.call_off_hold)
    else:
        s.say(WORDS.call_off_hold_by_staff)
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
    s.say(WORDS.change_hold, n=qty, o=r0["quantity"])
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
    s.say(WORDS.also_have_other, w=what)
    s.call("check_stock", sku=find_product(s, other), store_id=st["store_id"])


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
    s.say(WORDS.restock_listed, sup=sup, n=qty, i=item["name"])
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
    s.say(WORDS.send_to_sister, n=qty, it=it(s), c=st["city"])
    sister = s.discover(StoreId, other[0]["store_id"], missing="not listed", city=st["city"])
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
    s.say(WORDS.hold_for_caller, w=who, one="one" if it(s) == "it" else f"one {p['name']}")
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
    s.say(WORDS.clear_a_hold, w=r["customer_name"], i=r["name"])
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
    s.say(WORDS.hold_one_there, many="one" if qty == 1 else "two", st=row["store_name"], n=s.persona.name)
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
    s.say(WORDS.book_delivery_here, sup=sup, it=it(s), n=qty)
    s.call("restock_item", store_id=st["store_id"], sku=p["sku"], quantity=qty, supplier=sup)


@retail_chain.intent(covers=("check_stock", "transfer_stock"), follows=True, opens=False)
def top_up_from_dc(s: Scene) -> None:
    """The dialogue's store gets some of the item from the distribution center that has the most."""
    staff(s)
    p, st = product(s), store(s)
    if st["status"] != "open" or st["kind"] != "store":
        raise Skip("not an open store")
    qty = s.rng.choice((5, 10, 20))
    s.say(WORDS.top_up_from_dc, n=qty)
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
    s.say("Tell me more about the {n} one: address and who {runs|manages} it.", *WORDS.reach, n=row["name"])
    s.call("get_store", store_id=row["store_id"])
    remember_store(s, row)
