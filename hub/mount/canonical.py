"""Canonical state of a Python object graph, JSON-safe tool results, and diffs between states.

The canonical state is what a mounted instance's hash, diff and browser see: its public
attributes, walked in a fixed order (dict keys and set members sorted), with identity tracked
for every mutable container and object, so a cycle or a shared sub-object appears once and
every later occurrence is a JSON reference to the path of the first one
(``{"$ref": "#/tree/children/0"}``). Equal states give equal canonical forms whatever order
the calls came in.

Tool results are made JSON-safe once, at the source, so the model's text, the MCP structured
content, the events and the store all see the same value: an object's own JSON method wins
(``model_dump_json``, ``__json__``, ``to_json``), then dataclasses, enums and dates get their
natural JSON form, and anything else its ``str`` (a ``Decimal`` keeps every digit).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import inspect
import json
import numbers
import os
import re
from collections.abc import Callable, ItemsView, Iterator, KeysView, ValuesView
from typing import Any

from hub.errors import StateError

REF = "$ref"
Path = tuple[Any, ...] | None  # a linked list (parent, key): rendered only when a reference needs it
_JSON_ATOMS = (str, int, float, bool, type(None))


def pointer(path: Path) -> str:
    """A JSON pointer (RFC 6901) fragment for a walk path: ``#/tree/children/0``."""
    parts: list[str] = []
    while path is not None:
        path, key = path
        parts.append(str(key).replace("~", "~0").replace("/", "~1"))
    return "#" + "".join("/" + p for p in reversed(parts))


def _sort_key(item: tuple[Any, Any]) -> str:
    return str(item[0])


def _member_key(value: Any) -> tuple[str, str]:
    return type(value).__name__, repr(value)


def public_attrs(obj: Any) -> list[tuple[str, Any]]:
    """An object's public attributes (``__dict__`` and ``__slots__``), sorted by name."""
    found: dict[str, Any] = {}
    slots = [s for c in type(obj).__mro__ for s in getattr(c, "__slots__", ()) if isinstance(s, str)]
    for name in slots:
        if not name.startswith("_") and hasattr(obj, name):
            found[name] = getattr(obj, name)
    for name, value in getattr(obj, "__dict__", {}).items():
        if not name.startswith("_"):
            found[name] = value
    return sorted(found.items())


_NO_LEAF = object()


