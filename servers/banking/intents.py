"""What people want of their bank: a customer checking balances, moving money, paying people, minding cards.

The user is a customer who gives their name (with their city or email when the name is shared); the
agent finds their customer id with ``search_customers`` and their accounts with ``list_accounts``.
Customers hold at most one account of each type, so "my checking account" names one account; cards
are named by their last four digits, payees by name, amounts and dates as people say them. A branch
analyst asks about the bank as a whole (``get_distinct_values``, filtered account lists).
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day, money
from hub.kit.speaker import Says, Search, Speaker
from servers.banking.tools import banking

CUSTOMERS = "SELECT customer_id, name, email, city FROM customers"
ACCOUNTS = "SELECT * FROM accounts"
WORDS = {"checking": "checking account", "savings": "savings account", "business": "business account"}
MEMOS = (
    "Rent",
    "Groceries",
    "Car repair",
    "Vacation fund",
    "Tuition",
    "Birthday gift",
    "Emergency fund",
    "Holiday savings",
    "Quarterly taxes",
    "Payroll top-up",
)
NOTES_IN = ("Paycheck", "Tax refund", "Sold my old bike", "Birthday money", "Freelance job")
NOTES_OUT = ("Farmers market", "Cash for the babysitter", "Garage sale", "Trip spending money")
PAYEES = (
    ("Jordan Ellis", "my landlord"),
    ("Brightside Dental", "my dentist"),
    ("Maple Street Daycare", "the daycare"),
    ("Ortega Plumbing", "the plumber"),
    ("Riverside HOA", "the HOA"),
    ("Lena Fischer", "my sister"),
    ("Summit Auto Loans", "the car loan"),
    ("Greenleaf Tutoring", "my kid's tutor"),
)


SPEAKER = Speaker(
    table="customers",
    key="customer_id",
    select=CUSTOMERS,
    memory="customer",
    says=(Says("{name}", "name"), Says("{name} from {city}", "name", "city"), Says("{name} ({email})", "email")),
    search=Search("search_customers", "customers", by=("name", "email")),
    late=True,
)
me = SPEAKER.me
find_me = SPEAKER.find


def who(s: Scene, c: dict[str, Any]) -> str:
    """How the customer introduces themself (``SPEAKER.says``); some read their customer number off a
    statement, and then the agent needs no search."""
    if not s.turns and s.level == "complete" and s.rng.random() < 0.15:
        s.memory["customer"] = {"customer_id": c["customer_id"], "name": c["name"]}
        number = Ref(
            "{name}, customer number {customer_id}",
            "SELECT customer_id FROM customers WHERE customer_id = ?",
            c["customer_id"],
        )
        return s.refer(c["customer_id"], number, **c)
    return SPEAKER.who(s, c)


def customer_asks(s: Scene, c: dict[str, Any], *phrasings: str, **slots: Any) -> str:
    """The customer's turn (``{me}`` filled by ``who``) in one of ``phrasings``, then the discovery call for them:
    their customer id."""
    s.say(*phrasings, me=who(s, c), **slots)
    return find_me(s, c)


def my_accounts(s: Scene, cid: str, **filters: Any) -> list[dict[str, Any]]:
    """The customer's accounts, listed once per dialogue (a later turn reads the same listing)."""
    key = f"accounts:{cid}:{sorted(filters.items())}"
    if key not in s.memory:
        s.memory[key] = s.call("list_accounts", customer_id=cid, **filters)["accounts"]
    return list(s.memory[key])


def account_of(s: Scene, cid: str, acc: dict[str, Any], narrow: bool = False) -> str:
    """The account id as the agent reads it off the customer's account list (``narrow``: the agent may list
    only accounts of the type the user named, or only active ones)."""
    filters: dict[str, Any] = {}
    if narrow and s.rng.random() < 0.5:
        filters = {"type": acc["type"]} if s.rng.random() < 0.6 or acc["status"] != "active" else {"status": "active"}
    hit = [a for a in my_accounts(s, cid, **filters) if a["account_id"] == acc["account_id"]]
    if not hit:
        raise Skip("the account is not on the customer's first page")
    return str(hit[0]["account_id"])


