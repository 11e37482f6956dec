"""SFT export: every task as a full chat, from the oracle replayed on a fresh fork (real tool results).

    OUT/sft/train.jsonl, OUT/sft/test.jsonl              OpenAI messages, one chat per line
    OUT/sft/train.qwen.jsonl, OUT/sft/test.qwen.jsonl    the same chats rendered with the Qwen2.5 (Hermes)
                                                         chat template (written when transformers is present)

A chat is the system prompt, then per turn: the user's message; on an ``ask`` turn the question a person would
ask for what is missing ("What should the comment say?", ``hub.engine.question``); on a turn with ground-truth
calls an assistant message with those calls (``tool_calls``), the tool results the hub returned for
them, and a short closing answer; on an abstain task a refusal. The episode engine plays it, so the
results are the live servers' and the record carries the oracle's reward (``reward``: 1.3 for mcp
and clarify tasks with later calls, 1.0 otherwise) as proof the chat is a perfect trajectory.

Records: ``{"task", "kind", "split", "messages", "tools", "reward"}``; ``tools`` are the offered
tools' OpenAI function schemas (enum lists stripped where the task strips them). In ``messages``,
tool-call arguments are JSON strings (the OpenAI form); the rendered text has them as objects.

    prove-hub synth --n 2000 --out ds --sft          # synthesize, then export
    python -m hub.synth.sft ds/train.jsonl ds/sft     # export an existing task file
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hub.engine.episodes import EpisodeEngine
from hub.engine.question import clarifying_question
from hub.engine.world import World
from hub.state.library import Library
from hub.synth.chain.render import humanize
from hub.tasks import GTStep, Task, TaskSet, read_jsonl
from hub.wire import EpisodeLimits

REFUSAL = "I'm sorry, but none of the tools I have can do that, so I can't help with this request."

# The Qwen2.5-Instruct chat template (Hermes-style tool calls), inline so that nothing is downloaded.
QWEN_TEMPLATE = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided \
with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within \
<tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\
\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or \
(message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""


class SFTExporter:
    """Plays each task's oracle on the episode engine and returns the chat it produced."""

    def __init__(self, library: Library) -> None:
        world = World(library, max_sessions=1_000_000)
        self.engine = EpisodeEngine(
            library, world.sessions, world.dispatcher, world.bus, TaskSet(), limits=EpisodeLimits(max_steps=1000)
        )

    def chat(self, task: Task) -> dict[str, Any]:
        ep = self.engine.open_group(task)[0]
        messages: list[dict[str, Any]] = [dict(m) for m in ep.messages]
        try:
            for i, turn in enumerate(task.turns):
                for message in self._assistant(task, i):
                    out = self.engine.step(ep.id, message)
                    if message.get("tool_calls"):
                        message["tool_calls"] = _with_ids(message["tool_calls"], out.messages)
                        message["content"] = message["content"] or ""
                    messages.append(message)
                    messages += out.messages
                    if message.get("tool_calls"):
                        messages.append(self._closing(turn.calls, out.messages))
                        out = self.engine.step(ep.id, messages[-1])
                        messages += out.messages
            reward = self.engine.finish(ep.id).total
        finally:
            self.engine.close(ep.id)
        tools = self.engine.tools_of(task)
        return {
            "task": task.id,
            "kind": task.kind,
            "split": task.split,
            "messages": messages,
            "tools": tools,
            "reward": round(reward, 6),
        }

    def _assistant(self, task: Task, turn: int) -> list[dict[str, Any]]:
        t = task.turns[turn]
        if t.ask:
            question = clarifying_question(task, turn, self.engine.schemas_of(task))
            return [{"role": "assistant", "content": question}]
        if t.calls:
            calls = [
                {
                    "id": f"call_{turn}_{k}",
                    "type": "function",
                    "function": {"name": s.name, "arguments": json.dumps(s.arguments)},
                }
                for k, s in enumerate(t.calls)
            ]
            return [{"role": "assistant", "content": "", "tool_calls": calls}]
        return [{"role": "assistant", "content": REFUSAL}]

    def _closing(self, calls: list[GTStep], results: list[dict[str, Any]]) -> dict[str, Any]:
        done = [_action(s.tool) for s in calls]
        failed = [r["content"] for r in results if r.get("role") == "tool" and r["content"].startswith("Error")]
        text = "Done: " + "; ".join(done) + "."
        if failed:
            text += " Note: " + " ".join(failed)
        return {"role": "assistant", "content": text}


