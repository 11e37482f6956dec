"""What people want of the sales CRM: reps working leads and deals, logging their calls; managers reviewing.

Reps name companies ("Apex Labs"), people ("Maria Lopez at Apex Labs") and deals by their name ("the
Apex Labs analytics add-on deal"), never by id. The agent finds accounts with ``search_accounts``,
their deals with ``list_deals``, people with ``search_contacts`` and ``search_leads``, and reps by
name with ``list_owners``.
"""

from __future__ import annotations

from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub.synth.intent import Ref, Scene, Skip, day, money, unique_best
from servers.crm.schema import ALLOWED, OPEN_STAGES
from servers.crm.tools import crm

DEAL = (
    "SELECT d.*, a.name AS company FROM deals d JOIN accounts a USING (account_id) "
    "JOIN owners o ON o.owner_id = d.owner_id WHERE o.active = 1"
)
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


def deal_words(d: dict[str, Any]) -> str:
    """'Apex Labs - Analytics add-on' -> 'Apex Labs analytics add-on': how a rep says a deal's name."""
    company, _, product = d["name"].partition(" - ")
    return f"{company} {product[:1].lower() + product[1:]}" if product else d["name"]


def deal_ref(s: Scene, d: dict[str, Any]) -> str:
    return s.refer(
        d["deal_id"],
        Ref("the {n} deal", "SELECT deal_id FROM deals WHERE name = ?", d["name"]),
        Ref("the {amt} {n} deal", "SELECT deal_id FROM deals WHERE name = ? AND amount = ?", d["name"], d["amount"]),
        n=deal_words(d),
        amt=money(d["amount"]),
    )


def find_deal(s: Scene, d: dict[str, Any], **filters: Any) -> dict[str, Any]:
    """The agent's path to a deal: the company by name, then its deals."""
    accs = s.find(
        "search_accounts",
        "accounts",
        "account_id",
        d["account_id"],
        missing="the company is not found by its name",
        query=d["company"],
    )
    filters = dict(filters) if filters else s.rng.choice(({}, {"open_only": True}, {"stage": d["stage"]}))
    return s.find(
        "list_deals",
        "deals",
        "deal_id",
        d["deal_id"],
        missing="the deal is not listed",
        account_id=accs["account_id"],
        **filters,
    )


def rep(s: Scene, owner_id: str) -> None:
    """The rep who owns what the user talks about becomes the persona."""
    s.be(str(s.value("SELECT name FROM owners WHERE owner_id = ?", owner_id)))


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


# Deals ------------------------------------------------------------------------------------------


@crm.intent(covers=("search_accounts", "list_deals", "update_deal_stage", "get_deal"), weight=2.0)
def move_deal_forward(s: Scene) -> None:
    """A rep moves a deal one stage on (or wins it from negotiation) and looks at its history."""
    d = s.pick(DEAL + " AND d.stage IN ('prospecting', 'qualification', 'proposal', 'negotiation')")
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
            What=what[:1].upper() + what[1:],
        )
    else:
        s.say(
            "{What} has moved on to {stage}.",
            "Update {what}: we're in {stage} now.",
            "Move {what} ahead to {stage}, please.",
            minimal=["{What} progressed."],
            what=what,
            What=what[:1].upper() + what[1:],
            stage=STAGE_WORDS[nxt],
        )
    found = find_deal(s, d)
    s.call("update_deal_stage", deal_id=found["deal_id"], stage=nxt)
    s.memory["deal"] = d
    if s.rng.random() < 0.4:
        return  # a follow-up turn may carry on
    s.say(
        "Show me how that deal has moved through the pipeline.",
        "What does its stage history look like now?",
        "Pull up the deal so I can see the timeline.",
    )
    s.call("get_deal", deal_id=found["deal_id"])
    s.memory["deal"] = d


