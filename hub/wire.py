"""The ``/ws`` rollout protocol's messages: one typed model per request, shared by the hub and its clients.

A leaf: it imports nothing of the hub, so a client (the trainer's) installs and imports it alone. What
the messages carry is defined here too: the event kinds, the episode limits and the reward's
configuration; the engine imports them from here.

A message is a JSON object with a ``type`` and an optional ``id`` that the reply echoes; ``REQUEST``
validates any request by its ``type``. The hub (``hub/transports/ws.py``) decodes with these models and the
trainer's hub client builds its requests with them, so the two cannot drift.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

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


class RewardConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # a NaN weight would make every reward NaN

    w_val: float = 0.5
    w_cov: float = 0.5
    w_eff: float = 0.15
    w_name: float = 0.2
    w_arg: float = 0.1
    alpha: float = Field(0.5, ge=0)
    beta: float = Field(0.5, ge=0)
    w_state: float = 0.0
    w_format: float = 0.0
    clarify_check: Literal["question", "no_call"] = "question"


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


class Open(Msg):
    type: Literal["open"]
    task: str | dict[str, Any]
    n: int = Field(1, ge=1, le=MAX_GROUP)
    limits: EpisodeLimits | None = None
    run: str | None = Field(None, min_length=1, max_length=100)  # the training run these rollouts are for
    step: int | None = Field(None, ge=0)  # that run's training step


class Step(Msg):
    type: Literal["step"]
    episode: str
    text: str | None = None
    message: dict[str, Any] | None = None


class Finish(Msg):
    type: Literal["finish"]
    episode: str
    reward: RewardConfig | None = None


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
