"""Trajectories in standard formats: stored episodes exported as ATIF v1.7, OpenAI messages and JSON lines,
matched against what the model saw live and validated with the formats' own packages (Harbor, openai)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

import pytest

from hub.app import create_app
from hub.cli import main as cli_main
from hub.config import Settings
from hub.core import Hub
from hub.engine.export import export, read_episodes
from hub.tasks import hermes_call, oracle_script
from hub.testing import serve
from tests.conftest import LIBRARY
from tests.door_support import run_json, venv_python
from trainer_client.hub_client import HubClient

OPENAI_STEP = {
    "role": "assistant",
    "content": "Let me look.",
    "tool_calls": [
        {
            "id": "x1",
            "type": "function",
            "function": {"name": "banking__get_account", "arguments": '{"account_id": "ACC-0005"}'},
        }
    ],
}


async def play(store: Path) -> dict[str, list[dict[str, Any]]]:
    """Play a few episodes over /ws; returns each episode's chat as the model saw it (tool and user messages)."""
    settings = Settings(store_path=str(store))
    seen: dict[str, list[dict[str, Any]]] = {}
    async with serve(create_app(settings, Hub(settings, LIBRARY))) as live, HubClient(live.ws_url) as client:
        tasks = live.app.state.hub.tasks
        run = await client.run_start("export-test")
        plans = {
            "bank-transfer-002": oracle_script(tasks.get("bank-transfer-002")),
            "bank-payee-004": oracle_script(tasks.get("bank-payee-004")),
            "bank-balance-001": [
                hermes_call("banking__get_account", {"account_id": "ACC-9999"}) + "<tool_call>{broken",
                "Sorry.",
            ],
            "bank-abstain-010": ["None of my tools can do that."],
        }
        for task, script in plans.items():
            group = await client.open(task, run=run, step=3)
            eid = group.episodes[0]
            chat = [m for m in group.messages if m["role"] == "user"]
            if task == "bank-balance-001":
                obs = await client.step(eid, message=OPENAI_STEP)
                chat += obs["messages"]
            for text in script:
                obs = await client.step(eid, text)
                chat += obs["messages"]
            await client.finish(eid)
            seen[eid] = chat
        await client.flush()
    return seen


def test_exports_match_the_live_chat_and_carry_the_reward(tmp_path: Path) -> None:
    store = tmp_path / "store.db"
    seen = asyncio.run(play(store))
    out = io.StringIO()
    assert export(read_episodes(store), "openai", out, LIBRARY) == 4
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    for record in records:
        meta = record["metadata"]
        live = seen[meta["episode"]]
        exported = [m for m in record["messages"] if m["role"] in ("tool", "user")]
        assert [(m["role"], m.get("tool_call_id"), m["content"]) for m in exported] == [
            (m["role"], m.get("tool_call_id"), m["content"]) for m in live
        ]
        assert meta["run"] and meta["run_step"] == 3 and meta["start_hash"] and meta["final_hash"]
        assert meta["reward"]["total"] == pytest.approx(
            {"bank-transfer-002": 1.3, "bank-payee-004": 1.3, "bank-abstain-010": 1.0}.get(meta["task"], -99.0)
        ) or (meta["task"] == "bank-balance-001" and meta["reward"]["total"] < 1.3)
        assert [t["function"]["name"] for t in record["tools"]][:1] and "parameters" in record["tools"][0]["function"]
    odd = next(r for r in records if r["metadata"]["task"] == "bank-balance-001")
    assistant = [m for m in odd["messages"] if m["role"] == "assistant"]
    assert assistant[0]["tool_calls"][0]["id"] == "x1" and assistant[0]["content"] == "Let me look."
    assert len(assistant[1]["tool_calls"]) == 2  # the failed call and the unparseable one, as the model saw them

    atif = io.StringIO()
    export(read_episodes(store, task="bank-payee-004"), "atif", atif, LIBRARY)
    (trajectory,) = [json.loads(line) for line in atif.getvalue().splitlines()]
    assert trajectory["schema_version"] == "ATIF-v1.7"
    assert [s["source"] for s in trajectory["steps"]][:2] == ["system", "user"]
    agent = [s for s in trajectory["steps"] if s["source"] == "agent"]
    assert all(r["source_call_id"] == c["tool_call_id"] for s in agent if "tool_calls" in s
               for c, r in zip(s["tool_calls"], s["observation"]["results"], strict=True))  # fmt: skip
    assert trajectory["final_metrics"]["extra"]["reward"]["total"] == pytest.approx(1.3)

    full = io.StringIO()
    export(read_episodes(store, task="bank-transfer-002"), "jsonl", full)
    record = json.loads(full.getvalue())
    assert record["reward"]["components"]["coverage"] == 1.0 and len(record["tool_calls"]) == 2


def test_the_command_writes_a_file_and_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store.db"
    asyncio.run(play(store))
    out = tmp_path / "atif.jsonl"
    assert cli_main(["export", "--format", "atif", "--store", str(store), "--out", str(out)]) == 0
    assert len(out.read_text().splitlines()) == 4
    assert cli_main(["export", "--format", "openai", "--store", str(tmp_path / "missing.db")]) == 2
    assert "no episode store" in capsys.readouterr().err


@pytest.mark.slow
def test_exports_validate_with_harbor_and_openai_types(tmp_path: Path) -> None:
    python = venv_python("openenv", "import harbor.models.trajectories, openai")
    store = tmp_path / "store.db"
    asyncio.run(play(store))
    paths = {}
    for fmt in ("atif", "openai"):
        paths[fmt] = tmp_path / f"{fmt}.jsonl"
        with paths[fmt].open("w") as out:
            export(read_episodes(store), fmt, out, LIBRARY)
    seen = run_json(python, "validate_exports.py", str(paths["atif"]), str(paths["openai"]))
    assert seen["versions"] == ["ATIF-v1.7"] and seen["openai_records"] == 4
    assert seen["calls"] >= 6 and seen["roles"]["tool"] == seen["calls"]