@crm.intent(covers=("search_accounts", "list_deals", "update_deal_stage", "log_activity"), weight=1.5)
def lose_deal(s: Scene) -> None:
    """A rep marks a deal lost with the reason and leaves a note on it."""
    d = s.pick(DEAL + " AND d.stage IN ('prospecting', 'qualification', 'proposal', 'negotiation')")
    rep(s, d["owner_id"])
    reason = s.rng.choice(list(LOST))
    what = deal_ref(s, d)
    s.say(
        "Bad news on {what}: {why}. Close it out as lost.",
        "{What} is dead, {why}.",
        "We lost {what}; {why}. Please update it.",
        minimal=["{What} fell through: {why}."],
        what=what,
        What=what[:1].upper() + what[1:],
        why=LOST[reason],
    )
    found = find_deal(s, d)
    s.call("update_deal_stage", deal_id=found["deal_id"], stage="closed_lost", lost_reason=reason)
    s.memory["deal"] = d
    if s.rng.random() < 0.4:
        return
    subject = s.rng.choice(("Loss review", "Post-mortem", "Lost deal debrief"))
    topic = s.given(subject, f"'{subject}'", "subject", "log_activity", "subject")
    s.say(
        "Add a note to it[ titled {topic}] so we remember why.",
        "Put a note on that deal[, {topic}].",
        "Log a note against it[: {topic}].",
        topic=topic,
    )
    s.call("log_activity", kind="note", subject=subject, deal_id=found["deal_id"])


@crm.intent(covers=("list_owners", "list_deals", "reassign_deal"), weight=1.5)
def hand_over_deal(s: Scene) -> None:
    """A sales manager hands one rep's open deal to another rep."""
    d = s.pick(DEAL + " AND d.stage IN ('prospecting', 'qualification', 'proposal', 'negotiation')")
    frm = s.rows("SELECT * FROM owners WHERE owner_id = ?", d["owner_id"])[0]
    to = s.pick("SELECT * FROM owners WHERE active = 1 AND owner_id != ? AND name != ?", frm["owner_id"], frm["name"])
    if s.rows("SELECT 1 FROM owners WHERE name IN (?, ?) GROUP BY name HAVING COUNT(*) > 1", frm["name"], to["name"]):
        raise Skip("two reps share a name")
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
    if frm["name"] not in ids and frm["active"]:
        raise Skip("the rep is not listed")
    theirs = s.call("list_deals", owner_id=frm["owner_id"], open_only=True, limit=100)["deals"]
    if d["deal_id"] not in [x["deal_id"] for x in theirs]:
        raise Skip("the deal is not listed")
    s.call("reassign_deal", deal_id=d["deal_id"], owner_id=ids[to["name"]])
    s.memory["deal"] = d
    if s.rng.random() < 0.4:
        return
    s.say(
        "What does {b} have open now?",
        "Show me {b}'s open deals after that.",
        "List everything {b} is working.",
        b=to["name"].split()[0],
    )
    s.call("list_deals", owner_id=ids[to["name"]], open_only=True)


@crm.intent(covers=("search_accounts", "get_account", "get_deal"), weight=1.5)
def account_rundown(s: Scene) -> None:
    """A rep preps for a meeting: the company's contacts and deals, then the biggest open deal."""
    a = s.pick(
        "SELECT * FROM accounts WHERE account_id IN (SELECT account_id FROM deals WHERE stage IN "
        "('prospecting', 'qualification', 'proposal', 'negotiation'))"
    )
    rep(s, a["owner_id"])
    s.say(
        "I'm meeting {co} tomorrow. Who do we know there and what's in flight?",
        "Give me the rundown on {co}: people, deals, revenue.",
        "What's our history with {co}?",
        minimal=["{co}?"],
        co=a["name"],
    )
    found = s.find(
        "search_accounts",
        "accounts",
        "account_id",
        a["account_id"],
        missing="the company is not found by its name",
        query=a["name"],
    )
    acc = s.call("get_account", account_id=found["account_id"])
    s.memory["company"] = {"account_id": a["account_id"], "name": a["name"]}
    open_deals = [d for d in acc["deals"] if d["stage"] in OPEN_STAGES]
    top = unique_best(open_deals, itemgetter("amount"), tie="two open deals tie")
    s.say(
        "Tell me more about the biggest open deal there.",
        "What's going on with the largest open one?",
        "Open up their biggest live deal for me.",
    )
    s.call("get_deal", deal_id=top["deal_id"])


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
    s.call("list_deals", stage=stage, min_amount=float(floor))


# Leads ------------------------------------------------------------------------------------------


