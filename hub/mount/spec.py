"""``--mount`` specs, per-session scenarios, and which servers a hub serves.

    --mount 'package.module:ClassName[=name][?option=value&...]'

Options: ``schemas=FILE`` (JSON or JSONL tool specs), ``config=FILE`` (the default scenario),
``loader=METHOD``, ``loader_kwargs=FILE or inline JSON object``, ``tools=a,b`` (allow-list),
``exclude=a,b``, ``read=a,b`` / ``write=a,b`` (read or write tools whatever their names),
``validation=lenient|strict|none``, ``copy=pickle|deepcopy``, ``verify_reads=1``, ``render=compact|repr|json``.
``package.module:factory`` (a function returning an instance) works in place of a class.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from hub.errors import ScenarioError
from hub.mount.objects import ObjectMount, Scenario, snake_case
from hub.mount.render import RENDERS
from hub.mount.schemas import load_schemas

OPTIONS = (
    "schemas",
    "config",
    "loader",
    "loader_kwargs",
    "tools",
    "exclude",
    "read",
    "write",
    "validation",
    "copy",
    "verify_reads",
    "render",
)


def _json_option(value: str, what: str) -> Any:
    """Inline JSON (``{...}``) or the path of a JSON file."""
    text = value if value.lstrip().startswith(("{", "[")) else None
    if text is None:
        try:
            text = Path(value).read_text()
        except OSError as exc:
            raise ValueError(f"--mount {what}={value}: cannot read the file: {exc.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"--mount {what}={value}: not valid JSON: {exc}") from None


def _names(value: str) -> list[str]:
    return [n.strip() for n in value.split(",") if n.strip()]


def _import(module_name: str) -> Any:
    """Import a module, looking in the current directory too (as ``uvicorn module:app`` does)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name.split(".")[0] or os.getcwd() in sys.path:
            raise ValueError(f"cannot import {module_name}: {exc}") from None
    sys.path.insert(0, os.getcwd())
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise ValueError(f"cannot import {module_name}: {exc} (looked in the current directory and sys.path)") from None


def load_mount(spec: str) -> ObjectMount:
    """``package.module:ClassName[=server_name][?option=value&...]`` to an ObjectMount."""
    target_spec, _, query = spec.partition("?")
    target, _, name = target_spec.partition("=")
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise ValueError(f"--mount takes package.module:ClassName[=name][?options], got {spec!r}")
    found = getattr(_import(module_name), attr, None)
    if found is None:
        raise ValueError(f"{module_name} has no class {attr!r}")
    options = dict(parse_qsl(query, keep_blank_values=True))
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError(f"--mount {spec!r}: unknown option {', '.join(unknown)}; options: {', '.join(OPTIONS)}")
    if isinstance(found, type):
        cls, factory = found, None
    elif callable(found):
        cls, factory = type(found()), found
    else:
        raise ValueError(f"{module_name}.{attr} is neither a class nor a function that returns an instance")
    kwargs = _json_option(options["loader_kwargs"], "loader_kwargs") if "loader_kwargs" in options else None
    if kwargs is not None and not isinstance(kwargs, dict):
        raise ValueError("--mount loader_kwargs must be a JSON object of keyword arguments")
    validation = options.get("validation", "lenient")
    if validation not in ("lenient", "strict", "none"):
        raise ValueError(
            f"--mount validation={validation}: use lenient (check types, pass values as given), strict "
            "(validate and coerce) or none (any object, passed as given: the method's own errors decide)"
        )
    render = options.get("render", "compact")
    if render not in RENDERS:
        raise ValueError(f"--mount render={render}: use {', '.join(RENDERS)}")
    copy_mode = options.get("copy") or None
    if copy_mode not in (None, "pickle", "deepcopy"):
        raise ValueError(f"--mount copy={copy_mode}: use pickle or deepcopy")
    return ObjectMount(
        cls,
        name or (snake_case(cls.__name__) if factory else None),
        factory=factory,
        loader=options.get("loader") or None,
        default_config=_json_option(options["config"], "config") if "config" in options else None,
        loader_kwargs=kwargs,
        schemas=load_schemas(Path(options["schemas"])) if "schemas" in options else None,
        tools=_names(options["tools"]) if options.get("tools") else None,
        exclude=_names(options.get("exclude", "")),
        read_only=_names(options.get("read", "")),
        writes=_names(options.get("write", "")),
        validation=validation,  # type: ignore[arg-type]
        copy_mode=copy_mode,  # type: ignore[arg-type]
        verify_reads=options.get("verify_reads", "0").lower() in ("1", "true", "yes"),
        render=render,  # type: ignore[arg-type]
    )


MAX_SCENARIO_DEPTH = 100


