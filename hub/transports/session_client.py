"""Open hub sessions with per-server scenarios over the JSON API, from Python or the command line.

from hub.transports.session_client import open_session
s = open_session("http://127.0.0.1:8765", configs={"bank": {"accounts": {"zoe": 5}}},
                 loader_kwargs={"bank": {"currency": "EUR"}})
s["mcp_url"]          # http://127.0.0.1:8765/sessions/s-.../mcp : point any MCP client here

prove-hub session open --hub URL --config bank=@scenario.json --loader-kwargs bank='{"currency": "EUR"}'
prove-hub session close SID --hub URL
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx

from hub.parts import Part

DEFAULT_HUB = "http://127.0.0.1:8765"


class SessionClientError(RuntimeError):
    """The hub refused the request (its message says why) or could not be reached."""


def _headers(token: str | None) -> dict[str, str]:
    token = token or os.environ.get("HUB_TOKEN")
    return {"Authorization": f"Bearer {token}"} if token else {}


def _reply(response: httpx.Response) -> dict[str, Any]:
    try:
        data = response.json()
    except ValueError:
        data = {"error": response.text[:200]}
    if response.status_code >= 400:
        raise SessionClientError(f"hub answered {response.status_code}: {data.get('error', data)}")
    return data  # type: ignore[no-any-return]


def open_session(
    hub: str = DEFAULT_HUB,
    *,
    configs: Mapping[str, Any] | None = None,
    loader_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
    sid: str | None = None,
    seed: int | None = None,
    snapshot: str | None = None,
    token: str | None = None,
    timeout: float = 30.0,
) -> dict[str, Any]:
    """Open a session (``POST /api/sessions``); the summary plus ``mcp_url``, the session-pinned MCP endpoint."""
    body: dict[str, Any] = {
        k: v
        for k, v in {
            "id": sid,
            "seed": seed,
            "snapshot": snapshot,
            "configs": configs,
            "loader_kwargs": loader_kwargs,
        }.items()
        if v is not None
    }
    base = hub.rstrip("/")
    try:
        reply = _reply(httpx.post(f"{base}/api/sessions", json=body, headers=_headers(token), timeout=timeout))
    except httpx.HTTPError as exc:
        raise SessionClientError(f"cannot reach the hub at {hub}: {exc}") from None
    return {**reply, "mcp_url": f"{base}/sessions/{reply['id']}/mcp"}


def close_session(hub: str, sid: str, *, token: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
    try:
        return _reply(httpx.delete(f"{hub.rstrip('/')}/api/sessions/{sid}", headers=_headers(token), timeout=timeout))
    except httpx.HTTPError as exc:
        raise SessionClientError(f"cannot reach the hub at {hub}: {exc}") from None


def parse_server_values(items: Sequence[str], flag: str) -> dict[str, Any]:
    """``["bank=@scenario.json", "fs={\\"cwd\\": \\"/\\"}"]`` -> ``{"bank": ..., "fs": {"cwd": "/"}}``."""
    out: dict[str, Any] = {}
    for item in items:
        server, sep, value = item.partition("=")
        if not sep or not server:
            raise ValueError(f"{flag} takes SERVER=JSON or SERVER=@FILE, got {item!r}")
        if value.startswith("@"):
            try:
                value = Path(value[1:]).read_text()
            except OSError as exc:
                raise ValueError(f"{flag} {server}: cannot read {value[1:]}: {exc.strerror}") from None
        try:
            out[server] = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{flag} {server}: not valid JSON: {exc}") from None
    return out


def add_scenario_options(p: argparse.ArgumentParser) -> None:
    """``--config`` and ``--loader-kwargs``, repeatable ``SERVER=JSON|@FILE`` (read by ``parse_server_values``)."""
    p.add_argument(
        "--config", action="append", metavar="SERVER=JSON|@FILE", help="the scenario of a mounted server (repeatable)"
    )
    p.add_argument(
        "--loader-kwargs",
        action="append",
        metavar="SERVER=JSON|@FILE",
        help="keyword options for a mounted server's scenario loader (repeatable)",
    )


def cmd_session(args: argparse.Namespace) -> int:
    try:
        if args.action == "close":
            if not args.sid:
                raise ValueError("session close takes the session id")
            print(json.dumps(close_session(args.hub, args.sid, token=args.token)))
            return 0
        reply = open_session(
            args.hub,
            sid=args.sid,
            seed=args.seed,
            snapshot=args.snapshot,
            token=args.token,
            configs=parse_server_values(args.config or [], "--config") or None,
            loader_kwargs=parse_server_values(args.loader_kwargs or [], "--loader-kwargs") or None,
        )
    except SessionClientError as exc:
        print(f"prove-hub session: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(reply, indent=1))
    return 0


def add_parser(sub: Any) -> None:
    """Register ``session`` on ``prove-hub``'s subcommands."""
    p: argparse.ArgumentParser = sub.add_parser("session", help="open (with scenarios) or close a session on a hub")
    p.add_argument("action", choices=("open", "close"))
    p.add_argument("sid", nargs="?", default=None, help="session id (open: optional; close: required)")
    p.add_argument("--hub", default=DEFAULT_HUB, help=f"hub URL (default {DEFAULT_HUB})")
    p.add_argument("--token", default=None, help="the hub's bearer token (default: $HUB_TOKEN)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--snapshot", default=None, help="start from this snapshot id")
    add_scenario_options(p)
    p.set_defaults(handler=cmd_session)


part = Part("sessions", add_commands=add_parser)
