"""Memory is a budget: forks are counted in bytes, refused past the limit, groups open whole or not at all."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect

from hub.config import REFERENCE_NOW, Settings, parse_size
from hub.core import Hub
from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus
from hub.errors import CapacityError
from hub.state.library import Library, SqliteMount
from hub.state.memory import ensure_seeds
from hub.state.sessions import SessionManager, fork_bytes
from hub.testing import serve
from servers import REGISTRY
from tests.conftest import LIBRARY
from tests.web_support import csrf_field, make_app

BANKING = LIBRARY.mount("banking")
assert isinstance(BANKING, SqliteMount)
BANK_BYTES = fork_bytes(BANKING.open(0))


def held_exactly(sm: SessionManager) -> int:
    """The bytes the open sessions' forks really hold, measured now."""
    return sum(fork_bytes(f) for s in sm.sessions.values() for f in s.forks.values())


def test_a_fork_past_the_budget_is_refused_and_holds_nothing() -> None:
    sm = SessionManager(LIBRARY, max_state_bytes=int(BANK_BYTES * 2.5))
    dispatcher = Dispatcher(LIBRARY, sm, EventBus())
    for sid in ("a", "b"):
        assert dispatcher.call(sid, "banking", "get_account", {"account_id": "ACC-0001"}).ok
    assert sm.budget.held == held_exactly(sm) == 2 * BANK_BYTES
    refused = dispatcher.call("c", "banking", "get_account", {"account_id": "ACC-0001"})
    assert not refused.ok and refused.error_kind == "capacity"
    assert "HUB_MAX_STATE_BYTES" in (refused.error or "") and "banking" in (refused.error or "")
    assert sm.get("c").forks == {} and sm.budget.held == 2 * BANK_BYTES
    with pytest.raises(CapacityError):
        sm.fork("a", "a2")
    assert "a2" not in sm.sessions
    sm.close("a")
    assert sm.budget.held == BANK_BYTES
    assert dispatcher.call("c", "banking", "get_account", {"account_id": "ACC-0001"}).ok
    assert sm.budget.held == held_exactly(sm)


def test_writes_are_measured_and_sweeps_give_bytes_back() -> None:
    now = [0.0]
    sm = SessionManager(LIBRARY, ttl_s=10, clock=lambda: now[0])
    dispatcher = Dispatcher(LIBRARY, sm, EventBus())
    before = sm.budget.held
    for n in range(5):
        out = dispatcher.call("w", "filesystem", "write_file", {"path": f"/tmp/big{n}.txt", "content": "x" * 100_000})
        assert out.ok, out.error
    assert sm.budget.held == held_exactly(sm) > before + 500_000
    now[0] = 100.0
    assert sm.sweep() == ["w"]
    assert sm.budget.held == held_exactly(sm) == 0


def test_a_group_that_does_not_fit_opens_nothing(tmp_path: Path) -> None:
    s = Settings(store_path=str(tmp_path / "s.db"), max_sessions=12)
    hub = Hub(s, LIBRARY)
    hub.episodes.open_group("bank-transfer-002", 1)  # the template and one episode
    sessions, episodes, held = set(hub.sessions.sessions), dict(hub.episodes.episodes), hub.sessions.budget.held
    with pytest.raises(CapacityError, match="session cap"):
        hub.episodes.open_group("bank-transfer-002", 16)
    assert set(hub.sessions.sessions) == sessions and hub.episodes.episodes == episodes
    assert hub.sessions.budget.held == held
    assert len(hub.episodes.open_group("bank-transfer-002", 9)) == 9


def test_a_group_past_the_byte_budget_opens_nothing(tmp_path: Path) -> None:
    s = Settings(store_path=str(tmp_path / "s.db"), max_state_bytes=BANK_BYTES * 6)
    hub = Hub(s, LIBRARY)
    published = hub.bus.published
    hub.episodes.open_group("bank-transfer-002", 2)
    sessions, held = set(hub.sessions.sessions), hub.sessions.budget.held
    assert held == held_exactly(hub.sessions)
    with pytest.raises(CapacityError, match="memory budget"):
        hub.episodes.open_group("bank-transfer-002", 8)
    assert set(hub.sessions.sessions) == sessions and hub.sessions.budget.held == held
    assert len(hub.episodes.episodes) == 2 and hub.bus.published > published


