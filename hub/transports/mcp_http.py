"""MCP over streamable HTTP: one endpoint per server, one for all tools, session-pinned URLs.

``/mcp/{server}`` serves one server's tools; ``/mcp`` serves every tool as
``{server}__{tool}``; ``/sessions/{sid}/mcp[/{server}]`` pins any client to a hub
session by URL alone. The hub session of a call comes from, in order: the URL,
``_meta["hub/session"]``, the ``X-Hub-Session`` header, the legacy
``Mcp-Session-Id``; a caller with no hint at all works in the shared ``default``
session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute, Route
from starlette.types import Receive, Scope, Send

from hub import ids
from hub.engine.dispatcher import Dispatcher
from hub.errors import HubError, UnknownServer, http_reply, mcp_result
from hub.kit import Tool
from hub.kit.names import split_name, tool_name
from hub.mount.spec import session_from_meta
from hub.parts import Part
from hub.state.library import Library
from hub.state.memory import prepare_call
from hub.state.sessions import DEFAULT_SESSION
from hub.text import storable
from hub.transports.mcp_hub_tools import HUB_TOOLS, McpHubExtras

META_KEY = "hub/session"
ALL = "*"


def mcp_tool(tool: Tool, name: str) -> types.Tool:
    return types.Tool(
        name=name,
        description=tool.description,
        input_schema=tool.input_schema,
        annotations=types.ToolAnnotations(read_only_hint=tool.kind == "read", destructive_hint=False),
    )


def resolve_session(ctx: ServerRequestContext[Any, Any]) -> str:
    request = ctx.request
    if isinstance(request, Request):
        pinned = request.path_params.get("sid")
        if pinned:
            return str(pinned)
    pinned_meta = dict(ctx.meta or {}).get(META_KEY)
    if pinned_meta is not None:  # named but malformed (a number, a list): refused, never the default session
        return ids.session_id(pinned_meta, f'session id in _meta["{META_KEY}"]')
    if isinstance(request, Request):
        header = request.headers.get("x-hub-session") or request.headers.get("mcp-session-id")
        if header:
            return header
    return DEFAULT_SESSION


class McpEndpoints:
    """A low-level MCP ``Server`` per endpoint, all calling through the one dispatcher."""

    def __init__(
        self,
        library: Library,
        dispatcher: Dispatcher,
        *,
        loopback: bool,
        max_body_bytes: int,
        extras: McpHubExtras | None = None,
    ) -> None:
        self.library = library
        self.dispatcher = dispatcher
        self.extras = extras  # session handles, prompts and resources (hub.transports.mcp_hub_tools)
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=loopback,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
        )
        self.managers: dict[str, StreamableHTTPSessionManager] = {}
        self.apps: dict[str, StreamableHTTPASGIApp] = {}
        for key in (ALL, *library.mounts):
            manager = StreamableHTTPSessionManager(
                app=self._server(key),
                json_response=True,
                security_settings=security,
                max_request_body_size=max_body_bytes,
            )
            self.managers[key] = manager
            self.apps[key] = StreamableHTTPASGIApp(manager)

    def _tools(self, key: str) -> list[types.Tool]:
        if key == ALL:
            return [mcp_tool(t, tool_name(t.server, t.name)) for t in self.library.all_tools()]
        return [mcp_tool(t, t.name) for t in self.library.mount(key).tools.values()]

    def _server(self, key: str) -> Server[Any]:
        tools = self._tools(key) + (HUB_TOOLS if self.extras and key == ALL else [])
        listing = types.ListToolsResult(tools=tools)
        schemas = {t.name: t.input_schema for t in tools}

        async def list_tools(
            ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            return listing

        async def call_tool(
            ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            handled = await self.extras.call(params.name, params.arguments) if self.extras and key == ALL else None
            if handled is not None:
                return handled
            server, tool = (split_name(params.name) or ("", params.name)) if key == ALL else (key, params.name)
            try:
                sid = ids.session_id(resolve_session(ctx))
                session_from_meta(self.dispatcher.sessions, sid, dict(ctx.meta or {}))
            except HubError as exc:  # a bad session id, or a scenario the session cannot start from
                return mcp_result(exc.message)
            await prepare_call(self.dispatcher.sessions, sid, server)
            outcome = self.dispatcher.call(sid, server, tool, storable(params.arguments))
            if not outcome.ok:
                return mcp_result(outcome.error or "the call failed")
            structured = outcome.result if isinstance(outcome.result, dict) else None
            return types.CallToolResult(content=[types.TextContent(text=outcome.text())], structured_content=structured)

        name = "prove-hub" if key == ALL else f"prove-hub/{key}"
        return Server(
            name,
            version="0.1.0",
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            get_tool_input_schema=schemas.get,
            instructions=None if key == ALL else self.library.mount(key).description,
            **(self.extras.handlers(key, ALL) if self.extras else {}),
        )

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for manager in self.managers.values():
                await stack.enter_async_context(manager.run())
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = scope.get("path_params", {}).get("server", ALL)
        app = self.apps.get(key)
        if app is None:
            response = http_reply(UnknownServer(f"unknown server {key!r}"), servers=list(self.library.mounts))
            await response(scope, receive, send)
            return
        await app(scope, receive, send)


PATHS = ("/mcp", "/mcp/{server}", "/sessions/{sid}/mcp", "/sessions/{sid}/mcp/{server}")


def _install(app: Starlette) -> None:
    hub, settings = app.state.hub, app.state.settings
    app.state.mcp = McpEndpoints(
        hub.library,
        hub.dispatcher,
        loopback=settings.loopback,
        max_body_bytes=settings.max_body_bytes,
        extras=McpHubExtras(hub, resolve_session),
    )


def _routes(app: Starlette) -> list[BaseRoute]:
    return [Route(path, app.state.mcp, methods=["GET", "POST", "DELETE"]) for path in PATHS]


def _lifespan(app: Starlette) -> AbstractAsyncContextManager[None]:
    endpoints: McpEndpoints = app.state.mcp
    return endpoints.running()


part = Part("mcp", install=_install, routes=_routes, lifespan=_lifespan)
