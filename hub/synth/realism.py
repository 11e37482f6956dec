"""The realism report: does a task make a model think, or only transcribe? Figures for a task set.

- ``name_leak``: share of ground-truth calls whose tool name words (verb and object, e.g. "pay" and
  "invoice") all appear in the user text that asks for them (the turns since the previous call);
- ``verbatim_values``: share of ground-truth argument values (strings, numbers, list items; not
  booleans) stated verbatim in the user turns up to their call;
- ``id_turns``: share of user turns that carry an internal id (``ABC-0042``-shaped);
- ``linked``: share of tasks with 2+ calls whose calls form one connected dependency graph;
- ``distinct_sequences``: distinct tool-name sequences per mcp task;
- ``worlds``, ``smallest_server``, ``rarest_tool``: spread of the set;
- ``reference_dates``, ``weekend_tasks``: distinct days the tasks live on (each world has its own "now"),
  and the share of tasks whose day is a Saturday or Sunday;
- ``replay_verified``, ``oracle``: share with an expected state, and the oracle's mean reward;
- ``abstain_cue``, ``answers`` (``hub.synth.giveaway``): the surface rule "no write tool of the request's
  server offered → abstain" scored over every task; reading turns that record what their reply must tell;
- ``baseline``: a literal policy that, each turn, calls the offered tools whose name words appear in
  the turn with the argument values found in the text (ids, quoted strings, numbers, enum values),
  run live on the task's world and scored by the real reward; reported against the oracle.

Each figure is also given per source (``intent`` or the ``machine`` fallback). The figures of an honest split
(test tasks with a training twin) come from ``hub.synth.honest``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from hub.engine.dispatcher import Dispatcher
from hub.engine.question import clarifying_question
from hub.engine.reward import CallRecord, RewardBreakdown, score
from hub.engine.world import World
from hub.state.library import Library
from hub.state.sessions import SessionManager
from hub.synth import giveaway, honest, phrasing
from hub.synth.output import stratum
from hub.tasks import Task, build_initial, split_name
from hub.wire import RewardConfig

ID_TOKEN = re.compile(r"\b[A-Z]{2,6}-[0-9A-Z]{2,}(?:-[0-9A-Z]+)*\b")
WORD = re.compile(r"[a-z0-9]+")
NUMBER = re.compile(r"(?<![\w.])[$€£]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w])")
QUOTED = re.compile(r"'([^']{2,200})'|\"([^\"]{2,200})\"")
NAME = re.compile(r"\b([A-Z][a-z]+(?: [A-Z][a-z]+)+)\b")
MAX_BASELINE = 2000


def _words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def name_words(tool: str) -> list[str]:
    """A tool's name words without their plural s: ``list_invoices`` -> ['list', 'invoice']."""
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in tool.split("_") if w]


def names_in(tool: str, text_words: Iterable[str]) -> bool:
    """Whether every name word of ``tool`` starts its own word of the text (so 'invoices' shows 'invoice',
    but 'address' alone does not show both words of ``add_address``)."""
    free = list(text_words)
    for w in sorted(name_words(tool), key=len, reverse=True):
        hit = next((t for t in free if t.startswith(w)), None)
        if hit is None:
            return False
        free.remove(hit)
    return True


def _values(value: Any) -> list[Any]:
    if isinstance(value, list):
        return [x for v in value for x in _values(v)]
    if isinstance(value, bool) or value is None or isinstance(value, dict):
        return []
    return [value]


def stated(value: Any, text: str) -> bool:
    """Whether a value appears verbatim in ``text`` (a number in any of its usual written forms)."""
    if isinstance(value, str):
        return len(value) >= 2 and _word_in(value, text)
    forms = {str(value)}
    if isinstance(value, float):
        forms |= {f"{value:.2f}", f"{value:,.2f}"}
        if value == int(value):
            forms |= {str(int(value)), f"{int(value):,}"}
    return any(re.search(rf"(?<![\d.]){re.escape(f)}(?![\d])", text) for f in forms)


