"""What people want of email: an employee reading, answering, writing and tidying their own mail.

The user owns a mailbox and says who they are (their name); the agent finds the mailbox with
``list_mailboxes``, messages with ``search_messages`` (words of the subject, the sender) or
``list_messages`` (a folder, unread, starred: "the latest email from Ana in my inbox"), drafts with
``list_drafts`` and addresses with ``list_contacts``. People name an email by who sent it, what it was
about and when, never by its id.

Most intents open a dialogue or continue one (``follows=True``): the mailbox owner stays the one
talking (``memory["box"]``) and the email, draft, contact or label the dialogue is about
(``memory["message"]``, ``["draft"]``, ``["contact"]``, ``["label"]``) is what the short follow-ups of
``intents_followups`` act on ("star it too", "and send it").
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta
from operator import itemgetter
from typing import Any

from hub.kit import fake
from hub.kit.intent import Ref, Scene, Skip, day
from servers.email.tools import email

OWNERS = (
    "SELECT * FROM mailboxes WHERE owner_name IN (SELECT owner_name FROM mailboxes GROUP BY owner_name "
    "HAVING COUNT(*) = 1)"
)
MESSAGES = "SELECT m.* FROM messages m"
PEOPLE_MAIL = "folder IN ('inbox', 'archive') AND from_address NOT LIKE 'no-reply@%'"
REPLIES = (
    "Thanks, that works for me.",
    "Sounds good, let's go ahead.",
    "Could you send the numbers by Friday?",
    "Got it, I'll take a look this afternoon.",
    "Thanks for the update, looping in the team.",
    "Can we push this to next week?",
)
NEW_MAIL = (
    ("Catch-up next week", "Hi {f}, do you have half an hour next week to catch up on the project?"),
    ("Updated proposal", "Hi {f}, the updated proposal is attached. Let me know what you think."),
    ("Quick question", "Hi {f}, quick question: who owns the vendor contract on your side?"),
    ("Thank you", "Hi {f}, thanks again for your help with the launch yesterday."),
    ("Meeting notes", "Hi {f}, here are my notes from today's meeting. Shout if I missed anything."),
)
NEW_LABELS = ("Board prep", "Offsite", "Tax 2026", "Renewals", "Interviews", "Q3 planning", "Press", "Audit")
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


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The mailbox owner talking: the one an earlier turn established (``Skip`` unless they fit ``where``), or a
    fresh pick among owners with a unique name."""
    known = s.memory.get("box")
    if known:
        if not s.rows(f"SELECT * FROM mailboxes WHERE mailbox_id = ? AND ({where})", known["mailbox_id"], *params):
            raise Skip("the mailbox of the earlier turn does not fit")
        return dict(known)
    box = s.pick(OWNERS + f" AND ({where})", *params)
    s.be(box["owner_name"])
    return box


def ask(
    s: Scene,
    box: dict[str, Any],
    opening: Sequence[str],
    follow: Sequence[str],
    minimal: Sequence[str] = (),
    **slots: Any,
) -> str:
    """A turn of the mailbox owner (``{me}``) that opens the dialogue (they say who they are) or continues it (they
    already did); then the agent finds their mailbox (``find_box``): its id."""
    if s.turns:
        s.say(*follow, me=box["owner_name"], **slots)
    else:
        s.say(*opening, minimal=minimal, me=box["owner_name"], **slots)
    return find_box(s, box)


def find_box(s: Scene, box: dict[str, Any]) -> str:
    """The discovery call for the user's mailbox id (once per dialogue)."""
    known = s.memory.get("box")
    if known and known["mailbox_id"] == box["mailbox_id"] and known.get("found"):
        return str(known["mailbox_id"])
    s.find(
        "list_mailboxes",
        "mailboxes",
        "mailbox_id",
        box["mailbox_id"],
        missing="the mailbox is not on the first page",
        query=box["owner_name"],
    )
    s.memory["box"] = {**box, "found": True}
    return str(box["mailbox_id"])