async def test_capacity_over_the_wire(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path, max_sessions=12)) as live:
        async with connect(live.ws_url) as ws:

            async def ask(**message: object) -> dict[str, object]:
                await ws.send(json.dumps(message))
                return json.loads(await ws.recv())  # type: ignore[no-any-return]

            assert (await ask(type="hello"))["type"] == "welcome"
            refused = await ask(type="open", task="bank-transfer-002", n=16)
            assert refused["type"] == "error" and refused["code"] == "capacity"
            hub: Hub = live.app.state.hub
            assert [s for s in hub.sessions.sessions if s.startswith("es-")] == [] and not hub.episodes.episodes
            assert (await ask(type="open", task="bank-transfer-002", n=10))["type"] == "opened"  # now full
        async with httpx.AsyncClient(base_url=live.url) as http:
            r = await http.post("/api/sessions", json={})
            assert r.status_code == 429 and r.json()["code"] == "capacity"


def test_seed_cache_is_bounded_and_old_forks_keep_working() -> None:
    library = Library.from_servers([s for s in REGISTRY if s.name == "budget"], REFERENCE_NOW, seed_cache=2)
    mount = library.mount("budget")
    assert isinstance(mount, SqliteMount)
    first = mount.open(1)
    mount.open(2)
    mount.open(3)
    assert not mount.has_seed(1) and mount.has_seed(2) and mount.has_seed(3)
    again = mount.open(1)
    assert first.state_hash() == again.state_hash() and first.diff(again) == {}
    assert not mount.has_seed(2)


async def test_new_seeds_are_built_off_the_event_loop() -> None:
    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    servers = list(library.mounts)
    gaps: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    start = time.perf_counter()
    await ensure_seeds(library, servers, 5)
    built = time.perf_counter() - start
    done.set()
    await tick
    assert all(isinstance(m, SqliteMount) and m.has_seed(5) for m in library.mounts.values())
    assert len(gaps) > 5 and max(gaps) < built / 2


def test_sizes_parse_from_the_environment() -> None:
    assert parse_size("512M") == 512 * 2**20 and parse_size("none") is None
    assert Settings.from_env({"HUB_MAX_STATE_BYTES": "8G", "HUB_SEED_CACHE": "3"}).max_state_bytes == 8 * 2**30
    with pytest.raises(ValueError, match="not a size"):
        Settings.from_env({"HUB_MAX_STATE_BYTES": "lots"})


async def test_every_door_answers_capacity_instead_of_failing(tmp_path: Path) -> None:
    async with (
        serve(make_app(tmp_path, max_state_bytes=BANK_BYTES)) as live,
        httpx.AsyncClient(base_url=live.url) as http,
    ):
        assert (
            await http.post(
                "/api/sessions/one/call/banking/get_account", json={"arguments": {"account_id": "ACC-0001"}}
            )
        ).json()["ok"]
        r = await http.post(
            "/api/sessions/two/call/banking/get_account", json={"arguments": {"account_id": "ACC-0001"}}
        )
        assert r.status_code == 429 and r.json()["error_kind"] == "capacity"
        r = await http.get("/api/sessions/two/state/banking")
        assert r.status_code == 429 and r.json()["code"] == "capacity"
        token = csrf_field((await http.get("/ui/catalog/banking/get_account")).text)
        r = await http.post(
            "/ui/catalog/banking/get_account/run", data={"session": "three", "account_id": "ACC-0001", **token}
        )
        assert r.status_code == 200 and "memory budget" in r.text
        assert (await http.get("/healthz")).json()["status"] == "ok"


async def test_the_state_browser_keeps_its_page_bounds(tmp_path: Path) -> None:
    async with serve(make_app(tmp_path)) as live, httpx.AsyncClient(base_url=live.url) as http:
        base = "/api/sessions/default/state/banking?table=transactions"
        assert len((await http.get(base + "&limit=3")).json()["rows"]) == 3
        for bad in ("&limit=-1", "&limit=0", "&offset=-5"):
            r = await http.get(base + bad)
            assert r.status_code == 400 and ("limit" in r.json()["error"] or "offset" in r.json()["error"]), bad
        assert len((await http.get(base + "&limit=100000")).json()["rows"]) == 500
