"""Short follow-ups of an email dialogue: the next thing the mailbox owner asks about the email, draft, contact
or label the dialogue is already about ("star it too", "who else wrote to me from there?", "send it now").

They never open a dialogue; each reads what an earlier turn left in ``s.memory`` (the owner's mailbox under
``"box"``, the email under ``"message"``...) and ``Skip``s when it is not there or no longer fits.
"""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip
from servers.email.intents import COLORS, NEW_LABELS, NEW_MAIL, REPLIES, company_of, core, first
from servers.email.tools import email


def box_of(s: Scene) -> dict[str, Any]:
    """The owner's mailbox, once an earlier turn found it."""
    box = s.memory.get("box")
    if not box or not box.get("found"):
        raise Skip("no mailbox in the dialogue yet")
    return dict(box)


def the_email(s: Scene, where: str = "1=1", *params: Any) -> tuple[dict[str, Any], str]:
    """The email the dialogue is about, as it is now (``Skip`` unless it fits ``where``), and how the owner points
    back at it."""
    known = s.memory.get("message")
    if not known:
        raise Skip("no email in the dialogue yet")
    found = s.rows(f"SELECT * FROM messages WHERE message_id = ? AND ({where})", known["message_id"], *params)
    if not found:
        raise Skip("the email of the earlier turn does not fit")
    m = found[0]
    if m["folder"] == "sent":
        return m, s.rng.choice(("my email", "the one I sent", "that email"))
    return m, s.rng.choice(("that email", f"{first(m['from_name'])}'s email", f"the '{core(m['subject'])}' one"))


def the_draft(s: Scene) -> dict[str, Any]:
    known = s.memory.get("draft")
    if not known:
        raise Skip("no draft in the dialogue")
    found = s.rows("SELECT * FROM drafts WHERE draft_id = ?", known["draft_id"])
    if not found:
        raise Skip("the draft is gone")
    return found[0]


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# On the email of the dialogue -------------------------------------------------------------------


@email.intent(covers=("mark_message",), follows=True, opens=False, weight=1.2)
def flag_it(s: Scene) -> None:
    """Star the email, take its star off, or keep it unread for later."""
    m, it = the_email(s, "folder != 'trash'")
    options = ["star" if not m["is_starred"] else "unstar"]
    if m["is_read"] and m["folder"] != "sent":
        options.append("unread")
    mode = s.rng.choice(options)
    if mode == "star":
        s.say("Star {it} too.", "Put a star on {it} so I find it later.", "{It} deserves a star.", it=it, It=cap(it))
        s.call("mark_message", message_id=m["message_id"], is_starred=True)
    elif mode == "unstar":
        s.say("{It} can lose its star now.", "Take the star off {it}.", it=it, It=cap(it))
        s.call("mark_message", message_id=m["message_id"], is_starred=False)
    else:
        s.say(
            "Mark {it} as unread again, I'll deal with it later.",
            "Make {it} show up as new again.",
            "Flip {it} back to unread.",
            it=it,
        )
        s.call("mark_message", message_id=m["message_id"], is_read=False)


@email.intent(covers=("move_message",), follows=True, opens=False)
def file_it(s: Scene) -> None:
    """Archive or bin the email, or get it back into the inbox."""
    m, it = the_email(s, "folder != 'sent'")
    if m["folder"] == "inbox":
        to = s.rng.choice(("archive", "trash"))
        if to == "archive":
            s.say("Now archive {it}.", "File {it} away, I'm done with it.", "Get {it} out of my inbox.", it=it)
        else:
            s.say("Then bin {it}.", "Delete {it}, I don't need it.", "{It} can go in the trash now.", it=it, It=cap(it))
    else:
        to = "inbox"
        s.say("Put {it} back in my inbox.", "Actually, I want {it} back in the inbox.", it=it)
    s.call("move_message", message_id=m["message_id"], folder=to)


