"""A Python class served as a hub server: its tools, its scenarios, and how its forks copy it.

Copies, fastest first: the class's own ``__hub_fork__()`` (return an independent copy), a
pickle round trip, ``copy.deepcopy`` (for instances that cannot be pickled). See ``forks`` for
how forks share and write versions, and how a write on a version a fork holds alone is logged
instead of serialised (``redo``; ``?redo=0`` in a ``--mount`` spec checkpoints every write).
"""

from __future__ import annotations

import copy
import inspect
import json
import logging
import pickle
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from hub.errors import ScenarioError, StateError
from hub.kit import Json, Tool, ToolKind
from hub.mount.forks import ObjectFork, Version, gc_paused
from hub.mount.reads import ReadCheck
from hub.mount.render import Render, render_result
from hub.mount.schemas import Validation, apply_spec, method_tool
from hub.state.db import Fork

log = logging.getLogger("hub.mount")

LOADER_NAMES = ("_load_scenario", "load_scenario")
READ_PREFIXES = (
    "get_",
    "list_",
    "search_",
    "find_",
    "read_",
    "count_",
    "show_",
    "describe_",
    "display_",
    "check_",
    "view_",
)
READ_WORDS = ("ls", "pwd", "cat", "head", "tail")
LIBRARY_MODULES = ("pydantic", "typing", "abc", "collections", "enum", "builtins", "dataclasses")
CopyMode = Literal["hook", "pickle", "deepcopy"]
PICKLE_ERRORS = (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError)
MAX_SCENARIOS = 32
MAX_SCENARIO_BYTES = 256 << 20  # pickled size of the scenarios kept for sharing
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Scenario:
    """A session's starting point for one mounted server: the loader's config and keyword options."""

    config: Any = None
    kwargs: Mapping[str, Any] = field(default_factory=dict)


def tool(fn: Any = None, *, kind: ToolKind | None = None) -> Any:
    """Mark a method as a tool (``@tool``, ``@tool("read")``, ``@tool(kind="write")``).

    When any method of a class is marked, only the marked methods are tools."""
    if isinstance(fn, str):
        fn, kind = None, fn  # type: ignore[assignment]

    def mark(f: F) -> F:
        f.__hub_tool__ = kind or True  # type: ignore[attr-defined]
        return f

    return mark(fn) if callable(fn) else mark


def snake_case(name: str) -> str:
    """``MathAPI`` -> ``math_api``, ``GorillaFileSystem`` -> ``gorilla_file_system``."""
    name = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return re.sub(r"[^0-9a-zA-Z]+", "_", name).strip("_").lower()


def _marker(fn: Any) -> ToolKind | bool | None:
    """The kind a method's marker declares: the hub's ``@tool`` or a tau2-style ``@is_tool(ToolType.X)``."""
    mark = getattr(fn, "__hub_tool__", None)
    if mark is not None:
        return mark if mark in ("read", "write") else True
    if getattr(fn, "__tool__", False) or hasattr(fn, "__tool_type__"):
        mutates = getattr(fn, "__mutates_state__", None)
        if isinstance(mutates, bool):
            return "write" if mutates else "read"
        kind = str(getattr(getattr(fn, "__tool_type__", None), "value", getattr(fn, "__tool_type__", ""))).lower()
        return "read" if kind in ("read", "think", "generic") else "write"  # generic: calculate, transfer
    return None


def _methods(cls: type) -> dict[str, Callable[..., Json]]:
    """Instance methods a class defines or inherits, without those of library bases (pydantic, enum, ...)."""
    out: dict[str, Callable[..., Json]] = {}
    for name, fn in inspect.getmembers(cls, inspect.isfunction):
        static = inspect.getattr_static(cls, name)
        if isinstance(static, (staticmethod, classmethod)):
            continue
        if (getattr(fn, "__module__", "") or "").split(".")[0] in LIBRARY_MODULES:
            continue
        out[name] = fn
    return out


