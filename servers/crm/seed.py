"""The CRM seed: 12 sales owners, 160 accounts with ~480 contacts, ~320 deals across the pipeline with stage
histories, ~400 leads in every status (converted ones linked to their contact and deal) and ~1,300 activities.

Each account's deals are drawn with their history, activities and source lead; the order of the draws from
``rng`` is part of the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows
from servers.crm.schema import OPEN_STAGES, PROBABILITY, STAGES

INDUSTRIES = (
    "Software",
    "Healthcare",
    "Manufacturing",
    "Retail",
    "Financial Services",
    "Logistics",
    "Education",
    "Energy",
    "Media",
    "Hospitality",
    "Construction",
    "Telecommunications",
)
PREFIXES = (
    "Apex",
    "Blue Ridge",
    "Cedar",
    "Crescent",
    "Falcon",
    "Golden Gate",
    "Helix",
    "Ivory",
    "Jade",
    "Kinetic",
    "Lighthouse",
    "Magnolia",
    "Nimbus",
    "Oakmont",
    "Polaris",
    "Quantum",
    "Riverbend",
    "Sapphire",
    "Trident",
    "Unity",
    "Vanguard",
    "Westbrook",
    "Zenith",
    "Alder",
    "Beacon",
    "Cascade",
    "Drake",
    "Ember",
    "Foxglove",
    "Granite Peak",
)
SUFFIXES = (
    "Systems",
    "Health",
    "Industries",
    "Outfitters",
    "Partners",
    "Logistics",
    "Academy",
    "Power",
    "Studios",
    "Hotels",
    "Builders",
    "Networks",
    "Labs",
    "Group",
    "Foods",
    "Analytics",
)
TITLES = (
    "CEO",
    "CTO",
    "CFO",
    "VP Sales",
    "VP Operations",
    "Head of IT",
    "Procurement Manager",
    "Operations Director",
    "Marketing Manager",
    "IT Manager",
    "Finance Director",
    "Product Manager",
)
PRODUCTS = (
    "Platform license",
    "Analytics add-on",
    "Enterprise suite",
    "Support renewal",
    "Onboarding services",
    "Data migration",
    "Team expansion",
    "Pilot program",
)
SOURCES = ("web_form", "referral", "trade_show", "cold_call", "partner", "webinar")
LOST_REASONS = ("price", "competitor", "no_budget", "no_decision", "timing", "lost_contact")
SUBJECTS = {
    "call": ("Discovery call", "Follow-up call", "Pricing discussion", "Check-in call"),
    "email": ("Sent proposal", "Intro email", "Shared case study", "Sent contract draft"),
    "meeting": ("Product demo", "Onsite workshop", "Executive briefing", "Technical deep dive"),
    "note": ("Budget confirmed", "Champion identified", "Competitor in play", "Legal review pending"),
    "task": ("Send revised quote", "Schedule demo", "Prepare SOW", "Follow up on security questionnaire"),
}


DISQUALIFY_REASONS = ("no budget", "not a fit", "unresponsive", "already a customer of a competitor")


@dataclass
class Rows:
    rng: random.Random
    now: datetime
    active: list[str]
    accounts: list[Row] = field(default_factory=list)
    contacts: list[Row] = field(default_factory=list)
    deals: list[Row] = field(default_factory=list)
    history: list[Row] = field(default_factory=list)
    leads: list[list[Any]] = field(default_factory=list)
    activities: list[Row] = field(default_factory=list)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """12 sales owners, 160 accounts with ~480 contacts, ~320 deals across the pipeline with stage histories,
    ~400 leads in every status (converted ones linked to their contact and deal) and ~1,300 activities."""
    staff = owners(rng)
    insert_rows(db, "owners", staff)
    out = Rows(rng, now, [o[0] for o in staff if o[6]])
    names = [f"{p} {s}" for p in PREFIXES for s in SUFFIXES]
    rng.shuffle(names)
    for i, name in enumerate(names[:160], 1):
        account(out, f"ACT-{i:04d}", name, [o[0] for o in staff])
    by_account: dict[str, list[Row]] = {}
    for c in out.contacts:
        by_account.setdefault(c[1], []).append(c)
    for acc in out.accounts:
        for _ in range(rng.choice((0, 1, 1, 2, 2, 3))):
            deal(out, acc, rng.choice(by_account[acc[0]]))
    for _ in range(400 - len(out.leads)):
        open_lead(out, names[160:])
    number_leads(out)
    insert_rows(db, "accounts", out.accounts)
    insert_rows(db, "contacts", out.contacts)
    insert_rows(db, "deals", out.deals)
    insert_rows(db, "stage_history", out.history)
    insert_rows(db, "leads", [tuple(lead) for lead in out.leads])
    insert_rows(db, "activities", out.activities)


def owners(rng: random.Random) -> list[Row]:
    """Four reps per team across three regions; two have left."""
    found: list[Row] = []
    taken: set[str] = set()
    for i in range(1, 13):
        first, last = fake.person(rng)
        email = unique_email(f"{first.lower()}.{last.lower()}", "salesco.example.com", taken)
        found.append(
            (
                f"USR-{i:02d}",
                f"{first} {last}",
                email,
                ("SMB", "Mid-Market", "Enterprise")[i % 3],
                ("West", "Central", "East")[(i // 3) % 3],
                float(rng.choice((400_000, 600_000, 900_000, 1_500_000))),
                0 if i in (5, 11) else 1,
            )
        )
    return found


def unique_email(local: str, domain: str, taken: set[str]) -> str:
    """``local@domain``, with a number after ``local`` only when that address is already taken (two reps can
    share a name; the suffix draws nothing from the rng, so seeds without a clash keep their state)."""
    email, n = f"{local}@{domain}", 2
    while email in taken:
        email, n = f"{local}{n}@{domain}", n + 1
    taken.add(email)
    return email


def account(out: Rows, aid: str, name: str, owner_ids: list[str]) -> None:
    """One company with one to five contacts, all owned by the account's owner."""
    rng, now = out.rng, out.now
    owner = rng.choice(owner_ids)
    employees = rng.choice((12, 40, 85, 150, 400, 1200, 5000))
    domain = name.lower().replace(" ", "")
    industry, city = rng.choice(INDUSTRIES), fake.city(rng)[0]
    revenue = round(employees * rng.uniform(80_000, 300_000), -3)
    out.accounts.append(
        (
            aid,
            name,
            industry,
            city,
            employees,
            revenue,
            f"https://www.{domain}.example.com",
            owner,
            fake.iso(fake.moment(rng, now, 1500, -200)),
        )
    )
    for _ in range(rng.randint(1, 5)):
        first, last = fake.person(rng)
        cid = f"CON-{len(out.contacts) + 1:04d}"
        email = f"{first.lower()}.{last.lower()}@{domain}.example.com"
        out.contacts.append(
            (
                cid,
                aid,
                f"{first} {last}",
                email,
                fake.phone(rng),
                rng.choice(TITLES),
                owner,
                fake.iso(fake.moment(rng, now, 900, -30)),
            )
        )


