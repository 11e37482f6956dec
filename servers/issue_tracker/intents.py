"""What people want of the issue tracker: a team member filing, picking up, estimating and closing tickets, and a
lead running sprints.

The user is a project member who says who they are (their name); the agent finds their user id with
``search_users``, issues with ``search_issues`` (the project key, words of the title, a status) and sprints
with ``list_sprints``. People name a ticket by its title ("the checkout page crash") or, when they hold it,
by its key ("WEB-0042"); projects by their key ("the WEB board"); sprints as "the current one", "the next one".
"""

from __future__ import annotations

from datetime import date, timedelta
from operator import itemgetter
from typing import Any

from hub.kit.intent import Ref, Scene, Skip
from servers.issue_tracker.seed import PROJECTS
from servers.issue_tracker.tools import tracker

NAMES = {spec[0]: spec[1] for spec in PROJECTS}

UNIQUE = "u.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
WORKER = (
    "SELECT u.*, m.project_id, m.role, p.name AS project FROM users u JOIN project_members m USING (user_id) "
    f"JOIN projects p USING (project_id) WHERE m.role != 'viewer' AND {UNIQUE}"
)
TYPE_WORDS = {"bug": "bug", "feature": "feature request", "task": "task"}
NEW_BUGS = (
    "Search results flicker while typing",
    "Export button does nothing in Safari",
    "Session expires after five minutes",
    "Totals are rounded the wrong way",
    "Emails go out twice",
    "Date picker ignores the time zone",
    "Page freezes when uploading large files",
    "Sorting by name is wrong",
)
COMMENTS = (
    "Verified on staging, looks good.",
    "Fixed by the last deploy, closing.",
    "Checked with QA, all green.",
    "Released with today's build.",
)
REOPEN_NOTES = (
    "Seeing this again in production.",
    "A customer hit this again this morning.",
    "The fix didn't cover the mobile case.",
)
NEW_WORK = (
    "Add a dark theme toggle",
    "Let users export their data as CSV",
    "Clean up the old feature flags",
    "Write the runbook for on-call",
    "Show delivery dates on the order page",
    "Upgrade the logging library",
    "Remember the last used filters",
    "Add keyboard shortcuts to the editor",
)
SPRINT_ASKS = {
    "open": ("What in it is still waiting to be picked up?", "Which of its tickets hasn't anyone begun?"),
    "in_review": ("Which of its tickets are sitting in review?", "What in there is waiting on a reviewer?"),
    "in_progress": ("What in there is being worked on right now?", "Which of its tickets are underway?"),
}
ROLES = {"developer": "a developer", "qa": "QA", "designer": "a designer", "viewer": "a viewer"}


