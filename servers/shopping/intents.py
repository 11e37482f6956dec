"""What people want of the online store: a shopper buying, changing their mind, sending things back.

The user is a customer who says who they are (their name, or their email when the name is shared);
the agent finds their customer id with ``search_customers``. Shoppers name products by their name as
printed on the product page, orders by the order number on their receipt or by what was in them and
when, addresses by their label ("my work address"), and coupons by the code they were sent. A few
intents are the store's staff looking at the catalog and at returns.
"""

from __future__ import annotations

from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub.kit import customer, fake
from hub.kit.intent import Given, Ref, Scene, Skip, day, money, unique_best
from servers.shopping.schema import MAX_PER_PRODUCT, RETURN_WINDOW_DAYS
from servers.shopping.tools import shopping

CUSTOMER = "SELECT customer_id, name, email, city, member_tier FROM customers c"
BUYABLE = "SELECT * FROM products WHERE status = 'active' AND stock > 0"
CATEGORY_WORDS = {
    "Electronics": "electronics",
    "Home & Kitchen": "kitchen stuff",
    "Books": "books",
    "Sports & Outdoors": "outdoor gear",
    "Toys & Games": "toys",
    "Beauty": "skin care things",
    "Clothing": "clothes",
    "Garden": "garden things",
    "Pet Supplies": "pet supplies",
    "Office": "office gear",
}
RETURN_WHY = {
    "damaged": ("arrived broken", "came damaged", "was cracked when I opened the box"),
    "wrong_item": ("isn't what I ordered", "turned out to be the wrong thing"),
    "not_as_described": ("looks nothing like the photos", "isn't what the page described"),
    "no_longer_needed": ("isn't needed anymore", "turned out to be one too many"),
}
CANCEL_WHY = ("ordered by mistake", "found a better price", "changed my mind")
CANCEL_WORDS = {
    "ordered by mistake": "I clicked by mistake",
    "found a better price": "I found it cheaper elsewhere",
    "changed my mind": "I changed my mind",
}
PAY_WORDS = {"card": "my card", "paypal": "PayPal", "gift_card": "my gift card"}
TITLES = {
    5: ("Love it", "Exactly what I wanted", "Five stars, no notes"),
    4: ("Really good", "Solid buy"),
    3: ("It's fine", "Does the job"),
    2: ("Meh", "Not great"),
    1: ("Broke fast", "Save your money"),
}
NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def now_iso(s: Scene) -> str:
    return fake.iso(s.now)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The customer talking. A shopper who browsed without saying who they are (``memory["shopper"]``) is the one
    a follow-up that needs their account speaks for; otherwise as ``customer.me``."""
    pending = s.memory.get("shopper")
    if pending and not s.memory.get("customer"):
        found = s.rows(CUSTOMER + f" WHERE c.customer_id = ? AND ({where})", pending["customer_id"], *params)
        if not found:
            raise Skip("the shopper of the earlier turn does not fit")
        return found[0]
    return customer.me(s, CUSTOMER, where, *params)


def browsing_shopper(s: Scene) -> None:
    """A shopper who browses before saying who they are: the persona becomes a customer a later turn can name."""
    if s.memory.get("customer") or s.memory.get("shopper") or s.turns:
        return
    c = s.pick(CUSTOMER + " WHERE c.name IN (SELECT name FROM customers GROUP BY name HAVING COUNT(*) = 1)")
    s.be(c["name"])
    s.memory["shopper"] = c


def remember_product(s: Scene, p: dict[str, Any]) -> None:
    """The product the dialogue is about, as a listing showed it (a follow-up reuses its id and category)."""
    keep = ("product_id", "name", "category_id", "price")
    s.memory["product"] = {k: p[k] for k in keep if k in p}


def remember_customer(s: Scene, customer_id: str) -> None:
    """The customer an order read by its number belongs to: the one the dialogue is about from now on."""
    s.memory["customer"] = s.rows(CUSTOMER + " WHERE c.customer_id = ?", customer_id)[0]


def remember_order(s: Scene, order_id: str) -> None:
    s.memory["order"] = {"order_id": order_id}


def theirs(s: Scene, column: str) -> tuple[str, list[Any]]:
    """SQL restricting a pick to the customer the dialogue is about (none yet: no restriction)."""
    known = s.memory.get("customer") or s.memory.get("shopper")
    return (f" AND {column} = ?", [known["customer_id"]]) if known else ("", [])


def who(s: Scene, c: dict[str, Any]) -> str:
    return customer.who(s, c, ("Still me", "Same account as before", "Me again"))


def find_me(s: Scene, c: dict[str, Any]) -> str:
    """The customer's id from a search by name (skipped when an earlier turn already found it)."""
    return str(customer.find_me(s, c)["customer_id"])


