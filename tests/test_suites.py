"""Suites scored as their benchmarks score: the hub's verdicts against bfcl-eval's and tau2's own evaluators.

Each parity run plays every task through the hub's episode engine (oracle, no-op and perturbed ground truth)
in the suite's own environment (``.venvs/``, made by ``scripts/install-suites`` from the registry) and hands
the same calls to the benchmark's official evaluator in-process. Without that environment the tests skip,
saying how to make it. The suite's own tables (BFCL per category, tau2 pass^k) are checked here too.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hub.suites import get_suite
from hub.suites.tables import bfcl_table, pass_hat_k, pass_k_table
from hub.suites.venvs import installed, python_of

ROOT = Path(__file__).resolve().parent.parent


def need(suite: str) -> Path:
    """The suite environment's Python; skip, saying how to make it, where its install did not finish (the stamp
    is written last, so an interrupted or failed install skips rather than failing on a missing module)."""
    s = get_suite(suite)
    if not installed(s):
        pytest.skip(
            f"the {suite} suite's environment is not installed or out of date ({python_of(s).parent.parent}): run "
            f"scripts/install-suites or prove-hub suite install {suite} (needs the package registry)"
        )
    return python_of(s)


def parity(suite: str, *flags: str, timeout: float = 600) -> dict[str, Any]:
    python = need(suite)
    done = subprocess.run(
        [str(python), "-m", "hub.suites.parity", suite, "--json", *flags],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.stdout, done.stderr[-3000:]
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def assert_equal_everywhere(report: dict[str, Any]) -> None:
    assert report["mismatches"] == [], json.dumps(report["mismatches"][:5], indent=1)
    for policy, row in report["table"].items():
        assert row["equal"] == row["episodes"], policy
        assert row["hub_pass"] == row["reference_pass"], policy


@pytest.mark.slow
def test_bfcl_every_entry_scores_as_bfcl_eval_scores() -> None:
    """All 800 BFCL multi-turn entries: oracle, no-op and 3 perturbed trajectories each."""
    report = parity("bfcl-mt", timeout=110)
    assert report["problems"] == []
    assert report["by_category"] == {"base": 200, "miss_func": 200, "miss_param": 200, "long_context": 200}
    assert report["table"]["oracle"] == {"episodes": 800, "equal": 800, "hub_pass": 800, "reference_pass": 800}
    assert report["table"]["noop"]["reference_pass"] == 0
    perturbed = [row for name, row in report["table"].items() if name.startswith("perturbed:")]
    assert sum(r["episodes"] for r in perturbed) == 2400
    assert 0 < sum(r["reference_pass"] for r in perturbed) < 2400  # the perturbations both pass and fail
    assert_equal_everywhere(report)


@pytest.mark.slow
@pytest.mark.parametrize(("suite", "limit"), [("tau2-telecom", 12), ("tau2-retail", 2), ("tau2-airline", 2)])
def test_tau2_tasks_score_as_tau2_evaluates(suite: str, limit: int) -> None:
    """The first tasks of each domain (the full runs: benchmarks/bench_suites.py): gold actions score 1 in both."""
    report = parity(suite, "--limit", str(limit), "--perturbations", "1", timeout=110)
    assert report["table"]["oracle"]["reference_pass"] == limit
    assert_equal_everywhere(report)


# The benchmarks' tables --------------------------------------------------------------------------


def test_pass_hat_k_is_tau2s_estimator() -> None:
    # 2 tasks, 4 trials: 4/4 and 2/4 pass. pass^1 = (1 + 0.5)/2; pass^2 = (1 + C(2,2)/C(4,2))/2
    assert pass_hat_k([4, 2], 4, 1) == 0.75
    assert pass_hat_k([4, 2], 4, 2) == pytest.approx((1 + 1 / 6) / 2)
    assert pass_hat_k([4, 2], 4, 4) == 0.5
    assert math.isnan(pass_hat_k([1], 1, 2))


def test_the_bfcl_table_reports_the_mean_of_its_categories() -> None:
    episodes = [
        *({"task": f"multi_turn_base_{i}", "success": i < 3} for i in range(4)),
        *({"task": f"multi_turn_miss_func_{i}", "success": i < 1} for i in range(4)),
    ]
    table = bfcl_table(episodes)
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[2:]}
    assert rows["base"] == ["0.750", "3", "4"]
    assert rows["miss_func"] == ["0.250", "1", "4"]
    assert rows["overall"][0] == "0.500"


def test_the_tau2_table_has_pass_k_for_every_k_up_to_the_trials() -> None:
    episodes = [{"task": t, "success": ok} for t, ok in [("a", True), ("a", True), ("b", True), ("b", False)]]
    table = pass_k_table(get_suite("tau2-retail"), episodes, 2)
    assert "pass^1" in table and "pass^2" in table and "retail" in table
    assert "0.750" in table and "0.500" in table


def test_bfcl_sessions_of_one_scenario_see_one_first_temperature() -> None:
    """BFCL's VehicleControlAPI reads the outside temperature from a private generator: a GRPO group's three
    sessions must see the same first (and second) reading, each advancing its own generator."""
    python = need("bfcl-mt")
    code = (
        "import json\n"
        "from hub.core import build_library\n"
        "from hub.engine.world import World\n"
        "from hub.suites.bfcl import mount_specs\n"
        "w = World(build_library(mount_specs(), builtin=False))\n"
        "sids = ['g0', 'g1', 'g2']\n"
        "for s in sids: w.sessions.open(s, configs={'vehicle_control_api': {}})\n"
        "tool = 'get_outside_temperature_from_google'\n"
        "read = lambda s: w.dispatcher.call(s, 'vehicle_control_api', tool, {}).text()\n"
        "print(json.dumps([[read(s) for s in sids], [read(s) for s in sids]]))\n"
    )
    done = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=100)
    first, second = json.loads(done.stdout)
    assert len(set(first)) == 1 and len(set(second)) == 1 and first[0] != second[0], done.stderr[-2000:]


# The commands a user runs -----------------------------------------------------------------------

ONE_PER_CATEGORY = [f"multi_turn_{c}_0" for c in ("base", "miss_func", "miss_param", "long_context")]


def prove_hub(*argv: str) -> subprocess.CompletedProcess[str]:
    """``prove-hub`` from the project's own environment, as a user types it (it re-runs itself in the suite's)."""
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "prove-hub"), *argv], capture_output=True, text=True, cwd=ROOT, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_eval_suite_prints_bfcls_table_from_the_projects_environment() -> None:
    """The second of the two commands (``suite install`` is the first; scripts/install-suites runs it): a hub
    serving the suite on a loopback port, every episode through /ws, BFCL's table per category."""
    need("bfcl-mt")
    tasks = [a for t in ONE_PER_CATEGORY for a in ("--task", t)]
    listed = prove_hub("suite", "list").stdout
    assert "bfcl-mt" in listed and "bfcl-mt        installed" in listed
    table = prove_hub("eval", "--suite", "bfcl-mt", "--policy", "oracle", *tasks, "--no-progress").stdout
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines() if line.split()}
    for category in ("base", "miss_func", "miss_param", "long_context"):
        assert rows[category] == ["1.000", "1", "1"], table
    assert rows["overall"][0] == "1.000", table
    noop = json.loads(prove_hub("eval", "--suite", "bfcl-mt", "--policy", "noop", *tasks, "--json", "-").stdout)
    assert [e["success"] for e in noop["episodes"]] == [False] * 4
    # one call per model message is too few for the oracle's turns: the cap reaches the hub
    capped = prove_hub(
        "eval",
        "--suite",
        "bfcl-mt",
        "--policy",
        "oracle",
        "--task",
        "multi_turn_base_0",
        "--max-calls-per-step",
        "1",
        "--json",
        "-",
    )
    assert [e["success"] for e in json.loads(capped.stdout)["episodes"]] == [False]
