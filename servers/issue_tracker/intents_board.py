"""Questions about a board: openers that list a board's open work or backlog, and short follow-ups on the board or
the sprint the dialogue is about ("what else is waiting for review there?", "who's on that team?", "how is that
sprint doing?") or on the member's own queue. The follow-up board searches are rows of ``SEARCHES``.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.issue_tracker.intents import (
    STATUS_WORDS,
    TYPE_WORDS,
    named_board,
    project_key,
    remember,
    speaker,
    the_board,
    ticket,
)
from servers.issue_tracker.tools import tracker


def _board(filters: dict[str, Any]) -> Callable[[Scene], tuple[dict[str, Any], dict[str, Any]]]:
    """A search of the dialogue's board (``{b}``: how the user named it) with ``filters``."""

    def on(s: Scene) -> tuple[dict[str, Any], dict[str, Any]]:
        key, b = the_board(s)
        return {"project_id": key, **filters}, {"b": b}

    return on


def _listed(s: Scene, args: dict[str, Any], result: Any) -> None:
    s.listed_others("issue")


SEARCHES = (
    FollowUp(
        "waiting_for_review",
        "The member asks what else waits for review on the board.",
        _board({"status": "in_review"}),
        "search_issues",
        phrasings=(
            "What else is waiting for {review|a review} on {b}?",
            "Anything else in review on the {b} board?",
            "Which other {b} tickets are {sitting|stuck} in review?",
            "{Is there|What's} more {on|in} {b} that needs a reviewer?",
            "How {much|many tickets} on {b} {is|are} {stuck|waiting} in review?",
            "Who else on {b} is waiting on a review? Show me those tickets.",
        ),
        weight=0.45,
        asked=False,
        then=_listed,
    ),
    FollowUp(
        "unowned_on_board",
        "The member asks which not-started tickets of the board have no owner.",
        _board({"unassigned": True, "status": "open"}),
        "search_issues",
        phrasings=(
            "What on {b} has no owner{ yet|}?",
            "Which {b} tickets is nobody {on|working on}?",
            "Anything on the {b} board that nobody has picked up?",
            "{Show me|List} the unassigned {b} tickets that haven't started.",
            "Is there {work|anything} on {b} {still looking for|without} an owner?",
            "What {b} work could someone grab right now?",
        ),
        weight=0.45,
        asked=False,
        then=_listed,
    ),
    FollowUp(
        "board_backlog",
        "The member looks at what of the board is in no sprint.",
        _board({"backlog": True}),
        "search_issues",
        phrasings=(
            "What's {sitting|waiting} in the {b} backlog?",
            "Which {b} tickets aren't {planned into|scheduled in} any sprint?",
            "{Show me|List} the unplanned work on {b}.",
            "{What's|How much is} left in the {b} backlog{| right now}?",
            "Which {b} tickets {have no|aren't in a} sprint{| yet}?",
            "I want to {see|go through} everything on {b} that nobody has scheduled.",
        ),
        weight=0.45,
        asked=False,
        then=_listed,
    ),
)


follow_ups(tracker, SEARCHES)


