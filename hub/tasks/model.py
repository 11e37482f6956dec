"""The task model: what an episode starts from, what the user says, and what the right calls are.

A task names its servers, its initial state (a seed plus setup calls, or a
snapshot id), its user turns, the tools offered to the model (``server__tool``,
distractors included), the ground-truth calls of each turn with dependency edges
between them, and the expected final state hash (computed by replaying the
ground truth on a fresh fork: ``python -m hub.tasks --regenerate FILE``).

Kinds:
- ``mcp``: the model should make the ground-truth calls;
- ``clarify``: a required value is missing from the first turn(s) (``ask: true``, ``missing``
  names the withheld parameters): the right move there is to ask for it, with no call; later
  turns carry the value and the calls;
- ``abstain``: no offered tool fits: the right move is no call at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hub import ids
from hub.errors import ScenarioError, TaskError
from hub.kit.names import split_name, tool_name
from hub.state.library import Library

TaskKind = Literal["mcp", "clarify", "abstain"]


class Call(BaseModel):
    """One tool call: a setup call, or a ground-truth step."""

    model_config = ConfigDict(extra="forbid")

    server: str
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @property
    def name(self) -> str:
        return tool_name(self.server, self.tool)


def _empty(value: Any) -> bool:
    """Fields added after tasks were first written are left out while empty, so older files read back byte-equal."""
    return not value


ArgRole = Literal["stated", "returned", "default", "derived", "incidental"]


class ArgSource(BaseModel):
    """Where one ground-truth argument's value comes from, recorded by synthesis (the Scene).

    - ``stated``: a user turn says it (``turn``: its index);
    - ``returned``: an earlier ground-truth call's result held it (``step``: that step's id);
    - ``default``: the schema's default or an enum member the request implies;
    - ``derived``: computed by a rule the intent declares (``rule``: e.g. ``date+1d``, ``percent``, ``sum``) from
      values that are themselves grounded (``inputs``: their sources' descriptions);
    - ``incidental``: the synthesizer's own choice (paging, sort, a filter nobody asked for): not part of what the
      user asked, so a reward does not demand it.

    Every role but ``incidental`` matters to the outcome; so does any key the tool's schema requires.
    """

    model_config = ConfigDict(extra="forbid")

    role: ArgRole
    turn: int | None = Field(None, ge=0)
    step: str | None = None
    rule: str | None = None
    inputs: list[str] = Field(default_factory=list)


class GTStep(Call):
    """A ground-truth call with an id and the ids of the steps that must come before it."""

    id: str
    after: list[str] = Field(default_factory=list)
    sources: dict[str, ArgSource] = Field(default_factory=dict, exclude_if=_empty)
    """Per argument key, where its value comes from. Empty on hand-written tasks: then every key matters."""

    def matters(self, key: str, required: Sequence[str] = ()) -> bool:
        """Whether argument ``key`` is part of what the user asked: required by the schema, or not incidental."""
        source = self.sources.get(key)
        return key in required or source is None or source.role != "incidental"


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str
    ask: bool = False  # a clarify turn: a required value is missing; the right move is to ask
    missing: list[str] = Field(default_factory=list)
    """On an ask turn: the parameters (of the next turn's calls) whose values the user withholds."""
    about: dict[str, str] = Field(default_factory=dict, exclude_if=_empty)
    """On an ask turn: per withheld parameter, the intent's short words for the value ("the comment's text",
    "how long the meeting runs"), which a clarifying question may use."""
    calls: list[GTStep] = Field(default_factory=list)
    answer: list[Any] = Field(default_factory=list, exclude_if=_empty)
    """The values the user asked to be told on this turn (a balance, names, a date): the reply should state them."""
    user_calls: list[Call] = Field(default_factory=list, exclude_if=_empty)
    """Calls the user makes on their own side as they say this turn (tau2's telecom: the phone's tools); the model
    does not see them."""
    adds_tools: list[str] = Field(default_factory=list, exclude_if=_empty)
    """Tools offered from this turn on, on top of the task's ``tools`` (BFCL's miss_func: a function appears late)."""


class SimulatedUser(BaseModel):
    """A user played by a model (``--user-endpoint``): its system prompt, and the words that end the dialogue.

    Without a user endpoint the task's scripted turns play the user."""

    model_config = ConfigDict(extra="forbid")

    instructions: str = Field(min_length=1)
    """The whole system prompt of the user model: the simulation guidelines and this user's scenario."""
    stop: list[str] = Field(default_factory=lambda: ["###STOP###"])
    """A user message holding any of these ends the episode (tau2: ###STOP###, ###TRANSFER###, ###OUT-OF-SCOPE###)."""
    greeting: str | None = None
    """The agent's opening line the user model answers first (tau2: "Hi! How can I help you today?")."""
    max_turns: int = Field(30, ge=1, le=1000)
    tools: list[str] = Field(default_factory=list)
    """The user's own tools (``server__tool``), which the user model may call; the agent is not offered them."""


class InitialState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    seed: int = Field(0, ge=ids.MIN_SEED, le=ids.MAX_SEED)
    setup: list[Call] = Field(default_factory=list)
    snapshot: str | None = None
    configs: dict[str, Any] = Field(default_factory=dict)
    """Per mounted server, the scenario its loader starts from."""
    loader_kwargs: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Per mounted server, keyword options for its scenario loader."""


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, max_length=200)
    kind: TaskKind = "mcp"
    split: Literal["train", "test"] | None = None
    """Stamped at synthesis; eval and training honour it (unstamped tasks fall back to a hash split)."""
    servers: list[str] = Field(min_length=1)
    initial: InitialState = Field(default_factory=InitialState)
    system: str | None = None
    turns: list[Turn] = Field(min_length=1)
    tools: list[str] = Field(default_factory=list)
    strip_enums: bool = False
    """Offer the tools' schemas without their ``enum`` lists (a synthesis perturbation)."""
    expected_state_hash: str | None = None
    expected_server_hashes: dict[str, str] = Field(default_factory=dict)
    meta: dict[str, Any] = Field(default_factory=dict)
    bare_names: bool = Field(False, exclude_if=_empty)
    """Show the offered tools by their own names (``cd``, not ``gorilla_file_system__cd``), as a benchmark's harness
    does; calls may use either. The names must be unique among the task's tools."""
    scorer: str | None = Field(None, exclude_if=_empty)
    """A suite's own scorer (``hub.suites.scoring``: ``bfcl-mt``, ``tau2``), run in place of the hub's reward;
    its data (ground truth, evaluation criteria) is in ``meta``."""
    user: SimulatedUser | None = Field(None, exclude_if=_empty)
    """A user played by a model, when the hub has a user endpoint; the scripted turns otherwise."""

    @model_validator(mode="after")
    def _check(self) -> Task:
        steps = self.gt_steps()
        ids = [s.id for s in steps]
        if len(ids) != len(set(ids)):
            raise ValueError(f"task {self.id}: ground-truth step ids are not unique")
        seen: set[str] = set()
        for step in steps:
            for dep in step.after:
                if dep not in seen:
                    raise ValueError(f"task {self.id}: step {step.id} depends on {dep!r}, which is not an earlier step")
            seen.add(step.id)
        if self.kind == "abstain" and steps:
            raise ValueError(f"task {self.id}: an abstain task has no ground-truth calls")
        if self.kind == "clarify" and not any(t.ask for t in self.turns):
            raise ValueError(f"task {self.id}: a clarify task needs a turn with ask=true")
        if any(t.ask and t.calls for t in self.turns):
            raise ValueError(f"task {self.id}: an ask turn has no ground-truth calls")
        if any(t.missing and not t.ask for t in self.turns):
            raise ValueError(f"task {self.id}: only an ask turn withholds parameters (missing)")
        if self.bare_names:
            offered = [*self.tools, *(n for t in self.turns for n in t.adds_tools)]
            if len(self.full_names()) != len(set(offered)):
                raise ValueError(f"task {self.id}: bare_names, but two offered tools share a name")
        if self.kind == "mcp" and not steps and not self.scorer:
            raise ValueError(f"task {self.id}: an mcp task needs ground-truth calls")
        return self

    def full_names(self) -> dict[str, str]:
        """Each offered tool's own name -> its ``server__tool`` name."""
        names = [*self.tools, *(n for t in self.turns for n in t.adds_tools)]
        return {(split_name(n) or ("", n))[1]: n for n in names}

    def gt_steps(self) -> list[GTStep]:
        return [s for t in self.turns for s in t.calls]

    def edges(self) -> list[tuple[int, int]]:
        """Dependency edges (j, g) as indexes into ``gt_steps()``: j must come before g."""
        index = {s.id: i for i, s in enumerate(self.gt_steps())}
        return [(index[d], index[s.id]) for s in self.gt_steps() for d in s.after]

    def fingerprint(self) -> str:
        """A content hash of the initial state: tasks with equal fingerprints start from equal states."""
        text = json.dumps([self.servers, self.initial.model_dump()], sort_keys=True)
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()

    def check_against(self, library: Library) -> None:
        """Raise TaskError unless every server, offered tool and call exists in ``library``."""
        names = [
            *self.tools,
            *(n for t in self.turns for n in t.adds_tools),
            *(c.name for t in self.turns for c in t.user_calls),
            *(self.user.tools if self.user else ()),
            *(c.name for c in self.initial.setup),
            *(s.name for s in self.gt_steps()),
        ]
        for server in self.servers:
            if server not in library.mounts:
                raise TaskError(f"task {self.id}: server {server!r} is not mounted")
        try:
            from hub.mount import scenarios

            scenarios(library, self.initial.configs, self.initial.loader_kwargs)
        except ScenarioError as exc:
            raise TaskError(f"task {self.id}: {exc.message}") from None
        for name in names:
            parts = split_name(name)
            if parts is None or parts[0] not in library.mounts or parts[1] not in library.mounts[parts[0]].tools:
                raise TaskError(f"task {self.id}: unknown tool {name!r}")
