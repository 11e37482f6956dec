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
from hub.kit.intent import Given, Ref, Scene, Skip, clock, day, money
from hub.kit.speaker import Says, Search, Speaker
from servers.food_delivery.schema import FLOW, MAX_KM, km_between
from servers.food_delivery.tools import _open_at, food

CUSTOMER = "SELECT customer_id, name, email, city, address, lat, lon FROM customers c"
NUMBERS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
SLOTS = ("11:30", "12:00", "12:30", "13:00", "18:00", "18:30", "19:00", "19:30", "20:00")
NOTES = ("Leave it at the door", "Ring the bell when you're here", "No cutlery, please", "Call me when you're outside")
COMMENTS = (
    "Hot and on time.",
    "Great food, friendly courier.",
    "A bit late but tasty.",
    "Missing a drink.",
    "Cold by the time it arrived.",
)
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


def stars_text(n: int) -> str:
    return "one star" if n == 1 else f"{NUMBERS[n]} stars"


SPEAKER = Speaker(
    table="customers",
    key="customer_id",
    select=CUSTOMER,
    memory="customer",
    alias="c.",
    says=(Says("I'm {name}", "name"), Says("I'm {name} ({email})", "email")),
    again=("Still me", "Me again", "Same account"),
    search=Search("search_customers", "customers", by=("name", "email")),
    keep=("city",),
)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The customer talking: the one an earlier turn found, the one the persona of an opening turn became
    (``as_customer``), or a fresh pick on the opening turn."""
    said = s.memory.get("speaker_id")
    if said and not s.memory.get("customer"):
        found = s.rows(CUSTOMER + f" WHERE c.customer_id = ? AND ({where})", said, *params)
        if not found:
            raise Skip("the customer talking does not fit")
        return found[0]
    return SPEAKER.me(s, where, *params)


def as_customer(s: Scene, city: str | None = None) -> None:
    """Make the persona of an opening turn a customer (often one living in ``city``), so a later turn can
    order, check or rate what the dialogue found; a follow-up keeps whoever talks."""
    if s.speaker or s.turns:
        return
    local = s.rows(CUSTOMER + " WHERE c.city = ?", city) if city and s.rng.random() < 0.7 else []
    c = s.rng.choice(local) if local else s.pick(CUSTOMER)
    s.be(c["name"])
    s.memory["speaker_id"] = c["customer_id"]


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


def asks(s: Scene, c: dict[str, Any], *phrasings: str, minimal: Sequence[str] = (), **slots: Any) -> dict[str, Any]:
    """The customer's turn (``{me}``: how they say who they are), then what the agent holds of them (``find_me``)."""
    s.say(*phrasings, minimal=minimal, me=SPEAKER.who(s, c), **slots)
    return find_me(s, c)


def place(s: Scene, r: dict[str, Any]) -> str:
    """A restaurant by its name, with its city when another one shares the name."""
    return s.refer(
        r["restaurant_id"],
        Ref("{name}", "SELECT restaurant_id FROM restaurants WHERE name = ?", r["name"]),
        Ref(
            "{name} in {city}",
            "SELECT restaurant_id FROM restaurants WHERE name = ? AND city = ?",
            r["name"],
            r["city"],
        ),
        name=r["name"],
        city=r["city"],
    )