def product_ref(s: Scene, p: dict[str, Any]) -> str:
    return s.refer(
        p["product_id"], Ref("the {name}", "SELECT product_id FROM products WHERE name = ?", p["name"]), name=p["name"]
    )


def find_product(s: Scene, p: dict[str, Any], **filters: Any) -> dict[str, Any]:
    return s.find(
        "search_products",
        "products",
        "product_id",
        p["product_id"],
        missing="the product is past the first page of the search",
        query=p["name"],
        **filters,
    )


def cart_lines(s: Scene, customer_id: str) -> list[dict[str, Any]]:
    return s.rows(
        "SELECT ci.product_id, ci.quantity, p.name, p.price, p.stock, p.status, p.category_id, "
        "ROUND(p.price * ci.quantity, 2) AS line_total FROM cart_items ci JOIN products p USING (product_id) "
        "WHERE ci.customer_id = ?",
        customer_id,
    )


def coupon_works(s: Scene, code: str, lines: list[dict[str, Any]]) -> bool:
    """Whether the store would accept ``code`` on these cart lines right now (the rules of ``apply_coupon``)."""
    found = s.rows("SELECT * FROM coupons WHERE code = ?", code)
    if not found or not lines:
        return False
    c, now = found[0], now_iso(s)
    if c["starts_at"] > now or c["expires_at"] <= now or c["uses"] >= c["max_uses"]:
        return False
    if round(sum(x["line_total"] for x in lines), 2) < c["min_spend"]:
        return False
    return not c["category_id"] or any(x["category_id"] == c["category_id"] for x in lines)


def sendable(lines: list[dict[str, Any]]) -> bool:
    """Cart lines the store would ship: some, every item active and in stock."""
    return bool(lines) and not any(x["status"] != "active" or x["quantity"] > x["stock"] for x in lines)


def checkout_ready(s: Scene, customer_id: str) -> bool:
    """A cart the store would check out as it stands: items active and in stock, any coupon still good."""
    lines = cart_lines(s, customer_id)
    if not sendable(lines):
        return False
    code = s.value("SELECT coupon_code FROM carts WHERE customer_id = ?", customer_id)
    return not code or coupon_works(s, code, lines)


def fitting_code(s: Scene, customer_id: str, lines: list[dict[str, Any]]) -> tuple[str, Given]:
    """A code the shopper was sent, drawn among those the store would take on these cart lines other than the one
    on the cart already, and as the shopper gives it; ``Skip`` when none fits."""
    current = s.value("SELECT coupon_code FROM carts WHERE customer_id = ?", customer_id)
    codes = [
        r["code"]
        for r in s.rows("SELECT code FROM coupons")
        if r["code"] != current and coupon_works(s, r["code"], lines)
    ]
    if not codes:
        raise Skip("no coupon fits this cart")
    code = s.rng.choice(codes)
    return code, s.given(code, code, "code", "apply_coupon", "code")


def address_ref(s: Scene, c: dict[str, Any], a: dict[str, Any]) -> str:
    """A saved address as its shopper calls it ("my work address")."""
    return s.refer(
        a["address_id"],
        Ref(
            "my {label} address",
            "SELECT address_id FROM addresses WHERE customer_id = ? AND label = ?",
            c["customer_id"],
            a["label"],
        ),
        label=a["label"].lower() if a["label"] != "Parents" else "parents'",
    )


