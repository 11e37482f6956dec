"""What people want of the calendar: an employee planning their week, booking, moving and answering meetings.

The user is an employee who says who they are (their name); the agent finds their user id and primary
calendar with ``search_users``, their events with ``list_events`` (organiser, title words, the day) or
``list_upcoming_events`` ("my next Design review"), and the occurrences of a series with ``list_occurrences``.
People name events by title and day ("my Design review on Thursday"), series by what they are ("my weekly
1:1 with Dana"), colleagues by name.

A dialogue keeps one employee (``memory["me"]``, their search row) and what it is about: the meeting
(``memory["event"]``: id, title, start, whether the employee organises it or is invited, whether it repeats),
a colleague (``memory["other"]``) and a day (``memory["day"]``). Most intents open a dialogue or continue
one ("also move it to 3 pm"); the short follow-ups in ``intents_followups`` ask about or adjust what the
dialogue is about.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, clock, day
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Search, Speaker
from servers.calendar import tools_read, tools_write  # noqa: F401  (tools before intents)
from servers.calendar.tools import UserId

WORDS = phrasings(__package__)

UNIQUE_NAME = "name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
PEOPLE = "SELECT user_id, name, email, department, title, office FROM users"
LIVE = "status != 'cancelled'"
ONE_OFF = "event_id NOT IN (SELECT event_id FROM recurrences)"
NOT_PERSONAL = "e.calendar_id NOT IN (SELECT calendar_id FROM calendars WHERE kind = 'personal')"
CANCEL_WHY = {
    "The customer cancelled": "the customer pulled out",
    "Organizer out sick": "I'm out sick",
    "No longer needed": "we don't need it anymore",
    "Conflicts with offsite": "it clashes with the offsite",
}
FREQ_WORDS = {"weekly": "every week", "daily": "every weekday", "monthly": "once a month"}
SPEAKER = Speaker(
    UserId,
    select=f"{PEOPLE} WHERE {UNIQUE_NAME}",
    memory="me",
    search=Search(missing="the person is not on the first page of the search"),
    keep=("primary_calendar_id",),
    late=True,
)
OPEN_HI = ("I'm {name}:", "{name} here,", "This is {name}:", "{name} here:")
FOLLOW_HI = ("Also,", "While you're at it,", "One more thing:", "Next,", "And")


PRISTINE: dict[tuple[Any, ...], list[dict[str, Any]]] = {}


def pristine_rows(s: Scene, sql: str, *params: Any) -> list[dict[str, Any]]:
    """``s.rows``, remembered per world while the dialogue has made no call: the fork is then the world's seed
    state, so an opener's first picks need not query it again on every draw."""
    if any(True for _ in s.calls):
        return s.rows(sql, *params)
    key = (s.server.name, s.world, sql, params)
    if key not in PRISTINE:
        if len(PRISTINE) > 4000:
            PRISTINE.clear()
        PRISTINE[key] = s.rows(sql, *params)
    return PRISTINE[key]


def pick(s: Scene, sql: str, *params: Any) -> dict[str, Any]:
    """``s.pick`` on ``pristine_rows``."""
    found = pristine_rows(s, sql, *params)
    if not found:
        raise Skip(f"no row fits: {sql[:80]}")
    return dict(s.rng.choice(found))


def hi(s: Scene, u: dict[str, Any]) -> str:
    """How a request starts: the employee says who they are when opening, links it to the last one when not."""
    if not s.turns:
        return s.rng.choice(OPEN_HI).format(name=u["name"])
    return s.rng.choice(FOLLOW_HI)


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The employee talking (``SPEAKER.me``); when an earlier turn named who talks without looking them up,
    that person."""
    if s.speaker is not None and not s.memory.get("me"):
        where, params = f"({where}) AND name = ?", (*params, s.speaker)
    return SPEAKER.me(s, where, *params)


def find_me(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    """The discovery call for the user's own id and primary calendar (``SPEAKER.find``, once per dialogue)."""
    SPEAKER.find(s, u)
    return dict(s.memory["me"])


