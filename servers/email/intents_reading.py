"""Email intents that read and tidy: what is unread or starred, a whole conversation, old mail on a topic, who works
where; archive, bin or rescue an email, stars, labels on and off."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.email.intents import (
    COLORS,
    FREE_LABELS,
    NEW_LABELS,
    TOPICS,
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
    mid = asks(
        s,
        box,
        "{What's|Which emails are} {still |}unread in my inbox?",
        "Anything {new|in my inbox} I haven't {read|opened} yet?",
        "{Show me|List} the mail I haven't opened{, please|}.",
        "I've been away from my desk. What came in that I haven't read?",
        minimal=["unread mail?"],
    )
    m = choose_listed(s, mid, "unread", unread_only=True)
    if not s.room(1, 1):
        return
    mark = s.room(2, 1) and s.rng.random() < 0.6
    s.say(
        "Open the one from {who} about '{subj}'{read}.",
        "What does {who} say in '{subj}'?{after}",
        "Read me {who}'s '{subj}' email{read}.",
        "{Let's start with|I'll take|Start with} the '{subj}' one from {who}{read}.",
        "{Show me|Open up} {who}'s email about '{subj}'{read}.",
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
    mid = asks(
        s,
        box,
        "{Pull up|Show me} {what}, the whole exchange.",
        "Can I see {every email|all} in {what}?",
        "I lost track of {what}. {Walk me through|Show me} everything that was said, in order.",
        "{What's been said|Who said what} in {what} so far?",
        minimal=["{what}?"],
        what=what,
    )
    hit = locate(s, mid, m)
    thread = s.call("get_thread", thread_id=hit["thread_id"], mailbox_id=mid)
    opening = thread["messages"][0]
    if then(s):
        s.say(
            "Who {was on|got} the very first email{, and who was copied|}?",
            "{Show me|Open} the first one in full.",
            "How did it all start? {Open|Read me} the first message.",
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
        "{Give me a headcount of|How many} mailboxes {do we have|are there}[ per {f}]?",
        "I'm new here. Which teams {are there|do we have}, and how big is each?",
        f=field,
    )
    dept = s.rng.choice(sorted(s.call("get_distinct_values", field="department")["values"]))
    s.say("{Who's|Who works} in {d}?", "List the {d} people for me.", "Whose mailboxes are in {d}?", d=dept)
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
        "Dig up the emails about {t} from {w}.",
        "What mail did I get on {t} over {w}?",
        "{Find|Search out} everything about {t} in {w}.",
        "Somebody wrote to me about {t} {in|during} {w}. Can you find {it|those emails}?",
        minimal=["{t}, recent emails?"],
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
    s.say(
        "{Open|Read me} the {most recent|newest|latest} one.",
        "Show me the newest of those in full.",
        "{What does|And what does} the {last|most recent} one say?",
        "The newest is probably the one I need{, open it|. Let me read it}.",
    )
    s.call("get_message", message_id=found[0]["message_id"])


@email.intent(covers=("list_mailboxes", "list_messages", "mark_message"), follows=True)
def review_starred(s: Scene) -> None:
    """The owner goes through starred mail and unstars one that is handled."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox' AND is_starred = 1)")
    mid = asks(
        s,
        box,
        "What have I starred in my inbox?",
        "{Show me|List} my starred emails.",
        "Which {inbox emails did I flag with|of my inbox emails carry} a star?",
        "I star what I still have to deal with. {What's on that pile|What's there} right now?",
        minimal=["starred mail?"],
    )
    m = choose_listed(s, mid, "starred", starred_only=True)
    if not s.room(1, 1):
        return
    s.say(
        "The one from {who} about '{subj}' is handled, take the star off.",
        "{Unflag|Unstar} {who}'s '{subj}' email, it's done.",
        "{who}'s '{subj}' can lose its star{ now|}.",
        "{Take the star off|Unstar} the '{subj}' one from {who}{, I'm done with it|}.",
        "I've {dealt with|sorted out} '{subj}' from {who}, so it doesn't need the star any more.",
        **about(m),
    )
    s.call("mark_message", message_id=m["message_id"], is_starred=False)
    s.memory["message"] = m | {"is_starred": False}


# Tidying ----------------------------------------------------------------------------------------

LABEL_COUNTS = (
    "How many emails are under each of my labels now?",
    "{Show me|Give me} my labels with their counts.",
    "Which labels do I have, and how full are they?",
)


