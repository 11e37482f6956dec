"""The email tools: mailboxes, contacts, folders, threads, labels and drafts."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, EntityId, IsoDate, Limit, Offset, Query, Server, ToolError
from servers.email.schema import SCHEMA
from servers.email.seed import seed

email = Server(
    "email",
    "Email: mailboxes, contacts, folders, threads, labels, drafts and search; sent mail is append-only.",
    SCHEMA,
    seed,
    family="comms",
    id_max_length=40,
)


class MailboxId(EntityId, server=email, table="mailboxes", example="MBX-0003", finder="list_mailboxes"): ...


class MessageId(
    EntityId, server=email, example="MSG-01242", hint="Use list_messages or search_messages to find message ids."
): ...


class ThreadId(EntityId, server=email, example="THR-0025", hint="Message results carry their thread_id."): ...


class DraftId(
    EntityId,
    server=email,
    example="DRF-0004",
    hint="Use list_drafts to see a mailbox's drafts (a sent draft no longer exists).",
): ...


Address = Annotated[
    str,
    Field(
        pattern=r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$",
        max_length=254,
        description="An email address, e.g. 'ana.lee@redwoodpartners.example.com'",
    ),
]
Addresses = Annotated[
    list[Address], Field(max_length=50, description="Email addresses, e.g. ['ana.lee@redwoodpartners.example.com']")
]
LabelName = Annotated[str, Field(min_length=1, max_length=40, description="Label name, e.g. 'Follow up'")]
DateStr = Annotated[IsoDate, Field(description="A date 'YYYY-MM-DD', e.g. '2026-05-20'")]
Folder = Literal["inbox", "archive", "trash", "sent"]
SUMMARY = (
    "m.message_id, m.thread_id, m.folder, m.from_name, m.from_address, m.to_addresses, m.subject, m.sent_at, "
    "m.is_read, m.is_starred"
)


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def _day(value: str, name: str) -> str:
    try:
        d = datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a real date; write it as 'YYYY-MM-DD', e.g. '2026-05-20'.") from None
    return d.date().isoformat()


def _label(ctx: Ctx, mailbox_id: str, name: str) -> dict[str, Any]:
    found = ctx.rows("SELECT * FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", (mailbox_id, name.strip()))
    if not found:
        known = ctx.column("SELECT name FROM labels WHERE mailbox_id = ? ORDER BY name", (mailbox_id,))
        raise ToolError(
            f"Mailbox {mailbox_id} has no label {name!r}; its labels are {known}. Create it with create_label first."
        )
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
    out["labels"] = ctx.column(
        "SELECT l.name FROM message_labels ml JOIN labels l USING (label_id) WHERE ml.message_id = ? ORDER BY l.name",
        (msg["message_id"],),
    )
    return out


def _draft_view(d: dict[str, Any]) -> dict[str, Any]:
    out = dict(d)
    out["to_addresses"], out["cc_addresses"] = _split(d["to_addresses"]), _split(d["cc_addresses"])
    missing = [
        what for what, ok in (("a 'to' recipient", d["to_addresses"]), ("a subject", d["subject"].strip())) if not ok
    ]
    out["ready_to_send"] = not missing
    out["missing"] = missing
    return out


def _join(addresses: list[str]) -> str:
    return ", ".join(dict.fromkeys(a.strip().lower() for a in addresses))


# Read tools -------------------------------------------------------------------------------------


@email.read(returns=("mailbox",))
def list_mailboxes(
    ctx: Ctx,
    query: Annotated[
        str, Field(max_length=100, description="Part of the owner's name, address or department, e.g. 'Garcia'")
    ] = "",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Find mailboxes by owner name, address or department, with unread inbox counts, e.g. list_mailboxes('Garcia'). Ids
    look like 'MBX-0003'."""
    q = Query(
        "SELECT b.mailbox_id, b.owner_name, b.address, b.department, (SELECT COUNT(*) FROM messages m "
        "WHERE m.mailbox_id = b.mailbox_id AND m.folder = 'inbox' AND m.is_read = 0) AS unread FROM mailboxes b"
    )
    q.contains(query, "b.owner_name", "b.address", "b.department")
    return q.page(ctx.db, "mailboxes", order_by="b.mailbox_id", limit=limit, offset=offset)


