"""Integrity checks on synthesized clarify and abstain tasks (the pipeline drops a task that fails).

- ``clarify_problems``: an ask turn may withhold only what the call cannot do without: each
  missing parameter is required by the call that needs it, has no default, is not stated in the
  turns so far, and, when it names an entity (``x-entity``), cannot be found by the model: no
  offered read tool, called on the task's initial state with what the user did state (values by
  parameter name, or a stated id of the parameter's shape), returns it as the only candidate.
- ``abstain_problems``: nothing offered, from any server, can do what the user asks: for every
  requested tool (``meta.synth.requested`` or ``wanted``, else the anchor; its writes when it has
  any), no offered tool has its name, or the same verb (up to synonyms: get/view/show,
  list/search/find, ...) on the same object (plurals folded, or the same head noun); and no user
  turn says an offered tool's verb (or a synonym) followed by its object (``search users``), which
  catches a request worded unlike its tool; and, when the task records the calls its request needed, no
  offered write of the request's server reaches the state they reach in their place
  (``hub.synth.unsolvable``).

``keep(task, library, dropped)`` applies the check that fits the task's kind and counts the
first problem's kind in ``dropped`` (``clarify_optional``, ``clarify_findable``, ...).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from hub.engine.clarify import missing_params, tokens, value_in_text, withheld_step
from hub.engine.world import World
from hub.errors import TaskError
from hub.kit.names import split_name
from hub.state.library import Library
from hub.synth import unsolvable
from hub.synth.validate import ID_TOKEN
from hub.tasks import GTStep, Task

ID_EXAMPLE = re.compile(r"'([A-Z]{2,6})-[0-9A-Z]{2,}")
DETERMINERS = frozenset(
    {
        "the",
        "a",
        "an",
        "my",
        "our",
        "your",
        "their",
        "his",
        "her",
        "all",
        "some",
        "any",
        "up",
        "me",
        "us",
        "of",
        "this",
        "that",
        "these",
        "those",
        "every",
    }
)
VERB_GROUPS: tuple[frozenset[str], ...] = (
    frozenset({"get", "view", "show", "read", "fetch", "check", "lookup", "look", "see", "describe", "display"}),
    frozenset({"list", "search", "find", "browse", "query", "locate", "filter"}),
    frozenset({"create", "add", "new", "make", "open", "register", "insert", "post", "write"}),
    frozenset({"update", "edit", "set", "change", "modify", "rename", "adjust"}),
    frozenset({"delete", "remove", "cancel", "close", "drop", "archive"}),
    frozenset({"send", "forward", "reply", "share"}),
    frozenset({"book", "reserve", "schedule"}),
)


# Clarify ---------------------------------------------------------------------------------------


def clarify_is_valid(task: Task, library: Library) -> bool:
    return not clarify_problems(task, library)


def clarify_problems(task: Task, library: Library) -> list[tuple[str, str]]:
    """(kind, message) for every way an ask turn withholds something it should not; empty when valid."""
    out: list[tuple[str, str]] = []
    for i, turn in enumerate(task.turns):
        if not turn.ask:
            continue
        params, _ = missing_params(task, i)
        if not params:
            out.append(("clarify_nothing_missing", f"turn {i} withholds nothing a later call needs"))
        for p in params:
            out += _param_problems(task, i, p, library)
    return out


def _param_problems(task: Task, turn: int, param: str, library: Library) -> list[tuple[str, str]]:
    step = withheld_step(task, turn, param)
    if step is None:
        return []  # nothing later uses it (the ask closes the task): its tool is the offered one
    tool = library.tool(step.server, step.tool)
    prop = tool.input_schema.get("properties", {}).get(param, {})
    if param not in tool.required or "default" in prop:
        return [("clarify_optional", f"{step.name} can run without {param}")]
    value = step.arguments[param]
    said = " ".join(t.user for t in task.turns[: turn + 1])
    if value_in_text(value, said):
        return [("clarify_stated", f"the user already states {param} = {value!r}")]
    finder = finding_tool(task, turn, step, param, library) if tool.params.get(param) else None
    if finder is not None:
        return [("clarify_findable", f"{finder} returns {param} = {value!r} as the only candidate")]
    return []


def finding_tool(task: Task, turn: int, step: GTStep, param: str, library: Library) -> str | None:
    """An offered read tool that, called with what the user stated, yields the value ``step`` gives
    ``param`` (an entity id) as the only candidate."""
    value = step.arguments[param]
    later = next(t for t in task.turns[turn + 1 :] if t.calls)
    said = " ".join(t.user for t in task.turns[: turn + 1])
    known = {k: v for s in later.calls for k, v in s.arguments.items() if k != param and value_in_text(v, said)}
    stated_ids = [i for i in ID_TOKEN.findall(said) if i != value]
    entity = library.tool(step.server, step.tool).params.get(param)
    keys = {param, f"{entity}_id"} if entity else {param}
    world = World(library)
    try:
        world.start(task, "check")
    except TaskError:
        return None
    for name in task.tools:
        parts = split_name(name)
        if parts is None or parts[0] != step.server or library.tool(*parts).kind != "read":
            continue
        args = _arguments_from(library.tool(*parts).input_schema, known, stated_ids)
        if args is None:
            continue
        out = world.dispatcher.call("check", parts[0], parts[1], args)
        if out.ok and set(_values_under(out.result, keys)) == {_key(value)}:
            return name
    return None


def _arguments_from(schema: dict[str, Any], known: dict[str, Any], stated_ids: list[str]) -> dict[str, Any] | None:
    """The tool's arguments from what the user stated: values by parameter name, else the one stated id
    of the parameter's id shape (its description's example, ``'ACC-0107'`` -> ``ACC-``); None when a
    required one stays unknown."""
    props = schema.get("properties", {})
    args = {k: v for k, v in known.items() if k in props}
    for name in schema.get("required", []):
        if name in args:
            continue
        example = ID_EXAMPLE.search(str(props.get(name, {}).get("description", "")))
        fits = {i for i in stated_ids if example and i.startswith(example.group(1) + "-")}
        if len(fits) != 1:
            return None
        args[name] = fits.pop()
    return args


def _values_under(node: Any, keys: set[str], depth: int = 0) -> Iterable[Any]:
    if depth > 8:
        return
    if isinstance(node, dict):
        for k, v in node.items():
            if k in keys and not isinstance(v, (dict, list)):
                yield _key(v)
            elif isinstance(v, (dict, list)):
                yield from _values_under(v, keys, depth + 1)
    elif isinstance(node, list):
        for item in node:
            yield from _values_under(item, keys, depth + 1)


def _key(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


# Abstain ---------------------------------------------------------------------------------------


def abstain_is_valid(task: Task, library: Library) -> bool:
    return not abstain_problems(task, library)


def verb_object(tool: str) -> tuple[str, tuple[str, ...]]:
    """``search_users`` -> ("search", ("user",))."""
    verb, _, obj = tool.partition("_")
    return verb, tuple(tokens(obj.replace("_", " ")))


def same_verb(a: str, b: str) -> bool:
    return a == b or any(a in g and b in g for g in VERB_GROUPS)


def same_object(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return a == b or bool(a and b and a[-1] == b[-1])


def requested_tools(task: Task, library: Library | None = None) -> list[str]:
    """What the user asks for: ``meta.synth.requested`` (chains) or ``wanted`` (intents), else the anchor;
    with ``library``, only the writes among them when there are any (the reads on the way are means, and a
    missing-function task offers them on purpose)."""
    synth = task.meta.get("synth", {})
    names = list(synth.get("requested") or synth.get("wanted") or ([synth["anchor"]] if synth.get("anchor") else []))
    if library is None:
        return names
    writes = [
        n
        for n in names
        if (p := split_name(n)) is not None
        and p[0] in library.mounts
        and p[1] in library.mount(p[0]).tools
        and library.tool(*p).kind == "write"
    ]
    return writes or names


def abstain_problems(task: Task, library: Library) -> list[tuple[str, str]]:
    """(kind, message) for every offered tool that could serve the request; empty when valid."""
    out: list[tuple[str, str]] = []
    offered = [(n, p) for n in task.tools if (p := split_name(n)) is not None]
    for want in requested_tools(task, library):
        parts = split_name(want)
        if parts is None:
            continue
        verb, obj = verb_object(parts[1])
        for name, (_, tool) in offered:
            if name == want or tool == parts[1]:
                out.append(("abstain_same_name", f"{name} is offered for a request of {want}"))
            elif same_verb(verb, verb_object(tool)[0]) and same_object(obj, verb_object(tool)[1]):
                out.append(("abstain_same_action", f"{name} does what {want} does"))
    said = [tokens(t.user) for t in task.turns]
    for name, (_, tool) in offered:
        verb, obj = verb_object(tool)
        if obj and any(_mentions(words, verb, obj) for words in said):
            out.append(("abstain_named_in_request", f"the user asks to {verb} {' '.join(obj)}, which {name} does"))
    return out or unsolvable.problems(task, library)


def _mentions(words: list[str], verb: str, obj: tuple[str, ...]) -> bool:
    """The verb (or a synonym) followed by the object's words, with only determiners between
    (``search users``, ``list all the users``, ``look up the account``)."""
    verbs = next((g for g in VERB_GROUPS if verb in g), frozenset({verb}))
    for i, w in enumerate(words):
        if w not in verbs:
            continue
        j = i + 1
        while j < len(words) and words[j] in DETERMINERS:
            j += 1
        if tuple(words[j : j + len(obj)]) == obj:
            return True
    return False


# The pipeline's filter ---------------------------------------------------------------------------


def problems(task: Task, library: Library) -> list[tuple[str, str]]:
    if task.kind == "clarify":
        return clarify_problems(task, library)
    if task.kind == "abstain":
        return abstain_problems(task, library)
    return []


def keep(task: Task, library: Library, dropped: Counter[str]) -> bool:
    """Whether the task passes its kind's check; a failing task's first problem kind is counted in ``dropped``."""
    found = problems(task, library)
    if found:
        dropped[found[0][0]] += 1
    return not found
