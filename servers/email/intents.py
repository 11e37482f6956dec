"""What people want of email: an employee reading, answering, writing and tidying their own mail.

The user owns a mailbox and says who they are (their name); the agent finds the mailbox with
``list_mailboxes``, messages with ``search_messages`` (words of the subject, the sender) or
``list_messages`` (a folder, unread, starred: "the latest email from Ana in my inbox"), drafts with
``list_drafts`` and addresses with ``list_contacts``. People name an email by who sent it, what it was
about and when, never by its id.

This module holds what the intents share (``SPEAKER``, how an email is named and found); the intents live in
``intents_reading``, ``intents_writing``, ``intents_tidying`` and the short ``intents_followups``. Most open a
dialogue or continue one (``follows=True``): the mailbox owner stays the one talking (``memory["box"]``) and the
email, draft, contact or label the dialogue is about (``memory["message"]``, ``["draft"]``, ``["contact"]``,
``["label"]``) is what the follow-ups act on ("star it too", "and send it").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, day
from hub.kit.phrasings import Said, phrasings, spoken
from hub.kit.speaker import Says, Search, Speaker
from servers.email.tools import MailboxId

WORDS = phrasings(__package__)

OWNERS = (
    "SELECT * FROM mailboxes WHERE owner_name IN (SELECT owner_name FROM mailboxes GROUP BY owner_name "
    "HAVING COUNT(*) = 1)"
)
MESSAGES = "SELECT m.* FROM messages m"
PEOPLE_MAIL = "folder IN ('inbox', 'archive') AND from_address NOT LIKE 'no-reply@%'"
NEW_MAIL = (
    ("Catch-up next week", "Hi {f}, do you have half an hour next week to catch up on the project?"),
    ("Updated proposal", "Hi {f}, the updated proposal is attached. Let me know what you think."),
    ("Quick question", "Hi {f}, quick question: who owns the vendor contract on your side?"),
    ("Thank you", "Hi {f}, thanks again for your help with the launch yesterday."),
    ("Meeting notes", "Hi {f}, here are my notes from today's meeting. Shout if I missed anything."),
)
COLORS = ("red", "orange", "yellow", "green", "blue", "purple", "teal")
TOPICS = (
    ("invoices", "Invoice"),
    ("contract renewals", "Contract"),
    ("budget approvals", "Budget"),
    ("launch checklists", "launch"),
    ("security reviews", "Security"),
    ("expense reports", "Expense"),
)
FOLDER_WORDS = {"inbox": "inbox", "archive": "archive", "trash": "trash", "sent": "sent mail"}
PAGE = 20  # what one listing call shows
UNIQUE_CONTACTS = (
    "SELECT * FROM contacts WHERE mailbox_id = ? AND name IN (SELECT name FROM contacts WHERE mailbox_id = ? "
    "GROUP BY name HAVING COUNT(*) = 1)"
)
FREE_LABELS = (
    "SELECT * FROM labels WHERE mailbox_id = ? AND label_id NOT IN (SELECT label_id FROM message_labels "
    "WHERE message_id = ?)"
)

SPEAKER = Speaker(
    MailboxId,
    select=OWNERS,
    memory="box",
    name="owner_name",
    says=(Says("{owner_name}", "owner_name"),),
    search=Search(by=("owner_name",), missing="the mailbox is not on the first page"),
)
me = SPEAKER.me


def asks(s: Scene, box: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> str:
    """A turn of the mailbox owner: on the opening turn they say who they are (``{me}: `` goes before each
    phrasing), later they just ask; then the agent finds their mailbox (once per dialogue): its id."""
    said = SPEAKER.who(s, box)
    intro = "{me}: " if said else ""
    lines, minimal = spoken(phrasings, minimal)
    s.say(*(intro + p for p in lines), minimal=[intro + p for p in minimal], me=said, **slots)
    return SPEAKER.find(s, box)


def box_of(s: Scene) -> dict[str, Any]:
    """The owner's mailbox, once an earlier turn found it."""
    return dict(s.known("box", "no mailbox in the dialogue yet"))


def core(subject: str) -> str:
    return subject.removeprefix("Re: ").strip()


def looks(m: dict[str, Any]) -> tuple[str, str]:
    """What tells listed emails apart for their owner: the sender and the subject."""
    return m["from_name"], core(m["subject"])


def choose_listed(s: Scene, mid: str, kind: str, **filters: Any) -> dict[str, Any]:
    """The email the owner picks off a listing of their mailbox (``filters``: unread, starred, under a label), named
    by sender and subject (``kind`` says what the listing holds); it becomes what the dialogue is about."""
    listed = s.call("list_messages", mailbox_id=mid, **filters)["messages"]
    what = f"{kind} emails" if kind else "emails"
    m = s.choose(listed, looks, none=f"nothing {kind or 'listed'}", alike=f"two {what} look alike")
    s.memory["message"] = m
    return m


def about(m: dict[str, Any]) -> dict[str, str]:
    """The slots that name a listed email: its sender (``who``) and subject (``subj``)."""
    return {"who": m["from_name"], "subj": core(m["subject"])}


def newest_from(s: Scene, m: dict[str, Any]) -> bool:
    """Whether ``m`` is the newest email from its sender among the first page of its folder."""
    page = s.rows(
        "SELECT message_id, from_name FROM messages WHERE mailbox_id = ? AND folder = ? "
        "ORDER BY sent_at DESC, message_id DESC LIMIT ?",
        m["mailbox_id"],
        m["folder"],
        PAGE,
    )
    return next((r["message_id"] for r in page if r["from_name"] == m["from_name"]), None) == m["message_id"]


