"""Trading: brokerage portfolios, cash, positions, orders, market data and a live order book.

Business rules: limit orders rest in the book until they fill or are cancelled; market orders and
crossing limit orders fill immediately against the opposite side of the book in price-time priority
(best price first, then oldest, then lowest order id) at the resting order's price, never against
the same portfolio's own orders. A buy needs available cash (cash minus what open buy orders
reserve at their limit price); a sell needs available shares (held minus what open sell orders
reserve); there is no short selling. A market order the book cannot fill completely is rejected.
Limit prices must lie within 25% of the last traded price. Frozen portfolios can deposit but cannot
trade or withdraw. Only open or partially filled orders can be cancelled; filled and cancelled
orders are final.
"""

from servers.trading import intents, intents_followups, intents_orders, intents_trades  # noqa: F401  (registers the intents)
from servers.trading.tools import trading as server

__all__ = ["server"]