def me(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The member talking (a non-viewer of some project): the one an earlier turn established, or a fresh pick."""
    known = s.memory.get("me")
    if known:
        found = s.rows(WORKER + f" AND u.user_id = ? AND ({where})", known["user_id"], *params)
        if not found:
            raise Skip("the member of the earlier turn does not fit")
        return s.rng.choice(found)
    u = s.pick(WORKER + f" AND ({where})", *params)
    s.be(u["name"])
    return u


def member_and_ticket(s: Scene, status: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The member talking and a ticket of their board whose status fits ``status`` (an SQL test: "!= 'done'")."""
    u = me(s, f"EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status {status})")
    return u, s.pick(f"SELECT * FROM issues WHERE project_id = ? AND status {status}", u["project_id"])


def find_me(s: Scene, u: dict[str, Any]) -> str:
    """The discovery call for the member's own user id (once per dialogue)."""
    known = s.memory.get("me")
    if known and known["user_id"] == u["user_id"]:
        return str(u["user_id"])
    hit = s.find(
        "search_users",
        "users",
        "user_id",
        u["user_id"],
        missing="the member is not on the first page of the search",
        query=u["name"],
    )
    s.memory["me"] = hit
    return str(hit["user_id"])


def find_user(s: Scene, u: dict[str, Any], project_id: str | None = None) -> str:
    args: dict[str, Any] = {"query": u["name"]}
    if project_id:
        args["project_id"] = project_id
    hit = s.find(
        "search_users",
        "users",
        "user_id",
        u["user_id"],
        missing="the person is not on the first page of the search",
        **args,
    )
    return str(hit["user_id"])


def person(s: Scene, where: str, *params: Any) -> tuple[dict[str, Any], str]:
    """Someone else, named so that exactly one user fits."""
    u = s.pick(f"SELECT * FROM users u WHERE {UNIQUE} AND ({where})", *params)
    text = s.refer(u["user_id"], Ref("{name}", "SELECT user_id FROM users WHERE name = ?", u["name"]), name=u["name"])
    return u, text


ALIASES = {
    "WEB": ("storefront", "online shop"),
    "MOB": ("phone app", "iOS and Android app"),
    "API": ("partner integrations", "webhooks and partner REST"),
    "DATA": ("analytics pipelines", "warehouse and dashboards"),
    "INFRA": ("Kubernetes and CI", "DevOps"),
    "PAY": ("checkout and refunds", "refunds"),
}


def board(s: Scene, key: str) -> tuple[str, bool]:
    """How the user names a project: by its name ("Mobile App"), by what it is about ("the phone app"), or by its
    key ("MOB"); True when the agent has to read the key off the project list."""
    draw = s.rng.random()
    if draw < 0.35:
        return NAMES[key], True
    if draw < 0.8 and key in ALIASES:
        return s.rng.choice(ALIASES[key]), True
    return key, False


def named_board(s: Scene, where: str = "") -> tuple[dict[str, Any], str, bool]:
    """A project (``where``: an SQL test on it, as ``p``) and how the member names its board (see ``board``)."""
    p = s.pick("SELECT p.* FROM projects p" + (f" WHERE {where}" if where else ""))
    b, named = board(s, p["project_id"])
    return p, b, named


def project_key(s: Scene, key: str, named: bool) -> str:
    """The project key: read off the project list when the user gave the name, else the key they said."""
    if not named:
        return key
    hit = s.find("list_projects", "projects", "name", NAMES[key], missing="the project is not listed")
    return str(hit["project_id"])


def issue_ref(s: Scene, i: dict[str, Any], b: str, by_key: bool | None = None) -> str:
    """A ticket as a member names it: by key when they hold it, else by its title (and status) in its project."""
    if by_key is None:
        by_key = s.rng.random() < 0.1
    s.memory.pop("by_owner", None)
    if by_key:
        return s.refer(
            i["issue_id"],
            Ref("{key}", "SELECT issue_id FROM issues WHERE issue_id = ?", i["issue_id"]),
            key=i["issue_id"],
        )
    if s.rng.random() < 0.55:
        mine = owner_ref(s, i)
        if mine is not None:
            return mine
    kind = TYPE_WORDS[i["type"]]
    return s.refer(
        i["issue_id"],
        Ref(
            'the "{t}" {k} on the {p} board',
            "SELECT issue_id FROM issues WHERE project_id = ? AND title = ?",
            i["project_id"],
            i["title"],
        ),
        Ref(
            'the {st} "{t}" {k} on the {p} board',
            "SELECT issue_id FROM issues WHERE project_id = ? AND title = ? AND status = ?",
            i["project_id"],
            i["title"],
            i["status"],
        ),
        Ref(
            'the {pr}-priority "{t}" {k} on the {p} board',
            "SELECT issue_id FROM issues WHERE project_id = ? AND title = ? AND priority = ?",
            i["project_id"],
            i["title"],
            i["priority"],
        ),
        Ref(
            'the "{t}" {k} on the {p} board',
            "SELECT issue_id FROM issues WHERE project_id = ? AND title = ? AND type = ?",
            i["project_id"],
            i["title"],
            i["type"],
        ),
        Ref(
            'the {st}, {pr}-priority "{t}" {k} on the {p} board',
            "SELECT issue_id FROM issues WHERE project_id = ? AND title = ? AND status = ? AND priority = ? "
            "AND type = ?",
            i["project_id"],
            i["title"],
            i["status"],
            i["priority"],
            i["type"],
        ),
        Ref('{key}, the "{t}" {k}', "SELECT issue_id FROM issues WHERE issue_id = ?", i["issue_id"]),
        t=i["title"],
        k=kind,
        p=b,
        st=STATUS_SAID[i["status"]],
        pr=i["priority"],
        key=i["issue_id"],
    )


def named_ticket(s: Scene, i: dict[str, Any]) -> tuple[str, str]:
    """How a member names a ticket of a board: the board as they call it, and the ticket on it."""
    b = board(s, i["project_id"])[0]
    return b, issue_ref(s, i, b)


def new_label(s: Scene, i: dict[str, Any]) -> str:
    """One of the ticket's board labels that the ticket does not carry yet."""
    return str(
        s.pick(
            "SELECT name FROM labels WHERE project_id = ? AND name NOT IN (SELECT label FROM issue_labels WHERE "
            "issue_id = ?)",
            i["project_id"],
            i["issue_id"],
        )["name"]
    )


STATUS_SAID = {"open": "not-started", "in_progress": "in-progress", "in_review": "in-review", "done": "finished"}
OWNED = {"open": "not-started", "in_progress": "in-progress", "in_review": "in-review"}


def owner_ref(s: Scene, i: dict[str, Any]) -> str | None:
    """A ticket named by who has it ("Dana's in-review ticket", "my in-progress ticket") when that person has no
    other ticket in that state; None when the ticket has no owner or the description would not be unique."""
    if not i["assignee_id"] or i["status"] not in OWNED:
        return None
    name = s.value("SELECT name FROM users WHERE user_id = ?", i["assignee_id"])
    if len(s.rows("SELECT 1 FROM users WHERE name = ?", name)) != 1:
        return None
    sql = "SELECT issue_id FROM issues WHERE assignee_id = ? AND status = ?"
    if [r["issue_id"] for r in s.rows(sql, i["assignee_id"], i["status"])] != [i["issue_id"]]:
        return None
    s.memory["by_owner"] = {"user_id": i["assignee_id"], "name": name}
    if s.speaker == name:
        return s.refer(i["issue_id"], Ref("my {st} ticket", sql, i["assignee_id"], i["status"]), st=OWNED[i["status"]])
    text = s.rng.choice(("{o}'s {st} ticket", "the {st} ticket assigned to {o}", "{o}'s only {st} ticket"))
    return s.refer(
        i["issue_id"],
        Ref(text, sql, i["assignee_id"], i["status"]),
        o=name,
        st=OWNED[i["status"]],
    )


def locate(s: Scene, i: dict[str, Any], ref: str, b: str | None = None, **filters: Any) -> str:
    """Find the ticket the way the user named it: by key (read it), by who has it, or by its title; it becomes the
    ticket the dialogue is about (and ``b``, how the user named its board, the dialogue's board)."""
    owner = s.memory.pop("by_owner", None)
    if owner is not None:
        me_ = s.memory.get("me")
        uid = me_["user_id"] if me_ and me_["user_id"] == owner["user_id"] else find_user(s, owner)
        hit = s.find(
            "search_issues",
            "issues",
            "issue_id",
            i["issue_id"],
            missing="the ticket is not listed",
            assignee_id=uid,
            status=i["status"],
        )
        remember(s, i, b)
        return str(hit["issue_id"])
    if ref.startswith(i["issue_id"]):
        if not any(c.tool == "get_issue" and c.arguments.get("issue_id") == i["issue_id"] for c in s.calls):
            s.call("get_issue", issue_id=i["issue_id"])
        remember(s, i, b)
        return str(i["issue_id"])
    if STATUS_SAID[i["status"]] in ref and "status" not in filters:
        filters = {**filters, "status": i["status"]}  # the user said which state it is in
    hit = s.find(
        "search_issues",
        "issues",
        "issue_id",
        i["issue_id"],
        missing="the ticket is not on the first page",
        query=i["title"],
        **filters,
    )
    remember(s, i, b)
    return str(hit["issue_id"])


def remember(s: Scene, i: dict[str, Any], b: str | None = None, named: bool = True) -> None:
    """The ticket (and its board) the dialogue is about now, for the follow-ups; ``named``: the user has said which
    one it is (not so for one the agent listed among others)."""
    s.memory["issue"] = {"issue_id": i["issue_id"], "project_id": i["project_id"], "title": i["title"], "named": named}
    s.memory["project"] = i["project_id"]
    if b is not None:
        s.memory["board"] = b


def hi(s: Scene, u: dict[str, Any]) -> str:
    """How the member opens: their name in the opening turn, nothing in a follow-up (they said it already)."""
    if s.turns:
        return s.rng.choice(("Also, ", "While you're at it, ", "One more: ", "Next, "))
    return s.rng.choice(("{n} here: ", "this is {n}: ", "it's {n}, ")).format(n=u["name"])


# Tickets -------------------------------------------------------------------------------------------


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "assign_issue"), weight=1.5, follows=True)
def pick_up_ticket(s: Scene) -> None:
    """A developer takes an open ticket (starting it is a follow-up)."""
    u = me(
        s,
        "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status = 'open' AND "
        "(i.assignee_id IS NULL OR i.assignee_id != u.user_id))",
    )
    i = s.pick(
        "SELECT * FROM issues WHERE project_id = ? AND status = 'open' AND (assignee_id IS NULL OR assignee_id != ?)",
        u["project_id"],
        u["user_id"],
    )
    b, what = named_ticket(s, i)
    s.say(
        "{hi}I'll take {what}, put it on me.",
        "{hi}I'm picking up {what}; make me the owner, please.",
        "{hi}{what} is mine now, can you make me the owner?",
        minimal=["{me}: I'm taking {what}."],
        me=u["name"],
        hi=hi(s, u),
        what=what,
    )
    uid = find_me(s, u)
    key = locate(s, i, what, b, status="open") if s.rng.random() < 0.6 else locate(s, i, what, b)
    s.call("assign_issue", issue_id=key, assignee_id=uid)


