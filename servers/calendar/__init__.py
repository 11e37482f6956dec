"""Calendar: people, their calendars, events, invitees with RSVPs, and recurring series.

All times are office-local wall-clock times ('YYYY-MM-DDTHH:MM:SS', no time zones); "now" is the
world's fixed reference time (2026-06-01T09:00, a Monday, in the default world). An event belongs to
one calendar and is organised by that calendar's owner. A recurring event is a series: its first
occurrence is the event's own start/end and a rule (daily, weekly or monthly, every `interval`,
optionally on given weekdays, ending after `count` occurrences or on an `until` date, or never)
expands it; single occurrences can be cancelled without cancelling the series.

Business rules: an event ends after it starts and lasts at most 7 days; new events and new times
cannot lie in the past; a past event (a series whose last occurrence has ended) cannot be changed,
cancelled or answered; a cancelled event stays cancelled; only invitees RSVP (the organiser does
not); an invitee is listed once; a time change resets invitees' answers to 'needs_action'; when a
tool is asked to check conflicts it refuses to double-book the organiser or any attending invitee
(declined invitees and cancelled events don't count as busy).
"""

from servers.calendar import (  # noqa: F401  (registers the tools and intents)
    intents,
    intents_booking,
    intents_changes,
    intents_followups,
    intents_guests,
    intents_looking,
    tools_read,
    tools_write,
)
from servers.calendar.tools import calendar as server

__all__ = ["server"]
