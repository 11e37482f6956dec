"""Email intents that write: answering an email, a new email to a contact, finishing a draft, saving people."""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, day
from servers.email.intents import (
    NEW_MAIL,
    PEOPLE_MAIL,
    UNIQUE_CONTACTS,
    WORDS,
    asks,
    box_of,
    company_of,
    core,
    first,
    locate,
    me,
    message_ref,
    received,
    the_draft,
    then,
)
from servers.email.tools import email


def send_it(s: Scene, draft: dict[str, Any], chance: float = 0.35) -> None:
    """Now and then the owner has the draft just written go out in the next turn."""
    if then(s, chance=chance) and draft.get("ready_to_send", True):
        s.say(*WORDS.send)
        s.call("send_draft", draft_id=draft["draft_id"])
        s.memory.pop("draft")


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "create_draft", "send_draft"),
    weight=1.5,
    follows=True,
)
def reply_and_send(s: Scene) -> None:
    """The owner answers an email they got; after reading the draft back, it goes out (or it waits as a draft)."""
    box = me(s, f"mailbox_id IN (SELECT mailbox_id FROM messages WHERE {PEOPLE_MAIL})")
    m = received(s, box, PEOPLE_MAIL)
    what = message_ref(s, m)
    text = s.rng.choice(WORDS.replies)
    mid = asks(s, box, WORDS.reply_and_send, what=what, text=text)
    hit = locate(s, mid, m)
    draft = s.call("create_draft", mailbox_id=mid, reply_to_message_id=hit["message_id"], body=text)
    s.memory["draft"] = draft
    send_it(s, draft)


@email.intent(covers=("list_mailboxes", "list_contacts", "create_draft", "send_draft"), weight=1.3, follows=True)
def email_a_contact(s: Scene) -> None:
    """The owner writes a new email to someone in their address book and sends it."""
    box = me(s)
    c = s.pick(UNIQUE_CONTACTS, box["mailbox_id"], box["mailbox_id"])
    who = s.refer(
        c["contact_id"],
        Ref("{n}", "SELECT contact_id FROM contacts WHERE mailbox_id = ? AND name = ?", box["mailbox_id"], c["name"]),
        n=c["name"],
    )
    subject, body = s.rng.choice(NEW_MAIL)
    text = body.format(f=first(c["name"]))
    mid = asks(s, box, WORDS.email_a_contact, who=who, subj=subject, text=text)
    found = s.find(
        "list_contacts",
        "contacts",
        "contact_id",
        c["contact_id"],
        missing="the contact is not listed",
        mailbox_id=mid,
        query=c["name"],
    )
    s.memory["contact"] = found
    draft = s.call("create_draft", mailbox_id=mid, to=[found["email"]], subject=subject, body=text)
    s.memory["draft"] = draft
    send_it(s, draft)


