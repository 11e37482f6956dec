"""Forks of mounted objects: versions shared until a write, copied or written in place, undone on failure.

A fork holds a *version*: one instance plus, for the pickle strategy, its pickled bytes. Forks
of a session share versions, and every session opened on the same scenario shares the
scenario's first version, so opening and forking cost nothing. A read tool runs on the shared
instance (a read never copies). A write tool runs on a fresh copy of the version (so a write
that raises leaves nothing behind) and the copy becomes the fork's new version, held by this fork
alone; the pickle strategy pickles it once, which both detects a write that changed nothing and
is the undo point of the next write: on a version it holds alone, a fork writes in place and
unpickles only if the call fails. So a write costs one pickle round trip when its version is
shared, one ``pickle.dumps`` when not. The state hash is computed when asked and cached on the
version, so it is shared by every fork still on that version.
"""

from __future__ import annotations

import contextlib
import copy
import gc
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hub.errors import UnknownTable
from hub.kit import Json, Tool, ToolError
from hub.mount.canonical import diff_states, public_state, state_json, to_json_value
from hub.mount.render import render_error
from hub.state.db import Fork, check_page

if TYPE_CHECKING:
    from hub.mount.objects import ObjectMount


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


class Version:
    """One state of a mounted instance, shared by every fork that has not written since."""

    __slots__ = ("_hash", "data", "instance", "shared")

    def __init__(self, instance: Any, data: bytes | None = None, *, shared: bool = False) -> None:
        self.instance = instance
        self.data = data
        self.shared = shared  # held by more than one fork (or a scenario's cache): a write must copy it
        self._hash: str | None = None

    def state(self) -> dict[str, Any]:
        return public_state(self.instance)

    def state_hash(self) -> str:
        if self._hash is None:
            self._hash = hashlib.blake2b(state_json(self.instance).encode(), digest_size=16).hexdigest()
        return self._hash


@dataclass(eq=False)
class ObjectFork:
    """One mounted server's state in one session."""

    mount: ObjectMount
    version: Version
    origin: Version
    changes: int = 0

    @property
    def server(self) -> str:
        return self.mount.name

    @property
    def instance(self) -> Any:
        return self.version.instance

    def call(self, tool: Tool, kwargs: dict[str, Any]) -> Json:
        """A read runs on the (maybe shared) instance; a write on a copy that replaces it only if the call
        succeeds, or, on a version this fork holds alone with its pickle, in place, undone from the pickle."""
        version = self.version
        if tool.kind == "read" and self.mount.verify_reads:
            return self._checked_read(tool, kwargs)
        if tool.kind == "read" and self.mount.reads.is_read(tool.name):
            return to_json_value(self._invoke(version.instance, tool, kwargs))
        if tool.kind == "read" and self.mount.reads.unchecked(tool.name):
            return self.mount.reads.first_use(self, tool, kwargs)  # a read proven on a copy (hub.mount.reads)
        kwargs = copy.deepcopy(kwargs)  # the state may keep what it is given; the call's event keeps the request's
        if version.shared or version.data is None or self.mount.copy_mode != "pickle":
            work = self.mount.copy_of(version)
            result = to_json_value(self._invoke(work, tool, kwargs))
            after = self.mount.after_write(work, version)
            if after is not None:
                self.version = after
                self.changes += 1
            return result
        try:
            result = to_json_value(self._invoke(version.instance, tool, kwargs))
        except BaseException:
            version.instance = self.mount.copy_of(version)
            raise
        after = self.mount.after_write(version.instance, version)
        if after is not None:
            version.data, version._hash = after.data, None
            self.changes += 1
        return result

    def _checked_read(self, tool: Tool, kwargs: dict[str, Any]) -> Json:
        """A read, then a check that it left the state hash as it was; one that did not is undone and reported.
        (A debugging aid: it costs a copy and a hash per read.)"""
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
        except ToolError:
            raise
        except Exception as exc:  # a mounted class signals its domain errors with any exception
            raise render_error(self.mount.render, exc) from exc

    def state_hash(self) -> str:
        return self.version.state_hash()

    def diff(self, other: Fork | None = None) -> dict[str, Any]:
        """Changes from ``other`` (default: where this fork's scenario started)."""
        base = self.origin if other is None else getattr(other, "version", None)
        if base is None or getattr(other, "mount", self.mount) is not self.mount:
            raise ValueError("a diff needs two states of the same mounted server")
        if base is self.version:
            return {}
        return diff_states(base.state(), self.version.state())

    def clone(self) -> ObjectFork:
        self.version.shared = True
        return ObjectFork(self.mount, self.version, self.origin, self.changes)

    def dump(self) -> bytes:
        return self.mount.dump(self.version)

    @property
    def held_bytes(self) -> int:
        """What the memory budget charges this fork: nothing while it shares a version (a read or a fork copies
        nothing), else its own version's pickle (a deepcopy-mode version is not measured)."""
        version = self.version
        if version.shared or version is self.origin or version.data is None:
            return 0
        return len(version.data)

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
