"""What people want of the online store: a shopper buying, changing their mind, sending things back.

The user is a customer who says who they are (their name, or their email when the name is shared);
the agent finds their customer id with ``search_customers``. Shoppers name products by their name as
printed on the product page, orders by the order number on their receipt or by what was in them and
when, addresses by their label ("my work address"), and coupons by the code they were sent. A few
intents are the store's staff looking at the catalog and at returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub.kit import fake
from hub.kit.intent import Given, Ref, Scene, Skip
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Says, Search, Speaker
from servers.shopping import tools_cart, tools_write  # noqa: F401  (the write tools before the intents that cover them)
from servers.shopping.tools import CustomerId, ProductId

WORDS = phrasings(__package__)

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
RETURN_WHY = WORDS.family("return_why")
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


SPEAKER = Speaker(
    CustomerId,
    select=CUSTOMER,
    memory="customer",
    alias="c.",
    says=(Says("I'm {name}", "name"), Says("I'm {name} ({email})", "email")),
    again=("Still me", "Same account as before", "Me again"),
    search=Search(by=("name", "email")),
)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The customer talking. A shopper who browsed without saying who they are (``memory["shopper"]``) is the one
    a follow-up that needs their account speaks for; otherwise ``SPEAKER.me``."""
    pending = s.memory.get("shopper")
    if pending and not s.memory.get("customer"):
        found = s.rows(CUSTOMER + f" WHERE c.customer_id = ? AND ({where})", pending["customer_id"], *params)
        if not found:
            raise Skip("the shopper of the earlier turn does not fit")
        return found[0]
    return SPEAKER.me(s, where, *params)


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


def by_number(s: Scene, where: str, *phrasings: Said, minimal: Sequence[str] = ()) -> dict[str, Any]:
    """An order (of those that fit ``where``) a shopper reads off the confirmation email: its customer talks and
    asks about it in one of ``phrasings`` (``{n}``: its number); the agent reads it, which makes its customer the
    dialogue's. What the read returned."""
    o = s.pick(f"SELECT * FROM orders WHERE {where}")
    s.be(s.value("SELECT name FROM customers WHERE customer_id = ?", o["customer_id"]))
    s.say(*phrasings, minimal=minimal, n=o["order_id"])
    got: dict[str, Any] = s.call("get_order", order_id=o["order_id"])
    remember_customer(s, got["customer_id"])
    return got


def remember_order(s: Scene, order_id: str) -> None:
    s.memory["order"] = {"order_id": order_id}


def theirs(s: Scene, column: str) -> tuple[str, list[Any]]:
    """SQL restricting a pick to the customer the dialogue is about (none yet: no restriction)."""
    known = s.memory.get("customer") or s.memory.get("shopper")
    return (f" AND {column} = ?", [known["customer_id"]]) if known else ("", [])


def product_ref(s: Scene, p: dict[str, Any]) -> str:
    return s.named(p, "products", "product_id", "the {name}")


def find_product(s: Scene, p: dict[str, Any], **filters: Any) -> dict[str, Any]:
    return s.discover(
        ProductId,
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


def known_customer(s: Scene) -> dict[str, Any]:
    """The customer an earlier turn found (a follow-up of a shopper who has not said who they are skips)."""
    return dict(s.known("customer", "no customer in the dialogue yet"))


def the_product(s: Scene) -> dict[str, Any]:
    """The product the dialogue is about, read again now."""
    known = s.known("product", "no product in the dialogue")
    return s.rows("SELECT * FROM products WHERE product_id = ?", known["product_id"])[0] | {"known": known}


def last_tool(s: Scene) -> str | None:
    calls = list(s.calls)
    return calls[-1].tool if calls else None


# What a shopper asks again after an action: shared by the openers' next turns and the follow-ups ---------------
