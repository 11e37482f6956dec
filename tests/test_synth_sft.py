"""SFT export: full chats from the oracle's replay, their tool results the live servers', Qwen rendering."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.engine.clarify import judge_reply, other_words, question_words
from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import function_schema
from hub.engine.events import EventBus
from hub.state.sessions import SessionManager
from hub.synth.pipeline import SynthConfig, SynthResult, synthesize
from hub.synth.sft import REFUSAL, SFTExporter, render_qwen, write_sft
from hub.tasks import BUILTIN_TASKS, Task, build_initial, read_jsonl
from tests.conftest import LIBRARY


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> SynthResult:
    return synthesize(LIBRARY, SynthConfig(n=60, seed=5, cache_dir=tmp_path_factory.mktemp("graphs"), sampler_k=40))


def fresh_results(task: Task) -> list[str]:
    """The ground truth's results on a fresh fork of the task's initial state."""
    sessions = SessionManager(LIBRARY)
    dispatcher = Dispatcher(LIBRARY, sessions, EventBus())
    build_initial(task, sessions, dispatcher, "fresh")
    return [dispatcher.call("fresh", s.server, s.tool, s.arguments).text() for s in task.gt_steps()]


def check_chat(task: Task, record: dict) -> None:  # type: ignore[type-arg]
    msgs = record["messages"]
    assert msgs[0]["role"] == "system"
    assert [m["content"] for m in msgs if m["role"] == "user"] == [t.user for t in task.turns]
    calls = [c for m in msgs if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        (s.name, s.arguments) for s in task.gt_steps()
    ]
    results = [m for m in msgs if m["role"] == "tool"]
    assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
    assert [r["content"] for r in results] == fresh_results(task)  # real results, from a fresh fork
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in record["tools"]}
    user_turn = -1
    for i, m in enumerate(msgs[1:], 1):
        if m["role"] == "user":
            user_turn += 1
            if task.turns[user_turn].ask:  # the reply to an ask turn is a question for what is missing
                reply = msgs[i + 1]
                assert reply["role"] == "assistant" and not reply.get("tool_calls")
                wanted = question_words(task, user_turn, schemas)
                assert judge_reply(reply["content"], wanted, other_words(schemas, wanted)).asked  # never stuffed
                assert "please tell me" not in reply["content"].lower()  # asked as a person asks, once
    if task.kind == "abstain":
        assert not calls and [m["content"] for m in msgs if m["role"] == "assistant"] == [REFUSAL] * len(task.turns)
    assert msgs[-1]["role"] == "assistant" and not msgs[-1].get("tool_calls")
    assert record["reward"] == pytest.approx(1.0 if task.kind == "abstain" or not task.gt_steps() else 1.3)
    assert record["tools"] == [function_schema(LIBRARY, n, task.strip_enums) for n in task.tools]


def test_every_synthesized_task_becomes_a_perfect_chat(synth: SynthResult) -> None:
    exporter = SFTExporter(LIBRARY)
    kinds = set()
    asks = set()
    for task in synth.tasks:
        record = exporter.chat(task)
        check_chat(task, record)
        kinds.add(task.kind)
        if task.kind == "clarify":
            asks.add(next(m["content"] for m in record["messages"] if m["role"] == "assistant"))
    assert kinds == {"mcp", "clarify", "abstain"}
    assert len(asks) >= 3  # the questions vary with what is withheld and with the task


@pytest.mark.parametrize("task", read_jsonl(BUILTIN_TASKS), ids=lambda t: t.id)
def test_builtin_tasks_export_too(task: Task) -> None:
    check_chat(task, SFTExporter(LIBRARY).chat(task))


def test_qwen_rendering(synth: SynthResult) -> None:
    pytest.importorskip("transformers")
    exporter = SFTExporter(LIBRARY)
    task = next(t for t in synth.tasks if t.kind == "clarify")
    record = exporter.chat(task)
    text = render_qwen(record)
    assert text.startswith("<|im_start|>system\n" + record["messages"][0]["content"] + "\n\n# Tools\n")
    chat = text.split("<|im_end|>\n", 1)[1]  # after the system message (whose tool instructions show a call)
    assert chat.count('<tool_call>\n{"name": ') == len(task.gt_steps())
    assert chat.count("<tool_response>\n") == len(task.gt_steps())
    for step in task.gt_steps():
        assert json.dumps({"name": step.name, "arguments": step.arguments}) in text
    ask = next(m for m in record["messages"] if m["role"] == "assistant")
    assert f"<|im_start|>assistant\n{ask['content']}<|im_end|>\n" in text
    assert text.count("<|im_start|>") == text.count("<|im_end|>")
    assert text.endswith("<|im_end|>\n")


def test_files_and_the_cli_flag(tmp_path: Path) -> None:
    from hub.cli import main

    out = tmp_path / "ds"
    assert (
        main(
            [
                "synth",
                "--n",
                "14",
                "--out",
                str(out),
                "--seed",
                "2",
                "--no-progress",
                "--sft",
                "--cache-dir",
                str(tmp_path / "c"),
            ]
        )
        == 0
    )
    train = read_jsonl(out / "train.jsonl")
    rows = [json.loads(line) for line in (out / "sft" / "train.jsonl").read_text().splitlines()]
    assert [r["task"] for r in rows] == [t.id for t in train] and {r["split"] for r in rows} == {"train"}
    rendered = (out / "sft" / "train.qwen.jsonl").read_text().splitlines()
    assert len(rendered) == len(rows) and json.loads(rendered[0])["text"].startswith("<|im_start|>system")
    counts = write_sft(tmp_path / "plain", train[:2], LIBRARY, render=False)
    assert counts == {"train.jsonl": 2} and not (tmp_path / "plain" / "train.qwen.jsonl").exists()