def ask(s: Scene, u: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> dict[str, Any]:
    """A request of the employee (``{hi}``: who they are when opening), then the agent finding them (``find_me``)."""
    s.say(*phrasings, minimal=minimal, hi=hi(s, u), **slots)
    return find_me(s, u)


def find_user(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    hit = s.discover(UserId, u["user_id"], missing="the person is not on the first page of the search", query=u["name"])
    return dict(hit)


def find_other(s: Scene, u: dict[str, Any]) -> dict[str, Any]:
    """A colleague's search row, remembered as the colleague the dialogue is about."""
    found = find_user(s, u)
    s.memory["other"] = found
    return found


def colleague(s: Scene, where: str, *params: Any) -> tuple[dict[str, Any], str]:
    """Someone else, named so that exactly one person fits; in a follow-up, the colleague the dialogue is
    already about when they fit (then named by first name)."""
    known = s.memory.get("other")
    if known and s.rows(PEOPLE + f" WHERE user_id = ? AND ({where})", known["user_id"], *params):
        if s.rng.random() < 0.7:
            return dict(known), first_name(known["name"])
    u = pick(s, PEOPLE + f" WHERE ({where})", *params)
    text = s.refer(
        u["user_id"],
        Ref("{name}", "SELECT user_id FROM users WHERE name = ?", u["name"]),
        Ref(
            "{name} from {dept}",
            "SELECT user_id FROM users WHERE name = ? AND department = ?",
            u["name"],
            u["department"],
        ),
        Ref("{name} ({email})", "SELECT user_id FROM users WHERE email = ?", u["email"]),
        name=u["name"],
        dept=u["department"],
        email=u["email"],
    )
    return u, text


def first_name(name: str) -> str:
    return name.split(" ", 1)[0]


def remember(s: Scene, ev: dict[str, Any], role: str, recurring: bool = False) -> None:
    """The meeting the dialogue is now about, as the agent knows it."""
    s.memory["event"] = {
        "event_id": ev["event_id"],
        "title": ev["title"],
        "start": ev["start"],
        "end": ev["end"],
        "role": role,
        "recurring": recurring,
    }
    s.memory["day"] = ev["start"][:10]


def my_event(s: Scene, ev: dict[str, Any], owner: str) -> tuple[str, str]:
    """An event as its organiser recalls it, and how the agent should look it up: "my next Design review"
    (their upcoming meetings) or "my Design review on Thursday" (a listing by title and day)."""
    d = ev["start"][:10]
    slots = {"title": ev["title"], "day": day(d, s.now), "time": clock(ev["start"])}
    soon = ev["start"] < _iso(s.now + timedelta(days=14))
    series = s.rows(
        "SELECT 1 FROM events e JOIN recurrences USING (event_id) WHERE e.title = ? AND e.organizer_id = ?",
        ev["title"],
        owner,
    )
    if soon and not series and s.rng.random() < 0.4:
        try:
            text = s.refer(
                ev["event_id"],
                Ref(
                    "my next {title}",
                    f"SELECT event_id FROM events WHERE organizer_id = ? AND title = ? AND {LIVE} AND start > ? "
                    "ORDER BY start LIMIT 1",
                    owner,
                    ev["title"],
                    _iso(s.now),
                ),
                **slots,
            )
            return text, "next"
        except Skip:
            pass
    text = s.refer(
        ev["event_id"],
        Ref(
            "my {title} {day}",
            "SELECT event_id FROM events WHERE organizer_id = ? AND title = ? AND substr(start, 1, 10) = ?",
            owner,
            ev["title"],
            d,
        ),
        Ref(
            "my {title} {day} at {time}",
            "SELECT event_id FROM events WHERE organizer_id = ? AND title = ? AND start = ?",
            owner,
            ev["title"],
            ev["start"],
        ),
        **slots,
    )
    return text, "day"


def locate_mine(s: Scene, owner: str, ev: dict[str, Any], how: str = "day") -> dict[str, Any]:
    """Find one of the user's own events the way they described it: their next one of that title among what
    is coming up, or by title words and day."""
    if how == "next":
        days = min(60, max(1, (date.fromisoformat(ev["start"][:10]) - s.now.date()).days + 1))
        out = s.call("list_upcoming_events", user_id=owner, days=days)["occurrences"]
        same = [o for o in out if o["title"] == ev["title"] and o["role"] == "organizer"]
        if not same or same[0]["event_id"] != ev["event_id"]:
            raise Skip("their next one of that title is another")
        return dict(same[0])
    d = date.fromisoformat(ev["start"][:10])
    return s.find(
        "list_events",
        "events",
        "event_id",
        ev["event_id"],
        missing="the event is not in the listing",
        organizer_id=owner,
        query=ev["title"],
        starts_after=d.isoformat(),
        starts_before=(d + timedelta(days=1)).isoformat(),
    )


UPCOMING = f"SELECT * FROM events WHERE {LIVE} AND {ONE_OFF} AND start > ? AND start < ? AND ({{extra}})"


def organiser(s: Scene, extra: str = "1=1") -> dict[str, Any]:
    """The employee talking, as the organiser of some upcoming one-off meeting that fits ``extra``."""
    return me(s, "user_id IN (SELECT organizer_id FROM (" + UPCOMING.format(extra=extra) + "))", *_window(s))


def upcoming_mine(s: Scene, u: dict[str, Any], extra: str = "1=1") -> dict[str, Any]:
    """A one-off, not cancelled, future event the user organises (in the next four weeks)."""
    return pick(s, UPCOMING.format(extra=extra) + " AND organizer_id = ?", *_window(s), u["user_id"])


def the_meeting(s: Scene, extra: str = "1=1") -> dict[str, Any] | None:
    """The meeting the dialogue is about, when the employee organises it, it is a one-off still ahead and it fits
    ``extra`` (a follow-up then says "it")."""
    ev = s.memory.get("event")
    if not ev or ev["role"] != "organizer" or "me" not in s.memory:
        return None
    found = s.rows(UPCOMING.format(extra=extra) + " AND event_id = ?", *_window(s), ev["event_id"])
    return found[0] if found else None


def _window(s: Scene) -> tuple[str, str]:
    return _iso(s.now), _iso(s.now + timedelta(days=28))


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def workday(s: Scene, lo: int, hi: int) -> date:
    for _ in range(20):
        d = (s.now + timedelta(days=s.rng.randint(lo, hi))).date()
        if d.weekday() < 5:
            return d
    raise Skip("no workday drawn")


def next_day(d: str) -> str:
    return (date.fromisoformat(d[:10]) + timedelta(days=1)).isoformat()


def talking(s: Scene) -> dict[str, Any]:
    """The employee an earlier turn found (their search row)."""
    return dict(s.known("me", "no employee in the dialogue yet"))


def the_event(s: Scene) -> dict[str, Any]:
    """The meeting the dialogue is about (``remember``)."""
    return dict(s.known("event", "no meeting in the dialogue yet"))


def the_day(s: Scene) -> str:
    """The day the dialogue is about."""
    d = s.memory.get("day") or (s.memory.get("event") or {}).get("start", "")[:10]
    if not d:
        raise Skip("no day in the dialogue yet")
    return str(d)


def that_day(s: Scene, d: str) -> str:
    """How the user points at the dialogue's day again: "that day" or by its name."""
    return "that day" if s.rng.random() < 0.6 else day(d, s.now)


def running(s: Scene, extra: str = "1=1") -> dict[str, Any]:
    """``the_meeting``, or ``Skip``."""
    ev = the_meeting(s, extra)
    if ev is None:
        raise Skip("the dialogue is not about an upcoming one-off meeting the employee runs")
    return ev
