"""The GPU training stack's locks (requirements/train.lock, nodeps.lock): pinned with hashes, complete, at
OpenRLHF 0.11.2's own pins but for flash-attn, and the versions the CPU test stack runs. Offline; with
PROVE_LIVE_RESOLVE=1, pip also resolves them against the package registry (``DRY=1 scripts/install-train``)."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
REQ = ROOT / "requirements"


def lock(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, hashes), for every entry of a uv/pip lock (the marker-split forks kept apart)."""
    entries: dict[str, tuple[str, list[str]]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", path.read_text()):
        head = block.split("\n", 1)[0]
        if head.startswith("#") or "==" not in head:
            continue
        spec = head.split(" \\", 1)[0].split(";", 1)[0].strip()
        name, version = spec.split("==")
        hashes = re.findall(r"--hash=sha256:([0-9a-f]{64})", block)
        key = canonicalize_name(name.split("[")[0])
        entries[key if key not in entries else f"{key}@{version}"] = (version, hashes)
    return entries


def names(path: Path) -> set[str]:
    lines = [x.split("#", 1)[0].strip() for x in path.read_text().splitlines()]
    return {canonicalize_name(Requirement(x).name) for x in lines if x}


TRAIN, NODEPS = lock(REQ / "train.lock"), lock(REQ / "nodeps.lock")


def version(name: str) -> str:
    return {**TRAIN, **NODEPS}[canonicalize_name(name)][0]


def test_every_locked_package_is_pinned_with_its_hashes_and_the_lock_is_whole() -> None:
    assert len(TRAIN) > 200 and all(hashes for _, hashes in [*TRAIN.values(), *NODEPS.values()])
    assert names(REQ / "train.in") <= {k.split("@")[0] for k in TRAIN}
    assert set(NODEPS) == {"openrlhf", "deepspeed"} == names(REQ / "nodeps.in")
    assert "flash-attn" not in TRAIN and "flash-attn" not in NODEPS  # attention runs through SDPA
    # the locks are what scripts/lock-train makes (uv's resolver, every platform, Python >= 3.11)
    script = (ROOT / "scripts" / "lock-train").read_text()
    flags = "--universal --python-version 3.11 --generate-hashes"
    assert flags in script
    for path in ("train.lock", "nodeps.lock"):
        assert flags in (REQ / path).read_text().splitlines()[1]


def test_the_lock_keeps_openrlhfs_pins_but_flash_attn() -> None:
    assert (version("openrlhf"), version("deepspeed")) == ("0.11.2", "0.19.6")
    assert (version("vllm"), version("transformers"), version("ray")) == ("0.29.0", "5.15.0", "2.55.0")
    try:
        requires = md.distribution("openrlhf").requires or []
    except md.PackageNotFoundError:
        pytest.skip("openrlhf is not installed (scripts/install-trainer-deps): its metadata says what it requires")
    for spec in requires:
        req = Requirement(spec)
        if req.marker is not None and not req.marker.evaluate({"extra": "vllm"}):
            continue  # another extra (liger, ring, vllm-latest)
        if canonicalize_name(req.name) == "flash-attn":
            continue
        assert req.specifier.contains(version(req.name), prereleases=True), (req, version(req.name))


def test_deepspeeds_own_requirements_are_locked() -> None:
    """DeepSpeed is installed --no-deps; its requirements (its source package's requirements.txt) come locked."""
    for name in ("einops", "hjson", "msgpack", "ninja", "numpy", "packaging", "psutil", "py-cpuinfo", "pydantic"):
        assert canonicalize_name(name) in TRAIN, name
    assert "torch" in TRAIN and "tqdm" in TRAIN


def test_the_cpu_test_stack_runs_the_locked_versions() -> None:
    """scripts/install-trainer-deps constrains every package to the lock: the CPU stack is the GPU one, cut down."""
    checked = 0
    for name in ("openrlhf", "transformers", "ray", "torch", "sympy", "pylatexenc", "aiohttp"):
        try:
            installed = md.version(name)
        except md.PackageNotFoundError:
            continue
        assert installed.split("+")[0] == version(name), name
        checked += 1
    if not checked:
        pytest.skip("the CPU test stack is not installed (scripts/install-trainer-deps)")
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert not [r for rs in extras.values() for r in rs if "openrlhf" in r or "flash" in r]  # no extra compiles


@pytest.mark.skipif(os.environ.get("PROVE_LIVE_RESOLVE") != "1", reason="opt-in: PROVE_LIVE_RESOLVE=1 (registry)")
def test_the_locks_resolve_against_the_registry(tmp_path: Path) -> None:
    done = subprocess.run(
        ["scripts/install-train"],
        cwd=ROOT,
        env={**os.environ, "DRY": "1", "VENV": str(ROOT / ".venv"), "REPORTS": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "packages resolve from the lock" in done.stdout, done.stdout
    assert sorted(p.name for p in (tmp_path / "nodeps").iterdir())[0] == "deepspeed-0.19.6.tar.gz"
