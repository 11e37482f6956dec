"""Short follow-ups on the issue tracker, and openers that only look something up: the next step a member asks
after a first request, on the ticket, board or sprint the dialogue is about.

What an earlier turn left in ``s.memory``: ``me`` (the member talking, as ``search_users`` listed them),
``issue`` (the ticket: ``issue_id``, ``project_id``, ``title``), ``project`` (its board's key), ``board`` (how the
user named that board) and ``sprint``. A follow-up re-reads the ticket from the live state and ``Skip``s when it
does not fit what it would do ("start it" on a ticket nobody owns).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from hub.kit.intent import Scene, Skip
from servers.issue_tracker.intents import (
    TYPE_WORDS,
    board,
    find_me,
    find_user,
    hi,
    issue_ref,
    locate,
    me,
    member_and_ticket,
    named_board,
    named_ticket,
    new_label,
    person,
    project_key,
    remember,
)
from servers.issue_tracker.tools import tracker

NOTES = (
    "Looking into this today.",
    "Can QA double-check this on staging?",
    "Blocked until the API change ships.",
    "The customer confirmed the workaround helps.",
    "Pairing with design on this tomorrow.",
    "Repro steps are in the support thread.",
)
STATUS_WORDS = {"open": "not started", "in_progress": "in progress", "in_review": "in review", "done": "done"}


def ticket(s: Scene, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The ticket the dialogue is about, read again now; ``Skip`` when there is none or it does not fit."""
    known = s.memory.get("issue")
    if not known:
        raise Skip("no ticket in the dialogue")
    found = s.rows(f"SELECT * FROM issues WHERE issue_id = ? AND ({where})", known["issue_id"], *params)
    if not found:
        raise Skip("the ticket does not fit")
    return found[0]


def it(s: Scene) -> str:
    """How the user points at the ticket: "it" once they have named it, else by the title the agent listed."""
    known = s.memory["issue"]
    if known.get("named", True):
        return "it"
    s.memory["issue"] = {**known, "named": True}  # a new dict: a rolled-back follow-up restores the old one
    return f'the "{known["title"]}" one'


def listed_others(s: Scene) -> None:
    """After a listing of other tickets, "it" no longer points at the dialogue's ticket: name it next time."""
    known = s.memory.get("issue")
    if known:
        s.memory["issue"] = {**known, "named": False}


def speaker(s: Scene, project_id: str | None = None, assignable: bool = False) -> dict[str, Any]:
    """The member who said who they are, who may act on ``project_id``'s tickets."""
    known = s.memory.get("me")
    if not known:
        raise Skip("nobody said who they are")
    if project_id is not None:
        role = s.value(
            "SELECT role FROM project_members WHERE project_id = ? AND user_id = ?", project_id, known["user_id"]
        )
        if role is None or (assignable and role == "viewer"):
            raise Skip("the member cannot act on that board")
    return dict(known)


def the_board(s: Scene) -> tuple[str, str]:
    """The board the dialogue is about: its key and how the user named it."""
    key = s.memory.get("project")
    if not key:
        raise Skip("no board in the dialogue")
    return str(key), str(s.memory.get("board") or key)


def not_the_dialogues(s: Scene, i: dict[str, Any], follow_up: str) -> None:
    """``Skip`` an opener drawn on the ticket the dialogue is already about: ``follow_up`` says that."""
    known = s.memory.get("issue")
    if known and known["issue_id"] == i["issue_id"]:
        raise Skip(f"the same ticket: that is {follow_up}")


def search_the_board(s: Scene, phrasings: tuple[str, ...], **filters: Any) -> None:
    """A question about the dialogue's board (``{b}`` in the phrasings), answered by a search of its tickets."""
    key, b = the_board(s)
    s.say(*phrasings, b=b)
    s.call("search_issues", project_id=key, **filters)
    listed_others(s)


