"""Short follow-ups for banking dialogues: the next thing a customer asks about themself or the account an
earlier turn was about ("also move $200 over from my savings", "lock the card on it too", "pay my landlord
from it while you're at it", "what email do you have for me?"). Each reads what the dialogue left in
``s.memory`` and reuses what earlier reads listed (the agent knows those ids), so it usually costs one call.
"""

from __future__ import annotations

from hub.kit.intent import Ref, Scene, Skip, money
from servers.banking.intents import (
    ACCOUNTS,
    NOTES_IN,
    NOTES_OUT,
    PAYEES,
    WORDS,
    acc_ref,
    amount_of,
    ask_for,
    current_account,
    payee_ref,
    reach_account,
    seen,
    the_customer,
)
from servers.banking.tools import banking


@banking.intent(covers=("get_account",), follows=True, opens=False, weight=1.5)
def balance_now(s: Scene) -> None:
    """The customer asks what the account they just used holds now."""
    acc = current_account(s)
    s.asked("get_account", account_id=acc["account_id"])
    moved = any(c.kind == "write" for c in s.calls)
    s.say(
        *(
            (
                "So what's left in {what}?",
                "What does {what} show now?",
                "And what's the balance of {what} at this point?",
            )
            if moved
            else ("And what's the balance on {what}?", "How much is in {what}?", "What does {what} hold right now?")
        ),
        what=acc_ref(s, acc),
    )
    s.call("get_account", account_id=acc["account_id"])


@banking.intent(covers=("list_transactions",), follows=True, opens=False, weight=1.5)
def latest_on_statement(s: Scene) -> None:
    """The customer asks for the newest lines on the account's statement."""
    acc = current_account(s)
    n = s.rng.choice((3, 5, 10))
    kind, words = s.rng.choice(((None, "entries"), ("card_payment", "card purchases"), ("deposit", "deposits")))
    s.say(
        "Show me the last {n} {w} on {what}.",
        "What are the {n} most recent {w} on {what}?",
        "Read me the latest {n} {w} from {what}.",
        n=n,
        w=words,
        what=acc_ref(s, acc),
    )
    s.call("list_transactions", account_id=acc["account_id"], limit=n, **({"kind": kind} if kind else {}))


@banking.intent(covers=("list_cards",), follows=True, opens=False)
def cards_on_account(s: Scene) -> None:
    """The customer asks which cards are linked to the account."""
    acc = current_account(s, "type != 'savings'")
    s.asked("list_cards", account_id=acc["account_id"])
    s.say(
        "Which cards are linked to {what}?",
        "What cards do I have on {what}?",
        "Are any cards still working on {what}?",
        what=acc_ref(s, acc),
    )
    s.call("list_cards", account_id=acc["account_id"])


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
    )
    s.call("list_accounts", customer_id=c["customer_id"], **({"status": status} if status else {}))


@banking.intent(covers=("list_payees",), follows=True, opens=False, weight=0.7)
def who_can_i_pay(s: Scene) -> None:
    """The customer asks who is on their list of saved recipients."""
    c = s.memory.get("customer")
    if not c or not s.rows("SELECT 1 FROM payees WHERE customer_id = ?", c["customer_id"]):
        raise Skip("no customer with payees in the dialogue yet")
    ask_for(
        s,
        "list_payees",
        {"customer_id": c["customer_id"]},
        "While you're at it, who do I have saved to send money to?",
        "And who's on my list of recipients?",
        "Remind me who I can pay online.",
    )


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
        s.say(
            "Also move {much} from {other} into {what}.",
            "Top up {what} with {much} from {other} while you're at it.",
            "Then shift {much} over from {other} to {what}.",
            much=money(amount),
            other=acc_ref(s, other),
            what=acc_ref(s, acc),
        )
    else:
        s.say(
            "And send {much} from {what} across to {other}.",
            "Then move {much} from {what} into {other}.",
            "Put {much} from {what} into {other} too.",
            much=money(amount),
            other=acc_ref(s, other),
            what=acc_ref(s, acc),
        )
    a, b = reach_account(s, src), reach_account(s, dst)
    s.call("transfer_funds", from_account_id=a, to_account_id=b, amount=amount)


