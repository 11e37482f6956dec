"""Tool forms: a tool's JSON schema as form fields, and a submitted form back as tool arguments.

Scalars get their own input (a select for enums and booleans); arrays and objects a JSON textarea.
An empty field means "not given". The optional ``__json`` field takes the whole arguments object
as JSON and wins over the single fields.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RAW_FIELD = "__json"


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # "string", "integer", "number", "boolean", "json"
    required: bool
    description: str
    enum: tuple[Any, ...] = ()
    default: Any = None
    nullable: bool = False

    @property
    def widget(self) -> str:
        if self.enum or self.kind == "boolean":
            return "select"
        return "textarea" if self.kind == "json" else "input"

    @property
    def options(self) -> tuple[Any, ...]:
        return self.enum or ((True, False) if self.kind == "boolean" else ())

    @property
    def placeholder(self) -> str:
        if self.default is not None:
            return f"default: {json.dumps(self.default)}"
        return "JSON" if self.kind == "json" else ""


def _branch(prop: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """The non-null branch of an ``anyOf`` (Optional[...] in pydantic schemas) and whether null is allowed."""
    branches = prop.get("anyOf") or prop.get("oneOf")
    if not branches:
        return prop, False
    real = [b for b in branches if b.get("type") != "null"]
    return (real[0] if len(real) == 1 else {}), len(real) < len(branches)


def fields_of(schema: Mapping[str, Any]) -> list[Field]:
    required = set(schema.get("required", []))
    out = []
    for name, prop in schema.get("properties", {}).items():
        branch, nullable = _branch(prop)
        kind = branch.get("type", "json")
        if kind not in ("string", "integer", "number", "boolean"):
            kind = "json"
        out.append(
            Field(
                name,
                kind,
                name in required,
                prop.get("description") or branch.get("description", ""),
                tuple(branch.get("enum", ())),
                prop.get("default"),
                nullable,
            )
        )
    return out


class FormError(ValueError):
    """A field that cannot be turned into an argument (malformed number or JSON)."""


def _value(field: Field, raw: str) -> Any:
    if field.enum:
        matches = [v for v in field.enum if str(v) == raw]
        return matches[0] if matches else raw
    try:
        if field.kind == "integer":
            return int(raw)
        if field.kind == "number":
            return float(raw)
        if field.kind == "boolean":
            return {"true": True, "false": False}[raw.lower()]
        if field.kind == "json":
            return json.loads(raw)
    except (ValueError, KeyError) as exc:
        raise FormError(f"{field.name}: {raw!r} is not a valid {field.kind}") from exc
    return raw


def arguments_from_form(schema: Mapping[str, Any], form: Mapping[str, str]) -> dict[str, Any]:
    """Tool arguments from a submitted form; raises FormError on a value that does not parse."""
    raw = (form.get(RAW_FIELD) or "").strip()
    if raw:
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise FormError(f"arguments JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise FormError("arguments JSON must be an object")
        return value
    args: dict[str, Any] = {}
    for field in fields_of(schema):
        text = form.get(field.name, "")
        if text.strip() != "":
            args[field.name] = _value(field, text if field.kind == "string" else text.strip())
    return args
