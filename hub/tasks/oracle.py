"""The oracle policy: what a perfect model says, turn by turn (for tests, benchmarks and the dashboard)."""

from __future__ import annotations

import json
from typing import Any

from hub.tasks.model import Task


def hermes_call(name: str, arguments: dict[str, Any]) -> str:
    """One call in Hermes/Qwen form."""
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def answer_text(values: list[Any]) -> str:
    """The oracle's reply after a turn's calls: "Done.", and the values the user asked to be told (a yes/no
    question answered "Yes"/"No", not "True"/"False")."""
    return "Done." if not values else "Done. " + " ; ".join(_said(v) for v in values)


def _said(value: Any) -> str:
    if isinstance(value, bool):
        return "Yes" if value else "No"
    return str(value)


def oracle_script(task: Task) -> list[str]:
    """The model messages of a perfect policy: each turn's ground-truth calls in one message, then an
    answer (stating the values the turn asked for, when it records them); a question on an ``ask`` turn; a refusal
    on an abstain task."""
    from hub.engine.question import clarifying_question

    out: list[str] = []
    for i, turn in enumerate(task.turns):
        if turn.ask:
            out.append(clarifying_question(task, i))
        elif turn.calls:
            out.append("\n".join(hermes_call(s.name, s.arguments) for s in turn.calls))
            out.append(answer_text(turn.answer))
        elif turn.answer:
            out.append(answer_text(turn.answer))
        else:
            out.append("Sorry, none of my tools can do that.")
    return out