def _leaf(value: Any) -> Any:
    """The form of a value with no parts to walk that JSON has no type for, or ``_NO_LEAF``: the walk and the
    fast encoder's default agree on it."""
    if isinstance(value, numbers.Number):  # Decimal, Fraction, numpy scalars: every digit kept
        return str(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": bytes(value).hex()}
    if isinstance(value, type) or inspect.isroutine(value):
        return f"<{type(value).__name__} {getattr(value, '__qualname__', '?')}>"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return _NO_LEAF


class _Walker:
    """One canonical walk: remembers where each mutable object was first seen."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[Any, Path]] = {}  # id -> (the object, kept alive so ids stay unique; its path)

    def ref(self, value: Any, path: Path) -> dict[str, str] | None:
        first = self.seen.get(id(value))
        if first is not None:
            return {REF: pointer(first[1])}
        self.seen[id(value)] = (value, path)
        return None

    def walk(self, value: Any, path: Path) -> Any:
        t = type(value)
        if t is str or t is int or t is bool or t is float or value is None:
            return value
        if isinstance(value, dict):
            items = sorted(value.items(), key=_sort_key)
            return self.ref(value, path) or {str(k): self.walk(v, (path, k)) for k, v in items}
        if isinstance(value, list):
            return self.ref(value, path) or [self.walk(v, (path, i)) for i, v in enumerate(value)]
        if isinstance(value, enum.Enum):
            return f"{t.__name__}.{value.name}"
        if isinstance(value, tuple):
            return [self.walk(v, (path, i)) for i, v in enumerate(value)]
        if isinstance(value, (set, frozenset)):
            found = None if isinstance(value, frozenset) else self.ref(value, path)
            return found or [self.walk(v, (path, i)) for i, v in enumerate(sorted(value, key=_member_key))]
        return self.other(value, path)

    def other(self, value: Any, path: Path) -> Any:
        if isinstance(value, _JSON_ATOMS):  # subclasses of str, int, float
            return value
        leaf = _leaf(value)
        if leaf is not _NO_LEAF:
            return leaf
        hook = getattr(value, "__hub_state__", None)
        if callable(hook):
            return self.ref(value, path) or self.walk(hook(), path)
        attrs = public_attrs(value)
        if attrs or hasattr(value, "__dict__"):
            found = self.ref(value, path)
            if found:
                return found
            return {"__class__": type(value).__name__, **{k: self.walk(v, (path, k)) for k, v in attrs}}
        return plain_str(value)


def canonical(value: Any) -> Any:
    """The JSON-compatible, order-stable form of a value (cycles and shared objects as references)."""
    return _guarded(lambda: _Walker().walk(value, None))


def state_json(instance: Any) -> str:
    """The canonical state of a mounted instance as compact JSON: what its hash is taken over.

    An acyclic state is encoded by the C JSON encoder (keys sorted, objects through ``_default``);
    a state with a cycle (or keys that JSON cannot sort) takes the identity-tracking walk, where
    every object seen before is a reference to the path of its first occurrence."""
    hook = getattr(instance, "__hub_state__", None)
    top = hook() if callable(hook) else dict(public_attrs(instance))
    try:
        return json.dumps(
            top if isinstance(top, dict) else {"state": top}, sort_keys=True, separators=(",", ":"), default=_default
        )
    except (ValueError, TypeError, RecursionError):
        return dump(_walk_state(instance))


def _default(value: Any) -> Any:
    """What the fast encoder writes for a value JSON has no form for: the walker's form, one level deep."""
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=_member_key)
    leaf = _leaf(value)
    if leaf is not _NO_LEAF:
        return leaf
    hook = getattr(value, "__hub_state__", None)
    if callable(hook):
        return hook()
    attrs = public_attrs(value)
    if attrs or hasattr(value, "__dict__"):
        return {"__class__": type(value).__name__, **dict(attrs)}
    return plain_str(value)


def public_state(instance: Any) -> dict[str, Any]:
    """The canonical state of a mounted instance (its ``__hub_state__()``, or its public attributes) as JSON values."""
    return json.loads(state_json(instance))  # type: ignore[no-any-return]


def _walk_state(instance: Any) -> dict[str, Any]:
    def run() -> dict[str, Any]:
        walker = _Walker()
        hook = getattr(instance, "__hub_state__", None)
        if callable(hook):
            state = walker.walk(hook(), None)
            return state if isinstance(state, dict) else {"state": state}
        walker.seen[id(instance)] = (instance, None)
        return {k: walker.walk(v, (None, k)) for k, v in public_attrs(instance)}

    return _guarded(run)


