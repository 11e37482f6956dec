"""``prove-hub eval``: an OpenAI-compatible endpoint (a fake one served on loopback) and the baselines,
through the hub's WebSocket protocol."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.cli import parser
from hub.tasks import Task, oracle_script
from hub.testing import LiveHub, serve
from tests.conftest import ALL_PARTS
from tests.trainer_support import make_app
from trainer_client.evaluate import format_table, run_eval, select_tasks, split_of

CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)


def fake_openai(tasks: list[Task], seen: list[dict[str, Any]]) -> Starlette:
    """A chat endpoint that answers like a perfect model, in OpenAI ``tool_calls`` form."""
    by_first_turn = {t.turns[0].user: t for t in tasks}

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append(body)
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        script = oracle_script(by_first_turn[user])
        step = sum(m["role"] == "assistant" for m in body["messages"])
        text = script[step] if step < len(script) else "Done."
        calls = [json.loads(c) for c in CALL.findall(text)]
        if calls:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{step}_{i}",
                        "type": "function",
                        "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                    }
                    for i, c in enumerate(calls)
                ],
            }
        else:
            message = {"role": "assistant", "content": text}
        return JSONResponse(
            {
                "id": "cmpl",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            }
        )

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


async def test_endpoint_eval_per_server_and_kind(live: LiveHub, tmp_path: Path) -> None:
    tasks = list(live.app.state.hub.tasks)
    seen: list[dict[str, Any]] = []
    async with serve(fake_openai(tasks, seen)) as endpoint:
        args = parser(ALL_PARTS).parse_args(
            [
                "eval",
                "--hub",
                live.url,
                "--endpoint",
                f"{endpoint.url}/v1",
                "--model",
                "fake-qwen",
                "--split",
                "all",
                "--samples",
                "2",
            ]
        )
        report = await run_eval(args)
    assert report["tasks"] == len(tasks) and report["overall"]["episodes"] == 2 * len(tasks)
    assert report["overall"]["success_rate"] == 1.0 and report["overall"]["failed"] == 0
    assert set(report["by_kind"]) == {"mcp", "clarify", "abstain"} and set(report["by_server"]) == {"banking"}
    assert report["by_kind"]["mcp"]["reward"] == pytest.approx(1.3)
    assert report["by_kind"]["mcp"]["components"]["coverage"] == 1.0
    assert report["by_kind"]["abstain"]["reward"] == 1.0
    assert seen[0]["model"] == "fake-qwen" and seen[0]["tools"][0]["type"] == "function"
    assert any(m["role"] == "tool" for body in seen for m in body["messages"])  # results went back to the model
    table = format_table(report)
    assert "server:banking" in table and "kind:abstain" in table and "overall" in table


async def test_noop_baseline_and_splits(live: LiveHub) -> None:
    args = parser(ALL_PARTS).parse_args(["eval", "--hub", live.url, "--policy", "noop", "--split", "all"])
    report = await run_eval(args)
    assert report["by_kind"]["abstain"]["success_rate"] == 1.0 and report["by_kind"]["mcp"]["success_rate"] == 0.0
    assert report["by_kind"]["mcp"]["reward"] == 0.0
    tasks = [t.model_dump() for t in live.app.state.hub.tasks]
    test, train = select_tasks(tasks, "test"), select_tasks(tasks, "train")
    assert (
        test
        and train
        and len(test) + len(train) == len(tasks)
        and not {t["id"] for t in test} & {t["id"] for t in train}
    )
    assert split_of({"id": "x", "meta": {"split": "test"}}) == "test"
    args = parser(ALL_PARTS).parse_args(["eval", "--hub", live.url, "--policy", "oracle", "--split", "test"])
    report = await run_eval(args)
    assert report["tasks"] == len(test) and report["overall"]["success_rate"] == 1.0


async def cli_eval_oracle(live: LiveHub, *extra: str) -> tuple[str, str]:
    """``python -m hub.cli eval`` with the oracle policy over every split, plus ``extra``; its stdout and stderr
    once it has exited 0."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "hub.cli",
        "eval",
        "--hub",
        live.url,
        "--policy",
        "oracle",
        "--split",
        "all",
        *extra,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, stderr.decode()
    return stdout.decode(), stderr.decode()


