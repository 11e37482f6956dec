"""Parity: the hub's score of suite episodes against the benchmark's own evaluator, run in-process on the same calls.

    python -m hub.suites.parity bfcl-mt [--limit N] [--json]
    python -m hub.suites.parity tau2-airline

Every task is played through the hub's episode engine (the same path ``/ws`` takes: open, step with the
model's text, finish) by three kinds of policy: the oracle (the ground truth), a no-op (never calls), and
perturbed versions of the ground truth (a call dropped, a value changed, a call repeated, two calls swapped,
calls split over several messages or moved a turn early: seeded by the task id). Each episode's calls are
then handed to the benchmark's official evaluator (bfcl-eval's ``multi_turn_checker``; tau2's
``evaluate_simulation``), which re-executes them on its own instances, and the two verdicts are compared.
Runs only in the suite's environment (it imports the benchmark).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hub.core import build_library
from hub.engine.episodes import EpisodeEngine
from hub.engine.world import World
from hub.kit.names import split_name
from hub.suites import get_suite
from hub.tasks import Task, TaskSet, hermes_call
from hub.tasks.oracle import answer_text
from hub.wire import EpisodeLimits

# litellm (which tau2's evaluator imports for its judge) fetches a price list at import unless told to use its own copy
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

Script = list[list[list[tuple[str, dict[str, Any]]]]]  # per turn, per message, the calls (name, arguments)


@dataclass
class Played:
    task: Task
    policy: str
    hub: float
    reference: float
    detail: str = ""


@dataclass
class Report:
    suite: str
    rows: list[Played] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def table(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in self.rows:
            row = out.setdefault(r.policy, {"episodes": 0, "equal": 0, "hub_pass": 0, "reference_pass": 0})
            row["episodes"] += 1
            row["equal"] += r.hub == r.reference
            row["hub_pass"] += r.hub >= 1.0
            row["reference_pass"] += r.reference >= 1.0
        return out

    def mismatches(self) -> list[Played]:
        return [r for r in self.rows if r.hub != r.reference]


def engine_for(mounts: Sequence[str], tasks: Sequence[Task]) -> EpisodeEngine:
    library = build_library(list(mounts), builtin=False)
    world = World(library, max_state_bytes=None)
    limits = EpisodeLimits(max_steps=1000, max_calls_per_step=256)
    return EpisodeEngine(
        library, world.sessions, world.dispatcher, world.bus, TaskSet(tasks), limits=limits, keep_evidence=False
    )


def play(engine: EpisodeEngine, task: Task, script: Script) -> Any:
    """Play one episode: each turn's messages (each its calls, Hermes text), then the oracle's answer; the episode."""
    ep = engine.open_group(task.id, 1)[0]
    for i, turn in enumerate(script):
        for message in turn:
            if ep.done:
                break
            engine.step(ep.id, "\n".join(hermes_call(n, a) for n, a in message))
        if not ep.done:
            engine.step(ep.id, answer_text(task.turns[i].answer))
    engine.finish(ep.id)
    return ep


# Policies ---------------------------------------------------------------------------------------


def oracle(task: Task) -> Script:
    return [[[(s.name, dict(s.arguments)) for s in t.calls]] if t.calls else [] for t in task.turns]


def noop(task: Task) -> Script:
    return [[] for _ in task.turns]


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list):
        return value[:-1] if value else ["x"]
    return "x"


PERTURBATIONS = ("drop", "change", "repeat", "swap", "split", "early")


def perturbed(task: Task, how: str, rng: random.Random) -> Script:
    """The ground truth with one change (``PERTURBATIONS``), placed by ``rng``."""
    calls = [[(s.name, dict(s.arguments)) for s in t.calls] for t in task.turns]
    busy = [i for i, c in enumerate(calls) if c]
    t = rng.choice(busy)
    k = rng.randrange(len(calls[t]))
    if how == "drop":
        del calls[t][k]
    elif how == "change":
        name, args = calls[t][k]
        if args:
            key = rng.choice(sorted(args))
            args[key] = _changed(args[key])
        else:
            del calls[t][k]
    elif how == "repeat":
        calls[t].insert(k, calls[t][k])
    elif how == "swap" and len(calls[t]) > 1:
        j = (k + 1) % len(calls[t])
        calls[t][k], calls[t][j] = calls[t][j], calls[t][k]
    elif how == "early" and t > 0:
        calls[t - 1].extend(calls[t])
        calls[t] = []
    if how == "split":
        return [[[c] for c in turn] for turn in calls]
    return [[turn] if turn else [] for turn in calls]


# BFCL -------------------------------------------------------------------------------------------


def bfcl_reference(ep: Any, model_name: str) -> tuple[float, str]:
    """bfcl-eval's ``multi_turn_checker`` on the episode's calls, decoded as its FC handlers decode them."""
    from bfcl_eval.constants.default_prompts import MAXIMUM_STEP_LIMIT
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    from hub.suites.bfcl import CLASS_OF, bfcl_call

    task = ep.task
    decoded: list[list[list[str]]] = [[] for _ in task.turns]
    steps: dict[tuple[int, int], list[str]] = {}
    for c in ep.calls:
        if c.name is None:
            continue
        method = (split_name(c.name) or ("", c.name))[1]
        steps.setdefault((c.turn, c.step), []).append(bfcl_call(method, c.arguments))
    for (turn, _), found in sorted(steps.items()):
        decoded[turn].append(found)
    if ep.reason != "completed" or any(len(steps) > MAXIMUM_STEP_LIMIT for steps in decoded):
        # BFCL's inference loop quits a turn past MAXIMUM_STEP_LIMIT steps with calls: fewer turns than the truth
        return 0.0, "force_terminated"
    if len(decoded) != len(task.turns):
        return 0.0, "force_terminated"
    entry = {
        "id": task.id,
        "involved_classes": task.meta["classes"],
        "initial_config": {CLASS_OF[s]: c for s, c in task.initial.configs.items()},
    }
    result = multi_turn_checker(
        decoded, task.meta["ground_truth"], entry, f"multi_turn_{task.meta['category']}", model_name
    )
    return (1.0 if result["valid"] else 0.0), result.get("error_type", "")


def bfcl_parity(limit: int | None, perturbations: int) -> Report:
    from hub.suites.bfcl import import_tasks, mount_specs

    tasks, problems = import_tasks()
    tasks = tasks[:limit] if limit else tasks
    engine = engine_for(mount_specs(), tasks)
    report = Report("bfcl-mt", problems=problems)
    for task in tasks:
        rng = random.Random(task.id)
        policies: list[tuple[str, Script]] = [("oracle", oracle(task)), ("noop", noop(task))]
        for how in rng.sample(PERTURBATIONS, perturbations):
            policies.append((f"perturbed:{how}", perturbed(task, how, rng)))
        for name, script in policies:
            ep = play(engine, task, script)
            reference, why = bfcl_reference(ep, f"hub_parity_{name.replace(':', '_')}")
            hub = ep.reward.total if ep.reward is not None else -1.0
            report.rows.append(
                Played(task, name, hub, reference, f"{why} | hub: {ep.reward.reasons if ep.reward else ''}")
            )
            engine.close(ep.id)
    return report


# tau2 -------------------------------------------------------------------------------------------


def tau2_trajectory(ep: Any) -> list[Any]:
    """The episode as tau2 messages: the greeting, each user turn (with the user's own calls), each agent message
    with its calls and their results as the hub returned them."""
    from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage

    from hub.suites.tau2 import GREETING

    def calls_of(records: list[Any], requestor: str) -> tuple[list[Any], list[Any]]:
        calls, results = [], []
        for k, c in enumerate(records):
            cid = f"{requestor}-{c.step}-{c.turn}-{k}"
            calls.append(ToolCall(id=cid, name=c.name.split("__", 1)[-1], arguments=c.arguments, requestor=requestor))
            results.append(
                ToolMessage(id=cid, role="tool", content=c.text, requestor=requestor, error=not c.ok)  # type: ignore[arg-type]
            )
        return calls, results

    turns = ep.task.turns

    def deliver(t: int) -> list[Any]:
        mine = [c for c in ep.user_calls if c.turn == t]
        said = [UserMessage(role="user", content=turns[t].user)]
        if not mine:
            return said
        calls, results = calls_of(mine, "user")
        return [UserMessage(role="user", tool_calls=calls), *results, *said]

    out: list[Any] = [AssistantMessage(role="assistant", content=GREETING), *deliver(0)]
    for step, (turn, text) in enumerate(ep.replies, 1):
        made = [c for c in ep.calls if c.step == step]
        if made:
            calls, results = calls_of(made, "assistant")
            out += [AssistantMessage(role="assistant", content=text or None, tool_calls=calls), *results]
            continue
        out.append(AssistantMessage(role="assistant", content=text))
        if turn + 1 < len(turns) and turn + 1 <= ep.turn:
            out += deliver(turn + 1)
    return out


def tau2_reference(ep: Any, domain: str) -> tuple[float, str]:
    """tau2's ``evaluate_simulation`` (all components, as ``tau2 run`` evaluates) on the episode's trajectory."""
    from tau2.data_model.simulation import SimulationRun, TerminationReason
    from tau2.data_model.tasks import Task as Tau2Task
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    reason = TerminationReason.USER_STOP if ep.reason == "completed" else TerminationReason.MAX_STEPS
    run = SimulationRun(
        id=ep.id,
        task_id=ep.task.id,
        start_time="",
        end_time="",
        duration=0.0,
        termination_reason=reason,
        messages=tau2_trajectory(ep),
    )
    task = Tau2Task.model_validate(ep.task.meta["tau2"])
    info = evaluate_simulation(run, task, EvaluationType.ALL, solo_mode=False, domain=domain)
    return float(info.reward), json.dumps(info.reward_breakdown or {}, default=str)


def tau2_parity(domain: str) -> Callable[[int | None, int], Report]:
    def run(limit: int | None, perturbations: int) -> Report:
        from hub.suites.tau2 import import_tasks, mount_specs

        tasks, problems = import_tasks(domain)
        tasks = tasks[:limit] if limit else tasks
        engine = engine_for(mount_specs(domain), tasks)
        report = Report(f"tau2-{domain}", problems=problems)
        for task in tasks:
            rng = random.Random(task.id)
            policies: list[tuple[str, Script]] = [("oracle", oracle(task)), ("noop", noop(task))]
            if any(t.calls for t in task.turns):
                for how in rng.sample(PERTURBATIONS, perturbations):
                    policies.append((f"perturbed:{how}", perturbed(task, how, rng)))
            for name, script in policies:
                ep = play(engine, task, script)
                reference, why = tau2_reference(ep, domain)
                hub = ep.reward.total if ep.reward is not None else -1.0
                detail = f"official {why} | hub {ep.reward.reasons if ep.reward else ''}"
                report.rows.append(Played(task, name, hub, reference, detail))
                engine.close(ep.id)
        return report

    return run


PARITY: dict[str, Callable[[int | None, int], Report]] = {
    "bfcl-mt": bfcl_parity,
    **{f"tau2-{d}": tau2_parity(d) for d in ("airline", "retail", "telecom")},
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.suites.parity")
    p.add_argument("suite")
    p.add_argument("--limit", type=int, default=None, help="only the first N tasks")
    p.add_argument("--perturbations", type=int, default=3, help="perturbed trajectories per task (default 3)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    suite = get_suite(args.suite)
    run = PARITY.get(suite.name)
    if run is None:
        print(f"no parity check for {suite.name}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    report = run(args.limit, args.perturbations)
    report.seconds = time.perf_counter() - start
    table = report.table()
    misses = report.mismatches()
    if args.json:
        out = {
            "suite": report.suite,
            "table": table,
            "problems": report.problems,
            "seconds": report.seconds,
            "mismatches": [
                {"task": r.task.id, "policy": r.policy, "hub": r.hub, "reference": r.reference, "detail": r.detail}
                for r in misses
            ],
            "by_category": dict(Counter(str(r.task.meta.get("category")) for r in report.rows if r.policy == "oracle")),
        }
        print(json.dumps(out, indent=1))
    else:
        print(f"{report.suite}: {len(report.rows)} episodes in {report.seconds:.1f}s")
        print(f"{'policy':<22} {'episodes':>8} {'equal':>6} {'hub pass':>9} {'official pass':>14}")
        for name, row in table.items():
            print(f"{name:<22} {row['episodes']:>8} {row['equal']:>6} {row['hub_pass']:>9} {row['reference_pass']:>14}")
        for r in misses[:20]:
            print(f"MISMATCH {r.task.id} {r.policy}: hub {r.hub} official {r.reference} ({r.detail})")
        for line in report.problems:
            print(f"not imported: {line}")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