def acc_ref(s: Scene, acc: dict[str, Any]) -> str:
    """'my savings account': one account of each type per customer, proven."""
    return s.refer(
        acc["account_id"],
        Ref(
            "my {kind}",
            "SELECT account_id FROM accounts WHERE customer_id = ? AND type = ?",
            acc["customer_id"],
            acc["type"],
        ),
        kind=WORDS[acc["type"]],
    )


def owned(s: Scene, c: dict[str, Any], where: str, *params: Any) -> dict[str, Any]:
    return s.pick(ACCOUNTS + f" WHERE customer_id = ? AND ({where})", c["customer_id"], *params)


def payee_ref(s: Scene, customer_id: str, payee: dict[str, Any]) -> str:
    """A saved payee as its customer names it: by name, with its bank when that is not enough."""
    return s.refer(
        payee["payee_id"],
        Ref("{n}", "SELECT payee_id FROM payees WHERE customer_id = ? AND name = ?", customer_id, payee["name"]),
        Ref(
            "{n} at {bank}",
            "SELECT payee_id FROM payees WHERE customer_id = ? AND name = ? AND bank_name = ?",
            customer_id,
            payee["name"],
            payee["bank_name"],
        ),
        n=payee["name"],
        bank=payee["bank_name"],
    )


def ask_for(s: Scene, tool: str, args: dict[str, Any], *phrasings: str, **slots: Any) -> Any:
    """The customer asks for a read the dialogue has not made yet (``Skip`` when it has); the agent makes it: its
    result."""
    s.asked(tool, **args)
    s.say(*phrasings, **slots)
    return s.call(tool, **args)


def amount_of(s: Scene, low: float, high: float) -> float:
    """An amount a person would pick: round tens for large sums, cents for small ones."""
    if high < low:
        raise Skip("no room for an amount")
    value = s.rng.uniform(low, high)
    return float(round(value, -1)) if value > 100 and s.rng.random() < 0.7 else round(value, 2)


# Looking ----------------------------------------------------------------------------------------


@banking.intent(covers=("search_customers", "list_accounts", "list_transactions"), weight=1.5)
def recent_activity(s: Scene) -> None:
    """A customer checks what came in or went out of one account lately."""
    recent = (s.now - timedelta(days=150)).strftime("%Y-%m-%d")
    busy = (
        "status != 'closed' AND (SELECT COUNT(*) FROM transactions t WHERE t.account_id = accounts.account_id "
        "AND t.created_at >= ?) >= 2"
    )
    c = me(s, f"customer_id IN (SELECT customer_id FROM accounts WHERE {busy})", recent)
    acc = owned(s, c, busy, recent)
    kind, words = s.rng.choice((("card_payment", "card purchases"), ("deposit", "deposits"), (None, "transactions")))
    dates = [
        r["created_at"]
        for r in s.rows(
            "SELECT created_at FROM transactions WHERE account_id = ? ORDER BY created_at DESC", acc["account_id"]
        )
    ]
    start = date.fromisoformat(dates[min(2, len(dates) - 1)][:10]).replace(day=1)
    if start == s.now.date():
        start = (start - timedelta(days=1)).replace(day=1)
    since = start.isoformat()
    what = acc_ref(s, acc)
    cid = customer_asks(
        s,
        c,
        "I'm {me}. Can you show me the latest {words} on {what}?",
        "{me} here: what's been happening on {what}?",
        "Hi, it's {me}. I'd like to go over {what}, recent {words} especially.",
        minimal=["{me}: what's new on {what}?"],
        what=what,
        words=words,
    )
    aid = account_of(s, cid, acc, narrow=True)
    args: dict[str, Any] = {"account_id": aid}
    if kind and not s.minimal:
        args["kind"] = kind
    s.call("list_transactions", **args)
    s.say(
        "Just the ones since {when}, please.",
        "Only what's from {when} on?",
        "Narrow that to {when} onwards.",
        when=day(since, s.now).removeprefix("on "),
    )
    s.call("list_transactions", **args, since=since)
    s.memory["account"] = acc


