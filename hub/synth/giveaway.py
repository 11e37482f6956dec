"""What a task set gives away, or leaves unchecked: two figures of the realism report.

- ``abstain_cue``: the surface rule "no write tool of the request's server is offered → abstain" scored as a
  classifier over every task (balanced accuracy, precision and the confusion counts); a set whose offer gives
  abstention away scores 1.0 on both;
- ``answer_coverage``: the share of reading turns (their calls only read, and the user asks for something)
  that record what the reply must tell (``Turn.answer``), and of read-only tasks with at least one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from hub.state.library import Library
from hub.synth.unsolvable import offered_writes
from hub.tasks import Task, split_name

# The abstention cue ----------------------------------------------------------------------------


def request_server(task: Task) -> str | None:
    """The server the user's request is about: the one recorded by synthesis, else the ground truth's."""
    recorded = task.meta.get("synth", {}).get("request_servers") or []
    if recorded:
        return str(recorded[0])
    steps = task.gt_steps()
    return steps[0].server if steps else (task.servers[0] if task.servers else None)


def offers_own_write(task: Task, library: Library) -> bool:
    return bool(offered_writes(task, library, request_server(task)))


def abstain_cue(tasks: list[Task], library: Library) -> dict[str, Any]:
    """The rule "no write tool of the request's server offered → abstain" as a classifier of every task."""
    seen = Counter((not offers_own_write(t, library), t.kind == "abstain") for t in tasks)  # (rule fires, abstain)
    tp, fp, fn, tn = seen[True, True], seen[True, False], seen[False, True], seen[False, False]
    tpr, tnr = share(tp, tp + fn), share(tn, tn + fp)
    balanced = round((tpr + tnr) / 2, 4) if tpr is not None and tnr is not None else None
    return {"balanced_accuracy": balanced, "precision": share(tp, tp + fp), "tp": tp, "fp": fp, "fn": fn, "tn": tn}


# Answers --------------------------------------------------------------------------------------------

ASKS = re.compile(  # a question, or a request to be shown or told something
    r"\?|\b(?:what|which|who|whose|when|where|how|whether|any|anything|show|list|tell|check|see|find|look|give"
    r"|pull|print|read|display|fetch|count|open|remind|need|want|catch me up|go over|run through|walk me through"
    r"|let me know|just the)\b",
    re.IGNORECASE,
)


def _reads(step_names: Iterable[str], library: Library) -> bool:
    kinds = [library.tool(*p).kind if (p := split_name(n)) is not None else "write" for n in step_names]
    return bool(kinds) and all(k == "read" for k in kinds)


def reading_turns(task: Task, library: Library) -> list[int]:
    """The turns whose calls only read and whose user asks for something (a question, "show me ..."), in the
    turns since the previous turn with calls (a clarify task's request comes on its ask turn)."""
    out, pending = [], ""
    for i, turn in enumerate(task.turns):
        pending += " " + turn.user
        if not turn.calls:
            continue
        if _reads((s.name for s in turn.calls), library) and ASKS.search(pending):
            out.append(i)
        pending = ""
    return out


def answer_coverage(tasks: list[Task], library: Library) -> dict[str, Any]:
    """The share of reading turns that record what their reply must tell, and of read-only tasks with one."""
    reading = answered = read_only = read_only_answered = 0
    for t in tasks:
        found = reading_turns(t, library)
        reading += len(found)
        answered += sum(bool(t.turns[i].answer) for i in found)
        if t.kind != "abstain" and _reads((s.name for s in t.gt_steps()), library):
            read_only += 1
            read_only_answered += any(turn.answer for turn in t.turns)
    return {
        "reading_turns": reading,
        "answered": share(answered, reading),
        "read_only_tasks": read_only,
        "read_only_answered": share(read_only_answered, read_only),
    }


def share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
