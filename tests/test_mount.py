"""Mounted Python classes: tools over MCP, per-session state, forks, atomic calls, replay equivalence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.mount import ObjectMount, load_mount, public_state
from hub.state.library import Library
from hub.testing import serve
from tests.conftest import World
from tests.mounted_envs import Bank, TinyFS

BANK_CONFIG = {"accounts": {"alice": 100, "bob": 20}}


def library() -> Library:
    return Library([ObjectMount(TinyFS, "fs"), ObjectMount(Bank, "bank", default_config=BANK_CONFIG)])


def world() -> World:
    return World(library(), "s1")


def test_methods_become_tools_with_schemas() -> None:
    fs = ObjectMount(TinyFS, "fs")
    assert set(fs.tools) == {"pwd", "ls", "cd", "mkdir", "write_file", "cat", "rm"}
    write = fs.tools["write_file"]
    assert write.input_schema["properties"]["append"] == {"default": False, "type": "boolean"}
    assert write.required == ["path", "content"] and write.kind == "write"
    assert fs.tools["ls"].kind == "read" and fs.tools["cat"].kind == "read"
    assert ObjectMount(Bank).tools["balance"].kind == "read"
    assert "Read a file" in fs.tools["cat"].description


def test_results_render_as_the_class_returns_them() -> None:
    w = world()
    assert w.call("fs", "cat", path="notes.txt").text() == "buy milk\n"
    assert json.loads(w.call("fs", "write_file", path="a.txt", content="hi").text()) == {
        "path": "/home/a.txt",
        "size": 2,
    }
    assert json.loads(w.call("fs", "ls").text()) == ["a.txt", "notes.txt"]


def test_positional_only_and_keyword_arguments() -> None:
    w = world()
    w.ok("fs", "mkdir", name="projects")
    w.ok("fs", "cd", path="projects")
    assert w.ok("fs", "pwd") == "/home/projects"


def test_failing_call_restores_the_pre_call_state() -> None:
    w = world()
    w.ok("fs", "cd", path="/home")
    assert "KeyError" in w.err("fs", "rm", path="missing.txt")
    assert w.ok("fs", "pwd") == "/home"
    assert "insufficient funds" in w.err("bank", "transfer", source="bob", target="alice", amount=50.0)
    assert w.ok("bank", "balance", account="bob") == 20.0
    assert "invalid arguments" in w.err("bank", "transfer", source="bob", target="alice", amount="lots")


def test_sessions_are_isolated_and_share_servers() -> None:
    w = world()
    w.ok("fs", "write_file", path="x.txt", content="mine")
    w.ok("bank", "transfer", source="alice", target="bob", amount=10.0)
    other = World(w.library, "s2")
    other.sessions = w.sessions
    other.dispatcher = w.dispatcher
    assert "x.txt" not in other.ok("fs", "ls")
    assert other.ok("bank", "balance", account="alice") == 100.0
    assert sorted(w.sessions.get("s1").forks) == ["bank", "fs"]


def test_forks_diverge_and_diff_reports_changes() -> None:
    w = world()
    w.ok("bank", "transfer", source="alice", target="bob", amount=10.0)
    child = w.sessions.fork("s1", "child")
    w.dispatcher.call("child", "bank", "transfer", {"source": "alice", "target": "carol", "amount": 5.0})
    assert w.ok("bank", "balance", account="alice") == 90.0
    assert child.fork_of("bank").state_hash() != w.sessions.get("s1").fork_of("bank").state_hash()
    diff = child.fork_of("bank").diff()
    assert {"key": "carol", "value": 5.0} in diff["accounts"]["added"]
    assert {"key": "alice", "changes": {"value": [100.0, 85.0]}} in diff["accounts"]["changed"]
    assert len(diff["log"]["added"]) == 2


def test_scenario_config_per_session() -> None:
    w = world()
    w.sessions.open("custom", configs={"bank": {"accounts": {"zoe": 5}}})
    assert w.dispatcher.call("custom", "bank", "balance", {"account": "zoe"}).result == 5.0
    assert w.ok("bank", "balance", account="alice") == 100.0


def test_replay_equals_direct_calls_in_process() -> None:
    calls = [
        ("mkdir", {"name": "docs"}),
        ("cd", {"path": "docs"}),
        ("write_file", {"path": "a.md", "content": "# A"}),
        ("write_file", {"path": "a.md", "content": "\nmore", "append": True}),
        ("cd", {"path": "/home"}),
        ("rm", {"path": "notes.txt"}),
        ("rm", {"path": "gone.txt"}),
    ]
    w = world()
    for tool, args in calls:
        w.call("fs", tool, **args)
    direct = TinyFS()
    direct.mkdir("docs")
    direct.cd(path="docs")
    direct.write_file("a.md", "# A")
    direct.write_file("a.md", "\nmore", append=True)
    direct.cd("/home")
    direct.rm("notes.txt")
    assert public_state(w.sessions.get("s1").fork_of("fs").instance) == public_state(direct)  # type: ignore[attr-defined]


def test_external_schema_overrides_generated_one(tmp_path: pytest.TempPathFactory) -> None:
    schemas = [
        {
            "name": "transfer",
            "description": "Send money (external schema).",
            "parameters": {
                "type": "object",
                "properties": {
                    "source": {"type": "string"},
                    "target": {"type": "string"},
                    "amount": {"type": "number", "minimum": 1},
                },
                "required": ["source", "target", "amount"],
            },
        }
    ]
    path = tmp_path / "schemas.json"  # type: ignore[operator]
    path.write_text(json.dumps(schemas))
    config = tmp_path / "config.json"  # type: ignore[operator]
    config.write_text(json.dumps(BANK_CONFIG))
    mount = load_mount(f"tests.mounted_envs:Bank=bank2?schemas={path}&config={config}")
    assert mount.name == "bank2" and mount.tools["transfer"].description == "Send money (external schema)."
    w = World(Library([mount]), "s")
    assert "minimum" in w.err("bank2", "transfer", source="alice", target="bob", amount=0.5)
    assert w.ok("bank2", "transfer", source="alice", target="bob", amount=2)["source"] == 98.0


async def test_tools_listed_and_called_over_mcp(tmp_path: Path) -> None:
    settings = Settings(store_path=str(tmp_path / "store.db"))
    async with serve(create_app(settings, Hub(settings, library()))) as live:
        async with Client(f"{live.url}/sessions/m1/mcp/fs") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert tools["write_file"].input_schema["required"] == ["path", "content"]
            assert tools["cat"].annotations.read_only_hint
            await client.call_tool("write_file", {"path": "n.txt", "content": "hello"})
            assert (await client.call_tool("cat", {"path": "n.txt"})).content[0].text == "hello"
        async with Client(f"{live.url}/sessions/m2/mcp/fs") as client:
            missing = await client.call_tool("cat", {"path": "n.txt"})
            assert missing.is_error and "no such file" in missing.content[0].text


def test_cli_mount_lists_the_class() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "hub.cli", "catalog", "--json", "--mount", "tests.mounted_envs:TinyFS=fs"],
        capture_output=True,
        text=True,
        check=True,
    )
    servers = {s["name"]: s for s in json.loads(out.stdout)["servers"]}
    assert len(servers["fs"]["tools"]) == 7
    bad = subprocess.run(
        [sys.executable, "-m", "hub.cli", "catalog", "--mount", "tests.mounted_envs:Nope"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("prove-hub: ") and "no class 'Nope'" in bad.stderr
