"""Tasks from intents: run one to three intents of a server on a fork of one world, link the calls,
and assemble the task of a kind (mcp, clarify, abstain) with its user turns in the persona's voice.

A dialogue starts with one intent drawn by weight; while it is shorter than 2 turns or 2 calls (or,
by chance, when there is room), a ``follows=True`` intent continues it on the same fork, inside a
savepoint, so a continuation that overruns the bounds (3 turns, 5 calls) or finds nothing to do is
rolled back without a trace. Calls are linked by data (an argument carries a value an earlier result
carried) and by state (a ``requires=`` edge, or an earlier write on the same entity).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hub.engine.dispatcher import Dispatcher
from hub.kit import Server, Tool
from hub.kit.intent import (
    MAX_CALLS,
    MAX_TURNS,
    CallRecord,
    Given,
    Intent,
    IntentError,
    Level,
    Persona,
    Scene,
    Skip,
    TurnDraft,
    answer,
    random_persona,
    speak,
)
from hub.state.sessions import SessionManager
from hub.synth.checkback import checkbacks
from hub.tasks import GTStep, Turn, tool_name

CONTINUE_RATE = 0.5
FOLLOW_TRIES = 6  # follow-ups tried per dialogue (a skipped or overrunning one is rolled back)
WORD = re.compile(r"[A-Za-z0-9_.-]{4,}")


@dataclass
class Dialogue:
    """A scene that ran to the end: its turns (with live calls), proofs, links and persona."""

    server: str
    world: int
    level: Level
    persona: Persona
    scene: Scene
    links: list[list[tuple[int, str]]] = field(default_factory=list)  # per call: (earlier call, "data"/"state")

    @property
    def calls(self) -> list[CallRecord]:
        return list(self.scene.calls)

    @property
    def turns(self) -> list[TurnDraft]:
        return self.scene.turns


class DraftFailed(Exception):
    """No dialogue from this draw; ``reason`` says why (counted by the pipeline)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def _weighted(intents: list[Intent], rng: random.Random, weight: Callable[[Intent], float] | None = None) -> Intent:
    return rng.choices(intents, [weight(i) if weight else i.weight for i in intents])[0]


def run_dialogue(
    server: Server,
    sessions: SessionManager,
    dispatcher: Dispatcher,
    sid: str,
    world: int,
    level: Level,
    rng: random.Random,
    first: Intent | None = None,
    max_turns: int = MAX_TURNS,
    follow_weight: Callable[[list[str], Intent], float] | None = None,
    fresh: Callable[[Scene], bool] | None = None,
) -> Dialogue:
    """Run intents on session ``sid`` (opened here on ``world``, left open for the caller to close), at the
    world's own "now": the scene reads it from the fork whose tools will check against it.

    ``max_turns`` bounds the dialogue below ``MAX_TURNS`` (a clarify task adds its ask turn on top);
    ``follow_weight(intents so far, follower)`` replaces the followers' static weights (the pipeline
    steers toward continuations that still make new tasks); while ``fresh(scene)`` is false (the calls so
    far make a task the run already holds), a follow-up is always tried when there is room."""
    session = sessions.open(sid, seed=world)
    fork = session.fork_of(server.name)
    db, now = fork.db, fork.now  # type: ignore[attr-defined]

    def call(tool: str, args: dict[str, Any]) -> tuple[bool, Any, str | None]:
        out = dispatcher.call(sid, server.name, tool, args)
        return out.ok, out.result, out.error

    persona = random_persona(rng)
    scene = Scene(server, db, call, rng, level=level, persona=persona, now=now, world=world, max_turns=max_turns)
    intent = first or _weighted([i for i in server.intents if i.opens], rng)
    try:
        intent.run(scene)
    except Skip as exc:
        raise DraftFailed("no_fit", str(exc)) from None
    followers = [i for i in server.intents if i.follows] + checkbacks(server)
    weight = (lambda i: follow_weight(list(scene.intents), i)) if follow_weight else None
    tries = 0
    while followers and tries < FOLLOW_TRIES and _room(scene) and _more(scene, rng, fresh):
        tries += 1
        _continue(scene, db, _weighted(followers, rng, weight))
    if _short(scene):
        raise DraftFailed("too_short")
    return Dialogue(server.name, world, level, scene.persona, scene, links(server.tools, scene))


def _more(scene: Scene, rng: random.Random, fresh: Callable[[Scene], bool] | None) -> bool:
    """Whether to try a follow-up: the dialogue is too short, makes nothing new yet, or by chance."""
    return _short(scene) or (fresh is not None and not fresh(scene)) or rng.random() < CONTINUE_RATE


