"""Short follow-ups for payments dialogues: the next thing a bookkeeper asks about the invoice, customer or
merchant an earlier turn was about ("where does it stand now?", "scrap it", "what else is overdue?").

Those that are one turn and one call on what the dialogue holds are rows of a table (``ON_INVOICE``,
``ON_CUSTOMER``), registered in a loop; each row ``Skip``s when the dialogue holds nothing that fits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.payments.intents import INVOICE, VOID_REASONS, WORDS
from servers.payments.tools import payments

STATUSES = (("paid", "already paid"), ("open", "still open"), ("void", "cancelled"), (None, "on file"))
Act = Callable[[Scene, dict[str, Any]], tuple[dict[str, Any], dict[str, Any]]]


def dialogue_invoice(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The invoice an earlier turn acted on or looked at, as it is now (``Skip`` when none or it does not fit)."""
    known = s.known("invoice", "no invoice in the dialogue yet")
    found = s.rows(INVOICE + f" WHERE i.invoice_id = ? AND ({where})", known["invoice_id"], *params)
    if not found:
        raise Skip("the dialogue's invoice does not fit")
    return found[0]


def dialogue_customer(s: Scene) -> dict[str, Any]:
    """The customer an earlier turn found (with their merchant's id), ``Skip`` when none."""
    return dict(s.known("customer", "no customer in the dialogue yet"))


def voided(s: Scene, inv: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    reason = s.rng.choice(list(VOID_REASONS))
    return {"status": "void", "reason": reason}, {"why": VOID_REASONS[reason]}


def history(s: Scene, c: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    status, words = s.rng.choice(STATUSES)
    args = {"customer_id": c["customer_id"], **({"status": status} if status else {})}
    return args, {"w": words, "f": c["name"].split(" ")[0]}


def overdue(s: Scene, c: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return {"merchant_id": c["merchant_id"], "overdue": True}, {}


def on_invoice(act: Act, where: str = "1=1") -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    """The invoice of the dialogue (that fits ``where``): the call takes its id, then what ``act`` adds."""

    def about(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
        inv = dialogue_invoice(s, where)
        args, slots = act(s, inv)
        return {"invoice_id": inv["invoice_id"], **args}, slots

    return about


def on_customer(act: Act) -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    return lambda s: act(s, dialogue_customer(s))


def by_status(said: dict[str, tuple[str, ...]]) -> Callable[[Scene, dict[str, Any]], tuple[str, ...]]:
    """The phrasings for the invoice's status now, then those for any (``*``)."""

    def phrased(s: Scene, args: dict[str, Any]) -> tuple[str, ...]:
        status = s.value("SELECT status FROM invoices WHERE invoice_id = ?", args["invoice_id"])
        return said.get(status, ()) + said["*"]

    return phrased


ON_INVOICE = (
    FollowUp(
        "invoice_now",
        "The user asks where the invoice of the dialogue stands after what was just done.",
        on_invoice(lambda s, row: ({}, {})),
        "get_invoice",
        phrased=by_status(
            {
                "paid": ("Is it showing as paid now?", "Can you confirm {that one|it} is fully settled{ now|}?"),
                "open": WORDS.still_due,
                "void": (
                    "Double-check it shows as cancelled, please.",
                    "Is it {marked void|showing as cancelled} now?",
                ),
                "draft": ("Read me back the draft before it goes anywhere.", "What does the draft say exactly?"),
                "*": (
                    "{Pull|Bring} that invoice up for me, please.",
                    "{Show me|Let me see} {that invoice|the invoice} {as it is now|now}.",
                    "Where does that {invoice|one} stand {now|at this point}?",
                    "Can I {see|have a look at} that invoice {again|once more}?",
                ),
            }
        ),
        weight=1.5,
    ),
    FollowUp(
        "send_it_out",
        "The draft the dialogue is about goes out to the customer.",
        on_invoice(lambda s, inv: ({"status": "open"}, {}), "i.status = 'draft'"),
        "update_invoice_status",
        weight=0.8,
    ),
    FollowUp(
        "scrap_it",
        "The user changes their mind: the invoice of the dialogue is cancelled.",
        on_invoice(voided, "i.status IN ('draft', 'open') AND i.amount_paid = 0"),
        "update_invoice_status",
    ),
)
ON_CUSTOMER = (
    FollowUp(
        "customer_history",
        "The user asks what else the same customer has been billed for.",
        on_customer(history),
        "list_invoices",
        weight=1.5,
    ),
    FollowUp(
        "merchant_overdue",
        "The user widens the view to everything overdue at the customer's merchant.",
        on_customer(overdue),
        "list_invoices",
    ),
)


# a read the dialogue already made is not asked again
ROWS = [replace(r, asked=payments.tools[r.tool].kind == "read") for r in (*ON_INVOICE, *ON_CUSTOMER)]
follow_ups(payments, ROWS, WORDS)
