"""Does the reward put trajectories in the right order? Variants of synthesized tasks, played over ``/ws``.

    .venv/bin/prove-hub synth --n 3000 --out /tmp/ds --seed 0
    .venv/bin/python benchmarks/reward_order.py /tmp/ds [--limit 600] [--concurrency 8] [--json out.json]

The hub runs in its own process (``prove-hub serve --tasks`` on the set's tasks, a temporary store); this process
plays, per task, variants of its ground truth through ``trainer_client.hub_client`` and finishes every episode
twice, under the ``outcome`` and the ``paper`` preset:

- ``gt``: the oracle (each turn's calls, then a reply stating the turn's recorded answer, if any);
- ``lean``: the oracle with the paging and presentation keys (``limit``, ``offset``, ``sort``, ...) dropped from its
  reads, where the schema does not require them and synthesis did not mark them as stated: a correct path;
- ``wrong``: the oracle with one argument of one write changed to another valid value (another enum member, the
  other boolean, a number scaled, a date a day later, a text edited), kept only when the call still succeeds and the
  final state then differs from the expected one;
- on clarify tasks, the ask turn answered by natural questions (by the kind of value withheld, and in the intent's
  words when the task records them), by "Anything else I can do for you?" and "Done.", and by one question
  stuffed with every parameter word of the offered tools; the later turns are the oracle's.

It prints the issue's target table for both presets, and what the task set records of the provenance the outcome
preset reads (``sources``, ``about``, ``answer``): a task without it is scored as the paper would score it, bar the
state gate. The natural questions are written here from the kinds of value people ask for, by the same hand that
wrote the ask check's rules: a set's own questions (the SFT export's) are the independent test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hub.core import build_library  # noqa: E402
from hub.engine.clarify import WH_WORDS, missing_params, withheld_step  # noqa: E402
from hub.engine.episodes import function_schema  # noqa: E402
from hub.engine.question import clarifying_question  # noqa: E402
from hub.net import free_port  # noqa: E402
from hub.tasks import Task, hermes_call, read_jsonl  # noqa: E402
from hub.tasks.oracle import answer_text  # noqa: E402
from trainer_client.hub_client import HubClient  # noqa: E402

PAGING = frozenset(
    "limit offset page page_size per_page sort sort_by order order_by direction descending ascending".split()
)
CLOSERS = ("Anything else I can do for you?", "Done.")
REFUSAL = "Sorry, none of my tools can do that."

# How a person asks for a value, by what it is (the parameter's name words, its JSON type and format).
ASKS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset("amount price cost total budget limit balance fee deposit payment".split()), "How much should it be?"),
    (frozenset("quantity count seats guests nights copies units".split()), "How many would you like?"),
    (frozenset("rating stars score points".split()), "How would you rate it?"),
    (frozenset("duration minutes hours length".split()), "How long should it be?"),
    (frozenset("freq frequency interval recurrence".split()), "How often should it happen?"),
    (frozenset("date time start end deadline due expiry check when".split()), "What day and time should it be?"),
    (frozenset("user member contact customer assignee owner recipient payee".split()), "Who should I use?"),
    (frozenset("address street city location destination room".split()), "Where should it go?"),
    (
        frozenset("text content body message comment note notes description memo reason review reply".split()),
        "What would you like it to say?",
    ),
    (frozenset("subject topic".split()), "What is it about?"),
    (frozenset("title name label nickname".split()), "What should I call it?"),
)


def natural_questions(task: Task, turn: int, schemas: dict[str, dict[str, Any]]) -> list[str]:
    """Questions a person would ask for what the turn withholds: by the kind of value, and in the intent's words."""
    out = []
    for param in missing_params(task, turn)[0]:
        words = set(param.split("_"))
        step = withheld_step(task, turn, param)  # the call that needs it, else any offered tool that takes it
        names = [step.name] if step is not None else []
        names += [n for n, s in schemas.items() if param in s.get("properties", {})]
        prop: dict[str, Any] = next((schemas[n]["properties"][param] for n in names if n in schemas), {})
        kinds = [q for triggers, q in ASKS if words & triggers]
        if prop.get("enum") or prop.get("x-entity") or param.endswith("_id"):
            kinds.append("Which one do you mean?")
        if not kinds and prop.get("type") in ("integer", "number"):
            kinds.append("How much should it be?")
        out += kinds[:1] or [f"Could you tell me the {' '.join(w for w in param.split('_') if w != 'id')}?"]
        about = task.turns[turn].about.get(param, "")
        if about.split(" ")[1:2] and about.split(" ")[1] in WH_WORDS:  # "the how often": the intent's question
            about = about.removeprefix("the ")
        if about:
            out.append(f"Sure, could you tell me {about}?")
    return list(dict.fromkeys(out))