def address_listed(s: Scene, customer_id: str, address_id: str) -> None:
    """The agent lists the shopper's addresses; ``Skip`` when the one they mean is not among them."""
    listed = s.call("list_addresses", customer_id=customer_id)["addresses"]
    if address_id not in [x["address_id"] for x in listed]:
        raise Skip("the address is not listed")


def new_place(s: Scene) -> tuple[str, str, str, str]:
    """A street address the shopper moved to, drawn: street, city, state and zip code."""
    city, state, _, _ = s.rng.choice(fake.CITIES)
    street = f"{s.rng.randint(10, 9999)} {s.rng.choice(fake.STREETS)}"
    zip_code = f"{s.rng.randint(10000, 99999)}"
    return street, city, state, zip_code


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
    s.say(
        "{who}. I'd like {many} of {what}, please put {them} in my basket.",
        "{who} - could you drop {many} of {what} into my basket?",
        "Please throw {many} of {what} in my shopping basket. {who}.",
        minimal=["{who}. I want {what}."],
        who=who(s, c),
        what=product_ref(s, p),
        many=many,
        them="it" if qty == 1 else "them",
    )
    cid = find_me(s, c)
    found = find_product(s, p)
    remember_product(s, found)
    args: dict[str, Any] = {"customer_id": cid, "product_id": found["product_id"]}
    if qty > 1 and not s.minimal:
        args["quantity"] = qty
    s.call("add_to_cart", **args)
    if s.room() and s.rng.random() < 0.85:
        s.say(
            "What does my basket come to now?",
            "So what's the total with shipping?",
            "How much am I at now, shipping included?",
        )
        s.call("get_cart", customer_id=cid)


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
    if qty == 0:
        s.say(
            "{who}. On second thought, drop {what} from my basket.",
            "Take {what} out of my basket, {who}.",
            "{who} - I don't want {what} anymore, please remove it from my basket.",
            minimal=["{who}. I don't want {what} after all."],
            who=who(s, c),
            what=what,
        )
    else:
        n = s.given(qty, NUMBERS.get(qty, str(qty)), "quantity", "update_cart_item", "quantity")
        s.say(
            "{who}. Can you change how many of {what} are in my basket[ - make it {n}]?",
            "{who} - I need a different number of {what}[: {n}], not {had}.",
            "Change the count of {what} in my basket[ to {n}]. {who}.",
            who=who(s, c),
            what=what,
            n=n,
            had=NUMBERS.get(line["quantity"], "that many"),
        )
    cid = find_me(s, c)
    cart = s.call("get_cart", customer_id=cid)
    if line["product_id"] not in [i["product_id"] for i in cart["items"]]:
        raise Skip("the item is not in the cart")
    s.call("update_cart_item", customer_id=cid, product_id=line["product_id"], quantity=qty)
    if qty:
        remember_product(s, {"product_id": line["product_id"], "name": line["name"]})
    if s.room() and s.rng.random() < 0.5:
        s.say("So what's the basket at now?", "What do I owe now, shipping and all?", "Read me the new total.")
        s.call("get_cart", customer_id=cid)


