"""Drives a live hub's OpenEnv door with openenv-core's own client and models (run in .venvs/openenv).

Usage: python openenv_client.py BASE_URL ORACLE_JSON, where ORACLE_JSON maps a task id to its oracle
script (the model messages that solve it). Prints one JSON object of what it saw; any mismatch with
openenv-core's models raises.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import requests
from openenv.core.env_server.types import (
    EnvironmentMetadata,
    HealthResponse,
    ResetResponse,
    SchemaResponse,
    State,
    StepResponse,
)
from openenv.core.generic_client import GenericEnvClient


def http_checks(base: str) -> dict[str, Any]:
    env = f"{base}/openenv/tasks"
    HealthResponse.model_validate(requests.get(f"{env}/health", timeout=30).json())
    meta = EnvironmentMetadata.model_validate(requests.get(f"{env}/metadata", timeout=30).json())
    schema = SchemaResponse.model_validate(requests.get(f"{env}/schema", timeout=30).json())
    State.model_validate(requests.get(f"{env}/state", timeout=30).json())
    reset = requests.post(f"{env}/reset", json={"task": "bank-balance-001", "episode_id": "http-1"}, timeout=30)
    ResetResponse.model_validate(reset.json())
    call = {"tool_calls": [{"name": "banking__get_account", "arguments": {"account_id": "ACC-0005"}}]}
    step = requests.post(f"{env}/step", json={"action": call, "episode_id": "http-1"}, timeout=30)
    StepResponse.model_validate(step.json())
    done = requests.post(f"{env}/step", json={"action": {"text": "It is $1,234."}, "episode_id": "http-1"}, timeout=30)
    final = StepResponse.model_validate(done.json())
    state = State.model_validate(requests.get(f"{env}/state", params={"episode_id": "http-1"}, timeout=30).json())
    bad = requests.post(f"{env}/step", json={"action": {"nope": 1}, "episode_id": "http-1"}, timeout=30)
    return {
        "name": meta.name,
        "action_fields": sorted(schema.action["properties"]),
        "http_reward": final.reward,
        "http_done": final.done,
        "http_state_steps": state.step_count,
        "bad_action_status": bad.status_code,
    }


async def episode(base: str, task: str, script: list[str]) -> dict[str, Any]:
    async with GenericEnvClient(base_url=f"{base}/openenv/tasks") as env:
        first = await env.reset(task=task, step_reward=True)
        rewards = []
        result = first
        for text in script:
            result = await env.step({"text": text})
            rewards.append(result.reward)
        state = await env.state()
        try:
            await env.step({"text": "again"})
            after_done = "no error"
        except RuntimeError as exc:
            after_done = str(exc)
        return {
            "task": first.observation["task"],
            "first_roles": [m["role"] for m in first.observation["messages"]],
            "tools": [t["function"]["name"] for t in first.observation["tools"]],
            "done": result.done,
            "reward": result.reward,
            "step_rewards": rewards,
            "components": result.observation["reward_breakdown"]["components"],
            "state": state,
            "after_done": after_done,
        }


async def server_session(base: str) -> dict[str, Any]:
    async with GenericEnvClient(base_url=f"{base}/openenv/servers/banking") as env:
        first = await env.reset(seed=0)
        ok = await env.step({"tool_calls": [{"name": "get_account", "arguments": {"account_id": "ACC-0005"}}]})
        failed = await env.step({"tool_calls": [{"name": "get_account", "arguments": {"account_id": "ACC-9999"}}]})
        return {
            "tools": len(first.observation["tools"]),
            "ok": ok.observation["calls"][0]["ok"],
            "failed_kind": failed.observation["calls"][0]["error_kind"],
            "reward": ok.reward,
            "hash_unchanged": first.observation["state_hash"] == failed.observation["state_hash"],
        }


async def main() -> None:
    base, scripts = sys.argv[1], json.loads(sys.argv[2])
    out: dict[str, Any] = {"http": http_checks(base), "episodes": {}, "server": await server_session(base)}
    for task, script in scripts.items():
        out["episodes"][task] = await episode(base, task, script)
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
