"""The payments seed: 24 merchants, their customers, invoices in every status, payments, refunds, webhooks.

Each invoice is drawn with its payments, refunds and events; the order of the draws from ``rng`` is part of
the seed's identity (the state hash).
"""

from __future__ import annotations

import random
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from hub.kit import Row, fake, insert_rows

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


Event = tuple[str, str, str, datetime]


@dataclass
class Ledger:
    """The rows drawn per invoice, and the events that webhooks later deliver."""

    rng: random.Random
    now: datetime
    invoices: list[Row] = field(default_factory=list)
    payments: list[Row] = field(default_factory=list)
    refunds: list[Row] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)


def _iso(t: datetime) -> str:
    """Like fake.iso for the whole-second times a seed makes, several times faster."""
    return t.isoformat(timespec="seconds")


def seed(db: sqlite3.Connection, rng: random.Random, now: datetime) -> None:
    """24 merchants, ~600 customers, ~1,500 invoices in every status with consistent payments and refunds,
    webhook endpoints and the deliveries of the last 45 days."""
    merchants = _merchants(rng, now)
    insert_rows(db, "merchants", merchants)
    customers = _customers(rng, now, merchants)
    insert_rows(db, "customers", customers)
    by_merchant = {m[0]: m for m in merchants}
    out = Ledger(rng, now)
    for c_id, m_id, *_ in customers:
        for _ in range(rng.randint(1, 4)):
            _invoice(out, c_id, by_merchant[m_id])
    insert_rows(db, "invoices", out.invoices)
    insert_rows(db, "payments", out.payments)
    insert_rows(db, "refunds", out.refunds)
    endpoints = _endpoints(rng, now, merchants)
    insert_rows(db, "webhook_endpoints", endpoints)
    insert_rows(db, "webhook_deliveries", _deliveries(rng, now - timedelta(days=45), endpoints, out.events))


def _merchants(rng: random.Random, now: datetime) -> list[Row]:
    """One merchant per name in MERCHANT_WORDS, most billing in USD."""
    merchants: list[Row] = []
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
    return merchants


def _customers(rng: random.Random, now: datetime, merchants: list[Row]) -> list[Row]:
    """600 customers, each of one merchant."""
    customers: list[Row] = []
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
    return customers


def _invoice(out: Ledger, c_id: str, m: Row) -> None:
    """One invoice with its events; open and paid ones with their payments, void ones with their reason."""
    rng, now, m_id = out.rng, out.now, m[0]
    inv_id = f"INV-{len(out.invoices) + 1:05d}"
    created = fake.moment(rng, now, 180, 0) - timedelta(hours=1)
    amount = round(rng.choice((1, 1, 1, 5, 10)) * fake.money(rng, 15, 600), 2)
    status = rng.choices(("draft", "open", "paid", "void"), (8, 24, 58, 10))[0]
    due = (created + timedelta(days=rng.choice((7, 15, 30, 45)))).strftime("%Y-%m-%d")
    finalized = _iso(created + timedelta(hours=rng.randint(1, 48))) if status != "draft" else None
    if finalized and finalized > _iso(now):
        finalized = _iso(now - timedelta(minutes=5))
    paid_at = voided_at = reason = None
    paid = 0.0
    out.events.append((m_id, "invoice.created", inv_id, created))
    if finalized:
        out.events.append((m_id, "invoice.finalized", inv_id, datetime.fromisoformat(str(finalized))))
    if status in ("paid", "open"):
        paid, last = _settle(out, inv_id, c_id, m, amount, status, datetime.fromisoformat(str(finalized)))
        if status == "paid":
            paid_at = _iso(last)
            out.events.append((m_id, "invoice.paid", inv_id, last))
    if status == "void":
        voided_at, reason = _void(out, inv_id, m_id, datetime.fromisoformat(str(finalized)))
    description = rng.choice(ITEMS[m[2]])
    out.invoices.append(
        (inv_id, m_id, c_id, description, amount, m[3], status, paid, due, _iso(created), finalized)
        + (paid_at, voided_at, reason)
    )


def _parts(rng: random.Random, amount: float, status: str) -> list[float]:
    """A paid invoice is paid in one or two parts; an open one sometimes has a partial payment."""
    if status == "paid" and rng.random() < 0.8:
        return [amount]
    if status == "paid":
        return [round(amount * 0.5, 2), round(amount - round(amount * 0.5, 2), 2)]
    if rng.random() < 0.2:
        return [round(amount * rng.choice((0.25, 0.5)), 2)]
    return []