@banking.intent(covers=("search_customers", "get_customer", "get_account"))
def profile_and_balance(s: Scene) -> None:
    """A customer checks what the bank has on file for them, then one account's balance and overdraft."""
    c = me(s, "customer_id IN (SELECT customer_id FROM accounts GROUP BY customer_id HAVING COUNT(*) >= 2)")
    acc = owned(s, c, "status != 'closed'")
    cid = customer_asks(
        s,
        c,
        "{me} here. What address and phone number do you have for me, and which accounts are mine?",
        "This is {me}. Could you read me back my details on file and the accounts I hold?",
        "I'm {me}; I just moved, so first tell me what contact info you have and list my accounts.",
        minimal=["{me}: what's on my profile?"],
    )
    profile = s.call("get_customer", customer_id=cid)
    if acc["account_id"] not in profile["account_ids"]:
        raise Skip("the account is not on the profile")
    kind = WORDS[acc["type"]]
    s.say(
        "What's the balance on the {kind}, and is there an overdraft on it?",
        "How much is in the {kind} right now?",
        "And the {kind}: what's it at, and is it in good standing?",
        kind=kind,
    )
    s.call("get_account", account_id=acc["account_id"])
    s.memory["account"] = acc


# Moving money -----------------------------------------------------------------------------------


@banking.intent(covers=("search_customers", "list_accounts", "transfer_funds", "get_account"), weight=2.0)
def move_between_my_accounts(s: Scene) -> None:
    """A customer moves money from one of their accounts to another."""
    c = me(
        s,
        "(SELECT COUNT(*) FROM accounts a WHERE a.customer_id = customers.customer_id AND a.status = 'active' "
        "AND a.balance > 60) >= 1 AND (SELECT COUNT(*) FROM accounts a WHERE a.customer_id = "
        "customers.customer_id AND a.status = 'active') >= 2",
    )
    src = owned(s, c, "status = 'active' AND balance > 60")
    dst = owned(s, c, "status = 'active' AND account_id != ?", src["account_id"])
    amount = amount_of(s, 20, min(src["balance"] * 0.8, 20_000))
    memo = s.rng.choice(MEMOS) if s.rng.random() < 0.5 and s.level != "minimal" else ""
    much = s.given(amount, money(amount), "amount", "transfer_funds", "amount")
    note = f" Put '{memo}' on it." if memo else ""
    s.say(
        "I'm {me}. Please move[ {much}] from {src} to {dst}.{note}",
        "{me} here: shift[ {much}] out of {src} into {dst}.{note}",
        "Hi, it's {me}. Take[ {much}] from {src} and put it in {dst}.{note}",
        minimal=["{me}: I need[ {much}] from {src} over in {dst}."],
        me=who(s, c),
        much=much,
        src=acc_ref(s, src),
        dst=acc_ref(s, dst),
        note=note,
    )
    cid = find_me(s, c)
    a, b = account_of(s, cid, src), account_of(s, cid, dst)
    s.call("transfer_funds", from_account_id=a, to_account_id=b, amount=amount, **({"memo": memo} if memo else {}))
    s.memory["account"] = dst
    if s.rng.random() < 0.4:
        return  # a follow-up turn may carry on
    s.say(
        "What's the {kind} at now?",
        "And what does the {kind} show after that?",
        "How much is in the {kind} now?",
        kind=WORDS[dst["type"]],
    )
    s.call("get_account", account_id=b)
    s.memory["account"] = dst


