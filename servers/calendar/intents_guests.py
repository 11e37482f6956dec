"""Calendar intents about the people of a meeting: guests brought in or taken off, invitations answered, whether
a colleague is free (helpers in ``intents``)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day
from servers.calendar.intents import (
    LIVE,
    NOT_PERSONAL,
    ONE_OFF,
    UNIQUE_NAME,
    WORDS,
    _iso,
    colleague,
    find_me,
    find_other,
    first_name,
    hi,
    me,
    next_day,
    pick,
    remember,
    the_meeting,
    workday,
)
from servers.calendar.intents_changes import _found, _mine_to_change
from servers.calendar.tools import calendar

# Guests and answers --------------------------------------------------------------------------------


@calendar.intent(covers=("list_events", "search_users", "add_invitee", "get_free_busy"), weight=1.2, follows=True)
def bring_someone_in(s: Scene) -> None:
    """The organiser adds a colleague to a meeting (found by its title and day, or the one the dialogue is
    about), then maybe checks they are free."""
    known = the_meeting(s)
    if known is not None and s.rng.random() < 0.8:
        ev = dict(known)
        organizer_id = ev["organizer_id"]
        what = None
    else:
        ev = pick(
            s,
            f"SELECT e.*, u.name AS organizer FROM events e JOIN users u ON u.user_id = e.organizer_id WHERE "
            f"e.{LIVE} AND e.{ONE_OFF} AND e.start > ? AND e.start < ? AND u.{UNIQUE_NAME} AND {NOT_PERSONAL} "
            "AND (? IS NULL OR e.organizer_id = ?) AND (? IS NULL OR u.name = ?)",
            _iso(s.now),
            _iso(s.now + timedelta(days=21)),
            *[(s.memory.get("me") or {}).get("user_id")] * 2,
            *[s.speaker] * 2,
        )
        same = s.value(
            "SELECT COUNT(*) FROM events WHERE (title LIKE '%' || ? || '%' OR location LIKE '%' || ? || '%') "
            "AND substr(start, 1, 10) = ?",
            ev["title"],
            ev["title"],
            ev["start"][:10],
        )
        if same != 1:
            raise Skip("a title search that day would list other meetings too")
        s.be(ev["organizer"])
        organizer_id = ev["organizer_id"]
        d = ev["start"][:10]
        what = s.refer(
            ev["event_id"],
            Ref(
                "my {t} {d}", "SELECT event_id FROM events WHERE title = ? AND substr(start, 1, 10) = ?", ev["title"], d
            ),
            t=ev["title"],
            d=day(d, s.now),
        )
    other, named = colleague(
        s,
        "user_id != ? AND user_id NOT IN (SELECT user_id FROM invitees WHERE event_id = ?)",
        organizer_id,
        ev["event_id"],
    )
    optional = s.rng.random() < 0.3
    if what is None:
        s.say(
            "Add {who} to it" + (", just as optional." if optional else "."),
            "{who} should be in that one too" + (" (optional is fine)." if optional else ", send an invite."),
            "Can you get {who} onto it as well?" + (" They don't have to come." if optional else ""),
            who=named,
        )
    else:
        s.say(
            "Add {who} to {what}" + (", just as optional." if optional else "."),
            "{who} should be in {what} too" + (" (optional is fine)." if optional else ", please send an invite."),
            "Can you get {who} onto {what}?" + (" They don't have to come." if optional else ""),
            minimal=["{who} needs to be in {what}."],
            who=named,
            what=what,
        )
        d = ev["start"][:10]
        found = s.call("list_events", query=ev["title"], starts_after=d, starts_before=next_day(d))["events"]
        if [e["event_id"] for e in found] != [ev["event_id"]]:
            raise Skip("the listing is ambiguous")
        remember(s, found[0], "organizer")
    them = find_other(s, other)
    args: dict[str, Any] = {"event_id": ev["event_id"], "user_id": them["user_id"]}
    if optional and not s.minimal:
        args["optional"] = True
    s.call("add_invitee", **args)
    if not s.room() or s.rng.random() < 0.5:
        return
    s.say(WORDS.bring_someone_in, f=first_name(other["name"]))
    s.call("get_free_busy", user_id=them["user_id"], date=ev["start"][:10])


@calendar.intent(
    covers=("search_users", "list_events", "list_upcoming_events", "get_event", "remove_invitee"), follows=True
)
def trim_guest_list(s: Scene) -> None:
    """The organiser reviews who is invited to a meeting, then maybe takes someone off."""
    extra = "(SELECT COUNT(*) FROM invitees i WHERE i.event_id = events.event_id) >= 2"
    u, ev, what, how = _mine_to_change(s, extra)
    if what is None:
        s.asked("get_event", event_id=ev["event_id"])
        s.say(WORDS.trim_guest_list_ask_that_one)
    else:
        s.say(WORDS.trim_guest_list_ask_named, hi=hi(s, u), what=what)
    found = _found(s, u, ev, how)
    full = s.call("get_event", event_id=found["event_id"])
    remember(s, full, "organizer")
    if not s.room(calls=1) or s.rng.random() < 0.3:
        return
    guest = s.rng.choice(full["invitees"])
    if sum(g["name"] == guest["name"] for g in full["invitees"]) > 1:
        raise Skip("two guests share the name")
    s.say(WORDS.trim_guest_list, g=guest["name"])
    s.call("remove_invitee", event_id=found["event_id"], user_id=guest["user_id"])


RESPONSE_WORDS = {"accepted": "a yes", "declined": "a no", "tentative": "a maybe"}


@calendar.intent(
    covers=("search_users", "list_upcoming_events", "list_events", "respond_to_invite", "get_event"),
    weight=1.3,
    follows=True,
)
def answer_invite(s: Scene) -> None:
    """An invitee accepts, declines or tentatively answers a meeting they were asked to."""
    lo, hi_ = _iso(s.now), _iso(s.now + timedelta(days=14))
    known = s.memory.get("event")
    if known and known["role"] == "invitee" and "me" in s.memory and s.rng.random() < 0.8:
        u = me(s)
        rows = s.rows(
            "SELECT e.*, i.response FROM events e JOIN invitees i USING (event_id) WHERE e.event_id = ? "
            f"AND i.user_id = ? AND e.{LIVE} AND e.start > ?",
            known["event_id"],
            u["user_id"],
            lo,
        )
        if not rows:
            raise Skip("the meeting of the dialogue cannot be answered")
        ev, what = rows[0], None
    else:
        u = me(
            s,
            "user_id IN (SELECT i.user_id FROM invitees i JOIN events e USING (event_id) WHERE e.start > ? "
            "AND e.start < ? AND e.status != 'cancelled' AND e.event_id NOT IN (SELECT event_id FROM recurrences))",
            lo,
            hi_,
        )
        ev = pick(
            s,
            "SELECT e.*, i.response, o.name AS organizer FROM events e JOIN invitees i USING (event_id) "
            "JOIN users o ON o.user_id = e.organizer_id WHERE i.user_id = ? AND e.start > ? AND e.start < ? AND "
            f"e.{LIVE} AND e.{ONE_OFF}",
            u["user_id"],
            lo,
            hi_,
        )
        d = ev["start"][:10]
        what = s.refer(
            ev["event_id"],
            Ref(
                "the {t} {d}",
                "SELECT e.event_id FROM events e JOIN invitees i USING (event_id) WHERE "
                "i.user_id = ? AND e.title = ? AND substr(e.start, 1, 10) = ?",
                u["user_id"],
                ev["title"],
                d,
            ),
            Ref(
                "{o}'s {t} {d}",
                "SELECT e.event_id FROM events e JOIN invitees i USING (event_id) WHERE "
                "i.user_id = ? AND e.title = ? AND substr(e.start, 1, 10) = ? AND e.organizer_id = ?",
                u["user_id"],
                ev["title"],
                d,
                ev["organizer_id"],
            ),
            t=ev["title"],
            d=day(d, s.now),
            o=ev["organizer"],
        )
    answer = s.rng.choice([r for r in ("accepted", "declined", "tentative") if r != ev["response"]])
    reply = s.given(answer, RESPONSE_WORDS[answer], "answer", "respond_to_invite", "response")
    if what is None:
        s.say(WORDS.answer_invite_that_one, r=reply)
        uid = s.memory["me"]["user_id"]
    else:
        s.say(WORDS.answer_invite_named, hi=hi(s, u), what=what, r=reply)
        uid = find_me(s, u)["user_id"]
        if s.rng.random() < 0.5:
            days = (date.fromisoformat(ev["start"][:10]) - s.now.date()).days + 1
            out = s.call("list_upcoming_events", user_id=uid, days=max(days, 1), include_declined=True, limit=100)
            listed = out["occurrences"]
        else:
            d = ev["start"][:10]
            listed = s.call("list_events", invitee_id=uid, query=ev["title"], starts_after=d, starts_before=next_day(d))
            listed = listed["events"]
        if ev["event_id"] not in [o["event_id"] for o in listed]:
            raise Skip("the invitation is not in the listing")
        remember(s, ev, "invitee")
    s.call("respond_to_invite", event_id=ev["event_id"], user_id=uid, response=answer)
    if not s.room() or s.rng.random() < 0.6:
        return
    s.say(WORDS.answer_invite)
    s.call("get_event", event_id=ev["event_id"])


@calendar.intent(covers=("search_users", "get_free_busy", "find_free_slot"), follows=True)
def is_she_free(s: Scene) -> None:
    """Someone checks a colleague's day, then maybe looks for a half hour both of them have free that day."""
    u = me(s)
    other, named = colleague(s, "user_id != ?", u["user_id"])
    d = workday(s, 0, 10)
    when = s.given(d.isoformat(), day(d, s.now), "day", "get_free_busy", "date")
    s.say(WORDS.is_she_free, hi=hi(s, u), who=named, day=when)
    them = find_other(s, other)
    s.call("get_free_busy", user_id=them["user_id"], date=d.isoformat())
    s.memory["day"] = d.isoformat()
    if not s.room(calls=2) or s.rng.random() < 0.5:
        return
    s.say(WORDS.is_she_free_shared_gap)
    mine = find_me(s, u)
    s.call(
        "find_free_slot",
        user_ids=[mine["user_id"], them["user_id"]],
        duration_minutes=30,
        from_date=d.isoformat(),
        days=1,
    )
