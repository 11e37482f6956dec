"""Memory is a budget: forks are counted in bytes, refused past the limit, groups open whole or not at all."""

from __future__ import annotations

import asyncio
import gc
import json
import sqlite3
import time
import weakref
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from hub.app import create_app
from hub.config import REFERENCE_NOW, Settings, parse_size
from hub.core import Hub
from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus
from hub.errors import CapacityError, SessionError
from hub.state.db import SqliteFork
from hub.state.library import Library, SqliteMount
from hub.state.memory import ensure_seeds
from hub.state.sessions import SessionManager, fork_bytes
from hub.testing import serve
from servers import REGISTRY
from tests.conftest import ALL_PARTS, LIBRARY
from tests.web_support import csrf_field, make_app

BANKING = LIBRARY.mount("banking")
assert isinstance(BANKING, SqliteMount)
BANK_BYTES = fork_bytes(BANKING.open(0))
ACCOUNT = {"account_id": "ACC-0001"}


def private_library(*names: str) -> Library:
    """A library of its own, its seeds built: budget tests evict seeds, never the shared library's."""
    library = Library.from_servers([s for s in REGISTRY if s.name in names], REFERENCE_NOW)
    for mount in library.mounts.values():
        assert isinstance(mount, SqliteMount)
        mount.seed_db(0)
    return library


@pytest.fixture(scope="module")
def bank_lib() -> Library:
    return private_library("banking")


@pytest.fixture(scope="module")
def files_lib() -> Library:
    return private_library("filesystem")


def manager(library: Library, forks: float | None, **options: Any) -> tuple[SessionManager, Dispatcher]:
    """A session manager whose budget holds the library's seeds plus ``forks`` banking forks' worth."""
    sm = SessionManager(library, **options)
    sm.budget.limit = None if forks is None else library.seeds.bytes + int(BANK_BYTES * forks)
    return sm, Dispatcher(library, sm, EventBus())


def held_exactly(sm: SessionManager) -> int:
    """The bytes the open sessions' forks really hold, measured now."""
    return sum(fork_bytes(f) for s in sm.sessions.values() for f in s.forks.values())


def test_a_fork_past_the_budget_is_refused_and_holds_nothing(bank_lib: Library) -> None:
    sm, dispatcher = manager(bank_lib, 2.5)
    for sid in ("a", "b"):
        assert dispatcher.call(sid, "banking", "get_account", ACCOUNT).ok
    assert sm.budget.held == held_exactly(sm) == 2 * BANK_BYTES
    refused = dispatcher.call("c", "banking", "get_account", ACCOUNT)
    assert not refused.ok and refused.error_kind == "capacity"
    assert "HUB_MAX_STATE_BYTES" in (refused.error or "") and "banking" in (refused.error or "")
    assert "c" not in sm.sessions and "c" not in sm.ended  # a refused call leaves no session behind
    assert sm.budget.held == 2 * BANK_BYTES
    with pytest.raises(CapacityError):
        sm.fork("a", "a2")
    assert "a2" not in sm.sessions
    sm.close("a")
    assert sm.budget.held == BANK_BYTES
    assert dispatcher.call("c", "banking", "get_account", ACCOUNT).ok
    assert sm.budget.held == held_exactly(sm)


def test_three_hundred_refused_calls_create_no_session(bank_lib: Library) -> None:
    sm, dispatcher = manager(bank_lib, 1.05)
    assert dispatcher.call("a", "banking", "get_account", ACCOUNT).ok
    for n in range(300):
        assert dispatcher.call(f"r{n}", "banking", "get_account", ACCOUNT).error_kind == "capacity"
    assert set(sm.sessions) == {"default", "a"} and not sm.ended
    with pytest.raises(CapacityError, match="memory budget"):
        sm.get("r0", create=True)  # the transports' door: refused before the session exists
    assert "r0" not in sm.sessions


def test_writes_are_measured_and_sweeps_give_bytes_back(files_lib: Library) -> None:
    now = [0.0]
    sm, dispatcher = manager(files_lib, None, ttl_s=10, clock=lambda: now[0])
    before = sm.budget.held
    for n in range(5):
        out = dispatcher.call("w", "filesystem", "write_file", {"path": f"/tmp/big{n}.txt", "content": "x" * 100_000})
        assert out.ok, out.error
    assert sm.budget.held == held_exactly(sm) > before + 500_000
    now[0] = 100.0
    assert sm.sweep() == ["w"]
    assert sm.budget.held == held_exactly(sm) == 0


