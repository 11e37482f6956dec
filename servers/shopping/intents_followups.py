"""Short follow-ups a shopper asks after an action: the basket now, the product again, the order just placed.

Each continues a dialogue of the other modules on what it left in ``s.memory``: the customer (found, or the shopper
who browsed without saying who they are), the product the dialogue is about and its order. They never open a
dialogue and make one or two calls. Those of one turn and one call on what the dialogue is about are rows of
``AGAIN``, registered in a loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip, money
from servers.shopping.intents import (
    NUMBERS,
    SPEAKER,
    WORDS,
    cart_lines,
    coupon_works,
    known_customer,
    last_tool,
    me,
    the_product,
)
from servers.shopping.schema import MAX_PER_PRODUCT
from servers.shopping.tools import shopping


def _on(about: str, needs: str = "") -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    """The call's ``{about}_id`` from ``memory[about]``, whose id must find a row of ``needs``."""

    def on(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
        known = s.memory.get(about)
        if not known:
            raise Skip(f"no {about} in the dialogue")
        args = {f"{about}_id": known[f"{about}_id"]}
        if needs and not s.rows(needs, *args.values()):
            raise Skip(f"the {about} does not fit {s.intent.name if s.intent else about}")
        return args, {}

    return on


def _changed(tool: str) -> Callable[[Scene, dict[str, Any]], None]:
    """Asked after the dialogue changed something since the last such call."""

    def check(s: Scene, args: dict[str, Any]) -> None:
        if last_tool(s) == tool or not any(x.kind == "write" for x in s.calls):
            raise Skip("nothing changed since")

    return check


AGAIN = (
    FollowUp(
        "basket_now",
        "After changing the basket, the shopper asks what it comes to now.",
        _on("customer", "SELECT 1 FROM cart_items WHERE customer_id = ?"),
        "get_cart",
        phrasings=WORDS.basket_now,
        asked=False,
        check=_changed("get_cart"),
    ),
    FollowUp(
        "more_about_it",
        "The shopper asks for the details of the product of the dialogue: brand, stock, price.",
        _on("product"),
        "get_product",
        phrasings=WORDS.product_again,
    ),
    FollowUp(
        "that_order",
        "The shopper asks about the order the dialogue is about: what is in it, its total, where it stands.",
        _on("order"),
        "get_order",
        phrasings=WORDS.that_order,
    ),
    FollowUp(
        "scrap_that_order",
        "Right after ordering, the shopper calls the order off again before it ships.",
        _on("order", "SELECT 1 FROM orders WHERE order_id = ? AND status = 'placed'"),
        "cancel_order",
    ),
    FollowUp(
        "where_can_it_go",
        "The shopper asks which shipping addresses the store has for them.",
        _on("customer"),
        "list_addresses",
        phrasings=WORDS.addresses,
    ),
    FollowUp("my_tier", "The shopper asks about their membership.", _on("customer"), "get_customer"),
    FollowUp(
        "my_saved_things",
        "The shopper asks what is on their wishlist.",
        _on("customer", "SELECT 1 FROM wishlist_items WHERE customer_id = ?"),
        "get_wishlist",
        phrasings=WORDS.wishlist,
    ),
)


follow_ups(shopping, AGAIN, WORDS)


def in_my_words(s: Scene, c: dict[str, Any], known: tuple[str, ...], new: tuple[str, ...]) -> str:
    """The shopper's turn: one of ``known`` once the dialogue found them, else one of ``new``, saying who they
    are; then the customer id."""
    return SPEAKER.asks(s, c, *(known if s.memory.get("customer") else new))


@shopping.intent(covers=("search_customers", "add_to_wishlist"), opens=False, follows=True)
def keep_it_in_mind(s: Scene) -> None:
    """The shopper keeps the product of the dialogue on their wishlist (saying who they are if not yet)."""
    p = the_product(s)
    c = me(s)
    if p["status"] != "active" or s.rows(
        "SELECT 1 FROM wishlist_items WHERE customer_id = ? AND product_id = ?", c["customer_id"], p["product_id"]
    ):
        raise Skip("cannot be wishlisted")
    known = WORDS.keep_it_in_mind_known
    new = WORDS.keep_it_in_mind_new
    cid = in_my_words(s, c, known, new)
    s.call("add_to_wishlist", customer_id=cid, product_id=p["product_id"])


@shopping.intent(covers=("search_customers", "add_to_cart"), opens=False, follows=True)
def ill_take_it(s: Scene) -> None:
    """Convinced, the shopper puts the product of the dialogue in their basket (saying who they are if not yet)."""
    p = the_product(s)
    c = me(s)
    have = s.value(
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?", c["customer_id"], p["product_id"]
    )
    if have or p["status"] != "active" or p["stock"] < 1:
        raise Skip("cannot go in the basket")
    known = WORDS.ill_take_it_known
    new = WORDS.ill_take_it_new
    cid = in_my_words(s, c, known, new)
    s.call("add_to_cart", customer_id=cid, product_id=p["product_id"])


@shopping.intent(covers=("update_cart_item",), opens=False, follows=True)
def actually_make_it(s: Scene) -> None:
    """The shopper changes their mind about how many of the product of the dialogue they want."""
    p = the_product(s)
    c = known_customer(s)
    have = s.value(
        "SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?", c["customer_id"], p["product_id"]
    )
    if not have:
        raise Skip("not in the basket")
    options = [n for n in range(1, min(p["stock"], MAX_PER_PRODUCT, 4) + 1) if n != have]
    qty = 0 if not options or s.rng.random() < 0.35 else s.rng.choice(options)
    if qty == 0:
        s.say(WORDS.actually_make_it)
    else:
        s.say(WORDS.actually_make_it_quantity, n=NUMBERS.get(qty, str(qty)), had=NUMBERS.get(have, str(have)))
    s.call("update_cart_item", customer_id=c["customer_id"], product_id=p["product_id"], quantity=qty)


@shopping.intent(covers=("list_product_reviews",), opens=False, follows=True)
def what_do_others_say(s: Scene) -> None:
    """The shopper asks what other buyers say about the product of the dialogue."""
    p = the_product(s)
    if not p["review_count"]:
        raise Skip("no reviews")
    s.asked("list_product_reviews", product_id=p["product_id"])
    floor = s.rng.choice((None, None, 4))
    s.say(*(WORDS.good_reviews if floor else WORDS.reviews))
    s.call("list_product_reviews", product_id=p["product_id"], **({"min_rating": floor} if floor else {}))


@shopping.intent(covers=("search_products",), opens=False, follows=True)
def anything_cheaper(s: Scene) -> None:
    """The shopper asks for something of the same kind as the product of the dialogue for less money."""
    p = the_product(s)
    known = p["known"]
    if "category_id" not in known or "price" not in known:
        raise Skip("the dialogue never listed its category and price")
    cheaper = s.rows(
        "SELECT 1 FROM products WHERE category_id = ? AND price < ? AND status = 'active' AND stock > 0",
        p["category_id"],
        p["price"],
    )
    if not cheaper:
        raise Skip("nothing cheaper of that kind")
    under = s.rng.random() < 0.5
    s.say(
        "Is there anything like it for less than {price}?" if under else "Anything similar that's cheaper?",
        "Show me cheaper options of the same kind{u}." if under else "What else of that kind costs less?",
        "{Do you have|Got} anything {similar|comparable} under {price}?"
        if under
        else "{Do you have|Got} anything {similar|comparable} for less?",
        "{That's|It's} a bit {pricey|steep}. What's there{u}?",
        "I'd rather spend less{u}. {What are|Any} alternatives?",
        "Show me the {cheaper|less expensive} ones in that category{u}, cheapest first.",
        price=money(p["price"]),
        u=f", under {money(p['price'])}" if under else "",
    )
    s.call(
        "search_products",
        category_id=known["category_id"],
        max_price=known["price"],
        in_stock_only=True,
        sort="price_asc",
    )


@shopping.intent(covers=("list_coupons", "apply_coupon"), opens=False, follows=True)
def any_codes(s: Scene) -> None:
    """With things in the basket, the shopper asks for a discount that works and has the best one used."""
    c = known_customer(s)
    lines = cart_lines(s, c["customer_id"])
    current = s.value("SELECT coupon_code FROM carts WHERE customer_id = ?", c["customer_id"])
    if not lines or current:
        raise Skip("no basket, or a code is on it already")
    s.asked("list_coupons")
    s.say(WORDS.any_codes)
    found = s.call("list_coupons", active_only=True)["coupons"]
    fits = [x["code"] for x in found if coupon_works(s, x["code"], lines)]
    if len(fits) != 1:
        raise Skip("not exactly one code fits the basket")
    s.call("apply_coupon", customer_id=c["customer_id"], code=fits[0])
