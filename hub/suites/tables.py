"""The benchmarks' own tables: BFCL's accuracy per category (overall: their mean), tau2's pass^k."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from hub.suites import Suite

BFCL_CATEGORIES = ("base", "miss_func", "miss_param", "long_context")


def suite_table(suite: Suite, report: dict[str, Any]) -> str:
    """The table the benchmark prints, from an eval report (``trainer_client.evaluate``'s, episodes included)."""
    episodes = [e for e in report["episodes"] if e.get("failed") is None]
    failed = len(report["episodes"]) - len(episodes)
    head = f"{suite.title}\npolicy {report['policy']}: {report['tasks']} tasks, {len(report['episodes'])} episodes"
    if failed:
        head += f" ({failed} failed: see the JSON report)"
    if suite.module == "bfcl":
        return head + "\n" + bfcl_table(episodes)
    return head + "\n" + pass_k_table(suite, episodes, int(report.get("samples", 1)))


def _category(task_id: str) -> str:
    return task_id.removeprefix("multi_turn_").rsplit("_", 1)[0]


def bfcl_table(episodes: Sequence[dict[str, Any]]) -> str:
    """BFCL's multi-turn table: accuracy per category, and overall as the mean of the categories."""
    by: dict[str, list[bool]] = defaultdict(list)
    for e in episodes:
        by[_category(e["task"])].append(bool(e["success"]))
    lines = [f"{'category':<14} {'accuracy':>9} {'correct':>8} {'total':>6}", "-" * 40]
    accs = []
    for cat in BFCL_CATEGORIES:
        found = by.get(cat, [])
        if not found:
            continue
        acc = sum(found) / len(found)
        accs.append(acc)
        lines.append(f"{cat:<14} {acc:>9.3f} {sum(found):>8} {len(found):>6}")
    if accs:
        lines.append(f"{'overall':<14} {sum(accs) / len(accs):>9.3f}   (mean of the categories, as BFCL reports)")
    return "\n".join(lines)


def pass_hat_k(successes: Sequence[int], trials: int, k: int) -> float:
    """tau2's pass^k: the mean over tasks of C(c, k) / C(n, k), c of n trials passing."""
    if not successes or k > trials:
        return float("nan")
    return sum(math.comb(c, k) / math.comb(trials, k) for c in successes) / len(successes)


def pass_k_table(suite: Suite, episodes: Sequence[dict[str, Any]], samples: int) -> str:
    """tau2's table: pass^k for every k up to the trials each task had."""
    by_task: dict[str, list[bool]] = defaultdict(list)
    for e in episodes:
        by_task[e["task"]].append(bool(e["success"]))
    trials = min((len(v) for v in by_task.values()), default=0)
    counts = [sum(v[:trials]) for v in by_task.values()]
    ks = range(1, trials + 1)
    head = f"{'domain':<10} {'tasks':>6} {'trials':>7} " + " ".join(f"{'pass^' + str(k):>8}" for k in ks)
    values = " ".join(f"{pass_hat_k(counts, trials, k):>8.3f}" for k in ks)
    row = f"{suite.options.get('domain', suite.name):<10} {len(counts):>6} {trials:>7} {values}"
    return "\n".join([head, "-" * len(head), row])
