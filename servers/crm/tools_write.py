"""CRM write tools: create, qualify and convert leads, move deals through the pipeline, log activities and
reassign deals."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any, Literal

from pydantic import Field

from hub.kit import Ctx, ToolError, fake, next_id
from servers.crm.schema import ALLOWED, LEAD_ALLOWED, PROBABILITY
from servers.crm.tools import (
    AccountId,
    ContactId,
    Day,
    DealId,
    LeadId,
    LeadSource,
    OwnerId,
    Stage,
    _owner,
    crm,
    get_lead,
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
        str | None, OwnerId.ref("Sales owner, e.g. 'USR-03'; default the active rep with the fewest open leads")
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
        owner_id = ctx.value(
            "SELECT o.owner_id FROM owners o LEFT JOIN leads l ON l.owner_id = o.owner_id "
            "AND l.status IN ('new', 'working', 'qualified') WHERE o.active = 1 GROUP BY o.owner_id "
            "ORDER BY COUNT(l.lead_id), o.owner_id LIMIT 1"
        )
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
    lead = LeadId.get(ctx, lead_id)
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
        str | None, AccountId.ref("Existing account to attach to, e.g. 'ACT-0042'; default a new account")
    ] = None,
    expected_close: Annotated[Day, Field(description="Expected close date, YYYY-MM-DD; default in 60 days")] = None,
) -> dict[str, Any]:
    """Convert a qualified lead into a contact and a prospecting deal, under an existing account or a new one named
    after the lead's company, e.g. convert_lead('LEAD-0050', 45000, account_id='ACT-0042')."""
    lead = LeadId.get(ctx, lead_id)
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
    acc = AccountId.get(ctx, account_id) if account_id is not None else _new_account(ctx, lead, at)
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
    return AccountId.get(ctx, new_id)


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
    deal = DealId.get(ctx, deal_id)
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
    deal_id: Annotated[str | None, DealId.ref("Deal it concerns, e.g. 'DEAL-0042'")] = None,
    contact_id: Annotated[str | None, ContactId.ref("Contact it concerns, e.g. 'CON-0042'")] = None,
    lead_id: Annotated[str | None, LeadId.ref("Lead it concerns, e.g. 'LEAD-0042'")] = None,
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
        owner = LeadId.get(ctx, lead_id)["owner_id"]
    if contact_id is not None:
        owner = ContactId.get(ctx, contact_id)["owner_id"]
    if deal_id is not None:
        deal = DealId.get(ctx, deal_id)
        owner = deal["owner_id"]
        works_elsewhere = (
            contact_id is not None
            and deal["contact_id"]
            and ContactId.get(ctx, contact_id)["account_id"] != deal["account_id"]
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
    deal = DealId.get(ctx, deal_id)
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
