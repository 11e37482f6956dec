"""CRM: sales owners, leads, accounts (companies), contacts, deals through a pipeline, and activities.

Business rules: a deal moves through prospecting -> qualification -> proposal -> negotiation ->
closed_won, one step forward or one step back at a time, and may be lost (closed_lost, with a
reason) from any open stage; closed deals cannot be reopened, re-staged or reassigned. Only
negotiation can be won. A lead goes new -> working -> qualified (or disqualified, with a reason;
a disqualified lead can be reworked); only a qualified lead can be converted, which creates a
contact and a prospecting deal under an existing account or a new one named after the lead's
company (an existing account of that name must be passed explicitly). Converted leads are final.
Records are owned by active sales reps only; inactive reps keep their history.
"""

from servers.crm import intents_deals, intents_followups, intents_leads, intents_people  # noqa: F401  (registers them)
from servers.crm.tools import crm as server

__all__ = ["server"]
