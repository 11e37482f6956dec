"""The server kit: how a server declares its entities and tools, and what every server would otherwise repeat.

A server is an SQLite schema, a deterministic ``seed(db, rng, now)`` and tools written as typed
Python functions. The docstring is the tool's description, the type hints are its JSON schema, the
decorator tags it read or write. Parameters name the entity type they carry, a tool names the entity
types its result carries (``returns=``) and the tools that must run before it (``requires=``): task
synthesis chains tools through these declarations.

    banking = Server("banking", "Retail bank accounts.", SCHEMA, seed)
    class AccountId(EntityId, server=banking, example="ACC-0107", finder="list_accounts"): ...  # type "account"

    @banking.read(returns=("account",))
    def get_account(ctx: Ctx, account_id: AccountId) -> dict: return AccountId.get(ctx, account_id)

    banking.distinct_values({"account_type": ("accounts", "type"), "city": ("customers", "city")})

What the kit owns:
- ``EntityId`` (a class per entity type, over ``Server.entity`` -> ``EntityType``): the id parameter's type
  (description, ``x-entity``), ``.get`` with its not-found message, ``.ref(description)`` for filters that
  carry the same id;
- ``Server.distinct_values``: the ``get_distinct_values(field)`` tool;
- ``Query`` and ``listing``: filtered, paged list tools and their ``{"xs": [...], "count": n}`` result;
  ``ctx.rows(sql, params)`` / ``ctx.column(...)`` / ``ctx.value(...)`` for the rows, the first column or the one
  value of any other query;
- ``Limit``/``Offset``, the ISO date patterns (``IsoDate``, ``IsoDateTime``, ``IsoDateOrTime``, ``IsoMonth``),
  ``parse_datetime``, ``next_id``, and ``insert_rows`` for seeds.
"""

from __future__ import annotations

import inspect
import random
import re
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal, TypedDict, Unpack, cast, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic.fields import FieldInfo

ToolKind = Literal["read", "write"]
SeedFn = Callable[[sqlite3.Connection, random.Random, datetime], None]
Json = Any
Decorator = Callable[[Callable[..., Json]], Callable[..., Json]]


Limit = Annotated[int, Field(ge=1, le=100, description="How many results at most")]
# The longest text ``Query.contains`` searches for: far past any name or phrase, far below SQLite's own
# limit on a LIKE pattern (50,000 bytes), past which the database refuses the query as "too complex".
MAX_SEARCH_CHARS = 1000
Offset = Annotated[int, Field(ge=0, le=100_000, description="How many results to skip, for paging")]


class ToolError(Exception):
    """A domain failure the model can recover from (insufficient funds, unknown id, ...)."""


class ArgumentError(Exception):
    """Arguments that do not match the tool's schema."""


@dataclass(frozen=True)
class Entity:
    """Marks a parameter as carrying the id of an entity type, e.g. ``Entity("account")``."""

    type: str


@dataclass(frozen=True)
class EntityType:
    """An entity type a server declares once: the id alias, the lookup and its not-found message.

        ACCOUNT = banking.entity("account", example="ACC-0107", finder="list_accounts")
        AccountId = Annotated[str, ACCOUNT]     # "Account id, e.g. 'ACC-0107'", x-entity "account"
        ACCOUNT.get(ctx, "ACC-0107")            # the row, or ToolError("No account 'ACC-0107'. Use list_accounts ...")

    ``Annotated[str | None, ACCOUNT.ref("Only this account's cards, e.g. 'ACC-0107'")]`` gives another
    description to the same entity. The alias is written ``Annotated[str, ACCOUNT]`` rather than taken
    from an attribute because a type checker accepts only static type expressions as hints; ``EntityId``
    declares both in one class statement, which is how the servers write it.
    """

    type: str
    table: str
    key: str
    example: str
    finder: str = ""
    noun: str = ""
    hint: str = ""
    description: str = ""
    max_length: int | None = None

    @property
    def name(self) -> str:
        """How messages name it: ``noun``, or the type with spaces ("menu_item" -> "menu item")."""
        return self.noun or self.type.replace("_", " ")

    def field(self, description: str = "") -> FieldInfo:
        """The pydantic field of an id parameter: its description and length bound."""
        text = description or self.description or f"{self.name.capitalize()} id, e.g. '{self.example}'"
        if self.max_length is None:
            return cast(FieldInfo, Field(description=text))
        return cast(FieldInfo, Field(max_length=self.max_length, description=text))

    def metadata(self, description: str = "") -> tuple[Any, ...]:
        return (self.field(description), Entity(self.type))

    def ref(self, description: str) -> EntityRef:
        """The same entity under another description, e.g. for an optional filter parameter."""
        return EntityRef(self, description)

    def not_found(self, value: Any) -> str:
        advice = self.hint or (f"Use {self.finder} to find {self.name} ids." if self.finder else "")
        return f"No {self.name} {value!r}. {advice}".rstrip()

    def get(self, ctx: Ctx, value: Any) -> dict[str, Any]:
        """The row whose key is ``value``, or a ToolError the model can act on."""
        return fetch(ctx.db, f"SELECT * FROM {self.table} WHERE {self.key} = ?", (value,), self.not_found(value))

    def exists(self, ctx: Ctx, value: Any) -> bool:
        return ctx.db.execute(f"SELECT 1 FROM {self.table} WHERE {self.key} = ?", (value,)).fetchone() is not None

    def update(self, ctx: Ctx, value: Any, changes: Mapping[str, Any]) -> None:
        """Set ``changes`` ({column: new value}, in that order) on the row whose key is ``value``."""
        if not changes:
            return
        _check_names(self.type, *changes)
        sets = ", ".join(f"{column} = ?" for column in changes)
        ctx.db.execute(f"UPDATE {self.table} SET {sets} WHERE {self.key} = ?", (*changes.values(), value))