def stuffed_question(schemas: dict[str, dict[str, Any]]) -> str:
    words = sorted({p.replace("_", " ") for s in schemas.values() for p in s.get("properties", {})})
    return "To do that, could you give me the " + ", the ".join(words) + "?"


# Scripts -----------------------------------------------------------------------------------------


def script(task: Task, calls: list[list[dict[str, Any]]] | None = None, ask: str | None = None) -> list[str]:
    """The model's messages: per turn its calls (``calls``: per turn, [(name, arguments)], default the ground
    truth) then a reply stating the turn's answer; ``ask`` (default the oracle's question) on an ask turn."""
    out = []
    for i, turn in enumerate(task.turns):
        if turn.ask:
            out.append(ask if ask is not None else clarifying_question(task, i))
            continue
        mine: list[dict[str, Any]] = (
            calls[i] if calls is not None else [{"name": s.name, "arguments": s.arguments} for s in turn.calls]
        )
        if mine:
            out.append("\n".join(hermes_call(c["name"], c["arguments"]) for c in mine))
            out.append(answer_text(turn.answer))
        elif turn.answer:
            out.append(answer_text(turn.answer))
        else:
            out.append(REFUSAL)
    return out


def gt_calls(task: Task) -> list[list[dict[str, Any]]]:
    return [[{"name": s.name, "arguments": dict(s.arguments)} for s in t.calls] for t in task.turns]


def lean(task: Task, library: Any) -> list[list[dict[str, Any]]] | None:
    """The ground truth without the paging and presentation keys of its reads (None: it has none to drop)."""
    out, dropped = gt_calls(task), 0
    steps = [s for t in task.turns for s in t.calls]
    flat = [c for t in out for c in t]
    for step, call in zip(steps, flat):
        tool = library.tool(step.server, step.tool)
        if tool.kind != "read":
            continue
        required = set(tool.input_schema.get("required") or ())
        for key in list(call["arguments"]):
            source = step.sources.get(key)
            if key in PAGING and key not in required and (source is None or source.role == "incidental"):
                del call["arguments"][key]
                dropped += 1
    return out if dropped else None


def changed(value: Any, prop: dict[str, Any], rng: random.Random) -> Any:
    """Another valid value for a parameter, or None."""
    enum = prop.get("enum") or next((b.get("enum") for b in prop.get("anyOf", []) if b.get("enum")), None)
    if enum:
        others = [e for e in enum if e != value]
        return rng.choice(others) if others else None
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        top = prop.get("maximum")
        new = value * 2 if value else 1
        return new if top is None or new <= top else max(prop.get("minimum", 0), value - 1)
    if isinstance(value, float):
        return round(value * 1.5 + 1, 2)
    if isinstance(value, str) and not (prop.get("x-entity") or prop.get("format") == "uri"):
        try:
            when = datetime.fromisoformat(value)
        except ValueError:
            return value + " (edited)" if len(value) > 2 else None
        shifted = when + timedelta(days=1)
        return shifted.date().isoformat() if len(value) == 10 else shifted.isoformat(timespec="minutes")
    if isinstance(value, str) and isinstance(prop.get("x-entity"), str):
        return None  # another entity's id would need the world's ids: not a value this variant invents
    return None


def wrong_variants(task: Task, library: Any, rng: random.Random, most: int = 3) -> list[list[list[dict[str, Any]]]]:
    """Up to ``most`` copies of the ground truth with one write argument changed (each a different one)."""
    out = []
    for ti, turn in enumerate(task.turns):
        for ci, step in enumerate(turn.calls):
            tool = library.tool(step.server, step.tool)
            if tool.kind != "write":
                continue
            props = tool.input_schema.get("properties", {})
            keys = [k for k in step.arguments if k in props and not k.endswith("_id")]
            rng.shuffle(keys)
            for key in keys:
                new = changed(step.arguments[key], props[key], rng)
                if new is None or new == step.arguments[key]:
                    continue
                calls = gt_calls(task)
                calls[ti][ci]["arguments"][key] = new
                out.append(calls)
                break
            if len(out) >= most:
                return out
    return out


# Playing -----------------------------------------------------------------------------------------


@dataclass
class Played:
    task: str
    kind: str
    variant: str
    outcome: dict[str, Any]
    paper: dict[str, Any]
    ok: bool  # every call of the script succeeded


