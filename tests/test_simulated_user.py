"""A task's user played by a model: a real local HTTP server speaking the OpenAI chat API plays it, through /ws."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.app import create_app
from hub.config import Settings
from hub.testing import serve
from tests.conftest import ALL_PARTS
from trainer_client.hub_client import HubClient

GREETING = "Hi! How can I help you today?"
TASK: dict[str, Any] = {
    "id": "bank-sim-1",
    "servers": ["bank"],
    "tools": ["bank__transfer", "bank__balance"],
    "initial": {"configs": {"bank": {"accounts": {"alice": 100, "bob": 5}}}},
    "turns": [
        {
            "user": "Move 10 from alice to bob.",
            "calls": [
                {
                    "id": "a",
                    "server": "bank",
                    "tool": "transfer",
                    "arguments": {"source": "alice", "target": "bob", "amount": 10},
                }
            ],
        }
    ],
    "user": {
        "instructions": "You are Alice. Check your balance with your own tool, then ask to move 10 to bob.",
        "stop": ["###STOP###"],
        "greeting": GREETING,
        "tools": ["bank__balance"],
    },
}


def fake_user(seen: list[dict[str, Any]]) -> Starlette:
    """A user model: to the greeting it first calls its own balance tool, then asks; to "Done" it says stop."""

    async def completions(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append(body)
        last = body["messages"][-1]
        if last["role"] == "user" and last["content"] == GREETING:
            message: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "u1",
                        "type": "function",
                        "function": {"name": "balance", "arguments": json.dumps({"account": "alice"})},
                    }
                ],
            }
        elif last["role"] == "tool":
            message = {"role": "assistant", "content": f"I have {last['content']}. Please move 10 to bob."}
        elif "Done" in (last.get("content") or ""):
            message = {"role": "assistant", "content": "Great, thanks! ###STOP###"}
        else:
            message = {"role": "assistant", "content": "Could you do it now?"}
        return JSONResponse({"id": "c", "object": "chat.completion", "choices": [{"index": 0, "message": message}]})

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


def app_for(tmp_path: Path, user_url: str | None) -> Any:
    settings = Settings(
        mounts=["tests.mounted_envs:Bank"],
        builtin=False,
        store_path=str(tmp_path / "store.db"),
        user_endpoint=user_url,
        user_model="fake-user" if user_url else None,
    )
    return create_app(settings, parts=ALL_PARTS)


async def test_a_model_plays_the_user_through_ws(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    async with serve(fake_user(seen)) as user, serve(app_for(tmp_path, user.url + "/v1")) as hub:
        async with HubClient(hub.ws_url) as client:
            group = await client.open(TASK, n=2)
            # one first user message for the whole group, after the agent's greeting
            assert [m["role"] for m in group.messages] == ["system", "assistant", "user"]
            assert group.messages[-1]["content"] == "I have 100.0. Please move 10 to bob."
            assert [t["function"]["name"] for t in group.tools] == ["bank__transfer", "bank__balance"]
            ep = group.episodes[0]
            call = {"name": "bank__transfer", "arguments": {"source": "alice", "target": "bob", "amount": 10}}
            obs = await client.step(ep, f"<tool_call>{json.dumps(call)}</tool_call>")
            assert not obs["done"] and obs["messages"][0]["role"] == "tool"
            obs = await client.step(ep, "Done: 10 moved to bob.")
            assert obs["done"] and obs["reason"] == "completed"
            reward = await client.finish(ep)
            assert reward["components"]["coverage"] == 1.0
    system = seen[0]["messages"][0]
    assert system == {"role": "system", "content": TASK["user"]["instructions"]}
    assert seen[0]["tools"][0]["function"]["name"] == "balance"  # the user's own tool, by its bare name
    # roles flipped: the agent's words are the user model's "user" messages; the agent's tool calls are not shown
    last = seen[-1]["messages"]
    assert last[-1] == {"role": "user", "content": "Done: 10 moved to bob."}
    assert not any("transfer" in json.dumps(m) for m in last)
    assert len(seen) == 3  # greeting -> tool call, tool result -> first message, "Done" -> stop (group asked once)


async def test_without_a_user_endpoint_the_scripted_turns_play_the_user(tmp_path: Path) -> None:
    async with serve(app_for(tmp_path, None)) as hub, HubClient(hub.ws_url) as client:
        group = await client.open(TASK, n=1)
        assert group.messages[-1] == {"role": "user", "content": "Move 10 from alice to bob."}
        obs = await client.step(group.episodes[0], "Done.")
        assert obs["done"] and obs["reason"] == "completed"


async def test_a_failing_user_endpoint_is_an_error_not_a_made_up_message(tmp_path: Path) -> None:
    async def broken(request: Request) -> JSONResponse:
        return JSONResponse({"error": "overloaded"}, status_code=503)

    app = Starlette(routes=[Route("/v1/chat/completions", broken, methods=["POST"])])
    async with serve(app) as user, serve(app_for(tmp_path, user.url + "/v1")) as hub:
        async with HubClient(hub.ws_url) as client:
            try:
                await client.open(TASK, n=1)
            except Exception as exc:  # the hub's error reply, raised by the client
                assert "503" in str(exc) and "user model" in str(exc)
            else:
                raise AssertionError("opening with a broken user endpoint must fail")
