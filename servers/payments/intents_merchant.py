"""Payments goals about the merchant as a whole: what is overdue across its customers, its webhook endpoints
and what they were sent, and (for a platform analyst) how invoices break down by status.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip, money, unique_best
from servers.payments.intents import METHODS, find_merchant, merchant_of_dialogue
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
        s.say(
            "While you're in there, which of our invoices are past due{big}?",
            "And what do we have overdue{big} {right now|at the moment}?",
            "Who else hasn't paid us on time{big}?",
            "{Let's look at|Now show me} {everything|whatever} {overdue|past due} on our side{big}.",
            big=big,
        )
    else:
        s.say(
            "I do the books at {m}. Which of our invoices are past due{big}?",
            "Can you pull up everything overdue{big} for {m}?",
            "{m} here: who hasn't paid us on time{big}?",
            minimal=["{m}: overdue invoices?"],
            m=m["name"],
            big=big,
        )
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
        s.say(
            "Show me the biggest one in detail.",
            "What's the story with the largest of those?",
            "Open the largest one for me, please.",
        )
        s.call("get_invoice", invoice_id=top["invoice_id"])
    elif draw < 0.8 and top["amount_paid"] == 0:
        s.say(
            "The biggest one was a mistake on our side, cancel it.",
            "We agreed to drop the largest of those; please void it.",
            "Write off the biggest one, it should never have been billed.",
        )
        s.call("update_invoice_status", invoice_id=top["invoice_id"], status="void", reason="written off")
    else:
        method = s.rng.choice(list(METHODS))
        s.say(
            "Good news: the biggest one just paid by {how}, record it.",
            "The largest of those came in today by {how}; mark it paid.",
            how=METHODS[method],
        )
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
        s.say(
            "One more thing: our developers want {topics} pushed to our new endpoint {url}. Set that up.",
            "Also, please start sending {topics} to {url}.",
            "Before I forget: hook our new endpoint {url} up for {topics}.",
            "{Separately|On another note}, please {hook up|set up} {url} to receive {topics}.",
            topics=topics[1],
            url=where,
        )
    else:
        s.say(
            "Our developers at {m} need to hear about {topics}. Hook up our new endpoint[ {url}] for that.",
            "For {m}: please start sending {topics} to our new endpoint[ {url}].",
            "Set {m} up so {topics} get pushed to our server[ at {url}].",
            m=m["name"],
            topics=topics[1],
            url=where,
        )
    mid = find_merchant(s, m["name"], m["merchant_id"])
    s.call("register_webhook", merchant_id=mid, url=url, events=topics[0])
    if s.by_chance(0.7):
        s.say(
            "Which endpoints do we have {now|registered now}?",
            "Now list our endpoints so I can double-check.",
            "What does our endpoint list look like {after that|now}?",
            "{Show me|Let me see} {all our endpoints|our webhook setup} {to confirm|so I know it's there}.",
        )
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
        s.say(
            "Also, our server was down for a while. Did any of our notifications fail?",
            "Did any of our webhook deliveries fail {lately|recently}?",
            "While you're at it, check whether we missed any event deliveries.",
            "{We had an outage|Our endpoint was offline} {earlier|for a bit}; were any deliveries {lost|missed}?",
        )
    else:
        s.say(
            "Our server was down for a while. Did any of {m}'s webhook deliveries fail?",
            "Any notifications to {m} that didn't get through?",
            "Check whether {m} missed any event deliveries, please.",
            "{I'm on the dev team at|I look after} {m}: {were there failed deliveries|did any events fail} lately?",
            minimal=["{m}: failed deliveries?"],
            m=m["name"],
        )
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
        s.say(
            "That server is being retired. Send the same events to our new one at {url} instead.",
            "We moved that endpoint: register {url} for the same notifications.",
            "Point the same kinds of events at {url} from now on, please.",
            url=url,
        )
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
    s.say(
        "How do invoices break down by status across the platform?",
        "What's the status mix of all invoices right now?",
        "Give me invoice counts per status.",
        "{How many|What number of} invoices are {draft, open, paid or void|in each status} {right now|overall}?",
        "{I need|Can I get} a {quick|} {count|breakdown} of {all|} invoices by status{, please|}.",
    )
    stats = s.call("get_distinct_values", field="invoice_status")
    if status not in stats["values"]:
        raise Skip("no invoice in that status")
    s.say(
        "Which ones {words} are for {floor} or more?",
        "Show me the {words} ones of at least {floor}.",
        "{Pull up|Bring up} {every|each} invoice {words} {worth|of} {floor} or {more|above}.",
        words=words,
        floor=f"{floor:,}",
    )
    s.call("list_invoices", status=status, min_amount=float(floor))