@dataclass
class Results:
    played: list[Played] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def play(client: HubClient, task: Task, variant: str, messages: Sequence[str], results: Results) -> None:
    try:
        group = await client.open(task.id)
        (eid,) = group.episodes
        ok = True
        for m in messages:
            obs = await client.step(eid, m)
            ok = ok and all(c["ok"] for c in obs["calls"])
            if obs["done"]:
                break
        outcome = await client.finish(eid, {"preset": "outcome"})
        paper = await client.finish(eid, {"preset": "paper"})
        await client.close_episodes([eid])
    except Exception as exc:  # noqa: BLE001 - the benchmark's boundary: count and go on
        results.errors.append(f"{task.id} {variant}: {type(exc).__name__}: {exc}")
        return
    results.played.append(Played(task.id, task.kind, variant, outcome, paper, ok))


def variants(task: Task, library: Any, rng: random.Random) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    if task.kind == "abstain":
        return out
    out.append(("gt", script(task)))
    thin = lean(task, library)
    if thin is not None:
        out.append(("lean", script(task, thin)))
    for calls in wrong_variants(task, library, rng):
        out.append(("wrong", script(task, calls)))
    ask = next((i for i, t in enumerate(task.turns) if t.ask), None)
    if ask is not None:
        # the schemas the model is shown (enums stripped where the task strips them), which the check reads too
        schemas = {n: function_schema(library, n, task.strip_enums)["function"]["parameters"] for n in task.tools}
        out += [("natural", script(task, ask=q)) for q in natural_questions(task, ask, schemas)]
        out += [("closer", script(task, ask=c)) for c in CLOSERS]
        out.append(("stuffed", script(task, ask=stuffed_question(schemas))))
    return out


