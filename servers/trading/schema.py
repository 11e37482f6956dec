"""Trading tables: symbols with daily bars, portfolios with cash movements and positions, orders (the book is
the open ones) and the trades that filled them."""

SCHEMA = """
CREATE TABLE symbols (
    symbol TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    sector TEXT NOT NULL,
    exchange TEXT NOT NULL,
    last_price REAL NOT NULL,
    prev_close REAL NOT NULL
);
CREATE TABLE price_history (
    symbol TEXT NOT NULL REFERENCES symbols(symbol),
    date TEXT NOT NULL,
    open REAL NOT NULL,
    high REAL NOT NULL,
    low REAL NOT NULL,
    close REAL NOT NULL,
    volume INTEGER NOT NULL,
    PRIMARY KEY (symbol, date)
);
CREATE TABLE portfolios (
    portfolio_id TEXT PRIMARY KEY,
    owner_name TEXT NOT NULL,
    email TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('individual', 'joint', 'retirement', 'market_maker')),
    status TEXT NOT NULL CHECK (status IN ('active', 'frozen')),
    cash REAL NOT NULL,
    opened_at TEXT NOT NULL
);
CREATE TABLE cash_movements (
    movement_id TEXT PRIMARY KEY,
    portfolio_id TEXT NOT NULL REFERENCES portfolios(portfolio_id),
    kind TEXT NOT NULL CHECK (kind IN ('deposit', 'withdrawal')),
    amount REAL NOT NULL,
    cash_after REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX cash_movements_portfolio ON cash_movements(portfolio_id, created_at);
CREATE TABLE positions (
    portfolio_id TEXT NOT NULL REFERENCES portfolios(portfolio_id),
    symbol TEXT NOT NULL REFERENCES symbols(symbol),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    avg_cost REAL NOT NULL,
    PRIMARY KEY (portfolio_id, symbol)
);
CREATE TABLE orders (
    order_id TEXT PRIMARY KEY,
    portfolio_id TEXT NOT NULL REFERENCES portfolios(portfolio_id),
    symbol TEXT NOT NULL REFERENCES symbols(symbol),
    side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
    type TEXT NOT NULL CHECK (type IN ('market', 'limit')),
    quantity INTEGER NOT NULL,
    limit_price REAL,
    filled_quantity INTEGER NOT NULL DEFAULT 0,
    avg_fill_price REAL,
    status TEXT NOT NULL CHECK (status IN ('open', 'partially_filled', 'filled', 'cancelled')),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX orders_book ON orders(symbol, side, status, limit_price);
CREATE INDEX orders_portfolio ON orders(portfolio_id, created_at);
CREATE TABLE trades (
    trade_id TEXT PRIMARY KEY,
    symbol TEXT NOT NULL,
    price REAL NOT NULL,
    quantity INTEGER NOT NULL,
    buy_order_id TEXT,
    sell_order_id TEXT,
    buyer_portfolio_id TEXT NOT NULL,
    seller_portfolio_id TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX trades_buy ON trades(buy_order_id);
CREATE INDEX trades_sell ON trades(sell_order_id);
"""

PRICE_BAND = 0.25


def tick(price: float) -> float:
    """A price rounded to the cent, at least one cent."""
    return round(max(0.01, price), 2)
