"""Food delivery: restaurants, menus, customers, carts, promo codes, orders with live tracking, couriers and ratings.

Business rules (times against the reference now, Monday 2026-06-01T09:00):
- A cart holds items of one restaurant; adding another restaurant's item needs replace_cart=true.
- An order needs an open restaurant at the time it is for (now, or a scheduled time within 7 days), every
  item still available, a subtotal at least the restaurant's minimum order, and a customer within 15 km.
- Totals: subtotal + delivery fee + service fee (5% of subtotal, 1 to 5 USD) - promo discount.
- Promo codes: not expired, subtotal at least the code's minimum, restaurant-specific codes only at that
  restaurant, once-per-customer codes only once (cancelled orders do not count).
- Orders move placed -> accepted -> preparing -> out_for_delivery (a courier of the city picks it up)
  -> delivered. ETA = start + the restaurant's prep time + travel time (20 km/h on 1.3x the straight line, +5 min).
- Cancelling: free while placed or accepted; while preparing half the subtotal is kept; impossible once
  picked up (out_for_delivery) or delivered.
- Only a delivered order can be rated, once; a rating moves the restaurant's and courier's averages.
"""

from __future__ import annotations

import math
import random
import sqlite3
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

SCHEMA = """
CREATE TABLE restaurants (
    restaurant_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    cuisine TEXT NOT NULL,
    city TEXT NOT NULL,
    address TEXT NOT NULL,
    lat REAL NOT NULL,
    lon REAL NOT NULL,
    phone TEXT NOT NULL,
    rating REAL NOT NULL,
    rating_count INTEGER NOT NULL,
    price_level INTEGER NOT NULL,
    opens TEXT NOT NULL,
    closes TEXT NOT NULL,
    closed_on TEXT,
    min_order REAL NOT NULL,
    delivery_fee REAL NOT NULL,
    prep_minutes INTEGER NOT NULL
);
CREATE INDEX restaurants_city ON restaurants(city, cuisine);
CREATE TABLE menu_items (
    item_id TEXT PRIMARY KEY,
    restaurant_id TEXT NOT NULL REFERENCES restaurants(restaurant_id),
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    price REAL NOT NULL,
    available INTEGER NOT NULL,
    vegetarian INTEGER NOT NULL,
    calories INTEGER NOT NULL
);
CREATE INDEX menu_items_restaurant ON menu_items(restaurant_id);
CREATE TABLE customers (
    customer_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    address TEXT NOT NULL,
    city TEXT NOT NULL,
    lat REAL NOT NULL,
    lon REAL NOT NULL,
    joined_at TEXT NOT NULL
);
CREATE TABLE couriers (
    courier_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    city TEXT NOT NULL,
    vehicle TEXT NOT NULL CHECK (vehicle IN ('bicycle', 'scooter', 'car')),
    status TEXT NOT NULL CHECK (status IN ('available', 'delivering', 'off_duty')),
    rating REAL NOT NULL,
    rating_count INTEGER NOT NULL,
    deliveries INTEGER NOT NULL
);
CREATE TABLE carts (
    customer_id TEXT PRIMARY KEY REFERENCES customers(customer_id),
    restaurant_id TEXT NOT NULL REFERENCES restaurants(restaurant_id),
    promo_code TEXT,
    updated_at TEXT NOT NULL
);
CREATE TABLE cart_items (
    customer_id TEXT NOT NULL REFERENCES carts(customer_id),
    item_id TEXT NOT NULL REFERENCES menu_items(item_id),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (customer_id, item_id)
);
CREATE TABLE promo_codes (
    code TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('percent', 'amount', 'free_delivery')),
    value REAL NOT NULL,
    min_subtotal REAL NOT NULL,
    restaurant_id TEXT REFERENCES restaurants(restaurant_id),
    expires_at TEXT NOT NULL,
    once_per_customer INTEGER NOT NULL
);
CREATE TABLE orders (
    order_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    restaurant_id TEXT NOT NULL REFERENCES restaurants(restaurant_id),
    courier_id TEXT REFERENCES couriers(courier_id),
    status TEXT NOT NULL CHECK (status IN ('placed', 'accepted', 'preparing', 'out_for_delivery', 'delivered', 'cancelled')),
    subtotal REAL NOT NULL,
    delivery_fee REAL NOT NULL,
    service_fee REAL NOT NULL,
    discount REAL NOT NULL,
    total REAL NOT NULL,
    promo_code TEXT,
    delivery_address TEXT NOT NULL,
    instructions TEXT NOT NULL,
    placed_at TEXT NOT NULL,
    scheduled_for TEXT,
    accepted_at TEXT,
    picked_up_at TEXT,
    delivered_at TEXT,
    eta TEXT NOT NULL,
    cancelled_at TEXT,
    cancel_reason TEXT,
    refund_amount REAL
);
CREATE INDEX orders_customer ON orders(customer_id, placed_at);
CREATE INDEX orders_restaurant ON orders(restaurant_id);
CREATE TABLE order_items (
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    item_id TEXT NOT NULL REFERENCES menu_items(item_id),
    name TEXT NOT NULL,
    unit_price REAL NOT NULL,
    quantity INTEGER NOT NULL,
    PRIMARY KEY (order_id, item_id)
);
CREATE TABLE ratings (
    order_id TEXT PRIMARY KEY REFERENCES orders(order_id),
    customer_id TEXT NOT NULL,
    restaurant_id TEXT NOT NULL,
    courier_id TEXT,
    food_stars INTEGER NOT NULL,
    delivery_stars INTEGER NOT NULL,
    comment TEXT NOT NULL,
    created_at TEXT NOT NULL
);
"""

