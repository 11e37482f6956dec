"""Validates exported trajectories with the formats' own packages (run in .venvs/openenv).

Usage: python validate_exports.py ATIF_JSONL OPENAI_JSONL. ATIF lines go through Harbor's ATIF models
(harbor.models.trajectories.Trajectory and harbor.utils.trajectory_validator when it imports), OpenAI lines
through the openai package's chat message and tool types. Prints a JSON summary; an invalid line raises.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from harbor.models.trajectories import Trajectory
from openai.types.chat import ChatCompletionMessageParam, ChatCompletionToolParam
from pydantic import TypeAdapter


def main() -> None:
    atif_path, openai_path = sys.argv[1], sys.argv[2]
    versions, agent_steps, calls = set(), 0, 0
    for line in open(atif_path, encoding="utf-8"):
        trajectory = Trajectory.model_validate(json.loads(line))
        versions.add(trajectory.schema_version)
        agent_steps += sum(s.source == "agent" for s in trajectory.steps)
        calls += sum(len(s.tool_calls or []) for s in trajectory.steps)
    messages = TypeAdapter(list[ChatCompletionMessageParam])
    tools = TypeAdapter(list[ChatCompletionToolParam])
    roles: dict[str, int] = {}
    n_openai = 0
    for line in open(openai_path, encoding="utf-8"):
        record: dict[str, Any] = json.loads(line)
        for m in messages.validate_python(record["messages"], strict=True):
            roles[m["role"]] = roles.get(m["role"], 0) + 1
        tools.validate_python(record["tools"], strict=True)
        n_openai += 1
    print(
        json.dumps(
            {
                "versions": sorted(versions),
                "agent_steps": agent_steps,
                "calls": calls,
                "roles": roles,
                "openai_records": n_openai,
            }
        )
    )


if __name__ == "__main__":
    main()
