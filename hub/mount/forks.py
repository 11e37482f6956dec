"""Forks of mounted objects: versions shared until a write, copied or written in place, undone on failure.

A fork holds a *version*: one instance plus, for the pickle strategy, its pickled bytes (its
*checkpoint*). Forks of a session share versions, and every session opened on the same scenario
shares the scenario's first version, so opening and forking cost nothing. A read tool runs on the
shared instance (a read never copies). A write tool on a shared version runs on a fresh copy
(so a write that raises leaves nothing behind), which becomes the fork's own version once pickled:
the first write costs one pickle round trip, and its pickle tells a write that changed nothing.

On a version the fork holds alone, a write runs in place and pays only for what it does: the call
is appended to the version's *redo log* (its arguments and its result), and nothing is serialised.
A call that fails is undone by loading the checkpoint and replaying the log, each replayed result
checked against the recorded one (tools are deterministic given state and arguments: the same
contract task replay relies on); a divergence is reported, never hidden, and the mount then
checkpoints every write. A new checkpoint is taken once replaying the log would cost what pickling
costs, so a write costs about twice the method amortised and an undo at most one round trip.
Sharing a version (a fork of the session, a snapshot) checkpoints it first. The state hash is
computed when asked and cached on the version, so it is shared by every fork still on that version.

The budget charges a version its checkpoint's size plus an estimate of its log (the encoded results
and a fixed cost per entry), settled at each checkpoint.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hub.errors import CapacityError, SessionError, StateError, UnknownTable
from hub.kit import Json, Tool, ToolError
from hub.mount.canonical import diff_states, public_state, state_json, to_json_value
from hub.mount.render import render_error
from hub.state.db import Account, Fork, check_page

if TYPE_CHECKING:
    from hub.mount.objects import ObjectMount

# What one redo-log entry costs besides its result: the arguments, the record, the replay's bookkeeping.
ENTRY_BYTES = 256
ENTRY_SECONDS = 20e-6


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """No garbage collection while a copy is made: unpickling millions of containers would trigger
    full collections that find nothing (a copy holds no garbage) and cost more than the copy."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Redo:
    """One write applied to a version since its checkpoint: enough to apply it again and check it."""

    __slots__ = ("kwargs", "result", "tool")

    def __init__(self, tool: Tool, kwargs: dict[str, Any], result: str) -> None:
        self.tool = tool
        self.kwargs = kwargs
        self.result = result


class Version:
    """One state of a mounted instance, shared by every fork that has not written since."""

    __slots__ = ("_hash", "data", "instance", "log", "log_bytes", "log_seconds", "shared")

    def __init__(self, instance: Any, data: bytes | None = None, *, shared: bool = False) -> None:
        self.instance = instance
        self.data = data  # the checkpoint: ``instance`` pickled, before the writes in ``log``
        self.shared = shared  # held by more than one fork (or a scenario's cache): a write must copy it
        self._hash: str | None = None
        self.log: list[Redo] = []
        self.log_seconds = 0.0  # what replaying the log would cost
        self.log_bytes = 0

    def state(self) -> dict[str, Any]:
        return public_state(self.instance)

    def state_hash(self) -> str:
        if self._hash is None:
            self._hash = hashlib.blake2b(state_json(self.instance).encode(), digest_size=16).hexdigest()
        return self._hash

    @property
    def nbytes(self) -> int:
        return len(self.data or b"") + self.log_bytes


