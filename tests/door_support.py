"""What the door tests share: the foreign environments (scripts/install-door-deps) and running code in them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOREIGN = ROOT / "tests" / "foreign"


def venv_python(name: str, check: str) -> Path:
    """The interpreter of ``.venvs/NAME`` when ``check`` imports there; skips the test (saying why) otherwise."""
    python = ROOT / ".venvs" / name / "bin" / "python"
    if not python.exists():
        pytest.skip(f".venvs/{name} is missing: run scripts/install-door-deps (the registry may be unreachable)")
    done = subprocess.run([python, "-c", check], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f".venvs/{name} cannot run {check!r}: {done.stderr.strip().splitlines()[-1:]}")
    return python


def run_json(python: Path, script: str, *args: str, timeout: float = 300, env: dict[str, str] | None = None) -> Any:
    """Run ``tests/foreign/SCRIPT`` with ``python`` (repository root on its path); its last stdout line as JSON."""
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    environ.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [python, str(FOREIGN / script), *args], capture_output=True, text=True, timeout=timeout, env=environ, cwd=ROOT
    )
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-6000:])
        raise AssertionError(f"{script} failed ({done.returncode}): {done.stderr.strip()[-1500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
