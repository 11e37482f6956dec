"""Short follow-ups on the ticket the dialogue is about: a note, a tag, a new priority, type or estimate, a sprint,
an owner, the next status. The member names it "it" (or by the title the agent listed it under).

What an earlier turn left in ``s.memory``: ``me`` (the member talking), ``issue`` (the ticket: ``issue_id``,
``project_id``, ``title``), ``project`` (its board's key), ``board`` (how the user named that board) and
``sprint``. A follow-up re-reads the ticket from the live state and ``Skip``s when it does not fit what it would
do ("start it" on a ticket nobody owns). The one-call ones are rows of ``STEPS``.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any

from hub.kit.follow import FollowUp, follow_ups
from hub.kit.intent import Scene, Skip
from servers.issue_tracker.intents import TYPE_WORDS, WORDS, find_user, new_label, person, speaker, ticket
from servers.issue_tracker.tools import tracker

Row = dict[str, Any]


def it(s: Scene) -> str:
    return s.it("issue", 'the "{title}" one')


def _status(to: str) -> Callable[[Scene, Row], dict[str, Any]]:
    """The arguments that move the ticket on to status ``to`` as the member talking."""
    return lambda s, i: {"user_id": speaker(s, i["project_id"])["user_id"], "to_status": to}


def _mine(s: Scene, i: Row) -> dict[str, Any]:
    u = speaker(s, i["project_id"], assignable=True)
    if i["assignee_id"] == u["user_id"]:
        raise Skip("already theirs")
    return {"assignee_id": u["user_id"]}


def _on(where: str, args: Callable[[Scene, Row], dict[str, Any]]) -> Callable[[Scene], tuple[Row, Row]]:
    """The dialogue's ticket (when it fits ``where``): the call's ``issue_id``, then ``args`` on it."""

    def on(s: Scene) -> tuple[Row, Row]:
        i = ticket(s, where)
        return {"issue_id": i["issue_id"], **args(s, i)}, {}

    return on


def _it(s: Scene, slots: dict[str, Any]) -> dict[str, Any]:
    return {"it": it(s)}


STEPS = (
    FollowUp(
        "back_to_backlog",
        "The ticket comes out of its sprint, back to the backlog.",
        _on(
            "status != 'done' AND sprint_id IN (SELECT sprint_id FROM sprints WHERE status != 'closed')",
            lambda s, i: {"sprint_id": None},
        ),
        "move_issue_to_sprint",
        weight=1.6,
        asked=False,
        heard=_it,
    ),
    FollowUp(
        "take_it",
        "The member puts the ticket on themselves.",
        _on("status != 'done'", _mine),
        "assign_issue",
        weight=1.6,
        asked=False,
        heard=_it,
    ),
    FollowUp(
        "drop_owner",
        "Nobody should own the not-started ticket for now.",
        _on("status = 'open' AND assignee_id IS NOT NULL", lambda s, i: {"assignee_id": None}),
        "assign_issue",
        weight=1.6,
        asked=False,
        heard=_it,
    ),
    FollowUp(
        "start_it",
        "Work starts on the owned ticket.",
        _on("status = 'open' AND assignee_id IS NOT NULL", _status("in_progress")),
        "transition_issue",
        weight=1.6,
        asked=False,
        heard=_it,
    ),
    FollowUp(
        "ready_for_review",
        "The ticket in progress goes to review.",
        _on("status = 'in_progress'", _status("in_review")),
        "transition_issue",
        weight=1.6,
        asked=False,
        heard=_it,
    ),
    FollowUp(
        "not_now",
        "Work on the ticket stops: it goes back to not started.",
        _on("status = 'in_progress'", _status("open")),
        "transition_issue",
        weight=1.6,
        asked=False,
        heard=_it,
    ),
)


follow_ups(tracker, STEPS, WORDS)


@tracker.intent(covers=("add_comment",), follows=True, opens=False, weight=1.6)
def note_on_it(s: Scene) -> None:
    """The member leaves a note on the ticket."""
    i = ticket(s)
    u = speaker(s)
    text = s.rng.choice(WORDS.notes)
    s.say(WORDS.note_on_it, n=text, it=it(s))
    s.call("add_comment", issue_id=i["issue_id"], author_id=u["user_id"], body=text)


@tracker.intent(covers=("label_issue",), follows=True, opens=False, weight=1.6)
def tag_it(s: Scene) -> None:
    """The member tags the ticket with one of its board's labels."""
    i = ticket(s)
    lab = new_label(s, i)
    s.say(WORDS.tag_it, l=lab, it=it(s))
    s.call("label_issue", issue_id=i["issue_id"], label=lab)


@tracker.intent(covers=("label_issue",), follows=True, opens=False, weight=1.6)
def untag_it(s: Scene) -> None:
    """The member takes a tag off the ticket that does not belong there."""
    i = ticket(s)
    lab = s.pick("SELECT label FROM issue_labels WHERE issue_id = ?", i["issue_id"])["label"]
    s.say(WORDS.untag_it, l=lab, it=it(s))
    s.call("label_issue", issue_id=i["issue_id"], label=lab, remove=True)


@tracker.intent(covers=("update_issue",), follows=True, opens=False, weight=1.6)
def reprioritize(s: Scene) -> None:
    """The member changes the ticket's priority ("actually, make it critical")."""
    i = ticket(s, "status != 'done'")
    u = speaker(s, i["project_id"])
    new = s.rng.choice([p for p in ("low", "medium", "high", "critical") if p != i["priority"]])
    s.say(
        "{Actually|Wait}, make {it} {p} priority.",
        "The priority of {it} should be {p}.",
        "{Bump|Raise} {it} to {p}, please." if new in ("high", "critical") else "{Drop|Lower} {it} to {p} priority.",
        "{Set|Change} the priority on {it} to {p}.",
        "On second thought, {it} is {p} priority{| for us}.",
        "Can {it} be {p} priority {instead|from now on}?",
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
    s.say(WORDS.retype, k=TYPE_WORDS[new], o=TYPE_WORDS[i["type"]], it=it(s))
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
        "{Size|Estimate} {it} at {n} points."
        if i["story_points"] is None
        else "{Re-estimate|Resize} {it} at {n} points.",
        "The team {thinks|reckons} {it} is {n} points of work.",
        "Call {it} {n} points{| then}.",
        "{Put|Set} {n} points on {it}.",
        "We {sized|pointed} {it} in planning: {n} points.",
        "How about {n} points for {it}? {Record that|Put that down}.",
        n=points,
        it=it(s),
    )
    s.call("set_story_points", issue_id=i["issue_id"], points=points)


def _planned(s: Scene, i: Row, status: str) -> list[Row]:
    if i["story_points"] is None or i["status"] == "done":
        raise Skip("not plannable")
    rows: list[Row] = s.call("list_sprints", project_id=i["project_id"], status=status)["sprints"]
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
    s.say(WORDS.plan_next, it=it(s))
    fits = sorted(_planned(s, i, "planned"), key=itemgetter("start_date"))
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
    s.say(WORDS.pull_into_current, it=it(s))
    active = _planned(s, i, "active")
    if not active or active[0]["committed_points"] + i["story_points"] > active[0]["capacity"]:
        raise Skip("no room in the running sprint")
    s.call("move_issue_to_sprint", issue_id=i["issue_id"], sprint_id=active[0]["sprint_id"])


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
    s.say(WORDS.give_it_to, o=named, it=it(s))
    s.call("assign_issue", issue_id=i["issue_id"], assignee_id=find_user(s, other, i["project_id"]))