def _guarded(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except RecursionError:
        raise StateError(
            "the state nests deeper than Python's recursion limit (a long chain of objects?); "
            "give the class a __hub_state__() method that returns a flatter JSON form"
        ) from None


def plain_str(value: Any) -> str:
    """``str(value)`` without memory addresses, which differ between copies of one state."""
    return _ADDRESS.sub("", str(value))


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def dump(value: Any) -> str:
    """Compact JSON of a canonical value (keys are already in order)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


# Tool results ----------------------------------------------------------------------------------


def to_json_value(value: Any) -> Any:
    """A JSON-safe copy of a tool result (new containers: the result never aliases live state)."""
    return _Render().render(value)


class _Render:
    def __init__(self) -> None:
        self.active: set[int] = set()

    def render(self, value: Any) -> Any:
        t = type(value)
        if t is str or t is int or t is bool or t is float or value is None:
            return value
        if isinstance(value, (dict, list, tuple, set, frozenset)):
            return self.container(value)
        return self.other(value)

    def container(self, value: Any) -> Any:
        if id(value) in self.active:
            return f"<cycle: {type(value).__name__}>"
        self.active.add(id(value))
        try:
            if isinstance(value, dict):
                return {_key(k): self.render(v) for k, v in value.items()}
            if isinstance(value, (set, frozenset)):
                return [self.render(v) for v in sorted(value, key=_member_key)]
            return [self.render(v) for v in value]
        finally:
            self.active.discard(id(value))

    def other(self, value: Any) -> Any:
        own = _own_json(value)
        if own is not _NONE:
            return self.render(own)
        if isinstance(value, enum.Enum):
            return self.render(value.value)
        if isinstance(value, _JSON_ATOMS):
            return value
        if isinstance(value, (dt.datetime, dt.date, dt.time)):
            return value.isoformat()
        if isinstance(value, (Iterator, KeysView, ValuesView, ItemsView)):  # generators, map(), dict views
            return self.container(list(value))
        to_list = getattr(value, "tolist", None)  # numpy arrays and scalars
        if callable(to_list) and not isinstance(value, type):
            return self.render(to_list())
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            if id(value) in self.active:
                return f"<cycle: {type(value).__name__}>"
            self.active.add(id(value))
            try:
                return {f.name: self.render(getattr(value, f.name)) for f in dataclasses.fields(value)}
            finally:
                self.active.discard(id(value))
        return plain_str(value)


_NONE = object()


def _own_json(value: Any) -> Any:
    """The value an object's own JSON method gives, parsed; ``_NONE`` when it has none."""
    if isinstance(value, type):
        return _NONE
    dump_json = getattr(value, "model_dump_json", None)
    if callable(dump_json):
        return json.loads(dump_json())
    for name in ("__json__", "to_json"):
        method = getattr(value, name, None)
        if callable(method):
            try:
                out = method()
            except TypeError:  # a to_json that needs arguments is not a JSON method we can use
                continue
            if isinstance(out, (str, bytes)):
                try:
                    return json.loads(out)
                except ValueError:
                    return out
            return out
    return _NONE


def _key(k: Any) -> str:
    if isinstance(k, str):
        return k
    if isinstance(k, enum.Enum):
        return str(k.value)
    return json.dumps(k) if isinstance(k, (bool, type(None))) else str(k)


# Diffs -----------------------------------------------------------------------------------------


def diff_states(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Per attribute: dict entries added/removed/changed by key, list items added/removed, scalars changed."""
    out: dict[str, Any] = {}
    for attr in sorted(set(before) | set(after)):
        a, b = before.get(attr), after.get(attr)
        if a == b and dump(a) == dump(b):
            continue
        if isinstance(a, dict) and isinstance(b, dict) and REF not in a and REF not in b:
            out[attr] = {
                "added": [{"key": k, "value": b[k]} for k in b if k not in a],
                "removed": [{"key": k, "value": a[k]} for k in a if k not in b],
                "changed": [
                    {"key": k, "changes": {"value": [a[k], b[k]]}} for k in a if k in b and dump(a[k]) != dump(b[k])
                ],
            }
        elif isinstance(a, list) and isinstance(b, list):
            left, right = [dump(x) for x in a], [dump(x) for x in b]
            out[attr] = {
                "added": [json.loads(x) for x in _minus(right, left)],
                "removed": [json.loads(x) for x in _minus(left, right)],
                "changed": [],
            }
        else:
            out[attr] = {"added": [], "removed": [], "changed": [{"key": attr, "changes": {"value": [a, b]}}]}
    return out


def _minus(xs: list[str], ys: list[str]) -> list[str]:
    """Multiset difference xs - ys, in the order of xs."""
    rest: dict[str, int] = {}
    for y in ys:
        rest[y] = rest.get(y, 0) + 1
    out = []
    for x in xs:
        if rest.get(x):
            rest[x] -= 1
        else:
            out.append(x)
    return out
