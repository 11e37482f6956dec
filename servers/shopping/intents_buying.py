"""A shopper buying: the basket, codes, checkout; and browsing first: reviews, the best of a kind, the wishlist."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip, unique_best
from servers.shopping.intents import (
    BUYABLE,
    CATEGORY_WORDS,
    NUMBERS,
    PAY_WORDS,
    SPEAKER,
    WORDS,
    address_listed,
    address_ref,
    browsing_shopper,
    cart_lines,
    checkout_ready,
    coupon_works,
    find_product,
    fitting_code,
    me,
    now_iso,
    product_ref,
    remember_order,
    remember_product,
)
from servers.shopping.schema import MAX_PER_PRODUCT
from servers.shopping.tools import shopping

# Buying ----------------------------------------------------------------------------------------


@shopping.intent(covers=("search_customers", "search_products", "add_to_cart", "get_cart"), weight=1.5, follows=True)
def put_in_basket(s: Scene) -> None:
    """A shopper wants a product they saw, maybe a few of it, and asks what the basket comes to."""
    c = me(s)
    p = s.pick(
        BUYABLE + " AND stock >= 3 AND product_id NOT IN (SELECT product_id FROM cart_items WHERE customer_id = ?)",
        c["customer_id"],
    )
    qty = s.rng.choice((1, 1, 2, 3))
    many = "one" if qty == 1 else NUMBERS[qty]
    cid = SPEAKER.asks(s, c, WORDS.put_in_basket, what=product_ref(s, p), many=many, them="it" if qty == 1 else "them")
    found = find_product(s, p)
    remember_product(s, found)
    args: dict[str, Any] = {"customer_id": cid, "product_id": found["product_id"]}
    if qty > 1 and not s.minimal:
        args["quantity"] = qty
    s.call("add_to_cart", **args)
    s.then(0.85, WORDS.basket_now, "get_cart", customer_id=cid)


@shopping.intent(covers=("search_customers", "get_cart", "update_cart_item"), follows=True)
def change_basket(s: Scene) -> None:
    """A shopper takes something out of the basket or changes how many they want."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM cart_items)")
    line = s.pick(
        "SELECT ci.quantity, p.* FROM cart_items ci JOIN products p USING (product_id) WHERE ci.customer_id = ?",
        c["customer_id"],
    )
    options = [n for n in range(1, min(line["stock"], MAX_PER_PRODUCT, 4) + 1) if n != line["quantity"]]
    qty = 0 if not options or s.minimal or s.rng.random() < 0.5 else s.rng.choice(options)
    what = product_ref(s, line)
    n = s.given(qty, NUMBERS.get(qty, str(qty)), "quantity", "update_cart_item", "quantity")
    cid = SPEAKER.asks(
        s,
        c,
        WORDS.change_basket if qty == 0 else WORDS.change_basket_quantity,
        what=what,
        n=n,
        had=NUMBERS.get(line["quantity"], "that many"),
    )
    cart = s.call("get_cart", customer_id=cid)
    if line["product_id"] not in [i["product_id"] for i in cart["items"]]:
        raise Skip("the item is not in the cart")
    s.call("update_cart_item", customer_id=cid, product_id=line["product_id"], quantity=qty)
    if qty:
        remember_product(s, {"product_id": line["product_id"], "name": line["name"]})
    s.then(0.5, WORDS.basket_now, "get_cart", customer_id=cid)


@shopping.intent(covers=("search_customers", "apply_coupon", "get_cart"), follows=True)
def use_my_code(s: Scene) -> None:
    """A shopper has a coupon code from an email and wants it on their basket."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM cart_items)")
    code, given = fitting_code(s, c["customer_id"], cart_lines(s, c["customer_id"]))
    cid = SPEAKER.asks(s, c, WORDS.use_my_code, code=given)
    s.call("apply_coupon", customer_id=cid, code=code)
    s.then(0.5, (*WORDS.basket_now, *WORDS.code_done), "get_cart", customer_id=cid)


@shopping.intent(covers=("list_coupons", "search_customers", "apply_coupon"))
def hunt_for_a_deal(s: Scene) -> None:
    """A shopper asks whether there is a deal on a kind of thing in their basket, then takes it."""
    coupon = s.pick(
        "SELECT c.*, k.name AS category FROM coupons c JOIN categories k USING (category_id) "
        "WHERE c.starts_at <= ? AND c.expires_at > ? AND c.uses < c.max_uses",
        now_iso(s),
        now_iso(s),
    )
    c = me(
        s,
        "c.customer_id IN (SELECT customer_id FROM cart_items ci JOIN products p USING (product_id) "
        "WHERE p.category_id = ?)",
        coupon["category_id"],
    )
    if (
        not coupon_works(s, coupon["code"], cart_lines(s, c["customer_id"]))
        or s.value("SELECT coupon_code FROM carts WHERE customer_id = ?", c["customer_id"]) == coupon["code"]
    ):
        raise Skip("the category's coupon does not fit this cart")
    words = CATEGORY_WORDS[coupon["category"]]
    s.say(WORDS.hunt_for_a_deal, w=words)
    found = s.call("list_coupons", active_only=True)["coupons"]
    if coupon["code"] not in [x["code"] for x in found]:
        raise Skip("the coupon is past the first page")
    cid = SPEAKER.asks(s, c, WORDS.hunt_for_a_deal_then_apply, who_short=c["name"])
    s.call("apply_coupon", customer_id=cid, code=coupon["code"])


@shopping.intent(covers=("search_customers", "list_addresses", "checkout_cart", "get_order"), weight=1.5, follows=True)
def check_out(s: Scene) -> None:
    """A shopper is done and wants the basket shipped to one of their saved addresses."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM cart_items)")
    if not checkout_ready(s, c["customer_id"]):
        raise Skip("the cart would not check out as it stands")
    a = s.pick("SELECT * FROM addresses WHERE customer_id = ?", c["customer_id"])
    where = address_ref(s, c, a)
    method = s.rng.choice(("card", "card", "paypal", "gift_card"))
    cid = SPEAKER.asks(s, c, WORDS.check_out, where=where, how=PAY_WORDS[method])
    address_listed(s, cid, a["address_id"])
    args: dict[str, Any] = {"customer_id": cid, "address_id": a["address_id"]}
    if method != "card" and not s.minimal:
        args["payment_method"] = method
    placed = s.call("checkout_cart", **args)
    remember_order(s, placed["order_id"])
    s.then(1.0, (*WORDS.that_order, *WORDS.placed), "get_order", order_id=placed["order_id"])


