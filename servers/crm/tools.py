"""CRM tools: search leads, contacts, accounts, deals and owners; create, qualify and convert leads, move deals
through the pipeline, log activities and reassign deals."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import ISO_DATE, Ctx, Limit, Offset, Query, Server, ToolError, fake, listing, next_id, rows
from servers.crm.schema import ALLOWED, LEAD_ALLOWED, OPEN_STAGES, PROBABILITY, SCHEMA
from servers.crm.seed import seed

crm = Server(
    "crm",
    "Sales CRM: leads, contacts, accounts, deals through a pipeline, activities and owners.",
    SCHEMA,
    seed,
    family="work",
)

LEAD = crm.entity("lead", table="leads", key="lead_id", example="LEAD-0042", finder="search_leads")
CONTACT = crm.entity("contact", table="contacts", key="contact_id", example="CON-0042", finder="search_contacts")
ACCOUNT = crm.entity(
    "account",
    table="accounts",
    key="account_id",
    example="ACT-0042",
    finder="search_accounts",
    description="Account (company) id, e.g. 'ACT-0042'",
)
DEAL = crm.entity("deal", table="deals", key="deal_id", example="DEAL-0042", finder="list_deals")
OWNER = crm.entity(
    "owner",
    table="owners",
    key="owner_id",
    example="USR-03",
    finder="list_owners",
    description="Sales owner id, e.g. 'USR-03'",
    hint="Use list_owners to find sales owner ids.",
)

LeadId = Annotated[str, LEAD]
ContactId = Annotated[str, CONTACT]
AccountId = Annotated[str, ACCOUNT]
DealId = Annotated[str, DEAL]
OwnerId = Annotated[str, OWNER]
Stage = Literal["prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost"]
LeadSource = Literal["web_form", "referral", "trade_show", "cold_call", "partner", "webinar"]
SearchText = Annotated[str, Field(max_length=100, description="Part of a name, email or company, e.g. 'Garcia'")]
Day = Annotated[str | None, Field(pattern=ISO_DATE)]


def _owner(ctx: Ctx, owner_id: str, must_be_active: bool = True) -> dict[str, Any]:
    owner = OWNER.get(ctx, owner_id)
    if must_be_active and not owner["active"]:
        raise ToolError(
            f"{owner['name']} ({owner_id}) is no longer an active sales rep; pick an active owner from "
            "list_owners(active=True)."
        )
    return owner


def _activities(ctx: Ctx, column: str, value: str) -> list[dict[str, Any]]:
    found = rows(
        ctx.db.execute(
            "SELECT activity_id, kind, subject, owner_id, due_at, completed, created_at FROM "
            f"activities WHERE {column} = ? "
            "ORDER BY created_at DESC, activity_id DESC LIMIT 10",
            (value,),
        )
    )
    for a in found:
        a["completed"] = bool(a["completed"])
    return found


@crm.read(returns=("lead", "owner"))
def search_leads(
    ctx: Ctx,
    query: SearchText = "",
    status: Literal["new", "working", "qualified", "disqualified", "converted"] | None = None,
    source: LeadSource | None = None,
    owner_id: Annotated[str | None, OWNER.ref("Only this owner's leads, e.g. 'USR-03'")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search leads by name, email or company, filtered by status, source or owner, newest first,
    e.g. search_leads(status='qualified')."""
    q = Query("SELECT lead_id, name, company, email, source, status, owner_id, created_at FROM leads")
    q.contains(query, "name", "email", "company").equal("status", status).equal("source", source)
    q.equal("owner_id", owner_id)
    return q.page(ctx.db, "leads", order_by="created_at DESC, lead_id DESC", limit=limit, offset=offset)


@crm.read(returns=("lead", "owner", "account", "contact", "deal", "activity"))
def get_lead(ctx: Ctx, lead_id: LeadId) -> dict[str, Any]:
    """Get one lead with its status, owner, what it was converted into and its recent activities, e.g.
    get_lead('LEAD-0042')."""
    lead = LEAD.get(ctx, lead_id)
    lead["allowed_statuses"] = list(LEAD_ALLOWED[lead["status"]])
    lead["can_convert"] = lead["status"] == "qualified"
    lead["activities"] = _activities(ctx, "lead_id", lead_id)
    return lead