@banking.intent(
    covers=("search_customers", "list_accounts", "deposit_funds", "withdraw_funds", "list_transactions"), weight=1.5
)
def cash_in_or_out(s: Scene) -> None:
    """A customer pays a check into an account, or takes cash out of one, and looks at the statement."""
    c = me(s, "customer_id IN (SELECT customer_id FROM accounts WHERE status = 'active')")
    acc = owned(s, c, "status = 'active'")
    out = acc["balance"] > 100 and s.rng.random() < 0.5
    amount = amount_of(s, 20, min(acc["balance"] * 0.5, 2000)) if out else amount_of(s, 25, 4000)
    tool = "withdraw_funds" if out else "deposit_funds"
    much = s.given(amount, money(amount), "amount", tool, "amount")
    what = acc_ref(s, acc)
    label = s.rng.choice(NOTES_OUT if out else NOTES_IN) if s.level == "complete" and s.rng.random() < 0.4 else None
    note = f" Label it '{label}'." if label else ""
    if out:
        s.say(
            "I'm {me}, I'd like to take out[ {much}] in cash from {what}.{note}",
            "{me} here. Get me[ {much}] in cash from {what}, please.{note}",
            "This is {me}: I need[ {much}] cash out of {what} today.{note}",
            minimal=["{me}: cash[ {much}] from {what}."],
            me=who(s, c),
            much=much,
            what=what,
            note=note,
        )
    else:
        s.say(
            "I'm {me} and I have a check for[ {much}] to put into {what}.{note}",
            "{me} here: pay[ {much}] into {what}, it's a check from work.{note}",
            "This is {me}. Please credit {what} with the[ {much}] check I brought in.{note}",
            minimal=["{me}: check[ for {much}] goes into {what}."],
            me=who(s, c),
            much=much,
            what=what,
            note=note,
        )
    cid = find_me(s, c)
    aid = account_of(s, cid, acc, narrow=True)
    s.call(tool, account_id=aid, amount=amount, **({"description": label} if label else {}))
    s.memory["account"] = acc
    if s.rng.random() < 0.4:
        return
    s.say(
        "Show me the last few {k} on there.",
        "Can I see the recent {k} on that account?",
        "List the latest {k} there so I can check it.",
        k="withdrawals" if out else "deposits",
    )
    s.call("list_transactions", account_id=aid, kind="withdrawal" if out else "deposit", limit=5)
    s.memory["account"] = acc


@banking.intent(covers=("search_customers", "list_payees", "list_accounts", "pay_payee"), weight=1.5)
def pay_someone_saved(s: Scene) -> None:
    """A customer checks who they have saved, then pays one of them from an account."""
    c = me(
        s,
        "customer_id IN (SELECT customer_id FROM payees) AND customer_id IN (SELECT customer_id FROM accounts "
        "WHERE status = 'active' AND balance > 80)",
    )
    payee = s.pick("SELECT * FROM payees WHERE customer_id = ?", c["customer_id"])
    acc = owned(s, c, "status = 'active' AND balance > 80")
    amount = amount_of(s, 20, min(acc["balance"] * 0.6, 3000))
    cid = customer_asks(
        s,
        c,
        "I'm {me}. Who do I have set up to send money to?",
        "{me} here: which people can I pay from online banking?",
        "This is {me}. Remind me who's on my list of saved recipients.",
        minimal=["{me}: my saved recipients?"],
    )
    saved = s.call("list_payees", customer_id=cid)["payees"]
    hit = [p for p in saved if p["payee_id"] == payee["payee_id"]]
    if not hit:
        raise Skip("the payee is past the first page")
    name = payee_ref(s, c["customer_id"], payee)
    much = s.given(amount, money(amount), "amount", "pay_payee", "amount")
    s.say(
        "Send {much} to {name} from {what}.",
        "OK, pay {name} {much} out of {what}.",
        "Right, {name} gets {much}, taken from {what}.",
        much=much,
        name=name,
        what=acc_ref(s, acc),
    )
    aid = account_of(s, cid, acc, narrow=True)
    s.call("pay_payee", account_id=aid, payee_id=hit[0]["payee_id"], amount=amount)
    s.memory["account"] = acc


