"""What people want of food delivery: hungry customers ordering, waiting, complaining, and the people
who run the kitchens and the dispatch desk.

A customer says who they are (their name, or their email when the name is shared); the agent finds
their id with ``search_customers``, which also tells it their city. Customers name restaurants by
name (and city when two share one), dishes by their menu name, orders by the order number in the
app or by where and when they ordered, and promo codes by the code they were sent. Restaurant staff
name their restaurant; the dispatch desk reads order numbers off its screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from hub.kit import fake
from hub.kit.intent import Given, Scene, Skip
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import BECAME, Says, Search, Speaker
from servers.food_delivery import tools_write  # noqa: F401  (the write tools before the intents that cover them)
from servers.food_delivery.schema import MAX_KM, km_between
from servers.food_delivery.tools import CustomerId, RestaurantId, _open_at

WORDS = phrasings(__package__)

CUSTOMER = "SELECT customer_id, name, email, city, address, lat, lon FROM customers c"


NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


SLOTS = ("11:30", "12:00", "12:30", "13:00", "18:00", "18:30", "19:00", "19:30", "20:00")


SUBTOTAL = (
    "(SELECT COALESCE(SUM(m.price * ci.quantity), 0) FROM cart_items ci JOIN menu_items m USING (item_id) "
    "WHERE ci.customer_id = c.customer_id)"
)


SENDABLE = (
    SUBTOTAL + " >= (SELECT r.min_order FROM carts ca JOIN restaurants r USING (restaurant_id) "
    "WHERE ca.customer_id = c.customer_id) AND NOT EXISTS (SELECT 1 FROM cart_items ci JOIN menu_items m "
    "USING (item_id) WHERE ci.customer_id = c.customer_id AND m.available = 0)"
)

MEALS = {"mains": "main dishes", "sides": "sides", "desserts": "desserts", "drinks": "drinks"}


SPEAKER = Speaker(
    CustomerId,
    select=CUSTOMER,
    memory="customer",
    alias="c.",
    says=(Says("I'm {name}", "name"), Says("I'm {name} ({email})", "email")),
    again=("Still me", "Me again", "Same account"),
    search=Search(by=("name", "email")),
    keep=("city",),
)


def stars_text(n: int) -> str:
    return "one star" if n == 1 else f"{NUMBERS[n]} stars"


me = SPEAKER.me  # the customer talking (also the one an opener made the persona: SPEAKER.become)


def as_customer(s: Scene, city: str | None = None) -> None:
    """Make the persona of an opening turn a customer (often one living in ``city``), so a later turn can
    order, check or rate what the dialogue found; a follow-up keeps whoever talks."""
    if s.speaker or s.turns:
        return
    local = s.rows(CUSTOMER + " WHERE c.city = ?", city) if city and s.rng.random() < 0.7 else []
    SPEAKER.become(s, s.rng.choice(local) if local else s.pick(CUSTOMER))


def focus(s: Scene, restaurant_id: str) -> None:
    """The restaurant the dialogue is about now (the agent holds its id), for follow-ups ("are they open?")."""
    s.memory["restaurant"] = restaurant(s, restaurant_id)


def focus_order(s: Scene, order_id: str) -> None:
    """The order the dialogue is about now (the agent holds its number), and its restaurant."""
    o = s.rows("SELECT * FROM orders WHERE order_id = ?", order_id)[0]
    s.memory["order"] = o
    focus(s, o["restaurant_id"])


def find_me(s: Scene, c: dict[str, Any]) -> dict[str, Any]:
    """The customer as the agent holds them after ``SPEAKER.find``: their id and the city the search showed."""
    SPEAKER.find(s, c)
    return dict(s.memory["customer"])


def asks(s: Scene, c: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> dict[str, Any]:
    """The customer's turn (``{me}``: how they say who they are), then what the agent holds of them (``find_me``)."""
    s.say(*phrasings, minimal=minimal, me=SPEAKER.who(s, c), **slots)
    return find_me(s, c)


def place(s: Scene, r: dict[str, Any]) -> str:
    """A restaurant by its name, with its city when another one shares the name."""
    return s.named(r, "restaurants", "restaurant_id", "{name}", "{name} in {city}")


def find_restaurant(s: Scene, r: dict[str, Any], city: str | None) -> str:
    """The restaurant's id from a search by name (in ``city`` when the user named it or the agent knows it)."""
    args = {"query": r["name"]} if city is None else {"query": r["name"], "city": city}
    found = s.discover(
        RestaurantId, r["restaurant_id"], missing="the restaurant is past the first page of the search", **args
    )
    return str(found["restaurant_id"])


def find_as_said(s: Scene, r: dict[str, Any], where: str) -> str:
    """The restaurant's id from a search for it as the user named it (``place``: in its city when they said it)."""
    return find_restaurant(s, r, r["city"] if where != r["name"] else None)


def restaurant(s: Scene, restaurant_id: str) -> dict[str, Any]:
    return s.rows("SELECT * FROM restaurants WHERE restaurant_id = ?", restaurant_id)[0]


