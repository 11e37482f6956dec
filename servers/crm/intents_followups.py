"""CRM follow-ups: the short next turn a rep asks about the deal, company, person or lead the dialogue is about
(a reminder or a note on it, what else is open there, who else we know there, the record as it stands now)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hub.kit.intent import Scene, Skip, day
from servers.crm.intents import follow_up_task, seen
from servers.crm.schema import OPEN_STAGES
from servers.crm.tools import crm

REMINDERS = ("Check in on the proposal", "Send the updated quote", "Book a call with their CFO", "Share the case study")
DEAL_NOTES = ("Loss review", "Post-mortem", "Budget confirmed", "Champion identified", "Legal review started")


def known_deal(s: Scene) -> dict[str, Any]:
    d = s.memory.get("deal")
    if not d or not seen(s, d["deal_id"]):
        raise Skip("no deal the agent holds in the dialogue")
    return dict(d)


def company_not_opened(s: Scene, what: str) -> dict[str, Any]:
    """The company of the dialogue, which the agent knows but whose record (listing its ``what``) it has not
    opened; ``Skip`` otherwise."""
    co: dict[str, Any] | None = s.memory.get("company")
    if not co or not seen(s, co["account_id"]):
        raise Skip("no company in the dialogue")
    if any(c.tool == "get_account" and c.arguments.get("account_id") == co["account_id"] for c in s.calls):
        raise Skip(f"the account's record already listed its {what}")
    return co


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: str, **slots: Any) -> Any:
    """The rep asks for a read the dialogue has not made yet (``Skip`` when it has); the agent makes it: its
    result."""
    s.asked(tool, **args)
    s.say(*phrasings, **slots)
    return s.call(tool, **args)


@crm.intent(covers=("log_activity",), follows=True, opens=False, weight=1.5)
def remind_me(s: Scene) -> None:
    """The rep asks for a task on the open deal the dialogue is about."""
    d = known_deal(s)
    if s.value("SELECT stage FROM deals WHERE deal_id = ?", d["deal_id"]) not in OPEN_STAGES:
        raise Skip("the deal is closed")
    subject = s.rng.choice(REMINDERS)
    due = (s.now + timedelta(days=s.rng.choice((1, 3, 7, 14)))).strftime("%Y-%m-%d")
    s.say(
        "Put a task on that deal for {when}: '{what}'.",
        "Remind me {when} to '{what}' on it.",
        "Add a to-do on the deal, due {when}: '{what}'.",
        when=day(due, s.now).removeprefix("on "),
        what=subject,
    )
    s.call("log_activity", kind="task", subject=subject, deal_id=d["deal_id"], due_date=due)


@crm.intent(covers=("log_activity",), follows=True, opens=False)
def note_on_deal(s: Scene) -> None:
    """The rep leaves a note on the deal the dialogue is about."""
    d = known_deal(s)
    stage = s.value("SELECT stage FROM deals WHERE deal_id = ?", d["deal_id"])
    subject = "Loss review" if stage == "closed_lost" else s.rng.choice(DEAL_NOTES[2:])
    s.say(
        "Add a note to it titled '{topic}' so we remember.",
        "Put a note on that deal: '{topic}'.",
        "Log a note against it, '{topic}'.",
        topic=subject,
    )
    s.call("log_activity", kind="note", subject=subject, deal_id=d["deal_id"])


@crm.intent(covers=("list_deals",), follows=True, opens=False, weight=1.5)
def other_deals_there(s: Scene) -> None:
    """The rep asks what else is open with the same company."""
    co = company_not_opened(s, "deals")
    if s.rng.random() < 0.5:
        args: dict[str, Any] = {"account_id": co["account_id"], "open_only": True}
        s.say("What else do we have open with {co}?", "Any other live deals at {co}?", co=co["name"])
    else:
        args = {"account_id": co["account_id"]}
        s.say("Show me every deal we've ever had with {co}.", "What's our full deal history with {co}?", co=co["name"])
    s.asked("list_deals", **args)
    s.call("list_deals", **args)


@crm.intent(covers=("get_deal",), follows=True, opens=False)
def deal_now(s: Scene) -> None:
    """The rep asks to see the deal as it stands now (its stage history, what comes next)."""
    d = known_deal(s)
    ask_for(
        s,
        "get_deal",
        {"deal_id": d["deal_id"]},
        "Show me that deal as it stands now.",
        "What does its stage history look like now?",
        "Pull up the deal so I can see the timeline.",
    )


@crm.intent(covers=("get_contact",), follows=True, opens=False)
def person_details(s: Scene) -> None:
    """The rep asks for the contact record of the person the dialogue is about."""
    c = s.memory.get("contact")
    if not c or not seen(s, c["contact_id"]):
        raise Skip("no contact in the dialogue")
    ask_for(
        s,
        "get_contact",
        {"contact_id": c["contact_id"]},
        "Pull up {f}'s contact record.",
        "What deals is {f} involved in?",
        "Show me {f}'s details and recent activity.",
        f=c["name"].split()[0],
    )


@crm.intent(covers=("search_contacts",), follows=True, opens=False)
def who_else_there(s: Scene) -> None:
    """The rep asks who else we know at the company the dialogue is about."""
    co = company_not_opened(s, "people")
    ask_for(
        s,
        "search_contacts",
        {"account_id": co["account_id"]},
        "Who else do we know at {co}?",
        "List our other contacts over at {co}.",
        "Who are the people we deal with at {co}?",
        co=co["name"],
    )


@crm.intent(covers=("get_lead",), follows=True, opens=False)
def lead_now(s: Scene) -> None:
    """The rep asks to see the lead as it stands now (status, what it turned into, activities)."""
    lead = s.memory.get("lead")
    if not lead or not seen(s, lead["lead_id"]):
        raise Skip("no lead in the dialogue")
    ask_for(
        s,
        "get_lead",
        {"lead_id": lead["lead_id"]},
        "Show me the lead now.",
        "Where does that lead stand now?",
        "What did that create?" if lead["status"] == "converted" else "Pull the lead up again.",
    )


@crm.intent(covers=("log_activity",), follows=True, opens=False)
def lead_follow_up_task(s: Scene) -> None:
    """The rep asks for a follow-up task on the lead the dialogue is about."""
    lead = s.memory.get("lead")
    if not lead or not seen(s, lead["lead_id"]) or lead["status"] in ("converted", "disqualified"):
        raise Skip("no live lead in the dialogue")
    follow_up_task(s, lead["lead_id"])


@crm.intent(covers=("list_deals",), follows=True, opens=False)
def reps_open_deals(s: Scene) -> None:
    """After a hand-over (or on the deal's owner), the rep or manager asks what that rep has open now."""
    new = s.memory.get("new_owner")
    if not new or not seen(s, new["owner_id"]):
        raise Skip("no hand-over in the dialogue")
    args = {"owner_id": new["owner_id"], "open_only": True}
    ask_for(
        s,
        "list_deals",
        args,
        "What does {b} have open now?",
        "Show me {b}'s open deals after that.",
        "List everything {b} is working.",
        b=new["name"].split()[0],
    )


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
    s.say("Open up {w}.", "Tell me more about {w}.", "What's the story on {w}?", w=s.rng.choice(words))
    s.call("get_deal", deal_id=pick["deal_id"])
    d = s.rows(
        "SELECT d.*, a.name AS company FROM deals d JOIN accounts a USING (account_id) WHERE d.deal_id = ?",
        pick["deal_id"],
    )[0]
    s.memory["deal"] = {k: d[k] for k in ("deal_id", "account_id", "company", "stage", "name", "owner_id")}
    s.memory["company"] = {"account_id": d["account_id"], "name": d["company"]}


@crm.intent(covers=("get_lead",), follows=True, opens=False)
def open_listed_lead(s: Scene) -> None:
    """After a list of leads, the rep opens the newest one (or the one from a company they name)."""
    listed = list(s.memory.get("leads") or ())
    if len(listed) < 2:
        raise Skip("no list of leads in the dialogue")
    if s.rng.random() < 0.5:
        pick, which = listed[0], "the newest one"  # newest first
    else:
        pick = s.rng.choice(listed)
        if sum(x["company"] == pick["company"] for x in listed) > 1:
            raise Skip("two leads from that company")
        which = f"the one from {pick['company']}"
    ask_for(
        s, "get_lead", {"lead_id": pick["lead_id"]}, "Open {w}.", "Tell me about {w}.", "What's {w} about?", w=which
    )
    lead = s.rows("SELECT * FROM leads WHERE lead_id = ?", pick["lead_id"])[0]
    s.memory["lead"] = {k: lead[k] for k in ("lead_id", "name", "company", "status", "owner_id")}