def find_restaurant(s: Scene, r: dict[str, Any], city: str | None) -> str:
    """The restaurant's id from a search by name (in ``city`` when the user named it or the agent knows it)."""
    args = {"query": r["name"]} if city is None else {"query": r["name"], "city": city}
    found = s.find(
        "search_restaurants",
        "restaurants",
        "restaurant_id",
        r["restaurant_id"],
        missing="the restaurant is past the first page of the search",
        **args,
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


# Ordering --------------------------------------------------------------------------------------


@food.intent(
    covers=("search_customers", "search_restaurants", "get_menu", "add_to_cart", "view_cart"), weight=1.5, follows=True
)
def craving(s: Scene) -> None:
    """A customer wants a dish from a restaurant in their city in the basket (starting over if needed)."""
    c = me(s)
    r = s.pick("SELECT * FROM restaurants WHERE city = ?", c["city"])
    dish = s.pick("SELECT * FROM menu_items WHERE restaurant_id = ? AND available = 1", r["restaurant_id"])
    have, _, _ = cart(s, c["customer_id"])
    if have and have["restaurant_id"] == r["restaurant_id"]:
        raise Skip("the basket is already from that restaurant")
    qty = s.rng.choice((1, 1, 2, 3))
    fresh = " Forget whatever is in my basket." if have else ""
    found = asks(
        s,
        c,
        "{me}. I'm craving the {dish} from {where}, {n} please.{fresh}",
        "{me} - put {n} {dish} from {where} in my basket.{fresh}",
        "Could I have {n} of the {dish} at {where}?{fresh} {me}.",
        minimal=["{me}. I want the {dish} from {where}.{fresh}"],
        dish=dish["name"],
        where=place(s, r),
        n=NUMBERS[qty],
        fresh=fresh,
    )
    rid = find_restaurant(s, r, found["city"])
    items = [x for x in s.call("get_menu", restaurant_id=rid)["items"] if x["name"] == dish["name"]]
    args: dict[str, Any] = {"customer_id": found["customer_id"], "item_id": items[0]["item_id"]}
    if qty > 1 and not s.minimal:
        args["quantity"] = qty
    if have:
        args["replace_cart"] = True
    s.call("add_to_cart", **args)
    focus(s, rid)
    if s.room() and s.rng.random() < 0.6:
        s.say("What's that come to with fees?", "How much is the basket now, all in?", "What's my total so far?")
        s.call("view_cart", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "view_cart", "place_order", "track_order"), weight=1.5, follows=True)
def send_it_over(s: Scene) -> None:
    """A customer is happy with the basket and wants it delivered, now or at a time later today."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM carts) AND " + SENDABLE)
    row, lines, subtotal = cart(s, c["customer_id"])
    if row is None or not lines or any(not x["available"] for x in lines):
        raise Skip("the basket cannot go out as it is")
    r = restaurant(s, row["restaurant_id"])
    promo_ok = not row["promo_code"] or promo_fits(s, row["promo_code"], c["customer_id"], r["restaurant_id"], subtotal)
    if subtotal < r["min_order"] or not promo_ok or too_far(r, c):
        raise Skip("the basket cannot go out as it is")
    start = start_time(s, r)
    note = s.rng.choice([None, None, *NOTES])
    when = "" if start is None else f" for {clock(start)}"
    extra = "" if note is None else f" And the note for the courier: '{note}'."
    found = asks(
        s,
        c,
        "{me}. Please send my basket from {where} over{when}.{extra}",
        "{me} - I'm ready, go ahead with the food in my basket{when}.{extra}",
        "Go ahead and order what's in my basket{when}, {who_short}.{extra}",
        minimal=["{me}. I'm hungry, send my food{when}."],
        who_short=c["name"],
        where=place(s, r),
        when=when,
        extra=extra,
    )
    s.call("view_cart", customer_id=found["customer_id"])
    args: dict[str, Any] = {"customer_id": found["customer_id"]}
    if note and not s.minimal:
        args["instructions"] = note
    if start is not None:
        args["scheduled_for"] = start.strftime("%Y-%m-%dT%H:%M")
    placed = s.call("place_order", **args)
    focus_order(s, placed["order_id"])
    if s.room() and s.rng.random() < 0.6:
        s.say("When will it be here?", "How long is the wait?", "What time should I expect the food?")
        s.call("track_order", order_id=placed["order_id"])


@food.intent(covers=("search_customers", "apply_promo_code", "view_cart"), weight=2.0, follows=True)
def promo_from_email(s: Scene) -> None:
    """A customer has a promo code and wants it on the basket."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM carts) AND " + SUBTOTAL + " >= 15")
    row, lines, subtotal = cart(s, c["customer_id"])
    if row is None or not lines:
        raise Skip("no basket")
    code, given = fitting_promo(s, c["customer_id"], row, subtotal, none="no promo code fits this basket")
    found = asks(
        s,
        c,
        "{me}. I have a discount code[, {code}], can you use it on my basket?",
        "{me} - knock my promo code[ {code}] off my basket please.",
        "There's a discount code in my inbox[: {code}]. Put it on my food? {me}.",
        code=given,
    )
    s.call("apply_promo_code", customer_id=found["customer_id"], code=code)
    if s.room() and s.rng.random() < 0.6:
        s.say("What do I pay now?", "How much did that save me? What's the total?", "And the new total is?")
        s.call("view_cart", customer_id=found["customer_id"])


