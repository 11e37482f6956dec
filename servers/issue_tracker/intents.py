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

from hub.synth.intent import Ref, Scene, Skip
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


def board(s: Scene, key: str) -> tuple[str, bool]:
    """How the user names a project: mostly by its name ("Mobile App"), sometimes by its key ("MOB")."""
    return (NAMES[key], True) if s.rng.random() < 0.7 else (key, False)


def project_key(s: Scene, key: str, named: bool) -> str:
    """The project key: read off the project list when the user gave the name, else the key they said."""
    if not named:
        return key
    hit = s.find("list_projects", "projects", "name", NAMES[key], missing="the project is not listed")
    return str(hit["project_id"])


def issue_ref(s: Scene, i: dict[str, Any], b: str, by_key: bool | None = None) -> str:
    """A ticket as a member names it: by key when they hold it, else by its title (and status) in its project."""
    if by_key is None:
        by_key = s.rng.random() < 0.2
    if by_key:
        return s.refer(
            i["issue_id"],
            Ref("{key}", "SELECT issue_id FROM issues WHERE issue_id = ?", i["issue_id"]),
            key=i["issue_id"],
        )
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
        Ref('{key}, the "{t}" {k}', "SELECT issue_id FROM issues WHERE issue_id = ?", i["issue_id"]),
        t=i["title"],
        k=kind,
        p=b,
        st=i["status"].replace("_", " "),
        key=i["issue_id"],
    )


def locate(s: Scene, i: dict[str, Any], ref: str, **filters: Any) -> str:
    """Find the ticket the way the user named it: by key (read it), or by its title."""
    if ref.startswith(i["issue_id"]):
        s.call("get_issue", issue_id=i["issue_id"])
        return str(i["issue_id"])
    found = s.call("search_issues", query=i["title"], **filters)["issues"]
    hit = [x for x in found if x["issue_id"] == i["issue_id"]]
    if not hit:
        raise Skip("the ticket is not on the first page")
    return str(hit[0]["issue_id"])


# Tickets -------------------------------------------------------------------------------------------


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "assign_issue", "transition_issue"), weight=1.5)
def pick_up_ticket(s: Scene) -> None:
    """A developer takes an open ticket, then starts work on it."""
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
    what = issue_ref(s, i, board(s, i["project_id"])[0])
    s.say(
        "I'm {me}. I'll take {what}, put it on me.",
        "{me} here: assign {what} to me, please.",
        "This is {me}. {What} is mine now, can you make me the owner?",
        minimal=["{me}: I'm taking {what}."],
        me=u["name"],
        what=what,
        What=what[:1].upper() + what[1:],
    )
    uid = find_me(s, u)
    key = locate(s, i, what, status="open")
    s.call("assign_issue", issue_id=key, assignee_id=uid)
    s.say("And mark it as started.", "I'm starting on it right now, update the status.", "Move it to in progress too.")
    s.call("transition_issue", issue_id=key, user_id=uid, to_status="in_progress")