def message_ref(s: Scene, m: dict[str, Any]) -> str:
    """An email as its owner recalls it: who sent it and what about (then the day too), or "the latest one from
    Ana in my inbox" (the agent then reads the folder instead of searching). ``memory["how"]`` says which."""
    if m["folder"] != "sent" and s.rng.random() < 0.5 and newest_from(s, m):
        s.memory["how"] = "listing"
        return s.refer(
            m["message_id"],
            Ref(
                "the latest email from {who} in my {folder}",
                "SELECT message_id FROM messages WHERE mailbox_id = ? AND folder = ? AND from_name = ? "
                "ORDER BY sent_at DESC, message_id DESC LIMIT 1",
                m["mailbox_id"],
                m["folder"],
                m["from_name"],
            ),
            who=m["from_name"],
            folder=FOLDER_WORDS[m["folder"]],
        )
    s.memory["how"] = "search"
    subject = core(m["subject"])
    where = "mailbox_id = ? AND folder = ? AND from_name = ? AND (subject = ? OR subject = ?)"
    args = (m["mailbox_id"], m["folder"], m["from_name"], subject, f"Re: {subject}")
    plain = Ref("the '{subj}' email from {who}", f"SELECT message_id FROM messages WHERE {where}", *args)
    dated = Ref(
        "the '{subj}' email {who} sent {when}",
        f"SELECT message_id FROM messages WHERE {where} AND substr(sent_at, 1, 10) = ?",
        *args,
        m["sent_at"][:10],
    )
    when = day(m["sent_at"], s.now)
    refs = (dated,) if s.rng.random() < 0.3 else (plain, dated)  # some people say when it came anyway
    text = s.refer(m["message_id"], *refs, subj=subject, who=m["from_name"], when=when)
    if text.endswith(f" sent {when}"):
        s.memory["when"] = m["sent_at"][:10]  # the agent can narrow the search to that day
    return text


def locate(
    s: Scene, mailbox_id: str, m: dict[str, Any], folder: str | None = None, sender: bool = True
) -> dict[str, Any]:
    """Find the email the way the user described it (``message_ref``): read the folder for "the latest one from
    Ana", else search subject words (and the sender's name). The row found becomes what the dialogue is about."""
    if s.memory.pop("how", "search") == "listing":
        s.memory.pop("when", None)
        args: dict[str, Any] = {"mailbox_id": mailbox_id}
        if m["folder"] != "inbox":
            args["folder"] = m["folder"]
        hit = s.find(
            "list_messages", "messages", "message_id", m["message_id"], missing="not on the first page", **args
        )
    else:
        words = core(m["subject"])
        if sender and s.rng.random() < 0.4:
            words += " " + m["from_name"].split()[-1]
        args = {"mailbox_id": mailbox_id, "query": words}
        if folder:
            args["folder"] = folder
        when = s.memory.pop("when", None)
        if when:
            args["after"] = when
            args["before"] = (date.fromisoformat(when) + timedelta(days=1)).isoformat()
        hit = s.find(
            "search_messages",
            "messages",
            "message_id",
            m["message_id"],
            missing="the email is not on the first page of the search",
            **args,
        )
    s.memory["message"] = hit
    return hit


def received(s: Scene, box: dict[str, Any], where: str, *params: Any) -> dict[str, Any]:
    """An email the owner got (not the one the dialogue is already about)."""
    other = (s.memory.get("message") or {}).get("message_id", "")
    return s.pick(
        MESSAGES + f" WHERE m.mailbox_id = ? AND m.folder != 'sent' AND m.message_id != ? AND ({where})",
        box["mailbox_id"],
        other,
        *params,
    )


def company_of(address: str) -> str:
    """The company behind an address, as people name it ('redwoodpartners.example.com' -> 'Redwood Partners')."""
    slug = address.split("@", 1)[1].split(".", 1)[0]
    names = {"".join(ch for ch in c.lower() if ch.isalnum()): c for c in fake.COMPANIES}
    return names.get(slug, "Northwind")


def first(name: str) -> str:
    return name.split(" ", 1)[0]


def then(s: Scene, calls: int = 1, chance: float = 0.3) -> bool:
    """Whether an intent adds its own next turn: by chance (seldom: the follow-up intents ask the same kind of next
    question, in many more combinations), and only when it fits."""
    return s.by_chance(chance, calls)


STRANGER = (
    "folder != 'sent' AND from_address NOT LIKE 'no-reply@%' AND from_address NOT IN (SELECT email FROM "
    "contacts c WHERE c.mailbox_id = messages.mailbox_id)"
)


def the_email(s: Scene, where: str = "1=1") -> tuple[dict[str, Any], str]:
    """The email the dialogue is about, as it is now (``Skip`` unless it fits ``where``), and how the owner points
    back at it."""
    known = s.known("message", "no email in the dialogue yet")
    found = s.rows(f"SELECT * FROM messages WHERE message_id = ? AND ({where})", known["message_id"])
    if not found:
        raise Skip("the email of the earlier turn does not fit")
    m = found[0]
    if m["folder"] == "sent":
        return m, s.rng.choice(("my email", "the one I sent", "that email"))
    return m, s.rng.choice(("that email", f"{first(m['from_name'])}'s email", f"the '{core(m['subject'])}' one"))


def the_draft(s: Scene, ready: bool = False) -> dict[str, Any]:
    """The draft the dialogue is about (``ready``: only one that can be sent as it is)."""
    known = s.memory.get("draft")
    found = s.rows("SELECT * FROM drafts WHERE draft_id = ?", known["draft_id"]) if known else []
    if not found:
        raise Skip("no draft in the dialogue (any more)")
    if ready and (not found[0]["to_addresses"] or not found[0]["subject"].strip()):
        raise Skip("the draft is not ready to send")
    return found[0]


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]