@food.intent(covers=("search_customers", "view_cart", "update_cart_item"), weight=2.0, follows=True)
def fix_basket(s: Scene) -> None:
    """A customer takes a dish out of the basket or changes how many."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM cart_items)")
    line = s.pick(
        "SELECT c.quantity, m.* FROM cart_items c JOIN menu_items m USING (item_id) WHERE c.customer_id = ?",
        c["customer_id"],
    )
    options = [n for n in (1, 2, 3, 4) if n != line["quantity"] and (line["available"] or n < line["quantity"])]
    qty = 0 if s.minimal or not options or s.rng.random() < 0.3 else s.rng.choice(options)
    found = asks(
        s,
        c,
        *(
            (
                "{me}. Take the {dish} out of my basket.",
                "{me} - scratch the {dish}, I don't want it.",
                "Drop the {dish} from my food basket please, {who_short}.",
                "{me}. {Could you|Can you} {remove|take off} the {dish}{|, please}?",
                "{me}: no {dish} for me {after all|this time}.",
                "{me}. I've {changed my mind|gone off the idea} about the {dish} - {leave it out|lose it}.",
            )
            if qty == 0
            else (
                "{me}. Change how many {dish} I'm getting[: make it {n}].",
                "{me} - I need a different number of the {dish}[: {n}], not {had}.",
                "Change the {dish} in my basket[ to {n}], {who_short}.",
                "{me}. {Could you|Can you} {adjust|fix} the {dish} in my basket[ to {n}]?",
                "{me} - I've got {had} {dish} in there[; {make it|I want} {n}].",
                "{me}. {Turns out|Actually} {had} {dish} {isn't|is not} the right amount[; {n}, please].",
            )
        ),
        minimal=["{me}. Never mind the {dish}."] if qty == 0 else (),
        who_short=c["name"],
        dish=line["name"],
        n=s.given(qty, NUMBERS.get(qty, str(qty)), "quantity", "update_cart_item", "quantity"),
        had=NUMBERS.get(line["quantity"], str(line["quantity"])),
    )
    s.call("view_cart", customer_id=found["customer_id"])
    s.call("update_cart_item", customer_id=found["customer_id"], item_id=line["item_id"], quantity=qty)
    if s.room() and s.rng.random() < 0.6:
        s.say("What's the total now?", "And what does it come to now?", "So where does that leave the bill?")
        s.call("view_cart", customer_id=found["customer_id"])


# Waiting, cancelling, rating -------------------------------------------------------------------


@food.intent(covers=("search_customers", "get_customer", "track_order", "get_restaurant", "cancel_order"))
def where_is_my_food(s: Scene) -> None:
    """A hungry customer asks where the food they ordered is."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders WHERE status NOT IN ('delivered', 'cancelled'))")
    o = s.pick(
        "SELECT o.*, r.name AS restaurant FROM orders o JOIN restaurants r USING (restaurant_id) "
        "WHERE o.customer_id = ? AND o.status NOT IN ('delivered', 'cancelled')",
        c["customer_id"],
    )
    found = asks(
        s,
        c,
        "{me}. Where's my food from {r}? I've been waiting a while.",
        "{me} - how far away is my {r} delivery?",
        "My {r} food still hasn't shown up. Any idea when it will? {me}.",
        minimal=["{me}. Where's my food?"],
        r=o["restaurant"],
    )
    profile = s.call("get_customer", customer_id=found["customer_id"])
    if o["order_id"] not in profile["active_order_ids"]:
        raise Skip("the order is not active")
    s.call("track_order", order_id=o["order_id"])
    focus_order(s, o["order_id"])
    if not s.room() or s.rng.random() < 0.3:
        return
    if o["status"] in ("placed", "accepted") and s.rng.random() < 0.5:
        s.say(
            "Forget it, it's taking forever. Call it off.",
            "That's too slow - I don't want it anymore.",
            "I can't wait that long, please call the whole thing off.",
        )
        s.call("cancel_order", order_id=o["order_id"], reason="taking too long")
    else:
        s.say(
            "What's the restaurant's phone number? I'd like to call them.",
            "How can I reach the restaurant?",
            "Give me their number, I'll ring them myself.",
        )
        s.call("get_restaurant", restaurant_id=o["restaurant_id"])


