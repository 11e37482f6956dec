"""The server kit: how a server declares its tools.

A server is a module with an SQLite schema, a deterministic ``seed(db, rng, now)``
and tools written as typed Python functions. The docstring is the tool's
description, the type hints are its JSON schema, the decorator tags it read or
write. Parameters name the entity type they carry with ``Entity("account")``,
a tool names the entity types its result carries (``returns=``) and the tools
that must run before it (``requires=``): task synthesis chains tools through
these declarations.

    banking = Server("banking", "Retail bank accounts.", SCHEMA, seed)

    @banking.read(returns=("account",))
    def get_account(ctx: Ctx, account_id: AccountId) -> dict: ...
"""

from __future__ import annotations

import inspect
import random
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

ToolKind = Literal["read", "write"]
SeedFn = Callable[[sqlite3.Connection, random.Random, datetime], None]
Json = Any


Limit = Annotated[int, Field(ge=1, le=100, description="How many results at most")]
Offset = Annotated[int, Field(ge=0, le=100_000, description="How many results to skip, for paging")]


class ToolError(Exception):
    """A domain failure the model can recover from (insufficient funds, unknown id, ...)."""


class ArgumentError(Exception):
    """Arguments that do not match the tool's schema."""


@dataclass(frozen=True)
class Entity:
    """Marks a parameter as carrying the id of an entity type, e.g. ``Entity("account")``."""

    type: str


@dataclass
class Ctx:
    """What a tool receives besides its arguments: the fork's database and the fixed "now"."""

    db: sqlite3.Connection
    now: datetime


