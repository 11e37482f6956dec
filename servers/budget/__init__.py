"""Budget: a household's expenses by category, monthly limits, running month totals, alerts and
recurring expenses.

Business rules: every expense belongs to an existing category and has a positive amount, dated
today or in the past year (no future expenses; schedule those as recurring). Each expense adds to
its category's running total for that month; crossing 80% of the monthly limit raises a 'warning'
alert and crossing 100% an 'exceeded' alert (once per category and month). A category with a
hard limit refuses an expense that would take the month over the limit. Category names are
unique (case-insensitive); a category that still has expenses or active recurring expenses can
only be deleted by moving them to another category. Recurring expenses post every occurrence up
to today at once and then wait for their next date; monthly ones run on days 1 to 28.
"""

from servers.budget import intents_categories, intents_expenses, intents_followups, intents_reviews  # noqa: F401  (registers them)
from servers.budget.tools import budget as server

__all__ = ["server"]