@email.intent(covers=("list_mailboxes", "list_drafts", "update_draft", "send_draft"), follows=True)
def finish_draft(s: Scene) -> None:
    """A draft sat unsent: the owner gives it a (new) subject, then sends it."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM drafts WHERE to_addresses != '')")
    d = s.pick(
        "SELECT d.*, c.name AS to_name FROM drafts d JOIN contacts c ON c.mailbox_id = d.mailbox_id AND "
        "c.email = d.to_addresses WHERE d.mailbox_id = ? AND d.draft_id != ?",
        box["mailbox_id"],
        (s.memory.get("draft") or {}).get("draft_id", ""),
    )
    what = s.refer(
        d["draft_id"],
        Ref(
            "my unsent draft to {to}",
            "SELECT draft_id FROM drafts WHERE mailbox_id = ? AND to_addresses = ?",
            box["mailbox_id"],
            d["to_addresses"],
        ),
        Ref(
            'my unsent draft to {to} that starts "{words}..."',
            "SELECT draft_id FROM drafts WHERE mailbox_id = ? AND to_addresses = ? AND body LIKE ?",
            box["mailbox_id"],
            d["to_addresses"],
            " ".join(d["body"].split()[:6]) + "%",
        ),
        to=d["to_name"],
        words=" ".join(d["body"].split()[:6]),
    )
    subject = s.rng.choice(("Following up", "Next steps", "Quick follow-up", "Proposal", "A few questions"))
    if subject == d["subject"]:
        raise Skip("same subject")
    lacking = "it never got a subject" if not d["subject"].strip() else "the subject line is off"
    mid = asks(s, box, WORDS.finish_draft, what=what, What=what[:1].upper() + what[1:], subj=subject, lacking=lacking)
    drafts = s.call("list_drafts", mailbox_id=mid)["drafts"]
    if d["draft_id"] not in [x["draft_id"] for x in drafts]:
        raise Skip("the draft is not listed")
    updated = s.call("update_draft", draft_id=d["draft_id"], subject=subject)
    s.memory["draft"] = updated
    send_it(s, updated)


@email.intent(covers=("list_mailboxes", "list_contacts", "create_draft"), follows=True)
def note_to_a_favourite(s: Scene) -> None:
    """The owner looks at their favourite contacts and starts a note to one of them, kept as a draft."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM contacts WHERE is_favorite = 1)")
    mid = asks(s, box, WORDS.note_to_a_favourite)
    favs = s.call("list_contacts", mailbox_id=mid, favorites_only=True)["contacts"]
    c = s.choose(favs, itemgetter("name"), none="no favourites listed", alike="two favourites share the name")
    s.memory["contact"] = c
    if not s.room(1, 1):
        return
    subject, body = s.rng.choice(NEW_MAIL)
    s.say(*WORDS.draft_for_later, n=c["name"], subj=subject, text=body.format(f=first(c["name"])))
    s.memory["draft"] = s.call(
        "create_draft", mailbox_id=mid, to=[c["email"]], subject=subject, body=body.format(f=first(c["name"]))
    )


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "add_contact", "list_contacts"),
    weight=1.2,
    follows=True,
)
def save_sender(s: Scene) -> None:
    """The owner saves someone who emailed them (or whose card they have) to the address book."""
    stranger = (
        "m.from_address NOT LIKE 'no-reply@%' AND m.from_address NOT IN (SELECT email FROM contacts c WHERE "
        "c.mailbox_id = m.mailbox_id)"
    )
    box = me(s, f"mailbox_id IN (SELECT m.mailbox_id FROM messages m WHERE m.folder != 'sent' AND {stranger})")
    m = received(s, box, stranger)
    company = company_of(m["from_address"])
    if s.rng.random() < 0.5:
        subject = core(m["subject"])
        where = (
            "SELECT message_id FROM messages WHERE mailbox_id = ? AND folder != 'sent' AND (subject = ? OR subject = ?)"
        )
        what = s.refer(
            m["message_id"],
            Ref("the '{subj}' email", where, m["mailbox_id"], subject, f"Re: {subject}"),
            Ref(
                "the '{subj}' email I got {when}",
                where + " AND substr(sent_at, 1, 10) = ?",
                m["mailbox_id"],
                subject,
                f"Re: {subject}",
                m["sent_at"][:10],
            ),
            subj=subject,
            when=day(m["sent_at"], s.now),
        )
        mid = asks(s, box, WORDS.save_sender, what=what)
        hit = locate(s, mid, m, sender=False)
        saved = s.call("add_contact", mailbox_id=mid, name=hit["from_name"], address=hit["from_address"])
    else:
        addr = s.given(m["from_address"], m["from_address"], "address", "add_contact", "address")
        mid = asks(s, box, WORDS.save_sender_by_name, who=m["from_name"], addr=addr)
        saved = s.call("add_contact", mailbox_id=mid, name=m["from_name"], address=m["from_address"])
    s.memory["contact"] = saved
    if then(s):
        s.say(WORDS.save_sender_same_company, co=company)
        s.call("list_contacts", mailbox_id=mid, query=company)


