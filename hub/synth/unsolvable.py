"""Replay that an abstain task stays unsolvable with the tools it offers.

An abstain task records the calls its request needed (``meta.synth.withheld``: what the synthesizer ran
before it took the tool away). Their replay on a fresh fork of the task's world gives the state the user
wanted. Each offered write tool of the request's server is then put in place of each withheld write,
called with the withheld call's arguments it takes; a tool whose swap reaches the wanted state could serve
the request, and the task is not an abstain task with it on offer.
"""

from __future__ import annotations

import hashlib
from typing import Any

from hub.engine.world import World, build_initial
from hub.kit.names import split_name
from hub.state.library import Library
from hub.tasks import Task


def withheld(server: str, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The ``meta.synth.withheld`` record of ``calls`` (tool, arguments) on ``server``."""
    return [{"tool": f"{server}__{tool}", "arguments": dict(args)} for tool, args in calls]


def problems(task: Task, library: Library) -> list[tuple[str, str]]:
    """(kind, message) for each offered write tool that reaches the state the withheld calls reach, in place
    of one of its writes, or for withheld calls that no longer replay; empty when the task records none."""
    synth = task.meta.get("synth", {})
    calls = synth.get("withheld") or []
    servers = synth.get("request_servers") or []
    if not calls or not servers:
        return []
    server = servers[0]
    world = World(library, max_sessions=1_000_000)
    try:
        target = _reached(task, world, server, calls)
        if target is None:
            return [("abstain_unreplayable", f"the calls the request needed fail on world {task.initial.seed}")]
        return [
            ("abstain_solvable", f"{name} reaches the state the request wants")
            for name in offered_writes(task, library, server)
            if any(_reached(task, world, server, swap) == target for swap in _swaps(calls, name, library))
        ]
    finally:
        world.stop()


def offered_writes(task: Task, library: Library, server: str | None) -> list[str]:
    """The write tools of ``server`` that ``task`` offers."""
    out = []
    for name in task.tools:
        parts = split_name(name)
        if parts is not None and parts[0] == server and library.tool(*parts).kind == "write":
            out.append(name)
    return out


def _swaps(calls: list[dict[str, Any]], name: str, library: Library) -> list[list[dict[str, Any]]]:
    """``calls`` with one write at a time replaced by ``name``, given the arguments of it that ``name`` takes."""
    parts = split_name(name)
    assert parts is not None
    takes = library.tool(*parts).input_schema.get("properties", {})
    out = []
    for i, call in enumerate(calls):
        wanted = split_name(call["tool"])
        if wanted is None or library.tool(*wanted).kind != "write":
            continue
        args = {k: v for k, v in call["arguments"].items() if k in takes}
        out.append([*calls[:i], {"tool": name, "arguments": args}, *calls[i + 1 :]])
    return out


def _reached(task: Task, world: World, server: str, calls: list[dict[str, Any]]) -> str | None:
    """The hash of ``server`` after ``calls`` on a fresh fork of the task's world; None when one fails."""
    sid = "unsolvable-" + hashlib.blake2b(repr((task.id, calls)).encode(), digest_size=8).hexdigest()
    session = build_initial(task, world.sessions, world.dispatcher, sid)
    try:
        for call in calls:
            srv, tool = call["tool"].split("__", 1)
            if not world.dispatcher.call(sid, srv, tool, call["arguments"]).ok:
                return None
        return session.fork_of(server).state_hash()
    finally:
        world.sessions.close(sid)
