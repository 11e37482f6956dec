"""Moving money: between own accounts, cash in or out, paying saved or new recipients, opening and funding."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip, money
from servers.banking.intents import (
    KIND_WORDS,
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
    memo = s.rng.choice(WORDS.memos) if s.rng.random() < 0.5 and s.level != "minimal" else ""
    much = s.given(amount, money(amount), "amount", "transfer_funds", "amount")
    note = f" Put '{memo}' on it." if memo else ""
    s.say(WORDS.move_between_my_accounts, me=who(s, c), much=much, src=acc_ref(s, src), dst=acc_ref(s, dst), note=note)
    cid = find_me(s, c)
    a, b = account_of(s, cid, src), account_of(s, cid, dst)
    s.call("transfer_funds", from_account_id=a, to_account_id=b, amount=amount, **({"memo": memo} if memo else {}))
    s.memory["account"] = dst
    if s.rng.random() < 0.4:
        return  # a follow-up turn may carry on
    s.say(WORDS.move_between_my_accounts_check, kind=KIND_WORDS[dst["type"]])
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
    label = (
        s.rng.choice(WORDS.notes_out if out else WORDS.notes_in)
        if s.level == "complete" and s.rng.random() < 0.4
        else None
    )
    note = f" Label it '{label}'." if label else ""
    if out:
        s.say(WORDS.cash_in_or_out_withdraw, me=who(s, c), much=much, what=what, note=note)
    else:
        s.say(WORDS.cash_in_or_out_deposit_check, me=who(s, c), much=much, what=what, note=note)
    cid = find_me(s, c)
    aid = account_of(s, cid, acc, narrow=True)
    s.call(tool, account_id=aid, amount=amount, **({"description": label} if label else {}))
    s.memory["account"] = acc
    if s.rng.random() < 0.4:
        return
    s.say(WORDS.cash_in_or_out, k="withdrawals" if out else "deposits")
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
    cid = customer_asks(s, c, WORDS.pay_someone_saved)
    saved = s.call("list_payees", customer_id=cid)["payees"]
    hit = [p for p in saved if p["payee_id"] == payee["payee_id"]]
    if not hit:
        raise Skip("the payee is past the first page")
    name = payee_ref(s, c["customer_id"], payee)
    much = s.given(amount, money(amount), "amount", "pay_payee", "amount")
    s.say(WORDS.pay_someone_saved_send, much=much, name=name, what=acc_ref(s, acc))
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
    cid = customer_asks(s, c, WORDS.pay_someone_new, role=role, name=name, bank=bank, num=num)
    s.call("add_payee", customer_id=cid, name=name, bank_name=bank, account_number=number)
    payee_id = s.rows(
        "SELECT payee_id FROM payees WHERE customer_id = ? AND account_number = ?", c["customer_id"], number
    )[0]["payee_id"]
    much = s.given(amount, money(amount), "amount", "pay_payee", "amount")
    s.say(WORDS.pay_someone_new_send, much=much, what=acc_ref(s, acc), first=name.split()[0])
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
    cid = customer_asks(s, c, WORDS.open_and_fund, kind=KIND_WORDS[kind])
    new = s.call("open_account", customer_id=cid, type=kind)
    much = s.given(amount, money(amount), "amount", "transfer_funds", "amount")
    s.say(WORDS.open_and_fund_transfer, much=much, src=acc_ref(s, src))
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
    s.say(WORDS.open_one_more, kind=KIND_WORDS[kind])
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
    s.say(WORDS.save_someone, role=role, name=name, bank=bank, num=number)
    s.call("add_payee", customer_id=c["customer_id"], name=name, bank_name=bank, account_number=number)
