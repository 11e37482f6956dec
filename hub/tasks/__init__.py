"""Tasks: the model (``model``), files and task sets (``io``), the oracle policy (``oracle``) and
ground-truth replay (``replay``). The public names are re-exported here."""

from hub.errors import TaskError, UnknownTask
from hub.kit.names import SEP, split_name, tool_name
from hub.tasks.io import BUILTIN_TASKS, DATA_DIR, TaskSet, read_jsonl, write_jsonl
from hub.tasks.model import ArgRole, ArgSource, Call, GTStep, InitialState, SimulatedUser, Task, TaskKind, Turn
from hub.tasks.oracle import hermes_call, oracle_script
from hub.tasks.replay import build_initial, regenerate, replay, server_hashes

__all__ = [
    "BUILTIN_TASKS",
    "DATA_DIR",
    "SEP",
    "ArgRole",
    "ArgSource",
    "Call",
    "GTStep",
    "InitialState",
    "SimulatedUser",
    "Task",
    "TaskError",
    "TaskKind",
    "TaskSet",
    "Turn",
    "UnknownTask",
    "build_initial",
    "hermes_call",
    "oracle_script",
    "read_jsonl",
    "regenerate",
    "replay",
    "server_hashes",
    "split_name",
    "tool_name",
    "write_jsonl",
]
