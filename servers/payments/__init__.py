"""Payments: merchants, their customers, invoices, payments, refunds and webhooks.

Business rules: an invoice moves draft -> open -> paid, or draft/open -> void; paid and void are
final, and an open invoice that already took money cannot be voided. Only open invoices take
payments, never more than the amount still due; the invoice becomes paid when fully covered by
pending or settled payments. Refunds apply only to settled payments and never exceed what is
left unrefunded; a fully refunded payment becomes 'refunded'. Customers belong to one merchant
and are invoiced only by it. Webhook endpoints are https URLs (at most 5 per merchant, no
duplicates); every invoice or payment event is recorded as a delivery to each active endpoint of
the merchant subscribed to that event type.
"""

from __future__ import annotations

from servers.payments import (  # noqa: F401  (registers the tools and intents)
    intents,
    intents_again,
    intents_corrections,
    intents_followups,
    intents_invoices,
    intents_lookups,
    intents_merchant,
    tools_write,
)
from servers.payments.schema import SCHEMA
from servers.payments.seed import seed
from servers.payments.tools import payments

__all__ = ["SCHEMA", "seed", "server"]

server = payments