def on_it(s: Scene, i: dict[str, Any], phrasings: tuple[str, ...], tool: str, **args: Any) -> None:
    """A turn about the ticket (``{it}`` in the phrasings) and the call on it that answers it."""
    s.say(*phrasings, it=it(s))
    s.call(tool, issue_id=i["issue_id"], **args)


def move_it(s: Scene, where: str, phrasings: tuple[str, ...], to: str) -> None:
    """The member moves the ticket (when it fits ``where``) on to status ``to``."""
    i = ticket(s, where)
    u = speaker(s, i["project_id"])
    on_it(s, i, phrasings, "transition_issue", user_id=u["user_id"], to_status=to)


# On the ticket ------------------------------------------------------------------------------------


@tracker.intent(covers=("add_comment",), follows=True, opens=False, weight=1.6)
def note_on_it(s: Scene) -> None:
    """The member leaves a note on the ticket."""
    i = ticket(s)
    u = speaker(s)
    text = s.rng.choice(NOTES)
    s.say(
        'Leave a note on {it}: "{n}"',
        'Write "{n}" on {it} so the team sees.',
        'Put a note on {it} saying "{n}"',
        n=text,
        it=it(s),
    )
    s.call("add_comment", issue_id=i["issue_id"], author_id=u["user_id"], body=text)


@tracker.intent(covers=("label_issue",), follows=True, opens=False, weight=1.6)
def tag_it(s: Scene) -> None:
    """The member tags the ticket with one of its board's labels."""
    i = ticket(s)
    lab = new_label(s, i)
    s.say("Tag {it} '{l}'.", "Put '{l}' on {it} as well.", "Mark {it} with the '{l}' tag too.", l=lab, it=it(s))
    s.call("label_issue", issue_id=i["issue_id"], label=lab)


@tracker.intent(covers=("label_issue",), follows=True, opens=False, weight=1.6)
def untag_it(s: Scene) -> None:
    """The member takes a tag off the ticket that does not belong there."""
    i = ticket(s)
    lab = s.pick("SELECT label FROM issue_labels WHERE issue_id = ?", i["issue_id"])["label"]
    s.say(
        "And drop the '{l}' tag from {it}, that's wrong.",
        "Take the '{l}' tag off {it}; it doesn't apply.",
        "Strip '{l}' from {it}.",
        l=lab,
        it=it(s),
    )
    s.call("label_issue", issue_id=i["issue_id"], label=lab, remove=True)


@tracker.intent(covers=("update_issue",), follows=True, opens=False, weight=1.6)
def reprioritize(s: Scene) -> None:
    """The member changes the ticket's priority ("actually, make it critical")."""
    i = ticket(s, "status != 'done'")
    u = speaker(s, i["project_id"])
    new = s.rng.choice([p for p in ("low", "medium", "high", "critical") if p != i["priority"]])
    s.say(
        "Actually, make {it} {p} priority.",
        "The priority of {it} should be {p}.",
        "Bump {it} to {p}, please." if new in ("high", "critical") else "Drop {it} to {p} priority.",
        p=new,
        it=it(s),
    )
    s.call("update_issue", issue_id=i["issue_id"], user_id=u["user_id"], priority=new)


@tracker.intent(covers=("update_issue",), follows=True, opens=False, weight=1.6)
def retype(s: Scene) -> None:
    """The member says the ticket is really a bug (or a task, or a feature request)."""
    i = ticket(s, "status != 'done'")
    u = speaker(s, i["project_id"])
    new = s.rng.choice([t for t in ("bug", "feature", "task") if t != i["type"]])
    s.say(
        "Make {it} a {k}; it's not really a {o}.",
        "File {it} as a {k} instead.",
        "Turn {it} into a {k}, please.",
        k=TYPE_WORDS[new],
        o=TYPE_WORDS[i["type"]],
        it=it(s),
    )
    s.call("update_issue", issue_id=i["issue_id"], user_id=u["user_id"], type=new)