def select_tools(
    cls: type, *, loader: str | None, tools: Iterable[str] | None = None, exclude: Iterable[str] = ()
) -> dict[str, tuple[Callable[..., Json], ToolKind | bool | None]]:
    """The methods served as tools: an allow-list, else the marked methods, else every public method."""
    methods = _methods(cls)
    allow = list(tools) if tools else list(getattr(cls, "__hub_tools__", ()) or ())
    marked = {n: fn for n, fn in methods.items() if _marker(fn) is not None}
    if allow:
        unknown = [n for n in allow if n not in methods]
        if unknown:
            raise ValueError(
                f"{cls.__name__} has no method {', '.join(map(repr, unknown))} to serve as a tool; "
                f"its methods: {', '.join(n for n in methods if not n.startswith('__'))}"
            )
        names = allow
    elif marked:
        names = list(marked)
    else:
        names = [n for n in methods if not n.startswith("_")]
    dropped = {*exclude, *getattr(cls, "__hub_exclude__", ()), loader}
    return {n: (methods[n], _marker(methods[n])) for n in names if n not in dropped}


def _caller(fn: Callable[..., Json]) -> Callable[[Any, dict[str, Any]], Json]:
    """Call a method with positional-only parameters passed by position and the rest by keyword."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    positional = [p.name for p in params if p.kind is p.POSITIONAL_ONLY]

    def call(instance: Any, kwargs: dict[str, Any]) -> Json:
        kw = dict(kwargs)
        args = [kw.pop(n) for n in positional if n in kw]
        return fn(instance, *args, **kw)

    return call


class ObjectMount:
    """A Python class served as a hub server."""

    def __init__(
        self,
        cls: type,
        name: str | None = None,
        *,
        loader: str | None = None,
        default_config: Any = None,
        loader_kwargs: Mapping[str, Any] | None = None,
        schemas: Mapping[str, Any] | None = None,
        read_only: Iterable[str] = (),
        tools: Iterable[str] | None = None,
        exclude: Iterable[str] = (),
        validation: Validation = "lenient",
        copy_mode: CopyMode | None = None,
        factory: Callable[[], Any] | None = None,
        verify_reads: bool = False,
        writes: Iterable[str] = (),
        redo: bool = True,
        render: Render = "compact",
    ) -> None:
        self.cls = cls
        self.factory = factory or cls
        self.name = name or snake_case(cls.__name__)
        self.description = inspect.cleandoc(cls.__doc__ or f"{cls.__name__}, mounted from {cls.__module__}.")
        self.family = self.name
        self.loader = loader or next((n for n in LOADER_NAMES if callable(getattr(cls, n, None))), None)
        if loader and not callable(getattr(cls, loader, None)):
            raise ValueError(f"{cls.__name__} has no method {loader!r} to load scenarios with")
        self.default_config = default_config
        self.verify_reads = verify_reads
        self.render: Render = render
        self.reads = ReadCheck()
        self.loader_kwargs = dict(loader_kwargs or {})
        if (default_config is not None or self.loader_kwargs) and not self.loader:
            raise ValueError(
                f"{self.name}: a config or loader options are given, but {cls.__name__} has no "
                f"scenario loader ({' or '.join(LOADER_NAMES)}; or name one with loader=)"
            )
        self.tools: dict[str, Tool] = {}
        self._calls: dict[str, Callable[[Any, dict[str, Any]], Json]] = {}
        self._build_tools(read_only, writes, tools, exclude, validation, schemas or {})
        hooked = callable(getattr(cls, "__hub_fork__", None))
        self.copy_mode: CopyMode | None = copy_mode or ("hook" if hooked else None)
        self._scenarios: OrderedDict[str, Version] = OrderedDict()
        self.redo = redo
        self._pickle_rate = 0.0  # seconds per pickled byte, as last measured

    def _build_tools(
        self,
        read_only: Iterable[str],
        writes: Iterable[str],
        tools: Iterable[str] | None,
        exclude: Iterable[str],
        validation: Validation,
        schemas: Mapping[str, Any],
    ) -> None:
        read_names = {*read_only, *getattr(self.cls, "__hub_read__", ())}
        write_names = {*writes, *getattr(self.cls, "__hub_write__", ())}
        selected = select_tools(self.cls, loader=self.loader, tools=tools, exclude=exclude)
        specs = {_spec_name(n, selected): s for n, s in schemas.items()}
        unknown = sorted(set(specs) - set(selected))
        if unknown:
            raise ValueError(
                f"{self.name}: schemas given for {', '.join(map(repr, unknown))}, which "
                f"{'are not tools' if len(unknown) > 1 else 'is not a tool'} of {self.cls.__name__}; "
                f"its tools: {', '.join(selected)}"
            )
        for attr, (fn, mark) in selected.items():
            if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
                raise ValueError(
                    f"{self.cls.__name__}.{attr} is async; mounted tools run synchronously in the hub's "
                    f"dispatcher: serve a synchronous wrapper, or leave it out with exclude={attr}"
                )
            kind: ToolKind = (
                mark
                if mark in ("read", "write")
                # type: ignore[assignment]
                else (
                    "read"
                    if attr not in write_names
                    and (attr in read_names or attr in READ_WORDS or attr.startswith(READ_PREFIXES))
                    else "write"
                )
            )
            built = method_tool(self.name, fn, kind, validation)
            self.tools[attr] = apply_spec(built, specs[attr]) if attr in specs else built
            self._calls[attr] = _caller(fn)

    # Scenarios ---------------------------------------------------------------------------------

    def check_scenario(self, scenario: Scenario) -> None:
        """Raise ScenarioError unless this mount can load ``scenario`` (before any instance is made)."""
        if scenario.config is None and not scenario.kwargs:
            return
        if not self.loader:
            raise ScenarioError(
                f"server {self.name!r} ({self.cls.__name__}) has no scenario loader, so it takes no "
                f"config or loader options; give the class a {LOADER_NAMES[0]}(config) method, or "
                f"name one with ?loader=METHOD in its --mount spec"
            )
        if not isinstance(scenario.kwargs, Mapping) or not all(isinstance(k, str) for k in scenario.kwargs):
            raise ScenarioError(f"loader options for {self.name!r} must be an object of keyword arguments")
        config = self._config(scenario)
        args = () if config is None else (config,)
        try:
            inspect.signature(getattr(self.cls, self.loader)).bind(None, *args, **self._kwargs(scenario))
        except TypeError as exc:
            raise ScenarioError(
                f"{self.name}: {self.cls.__name__}.{self.loader} cannot take this scenario: {exc}"
            ) from None

    def _config(self, scenario: Scenario) -> Any:
        return self.default_config if scenario.config is None else scenario.config

    def _kwargs(self, scenario: Scenario) -> dict[str, Any]:
        return {**self.loader_kwargs, **scenario.kwargs}

    def new_instance(self, scenario: Scenario | Any = None) -> Any:
        """A fresh instance, its scenario loaded (a raw config counts as ``Scenario(config)``)."""
        scenario = scenario if isinstance(scenario, Scenario) else Scenario(scenario)
        self.check_scenario(scenario)
        instance = self.factory()
        config, kwargs = self._config(scenario), self._kwargs(scenario)
        if self.loader and (config is not None or kwargs):
            args = () if config is None else (copy.deepcopy(config),)
            try:
                getattr(instance, self.loader)(*args, **copy.deepcopy(kwargs))
            except Exception as exc:  # the class's own loader: any failure is a bad scenario, reported as such
                raise ScenarioError(
                    f"{self.name}: loading the scenario failed in {self.cls.__name__}.{self.loader}: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
        return instance

    def first_version(self, scenario: Scenario | Any = None) -> Version:
        """The starting version of a scenario: built once, then shared by every session that starts there."""
        scenario = scenario if isinstance(scenario, Scenario) else Scenario(scenario)
        key = _scenario_key(scenario)
        found = self._scenarios.get(key) if key is not None else None
        if found is not None:
            self._scenarios.move_to_end(key)  # type: ignore[arg-type]
            return found
        version = self.version_of(self.new_instance(scenario))
        version.shared = True
        if key is not None:
            self._scenarios[key] = version
            while len(self._scenarios) > 1 and (
                len(self._scenarios) > MAX_SCENARIOS
                or sum(len(v.data or b"") for v in self._scenarios.values()) > MAX_SCENARIO_BYTES
            ):
                self._scenarios.popitem(last=False)
        return version

    # Versions ----------------------------------------------------------------------------------

    def version_of(self, instance: Any) -> Version:
        """A version for a new instance; the first one decides between pickle and deepcopy copies."""
        if self.copy_mode is None:
            try:
                data = pickle.dumps(instance, pickle.HIGHEST_PROTOCOL)
                pickle.loads(data)
                self.copy_mode = "pickle"
                return Version(instance, data)
            except PICKLE_ERRORS as exc:
                log.warning(
                    "%s: instances cannot be pickled (%s: %s); forks use copy.deepcopy",
                    self.name,
                    type(exc).__name__,
                    exc,
                )
                self.copy_mode = "deepcopy"
        if self.copy_mode == "pickle":
            return Version(instance, pickle.dumps(instance, pickle.HIGHEST_PROTOCOL))
        return Version(instance)

    def copy_of(self, version: Version) -> Any:
        """An independent copy of the version's instance (a version with a redo log is settled first)."""
        if self.copy_mode == "pickle" and version.data is not None:
            self.settle(version)
            return self.copy_of_checkpoint(version)
        if self.copy_mode == "hook":
            return version.instance.__hub_fork__()
        return copy.deepcopy(version.instance)

    def settle(self, version: Version) -> None:
        """Checkpoint a version with a redo log: pickle it, so that the log can go."""
        if version.log:
            version.data = self.dump_instance(version.instance)
            version.log, version.log_seconds, version.log_bytes = [], 0.0, 0

    def copy_of_checkpoint(self, version: Version) -> Any:
        with gc_paused():
            return pickle.loads(version.data)  # type: ignore[arg-type]

    def dump_instance(self, instance: Any) -> bytes:
        """The instance pickled; the time it took sets when the next checkpoint is due."""
        start = time.perf_counter()
        with gc_paused():
            data = pickle.dumps(instance, pickle.HIGHEST_PROTOCOL)
        self._pickle_rate = (time.perf_counter() - start) / max(1, len(data))
        return data

    def checkpoint_seconds(self, version: Version) -> float:
        """What a checkpoint of ``version`` costs, by the last one measured: once replaying its redo log
        would cost as much, the next write takes one."""
        return self._pickle_rate * len(version.data or b"")

    def diverged(self, tool: str) -> None:
        """A replayed write gave another result: this class's writes are not deterministic enough to redo."""
        log.warning(
            "%s.%s gave another result when replayed; %s now checkpoints every write", self.name, tool, self.name
        )
        self.redo = False

    def after_write(self, work: Any, before: Version) -> Version | None:
        """The version a successful write leaves, or None when (by its pickle) it changed nothing."""
        if self.copy_mode == "pickle":
            data = self.dump_instance(work)
            return None if data == before.data else Version(work, data)
        return Version(work)

    def dump(self, version: Version) -> bytes:
        if version.data is not None and not version.log:
            return version.data
        try:
            return pickle.dumps(version.instance, pickle.HIGHEST_PROTOCOL)
        except PICKLE_ERRORS as exc:
            raise StateError(
                f"{self.name}: cannot snapshot an instance of {self.cls.__name__}: it does not pickle "
                f"({type(exc).__name__}: {exc})"
            ) from None

    # The Mount protocol ------------------------------------------------------------------------

    def open(self, seed: int, config: Scenario | Any = None) -> Fork:
        first = self.first_version(config)
        return ObjectFork(self, first, first)

    def restore(self, seed: int, data: bytes) -> Fork:
        origin = self.first_version()  # decides the copy mode before the restored version needs it
        with gc_paused():
            version = Version(pickle.loads(data), data if self.copy_mode == "pickle" else None)
        return ObjectFork(self, version, origin)

    def seed_hash(self, seed: int) -> str:
        return self.first_version().state_hash()

    def invoke(self, instance: Any, tool: str, kwargs: dict[str, Any]) -> Json:
        return render_result(self.render, self._calls[tool](instance, kwargs))


def _spec_name(name: str, selected: Mapping[str, Any]) -> str:
    """``GorillaFileSystem.cd`` names the tool ``cd``."""
    return name.rsplit(".", 1)[-1] if name not in selected and "." in name else name


def _scenario_key(scenario: Scenario) -> str | None:
    try:
        return json.dumps([scenario.config, dict(scenario.kwargs)], sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None  # a scenario built in process from live objects: loaded per session, never shared
