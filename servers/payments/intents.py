"""What people want of the payments platform: a merchant's bookkeeper billing, collecting, refunding.

The user works for one merchant and knows its customers by name, invoices by what they bill and
their amount (or by the number printed on them), and payments by when and how they were made.
The agent finds merchant and customer ids with ``search_customers`` (a merchant's name matches
its customers), invoices with ``list_invoices`` and payments with ``get_invoice``.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day, last_digits, money, unique_best
from servers.payments import tools_write  # noqa: F401  (the write tools register before the intents that cover them)
from servers.payments.tools import payments

CUSTOMER = (
    "SELECT c.customer_id, c.name, c.email, c.merchant_id, m.name AS merchant, m.currency "
    "FROM customers c JOIN merchants m USING (merchant_id)"
)
INVOICE = (
    "SELECT i.*, c.name AS customer, m.name AS merchant FROM invoices i "
    "JOIN customers c USING (customer_id) JOIN merchants m ON m.merchant_id = i.merchant_id"
)
REASONS = {
    "requested_by_customer": ("changed their mind", "asked for their money back", "cancelled on us"),
    "duplicate": ("got charged twice", "got billed twice for the same thing"),
    "service_not_rendered": ("never got the service", "we never delivered"),
    "damaged_goods": ("got it damaged", "received it broken"),
}
METHODS = {"card": "card", "bank_transfer": "bank transfer", "wallet": "their wallet app"}
VOID_REASONS = {
    "issued in error": "was issued by mistake",
    "duplicate": "is a duplicate",
    "customer cancelled": "got cancelled by the customer",
}
ITEMS = (
    "Spring workshop",
    "Rush delivery fee",
    "Consulting hours (May)",
    "Site visit",
    "Replacement parts",
    "Quarterly retainer",
    "Design revisions",
    "Holiday order",
    "Setup fee",
    "Extra session",
)


def who(s: Scene, c: dict[str, Any]) -> str:
    """A customer as the merchant's staff name them, proven unique among all customers."""
    return s.refer(
        c["customer_id"],
        Ref("{name}", "SELECT customer_id FROM customers WHERE name = ?", c["name"]),
        Ref(
            "{name} (one of ours at {merchant})",
            "SELECT customer_id FROM customers WHERE name = ? AND merchant_id = ?",
            c["name"],
            c["merchant_id"],
        ),
        Ref("{name} ({email})", "SELECT customer_id FROM customers WHERE email = ?", c["email"]),
        name=c["name"],
        merchant=c["merchant"],
        email=c["email"],
    )


def find_customer(s: Scene, c: dict[str, Any]) -> dict[str, Any]:
    """The discovery call for a customer (skipped when an earlier turn already found them)."""
    known = s.memory.get("customer")
    if known and known["customer_id"] == c["customer_id"]:
        return known
    found = s.call("search_customers", query=c["name"])["customers"]
    hit = [r for r in found if r["customer_id"] == c["customer_id"]]
    if not hit:
        raise Skip("the customer is past the first page of the search")
    s.memory["customer"] = hit[0]
    return hit[0]


def current_customer(s: Scene, where: str, *params: Any, other: float = 0.0) -> dict[str, Any]:
    """The customer an earlier turn was about (a follow-up stays with them: ``Skip`` when they do not fit
    ``where``), else a fresh pick among the dialogue's merchant's customers (any merchant's in an opener).
    With chance ``other`` a follow-up moves on to another customer of the same merchant (the bookkeeper
    works through their list)."""
    earlier = s.memory.get("customer")
    if earlier and s.rng.random() < other:
        return s.pick(
            CUSTOMER + f" WHERE c.merchant_id = ? AND c.customer_id != ? AND ({where})",
            earlier["merchant_id"],
            earlier["customer_id"],
            *params,
        )
    known = s.recall(
        "customer", "customer_id", CUSTOMER + f" WHERE c.customer_id = ? AND ({where})", *params, who="customer"
    )
    if known is not None:
        return known
    mid = our_merchant(s)
    if mid:
        return s.pick(CUSTOMER + f" WHERE c.merchant_id = ? AND ({where})", mid, *params)
    return s.pick(CUSTOMER + f" WHERE {where}", *params)


