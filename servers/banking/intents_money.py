"""Moving money: between own accounts, cash in or out, paying saved or new recipients, opening and funding."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip, money
from servers.banking.intents import (
    MEMOS,
    NOTES_IN,
    NOTES_OUT,
    PAYEES,
    WORDS,
    acc_ref,
    account_of,
    amount_of,
    customer_asks,
    find_me,
    me,
    owned,
    payee_ref,
    the_customer,
    who,
)
from servers.banking.tools import banking


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
        "{Can you|Could you} {check|confirm} the {kind} {balance|total} {now|after that}?",
        "Did it {land|arrive}? What's the {kind} {showing|at}?",
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
        "{Could you|Can you} {pull up|read me} the {last|most recent} {k} {there|on it}?",
        "I want to {check|make sure} it {went through|shows up}: {what are|show me} the latest {k}?",
        "{Which|What} {k} {went through|were made} on that account {lately|recently}?",
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
        "{Good|Great}, {please |}send {name} {much}{| for me}; {use|take it from} {what}.",
        "{I'd like|I want} to send {much} to {name}, {from|out of} {what}.",
        "{Then|Now} send {much} {over |}to {name} {from|using} {what}{|, please}.",
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
        "{Perfect|Thanks}. Send {first} {much} {right away|now}, {from|out of} {what}.",
        "{Next|Then}, send {much} to {first}{| for me} {from|using} {what}.",
        "{Their|The} first payment {is|will be} {much}; take it {from|out of} {what}.",
        much=much,
        what=acc_ref(s, acc),
        first=name.split()[0],
    )
    aid = account_of(s, cid, acc, narrow=True)
    s.call("pay_payee", account_id=aid, payee_id=payee_id, amount=amount)
    s.memory["account"] = acc


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
        "{Could you|Can you} {start|seed} it with {much} {from|out of} {src}?",
        "Move {much} {into it|into the new one} from {src}{|, please}.",
        much=much,
        src=acc_ref(s, src),
    )
    s.call("transfer_funds", from_account_id=account_of(s, cid, src), to_account_id=new["account_id"], amount=amount)
    s.memory["account"] = src


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
        "{Could you|Can you} {also|} {start|arrange} a {kind} {for me|in my name}?",
        "{Time|It's time} I {got|had} a {kind} too - start one, please.",
        "I'd like a new {kind} {as well|too}{|, please}.",
        kind=WORDS[kind],
    )
    s.call("open_account", customer_id=c["customer_id"], type=kind)


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
        "{Could you|Can you} save {role}, {name}, {to my payees|as a recipient}? {bank}, account {num}.",
        "I {need|want} to send money to {role} {from now on|regularly}: {name} at {bank}, account {num}.",
        "Save {name} ({role}) for payments - {bank}, account number {num}.",
        role=role,
        name=name,
        bank=bank,
        num=number,
    )
    s.call("add_payee", customer_id=c["customer_id"], name=name, bank_name=bank, account_number=number)