@email.read(returns=("contact",))
def list_contacts(
    ctx: Ctx,
    mailbox_id: MailboxId,
    query: Annotated[str, Field(max_length=100, description="Part of a name, address or company, e.g. 'Redwood'")] = "",
    favorites_only: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List a mailbox's contacts, optionally matching a name, address or company, e.g.
    list_contacts('MBX-0003', query='Redwood')."""
    MailboxId.get(ctx, mailbox_id)
    q = Query("SELECT * FROM contacts").where("mailbox_id = ?", mailbox_id).contains(query, "name", "email", "company")
    if favorites_only:
        q.where("is_favorite = 1")
    out = q.page(ctx.db, "contacts", order_by="name, contact_id", limit=limit, offset=offset)
    for c in out["contacts"]:
        c["is_favorite"] = bool(c["is_favorite"])
    return out


@email.read(returns=("message", "thread"))
def list_messages(
    ctx: Ctx,
    mailbox_id: MailboxId,
    folder: Folder = "inbox",
    label: Annotated[
        str | None, Field(min_length=1, max_length=40, description="Only messages with this label, e.g. 'Follow up'")
    ] = None,
    unread_only: bool = False,
    starred_only: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List the messages in one folder of a mailbox, newest first, e.g.
    list_messages('MBX-0003', 'inbox', unread_only=True)."""
    MailboxId.get(ctx, mailbox_id)
    q = Query(f"SELECT {SUMMARY} FROM messages m").where("m.mailbox_id = ? AND m.folder = ?", mailbox_id, folder)
    if label is not None:
        q.where(
            "m.message_id IN (SELECT message_id FROM message_labels WHERE label_id = ?)",
            _label(ctx, mailbox_id, label)["label_id"],
        )
    if unread_only:
        q.where("m.is_read = 0")
    if starred_only:
        q.where("m.is_starred = 1")
    found = _flags(q.rows(ctx.db, "m.sent_at DESC, m.message_id DESC", limit, offset))
    return {"mailbox_id": mailbox_id, "folder": folder, "messages": found, "count": len(found)}


@email.read(returns=("message", "thread"))
def search_messages(
    ctx: Ctx,
    mailbox_id: MailboxId,
    query: Annotated[
        str, Field(max_length=100, description="Words in the subject, body, sender or recipients, e.g. 'invoice'")
    ] = "",
    from_address: Annotated[
        str | None, Field(max_length=254, description="Part of the sender's address, e.g. 'redwoodpartners'")
    ] = None,
    folder: Folder | None = None,
    after: Annotated[DateStr | None, Field(description="Sent on or after this day, e.g. '2026-05-01'")] = None,
    before: Annotated[DateStr | None, Field(description="Sent before this day, e.g. '2026-06-01'")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search all folders of a mailbox (or one folder) by text, sender and date, newest first, e.g.
    search_messages('MBX-0003', 'invoice', after='2026-05-01')."""
    MailboxId.get(ctx, mailbox_id)
    q = Query(f"SELECT {SUMMARY} FROM messages m").where("m.mailbox_id = ?", mailbox_id)
    for word in query.split()[:8]:
        q.where(
            "(m.subject LIKE ? OR m.body LIKE ? OR m.from_name LIKE ? OR m.from_address LIKE ? "
            "OR m.to_addresses LIKE ?)",
            *[f"%{word}%"] * 5,
        )
    if from_address:
        q.where("m.from_address LIKE ?", f"%{from_address.strip()}%")
    q.equal("m.folder", folder)
    lo = _day(after, "after") if after else None
    hi = _day(before, "before") if before else None
    if lo and hi and hi <= lo:
        raise ToolError("before must be a later day than after.")
    q.filter("m.sent_at >= ?", lo).filter("m.sent_at < ?", hi)
    found = _flags(q.rows(ctx.db, "m.sent_at DESC, m.message_id DESC", limit, offset))
    return {"messages": found, "count": len(found)}


@email.read(returns=("message", "thread", "mailbox"))
def get_message(ctx: Ctx, message_id: MessageId) -> dict[str, Any]:
    """Read one message in full (body, recipients, labels, folder, flags), e.g. get_message('MSG-01242'). Reading does
    not mark it read; use mark_message."""
    return _message_view(ctx, MessageId.get(ctx, message_id))


@email.read(returns=("thread", "message"))
def get_thread(ctx: Ctx, thread_id: ThreadId, mailbox_id: MailboxId) -> dict[str, Any]:
    """The messages of a conversation as one mailbox sees them, oldest first, e.g.
    get_thread('THR-0025', 'MBX-0003')."""
    thread = ThreadId.get(ctx, thread_id)
    MailboxId.get(ctx, mailbox_id)
    found = _flags(
        ctx.rows(
            f"SELECT {SUMMARY}, m.body FROM messages m WHERE m.thread_id = ? AND m.mailbox_id = ? "
            "ORDER BY m.sent_at, m.message_id",
            (thread_id, mailbox_id),
        )
    )
    if not found:
        raise ToolError(
            f"Mailbox {mailbox_id} has no messages in thread {thread_id}; check which mailbox the thread belongs to."
        )
    return {**thread, "mailbox_id": mailbox_id, "messages": found, "count": len(found)}


@email.read(returns=("draft",))
def list_drafts(ctx: Ctx, mailbox_id: MailboxId, limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List a mailbox's unsent drafts, newest first, with what each still lacks before it can be sent, e.g.
    list_drafts('MBX-0003')."""
    MailboxId.get(ctx, mailbox_id)
    found = ctx.rows(
        "SELECT * FROM drafts WHERE mailbox_id = ? ORDER BY updated_at DESC, draft_id DESC LIMIT ? OFFSET ?",
        (mailbox_id, limit, offset),
    )
    return {"drafts": [_draft_view(d) for d in found], "count": len(found)}


@email.read(returns=("label",))
def list_labels(ctx: Ctx, mailbox_id: MailboxId) -> dict[str, Any]:
    """List a mailbox's labels with how many messages carry each, e.g. list_labels('MBX-0003')."""
    MailboxId.get(ctx, mailbox_id)
    found = ctx.rows(
        "SELECT l.label_id, l.name, l.color, (SELECT COUNT(*) FROM message_labels ml WHERE ml.label_id = "
        "l.label_id) AS messages "
        "FROM labels l WHERE l.mailbox_id = ? ORDER BY l.name",
        (mailbox_id,),
    )
    return {"mailbox_id": mailbox_id, "labels": found, "count": len(found)}


email.distinct_values(
    {
        "folder": ("messages", "folder"),
        "label": ("labels", "name"),
        "department": ("mailboxes", "department"),
        "contact_company": ("contacts", "company"),
        "sender_address": ("messages", "from_address"),
    },
    top=100,
    doc="The distinct values of a field with their counts (the 100 most frequent), e.g. get_distinct_values('label').",
)

from servers.email import tools_write  # noqa: E402, F401  (registers the write tools on the server)
