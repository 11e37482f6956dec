"""Budget: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

B = "budget"


def category(world: World, name: str) -> dict:
    return next(
        c for c in world.ok(B, "list_categories", query=name, month="2026-05")["categories"] if c["name"] == name
    )


def test_list_categories(world: World) -> None:
    food = world.ok(B, "list_categories", group="Food")["categories"]
    assert {c["name"] for c in food} == {"Groceries", "Dining Out", "Coffee"}
    assert world.ok(B, "list_categories")["month"] == "2026-06"
    assert "not a valid month" in world.err(B, "list_categories", month="2026-13")
    assert "invalid arguments" in world.err(B, "list_categories", month="May 2026")


def test_list_and_get_expense(world: World) -> None:
    groceries = category(world, "Groceries")
    found = world.ok(B, "list_expenses", category_id=groceries["category_id"], month="2026-05", limit=100)["expenses"]
    assert len(found) == groceries["expense_count"] and all(e["date"].startswith("2026-05") for e in found)
    assert round(sum(e["amount"] for e in found), 2) == groceries["spent"]
    exp = world.ok(B, "get_expense", expense_id=found[0]["expense_id"])
    assert exp["category_name"] == "Groceries"
    assert "No expense" in world.err(B, "get_expense", expense_id="EXP-99999")
    assert world.ok(B, "list_expenses", merchant="Costco", min_amount=20, max_amount=100)["count"] > 0
    assert "not a valid month" in world.err(B, "list_expenses", month="2026-00")


def test_summary_recurring_distinct(world: World) -> None:
    summary = world.ok(B, "get_monthly_summary", month="2026-05")
    assert summary["alerts"] and summary["total_spent"] > 0
    assert all(c["status"] == "over" for c in summary["categories"] if c["category_id"] in summary["over_limit"])
    assert world.ok(B, "get_monthly_summary", month="2026-05", group="Food")["categories"][0]["name"] == "Groceries"
    assert "not a valid month" in world.err(B, "get_monthly_summary", month="2026-99")
    rec = world.ok(B, "list_recurring_expenses", active=True)["recurring_expenses"]
    assert rec and all(r["active"] and r["next_date"] > "2026-06-01" for r in rec)
    assert world.ok(B, "list_expenses", recurring_id=rec[0]["recurring_id"])["count"] > 0
    assert "invalid arguments" in world.err(B, "list_recurring_expenses", active="yes")
    assert "Food" in world.ok(B, "get_distinct_values", field="group")["values"]
    assert "invalid arguments" in world.err(B, "get_distinct_values", field="password")


def test_add_expense_accumulates_and_alerts(world: World) -> None:
    cat = category(world, "Clothing")
    june = world.ok(B, "list_categories", query="Clothing")["categories"][0]
    first = world.ok(B, "add_expense", category_id=cat["category_id"], amount=100.0, merchant="Uniqlo")
    assert first["month"] == "2026-06" and first["month_spent"] == round(june["spent"] + 100, 2)
    second = world.ok(B, "add_expense", category_id=cat["category_id"], amount=80.0, merchant="REI", note="rain jacket")
    assert "over its 2026-06 limit" in second["warning"]
    assert {a["level"] for a in first["alerts"] + second["alerts"]} >= {"exceeded"}
    after = world.ok(B, "list_categories", query="Clothing")["categories"][0]
    assert after["spent"] == round(june["spent"] + 180, 2) and after["status"] == "over"
    alerts = world.ok(B, "get_monthly_summary")["alerts"]
    assert {a["level"] for a in alerts if a["category_id"] == cat["category_id"]} == {"warning", "exceeded"}


def test_add_expense_rules(world: World) -> None:
    cat = category(world, "Groceries")["category_id"]
    assert "not positive" in world.err(B, "add_expense", category_id=cat, amount=-20.0, merchant="Safeway")
    assert "Unknown category" in world.err(B, "add_expense", category_id="CAT-999", amount=5.0, merchant="Safeway")
    assert "future" in world.err(B, "add_expense", category_id=cat, amount=5.0, merchant="Safeway", date="2026-06-02")
    assert "not a valid calendar date" in world.err(
        B, "add_expense", category_id=cat, amount=5.0, merchant="Safeway", date="2026-02-31"
    )
    assert "more than a year" in world.err(
        B, "add_expense", category_id=cat, amount=5.0, merchant="Safeway", date="2024-01-01"
    )
    assert "invalid arguments" in world.err(B, "add_expense", category_id=cat, amount=5.0, merchant="")
    coffee = category(world, "Coffee")
    assert coffee["hard_limit"]
    assert "hard limit" in world.err(
        B,
        "add_expense",
        category_id=coffee["category_id"],
        amount=coffee["monthly_limit"] + 1,
        merchant="Starbucks",
        date="2026-05-31",
    )


def test_delete_expense(world: World) -> None:
    cat = category(world, "Groceries")
    exp = world.ok(B, "list_expenses", category_id=cat["category_id"], month="2026-05", limit=1)["expenses"][0]
    world.ok(B, "delete_expense", expense_id=exp["expense_id"])
    assert category(world, "Groceries")["spent"] == round(cat["spent"] - exp["amount"], 2)
    assert "No expense" in world.err(B, "delete_expense", expense_id=exp["expense_id"])


def test_create_and_limit_category(world: World) -> None:
    cat = world.ok(B, "create_category", name="Childcare", group="Family", monthly_limit=800.0)
    assert cat["category_id"] in [
        c["category_id"] for c in world.ok(B, "list_categories", group="Family")["categories"]
    ]
    assert "already exists" in world.err(B, "create_category", name="childcare")
    assert "needs a monthly_limit" in world.err(B, "create_category", name="Kids", hard_limit=True)
    world.ok(B, "add_expense", category_id=cat["category_id"], amount=300.0, merchant="Bright Horizons")
    out = world.ok(B, "set_monthly_limit", category_id=cat["category_id"], monthly_limit=350.0)
    assert out["status"] == "warning" and out["alerts"][0]["level"] == "warning"
    assert "hard limit of 200.00 would be broken" in world.err(
        B, "set_monthly_limit", category_id=cat["category_id"], monthly_limit=200.0, hard_limit=True
    )
    world.ok(B, "set_monthly_limit", category_id=cat["category_id"], monthly_limit=320.0, hard_limit=True)
    assert "hard limit" in world.err(
        B, "add_expense", category_id=cat["category_id"], amount=25.0, merchant="Bright Horizons"
    )
    world.ok(B, "set_monthly_limit", category_id=cat["category_id"], monthly_limit=None)
    assert world.ok(B, "list_categories", group="Family")["categories"][0]["status"] == "no_limit"
    assert "Unknown category" in world.err(B, "set_monthly_limit", category_id="CAT-000", monthly_limit=5.0)


def test_delete_category(world: World) -> None:
    empty = world.ok(B, "create_category", name="Hobbies", group="Personal")
    world.ok(B, "delete_category", category_id=empty["category_id"])
    assert world.ok(B, "list_categories", query="Hobbies")["count"] == 0
    courses, gifts = category(world, "Courses"), category(world, "Gifts")
    moved = world.ok(B, "list_expenses", category_id=courses["category_id"], limit=100)["expenses"]
    n = len(moved)
    assert "still has" in world.err(B, "delete_category", category_id=courses["category_id"])
    assert "different category" in world.err(
        B, "delete_category", category_id=courses["category_id"], move_to_category_id=courses["category_id"]
    )
    before = world.ok(B, "list_expenses", category_id=gifts["category_id"], limit=100)["count"]
    world.ok(B, "delete_category", category_id=courses["category_id"], move_to_category_id=gifts["category_id"])
    assert world.ok(B, "list_expenses", category_id=gifts["category_id"], limit=100)["count"] == before + n
    assert world.ok(B, "get_expense", expense_id=moved[0]["expense_id"])["category_name"] == "Gifts"
    assert "Unknown category" in world.err(B, "delete_category", category_id=courses["category_id"])


def test_add_recurring_expense(world: World) -> None:
    streaming = category(world, "Streaming")["category_id"]
    out = world.ok(
        B,
        "add_recurring_expense",
        category_id=streaming,
        amount=13.99,
        merchant="Disney+",
        frequency="monthly",
        start_date="2026-04-18",
    )
    assert out["next_date"] == "2026-06-18" and len(out["posted"]) == 2
    rec = world.ok(B, "list_recurring_expenses", category_id=streaming)["recurring_expenses"]
    assert out["recurring_id"] in [r["recurring_id"] for r in rec]
    posted = world.ok(B, "list_expenses", recurring_id=out["recurring_id"])["expenses"]
    assert [e["date"] for e in posted] == ["2026-05-18", "2026-04-18"]
    future = world.ok(
        B,
        "add_recurring_expense",
        category_id=streaming,
        amount=5.0,
        merchant="Paramount+",
        frequency="weekly",
        start_date="2026-06-10",
    )
    assert future["posted"] == [] and future["next_date"] == "2026-06-10"
    for why, amount, frequency, start_date in (
        ("day 1 to 28", 5.0, "monthly", "2026-05-30"),
        ("more than 90 days", 5.0, "weekly", "2025-01-01"),
        ("not positive", 0.0, "weekly", "2026-06-10"),
    ):
        refusal = world.err(
            B,
            "add_recurring_expense",
            category_id=streaming,
            amount=amount,
            merchant="X",
            frequency=frequency,
            start_date=start_date,
        )
        assert why in refusal, refusal