# Browsing --------------------------------------------------------------------------------------


@shopping.intent(covers=("search_products", "list_product_reviews", "get_product"))
def is_it_any_good(s: Scene) -> None:
    """A shopper looks at what reviewers say about a product before buying."""
    browsing_shopper(s)
    p = s.pick("SELECT * FROM products WHERE review_count >= 3")
    floor = s.rng.choice((None, 4, 5))
    s.say(
        "Is {what} any good? What are people saying?"
        if floor is None
        else "Is {what} any good? Show me what the {floor}-star-and-up reviewers say.",
        "Thinking about {what}. How do the reviews look?"
        if floor is None
        else "Thinking about {what}; what do the people who gave it {floor} stars or more say?",
        minimal=["Thinking about {what}. Worth it?"],
        what=product_ref(s, p),
        floor=floor,
    )
    found = find_product(s, p)
    remember_product(s, found)
    args: dict[str, Any] = {"product_id": found["product_id"]}
    if floor and not s.minimal:
        args["min_rating"] = floor
    s.call("list_product_reviews", **args)
    s.say(*WORDS.product_again)
    s.call("get_product", product_id=found["product_id"])


@shopping.intent(covers=("list_categories", "search_products", "get_product"))
def best_in_category(s: Scene) -> None:
    """A shopper wants the best-rated things of a kind within a budget."""
    browsing_shopper(s)
    k = s.pick("SELECT * FROM categories")
    budget = s.rng.choice((30, 50, 75, 100, 150, 200))
    found_rows = s.rows(BUYABLE + " AND category_id = ? AND price <= ?", k["category_id"], budget)
    if len(found_rows) < 2:
        raise Skip("too few products in the budget")
    s.say(WORDS.best_in_category, w=CATEGORY_WORDS[k["name"]], b=budget)
    cats = s.call("list_categories")["categories"]
    cat = next(x["category_id"] for x in cats if x["name"] == k["name"])
    args: dict[str, Any] = {"category_id": cat, "in_stock_only": True, "sort": "rating"}
    if not s.minimal:
        args["max_price"] = float(budget)
    top = s.call("search_products", **args)["products"]
    if not top:
        raise Skip("nothing found")
    remember_product(s, top[0])
    s.say(WORDS.best_in_category_then_top_one)
    s.call("get_product", product_id=top[0]["product_id"])


@shopping.intent(covers=("search_customers", "search_products", "add_to_wishlist", "get_wishlist"), follows=True)
def save_for_later(s: Scene) -> None:
    """A shopper is not ready to buy something and keeps it for later."""
    c = me(s)
    p = s.pick(
        "SELECT * FROM products WHERE status = 'active' AND product_id NOT IN "
        "(SELECT product_id FROM wishlist_items WHERE customer_id = ?)",
        c["customer_id"],
    )
    cid = SPEAKER.asks(s, c, WORDS.save_for_later, what=product_ref(s, p))
    found = find_product(s, p)
    s.call("add_to_wishlist", customer_id=cid, product_id=found["product_id"])
    remember_product(s, found)
    s.then(0.85, WORDS.wishlist, "get_wishlist", customer_id=cid)


@shopping.intent(covers=("search_customers", "get_wishlist", "add_to_cart"), follows=True)
def buy_from_wishlist(s: Scene) -> None:
    """A shopper looks at their wishlist and buys the cheapest thing on it that is in stock."""
    c = me(
        s,
        "c.customer_id IN (SELECT customer_id FROM wishlist_items w JOIN products p USING (product_id) "
        "WHERE p.status = 'active' AND p.stock > 0)",
    )
    saved = s.rows(
        "SELECT p.* FROM wishlist_items w JOIN products p USING (product_id) WHERE w.customer_id = ? "
        "AND p.status = 'active' AND p.stock > 0",
        c["customer_id"],
    )
    cheapest = unique_best(saved, itemgetter("price"), lowest=True, tie="two wishlist items tie for the cheapest")
    have = (
        s.value(
            "SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?",
            c["customer_id"],
            cheapest["product_id"],
        )
        or 0
    )
    if have + 1 > min(cheapest["stock"], MAX_PER_PRODUCT):
        raise Skip("the cart already holds all there is")
    if s.turns:  # continuing a dialogue: one turn
        s.say(WORDS.buy_from_wishlist_continuing)
        cid = SPEAKER.find(s, c)
        s.call("get_wishlist", customer_id=cid)
        s.call("add_to_cart", customer_id=cid, product_id=cheapest["product_id"])
        remember_product(s, cheapest)
        return
    cid = SPEAKER.asks(s, c, WORDS.buy_from_wishlist)
    s.call("get_wishlist", customer_id=cid)
    s.say(WORDS.buy_from_wishlist_then_cheapest)
    s.call("add_to_cart", customer_id=cid, product_id=cheapest["product_id"])
    remember_product(s, cheapest)
