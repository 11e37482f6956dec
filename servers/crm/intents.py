"""What people want of the sales CRM: reps working leads and deals, logging their calls; managers reviewing.

Reps name companies ("Apex Labs"), people ("Maria Lopez at Apex Labs") and deals by their name ("the
Apex Labs analytics add-on deal"), never by id. The agent finds accounts with ``search_accounts``,
their deals with ``list_deals`` (or off the account's record), people with ``search_contacts`` and
``search_leads``, and reps by name with ``list_owners``.

Most intents open a dialogue and continue one: a continuation keeps the rep talking (``memory['me']``, the
owner id) and stays on what the dialogue is about: ``deal``, ``company``, ``contact`` or ``lead``. Short
follow-ups live in ``intents_followups``.
"""

from __future__ import annotations

import json
from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day, money, unique_best
from servers.crm.schema import ALLOWED, OPEN_STAGES
from servers.crm.tools import crm

DEAL = (
    "SELECT d.*, a.name AS company FROM deals d JOIN accounts a USING (account_id) "
    "JOIN owners o ON o.owner_id = d.owner_id WHERE o.active = 1"
)
OPEN = "d.stage IN ('prospecting', 'qualification', 'proposal', 'negotiation')"
STAGE_WORDS = {
    "prospecting": "early prospecting",
    "qualification": "qualification",
    "proposal": "the proposal stage",
    "negotiation": "negotiation",
    "closed_won": "won",
    "closed_lost": "lost",
}
LOST = {
    "price": "they said we're too expensive",
    "competitor": "they went with a competitor",
    "no_budget": "their budget got cut",
    "no_decision": "they couldn't make up their minds",
    "timing": "the timing isn't right for them",
    "lost_contact": "they stopped answering",
}
SOURCES = {
    "trade_show": "at the trade show",
    "referral": "through a referral",
    "webinar": "on our webinar",
    "cold_call": "on a cold call",
    "partner": "through a partner",
}
NOTES = (
    "Pricing discussion",
    "Sent the security questionnaire",
    "Demo for the ops team",
    "Contract redlines",
    "Intro with procurement",
    "Follow-up on the pilot",
)
MEETINGS = ("Quarterly review", "Onsite demo", "Renewal planning", "Kickoff workshop", "Executive briefing")


def upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def following(s: Scene) -> bool:
    """Whether this intent continues a dialogue (an earlier intent already ran)."""
    return len(s.intents) > 1


def seen(s: Scene, value: Any) -> bool:
    """Whether a result earlier in the dialogue carried ``value`` (the agent already holds that id)."""
    quoted = json.dumps(value)
    return any(quoted in json.dumps(c.result) for c in s.calls)


def deal_words(d: dict[str, Any]) -> str:
    """'Apex Labs - Analytics add-on' -> 'Apex Labs analytics add-on': how a rep says a deal's name."""
    company, _, product = d["name"].partition(" - ")
    return f"{company} {product[:1].lower() + product[1:]}" if product else d["name"]


def deal_ref(s: Scene, d: dict[str, Any]) -> str:
    if following(s) and s.memory.get("deal", {}).get("deal_id") == d["deal_id"]:
        return "that deal"
    return s.refer(
        d["deal_id"],
        Ref("the {n} deal", "SELECT deal_id FROM deals WHERE name = ?", d["name"]),
        Ref("the {amt} {n} deal", "SELECT deal_id FROM deals WHERE name = ? AND amount = ?", d["name"], d["amount"]),
        n=deal_words(d),
        amt=money(d["amount"]),
    )


def mine(s: Scene, column: str) -> tuple[str, list[Any]]:
    """A condition keeping a continuation on what the rep talking owns."""
    me = s.memory.get("me")
    if following(s) and me:
        return f" AND {column} = ?", [me]
    return "", []


def rep(s: Scene, owner_id: str) -> None:
    """The rep who owns what the user talks about becomes the persona (a continuation keeps the same rep)."""
    if following(s) and s.memory.get("me") not in (None, owner_id):
        raise Skip("a continuation keeps the rep")
    s.be(str(s.value("SELECT name FROM owners WHERE owner_id = ?", owner_id)))
    s.memory["me"] = owner_id


def dialogue_deal(s: Scene, where: str = "1=1") -> dict[str, Any]:
    """An open deal for a continuation: the dialogue's own deal or another at its company, owned by the rep."""
    cond, params = mine(s, "d.owner_id")
    known = s.memory.get("deal") or {}
    company = (s.memory.get("company") or {}).get("account_id") or known.get("account_id")
    if not company:
        raise Skip("no company in the dialogue")
    return s.pick(DEAL + f" AND d.account_id = ? AND ({where}){cond}", company, *params)


def dialogue_company(s: Scene) -> dict[str, Any]:
    """The company of the dialogue as it is now; ``Skip`` when there is none."""
    company = s.memory.get("company")
    if not company:
        raise Skip("no company in the dialogue")
    return s.rows("SELECT * FROM accounts WHERE account_id = ?", company["account_id"])[0]


