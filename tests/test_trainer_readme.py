"""The README in order: ``./scripts/serve`` serves the shipped default task set (fresh, with a rollout batch of
train tasks of every kind), and the README's own training and evaluation commands succeed against it."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys
from collections import Counter
from pathlib import Path

from hub.tasks import BUILTIN_TASKS, read_jsonl
from hub.tasks.default import DEFAULT_TASKS, build, render
from tests.trainer_support import serve_subprocess
from trainer_client.evaluate import training_tasks

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def test_the_shipped_default_set_is_what_its_generator_makes() -> None:
    """Synthesis, the servers or the hand-written tasks changed: regenerate with the command in the message."""
    assert render(build()) == DEFAULT_TASKS.read_text(), (
        f"{DEFAULT_TASKS} is stale: run `python -m hub.tasks.default --regen` and review the diff"
    )


def test_the_default_set_trains_under_every_kind_and_keeps_the_hand_written_tasks() -> None:
    tasks = [t.model_dump() for t in read_jsonl(DEFAULT_TASKS)]
    assert all(t["split"] in ("train", "test") for t in tasks)  # no hash fallback, no warning
    hand = [t.id for t in read_jsonl(BUILTIN_TASKS)]
    assert [t["id"] for t in tasks[: len(hand)]] == hand
    for kind in ("mcp", "clarify", "abstain"):
        assert len(training_tasks(tasks, "train", kind)) >= 16, kind  # prove-train's default --batch-size
    kinds = Counter((t["kind"], t["split"]) for t in tasks)
    assert all(kinds[(k, "test")] > 0 for k in ("mcp", "clarify", "abstain"))


def readme_commands() -> list[list[str]]:
    """The README's training dry run and oracle evaluation, exactly as printed (one line each)."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Training and evaluation", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].strip() for line in block.splitlines()]
    train = next(x for x in lines if x.startswith(".venv/bin/prove-train") and "--dry-run" in x)
    oracle = next(x for x in lines if x.startswith(".venv/bin/prove-hub eval") and "--policy oracle" in x)
    return [shlex.split(train), shlex.split(oracle)]


async def test_the_readmes_training_commands_succeed_against_the_served_default_set(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUB_")}
    hub, port, drain = await serve_subprocess(tmp_path / "hub.db", env, 120)
    try:
        results = []
        for argv in readme_commands():
            # the README's command, with this venv's bin/ and this test's port for the hub's default one
            argv = [str(BIN / Path(argv[0]).name), *(a.replace(":8765", f":{port}") for a in argv[1:])]
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
            )
            out, err = await asyncio.wait_for(proc.communicate(), 300)
            results.append((argv, proc.returncode, out.decode(), err.decode()))
    finally:
        hub.terminate()
        await hub.wait()
        drain.cancel()
    (train, rc, out, err), (oracle, orc, oout, oerr) = results
    assert rc == 0, err[-3000:]
    assert "350 optimizer steps of 16 prompts x 16 samples" in err and "openrlhf_run" in out
    assert orc == 0, oerr[-3000:]
    report = oout.splitlines()
    assert report[0].startswith("policy oracle on split test") and "tasks" in report[0]
    assert "warning" not in oerr.lower()  # every task is stamped: no hash-split fallback