CITIES = ("New York", "Chicago", "Seattle", "Austin", "Boston", "Denver", "San Francisco", "Miami")
# cuisine: (name words, hours (opens, closes), [(dish, category, low, high, vegetarian)])
CUISINES: dict[str, tuple[tuple[str, ...], tuple[str, str], list[tuple[str, str, float, float, int]]]] = {
    "pizza": (("Slice House", "Pizzeria", "Pie Co"), ("11:00", "23:00"), [
        ("Margherita Pizza", "mains", 12, 16, 1), ("Pepperoni Pizza", "mains", 14, 18, 0), ("Funghi Pizza", "mains", 14, 18, 1),
        ("Meat Lovers Pizza", "mains", 16, 21, 0), ("Garlic Knots", "sides", 5, 7, 1), ("Caesar Salad", "sides", 8, 11, 0),
        ("Tiramisu", "desserts", 6, 8, 1), ("Sparkling Water", "drinks", 2, 3, 1), ("Cola", "drinks", 2, 3, 1)]),
    "burgers": (("Burger Joint", "Grill", "Smash Shack"), ("10:30", "22:30"), [
        ("Classic Cheeseburger", "mains", 10, 14, 0), ("Double Smash Burger", "mains", 13, 17, 0), ("Veggie Burger", "mains", 11, 14, 1),
        ("Chicken Sandwich", "mains", 11, 14, 0), ("Fries", "sides", 3, 5, 1), ("Onion Rings", "sides", 4, 6, 1),
        ("Milkshake", "desserts", 5, 7, 1), ("Lemonade", "drinks", 3, 4, 1)]),
    "sushi": (("Sushi Bar", "Izakaya", "Omakase"), ("11:30", "22:00"), [
        ("Salmon Nigiri", "mains", 7, 10, 0), ("Spicy Tuna Roll", "mains", 9, 13, 0), ("California Roll", "mains", 8, 11, 0),
        ("Avocado Roll", "mains", 6, 8, 1), ("Chirashi Bowl", "mains", 19, 26, 0), ("Miso Soup", "sides", 3, 5, 1),
        ("Edamame", "sides", 4, 6, 1), ("Mochi Ice Cream", "desserts", 5, 7, 1), ("Green Tea", "drinks", 2, 4, 1)]),
    "thai": (("Thai Kitchen", "Bangkok Street", "Siam House"), ("11:00", "22:00"), [
        ("Pad Thai", "mains", 12, 16, 0), ("Green Curry", "mains", 13, 17, 0), ("Tofu Massaman Curry", "mains", 12, 16, 1),
        ("Drunken Noodles", "mains", 13, 16, 0), ("Spring Rolls", "sides", 5, 8, 1), ("Tom Yum Soup", "sides", 6, 9, 0),
        ("Mango Sticky Rice", "desserts", 6, 8, 1), ("Thai Iced Tea", "drinks", 3, 5, 1)]),
    "indian": (("Curry House", "Tandoor", "Spice Route"), ("17:00", "23:00"), [
        ("Chicken Tikka Masala", "mains", 14, 18, 0), ("Lamb Rogan Josh", "mains", 16, 21, 0), ("Palak Paneer", "mains", 13, 16, 1),
        ("Chana Masala", "mains", 11, 14, 1), ("Garlic Naan", "sides", 3, 5, 1), ("Samosas", "sides", 5, 7, 1),
        ("Gulab Jamun", "desserts", 4, 6, 1), ("Mango Lassi", "drinks", 4, 5, 1)]),
    "mexican": (("Taqueria", "Cantina", "Burrito Co"), ("10:00", "02:00"), [
        ("Carne Asada Burrito", "mains", 11, 14, 0), ("Chicken Tacos", "mains", 9, 12, 0), ("Bean and Cheese Burrito", "mains", 8, 11, 1),
        ("Carnitas Bowl", "mains", 12, 15, 0), ("Chips and Guacamole", "sides", 5, 8, 1), ("Elote", "sides", 4, 6, 1),
        ("Churros", "desserts", 4, 6, 1), ("Horchata", "drinks", 3, 4, 1)]),
    "chinese": (("Dumpling House", "Wok", "Golden Dragon"), ("11:00", "22:30"), [
        ("Kung Pao Chicken", "mains", 12, 15, 0), ("Mapo Tofu", "mains", 11, 14, 1), ("Beef and Broccoli", "mains", 13, 16, 0),
        ("Pork Soup Dumplings", "mains", 10, 13, 0), ("Vegetable Fried Rice", "sides", 8, 11, 1), ("Scallion Pancake", "sides", 6, 8, 1),
        ("Sesame Balls", "desserts", 4, 6, 1), ("Jasmine Tea", "drinks", 2, 3, 1)]),
    "breakfast": (("Morning Table", "Griddle", "Sunny Side"), ("07:00", "15:00"), [
        ("Buttermilk Pancakes", "mains", 9, 12, 1), ("Eggs Benedict", "mains", 12, 15, 0), ("Avocado Toast", "mains", 9, 12, 1),
        ("Breakfast Burrito", "mains", 10, 13, 0), ("Hash Browns", "sides", 3, 5, 1), ("Fruit Cup", "sides", 4, 6, 1),
        ("Cinnamon Roll", "desserts", 4, 6, 1), ("Orange Juice", "drinks", 3, 5, 1), ("Latte", "drinks", 4, 6, 1)]),
    "salads": (("Greens", "Salad Bar", "Harvest Bowl"), ("08:00", "21:00"), [
        ("Cobb Salad", "mains", 12, 15, 0), ("Kale Caesar", "mains", 11, 14, 0), ("Quinoa Power Bowl", "mains", 12, 15, 1),
        ("Falafel Bowl", "mains", 11, 14, 1), ("Tomato Soup", "sides", 5, 7, 1), ("Sourdough Roll", "sides", 2, 3, 1),
        ("Brownie", "desserts", 3, 5, 1), ("Kombucha", "drinks", 4, 5, 1)]),
    "cafe": (("Coffee Co", "Cafe", "Bakehouse"), ("06:30", "18:00"), [
        ("Breakfast Sandwich", "mains", 7, 10, 0), ("Turkey Panini", "mains", 9, 12, 0), ("Croissant", "sides", 3, 5, 1),
        ("Blueberry Muffin", "desserts", 3, 4, 1), ("Cappuccino", "drinks", 4, 5, 1), ("Cold Brew", "drinks", 4, 6, 1),
        ("Chai Latte", "drinks", 4, 6, 1)]),
}
NAME_WORDS = ("Golden", "Lucky", "Urban", "Corner", "Little", "Harbor", "Red", "Blue Moon", "Union", "Fifth Street", "Maple",
              "Copper", "Sunset", "Northside", "Old Town", "Hometown")
DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MAX_KM = 15.0
FLOW = ("placed", "accepted", "preparing", "out_for_delivery", "delivered")
COMMENTS = ("Hot and on time.", "Great food, courier was friendly.", "A bit late but tasty.", "Order was missing a drink.",
            "Perfect as always.", "Cold by the time it arrived.", "")


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(a)))


def _travel_minutes(km: float) -> int:
    return round(km * 1.3 / 20 * 60) + 5