def find_company(s: Scene, account_id: str, name: str) -> str:
    """The agent's path to a company: known already, or searched by its name."""
    if seen(s, account_id):
        return account_id
    return str(
        s.find(
            "search_accounts",
            "accounts",
            "account_id",
            account_id,
            missing="the company is not found by its name",
            query=name,
        )["account_id"]
    )


def find_deal(s: Scene, d: dict[str, Any], **filters: Any) -> str:
    """The agent's path to a deal: known already, or the company by name, then its deals (listed, or read off
    the account's record)."""
    if seen(s, d["deal_id"]):
        return str(d["deal_id"])
    account_id = find_company(s, d["account_id"], d["company"])
    if s.rng.random() < 0.3 and not filters:
        acc = s.call("get_account", account_id=account_id)
        if d["deal_id"] not in [x["deal_id"] for x in acc["deals"]]:
            raise Skip("the deal is not on the account")
        remember_company(s, acc)
        return str(d["deal_id"])
    filters = dict(filters) if filters else s.rng.choice(({}, {"open_only": True}, {"stage": d["stage"]}))
    found = s.find(
        "list_deals",
        "deals",
        "deal_id",
        d["deal_id"],
        missing="the deal is not listed",
        account_id=account_id,
        **filters,
    )
    return str(found["deal_id"])


def remember_deal(s: Scene, d: dict[str, Any]) -> None:
    s.memory["deal"] = {k: d[k] for k in ("deal_id", "account_id", "company", "stage", "name", "owner_id")}
    s.memory["company"] = {"account_id": d["account_id"], "name": d["company"]}


def open_biggest(s: Scene, deals: list[dict[str, Any]], tie: str, *phrasings: str) -> None:
    """The rep opens the biggest of ``deals`` (``Skip`` with ``tie`` when two tie); it becomes the dialogue's deal."""
    top = unique_best(deals, itemgetter("amount"), tie=tie)
    s.say(*phrasings)
    s.call("get_deal", deal_id=top["deal_id"])
    d = s.rows(DEAL + " AND d.deal_id = ?", top["deal_id"])
    if d:
        remember_deal(s, d[0])


def remember_company(s: Scene, acc: dict[str, Any]) -> None:
    s.memory["company"] = {"account_id": acc["account_id"], "name": acc["name"]}


def person_ref(s: Scene, table: str, key: str, row: dict[str, Any], company: str, named_alone: bool = True) -> str:
    """A person by name, or name and company, or name and email; ``named_alone=False`` always says the company."""
    by_name = [Ref("{name}", f"SELECT {key} FROM {table} WHERE name = ?", row["name"])] if named_alone else []
    return s.refer(
        row[key],
        *by_name,
        Ref(
            "{name} at {co}",
            f"SELECT {key} FROM {table} t WHERE name = ? AND "
            + (
                "company = ?"
                if table == "leads"
                else "(SELECT name FROM accounts a WHERE a.account_id = t.account_id) = ?"
            ),
            row["name"],
            company,
        ),
        Ref("{name} ({email})", f"SELECT {key} FROM {table} WHERE email = ?", row["email"]),
        name=row["name"],
        co=company,
        email=row["email"],
    )


def find_contact(s: Scene, c: dict[str, Any]) -> str:
    """The contact id: known already, else searched by name (within the company when the agent knows it)."""
    if seen(s, c["contact_id"]):
        return str(c["contact_id"])
    args: dict[str, Any] = {"query": c["name"]}
    if seen(s, c["account_id"]) and s.rng.random() < 0.7:  # the agent knows the company: search within it
        args = {"account_id": c["account_id"]} | ({"query": c["name"]} if s.rng.random() < 0.5 else {})
    return str(
        s.find(
            "search_contacts", "contacts", "contact_id", c["contact_id"], missing="the contact is not found", **args
        )["contact_id"]
    )


def remember_contact(s: Scene, c: dict[str, Any]) -> None:
    s.memory["contact"] = {"contact_id": c["contact_id"], "name": c["name"], "account_id": c["account_id"]}
    s.memory["company"] = {"account_id": c["account_id"], "name": c["company"]}


# Deals ------------------------------------------------------------------------------------------


@crm.intent(covers=("search_accounts", "list_deals", "update_deal_stage", "get_account"), weight=2.0, follows=True)
def move_deal_forward(s: Scene) -> None:
    """A rep moves a deal one stage on (or wins it from negotiation)."""
    if following(s):
        d = dialogue_deal(s, OPEN)
        if [c.tool for c in s.calls if c.tool == "update_deal_stage" and c.arguments["deal_id"] == d["deal_id"]]:
            raise Skip("the deal already moved in this dialogue")
    else:
        d = s.pick(DEAL + f" AND {OPEN}")
    rep(s, d["owner_id"])
    nxt = ALLOWED[d["stage"]][0]
    what = deal_ref(s, d)
    if nxt == "closed_won":
        s.say(
            "Great news: {what} is signed! Mark it won.",
            "We closed {what}, they signed this morning.",
            "{What} is a done deal, book it as won.",
            minimal=["{What}: signed."],
            what=what,
            What=upper(what),
        )
    else:
        s.say(
            "{What} has moved on to {stage}.",
            "Update {what}: we're in {stage} now.",
            "Move {what} ahead to {stage}, please.",
            minimal=["{What} progressed."],
            what=what,
            What=upper(what),
            stage=STAGE_WORDS[nxt],
        )
    deal_id = find_deal(s, d)
    s.call("update_deal_stage", deal_id=deal_id, stage=nxt)
    remember_deal(s, d | {"stage": nxt})


