"""Regular expressions run with a time limit, and what tools write is capped."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from hub.testing import serve
from servers.filesystem.core_text import MAX_FILE_BYTES, REGEX_SECONDS
from tests.conftest import World
from tests.web_support import make_app

F = "filesystem"
EVIL = ["((a+))+$", "(?:(a+))+$", "(a|a)*$", "(a|aa)+$", "(.*a){20}$"]
LINE = "a" * 40 + "!"


@pytest.mark.parametrize("pattern", EVIL)
def test_backtracking_patterns_stop_at_the_limit(world: World, pattern: str) -> None:
    world.ok(F, "write_file", path="long.txt", content=f"start\n{LINE}\nend\n")
    start = time.process_time()  # CPU time, as the limit counts it: a loaded machine stretches wall time alike
    out = world.call(F, "grep_files", pattern=pattern, path="long.txt")
    used = time.process_time() - start
    assert out.ok or "took longer than" in (out.error or ""), out.error
    assert used < REGEX_SECONDS + 0.1


def test_a_pattern_over_the_limit_is_a_clear_error_and_changes_nothing(world: World) -> None:
    world.ok(F, "write_file", path="long.txt", content=f"{LINE}\n" * 3)
    error = world.err(F, "grep_files", pattern="(a|a)*$", path="long.txt")
    assert "took longer than" in error and "(a|a)*$" in error and "fixed_string=true" in error and "narrower" in error
    error = world.err(F, "replace_in_file", path="long.txt", pattern="(a|a)*$", replacement="x", regex=True)
    assert "took longer than" in error
    assert world.ok(F, "count_words", path="long.txt")["lines"] == 3


def test_common_patterns_still_work(world: World) -> None:
    world.ok(F, "write_file", path="notes.txt", content="alpha beta\nTODO: gamma\nx = 1 + 2\n")
    hits = world.ok(F, "grep_files", pattern=r"(\w+\s?)*gamma", path="notes.txt")
    assert [m["line_number"] for m in hits["matches"]] == [2]
    assert world.ok(F, "grep_files", pattern="1 + 2", path="notes.txt", fixed_string=True)["total_matches"] == 1
    out = world.ok(F, "replace_in_file", path="notes.txt", pattern=r"(\w+) beta", replacement=r"\1 BETA", regex=True)
    assert out["replacements"] == 1
    assert world.ok(F, "read_file", path="notes.txt")["content"].startswith("alpha BETA")
    world.ok(F, "replace_in_file", path="notes.txt", pattern="1 + 2", replacement="3 \\ 4")
    assert "x = 3 \\ 4" in world.ok(F, "read_file", path="notes.txt")["content"]
    assert "Invalid replacement" in world.err(
        F, "replace_in_file", path="notes.txt", pattern="(gamma)", replacement=r"\2", regex=True
    )


def test_replace_cannot_blow_a_file_past_the_cap(world: World) -> None:
    world.ok(F, "write_file", path="small.txt", content="a" * 5000)
    error = world.err(F, "replace_in_file", path="small.txt", pattern="a", replacement="b" * 10_000)
    assert "File too large" in error and "Nothing was changed" in error
    assert world.ok(F, "count_words", path="small.txt")["bytes"] == 5000


def test_write_and_append_are_capped(world: World) -> None:
    chunk = "x" * 100_000
    for _ in range(MAX_FILE_BYTES // len(chunk)):
        world.ok(F, "append_file", path="big.txt", content=chunk, newline=False)
    assert "File too large" in world.err(F, "append_file", path="big.txt", content=chunk)
    assert "File too large" in world.err(F, "concatenate_files", sources=["big.txt", "big.txt"], destination="two.txt")


async def test_healthz_answers_while_a_regex_runs(tmp_path: Path) -> None:
    """A real uvicorn: the slow pattern holds the loop no longer than the limit, so /healthz gets through."""
    async with serve(make_app(tmp_path)) as live, httpx.AsyncClient(base_url=live.url, timeout=60) as http:
        call = "/api/sessions/re/call/filesystem/"
        r = await http.post(call + "write_file", json={"arguments": {"path": "long.txt", "content": LINE * 2}})
        assert r.json()["ok"], r.text
        # CPU time, as the limit counts it: other processes on a shared machine stretch wall time, not this.
        start = time.process_time()
        reply, health = await asyncio.gather(
            http.post(call + "grep_files", json={"arguments": {"pattern": "(a|a)*$", "path": "long.txt"}}),
            http.get("/healthz"),
        )
        used = time.process_time() - start
    assert reply.status_code == 200 and not reply.json()["ok"] and "took longer than" in reply.json()["error"]
    assert health.json()["status"] == "ok"
    # Unbounded, this search runs for hours (it doubles per character); bounded, the process spends the limit
    # on it and a little on the two requests.
    assert used < REGEX_SECONDS + 0.5, used


def test_a_read_result_over_the_limit_is_a_clear_error(world: World) -> None:
    for _ in range(4):  # each control character is six characters of JSON
        world.ok(F, "append_file", path="ctl.txt", content="\x01" * 100_000, newline=False)
    out = world.call(F, "read_file", path="ctl.txt")
    assert not out.ok and out.error_kind == "too_large" and "ask for less" in (out.error or "")
    assert world.ok(F, "count_words", path="ctl.txt")["bytes"] == 400_000