class EntityOptions(TypedDict, total=False):
    """What ``Server.entity`` (and an ``EntityId`` class) may say beside the type and the example id."""

    table: str
    key: str
    finder: str
    noun: str
    hint: str
    description: str
    max_length: int | None


class EntityId(str):
    """An entity type declared once, as the type of its id parameters:

        class AccountId(EntityId, server=banking, example="ACC-0107", finder="list_accounts"): ...

        def get_account(ctx: Ctx, account_id: AccountId) -> dict: return AccountId.get(ctx, account_id)

    The class keywords are ``Server.entity``'s, and ``type`` defaults to the class name without its ``Id``, in
    snake case (``FlightBookingId`` -> "flight_booking"); the class is the parameter's type (its schema is the
    declared entity's: ``{"type": "string", "description": "Account id, e.g. 'ACC-0107'", "x-entity": "account"}``)
    and ``AccountId.get`` / ``.exists`` / ``.update`` / ``.ref`` / ``.not_found`` are the ``EntityType``'s.
    Tools receive a plain ``str``; being a ``str`` subclass only lets a type checker read the parameter as text.
    """

    entity: ClassVar[EntityType]

    def __init_subclass__(
        cls, *, server: Server, example: str, type: str = "", **options: Unpack[EntityOptions]
    ) -> None:
        super().__init_subclass__()
        cls.entity = server.entity(type or _snake(cls.__name__.removesuffix("Id")), example=example, **options)

    @classmethod
    def get(cls, ctx: Ctx, value: Any) -> dict[str, Any]:
        """The row whose key is ``value``, or a ToolError the model can act on."""
        return cls.entity.get(ctx, value)

    @classmethod
    def exists(cls, ctx: Ctx, value: Any) -> bool:
        return cls.entity.exists(ctx, value)

    @classmethod
    def update(cls, ctx: Ctx, value: Any, changes: Mapping[str, Any]) -> None:
        """Set ``changes`` ({column: new value}) on the row whose key is ``value``."""
        cls.entity.update(ctx, value, changes)

    @classmethod
    def ref(cls, description: str) -> EntityRef:
        """The same entity under another description: ``Annotated[str | None, AccountId.ref("Only ...")]``."""
        return cls.entity.ref(description)

    @classmethod
    def not_found(cls, value: Any) -> str:
        return cls.entity.not_found(value)