@email.intent(covers=("list_labels", "label_message"), follows=True, opens=False, weight=1.2)
def label_it(s: Scene) -> None:
    """File the email under one of the owner's labels (looking at the labels first when they do not name one)."""
    box = box_of(s)
    m, it = the_email(s, "folder != 'trash'")
    lab = s.pick(
        "SELECT * FROM labels WHERE mailbox_id = ? AND label_id NOT IN (SELECT label_id FROM message_labels "
        "WHERE message_id = ?)",
        box["mailbox_id"],
        m["message_id"],
    )
    if s.room(2, 1) and s.rng.random() < 0.4:
        s.say(
            "Which labels do I have? Put {it} under '{l}'.",
            "Show me my labels, and file {it} under '{l}'.",
            it=it,
            l=lab["name"],
        )
        s.call("list_labels", mailbox_id=box["mailbox_id"])
    else:
        s.say(
            "Tag {it} with '{l}'.",
            "File {it} under '{l}' too.",
            "{It} belongs under '{l}'.",
            it=it,
            It=cap(it),
            l=lab["name"],
        )
    s.call("label_message", message_id=m["message_id"], label=lab["name"])
    s.memory["label"] = lab


@email.intent(covers=("create_label", "label_message"), follows=True, opens=False, weight=0.7)
def new_label_for_it(s: Scene) -> None:
    """A new label for the email: made, then put on it."""
    box = box_of(s)
    m, it = the_email(s, "folder != 'trash'")
    name = s.rng.choice(NEW_LABELS)
    if s.rows("SELECT 1 FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", box["mailbox_id"], name):
        raise Skip("the label exists")
    color = s.rng.choice(COLORS)
    s.say(
        "Start a {c} label called '{l}' and put {it} under it.",
        "I need a new '{l}' label ({c}); {it} is the first for it.",
        c=color,
        l=name,
        it=it,
    )
    made = s.call("create_label", mailbox_id=box["mailbox_id"], name=name, color=color)
    s.call("label_message", message_id=m["message_id"], label=made["name"])
    s.memory["label"] = made


@email.intent(covers=("get_thread",), follows=True, opens=False)
def whole_thread(s: Scene) -> None:
    """The whole conversation the email belongs to."""
    box = box_of(s)
    m, it = the_email(s)
    s.asked("get_thread", thread_id=m["thread_id"])
    s.say(
        "Show me the whole conversation {it} is part of.",
        "What came before {it}? Pull up the full exchange.",
        "Let me see the back-and-forth around {it}.",
        it=it,
    )
    s.call("get_thread", thread_id=m["thread_id"], mailbox_id=box["mailbox_id"])


@email.intent(covers=("get_message",), follows=True, opens=False)
def open_it(s: Scene) -> None:
    """Read the email in full."""
    m, it = the_email(s)
    s.asked("get_message", message_id=m["message_id"])
    s.say("Open {it} in full.", "What does {it} actually say?", "Read me {it}, the whole text.", it=it)
    s.call("get_message", message_id=m["message_id"])


@email.intent(covers=("create_draft", "send_draft"), follows=True, opens=False, weight=1.2)
def answer_it(s: Scene) -> None:
    """Reply to the email: sent straight away, or kept as a draft to look at later."""
    box = box_of(s)
    m, it = the_email(s, "folder IN ('inbox', 'archive') AND from_address NOT LIKE 'no-reply@%'")
    text = s.rng.choice(REPLIES)
    send = s.room(2, 1) and s.rng.random() < 0.5
    if send:
        s.say('Reply to {it} with "{t}" and send it.', 'Answer {it}: "{t}" It can go right away.', it=it, t=text)
    else:
        s.say(
            'Draft a reply to {it}: "{t}" Don\'t send it yet.',
            'Write back to {it} with "{t}", but hold it.',
            it=it,
            t=text,
        )
    draft = s.call("create_draft", mailbox_id=box["mailbox_id"], reply_to_message_id=m["message_id"], body=text)
    if send:
        s.call("send_draft", draft_id=draft["draft_id"])
    else:
        s.memory["draft"] = draft


@email.intent(covers=("add_contact",), follows=True, opens=False)
def keep_sender(s: Scene) -> None:
    """Save the email's sender in the address book."""
    box = box_of(s)
    m, _ = the_email(
        s,
        "folder != 'sent' AND from_address NOT LIKE 'no-reply@%' AND from_address NOT IN (SELECT email FROM "
        "contacts c WHERE c.mailbox_id = messages.mailbox_id)",
    )
    s.say(
        "Save {f} in my address book while you're at it.",
        "I don't have {f} saved yet, keep their address.",
        "Put {f} in my address book, please.",
        f=m["from_name"],
    )
    s.memory["contact"] = s.call(
        "add_contact", mailbox_id=box["mailbox_id"], name=m["from_name"], address=m["from_address"]
    )


