"""The ``/ws`` rollout protocol's messages: one typed model per request, shared by the hub and its clients.

A leaf: it imports nothing of the hub, so a client (the trainer's) installs and imports it alone. What
the messages carry is defined here too: the event kinds, the episode limits and the reward's
configuration; the engine imports them from here.

A message is a JSON object with a ``type`` and an optional ``id`` that the reply echoes; ``REQUEST``
validates any request by its ``type``. The hub (``hub/transports/ws.py``) decodes with these models and the
trainer's hub client builds its requests with them, so the two cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

PROTOCOL = "prove-ws"
VERSION = 1
MAX_GROUP = 256


MAX_INT = 2**63 - 1  # what SQLite (and the store) can hold

EventKind = Literal["tool_call", "episode", "turn", "reward", "task", "run", "run_metric", "evidence"]
EVENT_KINDS: tuple[str, ...] = get_args(EventKind)


class EpisodeLimits(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_steps: int = Field(16, ge=1, le=1000)
    max_calls_per_step: int = Field(16, ge=1, le=256)
    max_output_chars: int = Field(200_000, ge=1)


@dataclass(frozen=True)
class Component:
    """One reward component: its key in a breakdown's ``components`` (and its column in the store), the
    ``RewardConfig`` field that weighs it (None: a gate that decides the total rather than a weighted term), its
    best value (R_eff is a penalty: at most 0) and whether it is one of the paper's five weighted terms."""

    name: str
    symbol: str
    weight: str | None
    best: float
    paper: bool
    what: str


# Every reward component, once: the engine scores them, the store keeps a column each, the dashboard and the
# trainer read them from here. Adding a component is a row here and its weight in ``RewardConfig``.
COMPONENTS: tuple[Component, ...] = (
    Component("validity", "R_val", "w_val", 1.0, True, "valid calls: a known name, typed parameters, a live success"),
    Component("coverage", "R_cov", "w_cov", 1.0, True, "ground-truth steps matched in dependency order"),
    Component("efficiency", "R_eff", "w_eff", 0.0, True, "calls beyond the budget (a penalty, at most 0)"),
    Component("name", "R_name", "w_name", 1.0, True, "calls whose tool is in the ground truth"),
    Component("argument", "R_arg", "w_arg", 1.0, True, "argument values that match over aligned calls"),
    Component("answer", "R_ans", "w_answer", 1.0, False, "the reply states the values the user asked for"),
    Component("state", "R_state", "w_state", 1.0, False, "the final state against the expected one"),
    Component("format", "R_format", "w_format", 1.0, False, "model messages without a format error"),
    Component("clarify", "R_ask", None, 1.0, False, "every ask turn: no call, and a question for what is missing"),
    Component("abstention", "no call", None, 1.0, False, "an abstain task: no call at all"),
)
COMPONENT = {c.name: c for c in COMPONENTS}
PAPER_TERMS = tuple(c.name for c in COMPONENTS if c.paper)
WEIGHTED = tuple(c for c in COMPONENTS if c.weight is not None)


Preset = Literal["paper", "outcome"]
DEFAULT_PRESET: Preset = "outcome"
# What each preset sets beyond the fields' defaults (which are the paper's). ``outcome``: coverage and R_arg judge
# only the argument keys that matter, a discovery read is judged by what it found, reads may come before a
# question, the reply must state what the user asked for, and the final state gates the rest: a trajectory that
# leaves a state other than the expected one keeps 0.375 to 0.75 of what it earned (more the more rows it got right).
PRESETS: dict[str, dict[str, Any]] = {
    "paper": {},
    "outcome": {"w_answer": 0.5, "state_gate": 0.75, "arg_keys": "matter", "discovery": "found", "ask_reads": True},
}