def too_far(r: dict[str, Any], c: dict[str, Any]) -> bool:
    """Whether the customer lives beyond the restaurant's delivery range."""
    return km_between(r["lat"], r["lon"], c["lat"], c["lon"]) > MAX_KM


def cart(s: Scene, customer_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]], float]:
    """The customer's cart row, its lines and subtotal."""
    row = s.rows("SELECT * FROM carts WHERE customer_id = ?", customer_id)
    lines = s.rows(
        "SELECT c.item_id, c.quantity, m.name, m.price, m.available FROM cart_items c "
        "JOIN menu_items m USING (item_id) WHERE c.customer_id = ?",
        customer_id,
    )
    return (row[0] if row else None), lines, round(sum(x["price"] * x["quantity"] for x in lines), 2)


def promo_fits(s: Scene, code: str, customer_id: str, restaurant_id: str, subtotal: float) -> bool:
    """Whether a promo code applies to this cart now (the rules of ``apply_promo_code``)."""
    found = s.rows("SELECT * FROM promo_codes WHERE code = ?", code)
    if not found:
        return False
    p = found[0]
    if p["expires_at"] < fake.iso(s.now) or subtotal < p["min_subtotal"]:
        return False
    if p["restaurant_id"] and p["restaurant_id"] != restaurant_id:
        return False
    return not (
        p["once_per_customer"]
        and s.rows(
            "SELECT 1 FROM orders WHERE customer_id = ? AND promo_code = ? AND status != 'cancelled'", customer_id, code
        )
    )


def fitting_promo(s: Scene, customer_id: str, row: dict[str, Any], subtotal: float, *, none: str) -> tuple[str, Given]:
    """A promo code the customer was sent, drawn among those that fit the basket (``row``, the cart) other than the
    one on it already, and as the customer gives it; ``Skip`` with ``none`` when none fits."""
    codes = [
        p["code"]
        for p in s.rows("SELECT code FROM promo_codes")
        if p["code"] != row["promo_code"] and promo_fits(s, p["code"], customer_id, row["restaurant_id"], subtotal)
    ]
    if not codes:
        raise Skip(none)
    code = s.rng.choice(codes)
    return code, s.given(code, code, "code", "apply_promo_code", "code")


def start_time(s: Scene, r: dict[str, Any]) -> datetime | None:
    """None when the restaurant is open now; else a time later today when it is (``Skip`` when none)."""
    if _open_at(r, s.now):
        return None
    later = [t for t in (datetime.fromisoformat(f"{s.now.date()}T{x}") for x in SLOTS) if t > s.now and _open_at(r, t)]
    if not later:
        raise Skip("the restaurant does not open later today")
    return s.rng.choice(later)


def latest(s: Scene, orders: list[dict[str, Any]]) -> None:
    """The newest of the orders a listing showed becomes the order of the dialogue."""
    if orders:
        focus_order(s, orders[0]["order_id"])


def two_scores(s: Scene) -> tuple[int, int]:
    """Stars for the food and for the delivery, told apart (a withheld one is never the other's number)."""
    f, d = s.rng.sample((5, 4, 3, 2, 1), 2)
    return f, d


def _open_now(s: Scene, r: dict[str, Any]) -> bool:
    return start_time(s, r) is None


def the_restaurant(s: Scene) -> dict[str, Any]:
    r = s.memory.get("restaurant")
    if not r or s.memory.get("staff"):
        raise Skip("no restaurant a customer asks about in the dialogue")
    return dict(restaurant(s, r["restaurant_id"]))


def the_order(s: Scene) -> dict[str, Any]:
    o = s.known("order", "no order in the dialogue yet")
    return dict(s.rows("SELECT * FROM orders WHERE order_id = ?", o["order_id"])[0])


def ran_last(s: Scene, tool: str, **arguments: Any) -> bool:
    """Whether the dialogue's latest call was ``tool`` with these arguments (asking again adds nothing)."""
    calls = list(s.calls)
    return bool(calls) and calls[-1].tool == tool and all(calls[-1].arguments.get(k) == v for k, v in arguments.items())


def customer_of_order(s: Scene, o: dict[str, Any]) -> None:
    """``Skip`` unless the order is the talking customer's (a staff dialogue is no customer's)."""
    known = s.memory.get("customer") or {}
    said = s.memory.get(BECAME)
    if o["customer_id"] not in (known.get("customer_id"), said):
        raise Skip("the order is not the talking customer's")


def saving(p: dict[str, Any], subtotal: float, fee: float) -> float:
    """What a listed code takes off a basket (the rules of ``apply_promo_code``)."""
    if p["kind"] == "percent":
        return round(min(subtotal * p["value"] / 100, 30.0), 2)
    if p["kind"] == "amount":
        return round(min(p["value"], subtotal), 2)
    return float(fee)


# What a customer asks again after an action: shared by the openers' next turns and the follow-ups ---------------