@crm.intent(covers=("search_accounts", "list_deals", "update_deal_stage", "get_account"), weight=1.5, follows=True)
def lose_deal(s: Scene) -> None:
    """A rep marks a deal lost with the reason."""
    d = dialogue_deal(s, OPEN) if following(s) else s.pick(DEAL + f" AND {OPEN}")
    rep(s, d["owner_id"])
    reason = s.rng.choice(list(LOST))
    what = deal_ref(s, d)
    s.say(
        "Bad news on {what}: {why}. Close it out.",
        "{What} is dead, {why}.",
        "We lost {what}; {why}. Please record that.",
        minimal=["{What} fell through: {why}."],
        what=what,
        What=upper(what),
        why=LOST[reason],
    )
    deal_id = find_deal(s, d)
    s.call("update_deal_stage", deal_id=deal_id, stage="closed_lost", lost_reason=reason)
    remember_deal(s, d | {"stage": "closed_lost"})


@crm.intent(covers=("list_owners", "list_deals", "reassign_deal", "search_accounts"), weight=1.5, follows=True)
def hand_over_deal(s: Scene) -> None:
    """A sales manager (or the rep) hands an open deal to another rep."""
    known = s.memory.get("deal") if following(s) else None
    if known:
        d = s.pick(DEAL + f" AND d.deal_id = ? AND {OPEN}", known["deal_id"])
    elif following(s):
        raise Skip("no deal in the dialogue")
    else:
        d = s.pick(DEAL + f" AND {OPEN}")
    frm = s.rows("SELECT * FROM owners WHERE owner_id = ?", d["owner_id"])[0]
    to = s.pick("SELECT * FROM owners WHERE active = 1 AND owner_id != ? AND name != ?", frm["owner_id"], frm["name"])
    if s.rows("SELECT 1 FROM owners WHERE name IN (?, ?) GROUP BY name HAVING COUNT(*) > 1", frm["name"], to["name"]):
        raise Skip("two reps share a name")
    by_company = s.rng.random() < 0.4
    if known and seen(s, d["deal_id"]):
        s.say(
            "I can't give that one the time it needs; hand it to {b}.",
            "Let {b} take that deal over.",
            "Move that one to {b}, please.",
            b=to["name"],
        )
    else:
        what = deal_ref(s, d)
        s.say(
            "{a} is stretched thin. Give {what} to {b}.",
            "Please move {what} from {a} over to {b}.",
            "{b} is taking over {what} from {a}.",
            minimal=["{what}: {a} -> {b}."],
            a=frm["name"],
            b=to["name"],
            what=what,
        )
    reps = s.call("list_owners", active=True)["owners"]
    ids = {o["name"]: o["owner_id"] for o in reps}
    if to["name"] not in ids:
        raise Skip("the rep is not listed")
    if not seen(s, d["deal_id"]):
        if by_company:
            find_deal(s, d, open_only=True)
        else:
            if frm["name"] not in ids:
                raise Skip("the rep is not listed")
            theirs = s.call("list_deals", owner_id=ids[frm["name"]], open_only=True, limit=100)["deals"]
            if d["deal_id"] not in [x["deal_id"] for x in theirs]:
                raise Skip("the deal is not listed")
    s.call("reassign_deal", deal_id=d["deal_id"], owner_id=ids[to["name"]])
    remember_deal(s, d | {"owner_id": to["owner_id"]})
    s.memory["new_owner"] = {"owner_id": to["owner_id"], "name": to["name"]}


@crm.intent(covers=("search_accounts", "get_account", "get_deal"), weight=1.5, follows=True)
def account_rundown(s: Scene) -> None:
    """A rep preps for a meeting: the company's contacts and deals (and maybe the biggest open deal)."""
    cond, params = mine(s, "owner_id")
    if following(s):
        a = dialogue_company(s)
        if any(c.tool == "get_account" and c.arguments["account_id"] == a["account_id"] for c in s.calls):
            raise Skip("already looked at the account")
        s.say(
            "Give me the full picture on {co}: who we know there and what's in flight.",
            "What else is going on at {co}? People and deals.",
            "Pull up the record for {co}, please.",
            co=a["name"],
        )
    else:
        a = s.pick(
            "SELECT * FROM accounts WHERE account_id IN (SELECT account_id FROM deals WHERE stage IN "
            f"('prospecting', 'qualification', 'proposal', 'negotiation')){cond}",
            *params,
        )
        rep(s, a["owner_id"])
        s.say(
            "I'm meeting {co} tomorrow. Who do we know there and what's in flight?",
            "Give me the rundown on {co}: people, deals, revenue.",
            "What's our history with {co}?",
            minimal=["{co}?"],
            co=a["name"],
        )
    account_id = find_company(s, a["account_id"], a["name"])
    acc = s.call("get_account", account_id=account_id)
    remember_company(s, acc)
    if following(s) or s.rng.random() < 0.5:
        return
    open_deals = [d for d in acc["deals"] if d["stage"] in OPEN_STAGES]
    open_biggest(
        s,
        open_deals,
        "two open deals tie",
        "Tell me more about the biggest open deal there.",
        "What's going on with the largest open one?",
        "Open up their biggest live deal for me.",
    )


