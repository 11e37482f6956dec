"""Banking: customers, accounts, balances, transfers, payees and cards.

Business rules: a debit beyond balance plus overdraft fails; frozen accounts take no
debits or credits; closed accounts take nothing and only an empty account closes;
a single transfer is capped at 25,000 USD; a locked or cancelled card stays so
until changed (cancelled is final).
"""

from servers.banking import intents_followups, intents_lookups, intents_money, intents_status  # noqa: F401  (registers)
from servers.banking.tools import banking as server

__all__ = ["server"]