@food.intent(covers=("track_order", "cancel_order"))
def too_slow(s: Scene) -> None:
    """A customer reads the order number in the app, hears the wait, and gives up on it."""
    o = s.pick("SELECT * FROM orders WHERE status IN ('placed', 'accepted', 'preparing')")
    s.be(s.value("SELECT name FROM customers WHERE customer_id = ?", o["customer_id"]))
    s.say(
        "How long until {n} gets here?",
        "What's the wait on {n}?",
        "The app says {n} - when does it arrive?",
        n=o["order_id"],
    )
    got = s.call("track_order", order_id=o["order_id"])
    s.memory["customer"] = s.rows(CUSTOMER + " WHERE c.customer_id = ?", got["customer_id"])[0]
    why = s.rng.choice(("taking too long", "changed my mind", "ordered by mistake"))
    s.say(
        {
            "taking too long": "That's too long. Call it off and refund me.",
            "changed my mind": "Actually, I changed my mind - call it off.",
            "ordered by mistake": "Hm, I ordered that by mistake anyway. Please call it off.",
        }[why],
        "Forget it then, I don't want it anymore.",
    )
    s.call("cancel_order", order_id=o["order_id"], reason=why)
    focus_order(s, o["order_id"])


@food.intent(
    covers=("search_customers", "search_restaurants", "list_orders", "rate_order", "get_restaurant"), weight=1.5
)
def stars_for_dinner(s: Scene) -> None:
    """A customer gives stars to a delivered meal, for the food and for the delivery."""
    o = s.pick(
        "SELECT o.*, r.name AS restaurant, r.city AS rcity FROM orders o "
        "JOIN restaurants r USING (restaurant_id) "
        "WHERE o.status = 'delivered' AND NOT EXISTS (SELECT 1 FROM ratings x WHERE x.order_id = o.order_id)"
    )
    c = me(s, "c.customer_id = ?", o["customer_id"])
    when = day(o["delivered_at"], s.now)
    what = s.refer(
        o["order_id"],
        Ref(
            "my {r} order",
            "SELECT order_id FROM orders WHERE customer_id = ? AND restaurant_id = ? AND status = 'delivered'",
            c["customer_id"],
            o["restaurant_id"],
        ),
        Ref(
            "my {r} order from {when}",
            "SELECT order_id FROM orders WHERE customer_id = ? "
            "AND restaurant_id = ? AND status = 'delivered' AND substr(delivered_at, 1, 10) = ?",
            c["customer_id"],
            o["restaurant_id"],
            o["delivered_at"][:10],
        ),
        r=o["restaurant"],
        when=when.removeprefix("on "),
    )
    food_stars, ride_stars = s.rng.sample((5, 4, 3, 2, 1), 2)  # told apart: a withheld one is never the other
    tasty = s.given(food_stars, stars_text(food_stars), "food score", "rate_order", "food_stars")
    comment = s.rng.choice((None, *COMMENTS))
    said = "" if comment is None else f' Add "{comment}"'
    ride = s.given(ride_stars, f"{ride_stars} stars", "delivery score", "rate_order", "delivery_stars")
    found = asks(
        s,
        c,
        "{me}. About {what}: the food gets {tasty}[, the delivery {ride}].{said}",
        "{me} - {what}: {tasty} for the food[ and {ride} for the courier].{said}",
        "Let me score {what}. {tasty} food[, {ride} delivery].{said} {me}.",
        what=what,
        tasty=tasty,
        ride=ride,
        said=said,
    )
    rid = find_restaurant(s, {"restaurant_id": o["restaurant_id"], "name": o["restaurant"]}, found["city"])
    listed = s.call("list_orders", customer_id=found["customer_id"], restaurant_id=rid, status="delivered")["orders"]
    if o["order_id"] not in [x["order_id"] for x in listed]:
        raise Skip("the order is past the first page")
    args: dict[str, Any] = {"order_id": o["order_id"], "food_stars": food_stars, "delivery_stars": ride_stars}
    if comment:
        args["comment"] = comment
    out = s.call("rate_order", **args)
    s.say(
        "So what's {r} rated overall now?",
        "Where does that leave their average?",
        "How do they score overall after that?",
        r=o["restaurant"],
    )
    s.call("get_restaurant", restaurant_id=rid)
    s.memory["rating"] = out
    focus(s, rid)