@email.intent(covers=("search_messages",), follows=True, opens=False)
def more_from_them(s: Scene) -> None:
    """What else the email's sender (or their company) wrote."""
    box = box_of(s)
    m, _ = the_email(s, "folder != 'sent' AND from_address NOT LIKE 'no-reply@%'")
    if s.rng.random() < 0.5:
        s.say(
            "What else has {f} sent me?",
            "Any other emails from {f}?",
            "Show me everything else from {f}.",
            f=first(m["from_name"]),
        )
        s.call("search_messages", mailbox_id=box["mailbox_id"], from_address=m["from_address"])
    else:
        co = company_of(m["from_address"])
        domain = m["from_address"].split("@", 1)[1]
        if co == "Northwind":
            raise Skip("a colleague, not a company")
        s.say("Has anyone else at {co} emailed me?", "What other mail do I have from {co}?", co=co)
        s.call("search_messages", mailbox_id=box["mailbox_id"], from_address=domain)


# On the mailbox ---------------------------------------------------------------------------------


@email.intent(covers=("list_messages",), follows=True, opens=False, weight=1.2)
def mailbox_glance(s: Scene) -> None:
    """A look at a folder: what is still unread, starred, in the archive, trash or sent mail."""
    box = box_of(s)
    mode = s.rng.choice(("unread", "starred", "archive", "trash", "sent"))
    args: dict[str, Any] = {"mailbox_id": box["mailbox_id"]}
    if mode == "unread":
        s.say("How much unread mail do I still have?", "What's still unopened in my inbox?")
        args["unread_only"] = True
    elif mode == "starred":
        s.say("And what have I starred in my inbox?", "What's starred in my inbox right now?")
        args["starred_only"] = True
    else:
        place = {"archive": "my archive", "trash": "the trash", "sent": "my sent mail"}[mode]
        s.say("What's in {p} these days?", "Show me {p}.", "Give me a look at {p}.", p=place)
        args["folder"] = mode
    s.asked("list_messages", **args)
    s.call("list_messages", **args)


@email.intent(covers=("list_labels",), follows=True, opens=False, weight=0.8)
def my_labels(s: Scene) -> None:
    """Which labels the owner has, with their counts."""
    box = box_of(s)
    s.asked("list_labels", mailbox_id=box["mailbox_id"])
    s.say("Which labels do I have, and how full is each?", "How many emails sit under each of my labels?")
    s.call("list_labels", mailbox_id=box["mailbox_id"])


@email.intent(covers=("list_drafts",), follows=True, opens=False, weight=0.8)
def my_drafts(s: Scene) -> None:
    """The drafts the owner has lying around."""
    box = box_of(s)
    s.asked("list_drafts", mailbox_id=box["mailbox_id"])
    s.say("Do I have other drafts lying around?", "What else is sitting unsent?", "Any unfinished drafts left?")
    s.call("list_drafts", mailbox_id=box["mailbox_id"])


@email.intent(covers=("list_contacts",), follows=True, opens=False)
def people_glance(s: Scene) -> None:
    """A look at the address book: the favourites, or the people at the company of the dialogue's contact."""
    box = box_of(s)
    person = s.memory.get("contact") or {}
    co = person.get("company") or (company_of(person["email"]) if person.get("email") else "")
    if co and co != "Northwind" and s.rng.random() < 0.6:
        s.say("Who else do I know at {co}?", "Which other people at {co} are in my address book?", co=co)
        args: dict[str, Any] = {"mailbox_id": box["mailbox_id"], "query": co}
    else:
        s.say("Who's on my favourites list?", "Remind me who my favourite people are.")
        args = {"mailbox_id": box["mailbox_id"], "favorites_only": True}
    s.asked("list_contacts", **args)
    s.call("list_contacts", **args)


