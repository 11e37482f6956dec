"""Email: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

E = "email"
BOX = "MBX-0003"


def inbox_message(world: World, box: str = BOX) -> dict:
    return world.ok(E, "list_messages", mailbox_id=box, folder="inbox", limit=1)["messages"][0]


def test_list_mailboxes_and_contacts(world: World) -> None:
    boxes = world.ok(E, "list_mailboxes", limit=100)["mailboxes"]
    assert len(boxes) == 60 and all(b["address"].endswith("@northwind.example.com") for b in boxes)
    assert world.ok(E, "list_mailboxes", query=boxes[0]["owner_name"])["count"] >= 1
    contacts = world.ok(E, "list_contacts", mailbox_id=BOX, limit=100)["contacts"]
    assert contacts and all(c["mailbox_id"] == BOX for c in contacts)
    company = contacts[0]["company"]
    assert all(
        company in (c["company"] + c["name"] + c["email"])
        for c in world.ok(E, "list_contacts", mailbox_id=BOX, query=company)["contacts"]
    )
    assert "No mailbox" in world.err(E, "list_contacts", mailbox_id="MBX-9999")
    assert "invalid arguments" in world.err(E, "list_mailboxes", limit=0)


def test_list_messages_and_labels(world: World) -> None:
    msgs = world.ok(E, "list_messages", mailbox_id=BOX, folder="sent", limit=50)["messages"]
    assert msgs and all(m["folder"] == "sent" for m in msgs)
    assert [m["sent_at"] for m in msgs] == sorted((m["sent_at"] for m in msgs), reverse=True)
    labels = world.ok(E, "list_labels", mailbox_id=BOX)["labels"]
    used = next(lab for lab in labels if lab["messages"] > 0)
    tagged = []
    for folder in ("inbox", "archive", "trash", "sent"):
        tagged += world.ok(E, "list_messages", mailbox_id=BOX, folder=folder, label=used["name"], limit=100)["messages"]
    assert len(tagged) == used["messages"]
    assert "no label" in world.err(E, "list_messages", mailbox_id=BOX, label="Nonexistent")
    assert "invalid arguments" in world.err(E, "list_messages", mailbox_id=BOX, folder="spam")
    assert "No mailbox" in world.err(E, "list_labels", mailbox_id="nope")


def test_search_messages(world: World) -> None:
    found = world.ok(E, "search_messages", mailbox_id=BOX, query="budget", limit=50)["messages"]
    assert found
    for m in found:
        full = world.ok(E, "get_message", message_id=m["message_id"])
        assert (
            "budget"
            in (
                full["subject"]
                + full["body"]
                + full["from_name"]
                + full["from_address"]
                + " ".join(full["to_addresses"])
            ).lower()
        )
    dated = world.ok(E, "search_messages", mailbox_id=BOX, after="2026-05-01", before="2026-05-20", limit=100)[
        "messages"
    ]
    assert all("2026-05-01" <= m["sent_at"] < "2026-05-20" for m in dated)
    assert world.ok(E, "search_messages", mailbox_id=BOX, query="zzzqqq")["count"] == 0
    assert "not a real date" in world.err(E, "search_messages", mailbox_id=BOX, after="2026-02-30")
    assert "later day" in world.err(E, "search_messages", mailbox_id=BOX, after="2026-05-20", before="2026-05-01")


def test_get_message_and_thread(world: World) -> None:
    msg = world.ok(E, "get_message", message_id="MSG-01242")
    assert msg["mailbox_id"] == BOX and isinstance(msg["to_addresses"], list) and "labels" in msg
    thread = world.ok(E, "get_thread", thread_id=msg["thread_id"], mailbox_id=BOX)
    assert "MSG-01242" in [m["message_id"] for m in thread["messages"]]
    assert [m["sent_at"] for m in thread["messages"]] == sorted(m["sent_at"] for m in thread["messages"])
    assert "No message" in world.err(E, "get_message", message_id="MSG-99999")
    assert "has no messages in thread" in world.err(E, "get_thread", thread_id=msg["thread_id"], mailbox_id="MBX-0050")
    assert "No thread" in world.err(E, "get_thread", thread_id="THR-9999", mailbox_id=BOX)


def test_distinct_values(world: World) -> None:
    assert set(world.ok(E, "get_distinct_values", field="folder")["values"]) == {"inbox", "archive", "trash", "sent"}
    assert "Follow up" in world.ok(E, "get_distinct_values", field="label")["values"]
    assert "invalid arguments" in world.err(E, "get_distinct_values", field="password")


def test_draft_lifecycle_and_delivery(world: World) -> None:
    colleague = world.ok(E, "list_mailboxes", limit=10)["mailboxes"][5]
    draft = world.ok(E, "create_draft", mailbox_id=BOX, body="Draft body")
    assert draft["missing"] == ["a 'to' recipient", "a subject"]
    assert "needs a 'to' recipient and a subject" in world.err(E, "send_draft", draft_id=draft["draft_id"])
    world.ok(
        E, "update_draft", draft_id=draft["draft_id"], to=[colleague["address"], "ana.lee@redwoodpartners.example.com"]
    )
    assert "needs a subject" in world.err(E, "send_draft", draft_id=draft["draft_id"])
    world.ok(E, "update_draft", draft_id=draft["draft_id"], subject="Offsite agenda")
    listed = {d["draft_id"]: d for d in world.ok(E, "list_drafts", mailbox_id=BOX, limit=100)["drafts"]}
    assert listed[draft["draft_id"]]["ready_to_send"] and listed[draft["draft_id"]]["subject"] == "Offsite agenda"
    assert "Nothing to change" in world.err(E, "update_draft", draft_id=draft["draft_id"], subject="Offsite agenda")
    before = world.ok(E, "list_messages", mailbox_id=colleague["mailbox_id"], unread_only=True, limit=100)["count"]
    sent = world.ok(E, "send_draft", draft_id=draft["draft_id"])
    assert sent["delivered"] == [
        {"mailbox_id": colleague["mailbox_id"], "message_id": sent["delivered"][0]["message_id"]}
    ]
    mine = world.ok(E, "get_message", message_id=sent["message_id"])
    assert mine["folder"] == "sent" and mine["subject"] == "Offsite agenda" and mine["sent_at"] == "2026-06-01T09:00:00"
    theirs = world.ok(E, "list_messages", mailbox_id=colleague["mailbox_id"], unread_only=True, limit=100)
    assert theirs["count"] == before + 1 and theirs["messages"][0]["thread_id"] == sent["thread_id"]
    assert draft["draft_id"] not in [
        d["draft_id"] for d in world.ok(E, "list_drafts", mailbox_id=BOX, limit=100)["drafts"]
    ]
    assert "No draft" in world.err(E, "send_draft", draft_id=draft["draft_id"])
    assert "No draft" in world.err(E, "update_draft", draft_id=draft["draft_id"], body="late edit")
    assert "invalid arguments" in world.err(E, "create_draft", mailbox_id=BOX, to=["not-an-address"])
    assert "No mailbox" in world.err(E, "create_draft", mailbox_id="MBX-0000")
    assert "No mailbox" in world.err(E, "list_drafts", mailbox_id="MBX-0000")


def test_reply_joins_thread(world: World) -> None:
    orig = world.ok(E, "get_message", message_id="MSG-01242")
    draft = world.ok(E, "create_draft", mailbox_id=BOX, reply_to_message_id="MSG-01242", body="Thanks!")
    assert draft["to_addresses"] == [orig["from_address"]] and draft["subject"] == orig["subject"]
    sent = world.ok(E, "send_draft", draft_id=draft["draft_id"])
    thread = world.ok(E, "get_thread", thread_id=orig["thread_id"], mailbox_id=BOX)["messages"]
    assert thread[-1]["message_id"] == sent["message_id"]
    other_box = world.ok(E, "get_message", message_id=inbox_message(world, "MBX-0010")["message_id"])
    assert "reply from the mailbox" in world.err(
        E, "create_draft", mailbox_id=BOX, reply_to_message_id=other_box["message_id"]
    )
    assert "No message" in world.err(E, "create_draft", mailbox_id=BOX, reply_to_message_id="MSG-00000")


def test_sent_mail_is_append_only(world: World) -> None:
    sent = world.ok(E, "list_messages", mailbox_id=BOX, folder="sent", limit=1)["messages"][0]
    assert "append-only" in world.err(E, "move_message", message_id=sent["message_id"], folder="trash")
    assert "append-only" in world.err(E, "move_message", message_id=sent["message_id"], folder="archive")
    assert "always read" in world.err(E, "mark_message", message_id=sent["message_id"], is_read=False)
    world.ok(E, "mark_message", message_id=sent["message_id"], is_starred=not sent["is_starred"])
    assert world.ok(E, "get_message", message_id=sent["message_id"])["is_starred"] is (not sent["is_starred"])


def test_move_message_rules(world: World) -> None:
    msg = inbox_message(world)
    world.ok(E, "move_message", message_id=msg["message_id"], folder="archive")
    assert world.ok(E, "get_message", message_id=msg["message_id"])["folder"] == "archive"
    assert "already in archive" in world.err(E, "move_message", message_id=msg["message_id"], folder="archive")
    assert "only inbox messages" in world.err(E, "move_message", message_id=msg["message_id"], folder="trash")
    world.ok(E, "move_message", message_id=msg["message_id"], folder="inbox")
    world.ok(E, "move_message", message_id=msg["message_id"], folder="trash")
    trash = world.ok(E, "list_messages", mailbox_id=BOX, folder="trash", limit=100)["messages"]
    assert msg["message_id"] in [m["message_id"] for m in trash]
    assert "No message" in world.err(E, "move_message", message_id="MSG-00000", folder="inbox")
    assert "invalid arguments" in world.err(E, "move_message", message_id=msg["message_id"], folder="sent")


def test_mark_message(world: World) -> None:
    msg = inbox_message(world)
    world.ok(E, "mark_message", message_id=msg["message_id"], is_read=False, is_starred=True)
    got = world.ok(E, "get_message", message_id=msg["message_id"])
    assert got["is_read"] is False and got["is_starred"] is True
    assert msg["message_id"] in [
        m["message_id"] for m in world.ok(E, "list_messages", mailbox_id=BOX, unread_only=True, limit=100)["messages"]
    ]
    assert "nothing to change" in world.err(E, "mark_message", message_id=msg["message_id"], is_read=False)
    assert "Give is_read" in world.err(E, "mark_message", message_id=msg["message_id"])


def test_labels(world: World) -> None:
    msg = inbox_message(world)
    assert "Create it with create_label" in world.err(
        E, "label_message", message_id=msg["message_id"], label="Board prep"
    )
    created = world.ok(E, "create_label", mailbox_id=BOX, name="Board prep", color="purple")
    assert created["name"] in [lab["name"] for lab in world.ok(E, "list_labels", mailbox_id=BOX)["labels"]]
    assert "already has the label" in world.err(E, "create_label", mailbox_id=BOX, name="board PREP")
    assert "reserved" in world.err(E, "create_label", mailbox_id=BOX, name="Inbox")
    assert "blank" in world.err(E, "create_label", mailbox_id=BOX, name="   ")
    world.ok(E, "label_message", message_id=msg["message_id"], label="board prep")
    assert "Board prep" in world.ok(E, "get_message", message_id=msg["message_id"])["labels"]
    assert world.ok(E, "list_messages", mailbox_id=BOX, label="Board prep")["count"] == 1
    assert "already carries" in world.err(E, "label_message", message_id=msg["message_id"], label="Board prep")
    world.ok(E, "label_message", message_id=msg["message_id"], label="Board prep", remove=True)
    assert "Board prep" not in world.ok(E, "get_message", message_id=msg["message_id"])["labels"]
    assert "does not carry" in world.err(
        E, "label_message", message_id=msg["message_id"], label="Board prep", remove=True
    )
    world.ok(E, "move_message", message_id=msg["message_id"], folder="trash")
    assert "in the trash" in world.err(E, "label_message", message_id=msg["message_id"], label="Board prep")


def test_add_contact(world: World) -> None:
    c = world.ok(
        E,
        "add_contact",
        mailbox_id=BOX,
        name="Ana Lee",
        address="Ana.Lee@RedwoodPartners.example.com",
        company="Redwood Partners",
    )
    found = world.ok(E, "list_contacts", mailbox_id=BOX, query="Ana Lee")["contacts"]
    assert [x["contact_id"] for x in found] == [c["contact_id"]] and found[0][
        "email"
    ] == "ana.lee@redwoodpartners.example.com"
    assert "already a contact" in world.err(
        E, "add_contact", mailbox_id=BOX, name="Ana", address="ana.lee@redwoodpartners.example.com"
    )
    own_address = next(
        b["address"] for b in world.ok(E, "list_mailboxes", limit=10)["mailboxes"] if b["mailbox_id"] == BOX
    )
    assert "own address" in world.err(E, "add_contact", mailbox_id=BOX, name="Me", address=own_address)
    assert "invalid arguments" in world.err(E, "add_contact", mailbox_id=BOX, name="X", address="x@y")