@banking.intent(covers=("deposit_funds",), follows=True, opens=False)
def pay_in_too(s: Scene) -> None:
    """The customer pays a check into the dialogue's account."""
    acc = current_account(s, "status = 'active'")
    s.asked("deposit_funds", account_id=acc["account_id"])
    amount = amount_of(s, 25, 3000)
    label = s.rng.choice(NOTES_IN) if s.rng.random() < 0.4 else None
    s.say(
        "I also have a {much} check to pay into {what}." + (f" Call it '{label}'." if label else ""),
        "Oh, and deposit {much} in {what} as well." + (f" It's the '{label}'." if label else ""),
        "Can you credit {much} to {what} too?" + (f" Note it as '{label}'." if label else ""),
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
    label = s.rng.choice(NOTES_OUT) if s.rng.random() < 0.4 else None
    s.say(
        "I'll also take {much} in cash from {what}." + (f" It's for '{label}'." if label else ""),
        "And let me have {much} out of {what} in cash." + (f" Label it '{label}'." if label else ""),
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
        s.say(
            "And lock {what}, I'm not using it for a while.",
            "Put a hold on {what} too, please.",
            "Also block {what}; I think my kid has it.",
            what=what,
        )
    else:
        s.say(
            "Also turn {what} back on, I found it.",
            "And unlock {what}, please.",
            "{What} can work again, unlock it.",
            what=what,
            What=what[:1].upper() + what[1:],
        )
    s.find("list_cards", "cards", "card_id", card["card_id"], missing="not listed", account_id=acc["account_id"])
    s.call("set_card_status", card_id=card["card_id"], status="locked" if card["status"] == "active" else "active")


@banking.intent(covers=("freeze_account",), follows=True, opens=False, weight=0.6)
def freeze_it_for_now(s: Scene) -> None:
    """The customer asks to freeze the dialogue's account while they are away or worried."""
    acc = current_account(s, "status = 'active'")
    reasons = (("I'm travelling for a month", "travelling"), ("I think someone has my details", "possible fraud"))
    words, reason = s.rng.choice(reasons)
    s.say(
        "{why}, so freeze {what} until I say otherwise.",
        "One more thing: {why}. Please freeze {what} for now.",
        why=words,
        what=acc_ref(s, acc),
    )
    s.call("freeze_account", account_id=acc["account_id"], frozen=True, reason=reason)


@banking.intent(covers=("open_account",), follows=True, opens=False, weight=0.8)
def open_one_more(s: Scene) -> None:
    """The customer of the dialogue opens the kind of account they do not have yet."""
    c = the_customer(s)
    have = {r["type"] for r in s.rows("SELECT type FROM accounts WHERE customer_id = ?", c["customer_id"])}
    missing = sorted({"checking", "savings"} - have)
    if not missing:
        raise Skip("the customer has both kinds")
    kind = s.rng.choice(missing)
    s.say(
        "While I'm here, open a {kind} for me as well.",
        "I'd also like a {kind}. Can you set one up?",
        "And I don't have a {kind} yet, please open one.",
        kind=WORDS[kind],
    )
    s.call("open_account", customer_id=c["customer_id"], type=kind)


@banking.intent(covers=("get_customer",), follows=True, opens=False, weight=0.8)
def details_on_file(s: Scene) -> None:
    """The customer asks what contact details the bank has for them."""
    c = the_customer(s)
    ask_for(
        s,
        "get_customer",
        {"customer_id": c["customer_id"]},
        "What phone number and address do you have for me, by the way?",
        "Can you read me my contact details on file?",
        "Is my address on file still the old one?",
    )


@banking.intent(covers=("add_payee",), follows=True, opens=False, weight=0.8)
def save_someone(s: Scene) -> None:
    """The customer saves a new person to pay."""
    c = the_customer(s)
    name, role = s.rng.choice(PAYEES)
    if s.rows("SELECT 1 FROM payees WHERE customer_id = ? AND name = ?", c["customer_id"], name):
        raise Skip("already saved")
    bank = s.rng.choice(("First Harbor Bank", "Summit Credit Union", "Pacific Trust", "Lakeside Savings"))
    number = str(s.rng.randint(10**7, 10**10 - 1))
    s.say(
        "Also, save {role} as someone I can pay: {name}, {bank}, account {num}.",
        "One more: add {name} ({role}) at {bank}, account number {num}, to my recipients.",
        role=role,
        name=name,
        bank=bank,
        num=number,
    )
    s.call("add_payee", customer_id=c["customer_id"], name=name, bank_name=bank, account_number=number)