def _short(scene: Scene) -> bool:
    return len(scene.turns) < 2 or sum(1 for _ in scene.calls) < 2


def _room(scene: Scene) -> bool:
    return len(scene.turns) < scene.max_turns and sum(1 for _ in scene.calls) < MAX_CALLS


def _continue(scene: Scene, db: Any, intent: Intent) -> None:
    """Run a follow-up intent inside a savepoint; undo it when it skips or overruns the bounds."""
    mark = (len(scene.turns), len(scene.proofs), dict(scene.memory), len(scene.intents), scene.level)
    persona, speaker = scene.persona, scene.speaker
    scene.level = "complete"  # only the opening turn has an information level
    db.execute("SAVEPOINT dialogue")
    try:
        intent.run(scene)
        overrun = len(scene.turns) > scene.max_turns or sum(1 for _ in scene.calls) > MAX_CALLS
        overrun = overrun or not linked(links(scene.server.tools, scene))  # a follow-up builds on what came back
        overrun = overrun or asks_again(scene, mark[0])
    except Skip:
        overrun = True
    if overrun:
        db.execute("ROLLBACK TO dialogue")
        del scene.turns[mark[0] :]
        del scene.proofs[mark[1] :]
        scene.memory = mark[2]
        del scene.intents[mark[3] :]
        scene.persona, scene.speaker = persona, speaker
    db.execute("RELEASE dialogue")
    scene.level = mark[4]


def asks_again(scene: Scene, since: int) -> bool:
    """Whether a turn from ``since`` on asks what an earlier turn asked: all its calls are reads the dialogue
    already made with the same arguments, and nothing was written since (so the answer cannot have changed)."""
    done: list[tuple[str, dict[str, Any]]] = []
    for i, turn in enumerate(scene.turns):
        if i >= since and turn.calls and all(c.kind == "read" and (c.tool, c.arguments) in done for c in turn.calls):
            return True
        for c in turn.calls:
            if c.kind == "write":
                done.clear()
            else:
                done.append((c.tool, c.arguments))
    return False


# Links -----------------------------------------------------------------------------------------


