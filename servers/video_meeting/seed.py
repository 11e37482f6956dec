"""The video meeting seed: 150 users, ~700 meetings (60 days back to 30 ahead, a dozen live now),
~4,000 participants and ~150 recordings.

A meeting's participants and recording are drawn right after the meeting itself: the order of the
draws from ``rng`` is part of the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hub.kit import Row, fake, insert_rows
from servers.video_meeting.schema import PLAN_CAPACITY

DEPARTMENTS = ("Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Design", "Support", "Legal")
TITLES = (
    "Weekly team sync",
    "Sprint planning",
    "Customer demo: {c}",
    "Quarterly business review",
    "Design critique",
    "1:1 check-in",
    "Hiring panel",
    "Incident review",
    "Town hall",
    "Onboarding: new hires",
    "Vendor pitch: {c}",
    "Roadmap walkthrough",
    "Sales kickoff",
    "Board prep",
    "Training: security basics",
    "Partner call: {c}",
    "Retrospective",
    "Office hours",
    "Product launch rehearsal",
    "Budget review",
)
AGENDAS = (
    "Status updates, blockers, next steps.",
    "Walk through the deck and collect feedback.",
    "Review metrics and decide on priorities.",
    "Q&A with leadership.",
    "Demo of the new release, then open discussion.",
    "Go through open action items.",
)
CANCEL_REASONS = ("Host unavailable", "Moved to email", "Duplicate invite", "Rescheduled")


@dataclass
class Rows:
    """The users and the rows drawn so far, meeting by meeting."""

    rng: random.Random
    now: datetime
    users: list[Row]
    meetings: list[Row] = field(default_factory=list)
    participants: list[Row] = field(default_factory=list)
    recordings: list[Row] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [u[0] for u in self.users]

    def plan(self, user_id: str) -> str:
        return str(self.users[int(user_id[4:]) - 1][4])


@dataclass
class Slot:
    """One seeded meeting as its participants and recording need it."""

    meeting_id: str
    host: str
    status: str
    capacity: int
    guests: list[str]
    started: datetime
    ended: datetime

    @property
    def happened(self) -> bool:
        return self.status in ("ended", "live")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """Users, then meetings with their participants and recordings, numbered in schedule order."""
    out = Rows(rng, now, users(rng))
    schedule(out)
    # Ids follow the schedule: sort by start and renumber, keeping references consistent.
    order = sorted(out.meetings, key=lambda m: (m[4], m[0]))
    renum = {m[0]: f"MTG-{n:04d}" for n, m in enumerate(order, 1)}
    insert_rows(db, "users", out.users)
    insert_rows(db, "meetings", [(renum[m[0]], *m[1:]) for m in out.meetings])
    insert_rows(db, "participants", [(renum[p[0]], *p[1:]) for p in out.participants], or_ignore=True)
    insert_rows(db, "recordings", [(r[0], renum[r[1]], *r[2:]) for r in out.recordings])


def users(rng: random.Random) -> list[Row]:
    found = []
    for i in range(1, 151):
        first, last = fake.person(rng)
        email = f"{first.lower()}.{last.lower()}{i}@{rng.choice(fake.EMAIL_DOMAINS)}"
        department = rng.choice(DEPARTMENTS)
        plan = rng.choices(("basic", "pro", "business"), (45, 38, 17))[0]
        found.append((f"USR-{i:04d}", f"{first} {last}", email, department, plan))
    return found


def schedule(out: Rows) -> None:
    """Past meetings (mostly ended), a dozen live now, some starting soon, and the coming month."""
    rng, now = out.rng, out.now
    for _ in range(360):
        day = now - timedelta(days=rng.randint(1, 60))
        start = day.replace(hour=rng.randint(7, 18), minute=rng.choice((0, 15, 30, 45)))
        # A 'scheduled' meeting in the past was missed.
        meeting(out, rng.choices(("ended", "cancelled", "scheduled"), (91, 6, 3))[0], start)
    live_hosts: set[str] = set()
    for _ in range(14):
        host = rng.choice([i for i in out.ids if i not in live_hosts])
        live_hosts.add(host)
        meeting(out, "live", now - timedelta(minutes=rng.choice((5, 10, 15, 20, 30, 40))), host)
    for _ in range(10):
        meeting(out, "scheduled", now + timedelta(minutes=rng.choice((15, 30, 45, 60))))
    for _ in range(240):
        day = now + timedelta(days=rng.randint(0, 30))
        start = day.replace(hour=rng.randint(10, 18), minute=rng.choice((0, 15, 30, 45)))
        meeting(out, rng.choices(("scheduled", "cancelled"), (93, 7))[0], start)


def meeting(out: Rows, status: str, start: datetime, host: str | None = None) -> None:
    """One meeting row, then its participants and maybe a recording."""
    rng, now = out.rng, out.now
    host = host or rng.choice(out.ids)
    mid = f"MTG-{len(out.meetings) + 1:04d}"
    minutes = rng.choice((15, 30, 30, 45, 60, 60, 90, 120))
    cap = PLAN_CAPACITY[out.plan(host)] if rng.random() < 0.75 else rng.choice((4, 6, 8, 10, 25, 50))
    guests = [g for g in rng.sample(out.ids, rng.randint(1, 7)) if g != host][: cap - 1]
    title = rng.choice(TITLES).format(c=rng.choice(fake.COMPANIES))
    slot = Slot(mid, host, status, cap, guests, start + timedelta(minutes=rng.randint(-5, 8)), start)
    slot.ended = slot.started + timedelta(minutes=max(5, minutes + rng.randint(-15, 20)))
    started_s = fake.iso(slot.started) if slot.happened else None
    ended_s = fake.iso(slot.ended) if status == "ended" else None
    reason = rng.choice(CANCEL_REASONS) if status == "cancelled" else None
    created = min(start, now) - timedelta(days=rng.randint(1, 20), minutes=rng.randint(0, 900))
    agenda = rng.choice(AGENDAS)
    code = f"{rng.randint(100, 999)}-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}"
    out.meetings.append(
        (
            mid,
            host,
            title,
            agenda,
            fake.iso(start),
            minutes,
            cap,
            status,
            started_s,
            ended_s,
            code,
            reason,
            fake.iso(created),
        )
    )
    cohost = guests[0] if guests and rng.random() < 0.3 else None
    out.participants.append((mid, host, "host", 1, started_s, ended_s))
    participants(out, slot, cohost)
    if slot.happened and out.plan(host) != "basic" and rng.random() < 0.45:
        recording(out, slot, rng.choice([host] + ([cohost] if cohost else [])))


def participants(out: Rows, slot: Slot, cohost: str | None) -> None:
    """The invitees and, for a meeting that happened, a few walk-ins; who joined and who left."""
    rng, now = out.rng, out.now
    walkins = []
    if slot.happened:
        walkins = [w for w in rng.sample(out.ids, rng.randint(0, 2)) if w != slot.host and w not in slot.guests]
    inside = 1
    for g in slot.guests + walkins:
        joined = left = None
        if slot.happened and rng.random() < 0.8 and inside < slot.capacity:
            j = slot.started + timedelta(minutes=rng.randint(0, 10))
            joined = fake.iso(min(j, now - timedelta(minutes=1)))
            if slot.status == "ended":
                left = fake.iso(max(j, slot.ended - timedelta(minutes=rng.randint(0, 10))))
            elif rng.random() < 0.15:
                left = fake.iso(min(j + timedelta(minutes=rng.randint(1, 20)), now - timedelta(minutes=1)))
            else:
                inside += 1
        role = "cohost" if g == cohost else "attendee"
        out.participants.append((slot.meeting_id, g, role, int(g in slot.guests), joined, left))


def recording(out: Rows, slot: Slot, by: str) -> None:
    """A ready recording of an ended meeting, or one still running in a live meeting."""
    rng, now = out.rng, out.now
    rec_id = f"REC-{len(out.recordings) + 1:04d}"
    r0 = slot.started + timedelta(minutes=rng.randint(0, 5))
    if slot.status != "ended":
        out.recordings.append(
            (rec_id, slot.meeting_id, by, fake.iso(min(r0, now - timedelta(minutes=1))), None, None, None, "recording")
        )
        return
    r1 = max(r0 + timedelta(minutes=1), slot.ended - timedelta(minutes=rng.randint(0, 5)))
    secs = int((r1 - r0).total_seconds())
    size = round(secs * rng.uniform(0.08, 0.2), 1)
    out.recordings.append((rec_id, slot.meeting_id, by, fake.iso(r0), fake.iso(r1), secs, size, "ready"))
