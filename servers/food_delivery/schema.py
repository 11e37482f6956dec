"""The food delivery SQLite schema, and the rules seed and tools share: distances, travel times, fees."""

from __future__ import annotations

import math

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
    status TEXT NOT NULL CHECK (
        status IN ('placed', 'accepted', 'preparing', 'out_for_delivery', 'delivered', 'cancelled')
    ),
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

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MAX_KM = 15.0
FLOW = ("placed", "accepted", "preparing", "out_for_delivery", "delivered")


def km_between(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    """Great-circle distance in km."""
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 2 * 6371.0 * math.asin(min(1.0, math.sqrt(a)))


def travel_minutes(km: float) -> int:
    """20 km/h on 1.3x the straight line, plus 5 minutes to hand over."""
    return round(km * 1.3 / 20 * 60) + 5


def service_fee(subtotal: float) -> float:
    """5% of the subtotal, 1 to 5 USD."""
    return round(min(5.0, max(1.0, subtotal * 0.05)), 2)
