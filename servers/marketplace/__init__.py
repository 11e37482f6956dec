"""Marketplace: a peer-to-peer market of auction and fixed-price listings, bids and offers between users.

Business rules: only active seller accounts create listings; suspended users cannot bid, offer or
sell; nobody bids or offers on their own listing; bids go only to active auctions whose end time
(relative to now) has not passed, and must be at least the starting price, or beat the current
highest bid by the listing's minimum increment; the highest bidder cannot outbid themselves; offers
go only to active fixed-price listings, at least half the asking price, one pending offer per buyer
and listing; only the listing's seller updates, closes or accepts offers on it; an auction with bids
keeps its price and end time; closing an auction sells it to the highest bidder when the reserve is
met, and accepting an offer sells a fixed-price listing and declines the other pending offers.
"""

from servers.marketplace import intents, intents_buying, intents_followups, intents_sellers, intents_selling  # noqa: F401  (registers the intents)
from servers.marketplace.tools import marketplace as server

__all__ = ["server"]