@email.intent(covers=("list_mailboxes", "search_messages", "move_message", "list_messages"), weight=1.3, follows=True)
def clear_out_inbox(s: Scene) -> None:
    """The owner archives or deletes an email in the inbox, then looks at what is left."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'inbox')")
    m = received(s, box, "m.folder = 'inbox'")
    to = s.rng.choice(("archive", "trash"))
    what = message_ref(s, m)
    verb = {"archive": ("File away", "Archive", "Put away"), "trash": ("Delete", "Bin", "Throw out")}[to]
    mid = asks(
        s,
        box,
        "{v} {what}{, I'm done with it|, please|}.",
        "I'm done with {what}[, it can go to {where}].",
        "{what} shouldn't sit in my inbox any more[; move it to {where}].",
        "{Get|Take} {what} out of my inbox[ and into {where}].",
        minimal=["{what} can go[ to {where}]."],
        what=what,
        v=s.rng.choice(verb),
        where=s.given(to, {"archive": "the archive", "trash": "the trash"}[to], "folder", "move_message", "folder"),
    )
    hit = locate(s, mid, m, folder="inbox")
    s.call("move_message", message_id=hit["message_id"], folder=to)
    s.memory["message"] = hit | {"folder": to}
    if then(s):
        s.say("What's {left|still sitting} in my inbox{ now|}?", "{Show me|How does} my inbox {after that|look now}?")
        s.call("list_messages", mailbox_id=mid)


@email.intent(
    covers=("list_mailboxes", "search_messages", "list_messages", "move_message", "mark_message"), follows=True
)
def rescue_from_trash(s: Scene) -> None:
    """An email deleted by mistake goes back to the inbox and gets a star."""
    box = me(s, "mailbox_id IN (SELECT mailbox_id FROM messages WHERE folder = 'trash' AND is_starred = 0)")
    m = received(s, box, "m.folder = 'trash' AND m.is_starred = 0")
    what = message_ref(s, m)
    mid = asks(
        s,
        box,
        "I {binned|deleted} {what} by mistake, put it back in my inbox.",
        "{what} shouldn't be in the trash, {restore it|get it back out}.",
        "Oops, I trashed {what}. Can you bring it back {in|to} my inbox?",
        "I still need {what}; it {went to|ended up in} the trash by accident.",
        minimal=["I need {what} back."],
        what=what,
    )
    hit = locate(s, mid, m, folder="trash")
    s.call("move_message", message_id=hit["message_id"], folder="inbox")
    s.memory["message"] = hit | {"folder": "inbox"}
    if then(s):
        s.say(
            "Star it so I don't lose it again.", "{And flag|Flag} it with a star{ too|}.", "Give it a star too, please."
        )
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
        "{Tag|Label} {what}[ with {label}].",
        "{File|Put} {what} under one of my labels[: {label}].",
        "I want {what} filed[ under {label}] {too|as well}.",
        "Can you label {what}[ as {label}]?",
        what=what,
        label=s.given(lab["name"], f"'{lab['name']}'", "label", "label_message", "label"),
    )
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=lab["name"])
    s.memory["label"] = lab
    if then(s):
        s.say(*LABEL_COUNTS)
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
    mid = asks(
        s,
        box,
        "{Set up|Make me} a new {c}label[ called {label}]{ in my mail|}.",
        "I need a new {c}label[: {label}].",
        "I'd like to start {filing|sorting} mail under a new {c}label[, {label}].",
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
    s.say("{Put|File} {what} under it.", "Start it off with {what}.", "{File|Put} {what} there first.", what=what)
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
    mid = asks(
        s,
        box,
        "{What's|So, what's} in my inbox under '{l}'?",
        "{Show me|Pull up} the inbox mail I {labelled|tagged} '{l}'.",
        "Which inbox emails carry my '{l}' label?",
        "I want to tidy up my '{l}' label. What's on it in the inbox?",
        l=lab["name"],
    )
    if s.rng.random() < 0.5 and s.room(3, 0):
        s.call("list_labels", mailbox_id=mid)
    m = choose_listed(s, mid, "", label=lab["name"])
    s.memory["label"] = lab
    if not s.room(1, 1):
        return
    s.say(
        "The one from {who} about '{subj}' doesn't belong there, {take the label off|untag it}.",
        "{Remove|Take} '{l}' {from|off} {who}'s '{subj}' email.",
        "{who}'s '{subj}' shouldn't be under '{l}'; untag it.",
        "'{subj}' from {who} got filed there by mistake. {Take it out|Drop the label}.",
        **about(m),
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
    mid = asks(
        s,
        box,
        "Take a label off {what}[: {label}]{, it got filed wrong|}.",
        "{what} has one label too many[; drop {label}].",
        "Untag {what}[, the {label} label has to go].",
        "I mislabelled {what}. {Remove|Undo} the wrong tag[: {label}].",
        what=what,
        label=name,
    )
    hit = locate(s, mid, m)
    s.call("label_message", message_id=hit["message_id"], label=lab["name"], remove=True)
    s.memory["label"] = lab
    if then(s, chance=0.2):
        s.say("What's {left|still filed} under '{l}' now?", "Show me what's still filed under '{l}'.", l=lab["name"])
        s.call("list_messages", mailbox_id=mid, label=lab["name"])