def nesting(value: Any) -> int:
    """How deeply lists and objects nest in a JSON value (walked without recursion: any depth is safe)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, Mapping):
            children: Iterable[Any] = node.values()
        elif isinstance(node, (list, tuple)):
            children = node
        else:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest


def scenarios(
    library: Any,
    configs: Mapping[str, Any] | None,
    loader_kwargs: Mapping[str, Any] | None,
    restored: Iterable[str] = (),
) -> dict[str, Scenario]:
    """Per-server scenarios from a request's ``configs`` and ``loader_kwargs``, each checked against its server."""
    configs = {} if configs is None else configs
    loader_kwargs = {} if loader_kwargs is None else loader_kwargs
    for what, value in (("configs", configs), ("loader_kwargs", loader_kwargs)):
        if not isinstance(value, Mapping):
            raise ScenarioError(f"{what} must be an object keyed by server name, got {type(value).__name__}")
        if nesting(value) > MAX_SCENARIO_DEPTH:  # every door passes here: copying it would overflow Python's stack
            raise ScenarioError(
                f"{what} is nested deeper than {MAX_SCENARIO_DEPTH} levels; flatten the scenario (a loader can "
                "rebuild deep structures from a flat form)"
            )
    out: dict[str, Scenario] = {}
    taken = set(restored)
    for server in [*configs, *(s for s in loader_kwargs if s not in configs)]:
        mount = library.mounts.get(server)
        if mount is None:
            raise ScenarioError(
                f"a scenario is given for {server!r}, which is not served; servers: {', '.join(library.mounts)}"
            )
        if server in taken:
            raise ScenarioError(f"a scenario is given for {server!r}, whose state comes from the snapshot")
        if not isinstance(mount, ObjectMount):
            raise ScenarioError(
                f"server {server!r} is built in: it starts from its seed, a snapshot or setup calls, "
                f"and takes no scenario config or loader options"
            )
        kwargs = loader_kwargs.get(server) or {}
        if not isinstance(kwargs, Mapping):
            raise ScenarioError(f"loader_kwargs[{server!r}] must be an object of keyword arguments")
        scenario = Scenario(configs.get(server), dict(kwargs))
        mount.check_scenario(scenario)
        out[server] = scenario
    return out


def choose_servers(
    builtin: Sequence[Any], mounts: Sequence[ObjectMount], *, include_builtin: bool = True, only: Sequence[str] = ()
) -> list[Any]:
    """The servers a hub serves: built-ins (unless left out), then mounts, narrowed to ``only`` when given.

    With ``only``, a mount shadows a built-in server of the same name."""
    mounted = {m.name for m in mounts}
    servers = [s for s in builtin if include_builtin and not (only and s.name in mounted)]
    taken = {s.name for s in servers}
    for m in mounts:
        if m.name in taken:
            raise ValueError(
                f"mounted server {m.name!r} has the name of a built-in server; give it another name "
                f"(MODULE:CLASS={m.name}2), or serve only mounted servers with --no-builtin "
                f"(or --only {m.name})"
            )
        taken.add(m.name)
    chosen = [*servers, *mounts]
    if only:
        names = {s.name for s in chosen}
        missing = [n for n in only if n not in names]
        if missing:
            raise ValueError(f"--only {' '.join(missing)}: no such server; servers: {', '.join(sorted(names))}")
        chosen = [s for s in chosen if s.name in set(only)]
    if not chosen:
        raise ValueError("no server to serve: --no-builtin needs at least one --mount")
    return chosen


SCENARIO_META = "hub/scenario"


def session_from_meta(sessions: Any, sid: str, meta: Mapping[str, Any] | None) -> None:
    """Open session ``sid`` from the scenario an MCP call names in ``_meta["hub/scenario"]``
    (``{"configs": {...}, "loader_kwargs": {...}}``), or check that it already started there.

    A scenario applies when a session opens; a call naming another one for a live session is refused.
    A closed session is left to the dispatcher, which reports it closed."""
    spec = (meta or {}).get(SCENARIO_META)
    if spec is None or sid in sessions.ended:
        return
    if not isinstance(spec, Mapping) or set(spec) - {"configs", "loader_kwargs"}:
        raise ScenarioError(f'_meta["{SCENARIO_META}"] takes an object with "configs" and/or "loader_kwargs"')
    wanted = scenarios(sessions.library, spec.get("configs"), spec.get("loader_kwargs"))
    found = sessions.sessions.get(sid)
    if found is None:
        sessions.open(sid, configs=spec.get("configs"), loader_kwargs=spec.get("loader_kwargs"))
        return
    differ = sorted(s for s, scenario in wanted.items() if found.configs.get(s) != scenario)
    if differ:
        raise ScenarioError(
            f"session {sid!r} already started from another scenario for {', '.join(differ)}; "
            f"a scenario applies when a session opens: use a new session id"
        )