@tracker.intent(covers=("search_users", "list_projects", "create_issue"), weight=1.5, follows=True)
def report_bug(s: Scene) -> None:
    """A member files a new bug, feature request or task on a board (tagging it is a follow-up)."""
    u = me(s)
    kind = s.rng.choice(("bug", "bug", "feature", "task"))
    title = s.rng.choice(NEW_BUGS if kind == "bug" else NEW_WORK)
    if s.rows("SELECT 1 FROM issues WHERE project_id = ? AND title = ?", u["project_id"], title):
        raise Skip("that ticket exists already")
    priority = s.rng.choice(("medium", "high", "critical", "low"))
    what = s.given(title, f'"{title}"', "title", "create_issue", "title")
    urgency = {"low": "no rush", "medium": "normal priority", "high": "fairly urgent", "critical": "it's an emergency"}
    b, named = board(s, u["project_id"])
    if kind == "bug":
        s.say(
            "{hi}Log a problem on the {p} board[: {what}]. {urg}.",
            "{hi}something's broken in {p}[: {what}], {urg}. Please write it up.",
            "{hi}Please file a {p} bug[ called {what}] ({urg}).",
            hi=hi(s, u),
            p=b,
            what=what,
            urg=urgency[priority],
        )
    else:
        s.say(
            "{hi}Write up a new {k} for {p}[: {what}]. {urg}.",
            "{hi}we need a {k} on the {p} board[ called {what}], {urg}.",
            "{hi}Put a {k} on {p}[ for {what}]; {urg}.",
            hi=hi(s, u),
            k=TYPE_WORDS[kind],
            p=b,
            what=what,
            urg=urgency[priority],
        )
    uid = find_me(s, u)
    key = project_key(s, u["project_id"], named)
    args: dict[str, Any] = {"project_id": key, "reporter_id": uid, "type": kind, "title": title}
    if priority != "medium":
        args["priority"] = priority
    made = s.call("create_issue", **args)
    remember(s, made, b)


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "transition_issue", "add_comment"), weight=1.5)
def finish_ticket(s: Scene) -> None:
    """A ticket passed review: it is closed with a note (what else waits for review is a follow-up)."""
    u, i = member_and_ticket(s, "= 'in_review'")
    b, what = named_ticket(s, i)
    text = s.rng.choice(COMMENTS)
    note = s.given(text, f'"{text}"', "comment", "add_comment", "body")
    s.say(
        "{hi}{what} passed review, close it out[ and leave a note: {note}].",
        "{hi}{what} is finished[; write {note} on it].",
        "{hi}Mark {what} as complete[, with a note saying {note}].",
        hi=hi(s, u),
        what=what,
        note=note,
    )
    uid = find_me(s, u)
    key = locate(s, i, what, b, status="in_review") if s.rng.random() < 0.6 else locate(s, i, what, b)
    s.call("transition_issue", issue_id=key, user_id=uid, to_status="done")
    s.call("add_comment", issue_id=key, author_id=uid, body=text)