@tracker.intent(covers=("search_users", "list_projects", "create_issue", "label_issue"), weight=1.5)
def report_bug(s: Scene) -> None:
    """A member files a new bug and tags it with one of the project's labels."""
    u = me(s)
    title = s.rng.choice(NEW_BUGS)
    priority = s.rng.choice(("medium", "high", "critical", "low"))
    label = s.pick("SELECT name FROM labels WHERE project_id = ?", u["project_id"])["name"]
    what = s.given(title, f'"{title}"', "title", "create_issue", "title")
    urgency = {"low": "no rush", "medium": "normal priority", "high": "fairly urgent", "critical": "it's critical"}
    b, named = board(s, u["project_id"])
    s.say(
        "I'm {me}. Log a problem on the {p} board[: {what}]. {urg}.",
        "{me} here: something's broken in {p}[: {what}], {urg}. Please write it up.",
        "This is {me}. Please file a {p} bug[ called {what}] ({urg}).",
        me=u["name"],
        p=b,
        what=what,
        urg=urgency[priority],
    )
    uid = find_me(s, u)
    key = project_key(s, u["project_id"], named)
    args: dict[str, Any] = {"project_id": key, "reporter_id": uid, "type": "bug", "title": title}
    if priority != "medium":
        args["priority"] = priority
    made = s.call("create_issue", **args)
    s.say("Tag it '{l}'.", "Add the '{l}' label to it.", "It should carry '{l}' as well.", l=label)
    s.call("label_issue", issue_id=made["issue_id"], label=label)
    s.memory["issue"] = made


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "transition_issue", "add_comment"), weight=1.2)
def finish_ticket(s: Scene) -> None:
    """A ticket passed review: it is closed with a note, then the member looks at what else waits for review."""
    u = me(s, "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status = 'in_review')")
    i = s.pick("SELECT * FROM issues WHERE project_id = ? AND status = 'in_review'", u["project_id"])
    b = board(s, i["project_id"])[0]
    what = issue_ref(s, i, b)
    text = s.rng.choice(COMMENTS)
    note = s.given(text, f'"{text}"', "comment", "add_comment", "body")
    s.say(
        "I'm {me}. {What} passed review, close it out[ and leave a note: {note}].",
        "{me} here: {what} is finished[; add the comment {note}].",
        "This is {me}. Mark {what} as complete[, with a comment saying {note}].",
        me=u["name"],
        what=what,
        What=what[:1].upper() + what[1:],
        note=note,
    )
    uid = find_me(s, u)
    key = locate(s, i, what, status="in_review")
    s.call("transition_issue", issue_id=key, user_id=uid, to_status="done")
    s.call("add_comment", issue_id=key, author_id=uid, body=text)
    s.say(
        "What else is waiting for review on {p}?",
        "Anything else in review on the {p} board?",
        "Which other {p} tickets are sitting in review?",
        p=b,
    )
    s.call("search_issues", project_id=i["project_id"], status="in_review")


@tracker.intent(covers=("get_issue", "search_users", "transition_issue", "add_comment"))
def reopen_ticket(s: Scene) -> None:
    """A ticket the member holds the key of came back: it is reopened with a note."""
    u = me(s, "EXISTS (SELECT 1 FROM issues i WHERE i.project_id = m.project_id AND i.status = 'done')")
    i = s.pick("SELECT * FROM issues WHERE project_id = ? AND status = 'done'", u["project_id"])
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


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "update_issue"), weight=1.2)
def escalate(s: Scene) -> None:
    """A member raises a ticket's priority, then looks at the other urgent bugs of the project."""
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
    b = board(s, i["project_id"])[0]
    what = issue_ref(s, i, b)
    said = {"critical": "top priority", "high": "high priority"}[new]
    s.say(
        "I'm {me}. Customers keep hitting {what}; make it {said}.",
        "{me} here: {what} needs to be {said} now.",
        "This is {me}. Raise {what} to {said}, it's hurting us.",
        minimal=["{me}: {what} is more urgent than it looks."],
        me=u["name"],
        what=what,
        said=said,
    )
    uid = find_me(s, u)
    key = locate(s, i, what)
    s.call("update_issue", issue_id=key, user_id=uid, priority=new)
    s.say(
        "What other {p} bugs are that urgent and nobody has started?",
        "Which other untouched {p} bugs are {said}?",
        "List the other {said} bugs on {p} that nobody has started.",
        p=b,
        said=said,
    )
    s.call("search_issues", project_id=i["project_id"], type="bug", priority=new, status="open")


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


# Planning ------------------------------------------------------------------------------------------


