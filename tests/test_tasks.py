"""The task model and the hand-written task set: every expected hash replays from the ground truth."""

from __future__ import annotations

import pytest

from hub.tasks import BUILTIN_TASKS, Task, TaskError, TaskSet, read_jsonl, replay, split_name
from tests.conftest import LIBRARY


def test_builtin_tasks_cover_every_kind() -> None:
    tasks = read_jsonl(BUILTIN_TASKS)
    assert {t.kind for t in tasks} == {"mcp", "clarify", "abstain"}
    assert any(len(t.turns) > 1 for t in tasks) and any(t.initial.setup for t in tasks)
    assert any(t.edges() for t in tasks)


@pytest.mark.parametrize("task", read_jsonl(BUILTIN_TASKS), ids=lambda t: t.id)
def test_expected_hashes_replay(task: Task) -> None:
    """If this fails after a server changed, run: python -m hub.tasks --regenerate"""
    task.check_against(LIBRARY)
    assert replay(task, LIBRARY) == (task.expected_state_hash, task.expected_server_hashes)


def test_task_validation() -> None:
    base = {
        "id": "x",
        "servers": ["banking"],
        "turns": [
            {
                "user": "hi",
                "calls": [
                    {"id": "a", "server": "banking", "tool": "get_account", "arguments": {"account_id": "ACC-0001"}}
                ],
            }
        ],
    }
    Task.model_validate(base)
    with pytest.raises(ValueError, match="not an earlier step"):
        Task.model_validate(
            base
            | {
                "turns": [
                    {"user": "hi", "calls": [{"id": "a", "server": "banking", "tool": "get_account", "after": ["b"]}]}
                ]
            }
        )
    with pytest.raises(ValueError, match="abstain"):
        Task.model_validate(base | {"kind": "abstain"})
    with pytest.raises(ValueError, match="ask=true"):
        Task.model_validate(base | {"kind": "clarify"})
    with pytest.raises(TaskError, match="unknown tool"):
        Task.model_validate(base | {"tools": ["banking__nope"]}).check_against(LIBRARY)
    with pytest.raises(TaskError, match="unknown task"):
        TaskSet().get("nope")


def test_split_name() -> None:
    assert split_name("travel_booking__search_flights") == ("travel_booking", "search_flights")
    assert split_name("banking") is None and split_name("__x") is None


def test_the_hub_keeps_every_world_its_task_set_lives_on() -> None:
    from hub.config import REFERENCE_NOW
    from hub.core import keep_task_worlds
    from hub.state.library import Library
    from servers import REGISTRY

    library = Library.from_servers(REGISTRY[:2], REFERENCE_NOW, seed_cache=8)
    base = next(iter(TaskSet.load(BUILTIN_TASKS, LIBRARY)))
    tasks = TaskSet(
        base.model_copy(update={"id": f"t{k}", "initial": base.initial.model_copy(update={"seed": k})})
        for k in range(12)
    )
    keep_task_worlds(library, tasks)
    assert {m.seed_cache for m in library.mounts.values()} == {12}  # type: ignore[attr-defined]
    keep_task_worlds(library, TaskSet([base]))
    assert {m.seed_cache for m in library.mounts.values()} == {12}  # type: ignore[attr-defined]