class RewardConfig(BaseModel):
    """The reward's configuration: a preset, and any field given overrides it (``{"preset": "paper", "w_arg": 0.2}``).

    ``RewardConfig()`` is the ``outcome`` preset; ``RewardConfig(preset="paper")`` is the paper's formula exactly."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # a NaN weight would make every reward NaN

    preset: Preset = DEFAULT_PRESET
    w_val: float = 0.5
    w_cov: float = 0.5
    w_eff: float = 0.15
    w_name: float = 0.2
    w_arg: float = 0.1
    alpha: float = Field(0.5, ge=0)
    beta: float = Field(0.5, ge=0)
    w_state: float = 0.0
    w_format: float = 0.0
    w_answer: float = 0.0
    """The answer term: the reply on a turn that asks for information states the values the user wanted."""
    state_gate: float | None = Field(None, ge=0, le=1)
    """The final state as a gate: a trajectory whose final state is not the expected one keeps at most this share of
    what the other terms earned (half of it with no changed row right, all of it as the rows right approach all;
    ``None``: no gate, and R_state is the share of the task's servers in their expected state, weighted by
    ``w_state``)."""
    arg_keys: Literal["all", "matter"] = "all"
    """Which ground-truth argument keys coverage and R_arg judge: all, or those that matter (required by the schema
    or not marked incidental by synthesis)."""
    discovery: Literal["name", "found"] = "name"
    """How a ground-truth read that found a value for a later call is matched: by name and keys, or also by any read
    the model made before that call whose result held the value."""
    ask_reads: bool = False
    """Read calls on an ask turn are allowed (they count toward n in R_eff only); a write there still fails it."""
    clarify_check: Literal["question", "no_call"] = "question"

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, data: Any) -> Any:
        if isinstance(data, dict):
            preset = data.get("preset", DEFAULT_PRESET)
            if preset in PRESETS:
                return {**PRESETS[preset], **data}
        return data

    @model_validator(mode="after")
    def _one_state_term(self) -> RewardConfig:
        if self.state_gate is not None and self.w_state:
            raise ValueError("the final state is either a gate (state_gate) or a weighted term (w_state), not both")
        return self


class Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    id: str | int | None = None


class Hello(Msg):
    type: Literal["hello"]
    version: int = VERSION
    token: str | None = None
    client: str | None = Field(None, max_length=200)


class Ping(Msg):
    type: Literal["ping"]


class Tasks(Msg):
    type: Literal["tasks"]
    kind: Literal["mcp", "clarify", "abstain"] | None = None
    full: bool = False
    oracle: bool = False  # with ``full``: each task also carries ``oracle``, the messages of a perfect policy


class Open(Msg):
    type: Literal["open"]
    task: str | dict[str, Any]
    n: int = Field(1, ge=1, le=MAX_GROUP)
    limits: EpisodeLimits | None = None
    run: str | None = Field(None, min_length=1, max_length=100)  # the training run these rollouts are for
    step: int | None = Field(None, ge=0)  # that run's training step
    step_reward: bool = False  # every observation carries the reward so far (dense, per-turn rewards)


class Step(Msg):
    type: Literal["step"]
    episode: str
    text: str | None = None
    message: dict[str, Any] | None = None


class Finish(Msg):
    type: Literal["finish"]
    episode: str
    reward: RewardConfig | None = None
    truncated: bool = False  # the client cut the episode (a turn hit its token limit, or the context is full)


class Close(Msg):
    type: Literal["close"]
    episodes: list[str] = Field(max_length=10_000)


class Subscribe(Msg):
    type: Literal["subscribe"]
    kinds: list[EventKind] | None = None
    episodes: list[str] | None = None
    maxsize: int = Field(1000, ge=1, le=10_000)


class Unsubscribe(Msg):
    type: Literal["unsubscribe"]


class RunStart(Msg):
    type: Literal["run_start"]
    name: str = Field(min_length=1, max_length=200)
    config: dict[str, Any] = Field(default_factory=dict)
    run: str | None = Field(None, max_length=100)


class RunMetrics(Msg):
    type: Literal["run_metrics"]
    run: str = Field(max_length=100)
    step: int = Field(ge=0, le=MAX_INT)
    metrics: dict[str, float] = Field(max_length=1000)  # finite: a NaN loss is refused, not stored


class RunEnd(Msg):
    type: Literal["run_end"]
    run: str
    status: Literal["finished", "failed"] = "finished"


class Stats(Msg):
    type: Literal["stats"]


class Flush(Msg):
    type: Literal["flush"]
    timeout: float = Field(30.0, gt=0, le=300)


Request = Annotated[
    Hello
    | Ping
    | Tasks
    | Open
    | Step
    | Finish
    | Close
    | Subscribe
    | Unsubscribe
    | RunStart
    | RunMetrics
    | RunEnd
    | Stats
    | Flush,
    Field(discriminator="type"),
]
REQUEST: TypeAdapter[Any] = TypeAdapter(Request)  # type: ignore[arg-type]

TYPES = (
    "hello",
    "ping",
    "tasks",
    "open",
    "step",
    "finish",
    "close",
    "subscribe",
    "unsubscribe",
    "run_start",
    "run_metrics",
    "run_end",
    "stats",
    "flush",
)
