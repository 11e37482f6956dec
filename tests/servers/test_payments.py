"""Payments: every tool succeeds on seeded state and fails cleanly; writes checked through read tools."""

from __future__ import annotations

from tests.conftest import World

P = "payments"


def customer_of(world: World, merchant_id: str) -> dict:
    return world.ok(P, "search_customers", merchant_id=merchant_id, limit=1)["customers"][0]


def merchant_with_endpoint(world: World) -> str:
    for n in range(1, 25):
        mid = f"MER-{n:03d}"
        eps = world.ok(P, "list_webhook_deliveries", merchant_id=mid)["endpoints"]
        if any(e["status"] == "active" and "payment.succeeded" in e["events"] for e in eps):
            return mid
    raise AssertionError("no merchant with an active payment.succeeded endpoint")


def test_search_customers(world: World) -> None:
    found = world.ok(P, "search_customers", query="Lopez", limit=5)["customers"]
    assert found and all("Lopez" in c["name"] or "lopez" in c["email"] or "Lopez" in c["merchant_name"] for c in found)
    assert all(
        c["merchant_id"] == "MER-004" for c in world.ok(P, "search_customers", merchant_id="MER-004")["customers"]
    )
    assert "invalid arguments" in world.err(P, "search_customers", limit=500)


def test_list_and_get_invoice(world: World) -> None:
    open_ = world.ok(P, "list_invoices", status="open", limit=5)["invoices"]
    assert open_ and all(i["status"] == "open" for i in open_)
    overdue = world.ok(P, "list_invoices", overdue=True, limit=5)["invoices"]
    assert overdue and all(i["due_date"] < "2026-06-01" for i in overdue)
    inv = world.ok(P, "get_invoice", invoice_id=open_[0]["invoice_id"])
    assert inv["amount_due"] == round(inv["amount"] - inv["amount_paid"], 2) and "payments" in inv
    assert "No invoice" in world.err(P, "get_invoice", invoice_id="INV-99999")
    assert "invalid arguments" in world.err(P, "list_invoices", status="late")


def test_webhook_deliveries_and_distinct(world: World) -> None:
    mid = merchant_with_endpoint(world)
    out = world.ok(P, "list_webhook_deliveries", merchant_id=mid, limit=5)
    assert out["endpoints"] and out["count"] > 0
    assert "No merchant" in world.err(P, "list_webhook_deliveries", merchant_id="MER-999")
    assert "paid" in world.ok(P, "get_distinct_values", field="invoice_status")["values"]
    assert "MER-001" in world.ok(P, "get_distinct_values", field="merchant_id")["values"]
    assert "invalid arguments" in world.err(P, "get_distinct_values", field="card_number")


