"""BFCL multi-turn as a suite: its 800 entries as hub tasks, its 8 classes mounted, scored as bfcl-eval scores.

Needs ``bfcl-eval`` (the suite's environment: ``prove-hub suite install bfcl-mt``); everything comes from the
package: the entries and their ground truth (``bfcl_eval/data``), the function docs (imported as the tools'
schemas), the classes (mounted through the public ``--mount`` door, ``render=repr`` so results read as BFCL's
harness shows them, ``validation=none`` so arguments reach the method as BFCL's ``eval`` passes them).

An entry becomes a task:

- its turns are the user turns; a ``miss_func`` turn that only adds functions says BFCL's own prompt ("I have
  updated some more functions you can choose from. What about now?") and offers them from then on
  (``Turn.adds_tools``);
- a ``miss_param`` turn with no ground truth is an ask turn; the withheld parameter is found from the entry's
  own data (the next turn's ground-truth values that it states and the ask turn does not); where none is found
  the turn keeps no ``missing``, and no call is all the benchmark asks there;
- the ground truth is BFCL's, parsed (positional arguments named by the method's signature);
- ``long_context`` entries load their scenario with ``long_context=True``, as BFCL does.

The scorer is BFCL's per-turn check, on the episode's own live state: after each turn with ground truth, the
state of every involved instance must equal the ground truth's (``state_checker``: public attributes) and the
ground truth's execution results must be a sub-multiset of the model's so far (``response_checker``); a turn
with ground truth and no model call fails; more than 20 model messages with calls in one turn, or an episode
that did not play every turn, is BFCL's force-termination. The two checks are bfcl-eval's own functions,
applied to the hub's states and results; ``hub.suites.parity`` proves the whole path equal to bfcl-eval's
evaluator, which re-executes the calls itself.
"""

from __future__ import annotations

import ast
import inspect
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import bfcl_eval
from bfcl_eval.constants.default_prompts import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC, MAXIMUM_STEP_LIMIT
from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING, STATELESS_CLASSES
from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import response_checker, state_checker

from hub.engine.reward import RewardBreakdown
from hub.engine.world import World
from hub.errors import TaskError
from hub.kit.names import tool_name
from hub.mount import snake_case
from hub.suites.scoring import expected
from hub.suites.scoring import verdict as breakdown
from hub.tasks.model import GTStep, InitialState, Task, Turn

SUITE = "bfcl-mt"
CATEGORIES = ("base", "miss_func", "miss_param", "long_context")
DATA = Path(bfcl_eval.__file__).resolve().parent / "data"
DOCS = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
}
SERVERS = {cls: snake_case(cls) for cls in DOCS}
CLASS_OF = {server: cls for cls, server in SERVERS.items()}


def mount_specs() -> list[str]:
    """The ``--mount`` specs of BFCL's multi-turn classes."""
    return [
        f"{CLASS_FILE_PATH_MAPPING[cls]}:{cls}?schemas={DATA / 'multi_turn_func_doc' / doc}&render=repr&validation=none"
        for cls, doc in DOCS.items()
    ]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _docs(cls: str) -> list[dict[str, Any]]:
    return _jsonl(DATA / "multi_turn_func_doc" / DOCS[cls])