@shopping.intent(covers=("search_customers", "apply_coupon", "get_cart"), follows=True)
def use_my_code(s: Scene) -> None:
    """A shopper has a coupon code from an email and wants it on their basket."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM cart_items)")
    code, given = fitting_code(s, c["customer_id"], cart_lines(s, c["customer_id"]))
    s.say(
        "{who}. I got a code in a newsletter[ ({code})], can you use it on my basket?",
        "{who} - please put my discount code[ {code}] on what I've got in my basket.",
        "I have a discount code[, {code}]. Use it for my basket? {who}.",
        who=who(s, c),
        code=given,
    )
    cid = find_me(s, c)
    s.call("apply_coupon", customer_id=cid, code=code)
    if s.room() and s.rng.random() < 0.5:
        s.say("Nice, so what do I pay now?", "What's my total after that?", "And is shipping free now?")
        s.call("get_cart", customer_id=cid)


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
    s.say(
        "Are there any deals on {w} running right now?",
        "Is anything on {w} discounted at the moment?",
        "Do you have a discount code for {w} that works today?",
        w=words,
    )
    found = s.call("list_coupons", active_only=True)["coupons"]
    if coupon["code"] not in [x["code"] for x in found]:
        raise Skip("the coupon is past the first page")
    s.say(
        "Great, put that one on my basket. {who}.",
        "{who} - use it on my basket then.",
        "Perfect, I'll take it for what's in my basket ({who_short}).",
        who=who(s, c),
        who_short=c["name"],
    )
    cid = find_me(s, c)
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
    s.say(
        "{who}. I'm ready: send everything in my basket to {where} and charge {how}.",
        "{who} - please go ahead and buy what's in my basket, ship it to {where}, paying with {how}.",
        "Let's finish my purchase. Deliver to {where}, {how} for payment. {who}.",
        minimal=["{who}. I'm done shopping, ship it to {where}."],
        who=who(s, c),
        where=where,
        how=PAY_WORDS[method],
    )
    cid = find_me(s, c)
    address_listed(s, cid, a["address_id"])
    args: dict[str, Any] = {"customer_id": cid, "address_id": a["address_id"]}
    if method != "card" and not s.minimal:
        args["payment_method"] = method
    placed = s.call("checkout_cart", **args)
    remember_order(s, placed["order_id"])
    if not s.room():
        return
    s.say(
        "What's my order number, and what did it come to?",
        "Can I see the order you just placed?",
        "Great - what's the confirmation, total and all?",
    )
    s.call("get_order", order_id=placed["order_id"])


# After the purchase ----------------------------------------------------------------------------


@shopping.intent(covers=("get_order", "list_orders"))
def where_is_my_order(s: Scene) -> None:
    """A shopper reads the order number off the confirmation email and asks where it is."""
    o = s.pick("SELECT * FROM orders WHERE status IN ('placed', 'shipped', 'delivered')")
    s.be(s.value("SELECT name FROM customers WHERE customer_id = ?", o["customer_id"]))
    s.say(
        "Where's my package? The confirmation says {n}.",
        "Has {n} shipped yet?",
        "I'm waiting on {n} - any news on when it shows up?",
        minimal=["Any news on {n}?"],
        n=o["order_id"],
    )
    got = s.call("get_order", order_id=o["order_id"])
    remember_customer(s, got["customer_id"])
    remember_order(s, got["order_id"])
    since = day(o["placed_at"], s.now)
    s.say(
        "What else have I bought since then?",
        "Did I buy anything else after that one?",
        "Show me everything I've ordered from {since} on.",
        since=since,
    )
    s.call("list_orders", customer_id=got["customer_id"], placed_since=o["placed_at"][:10])


@shopping.intent(covers=("search_customers", "list_orders", "get_order", "cancel_order", "add_to_wishlist"))
def call_off_purchase(s: Scene) -> None:
    """A shopper changes their mind about something bought very recently, before it ships."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders WHERE status = 'placed')")
    o = s.pick("SELECT * FROM orders WHERE customer_id = ? AND status = 'placed'", c["customer_id"])
    p = s.pick("SELECT p.* FROM order_items oi JOIN products p USING (product_id) WHERE oi.order_id = ?", o["order_id"])
    what = s.refer(
        o["order_id"],
        Ref(
            "my order with {product} in it",
            "SELECT order_id FROM orders JOIN order_items USING (order_id) "
            "WHERE customer_id = ? AND status = 'placed' AND product_id = ?",
            c["customer_id"],
            p["product_id"],
        ),
        Ref(
            "the {total} order with {product} in it",
            "SELECT order_id FROM orders JOIN order_items "
            "USING (order_id) WHERE customer_id = ? AND status = 'placed' AND product_id = ? AND total = ?",
            c["customer_id"],
            p["product_id"],
            o["total"],
        ),
        product=p["name"],
        total=money(o["total"]),
    )
    why = s.rng.choice(CANCEL_WHY)
    s.say(
        "{who}. Please stop {what} before it ships - {why}.",
        "{who} - I want to call off {what}, {why}.",
        "Scrap {what}, please; {why}. {who}.",
        minimal=["{who}. I don't want {what} anymore."],
        who=who(s, c),
        what=what,
        why=CANCEL_WORDS[why],
    )
    cid = find_me(s, c)
    listed = s.call("list_orders", customer_id=cid, status="placed")["orders"]
    if o["order_id"] not in [x["order_id"] for x in listed]:
        raise Skip("the order is past the first page")
    if len(listed) > 1:
        s.call("get_order", order_id=o["order_id"])
    s.call("cancel_order", order_id=o["order_id"], **({} if s.minimal else {"reason": why}))
    remember_order(s, o["order_id"])
    wishable = p["status"] == "active" and not s.rows(
        "SELECT 1 FROM wishlist_items WHERE customer_id = ? AND product_id = ?", cid, p["product_id"]
    )
    if s.room() and wishable and s.rng.random() < 0.6:
        s.say(
            "Keep {product} on my wishlist though, I might get it later.",
            "Could you save {product} for later on my wishlist?",
            product=p["name"],
        )
        s.call("add_to_wishlist", customer_id=cid, product_id=p["product_id"])
    elif s.room() and s.rng.random() < 0.8:
        s.say(
            "What else do I have that hasn't shipped yet?",
            "Is anything else of mine still waiting to go out?",
            "Which of my other orders are still waiting to ship?",
        )
        s.call("list_orders", customer_id=cid, status="placed")