@crm.intent(covers=("search_leads", "update_lead_status", "convert_lead", "get_lead"), weight=2.0)
def convert_qualified_lead(s: Scene) -> None:
    """A rep's lead is ready: it is qualified (if it was not yet) and converted into a deal."""
    lead = s.pick(
        "SELECT l.* FROM leads l JOIN owners o USING (owner_id) WHERE o.active = 1 AND l.status IN "
        "('working', 'qualified', 'new') AND l.company NOT IN (SELECT name FROM accounts)"
    )
    rep(s, lead["owner_id"])
    amount = float(s.rng.choice((12, 18, 25, 40, 60, 90, 150)) * 1000)
    who = person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False)
    size = s.given(amount, money(amount).removesuffix(".00"), "deal size", "convert_lead", "deal_amount")
    s.say(
        "{who} is ready to buy. Turn them into a deal[ worth {size}].",
        "Good call with {who}: they're in. Convert the lead[, about {size}].",
        "{who} wants a proposal; make it a real opportunity[ at {size}].",
        minimal=["{who} is a go[, {size}]."],
        who=who,
        size=size,
    )
    s.find(
        "search_leads", "leads", "lead_id", lead["lead_id"], missing="the lead is not found by name", query=lead["name"]
    )
    if lead["status"] != "qualified":
        s.call("update_lead_status", lead_id=lead["lead_id"], status="qualified")
    made = s.call("convert_lead", lead_id=lead["lead_id"], deal_amount=amount)
    s.memory["deal"] = {
        "deal_id": made["deal_id"],
        "account_id": made["account_id"],
        "company": lead["company"],
        "stage": "prospecting",
    }
    s.memory["contact"] = {"contact_id": made["contact_id"], "name": lead["name"]}
    if s.rng.random() < 0.4:
        return
    s.say("What did that create?", "Show me the lead now with what it turned into.", "Where did that lead end up?")
    s.call("get_lead", lead_id=lead["lead_id"])


@crm.intent(covers=("search_leads", "update_lead_status", "get_lead"), weight=1.5)
def drop_lead(s: Scene) -> None:
    """A rep looks at a lead and disqualifies it with a reason (or starts working it)."""
    lead = s.pick("SELECT * FROM leads WHERE status IN ('new', 'working')")
    rep(s, lead["owner_id"])
    who = person_ref(s, "leads", "lead_id", lead, lead["company"], named_alone=False)
    s.say(
        "Where are we with {who}?",
        "Pull up the lead for {who}.",
        "What do we have on {who}?",
        minimal=["{who}?"],
        who=who,
    )
    s.find(
        "search_leads", "leads", "lead_id", lead["lead_id"], missing="the lead is not found by name", query=lead["name"]
    )
    s.call("get_lead", lead_id=lead["lead_id"])
    if lead["status"] == "new" and s.rng.random() < 0.4:
        s.say(
            "I'm picking it up now, mark it as being worked.",
            "I'll start on it today; update the status.",
            "Flag it as in progress, I've reached out.",
        )
        s.call("update_lead_status", lead_id=lead["lead_id"], status="working")
        return
    reason = s.rng.choice(("no budget", "not a fit", "unresponsive"))
    s.say("Drop it, {r}.", "It's a dead end: {r}. Disqualify it.", "Let's close that one out, {r}.", r=reason)
    s.call("update_lead_status", lead_id=lead["lead_id"], status="disqualified", reason=reason)


@crm.intent(covers=("create_lead", "log_activity"), weight=1.5)
def new_lead(s: Scene) -> None:
    """A rep met someone and enters them as a lead, with a follow-up task."""
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
    due = (s.now + timedelta(days=s.rng.choice((2, 3, 5, 7)))).strftime("%Y-%m-%d")
    s.say(
        "Set me a task to follow up with them {when}.",
        "Remind me to call them back {when}.",
        "Add a follow-up task for {when}.",
        when=day(due, s.now).removeprefix("on "),
    )
    s.call("log_activity", kind="task", subject="Follow up", lead_id=lead["lead_id"], due_date=due)


# People -----------------------------------------------------------------------------------------