@food.intent(covers=("search_customers", "get_customer", "list_orders"), follows=True)
def my_history(s: Scene) -> None:
    """A customer checks the address on file and what they ordered lately."""
    c = me(s)
    n = s.rng.choice((3, 5))
    if s.turns:  # continuing a dialogue: one turn
        s.asked("get_customer", customer_id=c["customer_id"])
        s.say(
            "By the way, which address do you have for me, and what were my last {n} orders?",
            "Also, what's the address on my account? And show me my {n} latest orders.",
            n=n,
        )
        found = find_me(s, c)
        s.call("get_customer", customer_id=found["customer_id"])
        latest(s, s.call("list_orders", customer_id=found["customer_id"], limit=n)["orders"])
        return
    found = asks(
        s,
        c,
        "{me}. What address do you deliver to for me?",
        "{me} - which address is on my account?",
        "Can you check my account details? {me}.",
        minimal=["{me}. What do you have on file for me?"],
    )
    s.call("get_customer", customer_id=found["customer_id"])
    s.say("And what were my last {n} orders?", "Show me my {n} most recent orders.", "What have I ordered lately?", n=n)
    latest(s, s.call("list_orders", customer_id=found["customer_id"], limit=n)["orders"])


def latest(s: Scene, orders: list[dict[str, Any]]) -> None:
    """The newest of the orders a listing showed becomes the order of the dialogue."""
    if orders:
        focus_order(s, orders[0]["order_id"])


# Finding food ----------------------------------------------------------------------------------


@food.intent(covers=("search_restaurants", "get_menu", "get_restaurant"))
def open_right_now(s: Scene) -> None:
    """Someone in a city wants a kind of food from somewhere open now, and looks at what it serves."""
    open_now = [r for r in s.rows("SELECT * FROM restaurants") if _open_at(r, s.now)]
    if not open_now:
        raise Skip("nothing is open")
    r = s.rng.choice(open_now)
    as_customer(s, r["city"])
    meal = s.rng.choice(("mains", "mains", "desserts", "drinks"))
    veg = s.rng.random() < 0.4
    s.say(
        "I'm in {city}. Who's open right now for {cuisine}?",
        "Any {cuisine} open at this hour in {city}?",
        "Need {cuisine} in {city}, open now. What are my options?",
        city=r["city"],
        cuisine=r["cuisine"],
    )
    found = s.call("search_restaurants", city=r["city"], cuisine=r["cuisine"], open_now=True)["restaurants"]
    if not found:
        raise Skip("nothing open")
    top = found[0]
    focus(s, top["restaurant_id"])
    if s.rng.random() < 0.3:
        return
    if s.rng.random() < 0.7:
        s.say(
            "What {veg}{meal} does the top one have?",
            "Show me the {veg}{meal} at the first one.",
            "Which {veg}{meal} can I get at the best-rated one?",
            veg="vegetarian " if veg else "",
            meal=MEALS[meal],
        )
        args: dict[str, Any] = {"restaurant_id": top["restaurant_id"], "category": meal}
        if veg:
            args["vegetarian_only"] = True
        s.call("get_menu", **args)
    else:
        s.say(
            "Until when is the top one open, and what's their minimum?",
            "What are the first one's hours this week?",
            "Tell me more about the best-rated one: hours, fees, prep time.",
        )
        s.call("get_restaurant", restaurant_id=top["restaurant_id"])


@food.intent(covers=("search_restaurants", "list_promo_codes", "get_restaurant"))
def any_deals(s: Scene) -> None:
    """Someone asks what deals a restaurant has, then whether it is open."""
    r = s.pick("SELECT * FROM restaurants")
    as_customer(s, r["city"])
    where = place(s, r)
    s.say(
        "Does {where} have any deals going?",
        "Any discount codes I can use at {where}?",
        "What promos work at {where} right now?",
        where=where,
    )
    rid = find_as_said(s, r, where)
    s.call("list_promo_codes", restaurant_id=rid)
    focus(s, rid)
    if s.rng.random() < 0.4:
        return
    s.say(
        "And are they open now? What are their hours?",
        "When are they open today?",
        "Are they taking orders at the moment?",
    )
    s.call("get_restaurant", restaurant_id=rid)


