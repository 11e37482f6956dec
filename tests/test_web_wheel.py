"""The built wheel serves a working dashboard: templates, static files and htmx ship inside the package.

Builds the wheel (``pip wheel --no-deps``), installs it into a fresh virtual environment outside the
checkout (no system site-packages; dependencies from the package index), starts ``prove-hub serve``
from that environment on a free loopback port, then fetches ``/ui/``, its stylesheet and its htmx scripts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from hub.testing import free_port
from web.vendor import sources

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.timeout(600),
    pytest.mark.skipif(not all(p.is_file() for p in sources()),
                       reason="web/node_modules missing: run scripts/bootstrap"),
]


def run(*cmd: str | Path, cwd: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, f"{cmd}: {done.stdout[-2000:]}\n{done.stderr[-4000:]}"


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", work / "dist", ROOT, cwd=work)
    (wheel,) = (work / "dist").glob("prove_hub-*.whl")
    run(sys.executable, "-m", "venv", work / "venv", cwd=work)
    run(work / "venv" / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel, cwd=work)
    return work


@pytest.fixture(scope="module")
def hub_url(venv: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    proc = subprocess.Popen([str(venv / "venv" / "bin" / "prove-hub"), "serve", "--port", str(port),
                             "--store", str(venv / "hub.db"), "--log-level", "warning"],
                            cwd=venv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, proc, deadline=time.monotonic() + 120)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)


def wait_ready(url: str, proc: subprocess.Popen[str], deadline: float) -> None:
    """Poll /healthz until the hub answers; fail with its output if it exits or the deadline passes."""
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the hub exited with {proc.returncode}: {proc.stdout.read() if proc.stdout else ''}")
        try:
            if httpx.get(url + "/healthz", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)  # a child process gives no readiness event; poll its port
    raise AssertionError("the hub from the wheel did not answer /healthz within 120 s")


def test_the_installed_package_is_not_the_checkout(venv: Path) -> None:
    code = "import web, hub; print(web.__file__); print(hub.__file__)"
    out = subprocess.run([str(venv / "venv" / "bin" / "python"), "-c", code], cwd=venv, capture_output=True, text=True,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, check=True).stdout
    assert str(ROOT) not in out and str(venv / "venv") in out


def test_the_wheel_serves_the_dashboard_and_its_scripts(hub_url: str) -> None:
    page = httpx.get(hub_url + "/ui/", timeout=10)
    assert page.status_code == 200 and "PROVE hub" in page.text and 'sse-connect="/ui/sse/overview"' in page.text
    for src, rel in sources().items():
        href = f"/ui/vendor/{rel.as_posix()}"
        assert f'src="{href}"' in page.text, href
        got = httpx.get(hub_url + href, timeout=10)
        assert got.status_code == 200 and got.content == src.read_bytes(), href
    css = httpx.get(hub_url + "/ui/static/dashboard.css", timeout=10)
    assert css.status_code == 200 and "--accent" in css.text
    assert httpx.get(hub_url + "/ui/static/favicon.svg", timeout=10).status_code == 200
    assert httpx.get(hub_url + "/ui/episodes", timeout=10).status_code == 200