@email.intent(covers=("list_mailboxes", "add_contact", "list_contacts", "create_draft"), follows=True, weight=0.4)
def add_from_card(s: Scene) -> None:
    """The owner met someone (a business card in hand) and saves them, then maybe writes to them."""
    box = me(s)
    given_name, family = fake.person(s.rng)
    company = s.rng.choice(fake.COMPANIES)
    slug = "".join(ch for ch in company.lower() if ch.isalnum())
    address = f"{given_name.lower()}.{family.lower()}@{slug}.example.com"
    if s.rows("SELECT 1 FROM contacts WHERE mailbox_id = ? AND email = ?", box["mailbox_id"], address):
        raise Skip("already a contact")
    who = f"{given_name} {family}"
    phone = fake.phone(s.rng) if s.rng.random() < 0.25 else ""
    said = s.rng.random() < 0.5  # the company, when the user mentions it
    mid = asks(
        s,
        box,
        WORDS.add_from_card,
        who=who,
        co=f" from {company}" if said else "",
        addr=s.given(address, address, "address", "add_contact", "address"),
        tel=f", phone {phone}" if phone else "",
    )
    args: dict[str, Any] = {"mailbox_id": mid, "name": who, "address": address}
    if said:
        args["company"] = company
    if phone:
        args["phone"] = phone
    saved = s.call("add_contact", **args)
    s.memory["contact"] = saved
    if not then(s, chance=0.25):
        return
    if said and s.rng.random() < 0.5:
        s.say(WORDS.add_from_card_same_company, co=company)
        s.call("list_contacts", mailbox_id=mid, query=company)
    else:
        subject, body = s.rng.choice(NEW_MAIL)
        s.say(*WORDS.draft_for_later, n=given_name, subj=subject, text=body.format(f=given_name))
        s.memory["draft"] = s.call(
            "create_draft", mailbox_id=mid, to=[saved["email"]], subject=subject, body=body.format(f=given_name)
        )


# Follow-ups on the draft or contact of the dialogue ----------------------------------------------


@email.intent(covers=("update_draft",), follows=True, opens=False)
def reword_draft(s: Scene) -> None:
    """The draft of the dialogue gets another subject or closing line."""
    d = the_draft(s)
    if s.rng.random() < 0.5:
        subject = s.rng.choice(("Following up", "Next steps", "Quick follow-up", "A few questions"))
        if subject == d["subject"]:
            raise Skip("same subject")
        s.say(WORDS.reword_draft, t=subject)
        s.call("update_draft", draft_id=d["draft_id"], subject=subject)
    else:
        line = s.rng.choice(("Thanks!", "Talk soon.", "Let me know by Friday."))
        s.say(WORDS.reword_draft_add_line, l=line)
        s.call("update_draft", draft_id=d["draft_id"], body=f"{d['body']}\n\n{line}")


@email.intent(covers=("list_contacts", "update_draft"), follows=True, opens=False)
def copy_someone(s: Scene) -> None:
    """Someone from the address book goes on copy of the draft of the dialogue."""
    box = box_of(s)
    d = the_draft(s)
    on = set(filter(None, (d["to_addresses"] + ", " + d["cc_addresses"]).replace(" ", "").split(",")))
    c = s.pick(UNIQUE_CONTACTS, box["mailbox_id"], box["mailbox_id"])
    if c["email"] in on:
        raise Skip("already on the draft")
    s.say(WORDS.copy_someone, n=c["name"])
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
    c = s.known("contact", "no contact in the dialogue")
    s.asked("create_draft", to=[c["email"]])
    subject, body = s.rng.choice(NEW_MAIL)
    text = body.format(f=first(c["name"]))
    send = s.room(2, 1) and s.rng.random() < 0.6
    if send:
        s.say(WORDS.write_to_them, f=first(c["name"]), subj=subject, t=text)
    else:
        s.say(WORDS.write_to_them_draft_only, f=first(c["name"]), subj=subject, t=text)
    draft = s.call("create_draft", mailbox_id=box["mailbox_id"], to=[c["email"]], subject=subject, body=text)
    if send:
        s.call("send_draft", draft_id=draft["draft_id"])
    else:
        s.memory["draft"] = draft