@tracker.intent(covers=("get_issue", "search_users", "transition_issue", "add_comment"), weight=0.5)
def reopen_ticket(s: Scene) -> None:
    """A ticket the member holds the key of came back: it is reopened with a note."""
    u, i = member_and_ticket(s, "= 'done'")
    what = issue_ref(s, i, i["project_id"], by_key=True)
    s.say(
        "I'm {me}. {what} is broken again. What did we do on it?",
        "{me} here: pull up {what}, it's back.",
        "This is {me}. Show me {what}; the problem came back.",
        me=u["name"],
        what=what,
    )
    s.call("get_issue", issue_id=i["issue_id"])
    uid = find_me(s, u)
    text = s.rng.choice(REOPEN_NOTES)
    s.say(
        'Reopen it and note "{n}"',
        'Open it back up, with the comment "{n}"',
        'Put it back to open and add "{n}"',
        n=text,
    )
    s.call("transition_issue", issue_id=i["issue_id"], user_id=uid, to_status="open")
    s.call("add_comment", issue_id=i["issue_id"], author_id=uid, body=text)
    remember(s, i, i["project_id"])


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "update_issue"), weight=1.2, follows=True)
def escalate(s: Scene) -> None:
    """A member raises a ticket's priority (the other urgent bugs of the board are a follow-up)."""
    u = me(
        s,
        "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status != 'done' AND "
        "i.priority IN ('low', 'medium'))",
    )
    i = s.pick(
        "SELECT * FROM issues WHERE project_id = ? AND status != 'done' AND priority IN ('low', 'medium')",
        u["project_id"],
    )
    new = "critical" if s.minimal else s.rng.choice(("high", "critical"))
    b, what = named_ticket(s, i)
    said = {"critical": "top priority", "high": "high priority"}[new]
    s.say(
        "{hi}customers keep hitting {what}; make it {said}.",
        "{hi}{what} needs to be {said} now.",
        "{hi}raise {what} to {said}, it's hurting us.",
        minimal=["{me}: {what} is more urgent than it looks."],
        hi=hi(s, u),
        me=u["name"],
        what=what,
        said=said,
    )
    uid = find_me(s, u)
    key = locate(s, i, what, b)
    s.call("update_issue", issue_id=key, user_id=uid, priority=new)


