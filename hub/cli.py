"""``prove-hub``: serve the hub, print the catalog, make one call, and the commands the parts add."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from hub.app import create_app, default_parts
from hub.config import Settings
from hub.core import build_library
from hub.engine.store import check_path
from hub.engine.world import World
from hub.errors import HubError, StoreError
from hub.parts import Part, add_commands
from hub.shard_workers import Supervisor, exit_with_parent, workers_from
from hub.shards import Front
from hub.tasks.default import DEFAULT_TASKS
from hub.transports import gate
from hub.transports.session_client import add_scenario_options, parse_server_values


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            seed=args.seed,
            token=args.token,
            store_path=args.store,
            tasks_path=args.tasks,
            max_state_bytes=args.max_state_bytes,
            seed_cache=args.seed_cache,
            reward=args.reward,
            judge_endpoint=args.judge_endpoint,
            judge_model=args.judge_model,
            user_endpoint=args.user_endpoint,
            user_model=args.user_model,
            user_api_key=args.user_api_key,
            **server_choice(args),
        )
        settings.check()
        check_path(settings.store_path)
    except (ValueError, StoreError) as exc:
        print(f"prove-hub: {exc}", file=sys.stderr)
        return 2
    if settings.tasks_path is None:  # the shipped default set: the hand-written tasks and enough to train on
        settings = settings.model_copy(update={"tasks_path": str(DEFAULT_TASKS)})
    gate.raise_fd_limit()
    exit_with_parent()  # a worker of a sharded hub ends with its front
    try:
        workers = workers_from(args.workers or "1")
    except ValueError as exc:
        print(f"prove-hub: {exc}", file=sys.stderr)
        return 2
    if args.ray is not None:
        from hub.ray_hosting import RaySupervisor, connect

        connect(args.ray or None)  # before uvicorn takes SIGTERM/SIGINT: Ray's start-up installs handlers of its own
        quiet = _quieter(args.log_level)
        return serve_sharded(settings, RaySupervisor(settings, workers, args.ray or None, quiet), args.log_level)
    if workers > 1:
        return serve_sharded(settings, Supervisor(settings, workers, _quieter(args.log_level)), args.log_level)
    app = create_app(settings)
    hub = app.state.hub
    parts = ", ".join(p.name for p in app.state.parts)
    print(
        f"PROVE hub: {len(hub.library.mounts)} servers, {len(hub.library.all_tools())} tools on "
        f"http://{settings.host}:{settings.port} (MCP at /mcp and /mcp/<server>, rollouts at /ws, dashboard at /; "
        f"parts: {parts})",
        flush=True,
    )
    hub_server = gate.server(app, settings, host=settings.host, port=settings.port, log_level=args.log_level)
    try:
        hub_server.run()
    except SystemExit as exc:  # uvicorn's own exit when its start-up fails (it has logged why)
        return exc.code if isinstance(exc.code, int) else 3
    return 0 if hub_server.started else 3


def _quieter(log_level: str) -> str:
    return "warning" if log_level == "info" else log_level  # the front logs requests; its workers need not


def serve_sharded(settings: Settings, supervisor: Supervisor, log_level: str) -> int:
    """``serve --workers N`` / ``--ray``: N worker hubs (processes or Ray actors) behind one front on the URL."""
    front = Front(supervisor)
    where = "Ray actors" if supervisor.about() else "worker processes"
    print(
        f"PROVE hub: {len(supervisor.shards)} shards ({where}) behind http://{settings.host}:{settings.port} "
        "(MCP at /mcp, rollouts at /ws, dashboard at /)",
        flush=True,
    )
    hub_server = gate.server(front.app(), settings, host=settings.host, port=settings.port, log_level=log_level)
    try:
        hub_server.run()
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 3
    return 0 if hub_server.started else 3


def server_choice(args: argparse.Namespace) -> dict[str, Any]:
    """The settings that pick the served servers: --mount, --no-builtin, --only."""
    return {"mounts": args.mount or None, "builtin": False if args.no_builtin else None, "only": args.only or None}


def catalog_json(mounts: Sequence[str] | None = None, **choice: Any) -> dict[str, Any]:
    return build_library(mounts, **choice).catalog()


def cmd_catalog(args: argparse.Namespace) -> int:
    data = catalog_json(**server_choice(args))
    if args.json:
        print(json.dumps(data, indent=1))
        return 0
    for server in data["servers"]:
        if args.server and server["name"] != args.server:
            continue
        print(f"{server['name']} ({len(server['tools'])} tools): {server['description']}")
        for tool in server["tools"]:
            first_line = tool["description"].splitlines()[0]
            print(f"  [{tool['kind']:5}] {tool['name']}: {first_line}")
    print(f"{data['server_count']} servers, {data['tool_count']} tools")
    return 0


def cmd_call(args: argparse.Namespace) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as exc:
        print(f"prove-hub: ARGUMENTS is not valid JSON: {exc}", file=sys.stderr)
        return 2
    world = World(build_library(**server_choice(args)), seed=args.seed)
    world.sessions.open(
        "scratch",
        configs=_by_server(args.config, "--config"),
        loader_kwargs=_by_server(args.loader_kwargs, "--loader-kwargs"),
    )
    out = world.dispatcher.call("scratch", args.server, args.tool, arguments)
    if out.ok:
        print(json.dumps(out.result, indent=1, default=str))
        if out.state_changed:
            diff = world.sessions.get("scratch").fork_of(args.server).diff()
            print("state diff:", json.dumps(diff, indent=1, default=str))
        return 0
    print(f"error ({out.error_kind}): {out.error}", file=sys.stderr)
    return 1


def _by_server(items: Sequence[str] | None, flag: str) -> dict[str, Any]:
    return parse_server_values(items or [], flag)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "serve": cmd_serve,
    "catalog": cmd_catalog,
    "call": cmd_call,
}


def parser(parts: Sequence[Part] | None = None) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="prove-hub", description="PROVE hub: live stateful MCP tool environments for RL.")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the hub (MCP, WebSocket rollouts, dashboard)")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1; others need a token)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8765)")
    serve.add_argument("--seed", type=int, default=None, help="seed of the servers' initial data (default 0)")
    serve.add_argument("--token", default=None, help="bearer token (HUB_TOKEN); required off loopback")
    serve.add_argument("--store", default=None, help="SQLite file of the episode store (default prove_hub.db)")
    serve.add_argument(
        "--tasks",
        default=None,
        help="JSONL task set to serve, e.g. a synthesized train.jsonl (default: hub/data/default_tasks.jsonl, the "
        "hand-written tasks and a synthesized set to train on, with split stamps)",
    )
    serve.add_argument(
        "--max-state-bytes",
        default=None,
        help="bytes all session forks may hold, e.g. 8G or none (HUB_MAX_STATE_BYTES; default 4G)",
    )
    serve.add_argument(
        "--seed-cache",
        type=int,
        default=None,
        help="seed worlds kept per server, least recently used out (HUB_SEED_CACHE; default 8)",
    )
    serve.add_argument(
        "--reward",
        choices=("outcome", "paper"),
        default=None,
        help="reward preset when finish names none (HUB_REWARD; default outcome; paper: the paper's formula)",
    )
    serve.add_argument(
        "--judge-endpoint",
        default=None,
        metavar="URL",
        help="OpenAI-compatible base URL of a model that decides R_ask (HUB_JUDGE_ENDPOINT; the rules decide without; "
        "its key from HUB_JUDGE_API_KEY)",
    )
    serve.add_argument("--judge-model", default=None, help="the judge endpoint's model name (HUB_JUDGE_MODEL)")
    serve.add_argument("--user-endpoint", default=None, help="OpenAI-compatible URL of a model that plays users")
    serve.add_argument("--user-model", default=None, help="the user model's name (HUB_USER_MODEL)")
    serve.add_argument("--user-api-key", default=None, help="the user endpoint's API key (HUB_USER_API_KEY)")
    serve.add_argument(
        "--workers",
        default=None,
        metavar="N|auto",
        help="worker processes, each a full hub, behind one front on the URL (default 1: one process; auto: one "
        "per core); see docs/scale.md",
    )
    serve.add_argument(
        "--ray",
        default=None,
        metavar="ADDRESS",
        help="place the --workers shards as Ray actors across the cluster at ADDRESS ('auto': the local cluster; "
        "'': start one); needs ray (the .[train] extras) and, past one node, --token; see docs/scale.md",
    )
    serve.add_argument("--log-level", default="info")
    for cmd in (
        serve,
        sub.add_parser("catalog", help="list servers and tools"),
        sub.add_parser("call", help="one tool call in a scratch session"),
    ):
        cmd.add_argument(
            "--mount",
            action="append",
            metavar="MODULE:CLASS[=NAME]",
            help="mount a Python class as a server (repeatable); see docs/byo.md",
        )
        cmd.add_argument("--no-builtin", action="store_true", help="serve only the mounted servers")
        cmd.add_argument("--only", nargs="+", metavar="NAME", help="serve only these servers (built-in or mounted)")
    catalog = sub.choices["catalog"]
    catalog.add_argument("--json", action="store_true", help="print the catalog as JSON")
    catalog.add_argument("--server", help="only this server")
    call = sub.choices["call"]
    call.add_argument("server")
    call.add_argument("tool")
    call.add_argument("arguments", nargs="?", default="{}", help="JSON object of arguments")
    call.add_argument("--seed", type=int, default=0)
    add_scenario_options(call)
    add_commands(default_parts() if parts is None else parts, sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    handler = getattr(args, "handler", None) or COMMANDS[args.command]
    try:
        return handler(args)  # type: ignore[no-any-return]
    except (HubError, ValueError, ImportError) as exc:
        print(f"prove-hub: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
