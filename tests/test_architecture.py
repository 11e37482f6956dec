"""The shape of the code: one-way imports, parts, one error model, one event bus API, one replay loop."""

from __future__ import annotations

import ast
import json
import logging
import re
import subprocess
import sys
import tomllib
from importlib.metadata import entry_points
from pathlib import Path
from typing import get_args

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub import errors
from hub.app import BUILTIN_PARTS, create_app
from hub.cli import parser
from hub.config import Settings
from hub.core import Hub, default_library
from hub.engine.events import Event, EventBus, ToolCallEvent
from hub.engine.world import World
from hub.parts import GROUP, SERVERS_GROUP, Part, as_part, discover, registered_servers
from hub.tasks import BUILTIN_TASKS, TaskSet, replay
from hub.transports.api import handle_errors
from hub.transports.metrics import HubMetrics
from hub.wire import EVENT_KINDS
from servers import REGISTRY
from tests.conftest import ALL_PARTS, LIBRARY, PYPROJECT, declared_parts

ROOT = Path(__file__).resolve().parent.parent
HUB = ROOT / "hub"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(HUB.rglob("*.py"))}


def runtime_imports(path: Path) -> set[str]:
    """Modules ``path`` imports when it runs (function-level imports included, ``TYPE_CHECKING`` blocks not)."""
    tree = ast.parse(path.read_text())
    guarded = [n for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)]
    typing_only = {id(n) for node in guarded for stmt in node.body for n in ast.walk(stmt)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


def hub_edges() -> dict[str, set[str]]:
    """Import edges between hub modules; importing ``a.b.c`` also runs the packages ``a.b`` and ``a``."""
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = set()
        for imported in runtime_imports(path):
            dotted = imported.split(".")
            targets.update(".".join(dotted[:i]) for i in range(1, len(dotted) + 1))
        edges[name] = {t for t in targets if t in MODULES and t != name and not name.startswith(t + ".")}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles_among_hub_modules() -> None:
    assert cycles(hub_edges()) == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_hub_sources_never_import_web_or_the_trainer_client() -> None:
    offenders = {
        name: sorted(
            i for i in runtime_imports(path) | typing_imports(path) if i.split(".")[0] in ("web", "trainer_client")
        )
        for name, path in MODULES.items()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def typing_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {
        a.name if isinstance(n, ast.Import) else f"{n.module}"
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for a in n.names
    }


def hub_imports(path: Path) -> set[str]:
    """What ``path`` imports, at run time or for typing."""
    return runtime_imports(path) | typing_imports(path)


def test_the_hub_core_imports_no_server() -> None:
    """Servers are parts: the core reads them through ``hub.parts.registered_servers``."""
    offenders = {n: sorted(i for i in hub_imports(p) if i.split(".")[0] == "servers") for n, p in MODULES.items()}
    assert {k: v for k, v in offenders.items() if v} == {}


HOSTS = ("hub.app", "hub.cli", "hub.shards", "hub.shard_relay", "hub.shard_workers", "hub.ray_hosting", "hub.testing")


def test_only_the_composition_roots_import_the_transports() -> None:
    """The core (hub.core) attaches no transport: metrics, like MCP and the API, install themselves as parts; only
    the roots that assemble the app and the command (hub.app, hub.cli) and the hosts (shards, Ray, testing) import
    them."""
    offenders = {
        name: sorted(i for i in hub_imports(path) if i.startswith("hub.transports"))
        for name, path in MODULES.items()
        if not name.startswith("hub.transports") and name not in HOSTS
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_kit_imports_nothing_of_the_hub_but_itself() -> None:
    """Servers build on the kit alone (the intent language included): it never points up at synthesis."""
    kit = {n: p for n, p in MODULES.items() if n == "hub.kit" or n.startswith("hub.kit.")}
    offenders = {
        name: sorted(i for i in hub_imports(path) if i.split(".")[0] == "hub" and not i.startswith("hub.kit"))
        for name, path in kit.items()
    }
    assert kit and {k: v for k, v in offenders.items() if v} == {}


def test_servers_import_only_the_kit() -> None:
    """A server imports ``hub.kit`` (never synthesis, the engine or the state); the registry adds ``hub.parts``."""
    root = ROOT / "servers"
    allowed = {"servers": ("hub.kit", "hub.parts")}
    offenders = {}
    for path in sorted(root.rglob("*.py")):
        name = module_name(path)
        ok = allowed.get(name, ("hub.kit",))
        bad = sorted(i for i in hub_imports(path) if i.split(".")[0] == "hub" and not i.startswith(ok))
        if bad:
            offenders[name] = bad
    assert offenders == {}


TRAINER = ROOT / "trainer_client"
# suite_eval is the suite part's eval command: it reads the suite registry and prints the benchmark's table
# (hub.suites), and runs the suite's hub through its public command line (trainer_client.hub_process), not in-process.
TRAINER_READS_SUITES = {"trainer_client.suite_eval"}


def test_the_trainer_client_imports_nothing_of_the_hub_but_the_wire() -> None:
    offenders = {
        module_name(path): sorted(
            i
            for i in runtime_imports(path) | typing_imports(path)
            if i.split(".")[0] == "hub" and i not in ("hub", "hub.wire")
        )
        for path in sorted(TRAINER.rglob("*.py"))
    }
    suites = {
        k: [i for i in v if not i.startswith("hub.suites")] for k, v in offenders.items() if k in TRAINER_READS_SUITES
    }
    found = {k: v for k, v in {**offenders, **suites}.items() if v}
    assert found == {}, "the trainer client talks to hubs through hub.wire only"


def test_the_wire_is_a_leaf() -> None:
    wire = HUB / "wire.py"
    assert {i for i in runtime_imports(wire) | typing_imports(wire) if i.startswith("hub")} == set()
    assert (HUB / "__init__.py").read_text().strip() == "", "the trainer ships hub/wire.py with an empty hub package"


def test_importing_every_hub_module_loads_no_server_nor_web_nor_the_trainer_client() -> None:
    names = [n for n in MODULES if not n.endswith("__main__")]
    code = (
        "import importlib, json, sys\n"
        f"for name in {names!r}:\n"
        "    try: importlib.import_module(name)\n"
        "    except ModuleNotFoundError as exc:  # a suite's module needs its benchmark (its own environment)\n"
        "        if exc.name.split('.')[0] not in ('bfcl_eval', 'tau2', 'loguru'): raise\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('web', 'trainer_client', 'servers'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


# Parts ------------------------------------------------------------------------------------------


def test_parts_have_unique_names_and_the_declared_ones_load() -> None:
    names = [p.name for p in ALL_PARTS]
    assert len(names) == len(set(names))
    assert {p.name for p in declared_parts()} == {"dashboard", "eval"}
    assert all(isinstance(p, Part) for p in ALL_PARTS)


def test_installed_entry_points_match_pyproject() -> None:
    """Once installed (``pip install -e .``), the package metadata declares what pyproject.toml declares."""
    for group in (GROUP, SERVERS_GROUP):
        installed = {e.name: e.value for e in entry_points(group=group)}
        declared = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"][group]
        assert not installed or installed == declared, "reinstall: pip install -e ."


def test_the_dashboard_and_eval_arrive_only_as_parts(tmp_path: Path) -> None:
    settings = Settings(store_path=str(tmp_path / "s.db"))
    hub = Hub(settings, LIBRARY)
    bare = {getattr(r, "path", None) for r in create_app(settings, hub, BUILTIN_PARTS).routes}
    full = {getattr(r, "path", None) for r in create_app(settings, Hub(settings, LIBRARY), ALL_PARTS).routes}
    assert {"/healthz", "/mcp", "/api/catalog", "/ws", "/metrics"} <= bare and "/ui/" not in bare
    assert "/ui/" in full and bare <= full
    assert "eval" not in parser(BUILTIN_PARTS)._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "eval" in parser(ALL_PARTS)._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def test_the_hub_reads_its_servers_through_the_parts(tmp_path: Path) -> None:
    banking, trading = REGISTRY[:2]
    one, two = Part("one", servers=lambda: [trading]), Part("two", servers=lambda: [banking, trading])
    assert registered_servers([one, Part("none")]) == [trading]
    with pytest.raises(ValueError, match="'trading' is registered twice"):
        registered_servers([one, two])
    assert registered_servers() == list(REGISTRY)  # the installed servers part
    assert [p.name for p in discover(SERVERS_GROUP)] == ["servers"]
    with pytest.raises(TypeError, match="'x' in prove_hub.servers is not a Part"):
        as_part("x", lambda: REGISTRY, SERVERS_GROUP)
    library = default_library(Settings(store_path=str(tmp_path / "s.db")))
    assert list(library.mounts) == [s.name for s in REGISTRY]


def test_metrics_attach_in_their_own_install(tmp_path: Path) -> None:
    settings = Settings(store_path=str(tmp_path / "s.db"))
    hub = Hub(settings, LIBRARY)
    counted = create_app(settings, hub, BUILTIN_PARTS)
    assert isinstance(counted.state.metrics, HubMetrics) and counted.state.metrics in hub.bus.subscribers
    bare = Hub(settings, LIBRARY)
    create_app(settings, bare, [p for p in BUILTIN_PARTS if p.name != "metrics"])
    assert not any(isinstance(s, HubMetrics) for s in bare.bus.subscribers)


async def test_a_part_routes_and_lifespan_run(tmp_path: Path) -> None:
    events: list[str] = []

    class Lifespan:
        async def __aenter__(self) -> None:
            events.append("start")

        async def __aexit__(self, *exc: object) -> None:
            events.append("stop")

    async def hello(request: Request) -> JSONResponse:
        return JSONResponse({"hello": request.app.state.hub.settings.seed})

    extra = Part("extra", routes=lambda app: [Route("/extra", hello)], lifespan=lambda app: Lifespan())
    settings = Settings(store_path=str(tmp_path / "s.db"))
    app = create_app(settings, Hub(settings, LIBRARY), [*BUILTIN_PARTS, extra])
    async with app.router.lifespan_context(app):
        assert events == ["start"]
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1") as http:
            assert (await http.get("/extra")).json() == {"hello": 0}
    assert events == ["start", "stop"]


# Errors ------------------------------------------------------------------------------------------


def hub_error_classes() -> list[type[errors.HubError]]:
    found: dict[type[errors.HubError], None] = {}
    todo = [errors.HubError]
    while todo:
        cls = todo.pop()
        found[cls] = None
        todo.extend(cls.__subclasses__())
    return list(found)


def test_every_error_class_has_its_own_code_and_is_drawn_in_the_tree() -> None:
    classes = [c for c in hub_error_classes() if c.__module__ == "hub.errors"]
    codes = [c.code for c in classes if c not in (errors.ProtocolError,)]
    assert len(codes) == len(set(codes))
    doc = errors.__doc__ or ""
    for cls in classes:
        assert re.search(rf"\b{cls.__name__}\b", doc), f"{cls.__name__} is missing from the tree in hub/errors.py"
        assert 400 <= cls.status <= 599


def documented_ws_codes() -> set[str]:
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text.split("### Errors", 1)[1].split("###", 1)[0]
    return set(re.findall(r"`([a-z_]+)`", section.split("one of:", 1)[1]))


def raised_ws_codes() -> set[str]:
    """Every code a ``/ws`` error reply can carry: literal codes raised in the hub, and the class codes."""
    literal = set()
    for path in (HUB / "transports" / "ws.py", HUB / "engine" / "episodes.py", HUB / "engine" / "users.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            where = {"ProtocolError": 0, "EpisodeError": 1}.get(node.func.id)
            if where is not None and len(node.args) > where:
                code = node.args[where]
                if isinstance(code, ast.Constant) and isinstance(code.value, str):
                    literal.add(code.value)
    classes = {
        errors.TaskError.code,
        errors.UnknownTask.code,
        errors.SessionError.code,
        errors.StoreError.code,
        errors.HubError.code,
    }
    return literal | classes


def test_ws_error_codes_are_the_documented_ones() -> None:
    assert raised_ws_codes() == documented_ws_codes()


def documented_http_codes() -> dict[str, int]:
    section = (ROOT / "docs" / "protocol.md").read_text().split("## HTTP errors", 1)[1]
    return {code: int(status) for code, status in re.findall(r"^\| `([a-z_]+)` \| (\d{3}) \|", section, re.M)}


def raised_http_codes() -> dict[str, int]:
    """Every code an HTTP error reply can carry: each error class's, and the request guard's refusals."""
    codes = {
        c.code: c.status for c in hub_error_classes() if c.__module__ == "hub.errors" and c is not errors.ProtocolError
    }
    guard = set(re.findall(r'Refusal\(\s*"([a-z_]+)"', (HUB / "transports" / "guard.py").read_text()))
    return codes | dict.fromkeys(guard, 403)


def test_http_error_codes_and_statuses_are_the_documented_ones() -> None:
    assert raised_http_codes() == documented_http_codes()


async def test_the_api_maps_only_hub_errors_and_answers_500_for_bugs(caplog: pytest.LogCaptureFixture) -> None:
    async def bug(request: Request) -> JSONResponse:
        return JSONResponse({}[request.query_params["key"]])

    async def value_bug(request: Request) -> JSONResponse:
        raise ValueError("an internal detail")

    async def missing(request: Request) -> JSONResponse:
        raise errors.SessionError("unknown or closed session 'x'")

    app = Starlette(
        routes=[
            Route("/bug", handle_errors(bug)),
            Route("/value", handle_errors(value_bug)),
            Route("/missing", handle_errors(missing)),
        ]
    )
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1") as http:
        with caplog.at_level(logging.ERROR, logger="hub.transports.api"):
            r = await http.get("/bug", params={"key": "k"})
        assert r.status_code == 500 and r.json() == {"error": "internal error", "code": "internal"}
        assert caplog.records and caplog.records[0].exc_info is not None
        r = await http.get("/value")
        assert r.status_code == 500 and "internal detail" not in r.text
        r = await http.get("/missing")
        assert r.status_code == 404 and r.json() == {"error": "unknown or closed session 'x'", "code": "session"}


def test_one_mapping_per_transport() -> None:
    exc = errors.EpisodeError("episode cap reached", "capacity")
    assert errors.http_reply(exc).status_code == 429
    assert errors.ws_reply(exc, 7) == {"type": "error", "id": 7, "code": "capacity", "message": "episode cap reached"}
    assert errors.ws_reply(errors.ProtocolError("bad_message", "no", rid=3))["id"] == 3
    result = errors.mcp_result("No account 'x'")
    assert result.is_error and result.content[0].text == "Error: No account 'x'"  # type: ignore[union-attr]


# Events and worlds --------------------------------------------------------------------------------


def tool_event(ok: bool = True) -> ToolCallEvent:
    return ToolCallEvent(
        session="s",
        server="banking",
        tool="get_account",
        arguments={},
        ok=ok,
        result=None,
        error=None,
        error_kind=None,
        latency_ms=0.1,
        state_changed=False,
        ts=1.0,
    )


def test_sinks_register_through_the_bus_api() -> None:
    bus = EventBus()
    seen: list[str] = []

    class Counter:
        def offer(self, event: object) -> None:
            seen.append(event.type)  # type: ignore[attr-defined]

    sink = Counter()
    bus.attach(sink, ["episode"])
    sub = bus.subscribe(["tool_call"], maxsize=1)
    bus.publish(tool_event())
    bus.publish(tool_event(False))
    assert seen == [] and sub.queue.qsize() == 1 and sub.dropped == 1 and sub.offered == 2
    assert bus.subscribers == (sink, sub)
    bus.detach(sink)
    bus.unsubscribe(sub)
    assert bus.subscribers == ()
    with pytest.raises(ValueError, match="unknown event kinds"):
        bus.attach(sink, ["tool_calls"])
    kinds_of_union = {cls.__dataclass_fields__["type"].default for cls in get_args(Event)}
    assert kinds_of_union == set(EVENT_KINDS), "every event class has its kind, and every kind its class"


def test_world_replay_is_the_one_replay_and_stays_private() -> None:
    tasks = list(TaskSet.load(BUILTIN_TASKS, LIBRARY))[:5]
    world = World(LIBRARY)
    for task in tasks:
        done = World(LIBRARY).replay(task)
        assert (done.state_hash, done.server_hashes) == replay(task, LIBRARY)
        assert done.state_hash == task.expected_state_hash
    world.replay(tasks[0])
    assert world.bus.subscribers == ()
