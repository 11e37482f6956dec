"""OpenEnv's environment spec, served by the hub: the task set, and each server, as an OpenEnv environment.

``/openenv/tasks`` is the hub's task set and ``/openenv/servers/{server}`` one server for free-form use;
each answers what ``openenv-core``'s ``create_app(Env, Action, Observation)`` serves, so OpenEnv's own
clients (``EnvClient``/``GenericEnvClient``, and through them TRL, SkyRL, Unsloth) drive it unchanged:

- ``WS /ws``: one OpenEnv session per connection, messages ``reset`` / ``step`` / ``state`` / ``close``
  (``{"type": ..., "data": {...}}``), replies ``observation`` / ``state`` / ``error`` as the spec's
  ``WSObservationResponse`` and ``WSErrorResponse``; the session holds one hub episode at a time;
- ``POST /reset``, ``POST /step``, ``GET /state``: OpenEnv's HTTP calls are stateless, one environment per
  request; here a ``reset`` that names an ``episode_id`` keeps its episode for later ``step`` and
  ``state`` calls that name it (until it is done and read, or its session idles out);
- ``GET /schema``, ``GET /metadata``, ``GET /health``.

A task episode is a hub episode (``hub.engine.episodes``): ``reset`` takes a ``task`` id, or a ``seed``
that picks one (``kind`` and ``split`` narrow the choice), and the observation carries the system prompt
and first user turn (``messages``) and the offered tools (OpenAI function schemas). ``step`` takes the
model's raw ``text``, an OpenAI assistant ``message``, or ``tool_calls`` (name and arguments); the
observation carries what to append to the chat. ``done`` comes with the reward's ``total`` as
``reward`` and the whole breakdown; ``finish`` ends an episode early (and scores it). ``step_reward`` on
``reset`` makes every step carry the reward so far. This module speaks the spec itself rather than
mounting ``openenv-core``'s FastAPI app, so the hub needs neither FastAPI nor openenv-core's Gradio
and FastMCP; the tests drive it with openenv-core's own client and validate every reply with its models.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from hub import ids
from hub.core import Hub
from hub.engine.episodes import Episode, function_schema
from hub.engine.parsing import parse_model_output
from hub.errors import BadRequest, CapacityError, EpisodeError, HubError, http_reply, internal_http_reply
from hub.kit.names import split_name, tool_name
from hub.parts import Part
from hub.state.memory import ensure_seeds
from hub.tasks import Task
from hub.text import storable
from hub.transports.body import json_object
from hub.wire import EpisodeLimits

log = logging.getLogger("hub.transports.openenv")
VERSION = "1.0.0"
MAX_HTTP_EPISODES = 10_000


# The spec's models, as this hub fills them ------------------------------------------------------


class ToolCallIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the tool's name, e.g. banking__get_account (a server's own env: get_account)")
    arguments: dict[str, Any] | str = Field(default_factory=dict, description="an object, or its JSON text")
    id: str | None = None


class HubAction(BaseModel):
    """One model message: exactly one of ``text``, ``message``, ``tool_calls`` or ``finish``."""

    model_config = ConfigDict(extra="forbid")

    metadata: dict[str, Any] = Field(default_factory=dict)
    text: str | None = Field(None, description="the model's raw output (Hermes <tool_call> blocks, or an answer)")
    message: dict[str, Any] | None = Field(None, description="an OpenAI assistant message")
    tool_calls: list[ToolCallIn] | None = Field(None, description="structured calls, run in order")
    content: str | None = Field(None, description="the assistant's text beside tool_calls")
    finish: bool = Field(False, description="end the episode now and score it")

    def output(self) -> str | dict[str, Any] | None:
        """The message as the episode engine reads it; None for ``finish``."""
        given = [self.text is not None, self.message is not None, self.tool_calls is not None, self.finish]
        if sum(given) != 1:
            raise BadRequest("an action carries exactly one of text, message, tool_calls or finish")
        if self.text is not None:
            return self.text
        if self.message is not None:
            return self.message
        if self.tool_calls is None:
            return None
        return {
            "role": "assistant",
            "content": self.content,
            "tool_calls": [
                {
                    "id": c.id or f"call_{i}",
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": c.arguments if isinstance(c.arguments, str) else json.dumps(c.arguments),
                    },
                }
                for i, c in enumerate(self.tool_calls)
            ],
        }


class HubObservation(BaseModel):
    """What the model sees after a reset or a step, and the episode's standing."""

    model_config = ConfigDict(extra="forbid")

    done: bool = False
    reward: float | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    episode: str | None = Field(None, description="the hub episode (or, for a server's env, session) id")
    task: str | None = None
    kind: str | None = None
    messages: list[dict[str, Any]] = Field(default_factory=list, description="what to append to the chat")
    tools: list[dict[str, Any]] = Field(default_factory=list, description="the offered tools (on reset)")
    calls: list[dict[str, Any]] = Field(default_factory=list, description="per call: name, ok, error_kind")
    format_errors: list[str] = Field(default_factory=list)
    turn: int = 0
    step: int = 0
    reason: str | None = None
    state_hash: str | None = None
    reward_breakdown: dict[str, Any] | None = Field(None, description="every reward component (when scored)")