def core(subject: str) -> str:
    return subject.removeprefix("Re: ").strip()


def looks(m: dict[str, Any]) -> tuple[str, str]:
    """What tells listed emails apart for their owner: the sender and the subject."""
    return m["from_name"], core(m["subject"])


def choose_listed(s: Scene, mid: str, kind: str, **filters: Any) -> dict[str, Any]:
    """The email the owner picks off a listing of their mailbox (``filters``: unread, starred, under a label), named
    by sender and subject (``kind`` says what the listing holds); it becomes what the dialogue is about."""
    listed = s.call("list_messages", mailbox_id=mid, **filters)["messages"]
    none, alike = (
        (f"nothing {kind}", f"two {kind} emails look alike") if kind else ("nothing listed", "two emails look alike")
    )
    m = s.choose(listed, looks, none=none, alike=alike)
    s.memory["message"] = m
    return m


def newest_from(s: Scene, m: dict[str, Any]) -> bool:
    """Whether ``m`` is the newest email from its sender in its folder, on the first page of that folder."""
    rank = s.value(
        "SELECT COUNT(*) FROM messages WHERE mailbox_id = ? AND folder = ? AND (sent_at > ? OR (sent_at = ? AND "
        "message_id > ?))",
        m["mailbox_id"],
        m["folder"],
        m["sent_at"],
        m["sent_at"],
        m["message_id"],
    )
    newer = s.value(
        "SELECT COUNT(*) FROM messages WHERE mailbox_id = ? AND folder = ? AND from_name = ? AND sent_at >= ? "
        "AND message_id != ?",
        m["mailbox_id"],
        m["folder"],
        m["from_name"],
        m["sent_at"],
        m["message_id"],
    )
    return bool(rank < PAGE and newer == 0)


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
    return s.room(calls, 1) and s.rng.random() < chance


# Reading ------------------------------------------------------------------------------------------