def _snake(name: str) -> str:
    """``FlightBooking`` -> ``flight_booking``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _entity_id(annotation: Any) -> type[EntityId] | None:
    """The ``EntityId`` class an annotation is, if it is one."""
    if isinstance(annotation, type) and issubclass(annotation, EntityId) and annotation is not EntityId:
        return annotation
    return None


@dataclass(frozen=True)
class EntityRef:
    """An entity id parameter with its own description: ``Annotated[str | None, ACCOUNT.ref("Only ...")]``."""

    entity: EntityType
    description: str

    def metadata(self) -> tuple[Any, ...]:
        return self.entity.metadata(self.description)


@dataclass
class Ctx:
    """What a tool receives besides its arguments: the fork's database and the fixed "now"."""

    db: sqlite3.Connection
    now: datetime

    def rows(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[dict[str, Any]]:
        """The rows a query returns, as dicts: ``ctx.rows("SELECT ... WHERE home_id = ?", (home_id,))``."""
        return rows(self.db.execute(sql, params))

    def column(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[Any]:
        """The first column of the rows a query returns, e.g. the ids of a customer's accounts."""
        return [r[0] for r in self.db.execute(sql, params)]

    def value(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> Any:
        """The first value of the first row of a query that always returns one, e.g. a ``COUNT(*)``."""
        return self.db.execute(sql, params).fetchone()[0]


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


def _nested_entity(annotation: Any) -> bool:
    """Whether an entity declaration sits inside a union, list or other type, where pydantic would drop it."""
    inner = get_args(annotation)[:1] if get_origin(annotation) is Annotated else get_args(annotation)
    return any(_holds_entity(a) for a in inner)


def _holds_entity(annotation: Any) -> bool:
    if _entity_id(annotation) is not None:
        return True
    if get_origin(annotation) is Annotated and any(
        isinstance(m, (EntityType, EntityRef)) for m in get_args(annotation)[1:]
    ):
        return True
    return any(_holds_entity(a) for a in get_args(annotation))


def _expand(annotation: Any) -> Any:
    """``AccountId`` or ``Annotated[str, ACCOUNT]`` as pydantic reads it: ``Annotated[str, Field(...), Entity(...)]``
    (an annotation naming no entity is returned as it is)."""
    declared = _entity_id(annotation)
    if declared is not None:
        return Annotated[(str, *declared.entity.metadata())]  # type: ignore[valid-type]
    if get_origin(annotation) is not Annotated:
        return annotation
    base, *meta = get_args(annotation)
    if not any(isinstance(m, (EntityType, EntityRef)) for m in meta):
        return annotation
    out: list[Any] = []
    for m in meta:
        out.extend(m.metadata() if isinstance(m, (EntityType, EntityRef)) else (m,))
    return Annotated[(base, *out)]  # type: ignore[valid-type]


def build_tool(
    server: str,
    fn: Callable[..., Json],
    kind: ToolKind,
    returns: tuple[str, ...] = (),
    requires: tuple[str, ...] = (),
    *,
    first: str = "ctx",
    strict_hints: bool = True,
) -> Tool:
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
        if _nested_entity(hints.get(name, Any)):
            raise TypeError(
                f"{server}.{fn.__name__}: parameter '{name}' uses an entity inside another type; write "
                "Annotated[str | None, AccountId.ref('...')] or Annotated[list[str], Field(...), Entity(...)]"
            )
        hint = _expand(hints.get(name, Any))
        fields[name] = (hint, default)
        params[name] = _entity_of(hint)
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
    """A stateful SQLite server: schema, seed and tools. A part brings it to the hub (``hub.parts``)."""

    name: str
    description: str
    schema: str
    seed: SeedFn
    tools: dict[str, Tool] = field(default_factory=dict)
    entities: dict[str, EntityType] = field(default_factory=dict)
    intents: list[Any] = field(default_factory=list)  # hub.kit.intent.Intent: what users want of it
    # Servers of one family ("money": banking, payments, ...) overlap in what users ask of them, so an
    # irrelevance task never offers a sibling's tools as the unusable ones; "" is a family of its own.
    family: str = ""
    # The ``max_length`` of every entity id parameter the server declares without one of its own.
    id_max_length: int | None = None

    def intent(
        self, *, covers: tuple[str, ...], weight: float = 1.0, follows: bool = False, opens: bool = True
    ) -> Callable[[Callable[..., None]], Callable[..., None]]:
        """Register a user goal (see ``hub.kit.intent``): a function of a ``Scene`` calling ``covers``."""

        def decorate(fn: Callable[..., None]) -> Callable[..., None]:
            from hub.kit.intent import register  # synthesis owns what an intent is; the kit only keeps the list

            register(self, fn, covers, weight, follows, opens)
            return fn

        return decorate

    def entity(self, type: str, *, example: str, **options: Unpack[EntityOptions]) -> EntityType:
        """Declare an entity type: its id alias, its lookup and its not-found message (see ``EntityType``).

        The table defaults to the type's plural with an ``s`` ("account" -> "accounts"), the key to the type
        with ``_id`` ("account_id"); name them where the schema says otherwise.
        """
        if type in self.entities:
            raise ValueError(f"{self.name}: entity {type} declared twice")
        fields: dict[str, Any] = {**options}
        fields["table"] = options.get("table") or f"{type}s"
        fields["key"] = options.get("key") or f"{type}_id"
        if options.get("max_length") is None:
            fields["max_length"] = self.id_max_length
        _check_names(self.name, fields["table"], fields["key"])
        entity = EntityType(type, example=example, **fields)
        self.entities[type] = entity
        return entity

    def distinct_values(
        self,
        fields: Mapping[str, tuple[str, str]],
        *,
        example: str = "",
        doc: str = "",
        top: int | None = None,
        skip_null: bool = False,
    ) -> Tool:
        """Register the ``get_distinct_values(field)`` read tool over ``{field: (table, column)}``.

        The field's ``Literal`` is the mapping's keys in order. Values come sorted, or the ``top`` most
        frequent first; ``skip_null`` leaves NULL out. The description is ``doc`` or the usual sentence
        with ``example`` (default: the first field) as its example.
        """
        table_columns = dict(fields)
        queries = {
            name: _distinct_sql(self.name, table, column, top, skip_null)
            for name, (table, column) in table_columns.items()
        }

        def get_distinct_values(ctx: Ctx, field: str) -> dict[str, Any]:
            found = ctx.db.execute(queries[field]).fetchall()
            return {"field": field, "values": {_value_key(v): n for v, n in found}}

        example = example or next(iter(table_columns))
        get_distinct_values.__doc__ = doc or (
            f"The distinct values of a field with their counts, e.g. get_distinct_values('{example}')."
        )
        get_distinct_values.__annotations__ = {
            "ctx": Ctx,
            "field": cast(Any, Literal)[tuple(table_columns)],
            "return": dict[str, Any],
        }
        self.read()(get_distinct_values)
        return self.tools["get_distinct_values"]

    def read(self, *, returns: tuple[str, ...] = (), requires: tuple[str, ...] = ()) -> Decorator:
        """Register a read tool: it never changes state."""
        return self._register("read", returns, requires)

    def write(self, *, returns: tuple[str, ...] = (), requires: tuple[str, ...] = ()) -> Decorator:
        """Register a write tool: it may change state, atomically."""
        return self._register("write", returns, requires)

    def _register(self, kind: ToolKind, returns: tuple[str, ...], requires: tuple[str, ...]) -> Decorator:
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
        raise ToolError(
            f"{name} {value!r} is not a real date/time; write it as 'YYYY-MM-DDTHH:MM', e.g. '{example}'."
        ) from None
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
    tail = row[0][len(prefix) + 1 :] if row else "0"
    candidate = f"{prefix}-{(int(tail) if tail.isdigit() else 0) + 1:0{width}d}"
    if not db.execute(f"SELECT 1 FROM {table} WHERE {column} = ?", (candidate,)).fetchone():
        return candidate
    start = len(prefix) + 2
    cur = db.execute(
        f"SELECT MAX(CAST(SUBSTR({column}, {start}) AS INTEGER)) FROM {table} WHERE {column} LIKE ?", (prefix + "-%",)
    )
    return f"{prefix}-{(cur.fetchone()[0] or 0) + 1:0{width}d}"


def listing(key: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    """A list tool's result: ``{key: items, "count": len(items)}``."""
    return {key: items, "count": len(items)}


@dataclass
class Query:
    """A SELECT and the conditions a list tool's filters add, AND-ed; a filter given as None adds nothing.

    q = Query("SELECT account_id, balance, status FROM accounts")
    q.equal("customer_id", customer_id).equal("status", status).filter("balance >= ?", min_balance)
    return q.page(ctx.db, "accounts", order_by="account_id", limit=limit, offset=offset)
    """

    select: str
    conditions: list[str] = field(default_factory=list)
    args: list[Any] = field(default_factory=list)

    def where(self, condition: str, *args: Any) -> Query:
        """Always add ``condition`` with its ``?`` arguments."""
        self.conditions.append(condition)
        self.args.extend(args)
        return self

    def filter(self, condition: str, value: Any) -> Query:
        """Add ``condition`` (one ``?``) with ``value``, unless ``value`` is None."""
        return self if value is None else self.where(condition, value)

    def equal(self, column: str, value: Any) -> Query:
        """Add ``column = value``, unless ``value`` is None."""
        return self.filter(f"{column} = ?", value)

    def contains(self, text: str | None, *columns: str) -> Query:
        """Rows where any of ``columns`` contains ``text`` (SQL LIKE), unless ``text`` is empty or None; a text
        longer than ``MAX_SEARCH_CHARS`` is a ToolError."""
        if not text:
            return self
        if len(text) > MAX_SEARCH_CHARS:
            raise ToolError(
                f"the search text is {len(text):,} characters long; search for at most {MAX_SEARCH_CHARS:,} "
                "(a name, a word or a phrase)"
            )
        like = f"%{text}%"
        return self.where("(" + " OR ".join(f"{c} LIKE ?" for c in columns) + ")", *(like for _ in columns))

    def flag(self, value: bool | None, condition: str, *args: Any) -> Query:
        """A three-way filter: True keeps rows matching ``condition``, False the others, None all."""
        if value is None:
            return self
        return self.where(condition if value else f"NOT ({condition})", *args)

    def sql(
        self, order_by: str = "", limit: int | None = None, offset: int = 0, group_by: str = ""
    ) -> tuple[str, list[Any]]:
        text = self.select
        if self.conditions:
            text += " WHERE " + " AND ".join(self.conditions)
        if group_by:
            text += f" GROUP BY {group_by}"
        if order_by:
            text += f" ORDER BY {order_by}"
        if limit is None:
            return text, list(self.args)
        return text + " LIMIT ? OFFSET ?", [*self.args, limit, offset]

    def rows(
        self, db: sqlite3.Connection, order_by: str = "", limit: int | None = None, offset: int = 0, group_by: str = ""
    ) -> list[dict[str, Any]]:
        return rows(db.execute(*self.sql(order_by, limit, offset, group_by)))

    def count(self, db: sqlite3.Connection) -> int:
        """How many rows match, before paging."""
        text, args = self.sql()
        return int(db.execute(f"SELECT COUNT(*) FROM ({text})", args).fetchone()[0])

    def page(
        self,
        db: sqlite3.Connection,
        key: str,
        *,
        order_by: str,
        limit: int | None = None,
        offset: int = 0,
        group_by: str = "",
    ) -> dict[str, Any]:
        """``listing(key, ...)`` of one page of matching rows."""
        return listing(key, self.rows(db, order_by, limit, offset, group_by))


# Date and time arguments: the kit owns the patterns, a server adds descriptions with examples from its
# own seed, once as an alias (``Day = Annotated[IsoDate, Field(description="A date, e.g. '2026-06-12'")]``)
# or per parameter. Inside ``X | None`` the alias's own description stays in the schema beside the parameter's.

ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"
ISO_DATE_TIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$"
ISO_DATE_OR_TIME = r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$"
ISO_MONTH = r"^\d{4}-\d{2}$"
IsoDate = Annotated[str, Field(pattern=ISO_DATE)]
IsoDateTime = Annotated[str, Field(pattern=ISO_DATE_TIME)]
IsoDateOrTime = Annotated[str, Field(pattern=ISO_DATE_OR_TIME)]
IsoMonth = Annotated[str, Field(pattern=ISO_MONTH)]


# Seeds ------------------------------------------------------------------------------------------


Row = tuple[Any, ...]  # a seed row: its values in column order


def insert_rows(db: sqlite3.Connection, table: str, values: list[Row], *, or_ignore: bool = False) -> None:
    """Insert seed rows (tuples in column order) into ``table``; ``or_ignore`` skips rows that break a UNIQUE key."""
    if not values:
        return
    marks = ",".join("?" * len(values[0]))
    db.executemany(f"INSERT {'OR IGNORE ' if or_ignore else ''}INTO {table} VALUES ({marks})", values)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _check_names(server: str, *names: str) -> None:
    """Table and column names reach SQL text, so only plain identifiers are accepted."""
    for name in names:
        if not _NAME.fullmatch(name):
            raise ValueError(f"{server}: {name!r} is not a plain SQL identifier")


def _distinct_sql(server: str, table: str, column: str, top: int | None, skip_null: bool) -> str:
    _check_names(server, table, column)
    sql = f"SELECT {column}, COUNT(*) FROM {table}"
    if skip_null:
        sql += f" WHERE {column} IS NOT NULL"
    if top:
        return sql + f" GROUP BY {column} ORDER BY COUNT(*) DESC, {column} LIMIT {int(top)}"
    return sql + f" GROUP BY {column} ORDER BY {column}"


def _value_key(value: Any) -> Any:
    """A JSON object key for a distinct value: numbers become their text, NULL stays None."""
    return value if value is None or isinstance(value, str) else str(value)