async def run(url: str, tasks: list[Task], library: Any, concurrency: int, seed: int) -> Results:
    results = Results()
    queue: asyncio.Queue[Task] = asyncio.Queue()
    for t in tasks:
        queue.put_nowait(t)

    async def worker(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        async with HubClient(url) as client:
            while not queue.empty():
                task = queue.get_nowait()
                for variant, messages in variants(task, library, rng):
                    await play(client, task, variant, messages, results)

    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    return results


# The table ---------------------------------------------------------------------------------------


def share(xs: list[bool]) -> str:
    return f"{sum(xs)} / {len(xs)} ({100 * sum(xs) / len(xs):.1f}%)" if xs else "–"


def correct_path(p: Played) -> bool:
    """A variant that does the task: the oracle, lean reads, or a natural question the check accepted, each ending
    in the expected state with every call successful."""
    comps = p.outcome["components"]
    return p.variant in ("gt", "lean", "natural") and p.ok and comps.get("state", 1) == 1 and comps["clarify"] == 1


def figures(results: Results, preset: str) -> dict[str, list[bool]]:
    by_task: dict[str, list[Played]] = {}
    for p in results.played:
        by_task.setdefault(p.task, []).append(p)
    r = lambda p: p.outcome if preset == "outcome" else p.paper  # noqa: E731
    wrong = [p for p in results.played if p.variant == "wrong" and p.ok and p.outcome["components"].get("state", 1) < 1]
    lean = [p for p in results.played if p.variant == "lean" and p.ok]
    natural = [p for p in results.played if p.variant == "natural"]
    closers = [p for p in results.played if p.variant == "closer"]
    stuffed = [p for p in results.played if p.variant == "stuffed"]
    wrong_ids = {id(p) for p in wrong}
    order = []
    for plays in by_task.values():
        bad = [r(p)["total"] for p in plays if id(p) in wrong_ids]
        good = [r(p)["total"] for p in plays if correct_path(p)]
        if bad and good:
            order.append(max(bad) < min(good))
    return {
        "wrong write value: losing >= 20% of the maximum": [r(p)["normalized"] <= 0.8 for p in wrong],
        "paging/presentation keys dropped: keeping >= 95%": [r(p)["normalized"] >= 0.95 for p in lean],
        "natural clarifying questions: >= 90% of the maximum": [r(p)["normalized"] >= 0.9 for p in natural],
        "natural clarifying questions: R_ask passes": [r(p)["components"]["clarify"] == 1 for p in natural],
        "'Anything else...?' / 'Done.' on the ask turn: R_ask passes": [
            r(p)["components"]["clarify"] == 1 for p in closers
        ],
        "a question stuffed with every parameter word: R_ask passes": [
            r(p)["components"]["clarify"] == 1 for p in stuffed
        ],
        "tasks where every wrong-state variant < every correct path": order,
        "the oracle scores the maximum": [r(p)["normalized"] >= 1 - 1e-9 for p in results.played if p.variant == "gt"],
    }


TARGETS = {
    "wrong write value: losing >= 20% of the maximum": ">= 90%",
    "paging/presentation keys dropped: keeping >= 95%": ">= 90%",
    "natural clarifying questions: >= 90% of the maximum": ">= 90%",
    "natural clarifying questions: R_ask passes": "",
    "'Anything else...?' / 'Done.' on the ask turn: R_ask passes": "0",
    "a question stuffed with every parameter word: R_ask passes": "<= 5%",
    "tasks where every wrong-state variant < every correct path": "all",
    "the oracle scores the maximum": "all",
}


def provenance(tasks: list[Task]) -> dict[str, str]:
    n = len(tasks)
    with_sources = sum(any(s.sources for s in t.gt_steps()) for t in tasks)
    asks = [t for t in tasks if t.kind == "clarify"]
    with_about = sum(any(tu.about for tu in t.turns) for t in asks)
    with_answer = sum(any(tu.answer for tu in t.turns) for t in tasks)
    return {
        "tasks": str(n),
        "tasks whose ground truth records argument sources": f"{with_sources} / {n}",
        "clarify tasks whose ask turn records the intent's words (about)": f"{with_about} / {len(asks)}",
        "tasks that record an answer": f"{with_answer} / {n}",
    }


# Running the hub ---------------------------------------------------------------------------------


def start_hub(tasks_file: Path, store: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HUB_STORE_PATH": str(store)}
    cmd = [sys.executable, "-m", "hub.cli", "serve", "--port", str(port), "--tasks", str(tasks_file)]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)


async def wait_up(url: str, proc: subprocess.Popen[bytes], timeout: float = 120.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the hub exited: {(proc.stderr.read() if proc.stderr else b'').decode()[-2000:]}")
            try:
                if (await client.get(f"{url}/healthz")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.3)
    raise RuntimeError("the hub did not come up")


def pick(tasks: list[Task], limit: int | None, seed: int) -> list[Task]:
    """Up to ``limit`` mcp and clarify tasks, in a seeded shuffle (so a limited run keeps the set's mix of kinds)."""
    rng = random.Random(seed)
    usable = [t for t in tasks if t.kind != "abstain"]
    rng.shuffle(usable)
    return usable if limit is None else usable[:limit]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("data", type=Path, help="a synthesized set (train.jsonl, test.jsonl)")
    p.add_argument("--limit", type=int, default=None, help="at most this many tasks (default: all)")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, default=None, help="also write every played variant's figures here")
    args = p.parse_args(argv)
    tasks = [
        t for name in ("train.jsonl", "test.jsonl") if (args.data / name).exists() for t in read_jsonl(args.data / name)
    ]
    chosen = pick(tasks, args.limit, args.seed)
    library = build_library()
    with tempfile.TemporaryDirectory() as tmp:
        tasks_file = Path(tmp) / "tasks.jsonl"
        tasks_file.write_text("\n".join(t.model_dump_json() for t in chosen) + "\n")
        port = free_port()
        proc = start_hub(tasks_file, Path(tmp) / "store.db", port)
        try:
            asyncio.run(wait_up(f"http://127.0.0.1:{port}", proc))
            began = time.monotonic()
            results = asyncio.run(run(f"ws://127.0.0.1:{port}/ws", chosen, library, args.concurrency, args.seed))
            took = time.monotonic() - began
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
    load = os.getloadavg()
    print(
        f"{len(chosen)} tasks from {args.data}, {len(results.played)} episodes in {took:.0f} s "
        f"(load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}); {len(results.errors)} errors"
    )
    for e in results.errors[:5]:
        print("  error:", e)
    outcome, paper = figures(results, "outcome"), figures(results, "paper")
    width = max(len(k) for k in outcome)
    print(f"\n| {'figure':<{width}} | paper | outcome | target |\n|{'-' * (width + 2)}|---|---|---|")
    for k in outcome:
        print(f"| {k:<{width}} | {share(paper[k])} | {share(outcome[k])} | {TARGETS[k]} |")
    print("\nprovenance the outcome preset reads:")
    for k, v in provenance(chosen).items():
        print(f"  {k}: {v}")
    if args.json:
        rows = [
            {
                "task": x.task,
                "kind": x.kind,
                "variant": x.variant,
                "ok": x.ok,
                "outcome": {k: x.outcome[k] for k in ("total", "max", "normalized", "components", "reasons")},
                "paper": {k: x.paper[k] for k in ("total", "max", "normalized", "components", "reasons")},
            }
            for x in results.played
        ]
        args.json.write_text(json.dumps({"errors": results.errors, "played": rows}, indent=1))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
