"""Stored episodes as standard trajectories: ATIF v1.7, OpenAI chat messages, or the hub's own JSON lines.

``prove-hub export --format atif|openai|jsonl [--store prove_hub.db] [--out FILE] [--task ID] [--run RUN]``
reads the episode store (``hub.engine.store``) and writes one JSON object per episode and line:

- ``openai``: ``{"messages": [...], "tools": [...], "metadata": {...}}``, the chat as OpenAI's fine-tuning and
  chat APIs take it: assistant messages with ``tool_calls`` (``function.arguments`` as JSON text), one
  ``{"role": "tool", "tool_call_id", "content"}`` per call, the user turns in between;
- ``atif``: an ATIF-v1.7 ``Trajectory`` (Harbor's Agent Trajectory Interchange Format): system, user and
  agent steps, each agent step's ``tool_calls`` and its ``observation`` (one result per call, by
  ``source_call_id``), the offered tools as the agent's ``tool_definitions``;
- ``jsonl``: everything the store holds of the episode (row, turns, calls, reward, evidence).

Every format carries the reward breakdown, the start and final state hashes, and the training run and step.
An assistant turn's calls are re-read from its stored raw text with the hub's own parser, and matched in
order to the stored tool-call rows (every parsed call was recorded, run or refused), so ids and results
line up exactly as the model saw them.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from hub.engine.parsing import parse_model_output
from hub.kit.names import split_name
from hub.parts import Part
from hub.state.library import Library

FORMATS = ("atif", "openai", "jsonl")
ATIF_VERSION = "ATIF-v1.7"
AGENT = "prove-hub-policy"


@dataclass
class Call:
    id: str
    name: str
    arguments: Any
    content: str
    ok: bool
    error_kind: str | None
    latency_ms: float


@dataclass
class Message:
    role: str  # system, user or assistant
    content: str
    ts: float
    calls: list[Call]


@dataclass
class Stored:
    """One episode as the store holds it."""

    row: dict[str, Any]
    task: dict[str, Any] | None
    turns: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    reward: dict[str, Any] | None
    evidence: dict[str, Any] | None

    def messages(self) -> list[Message]:
        """The chat in order, each assistant message with its calls and their results."""
        rows = iter(self.calls)
        out, step = [], 0
        for turn in self.turns:
            if turn["role"] != "assistant":
                out.append(Message(turn["role"], turn["content"], turn["ts"], []))
                continue
            step += 1
            parsed = parse_model_output(_message_or_text(turn["content"]), call_prefix=f"call_{step}")
            calls = [_call(c.id, c.name or "", c.arguments, next(rows, None)) for c in parsed.calls]
            out.append(Message("assistant", parsed.content, turn["ts"], calls))
        return out

    def meta(self) -> dict[str, Any]:
        r = self.row
        return {
            "episode": r["id"],
            "task": r["task_id"],
            "kind": self.task.get("kind") if self.task else None,
            "group": r["group_id"],
            "session": r["session_id"],
            "status": r["status"],
            "reason": r["reason"],
            "start_hash": r["start_hash"],
            "final_hash": r["final_hash"],
            "run": r["run_id"],
            "run_step": r["run_step"],
            "reward": self.reward,
            "state_match": None if self.evidence is None else self.evidence["state_match"],
        }


def _message_or_text(raw: str) -> str | dict[str, Any]:
    """A stored assistant turn: an OpenAI message was stored as its JSON, raw model text as it was."""
    if raw.startswith("{"):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            return raw
        if isinstance(data, dict) and data.get("role") == "assistant":
            return data
    return raw


def _call(cid: str, name: str, arguments: Any, row: dict[str, Any] | None) -> Call:
    if row is None:  # the store lost this call's event (counted as dropped by the store)
        return Call(cid, name, arguments, "Error: the result of this call was not stored", False, "missing", 0.0)
    if row["ok"]:
        content = row["result"] or ""
        if content.startswith('"'):
            content = json.loads(content)  # a string result reached the model as the string itself
    else:
        content = f"Error: {row['error']}"
    return Call(cid, name, arguments, content, bool(row["ok"]), row["error_kind"], row["latency_ms"])


# Reading the store -------------------------------------------------------------------------------


def read_episodes(
    path: str | Path, *, task: str | None = None, run: str | None = None, limit: int | None = None
) -> Iterator[Stored]:
    """Finished episodes from the store file at ``path``, oldest first."""
    if not Path(path).exists():
        raise FileNotFoundError(f"no episode store at {path} (HUB_STORE_PATH / --store)")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        where, params = ["status = 'finished'"], []
        if task is not None:
            where.append("task_id = ?")
            params.append(task)
        if run is not None:
            where.append("run_id = ?")
            params.append(run)
        sql = f"SELECT * FROM episodes WHERE {' AND '.join(where)} ORDER BY opened_at, id"
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        for row in db.execute(sql, params).fetchall():
            yield _stored(db, dict(row))
    finally:
        db.close()


def read_ids(path: str | Path, ids: Sequence[str]) -> Iterator[Stored]:
    """The stored episodes ``ids``, in that order (the dashboard's export of a filtered list); unknown ids are
    skipped."""
    if not Path(path).exists():
        raise FileNotFoundError(f"no episode store at {path} (HUB_STORE_PATH / --store)")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    db.row_factory = sqlite3.Row
    try:
        for eid in ids:
            row = db.execute("SELECT * FROM episodes WHERE id = ?", (eid,)).fetchone()
            if row is not None:
                yield _stored(db, dict(row))
    finally:
        db.close()


def _stored(db: sqlite3.Connection, row: dict[str, Any]) -> Stored:
    eid = row["id"]
    task_row = db.execute("SELECT data FROM tasks WHERE id = ?", (row["task_id"],)).fetchone()
    turns = [dict(r) for r in db.execute("SELECT * FROM turns WHERE episode_id = ? ORDER BY seq", (eid,))]
    calls = [dict(r) for r in db.execute("SELECT * FROM tool_calls WHERE episode_id = ? ORDER BY id", (eid,))]
    reward = db.execute("SELECT * FROM rewards WHERE episode_id = ?", (eid,)).fetchone()
    evidence = db.execute("SELECT * FROM evidence WHERE episode_id = ?", (eid,)).fetchone()
    breakdown = None
    if reward is not None:
        breakdown = {
            "total": reward["total"],
            "mode": reward["mode"],
            "components": json.loads(reward["components"]),
            "weights": json.loads(reward["weights"]),
        }
        keys = reward.keys()
        if "maximum" in keys and reward["maximum"] is not None:
            breakdown["max"] = reward["maximum"]
        if "ledger" in keys and reward["ledger"]:
            breakdown["ledger"] = json.loads(reward["ledger"])  # per component: weight, value, earned, max, lost
    return Stored(
        row,
        json.loads(task_row["data"]) if task_row else None,
        turns,
        calls,
        breakdown,
        dict(evidence) if evidence is not None else None,
    )


# Formats ---------------------------------------------------------------------------------------------


def tool_schemas(stored: Stored, library: Library | None) -> list[dict[str, Any]]:
    """The offered tools as OpenAI function schemas (by name only when the library lacks the tool)."""
    from hub.engine.episodes import function_schema

    task = stored.task or {}
    found = []
    for name in task.get("tools", []):
        parts = split_name(name)
        mount = library.mounts.get(parts[0]) if library is not None and parts is not None else None
        if library is not None and mount is not None and parts is not None and parts[1] in mount.tools:
            found.append(function_schema(library, name, bool(task.get("strip_enums"))))
        else:
            found.append({"type": "function", "function": {"name": name}})
    return found


def to_openai(stored: Stored, tools: list[dict[str, Any]]) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for m in stored.messages():
        if m.role != "assistant":
            messages.append({"role": m.role, "content": m.content})
            continue
        message: dict[str, Any] = {"role": "assistant", "content": m.content or None}
        if m.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in m.calls
            ]
        messages.append(message)
        messages.extend({"role": "tool", "tool_call_id": c.id, "content": c.content} for c in m.calls)
    return {"messages": messages, "tools": tools, "metadata": stored.meta()}


def to_atif(stored: Stored, tools: list[dict[str, Any]]) -> dict[str, Any]:
    steps: list[dict[str, Any]] = []
    for m in stored.messages():
        step: dict[str, Any] = {
            "step_id": len(steps) + 1,
            "timestamp": datetime.fromtimestamp(m.ts, UTC).isoformat(),
            "source": "agent" if m.role == "assistant" else m.role,
            "message": m.content,
        }
        if m.role == "assistant":
            step["llm_call_count"] = 1
            if m.calls:
                step["tool_calls"] = [
                    {"tool_call_id": c.id, "function_name": c.name, "arguments": _object(c.arguments)} for c in m.calls
                ]
                step["observation"] = {
                    "results": [
                        {
                            "source_call_id": c.id,
                            "content": c.content,
                            "extra": {"ok": c.ok, "error_kind": c.error_kind, "latency_ms": c.latency_ms},
                        }
                        for c in m.calls
                    ]
                }
        steps.append(step)
    meta = stored.meta()
    return {
        "schema_version": ATIF_VERSION,
        "session_id": meta["group"],
        "trajectory_id": meta["episode"],
        "agent": {
            "name": AGENT,
            "version": "1",
            "model_name": meta["run"],
            "tool_definitions": tools,
            "extra": {"run": meta["run"], "run_step": meta["run_step"]},
        },
        "steps": steps,
        "final_metrics": {
            "total_steps": len(steps),
            "extra": {"reward": meta["reward"], "state_match": meta["state_match"]},
        },
        "extra": meta,
    }


def _object(arguments: Any) -> dict[str, Any]:
    """ATIF's arguments are an object: a call whose arguments were not one keeps them under ``_raw``."""
    return arguments if isinstance(arguments, dict) else {"_raw": arguments}


def to_jsonl(stored: Stored) -> dict[str, Any]:
    return {
        "episode": stored.row,
        "task": stored.task,
        "turns": stored.turns,
        "tool_calls": stored.calls,
        "reward": stored.reward,
        "evidence": stored.evidence,
    }


def export(episodes: Sequence[Stored] | Iterator[Stored], fmt: str, out: TextIO, library: Library | None = None) -> int:
    """Write each episode in ``fmt`` as one JSON line; returns how many."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    n = 0
    for stored in episodes:
        if fmt == "jsonl":
            record = to_jsonl(stored)
        else:
            tools = tool_schemas(stored, library)
            record = to_atif(stored, tools) if fmt == "atif" else to_openai(stored, tools)
        out.write(json.dumps(record, default=str) + "\n")
        n += 1
    return n


# The command ---------------------------------------------------------------------------------------


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write stored episodes as ATIF trajectories, OpenAI messages or JSON lines")
    p.add_argument("--format", choices=FORMATS, default="atif")
    p.add_argument("--store", default=None, help="the episode store (default: HUB_STORE_PATH or prove_hub.db)")
    p.add_argument("--out", default="-", help="output file (default: standard output)")
    p.add_argument("--task", default=None, help="only this task's episodes")
    p.add_argument("--run", default=None, help="only this training run's episodes")
    p.add_argument("--limit", type=int, default=None)
    p.set_defaults(handler=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from hub.config import Settings
    from hub.core import build_library

    path = args.store or Settings.from_env().store_path
    library = build_library(None) if args.format != "jsonl" else None
    try:
        episodes = read_episodes(path, task=args.task, run=args.run, limit=args.limit)
        if args.out == "-":
            n = export(episodes, args.format, sys.stdout, library)
        else:
            with open(args.out, "w", encoding="utf-8") as out:
                n = export(episodes, args.format, out, library)
    except (FileNotFoundError, sqlite3.Error) as exc:
        print(f"prove-hub export: {exc}", file=sys.stderr)
        return 2
    print(f"prove-hub export: {n} episodes as {args.format}", file=sys.stderr)
    return 0


part = Part("export", add_commands=register)