def entries(category: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(entry, possible answer) pairs of one category, from the package's data."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown BFCL multi-turn category {category!r}; categories: {', '.join(CATEGORIES)}")
    questions = _jsonl(DATA / f"BFCL_v4_multi_turn_{category}.json")
    answers = {a["id"]: a for a in _jsonl(DATA / "possible_answer" / f"BFCL_v4_multi_turn_{category}.json")}
    return [(q, answers[q["id"]]) for q in questions]


# Ground truth ------------------------------------------------------------------------------------


def _method_owner(involved: Sequence[str]) -> dict[str, str]:
    """Which involved class a method name runs on; a later class wins, as in BFCL's execution."""
    owner: dict[str, str] = {}
    for cls in involved:
        module = __import__(CLASS_FILE_PATH_MAPPING[cls], fromlist=[cls])
        for name, _ in inspect.getmembers(getattr(module, cls), inspect.isfunction):
            if not name.startswith("_"):
                owner[name] = cls
    return owner


def parse_call(text: str, owner: dict[str, str]) -> tuple[str, str, dict[str, Any]]:
    """``"mv(source='a', destination='b')"`` -> (class, method, keyword arguments); positional ones named."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise TaskError(f"ground-truth call {text!r} does not parse: {exc.msg}") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise TaskError(f"ground-truth call {text!r} is not a plain function call")
    method = node.func.id
    cls = owner.get(method)
    if cls is None:
        raise TaskError(f"ground-truth call {text!r}: no involved class has a method {method!r}")
    module = __import__(CLASS_FILE_PATH_MAPPING[cls], fromlist=[cls])
    params = [p for p in inspect.signature(getattr(getattr(module, cls), method)).parameters if p != "self"]
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    except ValueError as exc:
        raise TaskError(f"ground-truth call {text!r} has a value that is not a literal: {exc}") from None
    if len(args) > len(params):
        raise TaskError(f"ground-truth call {text!r} gives more positional arguments than {method} takes")
    return cls, method, {**dict(zip(params, args)), **kwargs}


def bfcl_call(method: str, arguments: dict[str, Any]) -> str:
    """A call as BFCL's FC handlers decode it (``convert_to_function_call``): ``name(k=repr(v),...)``."""
    return f"{method}({','.join(f'{k}={v!r}' for k, v in arguments.items())})"


def _stated(value: Any, text: str) -> bool:
    words = [value] if not isinstance(value, (list, tuple)) else list(value)
    return all(str(w).lower() in text.lower() for w in words if w not in (None, ""))


def _missing(ask_text: str, next_text: str, next_calls: Sequence[GTStep]) -> list[str]:
    """The parameters an ask turn withholds: the next turn's values that it states and the ask turn does not."""
    found = []
    for step in next_calls:
        for key, value in step.arguments.items():
            if isinstance(value, bool) or value is None:
                continue
            if _stated(value, next_text) and not _stated(value, ask_text) and key not in found:
                found.append(key)
    return found


def to_task(entry: dict[str, Any], answer: dict[str, Any]) -> Task:
    """One BFCL multi-turn entry as a hub task (TaskError when it cannot be one)."""
    eid = entry["id"]
    category = eid.rsplit("_", 1)[0].removeprefix("multi_turn_")
    involved: list[str] = list(entry["involved_classes"])
    unknown = [c for c in involved if c not in DOCS]
    if unknown:
        raise TaskError(f"{eid}: involves {', '.join(unknown)}, which is not a multi-turn class")
    owner = _method_owner(involved)
    held = {int(k): list(v) for k, v in (entry.get("missed_function") or {}).items()}
    held_names = {n for names in held.values() for n in names}
    offered = [tool_name(SERVERS[c], d["name"]) for c in involved for d in _docs(c) if d["name"] not in held_names]
    gt: list[list[str]] = answer["ground_truth"]
    if len(gt) != len(entry["question"]):
        raise TaskError(f"{eid}: {len(entry['question'])} turns but ground truth for {len(gt)}")
    turns: list[Turn] = []
    n = 0
    for i, (messages, calls) in enumerate(zip(entry["question"], gt)):
        steps = []
        for text in calls:
            cls, method, kwargs = parse_call(text, owner)
            n += 1
            steps.append(GTStep(id=f"s{n}", server=SERVERS[cls], tool=method, arguments=kwargs))
        adds = [tool_name(SERVERS[owner[m]], m) for m in held.get(i, [])]
        if messages:
            user = "\n".join(m["content"] for m in messages if m.get("role") == "user")
        elif adds:
            user = DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
        else:
            raise TaskError(f"{eid}: turn {i} has no user message and adds no function")
        turns.append(Turn(user=user, calls=steps, adds_tools=adds))
    if category == "miss_param":
        for i, turn in enumerate(turns):
            if not turn.calls and i + 1 < len(turns):
                turn.ask = True
                turn.missing = _missing(turn.user, turns[i + 1].user, turns[i + 1].calls)
    configs = {
        SERVERS[c]: (entry.get("initial_config") or {}).get(c, {}) for c in involved if c not in STATELESS_CLASSES
    }
    long = category == "long_context"
    return Task(
        id=eid,
        kind="clarify" if any(t.ask for t in turns) else "mcp",
        split="test",
        servers=[SERVERS[c] for c in involved],
        initial=InitialState(
            configs=configs, loader_kwargs={s: {"long_context": True} for s in configs} if long else {}
        ),
        turns=turns,
        tools=offered,
        meta={"suite": SUITE, "category": category, "ground_truth": gt, "classes": involved},
        scorer=SUITE,
        bare_names=True,
    )


def import_tasks(categories: Iterable[str] = CATEGORIES) -> tuple[list[Task], list[str]]:
    """Every entry of ``categories`` as a task; the entries that cannot be one are reported, not fatal."""
    tasks, problems = [], []
    for category in categories:
        for entry, answer in entries(category):
            try:
                tasks.append(to_task(entry, answer))
            except (TaskError, ValueError) as exc:
                problems.append(f"{entry['id']}: {getattr(exc, 'message', exc)}")
    return tasks, problems


# The scorer -------------------------------------------------------------------------------------


class GroundTruth:
    """The ground truth of one task played turn by turn in a fresh session: each turn's states and results."""

    def __init__(self, world: World, task: Task, session: Any) -> None:
        self.states: list[dict[str, Any]] = []
        self.results: list[list[str]] = []
        for turn in task.turns:
            texts = []
            for step in turn.calls:
                texts.append(world.dispatcher.call(session.id, step.server, step.tool, step.arguments).text())
            self.results.append(texts)
            self.states.append({s: _instance(session, s) for s in task.servers})


def ground_truth(engine: Any, task: Task) -> GroundTruth:
    return expected(engine, task, GroundTruth)


def turn_end(session: Any, episode: Any) -> None:
    episode.turn_states.append({s: _instance(session, s) for s in episode.task.servers})


def _instance(session: Any, server: str) -> Any:
    """The server's instance as it is now, kept: its version is marked shared, so the next write copies it."""
    fork = session.fork_of(server)
    fork.clone()
    return fork.instance


def verdict(task: Task, episode: Any, truth: GroundTruth) -> tuple[bool, str, str]:
    """(passed, BFCL's error type or "", its message): ``multi_turn_checker`` on the episode's states and results."""
    n = len(task.turns)
    if episode.reason != "completed" or len(episode.turn_states) < n:
        return False, "multi_turn:force_terminated", f"the episode ended ({episode.reason}) before all {n} turns"
    seen: list[str] = []
    for t in range(n):
        calls = [c for c in episode.calls if c.turn == t and c.name is not None]
        if len({c.step for c in calls}) > MAXIMUM_STEP_LIMIT:
            return False, "multi_turn:force_terminated", f"more than {MAXIMUM_STEP_LIMIT} steps in turn {t}"
        seen.extend(c.text or "" for c in calls)
        if not task.turns[t].calls:
            continue
        if not calls:
            return False, "multi_turn:empty_turn_model_response", f"Model response list is empty for turn {t}"
        model = {CLASS_OF[s]: inst for s, inst in episode.turn_states[t].items()}
        gold = {CLASS_OF[s]: inst for s, inst in truth.states[t].items()}
        state = state_checker(model, gold)
        if not state["valid"]:
            return False, state["error_type"], state["error_message"]
        response = response_checker(seen, truth.results[t], t)
        if not response["valid"]:
            return False, response["error_type"], response["error_message"]
    return True, "", ""


def score(engine: Any, episode: Any, session: Any) -> RewardBreakdown:
    task = episode.task
    passed, kind, why = verdict(task, episode, ground_truth(engine, task))
    total = 1.0 if passed else 0.0
    return breakdown(task, SUITE, total, {"accuracy": total}, f"{kind}: {why}" if kind else "", len(episode.calls))
