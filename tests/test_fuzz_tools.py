"""Every tool's unbounded text arguments at 60,000 characters: a clean tool or argument error, or success.

For each tool of every registered server, each string parameter without a length bound, a pattern or a
choice list is sent 60,000 characters long (the other arguments from the tool's own docstring example,
where it has one). The call must succeed or fail as the model's own mistake (``tool`` or ``arguments``),
never as a bug (``internal``: a 500 over REST), and a failed call must leave the server's state as it was.
Hypothesis varies what the long text is made of (wildcards, quotes, control and non-ASCII characters).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hub.kit import Tool
from servers import REGISTRY
from tests.conftest import World
from tests.servers.examples import docstring_examples

pytestmark = pytest.mark.abuse
LONG = 60_000
CLEAN = (None, "tool", "arguments")


def unbounded_strings(tool: Tool) -> list[str]:
    """The tool's parameters that take any string of any length."""
    found = []
    for name, prop in tool.input_schema.get("properties", {}).items():
        for option in prop.get("anyOf", [prop]):
            if option.get("type") == "string" and not {"enum", "pattern", "maxLength", "const"} & set(option):
                found.append(name)
                break
    return found


def cases() -> list[tuple[str, str, str, dict[str, Any]]]:
    """(server, tool, parameter, other arguments) for every unbounded string parameter of every tool."""
    out = []
    for server in REGISTRY:
        examples: dict[str, dict[str, Any]] = {}
        for name, arguments in docstring_examples(server):
            examples.setdefault(name, arguments)
        for tool in server.tools.values():
            for param in unbounded_strings(tool):
                out.append((server.name, tool.name, param, examples.get(tool.name, {})))
    return out


CASES = cases()


def check(world: World, server: str, tool: str, arguments: dict[str, Any]) -> None:
    before = world.hash(server)
    out = world.call(server, tool, **arguments)
    assert out.error_kind in CLEAN, f"{server}.{tool}: {out.error_kind}: {out.error}"
    if not out.ok:
        assert world.hash(server) == before, f"{server}.{tool} failed and changed state"


def test_the_registry_has_unbounded_text_arguments_to_fuzz() -> None:
    assert len(CASES) > 100 and len({(s, t) for s, t, _, _ in CASES}) > 50


def test_every_unbounded_text_argument_at_60000_characters() -> None:
    for n, (server, tool, param, example) in enumerate(CASES):
        check(World(session=f"fuzz-{n}"), server, tool, {**example, param: "y" * LONG})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(CASES),
    unit=st.text(
        alphabet=st.sampled_from(["%", "_", "*", "'", '"', "\\", "[", "(", "\x00", "\x01", "é", "中", "a"]),
        min_size=1,
        max_size=6,
    ),
)
def test_long_text_of_any_make_is_clean(case: tuple[str, str, str, dict[str, Any]], unit: str) -> None:
    server, tool, param, example = case
    text = (unit * (LONG // len(unit) + 1))[:LONG]
    check(World(session="fuzz"), server, tool, {**example, param: text})