@crm.intent(covers=("get_distinct_values", "list_deals"))
def pipeline_review(s: Scene) -> None:
    """A sales manager looks at how deals spread over the stages, then at the big ones in one stage."""
    stage = s.rng.choice(OPEN_STAGES)
    floor = s.rng.choice((25_000, 50_000, 100_000))
    s.say(
        "How many deals do we have in each stage of the pipeline?",
        "Break down our deals by stage.",
        "What's the stage spread across all deals?",
        minimal=["Deals per stage?"],
    )
    if stage not in s.call("get_distinct_values", field="deal_stage")["values"]:
        raise Skip("no deal in that stage")
    s.say(
        "Which {w} deals are worth {f} or more?",
        "Show me the {w} ones of at least {f}.",
        "List the deals in {w} above {f}.",
        w=stage,
        f=money(floor).removesuffix(".00"),
    )
    s.memory["deals"] = tuple(s.call("list_deals", stage=stage, min_amount=float(floor))["deals"])


@crm.intent(covers=("list_owners", "list_deals", "get_deal"), weight=1.5)
def my_pipeline(s: Scene) -> None:
    """A rep asks for their own open deals (in one stage, or above an amount) and opens the biggest."""
    o = s.pick(
        "SELECT * FROM owners o WHERE active = 1 AND (SELECT COUNT(*) FROM owners x WHERE x.name = o.name) = 1 "
        "AND (SELECT COUNT(*) FROM deals d WHERE d.owner_id = o.owner_id AND "
        f"{OPEN}) >= 2"
    )
    s.be(o["name"])
    s.memory["me"] = o["owner_id"]
    how = s.rng.random()
    stage = s.pick(
        f"SELECT d.stage FROM deals d WHERE d.owner_id = ? AND {OPEN} GROUP BY d.stage HAVING COUNT(*) >= 2",
        o["owner_id"],
    )["stage"]
    floor = s.rng.choice((20_000, 40_000, 75_000))
    if how < 0.4:
        args: dict[str, Any] = {"open_only": True}
        s.say(
            "I'm {me}. What deals do I have open right now?",
            "{me} here: show me my live pipeline.",
            "This is {me}. Which of my deals are still open?",
            minimal=["{me}: my open deals?"],
            me=o["name"],
        )
    elif how < 0.7:
        args = {"stage": stage}
        s.say(
            "I'm {me}. Which of my deals are in {st}?",
            "{me} here: list my deals sitting in {st}.",
            "This is {me}. What do I have in {st} at the moment?",
            minimal=["{me}: my {st} deals?"],
            me=o["name"],
            st=STAGE_WORDS[stage],
        )
    else:
        args = {"open_only": True, "min_amount": float(floor)}
        s.say(
            "I'm {me}. Which of my open deals are worth {f} or more?",
            "{me} here: my live deals above {f}, please.",
            "This is {me}. Show me my open opportunities of at least {f}.",
            minimal=["{me}: my open deals over {f}?"],
            me=o["name"],
            f=money(floor).removesuffix(".00"),
        )
    reps = s.call("list_owners", active=True)["owners"]
    me = [r for r in reps if r["name"] == o["name"]]
    if not me:
        raise Skip("not listed")
    deals = s.call("list_deals", owner_id=me[0]["owner_id"], **args)["deals"]
    if len(deals) < 2:
        raise Skip("too few deals")
    s.memory["deals"] = tuple(deals)
    if s.rng.random() < 0.5:
        return
    open_biggest(
        s,
        deals,
        "two biggest",
        "Open up the biggest one.",
        "Tell me more about the largest of those.",
        "What's the story on the one worth the most?",
    )


# Leads ------------------------------------------------------------------------------------------


def find_lead(s: Scene, lead: dict[str, Any]) -> None:
    """The lead's id: known already, else searched by name (or by company, or by email)."""
    if seen(s, lead["lead_id"]):
        return
    r = s.rng.random()
    query = lead["name"] if r < 0.6 else lead["company"] if r < 0.85 else lead["email"]
    s.find("search_leads", "leads", "lead_id", lead["lead_id"], missing="the lead is not found", query=query)


