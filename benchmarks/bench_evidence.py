"""What keeping evidence costs at ``finish``: the row diffs against the start and the expected state. Prints a table.

    .venv/bin/python benchmarks/bench_evidence.py [--episodes 400]

One in-process episode engine plays GRPO groups of 8 on banking tasks and finishes each episode
with and without evidence (``EpisodeEngine(keep_evidence=...)``), interleaved so both see the
same machine load. Cases: a right transfer (final hashes equal the expected ones: no diff against
the expected state is needed), a wrong transfer (the expected state is replayed once per task and
cached, then diffed) and a transfer plus 12 withdrawals (a bigger diff, bounded). Median and p95 of
``finish`` per case, and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub.config import Settings  # noqa: E402
from hub.core import Hub  # noqa: E402
from hub.tasks import hermes_call  # noqa: E402

RIGHT = hermes_call("banking__transfer_funds", {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002",
                                                "amount": 300.0, "memo": "Rent June"})
WRONG = hermes_call("banking__transfer_funds", {"from_account_id": "ACC-0003", "to_account_id": "ACC-0002",
                                                "amount": 300.0, "memo": "Rent June"})
MANY = RIGHT + "".join(hermes_call("banking__withdraw_funds", {"account_id": "ACC-0002", "amount": 1.0})
                       for _ in range(12))
CASES = {"right transfer (hashes match)": RIGHT, "wrong source account": WRONG, "transfer + 12 withdrawals": MANY}


def finish_times(hub: Hub, script: str, episodes: int, keep: bool) -> list[float]:
    engine = hub.episodes
    engine.keep_evidence = keep
    out = []
    for _ in range(episodes // 8):
        group = engine.open_group("bank-transfer-002", 8)
        for ep in group:
            engine.step(ep.id, script)
            engine.step(ep.id, "Done.")
            start = time.perf_counter()
            engine.finish(ep.id)
            out.append((time.perf_counter() - start) * 1000)
            engine.close(ep.id)
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--episodes", type=int, default=400)
    args = p.parse_args()
    settings = Settings(store_path=":memory:")
    hub = Hub(settings)
    print(f"\n## finish() with and without kept evidence ({args.episodes} episodes per cell, groups of 8)\n")
    print("| case | without: median ms | p95 | with evidence: median ms | p95 | ratio (median) |")
    print("|---|---|---|---|---|---|")
    for label, script in CASES.items():
        finish_times(hub, script, 16, True)  # warm-up: templates, schemas, the expected-state replay
        off, on = [], []
        for _ in range(4):
            off += finish_times(hub, script, args.episodes // 4, False)
            on += finish_times(hub, script, args.episodes // 4, True)
        off.sort()
        on.sort()
        m_off, m_on = statistics.median(off), statistics.median(on)
        print(f"| {label} | {m_off:.3f} | {off[int(0.95 * (len(off) - 1))]:.3f} | {m_on:.3f} | "
              f"{on[int(0.95 * (len(on) - 1))]:.3f} | {m_on / m_off:.2f} |")


if __name__ == "__main__":
    main()
