"""What people want of the sales CRM: reps working leads and deals, logging their calls; managers reviewing.

Reps name companies ("Apex Labs"), people ("Maria Lopez at Apex Labs") and deals by their name ("the
Apex Labs analytics add-on deal"), never by id. The agent finds accounts with ``search_accounts``,
their deals with ``list_deals`` (or off the account's record), people with ``search_contacts`` and
``search_leads``, and reps by name with ``list_owners``.

Most intents open a dialogue and continue one: a continuation keeps the rep talking (``SPEAKER``: the owner
of what the dialogue is about, ``memory['me']``) and stays on what the dialogue is about: ``deal``,
``company``, ``contact`` or ``lead``. This module holds what they share; the intents live in
``intents_deals``, ``intents_leads``, ``intents_people`` and the short follow-ups in ``intents_followups``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from operator import itemgetter
from typing import Any

from hub.kit.intent import Ref, Scene, Skip, day, money, unique_best
from hub.kit.phrasings import Said, phrasings
from hub.kit.speaker import Says, Speaker
from servers.crm import tools_write  # noqa: F401  (the write tools: registered before an intent covers them)
from servers.crm.tools import AccountId, ContactId, DealId, LeadId, OwnerId

WORDS = phrasings(__package__)

DEAL = (
    "SELECT d.*, a.name AS company FROM deals d JOIN accounts a USING (account_id) "
    "JOIN owners o ON o.owner_id = d.owner_id WHERE o.active = 1"
)
CONTACT = (
    "SELECT c.*, a.name AS company FROM contacts c JOIN accounts a USING (account_id) JOIN owners o "
    "ON o.owner_id = c.owner_id WHERE o.active = 1"
)

OPEN = "d.stage IN ('prospecting', 'qualification', 'proposal', 'negotiation')"
STAGE_WORDS = {
    "prospecting": "early prospecting",
    "qualification": "qualification",
    "proposal": "the proposal stage",
    "negotiation": "negotiation",
    "closed_won": "won",
    "closed_lost": "lost",
}
LOST = {
    "price": "they said we're too expensive",
    "competitor": "they went with a competitor",
    "no_budget": "their budget got cut",
    "no_decision": "they couldn't make up their minds",
    "timing": "the timing isn't right for them",
    "lost_contact": "they stopped answering",
}
SOURCES = {
    "trade_show": "at the trade show",
    "referral": "through a referral",
    "webinar": "on our webinar",
    "cold_call": "on a cold call",
    "partner": "through a partner",
}

# The rep who talks: the owner of what the dialogue is about, or one who names themself ("I'm Maria Lopez").
SPEAKER = Speaker(
    OwnerId, select="SELECT owner_id, name FROM owners WHERE active = 1", memory="me", says=(Says("{name}", "name"),)
)


def upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def following(s: Scene) -> bool:
    """Whether this intent continues a dialogue (an earlier intent already ran)."""
    return len(s.intents) > 1


def seen(s: Scene, value: Any) -> bool:
    """Whether a result earlier in the dialogue carried ``value`` (the agent already holds that id)."""
    quoted = json.dumps(value)
    return any(quoted in json.dumps(c.result) for c in s.calls)


def deal_words(d: dict[str, Any]) -> str:
    """'Apex Labs - Analytics add-on' -> 'Apex Labs analytics add-on': how a rep says a deal's name."""
    company, _, product = d["name"].partition(" - ")
    return f"{company} {product[:1].lower() + product[1:]}" if product else d["name"]


def deal_ref(s: Scene, d: dict[str, Any]) -> str:
    if following(s) and s.memory.get("deal", {}).get("deal_id") == d["deal_id"]:
        return "that deal"
    return s.refer(
        d["deal_id"],
        Ref("the {n} deal", "SELECT deal_id FROM deals WHERE name = ?", d["name"]),
        Ref("the {amt} {n} deal", "SELECT deal_id FROM deals WHERE name = ? AND amount = ?", d["name"], d["amount"]),
        n=deal_words(d),
        amt=money(d["amount"]),
    )


def mine(s: Scene, column: str) -> tuple[str, list[Any]]:
    """A condition keeping a continuation on what the rep talking owns."""
    me = s.memory.get("me")
    if following(s) and me:
        return f" AND {column} = ?", [me["owner_id"]]
    return "", []


