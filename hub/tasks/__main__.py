"""``python -m hub.tasks [--regenerate] [FILE]``: check (or rewrite) a task file's expected hashes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hub.config import REFERENCE_NOW
from hub.mount import load_mount
from hub.parts import registered_servers
from hub.state.library import Library
from hub.tasks.io import BUILTIN_TASKS, read_jsonl
from hub.tasks.replay import regenerate_all, replay


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hub.tasks", description="check or regenerate a task file")
    p.add_argument("path", nargs="?", default=str(BUILTIN_TASKS))
    p.add_argument(
        "--regenerate", action="store_true", help="replay every task's ground truth and write its expected hashes"
    )
    p.add_argument(
        "--mount",
        action="append",
        default=[],
        metavar="MODULE:CLASS[=NAME]",
        help="also mount a Python class as a server (repeatable)",
    )
    args = p.parse_args(argv)
    library = Library.from_servers(registered_servers(), REFERENCE_NOW)
    for spec in args.mount:
        library.add(load_mount(spec))
    if args.regenerate:
        tasks, skipped = regenerate_all(Path(args.path), library)
        for line in skipped:
            print(f"skipped {line}", file=sys.stderr)
        print(
            f"regenerated {len(tasks) - len(skipped)} of {len(tasks)} tasks in {args.path}"
            + (f"; {len(skipped)} bad (above), left as they were" if skipped else "")
        )
        return 1 if skipped else 0
    bad = 0
    for t in read_jsonl(Path(args.path)):
        got = replay(t, library)
        if got != (t.expected_state_hash, t.expected_server_hashes):
            print(f"{t.id}: expected hash {t.expected_state_hash}, replay gives {got[0]}")
            bad += 1
    print(f"{bad} task(s) out of date" if bad else "all tasks replay to their expected hashes")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
