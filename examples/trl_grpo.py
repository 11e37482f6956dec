"""GRPO with TRL on a PROVE hub's tasks, through the hub's OpenEnv door (``/openenv/tasks``).

    pip install "openenv-core==0.3.0" "trl==1.16.0" torch
    python examples/trl_grpo.py --hub http://127.0.0.1:8765 --model Qwen/Qwen3-0.6B --max-steps 100

TRL's ``GRPOTrainer(environment_factory=...)`` takes environment classes whose public methods are the tools the
model may call, ``reset(**row)`` before each rollout, and ``get_reward()`` after it. ``hub_environments`` builds
one such class per set of offered tools (a task offers its own tools, distractors included), each a thin
wrapper of openenv-core's ``GenericEnvClient`` on the hub: ``reset`` opens the row's task as a hub episode,
each tool method is one OpenEnv ``step`` with that call, and ``get_reward`` ends the episode (the ``finish``
action) and returns the hub's reward (the paper's R, docs/reward.md). Every rollout is a hub episode in its own
fork, kept in the hub's store and dashboard like any other.

TRL's tool loop sees one user turn: a multi-turn task's later turns are not played here (use the ``/ws``
protocol, or the OpenEnv door directly, for those).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
from collections.abc import Callable
from typing import Any

import requests
from openenv.core.generic_client import GenericEnvClient

JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list,
                              "object": dict}  # fmt: skip


def first_observation(hub: str, task: str) -> dict[str, Any]:
    """A task's opening (messages and offered tools), from a stateless OpenEnv reset over HTTP."""
    reply = requests.post(f"{hub}/openenv/tasks/reset", json={"task": task}, timeout=60)
    reply.raise_for_status()
    return dict(reply.json()["observation"])


def _annotation(schema: dict[str, Any]) -> Any:
    options = schema.get("anyOf") or [schema]
    kinds = [JSON_TYPES.get(o.get("type", ""), str) for o in options if o.get("type") != "null"]
    kind = kinds[0] if kinds else str
    return kind | None if any(o.get("type") == "null" for o in options) else kind


def _doc(function: dict[str, Any]) -> str:
    """A Google-style docstring, which transformers turns back into the tool's JSON schema."""
    lines = [function.get("description") or function["name"], "", "Args:"]
    for name, prop in function.get("parameters", {}).get("properties", {}).items():
        enum = next((o["enum"] for o in prop.get("anyOf", [prop]) if "enum" in o), None)
        text = (prop.get("description") or name).replace("\n", " ")
        lines.append(f"    {name}: {text}" + (f" (choices: {json.dumps(enum)})" if enum else ""))
    return "\n".join(lines)


def _tool_method(function: dict[str, Any]) -> Callable[..., str]:
    name = function["name"]
    params = function.get("parameters", {})
    required = set(params.get("required", []))

    def call(self: HubEpisode, **arguments: Any) -> str:
        return self._call(name, arguments)

    props = params.get("properties", {})
    ordered = sorted(props, key=lambda p: p not in required)  # required ones first, as Python needs
    call.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(
                p,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=_annotation(props[p]),
                default=inspect.Parameter.empty if p in required else props[p].get("default"),
            )
            for p in ordered
        ]
    )
    call.__annotations__ = {p: _annotation(props[p]) for p in props} | {"return": str}
    call.__name__ = call.__qualname__ = name
    call.__doc__ = _doc(function)
    return call


class HubEpisode:
    """One rollout's hub episode, over openenv-core's client; subclasses add one method per offered tool."""

    hub = ""

    def __init__(self) -> None:
        self.env = GenericEnvClient(base_url=f"{self.hub}/openenv/tasks").sync()
        self.result: Any = None

    def reset(self, task: str, **_: Any) -> None:
        self.result = self.env.reset(task=task)

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self.result is None or self.result.done:
            return "Error: the episode is over"
        self.result = self.env.step({"tool_calls": [{"name": name, "arguments": arguments}]})
        return "\n".join(m["content"] for m in self.result.observation["messages"] if m["role"] == "tool")

    def get_reward(self) -> float:
        if not self.result.done:
            self.result = self.env.step({"finish": True})
        return float(self.result.reward)


def hub_environments(hub: str, tasks: list[str]) -> tuple[dict[str, type[HubEpisode]], list[dict[str, Any]]]:
    """TRL's ``environment_factory`` (one class per offered-tool set) and the dataset rows of ``tasks``."""
    classes: dict[str, type[HubEpisode]] = {}
    rows = []
    for task in tasks:
        first = first_observation(hub, task)
        names = "\x00".join(t["function"]["name"] for t in first["tools"])
        key = "tools-" + hashlib.blake2b(names.encode(), digest_size=4).hexdigest()
        if key not in classes:
            methods = {t["function"]["name"]: _tool_method(t["function"]) for t in first["tools"]}
            classes[key] = type(f"HubEpisode_{key[6:]}", (HubEpisode,), {"hub": hub, **methods})
        rows.append({"prompt": first["messages"], "task": task, "environment": key})
    return classes, rows


def main() -> None:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hub", default="http://127.0.0.1:8765")
    p.add_argument("--model", required=True)
    p.add_argument("--tasks", nargs="*", help="task ids (default: every task of the hub's train split)")
    p.add_argument("--max-steps", type=int, default=100)
    p.add_argument("--num-generations", type=int, default=8)
    args = p.parse_args()
    listing = requests.get(f"{args.hub}/openenv", timeout=60).json()["environments"][0]["tasks"]
    tasks = args.tasks or [t["id"] for t in listing if t["split"] != "test"]
    classes, rows = hub_environments(args.hub, tasks)
    trainer = GRPOTrainer(
        model=args.model,
        train_dataset=Dataset.from_list(rows),
        environment_factory=classes,
        args=GRPOConfig(max_steps=args.max_steps, num_generations=args.num_generations, report_to=[]),
    )
    trainer.train()


if __name__ == "__main__":
    main()
