"""Bring your own environment: mount a stateful Python class as a hub server.

The instance holds the state; its methods are the tools (name, docstring and type hints give the
schema, or imported function docs do); a scenario loader method takes each session's config and
keyword options. Forks are copy-on-write versions of the instance (see ``objects``); the state
hash and diff are computed over the cycle-safe canonical form of its public attributes (see
``canonical``); a call that raises leaves the state as it was.

    prove-hub serve --no-builtin --mount 'mypkg.fs:FileSystem=fs?schemas=fs.jsonl' --mount mypkg.bank:Bank
"""

from hub.mount.canonical import StateError, canonical, diff_states, public_state, to_json_value
from hub.mount.objects import ObjectFork, ObjectMount, Scenario, ScenarioError, Version, snake_case, tool
from hub.mount.schemas import load_schemas, normalize, parse_schemas
from hub.mount.spec import choose_servers, load_mount, scenarios

__all__ = [
    "ObjectFork",
    "ObjectMount",
    "Scenario",
    "ScenarioError",
    "SchemaFileError",
    "StateError",
    "Version",
    "canonical",
    "choose_servers",
    "diff_states",
    "load_mount",
    "load_schemas",
    "normalize",
    "parse_schemas",
    "public_state",
    "scenarios",
    "snake_case",
    "to_json_value",
    "tool",
]
