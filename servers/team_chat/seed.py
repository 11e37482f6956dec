"""The team chat seed: 120 members, 24 channels (private and archived ones), messages with threads, reactions,
mentions."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from hub.kit import fake

DEPARTMENTS = {
    "Engineering": ("Software Engineer", "Senior Software Engineer", "Staff Engineer", "Engineering Manager", "SRE"),
    "Product": ("Product Manager", "Senior Product Manager", "Director of Product"),
    "Design": ("Product Designer", "UX Researcher", "Design Lead"),
    "Marketing": ("Marketing Manager", "Content Strategist", "Growth Lead"),
    "Sales": ("Account Executive", "Sales Engineer", "Sales Director"),
    "Support": ("Support Specialist", "Support Lead"),
    "Finance": ("Financial Analyst", "Controller"),
    "People": ("Recruiter", "People Partner"),
}
TIMEZONES = (
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Los_Angeles",
    "Europe/London",
    "Europe/Berlin",
    "Asia/Kolkata",
    "Asia/Tokyo",
)
# (name, topic, private, archived, department that mostly joins or None for everyone)
CHANNELS = (
    ("general", "Company-wide announcements and chatter", 0, 0, None),
    ("random", "Non-work banter, links and memes", 0, 0, None),
    ("announcements", "Official company announcements", 0, 0, None),
    ("eng-backend", "APIs, services and databases", 0, 0, "Engineering"),
    ("eng-frontend", "Web and mobile clients", 0, 0, "Engineering"),
    ("eng-infra", "Kubernetes, CI and cloud costs", 0, 0, "Engineering"),
    ("incidents", "Live incident coordination", 0, 0, "Engineering"),
    ("release-train", "Weekly release coordination", 0, 0, "Engineering"),
    ("product-roadmap", "Roadmap discussion and planning", 0, 0, "Product"),
    ("design-crit", "Share work in progress for feedback", 0, 0, "Design"),
    ("marketing-campaigns", "Campaign planning and results", 0, 0, "Marketing"),
    ("sales-deals", "Deal updates and wins", 0, 0, "Sales"),
    ("support-escalations", "Customer escalations needing engineering help", 0, 0, "Support"),
    ("customer-feedback", "What customers are telling us", 0, 0, "Product"),
    ("finance-ops", "Budgets, invoices and expenses", 0, 0, "Finance"),
    ("book-club", "Monthly book club", 0, 0, None),
    ("pets", "Pictures of pets, obviously", 0, 0, None),
    ("leadership", "Leadership team discussion", 1, 0, None),
    ("hiring-committee", "Candidate debriefs", 1, 0, "People"),
    ("security-incidents", "Confidential security response", 1, 0, "Engineering"),
    ("comp-review", "Compensation review cycle", 1, 0, "Finance"),
    ("offsite-2025", "Planning the 2025 company offsite", 0, 1, None),
    ("project-apollo", "Apollo migration (completed)", 0, 1, "Engineering"),
    ("q1-planning", "Q1 planning, wrapped up", 1, 1, "Product"),
)
LINES = (
    "Morning all! Standup notes are in the doc.",
    "Has anyone seen the latency spike on the checkout API?",
    "PR is up for review, would love a second pair of eyes.",
    "Reminder: all-hands at 10am PT tomorrow.",
    "Deploy to staging is green, promoting to prod after lunch.",
    "Can we move the sync to Thursday?",
    "The new dashboard numbers look great this week.",
    "Customer asked about SSO support again.",
    "I'll take a look after my next meeting.",
    "Shipping the fix in the next release.",
    "Does anyone have the link to the Q2 roadmap?",
    "Thanks for jumping on that so quickly!",
    "We are rolling back the last deploy while we investigate.",
    "Great demo today, team.",
    "Lunch order going in at noon if anyone wants in.",
    "The draft blog post is ready for review.",
    "Heads up: the office wifi will be down Saturday morning.",
    "Closed the Acme renewal, three year term!",
    "Who owns the billing service alerts?",
    "I added notes from the customer call to the ticket.",
    "Can someone approve my expense report?",
    "The on-call handoff is in the runbook.",
    "Book club meets Friday, we are on chapter 7.",
    "Here is a photo of my dog judging my code.",
)
REPLIES = (
    "+1",
    "On it.",
    "Thanks!",
    "Looking now.",
    "Agreed.",
    "Good catch.",
    "Done.",
    "Can you share more details?",
    "I can help with that.",
    "Same here.",
    "Let's sync after standup.",
    "Fixed in the latest build.",
)
EMOJI = ("thumbsup", "tada", "eyes", "white_check_mark", "heart", "rocket", "joy", "pray", "fire", "100")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """120 members, 24 channels (private and archived ones), ~800 memberships, ~1,300 messages with threads, reactions
    and mentions."""
    users, handles = [], set()
    for i in range(1, 121):
        first, last = fake.person(rng)
        handle = f"{first[0].lower()}{last.lower()}"
        while handle in handles:
            handle += str(rng.randint(0, 9))
        handles.add(handle)
        dept = rng.choice(list(DEPARTMENTS))
        users.append(
            (
                f"USR-{i:04d}",
                handle,
                f"{first} {last}",
                rng.choice(DEPARTMENTS[dept]),
                dept,
                rng.choice(TIMEZONES),
                "deactivated" if rng.random() < 0.05 else "active",
                fake.iso(fake.moment(rng, now, 1500, -60)),
            )
        )
    db.executemany("INSERT INTO users VALUES (?,?,?,?,?,?,?,?)", users)
    start = now - timedelta(days=900)
    channels: list[tuple[Any, ...]] = []
    members: list[tuple[Any, ...]] = []
    messages: list[list[Any]] = []
    reactions: list[tuple[Any, ...]] = []
    mentions: list[tuple[Any, ...]] = []
    for c, (name, topic, private, archived, home) in enumerate(CHANNELS, 1):
        cid = f"CHN-{c:04d}"
        creator = users[0] if c == 1 else rng.choice(users)
        created = start + timedelta(days=rng.randint(0, 400) if c > 1 else 0)
        channels.append((cid, name, topic, private, archived, creator[0], fake.iso(created)))
        if home is None:
            chance = 1.0 if name in ("general", "announcements") else 0.12 if private else 0.5
        else:
            chance = 0.45 if private else 0.8
        group = [u for u in users if u[0] == creator[0] or rng.random() < (chance if home in (None, u[4]) else 0.06)]
        for u in group:
            members.append(
                (cid, u[0], fake.iso(max(created, datetime.fromisoformat(u[7]))), None if not private else creator[0])
            )
        active = [u for u in group if u[6] == "active"] or group
        end = now - timedelta(days=rng.randint(60, 300)) if archived else now - timedelta(minutes=5)
        horizon = int((end - created).total_seconds() // 60)
        for _ in range(rng.randint(15, 45) if not archived else rng.randint(6, 15)):
            t = created + timedelta(minutes=rng.randint(horizon // 2, horizon))
            author = rng.choice(active)
            mid = len(messages) + 1
            text = rng.choice(LINES)
            if rng.random() < 0.12 and len(group) > 1:
                other = rng.choice([u for u in group if u[0] != author[0]])
                text = f"@{other[1]} {text}"
                mentions.append((f"MSG-{mid:05d}", other[0]))
            messages.append([f"MSG-{mid:05d}", cid, author[0], None, text, t, None])
            for r in range(rng.choice((0, 0, 0, 1, 2, 4))):
                replier = rng.choice(active)
                rt = t + timedelta(minutes=rng.randint(1, 180) * (r + 1))
                messages.append(
                    [
                        f"MSG-{len(messages) + 1:05d}",
                        cid,
                        replier[0],
                        f"MSG-{mid:05d}",
                        rng.choice(REPLIES),
                        min(rt, end),
                        None,
                    ]
                )
            for reactor in rng.sample(active, min(len(active), rng.choice((0, 0, 1, 1, 2, 3)))):
                reactions.append(
                    (
                        f"MSG-{mid:05d}",
                        reactor[0],
                        rng.choice(EMOJI),
                        fake.iso(min(end, t + timedelta(minutes=rng.randint(1, 600)))),
                    )
                )
    for m in messages:
        m[5] = fake.iso(m[5])
        if rng.random() < 0.04:
            m[6] = m[5]
    db.executemany("INSERT INTO channels VALUES (?,?,?,?,?,?,?)", channels)
    db.executemany("INSERT INTO channel_members VALUES (?,?,?,?)", members)
    db.executemany("INSERT INTO messages VALUES (?,?,?,?,?,?,?)", [tuple(m) for m in messages])
    db.executemany("INSERT OR IGNORE INTO reactions VALUES (?,?,?,?)", reactions)
    db.executemany("INSERT OR IGNORE INTO mentions VALUES (?,?)", mentions)