@crm.read(returns=("contact", "account"))
def search_contacts(
    ctx: Ctx,
    query: SearchText = "",
    account_id: Annotated[str | None, ACCOUNT.ref("Only this account's contacts, e.g. 'ACT-0042'")] = None,
    owner_id: Annotated[str | None, OWNER.ref("Only this owner's contacts, e.g. 'USR-03'")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search contacts by name, email or title, filtered by account or owner, e.g. search_contacts('Nguyen')."""
    q = Query(
        "SELECT c.contact_id, c.name, c.email, c.title, c.account_id, a.name AS account_name, c.owner_id "
        "FROM contacts c JOIN accounts a USING (account_id)"
    )
    q.contains(query, "c.name", "c.email", "c.title").equal("c.account_id", account_id).equal("c.owner_id", owner_id)
    return q.page(ctx.db, "contacts", order_by="c.contact_id", limit=limit, offset=offset)


@crm.read(returns=("contact", "account", "deal", "activity", "owner"))
def get_contact(ctx: Ctx, contact_id: ContactId) -> dict[str, Any]:
    """Get one contact with their account, their deals and recent activities, e.g. get_contact('CON-0042')."""
    contact = CONTACT.get(ctx, contact_id)
    contact["account_name"] = ACCOUNT.get(ctx, contact["account_id"])["name"]
    contact["deals"] = rows(
        ctx.db.execute(
            "SELECT deal_id, name, stage, amount FROM deals WHERE contact_id = ? ORDER BY deal_id", (contact_id,)
        )
    )
    contact["activities"] = _activities(ctx, "contact_id", contact_id)
    return contact


@crm.read(returns=("account", "owner"))
def search_accounts(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of the company name, e.g. 'Apex'")] = "",
    industry: Annotated[str | None, Field(max_length=60, description="Only this industry, e.g. 'Software'")] = None,
    city: Annotated[str | None, Field(max_length=60, description="Only this city, e.g. 'Denver'")] = None,
    owner_id: Annotated[str | None, OWNER.ref("Only this owner's accounts, e.g. 'USR-03'")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """Search accounts (companies) by name, filtered by industry, city or owner, e.g.
    search_accounts(industry='Healthcare')."""
    q = Query("SELECT account_id, name, industry, city, employees, owner_id FROM accounts").contains(query, "name")
    q.equal("industry", industry).equal("city", city).equal("owner_id", owner_id)
    return q.page(ctx.db, "accounts", order_by="account_id", limit=limit, offset=offset)


@crm.read(returns=("account", "contact", "deal", "owner"))
def get_account(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """Get one account with its contacts, deals, open pipeline and won revenue, e.g. get_account('ACT-0042')."""
    acc = ACCOUNT.get(ctx, account_id)
    acc["contacts"] = rows(
        ctx.db.execute(
            "SELECT contact_id, name, title, email FROM contacts WHERE account_id = ? ORDER BY contact_id",
            (account_id,),
        )
    )
    acc["deals"] = rows(
        ctx.db.execute(
            "SELECT deal_id, name, stage, amount, owner_id, expected_close FROM deals WHERE "
            "account_id = ? ORDER BY deal_id",
            (account_id,),
        )
    )
    acc["open_pipeline"] = round(sum(d["amount"] for d in acc["deals"] if d["stage"] in OPEN_STAGES), 2)
    acc["won_revenue"] = round(sum(d["amount"] for d in acc["deals"] if d["stage"] == "closed_won"), 2)
    return acc


@crm.read(returns=("deal", "account", "owner"))
def list_deals(
    ctx: Ctx,
    stage: Stage | None = None,
    owner_id: Annotated[str | None, OWNER.ref("Only this owner's deals, e.g. 'USR-03'")] = None,
    account_id: Annotated[str | None, ACCOUNT.ref("Only this account's deals, e.g. 'ACT-0042'")] = None,
    open_only: Annotated[bool, Field(description="Only deals that are not closed")] = False,
    min_amount: Annotated[
        float | None, Field(ge=0, le=1e10, description="Only deals worth at least this much, in USD")
    ] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict[str, Any]:
    """List deals filtered by stage, owner, account, openness or amount, e.g. list_deals(stage='negotiation',
    min_amount=50000)."""
    q = Query("SELECT deal_id, name, account_id, owner_id, amount, stage, probability, expected_close FROM deals")
    q.equal("stage", stage).equal("owner_id", owner_id).equal("account_id", account_id)
    if open_only:
        q.where("stage NOT IN ('closed_won', 'closed_lost')")
    q.filter("amount >= ?", min_amount)
    return q.page(ctx.db, "deals", order_by="deal_id", limit=limit, offset=offset)


@crm.read(returns=("deal", "account", "contact", "owner", "activity"))
def get_deal(ctx: Ctx, deal_id: DealId) -> dict[str, Any]:
    """Get one deal with its stage history, the stages it may move to next and its recent activities, e.g.
    get_deal('DEAL-0042')."""
    deal = DEAL.get(ctx, deal_id)
    deal["account_name"] = ACCOUNT.get(ctx, deal["account_id"])["name"]
    deal["allowed_next_stages"] = list(ALLOWED[deal["stage"]])
    deal["stage_history"] = rows(
        ctx.db.execute(
            "SELECT from_stage, to_stage, changed_at FROM stage_history WHERE deal_id = ? ORDER BY history_id",
            (deal_id,),
        )
    )
    deal["activities"] = _activities(ctx, "deal_id", deal_id)
    return deal


@crm.read(returns=("owner",))
def list_owners(
    ctx: Ctx,
    team: Literal["SMB", "Mid-Market", "Enterprise"] | None = None,
    active: Annotated[bool | None, Field(description="true: only active reps; false: only former reps")] = None,
) -> dict[str, Any]:
    """List sales owners with their team, region, quota, open pipeline and won revenue, e.g. list_owners(active=True)
    includes 'USR-03'."""
    q = Query("SELECT * FROM owners").equal("team", team).equal("active", None if active is None else int(active))
    found = q.rows(ctx.db, order_by="owner_id")
    for o in found:
        o["active"] = bool(o["active"])
        pipe, won = ctx.db.execute(
            "SELECT COALESCE(SUM(CASE WHEN stage NOT IN ('closed_won', 'closed_lost') THEN amount END), 0), "
            "COALESCE(SUM(CASE WHEN stage = 'closed_won' THEN amount END), 0) FROM deals WHERE owner_id = ?",
            (o["owner_id"],),
        ).fetchone()
        o["open_pipeline"], o["won_revenue"] = round(pipe, 2), round(won, 2)
    return listing("owners", found)


crm.distinct_values(
    {
        "industry": ("accounts", "industry"),
        "city": ("accounts", "city"),
        "deal_stage": ("deals", "stage"),
        "lead_status": ("leads", "status"),
        "lead_source": ("leads", "source"),
        "lost_reason": ("deals", "lost_reason"),
        "activity_kind": ("activities", "kind"),
        "contact_title": ("contacts", "title"),
    },
    skip_null=True,
)


@crm.write(returns=("lead", "owner"))
def create_lead(
    ctx: Ctx,
    name: Annotated[
        str, Field(min_length=1, max_length=100, description="The person's full name, e.g. 'Dana Whitfield'")
    ],
    company: Annotated[str, Field(min_length=1, max_length=100, description="Their company, e.g. 'Lumen Media'")],
    email: Annotated[
        str,
        Field(
            pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
            max_length=200,
            description="Email address, e.g. 'dana@lumen.example.com'",
        ),
    ],
    source: LeadSource = "web_form",
    title: Annotated[str, Field(max_length=100, description="Job title, e.g. 'CTO'")] = "",
    phone: Annotated[str, Field(max_length=40, description="Phone number")] = "",
    owner_id: Annotated[
        str | None, OWNER.ref("Sales owner, e.g. 'USR-03'; default the active rep with the fewest open leads")
    ] = None,
) -> dict[str, Any]:
    """Create a new lead, e.g. create_lead('Dana Whitfield', 'Lumen Media', 'dana@lumen.example.com',
    source='referral'). Fails if an open lead with the same email exists."""
    name, company = name.strip(), company.strip()
    if not name or not company:
        raise ToolError("name and company must not be blank.")
    clash = ctx.db.execute(
        "SELECT lead_id, status FROM leads WHERE email = ? COLLATE NOCASE AND status NOT IN "
        "('converted', 'disqualified')",
        (email,),
    ).fetchone()
    if clash:
        raise ToolError(
            f"Lead {clash[0]} ({clash[1]}) already has the email {email}; work that lead instead of "
            "creating a duplicate."
        )
    if owner_id is None:
        owner_id = ctx.db.execute(
            "SELECT o.owner_id FROM owners o LEFT JOIN leads l ON l.owner_id = o.owner_id "
            "AND l.status IN ('new', 'working', 'qualified') WHERE o.active = 1 GROUP BY o.owner_id "
            "ORDER BY COUNT(l.lead_id), o.owner_id LIMIT 1"
        ).fetchone()[0]
    else:
        _owner(ctx, owner_id)
    lead_id = next_id(ctx.db, "leads", "lead_id", "LEAD")
    at = fake.iso(ctx.now)
    ctx.db.execute(
        "INSERT INTO leads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (lead_id, name, email, phone, company, title, source, "new", None, owner_id, None, None, None, at, at),
    )
    return get_lead(ctx, lead_id)


@crm.write(returns=("lead",), requires=("create_lead",))
def update_lead_status(
    ctx: Ctx,
    lead_id: LeadId,
    status: Literal["working", "qualified", "disqualified"],
    reason: Annotated[str, Field(max_length=200, description="Why a lead is disqualified, e.g. 'no budget'")] = "",
) -> dict[str, Any]:
    """Move a lead to working, qualified or disqualified (with a reason), e.g. update_lead_status('LEAD-0043',
    'qualified'). Converted leads are final; a disqualified lead can only go back to working."""
    lead = LEAD.get(ctx, lead_id)
    current = lead["status"]
    if current == "converted":
        raise ToolError(
            f"Lead {lead_id} was already converted (contact {lead['converted_contact_id']}, deal "
            f"{lead['converted_deal_id']}); "
            "work the deal instead."
        )
    if current == status:
        raise ToolError(f"Lead {lead_id} is already {status}.")
    if status not in LEAD_ALLOWED[current]:
        raise ToolError(
            f"Lead {lead_id} is {current}; it can move to {', '.join(LEAD_ALLOWED[current])}, not {status}."
        )
    if status == "disqualified" and not reason.strip():
        raise ToolError("Disqualifying a lead needs a reason, e.g. reason='no budget'.")
    ctx.db.execute(
        "UPDATE leads SET status = ?, disqualify_reason = ?, updated_at = ? WHERE lead_id = ?",
        (status, reason.strip() if status == "disqualified" else None, fake.iso(ctx.now), lead_id),
    )
    return {"lead_id": lead_id, "previous_status": current, "status": status}


@crm.write(returns=("contact", "deal", "account", "lead"), requires=("update_lead_status",))
def convert_lead(
    ctx: Ctx,
    lead_id: LeadId,
    deal_amount: Annotated[float, Field(gt=0, le=100_000_000, description="Expected deal value in USD, e.g. 45000")],
    deal_name: Annotated[str, Field(max_length=150, description="Deal name; default '<company> - New business'")] = "",
    account_id: Annotated[
        str | None, ACCOUNT.ref("Existing account to attach to, e.g. 'ACT-0042'; default a new account")
    ] = None,
    expected_close: Annotated[Day, Field(description="Expected close date, YYYY-MM-DD; default in 60 days")] = None,
) -> dict[str, Any]:
    """Convert a qualified lead into a contact and a prospecting deal, under an existing account or a new one named
    after the lead's company, e.g. convert_lead('LEAD-0050', 45000, account_id='ACT-0042')."""
    lead = LEAD.get(ctx, lead_id)
    if lead["status"] == "converted":
        raise ToolError(f"Lead {lead_id} was already converted into deal {lead['converted_deal_id']}.")
    if lead["status"] != "qualified":
        raise ToolError(
            f"Lead {lead_id} is {lead['status']}; only qualified leads can be converted. "
            f"Qualify it first with update_lead_status('{lead_id}', 'qualified')."
        )
    owner = _owner(ctx, lead["owner_id"], must_be_active=False)
    if not owner["active"]:
        raise ToolError(
            f"Lead {lead_id} is owned by {owner['name']}, who is no longer active; converting needs an active owner."
        )
    close = _close_date(ctx, expected_close)
    at = fake.iso(ctx.now)
    acc = ACCOUNT.get(ctx, account_id) if account_id is not None else _new_account(ctx, lead, at)
    contact_id = next_id(ctx.db, "contacts", "contact_id", "CON")
    ctx.db.execute(
        "INSERT INTO contacts VALUES (?,?,?,?,?,?,?,?)",
        (
            contact_id,
            acc["account_id"],
            lead["name"],
            lead["email"],
            lead["phone"],
            lead["title"],
            lead["owner_id"],
            at,
        ),
    )
    deal_id = next_id(ctx.db, "deals", "deal_id", "DEAL")
    ctx.db.execute(
        "INSERT INTO deals VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            deal_id,
            deal_name.strip() or f"{acc['name']} - New business",
            acc["account_id"],
            contact_id,
            lead["owner_id"],
            round(deal_amount, 2),
            "prospecting",
            PROBABILITY["prospecting"],
            close,
            None,
            at,
            at,
            None,
        ),
    )
    ctx.db.execute(
        "INSERT INTO stage_history VALUES (?,?,?,?,?)",
        (next_id(ctx.db, "stage_history", "history_id", "STH", 5), deal_id, None, "prospecting", at),
    )
    ctx.db.execute(
        "UPDATE leads SET status = 'converted', converted_account_id = ?, converted_contact_id = ?, "
        "converted_deal_id = ?, updated_at = ? WHERE lead_id = ?",
        (acc["account_id"], contact_id, deal_id, at, lead_id),
    )
    return {
        "lead_id": lead_id,
        "status": "converted",
        "account_id": acc["account_id"],
        "contact_id": contact_id,
        "deal_id": deal_id,
        "stage": "prospecting",
        "amount": round(deal_amount, 2),
        "expected_close": close,
    }


def _close_date(ctx: Ctx, expected_close: str | None) -> str:
    """The expected close day: the one given, which must be a real future date, or 60 days from now."""
    if expected_close is None:
        return (ctx.now + timedelta(days=60)).strftime("%Y-%m-%d")
    try:
        parsed = datetime.strptime(expected_close, "%Y-%m-%d")
    except ValueError:
        raise ToolError(f"expected_close {expected_close!r} is not a valid date; use YYYY-MM-DD.") from None
    if parsed.date() <= ctx.now.date():
        raise ToolError(
            f"expected_close {expected_close} is not in the future (today is {ctx.now.date().isoformat()})."
        )
    return expected_close


def _new_account(ctx: Ctx, lead: dict[str, Any], at: str) -> dict[str, Any]:
    """An account named after the lead's company; an existing one of that name must be chosen explicitly."""
    clash = ctx.db.execute("SELECT account_id FROM accounts WHERE name = ?", (lead["company"],)).fetchone()
    if clash:
        raise ToolError(
            f"An account named {lead['company']!r} already exists ({clash[0]}); pass "
            f"account_id='{clash[0]}' to attach the lead to it."
        )
    new_id = next_id(ctx.db, "accounts", "account_id", "ACT")
    domain = "".join(ch for ch in lead["company"].lower() if ch.isalnum()) or "company"
    ctx.db.execute(
        "INSERT INTO accounts VALUES (?,?,?,?,?,?,?,?,?)",
        (
            new_id,
            lead["company"],
            "Unknown",
            "Unknown",
            0,
            0.0,
            f"https://www.{domain}.example.com",
            lead["owner_id"],
            at,
        ),
    )
    return ACCOUNT.get(ctx, new_id)


@crm.write(returns=("deal",))
def update_deal_stage(
    ctx: Ctx,
    deal_id: DealId,
    stage: Stage,
    lost_reason: Literal["price", "competitor", "no_budget", "no_decision", "timing", "lost_contact"] | None = None,
) -> dict[str, Any]:
    """Move a deal to another pipeline stage, e.g. update_deal_stage('DEAL-0013', 'proposal') or
    update_deal_stage('DEAL-0013', 'closed_lost', lost_reason='competitor'). Deals move one stage forward or back at a
    time, can be lost from any open stage, are won only from negotiation, and closed deals cannot be reopened."""
    deal = DEAL.get(ctx, deal_id)
    current = deal["stage"]
    if current in ("closed_won", "closed_lost"):
        raise ToolError(
            f"Deal {deal_id} is {current} (closed {deal['closed_at']}); closed deals cannot be reopened. "
            "Convert a new lead to start a new deal."
        )
    if stage == current:
        raise ToolError(f"Deal {deal_id} is already in {stage}.")
    if stage not in ALLOWED[current]:
        raise ToolError(
            f"Deal {deal_id} is in {current}; it can move to {', '.join(ALLOWED[current])}, not {stage}. "
            "Move one stage at a time."
        )
    if stage == "closed_lost" and lost_reason is None:
        raise ToolError(
            "Closing a deal as lost needs lost_reason (price, competitor, no_budget, no_decision, timing "
            "or lost_contact)."
        )
    if stage != "closed_lost" and lost_reason is not None:
        raise ToolError("lost_reason only applies when the stage is closed_lost; drop it.")
    at = fake.iso(ctx.now)
    closed = at if stage.startswith("closed") else None
    ctx.db.execute(
        "UPDATE deals SET stage = ?, probability = ?, lost_reason = ?, updated_at = ?, closed_at = ?, "
        "expected_close = CASE WHEN ? IS NULL THEN expected_close ELSE ? END WHERE deal_id = ?",
        (stage, PROBABILITY[stage], lost_reason, at, closed, closed, ctx.now.strftime("%Y-%m-%d"), deal_id),
    )
    ctx.db.execute(
        "INSERT INTO stage_history VALUES (?,?,?,?,?)",
        (next_id(ctx.db, "stage_history", "history_id", "STH", 5), deal_id, current, stage, at),
    )
    return {
        "deal_id": deal_id,
        "previous_stage": current,
        "stage": stage,
        "probability": PROBABILITY[stage],
        "allowed_next_stages": list(ALLOWED[stage]),
    }


@crm.write(returns=("activity",))
def log_activity(
    ctx: Ctx,
    kind: Literal["call", "email", "meeting", "note", "task"],
    subject: Annotated[str, Field(min_length=1, max_length=150, description="Short summary, e.g. 'Discovery call'")],
    body: Annotated[str, Field(max_length=2000, description="Details")] = "",
    deal_id: Annotated[str | None, DEAL.ref("Deal it concerns, e.g. 'DEAL-0042'")] = None,
    contact_id: Annotated[str | None, CONTACT.ref("Contact it concerns, e.g. 'CON-0042'")] = None,
    lead_id: Annotated[str | None, LEAD.ref("Lead it concerns, e.g. 'LEAD-0042'")] = None,
    due_date: Annotated[Day, Field(description="For an open task or meeting: when it is due, YYYY-MM-DD")] = None,
) -> dict[str, Any]:
    """Log a call, email, meeting, note or task against a deal, contact and/or lead, e.g.
    log_activity('call', 'Discovery call', deal_id='DEAL-0042'). With due_date the task or meeting is left open; the
    activity's owner is the deal's (else the contact's or lead's) owner."""
    if deal_id is None and contact_id is None and lead_id is None:
        raise ToolError("An activity must concern something: pass deal_id, contact_id or lead_id.")
    if not subject.strip():
        raise ToolError("subject is blank; summarise the activity, e.g. 'Discovery call'.")
    owner = _activity_owner(ctx, deal_id, contact_id, lead_id)
    due = None if due_date is None else _due(ctx, kind, due_date)
    activity_id = next_id(ctx.db, "activities", "activity_id", "ACV", 5)
    ctx.db.execute(
        "INSERT INTO activities VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            activity_id,
            kind,
            subject.strip(),
            body,
            owner,
            deal_id,
            contact_id,
            lead_id,
            due,
            0 if due else 1,
            fake.iso(ctx.now),
        ),
    )
    return {
        "activity_id": activity_id,
        "kind": kind,
        "subject": subject.strip(),
        "owner_id": owner,
        "deal_id": deal_id,
        "contact_id": contact_id,
        "lead_id": lead_id,
        "due_at": due,
        "completed": due is None,
    }