class HubState(BaseModel):
    model_config = ConfigDict(extra="allow")

    episode_id: str | None = None
    step_count: int = 0


class TaskReset(BaseModel):
    """``reset``'s data for the task set (OpenEnv's ``seed`` and ``episode_id`` plus the hub's options)."""

    model_config = ConfigDict(extra="forbid")

    seed: int | None = Field(None, ge=0, le=ids.MAX_SEED)
    episode_id: str | None = Field(None, max_length=255)
    task: str | None = None
    kind: Literal["mcp", "clarify", "abstain"] | None = None
    split: Literal["train", "test"] | None = None
    step_reward: bool = False
    limits: EpisodeLimits | None = None
    run: str | None = Field(None, min_length=1, max_length=100)
    step: int | None = Field(None, ge=0)


class ServerReset(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int | None = Field(None, ge=ids.MIN_SEED, le=ids.MAX_SEED)
    episode_id: str | None = Field(None, max_length=255)


def _dump(obs: HubObservation) -> dict[str, Any]:
    """serialize_observation's shape: the observation without done/reward/metadata, beside them."""
    return {
        "observation": obs.model_dump(exclude={"done", "reward", "metadata"}),
        "reward": obs.reward,
        "done": obs.done,
    }


# Environments ------------------------------------------------------------------------------------


class TaskEnv:
    """One OpenEnv session over the task set: one hub episode at a time."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.episode: Episode | None = None
        self.label: str | None = None

    def pick(self, opts: TaskReset) -> Task:
        if opts.task is not None:
            return self.hub.episodes.resolve(opts.task)
        tasks = sorted(
            (t for t in self.hub.tasks if opts.kind in (None, t.kind) and opts.split in (None, t.split)),
            key=lambda t: t.id,
        )
        if not tasks:
            raise BadRequest("no loaded task fits that kind and split")
        index = secrets.randbelow(len(tasks)) if opts.seed is None else opts.seed % len(tasks)
        return tasks[index]

    async def reset(self, data: dict[str, Any]) -> HubObservation:
        opts = _options(TaskReset, data)
        task = self.pick(opts)
        initial = task.initial
        seed = self.hub.sessions.snapshot(initial.snapshot).seed if initial.snapshot else initial.seed
        await ensure_seeds(self.hub.library, task.servers, seed)
        self.close()
        (ep,) = self.hub.episodes.open_group(task, 1, opts.limits, run=opts.run, step=opts.step)
        ep.step_reward = opts.step_reward
        self.episode, self.label = ep, opts.episode_id
        return HubObservation(
            episode=ep.id,
            task=task.id,
            kind=task.kind,
            messages=ep.messages,
            tools=self.hub.episodes.tools_of(task),
            state_hash=ep.start_hash,
            metadata={"group": ep.group, "session": ep.session_id, "servers": task.servers},
        )

    def step(self, action: HubAction) -> HubObservation:
        ep = self.current()
        output = action.output()
        if output is None:
            return self.finished(ep, [])
        result = self.hub.episodes.step(ep.id, output)
        obs = HubObservation(
            episode=ep.id,
            task=ep.task.id,
            kind=ep.task.kind,
            messages=result.messages,
            calls=result.calls,
            format_errors=result.format_errors,
            turn=result.turn,
            step=result.step,
            reason=result.reason,
            reward=result.reward["total"] if result.reward is not None else None,
            reward_breakdown=result.reward,
        )
        return self.finished(ep, result.messages, obs) if result.done else obs

    def finished(
        self, ep: Episode, messages: list[dict[str, Any]], obs: HubObservation | None = None
    ) -> HubObservation:
        if ep.done and ep.reward is not None and obs is None:
            raise EpisodeError(f"episode {ep.id} is done ({ep.reason}); reset for a new one", "episode_done")
        breakdown = self.hub.episodes.finish(ep.id)
        final = obs or HubObservation(episode=ep.id, task=ep.task.id, kind=ep.task.kind, messages=messages)
        return final.model_copy(
            update={
                "done": True,
                "reason": ep.reason,
                "turn": ep.turn,
                "step": ep.steps,
                "reward": breakdown.total,
                "reward_breakdown": breakdown.model_dump(),
                "state_hash": self.hub.sessions.get(ep.session_id, create=False).state_hash(ep.task.servers),
            }
        )

    def current(self) -> Episode:
        if self.episode is None:
            raise EpisodeError("no episode yet: send reset first", "unknown_episode")
        return self.hub.episodes.get(self.episode.id)

    def state(self) -> dict[str, Any]:
        ep = self.episode
        if ep is None:
            return HubState().model_dump()
        return HubState(
            episode_id=self.label or ep.id,
            step_count=ep.steps,
            episode=ep.id,
            task=ep.task.id,
            session=ep.session_id,
            turn=ep.turn,
            done=ep.done,
            reason=ep.reason,
            start_hash=ep.start_hash,
            reward=ep.reward.total if ep.reward is not None else None,
        ).model_dump()

    def close(self) -> None:
        ep, self.episode = self.episode, None
        if ep is not None and ep.id in self.hub.episodes.episodes:
            self.hub.episodes.close(ep.id)


class ServerEnv:
    """One OpenEnv session over one server, free-form: a fresh session of its state; calls, no reward."""

    def __init__(self, hub: Hub, server: str) -> None:
        self.hub = hub
        self.server = server
        self.session: str | None = None
        self.label: str | None = None
        self.steps = 0
        self.done = False

    def tools(self) -> list[dict[str, Any]]:
        schemas = [function_schema(self.hub.library, tool_name(self.server, t)) for t in self.mount_tools()]
        for s in schemas:
            s["function"]["name"] = split_name(s["function"]["name"])[1]  # type: ignore[index]
        return schemas

    def mount_tools(self) -> list[str]:
        return list(self.hub.library.mount(self.server).tools)

    async def reset(self, data: dict[str, Any]) -> HubObservation:
        opts = _options(ServerReset, data)
        seed = self.hub.sessions.seed if opts.seed is None else opts.seed
        await ensure_seeds(self.hub.library, [self.server], seed)
        self.close()
        session = self.hub.sessions.open("oe-" + secrets.token_hex(8), seed=seed)
        self.session, self.label, self.steps, self.done = session.id, opts.episode_id, 0, False
        return HubObservation(
            episode=session.id,
            tools=self.tools(),
            state_hash=session.state_hash([self.server]),
            messages=[{"role": "system", "content": self.hub.library.mount(self.server).description}],
        )

    def step(self, action: HubAction) -> HubObservation:
        sid = self.current()
        output = action.output()
        if output is None:
            self.done = True
            return HubObservation(episode=sid, done=True, step=self.steps, reason="finished", state_hash=self.hash())
        self.steps += 1
        parsed = parse_model_output(output, call_prefix=f"call_{self.steps}")
        messages, calls = [], []
        limit = EpisodeLimits().max_calls_per_step
        for call in parsed.calls[:limit]:
            name = call.name or ""
            server, tool = split_name(name) or (self.server, name)
            kind: str | None
            if call.error is not None or server != self.server:
                ok, kind = False, "format" if call.error else "unknown_tool"
                text = "Error: " + (call.error or f"no tool {name!r} on {self.server}")
            else:
                outcome = self.hub.dispatcher.call(sid, server, tool, call.arguments, create_session=False)
                ok, kind, text = outcome.ok, outcome.error_kind, outcome.text()
            calls.append({"name": name, "ok": ok, "error_kind": kind})
            messages.append({"role": "tool", "tool_call_id": call.id, "name": name, "content": text})
        return HubObservation(
            episode=sid,
            messages=messages,
            calls=calls,
            format_errors=parsed.format_errors,
            step=self.steps,
            state_hash=self.hash(),
        )

    def current(self) -> str:
        if self.session is None:
            raise EpisodeError("no session yet: send reset first", "unknown_episode")
        if self.done:
            raise EpisodeError("this session is finished; reset for a new one", "episode_done")
        return self.session

    def hash(self) -> str:
        assert self.session is not None
        return self.hub.sessions.get(self.session, create=False).state_hash([self.server])

    def state(self) -> dict[str, Any]:
        if self.session is None:
            return HubState().model_dump()
        return HubState(
            episode_id=self.label or self.session,
            step_count=self.steps,
            session=self.session,
            server=self.server,
            done=self.done,
            state_hash=self.hash() if self.session in self.hub.sessions.sessions else None,
        ).model_dump()

    def close(self) -> None:
        sid, self.session = self.session, None
        if sid is not None and sid in self.hub.sessions.sessions:
            self.hub.sessions.close(sid)


Env = TaskEnv | ServerEnv


def _options(model: type[BaseModel], data: dict[str, Any]) -> Any:
    try:
        return model.model_validate(storable(data))
    except ValidationError as exc:
        details = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'data'}: {e['msg']}" for e in exc.errors()[:5])
        raise BadRequest(f"invalid reset options: {details}") from None


def _action(data: Any) -> HubAction:
    if not isinstance(data, dict):
        raise BadRequest("an action is a JSON object")
    return HubAction.model_validate(storable(data))


# One environment's routes ------------------------------------------------------------------------


class OpenEnvApp:
    """The spec's routes for one environment (the task set, or one server)."""

    def __init__(self, hub: Hub, name: str, make: Callable[[], Env], description: str, max_bytes: int) -> None:
        self.hub = hub
        self.name = name
        self.make = make
        self.description = description
        self.max_bytes = max_bytes
        self.http: OrderedDict[str, Env] = OrderedDict()  # HTTP episodes kept by their episode_id
        self.active = 0

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/reset", self.reset, methods=["POST"]),
            Route("/step", self.step, methods=["POST"]),
            Route("/state", self.state, methods=["GET"]),
            Route("/schema", self.schema, methods=["GET"]),
            Route("/metadata", self.metadata, methods=["GET"]),
            Route("/health", self.health, methods=["GET"]),
            WebSocketRoute("/ws", self.ws),
        ]

    # HTTP --------------------------------------------------------------------------------------

    async def reset(self, request: Request) -> JSONResponse:
        return await _boundary(self._reset(request))

    async def _reset(self, request: Request) -> JSONResponse:
        data = await json_object(request)
        env = self.make()
        try:
            obs = await env.reset(data)
        except BaseException:
            env.close()
            raise
        label = data.get("episode_id")
        if isinstance(label, str):
            self.keep(label, env)
        else:
            env.close()  # the spec's stateless reset: the environment lives for this request only
        return JSONResponse(_dump(obs))

    async def step(self, request: Request) -> JSONResponse:
        return await _boundary(self._step(request))

    async def _step(self, request: Request) -> JSONResponse:
        data = await json_object(request)
        label = data.get("episode_id")
        env = self.http.get(label) if isinstance(label, str) else None
        if env is None:
            raise EpisodeError(
                "an HTTP step needs the episode_id given to an HTTP reset; or keep one session on /ws",
                "unknown_episode",
            )
        try:
            action = _action(data.get("action"))
        except ValidationError as exc:
            return JSONResponse({"detail": exc.errors(include_url=False, include_context=False)}, status_code=422)
        return JSONResponse(_dump(env.step(action)))

    async def state(self, request: Request) -> JSONResponse:
        label = request.query_params.get("episode_id")
        env = self.http.get(label) if label else None
        return JSONResponse(env.state() if env is not None else HubState().model_dump())

    async def schema(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "action": HubAction.model_json_schema(),
                "observation": HubObservation.model_json_schema(),
                "state": HubState.model_json_schema(),
            }
        )

    async def metadata(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "name": self.name,
                "description": self.description,
                "readme_content": None,
                "version": VERSION,
                "author": "PROVE hub",
                "documentation_url": None,
            }
        )

    async def health(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "healthy"})

    def keep(self, label: str, env: Env) -> None:
        old = self.http.pop(label, None)
        if old is not None:
            old.close()
        self.http[label] = env
        while len(self.http) > MAX_HTTP_EPISODES:
            self.http.popitem(last=False)[1].close()

    # WebSocket: one session per connection -------------------------------------------------------

    async def ws(self, websocket: WebSocket) -> None:
        await websocket.accept()
        env = self.make()
        self.active += 1
        try:
            while True:
                raw = await websocket.receive_text()
                reply = await self.handle(env, raw)
                if reply is None:
                    break
                await websocket.send_text(json.dumps(reply, default=str))
        except WebSocketDisconnect:
            pass
        finally:
            self.active -= 1
            env.close()

    async def handle(self, env: Env, raw: str) -> dict[str, Any] | None:
        """The reply to one message (None after ``close``); the session's one top-level boundary."""
        if len(raw) > self.max_bytes:
            return _ws_error("VALIDATION_ERROR", f"a message is at most {self.max_bytes:,} characters")
        try:
            message = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as exc:
            return _ws_error("INVALID_JSON", f"Invalid JSON: {exc}")
        kind = message.get("type") if isinstance(message, dict) else None
        try:
            if kind == "reset":
                return {"type": "observation", "data": _dump(await env.reset(_data(message, {})))}
            if kind == "step":
                return {"type": "observation", "data": _dump(env.step(_action(_data(message, None))))}
            if kind == "state":
                return {"type": "state", "data": env.state()}
            if kind == "close":
                return None
            return _ws_error("UNKNOWN_TYPE", f"Unknown message type: {kind}")
        except ValidationError as exc:
            return _ws_error("VALIDATION_ERROR", "Invalid message", errors=exc.errors(include_url=False))
        except CapacityError as exc:
            return _ws_error("CAPACITY_REACHED", exc.message, hub_code=exc.code)
        except HubError as exc:
            return _ws_error("EXECUTION_ERROR", exc.message, hub_code=exc.code)
        except Exception as exc:  # the session's top-level boundary: reply, log, keep the socket open
            log.exception("openenv request failed")
            return _ws_error("EXECUTION_ERROR", f"internal error: {type(exc).__name__}", hub_code="internal")