@dataclass(eq=False)
class ObjectFork:
    """One mounted server's state in one session."""

    mount: ObjectMount
    version: Version
    origin: Version
    changes: int = 0
    closed: bool = False

    @property
    def server(self) -> str:
        return self.mount.name

    @property
    def instance(self) -> Any:
        return self.version.instance

    def call(self, tool: Tool, kwargs: dict[str, Any], account: Account | None = None) -> Json:
        """A read runs on the (maybe shared) instance; a write on a copy that replaces it only if the call
        succeeds, or, on a version this fork holds alone, in place (logged, undone from the checkpoint). A read
        tool runs as a write once ``hub.mount.reads`` found that it changes the state."""
        version = self.version
        if tool.kind == "read" and self.mount.verify_reads:
            return self._checked_read(tool, kwargs)
        if tool.kind == "read" and self.mount.reads.is_read(tool.name):
            return to_json_value(self._invoke(version.instance, tool, kwargs))
        if tool.kind == "read" and self.mount.reads.unchecked(tool.name):
            self.settle()  # the check copies the version from its checkpoint
            return self.mount.reads.first_use(self, tool, kwargs)  # a read proven on a copy (hub.mount.reads)
        logged = copy.deepcopy(kwargs)  # the state may keep what it is given; the call's event keeps the request's
        if version.shared or version.data is None or self.mount.copy_mode != "pickle":
            return self._write_copy(tool, logged, account)
        if not self.mount.redo:
            self.settle()
            return self._write_checkpointed(tool, logged, account)
        return self._write_logged(tool, kwargs, logged, account)

    def _write_copy(self, tool: Tool, kwargs: dict[str, Any], account: Account | None) -> Json:
        """A write on a copy of the version: the copy becomes this fork's own version, checkpointed."""
        version = self.version
        work = self.mount.copy_of(version)
        result = to_json_value(self._invoke(work, tool, kwargs))
        after = self.mount.after_write(work, version)
        if after is not None:
            if account is not None:
                account.admit(after.nbytes)  # refused: the copy is dropped, the version stays
            self.version = after
            self.changes += 1
        return result

    def _write_checkpointed(self, tool: Tool, kwargs: dict[str, Any], account: Account | None) -> Json:
        """A write in place, checkpointed after (the exact path: a pickle per write)."""
        version = self.version
        try:
            result = to_json_value(self._invoke(version.instance, tool, kwargs))
        except BaseException:
            version.instance = self.mount.copy_of(version)
            raise
        after = self.mount.after_write(version.instance, version)
        if after is not None:
            if account is not None:
                try:
                    account.admit(after.nbytes)
                except BaseException:
                    version.instance = self.mount.copy_of(version)
                    raise
            version.data, version._hash = after.data, None
            self.changes += 1
        return result

    def _write_logged(
        self, tool: Tool, kwargs: dict[str, Any], logged: dict[str, Any], account: Account | None
    ) -> Json:
        """A write in place, appended to the redo log: no serialisation unless a checkpoint is due."""
        version = self.version
        start = time.perf_counter()
        try:
            result = to_json_value(self._invoke(version.instance, tool, copy.deepcopy(logged)))
            encoded = json.dumps(result, default=str, separators=(",", ":"), sort_keys=True)
        except BaseException:
            self._undo()
            raise
        version.log.append(Redo(tool, logged, encoded))
        version.log_seconds += time.perf_counter() - start + ENTRY_SECONDS
        version.log_bytes += len(encoded) + ENTRY_BYTES
        version._hash = None
        if account is not None:
            try:
                account.admit(version.nbytes)
            except BaseException:
                version.log.pop()
                self._undo()
                raise
        self.changes += 1
        if version.log_seconds >= self.mount.checkpoint_seconds(version):
            self.settle()
            if account is not None:
                account.admit(version.nbytes)  # smaller or equal: the log's estimate is gone
        return result

    def _undo(self) -> None:
        """Put the version back to its state before the failed call: its checkpoint, then its log again."""
        version = self.version
        instance = self.mount.copy_of_checkpoint(version)
        total = len(version.log)
        for n, entry in enumerate(version.log):
            try:
                again = to_json_value(self.mount.invoke(instance, entry.tool.name, copy.deepcopy(entry.kwargs)))
                same = json.dumps(again, default=str, separators=(",", ":"), sort_keys=True) == entry.result
            except Exception:  # the replayed call failed where the original succeeded: the same divergence
                same = False
            if not same:
                self.mount.diverged(entry.tool.name)
                version.instance, version.log, version.log_seconds, version.log_bytes = instance, [], 0.0, 0
                version.data, version._hash = self.mount.dump_instance(instance), None
                raise StateError(
                    f"{self.server}.{entry.tool.name} gave another result when replayed (write {n + 1} of "
                    f"{total} since the last checkpoint), so the state before the "
                    "failed call could not be restored exactly; the server now checkpoints every write"
                )
        version.instance, version._hash = instance, None

    def settle(self) -> None:
        """Checkpoint the version: pickle it, so that its log can go (before it is shared or dumped)."""
        self.mount.settle(self.version)

    def _checked_read(self, tool: Tool, kwargs: dict[str, Any]) -> Json:
        """A read, then a check that it left the state hash as it was; one that did not is undone and reported.
        (A debugging aid: it costs a copy and a hash per read.)"""
        self.settle()
        version = self.version
        before, backup = version.state_hash(), self.mount.copy_of(version)
        try:
            result = to_json_value(self._invoke(version.instance, tool, kwargs))
        finally:
            changed = Version(version.instance).state_hash() != before
            if changed:
                version.instance = backup
        if changed:
            raise ToolError(
                f"{self.server}.{tool.name} is served as a read tool but changed the state (undone); "
                f"declare it a write tool: __hub_read__, read=, @tool('write') or the schema's kind"
            )
        return result

    def _invoke(self, instance: Any, tool: Tool, kwargs: dict[str, Any]) -> Json:
        try:
            return self.mount.invoke(instance, tool.name, kwargs)
        except (ToolError, CapacityError, SessionError):
            raise
        except Exception as exc:  # a mounted class signals its domain errors with any exception
            raise render_error(self.mount.render, exc) from exc

    def state_hash(self) -> str:
        return self.version.state_hash()

    def base_hash(self) -> str:
        """The hash of the mount's default scenario: what an untouched session holds."""
        return self.mount.first_version().state_hash()

    def diff(self, other: Fork | None = None) -> dict[str, Any]:
        """Changes from ``other`` (default: where this fork's scenario started)."""
        base = self.origin if other is None else getattr(other, "version", None)
        if base is None or getattr(other, "mount", self.mount) is not self.mount:
            raise ValueError("a diff needs two states of the same mounted server")
        if base is self.version:
            return {}
        return diff_states(base.state(), self.version.state())

    def clone(self) -> ObjectFork:
        return self.clones(1)[0]

    def clones(self, n: int) -> list[ObjectFork]:
        """``n`` forks sharing this fork's version (settled first): nothing is copied until one writes."""
        self.settle()
        self.version.shared = True
        return [ObjectFork(self.mount, self.version, self.origin, self.changes) for _ in range(n)]

    def dump(self) -> bytes:
        self.settle()
        return self.mount.dump(self.version)

    @property
    def held_bytes(self) -> int:
        """What the memory budget charges this fork: nothing while it shares a version (a read or a fork copies
        nothing), else its own version's checkpoint and log (a deepcopy-mode version is not measured)."""
        version = self.version
        if version.shared or version is self.origin:
            return 0
        return version.nbytes

    def close(self) -> None:
        """Let go of the instance now (a state with reference cycles is still freed by the GC only)."""
        self.closed = True
        self.version = self.origin

    def tables(self) -> list[str]:
        return sorted(self.version.state())

    def browse(self, table: str, offset: int = 0, limit: int = 50) -> dict[str, Any]:
        check_page(offset, limit)
        state = self.version.state()
        if table not in state:
            raise UnknownTable(f"no attribute {table!r} on {self.server}; attributes: {', '.join(state)}")
        value = state[table]
        if isinstance(value, dict):
            columns, items = ["key", "value"], [[k, v] for k, v in value.items()]
        else:
            columns, items = ["value"], [[v] for v in value] if isinstance(value, list) else [[value]]
        return {
            "table": table,
            "columns": columns,
            "rows": items[offset : offset + limit],
            "total": len(items),
            "offset": offset,
            "limit": limit,
        }
