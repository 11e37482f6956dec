"""The verl door: trainer_client.verl_agent_loop under verl's real agent-loop base class and registry, with a
fake token server, against a real hub on loopback (verl runs in .venvs/verl; the hub in this environment)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.tasks import oracle_script
from hub.testing import serve
from tests.conftest import LIBRARY
from tests.door_support import run_json, venv_python


@pytest.mark.slow
def test_verl_agent_loop_plays_grpo_groups_token_in_token_out(tmp_path: Path) -> None:
    python = venv_python("verl", "import verl.experimental.agent_loop.agent_loop, websockets, transformers")

    async def scenario() -> tuple[Any, Hub]:
        settings = Settings(store_path=str(tmp_path / "store.db"))
        hub = Hub(settings, LIBRARY)
        async with serve(create_app(settings, hub)) as live:
            scripts = {
                t: (hub.tasks.get(t).turns[0].user, oracle_script(hub.tasks.get(t)))
                for t in ("bank-transfer-002", "bank-payee-004")
            }
            seen = await asyncio.to_thread(
                run_json, python, "verl_loop.py", live.ws_url, json.dumps(scripts), str(tmp_path)
            )
            return seen, hub

    seen, hub = asyncio.run(scenario())
    assert len(seen) == 4 and all(s["reward"] == pytest.approx(1.3) and s["reason"] == "completed" for s in seen)
    for task in ("bank-transfer-002", "bank-payee-004"):
        group = [s for s in seen if s["task"] == task]
        assert len({s["group"] for s in group}) == 1 and len({s["state_hash"] for s in group}) == 1  # one GRPO group
        assert "<tool_response>" in group[0]["inserted_text"] and "<|im_start|>assistant" in group[0]["inserted_text"]
        assert group[0]["prompt_text"].endswith("<|im_start|>assistant\n") and "# Tools" in group[0]["prompt_text"]
    payee = next(s for s in seen if s["task"] == "bank-payee-004")
    assert hub.tasks.get("bank-payee-004").turns[1].user in payee["inserted_text"]  # the next user turn, masked out
    assert not hub.episodes.episodes  # every episode closed after its sample