@food.intent(covers=("get_distinct_values", "search_restaurants"))
def what_food_is_there(s: Scene) -> None:
    """Someone new asks what kinds of food the app has, then for the best places of one kind in a city."""
    r = s.pick("SELECT cuisine, city FROM restaurants")
    as_customer(s, r["city"])
    stars = s.rng.choice((None, 3.5, 4.0))
    s.say(
        "What kinds of food can I order through you?",
        "Which cuisines do you have?",
        "What sorts of food are on offer here, and how many places each?",
    )
    s.call("get_distinct_values", field="cuisine")
    s.say(
        "Show me the best {c} places in {city}."
        if stars is None
        else "Which {c} places in {city} have {stars} stars or more?",
        "I'm in {city} - who does good {c}?" if stars is None else "{c} in {city}, rated at least {stars}?",
        c=r["cuisine"],
        city=r["city"],
        stars=stars,
    )
    args: dict[str, Any] = {"city": r["city"], "cuisine": r["cuisine"]}
    if stars:
        args["min_rating"] = stars
    top = s.call("search_restaurants", **args)["restaurants"]
    if top:
        focus(s, top[0]["restaurant_id"])


# Behind the counter ----------------------------------------------------------------------------

NEXT_WORDS = {
    "accepted": ("{r} has taken it on.", "{r} confirmed it, mark it accepted."),
    "preparing": ("The kitchen has started cooking it.", "It's on the stove now."),
    "out_for_delivery": ("It's packed and ready for a courier.", "It's ready to go out, send a rider."),
    "delivered": ("The courier just handed it over.", "It has reached the customer."),
}


@food.intent(covers=("track_order", "advance_order_status"))
def dispatch_desk(s: Scene) -> None:
    """The dispatch desk checks an order on its screen and moves it along when the kitchen or courier reports."""
    o = s.pick(
        "SELECT o.*, r.name AS restaurant, r.city FROM orders o JOIN restaurants r USING (restaurant_id) "
        "WHERE o.status IN ('placed', 'accepted', 'preparing', 'out_for_delivery') AND o.scheduled_for IS NULL"
    )
    nxt = FLOW[FLOW.index(o["status"]) + 1]
    if nxt == "out_for_delivery" and not s.rows(
        "SELECT 1 FROM couriers WHERE city = ? AND status = 'available'", o["city"]
    ):
        raise Skip("no courier free in the city")
    s.say(
        "Dispatch here. Where is {n} at?", "What's the latest on {n}?", "Pull up {n} for me, please.", n=o["order_id"]
    )
    s.call("track_order", order_id=o["order_id"])
    s.say(*NEXT_WORDS[nxt], r=o["restaurant"], n=o["order_id"])
    s.call("advance_order_status", order_id=o["order_id"])
    focus_order(s, o["order_id"])
    s.memory["staff"] = True


@food.intent(covers=("search_restaurants", "list_orders", "advance_order_status"))
def kitchen_queue(s: Scene) -> None:
    """Someone running a restaurant looks at new orders waiting for them and takes the oldest on."""
    r = s.pick(
        "SELECT * FROM restaurants r WHERE EXISTS (SELECT 1 FROM orders o WHERE o.restaurant_id = "
        "r.restaurant_id AND o.status = 'placed')"
    )
    where = place(s, r)
    s.say(
        "I run {where}. Anything new waiting for us?",
        "Kitchen at {where} here - what's come in that we haven't taken?",
        "This is {where}. Which new tickets are waiting on us?",
        where=where,
    )
    rid = find_as_said(s, r, where)
    waiting = s.call("list_orders", restaurant_id=rid, status="placed")["orders"]
    if not waiting:
        raise Skip("nothing waiting")
    oldest = min(waiting, key=lambda x: (x["placed_at"], x["order_id"]))
    s.say(
        "We'll take the oldest one.",
        "Confirm the one that's been waiting longest.",
        "Take on the earliest of those, we're starting it.",
    )
    s.call("advance_order_status", order_id=oldest["order_id"])
    focus_order(s, oldest["order_id"])
    s.memory["staff"] = True


# More ways to the same goals -------------------------------------------------------------------