def _settle(
    out: Ledger, inv_id: str, c_id: str, m: Row, amount: float, status: str, t: datetime
) -> tuple[float, datetime]:
    """The payments of an open or paid invoice finalized at ``t``: the amount paid and the last payment's time."""
    rng, now = out.rng, out.now
    parts = _parts(rng, amount, status)
    if status == "open" and rng.random() < 0.1:
        reason = rng.choice(("card_declined", "insufficient_funds", "expired_card"))
        pay_id = f"PMT-{len(out.payments) + 1:05d}"
        out.payments.append(
            (pay_id, inv_id, m[0], c_id, amount, m[3], "card", "failed", 0.0, reason, _iso(t + timedelta(hours=2)))
        )
    paid = 0.0
    for part in parts:
        t = min(now - timedelta(minutes=1), t + timedelta(days=rng.randint(0, 20), minutes=rng.randint(1, 600)))
        method = rng.choices(("card", "bank_transfer", "wallet"), (65, 20, 15))[0]
        pstatus = "pending" if method == "bank_transfer" and (now - t).days < 3 else "settled"
        pay_id = f"PMT-{len(out.payments) + 1:05d}"
        refunded = 0.0
        if pstatus == "settled" and rng.random() < 0.06:
            refunded = _refund(out, pay_id, m[0], part, t)
            if refunded == part:
                pstatus = "refunded"
        out.payments.append((pay_id, inv_id, m[0], c_id, part, m[3], method, pstatus, refunded, None, _iso(t)))
        out.events.append((m[0], "payment.succeeded", pay_id, t))
        paid = round(paid + part, 2)
    return paid, t


def _refund(out: Ledger, pay_id: str, m_id: str, part: float, t: datetime) -> float:
    """A full or partial refund of a payment made at ``t``; returns the amount refunded."""
    rng = out.rng
    refunded = part if rng.random() < 0.5 else round(part * 0.3, 2)
    rt = min(out.now - timedelta(minutes=1), t + timedelta(days=rng.randint(1, 10)))
    reason = rng.choice(("requested_by_customer", "duplicate", "service_not_rendered", "damaged_goods"))
    out.refunds.append((f"RFD-{len(out.refunds) + 1:04d}", pay_id, refunded, reason, _iso(rt)))
    out.events.append((m_id, "payment.refunded", pay_id, rt))
    return refunded


def _void(out: Ledger, inv_id: str, m_id: str, finalized: datetime) -> tuple[str, str]:
    """When and why an invoice finalized at ``finalized`` was voided."""
    rng = out.rng
    voided = finalized + timedelta(days=rng.randint(0, 5))
    voided_at = _iso(min(voided, out.now - timedelta(minutes=1)))
    reason = rng.choice(("duplicate", "customer cancelled", "issued in error", "uncollectible"))
    out.events.append((m_id, "invoice.voided", inv_id, datetime.fromisoformat(voided_at)))
    return voided_at, reason


def _endpoints(rng: random.Random, now: datetime, merchants: list[Row]) -> list[Row]:
    """Zero to two webhook endpoints per merchant, each subscribed to some event types."""
    endpoints: list[Row] = []
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
    return endpoints


def _deliveries(rng: random.Random, since: datetime, endpoints: list[Row], events: list[Event]) -> list[Row]:
    """One delivery per event since ``since`` to each active endpoint subscribed to it, in time order."""
    listening: dict[str, list[tuple[str, set[str]]]] = {}
    for ep in endpoints:
        if ep[4] == "active":
            listening.setdefault(ep[1], []).append((ep[0], set(ep[3].split(","))))
    deliveries: list[Row] = []
    recent = (e for e in events if e[3] >= since and e[0] in listening)
    for m_id, event, obj, t in sorted(recent, key=lambda e: (e[3], e[2], e[1])):
        for ep_id, wanted in listening[m_id]:
            if event not in wanted:
                continue
            failed = rng.random() < 0.05
            status, code = ("failed", rng.choice((500, 502, 504))) if failed else ("delivered", 200)
            deliveries.append((f"WHD-{len(deliveries) + 1:05d}", ep_id, m_id, event, obj, status, code, _iso(t)))
    return deliveries