def _service_fee(subtotal: float) -> float:
    return round(min(5.0, max(1.0, subtotal * 0.05)), 2)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """80 restaurants in 8 cities with ~700 menu items, 300 customers, 48 couriers, ~700 orders and open carts."""
    centre = {c[0]: (c[2], c[3]) for c in fake.CITIES}
    state = {c[0]: c[1] for c in fake.CITIES}
    restaurants: list[tuple[Any, ...]] = []
    items: list[tuple[Any, ...]] = []
    menus: dict[str, list[tuple[Any, ...]]] = {}
    for city in CITIES:
        lat0, lon0 = centre[city]
        for cuisine in rng.sample(list(CUISINES), 10):
            words, (opens, closes), dishes = CUISINES[cuisine]
            rid = f"RST-{len(restaurants) + 1:04d}"
            if rng.random() < 0.25:
                opens = f"{int(opens[:2]) + rng.choice((-1, 1)):02d}:{opens[3:]}"
            restaurants.append((rid, f"{rng.choice(NAME_WORDS)} {rng.choice(words)}", cuisine, city,
                                f"{rng.randint(10, 2999)} {rng.choice(fake.STREETS)}, {city}, {state[city]}",
                                round(lat0 + rng.uniform(-0.04, 0.04), 5), round(lon0 + rng.uniform(-0.05, 0.05), 5), fake.phone(rng),
                                0.0, 0, rng.choice((1, 2, 2, 3)), opens, closes,
                                rng.choice((None, None, None, None, "monday", "tuesday", "sunday")),
                                float(rng.choice((10, 12, 15, 15, 20, 25))), float(rng.choice((0.99, 1.99, 2.99, 3.99, 4.99))),
                                rng.choice((12, 15, 20, 25, 30))))
            menus[rid] = []
            for dish, cat, low, high, veg in dishes:
                if rng.random() < 0.1:
                    continue
                item = (f"ITM-{len(items) + 1:04d}", rid, dish, cat, round(rng.uniform(low, high) * 4) / 4 - 0.01,
                        int(rng.random() > 0.08), veg, rng.randint(150, 1100) if cat != "drinks" else rng.randint(0, 300))
                items.append(item)
                menus[rid].append(item)
    db.executemany("INSERT INTO menu_items VALUES (?,?,?,?,?,?,?,?)", items)
    by_city: dict[str, list[tuple[Any, ...]]] = {}
    for r in restaurants:
        by_city.setdefault(r[3], []).append(r)

    customers = []
    for i in range(1, 301):
        first, last = fake.person(rng)
        city = rng.choice(CITIES)
        lat0, lon0 = centre[city]
        customers.append((f"CUS-{i:04d}", f"{first} {last}", fake.email_for(first, last, rng, i), fake.phone(rng),
                          f"{rng.randint(10, 9999)} {rng.choice(fake.STREETS)}, Apt {rng.randint(1, 40)}, {city}, {state[city]}", city,
                          round(lat0 + rng.uniform(-0.05, 0.05), 5), round(lon0 + rng.uniform(-0.06, 0.06), 5),
                          fake.iso(fake.moment(rng, now, 1200, -10))))
    db.executemany("INSERT INTO customers VALUES (?,?,?,?,?,?,?,?,?)", customers)
    couriers: list[list[Any]] = []
    for city in CITIES:
        for _ in range(6):
            couriers.append([f"CUR-{len(couriers) + 1:03d}", fake.full_name(rng), city, rng.choice(("bicycle", "scooter", "car")),
                             rng.choice(("available", "available", "off_duty")), 0.0, 0, 0])
    promos: list[tuple[Any, ...]] = [
        ("WELCOME10", "10% off your first order with this code", "percent", 10.0, 15.0, None, "2026-12-31T23:59:59", 1),
        ("SAVE5", "5 USD off orders of 25 USD or more", "amount", 5.0, 25.0, None, "2026-07-31T23:59:59", 0),
        ("FREEDEL", "Free delivery on orders of 20 USD or more", "free_delivery", 0.0, 20.0, None, "2026-06-30T23:59:59", 0),
        ("SPRING20", "20% off, spring promotion", "percent", 20.0, 20.0, None, "2026-05-31T23:59:59", 0),
        ("BIGORDER15", "15 USD off orders of 60 USD or more", "amount", 15.0, 60.0, None, "2026-09-30T23:59:59", 1),
    ]
    for r in rng.sample(restaurants, 8):
        promos.append((f"{r[2].upper()}{r[0][-2:]}", f"25% off at {r[1]}", "percent", 25.0, 20.0, r[0], "2026-08-15T23:59:59", 0))
    db.executemany("INSERT INTO promo_codes VALUES (?,?,?,?,?,?,?,?)", promos)

    orders: list[tuple[Any, ...]] = []
    order_items: list[tuple[Any, ...]] = []
    ratings: list[tuple[Any, ...]] = []
    stars: dict[str, list[int]] = {}
    cstars: dict[str, list[int]] = {}
    city_couriers = {c: [row for row in couriers if row[2] == c] for c in CITIES}
    for n in range(720):
        cus = rng.choice(customers)
        rest = rng.choice(by_city[cus[5]])
        active = n >= 690
        placed = now - timedelta(minutes=rng.randint(3, 70)) if active else fake.moment(rng, now, 120, 0) - timedelta(hours=2)
        pool = [m for m in menus[rest[0]] if m[5]] or menus[rest[0]]
        chosen = rng.sample(pool, min(len(pool), rng.randint(1, 4)))
        lines = [(m, rng.choice((1, 1, 1, 2, 2, 3))) for m in chosen]
        subtotal = round(sum(m[4] * q for m, q in lines), 2)
        km = _km(rest[5], rest[6], cus[6], cus[7])
        eta = placed + timedelta(minutes=rest[16] + _travel_minutes(km))
        code = None
        discount = 0.0
        if subtotal >= 25 and rng.random() < 0.12:
            code, discount = "SAVE5", 5.0
        fee, service = rest[15], _service_fee(subtotal)
        total = round(subtotal + fee + service - discount, 2)
        oid = f"ORD-{n + 1:05d}"
        courier = None
        t: dict[str, datetime | None] = {k: None for k in ("accepted", "picked", "delivered", "cancelled")}
        refund = None
        if active:
            status = FLOW[min(3, (n - 690) % 4)]
        else:
            status = "cancelled" if rng.random() < 0.07 else "delivered"
        if status == "cancelled":
            t["cancelled"] = placed + timedelta(minutes=rng.randint(1, 8))
            refund = total
        else:
            if FLOW.index(status) >= 1:
                t["accepted"] = placed + timedelta(minutes=rng.randint(1, 3))
            if FLOW.index(status) >= 3:
                free_couriers = [c for c in city_couriers[cus[5]] if c[4] == "available"] if active else city_couriers[cus[5]]
                if not free_couriers:
                    status = "preparing"
                else:
                    picked_courier = rng.choice(free_couriers)
                    courier = picked_courier[0]
                    if active:
                        picked_courier[4] = "delivering"
                    picked_courier[7] += 0 if active else 1
                    t["picked"] = min(now - timedelta(minutes=1), placed + timedelta(minutes=rest[16] + rng.randint(0, 6)))
            if status == "delivered":
                delivered_at = eta + timedelta(minutes=rng.randint(-8, 15))
                t["delivered"] = delivered_at
                if rng.random() < 0.5:
                    fs, ds = rng.choice((5, 5, 5, 4, 4, 3, 2, 1)), rng.choice((5, 5, 4, 4, 3, 1))
                    ratings.append((oid, cus[0], rest[0], courier, fs, ds, rng.choice(COMMENTS), fake.iso(delivered_at + timedelta(hours=1))))
                    stars.setdefault(rest[0], []).append(fs)
                    cstars.setdefault(courier or "", []).append(ds)
        iso = {k: fake.iso(v) if v else None for k, v in t.items()}
        orders.append((oid, cus[0], rest[0], courier, status, subtotal, fee, service, discount, total, code, cus[4],
                       rng.choice(("", "", "Leave at the door", "Ring the bell", "No utensils please")), fake.iso(placed), None,
                       iso["accepted"], iso["picked"], iso["delivered"], fake.iso(eta), iso["cancelled"],
                       rng.choice(("ordered by mistake", "taking too long", "changed my mind")) if refund else None, refund))
        order_items.extend((oid, m[0], m[2], m[4], q) for m, q in lines)
    orders.sort(key=lambda o: o[0])
    db.executemany("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", orders)
    db.executemany("INSERT INTO order_items VALUES (?,?,?,?,?)", order_items)
    db.executemany("INSERT INTO ratings VALUES (?,?,?,?,?,?,?,?)", ratings)
    for courier_row in couriers:
        got = cstars.get(courier_row[0], [])
        courier_row[5], courier_row[6] = (round(sum(got) / len(got), 2), len(got)) if got else (5.0, 0)
    db.executemany("INSERT INTO couriers VALUES (?,?,?,?,?,?,?,?)", [tuple(k) for k in couriers])
    rated = [r[:8] + ((round(sum(stars[r[0]]) / len(stars[r[0]]), 2), len(stars[r[0]])) if stars.get(r[0]) else (0.0, 0)) + r[10:]
             for r in restaurants]
    db.executemany("INSERT INTO restaurants VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rated)

    carts, cart_items = [], []
    for cus in rng.sample(customers, 45):
        rest = rng.choice(by_city[cus[5]])
        carts.append((cus[0], rest[0], None, fake.iso(now - timedelta(minutes=rng.randint(5, 600)))))
        for m in rng.sample(menus[rest[0]], min(len(menus[rest[0]]), rng.randint(1, 3))):
            cart_items.append((cus[0], m[0], rng.choice((1, 1, 2))))
    db.executemany("INSERT INTO carts VALUES (?,?,?,?)", carts)
    db.executemany("INSERT INTO cart_items VALUES (?,?,?)", cart_items)


food = Server("food_delivery", "Food delivery: restaurants, menus, carts, promo codes, orders with live tracking, couriers and ratings.",
              SCHEMA, seed)

RestaurantId = Annotated[str, Field(description="Restaurant id, e.g. 'RST-0036'"), Entity("restaurant")]
ItemId = Annotated[str, Field(description="Menu item id, e.g. 'ITM-0257'"), Entity("menu_item")]
CustomerId = Annotated[str, Field(description="Customer id, e.g. 'CUS-0042'"), Entity("customer")]
OrderId = Annotated[str, Field(description="Order id, e.g. 'ORD-00695'"), Entity("order")]
PromoCode = Annotated[str, Field(min_length=1, max_length=30, description="Promo code, e.g. 'SAVE5'"), Entity("promo_code")]
Cuisine = Literal["pizza", "burgers", "sushi", "thai", "indian", "mexican", "chinese", "breakfast", "salads", "cafe"]
Status = Literal["placed", "accepted", "preparing", "out_for_delivery", "delivered", "cancelled"]


def _minutes(hhmm: str) -> int:
    return int(hhmm[:2]) * 60 + int(hhmm[3:])


def _open_at(r: dict[str, Any], when: datetime) -> bool:
    """Open at ``when``; hours past midnight belong to the previous day."""
    opens, closes = _minutes(r["opens"]), _minutes(r["closes"])
    t = when.hour * 60 + when.minute
    today, yesterday = DAYS[when.weekday()], DAYS[(when.weekday() - 1) % 7]
    if closes > opens:
        return r["closed_on"] != today and opens <= t < closes
    return (r["closed_on"] != today and t >= opens) or (r["closed_on"] != yesterday and t < closes)


def _restaurant(ctx: Ctx, restaurant_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM restaurants WHERE restaurant_id = ?", (restaurant_id,),
                 f"No restaurant {restaurant_id!r}. Use search_restaurants to find restaurant ids.")


def _customer(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM customers WHERE customer_id = ?", (customer_id,),
                 f"No customer {customer_id!r}. Use search_customers to find customer ids.")


def _order(ctx: Ctx, order_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM orders WHERE order_id = ?", (order_id,),
                 f"No order {order_id!r}. Use list_orders to find a customer's orders.")


def _item(ctx: Ctx, item_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM menu_items WHERE item_id = ?", (item_id,),
                 f"No menu item {item_id!r}. Use get_menu to find item ids.")


def _promo_discount(ctx: Ctx, code: str, customer_id: str, restaurant: dict[str, Any], subtotal: float) -> tuple[float, str | None]:
    """The discount a code gives on this cart, or the reason it does not apply."""
    promo = ctx.db.execute("SELECT * FROM promo_codes WHERE code = ?", (code.upper(),)).fetchone()
    if promo is None:
        return 0.0, f"Promo code {code!r} does not exist; see list_promo_codes."
    _, _, kind, value, min_subtotal, rest_id, expires, once = promo
    if expires < fake.iso(ctx.now):
        return 0.0, f"Promo code {code.upper()} expired on {expires[:10]}; see list_promo_codes for current codes."
    if rest_id and rest_id != restaurant["restaurant_id"]:
        return 0.0, f"Promo code {code.upper()} only works at {rest_id}, not at {restaurant['name']} ({restaurant['restaurant_id']})."
    if subtotal < min_subtotal:
        return 0.0, f"Promo code {code.upper()} needs a subtotal of at least {min_subtotal:.2f} USD; the cart has {subtotal:.2f} USD."
    if once and ctx.db.execute("SELECT 1 FROM orders WHERE customer_id = ? AND promo_code = ? AND status != 'cancelled'",
                               (customer_id, code.upper())).fetchone():
        return 0.0, f"{customer_id} already used {code.upper()}, which is once per customer."
    if kind == "percent":
        return round(min(subtotal * value / 100, 30.0), 2), None
    if kind == "amount":
        return round(min(value, subtotal), 2), None
    return restaurant["delivery_fee"], None


def _cart(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    cart = ctx.db.execute("SELECT restaurant_id, promo_code, updated_at FROM carts WHERE customer_id = ?", (customer_id,)).fetchone()
    if cart is None:
        return {"customer_id": customer_id, "restaurant_id": None, "items": [], "subtotal": 0.0, "total": 0.0, "problems": []}
    restaurant = _restaurant(ctx, cart[0])
    items = rows(ctx.db.execute("SELECT c.item_id, m.name, m.price, c.quantity, m.available FROM cart_items c JOIN menu_items m USING (item_id) "
                                "WHERE c.customer_id = ? ORDER BY c.item_id", (customer_id,)))
    subtotal = round(sum(i["price"] * i["quantity"] for i in items), 2)
    problems = [f"{i['name']} ({i['item_id']}) is unavailable; remove it with update_cart_item(quantity=0)" for i in items if not i["available"]]
    for i in items:
        i["available"] = bool(i["available"])
        i["line_total"] = round(i["price"] * i["quantity"], 2)
    if subtotal < restaurant["min_order"]:
        problems.append(f"subtotal {subtotal:.2f} USD is below the minimum order of {restaurant['min_order']:.2f} USD")
    if not _open_at(restaurant, ctx.now):
        problems.append(f"{restaurant['name']} is closed now (hours {restaurant['opens']}-{restaurant['closes']}); schedule the order")
    discount, why = (0.0, None)
    if cart[1]:
        discount, why = _promo_discount(ctx, cart[1], customer_id, restaurant, subtotal)
        if why:
            problems.append(why)
    fee, service = restaurant["delivery_fee"], _service_fee(subtotal) if items else 0.0
    return {"customer_id": customer_id, "restaurant_id": cart[0], "restaurant_name": restaurant["name"], "items": items,
            "subtotal": subtotal, "delivery_fee": fee, "service_fee": service, "promo_code": cart[1], "discount": discount,
            "total": round(subtotal + fee + service - discount, 2), "min_order": restaurant["min_order"], "problems": problems}


@food.read(returns=("restaurant",))
def search_restaurants(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name or dish, e.g. 'taco'")] = "",
                       city: Annotated[str | None, Field(max_length=60, description="City, e.g. 'Seattle'")] = None,
                       cuisine: Cuisine | None = None,
                       open_now: Annotated[bool, Field(description="Only restaurants open right now")] = False,
                       min_rating: Annotated[float | None, Field(ge=0, le=5)] = None,
                       max_delivery_fee: Annotated[float | None, Field(ge=0, le=100)] = None,
                       limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search restaurants by name or dish, city, cuisine, rating and fee, e.g. search_restaurants(city='Austin', cuisine='breakfast', open_now=True).
    Returns restaurant ids like 'RST-0036'."""
    like = f"%{query.strip()}%"
    sql = ("SELECT * FROM restaurants r WHERE (name LIKE ? OR cuisine LIKE ? OR EXISTS "
           "(SELECT 1 FROM menu_items m WHERE m.restaurant_id = r.restaurant_id AND m.name LIKE ?))")
    args: list[Any] = [like, like, like]
    for clause, value in (("city LIKE ?", city), ("cuisine = ?", cuisine), ("rating >= ?", min_rating), ("delivery_fee <= ?", max_delivery_fee)):
        if value is not None:
            sql += f" AND {clause}"
            args.append(value)
    found = []
    for r in rows(ctx.db.execute(sql + " ORDER BY rating DESC, restaurant_id", args)):
        is_open = _open_at(r, ctx.now)
        if open_now and not is_open:
            continue
        found.append({k: r[k] for k in ("restaurant_id", "name", "cuisine", "city", "rating", "delivery_fee", "min_order", "prep_minutes")}
                     | {"open_now": is_open})
    page = found[offset:offset + limit]
    return {"restaurants": page, "count": len(page), "total": len(found)}


@food.read(returns=("restaurant",))
def get_restaurant(ctx: Ctx, restaurant_id: RestaurantId) -> dict[str, Any]:
    """Get a restaurant: address, hours, whether it is open now, minimum order, delivery fee, prep time and rating,
    e.g. get_restaurant('RST-0036')."""
    r = _restaurant(ctx, restaurant_id)
    r["open_now"] = _open_at(r, ctx.now)
    r["hours"] = {d: "closed" if d == r["closed_on"] else f"{r['opens']}-{r['closes']}" for d in DAYS}
    return r


@food.read(returns=("menu_item",))
def get_menu(ctx: Ctx, restaurant_id: RestaurantId, category: Literal["mains", "sides", "desserts", "drinks"] | None = None,
             vegetarian_only: bool = False, available_only: bool = False) -> dict[str, Any]:
    """A restaurant's menu with item ids, prices and availability, e.g. get_menu('RST-0036', category='mains')."""
    r = _restaurant(ctx, restaurant_id)
    sql = "SELECT item_id, name, category, price, available, vegetarian, calories FROM menu_items WHERE restaurant_id = ?"
    args: list[Any] = [restaurant_id]
    if category:
        sql += " AND category = ?"
        args.append(category)
    if vegetarian_only:
        sql += " AND vegetarian = 1"
    if available_only:
        sql += " AND available = 1"
    items = rows(ctx.db.execute(sql + " ORDER BY item_id", args))
    for i in items:
        i["available"], i["vegetarian"] = bool(i["available"]), bool(i["vegetarian"])
    return {"restaurant_id": restaurant_id, "name": r["name"], "items": items, "count": len(items)}


@food.read(returns=("customer",))
def search_customers(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name, email or phone, e.g. 'Garcia'")] = "",
                     city: Annotated[str | None, Field(max_length=60)] = None, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search customers by name, email or phone, optionally by city, e.g. search_customers('Garcia'). Ids look like 'CUS-0042'."""
    like = f"%{query}%"
    sql = "SELECT customer_id, name, email, city FROM customers WHERE (name LIKE ? OR email LIKE ? OR phone LIKE ?)"
    args: list[Any] = [like, like, like]
    if city is not None:
        sql += " AND city LIKE ?"
        args.append(city)
    found = rows(ctx.db.execute(sql + " ORDER BY customer_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"customers": found, "count": len(found)}


@food.read(returns=("customer", "order"))
def get_customer(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """A customer's profile, delivery address, active orders and order count, e.g. get_customer('CUS-0042')."""
    cus = _customer(ctx, customer_id)
    cus["active_order_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT order_id FROM orders WHERE customer_id = ? AND status NOT IN ('delivered', 'cancelled') ORDER BY order_id", (customer_id,))]
    cus["order_count"] = ctx.db.execute("SELECT COUNT(*) FROM orders WHERE customer_id = ?", (customer_id,)).fetchone()[0]
    cus["has_cart"] = ctx.db.execute("SELECT 1 FROM carts WHERE customer_id = ?", (customer_id,)).fetchone() is not None
    return cus


@food.read(returns=("restaurant", "menu_item", "promo_code"))
def view_cart(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """A customer's cart: items, subtotal, fees, promo discount, total, and any problem that would stop checkout
    (closed restaurant, unavailable item, below minimum order, promo not valid), e.g. view_cart('CUS-0042')."""
    _customer(ctx, customer_id)
    return _cart(ctx, customer_id)


@food.read(returns=("order", "restaurant"))
def list_orders(ctx: Ctx, customer_id: Annotated[str | None, Field(description="Only this customer's orders, e.g. 'CUS-0042'"), Entity("customer")] = None,
                restaurant_id: Annotated[str | None, Field(description="Only this restaurant's orders, e.g. 'RST-0036'"), Entity("restaurant")] = None,
                status: Status | None = None, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List orders, newest first, filtered by customer, restaurant or status, e.g. list_orders(customer_id='CUS-0042', status='delivered')."""
    sql = "SELECT order_id, customer_id, restaurant_id, status, total, placed_at, eta FROM orders WHERE 1=1"
    args: list[Any] = []
    for column, value in (("customer_id", customer_id), ("restaurant_id", restaurant_id), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY placed_at DESC, order_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"orders": found, "count": len(found)}


@food.read(returns=("order", "courier", "restaurant", "menu_item"))
def track_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Track an order: status, timeline, items, totals, the courier, the ETA and minutes remaining from now,
    e.g. track_order('ORD-00695')."""
    order = _order(ctx, order_id)
    order["items"] = rows(ctx.db.execute("SELECT item_id, name, unit_price, quantity FROM order_items WHERE order_id = ? ORDER BY item_id", (order_id,)))
    if order["status"] in ("delivered", "cancelled"):
        order["minutes_remaining"] = 0
    else:
        order["minutes_remaining"] = max(0, round((datetime.fromisoformat(order["eta"]) - ctx.now).total_seconds() / 60))
        order["next_status"] = FLOW[FLOW.index(order["status"]) + 1]
    if order["courier_id"]:
        order["courier"] = rows(ctx.db.execute("SELECT courier_id, name, vehicle, rating FROM couriers WHERE courier_id = ?", (order["courier_id"],)))[0]
    order["rated"] = ctx.db.execute("SELECT 1 FROM ratings WHERE order_id = ?", (order_id,)).fetchone() is not None
    return order


@food.read(returns=("promo_code", "restaurant"))
def list_promo_codes(ctx: Ctx, restaurant_id: Annotated[str | None, Field(description="Also show this restaurant's own codes, e.g. 'RST-0036'"),
                                                         Entity("restaurant")] = None,
                     include_expired: bool = False) -> dict[str, Any]:
    """List current promo codes with their rules (kind, value, minimum subtotal, restaurant, expiry, once per customer),
    e.g. list_promo_codes(restaurant_id='RST-0036') for the codes usable there."""
    sql = "SELECT * FROM promo_codes WHERE 1=1"
    args: list[Any] = []
    if restaurant_id is not None:
        sql += " AND (restaurant_id IS NULL OR restaurant_id = ?)"
        args.append(restaurant_id)
    if not include_expired:
        sql += " AND expires_at >= ?"
        args.append(fake.iso(ctx.now))
    found = rows(ctx.db.execute(sql + " ORDER BY code", args))
    for p in found:
        p["once_per_customer"] = bool(p["once_per_customer"])
    return {"promo_codes": found, "count": len(found)}


DISTINCT_FIELDS = {"city": ("restaurants", "city"), "cuisine": ("restaurants", "cuisine"), "menu_category": ("menu_items", "category"),
                   "order_status": ("orders", "status"), "courier_vehicle": ("couriers", "vehicle"), "courier_status": ("couriers", "status"),
                   "customer_city": ("customers", "city"), "promo_kind": ("promo_codes", "kind")}


@food.read()
def get_distinct_values(ctx: Ctx, field: Literal["city", "cuisine", "menu_category", "order_status", "courier_vehicle", "courier_status",
                                                 "customer_city", "promo_kind"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('cuisine')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


Quantity = Annotated[int, Field(ge=1, le=20, description="How many, 1 to 20")]


@food.write(returns=("menu_item", "restaurant"))
def add_to_cart(ctx: Ctx, customer_id: CustomerId, item_id: ItemId, quantity: Quantity = 1,
                replace_cart: Annotated[bool, Field(description="Empty a cart holding another restaurant's items first")] = False) -> dict[str, Any]:
    """Add a menu item to a customer's cart, e.g. add_to_cart('CUS-0042', 'ITM-0257', 2). A cart holds one restaurant's
    items; pass replace_cart=true to start over with another restaurant. Unavailable items cannot be added."""
    _customer(ctx, customer_id)
    item = _item(ctx, item_id)
    if not item["available"]:
        raise ToolError(f"{item['name']} ({item_id}) is unavailable right now; pick another item from get_menu('{item['restaurant_id']}', available_only=true).")
    cart = ctx.db.execute("SELECT restaurant_id FROM carts WHERE customer_id = ?", (customer_id,)).fetchone()
    if cart and cart[0] != item["restaurant_id"]:
        if not replace_cart:
            raise ToolError(f"The cart holds items from {cart[0]}; {item_id} is from {item['restaurant_id']}. "
                            "Call add_to_cart with replace_cart=true to empty it first, or place the current cart.")
        ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ?", (customer_id,))
        ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
        cart = None
    have = ctx.db.execute("SELECT quantity FROM cart_items WHERE customer_id = ? AND item_id = ?", (customer_id, item_id)).fetchone()
    total = (have[0] if have else 0) + quantity
    if total > 20:
        raise ToolError(f"At most 20 of one item per order; the cart already has {have[0] if have else 0} of {item['name']}.")
    if cart is None:
        ctx.db.execute("INSERT INTO carts VALUES (?,?,?,?)", (customer_id, item["restaurant_id"], None, fake.iso(ctx.now)))
    else:
        ctx.db.execute("UPDATE carts SET updated_at = ? WHERE customer_id = ?", (fake.iso(ctx.now), customer_id))
    ctx.db.execute("INSERT INTO cart_items VALUES (?,?,?) ON CONFLICT (customer_id, item_id) DO UPDATE SET quantity = excluded.quantity",
                   (customer_id, item_id, total))
    return _cart(ctx, customer_id)


@food.write(requires=("add_to_cart",))
def update_cart_item(ctx: Ctx, customer_id: CustomerId, item_id: ItemId,
                     quantity: Annotated[int, Field(ge=0, le=20, description="New quantity; 0 removes the item")]) -> dict[str, Any]:
    """Change the quantity of an item in the cart, or remove it with quantity 0, e.g. update_cart_item('CUS-0042', 'ITM-0257', 0).
    Removing the last item empties the cart."""
    _customer(ctx, customer_id)
    have = ctx.db.execute("SELECT quantity FROM cart_items WHERE customer_id = ? AND item_id = ?", (customer_id, item_id)).fetchone()
    if have is None:
        raise ToolError(f"{item_id} is not in {customer_id}'s cart; see view_cart, or add it with add_to_cart.")
    if quantity == have[0]:
        raise ToolError(f"{item_id} already has quantity {quantity} in the cart.")
    if quantity == 0:
        ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ? AND item_id = ?", (customer_id, item_id))
        if not ctx.db.execute("SELECT 1 FROM cart_items WHERE customer_id = ?", (customer_id,)).fetchone():
            ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
    else:
        if not _item(ctx, item_id)["available"] and quantity > have[0]:
            raise ToolError(f"{item_id} is unavailable; you can only lower its quantity or remove it (quantity=0).")
        ctx.db.execute("UPDATE cart_items SET quantity = ? WHERE customer_id = ? AND item_id = ?", (quantity, customer_id, item_id))
    if ctx.db.execute("SELECT 1 FROM carts WHERE customer_id = ?", (customer_id,)).fetchone():
        ctx.db.execute("UPDATE carts SET updated_at = ? WHERE customer_id = ?", (fake.iso(ctx.now), customer_id))
    return _cart(ctx, customer_id)


@food.write(returns=("promo_code",), requires=("add_to_cart",))
def apply_promo_code(ctx: Ctx, customer_id: CustomerId, code: PromoCode) -> dict[str, Any]:
    """Apply a promo code to a customer's cart, e.g. apply_promo_code('CUS-0042', 'SAVE5'). Fails if the code is unknown,
    expired, for another restaurant, above the cart's subtotal threshold, or already used (once-per-customer codes)."""
    _customer(ctx, customer_id)
    cart = _cart(ctx, customer_id)
    if not cart["items"]:
        raise ToolError(f"{customer_id}'s cart is empty; add items with add_to_cart before applying a code.")
    if cart["promo_code"] == code.upper():
        raise ToolError(f"{code.upper()} is already applied to the cart.")
    _, why = _promo_discount(ctx, code, customer_id, _restaurant(ctx, cart["restaurant_id"]), cart["subtotal"])
    if why:
        raise ToolError(why)
    ctx.db.execute("UPDATE carts SET promo_code = ?, updated_at = ? WHERE customer_id = ?", (code.upper(), fake.iso(ctx.now), customer_id))
    return _cart(ctx, customer_id)


@food.write(returns=("order",), requires=("add_to_cart",))
def place_order(ctx: Ctx, customer_id: CustomerId,
                instructions: Annotated[str, Field(max_length=200, description="Delivery instructions, e.g. 'Leave at the door'")] = "",
                scheduled_for: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$",
                                                           description="Deliver later: when the restaurant should start, e.g. '2026-06-01T11:30'")] = None) -> dict[str, Any]:
    """Check out the customer's cart as an order, e.g. place_order('CUS-0042', 'Leave at the door').

    Fails if the restaurant is closed at the time (pass scheduled_for within its hours, up to 7 days ahead), an item is
    unavailable, the subtotal is below the minimum order, the promo code no longer applies, or the address is over 15 km away."""
    cus = _customer(ctx, customer_id)
    cart = _cart(ctx, customer_id)
    if not cart["items"]:
        raise ToolError(f"{customer_id}'s cart is empty; add items with add_to_cart first.")
    rest = _restaurant(ctx, cart["restaurant_id"])
    start = ctx.now
    if scheduled_for is not None:
        try:
            start = datetime.fromisoformat(scheduled_for)
        except ValueError:
            raise ToolError(f"scheduled_for {scheduled_for!r} is not a valid time; use YYYY-MM-DDTHH:MM, e.g. '2026-06-01T11:30'.") from None
        if start <= ctx.now or start > ctx.now + timedelta(days=7):
            raise ToolError(f"scheduled_for must be after now ({fake.iso(ctx.now)}) and within 7 days.")
    if not _open_at(rest, start):
        when = "now" if scheduled_for is None else f"at {scheduled_for}"
        closed = f", closed on {rest['closed_on']}s" if rest["closed_on"] else ""
        raise ToolError(f"{rest['name']} is closed {when} (hours {rest['opens']}-{rest['closes']}{closed}); "
                        "pass scheduled_for within its hours or order from a restaurant that is open (search_restaurants open_now=true).")
    gone = [i for i in cart["items"] if not i["available"]]
    if gone:
        raise ToolError(f"{', '.join(i['name'] + ' (' + i['item_id'] + ')' for i in gone)} unavailable; remove with update_cart_item(quantity=0).")
    if cart["subtotal"] < rest["min_order"]:
        raise ToolError(f"Subtotal {cart['subtotal']:.2f} USD is below {rest['name']}'s minimum order of {rest['min_order']:.2f} USD; "
                        f"add {rest['min_order'] - cart['subtotal']:.2f} USD more.")
    if cart["promo_code"]:
        _, why = _promo_discount(ctx, cart["promo_code"], customer_id, rest, cart["subtotal"])
        if why:
            raise ToolError(why + " Remove or change it: apply another code, or empty the cart and re-add.")
    km = _km(rest["lat"], rest["lon"], cus["lat"], cus["lon"])
    if km > MAX_KM:
        raise ToolError(f"{rest['name']} is {km:.1f} km from {cus['address']}; it delivers within {MAX_KM:.0f} km. Choose a closer restaurant.")
    order_id = next_id(ctx.db, "orders", "order_id", "ORD", 5)
    eta = start + timedelta(minutes=rest["prep_minutes"] + _travel_minutes(km))
    ctx.db.execute("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (order_id, customer_id, rest["restaurant_id"], None, "placed", cart["subtotal"], cart["delivery_fee"], cart["service_fee"],
                    cart["discount"], cart["total"], cart["promo_code"], cus["address"], instructions, fake.iso(ctx.now),
                    fake.iso(start) if scheduled_for else None, None, None, None, fake.iso(eta), None, None, None))
    ctx.db.executemany("INSERT INTO order_items VALUES (?,?,?,?,?)",
                       [(order_id, i["item_id"], i["name"], i["price"], i["quantity"]) for i in cart["items"]])
    ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ?", (customer_id,))
    ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
    return {"order_id": order_id, "status": "placed", "restaurant_id": rest["restaurant_id"], "total": cart["total"],
            "eta": fake.iso(eta), "minutes_until_delivery": round((eta - ctx.now).total_seconds() / 60)}


@food.write(requires=("place_order",))
def cancel_order(ctx: Ctx, order_id: OrderId,
                 reason: Annotated[str, Field(max_length=200, description="Why, e.g. 'ordered by mistake'")] = "customer request") -> dict[str, Any]:
    """Cancel an order before pickup, e.g. cancel_order('ORD-00695', 'ordered by mistake'). Full refund while placed or accepted;
    while preparing half the subtotal is kept. Orders out for delivery or delivered cannot be cancelled."""
    order = _order(ctx, order_id)
    if order["status"] == "cancelled":
        raise ToolError(f"Order {order_id} is already cancelled (refunded {order['refund_amount']:.2f} USD).")
    if order["status"] in ("out_for_delivery", "delivered"):
        raise ToolError(f"Order {order_id} is {order['status'].replace('_', ' ')} and was picked up at {order['picked_up_at']}; "
                        "it can no longer be cancelled. Rate it once delivered if something went wrong.")
    kept = round(order["subtotal"] * 0.5, 2) if order["status"] == "preparing" else 0.0
    refund = round(order["total"] - kept, 2)
    ctx.db.execute("UPDATE orders SET status = 'cancelled', cancelled_at = ?, cancel_reason = ?, refund_amount = ? WHERE order_id = ?",
                   (fake.iso(ctx.now), reason, refund, order_id))
    return {"order_id": order_id, "status": "cancelled", "refund_amount": refund, "kept": kept}


@food.write(returns=("courier",), requires=("place_order",))
def advance_order_status(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Move an order one step along placed -> accepted -> preparing -> out_for_delivery -> delivered, as the restaurant
    and courier would, e.g. advance_order_status('ORD-00695'). Going out for delivery assigns an available courier of the city."""
    order = _order(ctx, order_id)
    if order["status"] in ("delivered", "cancelled"):
        raise ToolError(f"Order {order_id} is {order['status']}; it has no next status.")
    nxt = FLOW[FLOW.index(order["status"]) + 1]
    now = fake.iso(ctx.now)
    courier = order["courier_id"]
    if nxt == "accepted":
        ctx.db.execute("UPDATE orders SET status = ?, accepted_at = ? WHERE order_id = ?", (nxt, now, order_id))
    elif nxt == "preparing":
        ctx.db.execute("UPDATE orders SET status = ? WHERE order_id = ?", (nxt, order_id))
    elif nxt == "out_for_delivery":
        if order["scheduled_for"] and order["scheduled_for"] > now:
            raise ToolError(f"Order {order_id} is scheduled for {order['scheduled_for']}; it cannot leave the restaurant before then.")
        city = _restaurant(ctx, order["restaurant_id"])["city"]
        found = ctx.db.execute("SELECT courier_id FROM couriers WHERE city = ? AND status = 'available' ORDER BY deliveries, courier_id LIMIT 1",
                               (city,)).fetchone()
        if found is None:
            raise ToolError(f"No courier is available in {city} right now; the order stays preparing. Try again after a delivery completes.")
        courier = found[0]
        ctx.db.execute("UPDATE couriers SET status = 'delivering' WHERE courier_id = ?", (courier,))
        ctx.db.execute("UPDATE orders SET status = ?, courier_id = ?, picked_up_at = ? WHERE order_id = ?", (nxt, courier, now, order_id))
    else:
        ctx.db.execute("UPDATE orders SET status = ?, delivered_at = ? WHERE order_id = ?", (nxt, now, order_id))
        if courier:
            ctx.db.execute("UPDATE couriers SET status = 'available', deliveries = deliveries + 1 WHERE courier_id = ?", (courier,))
    return {"order_id": order_id, "previous_status": order["status"], "status": nxt, "courier_id": courier}


@food.write(requires=("advance_order_status",))
def rate_order(ctx: Ctx, order_id: OrderId, food_stars: Annotated[int, Field(ge=1, le=5, description="Food, 1 to 5 stars")],
               delivery_stars: Annotated[int, Field(ge=1, le=5, description="Delivery, 1 to 5 stars")],
               comment: Annotated[str, Field(max_length=500)] = "") -> dict[str, Any]:
    """Rate a delivered order's food and delivery, e.g. rate_order('ORD-00010', 5, 4, 'Hot and on time.'). Only delivered
    orders can be rated, once each; the restaurant's and courier's averages update."""
    order = _order(ctx, order_id)
    if order["status"] != "delivered":
        raise ToolError(f"Order {order_id} is {order['status']}; only delivered orders can be rated (see track_order).")
    if ctx.db.execute("SELECT 1 FROM ratings WHERE order_id = ?", (order_id,)).fetchone():
        raise ToolError(f"Order {order_id} was already rated; each order is rated once.")
    ctx.db.execute("INSERT INTO ratings VALUES (?,?,?,?,?,?,?,?)", (order_id, order["customer_id"], order["restaurant_id"], order["courier_id"],
                                                                     food_stars, delivery_stars, comment, fake.iso(ctx.now)))
    r = _restaurant(ctx, order["restaurant_id"])
    avg = round((r["rating"] * r["rating_count"] + food_stars) / (r["rating_count"] + 1), 2)
    ctx.db.execute("UPDATE restaurants SET rating = ?, rating_count = rating_count + 1 WHERE restaurant_id = ?", (avg, r["restaurant_id"]))
    if order["courier_id"]:
        c = ctx.db.execute("SELECT rating, rating_count FROM couriers WHERE courier_id = ?", (order["courier_id"],)).fetchone()
        cavg = round((c[0] * c[1] + delivery_stars) / (c[1] + 1), 2)
        ctx.db.execute("UPDATE couriers SET rating = ?, rating_count = rating_count + 1 WHERE courier_id = ?", (cavg, order["courier_id"]))
    return {"order_id": order_id, "food_stars": food_stars, "delivery_stars": delivery_stars, "restaurant_rating": avg}


server = food
