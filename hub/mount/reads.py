"""Read tools proven to be reads: the first use of each runs on a copy, compared before and after.

A read tool runs on the instance that every session of a scenario shares, so a "read" that changes
anything, even private state (a random generator it advances, a cache it fills, a counter), would
leak from one session into the others: three sessions of one GRPO group would see three different
first reads. So the first call of each read tool of a mount runs on a copy of the fork's state, and
the copy's whole state is compared before and after (its ``__hub_state__()`` when the class declares
one, else its pickle, private attributes included). Unchanged: the tool is a read from then on, served
on the shared instance at no cost. Changed: the call's copy becomes the fork's new state (as a write's
would) and the tool is served as a write from then on, with a warning in the log naming it.
"""

from __future__ import annotations

import logging
import pickle
from typing import TYPE_CHECKING, Any

from hub.kit import Json, Tool
from hub.mount.canonical import state_json, to_json_value

if TYPE_CHECKING:
    from hub.mount.forks import ObjectFork

log = logging.getLogger("hub.mount")


def fingerprint(instance: Any) -> bytes:
    """The whole state of an instance as bytes: its declared ``__hub_state__``, else its pickle (private
    attributes included), else (it does not pickle) its canonical public state."""
    if callable(getattr(instance, "__hub_state__", None)):
        return state_json(instance).encode()
    try:
        return pickle.dumps(instance, pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError, ValueError, RecursionError):
        return state_json(instance).encode()


class ReadCheck:
    """Per mount, what the first use of each read tool showed: a read (True) or a write in disguise (False)."""

    def __init__(self) -> None:
        self.verdicts: dict[str, bool] = {}

    def is_read(self, tool: str) -> bool:
        return self.verdicts.get(tool) is True

    def unchecked(self, tool: str) -> bool:
        return tool not in self.verdicts

    def first_use(self, fork: ObjectFork, tool: Tool, kwargs: dict[str, Any]) -> Json:
        """Run a read tool on a copy of the fork's state; keep the copy (and call the tool a write) if it changed."""
        mount = fork.mount
        version = fork.version
        work = mount.copy_of(version)
        before = fingerprint(work)
        result = to_json_value(fork._invoke(work, tool, kwargs))  # raising: no verdict yet, nothing kept
        if fingerprint(work) == before:
            self.verdicts[tool.name] = True
            return result
        self.verdicts[tool.name] = False
        log.warning(
            "%s.%s is named as a read tool but changed the instance's state (private attributes included); "
            "it is served as a write from now on (declare it with write= or __hub_write__ to skip this check)",
            mount.name,
            tool.name,
        )
        after = mount.after_write(work, version)
        if after is not None:
            fork.version = after
            fork.changes += 1
        return result
