"""More ways to a shopper's goals: any one of a kind will do, buy one thing now, an order number off the receipt,
what arrived lately, a new address at checkout, a code with the checkout."""

from __future__ import annotations

from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip, day, unique_best
from servers.shopping.intents import (
    BUYABLE,
    SPEAKER,
    WORDS,
    address_listed,
    address_ref,
    by_number,
    cart_lines,
    checkout_ready,
    find_product,
    fitting_code,
    me,
    new_place,
    product_ref,
    remember_order,
    remember_product,
    sendable,
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
    cid = SPEAKER.asks(s, c, WORDS.cheapest_will_do, noun=noun.lower())
    found = s.call("search_products", query=noun, in_stock_only=True, sort="price_asc")["products"]
    if not found or found[0]["product_id"] != cheapest["product_id"]:
        raise Skip("the search does not put the cheapest first")
    s.call("add_to_cart", customer_id=cid, product_id=found[0]["product_id"])
    remember_product(s, found[0])
    picked = ("Which one did you pick, and what's my basket at now?", "What did that come to, in the basket?")
    s.then(0.5, (*WORDS.basket_now, *picked, "OK, what's the total now?"), "get_cart", customer_id=cid)


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
    cid = SPEAKER.asks(s, c, WORDS.buy_it_now, what=product_ref(s, p), What="The " + p["name"])
    found = find_product(s, p)
    s.call("add_to_cart", customer_id=cid, product_id=found["product_id"])
    remember_product(s, found)
    where = address_ref(s, c, a)
    s.say(WORDS.buy_it_now_then_ship, where=where)
    address_listed(s, cid, a["address_id"])
    placed = s.call("checkout_cart", customer_id=cid, address_id=a["address_id"])
    remember_order(s, placed["order_id"])


@shopping.intent(covers=("get_order", "cancel_order", "list_orders"))
def cancel_by_number(s: Scene) -> None:
    """A shopper reads the number off the confirmation email and calls the order off before it ships."""
    got = by_number(s, "status = 'placed'", WORDS.cancel_by_number)
    s.say(WORDS.cancel_by_number_then_cancel)
    s.call("cancel_order", order_id=got["order_id"])
    remember_order(s, got["order_id"])
    s.then(0.4, WORDS.unshipped, "list_orders", customer_id=got["customer_id"], status="placed")


@shopping.intent(covers=("search_customers", "list_orders"), follows=True)
def what_arrived(s: Scene) -> None:
    """A shopper checks which of their purchases have arrived, or are on the way, since a date."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders)")
    status = s.rng.choice(("delivered", "shipped", "cancelled"))
    since = s.now.replace(microsecond=0) - timedelta(days=s.rng.choice((7, 14, 30, 45)))
    when = day(since, s.now).removeprefix("on ")
    words = {"delivered": "has been delivered", "shipped": "is on its way to me", "cancelled": "did I call off"}[status]
    cid = SPEAKER.asks(
        s,
        c,
        WORDS.what_arrived,
        w=words,
        when=when,
        w2={"delivered": "arrived", "shipped": "are still in transit", "cancelled": "got cancelled"}[status],
    )
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
    cid = SPEAKER.asks(s, c, WORDS.ship_to_new_place, street=where, city=city, state=state, zip=zip_code)
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
    cid = SPEAKER.asks(s, c, WORDS.code_and_checkout, code=given)
    s.call("apply_coupon", customer_id=cid, code=code)
    listed = s.call("list_addresses", customer_id=cid)["addresses"]
    home = [a for a in listed if a["is_default"]]
    if len(home) != 1:
        raise Skip("no single default address")
    placed = s.call("checkout_cart", customer_id=cid, address_id=home[0]["address_id"])
    remember_order(s, placed["order_id"])


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
    cid = SPEAKER.asks(
        s,
        c,
        "{me}. Please keep a new {label} delivery spot on file for me:[ {street},] {city}, {state} {zip}."
        + (" Make it my default." if default else ""),
        "{me} - I have a new {label} place to ship to:[ {street},] {city}, {state} {zip}."
        + (" Use it by default from now on." if default else ""),
        "New {label} location for deliveries[: {street}], {city}, {state} {zip}. {me}."
        + (" Ship there by default." if default else ""),
        label=label.lower(),
        street=where,
        city=city,
        state=state,
        zip=zip_code,
    )
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
    s.then(0.6, WORDS.addresses, "list_addresses", customer_id=cid)


@shopping.intent(covers=("search_customers", "get_customer", "list_orders"), follows=True)
def my_account(s: Scene) -> None:
    """A shopper checks their membership and what they have bought lately."""
    c = me(s)
    since = s.now.replace(microsecond=0) - timedelta(days=s.rng.choice((14, 30, 60)))
    when = day(since, s.now).removeprefix("on ")
    if s.turns:  # continuing a dialogue: one turn
        s.say(WORDS.my_account_continuing, when=when)
        cid = SPEAKER.find(s, c)
        s.call("get_customer", customer_id=cid)
        s.call("list_orders", customer_id=cid, placed_since=since.strftime("%Y-%m-%d"))
        return
    cid = SPEAKER.asks(s, c, WORDS.my_account)
    s.call("get_customer", customer_id=cid)
    s.say(WORDS.my_account_then_orders, when=day(since, s.now).removeprefix("on "))
    s.call("list_orders", customer_id=cid, placed_since=since.strftime("%Y-%m-%d"))


# The store's staff -----------------------------------------------------------------------------


OVERVIEW = {  # a status field: the tool listing by it, how the staff ask for the counts, and for some statuses
    "return_status": ("list_returns", WORDS.returns_per_status, WORDS.family("returns_by_status")),
    "order_status": ("list_orders", WORDS.orders_per_status, WORDS.family("orders_by_status")),
}


@shopping.intent(covers=("get_distinct_values", "list_returns", "list_orders"))
def store_overview(s: Scene) -> None:
    """Someone on the store's team looks at returns or orders by status, then at the ones needing attention."""
    field = "return_status" if s.by_chance(0.5) else "order_status"
    tool, counts, lists = OVERVIEW[field]
    s.say(*counts)
    stats = s.call("get_distinct_values", field=field)
    status = s.rng.choice(list(lists))
    if status not in stats["values"]:
        raise Skip(f"nothing in status {status}")
    s.say(*lists[status])
    s.call(tool, status=status)


@shopping.intent(covers=("get_distinct_values", "search_products"))
def brand_lineup(s: Scene) -> None:
    """A merchandiser looks at the brands the store carries, then at one brand's cheapest products."""
    brand = s.pick("SELECT brand FROM products GROUP BY brand HAVING COUNT(*) >= 3")["brand"]
    s.say(WORDS.brand_lineup)
    stats = s.call("get_distinct_values", field="brand")
    if brand not in stats["values"]:
        raise Skip("the brand is not listed")
    s.say(WORDS.brand_lineup_then_cheapest, b=brand)
    s.call("search_products", query=brand, sort="price_asc")
