"""``python -m hub.tasks --regenerate`` reports every task that cannot replay, skips it, and rewrites the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.tasks import read_jsonl
from hub.tasks.__main__ import main


def task(tid: str, tool: str, arguments: dict[str, object]) -> str:
    return json.dumps(
        {
            "id": tid,
            "servers": ["bank"],
            "tools": ["bank__transfer"],
            "initial": {"configs": {"bank": {"accounts": {"alice": 100, "bob": 0}}}},
            "turns": [
                {"user": "Pay bob.", "calls": [{"id": "a", "server": "bank", "tool": tool, "arguments": arguments}]}
            ],
        }
    )


def test_every_bad_task_is_reported_and_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "tasks.jsonl"
    lines = [
        task("good-1", "transfer", {"source": "alice", "target": "bob", "amount": 10}),
        task("unknown-tool", "wire", {}),
        task("failing-step", "transfer", {"source": "alice", "target": "bob", "amount": 1000}),
        task("good-2", "transfer", {"source": "alice", "target": "bob", "amount": 20}),
    ]
    path.write_text("\n".join(lines) + "\n")
    assert main([str(path), "--regenerate", "--mount", "tests.mounted_envs:Bank"]) == 1
    err = capsys.readouterr()
    assert "task unknown-tool: unknown tool 'bank__wire'" in err.err
    assert "task failing-step: ground-truth step a (bank__transfer) failed" in err.err
    assert "regenerated 2 of 4 tasks" in err.out
    hashes = {t.id: t.expected_state_hash for t in read_jsonl(path)}
    assert hashes["good-1"] and hashes["good-2"] and hashes["good-1"] != hashes["good-2"]
    assert hashes["unknown-tool"] is None and hashes["failing-step"] is None
