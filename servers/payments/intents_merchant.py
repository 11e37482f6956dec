"""Payments goals about the merchant as a whole: what is overdue across its customers, its webhook endpoints
and what they were sent, and (for a platform analyst) how invoices break down by status.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip, money, unique_best
from servers.payments.intents import METHODS, WORDS, find_merchant, merchant_of_dialogue
from servers.payments.tools import payments


@payments.intent(
    covers=("search_customers", "list_invoices", "get_invoice", "pay_invoice", "update_invoice_status"), follows=True
)
def chase_overdue(s: Scene) -> None:
    """The bookkeeper reviews the merchant's overdue invoices and looks into (or settles) the largest one."""
    m = merchant_of_dialogue(
        s,
        "(SELECT COUNT(*) FROM invoices i WHERE i.merchant_id = m.merchant_id AND i.status = 'open' "
        "AND i.due_date < ?) >= 2",
        s.now.strftime("%Y-%m-%d"),
    )
    s.asked("list_invoices", merchant_id=m["merchant_id"], overdue=True)
    floor = s.rng.choice((None, None, 100, 250))
    big = f" over {money(floor, m['currency'])}" if floor else ""
    if s.turns:
        s.say(WORDS.chase_overdue, big=big)
    else:
        s.say(WORDS.chase_overdue_opening, m=m["name"], big=big)
    mid = find_merchant(s, m["name"], m["merchant_id"])
    args: dict[str, Any] = {"merchant_id": mid, "overdue": True}
    if floor:
        args["min_amount"] = float(floor)
    found = s.call("list_invoices", **args)["invoices"]
    if not found:
        raise Skip("nothing overdue above the floor")
    top = unique_best(found, itemgetter("amount"), tie="two invoices tie for the largest")
    s.memory["invoice"] = top
    if not s.room():
        return
    draw = s.rng.random()
    if draw < 0.5:
        s.say(WORDS.chase_overdue_then_biggest)
        s.call("get_invoice", invoice_id=top["invoice_id"])
    elif draw < 0.8 and top["amount_paid"] == 0:
        s.say(WORDS.chase_overdue_then_void)
        s.call("update_invoice_status", invoice_id=top["invoice_id"], status="void", reason="written off")
    else:
        method = s.rng.choice(list(METHODS))
        s.say(WORDS.chase_overdue_then_paid, how=METHODS[method])
        paid = s.call("pay_invoice", invoice_id=top["invoice_id"], method=method)
        s.memory["payment"] = {"payment_id": paid["payment_id"], "invoice_id": top["invoice_id"]}


@payments.intent(covers=("search_customers", "register_webhook", "list_webhook_deliveries"), follows=True)
def add_webhook(s: Scene) -> None:
    """The merchant's developers add an endpoint for some payment events."""
    m = merchant_of_dialogue(s, "(SELECT COUNT(*) FROM webhook_endpoints e WHERE e.merchant_id = m.merchant_id) < 5")
    slug = m["name"].lower().replace(" ", "")
    host = s.rng.choice(("events", "notify", "ops", "ledger", "sync"))
    url = f"https://{host}.{slug}.example.com/{s.rng.choice(('hooks', 'webhooks/pay', 'callbacks'))}"
    if s.rows("SELECT 1 FROM webhook_endpoints WHERE merchant_id = ? AND url = ?", m["merchant_id"], url):
        raise Skip("that endpoint exists")
    topics = s.rng.choice(
        (
            (["payment.succeeded", "payment.refunded"], "payments and refunds"),
            (["invoice.paid"], "invoices getting paid"),
            (["invoice.created", "invoice.finalized", "invoice.voided"], "invoice changes"),
            (["payment.succeeded", "invoice.paid"], "successful payments and paid invoices"),
        )
    )
    where = s.given(url, url, "URL", "register_webhook", "url")
    if s.turns:
        s.say(WORDS.add_webhook, topics=topics[1], url=where)
    else:
        s.say(WORDS.add_webhook_opening, m=m["name"], topics=topics[1], url=where)
    mid = find_merchant(s, m["name"], m["merchant_id"])
    s.call("register_webhook", merchant_id=mid, url=url, events=topics[0])
    if s.by_chance(0.7):
        s.say(WORDS.add_webhook_then_list)
        s.call("list_webhook_deliveries", merchant_id=mid, limit=5)


@payments.intent(covers=("search_customers", "list_webhook_deliveries", "register_webhook"), follows=True)
def failed_deliveries(s: Scene) -> None:
    """A developer checks whether the merchant's webhook deliveries failed, then looks at that endpoint's
    other deliveries or moves its events to a new URL."""
    m = merchant_of_dialogue(
        s, "m.merchant_id IN (SELECT merchant_id FROM webhook_deliveries d WHERE d.status = 'failed')"
    )
    s.asked("list_webhook_deliveries", merchant_id=m["merchant_id"], status="failed")
    if s.turns:
        s.say(WORDS.failed_deliveries)
    else:
        s.say(WORDS.failed_deliveries_opening, m=m["name"])
    mid = find_merchant(s, m["name"], m["merchant_id"])
    out = s.call("list_webhook_deliveries", merchant_id=mid, status="failed")
    if not out["deliveries"]:
        raise Skip("no failed delivery on the first page")
    endpoint = out["deliveries"][0]["endpoint_id"]
    if not s.room():
        return
    hook = next(e for e in out["endpoints"] if e["endpoint_id"] == endpoint)
    slug = m["name"].lower().replace(" ", "")
    url = f"https://{s.rng.choice(('hooks2', 'backup', 'events-v2'))}.{slug}.example.com/pay"
    if s.rng.random() < 0.4 and len(out["endpoints"]) < 5 and url not in [e["url"] for e in out["endpoints"]]:
        s.say(WORDS.failed_deliveries_then_new_url, url=url)
        s.call("register_webhook", merchant_id=mid, url=url, events=hook["events"])
        return
    kind = s.rng.choice(("invoice.paid", "payment.succeeded", None))
    words = {"invoice.paid": "paid-invoice", "payment.succeeded": "successful-payment", None: ""}[kind]
    s.say(
        "And what else went to the endpoint of the latest failure?"
        if kind is None
        else "Which {k} notices went to the endpoint of the latest failure?",
        "Show me the other deliveries to that same endpoint."
        if kind is None
        else "List the {k} deliveries to that same endpoint.",
        k=words,
    )
    args = {"merchant_id": mid, "endpoint_id": endpoint}
    if kind:
        args["event_type"] = kind
    s.call("list_webhook_deliveries", **args)


@payments.intent(covers=("get_distinct_values", "list_invoices"))
def status_overview(s: Scene) -> None:
    """A platform analyst looks at invoice statuses, then at the large ones in one status."""
    status = s.rng.choice(("void", "draft", "open"))
    floor = s.rng.choice((500, 1000, 2000, 3000))
    words = {"void": "cancelled", "draft": "still in drafts", "open": "waiting on payment"}[status]
    s.say(WORDS.status_overview)
    stats = s.call("get_distinct_values", field="invoice_status")
    if status not in stats["values"]:
        raise Skip("no invoice in that status")
    s.say(WORDS.status_overview_then_large, words=words, floor=f"{floor:,}")
    s.call("list_invoices", status=status, min_amount=float(floor))
