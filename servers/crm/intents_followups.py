"""CRM follow-ups: the short next turn a rep asks about the deal, company, person or lead the dialogue is about
(a reminder or a note on it, what else is open there, who else we know there, the record as it stands now).

The one-turn, one-call ones are rows of ``ASKS``: what the turn is about (read off ``s.memory``, ``Skip`` when
the dialogue has none), the call it asks for, and how the rep says it; a read already made is not asked again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.crm.intents import WORDS, open_deal, remember_lead, seen, soon
from servers.crm.schema import OPEN_STAGES
from servers.crm.tools import crm


def known(s: Scene, key: str, id_key: str) -> dict[str, Any]:
    """What the dialogue is about under ``memory[key]``, whose id the agent holds; ``Skip`` otherwise."""
    found = s.memory.get(key)
    if not found or not seen(s, found[id_key]):
        raise Skip(f"no {key} the agent holds in the dialogue")
    return dict(found)


def company_not_opened(s: Scene) -> dict[str, Any]:
    """The company of the dialogue, which the agent knows but whose record it has not opened."""
    co = known(s, "company", "account_id")
    if any(c.tool == "get_account" and c.arguments.get("account_id") == co["account_id"] for c in s.calls):
        raise Skip("the account's record already listed it")
    return co


def open_deal_task(s: Scene) -> dict[str, Any]:
    d = known(s, "deal", "deal_id")
    if s.value("SELECT stage FROM deals WHERE deal_id = ?", d["deal_id"]) not in OPEN_STAGES:
        raise Skip("the deal is closed")
    due, when = soon(s, 1, 3, 7, 14)
    return d | {"due": due, "when": when, "what": s.rng.choice(WORDS.reminders)}


def deal_note(s: Scene) -> dict[str, Any]:
    d = known(s, "deal", "deal_id")
    lost = s.value("SELECT stage FROM deals WHERE deal_id = ?", d["deal_id"]) == "closed_lost"
    return d | {"topic": "Loss review" if lost else s.rng.choice(WORDS.deal_notes[2:])}


def lead_now(s: Scene) -> dict[str, Any]:
    lead = known(s, "lead", "lead_id")
    again = "What did that create?" if lead["status"] == "converted" else "Pull the lead up again."
    return lead | {"again": again}


def live_lead(s: Scene) -> dict[str, Any]:
    lead = known(s, "lead", "lead_id")
    if lead["status"] in ("converted", "disqualified"):
        raise Skip("no live lead in the dialogue")
    due, when = soon(s, 2, 3, 5, 7)
    return lead | {"due": due, "when": when}


def new_owner(s: Scene) -> dict[str, Any]:
    new = known(s, "new_owner", "owner_id")
    return new | {"b": new["name"].split()[0]}


def first_name(key: str, id_key: str) -> Callable[[Scene], dict[str, Any]]:
    return lambda s: (found := known(s, key, id_key)) | {"f": found["name"].split()[0]}


ASKS = (
    FollowUp(
        "remind_me",
        "The rep asks for a task on the open deal the dialogue is about.",
        open_deal_task,
        "log_activity",
        lambda d: {"kind": "task", "subject": d["what"], "deal_id": d["deal_id"], "due_date": d["due"]},
        WORDS.remind_me,
        1.5,
    ),
    FollowUp(
        "note_on_deal",
        "The rep leaves a note on the deal the dialogue is about.",
        deal_note,
        "log_activity",
        lambda d: {"kind": "note", "subject": d["topic"], "deal_id": d["deal_id"]},
    ),
    FollowUp(
        "deal_now",
        "The rep asks to see the deal as it stands now (its stage history, what comes next).",
        first_name("deal", "deal_id"),
        "get_deal",
        lambda d: {"deal_id": d["deal_id"]},
    ),
    FollowUp(
        "person_details",
        "The rep asks for the contact record of the person the dialogue is about.",
        first_name("contact", "contact_id"),
        "get_contact",
        lambda c: {"contact_id": c["contact_id"]},
    ),
    FollowUp(
        "who_else_there",
        "The rep asks who else we know at the company the dialogue is about.",
        company_not_opened,
        "search_contacts",
        lambda co: {"account_id": co["account_id"]},
    ),
    FollowUp(
        "lead_now",
        "The rep asks to see the lead as it stands now (status, what it turned into, activities).",
        lead_now,
        "get_lead",
        lambda lead: {"lead_id": lead["lead_id"]},
    ),
    FollowUp(
        "lead_follow_up_task",
        "The rep asks for a follow-up task on the lead the dialogue is about.",
        live_lead,
        "log_activity",
        lambda lead: {"kind": "task", "subject": "Follow up", "lead_id": lead["lead_id"], "due_date": lead["due"]},
        WORDS.follow_up,
    ),
    FollowUp(
        "reps_open_deals",
        "After a hand-over, the rep or manager asks what the new owner has open now.",
        new_owner,
        "list_deals",
        lambda o: {"owner_id": o["owner_id"], "open_only": True},
    ),
)


# a read already made is not asked again; the turn hears the slots its phrasings name
follow_ups(crm, [replace(a, asked=crm.tools[a.tool].kind == "read", said_only=True) for a in ASKS], WORDS)


@crm.intent(covers=("list_deals",), follows=True, opens=False, weight=1.5)
def other_deals_there(s: Scene) -> None:
    """The rep asks what else is open with the same company."""
    co = company_not_opened(s)
    if s.rng.random() < 0.5:
        args: dict[str, Any] = {"account_id": co["account_id"], "open_only": True}
        s.say(WORDS.other_deals_there, co=co["name"])
    else:
        args = {"account_id": co["account_id"]}
        s.say(WORDS.other_deals_there_all_history, co=co["name"])
    s.asked("list_deals", **args)
    s.call("list_deals", **args)


@crm.intent(covers=("get_deal",), follows=True, opens=False, weight=1.5)
def open_listed_deal(s: Scene) -> None:
    """After a list of deals, the rep opens the biggest (or the one closing soonest)."""
    listed = list(s.memory.get("deals") or ())
    if len(listed) < 2:
        raise Skip("no list of deals in the dialogue")
    if s.rng.random() < 0.5:
        key, words = "amount", ("the biggest one", "the largest of those", "the one worth the most")
        pick = max(listed, key=lambda d: d[key])
    else:
        key, words = "expected_close", ("the one closing soonest", "whichever should close first", "the next to close")
        pick = min(listed, key=lambda d: d[key])
    if sum(d[key] == pick[key] for d in listed) > 1:
        raise Skip("a tie")
    s.asked("get_deal", deal_id=pick["deal_id"])
    s.say(WORDS.open_listed_deal, w=s.rng.choice(words))
    open_deal(s, pick["deal_id"])


@crm.intent(covers=("get_lead",), follows=True, opens=False)
def open_listed_lead(s: Scene) -> None:
    """After a list of leads, the rep opens the newest one (or the one from a company they name)."""
    listed = list(s.memory.get("leads") or ())
    if len(listed) < 2:
        raise Skip("no list of leads in the dialogue")
    opened = {c.arguments.get("lead_id") for c in s.calls if c.tool == "get_lead"}
    if listed[0]["lead_id"] not in opened and s.rng.random() < 0.5:
        pick, which = listed[0], "the newest one"  # newest first
    else:
        pick = s.rng.choice([x for x in listed if x["lead_id"] not in opened] or listed)
        if sum(x["company"] == pick["company"] for x in listed) > 1:
            raise Skip("two leads from that company")
        which = f"the one from {pick['company']}"
    s.asked("get_lead", lead_id=pick["lead_id"])
    s.say(WORDS.open_listed_lead, w=which)
    s.call("get_lead", lead_id=pick["lead_id"])
    remember_lead(s, s.rows("SELECT * FROM leads WHERE lead_id = ?", pick["lead_id"])[0])
