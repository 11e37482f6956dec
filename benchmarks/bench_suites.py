"""Suite parity at full size: every task of every suite, the hub's verdict against the official evaluator's.

    .venv/bin/python benchmarks/bench_suites.py [--suite bfcl-mt] [--perturbations 3]

Runs ``hub.suites.parity`` in each suite's own environment (``prove-hub suite install all`` first) and prints,
per suite and policy, the episodes, how many verdicts were equal, and how many passed by each side, with the
wall time of the run (the official evaluators dominate it: tau2's rebuilds its environment from JSON twice per
episode). The tests (``tests/test_suites.py``) run all 800 BFCL entries and the first tau2 tasks of each domain.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub.suites import SUITES, get_suite
from hub.suites.venvs import python_of


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--suite", action="append", default=None, help="these suites (default: all)")
    p.add_argument("--perturbations", type=int, default=3)
    p.add_argument("--limit", type=int, default=None)
    args = p.parse_args()
    bad = 0
    print(f"{'suite':<14} {'policy':<18} {'episodes':>8} {'equal':>6} {'hub pass':>9} {'official pass':>14} {'s':>7}")
    for name in args.suite or list(SUITES):
        python = python_of(get_suite(name))
        if not python.exists():
            print(f"{name:<14} not installed: prove-hub suite install {name}")
            continue
        flags = ["--perturbations", str(args.perturbations), *(["--limit", str(args.limit)] if args.limit else [])]
        start = time.perf_counter()
        done = subprocess.run(
            [str(python), "-m", "hub.suites.parity", name, "--json", *flags], capture_output=True, text=True
        )
        seconds = time.perf_counter() - start
        report = json.loads(done.stdout)
        for policy, row in report["table"].items():
            print(
                f"{name:<14} {policy:<18} {row['episodes']:>8} {row['equal']:>6} {row['hub_pass']:>9} "
                f"{row['reference_pass']:>14} {seconds:>7.0f}"
            )
        bad += len(report["mismatches"])
        for line in report["problems"]:
            print(f"{name:<14} not imported: {line}")
    print("every verdict equal" if not bad else f"{bad} verdicts differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
