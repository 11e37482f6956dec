"""The payments seed: 24 merchants, their customers, invoices in every status, payments, refunds, webhooks."""

from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta
from typing import Any

from hub import fake

MERCHANT_WORDS = (
    ("Bluebird", "Bakery", "food"),
    ("Copperleaf", "Studio", "design"),
    ("Lantern", "Software", "saas"),
    ("Fernhill", "Dental", "health"),
    ("Marigold", "Florist", "retail"),
    ("Ridgeway", "Plumbing", "services"),
    ("Oakhaven", "Yoga", "fitness"),
    ("Silverline", "Consulting", "services"),
    ("Tidepool", "Analytics", "saas"),
    ("Brightwater", "Catering", "food"),
    ("Hollow Pine", "Furniture", "retail"),
    ("Kestrel", "Legal", "services"),
    ("Northstar", "Tutoring", "education"),
    ("Pebble", "Pet Care", "services"),
    ("Quillon", "Print Shop", "retail"),
    ("Saffron", "Kitchen", "food"),
    ("Driftwood", "Surf School", "education"),
    ("Amberly", "Photography", "design"),
    ("Verdant", "Landscaping", "services"),
    ("Cobblestone", "Books", "retail"),
    ("Moonrise", "Cloud Hosting", "saas"),
    ("Harborlight", "Physio", "health"),
    ("Juniper", "Language Lab", "education"),
    ("Summit", "Bike Repair", "services"),
)
ITEMS = {
    "food": ("Catering order", "Weekly bread subscription", "Event platter", "Wedding cake deposit"),
    "design": ("Logo design", "Brand identity package", "Photo shoot", "Website mockups"),
    "saas": ("Pro plan - monthly", "Team plan - annual", "API overage", "Onboarding package"),
    "health": ("Consultation", "Treatment session", "Follow-up visit", "Annual check-up"),
    "retail": ("Order", "Custom arrangement", "Bulk purchase", "Gift card"),
    "services": ("Service call", "Monthly retainer", "Repair work", "Advisory hours"),
    "fitness": ("10-class pass", "Monthly membership", "Private session", "Workshop ticket"),
    "education": ("Course fee", "Tutoring block (5 h)", "Exam prep package", "Term tuition"),
}
EVENT_TYPES = (
    "invoice.created",
    "invoice.finalized",
    "invoice.paid",
    "invoice.voided",
    "payment.succeeded",
    "payment.refunded",
)


