"""Email intents that read and tidy: what is unread or starred, a whole conversation, old mail on a topic, who works
where; archive, bin or rescue an email, stars, labels on and off."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.email.intents import (
    COLORS,
    FREE_LABELS,
    TOPICS,
    WORDS,
    about,
    asks,
    choose_listed,
    core,
    locate,
    me,
    message_ref,
    received,
    then,
)
from servers.email.tools import email


@email.intent(covers=("list_mailboxes", "list_messages", "get_message", "mark_message"), weight=1.3, follows=True)
def catch_up_unread(s: Scene) -> None:
    """The owner asks what is unread, opens one of them and marks it read."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox' AND is_read = 0)")
    mid = asks(s, box, WORDS.catch_up_unread)
    m = choose_listed(s, mid, "unread", unread_only=True)
    if not s.room(1, 1):
        return
    mark = s.room(2, 1) and s.rng.random() < 0.6
    s.say(
        WORDS.catch_up_unread_open_one,
        **about(m),
        read=", then mark it as read" if mark else "",
        after=" Mark it read after." if mark else "",
    )
    s.call("get_message", message_id=m["message_id"])
    if mark:
        s.call("mark_message", message_id=m["message_id"], is_read=True)


@email.intent(covers=("list_mailboxes", "search_messages", "get_thread", "get_message"), follows=True)
def read_conversation(s: Scene) -> None:
    """The owner pulls up a whole back-and-forth, then opens its first message."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE in_reply_to IS NOT NULL)")
    m = received(s, box, "m.in_reply_to IS NOT NULL")
    subject = core(m["subject"])
    what = s.refer(
        m["thread_id"],
        Ref(
            "my thread with {who} about '{subj}'",
            "SELECT DISTINCT thread_id FROM messages WHERE "
            "mailbox_id = ? AND from_name = ? AND (subject = ? OR subject = ?)",
            box["mailbox_id"],
            m["from_name"],
            subject,
            f"Re: {subject}",
        ),
        who=m["from_name"],
        subj=subject,
    )
    mid = asks(s, box, WORDS.read_conversation, what=what)
    hit = locate(s, mid, m)
    thread = s.call("get_thread", thread_id=hit["thread_id"], mailbox_id=mid)
    opening = thread["messages"][0]
    if then(s):
        s.say(WORDS.read_conversation_first_message)
        s.call("get_message", message_id=opening["message_id"])
        s.memory["message"] = opening


@email.intent(covers=("get_distinct_values", "list_mailboxes"))
def who_works_where(s: Scene) -> None:
    """Someone looks at the departments with mailboxes, then lists the people of one of them."""
    field = s.given("department", "department", "breakdown", "get_distinct_values", "field")
    s.say(WORDS.who_works_where, f=field)
    dept = s.rng.choice(sorted(s.call("get_distinct_values", field="department")["values"]))
    s.say(WORDS.who_works_where_department, d=dept)
    s.call("list_mailboxes", query=dept, limit=50)


@email.intent(covers=("list_mailboxes", "search_messages", "get_message"), follows=True)
def dig_up_old_email(s: Scene) -> None:
    """The owner looks for emails about something within a stretch of days, then opens the latest one."""
    span = s.rng.choice((7, 14, 30))
    start = (s.now - timedelta(days=span)).date().isoformat()
    like = " OR ".join("subject LIKE ?" for _ in TOPICS)
    words = [f"%{w}%" for _, w in TOPICS]
    box = me(
        s,
        f"mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder != 'sent' AND sent_at >= ? AND ({like}))",
        start,
        *words,
    )
    m = received(s, box, f"m.sent_at >= ? AND ({like})", start, *words)
    topic, word = next((t, w) for t, w in TOPICS if w.lower() in m["subject"].lower())
    mid = asks(
        s,
        box,
        WORDS.dig_up_old_email,
        t=topic,
        w={7: "the past week", 14: "the last two weeks", 30: "the last month"}[span],
    )
    args: dict[str, Any] = {"mailbox_id": mid, "query": word}
    if not s.minimal:
        args["after"] = start
    found = s.call("search_messages", **args)["messages"]
    if not found:
        raise Skip("the search found nothing")
    s.memory["message"] = found[0]
    if not s.room(1, 1) or (len(s.turns) > 1 and s.rng.random() < 0.5):
        return
    s.say(WORDS.dig_up_old_email_open_newest)
    s.call("get_message", message_id=found[0]["message_id"])


@email.intent(covers=("list_mailboxes", "list_messages", "mark_message"), follows=True)
def review_starred(s: Scene) -> None:
    """The owner goes through starred mail and unstars one that is handled."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox' AND is_starred = 1)")
    mid = asks(s, box, WORDS.review_starred)
    m = choose_listed(s, mid, "starred", starred_only=True)
    if not s.room(1, 1):
        return
    s.say(WORDS.review_starred_unstar, **about(m))
    s.call("mark_message", message_id=m["message_id"], is_starred=False)
    s.memory["message"] = m | {"is_starred": False}


# Tidying ----------------------------------------------------------------------------------------