@tracker.intent(covers=("set_story_points",), follows=True, opens=False, weight=1.6)
def size_it(s: Scene) -> None:
    """The member puts an estimate on the ticket (or changes it)."""
    i = ticket(s, "status != 'done'")
    points = s.rng.choice([p for p in (1, 2, 3, 5, 8) if p != i["story_points"]])
    if i["sprint_id"]:
        cap = s.value("SELECT capacity FROM sprints WHERE sprint_id = ?", i["sprint_id"])
        used = s.value("SELECT COALESCE(SUM(story_points), 0) FROM issues WHERE sprint_id = ?", i["sprint_id"])
        if used - (i["story_points"] or 0) + points > cap:
            raise Skip("the sprint would overflow")
    s.say(
        "Size {it} at {n} points." if i["story_points"] is None else "Re-estimate {it} at {n} points.",
        "The team thinks {it} is {n} points of work.",
        "Call {it} {n} points.",
        n=points,
        it=it(s),
    )
    s.call("set_story_points", issue_id=i["issue_id"], points=points)


def _planned(s: Scene, i: dict[str, Any], status: str) -> list[dict[str, Any]]:
    if i["story_points"] is None or i["status"] == "done":
        raise Skip("not plannable")
    rows: list[dict[str, Any]] = s.call("list_sprints", project_id=i["project_id"], status=status)["sprints"]
    return rows


@tracker.intent(covers=("list_sprints", "move_issue_to_sprint"), follows=True, opens=False, weight=1.6)
def plan_next(s: Scene) -> None:
    """The ticket goes into the next planned sprint that has room."""
    i = ticket(s, "sprint_id IS NULL AND story_points IS NOT NULL AND status != 'done'")
    first = s.value(
        "SELECT sprint_id FROM sprints WHERE project_id = ? AND status = 'planned' ORDER BY start_date LIMIT 1",
        i["project_id"],
    )
    if first is None:
        raise Skip("no planned sprint")
    s.say(
        "Then plan {it} into the next sprint.",
        "Now put {it} in the upcoming sprint.",
        "And schedule {it} for the next sprint.",
        it=it(s),
    )
    planned = _planned(s, i, "planned")
    fits = sorted(planned, key=itemgetter("start_date"))
    if not fits or fits[0]["committed_points"] + i["story_points"] > fits[0]["capacity"]:
        raise Skip("the next sprint is full")
    s.call("move_issue_to_sprint", issue_id=i["issue_id"], sprint_id=fits[0]["sprint_id"])


@tracker.intent(covers=("list_sprints", "move_issue_to_sprint"), follows=True, opens=False, weight=1.6)
def pull_into_current(s: Scene) -> None:
    """The ticket is urgent enough to go into the sprint that is running."""
    i = ticket(
        s,
        "story_points IS NOT NULL AND status != 'done' AND (sprint_id IS NULL OR sprint_id NOT IN "
        "(SELECT sprint_id FROM sprints WHERE status = 'active'))",
    )
    s.say(
        "Pull {it} into the sprint that's running now.",
        "Can {it} go into this sprint instead of waiting?",
        "Squeeze {it} into the current sprint.",
        it=it(s),
    )
    active = _planned(s, i, "active")
    if not active or active[0]["committed_points"] + i["story_points"] > active[0]["capacity"]:
        raise Skip("no room in the running sprint")
    s.call("move_issue_to_sprint", issue_id=i["issue_id"], sprint_id=active[0]["sprint_id"])


@tracker.intent(covers=("move_issue_to_sprint",), follows=True, opens=False, weight=1.6)
def back_to_backlog(s: Scene) -> None:
    """The ticket comes out of its sprint, back to the backlog."""
    i = ticket(
        s,
        "status != 'done' AND sprint_id IN (SELECT sprint_id FROM sprints WHERE status != 'closed')",
    )
    says = (
        "Take {it} out of its sprint, it can wait in the backlog.",
        "We won't get to {it} this time; back to the backlog.",
        "Drop {it} from the sprint for now.",
    )
    on_it(s, i, says, "move_issue_to_sprint", sprint_id=None)


