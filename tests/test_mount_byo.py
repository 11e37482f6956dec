"""Bring-your-own environments as real benchmarks use them: scenarios through every public door,
object graphs with cycles, non-JSON results, imported schemas, tool selection, copy-on-write forks.
Over a real uvicorn on loopback with the mcp client, the JSON API and the rollout WebSocket."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client

from hub.app import create_app
from hub.config import Settings
from hub.core import Hub
from hub.mount import ObjectMount, StateError, canonical, load_mount, normalize, parse_schemas, public_state, snake_case
from hub.mount.canonical import state_json
from hub.state.library import Library, SqliteMount
from hub.tasks import Task, hermes_call, replay
from hub.testing import LiveHub, serve
from hub.transports.session_client import SessionClientError, close_session, open_session
from servers import REGISTRY
from tests.conftest import LIBRARY, World
from tests.mounted_envs import AirlineTools, Bank, HookedCounter, Ledger, MarkedCounter, Shop, TreeFS
from trainer_client.evaluate import OraclePolicy, evaluate
from trainer_client.hub_client import HubClient, HubError
from trainer_client.hubs import HubSet

TREE = {"files": {"docs/readme.md": "# hi", "docs/deep/x.txt": "x", "top.txt": "top"}}


def byo_library() -> Library:
    return Library(
        [
            SqliteMount(next(s for s in REGISTRY if s.name == "banking"), LIBRARY.mounts["banking"].now),
            ObjectMount(TreeFS, "tree"),
            ObjectMount(Bank, "bank"),
            ObjectMount(Ledger),
            ObjectMount(AirlineTools),
            ObjectMount(MarkedCounter),
            ObjectMount(HookedCounter),
            ObjectMount(Shop, "shop"),
        ]
    )


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    settings = Settings(store_path=str(tmp_path / "store.db"))
    async with serve(create_app(settings, Hub(settings, byo_library()))) as hub:
        yield hub


async def mcp_call(url: str, tool: str, **arguments: Any) -> Any:
    async with Client(url) as client:
        return await client.call_tool(tool, arguments)


# Scenarios through every public door ------------------------------------------------------------


async def test_rest_session_scenario_with_loader_options_reaches_mcp_tools(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post(
            "/api/sessions",
            json={
                "id": "lc",
                "configs": {"tree": TREE},
                "loader_kwargs": {"tree": {"long_context": True, "banner": "B:"}},
            },
        )
        assert r.status_code == 201 and r.json()["scenarios"] == ["tree"]
        r2 = await http.post("/api/sessions", json={"id": "plain", "configs": {"tree": TREE}})
        assert r2.status_code == 201
    url = f"{live.url}/sessions/lc/mcp/tree"
    await mcp_call(url, "cd", folder="docs")
    assert (await mcp_call(url, "cat", file_name="readme.md")).structured_content == {"file_content": "B:# hi"}
    assert (await mcp_call(url, "pwd")).content[0].text == "/docs"
    plain = await mcp_call(f"{live.url}/sessions/plain/mcp/tree", "cat", file_name="top.txt")
    assert plain.structured_content == {"file_content": "top"}
    untouched = await mcp_call(f"{live.url}/sessions/other/mcp/tree", "ls")
    assert untouched.content[0].text == "[]"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"configs": {"banking": {"x": 1}}}, "'banking' is built in"),
        ({"configs": {"ledger": {"x": 1}}}, "has no scenario loader"),
        ({"configs": {"nope": {}}}, "'nope', which is not served"),
        ({"configs": {"bank": {"wrong": 1}}}, "loading the scenario failed in Bank.load_scenario: KeyError"),
        (
            {"configs": {"tree": TREE}, "loader_kwargs": {"tree": {"colour": "red"}}},
            "unexpected keyword argument 'colour'",
        ),
        ({"configs": ["tree"]}, "configs must be an object keyed by server name"),
        ({"loader_kwargs": {"tree": [1]}}, "must be an object of keyword arguments"),
    ],
)
async def test_bad_scenarios_get_a_clear_error_and_open_nothing(
    live: LiveHub, body: dict[str, Any], message: str
) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        r = await http.post("/api/sessions", json={"id": "bad", **body})
        assert r.status_code == 400 and message in r.json()["error"]
        assert (await http.get("/api/sessions/bad")).status_code == 404


async def test_session_client_helper_and_cli(live: LiveHub, tmp_path: Path) -> None:
    opened = await asyncio.to_thread(open_session, live.url, configs={"bank": {"accounts": {"zoe": 5}}})
    assert opened["mcp_url"] == f"{live.url}/sessions/{opened['id']}/mcp"
    got = await mcp_call(f"{opened['mcp_url']}/bank", "balance", account="zoe")
    assert got.content[0].text == "5.0"
    assert (await asyncio.to_thread(close_session, live.url, opened["id"]))["closed"] == opened["id"]
    with pytest.raises(SessionClientError, match="has no scenario loader"):
        await asyncio.to_thread(open_session, live.url, configs={"ledger": {}})
    scenario = tmp_path / "tree.json"
    scenario.write_text(json.dumps(TREE))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "hub.cli",
        "session",
        "open",
        "cli-s",
        "--hub",
        live.url,
        "--config",
        f"tree=@{scenario}",
        "--loader-kwargs",
        'tree={"long_context": true, "banner": ">"}',
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert json.loads(out)["mcp_url"].endswith("/sessions/cli-s/mcp")
    got = await mcp_call(f"{live.url}/sessions/cli-s/mcp/tree", "cat", file_name="top.txt")
    assert got.structured_content == {"file_content": ">top"}


def tree_task(task_id: str = "tree-1", **initial: Any) -> dict[str, Any]:
    return {
        "id": task_id,
        "servers": ["tree"],
        "tools": ["tree__cd", "tree__echo", "tree__cat", "tree__ls"],
        "initial": {"configs": {"tree": TREE}, **initial},
        "turns": [
            {
                "user": "Put 'done' into docs/status.txt",
                "calls": [
                    {"id": "a", "server": "tree", "tool": "cd", "arguments": {"folder": "docs"}},
                    {
                        "id": "b",
                        "server": "tree",
                        "tool": "echo",
                        "after": ["a"],
                        "arguments": {"content": "done", "file_name": "status.txt"},
                    },
                ],
            }
        ],
    }


async def test_ws_group_starts_each_episode_from_the_task_scenario(live: LiveHub) -> None:
    raw = tree_task()
    task = Task.model_validate(raw)
    expected, per_server = replay(task, live.app.state.hub.library)
    raw.update(expected_state_hash=expected, expected_server_hashes=per_server)
    async with HubClient(live.ws_url) as client:
        group = await client.open(raw, n=3)
        assert {e["state_hash"] for e in group.raw["episodes"]} == {group.state_hash}
        step = await client.step(
            group.episodes[0],
            hermes_call("tree__cd", {"folder": "docs"})
            + hermes_call("tree__echo", {"content": "done", "file_name": "status.txt"}),
        )
        assert [c["ok"] for c in step["calls"]] == [True, True]
        await client.step(group.episodes[0], "Done.")
        reward = await client.finish(group.episodes[0])
        assert reward["components"]["coverage"] == 1.0 and reward["components"]["state"] == 1.0
        seen = await client.step(group.episodes[1], hermes_call("tree__ls", {}))
        assert seen["messages"][0]["content"] == '["docs","top.txt"]'  # the scenario, not the write of episode 0
        assert (await client.finish(group.episodes[1], {"preset": "paper"}))["components"]["state"] == 0.0
        bad = {**tree_task("tree-bad"), "initial": {"configs": {"banking": {}}}}
        with pytest.raises(HubError) as info:
            await client.open(bad)
        assert info.value.code == "bad_task" and "'banking' is built in" in str(info.value)
        with pytest.raises(HubError, match="has no scenario loader"):
            await client.open({**tree_task("tree-bad2"), "initial": {"configs": {"ledger": {}}}})


async def test_eval_runs_tasks_whose_initial_state_is_a_scenario(tmp_path: Path) -> None:
    library = byo_library()
    tasks = []
    for i, folder in enumerate(["docs", "docs"]):
        raw = tree_task(f"tree-eval-{i}", loader_kwargs={"tree": {"long_context": bool(i), "banner": "!"}})
        raw["meta"] = {"split": "test"}
        raw["turns"][0]["calls"][0]["arguments"] = {"folder": folder}
        task = Task.model_validate(raw)
        task.expected_state_hash, task.expected_server_hashes = replay(task, library)
        tasks.append(task)
    assert tasks[0].expected_state_hash != tasks[1].expected_state_hash  # loader options change the start
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(t.model_dump_json() + "\n" for t in tasks))
    settings = Settings(store_path=str(tmp_path / "store.db"), tasks_path=str(path))
    async with serve(create_app(settings, Hub(settings, library))) as hub:
        hubs = HubSet([hub.url])
        try:
            report = await evaluate(hubs, OraclePolicy(), split="test", samples=2)
        finally:
            await hubs.close()
    assert report["tasks"] == 2 and report["overall"]["episodes"] == 4
    assert report["overall"]["success_rate"] == 1.0 and report["overall"]["components"]["coverage"] == 1.0
    assert all(e["components"]["state"] == 1.0 for e in report["episodes"])  # each reached its task's final state


# Object graphs, results -------------------------------------------------------------------------


async def test_tree_with_parent_links_hashes_diffs_forks_and_snapshots(live: LiveHub) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        assert (await http.post("/api/sessions", json={"id": "t", "configs": {"tree": TREE}})).status_code == 201
        url = f"{live.url}/sessions/t/mcp/tree"
        assert not (await mcp_call(url, "cd", folder="docs")).is_error
        assert not (await mcp_call(url, "mkdir", dir_name="new")).is_error
        state = (await http.get("/api/sessions/t/state/tree")).json()
        assert state["tables"] == ["cwd", "long_context", "root"]
        assert {c["key"] for c in state["diff"]["cwd"]["changed"]} == {"contents", "name", "parent"}
        browse = (await http.get("/api/sessions/t/state/tree", params={"table": "root"})).json()
        assert browse["rows"] == [["$ref", "#/cwd/parent"]]  # the root, met first as the parent of cwd
        fork = (await http.post("/api/sessions/t/fork", json={"id": "t2"})).json()
        assert fork["state_hash"] == (await http.get("/api/sessions/t")).json()["state_hash"]
        snap = (await http.post("/api/sessions/t/snapshot")).json()
        assert (await http.post("/api/sessions", json={"id": "t3", "snapshot": snap["id"]})).status_code == 201
        assert (await http.get("/api/sessions/t3")).json()["state_hash"] == fork["state_hash"]
        assert (await mcp_call(f"{live.url}/sessions/t3/mcp/tree", "pwd")).content[0].text == "/docs"
        await mcp_call(f"{live.url}/sessions/t2/mcp/tree", "cd", folder="..")
        assert (await mcp_call(url, "pwd")).content[0].text == "/docs"


def test_canonical_state_tracks_identity_and_is_order_independent() -> None:
    a, b = TreeFS(), TreeFS()
    a._load_scenario({"files": {"x/1": "a", "y/2": "b"}})
    b._load_scenario({"files": {"y/2": "b", "x/1": "a"}})
    assert state_json(a) == state_json(b)
    state = public_state(a)
    assert state["root"] == {"$ref": "#/cwd"} and state["cwd"]["contents"]["x"]["parent"] == {"$ref": "#/cwd"}
    shared: list[int] = [1]
    assert canonical({"a": shared, "b": shared, "c": [1]}) == {"a": [1], "b": {"$ref": "#/a"}, "c": [1]}
    chain: dict[str, Any] = {}
    node = chain
    for _ in range(5000):
        node["next"] = {}
        node = node["next"]
    node["loop"] = chain
    with pytest.raises(StateError, match="__hub_state__"):
        canonical(chain)


async def test_non_json_results_are_json_safe_in_text_and_structured_content(live: LiveHub) -> None:
    url = f"{live.url}/sessions/money/mcp/ledger"
    added = await mcp_call(url, "add", memo="coffee", amount="3.10")
    assert not added.is_error
    want = {"total": "3.10", "entry": {"memo": "coffee", "amount": "3.10", "status": "open"}, "count": 1}
    assert added.structured_content == want and json.loads(added.content[0].text) == want
    await mcp_call(url, "add", memo="tea", amount="0.000000000000000000001")
    total = await mcp_call(url, "total")
    assert json.loads(total.content[0].text) == {"amount": "3.100000000000000000001", "currency": "EUR"}
    assert json.loads((await mcp_call(url, "report")).content[0].text) == {"lines": 2, "first": "coffee"}
    assert json.loads((await mcp_call(url, "receipt")).content[0].text) == [{"receipt": 1}, {"receipt": 2}]


# Schemas ----------------------------------------------------------------------------------------


def test_lenient_validation_passes_values_as_given_strict_coerces() -> None:
    lenient = World(Library([ObjectMount(Bank, "bank", default_config={"accounts": {"a": 20000, "b": 0}})]), "s")
    lenient.ok("bank", "transfer", source="a", target="b", amount=10000)
    direct = Bank()
    direct.load_scenario({"accounts": {"a": 20000, "b": 0}})
    direct.transfer("a", "b", 10000)
    fork = lenient.sessions.get("s").fork_of("bank")
    assert public_state(fork.instance)["log"] == [{"amount": 10000, "from": "a", "to": "b"}]
    assert fork.state_hash() == ObjectMount(Bank).version_of(direct).state_hash()
    assert "is not of type 'number'" in lenient.err("bank", "transfer", source="a", target="b", amount="lots")
    strict = World(Library([ObjectMount(Bank, "bank", default_config={"accounts": {"a": 20000}}, validation="strict")]))
    strict.ok("bank", "transfer", source="a", target="b", amount=10000)
    assert public_state(strict.sessions.get("test").fork_of("bank").instance)["log"][0]["amount"] == 10000.0


BFCL_DOCS = [
    {
        "name": "TreeFS.cd",
        "description": "Change directory.",
        "parameters": {
            "type": "dict",
            "properties": {"folder": {"type": "string", "description": "Where to go."}},
            "required": ["folder"],
        },
    },
    {
        "name": "echo",
        "description": "Write a file.",
        "parameters": {
            "type": "dict",
            "properties": {
                "content": {"type": "any"},
                "file_name": {"type": "string", "default": "None"},
                "pos": {"type": "tuple", "items": {"type": "float"}},
            },
            "required": ["content"],
        },
    },
]


def test_imported_schemas_from_jsonl_openai_and_mcp_forms(tmp_path: Path) -> None:
    jsonl = tmp_path / "tree.jsonl"
    jsonl.write_text("\n".join(json.dumps(d) for d in BFCL_DOCS) + "\n")
    mount = load_mount(f"tests.mounted_envs:TreeFS=fs?schemas={jsonl}&config=" + json.dumps(TREE))
    echo = mount.tools["echo"].input_schema
    assert echo["type"] == "object" and "type" not in echo["properties"]["content"]
    assert echo["properties"]["pos"] == {"type": "array", "items": {"type": "number"}}
    assert mount.tools["cd"].description == "Change directory."
    w = World(Library([mount]), "s")
    assert w.ok("fs", "echo", content=12, file_name="n.txt") is None  # "any" content passes as given
    assert "'folder' is a required property" in w.err("fs", "cd")
    openai = parse_schemas(json.dumps([{"type": "function", "function": BFCL_DOCS[1]}]))
    mcp_form = parse_schemas(json.dumps({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}))
    assert openai["echo"]["input_schema"]["properties"]["pos"]["type"] == "array"
    assert mcp_form["echo"]["input_schema"] == {"type": "object"}
    assert normalize({"type": ["dict", "None"], "properties": {"type": {"type": "int"}}}) == {
        "type": ["object", "null"],
        "properties": {"type": {"type": "integer"}},
    }
    with pytest.raises(ValueError, match="unknown type name 'frob'"):
        parse_schemas(json.dumps([{"name": "cd", "parameters": {"type": "frob"}}]))
    with pytest.raises(ValueError, match="'rmdir', which is not a tool of TreeFS"):
        ObjectMount(TreeFS, schemas=parse_schemas(json.dumps([{"name": "rmdir", "parameters": {}}])))


def test_string_id_accepted_where_the_imported_schema_says_so() -> None:
    schemas = parse_schemas(
        json.dumps(
            [
                {
                    "name": "balance",
                    "parameters": {
                        "type": "dict",
                        "properties": {"account": {"type": ["string", "integer"]}},
                        "required": ["account"],
                    },
                }
            ]
        )
    )
    w = World(Library([ObjectMount(Bank, "bank", default_config={"accounts": {"7": 1}}, schemas=schemas)]))
    assert w.ok("bank", "balance", account="7") == 1.0


# Tool selection, names, serving only mounts ----------------------------------------------------


def test_tools_selected_by_markers_allow_list_and_exclusion() -> None:
    airline = ObjectMount(AirlineTools)
    assert airline.name == "airline_tools" and set(airline.tools) == {"get_user_details", "update_balance"}
    assert airline.tools["get_user_details"].kind == "read" and airline.tools["update_balance"].kind == "write"
    counter = ObjectMount(MarkedCounter)
    assert {n: t.kind for n, t in counter.tools.items()} == {"bump": "write", "peek": "read"}
    assert set(load_mount("tests.mounted_envs:TinyFS?tools=ls,cat").tools) == {"ls", "cat"}
    assert "rm" not in load_mount("tests.mounted_envs:TinyFS?exclude=rm,mkdir").tools
    with pytest.raises(ValueError, match="no method 'nope'"):
        load_mount("tests.mounted_envs:TinyFS?tools=ls,nope")
    with pytest.raises(ValueError, match="unknown option colour"):
        load_mount("tests.mounted_envs:TinyFS?colour=red")
    w = World(Library([airline]), "s")
    assert w.ok("airline_tools", "update_balance", user_id="raj_1", amount=25)["balance"] == 125


def test_snake_case_names() -> None:
    assert [snake_case(n) for n in ("MathAPI", "GorillaFileSystem", "TicketAPI", "IOTDevices", "HTTPServer2", "x")] == [
        "math_api",
        "gorilla_file_system",
        "ticket_api",
        "iot_devices",
        "http_server2",
        "x",
    ]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hub.cli", *args], capture_output=True, text=True, check=False)


def test_cli_serves_only_mounted_servers_and_explains_name_clashes() -> None:
    only_mounts = cli(
        "catalog",
        "--json",
        "--no-builtin",
        "--mount",
        "tests.mounted_envs:TreeFS",
        "--mount",
        "tests.mounted_envs:Bank=trading",
    )
    assert only_mounts.returncode == 0, only_mounts.stderr
    assert [s["name"] for s in json.loads(only_mounts.stdout)["servers"]] == ["tree_fs", "trading"]
    clash = cli("catalog", "--mount", "tests.mounted_envs:Bank=trading")
    assert clash.returncode == 2 and "has the name of a built-in server" in clash.stderr
    assert "--no-builtin" in clash.stderr
    only = cli("catalog", "--json", "--only", "banking", "trading", "--mount", "tests.mounted_envs:Bank=trading")
    servers = {s["name"]: s for s in json.loads(only.stdout)["servers"]}
    assert list(servers) == ["banking", "trading"] and {t["name"] for t in servers["trading"]["tools"]} == {
        "balance",
        "transfer",
    }
    assert "no such server" in cli("catalog", "--only", "nope").stderr
    called = cli(
        "call",
        "--no-builtin",
        "--mount",
        "tests.mounted_envs:Bank",
        "--config",
        'bank={"accounts": {"z": 3}}',
        "bank",
        "balance",
        '{"account": "z"}',
    )
    assert called.returncode == 0 and called.stdout.strip() == "3.0"


# Copy-on-write forks ----------------------------------------------------------------------------


def test_reads_never_copy_writes_copy_once_and_failures_leave_the_version() -> None:
    w = World(Library([ObjectMount(HookedCounter), ObjectMount(Shop, "shop")]), "a")
    HookedCounter.forks = 0
    w.ok("hooked_counter", "push", value=1)
    assert HookedCounter.forks == 1
    a = w.sessions.get("a")
    b = w.sessions.fork("a", "b")
    fa, fb = a.fork_of("hooked_counter"), b.fork_of("hooked_counter")
    assert fa.version is fb.version
    w.dispatcher.call("b", "hooked_counter", "push", {"value": 2})
    assert HookedCounter.forks == 2 and fa.instance.values == [1] and fb.instance.values == [1, 2]
    shop = a.fork_of("shop")
    first = shop.version
    assert w.dispatcher.call("other", "shop", "get_order", {"order_id": "o1-0"}).ok
    assert w.sessions.get("other").fork_of("shop").version is first
    h = shop.state_hash()
    assert first._hash == h  # computed once, cached on the shared version
    assert w.ok("shop", "get_order", order_id="o1-0")["user"] == "u1" and shop.version is first
    assert "KeyError" in w.err("shop", "cancel_order", order_id="o-missing") and shop.version is first
    out = w.call("shop", "cancel_order", order_id="o1-0")
    assert out.ok and out.state_changed and shop.version is not first and shop.state_hash() != h
    assert first.instance.orders["o1-0"]["status"] == "delivered"


def test_sixteen_sessions_share_a_large_scenario_and_stay_isolated() -> None:
    w = World(Library([ObjectMount(Shop, "shop")]), "s0")
    sids = [f"s{i}" for i in range(16)]
    for sid in sids:
        w.sessions.open(sid)
    forks = [w.sessions.get(s).fork_of("shop") for s in sids]
    assert len({id(f.instance) for f in forks}) == 1
    for i, sid in enumerate(sids[:8]):
        assert w.dispatcher.call(sid, "shop", "cancel_order", {"order_id": f"o{i}-0"}).ok
    states = [f.instance.orders for f in forks]
    for i in range(16):
        cancelled = {o for o, v in states[i].items() if v["status"] == "cancelled"}
        assert cancelled == ({f"o{i}-0"} if i < 8 else set())
    assert len({f.state_hash() for f in forks}) == 9


def test_no_op_write_is_not_a_state_change_and_decimal_state_round_trips() -> None:
    w = World(Library([ObjectMount(TreeFS, "tree", default_config=TREE), ObjectMount(Ledger)]), "s")
    out = w.call("tree", "echo", content="top", file_name="top.txt")
    assert out.ok and not out.state_changed
    w.ok("ledger", "add", memo="m", amount="1.10")
    assert public_state(w.sessions.get("s").fork_of("ledger").instance)["entries"][0]["amount"] == "1.10"
    assert Decimal("1.10") == Decimal(w.ok("ledger", "total")["amount"]) - 0


def test_a_fork_writes_in_place_on_a_version_it_holds_alone_and_undoes_failures() -> None:
    w = World(Library([ObjectMount(Shop, "shop")]), "a")
    assert w.call("shop", "cancel_order", order_id="o1-0").state_changed  # the scenario's version is shared: copied
    fork = w.sessions.get("a").fork_of("shop")
    mine, instance = fork.version, fork.instance
    assert not mine.shared
    before = fork.state_hash()
    assert w.call("shop", "cancel_order", order_id="o2-0").state_changed
    assert fork.version is mine and fork.instance is instance and fork.state_hash() != before
    after = fork.state_hash()
    assert "already cancelled" in w.err("shop", "cancel_order", order_id="o2-0")
    assert fork.instance is not instance and fork.state_hash() == after
    child = w.sessions.fork("a", "b").fork_of("shop")
    assert mine.shared and child.version is mine
    assert w.call("shop", "cancel_order", order_id="o3-0").ok
    assert fork.version is not mine and child.instance.orders["o3-0"]["status"] == "delivered"


async def test_mcp_meta_opens_a_session_from_a_scenario(live: LiveHub) -> None:
    options = {"tree": {"long_context": True, "banner": "M:"}}
    meta = {"hub/session": "via-meta", "hub/scenario": {"configs": {"tree": TREE}, "loader_kwargs": options}}
    async with Client(f"{live.url}/mcp/tree") as client:
        got = await client.call_tool("cat", {"file_name": "top.txt"}, meta=meta)
        assert got.structured_content == {"file_content": "M:top"}
        await client.call_tool("echo", {"content": "new", "file_name": "n.txt"}, meta=meta)  # same scenario: fine
        assert json.loads((await client.call_tool("ls", {}, meta=meta)).content[0].text) == ["docs", "n.txt", "top.txt"]
        other = await client.call_tool("ls", {}, meta={**meta, "hub/scenario": {"configs": {"tree": {"files": {}}}}})
        assert other.is_error and "already started from another scenario for tree" in other.content[0].text
        bad = await client.call_tool("ls", {}, meta={"hub/session": "m2", "hub/scenario": {"configs": {"ledger": {}}}})
        assert bad.is_error and "has no scenario loader" in bad.content[0].text
    async with httpx.AsyncClient(base_url=live.url) as http:
        assert (await http.get("/api/sessions/m2")).status_code == 404


def test_docstring_args_describe_parameters() -> None:
    props = ObjectMount(TreeFS).tools["echo"].input_schema["properties"]
    assert props["content"]["description"] == "The text to write."
    assert props["file_name"]["description"] == "[Optional] The file to write it to; none prints it."


class Node:
    def __init__(self, label: int) -> None:
        self.label = label
        self.edges: list[Node] = []
        self.tags: set[str] = set()


class Graph:
    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}


@given(
    st.lists(st.integers(0, 7), min_size=1, max_size=8),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20),
    st.lists(st.text(max_size=3), max_size=5),
    st.randoms(use_true_random=False),
)
@settings(max_examples=60, deadline=None)
def test_canonical_state_depends_on_structure_only(
    labels: list[int], edges: list[tuple[int, int]], tags: list[str], rng: Any
) -> None:
    def build(order: list[int]) -> Graph:
        g = Graph()
        made = {i: Node(labels[i]) for i in order}
        for i in order:
            g.nodes[f"n{i}"] = made[i]
            made[i].tags.update(reversed(tags) if i % 2 else tags)
        for a, b in edges:
            if a < len(labels) and b < len(labels):
                made[a].edges.append(made[b])
        return g

    order = list(range(len(labels)))
    shuffled = order[:]
    rng.shuffle(shuffled)
    a, b = build(order), build(shuffled)
    assert state_json(a) == state_json(b)  # insertion order of dicts and sets does not matter
    mount = ObjectMount(Graph)
    assert state_json(mount.copy_of(mount.version_of(a))) == state_json(a)  # a fork's copy has the same state
    json.loads(state_json(a))


async def test_unpicklable_state_falls_back_to_deepcopy_and_refuses_snapshots(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.mounted_envs import Cached

    settings = Settings(store_path=str(tmp_path / "store.db"))
    hub = Hub(settings, Library([ObjectMount(Cached)]))
    async with serve(create_app(settings, hub)) as live:
        url = f"{live.url}/sessions/c1/mcp/cached"
        assert (await mcp_call(url, "add_item", item=" Milk ")).content[0].text == "1"
        assert "deepcopy" in caplog.text and hub.library.mounts["cached"].copy_mode == "deepcopy"
        failed = await mcp_call(url, "add_item", item=" ")
        assert failed.is_error and "ValueError: empty item" in failed.content[0].text
        assert (await mcp_call(url, "list_items")).content[0].text == '["milk"]'
        assert (await mcp_call(f"{live.url}/sessions/c2/mcp/cached", "list_items")).content[0].text == "[]"
        async with httpx.AsyncClient(base_url=live.url) as http:
            snap = await http.post("/api/sessions/c1/snapshot")
            assert snap.status_code == 400 and "cannot snapshot an instance of Cached" in snap.json()["error"]


def test_factory_mounts_and_settings_from_the_environment() -> None:
    mount = load_mount("tests.mounted_envs:make_shop")
    assert mount.name == "shop" and mount.cls is Shop
    assert len(World(Library([mount])).ok("shop", "get_order", order_id="o1-0")["items"]) == 3
    assert load_mount("tests.mounted_envs:Bank?validation=strict").tools["transfer"].schema_validator is None
    with pytest.raises(ValueError, match="validation=loose"):
        load_mount("tests.mounted_envs:Bank?validation=loose")
    env = {
        "HUB_MOUNTS": "tests.mounted_envs:TinyFS?tools=ls,cat&exclude=rm,tests.mounted_envs:Bank=b",
        "HUB_ONLY": "b,tiny_fs",
        "HUB_BUILTIN": "0",
    }
    settings = Settings.from_env(env)
    assert settings.mounts == ["tests.mounted_envs:TinyFS?tools=ls,cat&exclude=rm", "tests.mounted_envs:Bank=b"]
    assert settings.only == ["b", "tiny_fs"] and settings.builtin is False
    from hub.core import default_library

    assert {n: sorted(m.tools) for n, m in default_library(settings).mounts.items()} == {
        "tiny_fs": ["cat", "ls"],
        "b": ["balance", "transfer"],
    }


def test_verify_reads_catches_a_read_tool_that_writes() -> None:
    from tests.mounted_envs import Sneaky

    plain = ObjectMount(Sneaky)
    assert plain.tools["get_visits"].kind == "read" and plain.tools["catalog_update"].kind == "write"
    w = World(Library([load_mount("tests.mounted_envs:Sneaky?verify_reads=1")]), "a")
    error = w.err("sneaky", "get_visits")
    assert "served as a read tool but changed the state (undone)" in error
    assert w.sessions.get("a").fork_of("sneaky").instance.visits == 0
    kinds = parse_schemas(json.dumps([{"name": "get_visits", "kind": "write", "parameters": {"type": "object"}}]))
    declared = World(Library([ObjectMount(Sneaky, schemas=kinds, verify_reads=True)]), "b")
    assert declared.ok("sneaky", "get_visits") == 1 and declared.ok("sneaky", "get_visits") == 2
    assert World(declared.library, "c").ok("sneaky", "get_visits") == 1  # the write stayed in session b
    assert load_mount("tests.mounted_envs:Sneaky?write=get_visits").tools["get_visits"].kind == "write"


async def test_mcp_lists_only_selected_tools_and_passes_values_as_given(live: LiveHub) -> None:
    async with Client(f"{live.url}/sessions/sel/mcp/airline_tools") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == {"get_user_details", "update_balance"}  # the harness helpers stay private
        assert tools["get_user_details"].annotations.read_only_hint
        assert not tools["update_balance"].annotations.read_only_hint
        got = await client.call_tool("update_balance", {"user_id": "raj_1", "amount": 10000})
        assert got.structured_content == {"name": "Raj", "balance": 10100}  # an int stays an int
    async with httpx.AsyncClient(base_url=live.url) as http:
        state = (await http.get("/api/sessions/sel/state/airline_tools")).json()
    assert state["diff"]["db"]["changed"][0]["changes"]["value"][1]["raj_1"]["balance"] == 10100


async def test_ws_group_of_sixteen_on_a_large_state(live: LiveHub) -> None:
    task = {
        "id": "shop-cancel",
        "servers": ["shop"],
        "tools": ["shop__get_order", "shop__cancel_order"],
        "turns": [
            {
                "user": "Cancel order o1-0.",
                "calls": [{"id": "a", "server": "shop", "tool": "cancel_order", "arguments": {"order_id": "o1-0"}}],
            }
        ],
    }
    async with HubClient(live.ws_url) as client:
        group = await client.open(task, n=16)
        assert {e["state_hash"] for e in group.raw["episodes"]} == {group.state_hash}
        for i, episode in enumerate(group.episodes):
            step = await client.step(episode, hermes_call("shop__cancel_order", {"order_id": f"o{i}-0"}))
            assert step["calls"][0]["ok"]
        hub: Hub = live.app.state.hub
        finals = []
        for i, ep in enumerate(group.episodes):
            instance = hub.sessions.get(hub.episodes.get(ep).session_id).fork_of("shop").instance
            assert {o for o, v in instance.orders.items() if v["status"] == "cancelled"} == {f"o{i}-0"}
            finals.append((await client.finish(ep))["components"]["argument"])
        assert finals == [0.0, 1.0] + [0.0] * 14  # only episode 1 cancelled the order the task asked for (o1-0)


def test_state_never_aliases_the_logged_arguments() -> None:
    from hub.engine.events import ToolCallEvent
    from tests.mounted_envs import Keeper

    w = World(Library([ObjectMount(Keeper)]), "k")
    seen: list[ToolCallEvent] = []
    sub = w.bus.subscribe(None, 100)
    w.ok("keeper", "keep", items=["a"])
    w.ok("keeper", "keep", items=["b"])
    while not sub.queue.empty():
        seen.append(sub.queue.get_nowait())  # type: ignore[arg-type]
    assert [e.arguments for e in seen] == [{"items": ["a"]}, {"items": ["b"]}]
    assert w.sessions.get("k").fork_of("keeper").instance.kept == [["a", "+", "+"], ["b", "+"]]


def test_iterables_render_as_lists_and_async_tools_are_refused() -> None:
    from tests.mounted_envs import AsyncTools, Shapes

    w = World(Library([ObjectMount(Shapes)]), "s")
    assert w.ok("shapes", "list_names") == ["a", "b"]
    assert w.ok("shapes", "get_doubled") == [2, 4]
    assert w.ok("shapes", "get_vector") == [1.5, 2.5]
    with pytest.raises(ValueError, match="AsyncTools.fetch is async.*exclude=fetch"):
        ObjectMount(AsyncTools)
    assert set(ObjectMount(AsyncTools, exclude=["fetch"]).tools) == {"ping"}