@shopping.intent(
    covers=("get_order", "search_customers", "list_orders", "request_return", "list_returns"), weight=1.5, follows=True
)
def send_it_back(s: Scene) -> None:
    """Something delivered in the last weeks is broken or unwanted; the shopper sends it back."""
    since = fake.iso(s.now.replace(microsecond=0) - timedelta(days=RETURN_WINDOW_DAYS - 1))
    item = s.pick(
        "SELECT oi.*, o.customer_id, o.delivered_at, p.name FROM order_items oi "
        "JOIN orders o USING (order_id) "
        "JOIN products p USING (product_id) WHERE o.status = 'delivered' AND o.delivered_at >= ? AND "
        "oi.quantity > (SELECT COALESCE(SUM(r.quantity), 0) FROM returns r WHERE r.order_id = oi.order_id "
        "AND r.product_id = oi.product_id AND r.status != 'rejected')" + theirs(s, "o.customer_id")[0],
        since,
        *theirs(s, "o.customer_id")[1],
    )
    c = me(s, "c.customer_id = ?", item["customer_id"])
    reason = s.rng.choice(list(RETURN_WHY))
    why = s.rng.choice(RETURN_WHY[reason])
    by_number = s.rng.random() < 0.5
    if by_number:
        s.say(
            "The {product} from order {n} {why}. I'd like to send it back.",
            "{n}: the {product} {why}, how do I return it?",
            "I want my money back for the {product} in {n}; it {why}.",
            minimal=["The {product} from {n} has to go back."],
            product=item["name"],
            n=item["order_id"],
            why=why,
        )
        got = s.call("get_order", order_id=item["order_id"])
        cid = got["customer_id"]
        remember_customer(s, cid)
    else:
        when = day(item["delivered_at"], s.now)
        what = s.refer(
            item["order_id"],
            Ref(
                "the {product} that came {when}",
                "SELECT order_id FROM orders JOIN order_items "
                "USING (order_id) WHERE customer_id = ? AND status = 'delivered' AND product_id = ? "
                "AND substr(delivered_at, 1, 10) = ?",
                c["customer_id"],
                item["product_id"],
                item["delivered_at"][:10],
            ),
            product=item["name"],
            when=when,
        )
        s.say(
            "{who}. {What} {why}; I want to send it back.",
            "{who} - {what} {why}. Can I return it?",
            minimal=["{who}. {What} has to go back."],
            who=who(s, c),
            what=what,
            What=what[:1].upper() + what[1:],
            why=why,
        )
        cid = find_me(s, c)
        listed = s.call("list_orders", customer_id=cid, status="delivered")["orders"]
        if item["order_id"] not in [x["order_id"] for x in listed]:
            raise Skip("the order is past the first page")
        s.call("get_order", order_id=item["order_id"])
    args: dict[str, Any] = {"order_id": item["order_id"], "product_id": item["product_id"]}
    if not s.minimal:
        args["reason"] = reason
    s.call("request_return", **args)
    remember_order(s, item["order_id"])
    if s.room():
        s.say(
            "And where do my other returns stand?",
            "Do I have any other returns in progress?",
            "What other returns do I have going?",
        )
        s.call("list_returns", customer_id=cid)