@tracker.intent(covers=("search_users", "search_issues", "assign_issue"))
def hand_over(s: Scene) -> None:
    """A lead hands a colleague's in-progress ticket to someone else on the team."""
    row = s.pick(
        "SELECT i.*, a.name AS holder FROM issues i JOIN users a ON a.user_id = i.assignee_id WHERE "
        "i.status = 'in_progress' AND a.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
    )
    lead = s.rows(
        "SELECT u.* FROM users u JOIN projects p ON p.lead_id = u.user_id WHERE p.project_id = ?", row["project_id"]
    )[0]
    if s.memory.get("me") and s.memory["me"]["user_id"] != lead["user_id"]:
        raise Skip("another lead")
    s.be(lead["name"])
    other, named = person(
        s,
        "u.user_id NOT IN (?, ?) AND u.user_id IN (SELECT user_id FROM project_members WHERE "
        "project_id = ? AND role != 'viewer')",
        row["assignee_id"],
        lead["user_id"],
        row["project_id"],
    )
    b, by_name = board(s, row["project_id"])
    what = s.refer(
        row["issue_id"],
        Ref(
            '{h}\'s in-progress "{t}" ticket on {p}',
            "SELECT issue_id FROM issues WHERE project_id = ? "
            "AND assignee_id = ? AND status = 'in_progress' AND title = ?",
            row["project_id"],
            row["assignee_id"],
            row["title"],
        ),
        h=row["holder"],
        t=row["title"],
        p=b,
    )
    s.say(
        "{h} is out this week. What do they have in progress on {p}?",
        "Which {p} tickets is {h} working on right now? They're off sick.",
        "{h} is on leave; show me their in-progress {p} work.",
        h=row["holder"],
        p=b,
    )
    holder = find_user(s, {"user_id": row["assignee_id"], "name": row["holder"]})
    where = {} if by_name else {"project_id": row["project_id"]}
    found = s.call("search_issues", assignee_id=holder, status="in_progress", **where)["issues"]
    if row["issue_id"] not in [x["issue_id"] for x in found]:
        raise Skip("the ticket is not listed")
    s.say("Give {what} to {o}.", "Hand {what} over to {o}.", "{o} should take {what}.", what=what, o=named)
    s.call("assign_issue", issue_id=row["issue_id"], assignee_id=find_user(s, other, row["project_id"]))
    remember(s, row, b)