@tracker.intent(covers=("assign_issue",), follows=True, opens=False, weight=1.6)
def take_it(s: Scene) -> None:
    """The member puts the ticket on themselves."""
    i = ticket(s, "status != 'done'")
    u = speaker(s, i["project_id"], assignable=True)
    if i["assignee_id"] == u["user_id"]:
        raise Skip("already theirs")
    says = ("I'll take {it} myself.", "Put {it} on me.", "Make me the owner of {it}.")
    on_it(s, i, says, "assign_issue", assignee_id=u["user_id"])


@tracker.intent(covers=("search_users", "assign_issue"), follows=True, opens=False, weight=1.6)
def give_it_to(s: Scene) -> None:
    """The ticket goes to a named teammate of its board."""
    i = ticket(s, "status != 'done'")
    other, named = person(
        s,
        "u.user_id != COALESCE(?, '') AND u.user_id IN (SELECT user_id FROM project_members WHERE project_id = ? "
        "AND role != 'viewer')",
        i["assignee_id"],
        i["project_id"],
    )
    if s.memory.get("me") and s.memory["me"]["user_id"] == other["user_id"]:
        raise Skip("that is the member talking")
    s.say("Have {o} pick {it} up.", "Hand {it} to {o}.", "{o} should own {it}.", "Give {it} to {o}.", o=named, it=it(s))
    s.call("assign_issue", issue_id=i["issue_id"], assignee_id=find_user(s, other, i["project_id"]))


@tracker.intent(covers=("assign_issue",), follows=True, opens=False, weight=1.6)
def drop_owner(s: Scene) -> None:
    """Nobody should own the not-started ticket for now."""
    i = ticket(s, "status = 'open' AND assignee_id IS NOT NULL")
    says = ("Actually, leave {it} unowned for now.", "Take the owner off {it} again.", "Nobody should own {it} yet.")
    on_it(s, i, says, "assign_issue", assignee_id=None)


@tracker.intent(covers=("transition_issue",), follows=True, opens=False, weight=1.6)
def start_it(s: Scene) -> None:
    """Work starts on the owned ticket."""
    says = ("And mark {it} as begun.", "Work on {it} begins now; flip it to in progress.", "Put {it} in progress.")
    move_it(s, "status = 'open' AND assignee_id IS NOT NULL", says, "in_progress")


@tracker.intent(covers=("transition_issue",), follows=True, opens=False, weight=1.6)
def ready_for_review(s: Scene) -> None:
    """The ticket in progress goes to review."""
    says = ("The PR for {it} is up; ready for review.", "Send {it} on to review.", "{it} can be reviewed now.")
    move_it(s, "status = 'in_progress'", says, "in_review")


@tracker.intent(covers=("transition_issue",), follows=True, opens=False, weight=1.6)
def not_now(s: Scene) -> None:
    """Work on the ticket stops: it goes back to not started."""
    says = (
        "Nobody can get to {it} after all; put it back to open.",
        "Park {it}: back to not started.",
        "Un-start {it}.",
    )
    move_it(s, "status = 'in_progress'", says, "open")


# On the board and the sprint ------------------------------------------------------------------------


