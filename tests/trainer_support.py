"""Shared helpers of the trainer-client tests: a live hub, a scripted vLLM-like engine, OpenRLHF's executor."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.net import free_port
from tests.conftest import ALL_PARTS, LIBRARY

ROOT = Path(__file__).resolve().parent.parent


def make_app(tmp_path: Path, name: str = "store.db", **kw: Any) -> Any:
    s = Settings(store_path=str(tmp_path / name), **kw)
    return create_app(s, Hub(s, LIBRARY), ALL_PARTS)


async def serve_subprocess(
    store: Path, env: Mapping[str, str], wait_s: float
) -> tuple[asyncio.subprocess.Process, int, asyncio.Future[bytes]]:
    """``prove-hub serve`` in a subprocess on a free port, returned once uvicorn says it is running (no polling),
    with its port and the task that keeps draining its log; killed if it does not get there within ``wait_s``."""
    port = free_port()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "hub.cli",
        "serve",
        "--port",
        str(port),
        "--store",
        str(store),
        cwd=ROOT,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
    )
    assert proc.stderr is not None
    try:
        while b"Uvicorn running on" not in (line := await asyncio.wait_for(proc.stderr.readline(), wait_s)):
            assert line, "the hub subprocess exited before serving"
    except BaseException:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        raise
    return proc, port, asyncio.ensure_future(proc.stderr.read())


def need_openrlhf() -> None:
    """Skip unless OpenRLHF's agent module and its imports (torch, transformers) are installed."""
    pytest.importorskip("torch", reason="torch is not installed (scripts/install-trainer-deps)")
    pytest.importorskip("transformers", reason="transformers is not installed (scripts/install-trainer-deps)")
    pytest.importorskip("openrlhf.utils.agent", reason="openrlhf is not installed (scripts/install-trainer-deps)")


@dataclass
class ScriptedEngine:
    """Stands in for OpenRLHF's vLLM actor: ``generate`` returns the next scripted text as vLLM would
    (token ids ending with the EOS that stopped it, text without it)."""

    tokenizer: Any
    script: Sequence[str]
    prompts: list[list[int]] = field(default_factory=list)

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        self.prompts.append(list(prompt_token_ids))
        await asyncio.sleep(0)  # let the other samples of the group interleave, as with a real engine
        i = len(self.prompts) - 1
        text = self.script[i] if i < len(self.script) else "I am done."
        ids = self.tokenizer(text=text, add_special_tokens=False)["input_ids"] + [self.tokenizer.eos_token_id]
        ids = ids[: max(1, int(sampling_params.max_tokens))]
        finish = "stop" if ids[-1] == self.tokenizer.eos_token_id else "length"
        return SimpleNamespace(
            outputs=[SimpleNamespace(token_ids=ids, text=text, finish_reason=finish, stop_reason=None, logprobs=None)]
        )


def sampling_params() -> SimpleNamespace:
    return SimpleNamespace(max_tokens=None, logprobs=None, temperature=1.0)


async def run_samples(
    executor: Any, label: str, engines: Sequence[Any], tokenizer: Any, max_length: int = 32768, params: Any = None
) -> list[dict[str, Any]]:
    """The n samples of one prompt, concurrently, as OpenRLHF 0.11.2's ``RolloutRayActor.generate_responses``
    runs them: one ``execute`` per sample, all handed the SAME ``sampling_params`` object."""
    shared = params if params is not None else sampling_params()
    return list(
        await asyncio.gather(
            *[
                executor.execute(
                    prompt=f"task {label}",
                    label=label,
                    sampling_params=shared,
                    max_length=max_length,
                    hf_tokenizer=tokenizer,
                    llm_engine=engine,
                )
                for engine in engines
            ]
        )
    )


def ray_only_venv(target: Path) -> Path:
    """A second virtual environment holding Ray (with its job server: ``ray[default]``) and Ray's dependencies
    only, linked from this one's site-packages (no download): a cluster whose Python lacks the project, its
    client and its client's dependencies, so a module the job fails to carry cannot hide. Returns its bin/."""
    import importlib.metadata as md
    import subprocess
    import sys
    import sysconfig

    from packaging.requirements import Requirement

    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(target)], check=True, timeout=120)
    site = Path(sysconfig.get_path("purelib", vars={"base": str(target), "platbase": str(target)}))
    wanted: dict[str, set[str]] = {}
    todo = [("ray", {"default"})]
    while todo:
        name, extras = todo.pop()
        key = name.lower().replace("_", "-")
        if key in wanted and extras <= wanted[key]:
            continue
        wanted[key] = wanted.get(key, set()) | extras
        for spec in md.distribution(name).requires or []:
            req = Requirement(spec)
            markers = [{"extra": e} for e in sorted(extras)] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(m) for m in markers):
                todo.append((req.name, set(req.extras)))
    for name in wanted:
        dist = md.distribution(name)
        base = Path(str(dist.locate_file("")))
        tops = {Path(str(f)).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for top in tops:
            link = site / top
            if not link.exists() and (base / top).exists():
                link.symlink_to(base / top)
    python = target / "bin" / "python"
    ray = target / "bin" / "ray"
    ray.write_text(f"#!{python}\nimport sys\nfrom ray.scripts.scripts import main\nsys.exit(main())\n")
    ray.chmod(0o755)
    return target / "bin"
