"""The calendar seed: 140 people, ~330 calendars, ~1,500 events with ~3,500 invitees and ~90 series.

Each kind of row comes from its own small function; the order of the draws from ``rng`` is part of the
seed's identity (the state hash), so the functions run in the order the rows depend on each other.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hub.kit import Row, fake, insert_rows
from servers.calendar.schema import (
    COLORS,
    DEPARTMENTS,
    JOB_TITLES,
    OFFICES,
    PERSONAL,
    ROOMS,
    TEAM_SERIES,
    VIDEO,
    WEEKDAYS,
    WORK_TOPICS,
)

CANCEL_REASONS = ("Organizer out sick", "Rescheduled", "No longer needed", "Conflicts with offsite")


@dataclass
class People:
    """The people and their calendars, with the lookups the events need."""

    users: list[Row]
    by_dept: dict[str, list[str]]
    calendars: list[Row] = field(default_factory=list)
    primary: dict[str, str] = field(default_factory=dict)
    personal: dict[str, str] = field(default_factory=dict)
    team: dict[str, str] = field(default_factory=dict)

    @property
    def names(self) -> dict[str, str]:
        return {u[0]: u[1] for u in self.users}

    @property
    def dept_of(self) -> dict[str, str]:
        return {u[0]: u[3] for u in self.users}


@dataclass
class Events:
    """Event rows and the rows that hang off them, filled in order (ids follow the list lengths)."""

    rng: random.Random
    now: datetime
    events: list[Row] = field(default_factory=list)
    invitees: list[Row] = field(default_factory=list)
    rules: list[Row] = field(default_factory=list)
    exdates: list[Row] = field(default_factory=list)

    @property
    def today(self) -> datetime:
        return self.now.replace(hour=0, minute=0, second=0, microsecond=0)

    def add(
        self,
        cal: str,
        org: str,
        title: str,
        desc: str,
        loc: str,
        start: datetime,
        minutes: int,
        guests: list[str],
        status: str | None = None,
    ) -> str:
        rng, now = self.rng, self.now
        eid = f"EVT-{len(self.events) + 1:05d}"
        end = start + timedelta(minutes=minutes)
        if status is None:
            status = rng.choices(("confirmed", "tentative", "cancelled"), (86, 8, 6))[0]
        reason = rng.choice(CANCEL_REASONS) if status == "cancelled" else None
        created = min(start, now) - timedelta(days=rng.randint(1, 30), minutes=rng.randint(0, 600))
        self.events.append(
            (
                eid,
                cal,
                org,
                title,
                desc,
                loc,
                _iso(start),
                _iso(end),
                status,
                reason,
                _iso(created),
                _iso(created + timedelta(hours=rng.randint(0, 48))),
            )
        )
        for g in guests:
            self.invitees.append(self.invitee(eid, g, end, created))
        return eid

    def invitee(self, eid: str, guest: str, end: datetime, created: datetime) -> Row:
        rng, now = self.rng, self.now
        weights = (70, 12, 8, 10) if end <= now else (40, 10, 10, 40)
        resp = rng.choices(("accepted", "declined", "tentative", "needs_action"), weights)[0]
        when = (
            None
            if resp == "needs_action"
            else _iso(min(now - timedelta(minutes=5), created + timedelta(hours=rng.randint(1, 72))))
        )
        return (eid, guest, resp, 1 if rng.random() < 0.1 else 0, when)

    def workday_slot(self, day_offset_lo: int, day_offset_hi: int, minutes: int) -> datetime:
        while True:
            day = self.today + timedelta(days=self.rng.randint(day_offset_lo, day_offset_hi))
            if day.weekday() < 5:
                break
        latest = 17 * 60 + 30 - minutes
        return day + timedelta(minutes=self.rng.randrange(8 * 60, max(8 * 60 + 1, latest + 1), 30))


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """140 people, ~330 calendars, ~1,500 events (45 days back to 60 ahead) with ~3,500 invitees and ~90 series."""
    people = users(rng)
    calendars(rng, people)
    out = Events(rng, now)
    work_meetings(out, people)
    personal_appointments(out, people)
    team_series(out, people)
    one_on_ones(out, people)
    insert_rows(db, "users", people.users)
    insert_rows(db, "calendars", people.calendars)
    insert_rows(db, "events", out.events)
    insert_rows(db, "invitees", out.invitees, or_ignore=True)
    insert_rows(db, "recurrences", out.rules)
    insert_rows(db, "cancelled_occurrences", out.exdates, or_ignore=True)


def users(rng: random.Random) -> People:
    rows: list[Row] = []
    by_dept: dict[str, list[str]] = {d: [] for d in DEPARTMENTS}
    for i in range(1, 141):
        given, family = fake.person(rng)
        dept = DEPARTMENTS[i % len(DEPARTMENTS)] if i <= len(DEPARTMENTS) else rng.choice(DEPARTMENTS)
        uid = f"USR-{i:04d}"
        rows.append(
            (
                uid,
                f"{given} {family}",
                f"{given.lower()}.{family.lower()}{i}@northwind.example.com",
                dept,
                rng.choice(JOB_TITLES[dept]),
                rng.choice(OFFICES),
            )
        )
        by_dept[dept].append(uid)
    return People(rows, by_dept)


def calendars(rng: random.Random, people: People) -> None:
    """A primary calendar each, a personal one for about half, and one team calendar per department."""
    cals = people.calendars
    for uid, name, *_ in people.users:
        cal = f"CAL-{len(cals) + 1:04d}"
        cals.append((cal, uid, name, "primary", rng.choice(COLORS)))
        people.primary[uid] = cal
        if rng.random() < 0.55:
            cal = f"CAL-{len(cals) + 1:04d}"
            cals.append((cal, uid, "Personal", "personal", rng.choice(COLORS)))
            people.personal[uid] = cal
    for dept, members in people.by_dept.items():
        cal = f"CAL-{len(cals) + 1:04d}"
        cals.append((cal, members[0], f"{dept} team", "team", rng.choice(COLORS)))
        people.team[dept] = cal


def work_meetings(out: Events, people: People) -> None:
    """Meetings on primary calendars: 1:1s, customer calls, interviews and topical meetings."""
    rng, names, dept_of = out.rng, people.names, people.dept_of
    all_ids = [u[0] for u in people.users]
    for uid in all_ids:
        colleagues = people.by_dept[dept_of[uid]]
        for _ in range(rng.randint(4, 10)):
            minutes = rng.choice((30, 30, 45, 60, 60, 90, 120))
            start = out.workday_slot(-45, 60, minutes)
            pool = [c for c in colleagues if c != uid]
            guests = rng.sample(pool, min(len(pool), rng.randint(1, 4)))
            if rng.random() < 0.4:
                guests += [g for g in rng.sample(all_ids, rng.randint(1, 2)) if g != uid and g not in guests]
            kind = rng.random()
            if kind < 0.2 and guests:
                title = f"1:1 {names[uid].split()[0]} / {names[guests[0]].split()[0]}"
                guests = guests[:1]
            elif kind < 0.32:
                title = f"Customer call: {rng.choice(fake.COMPANIES)}"
            elif kind < 0.38:
                title = f"Interview: {rng.choice(JOB_TITLES[dept_of[uid]])} candidate"
            else:
                title = rng.choice(WORK_TOPICS)
            loc = rng.choice(ROOMS) if rng.random() < 0.55 else rng.choice(VIDEO)
            out.add(
                people.primary[uid], uid, title, f"{title}. Agenda shared in the invite.", loc, start, minutes, guests
            )


def personal_appointments(out: Events, people: People) -> None:
    rng = out.rng
    for uid, cal in people.personal.items():
        for _ in range(rng.randint(1, 4)):
            title, minutes = rng.choice(PERSONAL)
            day = out.today + timedelta(days=rng.randint(-30, 45))
            start = day + timedelta(minutes=rng.randrange(7 * 60, 19 * 60, 30))
            out.add(
                cal,
                uid,
                title,
                "",
                fake.address(rng),
                start,
                minutes,
                [],
                status=rng.choices(("confirmed", "cancelled"), (94, 6))[0],
            )


def team_series(out: Events, people: People) -> None:
    """Three recurring team rituals per department on its team calendar."""
    rng = out.rng
    for dept, cal in people.team.items():
        owner, members = people.by_dept[dept][0], people.by_dept[dept][1:]
        for title, freq, minutes in rng.sample(TEAM_SERIES, 3):
            first = out.workday_slot(-60, -7, minutes).replace(
                hour=rng.choice((9, 10, 11, 14, 15)), minute=rng.choice((0, 30))
            )
            count, until = None, None
            if rng.random() < 0.3:
                count = rng.randint(6, 30)
            elif rng.random() < 0.3:
                until = (out.today + timedelta(days=rng.randint(-10, 120))).date().isoformat()
            byday = "MO,TU,WE,TH,FR" if freq == "daily" else None
            eid = out.add(
                cal,
                owner,
                f"{dept} {title.lower()}" if freq != "monthly" else title,
                f"Recurring {title.lower()} for the {dept} team.",
                rng.choice(ROOMS + VIDEO),
                first,
                minutes,
                members,
                status="confirmed",
            )
            out.rules.append((f"RRL-{len(out.rules) + 1:04d}", eid, freq, 1, byday, count, until))


def one_on_ones(out: Events, people: People) -> None:
    """Weekly 1:1 series on primary calendars, some with one skipped date."""
    rng, names, dept_of = out.rng, people.names, people.dept_of
    for uid in rng.sample([u[0] for u in people.users], 60):
        pool = [c for c in people.by_dept[dept_of[uid]] if c != uid]
        if not pool:
            continue
        other = rng.choice(pool)
        first = out.workday_slot(-50, 10, 30)
        interval = rng.choice((1, 1, 2))
        count = rng.choice((None, None, 8, 12, 20))
        eid = out.add(
            people.primary[uid],
            uid,
            f"Weekly 1:1 {names[uid].split()[0]} / {names[other].split()[0]}",
            "Standing 1:1.",
            rng.choice(VIDEO),
            first,
            30,
            [other],
            status=rng.choices(("confirmed", "cancelled"), (95, 5))[0],
        )
        out.rules.append(
            (f"RRL-{len(out.rules) + 1:04d}", eid, "weekly", interval, WEEKDAYS[first.weekday()], count, None)
        )
        if rng.random() < 0.35:
            skip = first + timedelta(weeks=interval * rng.randint(1, 6))
            out.exdates.append((eid, skip.date().isoformat(), _iso(out.now - timedelta(days=rng.randint(1, 20)))))
