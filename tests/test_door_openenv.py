"""The OpenEnv door: openenv-core's own client and models against a real hub on loopback, and its error paths."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.tasks import oracle_script
from hub.testing import serve
from tests.conftest import LIBRARY
from tests.door_support import run_json, venv_python


def make_app(tmp_path: Path) -> Starlette:
    settings = Settings(store_path=str(tmp_path / "store.db"))
    return create_app(settings, Hub(settings, LIBRARY))


@pytest.mark.slow
def test_openenv_core_client_plays_tasks_and_a_server(tmp_path: Path) -> None:
    python = venv_python("openenv", "import openenv.core.generic_client")

    async def scenario() -> Any:
        async with serve(make_app(tmp_path)) as live:
            tasks = live.app.state.hub.tasks
            scripts = {t: oracle_script(tasks.get(t)) for t in ("bank-transfer-002", "bank-payee-004")}
            return await asyncio.to_thread(run_json, python, "openenv_client.py", live.url, json.dumps(scripts))

    seen = asyncio.run(scenario())
    http, server = seen["http"], seen["server"]
    assert http["name"] == "prove-hub-tasks" and {"text", "message", "tool_calls", "finish"} <= set(
        http["action_fields"]
    )
    assert http["http_done"] and http["http_reward"] == pytest.approx(1.3) and http["http_state_steps"] == 2
    assert http["bad_action_status"] == 422
    for task, ep in seen["episodes"].items():
        assert ep["task"] == task and ep["first_roles"] == ["system", "user"] and ep["done"]
        assert ep["reward"] == pytest.approx(1.3) and ep["components"]["coverage"] == 1.0
        assert ep["step_rewards"][-1] == pytest.approx(1.3) and None not in ep["step_rewards"]
        assert ep["state"]["done"] and ep["state"]["task"] == task
        assert "EXECUTION_ERROR" in ep["after_done"]
    assert server == {"tools": 17, "ok": True, "failed_kind": "tool", "reward": None, "hash_unchanged": True}


def test_errors_are_the_specs_replies_and_the_socket_stays_open(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path), base_url="http://127.0.0.1") as http:
        assert http.get("/openenv/tasks/health").json() == {"status": "healthy"}
        assert {e["name"] for e in http.get("/openenv").json()["environments"]} >= {"tasks", "banking"}
        missing = http.post("/openenv/tasks/step", json={"action": {"text": "hi"}})
        assert missing.status_code == 404 and missing.json()["code"] == "unknown_episode"
        assert http.post("/openenv/tasks/reset", json={"task": "nope"}).json()["code"] == "unknown_task"
        assert http.post("/openenv/tasks/reset", content=b"{").json()["code"] == "bad_request"
        assert http.post("/openenv/tasks/reset", json={"seed": -1}).status_code == 400
        with http.websocket_connect("ws://127.0.0.1/openenv/tasks/ws") as ws:
            ws.send_text("{not json")
            assert ws.receive_json()["data"]["code"] == "INVALID_JSON"
            ws.send_json({"type": "dance"})
            assert ws.receive_json()["data"]["code"] == "UNKNOWN_TYPE"
            ws.send_json({"type": "step", "data": {"text": "hi"}})
            assert ws.receive_json()["data"]["hub_code"] == "unknown_episode"
            ws.send_json({"type": "reset", "data": {"seed": 3, "kind": "abstain"}})
            first = ws.receive_json()["data"]
            assert first["observation"]["kind"] == "abstain" and first["done"] is False
            ws.send_json({"type": "step", "data": {"text": "hi", "finish": True}})
            assert ws.receive_json()["data"]["hub_code"] == "bad_request"
            ws.send_json({"type": "step", "data": {"tool_calls": [{"name": "x", "arguments": 1}]}})
            assert ws.receive_json()["data"]["code"] == "VALIDATION_ERROR"
            ws.send_json({"type": "step", "data": {"text": "I cannot do that with these tools."}})
            done = ws.receive_json()["data"]
            assert done["done"] and done["reward"] == 1.0
            ws.send_json({"type": "state"})
            assert ws.receive_json()["data"]["reward"] == 1.0
            ws.send_json({"type": "close"})
        hub = http.app.state.hub  # type: ignore[attr-defined]
        assert not [e for e in hub.episodes.episodes.values() if e.task.kind == "abstain"]  # closed with the socket


def test_a_server_environment_is_free_form_and_isolated(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path), base_url="http://127.0.0.1") as http:
        assert http.get("/openenv/servers/nope/health").status_code == 404
        with (
            http.websocket_connect("ws://127.0.0.1/openenv/servers/banking/ws") as a,
            http.websocket_connect("ws://127.0.0.1/openenv/servers/banking/ws") as b,
        ):
            a.send_json({"type": "reset", "data": {"seed": 0}})
            b.send_json({"type": "reset", "data": {"seed": 0}})
            start_a, start_b = a.receive_json()["data"], b.receive_json()["data"]
            assert start_a["observation"]["state_hash"] == start_b["observation"]["state_hash"]
            deposit = {"name": "deposit_funds", "arguments": {"account_id": "ACC-0001", "amount": 5}}
            a.send_json({"type": "step", "data": {"tool_calls": [deposit]}})
            moved = a.receive_json()["data"]
            assert moved["observation"]["calls"][0]["ok"] and moved["reward"] is None and not moved["done"]
            b.send_json({"type": "state"})
            assert b.receive_json()["data"]["state_hash"] == start_b["observation"]["state_hash"]
            a.send_json(
                {"type": "step", "data": {"text": '<tool_call>{"name": "trading__x", "arguments": {}}</tool_call>'}}
            )
            assert a.receive_json()["data"]["observation"]["calls"][0]["error_kind"] == "unknown_tool"