@banking.intent(covers=("search_customers", "add_payee", "list_accounts", "pay_payee"), weight=1.5)
def pay_someone_new(s: Scene) -> None:
    """A customer saves a new recipient with their bank details, then pays them."""
    c = me(s, "customer_id IN (SELECT customer_id FROM accounts WHERE status = 'active' AND balance > 150)")
    acc = owned(s, c, "status = 'active' AND balance > 150")
    name, role = s.rng.choice(PAYEES)
    if s.rows("SELECT 1 FROM payees WHERE customer_id = ? AND name = ?", c["customer_id"], name):
        raise Skip("that payee is saved already")
    bank = s.rng.choice(("First Harbor Bank", "Summit Credit Union", "Pacific Trust", "Lakeside Savings"))
    number = str(s.rng.randint(10**7, 10**10 - 1))
    amount = amount_of(s, 40, min(acc["balance"] * 0.5, 2500))
    num = s.given(number, number, "account number", "add_payee", "account_number")
    cid = customer_asks(
        s,
        c,
        "I'm {me}. Please add {role}, {name}, as someone I can pay: they bank with {bank}[, account {num}].",
        "{me} here. Set up {name} ({role}) at {bank} as a recipient[; the account number is {num}].",
        "This is {me}: I want to start paying {role}. It's {name} at {bank}[, account number {num}].",
        minimal=["{me}: save {name} at {bank}[ ({num})] so I can pay them."],
        role=role,
        name=name,
        bank=bank,
        num=num,
    )
    s.call("add_payee", customer_id=cid, name=name, bank_name=bank, account_number=number)
    payee_id = s.rows(
        "SELECT payee_id FROM payees WHERE customer_id = ? AND account_number = ?", c["customer_id"], number
    )[0]["payee_id"]
    much = s.given(amount, money(amount), "amount", "pay_payee", "amount")
    s.say(
        "Great, now send them {much} from {what}.",
        "Now pay {first} {much} out of {what}.",
        "And send the first {much} from {what}.",
        much=much,
        what=acc_ref(s, acc),
        first=name.split()[0],
    )
    aid = account_of(s, cid, acc, narrow=True)
    s.call("pay_payee", account_id=aid, payee_id=payee_id, amount=amount)
    s.memory["account"] = acc


# Cards and account status -----------------------------------------------------------------------


@banking.intent(
    covers=("search_customers", "list_accounts", "list_cards", "set_card_status", "freeze_account"), weight=2.0
)
def lost_card(s: Scene) -> None:
    """A customer lost a card: it gets locked; then the account is frozen too, or the card turns up again."""
    c = me(
        s,
        "customer_id IN (SELECT a.customer_id FROM accounts a JOIN cards k USING (account_id) "
        "WHERE k.status = 'active' AND a.status = 'active')",
    )
    card = s.pick(
        "SELECT k.*, a.type FROM cards k JOIN accounts a USING (account_id) WHERE a.customer_id = ? "
        "AND k.status = 'active' AND a.status = 'active'",
        c["customer_id"],
    )
    what = s.refer(
        card["card_id"],
        Ref(
            "my card ending {l4}",
            "SELECT card_id FROM cards k JOIN accounts a USING (account_id) WHERE a.customer_id = ? AND k.last4 = ?",
            c["customer_id"],
            card["last4"],
        ),
        Ref(
            "my {net} ending {l4}",
            "SELECT card_id FROM cards k JOIN accounts a USING (account_id) "
            "WHERE a.customer_id = ? AND k.last4 = ? AND k.network = ?",
            c["customer_id"],
            card["last4"],
            card["network"],
        ),
        l4=card["last4"],
        net=card["network"],
    )
    acc = {"account_id": card["account_id"], "customer_id": c["customer_id"], "type": card["type"], "status": "active"}
    cid = customer_asks(
        s,
        c,
        "I'm {me} and I can't find {what} anywhere. Block it before someone uses it!",
        "{me} here. I think {what} was stolen, please stop it working.",
        "This is {me}: {what} is gone, left it in a taxi. Can you put a hold on it?",
        minimal=["{me}: {what} is lost."],
        what=what,
    )
    aid = account_of(s, cid, acc, narrow=True)
    s.find("list_cards", "cards", "card_id", card["card_id"], missing="the card is not listed", account_id=aid)
    s.call("set_card_status", card_id=card["card_id"], status="locked")
    s.memory["account"] = acc
    if s.rng.random() < 0.5:
        s.say(
            "To be safe, freeze {what} as well.",
            "Also lock down {what} itself for now.",
            "Please freeze {what} too until I sort this out.",
            what=acc_ref(s, acc),
        )
        s.call("freeze_account", account_id=aid, frozen=True)
    else:
        s.say(
            "Never mind, it was in my other jacket. Turn it back on.",
            "Found it! Can you make it work again?",
            "False alarm, it turned up. Please reactivate it.",
        )
        s.call("set_card_status", card_id=card["card_id"], status="active")