def unpaid_invoice(s: Scene, statuses: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A customer (as ``current_customer``, moving on now and then) with an invoice in ``statuses`` (an SQL list)
    that nothing was paid on, and one such invoice."""
    c = current_customer(
        s,
        f"c.customer_id IN (SELECT customer_id FROM invoices WHERE status IN {statuses} AND amount_paid = 0)",
        other=0.3,
    )
    inv = s.pick(
        INVOICE + f" WHERE i.customer_id = ? AND i.status IN {statuses} AND i.amount_paid = 0", c["customer_id"]
    )
    return c, inv


def our_merchant(s: Scene) -> str | None:
    """The merchant the user works for, once an earlier turn found its id (a follow-up stays with it)."""
    c = s.memory.get("customer")
    return str(c["merchant_id"]) if c else s.memory.get("merchant_id")


def merchant_of_dialogue(s: Scene, where: str, *params: Any) -> dict[str, Any]:
    """The merchant the user works for: the dialogue's (``Skip`` when it does not fit ``where``), else a
    fresh pick among the merchants that fit."""
    sql = "SELECT m.merchant_id, m.name, m.currency FROM merchants m WHERE (" + where + ")"
    mid = our_merchant(s)
    if mid:
        found = s.rows(sql + " AND m.merchant_id = ?", *params, mid)
        if not found:
            raise Skip("the dialogue's merchant does not fit")
        return found[0]
    return s.pick(sql, *params)


def find_merchant(s: Scene, merchant: str, merchant_id: str) -> str:
    """The merchant's id, read off a customer search by its name."""
    known = our_merchant(s)
    if known == merchant_id:
        return str(known)
    found = s.call("search_customers", query=merchant, limit=1)["customers"]
    if not found or found[0]["merchant_id"] != merchant_id:
        raise Skip("the merchant's name does not find its customers")
    s.memory["merchant_id"] = merchant_id
    return str(found[0]["merchant_id"])


def list_for(s: Scene, customer_id: str, inv: dict[str, Any], status: str) -> list[dict[str, Any]]:
    """The customer's invoices, filtered the way an agent would from what the user said: by status,
    or (when the user named the amount) by a floor just under it, or not at all."""
    seen = listed_before(s, customer_id, inv["invoice_id"], status)
    if seen:
        return seen  # an earlier turn listed it: the agent knows its id
    args: dict[str, Any] = {"customer_id": customer_id}
    draw = s.rng.random()
    if draw < 0.55:
        args["status"] = status
    elif draw < 0.7:
        args |= {"status": status, "min_amount": float(int(inv["amount"]))}
    found: list[dict[str, Any]] = s.call("list_invoices", **args)["invoices"]
    return [i for i in found if i["status"] == status]


def listed_before(s: Scene, customer_id: str, invoice_id: str, status: str) -> list[dict[str, Any]]:
    """The invoice as an earlier listing of the customer's invoices in this dialogue showed it, when it showed
    it in ``status`` (the state it is still in)."""
    for c in s.calls:
        if c.tool == "list_invoices" and c.arguments.get("customer_id", customer_id) == customer_id:
            rows = [i for i in c.result["invoices"] if i["invoice_id"] == invoice_id and i["status"] == status]
            if rows:
                return rows
    return []


def how_to_find(s: Scene) -> str:
    """How the agent will find the invoice: by the number the user reads off it, through the customer's
    search, or through the merchant's customer list (when the user names the merchant)."""
    if s.memory.get("customer"):
        return "search"
    draw = s.rng.random()
    return "number" if draw < 0.15 else "merchant" if draw < 0.35 else "search"


def name_invoice(s: Scene, c: dict[str, Any], inv: dict[str, Any], status_words: str, path: str) -> tuple[str, str]:
    """(the invoice, the customer) as the user names them for ``path``."""
    if path == "number":
        return f"invoice {inv['invoice_id']}", who(s, c)
    if path == "merchant":
        person = s.refer(
            c["customer_id"],
            Ref(
                "{name} (our customer at {m})",
                "SELECT customer_id FROM customers WHERE name = ? AND merchant_id = ?",
                c["name"],
                c["merchant_id"],
            ),
            name=c["name"],
            m=c["merchant"],
        )
        return invoice_ref(s, inv, status_words), person
    return invoice_ref(s, inv, status_words), who(s, c)


def find_invoice(s: Scene, c: dict[str, Any], inv: dict[str, Any], status: str, path: str) -> dict[str, Any] | None:
    """The discovery calls of ``path`` (the invoice itself when read by its number); ``Skip`` when the
    invoice is not where the agent would look."""
    for call in s.calls:
        if (
            call.tool == "get_invoice"
            and call.result["invoice_id"] == inv["invoice_id"]
            and call.result["status"] == status
        ):
            return dict(call.result)  # an earlier turn read it: the agent has it in front of it
    if path == "number":
        return dict(s.call("get_invoice", invoice_id=inv["invoice_id"]))
    if listed_before(s, c["customer_id"], inv["invoice_id"], status):
        return None  # an earlier turn listed it: no discovery needed
    if path == "merchant":
        mid = find_merchant(s, c["merchant"], c["merchant_id"])
        hits = s.find(
            "search_customers",
            "customers",
            "customer_id",
            c["customer_id"],
            missing="the customer is not on the first page",
            query=c["name"],
            merchant_id=mid,
        )
        s.memory["customer"] = hits
        found = hits
    else:
        found = find_customer(s, c)
    listed = list_for(s, found["customer_id"], inv, status)
    if inv["invoice_id"] not in [i["invoice_id"] for i in listed]:
        raise Skip("the invoice is past the first page")
    return None


def invoice_ref(s: Scene, inv: dict[str, Any], status_words: str) -> str:
    amount = money(inv["amount"], inv["currency"])
    return s.refer(
        inv["invoice_id"],
        Ref(
            "the {what} invoice",
            "SELECT invoice_id FROM invoices WHERE customer_id = ? AND status = ? AND description = ?",
            inv["customer_id"],
            inv["status"],
            inv["description"],
        ),
        Ref(
            "the {amount} {what} invoice",
            "SELECT invoice_id FROM invoices WHERE customer_id = ? AND status = ? AND description = ? AND amount = ?",
            inv["customer_id"],
            inv["status"],
            inv["description"],
            inv["amount"],
        ),
        what=f"{status_words}{inv['description']}".strip(),
        amount=amount,
    )


@payments.intent(
    covers=("search_customers", "create_invoice", "update_invoice_status", "get_invoice"), weight=1.5, follows=True
)
def bill_customer(s: Scene) -> None:
    """Bill a customer for something new, and send the invoice out."""
    c = current_customer(s, "1=1", other=0.4)
    amount = round(s.rng.choice((1, 1, 5, 10)) * s.rng.uniform(12, 480), 2)
    item = s.rng.choice(ITEMS)
    days = s.rng.choice((7, 14, 30, 45))
    price = s.given(amount, money(amount, c["currency"]), "amount", "create_invoice", "amount")
    what = s.given(item, f"'{item}'", "description", "create_invoice", "description")
    send = s.rng.random() < 0.6
    due = f"due in {days} days" if days != 30 else "on the usual 30 days"
    s.say(
        "Can you bill {who}[ {price}] for {what}, {due}?" + (" And send it to them right away." if send else ""),
        "{who} needs an invoice from us for {what}[, {price}], {due}." + (" Go ahead and issue it." if send else ""),
        "Please draw up an invoice to {who} for {what}[ ({price})], {due}."
        + (" It can go out now." if send else " Keep it as a draft for now."),
        minimal=["{who} owes us {price} for {what}; get that billed, {due}."],
        who=who(s, c),
        price=price,
        what=what,
        due=due,
    )
    found = find_customer(s, c)
    inv = s.call(
        "create_invoice",
        merchant_id=found["merchant_id"],
        customer_id=found["customer_id"],
        amount=amount,
        description=item,
        **({"due_in_days": days} if days != 30 else {}),
    )
    if send:
        s.call("update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    elif s.rng.random() < 0.5:
        s.say(
            "On second thought, send it to them now.",
            "Actually, it's fine, issue it right away.",
            "Changed my mind: let it go out today.",
        )
        s.call("update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    else:
        s.say(
            "When will it be due, and what's the total?",
            "Read me back what you created.",
            "What does the invoice look like?",
        )
        s.call("get_invoice", invoice_id=inv["invoice_id"])
    s.memory["invoice"] = inv


@payments.intent(covers=("search_customers", "list_invoices", "pay_invoice", "get_invoice"), weight=1.5, follows=True)
def settle_open_invoice(s: Scene) -> None:
    """A customer pays (all or part of) an open invoice."""
    c = current_customer(s, "c.customer_id IN (SELECT customer_id FROM invoices WHERE status = 'open')", other=0.4)
    inv = s.pick(INVOICE + " WHERE i.customer_id = ? AND i.status = 'open'", c["customer_id"])
    due = round(inv["amount"] - inv["amount_paid"], 2)
    method = s.rng.choice(list(METHODS))
    part = round(due * s.rng.choice((0.25, 0.5)), 2) if s.rng.random() < 0.3 and due > 20 else None
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "open ", path)
    how = f" by {METHODS[method]}" if not s.minimal else ""
    if part is not None:
        s.say(
            "{who} is paying {part} toward {what}{how} today.",
            "Put {part} from {who} against {what}{how}.",
            "Got {part}{how} from {who} for {what}, can you record it?",
            who=person,
            what=what,
            how=how,
            part=money(part, inv["currency"]),
        )
    else:
        s.say(
            "{who} wants to settle {what}{how}.",
            "Record that {who} paid off {what}{how}.",
            "{who} just covered {what} in full{how}, please put it through.",
            minimal=["{who} wants to clear what they owe on {what}."],
            who=person,
            what=what,
            how=how,
        )
    found = find_invoice(s, c, inv, "open", path)
    if found is None and part is None and s.room(2, 0) and s.rng.random() < 0.3:
        s.call("get_invoice", invoice_id=inv["invoice_id"])  # the agent checks what is due before charging
    args: dict[str, Any] = {"invoice_id": inv["invoice_id"]}
    if how:
        args["method"] = method
    if part is not None:
        args["amount"] = part
    paid = s.call("pay_invoice", **args)
    s.memory["invoice"] = inv
    s.memory["payment"] = {"payment_id": paid["payment_id"], "invoice_id": inv["invoice_id"]}
    if s.room() and (part is not None or s.rng.random() < 0.5):
        s.say(
            "What's left on it now?",
            "And how much is still outstanding on that one?",
            "Can you show me where that invoice stands now?",
        )
        s.call("get_invoice", invoice_id=paid["invoice_id"])
    s.memory["invoice"] = inv


@payments.intent(covers=("search_customers", "list_invoices", "update_invoice_status", "get_invoice"), follows=True)
def void_invoice(s: Scene) -> None:
    """An invoice that should never have gone out is cancelled."""
    c, inv = unpaid_invoice(s, "('draft', 'open')")
    reason = s.rng.choice(list(VOID_REASONS))
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "", path)
    s.say(
        "{What} we sent {who} {why}, please cancel it.",
        "Scrap {who}'s {short}, it {why}.",
        "Kill {what} for {who}, it {why}.",
        minimal=["{who}'s {short} needs to go away."],
        who=person,
        what=what,
        What=what[:1].upper() + what[1:],
        short=what.removeprefix("the "),
        why=VOID_REASONS[reason],
    )
    find_invoice(s, c, inv, inv["status"], path)
    args = {"invoice_id": inv["invoice_id"], "status": "void"}
    if not s.minimal:
        args["reason"] = reason
    s.call("update_invoice_status", **args)
    s.memory["invoice"] = inv
    known = s.memory.get("customer")
    if not s.room() or s.rng.random() < 0.4:
        return
    if known and s.rng.random() < 0.5:
        s.say(
            "Does {who} still owe us anything else?",
            "What else is still open for them?",
            "Anything else of theirs waiting on payment?",
            who=known["name"],
        )
        s.call("list_invoices", customer_id=known["customer_id"], status="open")
    else:
        s.say("Show me that invoice now.", "Can you confirm it's cancelled?", "What does it say now?")
        s.call("get_invoice", invoice_id=inv["invoice_id"])


@payments.intent(covers=("search_customers", "list_invoices", "update_invoice_status", "get_invoice"), follows=True)
def send_draft(s: Scene) -> None:
    """A draft invoice is checked and sent out; the user asks when it is due."""
    c = current_customer(s, "c.customer_id IN (SELECT customer_id FROM invoices WHERE status = 'draft')", other=0.3)
    inv = s.pick(INVOICE + " WHERE i.customer_id = ? AND i.status = 'draft'", c["customer_id"])
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "", path)
    s.say(
        "{who}'s {short} has been sitting in drafts. It looks right, issue it.",
        "Please finalize {what} for {who} so they can pay it.",
        "{What} for {who} is good to go out now.",
        minimal=["{who}'s draft can go out."],
        who=person,
        what=what,
        What=what[:1].upper() + what[1:],
        short=what.removeprefix("the "),
    )
    find_invoice(s, c, inv, "draft", path)
    s.call("update_invoice_status", invoice_id=inv["invoice_id"], status="open")
    s.memory["invoice"] = inv
    if path != "number" and s.room() and s.rng.random() < 0.6:
        s.say("When is it due?", "What due date did it get?", "And what's the deadline on it?")
        s.call("get_invoice", invoice_id=inv["invoice_id"])


