"""The shopping SQLite schema and the store's rules both seed and tools need."""

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


PAYMENT_METHODS = ("card", "paypal", "gift_card")
RETURN_WINDOW_DAYS = 30
FREE_SHIPPING_FROM = 50.0
SHIPPING_FEE = 5.99
MAX_PER_PRODUCT = 10
