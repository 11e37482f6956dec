"""Check-backs ("and how does it look now?"), the persona guard and the reuse of earlier discovery reads,
on real scenes: live forks of world 0, real tool calls."""

from __future__ import annotations

import pytest

from hub.kit import Server
from hub.kit.intent import Scene, Skip
from hub.synth.checkback import checkbacks, phrasings
from hub.synth.goals import _continue, linked, links
from hub.synth.realism import names_in
from servers import REGISTRY
from tests.test_intents import Live


def server(name: str) -> Server:
    return next(s for s in REGISTRY if s.name == name)


def check_back(srv: Server, tool: str) -> object:
    return next(i for i in checkbacks(srv) if i.covers == (tool,))


@pytest.fixture
def tracker(live: Live) -> Scene:
    """An issue_tracker scene whose user has just taken WEB-0002 and moved it to in progress."""
    s = live.scene(server("issue_tracker"))
    s.intents.append("opener")
    s.say("Start WEB-0002 for me.")
    s.call("assign_issue", issue_id="WEB-0002", assignee_id="USR-0002")
    s.call("transition_issue", issue_id="WEB-0002", user_id="USR-0002", to_status="in_progress")
    return s


@pytest.fixture
def live() -> Live:
    return Live()


@pytest.mark.parametrize("srv", REGISTRY, ids=lambda s: s.name)
def test_no_check_back_phrasing_names_its_tool(srv: Server) -> None:
    for intent in checkbacks(srv):
        tool = intent.covers[0]
        assert srv.tools[tool].kind == "read" and intent.follows and not intent.opens
        etype = str(srv.tools[tool].params[srv.tools[tool].required[0]])
        noun = srv.entities[etype].name if etype in srv.entities else etype.replace("_", " ")
        said = phrasings(tool, noun)
        assert len(said) >= 3, f"{srv.name}.{tool}: too few phrasings left"
        assert not any(names_in(tool, p.format(noun=noun).lower().split()) for p in said)


def test_check_backs_are_built_from_single_entity_reads() -> None:
    names = {i.covers[0] for i in checkbacks(server("issue_tracker"))}
    assert {"get_issue", "get_sprint", "get_project"} <= names
    assert "search_issues" not in names and "list_projects" not in names


def test_a_check_back_reads_the_entity_the_last_write_changed(tracker: Scene) -> None:
    srv = server("issue_tracker")
    _continue(tracker, tracker.db, check_back(srv, "get_issue"))  # type: ignore[arg-type]
    last = list(tracker.calls)[-1]
    assert (last.tool, last.arguments) == ("get_issue", {"issue_id": "WEB-0002"})
    assert last.result["status"] == "in_progress"
    assert len(tracker.turns) == 2 and tracker.intents[-1] == "check_back_get_issue"
    assert tracker.turns[1].slots == {"noun": "issue"}
    assert linked(links(srv.tools, tracker))


def test_no_check_back_of_an_entity_the_write_did_not_act_on(tracker: Scene) -> None:
    # transition_issue's result names the issue's project; the user changed the issue, not the project
    with pytest.raises(Skip):
        check_back(server("issue_tracker"), "get_project").fn(tracker)  # type: ignore[attr-defined]


def test_no_check_back_once_the_entity_was_read_back(tracker: Scene) -> None:
    tracker.say("Show it to me.")
    tracker.call("get_issue", issue_id="WEB-0002")
    with pytest.raises(Skip):
        check_back(server("issue_tracker"), "get_issue").fn(tracker)  # type: ignore[attr-defined]


def test_a_follow_up_cannot_change_who_talks(live: Live) -> None:
    s = live.scene(server("issue_tracker"))
    s.intents.append("opener")
    s.be("Tomas Miller")
    s.intents.append("follow-up")
    s.be("Tomas Miller")
    with pytest.raises(Skip, match="never changes who talks"):
        s.be("Jack Robinson")


def test_find_reuses_what_an_earlier_identical_read_listed(tracker: Scene) -> None:
    first = tracker.find("search_users", "users", "user_id", "USR-0002", missing="absent", query="Jack Robinson")
    before = len(list(tracker.calls))
    again = tracker.find("search_users", "users", "user_id", "USR-0002", missing="absent", query="Jack Robinson")
    assert again == first and len(list(tracker.calls)) == before
    tracker.find("search_users", "users", "user_id", "USR-0002", missing="absent", query="Jack")
    assert len(list(tracker.calls)) == before + 1  # other arguments: another read
