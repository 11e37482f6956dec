"""The email seed: 60 mailboxes, ~700 contacts, ~950 threads with ~2,300 messages, labels and drafts.

Each table's rows come from their own small function; the order of the draws from ``rng`` is part of the
seed's identity (the state hash), so the functions run in the order the rows depend on each other.
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from hub.kit import Row, fake, insert_rows

Person = tuple[str, str, str]  # name, address, company

DOMAIN = "northwind.example.com"
DEPARTMENTS = ("Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Support", "Legal")
LABEL_NAMES = (
    "Work",
    "Clients",
    "Receipts",
    "Travel",
    "Finance",
    "Follow up",
    "Projects",
    "Hiring",
    "Newsletters",
    "Urgent",
    "Personal",
    "Vendors",
)
COLORS = ("red", "orange", "yellow", "green", "blue", "purple", "gray", "teal")
PROJECTS = ("Atlas", "Beacon", "Cascade", "Falcon", "Horizon", "Keystone", "Mosaic", "Orbit", "Polaris", "Summit")
# (subject, opening body, reply bodies); {c} company, {p} project, {d} a weekday, {n} a number, {a} an amount
CONVERSATIONS = (
    (
        "Q3 roadmap review for {p}",
        "Hi {to},\n\nCould we go through the {p} roadmap before {d}? I have a few open questions on scope.",
        (
            "Sure, {d} afternoon works for me. I'll bring the latest estimates.",
            "Great, I've put a hold on the calendar.",
            "Thanks, notes are in the shared doc.",
        ),
    ),
    (
        "Invoice {n} from {c}",
        "Hello {to},\n\nPlease find attached invoice {n} for {a} USD, due in 30 days.",
        ("Thanks, forwarding to accounts payable.", "Payment has been scheduled for {d}.", "Received, thank you!"),
    ),
    (
        "Contract renewal - {c}",
        "Hi {to},\n\nOur agreement with {c} renews next month. Do you want to renegotiate the terms?",
        (
            "Yes, let's push for a multi-year discount.",
            "Legal has reviewed the redlines, see comments.",
            "Signed copy attached.",
        ),
    ),
    (
        "Lunch on {d}?",
        "Hey {to}, are you free for lunch on {d}? The new ramen place opened downstairs.",
        ("Count me in, 12:30?", "Perfect, see you there."),
    ),
    (
        "Interview feedback: {p} team candidate",
        "Hi {to},\n\nPlease add your interview feedback for yesterday's candidate by {d}.",
        (
            "Done, strong hire from my side.",
            "Added mine, a few concerns on system design.",
            "Thanks all, moving to offer.",
        ),
    ),
    (
        "{p} launch checklist",
        "Team,\n\nAttached is the launch checklist for {p}. Please flag blockers by {d}.",
        ("QA sign-off is still pending on two items.", "Docs are ready for review.", "We're green, go for launch."),
    ),
    (
        "Expense report for {c} visit",
        "Hi {to},\n\nI submitted the expense report for the {c} visit ({a} USD). Could you approve it?",
        ("Approved. Please attach the hotel receipt next time.", "Receipt attached, thanks!"),
    ),
    (
        "Security review of {p}",
        "Hi {to},\n\nThe security review for {p} is scheduled for {d}. Please share the threat model beforehand.",
        ("Threat model shared in the drive folder.", "Two medium findings, tickets filed."),
    ),
    (
        "Partnership proposal from {c}",
        "Dear {to},\n\n{c} would like to explore a partnership around {p}. Would you have 30 minutes on {d}?",
        ("Thanks for reaching out, {d} at 10:00 works.", "Looking forward to it. Agenda attached."),
    ),
    (
        "Budget approval needed: {p}",
        "Hi {to},\n\n{p} needs an extra {a} USD for cloud costs this quarter. Can you approve?",
        ("Can you break down the estimate by service?", "Breakdown attached.", "Approved."),
    ),
)
NOTIFICATIONS = (
    ("Your {c} order #{n} has shipped", "Good news! Your order #{n} is on its way and should arrive by {d}."),
    (
        "Flight confirmation {n} - Zephyr Airlines",
        "Your flight is confirmed. Confirmation code {n}. Check-in opens 24 hours before departure.",
    ),
    (
        "Weekly digest from {c}",
        "Here are this week's top stories from {c}: product updates, customer stories and events.",
    ),
    (
        "Receipt for your payment of {a} USD",
        "Thank you for your payment of {a} USD to {c}. Keep this email for your records.",
    ),
    (
        "Password expiry reminder",
        "Your corporate password expires on {d}. Change it in the IT portal to avoid lock-out.",
    ),
    ("Webinar invitation: scaling {p}", "Join {c} on {d} for a live webinar about scaling {p}. Register today."),
)
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def _slug(company: str) -> str:
    return "".join(ch for ch in company.lower() if ch.isalnum())


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


@dataclass
class Topic:
    """One set of placeholder values per conversation, so that subject and bodies agree."""

    rng: random.Random
    values: dict[str, str] = field(default_factory=dict)

    def draw(self) -> None:
        rng = self.rng
        self.values.update(
            c=rng.choice(fake.COMPANIES),
            p=rng.choice(PROJECTS),
            d=rng.choice(WEEKDAY_NAMES),
            n=str(rng.randint(10000, 99999)),
            a=f"{rng.uniform(120, 48000):,.2f}",
        )

    def fill(self, text: str, to_first: str) -> str:
        return text.format(to=to_first, **self.values)


@dataclass
class Mail:
    """Threads and message rows (without ids: ids are given in time order once all are made)."""

    threads: list[Row] = field(default_factory=list)
    msgs: list[list[Any]] = field(default_factory=list)


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """60 mailboxes, ~700 contacts, ~950 threads with ~2,300 messages, labels and drafts."""
    boxes = mailboxes(rng, now)
    insert_rows(db, "mailboxes", boxes)
    people, externals = contacts(rng, boxes)
    insert_rows(db, "contacts", people)
    tags, label_ids = labels(rng, boxes)
    insert_rows(db, "labels", tags)
    topic = Topic(rng)
    mail = Mail()
    by_address = {m[2]: m for m in boxes}
    for mbx, owner, own, *_ in boxes:
        for _ in range(rng.randint(8, 15)):
            thread(rng, now, topic, mail, (mbx, owner, own), externals[mbx], by_address)
    messages, tagged = message_rows(rng, now, mail, label_ids)
    insert_rows(db, "threads", mail.threads)
    insert_rows(db, "messages", messages)
    insert_rows(db, "message_labels", tagged, or_ignore=True)
    insert_rows(db, "drafts", drafts(rng, now, topic, boxes, externals))


def mailboxes(rng: random.Random, now: datetime) -> list[Row]:
    found: list[Row] = []
    seen: set[str] = set()
    for i in range(1, 61):
        first, last = fake.person(rng)
        address = f"{first.lower()}.{last.lower()}@{DOMAIN}"
        if address in seen:
            address = f"{first.lower()}.{last.lower()}{i}@{DOMAIN}"
        seen.add(address)
        dept = rng.choice(DEPARTMENTS)
        found.append(
            (
                f"MBX-{i:04d}",
                f"{first} {last}",
                address,
                dept,
                f"Best,\n{first} {last}\n{dept}, Northwind",
                _iso(fake.moment(rng, now, 2000, -200)),
            )
        )
    return found


def contacts(rng: random.Random, boxes: list[Row]) -> tuple[list[Row], dict[str, list[Person]]]:
    """Each mailbox's address book: colleagues' mailboxes and people at other companies."""
    found: list[Row] = []
    externals: dict[str, list[Person]] = {}
    for mbx, _name, own, *_ in boxes:
        people: list[Person] = []
        used = {own}
        for _ in range(rng.randint(8, 16)):
            if rng.random() < 0.3:
                other = rng.choice(boxes)
                name, email, company = other[1], other[2], "Northwind"
            else:
                first, last = fake.person(rng)
                company = rng.choice(fake.COMPANIES)
                name, email = f"{first} {last}", f"{first.lower()}.{last.lower()}@{_slug(company)}.example.com"
            if email in used:
                continue
            used.add(email)
            people.append((name, email, company))
            found.append(
                (f"CON-{len(found) + 1:04d}", mbx, name, email, company, fake.phone(rng), int(rng.random() < 0.15))
            )
        externals[mbx] = people
    return found, externals


def labels(rng: random.Random, boxes: list[Row]) -> tuple[list[Row], dict[str, list[str]]]:
    found: list[Row] = []
    label_ids: dict[str, list[str]] = {}
    for mbx, *_ in boxes:
        label_ids[mbx] = []
        for name in rng.sample(LABEL_NAMES, rng.randint(3, 6)):
            lid = f"LBL-{len(found) + 1:04d}"
            found.append((lid, mbx, name, rng.choice(COLORS)))
            label_ids[mbx].append(lid)
    return found, label_ids


def thread(
    rng: random.Random,
    now: datetime,
    topic: Topic,
    mail: Mail,
    box: tuple[str, str, str],
    people: list[Person],
    by_address: dict[str, Row],
) -> None:
    """One thread of a mailbox: a notification, or a conversation with a contact (a colleague gets a copy)."""
    mbx, owner, own = box
    tid = f"THR-{len(mail.threads) + 1:04d}"
    start = fake.moment(rng, now, 90, 0) - timedelta(hours=6)
    topic.draw()
    inbound_folder = rng.choices(("inbox", "archive", "trash"), (55, 35, 10))[0]
    if rng.random() < 0.25:
        company = topic.values["c"]
        subject, body = NOTIFICATIONS[rng.randrange(len(NOTIFICATIONS))]
        subject, body = topic.fill(subject, ""), topic.fill(body, "")
        mail.threads.append((tid, subject, _iso(start)))
        mail.msgs.append(
            [
                mbx,
                tid,
                inbound_folder,
                company,
                f"no-reply@{_slug(company)}.example.com",
                own,
                "",
                subject,
                body,
                start,
                None,
            ]
        )
        return
    partner_name, partner_addr, _company = rng.choice(people)
    subject_t, opening, replies = CONVERSATIONS[rng.randrange(len(CONVERSATIONS))]
    subject = topic.fill(subject_t, "")
    mail.threads.append((tid, subject, _iso(start)))
    partner_box = by_address.get(partner_addr)
    partner_folder = rng.choices(("inbox", "archive", "trash"), (55, 35, 10))[0]
    we_start = rng.random() < 0.5
    t = start
    prev: dict[str, int] = {}
    n_msgs = 1 + rng.randint(0, len(replies))
    cc = rng.choice(people)[1] if rng.random() < 0.2 else ""
    msgs = mail.msgs
    for k in range(n_msgs):
        ours = (k % 2 == 0) == we_start
        sender, sender_addr, to_first = (
            (owner, own, partner_name.split()[0]) if ours else (partner_name, partner_addr, owner.split()[0])
        )
        to = partner_addr if ours else own
        body = topic.fill(opening, to_first) if k == 0 else topic.fill(replies[k - 1], to_first)
        subj = subject if k == 0 else f"Re: {subject}"
        copies = [(mbx, "sent" if ours else inbound_folder)]
        if partner_box is not None and partner_box[0] != mbx:  # the colleague's own copy
            copies.append((partner_box[0], partner_folder if ours else "sent"))
        for into, folder in copies:
            row = [into, tid, folder, sender, sender_addr, to, cc if k == 0 else "", subj, body, t, prev.get(into)]
            msgs.append(row)
            prev[into] = len(msgs) - 1
        t = min(now - timedelta(minutes=rng.randint(5, 600)), t + timedelta(minutes=rng.randint(20, 2880)))


def message_rows(
    rng: random.Random, now: datetime, mail: Mail, label_ids: dict[str, list[str]]
) -> tuple[list[Row], list[Row]]:
    """Message rows with ids in time order, read and starred flags, and the labels some carry."""
    msgs = mail.msgs
    order = sorted(range(len(msgs)), key=lambda i: (msgs[i][9], i))
    ids = {i: f"MSG-{n:05d}" for n, i in enumerate(order, 1)}
    found: list[Row] = []
    tagged: list[Row] = []
    newest_in_thread: dict[tuple[str, str], datetime] = {}
    for m in msgs:
        key = (m[0], m[1])
        newest_in_thread[key] = max(newest_in_thread.get(key, m[9]), m[9])
    for i in order:
        mbx, tid, folder, fname, faddr, to, cc, subj, body, t, reply_to = msgs[i]
        recent = t >= now - timedelta(days=5) and t == newest_in_thread[(mbx, tid)]
        unread = folder == "inbox" and recent and rng.random() < 0.6
        starred = rng.random() < 0.06
        found.append(
            (
                ids[i],
                mbx,
                tid,
                folder,
                fname,
                faddr,
                to,
                cc,
                subj,
                body,
                _iso(t),
                0 if unread else 1,
                int(starred),
                ids.get(reply_to) if reply_to is not None else None,
            )
        )
        if rng.random() < 0.3:
            tagged.append((ids[i], rng.choice(label_ids[mbx])))
    return found, tagged


def drafts(
    rng: random.Random, now: datetime, topic: Topic, boxes: list[Row], externals: dict[str, list[Person]]
) -> list[Row]:
    """Up to three unsent drafts per mailbox, some still missing a recipient or a subject."""
    found: list[Row] = []
    for mbx, *_ in boxes:
        for _ in range(rng.randint(0, 3)):
            name, addr, _c = rng.choice(externals[mbx])
            subject_t, opening, _r = CONVERSATIONS[rng.randrange(len(CONVERSATIONS))]
            topic.draw()
            incomplete = rng.random()
            to = "" if incomplete < 0.15 else addr
            subject = "" if 0.15 <= incomplete < 0.3 else topic.fill(subject_t, "")
            found.append(
                (
                    f"DRF-{len(found) + 1:04d}",
                    mbx,
                    None,
                    None,
                    to,
                    "",
                    subject,
                    topic.fill(opening, name.split()[0]),
                    _iso(fake.moment(rng, now, 14, 0)),
                )
            )
    return found
