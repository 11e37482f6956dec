"""Mount options the suites need: reads proven on first use, results rendered as a benchmark renders, arguments
passed as given, generic tools as reads, and tools a later turn offers."""

from __future__ import annotations

import json
import random
from typing import Any

from hub.engine.episodes import EpisodeEngine
from hub.engine.world import World as PlainWorld
from hub.mount import ObjectMount, load_mount
from hub.state.library import Library
from tests.conftest import World


class Weather:
    """A car's weather feed, shaped like BFCL's VehicleControlAPI: a read that advances a private generator."""

    def __init__(self) -> None:
        self.city = "Berlin"
        self._random = random.Random(141053)

    def _load_scenario(self, config: dict[str, Any]) -> None:
        self.city = config.get("city", self.city)
        self._random = random.Random(config.get("random_seed", 141053))

    def get_outside_temperature(self) -> dict[str, float]:
        """The outside temperature, e.g. get_outside_temperature()."""
        return {"outsideTemperature": self._random.uniform(-10.0, 40.0)}

    def get_city(self) -> str:
        """The city, e.g. get_city()."""
        return self.city

    def set_city(self, city: str) -> str:
        """Move, e.g. set_city('Paris')."""
        self.city = city
        return city


def test_sessions_of_one_scenario_never_see_each_others_private_state_through_reads() -> None:
    mount = ObjectMount(Weather)
    w = World(Library([mount]))
    sids = ["s0", "s1", "s2"]  # a GRPO group: three sessions on one scenario, sharing its first version
    for sid in sids:
        w.sessions.open(sid, configs={"weather": {"city": "Oslo", "random_seed": 7}})

    def read(sid: str) -> Any:
        out = w.dispatcher.call(sid, "weather", "get_outside_temperature", {})
        assert out.ok, out.error
        return out.result

    first = [read(s) for s in sids]
    assert first[0] == first[1] == first[2]  # before: three sessions of one group saw three different first reads
    assert first[0] == {"outsideTemperature": random.Random(7).uniform(-10.0, 40.0)}
    assert mount.reads.verdicts["get_outside_temperature"] is False  # served as a write from now on
    second = [read(s) for s in sids]
    assert second[0] == second[1] == second[2] != first[0]


def test_a_pure_read_is_proven_once_then_runs_on_the_shared_instance() -> None:
    mount = ObjectMount(Weather)
    w = World(Library([mount]), "a")
    w.sessions.open("a")
    scenario = mount.first_version()
    assert w.ok("weather", "get_city") == "Berlin"
    assert mount.reads.verdicts == {"get_city": True}
    fork = w.sessions.get("a").fork_of("weather")
    assert fork.version is scenario and fork.changes == 0  # proven on a copy: the shared version stays
    assert w.ok("weather", "get_city") == "Berlin" and fork.version is scenario


def test_a_read_that_raises_on_first_use_gets_no_verdict_and_leaves_nothing() -> None:
    class Picky(Weather):
        def get_forecast(self, day: int) -> str:
            """A forecast, e.g. get_forecast(1)."""
            if day < 0:
                raise ValueError("no past forecasts")
            return "sunny"

    mount = ObjectMount(Picky)
    w = World(Library([mount]), "a")
    assert "no past forecasts" in w.err("picky", "get_forecast", day=-1)
    assert "get_forecast" not in mount.reads.verdicts
    assert w.ok("picky", "get_forecast", day=1) == "sunny" and mount.reads.verdicts["get_forecast"] is True


class Shapes:
    """Returns every shape of result, and fails the way a benchmark's class fails."""

    def get_dict(self) -> dict[str, Any]:
        """e.g. get_dict()."""
        return {"a": 1, "b": [1.5, True, None]}

    def get_list(self) -> list[Any]:
        """e.g. get_list()."""
        return ["x", 2, (3, 4)]

    def get_none(self) -> None:
        """e.g. get_none()."""

    def get_text(self) -> str:
        """e.g. get_text()."""
        return "plain"

    def get_count(self, n: int) -> Any:
        """e.g. get_count(2)."""
        return [n, type(n).__name__]

    def fail(self) -> None:
        """e.g. fail()."""
        raise ValueError("nope")


def texts(spec: str) -> dict[str, str]:
    w = World(Library([load_mount(spec)]), "r")
    out = {t: w.call("shapes", t).text() for t in ("get_dict", "get_list", "get_none", "get_text", "fail")}
    out["count"] = w.call("shapes", "get_count", n="5").text()
    return out


def test_render_repr_shows_what_bfcls_harness_shows() -> None:
    got = texts("tests.test_mount_reads:Shapes?render=repr&validation=none")
    assert got["get_dict"] == json.dumps({"a": 1, "b": [1.5, True, None]})  # json.dumps, default spacing
    assert got["get_list"] == "['x', 2, (3, 4)]"  # str(): Python's repr, the tuple kept
    assert got["get_none"] == "None" and got["get_text"] == "plain"
    assert got["fail"] == "Error during execution: nope"
    assert got["count"] == "['5', 'str']"  # validation=none: the method gets the value as given


def test_render_json_shows_what_tau2s_environment_shows() -> None:
    got = texts("tests.test_mount_reads:Shapes?render=json&validation=none")
    assert got["get_dict"] == '{"a": "1", "b": ["1.5", "True", null]}'  # tau2's to_json_str: numbers as strings
    assert got["get_list"] == '["x", "2", ["3", "4"]]'
    assert got["get_none"] == "null" and got["get_text"] == "plain"
    assert got["fail"] == "Error: nope"