# Planning ------------------------------------------------------------------------------------------


@tracker.intent(covers=("search_issues", "get_issue", "set_story_points", "search_users"), weight=2.0, follows=True)
def estimate_and_plan(s: Scene) -> None:
    """A backlog ticket gets an estimate (planning it into the next sprint is a follow-up)."""
    points = s.rng.choice((1, 2, 3, 5, 8))
    i = s.pick(
        "SELECT i.* FROM issues i WHERE i.sprint_id IS NULL AND i.status != 'done' AND (i.story_points IS NULL "
        "OR i.story_points != ?) AND EXISTS (SELECT 1 FROM sprints p WHERE p.project_id = i.project_id AND "
        "p.status = 'planned')",
        points,
    )
    b, what = named_ticket(s, i)
    est = s.given(points, f"{points} point{'s' if points != 1 else ''}", "estimate", "set_story_points", "points")
    s.say(
        "Estimate {what}[ at {est}].",
        "The team sized {what}[: {est}]. Please record it.",
        "Put an estimate on {what}[, {est}].",
        what=what,
        est=est,
    )
    key = locate(s, i, what, b, backlog=True) if s.rng.random() < 0.6 else locate(s, i, what, b)
    s.call("set_story_points", issue_id=key, points=points)


@tracker.intent(covers=("list_projects", "list_sprints", "get_sprint", "search_issues"), weight=1.2)
def sprint_check_in(s: Scene) -> None:
    """A lead asks how the current sprint is going (what nobody has picked up yet is a follow-up)."""
    p = s.pick("SELECT p.* FROM projects p JOIN sprints s USING (project_id) WHERE s.status = 'active'")
    b, named = board(s, p["project_id"])
    s.say(
        "How's the current {k} sprint going?",
        "Where are we with the {k} sprint that's running?",
        "Give me the state of the running {k} sprint.",
        minimal=["{k} sprint status?"],
        k=b,
    )
    active = s.call("list_sprints", project_id=project_key(s, p["project_id"], named), status="active")["sprints"][0]
    s.call("get_sprint", sprint_id=active["sprint_id"])
    s.memory.update(project=p["project_id"], board=b, sprint=active["sprint_id"])
    if s.rng.random() < 0.5:
        status = s.rng.choice(("open", "in_review", "in_progress"))
        s.say(*SPRINT_ASKS[status])
        s.call("search_issues", sprint_id=active["sprint_id"], status=status)


@tracker.intent(covers=("list_projects", "list_sprints", "close_sprint", "start_sprint"), weight=1.2)
def roll_the_sprint(s: Scene) -> None:
    """The sprint ends: close it, carry what is unfinished into the next one, and start that one."""
    p, b, named = named_board(
        s,
        "EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id "
        "AND s.status = 'active') AND EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id AND "
        "s.status = 'planned')",
    )
    s.say(
        "The {k} sprint is over. Close it and move whatever isn't finished into the next one.",
        "Wrap up the running {k} sprint; anything unfinished rolls over to the next sprint.",
        "Time to end the {k} sprint. Carry the leftovers into the upcoming one.",
        minimal=["End the {k} sprint, please."],
        k=b,
    )
    sprints = s.call("list_sprints", project_id=project_key(s, p["project_id"], named))["sprints"]
    active = next(x for x in sprints if x["status"] == "active")
    upcoming = sorted((x for x in sprints if x["status"] == "planned"), key=lambda x: x["start_date"])
    if not upcoming:
        raise Skip("no planned sprint listed")
    nxt = upcoming[0]
    left = s.value("SELECT COUNT(*) FROM issues WHERE sprint_id = ? AND status != 'done'", active["sprint_id"])
    if not left and not s.value("SELECT COUNT(*) FROM issues WHERE sprint_id = ?", nxt["sprint_id"]):
        raise Skip("the next sprint would start empty")
    s.call("close_sprint", sprint_id=active["sprint_id"], carry_over_to=nxt["sprint_id"])
    s.say("Now kick off the next one.", "Start the next sprint.", "And get the new sprint going.")
    s.call("start_sprint", sprint_id=nxt["sprint_id"])
    s.memory.update(project=p["project_id"], board=b, sprint=nxt["sprint_id"])


