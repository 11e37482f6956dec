"""Rewards per turn: with ``step_reward`` every observation carries the reward so far; off by default."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.tasks import hermes_call, oracle_script
from hub.testing import serve
from tests.conftest import LIBRARY
from tests.test_episodes import make_engine, play
from trainer_client.hub_client import HubClient


def test_off_by_default_and_on_when_asked() -> None:
    engine = make_engine()
    task = engine.tasks.get("bank-transfer-002")
    (plain,) = engine.open_group(task.id)
    (dense,) = engine.open_group(task.id, step_reward=True)
    script = oracle_script(task)
    assert "reward" not in engine.step(plain.id, script[0]).to_json()
    first = engine.step(dense.id, script[0]).to_json()
    assert first["reward"]["components"]["coverage"] == 1.0 and "state" not in first["reward"]["components"]
    last = engine.step(dense.id, script[1]).to_json()
    assert last["done"] and last["reward"] == engine.finish(dense.id).model_dump()


def test_the_reward_so_far_covers_the_turns_reached() -> None:
    """On a two-turn task, turn 0's calls score full coverage of turn 0 before turn 1 is reached; the whole
    task's coverage is then halved until turn 1's call is made."""
    engine = make_engine()
    task = engine.tasks.get("bank-payee-004")
    (ep,) = engine.open_group(task.id, step_reward=True)
    script = oracle_script(task)
    totals = []
    for text in script:
        obs = engine.step(ep.id, text)
        assert obs.reward is not None
        totals.append((obs.turn, obs.reward["components"]["coverage"], obs.reward["total"]))
    assert totals[0][:2] == (0, 1.0)  # turn 0's call, against turn 0's ground truth
    assert totals[1][:2] == (1, 1.0)  # the answer to turn 0 is scored against turn 0; turn 1 is revealed
    assert totals[2][:2] == (1, 1.0)  # turn 1's call, against both turns
    assert totals[-1][2] == pytest.approx(engine.finish(ep.id).total) == pytest.approx(1.3)


def test_a_wrong_call_shows_at_once() -> None:
    engine = make_engine()
    (ep,) = engine.open_group("bank-balance-001", step_reward=True)
    obs = engine.step(ep.id, hermes_call("banking__get_account", {"account_id": "ACC-0001"}))
    assert obs.reward is not None and obs.reward["components"]["argument"] == 0.0
    assert obs.reward["total"] < 1.3
    play(engine, ep.id, ["Done."])
    assert engine.finish(ep.id).total == pytest.approx(obs.reward["total"])


async def test_step_reward_over_the_websocket(tmp_path: Path) -> None:
    settings = Settings(store_path=str(tmp_path / "store.db"))
    async with serve(create_app(settings, Hub(settings, LIBRARY))) as live, HubClient(live.ws_url) as client:
        group = await client.open("bank-transfer-002", n=2, step_reward=True)
        script = oracle_script(live.app.state.hub.tasks.get("bank-transfer-002"))
        obs = await client.step(group.episodes[0], script[0])
        assert obs["reward"]["components"]["validity"] == 1.0
        plain = await client.open("bank-transfer-002")
        assert "reward" not in await client.step(plain.episodes[0], script[0])
