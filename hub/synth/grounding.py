"""The ground truth's record of where every argument comes from, checked against the task's own words.

The Scene records each argument's origin as the call is made (``hub.kit.provenance``), from the intent's
phrasings. The task the model sees may differ: the persona's voice, a clarify task's withheld value moved to the
answer turn, an LLM's rewrite. So the record is made again here, against the final user turns and the calls'
live results, and kept on each ground-truth step (``GTStep.sources``: the reward reads which keys matter and
which read found which value). A value with no origin is *ungrounded*: the pipeline drops the task.

``check`` re-verifies a task file's records without running anything: every argument has a record, a stated
value is in a user turn up to its call, a returned one names an earlier step, a derived date follows from the
task's reference date, a default or incidental key is one the schema allows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from hub.kit import Tool
from hub.kit.intent import CallRecord, docs
from hub.kit.provenance import ISO_DATE, Evidence, Source, first_said, origins
from hub.state.library import Library, SqliteMount
from hub.tasks import ArgSource, Task

STEP = re.compile(r"\bstep (\d+)")


def ground(
    calls: Sequence[CallRecord], turn_of: Sequence[int], texts: Sequence[str], server: Any, now: datetime
) -> tuple[list[dict[str, ArgSource]], list[str]]:
    """Per call, each argument's record against ``texts`` (the task's user turns; call ``i`` answers turn
    ``turn_of[i]``), and the ungrounded ones as ``g<step>.<key>``."""
    results = [c.result for c in calls]
    out: list[dict[str, ArgSource]] = []
    bad: list[str] = []
    for i, c in enumerate(calls):
        spec: Tool = server.tools[c.tool]
        ev = Evidence(texts[: turn_of[i] + 1], results[:i], now, docs(server))
        record: dict[str, ArgSource] = {}
        for key, found in origins(c.arguments, spec.input_schema, spec.kind, ev).items():
            if found is None:
                bad.append(f"g{i + 1}.{key}")
            else:
                record[key] = arg_source(found)
        out.append(record)
    return out, bad


def arg_source(found: Source) -> ArgSource:
    """The task's form of a record: steps by their ids (``g3``)."""
    return ArgSource(
        role=found.role,  # type: ignore[arg-type]
        turn=found.turn,
        step=None if found.step is None else f"g{found.step + 1}",
        rule=found.rule,
        inputs=[STEP.sub(lambda m: f"g{int(m.group(1)) + 1}", x) for x in found.inputs],
    )


def check(task: Task, library: Library) -> list[str]:
    """``g<step>.<key>: why`` for every ground-truth value whose record is missing or does not hold."""
    bad: list[str] = []
    seen: set[str] = set()
    now = reference_now(task, library)
    for t_index, turn in enumerate(task.turns):
        said_so_far = [t.user for t in task.turns[: t_index + 1]]
        for step in turn.calls:
            spec = library.tool(step.server, step.tool)
            for key, value in step.arguments.items():
                problem = _problem(step.sources.get(key), value, key, spec, said_so_far, seen, now)
                if problem:
                    bad.append(f"{step.id}.{key}: {problem}")
            seen.add(step.id)
    return bad


def reference_now(task: Task, library: Library) -> datetime | None:
    """The task's reference date: its world's "now" (None for a mounted server that has none)."""
    mount = library.mounts.get(task.servers[0]) if task.servers else None
    return mount.seed_db(task.initial.seed).now if isinstance(mount, SqliteMount) else None


def _problem(
    source: ArgSource | None, value: Any, key: str, spec: Tool, texts: list[str], seen: set[str], now: datetime | None
) -> str | None:
    if source is None:
        return "no record"
    if source.role == "stated" and not _said_anywhere(value, texts, source.turn):
        return "not said in the user turns so far"
    if source.role == "derived" and now is not None and not _date_holds(source.rule or "", value, now):
        return f"{value!r} is not {source.rule} from {now.date()}"
    if source.role == "returned" and source.step not in seen:
        return f"returned by {source.step}, which is not an earlier step"
    if source.role == "incidental" and (key in spec.required or spec.kind != "read"):
        return "incidental on a required argument or a write"
    return None


def _said_anywhere(value: Any, texts: list[str], turn: int | None) -> bool:
    if turn is not None and turn >= len(texts):
        return False
    items = value if isinstance(value, list) else [value]
    return all(isinstance(v, bool) or first_said(v, texts) is not None for v in items if v is not None)


def _date_holds(rule: str, value: Any, now: datetime) -> bool:
    """A ``date+Nd`` rule names the value's day from the reference date."""
    m = re.fullmatch(r"date([+-]\d+)d(?:\+span)?", rule)
    day = ISO_DATE.match(value) if isinstance(value, str) else None
    if m is None or day is None:
        return True
    return (datetime.fromisoformat(day.group(1)).date() - now.date()).days == int(m.group(1))
