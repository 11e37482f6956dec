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
    WORDS,
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
        weight=0.45,
        asked=False,
        then=_listed,
    ),
    FollowUp(
        "unowned_on_board",
        "The member asks which not-started tickets of the board have no owner.",
        _board({"unassigned": True, "status": "open"}),
        "search_issues",
        weight=0.45,
        asked=False,
        then=_listed,
    ),
    FollowUp(
        "board_backlog",
        "The member looks at what of the board is in no sprint.",
        _board({"backlog": True}),
        "search_issues",
        weight=0.45,
        asked=False,
        then=_listed,
    ),
)


follow_ups(tracker, SEARCHES, WORDS)


@tracker.intent(covers=("get_project",), follows=True, opens=False, weight=0.45)
def board_overview(s: Scene) -> None:
    """The member looks at the board: team, labels, counts by status."""
    key, b = the_board(s)
    s.asked("get_project", project_id=key)
    s.say(WORDS.board_overview, b=b)
    s.call("get_project", project_id=key)


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def same_kind_open(s: Scene) -> None:
    """The member asks what else of the same kind is open on the board."""
    i = ticket(s)
    b = s.memory.get("board") or i["project_id"]
    s.say(WORDS.same_kind_open, k=TYPE_WORDS[i["type"]], b=b)
    s.call("search_issues", project_id=i["project_id"], type=i["type"], status="open")
    s.listed_others("issue")


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=0.45)
def urgent_on_board(s: Scene) -> None:
    """The member asks for the urgent bugs nobody has started on the board."""
    key, b = the_board(s)
    level = s.rng.choice(("high", "critical"))
    s.say(WORDS.urgent_on_board, b=b, p={"high": "high-priority", "critical": "top-priority"}[level])
    s.call("search_issues", project_id=key, type="bug", priority=level, status="open")
    s.listed_others("issue")


@tracker.intent(covers=("search_users",), follows=True, opens=False, weight=0.45)
def who_is_on_it(s: Scene) -> None:
    """The member asks who is on the board's team."""
    key, b = the_board(s)
    s.say(WORDS.who_is_on_it, b=b)
    s.call("search_users", project_id=key)


@tracker.intent(covers=("list_sprints",), follows=True, opens=False, weight=0.45)
def upcoming_sprints(s: Scene) -> None:
    """The member asks which sprints of the board are coming up and how full they are."""
    key, b = the_board(s)
    s.asked("list_sprints", project_id=key)
    s.say(WORDS.upcoming_sprints, b=b)
    s.call("list_sprints", project_id=key, status="planned")


@tracker.intent(covers=("get_sprint",), follows=True, opens=False, weight=1.3)
def its_sprint(s: Scene) -> None:
    """The member looks at the sprint the ticket (or the dialogue) is in."""
    known = s.memory.get("issue")
    sid = ticket(s)["sprint_id"] if known else s.memory.get("sprint")
    if not sid:
        raise Skip("no sprint in the dialogue")
    s.asked("get_sprint", sprint_id=sid)
    s.say(WORDS.its_sprint)
    s.call("get_sprint", sprint_id=sid)


@tracker.intent(covers=("search_issues",), follows=True, opens=False)
def sprint_unowned(s: Scene) -> None:
    """The lead asks what in the dialogue's sprint nobody owns."""
    sid = s.known("sprint", "no sprint in the dialogue")
    s.say(WORDS.sprint_unowned)
    s.call("search_issues", sprint_id=sid, unassigned=True)
    s.listed_others("issue")


@tracker.intent(covers=("search_issues",), follows=True, opens=False, weight=1.5)
def my_queue(s: Scene) -> None:
    """The member asks what else is on their plate."""
    u = speaker(s)
    status = s.rng.choice(("in_progress", "open", "in_review"))
    s.say(WORDS.my_queue, st=STATUS_WORDS[status])
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
    s.say(WORDS.board_bugs, u="top-priority " if urgent else "", k=TYPE_WORDS[kind], b=b)
    key = project_key(s, p["project_id"], named)
    found = s.call("search_issues", project_id=key, **args)["issues"]
    i = s.choose(found, itemgetter("title"), none="nothing listed", alike="two tickets share the title")
    remember(s, i, b, named=False)


@tracker.intent(covers=("list_projects", "search_issues"), weight=0.8)
def stale_backlog(s: Scene) -> None:
    """A lead looks at a board's backlog of one priority and picks a ticket to act on."""
    p, b, named = named_board(s)
    prio = s.rng.choice(("high", "critical", "low"))
    s.say(WORDS.stale_backlog, p=prio, b=b)
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
