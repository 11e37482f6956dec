"""CRM intents about people: logging calls and meetings with contacts, who someone is, who we know somewhere."""

from __future__ import annotations

from hub.kit.intent import Scene, Skip
from servers.crm.intents import (
    CONTACT,
    MEETINGS,
    NOTES,
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

EMAILED = (
    "I emailed {who} {earlier today|this morning}; {record|log} it[ as {topic}].",
    "{Log|Note} that I wrote to {who}[, subject {topic}].",
    "Note down my email to {who}[: {topic}].",
)
CALLED = (
    "Just got off the phone with {who}. {Log|Record} it[ as {topic}].",
    "I had a call with {who} {this morning|earlier}; please {record|log} it[ under {topic}].",
    "{Note|Record} that I spoke to {who} by phone today[, subject {topic}].",
    "{Spoke|Talked} with {who} {earlier|this afternoon}. {Log|Record} the call[ as {topic}].",
)


@crm.intent(covers=("search_contacts", "log_activity", "get_contact"), weight=1.5, follows=True)
def log_a_call(s: Scene) -> None:
    """A rep logs a call (or an email) with a customer contact."""
    c = some_contact(s)
    rep(s, c["owner_id"])
    if any(x.tool == "log_activity" and x.arguments.get("contact_id") == c["contact_id"] for x in s.calls):
        raise Skip("the dialogue already logged something with this person")
    who = contact_words(s, c)
    subject = s.rng.choice(NOTES)
    topic = s.given(subject, f"'{subject}'", "subject", "log_activity", "subject")
    kind = "email" if s.rng.random() < 0.3 else "call"
    s.say(
        *(EMAILED if kind == "email" else CALLED),
        minimal=["Emailed {who}[: {topic}]." if kind == "email" else "Called {who}[: {topic}]."],
        who=who,
        topic=topic,
    )
    contact_id = find_contact(s, c)
    s.call("log_activity", kind=kind, subject=subject, contact_id=contact_id)
    remember_contact(s, c)
    if following(s) or s.rng.random() < 0.6:
        return
    s.say(
        "What deals is {first} {involved in|working on with us}?",
        "{Remind me|Tell me} which of our deals {first} is on.",
        "Is {first} attached to any open deals?",
        "{And|Also} which {deals|opportunities} does {first} {sit on|play a part in}?",
        first=c["name"].split()[0],
    )
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
            "How do I reach {who}, and what are they {involved in|working on with us}?",
            "{Pull up|Look up|Find} {who}'s details for me.",
            "What's {who}'s {role|title}, and are they on any deals?",
            "{Tell me|Remind me} who {who} is: title, email, deals.",
            "What do we know about {who}?",
            minimal=["{who}?"],
            who=person_ref(s, "contacts", "contact_id", c, c["company"], named_alone=not following(s)),
        )
        contact_id = find_contact(s, c)
    else:
        if len(s.rows("SELECT 1 FROM contacts WHERE account_id = ? AND title = ?", c["account_id"], c["title"])) != 1:
            raise Skip("the title is not unique at the company")
        s.say(
            "Who's the {t} at {co}? I need their {details|email}.",
            "{Find|Look up} the {t} over at {co}{ for me|}, with contact info.",
            "I need to reach {co}'s {t}. Who is it?",
            minimal=["{co}'s {t}?"],
            t=c["title"],
            co=c["company"],
        )
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
    subject = s.rng.choice(MEETINGS)
    who = contact_words(s, c)
    s.say(
        "I'm meeting {who} {when}; {put it in the CRM|get it on the record}[ as {topic}].",
        "{Add|Book|Schedule} a meeting with {who} for {when}[, titled {topic}].",
        "{Who} and I are {sitting down|getting together} {when}. {Log|Record} it[ under {topic}].",
        "{Who} agreed to meet {when}; {record|log} the meeting[ as {topic}].",
        minimal=["Meeting with {who} {when}[: {topic}]."],
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
        s.say(
            "Who's a {w} at {co} that I could {talk to|reach out to}?",
            "Do we know any {w}s {over at|at} {co}?",
            "Find me the {w}-level people we know at {co}.",
            "I need someone senior at {co}, a {w} ideally. Who do we have?",
            minimal=["{w}s at {co}?"],
            w=word,
            co=a["name"],
        )
    else:
        s.say(
            "Who do we {know|have} at {co}?",
            "{List|Show me} our contacts {over at|at} {co}.",
            "Which people at {co} are in the {CRM|system}?",
            "{Who are our contacts|Remind me who our contacts are} at {co}.",
            "I need the people side of {co}: {who's who|everyone we've met} there.",
            minimal=["People at {co}?"],
            co=a["name"],
        )
    account_id = find_company(s, a["account_id"], a["name"])
    found = s.call("search_contacts", account_id=account_id, **({"query": word} if word else {}))["contacts"]
    if not found:
        raise Skip("nobody listed")
    remember_company(s, a)
    if len(found) == 1:
        c = s.rows(CONTACT + " AND c.contact_id = ?", found[0]["contact_id"])
        if c:
            remember_contact(s, c[0])