@tracker.intent(covers=("get_project",), follows=True, opens=False, weight=0.45)
def board_overview(s: Scene) -> None:
    """The member looks at the board: team, labels, counts by status."""
    key, b = the_board(s)
    s.asked("get_project", project_id=key)
    s.say(
        "How does the {b} board look overall?",
        "Who's on the {b} team now, and how many tickets are in each state?",
        "Give me the big picture for {b}.",
        b=b,
    )
    s.call("get_project", project_id=key)


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def same_kind_open(s: Scene) -> None:
    """The member asks what else of the same kind is open on the board."""
    i = ticket(s)
    b = s.memory.get("board") or i["project_id"]
    s.say(
        "Anything else like that still waiting on {b}?",
        "What other {k}s on {b} is nobody working on yet?",
        "Which others of that kind haven't been started on {b}?",
        k=TYPE_WORDS[i["type"]],
        b=b,
    )
    s.call("search_issues", project_id=i["project_id"], type=i["type"], status="open")
    listed_others(s)


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def waiting_for_review(s: Scene) -> None:
    """The member asks what else waits for review on the board."""
    says = (
        "What else is waiting for review on {b}?",
        "Anything else in review on the {b} board?",
        "Which other {b} tickets are sitting in review?",
    )
    search_the_board(s, says, status="in_review")


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def urgent_on_board(s: Scene) -> None:
    """The member asks for the urgent bugs nobody has started on the board."""
    key, b = the_board(s)
    level = s.rng.choice(("high", "critical"))
    s.say(
        "What other {b} bugs are {p} and nobody has started?",
        "Which untouched {b} bugs are {p}?",
        "Show me the {p} bugs on {b} that are still waiting.",
        b=b,
        p={"high": "high-priority", "critical": "top-priority"}[level],
    )
    s.call("search_issues", project_id=key, type="bug", priority=level, status="open")
    listed_others(s)


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def unowned_on_board(s: Scene) -> None:
    """The member asks which not-started tickets of the board have no owner."""
    says = (
        "What on {b} has no owner yet?",
        "Which {b} tickets is nobody on?",
        "Anything on the {b} board that nobody has picked up?",
    )
    search_the_board(s, says, unassigned=True, status="open")


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def board_backlog(s: Scene) -> None:
    """The member looks at what of the board is in no sprint."""
    says = (
        "What's sitting in the {b} backlog?",
        "Which {b} tickets aren't planned into any sprint?",
        "Show me the unplanned work on {b}.",
    )
    search_the_board(s, says, backlog=True)


@tracker.intent(covers=("search_users",), follows=True, opens=False, weight=0.45)
def who_is_on_it(s: Scene) -> None:
    """The member asks who is on the board's team."""
    key, b = the_board(s)
    s.say("Who's on the {b} team?", "Which people work on {b}?", "Remind me who's in the {b} crew.", b=b)
    s.call("search_users", project_id=key)


@tracker.intent(covers=("list_sprints",), follows=True, opens=False, weight=0.45)
def upcoming_sprints(s: Scene) -> None:
    """The member asks which sprints of the board are coming up and how full they are."""
    key, b = the_board(s)
    s.asked("list_sprints", project_id=key)
    s.say(
        "What's coming up for {b} after this, and how full is it?",
        "Which {b} sprints are planned, and how much is in them?",
        "How loaded are the upcoming {b} sprints?",
        b=b,
    )
    s.call("list_sprints", project_id=key, status="planned")


@tracker.intent(covers=("get_sprint",), follows=True, opens=False, weight=1.3)
def its_sprint(s: Scene) -> None:
    """The member looks at the sprint the ticket (or the dialogue) is in."""
    known = s.memory.get("issue")
    sid = ticket(s)["sprint_id"] if known else s.memory.get("sprint")
    if not sid:
        raise Skip("no sprint in the dialogue")
    s.asked("get_sprint", sprint_id=sid)
    s.say(
        "How is that sprint doing now?",
        "How many points are done in that sprint?",
        "And what else is in that sprint?",
    )
    s.call("get_sprint", sprint_id=sid)