@payments.intent(
    covers=("search_customers", "list_invoices", "get_invoice", "refund_payment"), weight=1.5, follows=True
)
def refund_customer(s: Scene) -> None:
    """A customer gets money back on a paid invoice (all of it, or part)."""
    c = current_customer(
        s,
        "c.customer_id IN (SELECT customer_id FROM payments WHERE status = 'settled' AND refunded_amount = 0)",
        other=0.3,
    )
    inv = s.pick(
        INVOICE + " WHERE i.customer_id = ? AND i.status = 'paid' AND (SELECT COUNT(*) FROM payments p "
        "WHERE p.invoice_id = i.invoice_id AND p.status = 'settled' AND p.refunded_amount = 0) = 1 "
        "AND (SELECT COUNT(*) FROM payments p WHERE p.invoice_id = i.invoice_id) = 1",
        c["customer_id"],
    )
    pay = s.rows("SELECT * FROM payments WHERE invoice_id = ?", inv["invoice_id"])[0]
    reason = s.rng.choice(list(REASONS))
    part = round(pay["amount"] * s.rng.choice((0.2, 0.5)), 2) if s.rng.random() < 0.35 else None
    path = how_to_find(s)
    what, person = name_invoice(s, c, inv, "paid ", path)
    when = day(pay["created_at"], s.now)
    how_much = f"{money(part, pay['currency'])} back" if part is not None else "their money back"
    s.say(
        "{who} {why}. Give them {how_much} on {what} (they paid {when}).",
        "Please send {who} {how_much} for {what}, they {why}.",
        "{who} {why}, so I'd like to give them {how_much} on {what}.",
        minimal=["{who} {why}; sort out a refund on {what}."],
        who=person,
        why=s.rng.choice(REASONS[reason]),
        how_much=how_much,
        what=what,
        when=when,
    )
    full = find_invoice(s, c, inv, "paid", path) or s.call("get_invoice", invoice_id=inv["invoice_id"])
    args: dict[str, Any] = {"payment_id": full["payments"][0]["payment_id"]}
    if reason != "requested_by_customer" or s.rng.random() < 0.5:
        args["reason"] = reason
    if part is not None:
        args["amount"] = part
    back = s.call("refund_payment", **args)
    s.memory["invoice"] = inv
    s.memory["payment"] = {"payment_id": back["payment_id"], "invoice_id": inv["invoice_id"]}
    if s.room() and s.rng.random() < 0.4:
        s.say(
            "How much of that payment could still be refunded?",
            "Where does that payment stand now?",
            "Show me the invoice again with the refund on it.",
        )
        s.call("get_invoice", invoice_id=inv["invoice_id"])
    s.memory["refund"] = back


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
            "And what do we have overdue{big} right now?",
            "Who else hasn't paid us on time{big}?",
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
    if s.room() and s.rng.random() < 0.7:
        s.say(
            "Which endpoints do we have now?",
            "Now list our endpoints so I can double-check.",
            "What does our endpoint list look like after that?",
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
            "Did any of our webhook deliveries fail lately?",
            "While you're at it, check whether we missed any event deliveries.",
        )
    else:
        s.say(
            "Our server was down for a while. Did any of {m}'s webhook deliveries fail?",
            "Any notifications to {m} that didn't get through?",
            "Check whether {m} missed any event deliveries, please.",
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
    )
    stats = s.call("get_distinct_values", field="invoice_status")
    if status not in stats["values"]:
        raise Skip("no invoice in that status")
    s.say(
        "Which ones {words} are for {floor} or more?",
        "Show me the {words} ones of at least {floor}.",
        words=words,
        floor=f"{floor:,}",
    )
    s.call("list_invoices", status=status, min_amount=float(floor))


