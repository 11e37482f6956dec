"""Shopping: an online store's catalog, carts, coupons, checkout, orders, returns, addresses and wishlists.

Business rules: a product can only be added to a cart up to its stock (at most 10 per product)
and never when out of stock or discontinued; a coupon must have started, not be expired (relative
to now), have uses left, meet its minimum spend and, if tied to a category, match items in the cart;
an empty cart cannot check out and checkout re-checks stock and the coupon; shipping is free from
50 USD after discount, else 5.99 USD; only a placed (not yet shipped) order can be cancelled, which
puts its items back in stock; a return is only for a delivered order, within 30 days of delivery, for
at most the quantity not already returned; only customers with a delivered purchase of a product can
review it, once.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

SCHEMA = """
CREATE TABLE customers (
    customer_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    phone TEXT NOT NULL,
    city TEXT NOT NULL,
    member_tier TEXT NOT NULL CHECK (member_tier IN ('standard', 'plus')),
    joined_at TEXT NOT NULL
);
CREATE TABLE addresses (
    address_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    label TEXT NOT NULL,
    street TEXT NOT NULL,
    city TEXT NOT NULL,
    state TEXT NOT NULL,
    zip TEXT NOT NULL,
    is_default INTEGER NOT NULL
);
CREATE INDEX addresses_customer ON addresses(customer_id);
CREATE TABLE categories (
    category_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL
);
CREATE TABLE products (
    product_id TEXT PRIMARY KEY,
    category_id TEXT NOT NULL REFERENCES categories(category_id),
    name TEXT NOT NULL,
    brand TEXT NOT NULL,
    price REAL NOT NULL,
    stock INTEGER NOT NULL CHECK (stock >= 0),
    rating REAL,
    review_count INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'discontinued')),
    created_at TEXT NOT NULL
);
CREATE INDEX products_category ON products(category_id);
CREATE TABLE reviews (
    review_id TEXT PRIMARY KEY,
    product_id TEXT NOT NULL REFERENCES products(product_id),
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    verified INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (product_id, customer_id)
);
CREATE TABLE carts (
    customer_id TEXT PRIMARY KEY REFERENCES customers(customer_id),
    coupon_code TEXT
);
CREATE TABLE cart_items (
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    product_id TEXT NOT NULL REFERENCES products(product_id),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    added_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, product_id)
);
CREATE TABLE coupons (
    code TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('percent', 'fixed')),
    value REAL NOT NULL,
    min_spend REAL NOT NULL,
    category_id TEXT,
    starts_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    max_uses INTEGER NOT NULL,
    uses INTEGER NOT NULL
);
CREATE TABLE orders (
    order_id TEXT PRIMARY KEY,
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    address_id TEXT NOT NULL REFERENCES addresses(address_id),
    status TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'cancelled')),
    payment_method TEXT NOT NULL,
    subtotal REAL NOT NULL,
    discount REAL NOT NULL,
    shipping REAL NOT NULL,
    total REAL NOT NULL,
    coupon_code TEXT,
    placed_at TEXT NOT NULL,
    shipped_at TEXT,
    delivered_at TEXT,
    cancelled_at TEXT,
    cancel_reason TEXT
);
CREATE INDEX orders_customer ON orders(customer_id, placed_at);
CREATE TABLE order_items (
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    product_id TEXT NOT NULL REFERENCES products(product_id),
    quantity INTEGER NOT NULL,
    unit_price REAL NOT NULL,
    PRIMARY KEY (order_id, product_id)
);
CREATE TABLE returns (
    return_id TEXT PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders(order_id),
    product_id TEXT NOT NULL REFERENCES products(product_id),
    quantity INTEGER NOT NULL,
    reason TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('requested', 'approved', 'refunded', 'rejected')),
    refund_amount REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE wishlist_items (
    customer_id TEXT NOT NULL REFERENCES customers(customer_id),
    product_id TEXT NOT NULL REFERENCES products(product_id),
    added_at TEXT NOT NULL,
    PRIMARY KEY (customer_id, product_id)
);
"""

# category id, name, description, price range, brands, product nouns
CATALOG = (
    ("CAT-01", "Electronics", "Audio, chargers, wearables and computer accessories", (15, 420),
     ("Voltix", "Sonora", "Nexa", "Pulsewave", "Ampere"),
     ("Wireless Earbuds", "Bluetooth Speaker", "USB-C Charger", "Smartwatch", "Noise-Cancelling Headphones",
      "Portable SSD", "Webcam", "Mechanical Keyboard", "Wireless Mouse", "Power Bank", "Fitness Tracker", "4K Monitor")),
    ("CAT-02", "Home & Kitchen", "Cookware, small appliances and kitchen tools", (12, 360),
     ("Hearthline", "Copperleaf", "Kitchara", "Oakhouse"),
     ("Chef's Knife", "Cast Iron Skillet", "Coffee Grinder", "French Press", "Nonstick Pan Set", "Air Fryer",
      "Blender", "Cutting Board", "Electric Kettle", "Stand Mixer", "Dutch Oven")),
    ("CAT-03", "Books", "Fiction, non-fiction, cookbooks and guides", (8, 45),
     ("Harbor Press", "Lantern Books", "Northfield Publishing"),
     ("Mystery Novel", "Cookbook", "Field Guide", "Biography", "Travel Atlas", "Poetry Collection",
      "Science Primer", "History of the Seas", "Gardening Handbook")),
    ("CAT-04", "Sports & Outdoors", "Fitness, camping and hiking gear", (10, 380),
     ("Summit Gear", "Ridgeway", "TrailPeak", "Stride"),
     ("Yoga Mat", "Trail Running Shoes", "Camping Tent", "Sleeping Bag", "Water Bottle", "Hiking Backpack",
      "Resistance Bands", "Adjustable Dumbbells", "Bike Helmet", "Headlamp")),
    ("CAT-05", "Toys & Games", "Toys, puzzles and board games", (9, 120),
     ("Playwise", "Tinkerly", "Brightbox"),
     ("Building Blocks Set", "Jigsaw Puzzle", "Board Game", "Remote Control Car", "Plush Bear", "Art Kit", "Science Kit")),
    ("CAT-06", "Beauty", "Skin care, hair care and personal care", (6, 150),
     ("Lumiere", "Purely", "Glowa"),
     ("Face Moisturizer", "Vitamin C Serum", "Shampoo", "Sunscreen SPF 50", "Lip Balm Set", "Hair Dryer", "Electric Toothbrush")),
    ("CAT-07", "Clothing", "Outerwear, basics and activewear", (10, 220),
     ("Northfold", "Threadly", "Canvas & Co"),
     ("Rain Jacket", "Merino Sweater", "Denim Jeans", "Cotton T-Shirt", "Fleece Hoodie", "Wool Socks", "Running Shorts")),
    ("CAT-08", "Garden", "Garden tools, watering and outdoor lighting", (8, 180),
     ("Greenroot", "Verdant"),
     ("Garden Hose", "Pruning Shears", "Raised Bed Kit", "Solar Path Lights", "Seed Starter Kit", "Watering Can")),
    ("CAT-09", "Pet Supplies", "Beds, toys and care for dogs and cats", (7, 140),
     ("Pawsome", "Tailwind"),
     ("Dog Bed", "Cat Scratching Post", "Pet Water Fountain", "Chew Toy Set", "Dog Leash", "Cat Litter Box")),
    ("CAT-10", "Office", "Desk gear, stationery and ergonomics", (5, 320),
     ("Deskwise", "Paperly"),
     ("Desk Lamp", "Ergonomic Chair", "Notebook Set", "Gel Pen Pack", "Monitor Stand", "Desk Organizer")),
)
VARIANTS = ("Classic", "Pro", "Lite", "Max", "Mini", "Plus", "Essential", "Deluxe", "Sport", "Eco", "Compact", "Signature")
REVIEW_TEXT = {
    5: ("Love it", "Exactly what I wanted, works perfectly."), 4: ("Very good", "Solid quality for the price."),
    3: ("It's okay", "Does the job but nothing special."), 2: ("Disappointed", "Quality is lower than expected."),
    1: ("Do not buy", "Stopped working after a week."),
}
LABELS = ("Home", "Work", "Parents", "Vacation home")
PAYMENT_METHODS = ("card", "paypal", "gift_card")
RETURN_WINDOW_DAYS = 30
FREE_SHIPPING_FROM = 50.0
SHIPPING_FEE = 5.99
MAX_PER_PRODUCT = 10


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """10 categories, ~200 products, 200 customers with addresses, ~500 orders, reviews, carts, wishlists, coupons."""
    db.executemany("INSERT INTO categories VALUES (?,?,?)", [(c[0], c[1], c[2]) for c in CATALOG])
    products: list[list[Any]] = []
    names: set[str] = set()
    for cat_id, _, _, (low, high), brands, nouns in CATALOG:
        for _ in range(20):
            brand = rng.choice(brands)
            name = f"{brand} {rng.choice(nouns)} {rng.choice(VARIANTS)}"
            if name in names:
                continue
            names.add(name)
            stock = 0 if rng.random() < 0.08 else rng.choice((rng.randint(1, 4), rng.randint(5, 60), rng.randint(20, 250)))
            status = "discontinued" if rng.random() < 0.04 else "active"
            products.append([f"PRD-{len(products) + 1:04d}", cat_id, name, brand, round(rng.uniform(low, high)) - 0.01,
                             stock, None, 0, status, fake.iso(fake.moment(rng, now, 900, -20))])
    customers: list[tuple[Any, ...]] = []
    addresses: list[tuple[Any, ...]] = []
    for i in range(1, 201):
        first, last = fake.person(rng)
        city = fake.city(rng)[0]
        cus_id = f"CUS-{i:04d}"
        customers.append((cus_id, f"{first} {last}", fake.email_for(first, last, rng, i), fake.phone(rng), city,
                          rng.choices(("standard", "plus"), (75, 25))[0], fake.iso(fake.moment(rng, now, 1500, -200))))
        for n, label in enumerate(rng.sample(LABELS, rng.choice((1, 1, 2, 2, 3)))):
            c, st, _, _ = fake.city(rng) if n else next(x for x in fake.CITIES if x[0] == city)
            addresses.append((f"ADR-{len(addresses) + 1:04d}", cus_id, label, f"{rng.randint(10, 9999)} {rng.choice(fake.STREETS)}",
                              c, st, f"{rng.randint(10000, 99999)}", 1 if n == 0 else 0))
    db.executemany("INSERT INTO customers VALUES (?,?,?,?,?,?,?)", customers)
    db.executemany("INSERT INTO addresses VALUES (?,?,?,?,?,?,?,?)", addresses)
    coupons = [
        ("WELCOME10", "10% off your order", "percent", 10.0, 0.0, None, -400, 180, 100000, 3121),
        ("SAVE20", "20 USD off orders of 100 USD or more", "fixed", 20.0, 100.0, None, -20, 30, 5000, 812),
        ("SUMMER15", "15% off orders of 50 USD or more", "percent", 15.0, 50.0, None, -2, 60, 10000, 97),
        ("TECH10", "10% off Electronics", "percent", 10.0, 0.0, "CAT-01", -45, 45, 2000, 403),
        ("BOOKS5", "5 USD off Books over 25 USD", "fixed", 5.0, 25.0, "CAT-03", -60, 90, 3000, 255),
        ("KITCHEN25", "25% off Home & Kitchen over 80 USD", "percent", 25.0, 80.0, "CAT-02", -5, 10, 500, 41),
        ("SPRING25", "25% off, spring sale", "percent", 25.0, 0.0, None, -80, -10, 8000, 4410),
        ("HOLIDAY40", "40% off holiday sale", "percent", 40.0, 60.0, None, -200, -150, 6000, 5999),
        ("LIMITED5", "5 USD off, first 50 customers", "fixed", 5.0, 0.0, None, -10, 20, 50, 50),
        ("FUTURE20", "20% off, summer launch", "percent", 20.0, 0.0, None, 14, 44, 5000, 0),
        ("PETS15", "15% off Pet Supplies", "percent", 15.0, 30.0, "CAT-09", -30, 3, 1000, 120),
        ("BIGSPEND50", "50 USD off orders of 300 USD or more", "fixed", 50.0, 300.0, None, -15, 15, 1000, 77),
    ]
    db.executemany("INSERT INTO coupons VALUES (?,?,?,?,?,?,?,?,?,?)",
                   [(c, d, k, v, m, cat, fake.iso(now + timedelta(days=s)), fake.iso(now + timedelta(days=e)), mx, u)
                    for c, d, k, v, m, cat, s, e, mx, u in coupons])
    orders: list[tuple[Any, ...]] = []
    items: list[tuple[Any, ...]] = []
    rets: list[tuple[Any, ...]] = []
    by_cus: dict[str, list[str]] = {}
    for a in addresses:
        by_cus.setdefault(a[1], []).append(a[0])
    purchased: dict[str, set[str]] = {}
    placed_times = sorted(fake.moment(rng, now, 150, 0) for _ in range(520))
    for placed in placed_times:
        cus_id = rng.choice(customers)[0]
        order_id = f"ORD-{len(orders) + 1:05d}"
        lines = rng.sample(products, rng.choice((1, 1, 2, 2, 3, 4)))
        subtotal = 0.0
        for p in lines:
            qty = rng.choice((1, 1, 1, 2, 3))
            items.append((order_id, p[0], qty, p[4]))
            subtotal += qty * p[4]
        subtotal = round(subtotal, 2)
        age = (now - placed).days
        if age < 2:
            status = rng.choices(("placed", "cancelled"), (90, 10))[0]
        elif age < 6:
            status = rng.choices(("shipped", "delivered", "cancelled"), (65, 25, 10))[0]
        else:
            status = rng.choices(("delivered", "cancelled"), (92, 8))[0]
        shipped = delivered = cancelled = reason = None
        if status in ("shipped", "delivered"):
            shipped = fake.iso(placed + timedelta(hours=rng.randint(12, 36)))
        if status == "delivered":
            delivered = fake.iso(min(now - timedelta(hours=2), placed + timedelta(days=rng.randint(2, 5), hours=rng.randint(0, 9))))
            purchased.setdefault(cus_id, set()).update(p[0] for p in lines)
        if status == "cancelled":
            cancelled = fake.iso(placed + timedelta(hours=rng.randint(1, 20)))
            reason = rng.choice(("changed my mind", "found a better price", "ordered by mistake"))
        discount = round(subtotal * 0.1, 2) if rng.random() < 0.15 else 0.0
        code = "WELCOME10" if discount else None
        shipping = 0.0 if subtotal - discount >= FREE_SHIPPING_FROM else SHIPPING_FEE
        orders.append((order_id, cus_id, rng.choice(by_cus[cus_id]), status, rng.choice(PAYMENT_METHODS), subtotal,
                       discount, shipping, round(subtotal - discount + shipping, 2), code, fake.iso(placed), shipped,
                       delivered, cancelled, reason))
        if status == "delivered" and rng.random() < 0.1:
            p = lines[0]
            rstatus = rng.choice(("requested", "approved", "refunded", "rejected"))
            rets.append((f"RET-{len(rets) + 1:04d}", order_id, p[0], 1, rng.choice(("damaged", "wrong_item", "no_longer_needed")),
                         rstatus, round(p[4] * (1 - discount / subtotal), 2),
                         fake.iso(min(now - timedelta(hours=1), datetime.fromisoformat(str(delivered)) + timedelta(days=rng.randint(1, 12))))))
    db.executemany("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", orders)
    db.executemany("INSERT INTO order_items VALUES (?,?,?,?)", items)
    db.executemany("INSERT INTO returns VALUES (?,?,?,?,?,?,?,?)", rets)
    reviews: list[tuple[Any, ...]] = []
    for p in products:
        quality = rng.choice((2.5, 3.5, 4.0, 4.5, 4.8))
        reviewers = rng.sample(customers, rng.randint(0, 9))
        total = 0
        for reviewer in reviewers:
            rating = max(1, min(5, round(rng.gauss(quality, 1.0))))
            title, body = REVIEW_TEXT[rating]
            reviews.append((f"REV-{len(reviews) + 1:04d}", p[0], reviewer[0], rating, title, body,
                            1 if p[0] in purchased.get(reviewer[0], ()) else 0, fake.iso(fake.moment(rng, now, 400, 0))))
            total += rating
        if reviewers:
            p[6], p[7] = round(total / len(reviewers), 2), len(reviewers)
    db.executemany("INSERT INTO products VALUES (?,?,?,?,?,?,?,?,?,?)", [tuple(p) for p in products])
    db.executemany("INSERT INTO reviews VALUES (?,?,?,?,?,?,?,?)", reviews)
    cart_items: list[tuple[Any, ...]] = []
    wishes: list[tuple[Any, ...]] = []
    carts: list[tuple[Any, ...]] = []
    active = [p for p in products if p[8] == "active" and p[5] > 0]
    for cus in customers:
        if rng.random() < 0.3:
            for p in rng.sample(active, rng.randint(1, 3)):
                cart_items.append((cus[0], p[0], rng.randint(1, min(2, p[5])), fake.iso(fake.moment(rng, now, 20, 0))))
            if rng.random() < 0.2:
                carts.append((cus[0], "WELCOME10"))
        for p in rng.sample(products, rng.choice((0, 0, 1, 2, 3, 5))):
            wishes.append((cus[0], p[0], fake.iso(fake.moment(rng, now, 200, 0))))
    db.executemany("INSERT INTO cart_items VALUES (?,?,?,?)", cart_items)
    db.executemany("INSERT INTO carts VALUES (?,?)", carts)
    db.executemany("INSERT INTO wishlist_items VALUES (?,?,?)", wishes)


shopping = Server("shopping", "Online store: catalog, carts, coupons, checkout, orders, returns, addresses and wishlists.", SCHEMA, seed)

CustomerId = Annotated[str, Field(max_length=40, description="Customer id, e.g. 'CUS-0042'"), Entity("customer")]
ProductId = Annotated[str, Field(max_length=40, description="Product id, e.g. 'PRD-0017'"), Entity("product")]
OrderId = Annotated[str, Field(max_length=40, description="Order id, e.g. 'ORD-00123'"), Entity("order")]
AddressId = Annotated[str, Field(max_length=40, description="Address id, e.g. 'ADR-0064'"), Entity("address")]
CouponCode = Annotated[str, Field(max_length=40, description="Coupon code, e.g. 'SUMMER15'"), Entity("coupon")]
Quantity = Annotated[int, Field(ge=1, le=MAX_PER_PRODUCT, description="How many units, 1 to 10")]
Price = Annotated[float, Field(ge=0, le=1_000_000, description="A price in USD, e.g. 49.99")]


def _customer(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM customers WHERE customer_id = ?", (customer_id,),
                 f"No customer {customer_id!r}. Use search_customers to find customer ids.")


def _product(ctx: Ctx, product_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM products WHERE product_id = ?", (product_id,),
                 f"No product {product_id!r}. Use search_products to find product ids.")


def _order(ctx: Ctx, order_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM orders WHERE order_id = ?", (order_id,),
                 f"No order {order_id!r}. Use list_orders to find order ids.")


def _coupon(ctx: Ctx, code: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM coupons WHERE code = ?", (code.strip().upper(),),
                 f"No coupon {code!r}. Use list_coupons to see the coupons on offer.")


def _cart_lines(ctx: Ctx, customer_id: str) -> list[dict[str, Any]]:
    return rows(ctx.db.execute(
        "SELECT ci.product_id, p.name, p.category_id, p.price, ci.quantity, p.stock, p.status, "
        "ROUND(p.price * ci.quantity, 2) AS line_total FROM cart_items ci JOIN products p USING (product_id) "
        "WHERE ci.customer_id = ? ORDER BY ci.added_at, ci.product_id", (customer_id,)))


def _discount(ctx: Ctx, coupon: dict[str, Any], lines: list[dict[str, Any]]) -> float:
    """The discount a coupon gives on these cart lines, or a ToolError saying why it does not apply."""
    code, now = coupon["code"], fake.iso(ctx.now)
    if coupon["starts_at"] > now:
        raise ToolError(f"Coupon {code} is not valid yet; it starts at {coupon['starts_at']}.")
    if coupon["expires_at"] <= now:
        raise ToolError(f"Coupon {code} expired at {coupon['expires_at']}; use list_coupons(active_only=true) to find a valid one.")
    if coupon["uses"] >= coupon["max_uses"]:
        raise ToolError(f"Coupon {code} has reached its usage limit of {coupon['max_uses']}; choose another coupon.")
    subtotal = round(sum(line["line_total"] for line in lines), 2)
    if subtotal < coupon["min_spend"]:
        raise ToolError(f"Coupon {code} needs a minimum spend of {coupon['min_spend']:.2f} USD; the cart is "
                        f"{subtotal:.2f} USD. Add {coupon['min_spend'] - subtotal:.2f} USD more or choose another coupon.")
    base = subtotal
    if coupon["category_id"]:
        base = round(sum(line["line_total"] for line in lines if line["category_id"] == coupon["category_id"]), 2)
        if base <= 0:
            raise ToolError(f"Coupon {code} only applies to category {coupon['category_id']}, and the cart has no items from it.")
    off = base * coupon["value"] / 100 if coupon["kind"] == "percent" else coupon["value"]
    return round(min(off, base), 2)


def _cart_summary(ctx: Ctx, customer_id: str) -> dict[str, Any]:
    lines = _cart_lines(ctx, customer_id)
    subtotal = round(sum(line["line_total"] for line in lines), 2)
    row = ctx.db.execute("SELECT coupon_code FROM carts WHERE customer_id = ?", (customer_id,)).fetchone()
    code = row[0] if row else None
    discount, problem = 0.0, None
    if code and lines:
        try:
            discount = _discount(ctx, _coupon(ctx, code), lines)
        except ToolError as exc:
            problem = str(exc)
    after = round(subtotal - discount, 2)
    shipping = 0.0 if not lines or after >= FREE_SHIPPING_FROM else SHIPPING_FEE
    out = {"customer_id": customer_id, "items": lines, "item_count": sum(line["quantity"] for line in lines),
           "subtotal": subtotal, "coupon_code": code, "discount": discount, "shipping": shipping,
           "total": round(after + shipping, 2)}
    if problem:
        out["coupon_problem"] = problem
    return out


@shopping.read(returns=("product",))
def search_products(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a product name or brand, e.g. 'Earbuds'")] = "",
                    category_id: Annotated[str | None, Field(max_length=40, description="Only this category, e.g. 'CAT-01'"), Entity("category")] = None,
                    min_price: Price | None = None, max_price: Price | None = None,
                    in_stock_only: Annotated[bool, Field(description="Only products that are active and in stock")] = False,
                    sort: Literal["id", "price_asc", "price_desc", "rating"] = "id",
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search the catalog by name or brand, category and price range, e.g. search_products('Earbuds', category_id='CAT-01').

    Returns product ids such as 'PRD-0017' with price, stock and rating."""
    like = f"%{query}%"
    sql = ("SELECT product_id, name, brand, category_id, price, stock, rating, review_count, status FROM products "
           "WHERE (name LIKE ? OR brand LIKE ?)")
    args: list[Any] = [like, like]
    if category_id is not None:
        sql += " AND category_id = ?"
        args.append(category_id)
    if min_price is not None:
        sql += " AND price >= ?"
        args.append(min_price)
    if max_price is not None:
        sql += " AND price <= ?"
        args.append(max_price)
    if in_stock_only:
        sql += " AND stock > 0 AND status = 'active'"
    order = {"id": "product_id", "price_asc": "price, product_id", "price_desc": "price DESC, product_id",
             "rating": "COALESCE(rating, 0) DESC, review_count DESC, product_id"}[sort]
    found = rows(ctx.db.execute(f"{sql} ORDER BY {order} LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"products": found, "count": len(found)}


@shopping.read(returns=("product", "category"))
def get_product(ctx: Ctx, product_id: ProductId) -> dict[str, Any]:
    """Get one product: category, brand, price, stock, rating and status, e.g. get_product('PRD-0017')."""
    product = _product(ctx, product_id)
    product["category"] = ctx.db.execute("SELECT name FROM categories WHERE category_id = ?", (product["category_id"],)).fetchone()[0]
    product["in_stock"] = product["stock"] > 0 and product["status"] == "active"
    return product


@shopping.read(returns=("category",))
def list_categories(ctx: Ctx) -> dict[str, Any]:
    """List the catalog's categories with how many active products each has, e.g. 'CAT-01' Electronics."""
    found = rows(ctx.db.execute(
        "SELECT c.category_id, c.name, c.description, COUNT(p.product_id) AS active_products FROM categories c "
        "LEFT JOIN products p ON p.category_id = c.category_id AND p.status = 'active' GROUP BY c.category_id ORDER BY c.category_id"))
    return {"categories": found, "count": len(found)}


@shopping.read(returns=("review", "customer"))
def list_product_reviews(ctx: Ctx, product_id: ProductId,
                         min_rating: Annotated[int, Field(ge=1, le=5, description="Only reviews with at least this many stars")] = 1,
                         limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List a product's reviews, newest first, e.g. list_product_reviews('PRD-0017', min_rating=4)."""
    product = _product(ctx, product_id)
    found = rows(ctx.db.execute(
        "SELECT * FROM reviews WHERE product_id = ? AND rating >= ? ORDER BY created_at DESC, review_id DESC LIMIT ? OFFSET ?",
        (product_id, min_rating, limit, offset)))
    return {"product_id": product_id, "rating": product["rating"], "review_count": product["review_count"],
            "reviews": found, "count": len(found)}


@shopping.read(returns=("customer",))
def search_customers(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of a name, email or city, e.g. 'Garcia'")] = "",
                     limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search customers by name, email or city. Returns customer ids such as 'CUS-0042'."""
    like = f"%{query}%"
    found = rows(ctx.db.execute(
        "SELECT customer_id, name, email, city, member_tier FROM customers WHERE name LIKE ? OR email LIKE ? OR city LIKE ? "
        "ORDER BY customer_id LIMIT ? OFFSET ?", (like, like, like, limit, offset)))
    return {"customers": found, "count": len(found)}


@shopping.read(returns=("customer", "address", "order"))
def get_customer(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """Get a customer's profile, address ids and five most recent order ids, e.g. get_customer('CUS-0042')."""
    customer = _customer(ctx, customer_id)
    customer["address_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT address_id FROM addresses WHERE customer_id = ? ORDER BY address_id", (customer_id,))]
    customer["recent_order_ids"] = [r[0] for r in ctx.db.execute(
        "SELECT order_id FROM orders WHERE customer_id = ? ORDER BY placed_at DESC, order_id DESC LIMIT 5", (customer_id,))]
    return customer


@shopping.read(returns=("address",))
def list_addresses(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """List a customer's saved shipping addresses, default first, e.g. list_addresses('CUS-0042')."""
    _customer(ctx, customer_id)
    found = rows(ctx.db.execute("SELECT * FROM addresses WHERE customer_id = ? ORDER BY is_default DESC, address_id", (customer_id,)))
    return {"addresses": found, "count": len(found)}


@shopping.read(returns=("product", "coupon"))
def get_cart(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """Show a customer's cart: items, subtotal, applied coupon, discount, shipping and total, e.g. get_cart('CUS-0042')."""
    _customer(ctx, customer_id)
    return _cart_summary(ctx, customer_id)


@shopping.read(returns=("order",))
def list_orders(ctx: Ctx, customer_id: Annotated[str | None, Field(max_length=40, description="Only this customer's orders, e.g. 'CUS-0042'"), Entity("customer")] = None,
                status: Literal["placed", "shipped", "delivered", "cancelled"] | None = None,
                placed_since: Annotated[str | None, Field(max_length=40, description="Only orders placed on or after this ISO date, e.g. '2026-05-01'")] = None,
                limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List orders, newest first, filtered by customer, status or date, e.g. list_orders(status='delivered'). Ids look like 'ORD-00123'."""
    sql, args = ("SELECT order_id, customer_id, status, total, placed_at, shipped_at, delivered_at FROM orders WHERE 1=1", [])
    for column, value in (("customer_id", customer_id), ("status", status)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if placed_since is not None:
        sql += " AND placed_at >= ?"
        args.append(placed_since)
    found = rows(ctx.db.execute(sql + " ORDER BY placed_at DESC, order_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"orders": found, "count": len(found)}


@shopping.read(returns=("order", "product", "return", "address", "customer"))
def get_order(ctx: Ctx, order_id: OrderId) -> dict[str, Any]:
    """Get one order with its items, totals, status dates and any returns, e.g. get_order('ORD-00123')."""
    order = _order(ctx, order_id)
    order["items"] = rows(ctx.db.execute(
        "SELECT oi.product_id, p.name, oi.quantity, oi.unit_price FROM order_items oi JOIN products p USING (product_id) "
        "WHERE oi.order_id = ? ORDER BY oi.product_id", (order_id,)))
    order["returns"] = rows(ctx.db.execute("SELECT * FROM returns WHERE order_id = ? ORDER BY return_id", (order_id,)))
    if order["status"] == "delivered":
        deadline = datetime.fromisoformat(order["delivered_at"]) + timedelta(days=RETURN_WINDOW_DAYS)
        order["return_deadline"] = fake.iso(deadline)
    return order


@shopping.read(returns=("coupon",))
def list_coupons(ctx: Ctx, active_only: Annotated[bool, Field(description="Only coupons usable right now")] = False,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List coupons with their terms (kind, value, minimum spend, category, validity window, uses left), e.g. 'SUMMER15'."""
    now = fake.iso(ctx.now)
    sql, args = "SELECT *, max_uses - uses AS uses_left FROM coupons", []
    if active_only:
        sql += " WHERE starts_at <= ? AND expires_at > ? AND uses < max_uses"
        args += [now, now]
    found = rows(ctx.db.execute(sql + " ORDER BY code LIMIT ? OFFSET ?", (*args, limit, offset)))
    for c in found:
        c["active"] = c["starts_at"] <= now < c["expires_at"] and c["uses_left"] > 0
    return {"coupons": found, "count": len(found), "now": now}


@shopping.read(returns=("product",))
def get_wishlist(ctx: Ctx, customer_id: CustomerId) -> dict[str, Any]:
    """List the products on a customer's wishlist with price and stock, e.g. get_wishlist('CUS-0042')."""
    _customer(ctx, customer_id)
    found = rows(ctx.db.execute(
        "SELECT w.product_id, p.name, p.price, p.stock, p.status, w.added_at FROM wishlist_items w JOIN products p USING (product_id) "
        "WHERE w.customer_id = ? ORDER BY w.added_at, w.product_id", (customer_id,)))
    return {"customer_id": customer_id, "items": found, "count": len(found)}


@shopping.read(returns=("return", "order", "product"))
def list_returns(ctx: Ctx, customer_id: Annotated[str | None, Field(max_length=40, description="Only this customer's returns, e.g. 'CUS-0042'"), Entity("customer")] = None,
                 status: Literal["requested", "approved", "refunded", "rejected"] | None = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List return requests, newest first, by customer or status, e.g. list_returns(status='requested'). Ids look like 'RET-0004'."""
    sql, args = "SELECT r.*, o.customer_id FROM returns r JOIN orders o USING (order_id) WHERE 1=1", []
    if customer_id is not None:
        sql += " AND o.customer_id = ?"
        args.append(customer_id)
    if status is not None:
        sql += " AND r.status = ?"
        args.append(status)
    found = rows(ctx.db.execute(sql + " ORDER BY r.created_at DESC, r.return_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"returns": found, "count": len(found)}


DISTINCT_FIELDS = {"brand": ("products", "brand"), "product_status": ("products", "status"), "category_id": ("products", "category_id"),
                   "order_status": ("orders", "status"), "payment_method": ("orders", "payment_method"),
                   "customer_city": ("customers", "city"), "member_tier": ("customers", "member_tier"),
                   "return_status": ("returns", "status"), "return_reason": ("returns", "reason"),
                   "address_state": ("addresses", "state")}


@shopping.read()
def get_distinct_values(ctx: Ctx, field: Literal["brand", "product_status", "category_id", "order_status", "payment_method",
                                                 "customer_city", "member_tier", "return_status", "return_reason",
                                                 "address_state"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('brand')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@shopping.write(returns=("product",))
def add_to_cart(ctx: Ctx, customer_id: CustomerId, product_id: ProductId, quantity: Quantity = 1) -> dict[str, Any]:
    """Add units of a product to a customer's cart, e.g. add_to_cart('CUS-0042', 'PRD-0017', 2).

    Fails when the product is out of stock, discontinued, or the cart would hold more than the stock or 10 units."""
    _customer(ctx, customer_id)
    product = _product(ctx, product_id)
    if product["status"] != "active":
        raise ToolError(f"Product {product_id} ({product['name']}) is discontinued; search_products for an alternative.")
    if product["stock"] <= 0:
        raise ToolError(f"Product {product_id} ({product['name']}) is out of stock; add it to the wishlist or pick another "
                        f"product with search_products(category_id='{product['category_id']}', in_stock_only=true).")
    row = ctx.db.execute("SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)).fetchone()
    have = row[0] if row else 0
    want = have + quantity
    if want > product["stock"]:
        raise ToolError(f"Only {product['stock']} unit(s) of {product_id} in stock and the cart already has {have}; "
                        f"add at most {max(product['stock'] - have, 0)}.")
    if want > MAX_PER_PRODUCT:
        raise ToolError(f"At most {MAX_PER_PRODUCT} units of one product per order; the cart already has {have} of {product_id}.")
    if row:
        ctx.db.execute("UPDATE cart_items SET quantity = ? WHERE customer_id = ? AND product_id = ?", (want, customer_id, product_id))
    else:
        ctx.db.execute("INSERT INTO cart_items VALUES (?,?,?,?)", (customer_id, product_id, want, fake.iso(ctx.now)))
    return _cart_summary(ctx, customer_id)


@shopping.write(returns=("product",), requires=("add_to_cart",))
def update_cart_item(ctx: Ctx, customer_id: CustomerId, product_id: ProductId,
                     quantity: Annotated[int, Field(ge=0, le=MAX_PER_PRODUCT, description="The new quantity; 0 removes the item")]) -> dict[str, Any]:
    """Change the quantity of a product already in the cart, or remove it with quantity 0, e.g. update_cart_item('CUS-0042', 'PRD-0017', 0)."""
    _customer(ctx, customer_id)
    product = _product(ctx, product_id)
    row = ctx.db.execute("SELECT quantity FROM cart_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)).fetchone()
    if row is None:
        raise ToolError(f"Product {product_id} is not in {customer_id}'s cart; use add_to_cart to add it.")
    if quantity == row[0]:
        raise ToolError(f"The cart already holds {quantity} of {product_id}.")
    if quantity == 0:
        ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id))
    else:
        if quantity > product["stock"]:
            raise ToolError(f"Only {product['stock']} unit(s) of {product_id} in stock; choose a quantity of at most {product['stock']}.")
        ctx.db.execute("UPDATE cart_items SET quantity = ? WHERE customer_id = ? AND product_id = ?", (quantity, customer_id, product_id))
    return _cart_summary(ctx, customer_id)


@shopping.write(returns=("coupon",), requires=("add_to_cart",))
def apply_coupon(ctx: Ctx, customer_id: CustomerId, code: CouponCode) -> dict[str, Any]:
    """Apply a coupon code to a customer's cart, replacing any other, e.g. apply_coupon('CUS-0042', 'SUMMER15').

    Fails if the coupon is expired, not started, used up, below its minimum spend or for a category not in the cart."""
    _customer(ctx, customer_id)
    coupon = _coupon(ctx, code)
    lines = _cart_lines(ctx, customer_id)
    if not lines:
        raise ToolError(f"{customer_id}'s cart is empty; add_to_cart before applying a coupon.")
    discount = _discount(ctx, coupon, lines)
    ctx.db.execute("INSERT INTO carts VALUES (?, ?) ON CONFLICT(customer_id) DO UPDATE SET coupon_code = excluded.coupon_code",
                   (customer_id, coupon["code"]))
    out = _cart_summary(ctx, customer_id)
    out["discount"] = discount
    return out


@shopping.write(returns=("order",), requires=("add_to_cart",))
def checkout_cart(ctx: Ctx, customer_id: CustomerId, address_id: AddressId,
             payment_method: Literal["card", "paypal", "gift_card"] = "card",
             use_coupon: Annotated[bool, Field(description="Apply the cart's coupon; false checks out without it")] = True) -> dict[str, Any]:
    """Place an order for everything in a customer's cart, shipped to one of their addresses, e.g. checkout_cart('CUS-0042', 'ADR-0064').

    The cart must not be empty, every item must still be in stock, and the coupon must still apply. Returns the new order id."""
    _customer(ctx, customer_id)
    address = fetch(ctx.db, "SELECT * FROM addresses WHERE address_id = ?", (address_id,),
                    f"No address {address_id!r}. Use list_addresses('{customer_id}') to find the customer's addresses.")
    if address["customer_id"] != customer_id:
        raise ToolError(f"Address {address_id} belongs to {address['customer_id']}, not {customer_id}; use list_addresses('{customer_id}').")
    lines = _cart_lines(ctx, customer_id)
    if not lines:
        raise ToolError(f"{customer_id}'s cart is empty; add_to_cart before checking out.")
    for line in lines:
        if line["status"] != "active":
            raise ToolError(f"{line['product_id']} ({line['name']}) was discontinued; remove it with update_cart_item(quantity=0).")
        if line["quantity"] > line["stock"]:
            raise ToolError(f"Only {line['stock']} unit(s) of {line['product_id']} ({line['name']}) left but the cart has "
                            f"{line['quantity']}; lower it with update_cart_item.")
    summary = _cart_summary(ctx, customer_id)
    code = summary["coupon_code"] if use_coupon else None
    discount = 0.0
    if code:
        try:
            discount = _discount(ctx, _coupon(ctx, code), lines)
        except ToolError as exc:
            raise ToolError(f"{exc} Or call checkout_cart with use_coupon=false.") from None
    subtotal = summary["subtotal"]
    shipping = 0.0 if subtotal - discount >= FREE_SHIPPING_FROM else SHIPPING_FEE
    order_id = next_id(ctx.db, "orders", "order_id", "ORD", 5)
    total = round(subtotal - discount + shipping, 2)
    ctx.db.execute("INSERT INTO orders VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (order_id, customer_id, address_id, "placed", payment_method, subtotal, discount, shipping, total, code,
                    fake.iso(ctx.now), None, None, None, None))
    for line in lines:
        ctx.db.execute("INSERT INTO order_items VALUES (?,?,?,?)", (order_id, line["product_id"], line["quantity"], line["price"]))
        ctx.db.execute("UPDATE products SET stock = stock - ? WHERE product_id = ?", (line["quantity"], line["product_id"]))
    if code:
        ctx.db.execute("UPDATE coupons SET uses = uses + 1 WHERE code = ?", (code,))
    ctx.db.execute("DELETE FROM cart_items WHERE customer_id = ?", (customer_id,))
    ctx.db.execute("DELETE FROM carts WHERE customer_id = ?", (customer_id,))
    return {"order_id": order_id, "status": "placed", "subtotal": subtotal, "discount": discount, "shipping": shipping,
            "total": total, "coupon_code": code, "items": len(lines)}


@shopping.write(requires=("checkout_cart",))
def cancel_order(ctx: Ctx, order_id: OrderId,
                 reason: Annotated[str, Field(max_length=200, description="Why, e.g. 'ordered by mistake'")] = "customer request") -> dict[str, Any]:
    """Cancel an order that has not shipped yet, e.g. cancel_order('ORD-00517'); its items go back in stock.

    A shipped or delivered order cannot be cancelled: request a return after delivery instead."""
    order = _order(ctx, order_id)
    if order["status"] == "cancelled":
        raise ToolError(f"Order {order_id} is already cancelled.")
    if order["status"] == "shipped":
        raise ToolError(f"Order {order_id} shipped at {order['shipped_at']} and can no longer be cancelled; "
                        "once delivered, use request_return.")
    if order["status"] == "delivered":
        raise ToolError(f"Order {order_id} was delivered at {order['delivered_at']}; use request_return instead of cancelling.")
    for product_id, qty in ctx.db.execute("SELECT product_id, quantity FROM order_items WHERE order_id = ?", (order_id,)).fetchall():
        ctx.db.execute("UPDATE products SET stock = stock + ? WHERE product_id = ?", (qty, product_id))
    if order["coupon_code"]:
        ctx.db.execute("UPDATE coupons SET uses = MAX(uses - 1, 0) WHERE code = ?", (order["coupon_code"],))
    ctx.db.execute("UPDATE orders SET status = 'cancelled', cancelled_at = ?, cancel_reason = ? WHERE order_id = ?",
                   (fake.iso(ctx.now), reason, order_id))
    return {"order_id": order_id, "status": "cancelled", "refund": order["total"]}


@shopping.write(returns=("return",))
def request_return(ctx: Ctx, order_id: OrderId, product_id: ProductId, quantity: Quantity = 1,
                   reason: Literal["damaged", "wrong_item", "not_as_described", "no_longer_needed", "other"] = "no_longer_needed") -> dict[str, Any]:
    """Request a return of units from a delivered order within 30 days of delivery, e.g. request_return('ORD-00423', 'PRD-0018', 1, 'damaged').

    Returns the new return id and the refund it will give."""
    order = _order(ctx, order_id)
    if order["status"] != "delivered":
        hint = "cancel_order instead" if order["status"] == "placed" else "wait until it is delivered" if order["status"] == "shipped" else "nothing to return"
        raise ToolError(f"Order {order_id} is {order['status']}; only delivered orders can be returned ({hint}).")
    deadline = datetime.fromisoformat(order["delivered_at"]) + timedelta(days=RETURN_WINDOW_DAYS)
    if ctx.now > deadline:
        raise ToolError(f"Order {order_id} was delivered at {order['delivered_at']}; the {RETURN_WINDOW_DAYS}-day return window "
                        f"closed at {fake.iso(deadline)}.")
    item = ctx.db.execute("SELECT quantity, unit_price FROM order_items WHERE order_id = ? AND product_id = ?", (order_id, product_id)).fetchone()
    if item is None:
        raise ToolError(f"Product {product_id} is not part of order {order_id}; get_order('{order_id}') lists its items.")
    returned = ctx.db.execute("SELECT COALESCE(SUM(quantity), 0) FROM returns WHERE order_id = ? AND product_id = ? AND status != 'rejected'",
                              (order_id, product_id)).fetchone()[0]
    if quantity > item[0] - returned:
        raise ToolError(f"Order {order_id} has {item[0]} of {product_id} and {returned} already returned; "
                        f"at most {item[0] - returned} more can be returned.")
    share = 1 - (order["discount"] / order["subtotal"] if order["subtotal"] else 0)
    refund = round(item[1] * quantity * share, 2)
    return_id = next_id(ctx.db, "returns", "return_id", "RET")
    ctx.db.execute("INSERT INTO returns VALUES (?,?,?,?,?,?,?,?)",
                   (return_id, order_id, product_id, quantity, reason, "requested", refund, fake.iso(ctx.now)))
    return {"return_id": return_id, "order_id": order_id, "product_id": product_id, "quantity": quantity,
            "status": "requested", "refund_amount": refund}


@shopping.write(returns=("address",))
def add_address(ctx: Ctx, customer_id: CustomerId,
                street: Annotated[str, Field(min_length=3, max_length=120, description="Street and number, e.g. '742 Oak Ave'")],
                city: Annotated[str, Field(min_length=2, max_length=60, description="City, e.g. 'Denver'")],
                state: Annotated[str, Field(pattern=r"^[A-Z]{2}$", description="Two-letter state code, e.g. 'CO'")],
                zip: Annotated[str, Field(pattern=r"^\d{5}$", description="Five-digit ZIP code, e.g. '80203'")],
                label: Annotated[str, Field(min_length=1, max_length=40, description="A name for it, e.g. 'Work'")] = "Home",
                make_default: Annotated[bool, Field(description="Use it as the default shipping address")] = False) -> dict[str, Any]:
    """Save a shipping address for a customer, e.g. add_address('CUS-0042', '742 Oak Ave', 'Denver', 'CO', '80203', 'Work').

    A customer keeps at most 10 addresses; labels are unique per customer."""
    _customer(ctx, customer_id)
    existing = rows(ctx.db.execute("SELECT label FROM addresses WHERE customer_id = ?", (customer_id,)))
    if len(existing) >= 10:
        raise ToolError(f"{customer_id} already has 10 saved addresses, the maximum.")
    if any(e["label"].lower() == label.strip().lower() for e in existing):
        raise ToolError(f"{customer_id} already has an address labelled {label!r}; choose another label.")
    if not street.strip() or not city.strip() or not label.strip():
        raise ToolError("Street, city and label must not be blank.")
    address_id = next_id(ctx.db, "addresses", "address_id", "ADR")
    default = make_default or not existing
    if default:
        ctx.db.execute("UPDATE addresses SET is_default = 0 WHERE customer_id = ?", (customer_id,))
    ctx.db.execute("INSERT INTO addresses VALUES (?,?,?,?,?,?,?,?)",
                   (address_id, customer_id, label.strip(), street.strip(), city.strip(), state, zip, 1 if default else 0))
    return {"address_id": address_id, "customer_id": customer_id, "label": label.strip(), "is_default": default}


@shopping.write(returns=("product",))
def add_to_wishlist(ctx: Ctx, customer_id: CustomerId, product_id: ProductId) -> dict[str, Any]:
    """Save a product to a customer's wishlist, e.g. add_to_wishlist('CUS-0042', 'PRD-0017'); out-of-stock products are fine."""
    _customer(ctx, customer_id)
    product = _product(ctx, product_id)
    if product["status"] != "active":
        raise ToolError(f"Product {product_id} is discontinued and cannot be wishlisted.")
    if ctx.db.execute("SELECT 1 FROM wishlist_items WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)).fetchone():
        raise ToolError(f"{product_id} is already on {customer_id}'s wishlist.")
    if ctx.db.execute("SELECT COUNT(*) FROM wishlist_items WHERE customer_id = ?", (customer_id,)).fetchone()[0] >= 50:
        raise ToolError(f"{customer_id}'s wishlist is full (50 items).")
    ctx.db.execute("INSERT INTO wishlist_items VALUES (?,?,?)", (customer_id, product_id, fake.iso(ctx.now)))
    return {"customer_id": customer_id, "product_id": product_id, "wishlisted": True}


@shopping.write(returns=("review",))
def write_review(ctx: Ctx, customer_id: CustomerId, product_id: ProductId,
                 rating: Annotated[int, Field(ge=1, le=5, description="Stars, 1 to 5")],
                 title: Annotated[str, Field(min_length=1, max_length=100, description="A short headline, e.g. 'Great sound'")],
                 body: Annotated[str, Field(max_length=2000, description="The review text")] = "") -> dict[str, Any]:
    """Review a product the customer has received in a delivered order, once per product, e.g. write_review('CUS-0042', 'PRD-0017', 5, 'Great').

    Updates the product's average rating."""
    _customer(ctx, customer_id)
    _product(ctx, product_id)
    if not title.strip():
        raise ToolError("The review title must not be blank.")
    bought = ctx.db.execute("SELECT 1 FROM orders o JOIN order_items oi USING (order_id) WHERE o.customer_id = ? "
                            "AND oi.product_id = ? AND o.status = 'delivered'", (customer_id, product_id)).fetchone()
    if not bought:
        raise ToolError(f"{customer_id} has no delivered order containing {product_id}; only verified buyers can review. "
                        "list_orders(customer_id=..., status='delivered') shows what they received.")
    if ctx.db.execute("SELECT 1 FROM reviews WHERE customer_id = ? AND product_id = ?", (customer_id, product_id)).fetchone():
        raise ToolError(f"{customer_id} has already reviewed {product_id}.")
    review_id = next_id(ctx.db, "reviews", "review_id", "REV")
    ctx.db.execute("INSERT INTO reviews VALUES (?,?,?,?,?,?,?,?)",
                   (review_id, product_id, customer_id, rating, title.strip(), body, 1, fake.iso(ctx.now)))
    avg, n = ctx.db.execute("SELECT ROUND(AVG(rating), 2), COUNT(*) FROM reviews WHERE product_id = ?", (product_id,)).fetchone()
    ctx.db.execute("UPDATE products SET rating = ?, review_count = ? WHERE product_id = ?", (avg, n, product_id))
    return {"review_id": review_id, "product_id": product_id, "rating": rating, "product_rating": avg, "review_count": n}


server = shopping