def follow_up_task(s: Scene, lead_id: str) -> None:
    """The rep asks for a follow-up task on the lead a few days out."""
    due = (s.now + timedelta(days=s.rng.choice((2, 3, 5, 7)))).strftime("%Y-%m-%d")
    s.say(
        "Set me a task to follow up with them {when}.",
        "Remind me to call them back {when}.",
        "Add a follow-up task for {when}.",
        when=day(due, s.now).removeprefix("on "),
    )
    s.call("log_activity", kind="task", subject="Follow up", lead_id=lead_id, due_date=due)


def remember_lead(s: Scene, lead: dict[str, Any]) -> None:
    s.memory["lead"] = {k: lead[k] for k in ("lead_id", "name", "company", "status", "owner_id")}


@crm.intent(covers=("search_leads", "update_lead_status", "convert_lead", "search_accounts"), weight=2.0, follows=True)
def convert_qualified_lead(s: Scene) -> None:
    """A rep's lead is ready: it is qualified (if it was not yet) and converted into a deal."""
    cond, params = mine(s, "l.owner_id")
    known = s.memory.get("lead") if following(s) else None
    if following(s) and not known:
        raise Skip("no lead in the dialogue")
    lead = s.pick(
        "SELECT l.* FROM leads l JOIN owners o USING (owner_id) WHERE o.active = 1 AND l.status IN "
        f"('working', 'qualified', 'new'){cond}" + (" AND l.lead_id = ?" if known else ""),
        *params,
        *([known["lead_id"]] if known else []),
    )
    existing = s.rows("SELECT * FROM accounts WHERE name = ?", lead["company"])
    rep(s, lead["owner_id"])
    amount = float(s.rng.choice((12, 18, 25, 40, 60, 90, 150)) * 1000)
    size = s.given(amount, money(amount).removesuffix(".00"), "deal size", "convert_lead", "deal_amount")
    under = " They're already a customer, so put it under their account." if existing else ""
    if known:
        s.say(
            "They're ready to buy. Turn them into a deal worth {size}.{under}",
            "Great, convert them then, about {size}.{under}",
            "Make it a real opportunity at {size}.{under}",
            size=size,
            under=under,
        )
    else:
        who = person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False)
        s.say(
            "{who} is ready to buy. Turn them into a deal[ worth {size}].{under}",
            "Good call with {who}: they're in. Convert the lead[, about {size}].{under}",
            "{who} wants a proposal; make it a real opportunity[ at {size}].{under}",
            minimal=["{who} is a go[, {size}].{under}"],
            who=who,
            size=size,
            under=under,
        )
    find_lead(s, lead)
    if lead["status"] != "qualified":
        s.call("update_lead_status", lead_id=lead["lead_id"], status="qualified")
    args: dict[str, Any] = {"lead_id": lead["lead_id"], "deal_amount": amount}
    if existing:
        args["account_id"] = s.find(
            "search_accounts",
            "accounts",
            "account_id",
            existing[0]["account_id"],
            missing="the company is not found",
            query=lead["company"],
        )["account_id"]
    made = s.call("convert_lead", **args)
    s.memory["deal"] = {
        "deal_id": made["deal_id"],
        "account_id": made["account_id"],
        "company": lead["company"],
        "stage": "prospecting",
        "name": f"{lead['company']} - New business",
        "owner_id": lead["owner_id"],
    }
    s.memory["company"] = {"account_id": made["account_id"], "name": lead["company"]}
    s.memory["contact"] = {"contact_id": made["contact_id"], "name": lead["name"], "account_id": made["account_id"]}
    remember_lead(s, lead | {"status": "converted"})


@crm.intent(covers=("search_leads", "update_lead_status", "get_lead"), weight=1.5, follows=True)
def drop_lead(s: Scene) -> None:
    """A rep looks at a lead and disqualifies it with a reason (or starts working it)."""
    cond, params = mine(s, "owner_id")
    known = s.memory.get("lead") if following(s) else None
    if following(s) and not known:
        raise Skip("no lead in the dialogue")
    lead = s.pick(
        f"SELECT * FROM leads WHERE status IN ('new', 'working'){cond}" + (" AND lead_id = ?" if known else ""),
        *params,
        *([known["lead_id"]] if known else []),
    )
    rep(s, lead["owner_id"])
    reason = s.rng.choice(("no budget", "not a fit", "unresponsive"))
    if any(x.tool == "update_lead_status" and x.arguments["lead_id"] == lead["lead_id"] for x in s.calls):
        raise Skip("the lead's status already changed in this dialogue")
    if known:
        s.say("Drop it, {r}.", "It's a dead end: {r}. Disqualify it.", "Let's close that one out, {r}.", r=reason)
        s.call("update_lead_status", lead_id=lead["lead_id"], status="disqualified", reason=reason)
        remember_lead(s, lead | {"status": "disqualified"})
        return
    who = person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False)
    s.say(
        "Where are we with {who}?",
        "Pull up the lead for {who}.",
        "What do we have on {who}?",
        minimal=["{who}?"],
        who=who,
    )
    find_lead(s, lead)
    s.call("get_lead", lead_id=lead["lead_id"])
    remember_lead(s, lead)
    if s.rng.random() < 0.35:
        return  # a follow-up decides what happens to it
    if lead["status"] == "new" and s.rng.random() < 0.4:
        s.say(
            "I'm picking it up now, mark it as being worked.",
            "I'll start on it today; update the status.",
            "Flag it as in progress, I've reached out.",
        )
        s.call("update_lead_status", lead_id=lead["lead_id"], status="working")
        remember_lead(s, lead | {"status": "working"})
        return
    s.say("Drop it, {r}.", "It's a dead end: {r}. Disqualify it.", "Let's close that one out, {r}.", r=reason)
    s.call("update_lead_status", lead_id=lead["lead_id"], status="disqualified", reason=reason)
    remember_lead(s, lead | {"status": "disqualified"})


