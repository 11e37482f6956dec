"""More ways to a shopper's goals: any one of a kind will do, buy one thing now, an order number off the receipt,
what arrived lately, a new address at checkout, a code with the checkout."""

from __future__ import annotations

from datetime import timedelta
from operator import itemgetter

from hub.kit.intent import Scene, Skip, day, unique_best
from servers.shopping.intents import (
    BUYABLE,
    address_listed,
    address_ref,
    cart_lines,
    checkout_ready,
    find_me,
    find_product,
    fitting_code,
    me,
    new_place,
    product_ref,
    remember_customer,
    remember_order,
    remember_product,
    sendable,
    who,
)
from servers.shopping.tools import shopping

# More ways to the same goals -------------------------------------------------------------------

NOUNS = (
    "Yoga Mat",
    "Water Bottle",
    "Headlamp",
    "Dog Leash",
    "Notebook Set",
    "Cutting Board",
    "Wool Socks",
    "Power Bank",
    "Jigsaw Puzzle",
    "Lip Balm Set",
    "Watering Can",
    "Desk Lamp",
    "Electric Kettle",
    "Webcam",
)


@shopping.intent(covers=("search_customers", "search_products", "add_to_cart", "get_cart"), follows=True)
def cheapest_will_do(s: Scene) -> None:
    """A shopper needs a kind of thing and takes the cheapest one in stock, whatever the brand."""
    noun = s.rng.choice(NOUNS)
    c = me(s)
    options = s.rows(BUYABLE + " AND name LIKE ?", f"%{noun}%")
    if not options:
        raise Skip("no such thing in stock")
    cheapest = unique_best(options, itemgetter("price"), lowest=True, tie="a tie for the cheapest")
    if s.rows(
        "SELECT 1 FROM cart_items WHERE customer_id = ? AND product_id = ?", c["customer_id"], cheapest["product_id"]
    ):
        raise Skip("already in the basket")
    s.say(
        "{who}. I need a {noun}, whatever's cheapest that you have in stock. Put it in my basket.",
        "{who} - any {noun} will do, just the cheapest one available, into my basket please.",
        "Cheapest {noun} you can ship right now, please, in my basket. {who}.",
        minimal=["{who}. I need a {noun}, nothing fancy."],
        who=who(s, c),
        noun=noun.lower(),
    )
    cid = find_me(s, c)
    found = s.call("search_products", query=noun, in_stock_only=True, sort="price_asc")["products"]
    if not found or found[0]["product_id"] != cheapest["product_id"]:
        raise Skip("the search does not put the cheapest first")
    s.call("add_to_cart", customer_id=cid, product_id=found[0]["product_id"])
    remember_product(s, found[0])
    if s.rng.random() < 0.5 and s.room():
        s.say(
            "Which one did you pick, and what's my basket at now?",
            "What did that come to, in the basket?",
            "OK, what's the total now?",
        )
        s.call("get_cart", customer_id=cid)


@shopping.intent(covers=("search_customers", "search_products", "add_to_cart", "list_addresses", "checkout_cart"))
def buy_it_now(s: Scene) -> None:
    """A shopper with an empty basket buys one thing straight away and has it sent to a saved address."""
    c = me(
        s,
        "c.customer_id NOT IN (SELECT customer_id FROM cart_items) AND c.customer_id NOT IN "
        "(SELECT customer_id FROM carts)",
    )
    p = s.pick(BUYABLE)
    a = s.pick("SELECT * FROM addresses WHERE customer_id = ?", c["customer_id"])
    s.say(
        "{who}. I want {what}, just that one thing.",
        "{who} - I'd like to buy {what}.",
        "Can I get {what}? Only that. {who}.",
        minimal=["{who}. {What} - I want it."],
        who=who(s, c),
        what=product_ref(s, p),
        What="The " + p["name"],
    )
    cid = find_me(s, c)
    found = find_product(s, p)
    s.call("add_to_cart", customer_id=cid, product_id=found["product_id"])
    remember_product(s, found)
    where = address_ref(s, c, a)
    s.say(
        "Ship it to {where} right away, card as usual.",
        "Send it to {where}, and that's the whole purchase.",
        "Go ahead and buy it, delivered to {where}.",
        where=where,
    )
    address_listed(s, cid, a["address_id"])
    placed = s.call("checkout_cart", customer_id=cid, address_id=a["address_id"])
    remember_order(s, placed["order_id"])