@tracker.intent(covers=("search_issues",), follows=True, opens=False)
def sprint_unowned(s: Scene) -> None:
    """The lead asks what in the dialogue's sprint nobody owns."""
    sid = s.memory.get("sprint")
    if not sid:
        raise Skip("no sprint in the dialogue")
    s.say(
        "What in it hasn't been started or assigned?",
        "Which of its tickets does nobody own yet?",
        "Anything in there without an owner?",
    )
    s.call("search_issues", sprint_id=sid, unassigned=True)
    listed_others(s)


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=1.5)
def my_queue(s: Scene) -> None:
    """The member asks what else is on their plate."""
    u = speaker(s)
    status = s.rng.choice(("in_progress", "open", "in_review"))
    s.say(
        "What else do I have that's {st}?",
        "Which of my tickets are {st} right now?",
        "Remind me what's {st} on my plate.",
        st=STATUS_WORDS[status],
    )
    s.call("search_issues", assignee_id=u["user_id"], status=status)
    listed_others(s)


# Openers that look something up ----------------------------------------------------------------------


@tracker.intent(covers=("search_issues", "get_issue", "list_projects", "search_users"), weight=1.5, follows=True)
def ticket_status(s: Scene) -> None:
    """A member asks where a ticket stands, naming it by its title (on a board) or by the key they hold."""
    i = s.pick("SELECT * FROM issues")
    b, named = board(s, i["project_id"])
    what = issue_ref(s, i, b)
    s.say(
        "Where does {what} stand?",
        "What's the status of {what}?",
        "Who's working on {what}, and how far along is it?",
        "Any news on {what}?",
        what=what,
    )
    if not what.startswith(i["issue_id"]) and s.rng.random() < 0.2:
        key = project_key(s, i["project_id"], named)
        locate(s, i, what, project_id=key)
    else:
        locate(s, i, what)
    if not s.turns[-1].calls:
        raise Skip("the agent holds that ticket already: nothing to look up")
    s.memory["board"] = b


