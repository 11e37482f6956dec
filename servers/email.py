"""Email: mailboxes, contacts, folders, threads, labels and drafts for a company's mail system.

Every mailbox has four folders (inbox, archive, trash, sent), its own labels and contacts.
Messages belong to a thread (a conversation); a message sent to another mailbox of this system
is delivered into that mailbox's inbox as a copy on the same thread. Times are fixed: "now" is
2026-06-01T09:00.

Business rules: sent mail is append-only (a sent message is never edited, moved or deleted, it
can only be starred or labelled); only inbox messages can be trashed or archived, and trashed or
archived mail goes back through the inbox; a draft needs at least one 'to' recipient and a
subject to be sent, and sending consumes the draft; labels must exist in the mailbox before use
(names are unique, case-insensitively, and the folder names are reserved); messages in the trash
take no labels; a contact's address is unique within a mailbox.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

SCHEMA = """
CREATE TABLE mailboxes (
    mailbox_id TEXT PRIMARY KEY,
    owner_name TEXT NOT NULL,
    address TEXT NOT NULL UNIQUE,
    department TEXT NOT NULL,
    signature TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE contacts (
    contact_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    company TEXT NOT NULL,
    phone TEXT NOT NULL,
    is_favorite INTEGER NOT NULL DEFAULT 0,
    UNIQUE (mailbox_id, email)
);
CREATE TABLE threads (
    thread_id TEXT PRIMARY KEY,
    subject TEXT NOT NULL,
    started_at TEXT NOT NULL
);
CREATE TABLE messages (
    message_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    thread_id TEXT NOT NULL REFERENCES threads(thread_id),
    folder TEXT NOT NULL CHECK (folder IN ('inbox', 'archive', 'trash', 'sent')),
    from_name TEXT NOT NULL,
    from_address TEXT NOT NULL,
    to_addresses TEXT NOT NULL,
    cc_addresses TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    sent_at TEXT NOT NULL,
    is_read INTEGER NOT NULL,
    is_starred INTEGER NOT NULL,
    in_reply_to TEXT
);
CREATE INDEX messages_mailbox ON messages(mailbox_id, folder, sent_at);
CREATE INDEX messages_thread ON messages(thread_id);
CREATE TABLE drafts (
    draft_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    thread_id TEXT,
    in_reply_to TEXT,
    to_addresses TEXT NOT NULL,
    cc_addresses TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE labels (
    label_id TEXT PRIMARY KEY,
    mailbox_id TEXT NOT NULL REFERENCES mailboxes(mailbox_id),
    name TEXT NOT NULL,
    color TEXT NOT NULL,
    UNIQUE (mailbox_id, name)
);
CREATE TABLE message_labels (
    message_id TEXT NOT NULL REFERENCES messages(message_id),
    label_id TEXT NOT NULL REFERENCES labels(label_id),
    PRIMARY KEY (message_id, label_id)
);
"""

DOMAIN = "northwind.example.com"
DEPARTMENTS = ("Engineering", "Sales", "Marketing", "Finance", "People Ops", "Product", "Support", "Legal")
LABEL_NAMES = ("Work", "Clients", "Receipts", "Travel", "Finance", "Follow up", "Projects", "Hiring", "Newsletters", "Urgent", "Personal", "Vendors")
COLORS = ("red", "orange", "yellow", "green", "blue", "purple", "gray", "teal")
RESERVED = {"inbox", "archive", "trash", "sent", "drafts", "spam", "starred", "unread"}
PROJECTS = ("Atlas", "Beacon", "Cascade", "Falcon", "Horizon", "Keystone", "Mosaic", "Orbit", "Polaris", "Summit")
# (subject, opening body, reply bodies); {c} company, {p} project, {d} a weekday, {n} a number, {a} an amount
CONVERSATIONS = (
    ("Q3 roadmap review for {p}", "Hi {to},\n\nCould we go through the {p} roadmap before {d}? I have a few open questions on scope.",
     ("Sure, {d} afternoon works for me. I'll bring the latest estimates.", "Great, I've put a hold on the calendar.", "Thanks, notes are in the shared doc.")),
    ("Invoice {n} from {c}", "Hello {to},\n\nPlease find attached invoice {n} for {a} USD, due in 30 days.",
     ("Thanks, forwarding to accounts payable.", "Payment has been scheduled for {d}.", "Received, thank you!")),
    ("Contract renewal - {c}", "Hi {to},\n\nOur agreement with {c} renews next month. Do you want to renegotiate the terms?",
     ("Yes, let's push for a multi-year discount.", "Legal has reviewed the redlines, see comments.", "Signed copy attached.")),
    ("Lunch on {d}?", "Hey {to}, are you free for lunch on {d}? The new ramen place opened downstairs.",
     ("Count me in, 12:30?", "Perfect, see you there.",)),
    ("Interview feedback: {p} team candidate", "Hi {to},\n\nPlease add your interview feedback for yesterday's candidate by {d}.",
     ("Done, strong hire from my side.", "Added mine, a few concerns on system design.", "Thanks all, moving to offer.")),
    ("{p} launch checklist", "Team,\n\nAttached is the launch checklist for {p}. Please flag blockers by {d}.",
     ("QA sign-off is still pending on two items.", "Docs are ready for review.", "We're green, go for launch.")),
    ("Expense report for {c} visit", "Hi {to},\n\nI submitted the expense report for the {c} visit ({a} USD). Could you approve it?",
     ("Approved. Please attach the hotel receipt next time.", "Receipt attached, thanks!")),
    ("Security review of {p}", "Hi {to},\n\nThe security review for {p} is scheduled for {d}. Please share the threat model beforehand.",
     ("Threat model shared in the drive folder.", "Two medium findings, tickets filed.")),
    ("Partnership proposal from {c}", "Dear {to},\n\n{c} would like to explore a partnership around {p}. Would you have 30 minutes on {d}?",
     ("Thanks for reaching out, {d} at 10:00 works.", "Looking forward to it. Agenda attached.")),
    ("Budget approval needed: {p}", "Hi {to},\n\n{p} needs an extra {a} USD for cloud costs this quarter. Can you approve?",
     ("Can you break down the estimate by service?", "Breakdown attached.", "Approved.")),
)
NOTIFICATIONS = (
    ("Your {c} order #{n} has shipped", "Good news! Your order #{n} is on its way and should arrive by {d}."),
    ("Flight confirmation {n} - Zephyr Airlines", "Your flight is confirmed. Confirmation code {n}. Check-in opens 24 hours before departure."),
    ("Weekly digest from {c}", "Here are this week's top stories from {c}: product updates, customer stories and events."),
    ("Receipt for your payment of {a} USD", "Thank you for your payment of {a} USD to {c}. Keep this email for your records."),
    ("Password expiry reminder", "Your corporate password expires on {d}. Change it in the IT portal to avoid lock-out."),
    ("Webinar invitation: scaling {p}", "Join {c} on {d} for a live webinar about scaling {p}. Register today."),
)
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def _slug(company: str) -> str:
    return "".join(ch for ch in company.lower() if ch.isalnum())


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """60 mailboxes, ~700 contacts, ~950 threads with ~2,300 messages, labels and drafts."""
    mailboxes: list[tuple[Any, ...]] = []
    seen: set[str] = set()
    for i in range(1, 61):
        first, last = fake.person(rng)
        address = f"{first.lower()}.{last.lower()}@{DOMAIN}"
        if address in seen:
            address = f"{first.lower()}.{last.lower()}{i}@{DOMAIN}"
        seen.add(address)
        dept = rng.choice(DEPARTMENTS)
        mailboxes.append((f"MBX-{i:04d}", f"{first} {last}", address, dept, f"Best,\n{first} {last}\n{dept}, Northwind",
                          _iso(fake.moment(rng, now, 2000, -200))))
    db.executemany("INSERT INTO mailboxes VALUES (?,?,?,?,?,?)", mailboxes)

    contacts: list[tuple[Any, ...]] = []
    externals: dict[str, list[tuple[str, str, str]]] = {}
    for mbx, _name, own, *_ in mailboxes:
        people: list[tuple[str, str, str]] = []
        used = {own}
        for _ in range(rng.randint(8, 16)):
            if rng.random() < 0.3:
                other = rng.choice(mailboxes)
                name, email, company = other[1], other[2], "Northwind"
            else:
                first, last = fake.person(rng)
                company = rng.choice(fake.COMPANIES)
                name, email = f"{first} {last}", f"{first.lower()}.{last.lower()}@{_slug(company)}.example.com"
            if email in used:
                continue
            used.add(email)
            people.append((name, email, company))
            contacts.append((f"CON-{len(contacts) + 1:04d}", mbx, name, email, company, fake.phone(rng), int(rng.random() < 0.15)))
        externals[mbx] = people
    db.executemany("INSERT INTO contacts VALUES (?,?,?,?,?,?,?)", contacts)

    labels: list[tuple[Any, ...]] = []
    label_ids: dict[str, list[str]] = {}
    for mbx, *_ in mailboxes:
        label_ids[mbx] = []
        for name in rng.sample(LABEL_NAMES, rng.randint(3, 6)):
            lid = f"LBL-{len(labels) + 1:04d}"
            labels.append((lid, mbx, name, rng.choice(COLORS)))
            label_ids[mbx].append(lid)
    db.executemany("INSERT INTO labels VALUES (?,?,?,?)", labels)

    by_address = {m[2]: m for m in mailboxes}
    threads: list[tuple[Any, ...]] = []
    msgs: list[list[Any]] = []  # message rows without ids, ids assigned in time order below

    ctx: dict[str, str] = {}

    def topic() -> None:  # one set of placeholder values per conversation, so subject and bodies agree
        ctx.update(c=rng.choice(fake.COMPANIES), p=rng.choice(PROJECTS), d=rng.choice(WEEKDAY_NAMES),
                   n=str(rng.randint(10000, 99999)), a=f"{rng.uniform(120, 48000):,.2f}")

    def fill(text: str, to_first: str) -> str:
        return text.format(to=to_first, **ctx)

    for mbx, owner, own, *_ in mailboxes:
        for _ in range(rng.randint(8, 15)):
            tid = f"THR-{len(threads) + 1:04d}"
            start = fake.moment(rng, now, 90, 0) - timedelta(hours=6)
            topic()
            inbound_folder = rng.choices(("inbox", "archive", "trash"), (55, 35, 10))[0]
            if rng.random() < 0.25:  # a notification: one inbound message
                company = ctx["c"]
                subject, body = NOTIFICATIONS[rng.randrange(len(NOTIFICATIONS))]
                subject, body = fill(subject, ""), fill(body, "")
                threads.append((tid, subject, _iso(start)))
                msgs.append([mbx, tid, inbound_folder, company, f"no-reply@{_slug(company)}.example.com", own, "", subject, body,
                             start, None])
                continue
            partner_name, partner_addr, _company = rng.choice(externals[mbx])
            subject_t, opening, replies = CONVERSATIONS[rng.randrange(len(CONVERSATIONS))]
            subject = fill(subject_t, "")
            threads.append((tid, subject, _iso(start)))
            partner_box = by_address.get(partner_addr)
            partner_folder = rng.choices(("inbox", "archive", "trash"), (55, 35, 10))[0]
            we_start = rng.random() < 0.5
            t = start
            prev: dict[str, int] = {}
            n_msgs = 1 + rng.randint(0, len(replies))
            cc = rng.choice(externals[mbx])[1] if rng.random() < 0.2 else ""
            for k in range(n_msgs):
                ours = (k % 2 == 0) == we_start
                sender, sender_addr, to_first = (owner, own, partner_name.split()[0]) if ours else (partner_name, partner_addr, owner.split()[0])
                to = partner_addr if ours else own
                body = fill(opening, to_first) if k == 0 else fill(replies[k - 1], to_first)
                subj = subject if k == 0 else f"Re: {subject}"
                msgs.append([mbx, tid, "sent" if ours else inbound_folder, sender, sender_addr, to, cc if k == 0 else "", subj,
                             body, t, prev.get(mbx)])
                prev[mbx] = len(msgs) - 1
                if partner_box is not None and partner_box[0] != mbx:  # the colleague's own copy
                    msgs.append([partner_box[0], tid, partner_folder if ours else "sent", sender, sender_addr, to,
                                 cc if k == 0 else "", subj, body, t, prev.get(partner_box[0])])
                    prev[partner_box[0]] = len(msgs) - 1
                t = min(now - timedelta(minutes=rng.randint(5, 600)), t + timedelta(minutes=rng.randint(20, 2880)))
    order = sorted(range(len(msgs)), key=lambda i: (msgs[i][9], i))
    ids = {}
    for n, i in enumerate(order, 1):
        ids[i] = f"MSG-{n:05d}"
    rows_out, tagged = [], []
    newest_in_thread: dict[tuple[str, str], datetime] = {}
    for m in msgs:
        key = (m[0], m[1])
        newest_in_thread[key] = max(newest_in_thread.get(key, m[9]), m[9])
    for i in order:
        mbx, tid, folder, fname, faddr, to, cc, subj, body, t, reply_to = msgs[i]
        recent = t >= now - timedelta(days=5) and t == newest_in_thread[(mbx, tid)]
        unread = folder == "inbox" and recent and rng.random() < 0.6
        starred = rng.random() < 0.06
        rows_out.append((ids[i], mbx, tid, folder, fname, faddr, to, cc, subj, body, _iso(t), 0 if unread else 1, int(starred),
                         ids.get(reply_to) if reply_to is not None else None))
        if rng.random() < 0.3:
            tagged.append((ids[i], rng.choice(label_ids[mbx])))
    db.executemany("INSERT INTO threads VALUES (?,?,?)", threads)
    db.executemany("INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows_out)
    db.executemany("INSERT OR IGNORE INTO message_labels VALUES (?,?)", tagged)

    drafts: list[tuple[Any, ...]] = []
    for mbx, owner, own, *_ in mailboxes:
        for _ in range(rng.randint(0, 3)):
            name, addr, _c = rng.choice(externals[mbx])
            subject_t, opening, _r = CONVERSATIONS[rng.randrange(len(CONVERSATIONS))]
            topic()
            incomplete = rng.random()
            to = "" if incomplete < 0.15 else addr
            subject = "" if 0.15 <= incomplete < 0.3 else fill(subject_t, "")
            drafts.append((f"DRF-{len(drafts) + 1:04d}", mbx, None, None, to, "", subject, fill(opening, name.split()[0]),
                           _iso(fake.moment(rng, now, 14, 0))))
    db.executemany("INSERT INTO drafts VALUES (?,?,?,?,?,?,?,?,?)", drafts)


email = Server("email", "Email: mailboxes, contacts, folders, threads, labels, drafts and search; sent mail is append-only.", SCHEMA, seed)

MailboxId = Annotated[str, Field(max_length=40, description="Mailbox id, e.g. 'MBX-0003'"), Entity("mailbox")]
MessageId = Annotated[str, Field(max_length=40, description="Message id, e.g. 'MSG-01242'"), Entity("message")]
ThreadId = Annotated[str, Field(max_length=40, description="Thread id, e.g. 'THR-0025'"), Entity("thread")]
DraftId = Annotated[str, Field(max_length=40, description="Draft id, e.g. 'DRF-0004'"), Entity("draft")]
Address = Annotated[str, Field(pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$", max_length=254,
                               description="An email address, e.g. 'ana.lee@redwoodpartners.example.com'")]
Addresses = Annotated[list[Address], Field(max_length=50, description="Email addresses, e.g. ['ana.lee@redwoodpartners.example.com']")]
LabelName = Annotated[str, Field(min_length=1, max_length=40, description="Label name, e.g. 'Follow up'")]
DateStr = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="A date 'YYYY-MM-DD', e.g. '2026-05-20'")]
Folder = Literal["inbox", "archive", "trash", "sent"]
SUMMARY = ("m.message_id, m.thread_id, m.folder, m.from_name, m.from_address, m.to_addresses, m.subject, m.sent_at, "
           "m.is_read, m.is_starred")


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def _day(value: str, name: str) -> str:
    try:
        d = datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a real date; write it as 'YYYY-MM-DD', e.g. '2026-05-20'.") from None
    return d.date().isoformat()


def _mailbox(ctx: Ctx, mailbox_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM mailboxes WHERE mailbox_id = ?", (mailbox_id,),
                 f"No mailbox {mailbox_id!r}. Use list_mailboxes to find mailbox ids.")


def _message(ctx: Ctx, message_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM messages WHERE message_id = ?", (message_id,),
                 f"No message {message_id!r}. Use list_messages or search_messages to find message ids.")


def _draft(ctx: Ctx, draft_id: str) -> dict[str, Any]:
    return fetch(ctx.db, "SELECT * FROM drafts WHERE draft_id = ?", (draft_id,),
                 f"No draft {draft_id!r}. Use list_drafts to see a mailbox's drafts (a sent draft no longer exists).")


def _label(ctx: Ctx, mailbox_id: str, name: str) -> dict[str, Any]:
    found = rows(ctx.db.execute("SELECT * FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", (mailbox_id, name.strip())))
    if not found:
        known = [r[0] for r in ctx.db.execute("SELECT name FROM labels WHERE mailbox_id = ? ORDER BY name", (mailbox_id,))]
        raise ToolError(f"Mailbox {mailbox_id} has no label {name!r}; its labels are {known}. Create it with create_label first.")
    return found[0]


def _flags(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for m in found:
        m["is_read"], m["is_starred"] = bool(m["is_read"]), bool(m["is_starred"])
    return found


def _split(text: str) -> list[str]:
    return [a for a in text.split(", ") if a]


def _message_view(ctx: Ctx, msg: dict[str, Any]) -> dict[str, Any]:
    out = _flags([dict(msg)])[0]
    out["to_addresses"], out["cc_addresses"] = _split(msg["to_addresses"]), _split(msg["cc_addresses"])
    out["labels"] = [r[0] for r in ctx.db.execute(
        "SELECT l.name FROM message_labels ml JOIN labels l USING (label_id) WHERE ml.message_id = ? ORDER BY l.name", (msg["message_id"],))]
    return out


def _draft_view(d: dict[str, Any]) -> dict[str, Any]:
    out = dict(d)
    out["to_addresses"], out["cc_addresses"] = _split(d["to_addresses"]), _split(d["cc_addresses"])
    missing = [what for what, ok in (("a 'to' recipient", d["to_addresses"]), ("a subject", d["subject"].strip())) if not ok]
    out["ready_to_send"] = not missing
    out["missing"] = missing
    return out


def _join(addresses: list[str]) -> str:
    return ", ".join(dict.fromkeys(a.strip().lower() for a in addresses))


# Read tools -------------------------------------------------------------------------------------


@email.read(returns=("mailbox",))
def list_mailboxes(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of the owner's name, address or department, e.g. 'Garcia'")] = "",
                   limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Find mailboxes by owner name, address or department, with unread inbox counts, e.g. list_mailboxes('Garcia'). Ids look like 'MBX-0003'."""
    like = f"%{query}%"
    found = rows(ctx.db.execute(
        "SELECT b.mailbox_id, b.owner_name, b.address, b.department, "
        "(SELECT COUNT(*) FROM messages m WHERE m.mailbox_id = b.mailbox_id AND m.folder = 'inbox' AND m.is_read = 0) AS unread "
        "FROM mailboxes b WHERE b.owner_name LIKE ? OR b.address LIKE ? OR b.department LIKE ? "
        "ORDER BY b.mailbox_id LIMIT ? OFFSET ?", (like, like, like, limit, offset)))
    return {"mailboxes": found, "count": len(found)}


@email.read(returns=("contact",))
def list_contacts(ctx: Ctx, mailbox_id: MailboxId,
                  query: Annotated[str, Field(max_length=100, description="Part of a name, address or company, e.g. 'Redwood'")] = "",
                  favorites_only: bool = False, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List a mailbox's contacts, optionally matching a name, address or company, e.g. list_contacts('MBX-0003', query='Redwood')."""
    _mailbox(ctx, mailbox_id)
    like = f"%{query}%"
    sql = "SELECT * FROM contacts WHERE mailbox_id = ? AND (name LIKE ? OR email LIKE ? OR company LIKE ?)"
    if favorites_only:
        sql += " AND is_favorite = 1"
    found = rows(ctx.db.execute(sql + " ORDER BY name, contact_id LIMIT ? OFFSET ?", (mailbox_id, like, like, like, limit, offset)))
    for c in found:
        c["is_favorite"] = bool(c["is_favorite"])
    return {"contacts": found, "count": len(found)}


@email.read(returns=("message", "thread"))
def list_messages(ctx: Ctx, mailbox_id: MailboxId, folder: Folder = "inbox",
                  label: Annotated[str | None, Field(min_length=1, max_length=40, description="Only messages with this label, e.g. 'Follow up'")] = None,
                  unread_only: bool = False, starred_only: bool = False,
                  limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List the messages in one folder of a mailbox, newest first, e.g. list_messages('MBX-0003', 'inbox', unread_only=True)."""
    _mailbox(ctx, mailbox_id)
    sql, args = f"SELECT {SUMMARY} FROM messages m WHERE m.mailbox_id = ? AND m.folder = ?", [mailbox_id, folder]
    if label is not None:
        sql += " AND m.message_id IN (SELECT message_id FROM message_labels WHERE label_id = ?)"
        args.append(_label(ctx, mailbox_id, label)["label_id"])
    if unread_only:
        sql += " AND m.is_read = 0"
    if starred_only:
        sql += " AND m.is_starred = 1"
    found = _flags(rows(ctx.db.execute(sql + " ORDER BY m.sent_at DESC, m.message_id DESC LIMIT ? OFFSET ?", (*args, limit, offset))))
    return {"mailbox_id": mailbox_id, "folder": folder, "messages": found, "count": len(found)}


@email.read(returns=("message", "thread"))
def search_messages(ctx: Ctx, mailbox_id: MailboxId,
                    query: Annotated[str, Field(max_length=100, description="Words in the subject, body, sender or recipients, e.g. 'invoice'")] = "",
                    from_address: Annotated[str | None, Field(max_length=254, description="Part of the sender's address, e.g. 'redwoodpartners'")] = None,
                    folder: Folder | None = None,
                    after: Annotated[DateStr | None, Field(description="Sent on or after this day, e.g. '2026-05-01'")] = None,
                    before: Annotated[DateStr | None, Field(description="Sent before this day, e.g. '2026-06-01'")] = None,
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search all folders of a mailbox (or one folder) by text, sender and date, newest first, e.g. search_messages('MBX-0003', 'invoice', after='2026-05-01')."""
    _mailbox(ctx, mailbox_id)
    sql, args = f"SELECT {SUMMARY} FROM messages m WHERE m.mailbox_id = ?", [mailbox_id]
    for word in query.split()[:8]:
        sql += " AND (m.subject LIKE ? OR m.body LIKE ? OR m.from_name LIKE ? OR m.from_address LIKE ? OR m.to_addresses LIKE ?)"
        args += [f"%{word}%"] * 5
    if from_address:
        sql += " AND m.from_address LIKE ?"
        args.append(f"%{from_address.strip()}%")
    if folder is not None:
        sql += " AND m.folder = ?"
        args.append(folder)
    lo = _day(after, "after") if after else None
    hi = _day(before, "before") if before else None
    if lo and hi and hi <= lo:
        raise ToolError("before must be a later day than after.")
    if lo:
        sql += " AND m.sent_at >= ?"
        args.append(lo)
    if hi:
        sql += " AND m.sent_at < ?"
        args.append(hi)
    found = _flags(rows(ctx.db.execute(sql + " ORDER BY m.sent_at DESC, m.message_id DESC LIMIT ? OFFSET ?", (*args, limit, offset))))
    return {"messages": found, "count": len(found)}


@email.read(returns=("message", "thread", "mailbox"))
def get_message(ctx: Ctx, message_id: MessageId) -> dict[str, Any]:
    """Read one message in full (body, recipients, labels, folder, flags), e.g. get_message('MSG-01242'). Reading does not mark it read; use mark_message."""
    return _message_view(ctx, _message(ctx, message_id))


@email.read(returns=("thread", "message"))
def get_thread(ctx: Ctx, thread_id: ThreadId, mailbox_id: MailboxId) -> dict[str, Any]:
    """The messages of a conversation as one mailbox sees them, oldest first, e.g. get_thread('THR-0025', 'MBX-0003')."""
    thread = fetch(ctx.db, "SELECT * FROM threads WHERE thread_id = ?", (thread_id,),
                   f"No thread {thread_id!r}. Message results carry their thread_id.")
    _mailbox(ctx, mailbox_id)
    found = _flags(rows(ctx.db.execute(f"SELECT {SUMMARY}, m.body FROM messages m WHERE m.thread_id = ? AND m.mailbox_id = ? "
                                       "ORDER BY m.sent_at, m.message_id", (thread_id, mailbox_id))))
    if not found:
        raise ToolError(f"Mailbox {mailbox_id} has no messages in thread {thread_id}; check which mailbox the thread belongs to.")
    return {**thread, "mailbox_id": mailbox_id, "messages": found, "count": len(found)}


@email.read(returns=("draft",))
def list_drafts(ctx: Ctx, mailbox_id: MailboxId, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List a mailbox's unsent drafts, newest first, with what each still lacks before it can be sent, e.g. list_drafts('MBX-0003')."""
    _mailbox(ctx, mailbox_id)
    found = rows(ctx.db.execute("SELECT * FROM drafts WHERE mailbox_id = ? ORDER BY updated_at DESC, draft_id DESC LIMIT ? OFFSET ?",
                                (mailbox_id, limit, offset)))
    return {"drafts": [_draft_view(d) for d in found], "count": len(found)}


@email.read(returns=("label",))
def list_labels(ctx: Ctx, mailbox_id: MailboxId) -> dict[str, Any]:
    """List a mailbox's labels with how many messages carry each, e.g. list_labels('MBX-0003')."""
    _mailbox(ctx, mailbox_id)
    found = rows(ctx.db.execute(
        "SELECT l.label_id, l.name, l.color, (SELECT COUNT(*) FROM message_labels ml WHERE ml.label_id = l.label_id) AS messages "
        "FROM labels l WHERE l.mailbox_id = ? ORDER BY l.name", (mailbox_id,)))
    return {"mailbox_id": mailbox_id, "labels": found, "count": len(found)}


DISTINCT_FIELDS = {"folder": ("messages", "folder"), "label": ("labels", "name"), "department": ("mailboxes", "department"),
                   "contact_company": ("contacts", "company"), "sender_address": ("messages", "from_address")}


@email.read()
def get_distinct_values(ctx: Ctx, field: Literal["folder", "label", "department", "contact_company", "sender_address"]) -> dict[str, Any]:
    """The distinct values of a field with their counts (the 100 most frequent), e.g. get_distinct_values('label')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} GROUP BY {column} ORDER BY COUNT(*) DESC, {column} LIMIT 100").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


# Write tools ------------------------------------------------------------------------------------


@email.write(returns=("draft",))
def create_draft(ctx: Ctx, mailbox_id: MailboxId, to: Addresses = [], cc: Addresses = [],  # noqa: B006
                 subject: Annotated[str, Field(max_length=200, description="Subject line, e.g. 'Q3 planning'")] = "",
                 body: Annotated[str, Field(max_length=10_000, description="Message text")] = "",
                 reply_to_message_id: Annotated[str | None, Field(max_length=40, description="Reply to this message of the same mailbox, e.g. 'MSG-01242'"), Entity("message")] = None) -> dict[str, Any]:
    """Start a draft in a mailbox, optionally as a reply, e.g. create_draft('MBX-0003', to=['ana.lee@redwoodpartners.example.com'], subject='Q3 planning').

    A reply joins the original's thread; its recipients default to the original sender (or, replying to
    your own sent message, its recipients) and its subject to 'Re: <subject>'. Send it with send_draft."""
    box = _mailbox(ctx, mailbox_id)
    thread_id = None
    if reply_to_message_id is not None:
        orig = _message(ctx, reply_to_message_id)
        if orig["mailbox_id"] != mailbox_id:
            raise ToolError(f"Message {reply_to_message_id} is in mailbox {orig['mailbox_id']}, not {mailbox_id}; reply from the mailbox that holds it.")
        thread_id = orig["thread_id"]
        if not to:
            to = _split(orig["to_addresses"]) if orig["from_address"] == box["address"] else [orig["from_address"]]
        if not subject:
            subject = orig["subject"] if orig["subject"].startswith("Re: ") else f"Re: {orig['subject']}"
    if len(to) + len(cc) > 50:
        raise ToolError("A message may have at most 50 recipients in to and cc together.")
    draft_id = next_id(ctx.db, "drafts", "draft_id", "DRF")
    ctx.db.execute("INSERT INTO drafts VALUES (?,?,?,?,?,?,?,?,?)",
                   (draft_id, mailbox_id, thread_id, reply_to_message_id, _join(to), _join(cc), subject, body, _iso(ctx.now)))
    return _draft_view(_draft(ctx, draft_id))


@email.write(returns=("draft",), requires=("create_draft",))
def update_draft(ctx: Ctx, draft_id: DraftId, to: Annotated[list[Address] | None, Field(max_length=50, description="Replaces the 'to' list")] = None,
                 cc: Annotated[list[Address] | None, Field(max_length=50, description="Replaces the 'cc' list")] = None,
                 subject: Annotated[str | None, Field(max_length=200, description="New subject")] = None,
                 body: Annotated[str | None, Field(max_length=10_000, description="New message text")] = None) -> dict[str, Any]:
    """Change an unsent draft's recipients, subject or body, e.g. update_draft('DRF-0004', subject='Updated proposal')."""
    d = _draft(ctx, draft_id)
    changes = {k: v for k, v in (("to_addresses", None if to is None else _join(to)), ("cc_addresses", None if cc is None else _join(cc)),
                                 ("subject", subject), ("body", body)) if v is not None and v != d[k]}
    if not changes:
        raise ToolError("Nothing to change: give to, cc, subject or body with a value different from the draft's.")
    new = {**d, **changes}
    if len(_split(new["to_addresses"])) + len(_split(new["cc_addresses"])) > 50:
        raise ToolError("A message may have at most 50 recipients in to and cc together.")
    sets = ", ".join(f"{k} = ?" for k in changes)
    ctx.db.execute(f"UPDATE drafts SET {sets}, updated_at = ? WHERE draft_id = ?", (*changes.values(), _iso(ctx.now), draft_id))
    return _draft_view(_draft(ctx, draft_id))


@email.write(returns=("message", "thread"), requires=("create_draft",))
def send_draft(ctx: Ctx, draft_id: DraftId) -> dict[str, Any]:
    """Send a draft, e.g. send_draft('DRF-0004'). It needs at least one 'to' recipient and a subject.

    The draft becomes a message in the sender's 'sent' folder (append-only from then on) and is
    delivered to the inbox of every recipient who has a mailbox here."""
    d = _draft(ctx, draft_id)
    missing = _draft_view(d)["missing"]
    if missing:
        raise ToolError(f"Draft {draft_id} cannot be sent: it needs {' and '.join(missing)}. Add it with update_draft, then send again.")
    box = _mailbox(ctx, d["mailbox_id"])
    thread_id = d["thread_id"]
    if thread_id is None or not ctx.db.execute("SELECT 1 FROM threads WHERE thread_id = ?", (thread_id,)).fetchone():
        thread_id = next_id(ctx.db, "threads", "thread_id", "THR")
        ctx.db.execute("INSERT INTO threads VALUES (?,?,?)", (thread_id, d["subject"], _iso(ctx.now)))
    message_id = next_id(ctx.db, "messages", "message_id", "MSG", 5)
    row = [message_id, box["mailbox_id"], thread_id, "sent", box["owner_name"], box["address"], d["to_addresses"], d["cc_addresses"],
           d["subject"], d["body"], _iso(ctx.now), 1, 0, d["in_reply_to"]]
    ctx.db.execute("INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
    delivered = []
    for addr in dict.fromkeys(_split(d["to_addresses"]) + _split(d["cc_addresses"])):
        target = ctx.db.execute("SELECT mailbox_id FROM mailboxes WHERE address = ?", (addr,)).fetchone()
        if target is None:
            continue
        copy_id = next_id(ctx.db, "messages", "message_id", "MSG", 5)
        ctx.db.execute("INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       (copy_id, target[0], thread_id, "inbox", *row[4:11], 0, 0, None))
        delivered.append({"mailbox_id": target[0], "message_id": copy_id})
    ctx.db.execute("DELETE FROM drafts WHERE draft_id = ?", (draft_id,))
    return {"message_id": message_id, "thread_id": thread_id, "folder": "sent", "sent_at": _iso(ctx.now),
            "recipients": _split(d["to_addresses"]) + _split(d["cc_addresses"]), "delivered": delivered}


@email.write()
def move_message(ctx: Ctx, message_id: MessageId, folder: Literal["inbox", "archive", "trash"]) -> dict[str, Any]:
    """Move a received message between folders, e.g. move_message('MSG-01242', 'archive').

    Only inbox messages can be archived or trashed; archived or trashed mail goes back with
    folder='inbox'. Sent messages are append-only and never move."""
    msg = _message(ctx, message_id)
    if msg["folder"] == "sent":
        raise ToolError(f"Message {message_id} is sent mail, which is append-only: it cannot be moved, trashed or edited.")
    if msg["folder"] == folder:
        raise ToolError(f"Message {message_id} is already in {folder}.")
    if folder in ("archive", "trash") and msg["folder"] != "inbox":
        raise ToolError(f"Message {message_id} is in {msg['folder']}; only inbox messages can go to {folder}. Move it to the inbox first.")
    ctx.db.execute("UPDATE messages SET folder = ? WHERE message_id = ?", (folder, message_id))
    return {"message_id": message_id, "folder": folder, "previous_folder": msg["folder"]}


@email.write()
def mark_message(ctx: Ctx, message_id: MessageId,
                 is_read: Annotated[bool | None, Field(description="true: mark read; false: mark unread")] = None,
                 is_starred: Annotated[bool | None, Field(description="true: star; false: unstar")] = None) -> dict[str, Any]:
    """Mark a message read or unread and/or star or unstar it, e.g. mark_message('MSG-01242', is_starred=True)."""
    msg = _message(ctx, message_id)
    if is_read is None and is_starred is None:
        raise ToolError("Give is_read and/or is_starred.")
    if is_read is False and msg["folder"] == "sent":
        raise ToolError(f"Message {message_id} is sent mail; sent messages are always read.")
    changes = {k: int(v) for k, v in (("is_read", is_read), ("is_starred", is_starred)) if v is not None and int(v) != msg[k]}
    if not changes:
        raise ToolError(f"Message {message_id} already has is_read={bool(msg['is_read'])}, is_starred={bool(msg['is_starred'])}; nothing to change.")
    sets = ", ".join(f"{k} = ?" for k in changes)
    ctx.db.execute(f"UPDATE messages SET {sets} WHERE message_id = ?", (*changes.values(), message_id))
    new = {**msg, **changes}
    return {"message_id": message_id, "is_read": bool(new["is_read"]), "is_starred": bool(new["is_starred"])}


@email.write(returns=("label",))
def label_message(ctx: Ctx, message_id: MessageId, label: LabelName,
                  remove: Annotated[bool, Field(description="true to take the label off instead")] = False) -> dict[str, Any]:
    """Put a label on a message, or take it off with remove=true, e.g. label_message('MSG-01242', 'Follow up').

    The label must already exist in the message's mailbox (see list_labels, create_label); trashed messages take no labels."""
    msg = _message(ctx, message_id)
    lab = _label(ctx, msg["mailbox_id"], label)
    has = ctx.db.execute("SELECT 1 FROM message_labels WHERE message_id = ? AND label_id = ?", (message_id, lab["label_id"])).fetchone()
    if remove:
        if not has:
            raise ToolError(f"Message {message_id} does not carry the label '{lab['name']}'.")
        ctx.db.execute("DELETE FROM message_labels WHERE message_id = ? AND label_id = ?", (message_id, lab["label_id"]))
    else:
        if msg["folder"] == "trash":
            raise ToolError(f"Message {message_id} is in the trash; move it to the inbox before labelling it.")
        if has:
            raise ToolError(f"Message {message_id} already carries the label '{lab['name']}'.")
        ctx.db.execute("INSERT INTO message_labels VALUES (?,?)", (message_id, lab["label_id"]))
    labels = _message_view(ctx, _message(ctx, message_id))["labels"]
    return {"message_id": message_id, "label_id": lab["label_id"], "labels": labels}


@email.write(returns=("label",))
def create_label(ctx: Ctx, mailbox_id: MailboxId, name: LabelName,
                 color: Literal["red", "orange", "yellow", "green", "blue", "purple", "gray", "teal"] = "gray") -> dict[str, Any]:
    """Create a label in a mailbox, e.g. create_label('MBX-0003', 'Board prep', 'purple'). Names are unique per mailbox; folder names are reserved."""
    _mailbox(ctx, mailbox_id)
    clean = " ".join(name.split())
    if not clean:
        raise ToolError("A label name cannot be blank.")
    if clean.lower() in RESERVED:
        raise ToolError(f"'{clean}' is a reserved folder name; choose another label name.")
    existing = ctx.db.execute("SELECT label_id FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", (mailbox_id, clean)).fetchone()
    if existing:
        raise ToolError(f"Mailbox {mailbox_id} already has the label '{clean}' ({existing[0]}); use it with label_message.")
    if ctx.db.execute("SELECT COUNT(*) FROM labels WHERE mailbox_id = ?", (mailbox_id,)).fetchone()[0] >= 30:
        raise ToolError(f"Mailbox {mailbox_id} already has the maximum of 30 labels.")
    label_id = next_id(ctx.db, "labels", "label_id", "LBL")
    ctx.db.execute("INSERT INTO labels VALUES (?,?,?,?)", (label_id, mailbox_id, clean, color))
    return {"label_id": label_id, "mailbox_id": mailbox_id, "name": clean, "color": color}


@email.write(returns=("contact",))
def add_contact(ctx: Ctx, mailbox_id: MailboxId, name: Annotated[str, Field(min_length=1, max_length=100, description="Full name, e.g. 'Ana Lee'")],
                address: Address, company: Annotated[str, Field(max_length=100, description="Company, e.g. 'Redwood Partners'")] = "",
                phone: Annotated[str, Field(max_length=30, pattern=r"^[+0-9 ()-]*$", description="Phone, e.g. '+1-415-555-0100'")] = "",
                is_favorite: bool = False) -> dict[str, Any]:
    """Save a contact in a mailbox's address book, e.g. add_contact('MBX-0003', 'Ana Lee', 'ana.lee@redwoodpartners.example.com', 'Redwood Partners')."""
    box = _mailbox(ctx, mailbox_id)
    addr = address.strip().lower()
    if not name.strip():
        raise ToolError("A contact needs a non-blank name.")
    if addr == box["address"]:
        raise ToolError("That is the mailbox's own address; contacts are other people.")
    dup = ctx.db.execute("SELECT contact_id, name FROM contacts WHERE mailbox_id = ? AND email = ?", (mailbox_id, addr)).fetchone()
    if dup:
        raise ToolError(f"{addr} is already a contact ({dup[0]}, {dup[1]}) in {mailbox_id}.")
    contact_id = next_id(ctx.db, "contacts", "contact_id", "CON")
    ctx.db.execute("INSERT INTO contacts VALUES (?,?,?,?,?,?,?)", (contact_id, mailbox_id, name.strip(), addr, company, phone, int(is_favorite)))
    return {"contact_id": contact_id, "mailbox_id": mailbox_id, "name": name.strip(), "email": addr, "company": company}


server = email