async def test_cli_prints_table_and_json(live: LiveHub, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    stdout, stderr = await cli_eval_oracle(live, "--kind", "mcp", "--json", str(out))
    assert "overall" in stdout and "server:banking" in stdout
    assert "tasks  success" not in stderr  # no progress bar when stderr is not a terminal
    report = json.loads(out.read_text())
    assert report["policy"] == "oracle" and report["overall"]["success_rate"] == 1.0
    assert {e["kind"] for e in report["episodes"]} == {"mcp"}


async def test_eval_without_policy_is_a_clear_error(live: LiveHub) -> None:
    args = parser(ALL_PARTS).parse_args(["eval", "--hub", live.url])
    with pytest.raises(ValueError, match="--endpoint"):
        await run_eval(args)


async def test_progress_bar_on_request_and_a_clean_table(live: LiveHub) -> None:
    stdout, stderr = await cli_eval_oracle(live, "--progress")
    n = len(live.app.state.hub.tasks)
    frames = [f for f in stderr.split("\r") if "tasks  success" in f]
    assert frames[0].startswith("[....") and f" 0/{n} tasks" in frames[0]
    assert f"[{'#' * 30}] {n}/{n} tasks  success 1.000  failed 0" in frames[-1]
    assert len(frames) == n + 1  # one frame at the start, one per task
    table = stdout.splitlines()
    head = table[1].split()
    assert head == [
        "success",
        "reward",
        "of_max",
        "validity",
        "coverage",
        "efficiency",
        "name",
        "argument",
        "n",
        "failed",
    ]
    for line in table[3:]:
        cells = line.split()
        assert len(cells) == len(head) + 1  # the row name and one value per column, never run together


async def test_thinking_history_strip_sends_earlier_turns_without_their_thinking() -> None:
    from trainer_client.evaluate import OpenAIPolicy

    seen: list[dict[str, Any]] = []

    async def completions(request: Request) -> JSONResponse:
        seen.append(await request.json())
        return JSONResponse({"choices": [{"message": {"role": "assistant", "content": "ok"}}]})

    history = [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "<think>plan A</think>\nfirst answer"},
        {"role": "user", "content": "b"},
    ]
    async with serve(Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])) as endpoint:
        for mode in ("strip", "keep"):
            policy = OpenAIPolicy(endpoint.url + "/v1", "m", thinking_history=mode)
            await policy.act({}, history, [], 1)
            await policy.aclose()
    assert seen[0]["messages"][1]["content"] == "first answer"
    assert seen[1]["messages"][1]["content"] == "<think>plan A</think>\nfirst answer"


def test_a_template_that_drops_thinking_is_recognised() -> None:
    pytest.importorskip("transformers", reason="transformers is not installed (scripts/install-trainer-deps)")
    from trainer_client.chat import template_drops_thinking
    from trainer_client.tiny import byte_tokenizer

    tokenizer = byte_tokenizer()
    assert template_drops_thinking(tokenizer) is False  # ChatML keeps every turn as written
    # Qwen3's rule, reduced: an assistant turn before the last user turn loses its <think> block
    tokenizer.chat_template = (
        "{% set last = namespace(i=0) %}{% for m in messages %}{% if m.role == 'user' %}{% set last.i = loop.index0 %}"
        "{% endif %}{% endfor %}{% for m in messages %}<|im_start|>{{ m.role }}\n"
        "{% if m.role == 'assistant' and loop.index0 < last.i and '</think>' in m.content %}"
        "{{ m.content.split('</think>')[-1] }}{% else %}{{ m.content }}{% endif %}<|im_end|>\n{% endfor %}"
    )
    assert template_drops_thinking(tokenizer) is True