@tracker.intent(covers=("search_users", "search_issues"), weight=1.5, follows=True)
def my_open_work(s: Scene) -> None:
    """A member asks for their tickets in one state, perhaps on one board, and names one to go on with."""
    u = me(s, "EXISTS (SELECT 1 FROM issues i WHERE i.assignee_id = u.user_id AND i.status != 'done')")
    status = s.rng.choice(("open", "in_progress", "in_review"))
    on_board = s.rng.random() < 0.4
    args: dict[str, Any] = {"status": status}
    b = board(s, u["project_id"])[0]
    if on_board:
        args["project_id"] = u["project_id"]
    s.say(
        "{hi}what do I have that's {st}{on}?",
        "{hi}which of my tickets are {st}{on}?",
        "{hi}show me my {st} tickets{on}.",
        minimal=["{me}: my queue?"],
        hi=hi(s, u),
        me=u["name"],
        st=STATUS_WORDS[status],
        on=f" on {b}" if on_board else "",
    )
    uid = find_me(s, u)
    mine = s.call("search_issues", assignee_id=uid, **({} if s.minimal else args))["issues"]
    mine = [x for x in mine if x["status"] != "done"]
    i = s.choose(mine, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    remember(s, i, b if i["project_id"] == u["project_id"] else i["project_id"], named=False)


@tracker.intent(covers=("list_projects", "search_issues"), weight=1.2)
def board_bugs(s: Scene) -> None:
    """A member asks for the open bugs (or features, tasks) of a board, perhaps only the urgent ones, and names
    one of them to go on with."""
    p, b, named = named_board(s)
    kind = s.rng.choice(("bug", "bug", "feature", "task"))
    args: dict[str, Any] = {"type": kind, "status": "open"}
    urgent = s.rng.random() < 0.4 and not s.minimal
    if urgent:
        args["priority"] = "critical"
    s.say(
        "Which {u}{k}s are open on {b}?",
        "What {u}{k}s are waiting on the {b} board?",
        "Show me the open {u}{k}s for {b}.",
        minimal=["{b}: open {k}s?"],
        u="top-priority " if urgent else "",
        k=TYPE_WORDS[kind],
        b=b,
    )
    key = project_key(s, p["project_id"], named)
    found = s.call("search_issues", project_id=key, **args)["issues"]
    i = s.choose(found, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    remember(s, i, b, named=False)


@tracker.intent(covers=("search_users", "search_issues"), weight=1.2)
def colleague_load(s: Scene) -> None:
    """A lead asks what a colleague is working on, and picks one of their tickets to go on with."""
    row = s.pick(
        "SELECT u.* FROM users u WHERE EXISTS (SELECT 1 FROM issues i WHERE i.assignee_id = u.user_id AND "
        "i.status IN ('in_progress', 'in_review'))"
    )
    u, named = person(s, "u.user_id = ?", row["user_id"])
    status = s.rng.choice(("in_progress", "in_review"))
    s.say(
        "What does {o} have {st}?",
        "Which tickets is {o} carrying that are {st}?",
        "Show me {o}'s {st} work.",
        o=named,
        st=STATUS_WORDS[status],
    )
    found = s.call("search_issues", assignee_id=find_user(s, u), status=status)["issues"]
    i = s.choose(found, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    remember(s, i, i["project_id"], named=False)


@tracker.intent(covers=("list_projects", "get_project", "search_users"), weight=1.2)
def team_of_board(s: Scene) -> None:
    """A member asks who is on a board's team (with their roles, or just the names)."""
    p, b, named = named_board(s)
    s.say(
        "Who's on the {b} team?",
        "Which people work on {b}, and in what role?",
        "Give me the {b} crew.",
        minimal=["{b} team?"],
        b=b,
    )
    key = project_key(s, p["project_id"], named)
    if s.rng.random() < 0.5:
        s.call("get_project", project_id=key)
    else:
        s.call("search_users", project_id=key)
    s.memory.update(project=p["project_id"], board=b)


@tracker.intent(covers=("list_projects", "list_sprints", "get_sprint"), weight=1.2)
def next_sprint_plan(s: Scene) -> None:
    """A lead asks what is planned for a board's next sprint."""
    p, b, named = named_board(
        s, "EXISTS (SELECT 1 FROM sprints s WHERE s.project_id = p.project_id AND s.status = 'planned')"
    )
    s.say(
        "What's lined up for the next {b} sprint?",
        "How full is the upcoming {b} sprint?",
        "Which tickets are planned for {b}'s next sprint?",
        minimal=["Next {b} sprint?"],
        b=b,
    )
    planned = s.call("list_sprints", project_id=project_key(s, p["project_id"], named), status="planned")["sprints"]
    nxt = min(planned, key=itemgetter("start_date"))
    if sum(x["start_date"] == nxt["start_date"] for x in planned) > 1:
        raise Skip("two sprints start together")
    s.call("get_sprint", sprint_id=nxt["sprint_id"])
    s.memory.update(project=p["project_id"], board=b, sprint=nxt["sprint_id"])


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "add_comment"), weight=1.2, follows=True)
def comment_on_ticket(s: Scene) -> None:
    """A member leaves a note on a ticket of their board."""
    u, i = member_and_ticket(s, "!= 'done'")
    not_the_dialogues(s, i, "note_on_it")
    b, what = named_ticket(s, i)
    text = s.rng.choice(NOTES)
    note = s.given(text, f'"{text}"', "note", "add_comment", "body")
    s.say(
        "{hi}put a note on {what}[: {note}].",
        "{hi}please write on {what}[ {note}].",
        "{hi}let the team know on {what}[: {note}].",
        hi=hi(s, u),
        what=what,
        note=note,
    )
    uid = find_me(s, u)
    key = locate(s, i, what, b)
    s.call("add_comment", issue_id=key, author_id=uid, body=text)


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "update_issue"), follows=True)
def rename_ticket(s: Scene) -> None:
    """A member gives a ticket of their board a clearer title."""
    u, i = member_and_ticket(s, "!= 'done'")
    b, what = named_ticket(s, i)
    new = f"{i['title']} ({s.rng.choice(('iOS only', 'after login', 'since the last release', 'on slow networks'))})"
    s.say(
        '{hi}retitle {what} to "{n}" so people find it.',
        '{hi}{what} needs a clearer name: "{n}".',
        '{hi}call {what} "{n}" from now on.',
        hi=hi(s, u),
        what=what,
        n=new,
    )
    uid = find_me(s, u)
    key = locate(s, i, what, b)
    s.call("update_issue", issue_id=key, user_id=uid, title=new)
    s.memory["issue"] = {**s.memory["issue"], "title": new}