@shopping.intent(covers=("search_customers", "search_products", "write_review", "list_product_reviews"), follows=True)
def review_a_purchase(s: Scene) -> None:
    """A shopper who received a product wants to leave stars and a headline for it."""
    item = s.pick(
        "SELECT DISTINCT o.customer_id, p.product_id, p.name FROM orders o "
        "JOIN order_items oi USING (order_id) JOIN products p USING (product_id) "
        "WHERE o.status = 'delivered' AND NOT EXISTS (SELECT 1 FROM reviews r "
        "WHERE r.customer_id = o.customer_id AND r.product_id = p.product_id)" + theirs(s, "o.customer_id")[0],
        *theirs(s, "o.customer_id")[1],
    )
    c = me(s, "c.customer_id = ?", item["customer_id"])
    stars = s.rng.choice((5, 5, 4, 4, 3, 2, 1))
    title = s.rng.choice(TITLES[stars])
    rating = s.given(stars, "one star" if stars == 1 else f"{NUMBERS[stars]} stars", "rating", "write_review", "rating")
    head = s.given(title, f"'{title}'", "title", "write_review", "title")
    s.say(
        "{who}. I'd like to review {what} I bought: {rating}[, headline {head}].",
        "{who} - give {what} {rating}[ with the title {head}].",
        "Post my verdict on {what}: {rating}[, and call it {head}]. {who}.",
        who=who(s, c),
        what=product_ref(s, item),
        rating=rating,
        head=head,
    )
    cid = find_me(s, c)
    found = find_product(s, item)
    s.call("write_review", customer_id=cid, product_id=found["product_id"], rating=stars, title=title)
    remember_product(s, found)
    if not s.room(1, 1) or s.rng.random() < 0.4:
        return
    if stars >= 4:
        s.say(
            "Did others love it too? Show me the four- and five-star ones.",
            "Show me the other good reviews of it, four stars and up.",
        )
        s.call("list_product_reviews", product_id=found["product_id"], min_rating=4)
    else:
        s.say(
            "What are other people saying about it?",
            "How do the other reviews look?",
            "Is it just me, or do others say the same?",
        )
        s.call("list_product_reviews", product_id=found["product_id"])


