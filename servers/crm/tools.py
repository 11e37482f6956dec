"""CRM tools: the server, its entities, and the reads (search leads, contacts, accounts, deals and owners); the
writes live in ``tools_write``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import ISO_DATE, Ctx, EntityId, Limit, Offset, Query, Server, ToolError, listing
from servers.crm.schema import ALLOWED, LEAD_ALLOWED, OPEN_STAGES, SCHEMA
from servers.crm.seed import seed

crm = Server(
    "crm",
    "Sales CRM: leads, contacts, accounts, deals through a pipeline, activities and owners.",
    SCHEMA,
    seed,
    family="work",
)


class LeadId(EntityId, server=crm, example="LEAD-0042", finder="search_leads"): ...


class ContactId(EntityId, server=crm, example="CON-0042", finder="search_contacts"): ...


class AccountId(
    EntityId,
    server=crm,
    example="ACT-0042",
    finder="search_accounts",
    description="Account (company) id, e.g. 'ACT-0042'",
): ...


class DealId(EntityId, server=crm, example="DEAL-0042", finder="list_deals"): ...


class OwnerId(
    EntityId,
    server=crm,
    example="USR-03",
    finder="list_owners",
    description="Sales owner id, e.g. 'USR-03'",
    hint="Use list_owners to find sales owner ids.",
): ...


Stage = Literal["prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost"]
LeadSource = Literal["web_form", "referral", "trade_show", "cold_call", "partner", "webinar"]
SearchText = Annotated[str, Field(max_length=100, description="Part of a name, email or company, e.g. 'Garcia'")]
Day = Annotated[str | None, Field(pattern=ISO_DATE)]


def _owner(ctx: Ctx, owner_id: str, must_be_active: bool = True) -> dict[str, Any]:
    owner = OwnerId.get(ctx, owner_id)
    if must_be_active and not owner["active"]:
        raise ToolError(
            f"{owner['name']} ({owner_id}) is no longer an active sales rep; pick an active owner from "
            "list_owners(active=True)."
        )
    return owner


def _activities(ctx: Ctx, column: str, value: str) -> list[dict[str, Any]]:
    found = ctx.rows(
        "SELECT activity_id, kind, subject, owner_id, due_at, completed, created_at FROM "
        f"activities WHERE {column} = ? "
        "ORDER BY created_at DESC, activity_id DESC LIMIT 10",
        (value,),
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
    owner_id: Annotated[str | None, OwnerId.ref("Only this owner's leads, e.g. 'USR-03'")] = None,
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
    lead = LeadId.get(ctx, lead_id)
    lead["allowed_statuses"] = list(LEAD_ALLOWED[lead["status"]])
    lead["can_convert"] = lead["status"] == "qualified"
    lead["activities"] = _activities(ctx, "lead_id", lead_id)
    return lead


@crm.read(returns=("contact", "account"))
def search_contacts(
    ctx: Ctx,
    query: SearchText = "",
    account_id: Annotated[str | None, AccountId.ref("Only this account's contacts, e.g. 'ACT-0042'")] = None,
    owner_id: Annotated[str | None, OwnerId.ref("Only this owner's contacts, e.g. 'USR-03'")] = None,
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
    contact = ContactId.get(ctx, contact_id)
    contact["account_name"] = AccountId.get(ctx, contact["account_id"])["name"]
    contact["deals"] = ctx.rows(
        "SELECT deal_id, name, stage, amount FROM deals WHERE contact_id = ? ORDER BY deal_id", (contact_id,)
    )
    contact["activities"] = _activities(ctx, "contact_id", contact_id)
    return contact


@crm.read(returns=("account", "owner"))
def search_accounts(
    ctx: Ctx,
    query: Annotated[str, Field(max_length=100, description="Part of the company name, e.g. 'Apex'")] = "",
    industry: Annotated[str | None, Field(max_length=60, description="Only this industry, e.g. 'Software'")] = None,
    city: Annotated[str | None, Field(max_length=60, description="Only this city, e.g. 'Denver'")] = None,
    owner_id: Annotated[str | None, OwnerId.ref("Only this owner's accounts, e.g. 'USR-03'")] = None,
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
    acc = AccountId.get(ctx, account_id)
    acc["contacts"] = ctx.rows(
        "SELECT contact_id, name, title, email FROM contacts WHERE account_id = ? ORDER BY contact_id", (account_id,)
    )
    acc["deals"] = ctx.rows(
        "SELECT deal_id, name, stage, amount, owner_id, expected_close FROM deals WHERE "
        "account_id = ? ORDER BY deal_id",
        (account_id,),
    )
    acc["open_pipeline"] = round(sum(d["amount"] for d in acc["deals"] if d["stage"] in OPEN_STAGES), 2)
    acc["won_revenue"] = round(sum(d["amount"] for d in acc["deals"] if d["stage"] == "closed_won"), 2)
    return acc


@crm.read(returns=("deal", "account", "owner"))
def list_deals(
    ctx: Ctx,
    stage: Stage | None = None,
    owner_id: Annotated[str | None, OwnerId.ref("Only this owner's deals, e.g. 'USR-03'")] = None,
    account_id: Annotated[str | None, AccountId.ref("Only this account's deals, e.g. 'ACT-0042'")] = None,
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
    deal = DealId.get(ctx, deal_id)
    deal["account_name"] = AccountId.get(ctx, deal["account_id"])["name"]
    deal["allowed_next_stages"] = list(ALLOWED[deal["stage"]])
    deal["stage_history"] = ctx.rows(
        "SELECT from_stage, to_stage, changed_at FROM stage_history WHERE deal_id = ? ORDER BY history_id", (deal_id,)
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