@crm.intent(covers=("search_leads", "update_lead_status"), follows=True)
def revive_lead(s: Scene) -> None:
    """A disqualified lead got back in touch: the rep puts it back to working."""
    cond, params = mine(s, "owner_id")
    lead = s.pick(f"SELECT * FROM leads WHERE status = 'disqualified'{cond}", *params)
    rep(s, lead["owner_id"])
    who = person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False)
    s.say(
        "{who} just emailed me out of the blue, they have budget now. Put them back in play.",
        "Good news, {who} is interested again; reopen that lead.",
        "{Who} came back to us. Let's work that lead again.",
        minimal=["{Who} is back."],
        who=who,
        Who=upper(who),
    )
    if not seen(s, lead["lead_id"]):
        if s.rng.random() < 0.5:
            s.find(
                "search_leads",
                "leads",
                "lead_id",
                lead["lead_id"],
                missing="the lead is not found",
                query=lead["name"],
                status="disqualified",
            )
        else:
            find_lead(s, lead)
    s.call("update_lead_status", lead_id=lead["lead_id"], status="working")
    remember_lead(s, lead | {"status": "working"})


@crm.intent(covers=("create_lead", "log_activity"), weight=1.5)
def new_lead(s: Scene) -> None:
    """A rep met someone and enters them as a lead (maybe with a follow-up task)."""
    first, last = (
        s.rng.choice(("Tom", "Ana", "Raj", "Lena", "Marco", "Ivy")),
        s.rng.choice(("Baker", "Ortiz", "Kim", "Novak")),
    )
    company = s.rng.choice(
        (
            "Nimbus Analytics",
            "Brightline Freight",
            "Copperleaf Health",
            "Orbit Robotics",
            "Tidewater Foods",
            "Quarry Labs",
        )
    )
    if s.rows("SELECT 1 FROM accounts WHERE name = ?", company):
        raise Skip("the company is a customer")
    email = f"{first.lower()}.{last.lower()}@{company.split()[0].lower()}.example.com"
    if s.rows("SELECT 1 FROM leads WHERE email = ?", email):
        raise Skip("the lead exists")
    o = s.pick("SELECT * FROM owners WHERE active = 1")
    s.be(o["name"])
    s.memory["me"] = o["owner_id"]
    source = s.rng.choice(list(SOURCES))
    mail = s.given(email, email, "email", "create_lead", "email")
    s.say(
        "I met {n} from {co} {src}. Add them as a lead[, email {mail}].",
        "New lead: {n}, {co}, met {src}[; reach them at {mail}].",
        "Please create a lead for {n} at {co}, we spoke {src}[. Email is {mail}].",
        minimal=["Lead: {n}, {co}[, {mail}]."],
        n=f"{first} {last}",
        co=company,
        src=SOURCES[source],
        mail=mail,
    )
    args: dict[str, Any] = {"name": f"{first} {last}", "company": company, "email": email}
    if not s.minimal:
        args["source"] = source
    lead = s.call("create_lead", **args)
    remember_lead(s, lead)
    if s.rng.random() < 0.5:
        return
    follow_up_task(s, lead["lead_id"])


@crm.intent(covers=("list_owners", "search_leads", "get_lead"))
def my_new_leads(s: Scene) -> None:
    """A rep asks for their untouched leads (and maybe opens the newest one)."""
    o = s.pick(
        "SELECT * FROM owners o WHERE active = 1 AND (SELECT COUNT(*) FROM owners x WHERE x.name = o.name) = 1 "
        "AND (SELECT COUNT(*) FROM leads l WHERE l.owner_id = o.owner_id AND l.status = 'new') >= 2"
    )
    s.be(o["name"])
    s.memory["me"] = o["owner_id"]
    source = s.rng.choice((None, None, "referral", "web_form", "trade_show"))
    words = {
        None: "",
        "referral": " from referrals",
        "web_form": " from the website form",
        "trade_show": " from trade shows",
    }[source]
    s.say(
        "I'm {me}. Which of my leads{w} haven't been touched yet?",
        "{me} here: show me my new leads{w}.",
        "This is {me}. What fresh leads{w} do I have waiting?",
        minimal=["{me}: my new leads?"],
        me=o["name"],
        w=words,
    )
    reps = s.call("list_owners", active=True)["owners"]
    mine_ = [r for r in reps if r["name"] == o["name"]]
    if not mine_:
        raise Skip("not listed")
    args: dict[str, Any] = {"owner_id": mine_[0]["owner_id"], "status": "new"}
    if source and not s.minimal:
        args["source"] = source
    leads = s.call("search_leads", **args)["leads"]
    if not leads:
        raise Skip("no lead")
    s.memory["leads"] = tuple(leads)
    if s.rng.random() < 0.4:
        return
    s.say("Open the most recent one.", "Tell me about the newest of those.", "What's the latest one about?")
    s.call("get_lead", lead_id=leads[0]["lead_id"])
    lead = s.rows("SELECT * FROM leads WHERE lead_id = ?", leads[0]["lead_id"])[0]
    remember_lead(s, lead)


