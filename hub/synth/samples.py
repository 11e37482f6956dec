"""Sample tasks from a fixed seed, for review: ``python -m hub.synth.samples [--write-golden]``.

A few tasks of every kind from each server with intents (``tests/golden/synth_samples.jsonl``,
reviewed as a diff): any change to the intents, the rendering or the pipeline shows up there.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from hub.state.library import Library
from hub.synth.pipeline import Slot, SynthConfig, Synthesizer
from hub.tasks import Task

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden" / "synth_samples.jsonl"
PLAN = (
    (Slot("mcp", "complete", None), 2),
    (Slot("mcp", "minimal", None), 1),
    (Slot("clarify", "missing", None), 1),
    (Slot("abstain", "complete", "missing_function"), 1),
    (Slot("abstain", "complete", "irrelevance"), 1),
)


def sample_tasks(library: Library, seed: int = 0, cache_dir: Path | None = None) -> list[Task]:
    synth = Synthesizer(library, SynthConfig(n=100, seed=seed, worlds=3, cache_dir=cache_dir))
    out: list[Task] = []
    for server in sorted(synth.intent_servers):
        for k, (slot, count) in enumerate(PLAN):
            got = 0
            for j in range(1000 * k, 1000 * k + 60):
                task = synth.attempt(slot, server, j)
                if task is not None:
                    out.append(task)
                    got += 1
                    if got == count:
                        break
    return out


def compact(task: Task) -> dict[str, Any]:
    """What a reviewer reads: who says what, and the calls that answer it."""
    synth = task.meta["synth"]
    return {
        "id": task.id,
        "kind": task.kind,
        "world": task.initial.seed,
        "today": synth.get("today"),
        "level": synth.get("level"),
        "variant": synth.get("variant"),
        "intents": synth.get("intents"),
        "persona": synth.get("persona"),
        "turns": [
            {
                "user": t.user,
                **({"ask": True} if t.ask else {}),
                "calls": [f"{s.tool}({json.dumps(s.arguments, sort_keys=True)}) after {s.after}" for s in t.calls],
            }
            for t in task.turns
        ],
        "offered": len(task.tools),
        "distractors": len(synth.get("distractors", [])),
        "enum_stripped": task.strip_enums,
        "expected_state_hash": task.expected_state_hash,
    }


def render_golden(library: Library, cache_dir: Path | None = None) -> str:
    return "".join(json.dumps(compact(t), ensure_ascii=False) + "\n" for t in sample_tasks(library, 0, cache_dir))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.synth.samples", description=__doc__.splitlines()[0])
    p.add_argument("--write-golden", action="store_true", help=f"rewrite {GOLDEN.name} (review the diff)")
    args = p.parse_args(argv)
    from hub.config import REFERENCE_NOW
    from hub.parts import registered_servers

    text = render_golden(Library.from_servers(registered_servers(), REFERENCE_NOW))
    if args.write_golden:
        GOLDEN.write_text(text)
        print(f"wrote {len(text.splitlines())} sample tasks to {GOLDEN}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