def _iso(t: datetime) -> str:
    """Like fake.iso for the whole-second times a seed makes, several times faster."""
    return t.isoformat(timespec="seconds")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """24 merchants, ~600 customers, ~1,500 invoices in every status with consistent payments and refunds,
    webhook endpoints and the deliveries of the last 45 days."""
    merchants = []
    for i, (a, b, category) in enumerate(MERCHANT_WORDS, 1):
        currency = rng.choices(("USD", "EUR", "GBP"), (80, 12, 8))[0]
        merchants.append(
            (
                f"MER-{i:03d}",
                f"{a} {b}",
                category,
                currency,
                fake.city(rng)[0],
                _iso(now - timedelta(days=rng.randint(400, 2500))),
            )
        )
    db.executemany("INSERT INTO merchants VALUES (?,?,?,?,?,?)", merchants)
    customers = []
    for i in range(1, 601):
        m = rng.choice(merchants)
        first, last = fake.person(rng)
        customers.append(
            (
                f"CST-{i:04d}",
                m[0],
                f"{first} {last}",
                fake.email_for(first, last, rng, i),
                _iso(fake.moment(rng, now, 700, -200)),
            )
        )
    db.executemany("INSERT INTO customers VALUES (?,?,?,?,?)", customers)
    by_merchant = {m[0]: m for m in merchants}
    invoices: list[Any] = []
    payments: list[Any] = []
    refunds: list[Any] = []
    events: list[Any] = []
    for c_id, m_id, *_ in customers:
        m = by_merchant[m_id]
        for _ in range(rng.randint(1, 4)):
            inv_id = f"INV-{len(invoices) + 1:05d}"
            created = fake.moment(rng, now, 180, 0) - timedelta(hours=1)
            amount = round(rng.choice((1, 1, 1, 5, 10)) * fake.money(rng, 15, 600), 2)
            status = rng.choices(("draft", "open", "paid", "void"), (8, 24, 58, 10))[0]
            due = (created + timedelta(days=rng.choice((7, 15, 30, 45)))).strftime("%Y-%m-%d")
            finalized = _iso(created + timedelta(hours=rng.randint(1, 48))) if status != "draft" else None
            if finalized and finalized > _iso(now):
                finalized = _iso(now - timedelta(minutes=5))
            paid_at = voided_at = reason = None
            paid = 0.0
            events.append((m_id, "invoice.created", inv_id, created))
            if finalized:
                events.append((m_id, "invoice.finalized", inv_id, datetime.fromisoformat(str(finalized))))
            if status in ("paid", "open"):
                parts = (
                    [amount]
                    if status == "paid" and rng.random() < 0.8
                    else [round(amount * 0.5, 2), round(amount - round(amount * 0.5, 2), 2)]
                    if status == "paid"
                    else [round(amount * rng.choice((0.25, 0.5)), 2)]
                    if rng.random() < 0.2
                    else []
                )
                t = datetime.fromisoformat(str(finalized))
                if status == "open" and rng.random() < 0.1:
                    payments.append(
                        (
                            f"PMT-{len(payments) + 1:05d}",
                            inv_id,
                            m_id,
                            c_id,
                            amount,
                            m[3],
                            "card",
                            "failed",
                            0.0,
                            rng.choice(("card_declined", "insufficient_funds", "expired_card")),
                            _iso(t + timedelta(hours=2)),
                        )
                    )
                for part in parts:
                    t = min(
                        now - timedelta(minutes=1), t + timedelta(days=rng.randint(0, 20), minutes=rng.randint(1, 600))
                    )
                    method = rng.choices(("card", "bank_transfer", "wallet"), (65, 20, 15))[0]
                    pstatus = "pending" if method == "bank_transfer" and (now - t).days < 3 else "settled"
                    pay_id = f"PMT-{len(payments) + 1:05d}"
                    refunded = 0.0
                    if pstatus == "settled" and rng.random() < 0.06:
                        refunded = part if rng.random() < 0.5 else round(part * 0.3, 2)
                        rt = min(now - timedelta(minutes=1), t + timedelta(days=rng.randint(1, 10)))
                        refunds.append(
                            (
                                f"RFD-{len(refunds) + 1:04d}",
                                pay_id,
                                refunded,
                                rng.choice(
                                    ("requested_by_customer", "duplicate", "service_not_rendered", "damaged_goods")
                                ),
                                _iso(rt),
                            )
                        )
                        events.append((m_id, "payment.refunded", pay_id, rt))
                        if refunded == part:
                            pstatus = "refunded"
                    payments.append((pay_id, inv_id, m_id, c_id, part, m[3], method, pstatus, refunded, None, _iso(t)))
                    events.append((m_id, "payment.succeeded", pay_id, t))
                    paid = round(paid + part, 2)
                if status == "paid":
                    paid_at = _iso(t)
                    events.append((m_id, "invoice.paid", inv_id, t))
            if status == "void":
                voided = datetime.fromisoformat(str(finalized)) + timedelta(days=rng.randint(0, 5))
                voided_at = _iso(min(voided, now - timedelta(minutes=1)))
                reason = rng.choice(("duplicate", "customer cancelled", "issued in error", "uncollectible"))
                events.append((m_id, "invoice.voided", inv_id, datetime.fromisoformat(voided_at)))
            invoices.append(
                (
                    inv_id,
                    m_id,
                    c_id,
                    rng.choice(ITEMS[m[2]]),
                    amount,
                    m[3],
                    status,
                    paid,
                    due,
                    _iso(created),
                    finalized,
                    paid_at,
                    voided_at,
                    reason,
                )
            )
    db.executemany("INSERT INTO invoices VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", invoices)
    db.executemany("INSERT INTO payments VALUES (?,?,?,?,?,?,?,?,?,?,?)", payments)
    db.executemany("INSERT INTO refunds VALUES (?,?,?,?,?)", refunds)
    endpoints: list[Any] = []
    for m in merchants:
        slug = m[1].lower().replace(" ", "")
        for j in range(rng.choice((0, 1, 1, 2))):
            subscribed = sorted(rng.sample(EVENT_TYPES, rng.randint(2, 6)))
            host = ("api", "hooks", "billing")[j]
            endpoints.append(
                (
                    f"WHE-{len(endpoints) + 1:03d}",
                    m[0],
                    f"https://{host}.{slug}.example.com/webhooks/payments",
                    ",".join(subscribed),
                    "disabled" if rng.random() < 0.12 else "active",
                    _iso(now - timedelta(days=rng.randint(60, 400))),
                )
            )
    db.executemany("INSERT INTO webhook_endpoints VALUES (?,?,?,?,?,?)", endpoints)
    since = now - timedelta(days=45)
    deliveries: list[Any] = []
    listening: dict[str, list[tuple[str, set[str]]]] = {}
    for ep in endpoints:
        if ep[4] == "active":
            listening.setdefault(ep[1], []).append((ep[0], set(ep[3].split(","))))
    for m_id, event, obj, t in sorted(
        (e for e in events if e[3] >= since and e[0] in listening), key=lambda e: (e[3], e[2], e[1])
    ):
        for ep_id, wanted in listening[m_id]:
            if event in wanted:
                failed = rng.random() < 0.05
                deliveries.append(
                    (
                        f"WHD-{len(deliveries) + 1:05d}",
                        ep_id,
                        m_id,
                        event,
                        obj,
                        "failed" if failed else "delivered",
                        rng.choice((500, 502, 504)) if failed else 200,
                        _iso(t),
                    )
                )
    db.executemany("INSERT INTO webhook_deliveries VALUES (?,?,?,?,?,?,?,?)", deliveries)