@tracker.intent(covers=("get_issue", "search_users", "search_issues"), weight=0.5)
def who_reported(s: Scene) -> None:
    """A member holding a ticket key asks about it, then what else its owner has going."""
    i = s.pick(
        "SELECT i.*, a.name AS owner FROM issues i JOIN users a ON a.user_id = i.assignee_id WHERE "
        "i.status != 'done' AND a.name IN (SELECT name FROM users GROUP BY name HAVING COUNT(*) = 1)"
    )
    what = issue_ref(s, i, i["project_id"], by_key=True)
    s.say("What's the story with {what}?", "Pull up {what} for me.", "Tell me about {what}.", what=what)
    s.call("get_issue", issue_id=i["issue_id"])
    remember(s, i, i["project_id"])
    if s.room(calls=1, turns=1) and s.rng.random() < 0.5:
        s.say(
            "What else does {o} have in progress?",
            "Is {o} swamped? What else are they on?",
            "Which other tickets is {o} working on?",
            o=i["owner"],
        )
        s.call("search_issues", assignee_id=i["assignee_id"], status="in_progress")
        listed_others(s)


@tracker.intent(covers=("list_projects", "search_issues"), weight=0.8)
def stale_backlog(s: Scene) -> None:
    """A lead looks at a board's backlog of one priority and picks a ticket to act on."""
    p, b, named = named_board(s)
    prio = s.rng.choice(("high", "critical", "low"))
    s.say(
        "What {p}-priority work on {b} isn't in any sprint?",
        "Which {p} tickets on {b} are stuck in the backlog?",
        "Show me the unplanned {p}-priority {b} tickets.",
        minimal=["{b} backlog?"],
        p=prio,
        b=b,
    )
    key = project_key(s, p["project_id"], named)
    args: dict[str, Any] = {} if s.minimal else {"priority": prio}
    found = s.call("search_issues", project_id=key, backlog=True, **args)["issues"]
    i = s.choose(
        [x for x in found if x["status"] != "done"],
        itemgetter("title"),
        none="nothing listed",
        alike="two tickets share the title",
    )
    remember(s, i, b, named=False)


@tracker.intent(covers=("search_users", "search_issues", "get_issue", "label_issue"), weight=1.5, follows=True)
def tag_ticket(s: Scene) -> None:
    """A member tags a ticket of a board with one of the board's labels."""
    i = s.pick(
        "SELECT i.* FROM issues i WHERE i.status != 'done' AND EXISTS (SELECT 1 FROM labels l WHERE l.project_id = "
        "i.project_id AND l.name NOT IN (SELECT label FROM issue_labels WHERE issue_id = i.issue_id))"
    )
    not_the_dialogues(s, i, "tag_it")
    lab = new_label(s, i)
    b, what = named_ticket(s, i)
    tag = s.given(lab, f"'{lab}'", "label", "label_issue", "label")
    s.say(
        "Tag {what}[ as {l}].",
        "{what} needs a label[: {l}].",
        "Please mark {what}[ with {l}] so it shows up in the right filter.",
        what=what,
        l=tag,
    )
    key = locate(s, i, what, b)
    s.call("label_issue", issue_id=key, label=lab)