@email.intent(covers=("list_mailboxes", "list_messages", "get_message", "mark_message"), weight=1.3, follows=True)
def catch_up_unread(s: Scene) -> None:
    """The owner asks what is unread, opens one of them and marks it read."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox' AND is_read = 0)")
    mid = ask(
        s,
        box,
        (
            "I'm {me}. What's unread in my inbox?",
            "{me} here: anything new I haven't read yet?",
            "This is {me}. Show me the mail I haven't opened.",
        ),
        ("What's still unread in my inbox?", "Anything I haven't opened yet?", "Which of my emails are still new?"),
        minimal=["{me}: unread mail?"],
    )
    m = choose_listed(s, mid, "unread", unread_only=True)
    if not s.room(1, 1):
        return
    mark = s.room(2, 1) and s.rng.random() < 0.6
    if mark:
        s.say(
            "Open the one from {who} about '{subj}' and mark it as read.",
            "Read me {who}'s '{subj}' email, then flag it read.",
            "What does {who} say in '{subj}'? Mark it read after.",
            who=m["from_name"],
            subj=core(m["subject"]),
        )
    else:
        s.say(
            "Open the one from {who} about '{subj}'.",
            "What does {who} say in '{subj}'?",
            "Read me {who}'s '{subj}' email.",
            who=m["from_name"],
            subj=core(m["subject"]),
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
    mid = ask(
        s,
        box,
        (
            "I'm {me}. Pull up {what}, the whole exchange.",
            "{me} here: show me all of {what}.",
            "This is {me}. Can I see every email in {what}?",
        ),
        ("Now pull up {what}, the whole exchange.", "Also show me all of {what}.", "Can I see all of {what} too?"),
        minimal=["{me}: {what}?"],
        what=what,
    )
    hit = locate(s, mid, m)
    thread = s.call("get_thread", thread_id=hit["thread_id"], mailbox_id=mid)
    opening = thread["messages"][0]
    if then(s):
        s.say(
            "Who was on the very first email?",
            "Who got the first email in that thread, and who was copied?",
            "Show me the first one in full.",
        )
        s.call("get_message", message_id=opening["message_id"])
        s.memory["message"] = opening


@email.intent(covers=("get_distinct_values", "list_mailboxes"))
def who_works_where(s: Scene) -> None:
    """Someone looks at the departments with mailboxes, then lists the people of one of them."""
    field = s.given("department", "department", "breakdown", "get_distinct_values", "field")
    s.say(
        "Which departments do we have mailboxes for, and how many each?",
        "How are our mailboxes spread across teams?",
        "Give me a headcount of mailboxes[ per {f}].",
        "How many mailboxes do we have[ by {f}]?",
        f=field,
    )
    depts = s.call("get_distinct_values", field="department")["values"]
    dept = s.rng.choice(sorted(depts))
    s.say("Who's in {d}?", "List the {d} people for me.", "Whose mailboxes are in {d}?", d=dept)
    s.call("list_mailboxes", query=dept, limit=50)


@email.intent(covers=("list_mailboxes", "search_messages", "get_message"), follows=True)
def dig_up_old_email(s: Scene) -> None:
    """The owner looks for emails about something within a stretch of days, then opens the latest one."""
    span = s.rng.choice((7, 14, 30))
    start = (s.now - timedelta(days=span)).date()
    like = " OR ".join("subject LIKE ?" for _ in TOPICS)
    words = [f"%{w}%" for _, w in TOPICS]
    box = me(
        s,
        f"mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder != 'sent' AND sent_at >= ? AND ({like}))",
        start.isoformat(),
        *words,
    )
    m = received(s, box, f"m.sent_at >= ? AND ({like})", start.isoformat(), *words)
    topic, word = next((t, w) for t, w in TOPICS if w.lower() in m["subject"].lower())
    when = {7: "the past week", 14: "the last two weeks", 30: "the last month"}[span]
    mid = ask(
        s,
        box,
        (
            "I'm {me}. Dig up the emails about {t} from {w}.",
            "{me} here: what mail did I get on {t} over {w}?",
            "This is {me}. Find everything about {t} in {w}.",
        ),
        ("Also dig up the emails about {t} from {w}.", "What mail did I get on {t} over {w}?"),
        minimal=["{me}: {t}, recent emails?"],
        t=topic,
        w=when,
    )
    args: dict[str, Any] = {"mailbox_id": mid, "query": word}
    if not s.minimal:
        args["after"] = start.isoformat()
    found = s.call("search_messages", **args)["messages"]
    if not found:
        raise Skip("the search found nothing")
    s.memory["message"] = found[0]
    if not s.room(1, 1) or (len(s.turns) > 1 and s.rng.random() < 0.5):
        return
    s.say("Open the most recent one.", "Show me the newest of those in full.", "Read me the latest one.")
    s.call("get_message", message_id=found[0]["message_id"])


# Writing ------------------------------------------------------------------------------------------


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
    text = s.rng.choice(REPLIES)
    mid = ask(
        s,
        box,
        (
            'I\'m {me}. Reply to {what}: "{text}"',
            '{me} here. Answer {what} with "{text}"',
            'This is {me}. Write back to {what} saying "{text}"',
        ),
        ('Now reply to {what}: "{text}"', 'Also answer {what} with "{text}"', 'Write back to {what}: "{text}"'),
        minimal=["{me}: get back to {what}."],
        what=what,
        text=text,
    )
    hit = locate(s, mid, m)
    draft = s.call("create_draft", mailbox_id=mid, reply_to_message_id=hit["message_id"], body=text)
    s.memory["draft"] = draft
    if then(s, chance=0.35):
        s.say("Looks right, send it.", "Good, go ahead and send.", "Fine, fire it off.")
        s.call("send_draft", draft_id=draft["draft_id"])
        s.memory.pop("draft")


@email.intent(covers=("list_mailboxes", "list_contacts", "create_draft", "send_draft"), weight=1.3, follows=True)
def email_a_contact(s: Scene) -> None:
    """The owner writes a new email to someone in their address book and sends it."""
    box = me(s)
    c = s.pick(
        "SELECT * FROM contacts WHERE mailbox_id = ? AND name IN (SELECT name FROM contacts WHERE "
        "mailbox_id = ? GROUP BY name HAVING COUNT(*) = 1)",
        box["mailbox_id"],
        box["mailbox_id"],
    )
    who = s.refer(
        c["contact_id"],
        Ref("{n}", "SELECT contact_id FROM contacts WHERE mailbox_id = ? AND name = ?", box["mailbox_id"], c["name"]),
        n=c["name"],
    )
    subject, body = s.rng.choice(NEW_MAIL)
    text = body.format(f=first(c["name"]))
    mid = ask(
        s,
        box,
        (
            "I'm {me}. Email {who} with the subject '{subj}': \"{text}\"",
            "{me} here. Write to {who}, subject '{subj}', saying \"{text}\"",
            "This is {me}. Drop {who} a note titled '{subj}': \"{text}\"",
        ),
        (
            "Also email {who} with the subject '{subj}': \"{text}\"",
            "Then write to {who}, subject '{subj}', saying \"{text}\"",
        ),
        who=who,
        subj=subject,
        text=text,
    )
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
    if then(s, chance=0.35):
        s.say("Perfect, send it.", "That's it, send it off.", "Go ahead and send that.")
        s.call("send_draft", draft_id=draft["draft_id"])
        s.memory.pop("draft")


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
    mid = ask(
        s,
        box,
        (
            "I'm {me}. About {what}: {lacking}, make it '{subj}'.",
            "{me} here. {What} needs the subject '{subj}' ({lacking}).",
            "This is {me}. Put '{subj}' as the subject of {what}.",
        ),
        ("One more: {what} needs the subject '{subj}'.", "Also put '{subj}' as the subject of {what}."),
        what=what,
        What=what[:1].upper() + what[1:],
        subj=subject,
        lacking=lacking,
    )
    drafts = s.call("list_drafts", mailbox_id=mid)["drafts"]
    if d["draft_id"] not in [x["draft_id"] for x in drafts]:
        raise Skip("the draft is not listed")
    updated = s.call("update_draft", draft_id=d["draft_id"], subject=subject)
    s.memory["draft"] = updated
    if then(s, chance=0.35) and updated["ready_to_send"]:
        s.say("Now send it.", "OK, it can go out now.", "Great, send it off.")
        s.call("send_draft", draft_id=d["draft_id"])
        s.memory.pop("draft")


@email.intent(covers=("list_mailboxes", "list_contacts", "create_draft"), follows=True)
def note_to_a_favourite(s: Scene) -> None:
    """The owner looks at their favourite contacts and starts a note to one of them, kept as a draft."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM contacts WHERE is_favorite = 1)")
    mid = ask(
        s,
        box,
        (
            "I'm {me}. Who's on my favourites list?",
            "{me} here: which people did I mark as favourites?",
            "This is {me}. Show me my favourite people.",
        ),
        ("Who's on my favourites list, by the way?", "Which people did I mark as favourites?"),
        minimal=["{me}: my favourites?"],
    )
    favs = s.call("list_contacts", mailbox_id=mid, favorites_only=True)["contacts"]
    c = s.choose(favs, itemgetter("name"), none="no favourites listed", alike="two favourites share the name")
    s.memory["contact"] = c
    if not s.room(1, 1):
        return
    subject, body = s.rng.choice(NEW_MAIL)
    text = body.format(f=first(c["name"]))
    s.say(
        "Start an email to {n} titled '{subj}': \"{text}\" Keep it as a draft, I'll send it later.",
        "Draft a note to {n}, subject '{subj}', saying \"{text}\" Don't send it yet.",
        n=c["name"],
        subj=subject,
        text=text,
    )
    s.memory["draft"] = s.call("create_draft", mailbox_id=mid, to=[c["email"]], subject=subject, body=text)