@email.intent(covers=("list_messages",), follows=True, opens=False)
def label_glance(s: Scene) -> None:
    """What sits under the label of the dialogue now."""
    box = box_of(s)
    lab = s.memory.get("label")
    if not lab:
        raise Skip("no label in the dialogue")
    s.say("What's under '{l}' now?", "Show me everything I've filed under '{l}'.", l=lab["name"])
    s.call("list_messages", mailbox_id=box["mailbox_id"], label=lab["name"])


# On the draft or contact of the dialogue --------------------------------------------------------


@email.intent(covers=("send_draft",), follows=True, opens=False, weight=1.2)
def send_it_now(s: Scene) -> None:
    """The draft of the dialogue goes out after all."""
    d = the_draft(s)
    if not d["to_addresses"] or not d["subject"].strip():
        raise Skip("the draft is not ready to send")
    s.say("Actually, send that draft now.", "Changed my mind, let it go out now.", "OK, send it after all.")
    s.call("send_draft", draft_id=d["draft_id"])


@email.intent(covers=("update_draft",), follows=True, opens=False)
def reword_draft(s: Scene) -> None:
    """The draft of the dialogue gets another subject or closing line."""
    d = the_draft(s)
    if s.rng.random() < 0.5:
        subject = s.rng.choice(("Following up", "Next steps", "Quick follow-up", "A few questions"))
        if subject == d["subject"]:
            raise Skip("same subject")
        s.say("Change that draft's subject to '{t}'.", "Make the subject line '{t}' instead.", t=subject)
        s.call("update_draft", draft_id=d["draft_id"], subject=subject)
    else:
        line = s.rng.choice(("Thanks!", "Talk soon.", "Let me know by Friday."))
        s.say('Add "{l}" at the end of that draft.', 'Finish that draft off with "{l}"', l=line)
        s.call("update_draft", draft_id=d["draft_id"], body=f"{d['body']}\n\n{line}")


@email.intent(covers=("list_contacts", "update_draft"), follows=True, opens=False)
def copy_someone(s: Scene) -> None:
    """Someone from the address book goes on copy of the draft of the dialogue."""
    box = box_of(s)
    d = the_draft(s)
    on = set(filter(None, (d["to_addresses"] + ", " + d["cc_addresses"]).replace(" ", "").split(",")))
    c = s.pick(
        "SELECT * FROM contacts WHERE mailbox_id = ? AND name IN (SELECT name FROM contacts WHERE mailbox_id = ? "
        "GROUP BY name HAVING COUNT(*) = 1)",
        box["mailbox_id"],
        box["mailbox_id"],
    )
    if c["email"] in on:
        raise Skip("already on the draft")
    s.say(
        "Copy {n} on that draft.",
        "Put {n} in cc before it goes.",
        "{n} should see it too, add them on cc.",
        n=c["name"],
    )
    found = s.find(
        "list_contacts",
        "contacts",
        "contact_id",
        c["contact_id"],
        missing="not listed",
        mailbox_id=box["mailbox_id"],
        query=c["name"],
    )
    s.call("update_draft", draft_id=d["draft_id"], cc=[found["email"]])


@email.intent(covers=("create_draft", "send_draft"), follows=True, opens=False)
def write_to_them(s: Scene) -> None:
    """A new email to the contact of the dialogue, sent or kept as a draft."""
    box = box_of(s)
    c = s.memory.get("contact")
    if not c:
        raise Skip("no contact in the dialogue")
    s.asked("create_draft", to=[c["email"]])
    subject, body = s.rng.choice(NEW_MAIL)
    text = body.format(f=first(c["name"]))
    send = s.room(2, 1) and s.rng.random() < 0.6
    if send:
        s.say(
            "Now email {f}, subject '{subj}': \"{t}\"",
            "Send {f} a note titled '{subj}': \"{t}\"",
            f=first(c["name"]),
            subj=subject,
            t=text,
        )
    else:
        s.say(
            "Start an email to {f} titled '{subj}': \"{t}\" I'll send it myself later.",
            f=first(c["name"]),
            subj=subject,
            t=text,
        )
    draft = s.call("create_draft", mailbox_id=box["mailbox_id"], to=[c["email"]], subject=subject, body=text)
    if send:
        s.call("send_draft", draft_id=draft["draft_id"])
    else:
        s.memory["draft"] = draft
