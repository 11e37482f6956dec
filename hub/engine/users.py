"""Simulated users: a task's user played by an OpenAI-compatible model, in place of its scripted turns.

A task with a ``user`` (``SimulatedUser``: the user model's system prompt, its stop words, the agent's greeting,
the user's own tools) is played by the hub's user model when the hub has one (``--user-endpoint URL
--user-model NAME``, ``HUB_USER_ENDPOINT``); otherwise its scripted turns play the user. As in tau2's user
simulator, the user model sees the dialogue from its side, roles flipped: the agent's text messages are its
"user" messages, its own replies its "assistant" messages; the agent's tool calls are not shown to it. It may
call its own tools (tau2's telecom phone): they run in the episode's session like the agent's, their results
go back to the user model only, and it is asked again until it says something. A message holding a stop word
ends the episode (``completed``); more user messages than the spec's ``max_turns`` end it (``user_turn_cap``).
A user endpoint that fails is an ``EpisodeError`` (``user_model``), never a made-up user message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from hub.errors import EpisodeError
from hub.kit.names import split_name

if TYPE_CHECKING:
    from hub.engine.episodes import Episode, EpisodeEngine, StepResult

MAX_USER_CALLS = 10  # tool calls the user model may make before it must say something


@dataclass
class UserView:
    """The dialogue as the user model sees it (OpenAI chat messages, roles flipped)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    said: int = 0  # user messages so far


class UserModel:
    """An OpenAI-compatible chat endpoint playing the user."""

    def __init__(
        self, endpoint: str, model: str, api_key: str | None = None, temperature: float = 0.0, timeout: float = 120.0
    ) -> None:
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.model = model
        self.temperature = temperature
        self.headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = httpx.AsyncClient(timeout=timeout)

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if tools:
            body["tools"] = tools
        try:
            response = await self.http.post(self.url, json=body, headers=self.headers)
        except httpx.HTTPError as exc:
            raise EpisodeError(f"the user model at {self.url} failed: {exc}", "user_model") from None
        if response.status_code != 200:
            raise EpisodeError(
                f"the user model at {self.url} answered {response.status_code}: {response.text[:300]}", "user_model"
            )
        try:
            return dict(response.json()["choices"][0]["message"])
        except (ValueError, KeyError, IndexError, TypeError):
            raise EpisodeError(f"the user model at {self.url} sent no chat message", "user_model") from None

    async def aclose(self) -> None:
        await self.http.aclose()


def user_tools(engine: EpisodeEngine, ep: Episode) -> list[dict[str, Any]]:
    """The user's own tools as function schemas under their bare names (as tau2's user simulator sees them)."""
    out = []
    for name in ep.task.user.tools if ep.task.user else []:
        server, bare = split_name(name) or ("", name)
        tool = engine.library.tool(server, bare)
        out.append(
            {
                "type": "function",
                "function": {"name": bare, "description": tool.description, "parameters": tool.input_schema},
            }
        )
    return out


async def user_turn(engine: EpisodeEngine, ep: Episode, agent_said: str) -> str | None:
    """The user's next message after the agent said ``agent_said``; None when it ends the dialogue."""
    spec = ep.task.user
    model = engine.user_model
    if spec is None or model is None:
        raise EpisodeError(f"episode {ep.id} has no simulated user", "bad_message")
    view = ep.user_view
    view.messages.append({"role": "user", "content": agent_said})
    tools = user_tools(engine, ep)
    by_bare = {(split_name(n) or ("", n))[1]: n for n in spec.tools}
    for _ in range(MAX_USER_CALLS + 1):
        message = await model.complete([{"role": "system", "content": spec.instructions}, *view.messages], tools)
        calls = message.get("tool_calls") or []
        text = message.get("content") or ""
        view.messages.append({"role": "assistant", "content": text or None, **({"tool_calls": calls} if calls else {})})
        if not calls:
            view.said += 1
            if any(word in text for word in spec.stop):
                return None
            return text
        for call in calls:
            view.messages.append(_run_user_call(engine, ep, call, by_bare))
    raise EpisodeError(f"the user model made more than {MAX_USER_CALLS} tool calls without a word", "user_model")


def _run_user_call(engine: EpisodeEngine, ep: Episode, call: dict[str, Any], by_bare: dict[str, str]) -> dict[str, Any]:
    from hub.engine.reward import CallRecord

    fn = call.get("function") or {}
    name = by_bare.get(str(fn.get("name")))
    try:
        arguments = json.loads(fn.get("arguments") or "{}")
    except json.JSONDecodeError:
        arguments = None
    if name is None or not isinstance(arguments, dict):
        text = f"Error: no such tool {fn.get('name')!r}" if name is None else "Error: arguments are not a JSON object"
        return {"role": "tool", "tool_call_id": call.get("id", ""), "content": text}
    server, tool = split_name(name)  # type: ignore[misc]
    out = engine.dispatcher.call(ep.session_id, server, tool, arguments, episode=ep.id, create_session=False)
    ep.user_calls.append(CallRecord(name, arguments, ep.turn, out.ok, out.error_kind, out.text(), ep.steps))
    return {"role": "tool", "tool_call_id": call.get("id", ""), "content": out.text()}


async def open_with_user(engine: EpisodeEngine, eps: list[Episode]) -> list[Episode]:
    """A freshly opened group whose user a model plays: its first message (one for the whole group, so the group
    starts from one dialogue as from one state) answers the agent's greeting. Other groups are left as they are."""
    spec = eps[0].task.user
    if spec is None or not engine.simulated(eps[0].task):
        return eps
    first = await user_turn(engine, eps[0], spec.greeting or "Hi! How can I help you today?")
    for ep in eps:
        if ep is not eps[0]:
            ep.user_view = UserView([dict(m) for m in eps[0].user_view.messages], eps[0].user_view.said)
        if spec.greeting:
            ep.messages.append({"role": "assistant", "content": spec.greeting})
            engine._turn(ep, "assistant", spec.greeting)
        if first is None:  # the user ended the dialogue before it began
            ep.done, ep.reason = True, "completed"
            continue
        ep.messages.append({"role": "user", "content": first})
        engine._turn(ep, "user", first)
    return eps


async def answer_as_user(engine: EpisodeEngine, result: StepResult) -> StepResult:
    """After a step: when the model answered and a model plays the user, the user's reply (or the end)."""
    ep = engine.get(result.episode)
    if not ep.awaiting_user:
        return result
    ep.awaiting_user = False
    said = await user_turn(engine, ep, ep.replies[-1][1] if ep.replies else "")
    spec = ep.task.user
    if said is None:
        ep.done, ep.reason = True, "completed"
    elif spec is not None and ep.user_view.said > spec.max_turns:
        ep.done, ep.reason = True, "user_turn_cap"
    else:
        result.messages.append({"role": "user", "content": said})
        engine._turn(ep, "user", said)
    result.done, result.reason = ep.done, ep.reason
    return result