@shopping.intent(covers=("get_order", "cancel_order", "list_orders"))
def cancel_by_number(s: Scene) -> None:
    """A shopper reads the number off the confirmation email and calls the order off before it ships."""
    o = s.pick("SELECT * FROM orders WHERE status = 'placed'")
    s.be(s.value("SELECT name FROM customers WHERE customer_id = ?", o["customer_id"]))
    s.say(
        "What's in {n}? I'm not sure I still want it.",
        "Remind me what I bought in {n}?",
        "Can you tell me what {n} was for? I might not need it.",
        n=o["order_id"],
    )
    got = s.call("get_order", order_id=o["order_id"])
    remember_customer(s, got["customer_id"])
    s.say(
        "Yeah, I don't need that anymore, stop it before it ships.",
        "Please call that one off.",
        "Scrap it, please - I'll get it somewhere else.",
    )
    s.call("cancel_order", order_id=got["order_id"])
    remember_order(s, got["order_id"])
    if s.room() and s.rng.random() < 0.4:
        s.say("Anything else of mine still waiting to ship?", "Do I have other purchases that haven't gone out?")
        s.call("list_orders", customer_id=got["customer_id"], status="placed")


@shopping.intent(covers=("search_customers", "list_orders"), follows=True)
def what_arrived(s: Scene) -> None:
    """A shopper checks which of their purchases have arrived, or are on the way, since a date."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders)")
    status = s.rng.choice(("delivered", "shipped", "cancelled"))
    since = s.now.replace(microsecond=0) - timedelta(days=s.rng.choice((7, 14, 30, 45)))
    when = day(since, s.now).removeprefix("on ")
    words = {"delivered": "has been delivered", "shipped": "is on its way to me", "cancelled": "did I call off"}[status]
    s.say(
        "{who}. What {w} since {when}?",
        "{who} - which of my purchases since {when} {w2}?",
        "Since {when}, what {w}? {who}.",
        who=who(s, c),
        w=words,
        when=when,
        w2={"delivered": "arrived", "shipped": "are still in transit", "cancelled": "got cancelled"}[status],
    )
    cid = find_me(s, c)
    s.call("list_orders", customer_id=cid, status=status, placed_since=since.strftime("%Y-%m-%d"))


@shopping.intent(covers=("search_customers", "add_address", "checkout_cart"))
def ship_to_new_place(s: Scene) -> None:
    """A shopper who just moved has the basket shipped to the new address, saving it on the way."""
    c = me(
        s,
        "c.customer_id IN (SELECT customer_id FROM cart_items) AND NOT EXISTS (SELECT 1 FROM addresses a "
        "WHERE a.customer_id = c.customer_id AND LOWER(a.label) = 'home')",
    )
    if not checkout_ready(s, c["customer_id"]):
        raise Skip("the cart would not check out as it stands")
    street, city, state, zip_code = new_place(s)
    where = s.given(street, street, "street", "add_address", "street")
    s.say(
        "{who}. I just moved - ship my basket to where I live now[, {street}], {city}, {state} {zip}; keep it on file.",
        "{who} - send what's in my basket to my new place[: {street}], {city}, {state} {zip}. Save it for next time.",
        "I've moved[ - {street}], {city}, {state} {zip}. Please keep that on file and deliver my basket there. {who}.",
        who=who(s, c),
        street=where,
        city=city,
        state=state,
        zip=zip_code,
    )
    cid = find_me(s, c)
    made = s.call("add_address", customer_id=cid, street=street, city=city, state=state, zip=zip_code)
    placed = s.call("checkout_cart", customer_id=cid, address_id=made["address_id"])
    remember_order(s, placed["order_id"])


@shopping.intent(covers=("search_customers", "apply_coupon", "list_addresses", "checkout_cart"))
def code_and_checkout(s: Scene) -> None:
    """A shopper with a code from a newsletter wants it used and the basket sent to their default address."""
    c = me(
        s,
        "c.customer_id IN (SELECT customer_id FROM cart_items) AND c.customer_id IN "
        "(SELECT customer_id FROM addresses WHERE is_default = 1)",
    )
    lines = cart_lines(s, c["customer_id"])
    if not sendable(lines):
        raise Skip("the cart would not check out")
    code, given = fitting_code(s, c["customer_id"], lines)
    s.say(
        "{who}. Use my discount code[ {code}] and send my basket to my usual address.",
        "{who} - check out my basket with my code[ ({code})], shipped where you normally send things.",
        "I have a code[, {code}]. Put it on my basket and ship it to my default address. {who}.",
        minimal=["{who}. Use my code and ship my basket[ - it's {code}]."],
        who=who(s, c),
        code=given,
    )
    cid = find_me(s, c)
    s.call("apply_coupon", customer_id=cid, code=code)
    listed = s.call("list_addresses", customer_id=cid)["addresses"]
    home = [a for a in listed if a["is_default"]]
    if len(home) != 1:
        raise Skip("no single default address")
    placed = s.call("checkout_cart", customer_id=cid, address_id=home[0]["address_id"])
    remember_order(s, placed["order_id"])