@food.intent(covers=("search_customers", "list_orders", "track_order", "add_to_cart", "view_cart"))
def same_as_last_time(s: Scene) -> None:
    """A customer wants the main dish of their last delivered order again."""
    c = me(s, "c.customer_id IN (SELECT customer_id FROM orders WHERE status = 'delivered')")
    last = s.rows(
        "SELECT o.*, r.name AS restaurant FROM orders o JOIN restaurants r USING (restaurant_id) "
        "WHERE o.customer_id = ? ORDER BY o.placed_at DESC, o.order_id DESC LIMIT 1",
        c["customer_id"],
    )[0]
    if last["status"] != "delivered":
        raise Skip("the latest order was not delivered")
    items = s.rows(
        "SELECT oi.*, m.available FROM order_items oi JOIN menu_items m USING (item_id) "
        "WHERE oi.order_id = ? AND m.available = 1 ORDER BY oi.unit_price DESC",
        last["order_id"],
    )
    if not items or (len(items) > 1 and items[0]["unit_price"] == items[1]["unit_price"]):
        raise Skip("no single priciest dish to repeat")
    have, _, _ = cart(s, c["customer_id"])
    fresh = " Start a fresh basket." if have and have["restaurant_id"] != last["restaurant_id"] else ""
    if have and not fresh:
        raise Skip("the basket is already from there")
    found = asks(
        s,
        c,
        "{me}. That {dish} from my last order was great - put one in my basket again.{fresh}",
        "{me} - I want the {dish} I had last time from {r}, one more.{fresh}",
        "Same {dish} as my last order, please, into the basket.{fresh} {me}.",
        minimal=["{me}. The priciest dish of my last order - one more of it, please."],
        dish=items[0]["name"],
        r=last["restaurant"],
        fresh=fresh,
    )
    orders = s.call("list_orders", customer_id=found["customer_id"], limit=1)["orders"]
    detail = s.call("track_order", order_id=orders[0]["order_id"])
    best = max(detail["items"], key=lambda x: x["unit_price"])
    args: dict[str, Any] = {"customer_id": found["customer_id"], "item_id": best["item_id"]}
    if fresh:
        args["replace_cart"] = True
    s.call("add_to_cart", **args)
    focus(s, last["restaurant_id"])
    s.say("What does that come to?", "And the total with fees?", "How much is it this time?")
    s.call("view_cart", customer_id=found["customer_id"])


@food.intent(covers=("search_restaurants", "get_menu"))
def cheap_and_veggie(s: Scene) -> None:
    """Someone wants an open place with a cheap delivery fee and what vegetarian food it has right now."""
    open_now = [r for r in s.rows("SELECT * FROM restaurants WHERE delivery_fee <= 2.99") if _open_at(r, s.now)]
    if not open_now:
        raise Skip("nothing cheap is open")
    r = s.rng.choice(open_now)
    as_customer(s, r["city"])
    fee = s.rng.choice((1.99, 2.99)) if r["delivery_fee"] > 0.99 else s.rng.choice((0.99, 1.99, 2.99))
    s.say(
        "I'm in {city} and broke. Who's open now with delivery under {fee}?",
        "Which places in {city} are open and charge at most {fee} to deliver?",
        "Cheap delivery in {city}, open right now - at most {fee} fee. Who?",
        city=r["city"],
        fee=money(fee),
    )
    found = s.call("search_restaurants", city=r["city"], open_now=True, max_delivery_fee=fee)["restaurants"]
    if not found:
        raise Skip("nothing found")
    focus(s, found[0]["restaurant_id"])
    if s.rng.random() < 0.3:
        return
    s.say(
        "What vegetarian food can I have right now at the top one?",
        "Show me what's veggie and available at the first one.",
        "The best-rated one - anything vegetarian I can have right now?",
    )
    s.call("get_menu", restaurant_id=found[0]["restaurant_id"], vegetarian_only=True, available_only=True)


@food.intent(covers=("cancel_order", "track_order"))
def call_it_off_now(s: Scene) -> None:
    """A customer cancels an order from the app's number straight away and asks what comes back."""
    o = s.pick("SELECT * FROM orders WHERE status IN ('placed', 'accepted', 'preparing')")
    s.be(s.value("SELECT name FROM customers WHERE customer_id = ?", o["customer_id"]))
    why = s.rng.choice(("ordered by mistake", "changed my mind"))
    s.say(
        "Please call off {n}, I {w}.",
        "{n} has to go, I {w}. Stop it please.",
        "Kill {n} - I {w}.",
        n=o["order_id"],
        w={"ordered by mistake": "ordered it by mistake", "changed my mind": "changed my mind"}[why],
    )
    s.call("cancel_order", order_id=o["order_id"], reason=why)
    s.memory["customer"] = s.rows(CUSTOMER + " WHERE c.customer_id = ?", o["customer_id"])[0]
    focus_order(s, o["order_id"])
    s.say(
        "How much do I get back, and is it really stopped?",
        "Confirm it's off and tell me the refund.",
        "Is it stopped? What's refunded?",
    )
    s.call("track_order", order_id=o["order_id"])