@banking.intent(covers=("search_customers", "list_accounts", "freeze_account", "get_account"), follows=True)
def lift_freeze(s: Scene) -> None:
    """A customer whose account was frozen at their request (or over suspected fraud that is cleared) asks
    to use it again."""
    c = me(
        s,
        "customer_id IN (SELECT customer_id FROM accounts WHERE status = 'frozen' AND status_reason IN "
        "('customer request', 'suspected fraud'))",
    )
    acc = owned(s, c, "status = 'frozen' AND status_reason IN ('customer request', 'suspected fraud')")
    why = {
        "customer request": "I asked you to freeze it a while back",
        "suspected fraud": "there was a fraud alert, but those charges were mine",
    }[acc["status_reason"]]
    what = acc_ref(s, acc)
    if s.turns:
        s.say(
            "Also, {what} got frozen because {why}. Please unfreeze it.",
            "One more thing: {why}, so {what} was locked. I need it working again.",
            what=what,
            why=why,
        )
    else:
        s.say(
            "I'm {me}. {What} got frozen because {why}. Please unfreeze it.",
            "{me} here: {why}, so {what} was locked. I need it working again.",
            "This is {me}. Can you lift the block on {what}? {Why}.",
            minimal=["{me}: make {what} usable again."],
            me=who(s, c),
            what=what,
            What=what[:1].upper() + what[1:],
            why=why,
            Why=why[:1].upper() + why[1:],
        )
    cid = find_me(s, c)
    aid = account_of(s, cid, acc, narrow=True)
    s.call("freeze_account", account_id=aid, frozen=False)
    s.memory["account"] = acc
    if s.rng.random() < 0.4 or not s.room():
        return
    s.say(
        "Is it all active now? What's the balance?",
        "Confirm it's working and tell me what's in it.",
        "What does the account look like now?",
    )
    s.call("get_account", account_id=aid)


@banking.intent(
    covers=("search_customers", "list_accounts", "get_account", "transfer_funds", "withdraw_funds", "close_account"),
    weight=1.5,
    follows=True,
)
def close_an_account(s: Scene) -> None:
    """A customer empties an account (into another of theirs, or as cash) and closes it; in a follow-up turn,
    both at once ("and I'm done with my savings account: move what's left to checking and close it")."""
    c = me(
        s,
        "customer_id IN (SELECT customer_id FROM accounts WHERE status = 'active' AND balance > 0 "
        "AND balance <= 25000)",
    )
    acc = owned(s, c, "status = 'active' AND balance > 0 AND balance <= 25000")
    others = s.rows(
        ACCOUNTS + " WHERE customer_id = ? AND status = 'active' AND account_id != ?",
        c["customer_id"],
        acc["account_id"],
    )
    dst = s.rng.choice(others) if others and s.rng.random() < 0.7 else None
    what = acc_ref(s, acc)
    follow = bool(s.turns)
    if follow and (s.memory.get("account") or {}).get("account_id") == acc["account_id"]:
        raise Skip("the dialogue just used that account")
    if follow:
        s.say(
            *(
                (
                    "One more thing: I don't need {what} anymore. Move what's left to {dst} and close it.",
                    "And I'm done with {what}: sweep it into {dst} and shut it.",
                )
                if dst
                else (
                    "Also, I'm done with {what}: give me what's left in cash and close it.",
                    "One more thing: cash out {what} and close it for good.",
                )
            ),
            what=what,
            dst=acc_ref(s, dst) if dst else "",
        )
    elif dst:
        s.say(
            "I'm {me}. I don't need {what} anymore: move everything in it over to {dst}.",
            "{me} here: sweep the whole balance of {what} into {dst}, I'm winding it down.",
            "This is {me}. Empty {what} into {dst}, please, all of it.",
            minimal=["{me}: all of {what} into {dst}."],
            me=who(s, c),
            what=what,
            dst=acc_ref(s, dst),
        )
    else:
        s.say(
            "I'm {me}. I want to cash out everything in {what}, I'm done with it.",
            "{me} here: give me whatever's left in {what} in cash.",
            "This is {me}. Withdraw the full balance of {what}, please.",
            minimal=["{me}: cash out {what}."],
            me=who(s, c),
            what=what,
        )
    cid = find_me(s, c)
    listed = [a for a in my_accounts(s, cid) if a["account_id"] == acc["account_id"]]
    if not listed:
        raise Skip("the account is past the first page")
    balance = listed[0]["balance"]
    aid = listed[0]["account_id"]
    if balance != acc["balance"]:
        balance = s.call("get_account", account_id=aid)["balance"]  # the listing predates this dialogue's moves
    if dst:
        s.call("transfer_funds", from_account_id=aid, to_account_id=account_of(s, cid, dst), amount=balance)
    else:
        s.call("withdraw_funds", account_id=aid, amount=balance)
    if not follow:
        s.say("Now close it for good.", "OK, and shut that account down.", "Great, please close it now.")
    s.call("close_account", account_id=aid)