def _word_in(value: str, text: str) -> bool:
    """``value`` as whole words of ``text``: any case for words ('pet care'), exact case for a code with no
    lower-case letter ('WEB' is not stated by "Web Storefront"; 'ACC-0107' is by "ACC-0107")."""
    flags = re.IGNORECASE if any(c.islower() for c in value) else 0
    return re.search(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", text, flags) is not None


def asking_texts(task: Task) -> list[str]:
    """Per turn with calls, the user text that asks for them: the turns since the previous call turn."""
    out: list[str] = []
    pending: list[str] = []
    for turn in task.turns:
        pending.append(turn.user)
        if turn.calls:
            out.append(" ".join(pending))
            pending = []
    return out


def linked(task: Task) -> bool:
    steps = task.gt_steps()
    parent = list(range(len(steps)))
    index = {s.id: i for i, s in enumerate(steps)}

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i, s in enumerate(steps):
        for a in s.after:
            parent[root(i)] = root(index[a])
    return len({root(i) for i in range(len(steps))}) <= 1


# The literal baseline --------------------------------------------------------------------------


def literal_calls(text: str, offered: list[str], library: Library) -> list[tuple[str, dict[str, Any]]]:
    """The calls a literal policy makes for one user turn."""
    words = _words(text)
    ids = ID_TOKEN.findall(text)
    plain = ID_TOKEN.sub(" ", text)
    numbers = [float(m.group(1).replace(",", "") + (m.group(2) or "")) for m in NUMBER.finditer(plain)]
    quoted = [a or b for a, b in QUOTED.findall(text)]
    names = NAME.findall(text)
    out = []
    for name in offered:
        parts = split_name(name)
        if parts is None or not names_in(parts[1], words):
            continue
        tool = library.tool(*parts)
        args: dict[str, Any] = {}
        free_ids = list(ids)
        for p, schema in tool.input_schema.get("properties", {}).items():
            value = _literal_value(p, schema, text, free_ids, numbers, quoted, names)
            if value is not None:
                args[p] = value
        out.append((name, args))
    return out


def _literal_value(
    p: str, schema: dict[str, Any], text: str, ids: list[str], numbers: list[float], quoted: list[str], names: list[str]
) -> Any:
    kinds = {b.get("type") for b in schema.get("anyOf", [schema])}
    enum = [e for b in schema.get("anyOf", [schema]) for e in b.get("enum", [])]
    if enum:
        low = text.lower()
        hit = [e for e in enum if isinstance(e, str) and (e.lower() in low or e.replace("_", " ").lower() in low)]
        return hit[0] if hit else None
    if "string" in kinds:
        if (p.endswith("_id") or schema.get("x-entity")) and ids:
            return ids.pop(0)
        if quoted:
            return quoted[0]
        if p in ("query", "name", "q") and names:
            return names[0]
        return None
    if kinds & {"number", "integer"} and numbers:
        return int(numbers[0]) if "integer" in kinds else numbers[0]
    return None


PAPER = RewardConfig(preset="paper")  # the report's figures are the paper's reward, as they always were


def baseline_reward(task: Task, library: Library, sessions: SessionManager, dispatcher: Dispatcher) -> float:
    """The literal policy's reward on ``task``, its calls executed live on a fresh fork of its world."""
    sid = "baseline-" + hashlib.blake2b(task.id.encode(), digest_size=8).hexdigest()  # any task id: a valid session id
    build_initial(task, sessions, dispatcher, sid)
    calls: list[CallRecord] = []
    try:
        for turn_index, turn in enumerate(task.turns):
            for name, args in literal_calls(turn.user, task.tools, library):
                server, tool = name.split("__", 1)
                out = dispatcher.call(sid, server, tool, args)
                calls.append(CallRecord(name, args, turn_index, out.ok, out.error_kind))
    finally:
        sessions.close(sid)
    return score(task, calls, _schemas(task, library), PAPER, replies=[]).total  # it never says a word


def oracle_score(task: Task, library: Library) -> RewardBreakdown:
    """The paper preset's breakdown of the ground truth played as the oracle plays it (its calls, its questions)."""
    index = {id(s): i for i, t in enumerate(task.turns) for s in t.calls}
    calls = [CallRecord(s.name, s.arguments, index[id(s)], True) for s in task.gt_steps()]
    asks = [(i, clarifying_question(task, i)) for i, t in enumerate(task.turns) if t.ask]
    return score(task, calls, _schemas(task, library), PAPER, replies=asks)


def at_maximum(breakdown: RewardBreakdown) -> bool:
    return abs(breakdown.total - breakdown.max) < 1e-9


def oracle_at_maximum(task: Task, library: Library) -> bool:
    """Whether the oracle scores the task's maximum: an ask the reward's question check cannot recognise would make a
    task no policy can ace."""
    return at_maximum(oracle_score(task, library))


def _schemas(task: Task, library: Library) -> dict[str, dict[str, Any]]:
    return {n: library.tool(*n.split("__", 1)).input_schema for n in task.tools if split_name(n)}


# The report ------------------------------------------------------------------------------------


def figures(tasks: list[Task], library: Library) -> dict[str, Any]:
    """The text figures of a task set (no execution)."""
    leak = calls = verb = values = id_turns = turns = multi = linked_n = 0
    for t in tasks:
        texts = asking_texts(t)
        so_far = ""
        for text, turn in zip(texts, [x for x in t.turns if x.calls]):
            so_far += " " + text
            words = _words(text)
            for s in turn.calls:
                calls += 1
                leak += names_in(s.tool, words)
                for v in (x for a in s.arguments.values() for x in _values(a)):
                    values += 1
                    verb += stated(v, so_far)
        for turn in t.turns:
            turns += 1
            id_turns += bool(ID_TOKEN.search(turn.user))
        if len(t.gt_steps()) > 1:
            multi += 1
            linked_n += linked(t)
    mcp = [t for t in tasks if t.kind == "mcp"]
    sequences = {tuple(s.name for s in t.gt_steps()) for t in mcp}
    return {
        "tasks": len(tasks),
        "name_leak": _share(leak, calls),
        "verbatim_values": _share(verb, values),
        "id_turns": _share(id_turns, turns),
        "linked": _share(linked_n, multi),
        "distinct_sequences": _share(len(sequences), len(mcp)),
    }


def report(
    tasks: list[Task],
    library: Library,
    *,
    baseline_sample: int = MAX_BASELINE,
    fallback_servers: list[str] | None = None,
    seconds: float | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every figure of the module docstring, overall and per source."""
    all_tools = [f"{s}__{t}" for s in library.mounts for t in library.mount(s).tools]
    per_tool = Counter(s.name for t in tasks for s in t.gt_steps())
    per_server = Counter(stratum(t)[0] for t in tasks)
    sources = Counter(t.meta.get("synth", {}).get("source", "unknown") for t in tasks)
    out: dict[str, Any] = figures(tasks, library)
    out["by_source"] = {
        s: figures([t for t in tasks if t.meta.get("synth", {}).get("source") == s], library) for s in sorted(sources)
    }
    out["worlds"] = len({t.initial.seed for t in tasks})
    days = [now.date() for t in tasks if (now := library.now_of(t.servers[0], t.initial.seed)) is not None]
    out["reference_dates"] = len(set(days))
    out["weekend_tasks"] = _share(sum(d.weekday() >= 5 for d in days), len(days))
    out["smallest_server"] = list(min(((n, s) for s, n in per_server.items()), default=(0, None)))
    out["largest_server"] = list(max(((n, s) for s, n in per_server.items()), default=(0, None)))
    out["rarest_tool"] = list(min(((per_tool[n], n) for n in all_tools), default=(0, None)))
    out["tools_under_10"] = sum(per_tool[n] < 10 for n in all_tools)
    out["replay_verified"] = _share(sum(t.expected_state_hash is not None for t in tasks), len(tasks))
    out["abstain_cue"] = giveaway.abstain_cue(tasks, library)
    out["answers"] = giveaway.answer_coverage(tasks, library)
    out.update(honest.figures(tasks))
    out.update(_baseline(tasks, library, baseline_sample))
    out["phrasing"] = phrasing.figures(tasks)
    out["fallback_servers"] = fallback_servers or []
    if seconds is not None:
        out["seconds"] = round(seconds, 1)
    out.update(extra or {})
    return out


def _baseline(tasks: list[Task], library: Library, sample: int) -> dict[str, Any]:
    step = max(1, len(tasks) // max(1, sample))
    chosen = tasks[::step][:sample]
    world = World(library, max_sessions=1_000_000)
    base = [baseline_reward(t, library, world.sessions, world.dispatcher) for t in chosen]
    scored = [oracle_score(t, library) for t in chosen]
    oracle = [b.total for b in scored]
    at_max = sum(map(at_maximum, scored))
    out = {"baseline": _means(base, oracle) | {"tasks": len(chosen), "oracle_at_maximum": _share(at_max, len(chosen))}}
    by_source: dict[str, Any] = {}
    for src in sorted({t.meta.get("synth", {}).get("source", "unknown") for t in chosen}):
        pick = [i for i, t in enumerate(chosen) if t.meta.get("synth", {}).get("source", "unknown") == src]
        by_source[src] = _means([base[i] for i in pick], [oracle[i] for i in pick]) | {"tasks": len(pick)}
    out["baseline"]["by_source"] = by_source
    return out


def _means(base: list[float], oracle: list[float]) -> dict[str, Any]:
    mean_b = sum(base) / len(base) if base else 0.0
    mean_o = sum(oracle) / len(oracle) if oracle else 0.0
    return {
        "mean_reward": round(mean_b, 4),
        "oracle_mean_reward": round(mean_o, 4),
        "ratio": round(mean_b / mean_o, 4) if mean_o else None,
    }


def _share(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def write(out: Path, tasks: list[Task], library: Library, **kwargs: Any) -> dict[str, Any]:
    """``OUT/realism.json``; the headline figures are added to ``OUT/manifest.json`` under ``realism``."""
    data = report(tasks, library, **kwargs)
    (out / "realism.json").write_text(json.dumps(data, indent=1) + "\n")
    manifest = out / "manifest.json"
    if manifest.exists():
        m = json.loads(manifest.read_text())
        m["realism"] = {k: v for k, v in data.items() if k != "by_source"}
        manifest.write_text(json.dumps(m, indent=1) + "\n")
    return data
