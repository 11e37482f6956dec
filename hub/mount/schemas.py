"""Tool schemas for mounted classes: generated from type hints, or imported from function docs.

Generated: each parameter's hint becomes its JSON schema (a hint pydantic cannot express, or a
forward reference that does not resolve, becomes "any value"), docstring ``Args:`` lines become
parameter descriptions.

Imported (``?schemas=FILE``): a JSON list, a JSON object keyed by tool name, an MCP
``tools/list`` result (``{"tools": [...]}``), or JSONL with one spec a line; each spec in OpenAI
form (``{"type": "function", "function": {...}}`` or ``{"name", "description", "parameters"}``),
MCP form (``inputSchema``) or Anthropic form (``input_schema``). The common non-standard type
names of function docs (``dict``, ``float``, ``tuple``, ``int``, ``any``, ...) become JSON Schema.

Validation: ``lenient`` (the default for mounts) checks arguments against the JSON schema as
given and passes the values through untouched, as an in-process call would get them;
``strict`` validates with pydantic and hands the method its coerced values (``10000`` becomes
``10000.0`` for a ``float`` hint).
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from pydantic import ConfigDict, TypeAdapter, create_model

from hub.errors import SchemaFileError
from hub.kit import Json, Tool, ToolKind

Validation = Literal["lenient", "strict", "none"]
PERMISSIVE = Draft202012Validator({"type": "object"})  # validation=none: any object, passed as given
TYPE_NAMES: dict[str, str | None] = {
    "dict": "object",
    "map": "object",
    "mapping": "object",
    "hashmap": "object",
    "float": "number",
    "double": "number",
    "decimal": "number",
    "real": "number",
    "int": "integer",
    "long": "integer",
    "str": "string",
    "text": "string",
    "bool": "boolean",
    "list": "array",
    "tuple": "array",
    "set": "array",
    "sequence": "array",
    "none": "null",
    "nonetype": "null",
    "any": None,
}
STANDARD = {"object", "number", "integer", "string", "boolean", "array", "null"}
HINT_ERRORS = (NameError, TypeError, AttributeError, SyntaxError)
_ARG_LINE = re.compile(r"^\s{0,8}(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.+)$")


# Generated schemas ------------------------------------------------------------------------------


def _hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """Type hints, each resolved on its own: one unresolvable forward reference does not spoil the rest."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except HINT_ERRORS:  # one hint that does not resolve: resolve the others one by one
        pass
    out: dict[str, Any] = {}
    namespace = getattr(fn, "__globals__", {})
    for name, raw in getattr(fn, "__annotations__", {}).items():
        try:
            out[name] = eval(raw, namespace) if isinstance(raw, str) else raw  # the class's own hint, in its own module
        except HINT_ERRORS:
            out[name] = Any
    return out


def _schema_of(hint: Any) -> tuple[Any, dict[str, Any]]:
    """(the hint pydantic validates with, its JSON schema); ``Any`` when pydantic cannot express it."""
    try:
        return hint, TypeAdapter(hint).json_schema()
    except (TypeError, ValueError, NotImplementedError, AttributeError):  # arbitrary classes, odd hints
        return Any, {}