@payments.intent(covers=("get_invoice", "pay_invoice"))
def pay_by_number(s: Scene) -> None:
    """A customer reads an invoice number off the paper bill and pays what is still due."""
    mid = our_merchant(s)
    inv = (
        s.pick(INVOICE + " WHERE i.status = 'open' AND i.merchant_id = ?", mid)
        if mid
        else s.pick(INVOICE + " WHERE i.status = 'open'")
    )
    digits = last_digits(inv["invoice_id"], 5).lstrip("0")
    s.say(
        "I'm looking at invoice {n}. How much is still due on it?",
        "What's outstanding on invoice {n}?",
        "Can you tell me where invoice number {d} from {m} stands?",
        n=inv["invoice_id"],
        d=digits,
        m=inv["merchant"],
    )
    s.call("get_invoice", invoice_id=inv["invoice_id"])
    method = s.rng.choice(list(METHODS))
    s.say("OK, pay whatever is left by {how}.", "Fine, put the rest through by {how}.", how=METHODS[method])
    paid = s.call("pay_invoice", invoice_id=inv["invoice_id"], method=method)
    s.memory["invoice"] = inv
    s.memory["payment"] = {"payment_id": paid["payment_id"], "invoice_id": inv["invoice_id"]}


# Follow-ups: a short next turn about the customer or merchant the dialogue is already about --------