@tracker.intent(
    covers=(
        "list_projects",
        "list_sprints",
        "create_sprint",
        "search_issues",
        "get_issue",
        "move_issue_to_sprint",
        "search_users",
    )
)
def plan_new_sprint(s: Scene) -> None:
    """A lead sets up a sprint after the last planned one and puts a backlog ticket in it."""
    p = s.pick(
        "SELECT p.* FROM projects p WHERE EXISTS (SELECT 1 FROM issues i WHERE i.project_id = p.project_id "
        "AND i.sprint_id IS NULL AND i.status != 'done' AND i.story_points IS NOT NULL)"
    )
    last = s.value("SELECT MAX(end_date) FROM sprints WHERE project_id = ?", p["project_id"])
    start = max(date.fromisoformat(last) + timedelta(days=1), s.now.date())
    end = start + timedelta(days=13)
    n = s.value("SELECT COUNT(*) FROM sprints WHERE project_id = ?", p["project_id"]) + 1
    name = f"{p['project_id']} Sprint {n}"
    capacity = s.rng.choice((30, 40, 40, 45))
    b, named = board(s, p["project_id"])
    called = s.given(name, f'"{name}"', "sprint name", "create_sprint", "name")
    room = "the usual capacity" if capacity == 40 else f"room for {capacity} points"
    s.say(
        "Set up a new sprint on the {k} board[ called {n}] from {a} to {b}, with {c}.",
        "We need the next {k} sprint planned[ ({n})]: {a} through {b}, {c}.",
        "Please create a sprint for {k}[ named {n}] running {a} to {b} with {c}.",
        k=b,
        n=called,
        a=_say(start),
        b=_say(end),
        c=room,
    )
    key = project_key(s, p["project_id"], named)
    if not named:
        s.call("list_sprints", project_id=key, status="planned")
    extra = {} if capacity == 40 else {"capacity": capacity}
    made = s.call(
        "create_sprint", project_id=key, name=name, start_date=start.isoformat(), end_date=end.isoformat(), **extra
    )
    i = s.pick(
        "SELECT * FROM issues WHERE project_id = ? AND sprint_id IS NULL AND status != 'done' AND story_points "
        "IS NOT NULL AND story_points <= ?",
        p["project_id"],
        capacity,
    )
    what = issue_ref(s, i, b, by_key=False)
    s.say("Put {what} in it.", "Plan {what} into that new sprint.", "Start it off with {what}.", what=what)
    key = locate(s, i, what, backlog=True)
    s.call("move_issue_to_sprint", issue_id=key, sprint_id=made["sprint_id"])
    s.memory.update(board=b, sprint=made["sprint_id"])


def _say(d: date) -> str:
    return f"{d.strftime('%B')} {d.day}"


# Teams and overviews -------------------------------------------------------------------------------


@tracker.intent(covers=("list_projects", "search_users", "add_project_member", "get_project"))
def add_to_team(s: Scene) -> None:
    """A lead adds someone to a project's team in a role (reviewing the team is a follow-up)."""
    p, b, named = named_board(s)
    role = s.rng.choice(("developer", "developer", "qa", "designer", "viewer"))
    u, who = person(s, "u.user_id NOT IN (SELECT user_id FROM project_members WHERE project_id = ?)", p["project_id"])
    s.say(
        "Add {who} to the {k} project as {r}.",
        "{who} is joining {k} as {r}; give them access.",
        "Please put {who} on the {k} team, as {r}.",
        minimal=["{who} is joining the {k} team."],
        who=who,
        k=b,
        r=ROLES[role],
    )
    key = project_key(s, p["project_id"], named)
    uid = find_user(s, u)
    args: dict[str, Any] = {"project_id": key, "user_id": uid}
    if role != "developer" and not s.minimal:
        args["role"] = role
    s.call("add_project_member", **args)
    s.memory.update(project=p["project_id"], board=b)
    if s.rng.random() < 0.5:
        s.say("Who's on the {k} team now?", "Show me the {k} team with their roles.", "Who else works on {k} now?", k=b)
        if s.rng.random() < 0.5:
            s.call("get_project", project_id=key)
        else:
            s.call("search_users", project_id=key)