@shopping.intent(covers=("search_customers", "list_returns", "get_order"), follows=True)
def refund_status(s: Scene) -> None:
    """A shopper asks how their return is going."""
    r = s.pick(
        "SELECT r.*, o.customer_id, p.name FROM returns r JOIN orders o USING (order_id) "
        "JOIN products p USING (product_id) WHERE 1=1" + theirs(s, "o.customer_id")[0],
        *theirs(s, "o.customer_id")[1],
    )
    c = me(s, "c.customer_id = ?", r["customer_id"])
    what = s.refer(
        r["return_id"],
        Ref(
            "the {product}",
            "SELECT return_id FROM returns r JOIN orders o USING "
            "(order_id) WHERE o.customer_id = ? AND r.product_id = ?",
            c["customer_id"],
            r["product_id"],
        ),
        product=r["name"],
    )
    s.say(
        "{who}. I sent back {what} - has my refund gone through?",
        "{who} - any news on sending back {what}?",
        "Is my money for {what} on its way? {who}.",
        who=who(s, c),
        what=what,
    )
    cid = find_me(s, c)
    found = s.call("list_returns", customer_id=cid)["returns"]
    if r["return_id"] not in [x["return_id"] for x in found]:
        raise Skip("the return is past the first page")
    remember_order(s, r["order_id"])
    if not s.room(1, 1) or s.rng.random() < 0.4:
        return
    s.say(
        "Which order was that from again, and what else was in it?",
        "Remind me what else was in that order.",
        "What did the rest of that order look like?",
    )
    s.call("get_order", order_id=r["order_id"])


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
    s.say(
        "OK, is it in stock and what does it cost?",
        "And can I get it right now? How much?",
        "How many do you have left, and at what price?",
    )
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
    s.say(
        "What are your best-rated {w} under ${b} that I can get right now?",
        "Show me the top-rated {w} you have in stock for ${b} or less.",
        "I have ${b} to spend on {w}. What do people like most that's available?",
        minimal=["I'm after {w}, something well reviewed."],
        w=CATEGORY_WORDS[k["name"]],
        b=budget,
    )
    cats = s.call("list_categories")["categories"]
    cat = next(x["category_id"] for x in cats if x["name"] == k["name"])
    args: dict[str, Any] = {"category_id": cat, "in_stock_only": True, "sort": "rating"}
    if not s.minimal:
        args["max_price"] = float(budget)
    top = s.call("search_products", **args)["products"]
    if not top:
        raise Skip("nothing found")
    remember_product(s, top[0])
    s.say(
        "Tell me more about the top one.",
        "What's the first one like - brand, stock, all that?",
        "Give me the details on the best one.",
    )
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
    s.say(
        "{who}. Not buying yet, but keep {what} on my wishlist.",
        "{who} - save {what} for later, please.",
        "Could you bookmark {what} for me? {who}.",
        minimal=["{who}. I'd like to remember {what}."],
        who=who(s, c),
        what=product_ref(s, p),
    )
    cid = find_me(s, c)
    found = find_product(s, p)
    s.call("add_to_wishlist", customer_id=cid, product_id=found["product_id"])
    remember_product(s, found)
    if s.room() and s.rng.random() < 0.85:
        s.say("What have I got saved now?", "Read me my whole wishlist.", "What else is on my wishlist?")
        s.call("get_wishlist", customer_id=cid)


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
        s.say(
            "Also, put the cheapest thing on my wishlist that's in stock in my basket.",
            "And from my wishlist, add whatever is cheapest and available to the basket.",
        )
        cid = find_me(s, c)
        s.call("get_wishlist", customer_id=cid)
        s.call("add_to_cart", customer_id=cid, product_id=cheapest["product_id"])
        remember_product(s, cheapest)
        return
    s.say(
        "{who}. What on my wishlist can I actually buy right now?",
        "{who} - which of my saved things are in stock?",
        "Go through my wishlist: what's available today? {who}.",
        who=who(s, c),
    )
    cid = find_me(s, c)
    s.call("get_wishlist", customer_id=cid)
    s.say(
        "Put the cheapest of those in my basket.",
        "I'll take the least expensive one, into the basket please.",
        "Let me have the cheapest in-stock one - basket, please.",
    )
    s.call("add_to_cart", customer_id=cid, product_id=cheapest["product_id"])
    remember_product(s, cheapest)


# The account -----------------------------------------------------------------------------------


@shopping.intent(covers=("search_customers", "add_address", "list_addresses"), follows=True)
def new_address(s: Scene) -> None:
    """A shopper moved (or started a new job) and saves the new address, maybe as the default."""
    c = me(s, "(SELECT COUNT(*) FROM addresses a WHERE a.customer_id = c.customer_id) < 4")
    taken = {r["label"].lower() for r in s.rows("SELECT label FROM addresses WHERE customer_id = ?", c["customer_id"])}
    label = s.rng.choice([x for x in ("Home", "Work", "Studio", "Office", "Cabin") if x.lower() not in taken])
    street, city, state, zip_code = new_place(s)
    default = s.rng.random() < 0.4
    where = s.given(street, street, "street", "add_address", "street")
    s.say(
        "{who}. Please keep a new {label} delivery spot on file for me:[ {street},] {city}, {state} {zip}."
        + (" Make it my default." if default else ""),
        "{who} - I have a new {label} place to ship to:[ {street},] {city}, {state} {zip}."
        + (" Use it by default from now on." if default else ""),
        "New {label} location for deliveries[: {street}], {city}, {state} {zip}. {who}."
        + (" Ship there by default." if default else ""),
        who=who(s, c),
        label=label.lower(),
        street=where,
        city=city,
        state=state,
        zip=zip_code,
    )
    cid = find_me(s, c)
    args: dict[str, Any] = {
        "customer_id": cid,
        "street": street,
        "city": city,
        "state": state,
        "zip": zip_code,
        "label": label,
    }
    if default:
        args["make_default"] = True
    s.call("add_address", **args)
    if not s.room(1, 1) or s.rng.random() < 0.4:
        return
    s.say(
        "Which addresses do you have for me now?",
        "Read back all my saved addresses.",
        "What's on file for shipping now?",
    )
    s.call("list_addresses", customer_id=cid)