def _action(tool: str) -> str:
    verb, obj = humanize(tool)
    return f"{verb} {obj}"


def _with_ids(calls: list[dict[str, Any]], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls with the ids the hub gave their results (so each tool message answers its call)."""
    ids = [r["tool_call_id"] for r in results if r.get("role") == "tool"]
    return [c | {"id": i} for c, i in zip(calls, ids)] if len(ids) == len(calls) else calls


# Rendering -------------------------------------------------------------------------------------


def render_qwen(record: dict[str, Any]) -> str:
    """The chat rendered with the Qwen2.5 template through transformers' own renderer."""
    from transformers.utils.chat_template_utils import render_jinja_template

    messages = [_for_template(m) for m in record["messages"]]
    rendered: Any = render_jinja_template([messages], tools=record["tools"], chat_template=QWEN_TEMPLATE)
    return str(rendered[0][0])  # ([one text per conversation], generation indices)


def _for_template(message: dict[str, Any]) -> dict[str, Any]:
    out = dict(message)
    if "tool_calls" in out:  # templates take arguments as objects
        out["tool_calls"] = [
            c | {"function": c["function"] | {"arguments": json.loads(c["function"]["arguments"])}}
            for c in out["tool_calls"]
        ]
    return out


def have_transformers() -> bool:
    try:
        import transformers.utils.chat_template_utils  # noqa: F401
    except ImportError:
        return False
    return True


# Files -----------------------------------------------------------------------------------------


def write_sft(out: Path, tasks: Iterable[Task], library: Library, *, render: bool | None = None) -> dict[str, int]:
    """Write ``OUT/{split}.jsonl`` (and ``OUT/{split}.qwen.jsonl``); counts of chats per file."""
    out.mkdir(parents=True, exist_ok=True)
    render = have_transformers() if render is None else render
    exporter = SFTExporter(library)
    by_split: dict[str, list[dict[str, Any]]] = {}
    for task in tasks:
        by_split.setdefault(task.split or "all", []).append(exporter.chat(task))
    counts: dict[str, int] = {}
    for split, records in sorted(by_split.items()):
        _write_lines(out / f"{split}.jsonl", (json.dumps(r, separators=(",", ":")) for r in records))
        counts[f"{split}.jsonl"] = len(records)
        if render:
            lines = (json.dumps({"task": r["task"], "text": render_qwen(r)}) for r in records)
            _write_lines(out / f"{split}.qwen.jsonl", lines)
            counts[f"{split}.qwen.jsonl"] = len(records)
    return counts


def _write_lines(path: Path, lines: Iterable[str]) -> None:
    with path.open("w") as f:
        for line in lines:
            f.write(line + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.synth.sft", description="export task files as SFT chats")
    p.add_argument("tasks", nargs="+", help="task JSONL files (e.g. OUT/train.jsonl OUT/test.jsonl)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--no-render", action="store_true", help="skip the Qwen-template rendering")
    args = p.parse_args(argv)
    from hub.config import REFERENCE_NOW
    from hub.parts import registered_servers

    library = Library.from_servers(registered_servers(), REFERENCE_NOW)
    tasks = [t for path in args.tasks for t in read_jsonl(Path(path))]
    counts = write_sft(Path(args.out), tasks, library, render=False if args.no_render else None)
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
