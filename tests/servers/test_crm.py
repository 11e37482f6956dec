"""CRM: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

C = "crm"


def active_owner(world: World, other_than: str = "") -> str:
    return next(o["owner_id"] for o in world.ok(C, "list_owners", active=True)["owners"] if o["owner_id"] != other_than)


def qualified_lead(world: World) -> dict:
    active = {o["owner_id"] for o in world.ok(C, "list_owners", active=True)["owners"]}
    return next(
        lead
        for lead in world.ok(C, "search_leads", status="qualified", limit=100)["leads"]
        if lead["owner_id"] in active
    )


def test_leads_read(world: World) -> None:
    found = world.ok(C, "search_leads", status="working", limit=5)["leads"]
    assert found and all(lead["status"] == "working" for lead in found)
    lead = world.ok(C, "get_lead", lead_id=found[0]["lead_id"])
    assert lead["allowed_statuses"] == ["qualified", "disqualified"] and not lead["can_convert"]
    assert "No lead" in world.err(C, "get_lead", lead_id="LEAD-9999")
    assert "invalid arguments" in world.err(C, "search_leads", status="hot")


def test_contacts_accounts_read(world: World) -> None:
    acc = world.ok(C, "search_accounts", industry="Software", limit=1)["accounts"][0]
    full = world.ok(C, "get_account", account_id=acc["account_id"])
    assert full["contacts"] and full["industry"] == "Software"
    contacts = world.ok(C, "search_contacts", account_id=acc["account_id"])["contacts"]
    assert {c["contact_id"] for c in contacts} == {c["contact_id"] for c in full["contacts"]}
    contact = world.ok(C, "get_contact", contact_id=contacts[0]["contact_id"])
    assert contact["account_name"] == acc["name"]
    assert "No account" in world.err(C, "get_account", account_id="ACT-9999")
    assert "No contact" in world.err(C, "get_contact", contact_id="")
    assert "invalid arguments" in world.err(C, "search_contacts", limit=-1)
    assert "invalid arguments" in world.err(C, "search_accounts", offset=-3)


def test_deals_owners_distinct(world: World) -> None:
    deals = world.ok(C, "list_deals", stage="negotiation", limit=5)["deals"]
    assert deals and all(d["stage"] == "negotiation" and d["probability"] == 75 for d in deals)
    deal = world.ok(C, "get_deal", deal_id=deals[0]["deal_id"])
    assert deal["allowed_next_stages"] == ["closed_won", "proposal", "closed_lost"]
    assert [h["to_stage"] for h in deal["stage_history"]][-1] == "negotiation"
    assert world.ok(C, "list_deals", open_only=True, min_amount=50_000, limit=100)["count"] > 0
    assert "invalid arguments" in world.err(C, "list_deals", stage="won")
    assert "No deal" in world.err(C, "get_deal", deal_id="DEAL-0000")
    owners = world.ok(C, "list_owners")["owners"]
    assert len(owners) == 12 and any(not o["active"] for o in owners)
    assert "invalid arguments" in world.err(C, "list_owners", team="Galaxy")
    assert "Software" in world.ok(C, "get_distinct_values", field="industry")["values"]
    assert "invalid arguments" in world.err(C, "get_distinct_values", field="salary")


def test_lead_lifecycle_and_conversion(world: World) -> None:
    owner = active_owner(world)
    lead = world.ok(
        C,
        "create_lead",
        name="Dana Whitfield",
        company="Brand New Robotics",
        email="dana@bnr.example.com",
        source="referral",
        title="CTO",
        owner_id=owner,
    )
    assert lead["status"] == "new" and lead["owner_id"] == owner
    assert "already has the email" in world.err(
        C, "create_lead", name="Dana W", company="BNR", email="DANA@bnr.example.com"
    )
    assert "only qualified leads" in world.err(C, "convert_lead", lead_id=lead["lead_id"], deal_amount=40_000.0)
    world.ok(C, "update_lead_status", lead_id=lead["lead_id"], status="working")
    world.ok(C, "update_lead_status", lead_id=lead["lead_id"], status="qualified")
    assert world.ok(C, "get_lead", lead_id=lead["lead_id"])["can_convert"]
    out = world.ok(C, "convert_lead", lead_id=lead["lead_id"], deal_amount=40_000.0)
    acc = world.ok(C, "get_account", account_id=out["account_id"])
    assert acc["name"] == "Brand New Robotics" and acc["contacts"][0]["contact_id"] == out["contact_id"]
    deal = world.ok(C, "get_deal", deal_id=out["deal_id"])
    assert deal["stage"] == "prospecting" and deal["contact_id"] == out["contact_id"] and deal["owner_id"] == owner
    assert world.ok(C, "get_lead", lead_id=lead["lead_id"])["status"] == "converted"
    assert "already converted" in world.err(C, "convert_lead", lead_id=lead["lead_id"], deal_amount=1.0)
    assert "already converted" in world.err(C, "update_lead_status", lead_id=lead["lead_id"], status="working")


def test_convert_into_existing_account(world: World) -> None:
    lead = qualified_lead(world)
    acc = world.ok(C, "search_accounts", limit=1)["accounts"][0]
    world.ok(C, "create_lead", name="Sam Ortiz", company=acc["name"], email="sam.ortiz@dup.example.com")
    dup = world.ok(C, "search_leads", query="sam.ortiz@dup")["leads"][0]
    world.ok(C, "update_lead_status", lead_id=dup["lead_id"], status="qualified")
    assert "already exists" in world.err(C, "convert_lead", lead_id=dup["lead_id"], deal_amount=5_000.0)
    out = world.ok(
        C,
        "convert_lead",
        lead_id=dup["lead_id"],
        deal_amount=5_000.0,
        account_id=acc["account_id"],
        deal_name="Expansion",
    )
    assert out["deal_id"] in [d["deal_id"] for d in world.ok(C, "get_account", account_id=acc["account_id"])["deals"]]
    assert "not a valid date" in world.err(
        C, "convert_lead", lead_id=lead["lead_id"], deal_amount=5.0, expected_close="2026-02-30"
    )
    assert "not in the future" in world.err(
        C, "convert_lead", lead_id=lead["lead_id"], deal_amount=5.0, expected_close="2026-01-01"
    )
    assert "No account" in world.err(C, "convert_lead", lead_id=lead["lead_id"], deal_amount=5.0, account_id="ACT-0000")


def test_lead_status_rules(world: World) -> None:
    new = world.ok(C, "search_leads", status="new", limit=1)["leads"][0]["lead_id"]
    assert "needs a reason" in world.err(C, "update_lead_status", lead_id=new, status="disqualified")
    world.ok(C, "update_lead_status", lead_id=new, status="disqualified", reason="no budget")
    got = world.ok(C, "get_lead", lead_id=new)
    assert got["status"] == "disqualified" and got["disqualify_reason"] == "no budget"
    assert "not qualified" in world.err(C, "update_lead_status", lead_id=new, status="qualified")
    assert "already disqualified" in world.err(C, "update_lead_status", lead_id=new, status="disqualified", reason="x")
    assert "invalid arguments" in world.err(C, "update_lead_status", lead_id=new, status="converted")


def test_pipeline_transitions(world: World) -> None:
    deal = world.ok(C, "list_deals", stage="prospecting", limit=1)["deals"][0]["deal_id"]
    assert "one stage at a time" in world.err(C, "update_deal_stage", deal_id=deal, stage="negotiation")
    assert "only applies" in world.err(C, "update_deal_stage", deal_id=deal, stage="qualification", lost_reason="price")
    for stage in ("qualification", "proposal", "negotiation", "closed_won"):
        world.ok(C, "update_deal_stage", deal_id=deal, stage=stage)
    got = world.ok(C, "get_deal", deal_id=deal)
    assert got["stage"] == "closed_won" and got["probability"] == 100 and got["closed_at"] == "2026-06-01T09:00:00"
    assert [h["to_stage"] for h in got["stage_history"]][-4:] == [
        "qualification",
        "proposal",
        "negotiation",
        "closed_won",
    ]
    assert "cannot be reopened" in world.err(C, "update_deal_stage", deal_id=deal, stage="negotiation")
    other = world.ok(C, "list_deals", stage="proposal", limit=1)["deals"][0]["deal_id"]
    assert "needs lost_reason" in world.err(C, "update_deal_stage", deal_id=other, stage="closed_lost")
    world.ok(C, "update_deal_stage", deal_id=other, stage="closed_lost", lost_reason="competitor")
    assert world.ok(C, "get_deal", deal_id=other)["lost_reason"] == "competitor"
    assert "No deal" in world.err(C, "update_deal_stage", deal_id="DEAL-9999", stage="proposal")


def test_log_activity(world: World) -> None:
    deal = world.ok(C, "get_deal", deal_id=world.ok(C, "list_deals", open_only=True, limit=1)["deals"][0]["deal_id"])
    act = world.ok(
        C, "log_activity", kind="call", subject="Discovery call", deal_id=deal["deal_id"], contact_id=deal["contact_id"]
    )
    assert world.ok(C, "get_deal", deal_id=deal["deal_id"])["activities"][0]["activity_id"] == act["activity_id"]
    task = world.ok(
        C, "log_activity", kind="task", subject="Send revised quote", deal_id=deal["deal_id"], due_date="2026-06-05"
    )
    assert not task["completed"] and task["due_at"] == "2026-06-05T17:00:00"
    assert "must concern" in world.err(C, "log_activity", kind="note", subject="Orphan")
    assert "Only tasks and meetings" in world.err(
        C, "log_activity", kind="call", subject="x", deal_id=deal["deal_id"], due_date="2026-06-05"
    )
    assert "in the past" in world.err(
        C, "log_activity", kind="task", subject="x", deal_id=deal["deal_id"], due_date="2026-05-05"
    )
    assert "No lead" in world.err(C, "log_activity", kind="email", subject="x", lead_id="LEAD-0000")
    lead = world.ok(C, "search_leads", status="working", limit=1)["leads"][0]["lead_id"]
    world.ok(C, "log_activity", kind="email", subject="Intro email", lead_id=lead)
    assert world.ok(C, "get_lead", lead_id=lead)["activities"][0]["subject"] == "Intro email"


def test_reassign_deal(world: World) -> None:
    deal = world.ok(C, "list_deals", open_only=True, limit=1)["deals"][0]
    new_owner = active_owner(world, other_than=deal["owner_id"])
    world.ok(C, "reassign_deal", deal_id=deal["deal_id"], owner_id=new_owner)
    assert world.ok(C, "get_deal", deal_id=deal["deal_id"])["owner_id"] == new_owner
    assert "already owned" in world.err(C, "reassign_deal", deal_id=deal["deal_id"], owner_id=new_owner)
    inactive = next(o["owner_id"] for o in world.ok(C, "list_owners", active=False)["owners"])
    assert "no longer an active" in world.err(C, "reassign_deal", deal_id=deal["deal_id"], owner_id=inactive)
    won = world.ok(C, "list_deals", stage="closed_won", limit=1)["deals"][0]["deal_id"]
    assert "cannot be reassigned" in world.err(C, "reassign_deal", deal_id=won, owner_id=new_owner)
    assert "No owner" in world.err(C, "reassign_deal", deal_id=deal["deal_id"], owner_id="USR-99")
