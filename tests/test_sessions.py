"""Sessions: lazy forks, session forks, snapshots, close, TTL sweep and cap."""

from __future__ import annotations

import pytest

from hub.state.sessions import DEFAULT_SESSION, SessionError, SessionManager
from tests.conftest import LIBRARY
from tests.test_state import LIB


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_servers_fork_lazily() -> None:
    sm = SessionManager(LIBRARY)
    s = sm.open("a")
    assert s.forks == {}
    s.fork_of("banking")
    assert list(s.forks) == ["banking"]


def test_forked_session_diverges_and_parent_is_unchanged() -> None:
    sm = SessionManager(LIB)
    parent = sm.open("p")
    parent.fork_of("toy").db.execute("UPDATE items SET qty = 42 WHERE item_id = 'IT-001'")
    parent_hash = parent.state_hash()
    child = sm.fork("p", "c")
    assert child.state_hash() == parent_hash and child.parent == "p"
    child.fork_of("toy").db.execute("UPDATE items SET qty = 43 WHERE item_id = 'IT-001'")
    assert child.state_hash() != parent_hash
    assert parent.state_hash() == parent_hash
    assert parent.fork_of("toy").db.execute("SELECT qty FROM items WHERE item_id='IT-001'").fetchone()[0] == 42


def test_untouched_and_read_only_sessions_share_the_seed_hash() -> None:
    sm = SessionManager(LIB)
    a, b = sm.open("a"), sm.open("b")
    b.fork_of("toy")
    assert a.state_hash() == b.state_hash()
    assert SessionManager(LIB, seed=1).open("c").state_hash() != a.state_hash()


def test_snapshots_are_content_addressed_and_restore() -> None:
    sm = SessionManager(LIB)
    s = sm.open("s")
    s.fork_of("toy").db.execute("UPDATE items SET qty = 9 WHERE item_id = 'IT-002'")
    snap = sm.take_snapshot("s")
    assert sm.take_snapshot("s").id == snap.id
    restored = sm.open("r", snapshot=snap.id)
    assert restored.state_hash() == s.state_hash() == snap.state_hash
    with pytest.raises(SessionError, match="unknown snapshot"):
        sm.open("x", snapshot="snap-nope")


def test_close_and_unknown_sessions() -> None:
    sm = SessionManager(LIB)
    sm.open("s")
    sm.close("s")
    with pytest.raises(SessionError, match="was closed"):
        sm.get("s", create=False)
    with pytest.raises(SessionError):
        sm.close("s")
    with pytest.raises(SessionError, match="default session cannot be closed"):
        sm.close(DEFAULT_SESSION)
    with pytest.raises(SessionError, match="already exists"):
        sm.open(DEFAULT_SESSION)


def test_idle_sessions_are_swept_after_ttl() -> None:
    clock = Clock()
    sm = SessionManager(LIB, ttl_s=10, clock=clock)
    sm.open("old")
    clock.t = 6
    sm.open("young")
    clock.t = 12
    assert sm.sweep() == ["old"]
    assert set(sm.sessions) == {DEFAULT_SESSION, "young"}


def test_cap_sweeps_then_refuses() -> None:
    clock = Clock()
    sm = SessionManager(LIB, ttl_s=10, max_sessions=3, clock=clock)
    sm.open("a")
    sm.open("b")
    with pytest.raises(SessionError, match="session cap reached"):
        sm.open("c")
    clock.t = 20
    sm.open("c")
    assert set(sm.sessions) == {DEFAULT_SESSION, "c"}


def test_clone_after_a_write_sees_the_write() -> None:
    sm = SessionManager(LIB)
    parent = sm.open("p")
    fork = parent.fork_of("toy")
    first = fork.dump()
    assert fork.dump() == first
    fork.db.execute("UPDATE items SET qty = 77 WHERE item_id = 'IT-003'")
    child = sm.fork("p", "c")
    assert child.fork_of("toy").db.execute("SELECT qty FROM items WHERE item_id='IT-003'").fetchone()[0] == 77
    assert child.state_hash() == parent.state_hash()


def test_calls_into_an_ended_session_fail_instead_of_starting_afresh() -> None:
    clock = Clock()
    sm = SessionManager(LIB, ttl_s=10, clock=clock)
    sm.open("gone")
    sm.close("gone")
    with pytest.raises(SessionError, match="'gone' was closed"):
        sm.get("gone")
    sm.open("idle")
    clock.t = 11
    sm.sweep()
    with pytest.raises(SessionError, match="idling longer than the TTL"):
        sm.get("idle")
    assert sm.open("gone").id == "gone"
    assert sm.get("gone").id == "gone"
