"""CRM intents about leads: converting, dropping, reviving and entering them, a rep's untouched leads."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.crm.intents import (
    SOURCES,
    WORDS,
    find_company,
    find_lead,
    follow_up_task,
    following,
    mine,
    person_ref,
    remember_lead,
    rep,
    rep_asks,
    upper,
)
from servers.crm.tools import crm

LEADS = "SELECT l.* FROM leads l JOIN owners o USING (owner_id) WHERE o.active = 1"


def dialogue_lead(s: Scene, statuses: str) -> tuple[dict[str, Any], bool]:
    """A lead of one of ``statuses`` owned by the rep: the dialogue's lead in a continuation (``Skip`` when
    there is none), else any; and whether it is the dialogue's."""
    cond, params = mine(s, "l.owner_id")
    known = s.memory.get("lead") if following(s) else None
    if following(s) and not known:
        raise Skip("no lead in the dialogue")
    lead = s.pick(
        LEADS + f" AND l.status IN ({statuses}){cond}" + (" AND l.lead_id = ?" if known else ""),
        *params,
        *([known["lead_id"]] if known else []),
    )
    rep(s, lead["owner_id"])
    return lead, bool(known)


@crm.intent(covers=("search_leads", "update_lead_status", "convert_lead", "search_accounts"), weight=2.0, follows=True)
def convert_qualified_lead(s: Scene) -> None:
    """A rep's lead is ready: it is qualified (if it was not yet) and converted into a deal."""
    lead, known = dialogue_lead(s, "'working', 'qualified', 'new'")
    existing = s.rows("SELECT * FROM accounts WHERE name = ?", lead["company"])
    amount = float(s.rng.choice((12, 18, 25, 40, 60, 90, 150)) * 1000)
    size = s.given(amount, money(amount).removesuffix(".00"), "deal size", "convert_lead", "deal_amount")
    under = " They're already a customer, so put it under their account." if existing else ""
    if known:
        s.say(WORDS.convert_qualified_lead, size=size, under=under)
    else:
        who = person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False)
        s.say(WORDS.convert_qualified_lead_named, who=who, size=size, under=under)
    find_lead(s, lead)
    if lead["status"] != "qualified":
        s.call("update_lead_status", lead_id=lead["lead_id"], status="qualified")
    args: dict[str, Any] = {"lead_id": lead["lead_id"], "deal_amount": amount}
    if existing:
        args["account_id"] = find_company(s, existing[0]["account_id"], lead["company"])
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
    lead, known = dialogue_lead(s, "'new', 'working'")
    reason = s.rng.choice(("no budget", "not a fit", "unresponsive"))
    if any(x.tool == "update_lead_status" and x.arguments["lead_id"] == lead["lead_id"] for x in s.calls):
        raise Skip("the lead's status already changed in this dialogue")
    if not known:
        s.say(WORDS.drop_lead, who=person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False))
        find_lead(s, lead)
        s.call("get_lead", lead_id=lead["lead_id"])
        remember_lead(s, lead)
        if s.rng.random() < 0.35:
            return  # a follow-up decides what happens to it
        if lead["status"] == "new" and s.rng.random() < 0.4:
            s.say(WORDS.drop_lead_mark_working)
            s.call("update_lead_status", lead_id=lead["lead_id"], status="working")
            remember_lead(s, lead | {"status": "working"})
            return
    s.say(*WORDS.drop, r=reason)
    s.call("update_lead_status", lead_id=lead["lead_id"], status="disqualified", reason=reason)
    remember_lead(s, lead | {"status": "disqualified"})


@crm.intent(covers=("search_leads", "update_lead_status"), follows=True)
def revive_lead(s: Scene) -> None:
    """A disqualified lead got back in touch: the rep puts it back to working."""
    cond, params = mine(s, "owner_id")
    lead = s.pick(f"SELECT * FROM leads WHERE status = 'disqualified'{cond}", *params)
    rep(s, lead["owner_id"])
    who = person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False)
    s.say(WORDS.revive_lead, who=who, Who=upper(who))
    find_lead(s, lead, **({"status": "disqualified"} if s.rng.random() < 0.5 else {}))
    s.call("update_lead_status", lead_id=lead["lead_id"], status="working")
    remember_lead(s, lead | {"status": "working"})


FIRST, LAST = ("Tom", "Ana", "Raj", "Lena", "Marco", "Ivy"), ("Baker", "Ortiz", "Kim", "Novak")
COMPANIES = ("Nimbus Analytics", "Brightline Freight", "Copperleaf Health", "Orbit Robotics", "Tidewater Foods")


@crm.intent(covers=("create_lead", "log_activity"), weight=1.5)
def new_lead(s: Scene) -> None:
    """A rep met someone and enters them as a lead (maybe with a follow-up task)."""
    first, last = s.rng.choice(FIRST), s.rng.choice(LAST)
    company = s.rng.choice((*COMPANIES, "Quarry Labs"))
    if s.rows("SELECT 1 FROM accounts WHERE name = ?", company):
        raise Skip("the company is a customer")
    email = f"{first.lower()}.{last.lower()}@{company.split()[0].lower()}.example.com"
    if s.rows("SELECT 1 FROM leads WHERE email = ?", email):
        raise Skip("the lead exists")
    rep(s, s.pick("SELECT * FROM owners WHERE active = 1")["owner_id"])
    source = s.rng.choice(list(SOURCES))
    s.say(
        WORDS.new_lead,
        n=f"{first} {last}",
        co=company,
        src=SOURCES[source],
        mail=s.given(email, email, "email", "create_lead", "email"),
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
    source = s.rng.choice((None, None, "referral", "web_form", "trade_show"))
    words = {None: "", "referral": " from referrals", "web_form": " from the website form"}
    me = rep_asks(s, o, WORDS.my_new_leads, w=words.get(source, " from trade shows"))
    args: dict[str, Any] = {"owner_id": me, "status": "new"}
    if source and not s.minimal:
        args["source"] = source
    leads = s.call("search_leads", **args)["leads"]
    if not leads:
        raise Skip("no lead")
    s.memory["leads"] = tuple(leads)
    if s.rng.random() < 0.4:
        return
    s.say(WORDS.my_new_leads_open_newest)
    s.call("get_lead", lead_id=leads[0]["lead_id"])
    remember_lead(s, s.rows("SELECT * FROM leads WHERE lead_id = ?", leads[0]["lead_id"])[0])
