"""After the purchase: where an order is, calling it off, sending things back, reviews and refunds."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, day, money
from servers.shopping.intents import (
    CANCEL_WORDS,
    NUMBERS,
    RETURN_WHY,
    SPEAKER,
    TITLES,
    WORDS,
    by_number,
    find_product,
    me,
    product_ref,
    remember_customer,
    remember_order,
    remember_product,
    theirs,
)
from servers.shopping.schema import RETURN_WINDOW_DAYS
from servers.shopping.tools import shopping

# After the purchase ----------------------------------------------------------------------------


@shopping.intent(covers=("get_order", "list_orders"))
def where_is_my_order(s: Scene) -> None:
    """A shopper reads the order number off the confirmation email and asks where it is."""
    got = by_number(s, "status IN ('placed', 'shipped', 'delivered')", WORDS.where_is_my_order)
    o = got
    remember_order(s, got["order_id"])
    since = day(o["placed_at"], s.now)
    s.say(WORDS.where_is_my_order_then_since, since=since)
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
    why = s.rng.choice(WORDS.cancel_why)
    cid = SPEAKER.asks(s, c, WORDS.call_off_purchase, what=what, why=CANCEL_WORDS[why])
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
        s.say(WORDS.call_off_purchase_then_wishlist, product=p["name"])
        s.call("add_to_wishlist", customer_id=cid, product_id=p["product_id"])
    else:
        s.then(0.8, WORDS.unshipped, "list_orders", customer_id=cid, status="placed")


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
        s.say(WORDS.send_it_back, product=item["name"], n=item["order_id"], why=why)
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
        cid = SPEAKER.asks(
            s, c, WORDS.send_it_back_by_description, what=what, What=what[:1].upper() + what[1:], why=why
        )
        listed = s.call("list_orders", customer_id=cid, status="delivered")["orders"]
        if item["order_id"] not in [x["order_id"] for x in listed]:
            raise Skip("the order is past the first page")
        s.call("get_order", order_id=item["order_id"])
    args: dict[str, Any] = {"order_id": item["order_id"], "product_id": item["product_id"]}
    if not s.minimal:
        args["reason"] = reason
    s.call("request_return", **args)
    remember_order(s, item["order_id"])
    s.then(1.0, WORDS.other_returns, "list_returns", customer_id=cid)


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
    cid = SPEAKER.asks(s, c, WORDS.review_a_purchase, what=product_ref(s, item), rating=rating, head=head)
    found = find_product(s, item)
    s.call("write_review", customer_id=cid, product_id=found["product_id"], rating=stars, title=title)
    remember_product(s, found)
    floor = {"min_rating": 4} if stars >= 4 else {}
    s.then(
        0.6,
        WORDS.good_reviews if floor else WORDS.reviews,
        "list_product_reviews",
        product_id=found["product_id"],
        **floor,
    )


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
    cid = SPEAKER.asks(s, c, WORDS.refund_status, what=what)
    found = s.call("list_returns", customer_id=cid)["returns"]
    if r["return_id"] not in [x["return_id"] for x in found]:
        raise Skip("the return is past the first page")
    remember_order(s, r["order_id"])
    s.then(0.6, (*WORDS.that_order, *WORDS.rest_of_order), "get_order", order_id=r["order_id"])


@shopping.intent(covers=("search_customers", "list_returns"), opens=False, follows=True)
def my_returns(s: Scene) -> None:
    """The shopper asks where their returns stand."""
    c = me(s, "c.customer_id IN (SELECT o.customer_id FROM returns r JOIN orders o USING (order_id))")
    s.asked("list_returns", customer_id=c["customer_id"])
    status = s.rng.choice((None, None, "requested", "refunded"))
    if status is None:
        s.say(WORDS.my_returns)
    else:
        s.say(*(WORDS.waiting if status == "requested" else WORDS.refunded))
    cid = SPEAKER.find(s, c)
    s.call("list_returns", customer_id=cid, **({"status": status} if status else {}))


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
    s.say(WORDS.my_last_order)
    cid = SPEAKER.find(s, c)
    listed = s.call("list_orders", customer_id=cid, limit=1)["orders"]
    s.call("get_order", order_id=listed[0]["order_id"])
