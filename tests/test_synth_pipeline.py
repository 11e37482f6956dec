"""Task synthesis end to end: oracle reward, determinism, grounding, kind proportions, output, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import EpisodeEngine
from hub.engine.events import EventBus
from hub.state.sessions import SessionManager
from hub.synth import grounding
from hub.synth.chain.validate import SeedIndex, ungrounded
from hub.synth.goals import could_do
from hub.synth.output import digest, export_record, write_all
from hub.synth.perturb import PAPER_KINDS, has_enum, kind_quotas
from hub.synth.pipeline import SynthConfig, SynthResult, kind_counts, synthesize
from hub.synth.validate import ID_TOKEN
from hub.tasks import Task, TaskSet, oracle_script
from tests.conftest import LIBRARY

N = 60


def run(n: int = N, seed: int = 7, tmp: Path | None = None) -> SynthResult:
    return synthesize(LIBRARY, SynthConfig(n=n, seed=seed, cache_dir=tmp, sampler_k=40, worlds=3))


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> SynthResult:
    return run(tmp=tmp_path_factory.mktemp("graphs"))


def play_oracle(engine: EpisodeEngine, task: Task) -> tuple[float, float]:
    ep = engine.open_group(task)[0]
    for message in oracle_script(task):
        if engine.get(ep.id).done:
            break
        engine.step(ep.id, message)
    breakdown = engine.finish(ep.id)
    assert breakdown.components.get("state") == 1.0, f"{task.id}: final state differs from the expected one"
    engine.close(ep.id)
    return breakdown.total, breakdown.max


def test_every_task_gets_the_maximum_reward_from_the_oracle(synth: SynthResult) -> None:
    sessions = SessionManager(LIBRARY)
    bus = EventBus()
    engine = EpisodeEngine(LIBRARY, sessions, Dispatcher(LIBRARY, sessions, bus), bus, TaskSet(synth.tasks))
    assert len(synth.tasks) == N
    for task in synth.tasks:
        total, most = play_oracle(engine, task)
        assert total == pytest.approx(most) and most >= 1.0, task.id


def test_same_seed_same_dataset_other_seed_other_dataset(synth: SynthResult) -> None:
    again = run()
    assert digest(again.tasks) == digest(synth.tasks)
    assert digest(run(n=20, seed=8).tasks) != digest(run(n=20, seed=7).tasks)


def test_tasks_are_grounded_in_the_initial_state(synth: SynthResult) -> None:
    indexes = {w: SeedIndex(LIBRARY, w) for w in {t.initial.seed for t in synth.tasks}}
    assert len(indexes) == 3  # tasks spread over the run's worlds
    for task in synth.tasks:
        index = indexes[task.initial.seed]
        assert ungrounded(task, index) == [], task.id
        servers = task.meta["synth"]["request_servers"]
        for turn in task.turns:
            for token in ID_TOKEN.findall(turn.user):
                assert index.exists(servers, token), (task.id, token)
        assert grounding.check(task, LIBRARY) == [], task.id  # every ground-truth value has a record that holds
        assert all(set(s.sources) == set(s.arguments) for s in task.gt_steps()), task.id
    index = indexes[synth.tasks[0].initial.seed]
    fake = synth.tasks[0].model_copy(deep=True)
    fake.turns[0].user += " Also look at ACC-9999 and ZZZ-0001."
    assert "ZZZ-0001" in ungrounded(fake, index)


def test_kind_proportions() -> None:
    assert kind_quotas(13_517) == PAPER_KINDS
    q = kind_quotas(N)
    assert sum(q.values()) == N
    assert q == {"mcp": 48, "clarify": 7, "abstain": 5}


def test_synthesized_kinds_structure_and_stats(synth: SynthResult) -> None:
    kinds = {k: sum(t.kind == k for t in synth.tasks) for k in ("mcp", "clarify", "abstain")}
    assert kinds == kind_counts(synth.config)
    assert kinds["abstain"] == kind_quotas(N)["abstain"] and kinds["clarify"] == round(0.2 * (N - kinds["abstain"]))
    for task in synth.tasks:
        meta = task.meta["synth"]
        assert task.expected_state_hash and task.expected_server_hashes, task.id
        if task.kind == "mcp":
            assert 2 <= len(task.gt_steps()) <= 5 and 2 <= len(task.turns) <= 3, task.id
            assert all(t.calls for t in task.turns)
        if task.kind == "clarify":
            assert task.turns[0].ask and not task.turns[0].calls and 2 <= len(task.turns) <= 3
            assert meta["omitted"] not in task.turns[0].user and meta["omitted"] in task.turns[1].user
        if task.kind == "abstain":
            offered_servers = {n.split("__")[0] for n in task.tools}
            needed = meta["request_servers"][0]
            if meta["variant"] == "irrelevance":  # unrelated servers' tools, and perhaps a few of its own
                assert (needed in offered_servers) == bool(meta["own_tools"]), task.id
                assert set(meta["own_tools"]) <= set(task.tools)
            else:  # the server's other tools, its writes among them, none the request needs
                assert needed in offered_servers and not set(meta["wanted"]) & set(task.tools), task.id
        if task.kind == "abstain":  # unsolvable by construction: no offered tool of any server could do it
            assert meta["wanted"] and not any(could_do(o, w) for o in task.tools for w in meta["wanted"]), task.id
        if meta["distractors"]:
            assert 3 <= len(meta["distractors"]) <= 8
    assert any(t.meta["synth"]["distractors"] for t in synth.tasks)
    assert any(t.meta["synth"]["enum_stripped"] for t in synth.tasks)
    if synth.fallback_servers:  # recoveries come from the chain machine, which only servers without intents use
        assert any(t.meta["synth"]["recoveries"] for t in synth.tasks)


def test_output_split_manifest_and_export(synth: SynthResult, tmp_path: Path) -> None:
    data = write_all(tmp_path, synth, LIBRARY)
    train = [Task.model_validate_json(line) for line in (tmp_path / "train.jsonl").read_text().splitlines()]
    test = [Task.model_validate_json(line) for line in (tmp_path / "test.jsonl").read_text().splitlines()]
    assert len(train) + len(test) == N and test
    assert {t.id for t in train}.isdisjoint({t.id for t in test})
    assert data["kinds"] == kind_counts(synth.config)
    assert data["coverage"]["tools"] == len(LIBRARY.all_tools())
    assert data["validation"]["kept_replay_verified"] == N
    assert set(data["per_server"]) <= set(LIBRARY.mounts)
    exported = [json.loads(line) for line in (tmp_path / "export" / "train.jsonl").read_text().splitlines()]
    assert len(exported) == len(train)
    rec = exported[0]
    assert rec["label"] == train[0].id and rec["messages"][0]["role"] == "system"
    assert rec["messages"][1]["content"] == train[0].turns[0].user
    assert len(rec["tools"]) == len(train[0].tools) and rec["tools"][0]["type"] == "function"
    stripped = next(
        t
        for t in synth.tasks
        if t.meta["synth"]["enum_stripped"]
        and any(has_enum(LIBRARY.tool(*n.split("__", 1)).input_schema) for n in t.tools)
    )
    assert not has_enum(export_record(stripped, LIBRARY)["tools"])


def test_cli_synth_and_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hub.cli import main

    assert main(["graph", "banking", "--cache-dir", str(tmp_path / "c")]) == 0
    graph = json.loads(capsys.readouterr().out)
    assert graph["server"] == "banking" and graph["counts"]["implicit"] >= 1
    assert main(["graph", "banking", "--dot", "--cache-dir", str(tmp_path / "c")]) == 0
    assert capsys.readouterr().out.startswith('digraph "banking"')
    out = tmp_path / "ds"
    assert (
        main(
            [
                "synth",
                "--n",
                "12",
                "--out",
                str(out),
                "--seed",
                "3",
                "--no-progress",
                "--worlds",
                "2",
                "--cache-dir",
                str(tmp_path / "c"),
            ]
        )
        == 0
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["n"] == 12 and (out / "export" / "test.jsonl").exists()
    realism = json.loads((out / "realism.json").read_text())
    assert realism["tasks"] == 12 and realism["worlds"] <= 2 and manifest["realism"]["baseline"]["tasks"] == 12


def test_the_top_up_raises_rare_tools_to_the_floor_with_intent_tasks() -> None:
    from collections import Counter

    from hub.synth.pipeline import Synthesizer

    synth = Synthesizer(LIBRARY, SynthConfig(n=4, seed=0, worlds=2, min_tool_uses=2))
    rare = ["issue_tracker__close_sprint", "video_meeting__start_meeting"]
    synth.all_tools = rare
    tasks = synth._cover([], Counter())
    uses = Counter(s.name for t in tasks for s in t.gt_steps())
    assert all(uses[name] >= 2 for name in rare), uses
    assert all(t.meta["synth"]["source"] == "intent" and t.expected_state_hash for t in tasks)
    assert len(tasks) <= 4  # appended only up to n; past it a top-up task replaces one whose tools stay covered