def test_a_write_past_the_budget_is_refused_and_rolled_back(files_lib: Library) -> None:
    fs_fork = fork_bytes(files_lib.mount("filesystem").open(0))
    sm, dispatcher = manager(files_lib, None)
    sm.budget.limit = files_lib.seeds.bytes + fs_fork + 450_000
    big = "x" * 100_000
    for n in range(3):
        assert dispatcher.call("w", "filesystem", "write_file", {"path": f"/tmp/f{n}.txt", "content": big}).ok
    fork = sm.get("w").fork_of("filesystem")
    state, held = fork.state_hash(), sm.budget.held
    refused = [
        dispatcher.call("w", "filesystem", "write_file", {"path": f"/tmp/g{n}.txt", "content": big}) for n in range(3)
    ]
    assert [r.error_kind for r in refused if not r.ok] and all(r.error_kind == "capacity" for r in refused if not r.ok)
    kept = [r for r in refused if r.ok]
    assert len(kept) <= 1  # the one write that still fit
    last = refused[-1]
    assert not last.ok and "HUB_MAX_STATE_BYTES" in (last.error or "")
    assert sm.budget.held == held_exactly(sm) <= sm.budget.limit - files_lib.seeds.bytes
    if not kept:
        assert fork.state_hash() == state and sm.budget.held == held
    listing = dispatcher.call("w", "filesystem", "list_directory", {"path": "/tmp"})
    assert listing.ok and "g2.txt" not in json.dumps(listing.result)
    assert dispatcher.call("w", "filesystem", "remove_path", {"path": "/tmp/f0.txt"}).ok  # shrinking is never refused


def test_writes_running_together_reserve_their_growth_and_never_share_the_same_room(files_lib: Library) -> None:
    fs_fork = fork_bytes(files_lib.mount("filesystem").open(0))
    sm, dispatcher = manager(files_lib, None)
    sm.budget.limit = files_lib.seeds.bytes + 2 * fs_fork + 240_000
    for sid in ("running", "w"):
        assert dispatcher.call(sid, "filesystem", "list_directory", {"path": "/tmp"}).ok
    running = sm.get("running").account("filesystem")
    first = running.reserve()  # a write in another session, still running: half of what is free
    assert first is not None and 100_000 < first <= 120_000 and sm.budget.free() == 240_000 - first
    content = {"content": "x" * 100_000}
    # more than half of what is left: rolled back, and run again with all of it
    assert dispatcher.call("w", "filesystem", "write_file", {"path": "/tmp/a.txt", **content}).ok
    refused = dispatcher.call("w", "filesystem", "write_file", {"path": "/tmp/b.txt", **content})
    assert refused.error_kind == "capacity"  # it would fit only in the running write's reservation
    assert sm.budget.used + sm.budget.reserved <= sm.budget.limit and sm.budget.reserved == first
    running.release()
    assert sm.budget.reserved == 0
    assert dispatcher.call("w", "filesystem", "write_file", {"path": "/tmp/b.txt", **content}).ok
    assert sm.budget.held == held_exactly(sm) and sm.budget.used <= sm.budget.limit


def test_closing_a_session_closes_its_forks_at_once(bank_lib: Library) -> None:
    sm, dispatcher = manager(bank_lib, None)
    seed = bank_lib.mount("banking").seed_db(0)  # type: ignore[attr-defined]
    users = seed.users
    assert dispatcher.call("gone", "banking", "deposit_funds", {"account_id": "ACC-0001", "amount": 5}).ok
    fork = sm.get("gone").fork_of("banking")
    assert isinstance(fork, SqliteFork) and seed.users == users + 1
    gc.disable()  # nothing may wait for the garbage collector
    try:
        sm.close("gone")
        with pytest.raises(sqlite3.ProgrammingError, match="closed"):
            fork.db.execute("SELECT 1")
        assert seed.users == users and sm.budget.held == 0
        ref = weakref.ref(fork)
        del fork
        assert ref() is None  # no reference cycle keeps a closed fork alive
    finally:
        gc.enable()


