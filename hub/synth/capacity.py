"""How many structurally distinct tasks a server's intents can make: ``python -m hub.synth.capacity SERVER``.

The near-duplicate filter compares tasks by their calls' names and argument keys, not values, so a
server contributes at most as many tasks of a kind as its intents have distinct call structures.
This draws ``--attempts`` tasks of one kind and prints how many were kept as attempts grow, why the
rest were dropped, the realism figures of the kept ones (tool-name words in turns, values stated
verbatim, turns with internal ids, distinct tool-name sequences) and which intents (and chains of
intents) the kept ones came from. When the kept
count flattens out well below the server's share of a run (about n / 20), its intents need more
variety: filters that follow what the user said, other discovery paths, follow-ups.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from hub.config import REFERENCE_NOW
from hub.state.library import Library
from hub.synth.pipeline import Slot, SynthConfig, Synthesizer
from hub.synth.realism import figures

SLOTS = {
    "mcp": (Slot("mcp", "complete", None), Slot("mcp", "complete", None), Slot("mcp", "minimal", None)),
    "clarify": (Slot("clarify", "missing", None),),
    "abstain": (Slot("abstain", "complete", "missing_function"), Slot("abstain", "complete", "irrelevance")),
}


def capacity(
    library: Library, server: str, kind: str = "mcp", attempts: int = 1000, worlds: int = 8, seed: int = 0
) -> dict[str, object]:
    synth = Synthesizer(library, SynthConfig(n=100, seed=seed, worlds=worlds))
    slots = SLOTS[kind]
    kept = []
    curve = {}
    for j in range(attempts):
        task = synth.attempt(slots[j % len(slots)], server, j)
        if task is not None:
            kept.append(task)
        if (j + 1) in (attempts // 10, attempts // 4, attempts // 2, attempts):
            curve[j + 1] = len(kept)
    chains = Counter("+".join(t.meta["synth"].get("intents") or ["(machine)"]) for t in kept)
    return {
        "server": server,
        "kind": kind,
        "kept_by_attempts": curve,
        "dropped": dict(synth.stats.dropped),
        "realism": figures(kept, library),
        "chains": dict(chains.most_common()),
        "intent_errors": synth.stats.intent_errors,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.synth.capacity", description=__doc__.splitlines()[0])
    p.add_argument("server")
    p.add_argument("--kind", choices=sorted(SLOTS), default="mcp")
    p.add_argument("--attempts", type=int, default=1000)
    p.add_argument("--worlds", type=int, default=8)
    args = p.parse_args(argv)
    from hub.parts import registered_servers

    library = Library.from_servers(registered_servers(), REFERENCE_NOW)
    if args.server not in library.mounts:
        print(f"unknown server {args.server!r}; one of {', '.join(library.mounts)}", file=sys.stderr)
        return 2
    print(json.dumps(capacity(library, args.server, args.kind, args.attempts, args.worlds), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