@email.intent(covers=("list_mailboxes", "search_messages", "move_message", "list_messages"), weight=1.3, follows=True)
def clear_out_inbox(s: Scene) -> None:
    """The owner archives or deletes an email in the inbox, then looks at what is left."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox')")
    m = received(s, box, "m.folder = 'inbox'")
    to = s.rng.choice(("archive", "trash"))
    what = message_ref(s, m)
    verb = WORDS.family("clear_out_inbox_verbs")[to]
    mid = asks(
        s,
        box,
        WORDS.clear_out_inbox,
        what=what,
        v=s.rng.choice(verb),
        where=s.given(to, {"archive": "the archive", "trash": "the trash"}[to], "folder", "move_message", "folder"),
    )
    hit = locate(s, mid, m, folder="inbox")
    s.call("move_message", message_id=hit["message_id"], folder=to)
    s.memory["message"] = hit | {"folder": to}
    if then(s):
        s.say(WORDS.clear_out_inbox_whats_left)
        s.call("list_messages", mailbox_id=mid)


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "move_message", "mark_message"), follows=True
)
def rescue_from_trash(s: Scene) -> None:
    """An email deleted by mistake goes back to the inbox and gets a star."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'trash' AND is_starred = 0)")
    m = received(s, box, "m.folder = 'trash' AND m.is_starred = 0")
    what = message_ref(s, m)
    mid = asks(s, box, WORDS.rescue_from_trash, what=what)
    hit = locate(s, mid, m, folder="trash")
    s.call("move_message", message_id=hit["message_id"], folder="inbox")
    s.memory["message"] = hit | {"folder": "inbox"}
    if then(s):
        s.say(WORDS.rescue_from_trash_star_it)
        s.call("mark_message", message_id=hit["message_id"], is_starred=True)
        s.memory["message"]["is_starred"] = True


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "label_message", "list_labels"),
    weight=1.2,
    follows=True,
)
def tag_email(s: Scene) -> None:
    """The owner files an email under one of their labels, then checks the label counts."""
    box = me(s)
    m = received(s, box, "m.folder IN ('inbox', 'archive')")
    lab = s.pick(FREE_LABELS, box["mailbox_id"], m["message_id"])
    what = message_ref(s, m)
    mid = asks(
        s,
        box,
        WORDS.tag_email,
        what=what,
        label=s.given(lab["name"], f"'{lab['name']}'", "label", "label_message", "label"),
    )
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=lab["name"])
    s.memory["label"] = lab
    if then(s):
        s.say(*WORDS.label_counts)
        s.call("list_labels", mailbox_id=mid)


@email.intent(
    covers=("list_mailboxes", "create_label", "search_messages", "list_messages", "label_message"), follows=True
)
def start_new_label(s: Scene) -> None:
    """The owner makes a new label and files an email under it."""
    box = me(s, "(SELECT COUNT(*) FROM labels l WHERE l.mailbox_id = mailboxes.mailbox_id) < 30")
    name = s.rng.choice(WORDS.new_labels)
    if s.rows("SELECT 1 FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", box["mailbox_id"], name):
        raise Skip("the label exists")
    color = s.rng.choice(COLORS) if s.rng.random() < 0.5 else ""
    mid = asks(
        s,
        box,
        WORDS.start_new_label,
        label=s.given(name, f"'{name}'", "label name", "create_label", "name"),
        c=f"{color} " if color else "",
    )
    args: dict[str, Any] = {"mailbox_id": mid, "name": name}
    if color:
        args["color"] = color
    made = s.call("create_label", **args)
    s.memory["label"] = made
    if not s.room(2, 1) or s.rng.random() < 0.3:
        return
    m = received(s, box, "m.folder IN ('inbox', 'archive')")
    what = message_ref(s, m)
    s.say(WORDS.start_new_label_file_first, what=what)
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=name)


@email.intent(covers=("list_mailboxes", "list_labels", "list_messages", "label_message"), follows=True)
def clean_up_label(s: Scene) -> None:
    """The owner reviews what sits under one of their labels and takes it off one email."""
    box = me(
        s,
        "mailbox_id IN (SELECT m.mailbox_id FROM messages m JOIN message_labels USING (message_id) "
        "WHERE m.folder = 'inbox')",
    )
    lab = s.pick(
        "SELECT l.* FROM labels l WHERE l.mailbox_id = ? AND EXISTS (SELECT 1 FROM message_labels ml JOIN "
        "messages m USING (message_id) WHERE ml.label_id = l.label_id AND m.folder = 'inbox')",
        box["mailbox_id"],
    )
    mid = asks(s, box, WORDS.clean_up_label, l=lab["name"])
    if s.rng.random() < 0.5 and s.room(3, 0):
        s.call("list_labels", mailbox_id=mid)
    m = choose_listed(s, mid, "", label=lab["name"])
    s.memory["label"] = lab
    if not s.room(1, 1):
        return
    s.say(WORDS.clean_up_label_untag, **about(m), l=lab["name"])
    s.call("label_message", message_id=m["message_id"], label=lab["name"], remove=True)


@email.intent(covers=("list_mailboxes", "search_messages", "list_messages", "label_message"), follows=True)
def untag_email(s: Scene) -> None:
    """The owner takes a label off an email (which one is theirs to say when it carries several)."""
    box = me(s, "mailbox_id IN (SELECT m.mailbox_id FROM messages m JOIN message_labels ml USING (message_id))")
    m = received(s, box, "m.message_id IN (SELECT message_id FROM message_labels)")
    labs = s.rows(
        "SELECT l.* FROM labels l JOIN message_labels ml USING (label_id) WHERE ml.message_id = ?", m["message_id"]
    )
    lab = s.rng.choice(labs)
    what = message_ref(s, m)
    name: Any = f"'{lab['name']}'"
    if len(labs) > 1:  # only then is "which label?" a real question
        name = s.given(lab["name"], f"'{lab['name']}'", "label", "label_message", "label")
    mid = asks(s, box, WORDS.untag_email, what=what, label=name)
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=lab["name"], remove=True)
    s.memory["label"] = lab
    if then(s, chance=0.2):
        s.say(WORDS.untag_email_still_under_label, l=lab["name"])
        s.call("list_messages", mailbox_id=mid, label=lab["name"])