def _scalars(value: Any, out: set[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            out.add(str(k))
            _scalars(v, out)
    elif isinstance(value, list):
        for v in value:
            _scalars(v, out)
    elif isinstance(value, str) and len(value) >= 3:
        out.add(value)
    elif isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 100:
        out.add(str(value))
    elif isinstance(value, float) and not value.is_integer():  # coordinates read off a result
        out.add(repr(value))


def _arg_values(args: dict[str, Any]) -> set[str]:
    """The values an argument carries, and the words of a free text (an @handle read off a result)."""
    out: set[str] = set()
    for v in args.values():
        if isinstance(v, (dict, list, str, float)):
            _scalars(v, out)
        if isinstance(v, str) and " " in v:
            out.update(WORD.findall(v))
    return out


def links(tools: dict[str, Tool], scene: Scene) -> list[list[tuple[int, str]]]:
    """For each call, the earlier calls it depends on: by data or by state."""
    calls = list(scene.calls)
    carried = []
    for c in calls:
        found: set[str] = set()
        _scalars(c.result, found)
        carried.append(found)
    out: list[list[tuple[int, str]]] = []
    for i, c in enumerate(calls):
        mine = _arg_values(c.arguments)
        entities = {repr(v) for p, v in c.arguments.items() if tools[c.tool].params.get(p)}
        edges: list[tuple[int, str]] = []
        for j in range(i):
            prev = calls[j]
            if mine & carried[j]:
                edges.append((j, "data"))
            elif (
                prev.tool in tools[c.tool].requires
                or prev.kind == "write"
                and entities & {repr(v) for p, v in prev.arguments.items() if tools[prev.tool].params.get(p)}
            ):
                edges.append((j, "state"))
        out.append(edges)
    return out


def linked(edges: list[list[tuple[int, str]]]) -> bool:
    """The calls form one connected dependency graph (parallel discovery reads that feed one action
    count as linked through it)."""
    parent = list(range(len(edges)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, deps in enumerate(edges):
        for j, _ in deps:
            parent[root(i)] = root(j)
    return len({root(i) for i in range(len(edges))}) <= 1


# Assembly --------------------------------------------------------------------------------------


def gt_turns(dialogue: Dialogue) -> list[list[GTStep]]:
    """The ground truth per turn, with dependency edges from the links."""
    out: list[list[GTStep]] = []
    index = 0
    for turn in dialogue.turns:
        steps = []
        for c in turn.calls:
            after = sorted({f"g{j + 1}" for j, _ in dialogue.links[index]}, key=lambda s: int(s[1:]))
            steps.append(
                GTStep(server=dialogue.server, tool=c.tool, arguments=c.arguments, id=f"g{index + 1}", after=after)
            )
            index += 1
        out.append(steps)
    return out


def render(dialogue: Dialogue, rng: random.Random, withheld: str | None = None) -> list[str]:
    """The user turns as the persona writes them (the opening one without ``withheld``)."""
    today = dialogue.scene.today()
    return [
        speak(turn, dialogue.persona, rng, i == 0, withheld if i == 0 else None, today)
        for i, turn in enumerate(dialogue.turns)
    ]


def withholdable(dialogue: Dialogue) -> list[tuple[str, Given]]:
    """Opening-turn givens a clarify task may withhold: inside a ``[...]`` segment, consumed by an
    opening-turn call as the declared required parameter."""
    turn = dialogue.turns[0]
    segments = " ".join(re.findall(r"\[([^\[\]]*)\]", turn.phrasing))
    out = []
    for slot, given in turn.givens():
        if "{" + slot + "}" not in segments:
            continue
        if any(c.tool == given.tool and c.arguments.get(given.param) == given.value for c in turn.calls):
            out.append((slot, given))
    return out


def mcp_turns(dialogue: Dialogue, rng: random.Random) -> list[Turn]:
    texts = render(dialogue, rng)
    return [Turn(user=t, calls=c) for t, c in zip(texts, gt_turns(dialogue))]


def clarify_turns(dialogue: Dialogue, rng: random.Random) -> tuple[list[Turn], Given]:
    options = withholdable(dialogue)
    if not options:
        raise DraftFailed("nothing_to_withhold")
    slot, given = rng.choice(options)
    texts = render(dialogue, rng, withheld=slot)
    steps = gt_turns(dialogue)
    turns = [Turn(user=texts[0], ask=True), Turn(user=answer(given, rng, dialogue.persona), calls=steps[0])]
    turns += [Turn(user=t, calls=c) for t, c in zip(texts[1:], steps[1:])]
    return turns, given


def opening_text(dialogue: Dialogue, rng: random.Random) -> str:
    return render(dialogue, rng)[0]


def tool_words(name: str) -> tuple[str, frozenset[str]]:
    """A tool's verb and object words, singular: ``register_webhook`` -> ('register', {'webhook'})."""
    verb, _, obj = name.partition("_")
    return verb, frozenset(w.rstrip("s") for w in obj.split("_") if w)


SYNONYMS = (
    {"create", "add", "make", "new", "open", "register", "book", "schedule", "place"},
    {"update", "edit", "change", "set", "modify", "rename", "move"},
    {"delete", "remove", "cancel", "void", "close", "archive", "end"},
    {"send", "post", "reply", "publish", "share", "message"},
    {"pay", "transfer", "refund", "charge"},
)


def _same_verb(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in SYNONYMS)


def could_do(offered: str, wanted: str) -> bool:
    """Whether an offered tool (``server__tool``) could do what a wanted tool does: the same name, or
    the same verb (or a synonym) on an object word they share."""
    a = offered.split("__", 1)[-1]
    b = wanted.split("__", 1)[-1]
    (va, oa), (vb, ob) = tool_words(a), tool_words(b)
    return a == b or _same_verb(va, vb) and bool(oa & ob)


def unsolvable_offer(candidates: list[str], wanted: list[str]) -> list[str]:
    """``candidates`` without any tool that could do one of ``wanted``."""
    return [t for t in candidates if not any(could_do(t, w) for w in wanted)]


def wanted_tools(dialogue: Dialogue, opening_only: bool = True) -> list[str]:
    turns = dialogue.turns[:1] if opening_only else dialogue.turns
    return sorted({tool_name(dialogue.server, c.tool) for t in turns for c in t.calls})


def check(dialogue: Dialogue) -> None:
    """Shape checks an intent must pass (tests hold every intent to them)."""
    n = len(dialogue.calls)
    if not 2 <= n <= MAX_CALLS:
        raise IntentError(f"{dialogue.scene.intents}: {n} calls (2..{MAX_CALLS})")
    if not 2 <= len(dialogue.turns) <= MAX_TURNS:
        raise IntentError(f"{dialogue.scene.intents}: {len(dialogue.turns)} turns (2..{MAX_TURNS})")
    if any(not t.calls for t in dialogue.turns):
        raise IntentError(f"{dialogue.scene.intents}: a turn without calls")
