"""Video meetings: users on plans, scheduled meetings, live participants and cloud recordings.

A meeting is scheduled by its host for a slot (start + duration), goes live when the host starts
it, people join while it is live, and it ends when the host (or a co-host) ends it. "Now" is the
world's fixed reference time (2026-06-01T09:00 in the default world).

Business rules: only the host starts a meeting, the host or a co-host records and ends it; a
meeting can be started from 60 minutes before its slot until the slot is over, once (an ended or
cancelled meeting never restarts, a missed slot means scheduling a new meeting); a host runs one
live meeting at a time and cannot double-book their own slots; people join only live meetings, at
most `capacity` at once, and capacity is capped by the host's plan (basic 100, pro 300, business
1000); cloud recording needs a pro or business plan and exists only while a meeting is live;
ending a meeting stops its recording and moves everyone out.
"""

from servers.video_meeting import intents, intents_calendar, intents_followups, tools_write  # noqa: F401  (registers the write tools and the intents)
from servers.video_meeting.tools import video_meeting as server

__all__ = ["server"]
