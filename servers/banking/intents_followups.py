"""Short follow-ups for banking dialogues: the next thing a customer asks about themself or the account an
earlier turn was about ("also move $200 over from my savings", "lock the card on it too", "pay my landlord
from it while you're at it", "what email do you have for me?"). Each reads what the dialogue left in
``s.memory`` and reuses what earlier reads listed (the agent knows those ids), so it usually costs one call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Ref, Scene, Skip, money
from servers.banking.intents import (
    ACCOUNTS,
    WORDS,
    acc_ref,
    amount_of,
    current_account,
    payee_ref,
    reach_account,
    seen,
    the_customer,
)
from servers.banking.tools import CardId, banking


def _account(where: str = "1=1") -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    """The account an earlier turn used (that fits ``where``): ``{what}`` names it."""

    def on(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
        acc = current_account(s, where)
        return {"account_id": acc["account_id"]}, {"what": acc_ref(s, acc)}

    return on


def _customer(needs: str = "") -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    """The dialogue's customer, with a row of ``needs`` on their id."""

    def on(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
        c = the_customer(s)
        if needs and not s.rows(needs, c["customer_id"]):
            raise Skip(f"the customer does not fit {s.intent.name if s.intent else 'the follow-up'}")
        return {"customer_id": c["customer_id"]}, {}

    return on


AGAIN = (
    FollowUp(
        "cards_on_account",
        "The customer asks which cards are linked to the account.",
        _account("type != 'savings'"),
        "list_cards",
    ),
    FollowUp(
        "who_can_i_pay",
        "The customer asks who is on their list of saved recipients.",
        _customer("SELECT 1 FROM payees WHERE customer_id = ?"),
        "list_payees",
        weight=0.7,
    ),
    FollowUp(
        "details_on_file",
        "The customer asks what contact details the bank has for them.",
        _customer(),
        "get_customer",
        weight=0.8,
    ),
)


follow_ups(banking, AGAIN, WORDS)


@banking.intent(covers=("get_account",), follows=True, opens=False, weight=1.5)
def balance_now(s: Scene) -> None:
    """The customer asks what the account they just used holds now."""
    acc = current_account(s)
    s.asked("get_account", account_id=acc["account_id"])
    moved = any(c.kind == "write" for c in s.calls)
    s.say(WORDS.balance_now if moved else WORDS.balance_now_no_change, what=acc_ref(s, acc))
    s.call("get_account", account_id=acc["account_id"])


@banking.intent(covers=("list_transactions",), follows=True, opens=False, weight=1.5)
def latest_on_statement(s: Scene) -> None:
    """The customer asks for the newest lines on the account's statement."""
    acc = current_account(s)
    n = s.rng.choice((3, 5, 10))
    kind, words = s.rng.choice(((None, "entries"), ("card_payment", "card purchases"), ("deposit", "deposits")))
    s.say(WORDS.latest_on_statement, n=n, w=words, what=acc_ref(s, acc))
    s.call("list_transactions", account_id=acc["account_id"], limit=n, **({"kind": kind} if kind else {}))


@banking.intent(covers=("list_accounts",), follows=True, opens=False)
def my_other_accounts(s: Scene) -> None:
    """The customer asks what else they hold (or which of their accounts are active)."""
    c = s.memory.get("customer")
    if not c or any(k.startswith(f"accounts:{c['customer_id']}:") for k in s.memory):
        raise Skip("no customer, or their accounts are listed already")
    status = s.rng.choice((None, "active"))
    s.say(
        "What other accounts do I have with you?" if status is None else "Which of my accounts are still usable?",
        "Remind me what I hold here." if status is None else "Which of mine are open and active?",
        "{What|Which} accounts {do I have|are in my name}{| with you}?"
        if status is None
        else "{Which|What} accounts can I {still use|actually use} {now|today}?",
        "Show me {all|} my accounts, {please|with balances}."
        if status is None
        else "{Are|Is} any of my accounts {frozen|blocked}? Show me the active ones.",
    )
    s.call("list_accounts", customer_id=c["customer_id"], **({"status": status} if status else {}))


@banking.intent(covers=("list_accounts", "transfer_funds"), follows=True, opens=False, weight=1.5)
def top_up_from_other(s: Scene) -> None:
    """Money moves between the dialogue's account and another of the customer's accounts."""
    acc = current_account(s, "status = 'active'")
    other = s.pick(
        ACCOUNTS + " WHERE customer_id = ? AND status = 'active' AND account_id != ? AND balance > 60",
        acc["customer_id"],
        acc["account_id"],
    )
    into = s.rng.random() < 0.6 or acc["balance"] < 60
    src, dst = (other, acc) if into else (acc, other)
    amount = amount_of(s, 20, min(src["balance"] * 0.5, 5000))
    if into:
        s.say(WORDS.top_up_from_other, much=money(amount), other=acc_ref(s, other), what=acc_ref(s, acc))
    else:
        s.say(WORDS.top_up_from_other_send_out, much=money(amount), other=acc_ref(s, other), what=acc_ref(s, acc))
    a, b = reach_account(s, src), reach_account(s, dst)
    s.call("transfer_funds", from_account_id=a, to_account_id=b, amount=amount)


@banking.intent(covers=("deposit_funds",), follows=True, opens=False)
def pay_in_too(s: Scene) -> None:
    """The customer pays a check into the dialogue's account."""
    acc = current_account(s, "status = 'active'")
    s.asked("deposit_funds", account_id=acc["account_id"])
    amount = amount_of(s, 25, 3000)
    label = s.rng.choice(WORDS.notes_in) if s.rng.random() < 0.4 else None
    s.say(
        "I also have a {much} check to pay into {what}." + (f" Call it '{label}'." if label else ""),
        "Oh, and deposit {much} in {what} as well." + (f" It's the '{label}'." if label else ""),
        "Can you credit {much} to {what} too?" + (f" Note it as '{label}'." if label else ""),
        "{There's|I've got} {much} to bank {too|as well}: {into|put it in} {what}."
        + (f" {{Label|Mark}} it '{label}'." if label else ""),
        "{Please|Could you} put {much} {into|in} {what}{| for me}?" + (f" It's '{label}'." if label else ""),
        much=money(amount),
        what=acc_ref(s, acc),
    )
    s.call("deposit_funds", account_id=acc["account_id"], amount=amount, **({"description": label} if label else {}))


@banking.intent(covers=("withdraw_funds",), follows=True, opens=False)
def cash_from_it(s: Scene) -> None:
    """The customer takes some cash out of the dialogue's account."""
    acc = current_account(s, "status = 'active' AND balance > 60")
    s.asked("withdraw_funds", account_id=acc["account_id"])
    amount = amount_of(s, 20, min(acc["balance"] * 0.4, 1500))
    label = s.rng.choice(WORDS.notes_out) if s.rng.random() < 0.4 else None
    s.say(
        "I'll also take {much} in cash from {what}." + (f" It's for '{label}'." if label else ""),
        "And let me have {much} out of {what} in cash." + (f" Label it '{label}'." if label else ""),
        "{Could I|Can I} {also|} {take|have} {much} {in cash|cash} from {what}?"
        + (f" For '{label}'." if label else ""),
        "{I need|I'll need} {much} {cash|in cash} {too|as well}, {taken|out} of {what}."
        + (f" {{Label|Note}} it '{label}'." if label else ""),
        much=money(amount),
        what=acc_ref(s, acc),
    )
    s.call("withdraw_funds", account_id=acc["account_id"], amount=amount, **({"description": label} if label else {}))


@banking.intent(covers=("list_payees", "pay_payee"), follows=True, opens=False, weight=1.2)
def pay_saved_from_it(s: Scene) -> None:
    """The customer pays one of their saved payees from the dialogue's account."""
    acc = current_account(s, "status = 'active' AND balance > 50")
    payee = s.pick("SELECT * FROM payees WHERE customer_id = ?", acc["customer_id"])
    name = payee_ref(s, acc["customer_id"], payee)
    amount = amount_of(s, 15, min(acc["balance"] * 0.5, 2000))
    memo = s.rng.choice(("June", "Thanks!", "Invoice 1182", "Deposit")) if s.rng.random() < 0.3 else ""
    s.say(
        "While you're at it, pay {name} {much} from {what}." + (f" Reference '{memo}'." if memo else ""),
        "Also send {much} to {name} out of {what}." + (f" Put '{memo}' on it." if memo else ""),
        "And {name} gets {much} from {what}." + (f" Memo: '{memo}'." if memo else ""),
        "{Can you|Could you} {also|} send {name} {much}{| for me} {from|out of} {what}?"
        + (f" Note: '{memo}'." if memo else ""),
        "I owe {name} {much}; take it {from|out of} {what}{|, please}." + (f" Memo '{memo}'." if memo else ""),
        name=name,
        much=money(amount),
        what=acc_ref(s, acc),
    )
    if not seen(s, "list_payees", "payees", "payee_id", payee["payee_id"]):
        listed = s.call("list_payees", customer_id=acc["customer_id"])["payees"]
        if payee["payee_id"] not in [p["payee_id"] for p in listed]:
            raise Skip("the payee is past the first page")
    s.call(
        "pay_payee",
        account_id=acc["account_id"],
        payee_id=payee["payee_id"],
        amount=amount,
        **({"memo": memo} if memo else {}),
    )


@banking.intent(covers=("list_cards", "set_card_status"), follows=True, opens=False)
def lock_card_on_it(s: Scene) -> None:
    """The customer locks (or unlocks) a card linked to the dialogue's account."""
    acc = current_account(s, "status != 'closed'")
    card = s.pick("SELECT * FROM cards WHERE account_id = ? AND status IN ('active', 'locked')", acc["account_id"])
    s.asked("set_card_status", card_id=card["card_id"])
    what = s.refer(
        card["card_id"],
        Ref(
            "the card ending {l4}",
            "SELECT card_id FROM cards WHERE account_id = ? AND last4 = ?",
            acc["account_id"],
            card["last4"],
        ),
        l4=card["last4"],
    )
    if card["status"] == "active":
        s.say(WORDS.lock_card_on_it, what=what)
    else:
        s.say(WORDS.lock_card_on_it_unlock, what=what, What=what[:1].upper() + what[1:])
    s.discover(CardId, card["card_id"], missing="not listed", account_id=acc["account_id"])
    s.call("set_card_status", card_id=card["card_id"], status="locked" if card["status"] == "active" else "active")


@banking.intent(covers=("freeze_account",), follows=True, opens=False, weight=0.6)
def freeze_it_for_now(s: Scene) -> None:
    """The customer asks to freeze the dialogue's account while they are away or worried."""
    acc = current_account(s, "status = 'active'")
    reasons = (("I'm travelling for a month", "travelling"), ("I think someone has my details", "possible fraud"))
    words, reason = s.rng.choice(reasons)
    s.say(WORDS.freeze_it_for_now, why=words, what=acc_ref(s, acc))
    s.call("freeze_account", account_id=acc["account_id"], frozen=True, reason=reason)
