"""Short follow-ups on the retail chain: the next question a shopper or a store employee asks about the product or
the location the dialogue is about, or the next thing they have done with it.

What an earlier turn left in ``s.memory``: ``role`` (``shopper`` or ``staff``: who is talking), ``product`` (the
item: ``sku``, ``name``, as a call listed it), ``store`` (the location: ``store_id``, ``name``, ``city``) and
``hold`` (a pickup reservation the shopper just made). The one-question reads are rows of ``READS``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.retail_chain.intents import CATEGORY_WORDS, WORDS, staff
from servers.retail_chain.tools import retail_chain

Row = dict[str, Any]


def product(s: Scene) -> Row:
    """The item of the dialogue, read again now."""
    known = s.known("product", "no product in the dialogue")
    return s.rows("SELECT * FROM products WHERE sku = ?", known["sku"])[0]


def store(s: Scene) -> Row:
    """The location of the dialogue, read again now."""
    known = s.known("store", "no store in the dialogue")
    return s.rows("SELECT * FROM stores WHERE store_id = ?", known["store_id"])[0]


def it(s: Scene) -> str:
    return s.it("product", "the {name}")


Ask = Callable[[Scene, Row, Row], tuple[dict[str, Any], dict[str, Any]]]
Heard = Callable[[Scene, dict[str, Any]], dict[str, Any]]


def _on(
    args: Ask, needs: tuple[str, ...] = ("product",), staff_only: bool = False
) -> Callable[[Scene], tuple[Row, Row]]:
    """A question about the dialogue's item (``p``) and/or location (``st``), as ``needs`` says: ``args`` gives
    the read's arguments and the phrasings' own slots (``staff_only``: asked by a member of staff)."""

    def about(s: Scene) -> tuple[Row, Row]:
        if staff_only:
            staff(s)
        p = product(s) if "product" in needs else {}
        st = store(s) if "store" in needs else {}
        return args(s, p, st)

    return about


def _heard(needs: tuple[str, ...] = ("product",)) -> Heard:
    """The phrasings' slots, then ``{it}``: the item, ``{c}``: the location's city."""

    def heard(s: Scene, slots: dict[str, Any]) -> dict[str, Any]:
        p = {"it": it(s)} if "product" in needs else {}
        return {**slots, **p, **({"c": store(s)["city"]} if "store" in needs else {})}

    return heard


def _others(s: Scene, args: dict[str, Any], result: Any) -> None:
    s.listed_others("product")  # the read lists other items: "it" no longer points at the dialogue's item


def _city(s: Scene, p: Row, st: Row) -> tuple[dict[str, Any], dict[str, Any]]:
    here = s.memory.get("store")
    city = s.pick(
        "SELECT DISTINCT s.city FROM inventory i JOIN stores s USING (store_id) WHERE i.sku = ? AND "
        "i.on_hand - i.reserved >= 1 AND s.city != ?",
        p["sku"],
        here["city"] if here else "",
    )["city"]
    return {"sku": p["sku"], "city": city, "min_available": 1}, {"city": city}


def _state(s: Scene, p: Row, st: Row) -> tuple[dict[str, Any], dict[str, Any]]:
    state = s.pick(
        "SELECT DISTINCT s.state FROM inventory i JOIN stores s USING (store_id) WHERE i.sku = ? AND "
        "i.on_hand - i.reserved >= 1",
        p["sku"],
    )["state"]
    return {"sku": p["sku"], "state": state}, {"st": state}


def _category(s: Scene, p: Row, st: Row) -> tuple[dict[str, Any], dict[str, Any]]:
    sql = "SELECT DISTINCT p.category FROM inventory i JOIN products p USING (sku) WHERE i.store_id = ?"
    cat = s.pick(sql, st["store_id"])["category"]
    return {"store_id": st["store_id"], "category": cat}, {"cat": CATEGORY_WORDS[cat]}


def _carried(s: Scene, p: Row, st: Row) -> tuple[dict[str, Any], dict[str, Any]]:
    if not s.rows("SELECT 1 FROM inventory WHERE sku = ? AND store_id = ?", p["sku"], st["store_id"]):
        raise Skip("the store does not carry it")
    return {"sku": p["sku"], "store_id": st["store_id"]}, {}


READS = (
    FollowUp(
        "stock_in_city",
        "Whether the item is available in a city (another one than the dialogue's store, or the user's own).",
        _on(_city),
        "check_stock",
        heard=_heard(),
    ),
    FollowUp(
        "stock_in_state",
        "How much of the item the locations of one state hold.",
        _on(_state),
        "check_stock",
        heard=_heard(),
    ),
    FollowUp(
        "same_brand",
        "What else the item's brand makes in its category.",
        _on(
            lambda s, p, st: (
                {"query": p["brand"], "category": p["category"]},
                {"b": p["brand"], "cat": CATEGORY_WORDS[p["category"]]},
            )
        ),
        "search_products",
        heard=_heard(),
        then=_others,
    ),
    FollowUp(
        "item_moves",
        "Where the item has been shipped between locations lately.",
        _on(lambda s, p, st: ({"sku": p["sku"]}, {}), staff_only=True),
        "list_transfers",
        phrasings=WORDS.moves,
        heard=_heard(),
    ),
    FollowUp(
        "store_details",
        "The address, phone and manager of the dialogue's store (and its pickup holds).",
        _on(lambda s, p, st: ({"store_id": st["store_id"]}, {}), ("store",)),
        "get_store",
        heard=_heard(("store",)),
        weight=1.3,
    ),
    FollowUp(
        "store_low",
        "What else is below its reorder level at the dialogue's store.",
        _on(lambda s, p, st: ({"store_id": st["store_id"], "low_stock_only": True}, {}), ("store",), staff_only=True),
        "list_store_inventory",
        heard=_heard(("store",)),
        weight=1.3,
        then=_others,
    ),
    FollowUp(
        "store_category",
        "What the dialogue's store holds in one category.",
        _on(_category, ("store",)),
        "list_store_inventory",
        heard=_heard(("store",)),
        then=_others,
    ),
    FollowUp(
        "item_at_store",
        "How many of the dialogue's item the dialogue's store can sell now.",
        _on(_carried, ("product", "store")),
        "check_stock",
        heard=_heard(("product", "store")),
        weight=1.3,
    ),
    FollowUp(
        "other_stores_nearby",
        "Which other locations are in the dialogue store's city (and whether they are open).",
        _on(lambda s, p, st: ({"city": st["city"]}, {}), ("store",)),
        "list_stores",
        heard=_heard(("store",)),
    ),
    FollowUp(
        "chain_total",
        "How much of the dialogue's item is available across the whole chain (and whether it is still sold).",
        _on(lambda s, p, st: ({"query": p["name"]}, {})),
        "search_products",
        heard=_heard(),
    ),
)
follow_ups(retail_chain, READS, WORDS)


@retail_chain.intent(covers=("check_stock",), follows=True, opens=False)
def most_of_it(s: Scene) -> None:
    """Where the most of the item sits right now."""
    p = product(s)
    s.asked("check_stock", sku=p["sku"])
    n = s.rng.choice((5, 10, 20))
    if s.rng.random() < 0.5:
        s.say(*WORDS.most, it=it(s))
        s.call("check_stock", sku=p["sku"], limit=5)
    else:
        s.say(WORDS.most_of_it, n=n, it=it(s))
        s.call("check_stock", sku=p["sku"], min_available=n)


@retail_chain.intent(covers=("list_transfers",), follows=True, opens=False)
def store_incoming(s: Scene) -> None:
    """What has been shipped into (or out of) the dialogue's store lately."""
    staff(s)
    st = store(s)
    way = s.rng.choice(("in", "out"))
    if way == "in":
        s.say(WORDS.store_incoming)
    else:
        s.say(WORDS.store_incoming_sent_out)
    s.call("list_transfers", store_id=st["store_id"], direction=way)