def arg_docs(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google- or numpy-style ``Args:`` section."""
    out: dict[str, str] = {}
    section, last, indent = False, "", 0
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.lower().rstrip(":") in ("args", "arguments", "parameters", "params"):
            section = True
            continue
        if section and stripped.lower().rstrip(":") in ("returns", "return", "raises", "yields", "example", "examples"):
            break
        if not section or not stripped:
            continue
        m = _ARG_LINE.match(line)
        here = len(line) - len(line.lstrip())
        if last and here > indent:  # a description continued on the next line
            out[last] += " " + stripped
        elif m:
            last, indent = m.group(1).lstrip("*"), here
            out[last] = m.group(3).strip()
    return out


def method_tool(server: str, fn: Callable[..., Json], kind: ToolKind, validation: Validation) -> Tool:
    """A Tool from a method (its first parameter is the instance)."""
    sig = inspect.signature(fn)
    names = [n for n, p in sig.parameters.items() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)][1:]
    hints = _hints(fn)
    doc = inspect.cleandoc(fn.__doc__ or "") or f"{fn.__name__.replace('_', ' ')}."
    described = arg_docs(doc)
    fields: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    defs: dict[str, Any] = {}
    for name in names:
        p = sig.parameters[name]
        hint, schema = _schema_of(hints.get(name, Any))
        defs.update(schema.pop("$defs", {}))
        schema.pop("title", None)
        if p.default is inspect.Parameter.empty:
            required.append(name)
        elif _jsonable(p.default):
            schema["default"] = p.default
        if name in described and "description" not in schema:
            schema["description"] = described[name]
        properties[name] = schema
        fields[name] = (hint, ... if p.default is inspect.Parameter.empty else p.default)
    input_schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = required
    if not any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        input_schema["additionalProperties"] = False
    if defs:
        input_schema["$defs"] = defs
    model = create_model(  # type: ignore[call-overload]
        f"{server}__{fn.__name__}",
        __config__=ConfigDict(extra="forbid", strict=True, protected_namespaces=(), arbitrary_types_allowed=True),
        **fields,
    )
    tool = Tool(server, fn.__name__, fn, kind, doc, input_schema, model, {n: None for n in names})
    if validation == "lenient":
        tool.schema_validator = Draft202012Validator(input_schema)
    elif validation == "none":
        tool.schema_validator = PERMISSIVE
    return tool


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


# Imported schemas -------------------------------------------------------------------------------


def normalize(node: Any) -> Any:
    """A copy of a schema with non-standard type names (``dict``, ``float``, ``tuple``, ``any``) made standard."""
    if isinstance(node, list):
        return [normalize(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: normalize(v) for k, v in node.items()}
    t = out.get("type")
    if isinstance(t, str) or (isinstance(t, list) and all(isinstance(x, str) for x in t)):
        names = [_type_name(x) for x in ([t] if isinstance(t, str) else t)]
        if None in names:
            out.pop("type")
        else:
            kept = list(dict.fromkeys(names))
            out["type"] = kept[0] if len(kept) == 1 else kept
    return out


def _type_name(name: str) -> str | None:
    if name in STANDARD:
        return name
    lowered = name.strip().lower()
    if lowered in STANDARD:
        return lowered
    if lowered in TYPE_NAMES:
        return TYPE_NAMES[lowered]
    raise SchemaFileError(
        f"unknown type name {name!r} in a tool schema; use a JSON Schema type "
        f"({', '.join(sorted(STANDARD))}) or one of: {', '.join(sorted(TYPE_NAMES))}"
    )


def tool_spec(raw: Any, where: str) -> dict[str, Any]:
    """One spec in any accepted form -> ``{"name", "description", "input_schema", ["kind"]}``."""
    if not isinstance(raw, dict):
        raise SchemaFileError(f"{where}: a tool spec must be a JSON object, got {type(raw).__name__}")
    inner = raw.get("function")
    spec: dict[str, Any] = inner if raw.get("type") == "function" and isinstance(inner, dict) else raw
    name = spec.get("name")
    if not isinstance(name, str) or not name:
        raise SchemaFileError(f"{where}: a tool spec needs a 'name'")
    schema = next((spec[k] for k in ("input_schema", "inputSchema", "parameters") if k in spec), None)
    if schema is None:
        schema = {"type": "object", "properties": {}}
    schema = normalize(schema)
    if schema.get("type") in (None, "object"):
        schema.setdefault("type", "object")
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise SchemaFileError(f"{where}: tool {name!r} has an invalid schema: {exc.message}") from None
    out = {"name": name, "description": spec.get("description"), "input_schema": schema}
    if spec.get("kind") in ("read", "write"):
        out["kind"] = spec["kind"]
    return out


def load_schemas(path: Path) -> dict[str, dict[str, Any]]:
    """Tool specs by name from a JSON or JSONL file (see the module docstring for the forms)."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise SchemaFileError(f"cannot read schemas file {path}: {exc.strerror}") from None
    return parse_schemas(text, str(path))


def parse_schemas(text: str, where: str = "schemas") -> dict[str, dict[str, Any]]:
    items: list[tuple[str, Any]]
    try:
        data = json.loads(text)
        items = _items(data, where)
    except json.JSONDecodeError:
        items = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    items.append((f"{where}:{n}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    raise SchemaFileError(f"{where}:{n}: not JSON (nor a JSON document): {exc.msg}") from None
    out: dict[str, dict[str, Any]] = {}
    for at, raw in items:
        spec = tool_spec(raw, at)
        if spec["name"] in out:
            raise SchemaFileError(f"{at}: tool {spec['name']!r} is described twice")
        out[spec["name"]] = spec
    return out


def _items(data: Any, where: str) -> list[tuple[str, Any]]:
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if isinstance(data, list):
        return [(f"{where}[{i}]", item) for i, item in enumerate(data)]
    if isinstance(data, dict) and ("name" in data or data.get("type") == "function"):
        return [(where, data)]
    if isinstance(data, dict):
        return [(f"{where}[{k!r}]", {"name": k, **v} if isinstance(v, dict) else v) for k, v in data.items()]
    raise SchemaFileError(f"{where}: expected tool specs (a JSON list, object or JSONL), got {type(data).__name__}")


def apply_spec(tool: Tool, spec: dict[str, Any]) -> Tool:
    """Replace a generated schema by an imported one; arguments are then checked against it as given."""
    tool.input_schema = spec["input_schema"]
    tool.description = spec.get("description") or tool.description
    if tool.schema_validator is not PERMISSIVE:
        tool.schema_validator = Draft202012Validator(tool.input_schema)
    if spec.get("kind") in ("read", "write"):
        tool.kind = spec["kind"]
    return tool