def _activity_owner(ctx: Ctx, deal_id: str | None, contact_id: str | None, lead_id: str | None) -> str | None:
    """The deal's owner, else the contact's, else the lead's; a deal's contact must work at the deal's account."""
    owner = None
    if lead_id is not None:
        owner = LEAD.get(ctx, lead_id)["owner_id"]
    if contact_id is not None:
        owner = CONTACT.get(ctx, contact_id)["owner_id"]
    if deal_id is not None:
        deal = DEAL.get(ctx, deal_id)
        owner = deal["owner_id"]
        works_elsewhere = (
            contact_id is not None
            and deal["contact_id"]
            and CONTACT.get(ctx, contact_id)["account_id"] != deal["account_id"]
        )
        if works_elsewhere:
            raise ToolError(
                f"Contact {contact_id} does not work at the deal's account {deal['account_id']}; pick one "
                "of its contacts (get_account)."
            )
    return owner


def _due(ctx: Ctx, kind: str, due_date: str) -> str:
    """An open task's or meeting's due time: 17:00 on a real day that is not in the past."""
    if kind not in ("task", "meeting"):
        raise ToolError("Only tasks and meetings take a due_date; drop it or use kind='task'.")
    try:
        parsed = datetime.strptime(due_date, "%Y-%m-%d")
    except ValueError:
        raise ToolError(f"due_date {due_date!r} is not a valid date; use YYYY-MM-DD.") from None
    if parsed.date() < ctx.now.date():
        raise ToolError(f"due_date {due_date} is in the past; log a completed activity without due_date instead.")
    return fake.iso(parsed.replace(hour=17))


@crm.write(returns=("deal", "owner"))
def reassign_deal(ctx: Ctx, deal_id: DealId, owner_id: OwnerId) -> dict[str, Any]:
    """Hand an open deal to another active sales owner, e.g. reassign_deal('DEAL-0042', 'USR-03'). Closed deals keep
    their owner."""
    deal = DEAL.get(ctx, deal_id)
    owner = _owner(ctx, owner_id)
    if deal["stage"] in ("closed_won", "closed_lost"):
        raise ToolError(
            f"Deal {deal_id} is {deal['stage']}; closed deals keep their owner for commission and cannot be reassigned."
        )
    if deal["owner_id"] == owner_id:
        raise ToolError(f"Deal {deal_id} is already owned by {owner['name']} ({owner_id}).")
    ctx.db.execute(
        "UPDATE deals SET owner_id = ?, updated_at = ? WHERE deal_id = ?", (owner_id, fake.iso(ctx.now), deal_id)
    )
    return {
        "deal_id": deal_id,
        "previous_owner_id": deal["owner_id"],
        "owner_id": owner_id,
        "owner_name": owner["name"],
    }
