"""Bring your own environment: mount a stateful Python class as a hub server.

The instance holds the state; its public methods are the tools (name, docstring and
type hints give the schema); an optional scenario loader method takes a per-session
configuration. Forks are deep copies; the state hash and diff are computed over the
canonical JSON of the instance's public attributes; a call that raises restores the
pre-call copy. An external JSON file of tool schemas (MCP ``inputSchema`` or OpenAI
``parameters`` form) can override the generated ones.

    prove-hub serve --mount mypkg.fs:FileSystem=fs --mount mypkg.bank:Bank
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import inspect
import json
import pickle
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from hub.kit import Json, Tool, ToolError, ToolKind, build_tool
from hub.state import Fork, check_page

LOADER_NAMES = ("_load_scenario", "load_scenario")
READ_PREFIXES = ("get_", "list_", "search_", "find_", "read_", "count_", "show_", "describe_", "ls", "pwd", "cat",
                 "head", "tail", "display_", "check_", "view_")


def canonical(value: Any) -> Any:
    """JSON-compatible, order-stable form of an attribute value."""
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True, default=str))
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if hasattr(value, "__dict__"):
        return {"__class__": type(value).__name__, **public_state(value)}
    return repr(value)


def public_state(instance: Any) -> dict[str, Any]:
    return {k: canonical(v) for k, v in sorted(vars(instance).items()) if not k.startswith("_")}


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _is_read(name: str, read_names: set[str]) -> bool:
    return name in read_names or name.startswith(READ_PREFIXES)


class ObjectMount:
    """A Python class served as a hub server."""

    def __init__(self, cls: type, name: str | None = None, *, loader: str | None = None, default_config: Any = None,
                 schemas: dict[str, Any] | None = None, read_only: tuple[str, ...] = ()) -> None:
        self.cls = cls
        self.name = name or _snake(cls.__name__)
        self.description = inspect.cleandoc(cls.__doc__ or f"{cls.__name__}, mounted from {cls.__module__}.")
        self.loader = loader or next((n for n in LOADER_NAMES if callable(getattr(cls, n, None))), None)
        self.default_config = default_config
        read_names = set(read_only) | set(getattr(cls, "__hub_read__", ()))
        self.tools: dict[str, Tool] = {}
        self._calls: dict[str, Callable[..., Json]] = {}
        for attr, fn in inspect.getmembers(cls, inspect.isfunction):
            if attr.startswith("_") or attr == self.loader:
                continue
            kind: ToolKind = "read" if _is_read(attr, read_names) else "write"
            tool = build_tool(self.name, fn, kind, first="self", strict_hints=False)
            self.tools[attr] = _override(tool, (schemas or {}).get(attr))
            self._calls[attr] = _caller(fn)
        self._seed_hashes: dict[int, str] = {}

    def new_instance(self, config: Any = None) -> Any:
        instance = self.cls()
        config = self.default_config if config is None else config
        if self.loader and config is not None:
            getattr(instance, self.loader)(copy.deepcopy(config))
        return instance

    def open(self, seed: int, config: Any = None) -> Fork:
        return ObjectFork(self, self.new_instance(config))

    def restore(self, seed: int, data: bytes) -> Fork:
        return ObjectFork(self, pickle.loads(data))

    def seed_hash(self, seed: int) -> str:
        if seed not in self._seed_hashes:
            self._seed_hashes[seed] = ObjectFork(self, self.new_instance()).state_hash()
        return self._seed_hashes[seed]

    def invoke(self, instance: Any, tool: str, kwargs: dict[str, Any]) -> Json:
        return self._calls[tool](instance, kwargs)


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _caller(fn: Callable[..., Json]) -> Callable[[Any, dict[str, Any]], Json]:
    """Call a method with positional-only parameters passed by position and the rest by keyword."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    positional = [p.name for p in params if p.kind is p.POSITIONAL_ONLY]

    def call(instance: Any, kwargs: dict[str, Any]) -> Json:
        kw = dict(kwargs)
        args = [kw.pop(n) for n in positional if n in kw]
        return fn(instance, *args, **kw)

    return call


def _override(tool: Tool, spec: Any) -> Tool:
    """Replace a generated schema by an external one (MCP or OpenAI function form)."""
    if spec is None:
        return tool
    schema = spec.get("input_schema") or spec.get("inputSchema") or spec.get("parameters") or spec
    Draft202012Validator.check_schema(schema)
    tool.input_schema = schema
    tool.description = spec.get("description", tool.description)
    tool.schema_validator = Draft202012Validator(schema)
    if spec.get("kind") in ("read", "write"):
        tool.kind = spec["kind"]
    return tool


