"""CRM intents about deals: moving, losing and handing them over, a company's rundown, pipelines."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene, Skip, money
from servers.crm.intents import (
    DEAL,
    LOST,
    OPEN,
    STAGE_WORDS,
    WORDS,
    deal_ref,
    dialogue_company,
    dialogue_deal,
    find_company,
    find_deal,
    following,
    mine,
    open_biggest,
    remember_company,
    remember_deal,
    rep,
    rep_asks,
    seen,
    upper,
)
from servers.crm.schema import ALLOWED, OPEN_STAGES
from servers.crm.tools import crm

MOVES = ("search_accounts", "list_deals", "update_deal_stage", "get_account")


def open_deal_of_rep(s: Scene) -> tuple[dict[str, Any], str]:
    """An open deal (the dialogue's, in a continuation) whose owner talks, and how they name it."""
    d = dialogue_deal(s, OPEN) if following(s) else s.pick(DEAL + f" AND {OPEN}")
    if any(c.tool == "update_deal_stage" and c.arguments["deal_id"] == d["deal_id"] for c in s.calls):
        raise Skip("the deal already moved in this dialogue")
    rep(s, d["owner_id"])
    return d, deal_ref(s, d)


@crm.intent(covers=MOVES, weight=2.0, follows=True)
def move_deal_forward(s: Scene) -> None:
    """A rep moves a deal one stage on (or wins it from negotiation)."""
    d, what = open_deal_of_rep(s)
    nxt = ALLOWED[d["stage"]][0]
    if nxt == "closed_won":
        s.say(WORDS.move_deal_forward, what=what, What=upper(what))
    else:
        s.say(WORDS.move_deal_forward_next_stage, what=what, What=upper(what), stage=STAGE_WORDS[nxt])
    s.call("update_deal_stage", deal_id=find_deal(s, d), stage=nxt)
    remember_deal(s, d | {"stage": nxt})


@crm.intent(covers=MOVES, weight=1.5, follows=True)
def lose_deal(s: Scene) -> None:
    """A rep marks a deal lost with the reason."""
    d, what = open_deal_of_rep(s)
    reason = s.rng.choice(list(LOST))
    s.say(WORDS.lose_deal, what=what, What=upper(what), why=LOST[reason])
    s.call("update_deal_stage", deal_id=find_deal(s, d), stage="closed_lost", lost_reason=reason)
    remember_deal(s, d | {"stage": "closed_lost"})


@crm.intent(covers=("list_owners", "list_deals", "reassign_deal", "search_accounts"), weight=1.5, follows=True)
def hand_over_deal(s: Scene) -> None:
    """A sales manager (or the rep) hands an open deal to another rep."""
    known = s.memory.get("deal") if following(s) else None
    if known:
        d = s.pick(DEAL + f" AND d.deal_id = ? AND {OPEN}", known["deal_id"])
    elif following(s):
        raise Skip("no deal in the dialogue")
    else:
        d = s.pick(DEAL + f" AND {OPEN}")
    frm = s.rows("SELECT * FROM owners WHERE owner_id = ?", d["owner_id"])[0]
    to = s.pick("SELECT * FROM owners WHERE active = 1 AND owner_id != ? AND name != ?", frm["owner_id"], frm["name"])
    if s.rows("SELECT 1 FROM owners WHERE name IN (?, ?) GROUP BY name HAVING COUNT(*) > 1", frm["name"], to["name"]):
        raise Skip("two reps share a name")
    by_company = s.rng.random() < 0.4
    if known and seen(s, d["deal_id"]):
        s.say(WORDS.hand_over_deal, b=to["name"])
    else:
        what = deal_ref(s, d)
        s.say(WORDS.hand_over_deal_named, a=frm["name"], b=to["name"], what=what)
    ids = {o["name"]: o["owner_id"] for o in s.call("list_owners", active=True)["owners"]}
    if to["name"] not in ids or (not by_company and frm["name"] not in ids):
        raise Skip("the rep is not listed")
    if not seen(s, d["deal_id"]):
        if by_company:
            find_deal(s, d, open_only=True)
        else:
            theirs = s.call("list_deals", owner_id=ids[frm["name"]], open_only=True, limit=100)["deals"]
            if d["deal_id"] not in [x["deal_id"] for x in theirs]:
                raise Skip("the deal is not listed")
    s.call("reassign_deal", deal_id=d["deal_id"], owner_id=ids[to["name"]])
    remember_deal(s, d | {"owner_id": to["owner_id"]})
    s.memory["new_owner"] = {"owner_id": to["owner_id"], "name": to["name"]}


@crm.intent(covers=("search_accounts", "get_account", "get_deal"), weight=1.5, follows=True)
def account_rundown(s: Scene) -> None:
    """A rep preps for a meeting: the company's contacts and deals (and maybe the biggest open deal)."""
    cond, params = mine(s, "owner_id")
    if following(s):
        a = dialogue_company(s)
        if any(c.tool == "get_account" and c.arguments["account_id"] == a["account_id"] for c in s.calls):
            raise Skip("already looked at the account")
        s.say(WORDS.account_rundown_follow_on, co=a["name"])
    else:
        a = s.pick(
            "SELECT * FROM accounts WHERE account_id IN (SELECT account_id FROM deals WHERE stage IN "
            f"('prospecting', 'qualification', 'proposal', 'negotiation')){cond}",
            *params,
        )
        rep(s, a["owner_id"])
        s.say(WORDS.account_rundown_first_turn, co=a["name"])
    acc = s.call("get_account", account_id=find_company(s, a["account_id"], a["name"]))
    remember_company(s, acc)
    if following(s) or s.rng.random() < 0.5:
        return
    open_biggest(s, [d for d in acc["deals"] if d["stage"] in OPEN_STAGES], "two open deals tie", WORDS.account_rundown)


@crm.intent(covers=("get_distinct_values", "list_deals"))
def pipeline_review(s: Scene) -> None:
    """A sales manager looks at how deals spread over the stages, then at the big ones in one stage."""
    stage = s.rng.choice(OPEN_STAGES)
    floor = s.rng.choice((25_000, 50_000, 100_000))
    s.say(WORDS.pipeline_review)
    if stage not in s.call("get_distinct_values", field="deal_stage")["values"]:
        raise Skip("no deal in that stage")
    s.say(WORDS.pipeline_review_big_in_stage, w=stage, f=money(floor).removesuffix(".00"))
    s.memory["deals"] = tuple(s.call("list_deals", stage=stage, min_amount=float(floor))["deals"])


@crm.intent(covers=("list_owners", "list_deals", "get_deal"), weight=1.5)
def my_pipeline(s: Scene) -> None:
    """A rep asks for their own open deals (in one stage, or above an amount) and opens the biggest."""
    o = s.pick(
        "SELECT * FROM owners o WHERE active = 1 AND (SELECT COUNT(*) FROM owners x WHERE x.name = o.name) = 1 "
        f"AND (SELECT COUNT(*) FROM deals d WHERE d.owner_id = o.owner_id AND {OPEN}) >= 2"
    )
    how = s.rng.random()
    stage = s.pick(
        f"SELECT d.stage FROM deals d WHERE d.owner_id = ? AND {OPEN} GROUP BY d.stage HAVING COUNT(*) >= 2",
        o["owner_id"],
    )["stage"]
    floor = s.rng.choice((20_000, 40_000, 75_000))
    args: dict[str, Any] = {"open_only": True}
    if how < 0.4:
        key, value = "open", ""
    elif how < 0.7:
        key, value, args = "stage", STAGE_WORDS[stage], {"stage": stage}
    else:
        key, value, args["min_amount"] = "floor", money(floor).removesuffix(".00"), float(floor)
    me = rep_asks(s, o, WORDS.family("my_pipeline_asks")[key], v=value)
    deals = s.call("list_deals", owner_id=me, **args)["deals"]
    if len(deals) < 2:
        raise Skip("too few deals")
    s.memory["deals"] = tuple(deals)
    if s.rng.random() < 0.5:
        return
    open_biggest(s, deals, "two biggest", WORDS.my_pipeline)


@crm.intent(covers=("search_accounts", "list_deals", "get_deal", "get_account"), weight=1.5, follows=True)
def deal_status(s: Scene) -> None:
    """A rep asks where a deal stands: its stage, its history and what is planned on it."""
    cond, params = mine(s, "d.owner_id")
    if following(s):
        d = dialogue_deal(s)
        if any(c.tool == "get_deal" and c.arguments["deal_id"] == d["deal_id"] for c in s.calls):
            raise Skip("already looked at the deal")
    else:
        d = s.pick(DEAL + cond, *params)
    rep(s, d["owner_id"])
    what = deal_ref(s, d)
    s.say(WORDS.deal_status, what=what, What=upper(what))
    s.call("get_deal", deal_id=find_deal(s, d))
    remember_deal(s, d)
