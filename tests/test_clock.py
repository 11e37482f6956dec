"""A clock that moves: every world seed lives on its own day, its data lies around that day, its tools and the
intents that write its tasks read the same "now", and its tasks replay to their expected state."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.config import REFERENCE_NOW
from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus
from hub.engine.world import World
from hub.kit.intent import day
from hub.kit.reckon import dates_in
from hub.state.db import SeedDatabase
from hub.state.library import world_now
from hub.state.sessions import SessionManager
from hub.synth import realism
from hub.synth.goals import DraftFailed, run_dialogue
from hub.synth.pipeline import SynthConfig, SynthResult, synthesize
from servers import REGISTRY
from tests.conftest import LIBRARY

BUDGET = next(s for s in REGISTRY if s.name == "budget")


def saturday_seed() -> int:
    return next(s for s in range(1, 50) if world_now(REFERENCE_NOW, s).weekday() == 5)


def test_seed_zero_keeps_the_default_day_and_a_full_run_spreads_over_a_year_of_days() -> None:
    assert world_now(REFERENCE_NOW, 0) == REFERENCE_NOW
    days = [world_now(REFERENCE_NOW, s) for s in range(SynthConfig(n=13_517).world_count)]
    assert len({d.date() for d in days}) == len(days) >= 100
    assert {d.weekday() for d in days} == set(range(7))  # weekends too
    assert all(abs((d - REFERENCE_NOW).days) <= 183 and d.time() == REFERENCE_NOW.time() for d in days)
    assert SynthConfig(n=3000).world_count == 24 and SynthConfig(n=60).world_count == 8
    assert SynthConfig(n=3000, worlds=3).world_count == 3


def test_a_saturday_world_resolves_relative_days_from_its_own_date() -> None:
    now = world_now(REFERENCE_NOW, saturday_seed())
    monday = now.date() + timedelta(days=2)
    assert now.weekday() == 5 and monday.weekday() == 0
    assert monday in dates_in("Can you move it to next Monday?", now)
    assert dates_in("I paid them yesterday", now) == {now.date() - timedelta(days=1)}
    assert day(now.date() - timedelta(days=1), now) == "yesterday"
    assert day(monday, now) == "this Monday"
    assert dates_in("yesterday", now) != dates_in("yesterday", REFERENCE_NOW)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.integers(1, 400))
def test_a_seed_hash_is_stable_per_seed_and_date(seed: int, shift: int) -> None:
    now = world_now(REFERENCE_NOW, seed)
    a, b = SeedDatabase(BUDGET, seed, now), SeedDatabase(BUDGET, seed, now)
    assert a.hash_int == b.hash_int and a.data == b.data
    assert SeedDatabase(BUDGET, seed, now + timedelta(days=shift)).hash_int != a.hash_int  # data around its day


def test_the_library_builds_each_world_at_its_own_date() -> None:
    seed = saturday_seed()
    mount = LIBRARY.mount("budget")
    built = mount.seed_db(seed)  # type: ignore[attr-defined]
    assert built.now == world_now(REFERENCE_NOW, seed) == LIBRARY.now_of("budget", seed)
    assert built.hash_int == SeedDatabase(BUDGET, seed, world_now(REFERENCE_NOW, seed)).hash_int
    sessions = SessionManager(LIBRARY)
    session = sessions.open("saturday", seed=seed)
    assert session.fork_of("budget").now == built.now  # type: ignore[attr-defined]
    out = Dispatcher(LIBRARY, sessions, EventBus(maxsize=1)).call(
        "saturday", "budget", "add_expense", {"category_id": "CAT-001", "amount": 5.0, "merchant": "Corner Cafe"}
    )
    assert out.ok, out.error
    assert out.result["date"] == built.now.date().isoformat()  # "today" is the world's day


def logged_yesterday(world: int) -> tuple[datetime, str, date]:
    """A dialogue on ``world`` where someone logs what they spent "yesterday": (the world's day, the turn, the
    date the ground truth sends)."""
    sessions = SessionManager(LIBRARY)
    dispatcher = Dispatcher(LIBRARY, sessions, EventBus(maxsize=1))
    opener = next(i for i in BUDGET.intents if i.name == "log_spending")
    for k in range(200):
        sid = f"yesterday-{world}-{k}"
        try:
            d = run_dialogue(BUDGET, sessions, dispatcher, sid, world, "complete", random.Random(k), opener)
        except DraftFailed:
            continue
        finally:
            sessions.close(sid)
        text, call = d.scene.turns[0].text, next(c for c in d.calls if c.tool == "add_expense")
        if "yesterday" in text:
            return d.scene.now, text, date.fromisoformat(call.arguments["date"])
    raise AssertionError(f"no 'yesterday' dialogue on world {world}")


def test_yesterday_is_each_tasks_own_yesterday() -> None:
    found = [logged_yesterday(w) for w in (0, saturday_seed())]
    for now, text, sent in found:
        assert dates_in(text, now) == {sent} and sent == now.date() - timedelta(days=1), text
    assert found[0][2] != found[1][2]


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> SynthResult:
    return synthesize(LIBRARY, SynthConfig(n=24, seed=3, worlds=2, cache_dir=tmp_path_factory.mktemp("graphs")))


def test_tasks_from_two_worlds_live_on_two_days_and_replay_to_their_hashes(synth: SynthResult) -> None:
    by_world = {t.initial.seed: t for t in synth.tasks if t.expected_state_hash and t.kind == "mcp"}
    assert len(by_world) == 2
    days = {w: world_now(REFERENCE_NOW, w) for w in by_world}
    assert len({d.date() for d in days.values()}) == 2
    world = World(LIBRARY)
    for w, task in by_world.items():
        assert task.meta["synth"]["today"] == days[w].date().isoformat()
        assert task.system and f"{days[w]:%B} {days[w].day}, {days[w].year}" in task.system
        assert world.replay(task, f"replay-{w}").state_hash == task.expected_state_hash, task.id
    figures = realism.report(synth.tasks, LIBRARY, baseline_sample=2)
    assert figures["reference_dates"] == figures["worlds"] == 2