def test_invoice_lifecycle_with_webhooks(world: World) -> None:
    mid = merchant_with_endpoint(world)
    cus = customer_of(world, mid)
    inv = world.ok(
        P, "create_invoice", merchant_id=mid, customer_id=cus["customer_id"], amount=200.0, description="Consultation"
    )
    assert inv["status"] == "draft"
    assert (
        world.ok(P, "list_invoices", customer_id=cus["customer_id"], status="draft", limit=100)["invoices"][0][
            "invoice_id"
        ]
        == inv["invoice_id"]
    )
    assert "still a draft" in world.err(P, "pay_invoice", invoice_id=inv["invoice_id"])
    world.ok(P, "update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    assert world.ok(P, "get_invoice", invoice_id=inv["invoice_id"])["status"] == "open"
    assert "more than" in world.err(P, "pay_invoice", invoice_id=inv["invoice_id"], amount=250.0)
    part = world.ok(P, "pay_invoice", invoice_id=inv["invoice_id"], amount=50.0, method="wallet")
    assert part["invoice_status"] == "open" and part["webhook_deliveries"]
    assert "refund its payments" in world.err(P, "update_invoice_status", invoice_id=inv["invoice_id"], status="void")
    rest = world.ok(P, "pay_invoice", invoice_id=inv["invoice_id"])
    assert rest["amount"] == 150.0 and rest["invoice_status"] == "paid"
    got = world.ok(P, "get_invoice", invoice_id=inv["invoice_id"])
    assert got["status"] == "paid" and [p["amount"] for p in got["payments"]] == [50.0, 150.0]
    events = [
        d["event_type"]
        for d in world.ok(P, "list_webhook_deliveries", merchant_id=mid, limit=100)["deliveries"]
        if d["object_id"] in (rest["payment_id"], inv["invoice_id"])
    ]
    assert "payment.succeeded" in events
    assert "final" in world.err(P, "update_invoice_status", invoice_id=inv["invoice_id"], status="void")
    assert "takes no payments" in world.err(P, "pay_invoice", invoice_id=inv["invoice_id"])


def test_create_invoice_rules(world: World) -> None:
    cus = customer_of(world, "MER-004")
    other = "MER-005" if cus["merchant_id"] != "MER-005" else "MER-006"
    assert "belongs to merchant" in world.err(
        P, "create_invoice", merchant_id=other, customer_id=cus["customer_id"], amount=10.0, description="x"
    )
    assert "No customer" in world.err(
        P, "create_invoice", merchant_id="MER-004", customer_id="CST-9999", amount=10.0, description="x"
    )
    assert "invalid arguments" in world.err(
        P, "create_invoice", merchant_id="MER-004", customer_id=cus["customer_id"], amount=0, description="x"
    )


def test_void_draft(world: World) -> None:
    draft = world.ok(P, "list_invoices", status="draft", limit=1)["invoices"][0]
    world.ok(P, "update_invoice_status", invoice_id=draft["invoice_id"], status="void", reason="issued in error")
    got = world.ok(P, "get_invoice", invoice_id=draft["invoice_id"])
    assert got["status"] == "void" and got["void_reason"] == "issued in error"
    assert "already" in world.err(
        P,
        "update_invoice_status",
        invoice_id=world.ok(P, "list_invoices", status="open", limit=1)["invoices"][0]["invoice_id"],
        status="open",
    )


def test_refunds(world: World) -> None:
    paid = world.ok(P, "list_invoices", status="paid", limit=20)["invoices"]
    payment = next(
        p
        for i in paid
        for p in world.ok(P, "get_invoice", invoice_id=i["invoice_id"])["payments"]
        if p["status"] == "settled" and p["refunded_amount"] == 0
    )
    world.ok(P, "refund_payment", payment_id=payment["payment_id"], amount=10.0, reason="damaged_goods")
    assert "at most" in world.err(P, "refund_payment", payment_id=payment["payment_id"], amount=payment["amount"])
    rest = world.ok(P, "refund_payment", payment_id=payment["payment_id"])
    assert rest["amount"] == round(payment["amount"] - 10.0, 2) and rest["payment_status"] == "refunded"
    inv = next(
        i
        for i in paid
        if any(
            p["payment_id"] == payment["payment_id"]
            for p in world.ok(P, "get_invoice", invoice_id=i["invoice_id"])["payments"]
        )
    )
    refunded = next(
        p
        for p in world.ok(P, "get_invoice", invoice_id=inv["invoice_id"])["payments"]
        if p["payment_id"] == payment["payment_id"]
    )
    assert refunded["status"] == "refunded" and len(refunded["refunds"]) == 2
    assert "already fully refunded" in world.err(P, "refund_payment", payment_id=payment["payment_id"])
    assert "No payment" in world.err(P, "refund_payment", payment_id="PMT-99999")


def test_refund_needs_settled_payment(world: World) -> None:
    seen = {}
    for inv in (
        world.ok(P, "list_invoices", limit=100)["invoices"]
        + world.ok(P, "list_invoices", status="open", limit=100)["invoices"]
    ):
        for p in world.ok(P, "get_invoice", invoice_id=inv["invoice_id"])["payments"]:
            seen.setdefault(p["status"], p["payment_id"])
    assert "pending" in world.err(P, "refund_payment", payment_id=seen["pending"])
    assert "nothing to refund" in world.err(P, "refund_payment", payment_id=seen["failed"])


def test_register_webhook(world: World) -> None:
    ep = world.ok(
        P,
        "register_webhook",
        merchant_id="MER-004",
        url="https://hooks.fernhill.example.com/pay",
        events=["payment.succeeded", "invoice.paid"],
    )
    assert ep["endpoint_id"] in [
        e["endpoint_id"] for e in world.ok(P, "list_webhook_deliveries", merchant_id="MER-004")["endpoints"]
    ]
    assert "already has endpoint" in world.err(
        P,
        "register_webhook",
        merchant_id="MER-004",
        url="https://hooks.fernhill.example.com/pay",
        events=["invoice.paid"],
    )
    assert "https" in world.err(
        P, "register_webhook", merchant_id="MER-004", url="http://insecure.example.com", events=["invoice.paid"]
    )
    assert "invalid arguments" in world.err(
        P, "register_webhook", merchant_id="MER-004", url="https://x.example.com", events=["order.shipped"]
    )
    for n in range(5):
        world.call(
            P, "register_webhook", merchant_id="MER-004", url=f"https://h{n}.example.com/x", events=["invoice.paid"]
        )
    assert "maximum" in world.err(
        P, "register_webhook", merchant_id="MER-004", url="https://late.example.com/x", events=["invoice.paid"]
    )
    cus = customer_of(world, "MER-004")
    inv = world.ok(
        P,
        "create_invoice",
        merchant_id="MER-004",
        customer_id=cus["customer_id"],
        amount=30.0,
        description="Follow-up visit",
    )
    world.ok(P, "update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    pay = world.ok(P, "pay_invoice", invoice_id=inv["invoice_id"])
    delivered = world.ok(P, "list_webhook_deliveries", merchant_id="MER-004", endpoint_id=ep["endpoint_id"])[
        "deliveries"
    ]
    assert {(d["event_type"], d["object_id"]) for d in delivered} == {
        ("payment.succeeded", pay["payment_id"]),
        ("invoice.paid", inv["invoice_id"]),
    }