def rep(s: Scene, owner_id: str) -> dict[str, Any]:
    """The rep who owns what the user talks about becomes the persona (``Skip`` when a continuation would
    change who talks)."""
    o = SPEAKER.me(s, "owner_id = ?", owner_id)
    s.memory["me"] = {"owner_id": o["owner_id"], "name": o["name"]}
    return o


def rep_asks(s: Scene, o: dict[str, Any], *phrasings: Said, minimal: Sequence[str] = (), **slots: Any) -> str:
    """The rep ``o`` says who they are in one of ``phrasings`` (``{me}``); the agent finds their owner id on
    the list of active reps."""
    me = SPEAKER.who(s, o)
    rep(s, o["owner_id"])
    s.say(*phrasings, minimal=minimal, me=me, **slots)
    found = [r for r in s.call("list_owners", active=True)["owners"] if r["name"] == o["name"]]
    if not found:
        raise Skip("not listed")
    return str(found[0]["owner_id"])


def dialogue_deal(s: Scene, where: str = "1=1") -> dict[str, Any]:
    """An open deal for a continuation: the dialogue's own deal or another at its company, owned by the rep."""
    cond, params = mine(s, "d.owner_id")
    known = s.memory.get("deal") or {}
    company = (s.memory.get("company") or {}).get("account_id") or known.get("account_id")
    if not company:
        raise Skip("no company in the dialogue")
    return s.pick(DEAL + f" AND d.account_id = ? AND ({where}){cond}", company, *params)


def dialogue_company(s: Scene) -> dict[str, Any]:
    """The company of the dialogue as it is now; ``Skip`` when there is none."""
    company = s.known("company", "no company in the dialogue")
    return s.rows("SELECT * FROM accounts WHERE account_id = ?", company["account_id"])[0]


def find_company(s: Scene, account_id: str, name: str) -> str:
    """The agent's path to a company: known already, or searched by its name."""
    if seen(s, account_id):
        return account_id
    found = s.discover(AccountId, account_id, missing="the company is not found", query=name)
    return str(found["account_id"])


def find_deal(s: Scene, d: dict[str, Any], **filters: Any) -> str:
    """The agent's path to a deal: known already, or the company by name, then its deals (listed, or read off
    the account's record)."""
    if seen(s, d["deal_id"]):
        return str(d["deal_id"])
    account_id = find_company(s, d["account_id"], d["company"])
    if s.rng.random() < 0.3 and not filters:
        acc = s.call("get_account", account_id=account_id)
        if d["deal_id"] not in [x["deal_id"] for x in acc["deals"]]:
            raise Skip("the deal is not on the account")
        remember_company(s, acc)
        return str(d["deal_id"])
    filters = dict(filters) if filters else s.rng.choice(({}, {"open_only": True}, {"stage": d["stage"]}))
    found = s.discover(DealId, d["deal_id"], missing="the deal is not listed", account_id=account_id, **filters)
    return str(found["deal_id"])


def remember_deal(s: Scene, d: dict[str, Any]) -> None:
    s.memory["deal"] = {k: d[k] for k in ("deal_id", "account_id", "company", "stage", "name", "owner_id")}
    s.memory["company"] = {"account_id": d["account_id"], "name": d["company"]}


def open_deal(s: Scene, deal_id: str) -> None:
    """The agent reads the deal; it becomes the dialogue's deal."""
    s.call("get_deal", deal_id=deal_id)
    d = s.rows(
        "SELECT d.*, a.name AS company FROM deals d JOIN accounts a USING (account_id) WHERE d.deal_id = ?", deal_id
    )
    if d:
        remember_deal(s, d[0])


def open_biggest(s: Scene, deals: list[dict[str, Any]], tie: str, *phrasings: Said) -> None:
    """The rep opens the biggest of ``deals`` (``Skip`` with ``tie`` when two tie); it becomes the dialogue's deal."""
    top = unique_best(deals, itemgetter("amount"), tie=tie)
    s.say(*phrasings)
    open_deal(s, top["deal_id"])


def remember_company(s: Scene, acc: dict[str, Any]) -> None:
    s.memory["company"] = {"account_id": acc["account_id"], "name": acc["name"]}