@shopping.intent(covers=("search_customers", "get_customer", "list_orders"), follows=True)
def my_account(s: Scene) -> None:
    """A shopper checks their membership and what they have bought lately."""
    c = me(s)
    since = s.now.replace(microsecond=0) - timedelta(days=s.rng.choice((14, 30, 60)))
    when = day(since, s.now).removeprefix("on ")
    if s.turns:  # continuing a dialogue: one turn
        s.say(
            "By the way, am I a Plus member? And what have I bought since {when}?",
            "Also: what's my membership level, and which orders did I place since {when}?",
            when=when,
        )
        cid = find_me(s, c)
        s.call("get_customer", customer_id=cid)
        s.call("list_orders", customer_id=cid, placed_since=since.strftime("%Y-%m-%d"))
        return
    s.say(
        "{who}. Am I a Plus member, and what do you have on file for me?",
        "{who} - what's my membership level?",
        "Can you pull up my account details? {who}.",
        who=who(s, c),
    )
    cid = find_me(s, c)
    s.call("get_customer", customer_id=cid)
    s.say(
        "What have I bought since {when}?",
        "Show me my purchases from {when} on.",
        "Which orders did I place since {when}?",
        when=day(since, s.now).removeprefix("on "),
    )
    s.call("list_orders", customer_id=cid, placed_since=since.strftime("%Y-%m-%d"))


# The store's staff -----------------------------------------------------------------------------


@shopping.intent(covers=("get_distinct_values", "list_returns", "list_orders"))
def store_overview(s: Scene) -> None:
    """Someone on the store's team looks at returns or orders by status, then at the ones needing attention."""
    if s.room() and s.rng.random() < 0.5:
        s.say(
            "Where do our returns stand overall, by status?",
            "How many returns are waiting, approved, refunded or turned down?",
            "Count our returns per status.",
        )
        stats = s.call("get_distinct_values", field="return_status")
        status = s.rng.choice(("requested", "approved"))
        if status not in stats["values"]:
            raise Skip("no return in that status")
        s.say(
            "Show me the ones still waiting for a decision."
            if status == "requested"
            else "Which ones were approved but not refunded yet?",
            "Which returns still need someone to look at them?"
            if status == "requested"
            else "Pull up the approved ones that still owe a refund.",
        )
        s.call("list_returns", status=status)
        return
    s.say(
        "How are our orders spread over placed, shipped, delivered and cancelled?",
        "Give me a count of orders per stage.",
        "Where do all our orders stand right now, in numbers?",
    )
    stats = s.call("get_distinct_values", field="order_status")
    status = s.rng.choice(("placed", "shipped"))
    if status not in stats["values"]:
        raise Skip("no order in that status")
    s.say(
        "Which ones haven't left the warehouse yet?" if status == "placed" else "Which ones are on the road now?",
        "Show me the newest of those still waiting to go out." if status == "placed" else "List the ones in transit.",
    )
    s.call("list_orders", status=status)


@shopping.intent(covers=("get_distinct_values", "search_products"))
def brand_lineup(s: Scene) -> None:
    """A merchandiser looks at the brands the store carries, then at one brand's cheapest products."""
    brand = s.pick("SELECT brand FROM products GROUP BY brand HAVING COUNT(*) >= 3")["brand"]
    s.say(
        "Which brands do we carry, and how many products each?",
        "Give me the product count per brand.",
        "What labels are in our catalog, and how big is each range?",
    )
    stats = s.call("get_distinct_values", field="brand")
    if brand not in stats["values"]:
        raise Skip("the brand is not listed")
    s.say(
        "Show me {b}'s cheapest products first.",
        "What does {b} have, cheapest first?",
        "Pull up {b}'s range, lowest price first.",
        b=brand,
    )
    s.call("search_products", query=brand, sort="price_asc")
