"""Export of the filtered episode list: JSON lines in the hub's export formats and the table as CSV, with the
list's filter; the list's live updates come over SSE, and its header sort shows in its label."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.web_support import WRONG_SOURCE, flush, hub_of, rollouts, web_client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    yield from web_client(tmp_path)


@pytest.fixture
def played(client: TestClient) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {"run-a": [], "run-b": []}
    for run, step, script in (("run-a", 0, [WRONG_SOURCE, "Done."]), ("run-a", 1, ["Done."]), ("run-b", 0, ["Done."])):
        out[run] += rollouts(hub_of(client.app), "bank-transfer-002", [script], run=run, step=step)
    flush(client)
    return out


def lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line]


def test_jsonl_export_keeps_the_filter(client: TestClient, played: dict[str, list[str]]) -> None:
    r = client.get("/ui/episodes/export", params={"format": "jsonl", "run": "run-a"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    assert 'filename="episodes.jsonl.jsonl"' in r.headers["content-disposition"]
    got = lines(r.text)
    assert [g["episode"]["id"] for g in got] == list(reversed(played["run-a"]))  # type: ignore[index]
    assert got[1]["tool_calls"][0]["tool"] == "transfer_funds"  # type: ignore[index]
    one = lines(client.get("/ui/episodes/export", params={"format": "jsonl", "run": "run-a", "step": "1"}).text)
    assert [g["episode"]["id"] for g in one] == [played["run-a"][1]]  # type: ignore[index]


@pytest.mark.parametrize("fmt", ["atif", "openai"])
def test_trajectory_formats(client: TestClient, played: dict[str, list[str]], fmt: str) -> None:
    got = lines(client.get("/ui/episodes/export", params={"format": fmt, "run": "run-b"}).text)
    assert len(got) == 1 and ("steps" in got[0] if fmt == "atif" else "messages" in got[0])


def test_csv_export_is_the_table(client: TestClient, played: dict[str, list[str]]) -> None:
    r = client.get("/ui/episodes/export", params={"format": "csv", "sort": "-reward"})
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 3
    assert float(rows[0]["reward"]) <= float(rows[1]["reward"]) <= float(rows[2]["reward"])  # as the list sorts
    wrong = next(r for r in rows if r["id"] == played["run-a"][0])
    assert float(wrong["lost_argument"]) > 0 and wrong["run_id"] == "run-a" and wrong["run_step"] == "0"
    assert wrong["calls"] == "1" and wrong["preset"] == hub_of(client.app).episodes.reward.preset


def test_unknown_format_is_refused(client: TestClient) -> None:
    r = client.get("/ui/episodes/export", params={"format": "xml"})
    assert r.status_code == 400 and "one of" in r.text


def test_the_list_shows_run_and_step_and_its_sort(client: TestClient, played: dict[str, list[str]]) -> None:
    r = client.get("/ui/episodes", params={"sort": "-reward"})
    assert 'data-sort="-reward"' in r.text and "reward, lowest first" in r.text
    assert "run=run-a&amp;step=0" in r.text or "run=run-a&amp;step=0" in r.text
    page = client.get("/ui/episodes")
    assert 'hx-trigger="sse:changed"' in page.text and "every 3s" not in page.text
    assert '/ui/sse/episodes"' in page.text