@dataclass
class ObjectFork:
    """One mounted instance inside one session."""

    mount: ObjectMount
    instance: Any
    changes: int = 0

    @property
    def server(self) -> str:
        return self.mount.name

    def call(self, tool: Tool, kwargs: dict[str, Any]) -> Json:
        """Run a method on the instance; if it raises, restore the pre-call copy and report a ToolError."""
        before = copy.deepcopy(self.instance) if tool.kind == "write" else None
        state = _dump(public_state(self.instance)) if before is not None else ""
        try:
            result = self.mount.invoke(self.instance, tool.name, kwargs)
        except ToolError:
            self._restore(before)
            raise
        except Exception as exc:  # a mounted class signals its domain errors with any exception
            self._restore(before)
            raise ToolError(f"{type(exc).__name__}: {exc}") from exc
        if before is not None and _dump(public_state(self.instance)) != state:
            self.changes += 1
        return result

    def _restore(self, before: Any) -> None:
        if before is not None:
            self.instance = before

    def state_hash(self) -> str:
        return hashlib.blake2b(_dump(public_state(self.instance)).encode(), digest_size=16).hexdigest()

    def diff(self, other: Fork | None = None) -> dict[str, Any]:
        base = self.mount.new_instance() if other is None else getattr(other, "instance", None)
        if base is None:
            raise ValueError("a diff needs two states of the same mounted server")
        return diff_states(public_state(base), public_state(self.instance))

    def clone(self) -> ObjectFork:
        return ObjectFork(self.mount, copy.deepcopy(self.instance), self.changes)

    def dump(self) -> bytes:
        return pickle.dumps(self.instance)

    def tables(self) -> list[str]:
        return sorted(public_state(self.instance))

    def browse(self, table: str, offset: int = 0, limit: int = 50) -> dict[str, Any]:
        check_page(offset, limit)
        state = public_state(self.instance)
        if table not in state:
            raise KeyError(f"no attribute {table!r} on {self.server}; attributes: {', '.join(state)}")
        value = state[table]
        if isinstance(value, dict):
            columns, items = ["key", "value"], [[k, v] for k, v in value.items()]
        else:
            columns, items = ["value"], [[v] for v in value] if isinstance(value, list) else [[value]]
        return {"table": table, "columns": columns, "rows": items[offset:offset + limit], "total": len(items),
                "offset": offset, "limit": limit}


def diff_states(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """Per attribute: dict entries added/removed/changed by key, list items added/removed, scalars changed."""
    out: dict[str, Any] = {}
    for attr in sorted(set(before) | set(after)):
        a, b = before.get(attr), after.get(attr)
        if _dump(a) == _dump(b):
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out[attr] = {"added": [{"key": k, "value": b[k]} for k in b if k not in a],
                         "removed": [{"key": k, "value": a[k]} for k in a if k not in b],
                         "changed": [{"key": k, "changes": {"value": [a[k], b[k]]}} for k in a
                                     if k in b and _dump(a[k]) != _dump(b[k])]}
        elif isinstance(a, list) and isinstance(b, list):
            left, right = [_dump(x) for x in a], [_dump(x) for x in b]
            out[attr] = {"added": [json.loads(x) for x in _minus(right, left)],
                         "removed": [json.loads(x) for x in _minus(left, right)], "changed": []}
        else:
            out[attr] = {"added": [], "removed": [], "changed": [{"key": attr, "changes": {"value": [a, b]}}]}
    return out


def _minus(xs: list[str], ys: list[str]) -> list[str]:
    rest = list(ys)
    out = []
    for x in xs:
        if x in rest:
            rest.remove(x)
        else:
            out.append(x)
    return out


def load_mount(spec: str) -> ObjectMount:
    """``package.module:ClassName[=server_name][?schemas=FILE.json&config=FILE.json]`` to an ObjectMount."""
    spec, _, query = spec.partition("?")
    target, _, name = spec.partition("=")
    module_name, _, class_name = target.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"--mount takes package.module:ClassName[=name], got {spec!r}")
    cls = getattr(importlib.import_module(module_name), class_name, None)
    if not isinstance(cls, type):
        raise ValueError(f"{module_name} has no class {class_name!r}")
    options = dict(part.split("=", 1) for part in query.split("&") if "=" in part)
    schemas = _load_schemas(Path(options["schemas"])) if "schemas" in options else None
    config = json.loads(Path(options["config"]).read_text()) if "config" in options else None
    return ObjectMount(cls, name or None, schemas=schemas, default_config=config)


def _load_schemas(path: Path) -> dict[str, Any]:
    """A JSON object keyed by tool name, or a list of ``{"name": ..., ...}`` function specs."""
    data = json.loads(path.read_text())
    if isinstance(data, list):
        return {item["name"]: item for item in data}
    if isinstance(data, dict):
        return data
    raise ValueError(f"{path}: expected a JSON object or list of tool schemas")