def test_snapshots_are_charged_to_their_session_and_freed_with_it(bank_lib: Library) -> None:
    sm, dispatcher = manager(bank_lib, None)
    assert dispatcher.call("a", "banking", "deposit_funds", {"account_id": "ACC-0001", "amount": 5}).ok
    before = sm.get("a").nbytes
    snap = sm.take_snapshot("a")
    assert sm.get("a").nbytes == before + snap.nbytes and sm.budget.held == held_exactly(sm) + snap.nbytes
    sm.fork("a", "b")
    assert sm.take_snapshot("b").id == snap.id  # the same state: one snapshot, charged once, two owners
    assert sm.budget.held == held_exactly(sm) + snap.nbytes
    sm.close("a")  # its co-owner keeps it and pays for it now
    assert sm.snapshot(snap.id) is snap and sm.get("b").nbytes == sm.get("b").sizes["banking"] + snap.nbytes
    assert sm.open("c", snapshot=snap.id).state_hash() == snap.state_hash
    sm.close("b")
    with pytest.raises(SessionError, match="unknown snapshot"):
        sm.snapshot(snap.id)
    assert sm.budget.held == held_exactly(sm)


def test_seed_databases_count_against_the_budget() -> None:
    library = private_library("budget")
    mount = library.mount("budget")
    assert isinstance(mount, SqliteMount)
    sm, dispatcher = manager(library, None)
    for seed in range(3):
        sm.open(f"s{seed}", seed=seed)
        assert dispatcher.call(f"s{seed}", "budget", "list_categories", {}).ok
    cached = sum(mount.seed_db(seed).held_bytes for seed in range(3))
    assert library.seeds.bytes == cached and sm.budget.used == cached + sm.budget.held
    sm.budget.limit = sm.budget.used + fork_bytes(mount.open(0)) // 2  # room for a session, not a seed world
    sm.open("s3", seed=3)
    refused = dispatcher.call("s3", "budget", "list_categories", {})
    assert refused.error_kind == "capacity"  # a fourth seed does not fit beside the three in use
    sm.close("s1")  # its seed is now only cached, and unused: it goes first when room is needed
    assert dispatcher.call("s3", "budget", "list_categories", {}).ok
    assert not mount.has_seed(1) and mount.has_seed(3) and mount.has_seed(0)
    assert sm.budget.used <= sm.budget.limit


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


def test_a_group_past_the_byte_budget_opens_nothing(tmp_path: Path, bank_lib: Library) -> None:
    s = Settings(store_path=str(tmp_path / "s.db"), max_state_bytes=bank_lib.seeds.bytes + BANK_BYTES * 6)
    hub = Hub(s, bank_lib)
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


async def test_every_door_answers_capacity_instead_of_failing(tmp_path: Path, bank_lib: Library) -> None:
    budget = bank_lib.seeds.bytes + int(BANK_BYTES * 1.5)
    settings = Settings(store_path=str(tmp_path / "store.db"), max_state_bytes=budget)
    async with (
        serve(create_app(settings, Hub(settings, bank_lib), ALL_PARTS)) as live,
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
        assert (await http.get("/api/sessions/two")).status_code == 404  # the refused call left no session
        assert (await http.post("/api/sessions", json={"id": "two"})).status_code == 201
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


def rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the RSS from /proc")
def test_expired_sessions_give_their_memory_back_without_the_gc() -> None:
    now = [0.0]
    sm = SessionManager(LIBRARY, max_sessions=200, ttl_s=10, clock=lambda: now[0])
    dispatcher = Dispatcher(LIBRARY, sm, EventBus())
    deposit = {"account_id": "ACC-0001", "amount": 5}
    assert dispatcher.call("warm", "banking", "deposit_funds", deposit).ok
    gc.collect()
    gc.disable()  # what is freed must be freed by closing, not by a collection
    try:
        before, peak = rss(), 0
        for n in range(300):
            if n % 100 == 0:
                now[0] += 100
                sm.sweep()
            assert dispatcher.call(f"e{n}", "banking", "deposit_funds", deposit).ok
            peak = max(peak, rss())
        now[0] += 100
        assert len(sm.sweep()) == 100 and set(sm.sessions) == {"default"}
        after = rss()
    finally:
        gc.enable()
    assert peak - before > 60 * BANK_BYTES  # a hundred sessions' forks were really held
    assert after - before < (peak - before) / 4
