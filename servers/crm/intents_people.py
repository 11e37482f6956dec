"""CRM intents about people: logging calls and meetings with contacts, who someone is, who we know somewhere."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.crm.intents import (
    CONTACT,
    WORDS,
    contact_words,
    dialogue_company,
    find_company,
    find_contact,
    following,
    mine,
    person_ref,
    remember_company,
    remember_contact,
    rep,
    some_contact,
    soon,
    upper,
)
from servers.crm.tools import crm


@crm.intent(covers=("search_contacts", "log_activity", "get_contact"), weight=1.5, follows=True)
def log_a_call(s: Scene) -> None:
    """A rep logs a call (or an email) with a customer contact."""
    c = some_contact(s)
    rep(s, c["owner_id"])
    if any(x.tool == "log_activity" and x.arguments.get("contact_id") == c["contact_id"] for x in s.calls):
        raise Skip("the dialogue already logged something with this person")
    who = contact_words(s, c)
    subject = s.rng.choice(WORDS.notes)
    topic = s.given(subject, f"'{subject}'", "subject", "log_activity", "subject")
    kind = "email" if s.rng.random() < 0.3 else "call"
    s.say(
        *(WORDS.emailed if kind == "email" else WORDS.called),
        minimal=["Emailed {who}[: {topic}]." if kind == "email" else "Called {who}[: {topic}]."],
        who=who,
        topic=topic,
    )
    contact_id = find_contact(s, c)
    s.call("log_activity", kind=kind, subject=subject, contact_id=contact_id)
    remember_contact(s, c)
    if following(s) or s.rng.random() < 0.6:
        return
    s.say(WORDS.log_a_call, first=c["name"].split()[0])
    s.call("get_contact", contact_id=contact_id)


@crm.intent(covers=("search_contacts", "get_contact", "search_accounts"), follows=True)
def who_is_that(s: Scene) -> None:
    """A rep asks for a contact's details (title, email, what they are working on with us)."""
    c = some_contact(s)
    rep(s, c["owner_id"])
    if following(s) and (s.memory.get("contact") or {}).get("contact_id") == c["contact_id"]:
        raise Skip("the dialogue's own person: a follow-up asks that")
    if following(s) or s.rng.random() < 0.6:
        s.say(
            WORDS.who_is_that,
            who=person_ref(s, "contacts", "contact_id", c, c["company"], named_alone=not following(s)),
        )
        contact_id = find_contact(s, c)
    else:
        if len(s.rows("SELECT 1 FROM contacts WHERE account_id = ? AND title = ?", c["account_id"], c["title"])) != 1:
            raise Skip("the title is not unique at the company")
        s.say(WORDS.who_is_that_by_title, t=c["title"], co=c["company"])
        account_id = find_company(s, c["account_id"], c["company"])
        if c["contact_id"] not in [
            x["contact_id"] for x in s.call("search_contacts", account_id=account_id)["contacts"]
        ]:
            raise Skip("the contact is not listed")
        contact_id = c["contact_id"]
    s.call("get_contact", contact_id=contact_id)
    remember_contact(s, c)


@crm.intent(covers=("search_contacts", "log_activity"), follows=True)
def book_meeting(s: Scene) -> None:
    """A rep puts a meeting with a contact (or on a deal) in the CRM for a day ahead."""
    c = some_contact(s)
    rep(s, c["owner_id"])
    due, when = soon(s, 2, 4, 7, 10)
    subject = s.rng.choice(WORDS.meetings)
    who = contact_words(s, c)
    s.say(
        WORDS.book_meeting,
        who=who,
        Who=upper(who),
        when=when,
        topic=s.given(subject, f"'{subject}'", "subject", "log_activity", "subject"),
    )
    contact_id = find_contact(s, c)
    s.call("log_activity", kind="meeting", subject=subject, contact_id=contact_id, due_date=due)
    remember_contact(s, c)


@crm.intent(covers=("search_accounts", "search_contacts"), follows=True)
def people_at_company(s: Scene) -> None:
    """A rep asks who we know at a company (everyone, or people with a title like the one they need)."""
    cond, params = mine(s, "owner_id")
    if following(s):
        a = dialogue_company(s)
        if any(
            c.tool in ("get_account", "search_contacts") and c.arguments.get("account_id") == a["account_id"]
            for c in s.calls
        ):
            raise Skip("the dialogue already listed its people")
    else:
        a = s.pick(
            "SELECT * FROM accounts WHERE account_id IN (SELECT account_id FROM contacts GROUP BY account_id "
            f"HAVING COUNT(*) >= 2){cond}",
            *params,
        )
        rep(s, a["owner_id"])
    word = s.rng.choice((None, None, "Director", "VP", "Manager"))
    if word and not s.rows(
        "SELECT 1 FROM contacts WHERE account_id = ? AND title LIKE ?", a["account_id"], f"%{word}%"
    ):
        word = None
    if word:
        s.say(WORDS.people_at_company, w=word, co=a["name"])
    else:
        s.say(WORDS.people_at_company_all, co=a["name"])
    account_id = find_company(s, a["account_id"], a["name"])
    found = s.call("search_contacts", account_id=account_id, **({"query": word} if word else {}))["contacts"]
    if not found:
        raise Skip("nobody listed")
    remember_company(s, a)
    if len(found) == 1:
        c = s.rows(CONTACT + " AND c.contact_id = ?", found[0]["contact_id"])
        if c:
            remember_contact(s, c[0])