@banking.intent(covers=("search_customers", "list_accounts", "open_account", "transfer_funds"), weight=1.5)
def open_and_fund(s: Scene) -> None:
    """A customer opens the kind of account they lack and moves a starting amount into it."""
    c = me(
        s,
        "(SELECT COUNT(*) FROM accounts a WHERE a.customer_id = customers.customer_id) < 3 AND customer_id IN "
        "(SELECT customer_id FROM accounts WHERE status = 'active' AND balance > 200)",
    )
    have = {r["type"] for r in s.rows("SELECT type FROM accounts WHERE customer_id = ?", c["customer_id"])}
    kind = s.rng.choice(sorted({"checking", "savings", "business"} - have))
    src = owned(s, c, "status = 'active' AND balance > 200")
    amount = amount_of(s, 50, min(src["balance"] * 0.7, 20_000))
    cid = customer_asks(
        s,
        c,
        "I'm {me}. I'd like to open a {kind} with you.",
        "{me} here: can you set me up with a new {kind}?",
        "This is {me}. Time I got a {kind}, please open one for me.",
        minimal=["{me}: new {kind}."],
        kind=WORDS[kind],
    )
    new = s.call("open_account", customer_id=cid, type=kind)
    much = s.given(amount, money(amount), "amount", "transfer_funds", "amount")
    s.say(
        "Now fund it with {much} from {src}.",
        "Put {much} into it from {src}.",
        "Move {much} over from {src} to get it started.",
        much=much,
        src=acc_ref(s, src),
    )
    s.call("transfer_funds", from_account_id=account_of(s, cid, src), to_account_id=new["account_id"], amount=amount)
    s.memory["account"] = src


# The branch analyst -----------------------------------------------------------------------------


@banking.intent(covers=("get_distinct_values", "list_accounts", "search_customers"))
def branch_review(s: Scene) -> None:
    """A branch analyst looks at how accounts or customers spread, then drills into one group."""
    if s.rng.random() < 0.5:
        status = s.rng.choice(("frozen", "closed"))
        floor = s.rng.choice((None, 1000, 5000))
        s.say(
            "What states can an account be in across the bank?",
            "Which account statuses do we have on the books?",
            "Give me the list of account statuses in use.",
            minimal=["Account statuses?"],
        )
        if status not in s.call("get_distinct_values", field="account_status")["values"]:
            raise Skip("no account in that status")
        big = f" holding at least {money(floor)}" if floor else ""
        s.say(
            "Show me the {st} ones{big}.",
            "Which accounts are {st}{big}?",
            "List the {st} accounts{big}.",
            st=status,
            big=big,
        )
        s.call("list_accounts", status=status, **({"min_balance": float(floor)} if floor else {}))
    else:
        s.say(
            "Which cities do our customers live in?",
            "What cities is our customer base spread over?",
            "List the cities we have customers in.",
            minimal=["Customer cities?"],
        )
        cities = s.call("get_distinct_values", field="city")["values"]
        city = s.rng.choice(sorted(cities))
        s.say(
            "Who are our customers in {c}?", "Pull up the customers based in {c}.", "Show me everyone from {c}.", c=city
        )
        s.call("search_customers", query=city)


# Follow-ups: a short next turn about the customer or account the dialogue is already about ------------


def current_account(s: Scene, where: str = "1=1") -> dict[str, Any]:
    """The account an earlier turn acted on, as it is now (``Skip`` when there is none or it does not fit)."""
    acc = s.memory.get("account")
    if not acc or not s.memory.get("customer"):
        raise Skip("no account in the dialogue yet")
    found = s.rows(ACCOUNTS + f" WHERE account_id = ? AND ({where})", acc["account_id"])
    if not found:
        raise Skip("the account does not fit")
    return found[0]


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
