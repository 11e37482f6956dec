"""The email write tools: drafts and sending, moving, marking and labelling messages, labels and contacts."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, next_id
from servers.email.schema import RESERVED
from servers.email.tools import (
    Address,
    Addresses,
    DraftId,
    LabelName,
    MailboxId,
    MessageId,
    _draft_view,
    _iso,
    _join,
    _label,
    _message_view,
    _split,
    email,
)


@email.write(returns=("draft",))
def create_draft(
    ctx: Ctx,
    mailbox_id: MailboxId,
    to: Addresses = [],  # noqa: B006 (pydantic copies a default per call)
    cc: Addresses = [],  # noqa: B006
    subject: Annotated[str, Field(max_length=200, description="Subject line, e.g. 'Q3 planning'")] = "",
    body: Annotated[str, Field(max_length=10_000, description="Message text")] = "",
    reply_to_message_id: Annotated[
        str | None, MessageId.ref("Reply to this message of the same mailbox, e.g. 'MSG-01242'")
    ] = None,
) -> dict[str, Any]:
    """Start a draft in a mailbox, optionally as a reply, e.g.
    create_draft('MBX-0003', to=['ana.lee@redwoodpartners.example.com'], subject='Q3 planning').

    A reply joins the original's thread; its recipients default to the original sender (or, replying to
    your own sent message, its recipients) and its subject to 'Re: <subject>'. Send it with send_draft."""
    box = MailboxId.get(ctx, mailbox_id)
    thread_id = None
    if reply_to_message_id is not None:
        orig = MessageId.get(ctx, reply_to_message_id)
        if orig["mailbox_id"] != mailbox_id:
            raise ToolError(
                f"Message {reply_to_message_id} is in mailbox {orig['mailbox_id']}, not {mailbox_id}; reply from the "
                f"mailbox that holds it."
            )
        thread_id = orig["thread_id"]
        if not to:
            to = _split(orig["to_addresses"]) if orig["from_address"] == box["address"] else [orig["from_address"]]
        if not subject:
            subject = orig["subject"] if orig["subject"].startswith("Re: ") else f"Re: {orig['subject']}"
    if len(to) + len(cc) > 50:
        raise ToolError("A message may have at most 50 recipients in to and cc together.")
    draft_id = next_id(ctx.db, "drafts", "draft_id", "DRF")
    ctx.db.execute(
        "INSERT INTO drafts VALUES (?,?,?,?,?,?,?,?,?)",
        (draft_id, mailbox_id, thread_id, reply_to_message_id, _join(to), _join(cc), subject, body, _iso(ctx.now)),
    )
    return _draft_view(DraftId.get(ctx, draft_id))


@email.write(returns=("draft",), requires=("create_draft",))
def update_draft(
    ctx: Ctx,
    draft_id: DraftId,
    to: Annotated[list[Address] | None, Field(max_length=50, description="Replaces the 'to' list")] = None,
    cc: Annotated[list[Address] | None, Field(max_length=50, description="Replaces the 'cc' list")] = None,
    subject: Annotated[str | None, Field(max_length=200, description="New subject")] = None,
    body: Annotated[str | None, Field(max_length=10_000, description="New message text")] = None,
) -> dict[str, Any]:
    """Change an unsent draft's recipients, subject or body, e.g.
    update_draft('DRF-0004', subject='Updated proposal')."""
    d = DraftId.get(ctx, draft_id)
    changes = {
        k: v
        for k, v in (
            ("to_addresses", None if to is None else _join(to)),
            ("cc_addresses", None if cc is None else _join(cc)),
            ("subject", subject),
            ("body", body),
        )
        if v is not None and v != d[k]
    }
    if not changes:
        raise ToolError("Nothing to change: give to, cc, subject or body with a value different from the draft's.")
    new = {**d, **changes}
    if len(_split(new["to_addresses"])) + len(_split(new["cc_addresses"])) > 50:
        raise ToolError("A message may have at most 50 recipients in to and cc together.")
    DraftId.update(ctx, draft_id, {**changes, "updated_at": _iso(ctx.now)})
    return _draft_view(DraftId.get(ctx, draft_id))


@email.write(returns=("message", "thread"), requires=("create_draft",))
def send_draft(ctx: Ctx, draft_id: DraftId) -> dict[str, Any]:
    """Send a draft, e.g. send_draft('DRF-0004'). It needs at least one 'to' recipient and a subject.

    The draft becomes a message in the sender's 'sent' folder (append-only from then on) and is
    delivered to the inbox of every recipient who has a mailbox here."""
    d = DraftId.get(ctx, draft_id)
    missing = _draft_view(d)["missing"]
    if missing:
        raise ToolError(
            f"Draft {draft_id} cannot be sent: it needs {' and '.join(missing)}. Add it with update_draft, then send "
            f"again."
        )
    box = MailboxId.get(ctx, d["mailbox_id"])
    thread_id = d["thread_id"]
    if thread_id is None or not ctx.db.execute("SELECT 1 FROM threads WHERE thread_id = ?", (thread_id,)).fetchone():
        thread_id = next_id(ctx.db, "threads", "thread_id", "THR")
        ctx.db.execute("INSERT INTO threads VALUES (?,?,?)", (thread_id, d["subject"], _iso(ctx.now)))
    message_id = next_id(ctx.db, "messages", "message_id", "MSG", 5)
    row = [
        message_id,
        box["mailbox_id"],
        thread_id,
        "sent",
        box["owner_name"],
        box["address"],
        d["to_addresses"],
        d["cc_addresses"],
        d["subject"],
        d["body"],
        _iso(ctx.now),
        1,
        0,
        d["in_reply_to"],
    ]
    ctx.db.execute("INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
    delivered = []
    for addr in dict.fromkeys(_split(d["to_addresses"]) + _split(d["cc_addresses"])):
        target = ctx.db.execute("SELECT mailbox_id FROM mailboxes WHERE address = ?", (addr,)).fetchone()
        if target is None:
            continue
        copy_id = next_id(ctx.db, "messages", "message_id", "MSG", 5)
        ctx.db.execute(
            "INSERT INTO messages VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (copy_id, target[0], thread_id, "inbox", *row[4:11], 0, 0, None),
        )
        delivered.append({"mailbox_id": target[0], "message_id": copy_id})
    ctx.db.execute("DELETE FROM drafts WHERE draft_id = ?", (draft_id,))
    return {
        "message_id": message_id,
        "thread_id": thread_id,
        "folder": "sent",
        "sent_at": _iso(ctx.now),
        "recipients": _split(d["to_addresses"]) + _split(d["cc_addresses"]),
        "delivered": delivered,
    }


@email.write()
def move_message(ctx: Ctx, message_id: MessageId, folder: Literal["inbox", "archive", "trash"]) -> dict[str, Any]:
    """Move a received message between folders, e.g. move_message('MSG-01242', 'archive').

    Only inbox messages can be archived or trashed; archived or trashed mail goes back with
    folder='inbox'. Sent messages are append-only and never move."""
    msg = MessageId.get(ctx, message_id)
    if msg["folder"] == "sent":
        raise ToolError(
            f"Message {message_id} is sent mail, which is append-only: it cannot be moved, trashed or edited."
        )
    if msg["folder"] == folder:
        raise ToolError(f"Message {message_id} is already in {folder}.")
    if folder in ("archive", "trash") and msg["folder"] != "inbox":
        raise ToolError(
            f"Message {message_id} is in {msg['folder']}; only inbox messages can go to {folder}. Move it to the "
            f"inbox first."
        )
    ctx.db.execute("UPDATE messages SET folder = ? WHERE message_id = ?", (folder, message_id))
    return {"message_id": message_id, "folder": folder, "previous_folder": msg["folder"]}


@email.write()
def mark_message(
    ctx: Ctx,
    message_id: MessageId,
    is_read: Annotated[bool | None, Field(description="true: mark read; false: mark unread")] = None,
    is_starred: Annotated[bool | None, Field(description="true: star; false: unstar")] = None,
) -> dict[str, Any]:
    """Mark a message read or unread and/or star or unstar it, e.g. mark_message('MSG-01242', is_starred=True)."""
    msg = MessageId.get(ctx, message_id)
    if is_read is None and is_starred is None:
        raise ToolError("Give is_read and/or is_starred.")
    if is_read is False and msg["folder"] == "sent":
        raise ToolError(f"Message {message_id} is sent mail; sent messages are always read.")
    changes = {
        k: int(v) for k, v in (("is_read", is_read), ("is_starred", is_starred)) if v is not None and int(v) != msg[k]
    }
    if not changes:
        raise ToolError(
            f"Message {message_id} already has is_read={bool(msg['is_read'])}, is_starred={bool(msg['is_starred'])}; "
            f"nothing to change."
        )
    MessageId.update(ctx, message_id, changes)
    new = {**msg, **changes}
    return {"message_id": message_id, "is_read": bool(new["is_read"]), "is_starred": bool(new["is_starred"])}


@email.write(returns=("label",))
def label_message(
    ctx: Ctx,
    message_id: MessageId,
    label: LabelName,
    remove: Annotated[bool, Field(description="true to take the label off instead")] = False,
) -> dict[str, Any]:
    """Put a label on a message, or take it off with remove=true, e.g. label_message('MSG-01242', 'Follow up').

    The label must already exist in the message's mailbox (see list_labels, create_label); trashed messages take no
    labels."""
    msg = MessageId.get(ctx, message_id)
    lab = _label(ctx, msg["mailbox_id"], label)
    has = ctx.db.execute(
        "SELECT 1 FROM message_labels WHERE message_id = ? AND label_id = ?", (message_id, lab["label_id"])
    ).fetchone()
    if remove:
        if not has:
            raise ToolError(f"Message {message_id} does not carry the label '{lab['name']}'.")
        ctx.db.execute(
            "DELETE FROM message_labels WHERE message_id = ? AND label_id = ?", (message_id, lab["label_id"])
        )
    else:
        if msg["folder"] == "trash":
            raise ToolError(f"Message {message_id} is in the trash; move it to the inbox before labelling it.")
        if has:
            raise ToolError(f"Message {message_id} already carries the label '{lab['name']}'.")
        ctx.db.execute("INSERT INTO message_labels VALUES (?,?)", (message_id, lab["label_id"]))
    labels = _message_view(ctx, MessageId.get(ctx, message_id))["labels"]
    return {"message_id": message_id, "label_id": lab["label_id"], "labels": labels}


@email.write(returns=("label",))
def create_label(
    ctx: Ctx,
    mailbox_id: MailboxId,
    name: LabelName,
    color: Literal["red", "orange", "yellow", "green", "blue", "purple", "gray", "teal"] = "gray",
) -> dict[str, Any]:
    """Create a label in a mailbox, e.g. create_label('MBX-0003', 'Board prep', 'purple'). Names are unique per mailbox;
    folder names are reserved."""
    MailboxId.get(ctx, mailbox_id)
    clean = " ".join(name.split())
    if not clean:
        raise ToolError("A label name cannot be blank.")
    if clean.lower() in RESERVED:
        raise ToolError(f"'{clean}' is a reserved folder name; choose another label name.")
    existing = ctx.db.execute(
        "SELECT label_id FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", (mailbox_id, clean)
    ).fetchone()
    if existing:
        raise ToolError(
            f"Mailbox {mailbox_id} already has the label '{clean}' ({existing[0]}); use it with label_message."
        )
    if ctx.value("SELECT COUNT(*) FROM labels WHERE mailbox_id = ?", (mailbox_id,)) >= 30:
        raise ToolError(f"Mailbox {mailbox_id} already has the maximum of 30 labels.")
    label_id = next_id(ctx.db, "labels", "label_id", "LBL")
    ctx.db.execute("INSERT INTO labels VALUES (?,?,?,?)", (label_id, mailbox_id, clean, color))
    return {"label_id": label_id, "mailbox_id": mailbox_id, "name": clean, "color": color}


@email.write(returns=("contact",))
def add_contact(
    ctx: Ctx,
    mailbox_id: MailboxId,
    name: Annotated[str, Field(min_length=1, max_length=100, description="Full name, e.g. 'Ana Lee'")],
    address: Address,
    company: Annotated[str, Field(max_length=100, description="Company, e.g. 'Redwood Partners'")] = "",
    phone: Annotated[
        str, Field(max_length=30, pattern=r"^[+0-9 ()-]*$", description="Phone, e.g. '+1-415-555-0100'")
    ] = "",
    is_favorite: bool = False,
) -> dict[str, Any]:
    """Save a contact in a mailbox's address book, e.g.
    add_contact('MBX-0003', 'Ana Lee', 'ana.lee@redwoodpartners.example.com', 'Redwood Partners')."""
    box = MailboxId.get(ctx, mailbox_id)
    addr = address.strip().lower()
    if not name.strip():
        raise ToolError("A contact needs a non-blank name.")
    if addr == box["address"]:
        raise ToolError("That is the mailbox's own address; contacts are other people.")
    dup = ctx.db.execute(
        "SELECT contact_id, name FROM contacts WHERE mailbox_id = ? AND email = ?", (mailbox_id, addr)
    ).fetchone()
    if dup:
        raise ToolError(f"{addr} is already a contact ({dup[0]}, {dup[1]}) in {mailbox_id}.")
    contact_id = next_id(ctx.db, "contacts", "contact_id", "CON")
    ctx.db.execute(
        "INSERT INTO contacts VALUES (?,?,?,?,?,?,?)",
        (contact_id, mailbox_id, name.strip(), addr, company, phone, int(is_favorite)),
    )
    return {"contact_id": contact_id, "mailbox_id": mailbox_id, "name": name.strip(), "email": addr, "company": company}


server = email