def person_ref(s: Scene, table: str, key: str, row: dict[str, Any], company: str, named_alone: bool = True) -> str:
    """A person by name, or name and company, or name and email; ``named_alone=False`` always says the company."""
    by_name = [Ref("{name}", f"SELECT {key} FROM {table} WHERE name = ?", row["name"])] if named_alone else []
    at = "company = ?" if table == "leads" else "(SELECT name FROM accounts a WHERE a.account_id = t.account_id) = ?"
    return s.refer(
        row[key],
        *by_name,
        Ref("{name} at {co}", f"SELECT {key} FROM {table} t WHERE name = ? AND {at}", row["name"], company),
        Ref("{name} ({email})", f"SELECT {key} FROM {table} WHERE email = ?", row["email"]),
        name=row["name"],
        co=company,
        email=row["email"],
    )


def contact_words(s: Scene, c: dict[str, Any]) -> str:
    """How the rep names a contact: by first name when the dialogue is about them, else by ``person_ref``."""
    if following(s) and (s.memory.get("contact") or {}).get("contact_id") == c["contact_id"]:
        return str(c["name"].split()[0])
    return person_ref(s, "contacts", "contact_id", c, c["company"], named_alone=not following(s))


def find_contact(s: Scene, c: dict[str, Any]) -> str:
    """The contact id: known already, else searched by name (within the company when the agent knows it)."""
    if seen(s, c["contact_id"]):
        return str(c["contact_id"])
    args: dict[str, Any] = {"query": c["name"]}
    if seen(s, c["account_id"]) and s.rng.random() < 0.7:  # the agent knows the company: search within it
        args = {"account_id": c["account_id"]} | ({"query": c["name"]} if s.rng.random() < 0.5 else {})
    found = s.discover(ContactId, c["contact_id"], missing="not found", **args)
    return str(found["contact_id"])


def remember_contact(s: Scene, c: dict[str, Any]) -> None:
    s.memory["contact"] = {"contact_id": c["contact_id"], "name": c["name"], "account_id": c["account_id"]}
    s.memory["company"] = {"account_id": c["account_id"], "name": c["company"]}


def some_contact(s: Scene) -> dict[str, Any]:
    """The contact a turn is about: the dialogue's person or someone at its company (owned by the rep), or,
    opening, anyone."""
    if not following(s):
        return s.pick(CONTACT)
    cond, params = mine(s, "c.owner_id")
    known = s.memory.get("contact")
    company = s.memory.get("company")
    if known and s.rng.random() < 0.6:
        return s.pick(CONTACT + f" AND c.contact_id = ?{cond}", known["contact_id"], *params)
    if not company:
        raise Skip("no company in the dialogue")
    return s.pick(CONTACT + f" AND c.account_id = ?{cond}", company["account_id"], *params)


def find_lead(s: Scene, lead: dict[str, Any], **filters: Any) -> None:
    """The lead's id: known already, else searched by name (or by company, or by email; by name alone
    with ``filters``)."""
    if seen(s, lead["lead_id"]):
        return
    r = 0.0 if filters else s.rng.random()
    query = lead["name"] if r < 0.6 else lead["company"] if r < 0.85 else lead["email"]
    s.discover(LeadId, lead["lead_id"], missing="the lead is not found", query=query, **filters)


def remember_lead(s: Scene, lead: dict[str, Any]) -> None:
    s.memory["lead"] = {k: lead[k] for k in ("lead_id", "name", "company", "status", "owner_id")}


def soon(s: Scene, *days: int) -> tuple[str, str]:
    """A due date some ``days`` out: the ISO date and how the rep says it ("Friday", "tomorrow")."""
    due = (s.now + timedelta(days=s.rng.choice(days))).strftime("%Y-%m-%d")
    return due, day(due, s.now).removeprefix("on ")


def follow_up_task(s: Scene, lead_id: str) -> None:
    """The rep asks for a follow-up task on the lead a few days out."""
    due, when = soon(s, 2, 3, 5, 7)
    s.say(*WORDS.follow_up, when=when)
    s.call("log_activity", kind="task", subject="Follow up", lead_id=lead_id, due_date=due)