@dataclass
class Tool:
    """One tool: a typed function plus the declarations synthesis and the dispatcher use."""

    server: str
    name: str
    fn: Callable[..., Json]
    kind: ToolKind
    description: str
    input_schema: dict[str, Any]
    args_model: type[BaseModel]
    params: dict[str, str | None]
    returns: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    schema_validator: Any = None

    @property
    def required(self) -> list[str]:
        return list(self.input_schema.get("required", []))

    def validate(self, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
        """Check arguments against the schema; raise ArgumentError with a readable message."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise ArgumentError(f"arguments for {self.name} must be a JSON object, got {type(arguments).__name__}")
        if self.schema_validator is not None:
            return self._validate_by_schema(dict(arguments))
        try:
            model = self.args_model.model_validate(dict(arguments))
        except ValidationError as exc:
            raise ArgumentError(format_validation_error(self.name, exc)) from None
        return {name: getattr(model, name) for name in self.params}

    def _validate_by_schema(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validation against an externally supplied JSON schema (mounted classes)."""
        errors = sorted(self.schema_validator.iter_errors(arguments), key=lambda e: list(e.path))
        if errors:
            parts = [f"argument '{'.'.join(map(str, e.path)) or 'arguments'}': {e.message}" for e in errors[:5]]
            raise ArgumentError(f"invalid arguments for {self.name}: " + "; ".join(parts))
        return arguments

    def spec(self) -> dict[str, Any]:
        """The catalog entry: what a client or the synthesis graph sees."""
        return {
            "name": self.name,
            "kind": self.kind,
            "description": self.description,
            "input_schema": self.input_schema,
            "returns": list(self.returns),
            "requires": list(self.requires),
        }


def format_validation_error(tool: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "missing":
            parts.append(f"missing required argument '{where}'")
        elif err["type"] == "extra_forbidden":
            parts.append(f"unknown argument '{where}'")
        else:
            parts.append(f"argument '{where}': {err['msg']} (got {err.get('input')!r:.60})")
    return f"invalid arguments for {tool}: " + "; ".join(parts)


def _entity_of(annotation: Any) -> str | None:
    if get_origin(annotation) is not Annotated:
        return None
    for meta in get_args(annotation)[1:]:
        if isinstance(meta, Entity):
            return meta.type
    return None


def build_tool(server: str, fn: Callable[..., Json], kind: ToolKind, returns: tuple[str, ...] = (),
               requires: tuple[str, ...] = (), *, first: str = "ctx", strict_hints: bool = True) -> Tool:
    """A Tool from a typed function whose first parameter (``ctx``, or ``self`` for methods) is not an argument."""
    hints = get_type_hints(fn, include_extras=True)
    sig = inspect.signature(fn)
    names = [n for n, p in sig.parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if not names or names[0] != first:
        raise TypeError(f"{server}.{fn.__name__}: the first parameter must be '{first}'")
    fields: dict[str, Any] = {}
    params: dict[str, str | None] = {}
    for name in names[1:]:
        p = sig.parameters[name]
        if name not in hints and strict_hints:
            raise TypeError(f"{server}.{fn.__name__}: parameter '{name}' needs a type hint")
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[name] = (hints.get(name, Any), default)
        params[name] = _entity_of(hints.get(name))
    model = create_model(  # type: ignore[call-overload]
        f"{server}__{fn.__name__}",
        __config__=ConfigDict(extra="forbid", strict=True, protected_namespaces=()),
        **fields,
    )
    schema = model.model_json_schema()
    schema.pop("title", None)
    schema.setdefault("properties", {})
    for name, prop in schema["properties"].items():
        prop.pop("title", None)
        if params.get(name):
            prop["x-entity"] = params[name]
    doc = inspect.cleandoc(fn.__doc__ or "")
    if not doc and not strict_hints:
        doc = f"{fn.__name__.replace('_', ' ')}."
    if not doc:
        raise TypeError(f"{server}.{fn.__name__}: a tool needs a docstring; it is the model's prompt")
    return Tool(server, fn.__name__, fn, kind, doc, schema, model, params, tuple(returns), tuple(requires))


@dataclass
class Server:
    """A stateful SQLite server: schema, seed and tools. Registered once in ``servers/__init__.py``."""

    name: str
    description: str
    schema: str
    seed: SeedFn
    tools: dict[str, Tool] = field(default_factory=dict)
    intents: list[Any] = field(default_factory=list)  # hub.synth.intent.Intent: what users want of it

    def intent(self, *, covers: tuple[str, ...], weight: float = 1.0, follows: bool = False,
               opens: bool = True) -> Callable[[Callable[..., None]], Callable[..., None]]:
        """Register a user goal (see ``hub.synth.intent``): a function of a ``Scene`` calling ``covers``."""

        def decorate(fn: Callable[..., None]) -> Callable[..., None]:
            from hub.synth.intent import (
                register,  # synthesis owns what an intent is; the kit only keeps the list
            )

            register(self, fn, covers, weight, follows, opens)
            return fn

        return decorate

    def read(self, *, returns: tuple[str, ...] = (), requires: tuple[str, ...] = ()) -> Callable[[Callable[..., Json]], Callable[..., Json]]:
        """Register a read tool: it never changes state."""
        return self._register("read", returns, requires)

    def write(self, *, returns: tuple[str, ...] = (), requires: tuple[str, ...] = ()) -> Callable[[Callable[..., Json]], Callable[..., Json]]:
        """Register a write tool: it may change state, atomically."""
        return self._register("write", returns, requires)

    def _register(self, kind: ToolKind, returns: tuple[str, ...], requires: tuple[str, ...]) -> Callable[[Callable[..., Json]], Callable[..., Json]]:
        def decorate(fn: Callable[..., Json]) -> Callable[..., Json]:
            if fn.__name__ in self.tools:
                raise ValueError(f"{self.name}: tool {fn.__name__} registered twice")
            self.tools[fn.__name__] = build_tool(self.name, fn, kind, returns, requires)
            return fn

        return decorate


# Helpers shared by server modules -------------------------------------------------------------


def rows(cursor: sqlite3.Cursor) -> list[dict[str, Any]]:
    """All rows of a cursor as plain dicts."""
    cols = [c[0] for c in cursor.description]
    return [dict(zip(cols, r)) for r in cursor.fetchall()]


def one(cursor: sqlite3.Cursor) -> dict[str, Any] | None:
    """The first row of a cursor as a dict, or None."""
    cols = [c[0] for c in cursor.description]
    r = cursor.fetchone()
    return None if r is None else dict(zip(cols, r))


def fetch(db: sqlite3.Connection, sql: str, params: tuple[Any, ...] | list[Any], not_found: str) -> dict[str, Any]:
    """One row as a dict, or a ToolError with ``not_found`` as the message."""
    found = one(db.execute(sql, params))
    if found is None:
        raise ToolError(not_found)
    return found


def parse_datetime(value: str, name: str, example: str = "2026-06-03T14:00") -> datetime:
    """An ISO date or date-time within 2000..2100 (to the second), or a ToolError saying how to write it."""
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a real date/time; write it as 'YYYY-MM-DDTHH:MM', e.g. '{example}'.") from None
    if not 2000 <= t.year <= 2100:
        raise ToolError(f"{name} {value!r} is out of range; use a date between 2000 and 2100.")
    return t.replace(microsecond=0)


def next_id(db: sqlite3.Connection, table: str, column: str, prefix: str, width: int = 4) -> str:
    """The next id like ``ACC-0042`` for ``table.column``: derived from state, so replays agree.

    The highest id is read through the column's index (a range scan, not a table scan); ids
    that outgrew their zero-padded width no longer sort by number, so a collision falls back
    to a full scan.
    """
    row = db.execute(
        f"SELECT {column} FROM {table} WHERE {column} >= ? AND {column} < ? ORDER BY {column} DESC LIMIT 1",
        (prefix + "-", prefix + "."),
    ).fetchone()
    tail = row[0][len(prefix) + 1:] if row else "0"
    candidate = f"{prefix}-{(int(tail) if tail.isdigit() else 0) + 1:0{width}d}"
    if not db.execute(f"SELECT 1 FROM {table} WHERE {column} = ?", (candidate,)).fetchone():
        return candidate
    start = len(prefix) + 2
    cur = db.execute(
        f"SELECT MAX(CAST(SUBSTR({column}, {start}) AS INTEGER)) FROM {table} WHERE {column} LIKE ?",
        (prefix + "-%",),
    )
    return f"{prefix}-{(cur.fetchone()[0] or 0) + 1:0{width}d}"