# People -----------------------------------------------------------------------------------------


CONTACT = (
    "SELECT c.*, a.name AS company FROM contacts c JOIN accounts a USING (account_id) JOIN owners o "
    "ON o.owner_id = c.owner_id WHERE o.active = 1"
)


def some_contact(s: Scene) -> dict[str, Any]:
    """The contact a turn is about: the dialogue's person or someone at its company (owned by the rep), or,
    opening, anyone."""
    if not following(s):
        return s.pick(CONTACT)
    cond, params = mine(s, "c.owner_id")
    known = s.memory.get("contact")
    company = s.memory.get("company")
    if known and s.rng.random() < 0.6:
        return s.pick(CONTACT + f" AND c.contact_id = ?{cond}", known["contact_id"], *params)
    if not company:
        raise Skip("no company in the dialogue")
    return s.pick(CONTACT + f" AND c.account_id = ?{cond}", company["account_id"], *params)


@crm.intent(covers=("search_contacts", "log_activity", "get_contact"), weight=1.5, follows=True)
def log_a_call(s: Scene) -> None:
    """A rep logs a call (or an email) with a customer contact."""
    c = some_contact(s)
    rep(s, c["owner_id"])
    if any(x.tool == "log_activity" and x.arguments.get("contact_id") == c["contact_id"] for x in s.calls):
        raise Skip("the dialogue already logged something with this person")
    same = following(s) and (s.memory.get("contact") or {}).get("contact_id") == c["contact_id"]
    who = (
        c["name"].split()[0]
        if same
        else person_ref(s, "contacts", "contact_id", c, c["company"], named_alone=not following(s))
    )
    subject = s.rng.choice(NOTES)
    topic = s.given(subject, f"'{subject}'", "subject", "log_activity", "subject")
    kind = "email" if s.rng.random() < 0.3 else "call"
    if kind == "email":
        s.say(
            "I emailed {who} earlier today; record it[ as {topic}].",
            "Log that I wrote to {who}[, subject {topic}].",
            "Note down my email to {who}[: {topic}].",
            minimal=["Emailed {who}[: {topic}]."],
            who=who,
            topic=topic,
        )
    else:
        s.say(
            "Just got off the phone with {who}. Log it[ as {topic}].",
            "I had a call with {who} this morning; please record it[ under {topic}].",
            "Note that I spoke to {who} by phone today[, subject {topic}].",
            minimal=["Called {who}[: {topic}]."],
            who=who,
            topic=topic,
        )
    contact_id = find_contact(s, c)
    s.call("log_activity", kind=kind, subject=subject, contact_id=contact_id)
    remember_contact(s, c)
    if following(s) or s.rng.random() < 0.6:
        return
    s.say(
        "What deals is {first} involved in?",
        "Remind me which of our deals {first} is on.",
        "Is {first} attached to any open deals?",
        first=c["name"].split()[0],
    )
    s.call("get_contact", contact_id=contact_id)


@crm.intent(covers=("search_contacts", "get_contact", "search_accounts"), follows=True)
def who_is_that(s: Scene) -> None:
    """A rep asks for a contact's details (title, email, what they are working on with us)."""
    c = some_contact(s)
    rep(s, c["owner_id"])
    if following(s) and (s.memory.get("contact") or {}).get("contact_id") == c["contact_id"]:
        raise Skip("the dialogue's own person: a follow-up asks that")
    how = s.rng.random()
    if following(s) or how < 0.6:
        who = person_ref(s, "contacts", "contact_id", c, c["company"], named_alone=not following(s))
        s.say(
            "How do I reach {who}, and what are they involved in?",
            "Pull up {who}'s details for me.",
            "What's {who}'s role, and are they on any deals?",
            minimal=["{who}?"],
            who=who,
        )
        contact_id = find_contact(s, c)
    else:
        title = c["title"]
        if len(s.rows("SELECT 1 FROM contacts WHERE account_id = ? AND title = ?", c["account_id"], title)) != 1:
            raise Skip("the title is not unique at the company")
        s.say(
            "Who's the {t} at {co}? I need their details.",
            "Find me the {t} over at {co}, with contact info.",
            "I need to reach {co}'s {t}. Who is it?",
            minimal=["{co}'s {t}?"],
            t=title,
            co=c["company"],
        )
        account_id = s.find(
            "search_accounts", "accounts", "account_id", c["account_id"], missing="not found", query=c["company"]
        )["account_id"]
        found = s.call("search_contacts", account_id=account_id)["contacts"]
        hit = [x for x in found if x["contact_id"] == c["contact_id"]]
        if not hit:
            raise Skip("the contact is not listed")
        contact_id = c["contact_id"]
    s.call("get_contact", contact_id=contact_id)
    remember_contact(s, c)