@crm.intent(covers=("search_contacts", "log_activity", "get_contact"), weight=1.5)
def log_a_call(s: Scene) -> None:
    """A rep logs a call with a customer contact, then asks what deals that person is on."""
    c = s.pick(
        "SELECT c.*, a.name AS company FROM contacts c JOIN accounts a USING (account_id) JOIN owners o "
        "ON o.owner_id = c.owner_id WHERE o.active = 1"
    )
    rep(s, c["owner_id"])
    who = person_ref(s, "contacts", "contact_id", c, c["company"])
    subject = s.rng.choice(NOTES)
    topic = s.given(subject, f"'{subject}'", "subject", "log_activity", "subject")
    s.say(
        "Just got off the phone with {who}. Log it[ as {topic}].",
        "I had a call with {who} this morning; please record it[ under {topic}].",
        "Note that I spoke to {who} by phone today[, subject {topic}].",
        minimal=["Called {who}[: {topic}]."],
        who=who,
        topic=topic,
    )
    found = s.find(
        "search_contacts",
        "contacts",
        "contact_id",
        c["contact_id"],
        missing="the contact is not found by name",
        query=c["name"],
    )
    s.call("log_activity", kind="call", subject=subject, contact_id=found["contact_id"])
    s.memory["contact"] = {"contact_id": c["contact_id"], "name": c["name"]}
    s.memory["company"] = {"account_id": c["account_id"], "name": c["company"]}
    if s.rng.random() < 0.4:
        return
    s.say(
        "What deals is {first} involved in?",
        "Remind me which of our deals {first} is on.",
        "Is {first} attached to any open deals?",
        first=c["name"].split()[0],
    )
    s.call("get_contact", contact_id=found["contact_id"])


@crm.intent(covers=("list_owners", "search_leads", "get_lead"))
def my_new_leads(s: Scene) -> None:
    """A rep asks for their untouched leads and opens the newest one."""
    o = s.pick(
        "SELECT * FROM owners o WHERE active = 1 AND (SELECT COUNT(*) FROM owners x WHERE x.name = o.name) = 1 "
        "AND (SELECT COUNT(*) FROM leads l WHERE l.owner_id = o.owner_id AND l.status = 'new') >= 2"
    )
    s.be(o["name"])
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
    mine = [r for r in reps if r["name"] == o["name"]]
    if not mine:
        raise Skip("not listed")
    args: dict[str, Any] = {"owner_id": mine[0]["owner_id"], "status": "new"}
    if source and not s.minimal:
        args["source"] = source
    leads = s.call("search_leads", **args)["leads"]
    if not leads:
        raise Skip("no lead")
    s.say("Open the most recent one.", "Tell me about the newest of those.", "What's the latest one about?")
    s.call("get_lead", lead_id=leads[0]["lead_id"])


# Follow-ups: a short next turn about the deal, company or person the dialogue is already about ---------


REMINDERS = ("Check in on the proposal", "Send the updated quote", "Book a call with their CFO", "Share the case study")


@crm.intent(covers=("log_activity",), follows=True, opens=False, weight=1.5)
def remind_me(s: Scene) -> None:
    """The rep asks for a task on the open deal the dialogue is about."""
    d = s.memory.get("deal")
    if not d or s.value("SELECT stage FROM deals WHERE deal_id = ?", d["deal_id"]) not in OPEN_STAGES:
        raise Skip("no open deal in the dialogue")
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


@crm.intent(covers=("list_deals",), follows=True, opens=False, weight=1.5)
def other_deals_there(s: Scene) -> None:
    """The rep asks what else is open with the same company."""
    d = s.memory.get("deal") or s.memory.get("company")
    if not d:
        raise Skip("no company in the dialogue")
    name = d.get("company") or d.get("name")
    if s.rng.random() < 0.5:
        args: dict[str, Any] = {"account_id": d["account_id"], "open_only": True}
        s.say("What else do we have open with {co}?", "Any other live deals at {co}?", co=name)
    else:
        args = {"account_id": d["account_id"]}
        s.say("Show me every deal we've ever had with {co}.", "What's our full deal history with {co}?", co=name)
    s.asked("list_deals", **args)
    s.call("list_deals", **args)


@crm.intent(covers=("get_deal",), follows=True, opens=False)
def deal_now(s: Scene) -> None:
    """The rep asks to see the deal as it stands now."""
    d = s.memory.get("deal")
    if not d:
        raise Skip("no deal in the dialogue")
    s.asked("get_deal", deal_id=d["deal_id"])
    s.say("Show me that deal as it stands now.", "Pull up the deal record.", "What does the deal look like now?")
    s.call("get_deal", deal_id=d["deal_id"])


@crm.intent(covers=("get_contact",), follows=True, opens=False)
def person_details(s: Scene) -> None:
    """The rep asks for the contact record of the person the dialogue is about."""
    c = s.memory.get("contact")
    if not c:
        raise Skip("no contact in the dialogue")
    s.asked("get_contact", contact_id=c["contact_id"])
    s.say(
        "Pull up {f}'s contact record.",
        "What do we have on file for {f} now?",
        "Show me {f}'s details.",
        f=c["name"].split()[0],
    )
    s.call("get_contact", contact_id=c["contact_id"])
