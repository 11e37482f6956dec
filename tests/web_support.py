"""Helpers shared by the dashboard tests: an app on a temporary store, and episodes played by script."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from starlette.applications import Starlette
from starlette.testclient import TestClient

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.tasks import oracle_script
from tests.conftest import ALL_PARTS, LIBRARY

XSS = "<script>alert(1)</script>"


def make_app(tmp_path: Path, **settings: object) -> Starlette:
    s = Settings(store_path=str(tmp_path / "store.db"), **settings)  # type: ignore[arg-type]
    return create_app(s, Hub(s, LIBRARY), ALL_PARTS)


def hub_of(app: Starlette) -> Hub:
    return app.state.hub  # type: ignore[no-any-return]


def web_client(tmp_path: Path) -> Iterator[TestClient]:
    """A test client of an app on a temporary store, open while the fixture that yields from it lives."""
    with TestClient(make_app(tmp_path), base_url="http://127.0.0.1") as c:
        yield c


def flush(client: TestClient) -> None:
    """Wait until the store has written what the app queued (its writes are batched)."""
    client.portal.call(hub_of(client.app).store.flush, 10.0)  # type: ignore[arg-type]


def play(hub: Hub, task_id: str, messages: list[str] | None = None, *, finish: bool = True) -> str:
    """Open one episode of ``task_id``, step through ``messages`` (default: the oracle's), finish it."""
    engine = hub.episodes
    (ep,) = engine.open_group(task_id, 1)
    for message in messages if messages is not None else oracle_script(hub.tasks.get(task_id)):
        if engine.get(ep.id).done:
            break
        engine.step(ep.id, message)
    if finish:
        engine.finish(ep.id)
    return ep.id


CSRF_INPUT = re.compile(r'name="csrf_token" value="([0-9a-f]{64})"')


def ui_pages(eid: str, episode: str = "episode") -> dict[str, str]:
    """The dashboard's pages by name, those of episode ``eid`` (under the name ``episode``) and its session
    among them; none of a training run or a group."""
    return {
        "overview": "/ui/",
        "catalog": "/ui/catalog",
        "tool": "/ui/catalog/banking/transfer_funds",
        "sessions": "/ui/sessions",
        "session": f"/ui/sessions/es-{eid[3:]}",
        "session_state": f"/ui/sessions/es-{eid[3:]}/state/banking",
        "episodes": "/ui/episodes",
        episode: f"/ui/episodes/{eid}",
        "tasks": "/ui/tasks",
        "task": "/ui/tasks/bank-transfer-002",
        "training": "/ui/training",
    }


def csrf_field(page_html: str) -> dict[str, str]:
    """The CSRF field of a dashboard page's form (the client that fetched the page keeps its cookie)."""
    found = CSRF_INPUT.search(page_html)
    assert found, "the page carries no CSRF token"
    return {"csrf_token": found.group(1)}


WRONG_SOURCE = (
    '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0003", '
    '"to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"}}</tool_call>'
)
NO_LIST = (
    '<tool_call>{"name": "banking__transfer_funds", "arguments": {"from_account_id": "ACC-0001", '
    '"to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"}}</tool_call>'
)


def rollouts(
    hub: Hub, task_id: str, scripts: list[list[str]], *, run: str | None = None, step: int | None = None
) -> list[str]:
    """One GRPO group of ``task_id``: rollout i plays ``scripts[i]``, is finished and closed (the trainer's path:
    the engine forgets it, only the store keeps it). Its episode ids, in order."""
    engine = hub.episodes
    eps = engine.open_group(task_id, len(scripts), run=run, step=step)
    for ep, script in zip(eps, scripts):
        for message in script:
            if engine.get(ep.id).done:
                break
            engine.step(ep.id, message)
        engine.finish(ep.id)
        engine.close(ep.id)
    return [ep.id for ep in eps]
