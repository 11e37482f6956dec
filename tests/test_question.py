"""The oracle's clarifying question: asked by what the withheld value is and in the intent's words, deterministic
per task, varied across tasks, and paid by the ask check when played through the episode engine."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.engine.clarify import judge_reply, other_words, question_words
from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import EpisodeEngine
from hub.engine.events import EventBus
from hub.engine.question import clarifying_question
from hub.state.sessions import SessionManager
from hub.tasks import Task, TaskSet, hermes_call
from tests.conftest import LIBRARY


def schemas_of(server: str) -> dict[str, dict[str, Any]]:
    return {f"{server}__{n}": t.input_schema for n, t in LIBRARY.mount(server).tools.items()}


def ask_task(tool: str, param: str, about: str = "", task_id: str = "q", value: Any = 1) -> Task:
    server = tool.split("__")[0]
    return Task.model_validate(
        {
            "id": task_id,
            "kind": "clarify",
            "servers": [server],
            "tools": list(schemas_of(server)),
            "turns": [
                {"user": "Please do it.", "ask": True, "missing": [param], "about": {param: about} if about else {}},
                {
                    "user": f"It's {value}.",
                    "calls": [{"id": "g1", "server": server, "tool": tool.split("__")[1], "arguments": {param: value}}],
                },
            ],
        }
    )


# (tool, withheld parameter, the intent's words for it): the questions a person would ask for it
ASKED = [
    ("issue_tracker__add_comment", "body", "the comment", {"What should the comment say?", "What should I write?"}),
    ("video_meeting__schedule_meeting", "duration_minutes", "", {"How long should the meeting be?"}),
    ("calendar__create_event", "start", "", {"Which day and time works for the event?", "When would you like it?"}),
    ("banking__transfer_funds", "amount", "the amount", {"How much should I transfer?"}),
    ("calendar__create_event", "title", "the title", {"What should I call the event?", "What title should I use?"}),
]


@pytest.mark.parametrize(("tool", "param", "about", "expected"), ASKED)
def test_asked_by_what_the_value_is_and_the_intents_words(
    tool: str, param: str, about: str, expected: set[str]
) -> None:
    schemas = schemas_of(tool.split("__")[0])
    questions = {clarifying_question(ask_task(tool, param, about, f"t{i}"), 0, schemas) for i in range(40)}
    assert questions & expected, questions
    assert len(questions) >= 2  # varied across tasks
    for q in questions:
        assert q.endswith("?") and q.count("?") == 1 and "please tell me" not in q.lower()


@settings(max_examples=60, deadline=None)
@given(case=st.sampled_from(ASKED), task_id=st.text(alphabet="abcdefghij0123456789-", min_size=1, max_size=12))
def test_deterministic_per_task_and_always_a_question_the_check_pays(case: tuple[Any, ...], task_id: str) -> None:
    tool, param, about, _ = case
    task = ask_task(tool, param, about, task_id)
    schemas = schemas_of(tool.split("__")[0])
    question = clarifying_question(task, 0, schemas)
    assert question == clarifying_question(task, 0, schemas)
    wanted = question_words(task, 0, schemas)
    assert judge_reply(question, wanted, other_words(schemas, wanted)).asked  # and never stuffed


def test_the_intents_own_question_words_are_used_when_it_has_them() -> None:
    tool, param = "marketplace__place_bid", "amount"
    asked = {clarifying_question(ask_task(tool, param, "how much to bid", f"b{i}"), 0) for i in range(30)}
    assert "Could you tell me how much to bid?" in asked


def test_the_oracles_question_earns_r_ask_played_through_the_episode_engine() -> None:
    sessions = SessionManager(LIBRARY)
    bus = EventBus()
    engine = EpisodeEngine(LIBRARY, sessions, Dispatcher(LIBRARY, sessions, bus), bus, TaskSet())
    task = ask_task("banking__deposit_funds", "amount", "how much to put in", "deposit", 40.0)
    task.turns[1].calls[0].arguments["account_id"] = "ACC-0003"
    task.turns[0].missing = ["amount"]
    (ep,) = engine.open_group(task)
    engine.step(ep.id, clarifying_question(task, 0, engine.schemas_of(task)))
    engine.step(ep.id, hermes_call("banking__deposit_funds", {"account_id": "ACC-0003", "amount": 40.0}))
    engine.step(ep.id, "Done.")
    r = engine.finish(ep.id)
    assert r.components["clarify"] == 1.0 and r.total == pytest.approx(r.max), r.reasons