# Tidying ------------------------------------------------------------------------------------------


@email.intent(covers=("list_mailboxes", "search_messages", "move_message", "list_messages"), weight=1.3, follows=True)
def clear_out_inbox(s: Scene) -> None:
    """The owner archives or deletes an email in the inbox, then looks at what is left."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox')")
    m = received(s, box, "m.folder = 'inbox'")
    to = s.rng.choice(("archive", "trash"))
    what = message_ref(s, m)
    verb = {"archive": ("File away", "Archive", "Put away"), "trash": ("Delete", "Bin", "Throw out")}[to]
    where = s.given(to, {"archive": "the archive", "trash": "the trash"}[to], "folder", "move_message", "folder")
    mid = ask(
        s,
        box,
        (
            "I'm {me}. {v0} {what}.",
            "{me} here: {v1} {what}, I'm done with it.",
            "This is {me}. {v2} {what}, please.",
            "I'm {me}. I'm done with {what}[, it can go to {where}].",
            "{me} here: {what} shouldn't sit in my inbox any more[; move it to {where}].",
            "This is {me}. Get {what} out of my inbox[ and into {where}].",
        ),
        ("Also {v1} {what}.", "{v0} {what} too.", "And {what} can go[ to {where}]."),
        minimal=["{me}: {what} can go[ to {where}]."],
        what=what,
        v0=verb[0],
        v1=verb[1].lower(),
        v2=verb[2],
        where=where,
    )
    hit = locate(s, mid, m, folder="inbox")
    s.call("move_message", message_id=hit["message_id"], folder=to)
    s.memory["message"] = hit | {"folder": to}
    if then(s):
        s.say("What's left in my inbox now?", "Show me my inbox after that.", "What else is still sitting in my inbox?")
        s.call("list_messages", mailbox_id=mid)


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "move_message", "mark_message"), follows=True
)
def rescue_from_trash(s: Scene) -> None:
    """An email deleted by mistake goes back to the inbox and gets a star."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'trash' AND is_starred = 0)")
    m = received(s, box, "m.folder = 'trash' AND m.is_starred = 0")
    what = message_ref(s, m)
    mid = ask(
        s,
        box,
        (
            "I'm {me}. I binned {what} by mistake, put it back in my inbox.",
            "{me} here: {what} shouldn't be in the trash, restore it.",
            "This is {me}. Get {what} back out of the trash.",
        ),
        ("Oh, and I binned {what} by mistake, put it back.", "Also get {what} back out of the trash."),
        minimal=["{me}: I need {what} back."],
        what=what,
    )
    hit = locate(s, mid, m, folder="trash")
    s.call("move_message", message_id=hit["message_id"], folder="inbox")
    s.memory["message"] = hit | {"folder": "inbox"}
    if then(s):
        s.say("Star it so I don't lose it again.", "And flag it with a star.", "Give it a star too, please.")
        s.call("mark_message", message_id=hit["message_id"], is_starred=True)
        s.memory["message"]["is_starred"] = True


