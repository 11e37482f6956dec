"""CRM: sales owners, leads, accounts (companies), contacts, deals through a pipeline, and activities.

Business rules: a deal moves through prospecting -> qualification -> proposal -> negotiation ->
closed_won, one step forward or one step back at a time, and may be lost (closed_lost, with a
reason) from any open stage; closed deals cannot be reopened, re-staged or reassigned. Only
negotiation can be won. A lead goes new -> working -> qualified (or disqualified, with a reason;
a disqualified lead can be reworked); only a qualified lead can be converted, which creates a
contact and a prospecting deal under an existing account or a new one named after the lead's
company (an existing account of that name must be passed explicitly). Converted leads are final.
Records are owned by active sales reps only; inactive reps keep their history.
"""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub import fake
from hub.kit import Ctx, Entity, Limit, Offset, Server, ToolError, fetch, next_id, rows

SCHEMA = """
CREATE TABLE owners (
    owner_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    team TEXT NOT NULL,
    region TEXT NOT NULL,
    quota REAL NOT NULL,
    active INTEGER NOT NULL
);
CREATE TABLE accounts (
    account_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    industry TEXT NOT NULL,
    city TEXT NOT NULL,
    employees INTEGER NOT NULL,
    annual_revenue REAL NOT NULL,
    website TEXT NOT NULL,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    created_at TEXT NOT NULL
);
CREATE TABLE contacts (
    contact_id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    phone TEXT NOT NULL,
    title TEXT NOT NULL,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    created_at TEXT NOT NULL
);
CREATE INDEX contacts_account ON contacts(account_id);
CREATE TABLE leads (
    lead_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    phone TEXT NOT NULL,
    company TEXT NOT NULL,
    title TEXT NOT NULL,
    source TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('new', 'working', 'qualified', 'disqualified', 'converted')),
    disqualify_reason TEXT,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    converted_account_id TEXT,
    converted_contact_id TEXT,
    converted_deal_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE deals (
    deal_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    contact_id TEXT REFERENCES contacts(contact_id),
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    amount REAL NOT NULL,
    stage TEXT NOT NULL CHECK (stage IN ('prospecting', 'qualification', 'proposal', 'negotiation', 'closed_won', 'closed_lost')),
    probability INTEGER NOT NULL,
    expected_close TEXT NOT NULL,
    lost_reason TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    closed_at TEXT
);
CREATE INDEX deals_account ON deals(account_id);
CREATE INDEX deals_stage ON deals(stage, owner_id);
CREATE TABLE stage_history (
    history_id TEXT PRIMARY KEY,
    deal_id TEXT NOT NULL REFERENCES deals(deal_id),
    from_stage TEXT,
    to_stage TEXT NOT NULL,
    changed_at TEXT NOT NULL
);
CREATE INDEX stage_history_deal ON stage_history(deal_id);
CREATE TABLE activities (
    activity_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('call', 'email', 'meeting', 'note', 'task')),
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    owner_id TEXT NOT NULL REFERENCES owners(owner_id),
    deal_id TEXT,
    contact_id TEXT,
    lead_id TEXT,
    due_at TEXT,
    completed INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX activities_deal ON activities(deal_id);
CREATE INDEX activities_contact ON activities(contact_id);
CREATE INDEX activities_lead ON activities(lead_id);
"""

STAGES = ("prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost")
OPEN_STAGES = STAGES[:4]
PROBABILITY = {"prospecting": 10, "qualification": 25, "proposal": 50, "negotiation": 75, "closed_won": 100, "closed_lost": 0}
ALLOWED = {"prospecting": ("qualification", "closed_lost"), "qualification": ("proposal", "prospecting", "closed_lost"),
           "proposal": ("negotiation", "qualification", "closed_lost"), "negotiation": ("closed_won", "proposal", "closed_lost"),
           "closed_won": (), "closed_lost": ()}
LEAD_ALLOWED = {"new": ("working", "qualified", "disqualified"), "working": ("qualified", "disqualified"),
                "qualified": ("working", "disqualified"), "disqualified": ("working",), "converted": ()}
INDUSTRIES = ("Software", "Healthcare", "Manufacturing", "Retail", "Financial Services", "Logistics", "Education", "Energy",
              "Media", "Hospitality", "Construction", "Telecommunications")
PREFIXES = ("Apex", "Blue Ridge", "Cedar", "Crescent", "Falcon", "Golden Gate", "Helix", "Ivory", "Jade", "Kinetic", "Lighthouse",
            "Magnolia", "Nimbus", "Oakmont", "Polaris", "Quantum", "Riverbend", "Sapphire", "Trident", "Unity", "Vanguard",
            "Westbrook", "Zenith", "Alder", "Beacon", "Cascade", "Drake", "Ember", "Foxglove", "Granite Peak")
SUFFIXES = ("Systems", "Health", "Industries", "Outfitters", "Partners", "Logistics", "Academy", "Power", "Studios", "Hotels",
            "Builders", "Networks", "Labs", "Group", "Foods", "Analytics")
