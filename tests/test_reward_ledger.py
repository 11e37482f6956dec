"""The reward ledger: one table of components (``hub.wire.COMPONENTS``) that the engine, the store, the dashboard
and the trainer read, and a per-component account (weight, value, earned, max, lost) that adds up to the total."""

from __future__ import annotations

import math
import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hub.engine import reward
from hub.engine.events import RewardEvent
from hub.engine.store import Store
from hub.wire import COMPONENTS, PAPER_TERMS, RewardConfig
from web import models

ROOT = Path(__file__).resolve().parent.parent


@given(
    st.lists(st.floats(0, 1), min_size=5, max_size=5),
    st.floats(-3, 0),
    st.sampled_from(["paper", "clarify", "abstention"]),
    st.floats(0, 1),
    st.booleans(),
    st.floats(0, 1),
    st.sampled_from(["paper", "outcome"]),
)
def test_losses_add_up_to_max_minus_total(
    values: list[float], eff: float, mode: str, asked: float, gated: bool, state: float, preset: str
) -> None:
    config = RewardConfig(preset="paper", w_state=0.3, w_format=0.1) if preset == "paper" else RewardConfig()
    comps = dict(zip(["validity", "coverage", "name", "argument", "answer"], values)) | {
        "efficiency": eff,
        "state": state,
        "format": 1.0,
        "clarify": asked,
        "abstention": float(asked > 0.5),
    }
    gates = (["state"] if preset == "outcome" else []) + (["clarify"] if mode == "clarify" else [])
    rows = reward.ledger(mode, comps, config, gated=gated, gates=gates)
    best = sum(r.max for r in rows)
    total = sum(r.earned for r in rows)
    assert math.isclose(sum(r.lost for r in rows), best - total, abs_tol=1e-9)
    names = [r.name for r in rows]
    assert len(names) == len(set(names))
    if mode == "paper" or (mode == "clarify" and gated):
        assert set(PAPER_TERMS) <= set(names)
        gated_sum = sum(
            config.model_dump()[reward.COMPONENT[c].weight] * comps[c]
            for c in names
            if c in comps and reward.COMPONENT[c].weight and c != "format"
        )
        assert total <= max(gated_sum, 0.0) + config.w_format + 1e-9 or gated_sum < 0


def test_every_component_has_a_store_column_and_a_ledger_row(tmp_path: Path) -> None:
    """A reward event lands in the store with a column per component and its ledger; an older file without the
    newer columns gets them on start."""
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # the rewards table as first released
        db.execute(
            "CREATE TABLE rewards (episode_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, total REAL NOT NULL, "
            "mode TEXT NOT NULL, validity REAL, coverage REAL, efficiency REAL, name REAL, argument REAL, "
            "state REAL, format REAL, components TEXT NOT NULL, weights TEXT NOT NULL, ts REAL NOT NULL)"
        )

    async def run() -> list[dict[str, object]]:
        store = Store(str(path))
        await store.start()
        comps = {c.name: 0.5 for c in COMPONENTS}
        rows = reward.ledger("paper", comps, RewardConfig(preset="paper", w_state=0.2), gated=False)
        ledger = [r.model_dump() for r in rows]
        store.offer(RewardEvent("ep-1", "t", 0.9, "paper", comps, {"w_val": 0.5}, 1.0, max=1.5, ledger=ledger))
        await store.flush()
        found = await store.query("SELECT * FROM rewards")
        await store.stop()
        return found

    import asyncio

    (row,) = asyncio.run(run())
    assert all(row[c.name] == 0.5 for c in COMPONENTS)
    assert row["maximum"] == 1.5 and "earned" in str(row["ledger"])


def test_the_dashboard_reads_the_stored_ledger() -> None:
    rows = reward.ledger("clarify", {c.name: 1.0 for c in COMPONENTS} | {"clarify": 0.0}, RewardConfig(), gated=True)
    pts = models.points([r.model_dump() for r in rows])
    assert pts["total"] == 0.0 and math.isclose(pts["lost"], pts["max"])
    assert {r["name"] for r in pts["rows"]} >= {*PAPER_TERMS, "clarify"}


def listings(root: Path) -> list[str]:
    """Files that spell out the reward's components: their names (quoted, or as SQL columns) close together."""
    name = r"""(?:["']{c}["']|\b{c} REAL)"""
    found = []
    for folder in ("hub", "web", "trainer_client", "templates", "scripts"):
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".py", ".html"):
                continue
            text = path.read_text()
            starts = [m.start() for m in re.finditer(name.format(c="validity"), text)]
            if any(
                all(re.search(name.format(c=c), text[i : i + 700]) for c in ("coverage", "efficiency", "argument"))
                for i in starts
            ):
                found.append(str(path.relative_to(root)))
    return found


def test_the_components_are_listed_in_one_place() -> None:
    """No module, template or script spells out the component list again: they read ``hub.wire.COMPONENTS``
    (the reward module computes each, so it names each)."""
    assert listings(ROOT) == ["hub/engine/reward.py", "hub/wire.py"]


@pytest.mark.parametrize("component", COMPONENTS, ids=lambda c: c.name)
def test_a_weighted_component_names_a_config_field(component: reward.Component) -> None:
    if component.weight is not None:
        assert component.weight in RewardConfig.model_fields
