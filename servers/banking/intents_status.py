"""Cards and account status: a lost card, lifting a freeze, emptying and closing an account."""

from __future__ import annotations

from hub.kit.intent import Ref, Scene, Skip
from servers.banking.intents import (
    ACCOUNTS,
    WORDS,
    acc_ref,
    account_of,
    customer_asks,
    find_me,
    me,
    my_accounts,
    owned,
    who,
)
from servers.banking.tools import CardId, banking


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
    cid = customer_asks(s, c, WORDS.lost_card, what=what)
    aid = account_of(s, cid, acc, narrow=True)
    s.discover(CardId, card["card_id"], missing="the card is not listed", account_id=aid)
    s.call("set_card_status", card_id=card["card_id"], status="locked")
    s.memory["account"] = acc
    if s.rng.random() < 0.5:
        s.say(WORDS.lost_card_freeze_account, what=acc_ref(s, acc))
        s.call("freeze_account", account_id=aid, frozen=True)
    else:
        s.say(WORDS.lost_card_found_reactivate)
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
        s.say(WORDS.lift_freeze_also_unfreeze, what=what, why=why)
    else:
        s.say(
            WORDS.lift_freeze_first_turn,
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
    s.say(WORDS.lift_freeze)
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
            WORDS.close_an_account if dst else WORDS.close_an_account_also_cash_out,
            what=what,
            dst=acc_ref(s, dst) if dst else "",
        )
    elif dst:
        s.say(WORDS.close_an_account_first_sweep, me=who(s, c), what=what, dst=acc_ref(s, dst))
    else:
        s.say(WORDS.close_an_account_first_cash_out, me=who(s, c), what=what)
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
        s.say(WORDS.close_an_account_now_close)
    s.call("close_account", account_id=aid)