@crm.intent(covers=("search_contacts", "log_activity"), follows=True)
def book_meeting(s: Scene) -> None:
    """A rep puts a meeting with a contact (or on a deal) in the CRM for a day ahead."""
    c = some_contact(s)
    rep(s, c["owner_id"])
    due = (s.now + timedelta(days=s.rng.choice((2, 4, 7, 10)))).strftime("%Y-%m-%d")
    subject = s.rng.choice(MEETINGS)
    topic = s.given(subject, f"'{subject}'", "subject", "log_activity", "subject")
    same = following(s) and (s.memory.get("contact") or {}).get("contact_id") == c["contact_id"]
    who = (
        c["name"].split()[0]
        if same
        else person_ref(s, "contacts", "contact_id", c, c["company"], named_alone=not following(s))
    )
    s.say(
        "I'm meeting {who} {when}; put it in the CRM[ as {topic}].",
        "Add a meeting with {who} for {when}[, titled {topic}].",
        "{Who} and I are sitting down {when}. Log it[ under {topic}].",
        minimal=["Meeting with {who} {when}[: {topic}]."],
        who=who,
        Who=upper(who),
        when=day(due, s.now).removeprefix("on "),
        topic=topic,
    )
    contact_id = find_contact(s, c)
    s.call("log_activity", kind="meeting", subject=subject, contact_id=contact_id, due_date=due)
    remember_contact(s, c)


@crm.intent(covers=("search_accounts", "list_deals", "get_deal", "get_account"), weight=1.5, follows=True)
def deal_status(s: Scene) -> None:
    """A rep asks where a deal stands: its stage, its history and what is planned on it."""
    cond, params = mine(s, "d.owner_id")
    if following(s):
        d = dialogue_deal(s)
        if any(c.tool == "get_deal" and c.arguments["deal_id"] == d["deal_id"] for c in s.calls):
            raise Skip("already looked at the deal")
    else:
        d = s.pick(DEAL + cond, *params)
    rep(s, d["owner_id"])
    what = deal_ref(s, d)
    s.say(
        "Where are we on {what}?",
        "What's the latest on {what}? Stage, history, next steps.",
        "Catch me up on {what}.",
        minimal=["{What}?"],
        what=what,
        What=upper(what),
    )
    deal_id = find_deal(s, d)
    s.call("get_deal", deal_id=deal_id)
    remember_deal(s, d)


@crm.intent(covers=("search_accounts", "search_contacts"), follows=True)
def people_at_company(s: Scene) -> None:
    """A rep asks who we know at a company (everyone, or people with a title like the one they need)."""
    cond, params = mine(s, "owner_id")
    if following(s):
        a = dialogue_company(s)
        if any(
            c.tool in ("get_account", "search_contacts") and c.arguments.get("account_id") == a["account_id"]
            for c in s.calls
        ):
            raise Skip("the dialogue already listed its people")
    else:
        a = s.pick(
            f"SELECT * FROM accounts WHERE account_id IN (SELECT account_id FROM contacts GROUP BY account_id "
            f"HAVING COUNT(*) >= 2){cond}",
            *params,
        )
        rep(s, a["owner_id"])
    word = s.rng.choice((None, None, "Director", "VP", "Manager"))
    if word and not s.rows(
        "SELECT 1 FROM contacts WHERE account_id = ? AND title LIKE ?", a["account_id"], f"%{word}%"
    ):
        word = None
    if word:
        s.say(
            "Who's a {w} at {co} that I could talk to?",
            "Do we know any {w}s over at {co}?",
            "Find me the {w}-level people we know at {co}.",
            minimal=["{w}s at {co}?"],
            w=word,
            co=a["name"],
        )
    else:
        s.say(
            "Who do we know at {co}?",
            "List our contacts over at {co}.",
            "Which people at {co} are in the CRM?",
            minimal=["People at {co}?"],
            co=a["name"],
        )
    account_id = a["account_id"]
    if not seen(s, account_id):
        account_id = s.find(
            "search_accounts", "accounts", "account_id", a["account_id"], missing="not found", query=a["name"]
        )["account_id"]
    found = s.call("search_contacts", account_id=account_id, **({"query": word} if word else {}))["contacts"]
    if not found:
        raise Skip("nobody listed")
    remember_company(s, a)
    if len(found) == 1:
        c = s.rows(CONTACT + " AND c.contact_id = ?", found[0]["contact_id"])
        if c:
            remember_contact(s, c[0])
