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

from servers.shopping import intents_after, intents_buying, intents_followups, intents_paths, tools_cart, tools_write  # noqa: F401  (registers the tools and intents)
from servers.shopping.tools import shopping as server

__all__ = ["server"]
