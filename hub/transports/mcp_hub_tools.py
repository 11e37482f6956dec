"""MCP the 2026 way: session handles from a tool pair, tasks as prompts, session state as resources.

The 2026-07-28 protocol has no protocol session: every request stands alone, and a stateful server hands
out a handle from a creation tool. The hub's MCP endpoints add:

- on ``/mcp`` (a server's own endpoint keeps listing that server's tools only): ``hub__open_session``
  (``seed``, ``fork_of``, ``task``, all optional): a fresh isolated session (a fork of another session
  for tree search, or a task's initial state) and its handle; use the handle as
  ``_meta["hub/session"]`` on later requests, or the URL ``/sessions/{handle}/mcp``;
  ``hub__close_session`` (``session``) ends it;
- prompts: one per loaded task (``/mcp/{server}``: the tasks that use that server); ``prompts/get``
  gives the task's first user turn as the prompt's message and its system prompt as the description
  (MCP prompts have no system role), with the offered tools in ``_meta["hub/tools"]``;
- resources, for the caller's session (the same resolution as a tool call): ``hub://session/{sid}/{server}``
  (the state hash, tables and diff from the seed) and ``hub://session/{sid}/{server}/{table}`` (rows,
  ``?offset=&limit=``, with the state hash); ``resources/list`` lists the endpoint's servers, and the
  tables of those the session has touched (listing never forks a server); the URI template reads any.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError

from hub import ids
from hub.core import Hub
from hub.errors import BadRequest, HubError, mcp_result
from hub.state.memory import ensure_seeds, prepare_call
from hub.tasks import Task

OPEN, CLOSE = "hub__open_session", "hub__close_session"
SCHEME = "hub://session/"
MAX_ROWS = 500
INVALID_PARAMS = -32602  # JSON-RPC's code for a request whose parameters the server refuses

ResolveSession = Callable[[ServerRequestContext[Any, Any]], str]

HUB_TOOLS = [
    types.Tool(
        name=OPEN,
        description=(
            "Open an isolated hub session and get its handle. Pass the handle as _meta['hub/session'] on later "
            "requests (or use the URL /sessions/<handle>/mcp). Optional: seed (the world's seed), fork_of (a "
            "handle to copy, for tree search), task (a task id: start from that task's initial state). "
            'Example: {"fork_of": "h-3f2a9c01d4e5b6a7"}.'
        ),
        input_schema={
            "type": "object",
            "properties": {
                "seed": {"type": "integer", "description": "the world's seed (default: the hub's)"},
                "fork_of": {"type": "string", "description": "a session handle to copy"},
                "task": {"type": "string", "description": "a task id whose initial state to start from"},
            },
            "additionalProperties": False,
        },
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False),
    ),
    types.Tool(
        name=CLOSE,
        description='End a session handed out by hub__open_session. Example: {"session": "h-3f2a9c01d4e5b6a7"}.',
        input_schema={
            "type": "object",
            "properties": {"session": {"type": "string", "description": "the handle to close"}},
            "required": ["session"],
            "additionalProperties": False,
        },
        annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True),
    ),
]


class McpHubExtras:
    """Handles, prompts and resources for the hub's MCP endpoints (``hub.transports.mcp_http``)."""

    def __init__(self, hub: Hub, resolve: ResolveSession) -> None:
        self.hub = hub
        self.resolve = resolve

    # Handles ------------------------------------------------------------------------------------

    async def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult | None:
        """The result of a hub tool, or None when ``name`` is not one."""
        if name not in (OPEN, CLOSE):
            return None
        args = arguments or {}
        try:
            data = await self.open(args) if name == OPEN else self.close(args)
        except HubError as exc:
            return mcp_result(exc.message)
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(data))], structured_content=data)

    async def open(self, args: dict[str, Any]) -> dict[str, Any]:
        unknown = set(args) - {"seed", "fork_of", "task"}
        if unknown:
            raise BadRequest(f"unknown arguments {sorted(unknown)}; {OPEN} takes seed, fork_of and task")
        if sum(args.get(k) is not None for k in ("seed", "fork_of", "task")) > 1:
            raise BadRequest("give at most one of seed, fork_of and task")
        sid = "h-" + secrets.token_hex(8)
        sessions = self.hub.sessions
        if args.get("fork_of") is not None:
            parent = ids.session_id(args["fork_of"], "fork_of")
            if sessions.get(parent, create=False).internal:
                raise BadRequest("fork_of names one of the hub's own sessions")
            session = sessions.fork(parent, sid)
        elif args.get("task") is not None:
            task = self.task(args["task"])
            seed = sessions.snapshot(task.initial.snapshot).seed if task.initial.snapshot else task.initial.seed
            await ensure_seeds(self.hub.library, task.servers, seed)
            session = sessions.fork(self.hub.episodes.template(task).id, sid)
        else:
            chosen = args.get("seed")
            if chosen is not None and (not isinstance(chosen, int) or isinstance(chosen, bool)):
                raise BadRequest(f"seed must be an integer, got {type(chosen).__name__}")
            session = sessions.open(sid, seed=chosen)
        return {
            "session": session.id,
            "seed": session.seed,
            "parent": session.parent,
            "state_hash": session.state_hash(),
            "mcp_url": f"/sessions/{session.id}/mcp",
            "meta": {"hub/session": session.id},
        }

    def close(self, args: dict[str, Any]) -> dict[str, Any]:
        if set(args) != {"session"}:
            raise BadRequest(f"{CLOSE} takes exactly one argument, session")
        sid = ids.session_id(args["session"], "session")
        self.hub.sessions.close(sid)
        return {"session": sid, "closed": True}

    def task(self, task_id: Any) -> Task:
        if not isinstance(task_id, str):
            raise BadRequest("task must be a task id (a string)")
        return self.hub.tasks.get(task_id)

    # Prompts and resources -----------------------------------------------------------------------

    def handlers(self, key: str, everything: str) -> dict[str, Any]:
        """The ``Server`` callbacks for prompts and resources of one endpoint (``everything``: ``/mcp``)."""
        servers = list(self.hub.library.mounts) if key == everything else [key]

        def tasks() -> list[Task]:
            return [t for t in self.hub.tasks if key == everything or key in t.servers]

        async def list_prompts(
            ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
        ) -> types.ListPromptsResult:
            return types.ListPromptsResult(prompts=[_prompt(t) for t in tasks()])

        async def get_prompt(
            ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
        ) -> types.GetPromptResult:
            task = next((t for t in tasks() if t.id == params.name), None)
            if task is None:
                raise MCPError(INVALID_PARAMS, f"no prompt {params.name!r}; prompts/list names the tasks")
            return self.prompt(task)

        async def list_resources(
            ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
        ) -> types.ListResourcesResult:
            try:
                sid = ids.session_id(self.resolve(ctx))
            except HubError as exc:
                raise MCPError(INVALID_PARAMS, exc.message) from None
            return types.ListResourcesResult(resources=self.resources(sid, servers))

        async def list_templates(
            ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
        ) -> types.ListResourceTemplatesResult:
            return types.ListResourceTemplatesResult(
                resource_templates=[
                    types.ResourceTemplate(
                        name="table",
                        uri_template=SCHEME + "{session}/{server}/{table}",
                        description="rows of one table of a session's server state, with its state hash",
                        mime_type="application/json",
                    ),
                    types.ResourceTemplate(
                        name="server-state",
                        uri_template=SCHEME + "{session}/{server}",
                        description="a session's server state: its hash, tables and diff from the seed",
                        mime_type="application/json",
                    ),
                ]
            )

        async def read_resource(
            ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
        ) -> types.ReadResourceResult:
            try:
                text = json.dumps(await self.read(str(params.uri)), default=str)
            except HubError as exc:
                raise MCPError(INVALID_PARAMS, exc.message) from None
            return types.ReadResourceResult(
                contents=[types.TextResourceContents(uri=params.uri, mime_type="application/json", text=text)]
            )

        callbacks: dict[str, Callable[..., Awaitable[Any]]] = {
            "on_list_prompts": list_prompts,
            "on_get_prompt": get_prompt,
            "on_list_resources": list_resources,
            "on_list_resource_templates": list_templates,
            "on_read_resource": read_resource,
        }
        return callbacks

    def prompt(self, task: Task) -> types.GetPromptResult:
        from hub.engine.episodes import DEFAULT_SYSTEM

        return types.GetPromptResult(
            description=task.system or DEFAULT_SYSTEM,
            messages=[types.PromptMessage(role="user", content=types.TextContent(text=task.turns[0].user))],
            meta={
                "hub/task": task.id,
                "hub/kind": task.kind,
                "hub/servers": task.servers,
                "hub/turns": len(task.turns),
                "hub/tools": self.hub.episodes.tools_of(task),
            },
        )

    def resources(self, sid: str, servers: list[str]) -> list[types.Resource]:
        session = self.hub.sessions.sessions.get(sid)
        found = []
        for server in servers:
            found.append(
                types.Resource(
                    name=f"{server} state",
                    uri=f"{SCHEME}{sid}/{server}",
                    description=f"session {sid}'s {server} state: hash, tables, diff from the seed",
                    mime_type="application/json",
                )
            )
            fork = session.forks.get(server) if session is not None else None
            for table in fork.tables() if fork is not None else []:
                found.append(
                    types.Resource(
                        name=f"{server}.{table}",
                        uri=f"{SCHEME}{sid}/{server}/{table}",
                        description=f"rows of {server}.{table} in session {sid}",
                        mime_type="application/json",
                    )
                )
        return found

    async def read(self, uri: str) -> dict[str, Any]:
        parts = urlsplit(uri)
        if not uri.startswith(SCHEME):
            raise BadRequest(f"unknown resource {uri!r}; the hub's are {SCHEME}<session>/<server>[/<table>]")
        path = parts.path.strip("/").split("/")
        if len(path) not in (2, 3):
            raise BadRequest(f"unknown resource {uri!r}; the hub's are {SCHEME}<session>/<server>[/<table>]")
        sid, server = ids.session_id(path[0]), path[1]
        session = self.hub.sessions.get(sid, create=False)
        self.hub.library.mount(server)
        await prepare_call(self.hub.sessions, sid, server)
        fork = session.fork_of(server)
        if len(path) == 2:
            return {"session": sid, "server": server, "state_hash": fork.state_hash(), "tables": fork.tables(),
                    "diff": fork.diff()}  # fmt: skip
        query = parse_qs(parts.query)
        offset, limit = _int(query, "offset", 0), min(_int(query, "limit", 100), MAX_ROWS)
        page = fork.browse(path[2], offset, limit)
        return {"session": sid, "server": server, "state_hash": fork.state_hash(), **page}


def _int(query: dict[str, list[str]], name: str, default: int) -> int:
    raw = query.get(name, [str(default)])[0]
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be an integer, got {raw[:40]!r}") from None
    if value < 0:
        raise BadRequest(f"{name} must not be negative")
    return value


def _prompt(task: Task) -> types.Prompt:
    return types.Prompt(
        name=task.id,
        title=f"{task.kind} task on {', '.join(task.servers)}",
        description=task.turns[0].user[:200],
        meta={"hub/kind": task.kind, "hub/servers": task.servers, "hub/split": task.split},
    )
