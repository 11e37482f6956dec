"""Banking: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

B = "banking"


def active_account(world: World, min_balance: float = 100.0) -> dict:
    return world.ok(B, "list_accounts", status="active", min_balance=min_balance, limit=5)["accounts"][0]


def test_search_and_get_customer(world: World) -> None:
    found = world.ok(B, "search_customers", query="", limit=3)["customers"]
    assert len(found) == 3
    customer = world.ok(B, "get_customer", customer_id=found[0]["customer_id"])
    assert customer["account_ids"]
    assert "No customer" in world.err(B, "get_customer", customer_id="CUS-9999")


def test_list_and_get_account(world: World) -> None:
    acc = active_account(world)
    assert world.ok(B, "get_account", account_id=acc["account_id"])["balance"] == acc["balance"]
    assert "No account" in world.err(B, "get_account", account_id="ACC-0000")
    assert "invalid arguments" in world.err(B, "list_accounts", status="sleeping")


def test_transactions_payees_cards_distinct(world: World) -> None:
    acc = active_account(world)
    assert world.ok(B, "list_transactions", account_id=acc["account_id"])["count"] > 0
    assert "No account" in world.err(B, "list_transactions", account_id="ACC-0000")
    assert "count" in world.ok(B, "list_payees", customer_id=acc["customer_id"])
    assert "No customer" in world.err(B, "list_payees", customer_id="nobody")
    assert "cards" in world.ok(B, "list_cards", account_id=acc["account_id"])
    assert "missing required argument 'account_id'" in world.err(B, "list_cards")
    assert "Seattle" in world.ok(B, "get_distinct_values", field="city")["values"]
    assert "invalid arguments" in world.err(B, "get_distinct_values", field="password")


def test_transfer_moves_money_and_rejects_overdraft(world: World) -> None:
    src = active_account(world, 1000)
    dst = world.ok(B, "list_accounts", status="active", limit=50)["accounts"][-1]
    world.ok(B, "transfer_funds", from_account_id=src["account_id"], to_account_id=dst["account_id"], amount=100.0)
    assert world.ok(B, "get_account", account_id=src["account_id"])["balance"] == round(src["balance"] - 100, 2)
    assert world.ok(B, "get_account", account_id=dst["account_id"])["balance"] == round(dst["balance"] + 100, 2)
    empty = world.ok(B, "open_account", customer_id=src["customer_id"], type="savings")
    assert "Insufficient funds" in world.err(
        B, "transfer_funds", from_account_id=empty["account_id"], to_account_id=dst["account_id"], amount=10.0
    )
    assert "same account" in world.err(
        B, "transfer_funds", from_account_id=src["account_id"], to_account_id=src["account_id"], amount=1.0
    )


def test_deposit_withdraw(world: World) -> None:
    acc = active_account(world)
    world.ok(B, "deposit_funds", account_id=acc["account_id"], amount=50.0)
    world.ok(B, "withdraw_funds", account_id=acc["account_id"], amount=20.0)
    assert world.ok(B, "get_account", account_id=acc["account_id"])["balance"] == round(acc["balance"] + 30, 2)
    assert "Insufficient funds" in world.err(B, "withdraw_funds", account_id=acc["account_id"], amount=999_999.0)
    assert "invalid arguments" in world.err(B, "deposit_funds", account_id=acc["account_id"], amount=-5)


def test_frozen_account_rules(world: World) -> None:
    acc = active_account(world)
    world.ok(B, "freeze_account", account_id=acc["account_id"], frozen=True, reason="lost wallet")
    assert world.ok(B, "get_account", account_id=acc["account_id"])["status"] == "frozen"
    assert "frozen" in world.err(B, "deposit_funds", account_id=acc["account_id"], amount=5.0)
    assert "already frozen" in world.err(B, "freeze_account", account_id=acc["account_id"])


def test_open_and_close_account(world: World) -> None:
    cus = world.ok(B, "search_customers", limit=1)["customers"][0]["customer_id"]
    acc = world.ok(B, "open_account", customer_id=cus, type="savings", initial_deposit=40.0)
    assert acc["balance"] == 40.0
    assert "still holds" in world.err(B, "close_account", account_id=acc["account_id"])
    world.ok(B, "withdraw_funds", account_id=acc["account_id"], amount=40.0)
    world.ok(B, "close_account", account_id=acc["account_id"])
    assert world.ok(B, "get_account", account_id=acc["account_id"])["status"] == "closed"
    assert "No customer" in world.err(B, "open_account", customer_id="CUS-0000", type="savings")


def test_payees(world: World) -> None:
    acc = active_account(world, 500)
    payee = world.ok(
        B,
        "add_payee",
        customer_id=acc["customer_id"],
        name="Redwood Partners",
        bank_name="Pacific Trust",
        account_number="4402918831",
    )
    assert payee["payee_id"] in [
        p["payee_id"] for p in world.ok(B, "list_payees", customer_id=acc["customer_id"])["payees"]
    ]
    assert "already has a payee" in world.err(
        B, "add_payee", customer_id=acc["customer_id"], name="X", bank_name="Y", account_number="4402918831"
    )
    world.ok(B, "pay_payee", account_id=acc["account_id"], payee_id=payee["payee_id"], amount=25.0)
    kinds = [
        t["kind"]
        for t in world.ok(B, "list_transactions", account_id=acc["account_id"], kind="payment")["transactions"]
    ]
    assert kinds == ["payment"]
    assert "No payee" in world.err(B, "pay_payee", account_id=acc["account_id"], payee_id="PAY-9999", amount=1.0)


def test_card_status(world: World) -> None:
    card = None
    for acc in world.ok(B, "list_accounts", status="active", type="checking", limit=20)["accounts"]:
        cards = [c for c in world.ok(B, "list_cards", account_id=acc["account_id"])["cards"] if c["status"] == "active"]
        if cards:
            card = cards[0]
            break
    assert card
    world.ok(B, "set_card_status", card_id=card["card_id"], status="locked")
    assert world.ok(B, "list_cards", account_id=card["account_id"])["cards"][0]["status"] in {
        "locked",
        "active",
        "cancelled",
    }
    assert "already locked" in world.err(B, "set_card_status", card_id=card["card_id"], status="locked")
    world.ok(B, "set_card_status", card_id=card["card_id"], status="cancelled")
    assert "cancelled" in world.err(B, "set_card_status", card_id=card["card_id"], status="active")