def deal(out: Rows, acc: Row, contact: Row) -> None:
    """One deal with the stages it went through, its activities and, for some, the lead it was converted from."""
    rng, now = out.rng, out.now
    did = f"DEAL-{len(out.deals) + 1:04d}"
    owner = acc[7] if acc[7] in out.active or rng.random() < 0.3 else rng.choice(out.active)
    stage = rng.choices(STAGES, (14, 14, 13, 10, 27, 22))[0]
    created = fake.moment(rng, now, 400, 0) - timedelta(days=7)
    last_change = stage_history(out, did, stage, created)
    closed = stage.startswith("closed")
    close_day = datetime.fromisoformat(last_change) if closed else now + timedelta(days=rng.randint(5, 120))
    amount = round(rng.choice((1, 2, 3, 5, 8, 13, 20)) * rng.uniform(4_000, 12_000), -2)
    out.deals.append(
        (
            did,
            f"{acc[1]} - {rng.choice(PRODUCTS)}",
            acc[0],
            contact[0],
            owner,
            amount,
            stage,
            PROBABILITY[stage],
            close_day.strftime("%Y-%m-%d"),
            rng.choice(LOST_REASONS) if stage == "closed_lost" else None,
            fake.iso(created),
            last_change,
            last_change if closed else None,
        )
    )
    for _ in range(rng.randint(1, 6)):
        deal_activity(out, did, owner, contact, created, closed)
    if rng.random() < 0.3:
        lead_at = fake.iso(created - timedelta(days=rng.randint(1, 20)))
        out.leads.append(
            [
                None,
                contact[2],
                contact[3],
                contact[4],
                acc[1],
                contact[5],
                rng.choice(SOURCES),
                "converted",
                None,
                owner,
                acc[0],
                contact[0],
                did,
                lead_at,
                fake.iso(created),
            ]
        )


