"""Figures of an honest data set, added to the realism report (``hub.synth.realism``):

- ``twins``: test tasks with a training twin: one with the same core first turn (``hub.synth.phrasing``) and
  tool sequence (``first_turn``), one with the same intent chain and tool sequence (``intent_chain``);
- ``ungrounded_values``: ground-truth argument values whose provenance record is missing or does not hold
  (``hub.synth.grounding.check``), and the tasks that have one;
- ``structured_files``: structured files (``.json``, ``.yaml``, ``.toml``, ``.csv``) the ground truth writes,
  and how many of them it leaves unparsable (``hub.synth.files``);
- ``reference_dates``: distinct task dates, and how many fall on a weekend;
- ``boilerplate``: user turns with a stock sentence (a greeting, an introduction, a closer, a date aside) that
  turns of five or more servers share; ``core_repeats``: turns whose core phrasing another task repeats;
- ``clarify_answers``: distinct forms of the user's answer on a clarify task (its value masked), and the share of
  the most common one;
- ``answers``: read-only tasks whose reading turns all say what the reply must tell;
- ``abstain_cue``: the rule "no write tool of the request's server offered, so abstain" scored as a classifier of
  abstain tasks: over every task (``all``), and over the tasks that offer some tool of the request's server
  (``server_offered``: an irrelevance task offers none of them, by what it is).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date
from typing import Any

from hub.kit.names import split_name
from hub.state.library import Library
from hub.synth import grounding
from hub.synth.files import invalid_files, written_files
from hub.synth.output import stratum, twin_keys
from hub.synth.phrasing import core, mask, stock, turn_values
from hub.tasks import Task


def figures(tasks: list[Task], library: Library) -> dict[str, Any]:
    boilerplate = stock(tasks)
    return {
        "twins": twins(tasks, boilerplate),
        **ungrounded(tasks, library),
        "structured_files": structured_files(tasks, library),
        "reference_dates": reference_dates(tasks, library),
        **phrasing(tasks, boilerplate),
        "clarify_answers": clarify_answers(tasks),
        "answers": answers(tasks, library),
        "abstain_cue": {
            "all": abstain_cue(tasks, library),
            "server_offered": abstain_cue([t for t in tasks if _offers_server(t)], library),
        },
    }


def twins(tasks: list[Task], boilerplate: set[str]) -> dict[str, Any]:
    keys = {t.id: twin_keys(t, boilerplate) for t in tasks}
    train = [keys[t.id] for t in tasks if t.split == "train"]
    test = [t for t in tasks if t.split == "test"]
    first = {k[0] for k in train}
    chain = {k[1] for k in train if k[1][0]}
    return {
        "test_tasks": len(test),
        "first_turn": _share(sum(keys[t.id][0] in first for t in test), len(test)),
        "intent_chain": _share(sum(keys[t.id][1] in chain for t in test), len(test)),
    }


def ungrounded(tasks: list[Task], library: Library) -> dict[str, Any]:
    bad = {t.id: grounding.check(t, library) for t in tasks if t.gt_steps()}
    values = sum(len(t.arguments) for task in tasks for t in task.gt_steps())
    found = [x for v in bad.values() for x in v]
    return {
        "ungrounded_values": {
            "values": values,
            "ungrounded": len(found),
            "tasks": sum(bool(v) for v in bad.values()),
            "examples": found[:5],
        }
    }


def structured_files(tasks: list[Task], library: Library) -> dict[str, int]:
    writing = sorted((t for t in tasks if written_files(t, library)), key=lambda t: t.initial.seed)
    return {
        "tasks": len(writing),
        "files": sum(len(written_files(t, library)) for t in writing),
        "invalid": sum(len(invalid_files(t, library)) for t in writing),
    }


def reference_dates(tasks: list[Task], library: Library) -> dict[str, Any]:
    days = Counter(t.meta.get("synth", {}).get("today") or _world_day(t, library) for t in tasks)
    parsed = [date.fromisoformat(d) for d in days if d]
    return {
        "distinct": len(parsed),
        "first": min(parsed).isoformat() if parsed else None,
        "last": max(parsed).isoformat() if parsed else None,
        "weekend_days": sum(d.weekday() >= 5 for d in parsed),
    }


def _world_day(task: Task, library: Library) -> str | None:
    now = grounding.reference_now(task, library)
    return now.date().isoformat() if now else None


def phrasing(tasks: list[Task], boilerplate: set[str]) -> dict[str, Any]:
    turns = stocked = 0
    cores: dict[str, set[str]] = defaultdict(set)
    per_turn: list[tuple[str, str]] = []
    for t in tasks:
        values = turn_values(t)
        for turn in t.turns:
            turns += 1
            text = core(turn.user, boilerplate, values)
            stocked += text != core(turn.user, set(), values)
            if text:
                cores[text].add(t.id)
                per_turn.append((t.id, text))
    repeated = sum(len(cores[text]) > 1 for _, text in per_turn)
    return {
        "boilerplate": {"turns": turns, "share": _share(stocked, turns), "stock_sentences": len(boilerplate)},
        "core_repeats": {"turns": len(per_turn), "share": _share(repeated, len(per_turn))},
    }


def clarify_answers(tasks: list[Task]) -> dict[str, Any]:
    forms: Counter[str] = Counter()
    for t in tasks:
        ask = next((i for i, turn in enumerate(t.turns) if turn.ask), None)
        if ask is not None and ask + 1 < len(t.turns):
            forms[mask(t.turns[ask + 1].user, turn_values(t))] += 1
    top = forms.most_common(1)
    return {
        "answers": sum(forms.values()),
        "forms": len(forms),
        "top_share": _share(top[0][1], sum(forms.values())) if top else None,
    }


def answers(tasks: list[Task], library: Library) -> dict[str, Any]:
    reading = [t for t in tasks if t.gt_steps() and all(_kind(s.name, library) == "read" for s in t.gt_steps())]
    told = sum(all(turn.answer for turn in t.turns if turn.calls) for t in reading)
    return {"read_only_tasks": len(reading), "with_answers": _share(told, len(reading))}


def abstain_cue(tasks: list[Task], library: Library) -> dict[str, Any]:
    """The rule "no write tool of the request's server is offered, so abstain", scored against the tasks' kinds."""
    seen: Counter[tuple[bool, bool]] = Counter()  # (rule fires, abstain task)
    for t in tasks:
        server = stratum(t)[0]
        cue = not any(n.startswith(server + "__") and _kind(n, library) == "write" for n in t.tools)
        seen[(cue, t.kind == "abstain")] += 1
    tp, fp, tn, fn = seen[(True, True)], seen[(True, False)], seen[(False, False)], seen[(False, True)]
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    return {
        "tasks": len(tasks),
        "fires": tp + fp,
        "balanced_accuracy": round((tpr + tnr) / 2, 4),
        "precision": round(tp / (tp + fp), 4) if tp + fp else None,
    }


def _offers_server(task: Task) -> bool:
    server = stratum(task)[0]
    return any(n.startswith(server + "__") for n in task.tools)


def _kind(name: str, library: Library) -> str | None:
    parts = split_name(name)
    if parts is None or parts[0] not in library.mounts or parts[1] not in library.mount(parts[0]).tools:
        return None
    return library.tool(*parts).kind


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None
