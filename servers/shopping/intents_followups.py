"""Short follow-ups a shopper asks after an action: the basket now, the product again, the order just placed.

Each continues a dialogue of ``intents.py`` on what it left in ``s.memory``: the customer (found, or the shopper
who browsed without saying who they are), the product the dialogue is about and its order. They never open a
dialogue and make one or two calls.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.shopping.intents import (
    NUMBERS,
    cart_lines,
    coupon_works,
    find_me,
    me,
    who,
)
from servers.shopping.schema import MAX_PER_PRODUCT
from servers.shopping.tools import shopping


def known_customer(s: Scene) -> dict[str, Any]:
    """The customer an earlier turn found (a follow-up of a shopper who has not said who they are skips)."""
    known = s.memory.get("customer")
    if not known:
        raise Skip("no customer in the dialogue yet")
    return dict(known)


def the_product(s: Scene) -> dict[str, Any]:
    """The product the dialogue is about, read again now."""
    known = s.memory.get("product")
    if not known:
        raise Skip("no product in the dialogue")
    return s.rows("SELECT * FROM products WHERE product_id = ?", known["product_id"])[0] | {"known": known}


def ask_once(s: Scene, tool: str, arguments: dict[str, Any], *phrasings: str) -> None:
    """A follow-up read the dialogue has not made yet (``Skip`` when it has): one of ``phrasings``, then the call."""
    s.asked(tool, **arguments)
    s.say(*phrasings)
    s.call(tool, **arguments)


def last_tool(s: Scene) -> str | None:
    calls = list(s.calls)
    return calls[-1].tool if calls else None


@shopping.intent(covers=("get_cart",), opens=False, follows=True)
def basket_now(s: Scene) -> None:
    """After changing the basket, the shopper asks what it comes to now."""
    c = known_customer(s)
    if not s.rows("SELECT 1 FROM cart_items WHERE customer_id = ?", c["customer_id"]) or last_tool(s) == "get_cart":
        raise Skip("nothing new to total")
    if not any(x.kind == "write" for x in s.calls):
        raise Skip("the basket did not change")
    s.say(
        "What does my basket come to now?",
        "And the total with shipping?",
        "So where's my basket at, all in?",
        "What am I paying altogether now?",
    )
    s.call("get_cart", customer_id=c["customer_id"])


@shopping.intent(covers=("search_customers", "add_to_wishlist"), opens=False, follows=True)
def keep_it_in_mind(s: Scene) -> None:
    """The shopper keeps the product of the dialogue on their wishlist (saying who they are if not yet)."""
    p = the_product(s)
    c = me(s)
    if p["status"] != "active" or s.rows(
        "SELECT 1 FROM wishlist_items WHERE customer_id = ? AND product_id = ?", c["customer_id"], p["product_id"]
    ):
        raise Skip("cannot be wishlisted")
    if s.memory.get("customer"):
        s.say(
            "Also keep it on my wishlist.",
            "Save that one for later on my wishlist too.",
            "Could you bookmark it for me as well?",
        )
    else:
        s.say(
            "Not buying yet, but save it on my wishlist. {who}.",
            "{who} - keep it in my saved items for later.",
            who=who(s, c),
        )
    cid = find_me(s, c)
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
    if s.memory.get("customer"):
        s.say("Fine, put one in my basket.", "OK, I'll take one - into my basket.", "Sold. Add it to my basket.")
    else:
        s.say(
            "Sounds good, I'll take one. {who}.",
            "{who} - put one in my basket, please.",
            "OK, sold: into my basket with it. {who}.",
            who=who(s, c),
        )
    cid = find_me(s, c)
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
        s.say(
            "Hmm, actually take it back out of the basket.",
            "On second thought, drop it from my basket.",
            "Never mind, remove that one again.",
        )
    else:
        s.say(
            "Actually, make it {n}.",
            "Change that to {n}, please.",
            "Wait, I need {n} of those.",
            n=NUMBERS.get(qty, str(qty)),
        )
    s.call("update_cart_item", customer_id=c["customer_id"], product_id=p["product_id"], quantity=qty)


@shopping.intent(covers=("list_product_reviews",), opens=False, follows=True)
def what_do_others_say(s: Scene) -> None:
    """The shopper asks what other buyers say about the product of the dialogue."""
    p = the_product(s)
    if not p["review_count"]:
        raise Skip("no reviews")
    s.asked("list_product_reviews", product_id=p["product_id"])
    floor = s.rng.choice((None, None, 4))
    if floor:
        s.say(
            "What do the people who liked it say? Four stars and up.",
            "Show me the good reviews of it, four stars or more.",
        )
    else:
        s.say("What are other buyers saying about it?", "How are its reviews?", "Do people like it?")
    s.call("list_product_reviews", product_id=p["product_id"], **({"min_rating": floor} if floor else {}))


@shopping.intent(covers=("get_product",), opens=False, follows=True)
def more_about_it(s: Scene) -> None:
    """The shopper asks for the details of the product of the dialogue: brand, stock, price."""
    p = the_product(s)
    ask_once(
        s,
        "get_product",
        {"product_id": p["product_id"]},
        "Remind me, who makes it and how many are left?",
        "Is it still in stock? And what's the brand?",
        "Tell me a bit more about it - brand, price, stock.",
    )


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
        price=money(p["price"]),
        u=f", under {money(p['price'])}",
    )
    s.call(
        "search_products",
        category_id=known["category_id"],
        max_price=known["price"],
        in_stock_only=True,
        sort="price_asc",
    )


@shopping.intent(covers=("get_order",), opens=False, follows=True)
def that_order(s: Scene) -> None:
    """The shopper asks about the order the dialogue is about: what is in it, its total, where it stands."""
    known = s.memory.get("order")
    if not known:
        raise Skip("no order in the dialogue")
    ask_once(
        s,
        "get_order",
        {"order_id": known["order_id"]},
        "What exactly was in that order, and what did it come to?",
        "Pull up that order for me - items and total.",
        "Where does that order stand now?",
    )


@shopping.intent(covers=("cancel_order",), opens=False, follows=True)
def scrap_that_order(s: Scene) -> None:
    """Right after ordering, the shopper calls the order off again before it ships."""
    known = s.memory.get("order")
    if not known or s.value("SELECT status FROM orders WHERE order_id = ?", known["order_id"]) != "placed":
        raise Skip("no order that can still be called off")
    s.say(
        "Wait - call that order off, I'd rather buy it in store.",
        "Hmm, actually call that order off again.",
        "Scrap that order please, I changed my mind.",
    )
    s.call("cancel_order", order_id=known["order_id"])


@shopping.intent(covers=("search_customers", "list_returns"), opens=False, follows=True)
def my_returns(s: Scene) -> None:
    """The shopper asks where their returns stand."""
    c = me(s, "c.customer_id IN (SELECT o.customer_id FROM returns r JOIN orders o USING (order_id))")
    s.asked("list_returns", customer_id=c["customer_id"])
    status = s.rng.choice((None, None, "requested", "refunded"))
    if status is None:
        s.say("And how are my returns going?", "Any news on the things I sent back?", "Where do my returns stand?")
    else:
        s.say(
            "Which of my returns are still waiting for a decision?"
            if status == "requested"
            else "Which of my returns have been refunded?",
            "Anything I sent back that nobody has looked at yet?"
            if status == "requested"
            else "Have any of my returns been paid back yet?",
        )
    cid = find_me(s, c)
    s.call("list_returns", customer_id=cid, **({"status": status} if status else {}))


@shopping.intent(covers=("list_addresses",), opens=False, follows=True)
def where_can_it_go(s: Scene) -> None:
    """The shopper asks which shipping addresses the store has for them."""
    c = known_customer(s)
    ask_once(
        s,
        "list_addresses",
        {"customer_id": c["customer_id"]},
        "Which addresses do you have on file for me?",
        "Where can you ship to for me - what addresses are saved?",
        "Read me my saved addresses.",
    )


@shopping.intent(covers=("get_customer",), opens=False, follows=True)
def my_tier(s: Scene) -> None:
    """The shopper asks about their membership."""
    c = known_customer(s)
    ask_once(
        s,
        "get_customer",
        {"customer_id": c["customer_id"]},
        "By the way, am I a Plus member?",
        "What membership level am I on?",
        "Do I have free shipping through my membership?",
    )


@shopping.intent(covers=("get_wishlist",), opens=False, follows=True)
def my_saved_things(s: Scene) -> None:
    """The shopper asks what is on their wishlist."""
    c = known_customer(s)
    if not s.rows("SELECT 1 FROM wishlist_items WHERE customer_id = ?", c["customer_id"]):
        raise Skip("empty wishlist")
    ask_once(
        s,
        "get_wishlist",
        {"customer_id": c["customer_id"]},
        "What's on my wishlist at the moment?",
        "Remind me what I've saved for later.",
        "Read me my wishlist.",
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
    s.say(
        "Is there a discount code I could use on my basket?",
        "Any deals running that would work for what's in my basket? Use one if so.",
        "Can I get a discount on this somehow?",
    )
    found = s.call("list_coupons", active_only=True)["coupons"]
    fits = [x["code"] for x in found if coupon_works(s, x["code"], lines)]
    if len(fits) != 1:
        raise Skip("not exactly one code fits the basket")
    s.call("apply_coupon", customer_id=c["customer_id"], code=fits[0])


@shopping.intent(covers=("search_customers", "list_orders", "get_order"), opens=False, follows=True)
def my_last_order(s: Scene) -> None:
    """The shopper asks what their most recent order was and what it came to."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders)")
    s.asked("list_orders", customer_id=c["customer_id"])
    latest = s.rows(
        "SELECT order_id, placed_at FROM orders WHERE customer_id = ? ORDER BY placed_at DESC, order_id DESC LIMIT 2",
        c["customer_id"],
    )
    if len(latest) > 1 and latest[0]["placed_at"] == latest[1]["placed_at"]:
        raise Skip("two orders placed at once")
    s.say(
        "What was my last order, and what did it cost me?",
        "Remind me what I ordered most recently.",
        "What did my latest order have in it?",
    )
    cid = find_me(s, c)
    listed = s.call("list_orders", customer_id=cid, limit=1)["orders"]
    s.call("get_order", order_id=listed[0]["order_id"])