TITLES = ("CEO", "CTO", "CFO", "VP Sales", "VP Operations", "Head of IT", "Procurement Manager", "Operations Director",
          "Marketing Manager", "IT Manager", "Finance Director", "Product Manager")
PRODUCTS = ("Platform license", "Analytics add-on", "Enterprise suite", "Support renewal", "Onboarding services", "Data migration",
            "Team expansion", "Pilot program")
SOURCES = ("web_form", "referral", "trade_show", "cold_call", "partner", "webinar")
LOST_REASONS = ("price", "competitor", "no_budget", "no_decision", "timing", "lost_contact")
SUBJECTS = {"call": ("Discovery call", "Follow-up call", "Pricing discussion", "Check-in call"),
            "email": ("Sent proposal", "Intro email", "Shared case study", "Sent contract draft"),
            "meeting": ("Product demo", "Onsite workshop", "Executive briefing", "Technical deep dive"),
            "note": ("Budget confirmed", "Champion identified", "Competitor in play", "Legal review pending"),
            "task": ("Send revised quote", "Schedule demo", "Prepare SOW", "Follow up on security questionnaire")}


def _iso(t: datetime) -> str:
    return t.isoformat(timespec="seconds")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """12 sales owners, 160 accounts with ~480 contacts, ~320 deals across the pipeline with stage histories,
    ~400 leads in every status (converted ones linked to their contact and deal) and ~1,300 activities."""
    owners = []
    for i in range(1, 13):
        first, last = fake.person(rng)
        owners.append((f"USR-{i:02d}", f"{first} {last}", f"{first.lower()}.{last.lower()}@salesco.example.com",
                       ("SMB", "Mid-Market", "Enterprise")[i % 3], ("West", "Central", "East")[(i // 3) % 3],
                       float(rng.choice((400_000, 600_000, 900_000, 1_500_000))), 0 if i in (5, 11) else 1))
    db.executemany("INSERT INTO owners VALUES (?,?,?,?,?,?,?)", owners)
    active = [o[0] for o in owners if o[6]]
    names = [f"{p} {s}" for p in PREFIXES for s in SUFFIXES]
    rng.shuffle(names)
    accounts: list[Any] = []
    contacts: list[Any] = []
    deals: list[Any] = []
    history: list[Any] = []
    leads: list[Any] = []
    activities: list[Any] = []
    for i, name in enumerate(names[:160], 1):
        aid = f"ACT-{i:04d}"
        owner = rng.choice([o[0] for o in owners])
        employees = rng.choice((12, 40, 85, 150, 400, 1200, 5000))
        accounts.append((aid, name, rng.choice(INDUSTRIES), fake.city(rng)[0], employees, round(employees * rng.uniform(80_000, 300_000), -3),
                         f"https://www.{name.lower().replace(' ', '')}.example.com", owner, _iso(fake.moment(rng, now, 1500, -200))))
        for _ in range(rng.randint(1, 5)):
            first, last = fake.person(rng)
            cid = f"CON-{len(contacts) + 1:04d}"
            contacts.append((cid, aid, f"{first} {last}", f"{first.lower()}.{last.lower()}@{name.lower().replace(' ', '')}.example.com",
                             fake.phone(rng), rng.choice(TITLES), owner, _iso(fake.moment(rng, now, 900, -30))))
    by_account: dict[str, list[tuple[Any, ...]]] = {}
    for c in contacts:
        by_account.setdefault(c[1], []).append(c)
    for acc in accounts:
        for _ in range(rng.choice((0, 1, 1, 2, 2, 3))):
            did = f"DEAL-{len(deals) + 1:04d}"
            contact = rng.choice(by_account[acc[0]])
            owner = acc[7] if acc[7] in active or rng.random() < 0.3 else rng.choice(active)
            stage = rng.choices(STAGES, (14, 14, 13, 10, 27, 22))[0]
            created = fake.moment(rng, now, 400, 0) - timedelta(days=7)
            path = list(OPEN_STAGES[:OPEN_STAGES.index(stage) + 1]) if stage in OPEN_STAGES else (
                list(OPEN_STAGES) + ["closed_won"] if stage == "closed_won" else list(OPEN_STAGES[:rng.randint(1, 4)]) + ["closed_lost"])
            t, prev = created, None
            for step in path:
                history.append((f"STH-{len(history) + 1:05d}", did, prev, step, _iso(t)))
                prev = step
                t = min(now - timedelta(hours=1), t + timedelta(days=rng.randint(2, 25), minutes=rng.randint(0, 600)))
            closed = stage.startswith("closed")
            last_change = history[-1][4]
            expected = (datetime.fromisoformat(last_change) if closed else now + timedelta(days=rng.randint(5, 120))).strftime("%Y-%m-%d")
            amount = round(rng.choice((1, 2, 3, 5, 8, 13, 20)) * rng.uniform(4_000, 12_000), -2)
            deals.append((did, f"{acc[1]} - {rng.choice(PRODUCTS)}", acc[0], contact[0], owner, amount, stage, PROBABILITY[stage], expected,
                          rng.choice(LOST_REASONS) if stage == "closed_lost" else None, _iso(created), last_change,
                          last_change if closed else None))
            for _ in range(rng.randint(1, 6)):
                kind = rng.choice(("call", "email", "meeting", "note", "task"))
                at = created + timedelta(days=rng.randint(0, 30), minutes=rng.randint(0, 900))
                at = min(at, now - timedelta(minutes=30))
                pending = kind in ("task", "meeting") and not closed and rng.random() < 0.4
                due = _iso(now + timedelta(days=rng.randint(1, 21), hours=rng.randint(0, 8))) if pending else None
                activities.append((f"ACV-{len(activities) + 1:05d}", kind, rng.choice(SUBJECTS[kind]), f"{rng.choice(SUBJECTS[kind])} with {contact[2]}.",
                                   owner, did, contact[0], None, due, 0 if pending else 1, _iso(at)))
            if rng.random() < 0.3:
                lead_at = _iso(created - timedelta(days=rng.randint(1, 20)))
                leads.append([None, contact[2], contact[3], contact[4], acc[1], contact[5], rng.choice(SOURCES), "converted", None, owner,
                              acc[0], contact[0], did, lead_at, _iso(created)])
    for _ in range(400 - len(leads)):
        first, last = fake.person(rng)
        company = rng.choice(names[160:])
        status = rng.choices(("new", "working", "qualified", "disqualified"), (30, 35, 15, 20))[0]
        created = fake.moment(rng, now, 240, 0) - timedelta(hours=2)
        updated = created if status == "new" else min(now - timedelta(hours=1), created + timedelta(days=rng.randint(1, 30)))
        leads.append([None, f"{first} {last}", f"{first.lower()}.{last.lower()}@{company.lower().replace(' ', '')}.example.com", fake.phone(rng),
                      company, rng.choice(TITLES), rng.choice(SOURCES), status,
                      rng.choice(("no budget", "not a fit", "unresponsive", "already a customer of a competitor")) if status == "disqualified" else None,
                      rng.choice(active), None, None, None, _iso(created), _iso(updated)])
    leads.sort(key=lambda lead: (lead[13], lead[2]))
    for i, lead in enumerate(leads, 1):
        lead[0] = f"LEAD-{i:04d}"
        if lead[7] in ("working", "qualified") and rng.random() < 0.6:
            kind = rng.choice(("call", "email", "task"))
            pending = kind == "task"
            activities.append((f"ACV-{len(activities) + 1:05d}", kind, rng.choice(SUBJECTS[kind]), f"Lead outreach to {lead[1]}.", lead[9],
                               None, None, lead[0], _iso(now + timedelta(days=rng.randint(1, 10))) if pending else None, 0 if pending else 1, lead[14]))
    db.executemany("INSERT INTO accounts VALUES (?,?,?,?,?,?,?,?,?)", accounts)
    db.executemany("INSERT INTO contacts VALUES (?,?,?,?,?,?,?,?)", contacts)
    db.executemany("INSERT INTO deals VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", deals)
    db.executemany("INSERT INTO stage_history VALUES (?,?,?,?,?)", history)
    db.executemany("INSERT INTO leads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", leads)
    db.executemany("INSERT INTO activities VALUES (?,?,?,?,?,?,?,?,?,?,?)", activities)


crm = Server("crm", "Sales CRM: leads, contacts, accounts, deals through a pipeline, activities and owners.", SCHEMA, seed)

LeadId = Annotated[str, Field(description="Lead id, e.g. 'LEAD-0042'"), Entity("lead")]
ContactId = Annotated[str, Field(description="Contact id, e.g. 'CON-0042'"), Entity("contact")]
AccountId = Annotated[str, Field(description="Account (company) id, e.g. 'ACT-0042'"), Entity("account")]
DealId = Annotated[str, Field(description="Deal id, e.g. 'DEAL-0042'"), Entity("deal")]
OwnerId = Annotated[str, Field(description="Sales owner id, e.g. 'USR-03'"), Entity("owner")]
Stage = Literal["prospecting", "qualification", "proposal", "negotiation", "closed_won", "closed_lost"]
Query = Annotated[str, Field(max_length=100, description="Part of a name, email or company, e.g. 'Garcia'")]


def _get(ctx: Ctx, table: str, key: str, value: str, hint: str) -> dict[str, Any]:
    return fetch(ctx.db, f"SELECT * FROM {table} WHERE {key} = ?", (value,), f"No {table[:-1]} {value!r}. {hint}")


def _lead(ctx: Ctx, lead_id: str) -> dict[str, Any]:
    return _get(ctx, "leads", "lead_id", lead_id, "Use search_leads to find lead ids.")


def _contact(ctx: Ctx, contact_id: str) -> dict[str, Any]:
    return _get(ctx, "contacts", "contact_id", contact_id, "Use search_contacts to find contact ids.")


def _account(ctx: Ctx, account_id: str) -> dict[str, Any]:
    return _get(ctx, "accounts", "account_id", account_id, "Use search_accounts to find account ids.")


def _deal(ctx: Ctx, deal_id: str) -> dict[str, Any]:
    return _get(ctx, "deals", "deal_id", deal_id, "Use list_deals to find deal ids.")


def _owner(ctx: Ctx, owner_id: str, must_be_active: bool = True) -> dict[str, Any]:
    owner = _get(ctx, "owners", "owner_id", owner_id, "Use list_owners to find sales owner ids.")
    if must_be_active and not owner["active"]:
        raise ToolError(f"{owner['name']} ({owner_id}) is no longer an active sales rep; pick an active owner from list_owners(active=True).")
    return owner


def _activities(ctx: Ctx, column: str, value: str) -> list[dict[str, Any]]:
    found = rows(ctx.db.execute(f"SELECT activity_id, kind, subject, owner_id, due_at, completed, created_at FROM activities WHERE {column} = ? "
                                "ORDER BY created_at DESC, activity_id DESC LIMIT 10", (value,)))
    for a in found:
        a["completed"] = bool(a["completed"])
    return found


@crm.read(returns=("lead", "owner"))
def search_leads(ctx: Ctx, query: Query = "", status: Literal["new", "working", "qualified", "disqualified", "converted"] | None = None,
                 source: Literal["web_form", "referral", "trade_show", "cold_call", "partner", "webinar"] | None = None,
                 owner_id: Annotated[str | None, Field(description="Only this owner's leads, e.g. 'USR-03'"), Entity("owner")] = None,
                 limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search leads by name, email or company, filtered by status, source or owner, newest first,
    e.g. search_leads(status='qualified')."""
    like = f"%{query}%"
    sql = "SELECT lead_id, name, company, email, source, status, owner_id, created_at FROM leads WHERE (name LIKE ? OR email LIKE ? OR company LIKE ?)"
    args: list[Any] = [like, like, like]
    for column, value in (("status", status), ("source", source), ("owner_id", owner_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY created_at DESC, lead_id DESC LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"leads": found, "count": len(found)}


@crm.read(returns=("lead", "owner", "account", "contact", "deal", "activity"))
def get_lead(ctx: Ctx, lead_id: LeadId) -> dict[str, Any]:
    """Get one lead with its status, owner, what it was converted into and its recent activities, e.g. get_lead('LEAD-0042')."""
    lead = _lead(ctx, lead_id)
    lead["allowed_statuses"] = list(LEAD_ALLOWED[lead["status"]])
    lead["can_convert"] = lead["status"] == "qualified"
    lead["activities"] = _activities(ctx, "lead_id", lead_id)
    return lead


@crm.read(returns=("contact", "account"))
def search_contacts(ctx: Ctx, query: Query = "",
                    account_id: Annotated[str | None, Field(description="Only this account's contacts, e.g. 'ACT-0042'"), Entity("account")] = None,
                    owner_id: Annotated[str | None, Field(description="Only this owner's contacts, e.g. 'USR-03'"), Entity("owner")] = None,
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search contacts by name, email or title, filtered by account or owner, e.g. search_contacts('Nguyen')."""
    like = f"%{query}%"
    sql = ("SELECT c.contact_id, c.name, c.email, c.title, c.account_id, a.name AS account_name, c.owner_id FROM contacts c "
           "JOIN accounts a USING (account_id) WHERE (c.name LIKE ? OR c.email LIKE ? OR c.title LIKE ?)")
    args: list[Any] = [like, like, like]
    for column, value in (("c.account_id", account_id), ("c.owner_id", owner_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY c.contact_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"contacts": found, "count": len(found)}


@crm.read(returns=("contact", "account", "deal", "activity", "owner"))
def get_contact(ctx: Ctx, contact_id: ContactId) -> dict[str, Any]:
    """Get one contact with their account, their deals and recent activities, e.g. get_contact('CON-0042')."""
    contact = _contact(ctx, contact_id)
    contact["account_name"] = _account(ctx, contact["account_id"])["name"]
    contact["deals"] = rows(ctx.db.execute("SELECT deal_id, name, stage, amount FROM deals WHERE contact_id = ? ORDER BY deal_id", (contact_id,)))
    contact["activities"] = _activities(ctx, "contact_id", contact_id)
    return contact


@crm.read(returns=("account", "owner"))
def search_accounts(ctx: Ctx, query: Annotated[str, Field(max_length=100, description="Part of the company name, e.g. 'Apex'")] = "",
                    industry: Annotated[str | None, Field(max_length=60, description="Only this industry, e.g. 'Software'")] = None,
                    city: Annotated[str | None, Field(max_length=60, description="Only this city, e.g. 'Denver'")] = None,
                    owner_id: Annotated[str | None, Field(description="Only this owner's accounts, e.g. 'USR-03'"), Entity("owner")] = None,
                    limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """Search accounts (companies) by name, filtered by industry, city or owner, e.g. search_accounts(industry='Healthcare')."""
    sql = "SELECT account_id, name, industry, city, employees, owner_id FROM accounts WHERE name LIKE ?"
    args: list[Any] = [f"%{query}%"]
    for column, value in (("industry", industry), ("city", city), ("owner_id", owner_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    found = rows(ctx.db.execute(sql + " ORDER BY account_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"accounts": found, "count": len(found)}


@crm.read(returns=("account", "contact", "deal", "owner"))
def get_account(ctx: Ctx, account_id: AccountId) -> dict[str, Any]:
    """Get one account with its contacts, deals, open pipeline and won revenue, e.g. get_account('ACT-0042')."""
    acc = _account(ctx, account_id)
    acc["contacts"] = rows(ctx.db.execute("SELECT contact_id, name, title, email FROM contacts WHERE account_id = ? ORDER BY contact_id", (account_id,)))
    acc["deals"] = rows(ctx.db.execute("SELECT deal_id, name, stage, amount, owner_id, expected_close FROM deals WHERE account_id = ? ORDER BY deal_id",
                                       (account_id,)))
    acc["open_pipeline"] = round(sum(d["amount"] for d in acc["deals"] if d["stage"] in OPEN_STAGES), 2)
    acc["won_revenue"] = round(sum(d["amount"] for d in acc["deals"] if d["stage"] == "closed_won"), 2)
    return acc


@crm.read(returns=("deal", "account", "owner"))
def list_deals(ctx: Ctx, stage: Stage | None = None,
               owner_id: Annotated[str | None, Field(description="Only this owner's deals, e.g. 'USR-03'"), Entity("owner")] = None,
               account_id: Annotated[str | None, Field(description="Only this account's deals, e.g. 'ACT-0042'"), Entity("account")] = None,
               open_only: Annotated[bool, Field(description="Only deals that are not closed")] = False,
               min_amount: Annotated[float | None, Field(ge=0, le=1e10, description="Only deals worth at least this much, in USD")] = None,
               limit: Limit = 20, offset: Offset = 0) -> dict[str, Any]:
    """List deals filtered by stage, owner, account, openness or amount, e.g. list_deals(stage='negotiation', min_amount=50000)."""
    sql = "SELECT deal_id, name, account_id, owner_id, amount, stage, probability, expected_close FROM deals WHERE 1=1"
    args: list[Any] = []
    for column, value in (("stage", stage), ("owner_id", owner_id), ("account_id", account_id)):
        if value is not None:
            sql += f" AND {column} = ?"
            args.append(value)
    if open_only:
        sql += " AND stage NOT IN ('closed_won', 'closed_lost')"
    if min_amount is not None:
        sql += " AND amount >= ?"
        args.append(min_amount)
    found = rows(ctx.db.execute(sql + " ORDER BY deal_id LIMIT ? OFFSET ?", (*args, limit, offset)))
    return {"deals": found, "count": len(found)}


@crm.read(returns=("deal", "account", "contact", "owner", "activity"))
def get_deal(ctx: Ctx, deal_id: DealId) -> dict[str, Any]:
    """Get one deal with its stage history, the stages it may move to next and its recent activities, e.g. get_deal('DEAL-0042')."""
    deal = _deal(ctx, deal_id)
    deal["account_name"] = _account(ctx, deal["account_id"])["name"]
    deal["allowed_next_stages"] = list(ALLOWED[deal["stage"]])
    deal["stage_history"] = rows(ctx.db.execute("SELECT from_stage, to_stage, changed_at FROM stage_history WHERE deal_id = ? ORDER BY history_id",
                                                (deal_id,)))
    deal["activities"] = _activities(ctx, "deal_id", deal_id)
    return deal


@crm.read(returns=("owner",))
def list_owners(ctx: Ctx, team: Literal["SMB", "Mid-Market", "Enterprise"] | None = None,
                active: Annotated[bool | None, Field(description="true: only active reps; false: only former reps")] = None) -> dict[str, Any]:
    """List sales owners with their team, region, quota, open pipeline and won revenue, e.g. list_owners(active=True) includes 'USR-03'."""
    sql = "SELECT * FROM owners WHERE 1=1"
    args: list[Any] = []
    if team is not None:
        sql += " AND team = ?"
        args.append(team)
    if active is not None:
        sql += " AND active = ?"
        args.append(int(active))
    found = rows(ctx.db.execute(sql + " ORDER BY owner_id", args))
    for o in found:
        o["active"] = bool(o["active"])
        pipe, won = ctx.db.execute("SELECT COALESCE(SUM(CASE WHEN stage NOT IN ('closed_won', 'closed_lost') THEN amount END), 0), "
                                   "COALESCE(SUM(CASE WHEN stage = 'closed_won' THEN amount END), 0) FROM deals WHERE owner_id = ?",
                                   (o["owner_id"],)).fetchone()
        o["open_pipeline"], o["won_revenue"] = round(pipe, 2), round(won, 2)
    return {"owners": found, "count": len(found)}


DISTINCT_FIELDS = {"industry": ("accounts", "industry"), "city": ("accounts", "city"), "deal_stage": ("deals", "stage"),
                   "lead_status": ("leads", "status"), "lead_source": ("leads", "source"), "lost_reason": ("deals", "lost_reason"),
                   "activity_kind": ("activities", "kind"), "contact_title": ("contacts", "title")}


@crm.read()
def get_distinct_values(ctx: Ctx, field: Literal["industry", "city", "deal_stage", "lead_status", "lead_source", "lost_reason",
                                                 "activity_kind", "contact_title"]) -> dict[str, Any]:
    """The distinct values of a field with their counts, e.g. get_distinct_values('industry')."""
    table, column = DISTINCT_FIELDS[field]
    found = ctx.db.execute(f"SELECT {column}, COUNT(*) FROM {table} WHERE {column} IS NOT NULL GROUP BY {column} ORDER BY {column}").fetchall()
    return {"field": field, "values": {v: n for v, n in found}}


@crm.write(returns=("lead", "owner"))
def create_lead(ctx: Ctx, name: Annotated[str, Field(min_length=1, max_length=100, description="The person's full name, e.g. 'Dana Whitfield'")],
                company: Annotated[str, Field(min_length=1, max_length=100, description="Their company, e.g. 'Lumen Media'")],
                email: Annotated[str, Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$", max_length=200, description="Email address, e.g. 'dana@lumen.example.com'")],
                source: Literal["web_form", "referral", "trade_show", "cold_call", "partner", "webinar"] = "web_form",
                title: Annotated[str, Field(max_length=100, description="Job title, e.g. 'CTO'")] = "",
                phone: Annotated[str, Field(max_length=40, description="Phone number")] = "",
                owner_id: Annotated[str | None, Field(description="Sales owner, e.g. 'USR-03'; default the active rep with the fewest open leads"),
                                    Entity("owner")] = None) -> dict[str, Any]:
    """Create a new lead, e.g. create_lead('Dana Whitfield', 'Lumen Media', 'dana@lumen.example.com', source='referral').
    Fails if an open lead with the same email exists."""
    name, company = name.strip(), company.strip()
    if not name or not company:
        raise ToolError("name and company must not be blank.")
    clash = ctx.db.execute("SELECT lead_id, status FROM leads WHERE email = ? COLLATE NOCASE AND status NOT IN ('converted', 'disqualified')",
                           (email,)).fetchone()
    if clash:
        raise ToolError(f"Lead {clash[0]} ({clash[1]}) already has the email {email}; work that lead instead of creating a duplicate.")
    if owner_id is None:
        owner_id = ctx.db.execute("SELECT o.owner_id FROM owners o LEFT JOIN leads l ON l.owner_id = o.owner_id AND l.status IN ('new', 'working', 'qualified') "
                                  "WHERE o.active = 1 GROUP BY o.owner_id ORDER BY COUNT(l.lead_id), o.owner_id LIMIT 1").fetchone()[0]
    else:
        _owner(ctx, owner_id)
    lead_id = next_id(ctx.db, "leads", "lead_id", "LEAD")
    at = _iso(ctx.now)
    ctx.db.execute("INSERT INTO leads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (lead_id, name, email, phone, company, title, source, "new", None, owner_id, None, None, None, at, at))
    return get_lead(ctx, lead_id)


@crm.write(returns=("lead",), requires=("create_lead",))
def update_lead_status(ctx: Ctx, lead_id: LeadId, status: Literal["working", "qualified", "disqualified"],
                       reason: Annotated[str, Field(max_length=200, description="Why a lead is disqualified, e.g. 'no budget'")] = "") -> dict[str, Any]:
    """Move a lead to working, qualified or disqualified (with a reason), e.g. update_lead_status('LEAD-0042', 'qualified').
    Converted leads are final; a disqualified lead can only go back to working."""
    lead = _lead(ctx, lead_id)
    current = lead["status"]
    if current == "converted":
        raise ToolError(f"Lead {lead_id} was already converted (contact {lead['converted_contact_id']}, deal {lead['converted_deal_id']}); "
                        "work the deal instead.")
    if current == status:
        raise ToolError(f"Lead {lead_id} is already {status}.")
    if status not in LEAD_ALLOWED[current]:
        raise ToolError(f"Lead {lead_id} is {current}; it can move to {', '.join(LEAD_ALLOWED[current])}, not {status}.")
    if status == "disqualified" and not reason.strip():
        raise ToolError("Disqualifying a lead needs a reason, e.g. reason='no budget'.")
    ctx.db.execute("UPDATE leads SET status = ?, disqualify_reason = ?, updated_at = ? WHERE lead_id = ?",
                   (status, reason.strip() if status == "disqualified" else None, _iso(ctx.now), lead_id))
    return {"lead_id": lead_id, "previous_status": current, "status": status}


@crm.write(returns=("contact", "deal", "account", "lead"), requires=("update_lead_status",))
def convert_lead(ctx: Ctx, lead_id: LeadId,
                 deal_amount: Annotated[float, Field(gt=0, le=100_000_000, description="Expected deal value in USD, e.g. 45000")],
                 deal_name: Annotated[str, Field(max_length=150, description="Deal name; default '<company> - New business'")] = "",
                 account_id: Annotated[str | None, Field(description="Existing account to attach to, e.g. 'ACT-0042'; default a new account"),
                                       Entity("account")] = None,
                 expected_close: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="Expected close date, YYYY-MM-DD; default in 60 days")] = None) -> dict[str, Any]:
    """Convert a qualified lead into a contact and a prospecting deal, under an existing account or a new one named after the
    lead's company, e.g. convert_lead('LEAD-0042', 45000, account_id='ACT-0042')."""
    lead = _lead(ctx, lead_id)
    if lead["status"] == "converted":
        raise ToolError(f"Lead {lead_id} was already converted into deal {lead['converted_deal_id']}.")
    if lead["status"] != "qualified":
        raise ToolError(f"Lead {lead_id} is {lead['status']}; only qualified leads can be converted. "
                        f"Qualify it first with update_lead_status('{lead_id}', 'qualified').")
    owner = _owner(ctx, lead["owner_id"], must_be_active=False)
    if not owner["active"]:
        raise ToolError(f"Lead {lead_id} is owned by {owner['name']}, who is no longer active; converting needs an active owner.")
    close = (ctx.now + timedelta(days=60)).strftime("%Y-%m-%d")
    if expected_close is not None:
        try:
            parsed = datetime.strptime(expected_close, "%Y-%m-%d")
        except ValueError:
            raise ToolError(f"expected_close {expected_close!r} is not a valid date; use YYYY-MM-DD.") from None
        if parsed.date() <= ctx.now.date():
            raise ToolError(f"expected_close {expected_close} is not in the future (today is {ctx.now.date().isoformat()}).")
        close = expected_close
    at = _iso(ctx.now)
    if account_id is not None:
        acc = _account(ctx, account_id)
    else:
        clash = ctx.db.execute("SELECT account_id FROM accounts WHERE name = ?", (lead["company"],)).fetchone()
        if clash:
            raise ToolError(f"An account named {lead['company']!r} already exists ({clash[0]}); pass account_id='{clash[0]}' to attach the lead to it.")
        new_id = next_id(ctx.db, "accounts", "account_id", "ACT")
        ctx.db.execute("INSERT INTO accounts VALUES (?,?,?,?,?,?,?,?,?)",
                       (new_id, lead["company"], "Unknown", "Unknown", 0, 0.0,
                        f"https://www.{''.join(ch for ch in lead['company'].lower() if ch.isalnum()) or 'company'}.example.com", lead["owner_id"], at))
        acc = _account(ctx, new_id)
    contact_id = next_id(ctx.db, "contacts", "contact_id", "CON")
    ctx.db.execute("INSERT INTO contacts VALUES (?,?,?,?,?,?,?,?)",
                   (contact_id, acc["account_id"], lead["name"], lead["email"], lead["phone"], lead["title"], lead["owner_id"], at))
    deal_id = next_id(ctx.db, "deals", "deal_id", "DEAL")
    ctx.db.execute("INSERT INTO deals VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                   (deal_id, deal_name.strip() or f"{acc['name']} - New business", acc["account_id"], contact_id, lead["owner_id"],
                    round(deal_amount, 2), "prospecting", PROBABILITY["prospecting"], close, None, at, at, None))
    ctx.db.execute("INSERT INTO stage_history VALUES (?,?,?,?,?)", (next_id(ctx.db, "stage_history", "history_id", "STH", 5), deal_id, None, "prospecting", at))
    ctx.db.execute("UPDATE leads SET status = 'converted', converted_account_id = ?, converted_contact_id = ?, converted_deal_id = ?, updated_at = ? "
                   "WHERE lead_id = ?", (acc["account_id"], contact_id, deal_id, at, lead_id))
    return {"lead_id": lead_id, "status": "converted", "account_id": acc["account_id"], "contact_id": contact_id, "deal_id": deal_id,
            "stage": "prospecting", "amount": round(deal_amount, 2), "expected_close": close}


@crm.write(returns=("deal",))
def update_deal_stage(ctx: Ctx, deal_id: DealId, stage: Stage,
                      lost_reason: Literal["price", "competitor", "no_budget", "no_decision", "timing", "lost_contact"] | None = None) -> dict[str, Any]:
    """Move a deal to another pipeline stage, e.g. update_deal_stage('DEAL-0042', 'proposal') or
    update_deal_stage('DEAL-0042', 'closed_lost', lost_reason='competitor'). Deals move one stage forward or back at a time,
    can be lost from any open stage, are won only from negotiation, and closed deals cannot be reopened."""
    deal = _deal(ctx, deal_id)
    current = deal["stage"]
    if current in ("closed_won", "closed_lost"):
        raise ToolError(f"Deal {deal_id} is {current} (closed {deal['closed_at']}); closed deals cannot be reopened. "
                        "Convert a new lead to start a new deal.")
    if stage == current:
        raise ToolError(f"Deal {deal_id} is already in {stage}.")
    if stage not in ALLOWED[current]:
        raise ToolError(f"Deal {deal_id} is in {current}; it can move to {', '.join(ALLOWED[current])}, not {stage}. "
                        "Move one stage at a time.")
    if stage == "closed_lost" and lost_reason is None:
        raise ToolError("Closing a deal as lost needs lost_reason (price, competitor, no_budget, no_decision, timing or lost_contact).")
    if stage != "closed_lost" and lost_reason is not None:
        raise ToolError("lost_reason only applies when the stage is closed_lost; drop it.")
    at = _iso(ctx.now)
    closed = at if stage.startswith("closed") else None
    ctx.db.execute("UPDATE deals SET stage = ?, probability = ?, lost_reason = ?, updated_at = ?, closed_at = ?, "
                   "expected_close = CASE WHEN ? IS NULL THEN expected_close ELSE ? END WHERE deal_id = ?",
                   (stage, PROBABILITY[stage], lost_reason, at, closed, closed, ctx.now.strftime("%Y-%m-%d"), deal_id))
    ctx.db.execute("INSERT INTO stage_history VALUES (?,?,?,?,?)", (next_id(ctx.db, "stage_history", "history_id", "STH", 5), deal_id, current, stage, at))
    return {"deal_id": deal_id, "previous_stage": current, "stage": stage, "probability": PROBABILITY[stage],
            "allowed_next_stages": list(ALLOWED[stage])}


@crm.write(returns=("activity",))
def log_activity(ctx: Ctx, kind: Literal["call", "email", "meeting", "note", "task"],
                 subject: Annotated[str, Field(min_length=1, max_length=150, description="Short summary, e.g. 'Discovery call'")],
                 body: Annotated[str, Field(max_length=2000, description="Details")] = "",
                 deal_id: Annotated[str | None, Field(description="Deal it concerns, e.g. 'DEAL-0042'"), Entity("deal")] = None,
                 contact_id: Annotated[str | None, Field(description="Contact it concerns, e.g. 'CON-0042'"), Entity("contact")] = None,
                 lead_id: Annotated[str | None, Field(description="Lead it concerns, e.g. 'LEAD-0042'"), Entity("lead")] = None,
                 due_date: Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="For an open task or meeting: when it is due, YYYY-MM-DD")] = None) -> dict[str, Any]:
    """Log a call, email, meeting, note or task against a deal, contact and/or lead, e.g.
    log_activity('call', 'Discovery call', deal_id='DEAL-0042'). With due_date the task or meeting is left open; the activity's
    owner is the deal's (else the contact's or lead's) owner."""
    if deal_id is None and contact_id is None and lead_id is None:
        raise ToolError("An activity must concern something: pass deal_id, contact_id or lead_id.")
    if not subject.strip():
        raise ToolError("subject is blank; summarise the activity, e.g. 'Discovery call'.")
    owner = None
    if lead_id is not None:
        lead = _lead(ctx, lead_id)
        owner = lead["owner_id"]
    if contact_id is not None:
        owner = _contact(ctx, contact_id)["owner_id"]
    if deal_id is not None:
        deal = _deal(ctx, deal_id)
        owner = deal["owner_id"]
        if contact_id is not None and deal["contact_id"] and _contact(ctx, contact_id)["account_id"] != deal["account_id"]:
            raise ToolError(f"Contact {contact_id} does not work at the deal's account {deal['account_id']}; pick one of its contacts (get_account).")
    due = None
    if due_date is not None:
        if kind not in ("task", "meeting"):
            raise ToolError("Only tasks and meetings take a due_date; drop it or use kind='task'.")
        try:
            parsed = datetime.strptime(due_date, "%Y-%m-%d")
        except ValueError:
            raise ToolError(f"due_date {due_date!r} is not a valid date; use YYYY-MM-DD.") from None
        if parsed.date() < ctx.now.date():
            raise ToolError(f"due_date {due_date} is in the past; log a completed activity without due_date instead.")
        due = _iso(parsed.replace(hour=17))
    activity_id = next_id(ctx.db, "activities", "activity_id", "ACV", 5)
    ctx.db.execute("INSERT INTO activities VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                   (activity_id, kind, subject.strip(), body, owner, deal_id, contact_id, lead_id, due, 0 if due else 1, _iso(ctx.now)))
    return {"activity_id": activity_id, "kind": kind, "subject": subject.strip(), "owner_id": owner, "deal_id": deal_id,
            "contact_id": contact_id, "lead_id": lead_id, "due_at": due, "completed": due is None}


@crm.write(returns=("deal", "owner"))
def reassign_deal(ctx: Ctx, deal_id: DealId, owner_id: OwnerId) -> dict[str, Any]:
    """Hand an open deal to another active sales owner, e.g. reassign_deal('DEAL-0042', 'USR-03'). Closed deals keep their owner."""
    deal = _deal(ctx, deal_id)
    owner = _owner(ctx, owner_id)
    if deal["stage"] in ("closed_won", "closed_lost"):
        raise ToolError(f"Deal {deal_id} is {deal['stage']}; closed deals keep their owner for commission and cannot be reassigned.")
    if deal["owner_id"] == owner_id:
        raise ToolError(f"Deal {deal_id} is already owned by {owner['name']} ({owner_id}).")
    ctx.db.execute("UPDATE deals SET owner_id = ?, updated_at = ? WHERE deal_id = ?", (owner_id, _iso(ctx.now), deal_id))
    return {"deal_id": deal_id, "previous_owner_id": deal["owner_id"], "owner_id": owner_id, "owner_name": owner["name"]}


server = crm