def _data(message: dict[str, Any], default: Any) -> Any:
    data = message.get("data", default)
    if data is None:
        raise BadRequest("a step message carries the action as 'data'")
    if not isinstance(data, dict):
        raise BadRequest("'data' must be a JSON object")
    return data


def _ws_error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "data": {"message": message, "code": code, **extra}}


async def _boundary(reply: Awaitable[JSONResponse]) -> JSONResponse:
    """An HTTP handler's one top-level boundary: a HubError is its JSON reply, anything else a logged 500."""
    try:
        return await reply
    except HubError as exc:
        return http_reply(exc)
    except Exception:
        log.exception("openenv request failed")
        return internal_http_reply()


# The part ------------------------------------------------------------------------------------------


class OpenEnvDoor:
    """Every environment the hub serves under ``/openenv``."""

    def __init__(self, hub: Hub, max_bytes: int) -> None:
        self.hub = hub
        self.tasks = OpenEnvApp(
            hub, "prove-hub-tasks", lambda: TaskEnv(hub), "The PROVE hub's task set: one episode per reset.", max_bytes
        )
        self.servers = {
            name: OpenEnvApp(
                hub, f"prove-hub-{name}", _server_env(hub, name), hub.library.mount(name).description, max_bytes
            )
            for name in hub.library.mounts
        }

    async def listing(self, request: Request) -> JSONResponse:
        return JSONResponse(
            {
                "environments": [
                    {
                        "name": "tasks",
                        "path": "/openenv/tasks",
                        "tasks": [{"id": t.id, "kind": t.kind, "split": t.split} for t in self.hub.tasks],
                    },
                    *({"name": s, "path": f"/openenv/servers/{s}"} for s in self.servers),
                ]
            }
        )


def _server_env(hub: Hub, name: str) -> Callable[[], Env]:
    return lambda: ServerEnv(hub, name)


def _install(app: Starlette) -> None:
    app.state.openenv = OpenEnvDoor(app.state.hub, app.state.settings.max_body_bytes)


def _routes(app: Starlette) -> list[BaseRoute]:
    door: OpenEnvDoor = app.state.openenv
    return [
        Route("/openenv", door.listing, methods=["GET"]),
        Mount("/openenv/tasks", routes=door.tasks.routes()),
        *(Mount(f"/openenv/servers/{name}", routes=env.routes()) for name, env in door.servers.items()),
    ]


part = Part("openenv", install=_install, routes=_routes)
