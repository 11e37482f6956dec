"""Short follow-ups of an email dialogue: the next thing the mailbox owner asks about the email, draft, contact
or label the dialogue is already about ("star it too", "who else wrote to me from there?", "send it now").

They never open a dialogue; each reads what an earlier turn left in ``s.memory`` (the owner's mailbox under
``"box"``, the email under ``"message"``...) and ``Skip``s when it is not there or no longer fits. The ones that
are one turn and one call on the dialogue's email, draft, label or mailbox are rows of ``AGAIN``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.email.intents import (
    COLORS,
    FREE_LABELS,
    STRANGER,
    WORDS,
    box_of,
    cap,
    company_of,
    first,
    the_draft,
    the_email,
)
from servers.email.tools import email

# One turn, one call ------------------------------------------------------------------------------


def on(s: Scene, what: str) -> dict[str, Any]:
    """What a follow-up acts on (``email``, ``email:`` and a condition it must meet, ``label``, ``draft`` or the
    ``box`` alone), with the slots its phrasings use."""
    if what.startswith("email"):
        m, it = the_email(s, what.partition(":")[2] or "1=1")
        return {"m": m, "it": it, "It": cap(it), "f": m["from_name"]}
    if what == "label":
        if not s.memory.get("label"):
            raise Skip("no label in the dialogue")
        return {"l": s.memory["label"]["name"]}
    return {"d": the_draft(s, ready=True)} if what == "draft" else {}


Args = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]


def _about(what: str, args: Args) -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    """What the follow-up is ``on`` (its slots) and the call's ``args`` from the mailbox and those slots."""

    def about(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
        box = box_of(s)
        slots = on(s, what)
        return args(box, slots), slots

    return about


def _said(s: Scene, slots: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in slots.items() if isinstance(v, str)}


def _keep(key: str) -> Callable[[Scene, dict[str, Any], Any], None]:
    """The call's result becomes ``memory[key]``."""

    def keep(s: Scene, args: dict[str, Any], result: Any) -> None:
        s.memory[key] = result

    return keep


AGAIN = (
    FollowUp(
        "whole_thread",
        "The whole conversation the email belongs to.",
        _about("email", lambda box, a: {"thread_id": a["m"]["thread_id"], "mailbox_id": box["mailbox_id"]}),
        "get_thread",
        heard=_said,
    ),
    FollowUp(
        "open_it",
        "Read the email in full.",
        _about("email", lambda box, a: {"message_id": a["m"]["message_id"]}),
        "get_message",
        heard=_said,
    ),
    FollowUp(
        "keep_sender",
        "Save the email's sender in the address book.",
        _about(
            f"email:{STRANGER}",
            lambda box, a: {
                "mailbox_id": box["mailbox_id"],
                "name": a["m"]["from_name"],
                "address": a["m"]["from_address"],
            },
        ),
        "add_contact",
        heard=_said,
        asked=False,
        then=_keep("contact"),
    ),
    FollowUp(
        "my_labels",
        "Which labels the owner has, with their counts.",
        _about("box", lambda box, a: {"mailbox_id": box["mailbox_id"]}),
        "list_labels",
        heard=_said,
        weight=0.8,
    ),
    FollowUp(
        "my_drafts",
        "The drafts the owner has lying around.",
        _about("box", lambda box, a: {"mailbox_id": box["mailbox_id"]}),
        "list_drafts",
        heard=_said,
        weight=0.8,
    ),
    FollowUp(
        "label_glance",
        "What sits under the label of the dialogue now.",
        _about("label", lambda box, a: {"mailbox_id": box["mailbox_id"], "label": a["l"]}),
        "list_messages",
        heard=_said,
        asked=False,
    ),
    FollowUp(
        "send_it_now",
        "The draft of the dialogue goes out after all.",
        _about("draft", lambda box, a: {"draft_id": a["d"]["draft_id"]}),
        "send_draft",
        heard=_said,
        weight=1.2,
        asked=False,
    ),
)


follow_ups(email, AGAIN, WORDS)


# Programs: a choice, a lookup or two calls -------------------------------------------------------

MARKS = WORDS.family("marks")
MOVES = WORDS.family("moves")


@email.intent(covers=("mark_message",), follows=True, opens=False, weight=1.2)
def flag_it(s: Scene) -> None:
    """Star the email, take its star off, or keep it unread for later."""
    m, it = the_email(s, "folder != 'trash'")
    options = ["star" if not m["is_starred"] else "unstar"]
    if m["is_read"] and m["folder"] != "sent":
        options.append("unread")
    mode = s.rng.choice(options)
    s.say(*MARKS[mode], it=it, It=cap(it))
    change = {"star": {"is_starred": True}, "unstar": {"is_starred": False}, "unread": {"is_read": False}}[mode]
    s.call("mark_message", message_id=m["message_id"], **change)


@email.intent(covers=("move_message",), follows=True, opens=False)
def file_it(s: Scene) -> None:
    """Archive or bin the email, or get it back into the inbox."""
    m, it = the_email(s, "folder != 'sent'")
    to = s.rng.choice(("archive", "trash")) if m["folder"] == "inbox" else "inbox"
    s.say(*MOVES[to], it=it, It=cap(it))
    s.call("move_message", message_id=m["message_id"], folder=to)


@email.intent(covers=("list_labels", "label_message"), follows=True, opens=False, weight=1.2)
def label_it(s: Scene) -> None:
    """File the email under one of the owner's labels (looking at the labels first when they do not name one)."""
    box = box_of(s)
    m, it = the_email(s, "folder != 'trash'")
    lab = s.pick(FREE_LABELS, box["mailbox_id"], m["message_id"])
    if s.room(2, 1) and s.rng.random() < 0.4:
        s.say(WORDS.label_it, it=it, l=lab["name"])
        s.call("list_labels", mailbox_id=box["mailbox_id"])
    else:
        s.say(WORDS.label_it_just_file, it=it, It=cap(it), l=lab["name"])
    s.call("label_message", message_id=m["message_id"], label=lab["name"])
    s.memory["label"] = lab


@email.intent(covers=("create_label", "label_message"), follows=True, opens=False, weight=0.7)
def new_label_for_it(s: Scene) -> None:
    """A new label for the email: made, then put on it."""
    box = box_of(s)
    m, it = the_email(s, "folder != 'trash'")
    name = s.rng.choice(WORDS.new_labels)
    if s.rows("SELECT 1 FROM labels WHERE mailbox_id = ? AND lower(name) = lower(?)", box["mailbox_id"], name):
        raise Skip("the label exists")
    color = s.rng.choice(COLORS)
    s.say(WORDS.new_label_for_it, c=color, l=name, it=it)
    made = s.call("create_label", mailbox_id=box["mailbox_id"], name=name, color=color)
    s.call("label_message", message_id=m["message_id"], label=made["name"])
    s.memory["label"] = made


@email.intent(covers=("create_draft", "send_draft"), follows=True, opens=False, weight=1.2)
def answer_it(s: Scene) -> None:
    """Reply to the email: sent straight away, or kept as a draft to look at later."""
    box = box_of(s)
    m, it = the_email(s, "folder IN ('inbox', 'archive') AND from_address NOT LIKE 'no-reply@%'")
    text = s.rng.choice(WORDS.replies)
    send = s.room(2, 1) and s.rng.random() < 0.5
    if send:
        s.say(WORDS.answer_it, it=it, t=text)
    else:
        s.say(WORDS.answer_it_draft_only, it=it, t=text)
    draft = s.call("create_draft", mailbox_id=box["mailbox_id"], reply_to_message_id=m["message_id"], body=text)
    if send:
        s.call("send_draft", draft_id=draft["draft_id"])
    else:
        s.memory["draft"] = draft


@email.intent(covers=("search_messages",), follows=True, opens=False)
def more_from_them(s: Scene) -> None:
    """What else the email's sender (or their company) wrote."""
    box = box_of(s)
    m, _ = the_email(s, "folder != 'sent' AND from_address NOT LIKE 'no-reply@%'")
    if s.rng.random() < 0.5:
        s.say(WORDS.more_from_them, f=first(m["from_name"]))
        s.call("search_messages", mailbox_id=box["mailbox_id"], from_address=m["from_address"])
    else:
        co = company_of(m["from_address"])
        if co == "Northwind":
            raise Skip("a colleague, not a company")
        s.say(WORDS.more_from_them_company, co=co)
        s.call("search_messages", mailbox_id=box["mailbox_id"], from_address=m["from_address"].split("@", 1)[1])


# On the mailbox, the draft or the contact --------------------------------------------------------

GLANCES = WORDS.family("glances")


@email.intent(covers=("list_messages",), follows=True, opens=False, weight=1.2)
def mailbox_glance(s: Scene) -> None:
    """A look at a folder: what is still unread, starred, in the archive, trash or sent mail."""
    box = box_of(s)
    mode = s.rng.choice(("unread", "starred", "archive", "trash", "sent"))
    args: dict[str, Any] = {"mailbox_id": box["mailbox_id"]}
    if mode in ("unread", "starred"):
        args[f"{mode}_only"] = True
    else:
        args["folder"] = mode
    place = {"archive": "my archive", "trash": "the trash", "sent": "my sent mail"}.get(mode, "")
    s.say(*GLANCES.get(mode, GLANCES["folder"]), p=place)
    s.asked("list_messages", **args)
    s.call("list_messages", **args)


@email.intent(covers=("list_contacts",), follows=True, opens=False)
def people_glance(s: Scene) -> None:
    """A look at the address book: the favourites, or the people at the company of the dialogue's contact."""
    box = box_of(s)
    person = s.memory.get("contact") or {}
    co = person.get("company") or (company_of(person["email"]) if person.get("email") else "")
    if co and co != "Northwind" and s.rng.random() < 0.6:
        s.say(WORDS.people_glance, co=co)
        args: dict[str, Any] = {"mailbox_id": box["mailbox_id"], "query": co}
    else:
        s.say(WORDS.people_glance_favourites)
        args = {"mailbox_id": box["mailbox_id"], "favorites_only": True}
    s.asked("list_contacts", **args)
    s.call("list_contacts", **args)