def test_render_compact_is_the_hubs_default() -> None:
    got = texts("tests.test_mount_reads:Shapes")
    assert got["get_dict"] == '{"a":1,"b":[1.5,true,null]}'
    assert got["fail"] == "Error: ValueError: nope"
    assert "invalid arguments" in got["count"]  # lenient validation refuses a string for an int


def test_tau2_generic_tools_are_reads() -> None:
    class Toolkit:
        def calculate(self, expression: str) -> str:
            """Evaluate arithmetic, e.g. calculate('2 + 2')."""
            return str(eval(expression, {"__builtins__": {}}))

        def book(self) -> str:
            """Book, e.g. book()."""
            return "ok"

    for name, kind in (("calculate", "generic"), ("book", "write")):
        fn = getattr(Toolkit, name)
        fn.__tool__, fn.__tool_type__ = True, kind
    mount = ObjectMount(Toolkit)
    assert mount.tools["calculate"].kind == "read" and mount.tools["book"].kind == "write"


def weather_engine() -> EpisodeEngine:
    """An episode engine over a fresh world of the ``Weather`` mount alone."""
    library = Library([ObjectMount(Weather)])
    world = PlainWorld(library)
    return EpisodeEngine(library, world.sessions, world.dispatcher, world.bus)


def test_a_later_turn_offers_more_tools() -> None:
    engine = weather_engine()
    task = {
        "id": "gated",
        "servers": ["weather"],
        "tools": ["weather__get_city"],
        "turns": [
            {"user": "Where am I?", "calls": [{"id": "a", "server": "weather", "tool": "get_city"}]},
            {
                "user": "I have updated some more functions you can choose from. What about now?",
                "adds_tools": ["weather__set_city"],
                "calls": [{"id": "b", "server": "weather", "tool": "set_city", "arguments": {"city": "Rome"}}],
            },
        ],
    }
    ep = engine.open_group(task, 1)[0]
    assert [t["function"]["name"] for t in engine.tools_of(ep.task)] == ["weather__get_city"]
    first = engine.step(ep.id, "You are in Berlin.")
    assert first.tools is not None and [t["function"]["name"] for t in first.tools] == [
        "weather__get_city",
        "weather__set_city",
    ]
    assert "tools" in first.to_json()
    second = engine.step(ep.id, '<tool_call>{"name": "weather__set_city", "arguments": {"city": "Rome"}}</tool_call>')
    assert second.tools is None and second.calls[0]["ok"]
    # a tool offered later runs if named earlier, as in BFCL's harness (its method exists all along)
    early = engine.open_group(task, 1)[0]
    out = engine.step(early.id, '<tool_call>{"name": "weather__set_city", "arguments": {"city": "Oslo"}}</tool_call>')
    assert out.calls[0]["ok"]


def test_a_scenario_nested_too_deep_is_a_bad_scenario_at_every_door() -> None:
    import pytest

    from hub.errors import ScenarioError
    from hub.mount.spec import MAX_SCENARIO_DEPTH, nesting
    from hub.tasks import Task

    deep: dict[str, Any] = {}
    node = deep
    for _ in range(5000):  # deep enough to overflow any recursive copy
        node["d"] = {}
        node = node["d"]
    assert nesting(deep) == 5001 and nesting({"a": [1, {"b": []}]}) == 4
    w = World(Library([ObjectMount(Weather)]))
    with pytest.raises(ScenarioError, match=f"nested deeper than {MAX_SCENARIO_DEPTH} levels"):
        w.sessions.open("deep", configs={"weather": {"city": "Oslo", "extra": deep}})
    assert "deep" not in w.sessions.sessions
    task = Task.model_validate(
        {
            "id": "deep",
            "servers": ["weather"],
            "initial": {"configs": {"weather": {"extra": deep}}},
            "turns": [{"user": "Where?", "calls": [{"id": "a", "server": "weather", "tool": "get_city"}]}],
        }
    )
    with pytest.raises(Exception, match="nested deeper"):
        task.check_against(w.library)


def test_a_task_may_show_its_tools_by_their_own_names() -> None:
    import pytest

    from hub.tasks import Task

    engine = weather_engine()
    task = {
        "id": "bare",
        "servers": ["weather"],
        "tools": ["weather__get_city", "weather__set_city"],
        "bare_names": True,
        "turns": [{"user": "Move to Rome.", "calls": [{"id": "a", "server": "weather", "tool": "set_city"}]}],
    }
    ep = engine.open_group(task, 1)[0]
    assert [t["function"]["name"] for t in engine.tools_of(ep.task)] == ["get_city", "set_city"]
    out = engine.step(ep.id, '<tool_call>{"name": "set_city", "arguments": {"city": "Rome"}}</tool_call>')
    assert out.calls[0]["ok"] and out.messages[0]["name"] == "set_city"  # the model's own words come back
    out = engine.step(ep.id, '<tool_call>{"name": "weather__get_city", "arguments": {}}</tool_call>')
    assert out.messages[0]["content"] == "Rome"  # the full name works too
    assert [c.name for c in ep.calls] == ["weather__set_city", "weather__get_city"]  # recorded by full name
    refused = engine.step(ep.id, '<tool_call>{"name": "fly", "arguments": {}}</tool_call>')
    assert "the available tools are: get_city, set_city" in refused.messages[0]["content"]
    clash = {**task, "id": "clash", "servers": ["weather", "w2"], "tools": ["weather__get_city", "w2__get_city"]}
    with pytest.raises(ValueError, match="two offered tools share a name"):
        Task.model_validate(clash)