@tracker.intent(covers=("list_projects", "get_project"), weight=0.7)
def busiest_project(s: Scene) -> None:
    """A manager looks at which projects carry the most unresolved work, then at one of them."""
    s.say(
        "Which projects have the most unresolved tickets?",
        "How much open work does each project have?",
        "Give me the unresolved ticket counts per project.",
    )
    found = s.call("list_projects")["projects"]
    p = s.rng.choice(found)
    s.say(
        "Break down {n} by status and tell me who's on it.",
        "Show me {n}: team and ticket counts by status.",
        "Drill into {n} for me.",
        n=p["name"],
    )
    s.call("get_project", project_id=p["project_id"])
    s.memory.update(project=p["project_id"], board=p["name"])


@tracker.intent(covers=("get_distinct_values", "search_issues"), weight=0.6)
def label_hotspots(s: Scene) -> None:
    """A manager looks at the labels in use, then at the open tickets carrying one of them."""
    s.say(
        "Which labels do we use most on tickets?",
        "What are the most common ticket labels?",
        "How often is each label used across our tickets?",
    )
    labels = s.call("get_distinct_values", field="label")["values"]
    label = s.rng.choice(sorted(x for x in labels if len(x) >= 3))  # shorter values do not count as carried
    if not s.value(
        "SELECT COUNT(*) FROM issues i JOIN issue_labels l USING (issue_id) WHERE l.label = ? AND i.status = 'open'",
        label,
    ):
        raise Skip("nothing open with that label")
    s.say(
        "Show me the open ones tagged '{l}'.",
        "Which '{l}' tickets are still open?",
        "List the open tickets labelled '{l}'.",
        l=label,
    )
    s.call("search_issues", label=label, status="open")


@tracker.intent(covers=("search_users", "search_issues", "transition_issue"), weight=1.2)
def send_for_review(s: Scene) -> None:
    """A developer lists what they have in progress and sends one ticket to review."""
    u = me(s, "EXISTS (SELECT 1 FROM issues i WHERE i.assignee_id = u.user_id AND i.status = 'in_progress')")
    s.say(
        "{hi}what am I working on right now?",
        "{hi}which tickets do I have in progress?",
        "{hi}show me my in-progress tickets.",
        minimal=["{me}: my open work?"],
        hi=hi(s, u),
        me=u["name"],
    )
    uid = find_me(s, u)
    mine = s.call("search_issues", assignee_id=uid, status="in_progress")["issues"]
    i = s.choose(mine, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    s.say(
        '"{t}" is ready, send it to review.',
        'Move "{t}" on to review, the PR is up.',
        'I\'ve finished "{t}"; it can be reviewed now.',
        t=i["title"],
    )
    s.call("transition_issue", issue_id=i["issue_id"], user_id=uid, to_status="in_review")
    remember(s, i)


@tracker.intent(covers=("list_projects", "search_issues", "search_users", "assign_issue"))
def triage_critical(s: Scene) -> None:
    """A lead finds the unowned critical tickets of a project and gives the newest to a team member."""
    p, b, named = named_board(
        s,
        "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = p.project_id AND "
        "i.priority = 'critical' AND i.assignee_id IS NULL AND i.status = 'open')",
    )
    s.say(
        "Which critical tickets on {k} have no owner yet?",
        "Anything critical on the {k} board that nobody has picked up?",
        "Show me the unassigned critical work for {k}.",
        minimal=["{k}: unowned critical stuff?"],
        k=b,
    )
    key = project_key(s, p["project_id"], named)
    found = s.call("search_issues", project_id=key, priority="critical", unassigned=True, status="open")["issues"]
    if not found:
        raise Skip("nothing listed")
    top = found[0]
    other, who = person(
        s,
        "u.user_id IN (SELECT user_id FROM project_members WHERE project_id = ? AND role != 'viewer')",
        p["project_id"],
    )
    s.say(
        "Give the most recent one to {o}.", "{o} should take the newest of those.", "Put {o} on the latest one.", o=who
    )
    s.call("assign_issue", issue_id=top["issue_id"], assignee_id=find_user(s, other, key))
    remember(s, top, b)
