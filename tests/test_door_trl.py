"""The TRL door: one GRPO step of TRL's own GRPOTrainer (environment_factory) on hub tasks through the OpenEnv
door, with a tiny random-weight model built offline, on the CPU (TRL runs in .venvs/openenv)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.testing import serve
from tests.conftest import LIBRARY
from tests.door_support import run_json, venv_python


@pytest.mark.slow
def test_trl_grpo_trainer_rolls_out_hub_episodes(tmp_path: Path) -> None:
    python = venv_python("openenv", "import trl, torch, openenv.core.generic_client")

    async def scenario() -> tuple[Any, list[dict[str, Any]]]:
        settings = Settings(store_path=str(tmp_path / "store.db"))
        hub = Hub(settings, LIBRARY)
        async with serve(create_app(settings, hub)) as live:
            args = (live.url, str(tmp_path / "trl"), "bank-balance-001", "bank-transfer-002")
            seen = await asyncio.to_thread(run_json, python, "trl_rollout.py", *args, timeout=600)
            await hub.store.flush()
            return seen, await hub.store.query("SELECT task_id, reward FROM episodes WHERE status = 'finished'")

    seen, finished = asyncio.run(scenario())
    assert seen["steps"] == 1 and len(seen["environments"]) == 2  # two tasks with different offered tools
    assert "missing required argument" in seen["probe_result"] and 0 < seen["probe_reward"] < 1.3
    assert any(r is not None for r in seen["reward_means"])  # the hub's reward reached TRL's reward column
    assert len(finished) >= 3  # the probe, then one hub episode per rollout of the GRPO group, each scored
    assert all(row["reward"] is not None for row in finished)