@tracker.intent(
    covers=("search_issues", "get_issue", "set_story_points", "list_sprints", "move_issue_to_sprint"), weight=1.5
)
def estimate_and_plan(s: Scene) -> None:
    """A backlog ticket gets an estimate and goes into the next sprint that has room."""
    points = s.rng.choice((1, 2, 3, 5, 8))
    i = s.pick(
        "SELECT i.* FROM issues i WHERE i.sprint_id IS NULL AND i.status != 'done' AND (i.story_points IS NULL "
        "OR i.story_points != ?) AND EXISTS (SELECT 1 FROM sprints p WHERE p.project_id = i.project_id AND "
        "p.status = 'planned')",
        points,
    )
    what = issue_ref(s, i, board(s, i["project_id"])[0])
    est = s.given(points, f"{points} points", "estimate", "set_story_points", "points")
    s.say(
        "Estimate {what}[ at {est}].",
        "The team sized {what}[: {est}]. Please record it.",
        "Put an estimate on {what}[, {est}].",
        what=what,
        est=est,
    )
    key = locate(s, i, what, backlog=True)
    s.call("set_story_points", issue_id=key, points=points)
    s.say(
        "Then plan it into the next sprint.",
        "Now get it into the upcoming sprint.",
        "And schedule it for the next sprint.",
    )
    planned = s.call("list_sprints", project_id=i["project_id"], status="planned")["sprints"]
    fits = sorted(
        (p for p in planned if p["committed_points"] + points <= p["capacity"]), key=lambda p: p["start_date"]
    )
    if not fits or fits[0]["start_date"] != min(p["start_date"] for p in planned):
        raise Skip("the next sprint is full")
    s.call("move_issue_to_sprint", issue_id=key, sprint_id=fits[0]["sprint_id"])


@tracker.intent(covers=("list_projects", "list_sprints", "get_sprint", "search_issues"), weight=1.2)
def sprint_check_in(s: Scene) -> None:
    """A lead asks how the current sprint is going, then what nobody has picked up yet."""
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
    s.say(
        "What in it hasn't been started or assigned?",
        "Which of its tickets does nobody own yet?",
        "Anything in there without an owner?",
    )
    s.call("search_issues", sprint_id=active["sprint_id"], unassigned=True)


@tracker.intent(covers=("list_projects", "list_sprints", "close_sprint", "start_sprint"), weight=1.2)
def roll_the_sprint(s: Scene) -> None:
    """The sprint ends: close it, carry what is unfinished into the next one, and start that one."""
    p = s.pick(
        "SELECT p.* FROM projects p WHERE EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id "
        "AND s.status = 'active') AND EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id AND "
        "s.status = 'planned')"
    )
    b, named = board(s, p["project_id"])
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


@tracker.intent(
    covers=("list_projects", "list_sprints", "create_sprint", "search_issues", "get_issue", "move_issue_to_sprint")
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


def _say(d: date) -> str:
    return f"{d.strftime('%B')} {d.day}"


# Teams and overviews -------------------------------------------------------------------------------


@tracker.intent(covers=("list_projects", "search_users", "add_project_member", "get_project"))
def add_to_team(s: Scene) -> None:
    """A lead adds someone to a project's team in a role, then reviews the team."""
    p = s.pick("SELECT * FROM projects")
    b, named = board(s, p["project_id"])
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
    s.say("Who's on the {k} team now?", "Show me the {k} team with their roles.", "List everyone on {k} now.", k=b)
    s.call("get_project", project_id=key)


@tracker.intent(covers=("list_projects", "get_project"))
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


@tracker.intent(covers=("get_distinct_values", "search_issues"))
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
        "I'm {me}. What am I working on right now?",
        "{me} here: which tickets do I have in progress?",
        "This is {me}. List my in-progress tickets.",
        minimal=["{me}: my open work?"],
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


@tracker.intent(covers=("list_projects", "search_issues", "search_users", "assign_issue"))
def triage_critical(s: Scene) -> None:
    """A lead finds the unowned critical tickets of a project and gives the newest to a team member."""
    p = s.pick(
        "SELECT p.* FROM projects p WHERE EXISTS (SELECT 1 FROM issues i WHERE i.project_id = p.project_id AND "
        "i.priority = 'critical' AND i.assignee_id IS NULL AND i.status = 'open')"
    )
    b, named = board(s, p["project_id"])
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
