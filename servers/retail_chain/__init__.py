"""Retail chain: a home-improvement chain's inventory across stores and distribution centers in many cities.

Stock is held per location (on hand, reserved for pickup, reorder point); available = on hand - reserved.
Business rules: a transfer moves at most what the source has available (at most 500 units) between two
different locations that both carry or can take the product, and a closed location cannot receive
transfers or restocks; discontinued products cannot be restocked; pickup reservations are only at
open retail stores (not distribution centers), for at most 5 units of what is available, and hold the
units for 48 hours; only an active reservation can be cancelled, which releases its units.
"""

from servers.retail_chain import intents, intents_actions, intents_followups, intents_lookups  # noqa: F401
from servers.retail_chain.tools import retail_chain as server

__all__ = ["server"]