@email.intent(covers=("list_mailboxes", "list_messages", "mark_message"), follows=True)
def review_starred(s: Scene) -> None:
    """The owner goes through starred mail and unstars one that is handled."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox' AND is_starred = 1)")
    mid = ask(
        s,
        box,
        (
            "I'm {me}. What have I starred in my inbox?",
            "{me} here: show me my starred emails.",
            "This is {me}. Which inbox emails did I flag with a star?",
        ),
        ("What have I starred in my inbox?", "Which of my inbox emails carry a star?"),
        minimal=["{me}: starred mail?"],
    )
    m = choose_listed(s, mid, "starred", starred_only=True)
    if not s.room(1, 1):
        return
    s.say(
        "The one from {who} about '{subj}' is handled, take the star off.",
        "Unflag {who}'s '{subj}' email, it's done.",
        "{who}'s '{subj}' can lose its star.",
        who=m["from_name"],
        subj=core(m["subject"]),
    )
    s.call("mark_message", message_id=m["message_id"], is_starred=False)
    s.memory["message"] = m | {"is_starred": False}


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "label_message", "list_labels"),
    weight=1.2,
    follows=True,
)
def tag_email(s: Scene) -> None:
    """The owner files an email under one of their labels, then checks the label counts."""
    box = me(s)
    m = received(s, box, "m.folder IN ('inbox', 'archive')")
    lab = s.pick(
        "SELECT * FROM labels WHERE mailbox_id = ? AND label_id NOT IN (SELECT label_id FROM message_labels "
        "WHERE message_id = ?)",
        box["mailbox_id"],
        m["message_id"],
    )
    what = message_ref(s, m)
    name = s.given(lab["name"], f"'{lab['name']}'", "label", "label_message", "label")
    mid = ask(
        s,
        box,
        (
            "I'm {me}. Tag {what}[ with {label}].",
            "{me} here: file {what}[ under {label}].",
            "This is {me}. Put {what} under one of my labels[: {label}].",
        ),
        ("Also tag {what}[ with {label}].", "File {what}[ under {label}] too."),
        what=what,
        label=name,
    )
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=lab["name"])
    s.memory["label"] = lab
    if then(s):
        s.say(
            "How many emails are under each of my labels now?",
            "Show me my labels with their counts.",
            "Which labels do I have, and how full are they?",
        )
        s.call("list_labels", mailbox_id=mid)


@email.intent(
    covers=("list_mailboxes", "create_label", "search_messages", "list_messages", "label_message"), follows=True
)
def start_new_label(s: Scene) -> None:
    """The owner makes a new label and files an email under it."""
    box = me(s, "(SELECT COUNT(*) FROM labels l WHERE l.mailbox_id = mailboxes.mailbox_id) < 30")
    name = s.rng.choice(NEW_LABELS)
    if s.rows("SELECT 1 FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", box["mailbox_id"], name):
        raise Skip("the label exists")
    color = s.rng.choice(COLORS) if s.rng.random() < 0.5 else ""
    label = s.given(name, f"'{name}'", "label name", "create_label", "name")
    mid = ask(
        s,
        box,
        (
            "I'm {me}. Set up a new {c}label[ called {label}] in my mail.",
            "{me} here: I need a new {c}label[: {label}].",
            "This is {me}. Make me a {c}label[ named {label}].",
        ),
        ("Also set up a new {c}label[ called {label}].", "I need a new {c}label too[: {label}]."),
        label=label,
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
    s.say("Put {what} under it.", "File {what} there first.", "Start it off with {what}.", what=what)
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=name)


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "add_contact", "list_contacts"),
    weight=1.2,
    follows=True,
)
def save_sender(s: Scene) -> None:
    """The owner saves someone who emailed them (or whose card they have) to the address book."""
    box = me(
        s,
        "mailbox_id IN (SELECT m.mailbox_id FROM messages m WHERE m.folder != 'sent' AND m.from_address "
        "NOT LIKE 'no-reply@%' AND m.from_address NOT IN (SELECT email FROM contacts c WHERE c.mailbox_id = "
        "m.mailbox_id))",
    )
    m = received(
        s,
        box,
        "m.from_address NOT LIKE 'no-reply@%' AND m.from_address NOT IN (SELECT email FROM contacts "
        "c WHERE c.mailbox_id = m.mailbox_id)",
    )
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
        mid = ask(
            s,
            box,
            (
                "I'm {me}. Save whoever sent {what} in my address book.",
                "{me} here: put the sender of {what} in my address book.",
                "This is {me}. I want the person behind {what} saved with their email.",
            ),
            ("Also save whoever sent {what} in my address book.", "And keep the sender of {what} in my address book."),
            what=what,
        )
        hit = locate(s, mid, m, sender=False)
        saved = s.call("add_contact", mailbox_id=mid, name=hit["from_name"], address=hit["from_address"])
    else:
        addr = s.given(m["from_address"], m["from_address"], "address", "add_contact", "address")
        mid = ask(
            s,
            box,
            (
                "I'm {me}. Save {who} in my address book[, {addr}].",
                "{me} here: keep {who} in my address book[ ({addr})].",
                "This is {me}. New person for my address book: {who}[, email {addr}].",
            ),
            ("Also save {who} in my address book[, {addr}].", "And keep {who} in my address book[ ({addr})]."),
            who=m["from_name"],
            addr=addr,
        )
        saved = s.call("add_contact", mailbox_id=mid, name=m["from_name"], address=m["from_address"])
    s.memory["contact"] = saved
    if then(s):
        s.say(
            "Who else do I have from {co}?",
            "Who do I know at {co}?",
            "Show me everyone at {co} in my address book.",
            co=company,
        )
        s.call("list_contacts", mailbox_id=mid, query=company)


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
    mid = ask(
        s,
        box,
        (
            "I'm {me}. What's in my inbox under '{l}'?",
            "{me} here: show me the inbox mail I labelled '{l}'.",
            "This is {me}. Which inbox emails carry my '{l}' label?",
        ),
        ("What's in my inbox under '{l}'?", "Which inbox emails carry my '{l}' label?"),
        l=lab["name"],
    )
    if s.rng.random() < 0.5 and s.room(3, 0):
        s.call("list_labels", mailbox_id=mid)
    m = choose_listed(s, mid, "", label=lab["name"])
    s.memory["label"] = lab
    if not s.room(1, 1):
        return
    s.say(
        "The one from {who} about '{subj}' doesn't belong there, take the label off.",
        "Remove '{l}' from {who}'s '{subj}' email.",
        "{who}'s '{subj}' shouldn't be under '{l}'; untag it.",
        who=m["from_name"],
        subj=core(m["subject"]),
        l=lab["name"],
    )
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
    mid = ask(
        s,
        box,
        (
            "I'm {me}. Take a label off {what}[: {label}], it got filed wrong.",
            "{me} here: {what} has one label too many[; drop {label}].",
            "This is {me}. Untag {what}[, the {label} label has to go].",
        ),
        ("Also take a label off {what}[: {label}].", "And {what} has one label too many[: {label}]."),
        what=what,
        label=name,
    )
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=lab["name"], remove=True)
    s.memory["label"] = lab
    if then(s, chance=0.2):
        s.say("What's left under '{l}' now?", "Show me what's still filed under '{l}'.", l=lab["name"])
        s.call("list_messages", mailbox_id=mid, label=lab["name"])


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
    addr = s.given(address, address, "address", "add_contact", "address")
    phone = fake.phone(s.rng) if s.rng.random() < 0.25 else ""
    said = s.rng.random() < 0.5  # the company, when the user mentions it
    mid = ask(
        s,
        box,
        (
            "I'm {me}. I met {who}{co} today; save them in my address book[, {addr}]{tel}.",
            "{me} here. New person for my address book: {who}{co}[, {addr}]{tel}.",
            "This is {me}. Keep {who}{co} in my address book[; the email is {addr}]{tel}.",
        ),
        ("Also save {who}{co} in my address book[, {addr}]{tel}.",),
        who=who,
        co=f" from {company}" if said else "",
        addr=addr,
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
        s.say("Who else do I know at {co}?", "Anyone else from {co} in there?", co=company)
        s.call("list_contacts", mailbox_id=mid, query=company)
    else:
        subject, body = s.rng.choice(NEW_MAIL)
        text = body.format(f=given_name)
        s.say(
            "Start an email to {f}, subject '{subj}': \"{t}\" I'll send it later.",
            "Draft a note to {f} titled '{subj}': \"{t}\" Don't send it yet.",
            f=given_name,
            subj=subject,
            t=text,
        )
        s.memory["draft"] = s.call("create_draft", mailbox_id=mid, to=[saved["email"]], subject=subject, body=text)
