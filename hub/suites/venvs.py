"""A suite's own virtual environment: the hub (editable, this checkout) plus the benchmark's package, lean.

The benchmark's package is installed without its dependencies (bfcl-eval's pull in torch, vLLM clients
and a dozen model SDKs; tau2's a metrics stack), then only what the suite's code paths import. A stamp
records what was installed, so a second ``install`` costs one file read.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from hub.suites import Suite

ROOT = Path(__file__).resolve().parent.parent.parent
STAMP = ".suite-installed"


def venvs_dir() -> Path:
    return Path(os.environ.get("HUB_SUITE_VENVS") or ROOT / ".venvs")


def venv_of(suite: Suite) -> Path:
    return venvs_dir() / suite.venv


def python_of(suite: Suite) -> Path:
    return venv_of(suite) / "bin" / "python"


def wanted(suite: Suite) -> str:
    """What an install of ``suite`` holds: the pins, and the hub's own requirements (its project files)."""
    text = "\n".join([suite.package, *suite.deps])
    for name in ("pyproject.toml", "setup.py"):
        path = ROOT / name
        text += path.read_text() if path.exists() else ""
    return hashlib.sha256(text.encode()).hexdigest()


def installed(suite: Suite) -> bool:
    stamp = venv_of(suite) / STAMP
    return python_of(suite).exists() and stamp.exists() and stamp.read_text().strip() == wanted(suite)


def importable_here(suite: Suite) -> bool:
    """Whether this interpreter can import the suite's benchmark package."""
    try:
        return importlib.util.find_spec(suite.probe.split(".")[0]) is not None
    except (ImportError, ValueError):
        return False


def install(suite: Suite, *, quiet: bool = True, log: TextIO | None = None) -> Path:
    """Create (or bring up to date) the suite's environment; its Python. Raises CalledProcessError on failure."""
    venv = venv_of(suite)
    if installed(suite):
        return python_of(suite)
    stream = sys.stderr if log is None else log
    q = ["-q"] if quiet else []
    if not python_of(suite).exists():
        print(f"suite {suite.name}: creating {venv}", file=stream, flush=True)
        venv.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(python_of(suite)), "-m", "pip", "install", "--disable-pip-version-check", *q]

    def run(cmd: list[str]) -> None:
        # pip's resolver warns that the package's own (left out) dependencies are missing: show output on failure only
        done = subprocess.run(cmd, capture_output=quiet, text=True)
        if done.returncode:
            print(done.stdout or "", done.stderr or "", file=stream)
            raise subprocess.CalledProcessError(done.returncode, cmd)

    print(
        f"suite {suite.name}: installing the hub, {suite.package} (no deps), {' '.join(suite.deps)}",
        file=stream,
        flush=True,
    )
    run([*pip, "-e", str(ROOT)])
    run([*pip, "--no-deps", suite.package])
    run([*pip, *suite.deps])
    run([str(python_of(suite)), "-c", f"import {suite.probe}"])
    (venv / STAMP).write_text(wanted(suite) + "\n")
    return python_of(suite)