@tracker.intent(covers=("get_project",), follows=True, opens=False, weight=0.45)
def board_overview(s: Scene) -> None:
    """The member looks at the board: team, labels, counts by status."""
    key, b = the_board(s)
    s.asked("get_project", project_id=key)
    s.say(
        "How does the {b} board look overall?",
        "Who's on the {b} team now, and how many tickets are in each state?",
        "{Give me|Paint me} the big picture for {b}.",
        "{Summarize|Sum up} {b} for me: people, labels, ticket counts.",
        "I'd like {an overview|a snapshot} of {b}{| as it stands}.",
        b=b,
    )
    s.call("get_project", project_id=key)


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def same_kind_open(s: Scene) -> None:
    """The member asks what else of the same kind is open on the board."""
    i = ticket(s)
    b = s.memory.get("board") or i["project_id"]
    s.say(
        "Anything else like that still {waiting|open} on {b}?",
        "What other {k}s on {b} is nobody working on yet?",
        "Which others of that kind haven't been started on {b}?",
        "{Are there|Do we have} more {k}s {sitting|waiting} untouched on {b}?",
        "{Show me|List} the other not-started {k}s on {b}.",
        k=TYPE_WORDS[i["type"]],
        b=b,
    )
    s.call("search_issues", project_id=i["project_id"], type=i["type"], status="open")
    s.listed_others("issue")


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def urgent_on_board(s: Scene) -> None:
    """The member asks for the urgent bugs nobody has started on the board."""
    key, b = the_board(s)
    level = s.rng.choice(("high", "critical"))
    s.say(
        "What other {b} bugs are {p} and nobody has started?",
        "Which untouched {b} bugs are {p}{| right now}?",
        "Show me the {p} bugs on {b} that are still waiting.",
        "{Any|Are there} {other|more} {p} bugs on {b} nobody has {touched|begun}?",
        "I'm worried about {b}. {Which|What} {p} bugs haven't been started?",
        b=b,
        p={"high": "high-priority", "critical": "top-priority"}[level],
    )
    s.call("search_issues", project_id=key, type="bug", priority=level, status="open")
    s.listed_others("issue")


@tracker.intent(covers=("search_users",), follows=True, opens=False, weight=0.45)
def who_is_on_it(s: Scene) -> None:
    """The member asks who is on the board's team."""
    key, b = the_board(s)
    s.say(
        "Who's on the {b} team?",
        "Which people work on {b}?",
        "Remind me who's in the {b} crew.",
        "{Who works|Who's working} on {b} these days?",
        "{List|Show me} the people on {b}{| and their titles}.",
        "Who {could I ask|should I talk to} about {b}?",
        b=b,
    )
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
        "{Is there|How much} room left in the {next|upcoming} {b} sprints?",
        "{Show me|List} the planned {b} sprints with their points.",
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
        "{Show me|Pull up} that sprint{| again}, with its tickets.",
        "{Where do we stand|How are we doing} on that sprint?",
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
        "{Which|What} sprint tickets still need {an owner|someone}?",
        "Is {everything|every ticket} in that sprint {assigned|owned by someone}?",
    )
    s.call("search_issues", sprint_id=sid, unassigned=True)
    s.listed_others("issue")


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=1.5)
def my_queue(s: Scene) -> None:
    """The member asks what else is on their plate."""
    u = speaker(s)
    status = s.rng.choice(("in_progress", "open", "in_review"))
    s.say(
        "What else do I have that's {st}?",
        "Which of my tickets are {st} right now?",
        "Remind me what's {st} on my plate.",
        "{Show me|List} {my|all my} {st} tickets.",
        "What {am I holding|do I own} that's {st}{| at the moment}?",
        st=STATUS_WORDS[status],
    )
    s.call("search_issues", assignee_id=u["user_id"], status=status)
    s.listed_others("issue")


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
        "What {u}{k}s are {waiting|open} on the {b} board?",
        "{Show me|List} the open {u}{k}s for {b}.",
        minimal=["{b}: open {k}s?"],
        u="top-priority " if urgent else "",
        k=TYPE_WORDS[kind],
        b=b,
    )
    key = project_key(s, p["project_id"], named)
    found = s.call("search_issues", project_id=key, **args)["issues"]
    i = s.choose(found, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    remember(s, i, b, named=False)


@tracker.intent(covers=("list_projects", "search_issues"), weight=0.8)
def stale_backlog(s: Scene) -> None:
    """A lead looks at a board's backlog of one priority and picks a ticket to act on."""
    p, b, named = named_board(s)
    prio = s.rng.choice(("high", "critical", "low"))
    s.say(
        "What {p}-priority work on {b} isn't in any sprint?",
        "Which {p} tickets on {b} are {stuck|sitting} in the backlog?",
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