@payments.intent(covers=("list_invoices",), follows=True, opens=False, weight=1.5)
def customer_history(s: Scene) -> None:
    """The user asks what else the same customer has been billed for."""
    c = s.memory.get("customer")
    if not c:
        raise Skip("no customer in the dialogue yet")
    first = c["name"].split(" ")[0]
    status = s.rng.choice(("paid", "open", "void", None))
    words = {"paid": "already paid", "open": "still open", "void": "cancelled", None: "on file"}[status]
    s.say(
        "What other invoices does {f} have that are {w}?",
        "And which of {f}'s invoices are {w}?",
        "Show me everything of {f}'s that's {w}.",
        f=first,
        w=words,
    )
    args: dict[str, Any] = {"customer_id": c["customer_id"]}
    if status:
        args["status"] = status
    s.asked("list_invoices", **args)
    s.call("list_invoices", **args)


@payments.intent(covers=("list_invoices",), follows=True, opens=False)
def merchant_overdue(s: Scene) -> None:
    """The user widens the view to everything overdue at the customer's merchant."""
    c = s.memory.get("customer")
    if not c:
        raise Skip("no customer in the dialogue yet")
    s.say(
        "While we're at it, what's overdue across all our customers?",
        "Anything else past due at our end?",
        "Which of our other invoices are late?",
    )
    s.asked("list_invoices", merchant_id=c["merchant_id"], overdue=True)
    s.call("list_invoices", merchant_id=c["merchant_id"], overdue=True)


@payments.intent(covers=("list_webhook_deliveries",), follows=True, opens=False, weight=0.7)
def merchant_notifications(s: Scene) -> None:
    """The user checks the notifications their merchant's endpoints got."""
    c = s.memory.get("customer")
    mid = c["merchant_id"] if c else s.memory.get("merchant_id")
    if not mid or not s.rows("SELECT 1 FROM webhook_endpoints WHERE merchant_id = ?", mid):
        raise Skip("no merchant with endpoints in the dialogue yet")
    kind = s.rng.choice(("invoice.paid", "payment.refunded", "invoice.voided", None))
    words = {
        "invoice.paid": "paid-invoice",
        "payment.refunded": "refund",
        "invoice.voided": "cancelled-invoice",
        None: "recent",
    }[kind]
    s.say("Did our systems get the {w} notifications?", "Show me the {w} events our endpoints received.", w=words)
    args: dict[str, Any] = {"merchant_id": mid}
    if kind:
        args["event_type"] = kind
    s.asked("list_webhook_deliveries", **args)
    s.call("list_webhook_deliveries", **args)
