"""Mounted objects pay for what changed: writes on a version held alone are logged, not serialised; a failure
is undone from the checkpoint and the log; the budget, the hash and sharing still see every write."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from hub.engine.dispatcher import Dispatcher
from hub.engine.events import EventBus
from hub.mount import ObjectMount
from hub.state.library import Library
from hub.state.sessions import SessionManager
from tests.mounted_envs import Shop

TICKETS = itertools.count()


class Flaky:
    """Its ``issue`` write reads a counter outside its state: replaying it gives another result."""

    def __init__(self) -> None:
        self.issued: list[int] = []

    def issue(self) -> int:
        """Issue the next ticket number, e.g. issue()."""
        self.issued.append(next(TICKETS))
        return self.issued[-1]

    def fail(self) -> None:
        """Always fails, after changing the state, e.g. fail()."""
        self.issued.append(-1)
        raise ValueError("failed on purpose")


class Pickles:
    """Counts the pickles a mount takes."""

    def __init__(self, mount: ObjectMount) -> None:
        self.n = 0
        original = mount.dump_instance

        def counted(instance: Any) -> bytes:
            self.n += 1
            return original(instance)

        mount.dump_instance = counted  # type: ignore[method-assign]


def shop_world(max_state_bytes: int | None = None) -> tuple[SessionManager, Dispatcher, ObjectMount]:
    mount = ObjectMount(Shop, "shop")
    library = Library([mount])
    sm = SessionManager(library, max_state_bytes=max_state_bytes)
    return sm, Dispatcher(library, sm, EventBus()), mount


def orders(sm: SessionManager, sid: str) -> dict[str, Any]:
    return sm.get(sid).fork_of("shop").instance.orders  # type: ignore[attr-defined, no-any-return]


def test_writes_on_a_version_held_alone_are_logged_not_pickled() -> None:
    sm, dispatcher, mount = shop_world()
    pickles = Pickles(mount)
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o1-0"}).state_changed  # shared: copied
    assert pickles.n == 1  # the first write pickles its copy once
    mount._pickle_rate = 1.0  # a checkpoint would cost far more than any logged write: none is due
    fork = sm.get("a").fork_of("shop")
    for n in range(2, 12):
        out = dispatcher.call("a", "shop", "cancel_order", {"order_id": f"o{n}-0"})
        assert out.ok and out.state_changed
    assert pickles.n == 1 and len(fork.version.log) == 10  # type: ignore[attr-defined]
    assert sm.get("a").sizes["shop"] == fork.held_bytes > len(fork.version.data)  # type: ignore[attr-defined]
    hashed = fork.state_hash()
    assert fork.state_hash() == hashed and pickles.n == 1  # the hash needs no pickle and is cached


def test_a_failed_write_is_undone_from_the_checkpoint_and_the_log() -> None:
    sm, dispatcher, mount = shop_world()
    for n in range(1, 6):
        assert dispatcher.call("a", "shop", "cancel_order", {"order_id": f"o{n}-0"}).ok
        mount._pickle_rate = 1.0  # (each pickle measures it again) no checkpoint is due: the writes are logged
    fork = sm.get("a").fork_of("shop")
    before, instance = fork.state_hash(), fork.instance
    failed = dispatcher.call("a", "shop", "cancel_order", {"order_id": "o3-0"})
    assert failed.error_kind == "tool" and "already cancelled" in (failed.error or "")
    assert fork.instance is not instance and fork.state_hash() == before
    assert {k for k, v in orders(sm, "a").items() if v["status"] == "cancelled"} == {f"o{n}-0" for n in range(1, 6)}
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o6-0"}).ok  # logging goes on from there


def test_a_checkpoint_is_taken_once_replaying_would_cost_a_pickle() -> None:
    sm, dispatcher, mount = shop_world()
    pickles = Pickles(mount)
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o1-0"}).ok
    mount._pickle_rate = 0.0  # pickling is free: every logged write is worth a checkpoint
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o2-0"}).ok
    fork = sm.get("a").fork_of("shop")
    assert pickles.n == 2 and fork.version.log == []  # type: ignore[attr-defined]
    assert sm.get("a").sizes["shop"] == len(fork.version.data)  # type: ignore[attr-defined]


def test_forks_snapshots_and_diffs_see_logged_writes() -> None:
    sm, dispatcher, mount = shop_world()
    for n in range(1, 4):
        assert dispatcher.call("a", "shop", "cancel_order", {"order_id": f"o{n}-0"}).ok
        mount._pickle_rate = 1.0
    state = sm.get("a").state_hash()
    child = sm.fork("a", "b")  # sharing settles the log into a checkpoint first
    assert child.state_hash() == state
    assert dispatcher.call("b", "shop", "cancel_order", {"order_id": "o9-0"}).ok
    assert orders(sm, "a")["o9-0"]["status"] == "delivered" and sm.get("a").state_hash() == state
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o8-0"}).ok
    snap = sm.take_snapshot("a")
    restored = sm.open("r", snapshot=snap.id)
    assert restored.state_hash() == sm.get("a").state_hash() != state
    changed = sm.get("a").fork_of("shop").diff()["orders"]["changed"]
    assert {c["key"] for c in changed} == {"o1-0", "o2-0", "o3-0", "o8-0"}


def test_a_mounted_write_past_the_budget_is_refused_and_rolled_back() -> None:
    sm, dispatcher, mount = shop_world()
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o1-0"}).ok
    mount._pickle_rate = 1.0
    fork = sm.get("a").fork_of("shop")
    sm.budget.limit = sm.budget.used + 600  # room for one more logged entry's estimate, not two
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o2-0"}).ok
    state, held = fork.state_hash(), sm.budget.held
    refused = dispatcher.call("a", "shop", "cancel_order", {"order_id": "o3-0"})
    assert refused.error_kind == "capacity" and "HUB_MAX_STATE_BYTES" in (refused.error or "")
    assert fork.state_hash() == state and sm.budget.held == held
    assert orders(sm, "a")["o3-0"]["status"] == "delivered"


def test_a_write_that_replays_differently_is_reported_and_the_mount_checkpoints_after() -> None:
    mount = ObjectMount(Flaky)
    library = Library([mount])
    sm = SessionManager(library)
    dispatcher = Dispatcher(library, sm, EventBus())
    assert dispatcher.call("a", "flaky", "issue", {}).ok  # copied from the shared version
    mount._pickle_rate = 1.0
    assert dispatcher.call("a", "flaky", "issue", {}).ok  # logged
    out = dispatcher.call("a", "flaky", "fail", {})
    assert not out.ok and "gave another result when replayed" in (out.error or "")
    assert mount.redo is False
    fork = sm.get("a").fork_of("flaky")
    kept = list(fork.instance.issued)  # type: ignore[attr-defined]
    assert -1 not in kept and len(kept) == 2
    assert dispatcher.call("a", "flaky", "issue", {}).ok
    failed = dispatcher.call("a", "flaky", "fail", {})
    assert failed.error_kind == "tool" and fork.instance.issued[:2] == kept and -1 not in fork.instance.issued  # type: ignore[attr-defined]


@pytest.mark.parametrize("redo", [True, False])
def test_no_op_and_failing_writes_keep_the_hash(redo: bool) -> None:
    mount = ObjectMount(Shop, "shop", redo=redo)
    library = Library([mount])
    sm = SessionManager(library)
    dispatcher = Dispatcher(library, sm, EventBus())
    assert dispatcher.call("a", "shop", "cancel_order", {"order_id": "o1-0"}).ok
    fork = sm.get("a").fork_of("shop")
    state = fork.state_hash()
    for _ in range(3):
        assert not dispatcher.call("a", "shop", "cancel_order", {"order_id": "o1-0"}).ok
        assert not dispatcher.call("a", "shop", "cancel_order", {"order_id": "o-missing"}).ok
    assert fork.state_hash() == state