def stage_history(out: Rows, did: str, stage: str, created: datetime) -> str:
    """The stages a deal passed to reach ``stage``; returns when it last changed."""
    rng, now = out.rng, out.now
    if stage in OPEN_STAGES:
        path = list(OPEN_STAGES[: OPEN_STAGES.index(stage) + 1])
    elif stage == "closed_won":
        path = list(OPEN_STAGES) + ["closed_won"]
    else:
        path = list(OPEN_STAGES[: rng.randint(1, 4)]) + ["closed_lost"]
    t, prev = created, None
    for step in path:
        out.history.append((f"STH-{len(out.history) + 1:05d}", did, prev, step, fake.iso(t)))
        prev = step
        t = min(now - timedelta(hours=1), t + timedelta(days=rng.randint(2, 25), minutes=rng.randint(0, 600)))
    return str(out.history[-1][4])


def deal_activity(out: Rows, did: str, owner: str, contact: Row, created: datetime, closed: bool) -> None:
    rng, now = out.rng, out.now
    kind = rng.choice(("call", "email", "meeting", "note", "task"))
    at = created + timedelta(days=rng.randint(0, 30), minutes=rng.randint(0, 900))
    at = min(at, now - timedelta(minutes=30))
    pending = kind in ("task", "meeting") and not closed and rng.random() < 0.4
    due = fake.iso(now + timedelta(days=rng.randint(1, 21), hours=rng.randint(0, 8))) if pending else None
    subject, body = rng.choice(SUBJECTS[kind]), f"{rng.choice(SUBJECTS[kind])} with {contact[2]}."
    out.activities.append(
        (
            f"ACV-{len(out.activities) + 1:05d}",
            kind,
            subject,
            body,
            owner,
            did,
            contact[0],
            None,
            due,
            0 if pending else 1,
            fake.iso(at),
        )
    )


def open_lead(out: Rows, companies: list[str]) -> None:
    """A lead not yet converted, at a company that is not an account."""
    rng, now = out.rng, out.now
    first, last = fake.person(rng)
    company = rng.choice(companies)
    status = rng.choices(("new", "working", "qualified", "disqualified"), (30, 35, 15, 20))[0]
    created = fake.moment(rng, now, 240, 0) - timedelta(hours=2)
    updated = (
        created if status == "new" else min(now - timedelta(hours=1), created + timedelta(days=rng.randint(1, 30)))
    )
    email = f"{first.lower()}.{last.lower()}@{company.lower().replace(' ', '')}.example.com"
    phone, title, source = fake.phone(rng), rng.choice(TITLES), rng.choice(SOURCES)
    reason = rng.choice(DISQUALIFY_REASONS) if status == "disqualified" else None
    out.leads.append(
        [
            None,
            f"{first} {last}",
            email,
            phone,
            company,
            title,
            source,
            status,
            reason,
            rng.choice(out.active),
            None,
            None,
            None,
            fake.iso(created),
            fake.iso(updated),
        ]
    )


def number_leads(out: Rows) -> None:
    """Lead ids follow creation time; some working or qualified leads get an outreach activity."""
    rng, now = out.rng, out.now
    out.leads.sort(key=lambda lead: (lead[13], lead[2]))
    for i, lead in enumerate(out.leads, 1):
        lead[0] = f"LEAD-{i:04d}"
        if lead[7] in ("working", "qualified") and rng.random() < 0.6:
            kind = rng.choice(("call", "email", "task"))
            pending = kind == "task"
            subject = rng.choice(SUBJECTS[kind])
            due = fake.iso(now + timedelta(days=rng.randint(1, 10))) if pending else None
            out.activities.append(
                (
                    f"ACV-{len(out.activities) + 1:05d}",
                    kind,
                    subject,
                    f"Lead outreach to {lead[1]}.",
                    lead[9],
                    None,
                    None,
                    lead[0],
                    due,
                    0 if pending else 1,
                    lead[14],
                )
            )
