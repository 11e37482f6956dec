"""What a synthesis run depends on (``SynthConfig``, the CLI's boundary), its slots and its running counts."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hub.kit.intent import Level

KINDS = ("mcp", "clarify", "abstain")
TASKS_PER_WORLD = 130  # a run spreads over one world (one reference date) per this many tasks, 8 to MAX_WORLDS
MAX_WORLDS = 128  # every world's databases stay built for the whole run: about 30 MB each


class SynthConfig(BaseModel):
    """Everything a run depends on (the CLI's boundary)."""

    model_config = ConfigDict(extra="forbid")

    n: int = Field(13_517, ge=1)
    seed: int = 0
    world_seed: int = 0
    worlds: int | None = Field(None, ge=1, le=365)  # default: one per TASKS_PER_WORLD tasks, 8 at least
    test_fraction: float = Field(0.1, ge=0, lt=1)
    split_by: Literal["intent", "task"] = "intent"  # test holds out whole opening intents, or single tasks
    sampler_k: int = Field(100, ge=1)
    min_support: int = Field(3, ge=0)
    level_weights: tuple[float, float, float] = (0.6, 0.2, 0.2)
    distractor_rate: float = Field(0.4, ge=0, le=1)
    enum_strip_rate: float = Field(0.3, ge=0, le=1)
    irrelevance_rate: float = Field(0.05, ge=0, le=1)
    max_error_rate: float = Field(0.30, ge=0, le=1)
    dedup_threshold: float = Field(0.70, gt=0, le=1)
    dedup_scope: Literal["all", "world"] = "all"  # "world": a call structure may repeat once per world seed
    repeats: int = Field(8, ge=1)  # tasks per call structure, each on another world seed (1: no repeats)
    # no mcp task that repeats a kept tool-name sequence is kept while it would take distinct sequences / mcp
    # tasks below this (0.60 with a margin for the coverage swaps)
    min_distinct: float = Field(0.61, ge=0, le=1)
    max_attempts_factor: float = Field(6.0, ge=1)  # attempts in all, per planned task (the time target)
    server_budget: float = Field(8.0, gt=0)  # attempts per planned task of a server's share of a kind
    dry_attempts: int = Field(400, ge=1)  # attempts in a row without a kept task: the server-kind is used up
    min_yield: float = Field(0.02, ge=0, lt=1)  # a server-kind whose recent yield falls below this is used up
    slot_tries: int = Field(12, ge=1)
    coverage_tries: int = Field(24, ge=0)  # attempts per missing use of a tool in the top-up
    min_tool_uses: int = Field(10, ge=1)  # the top-up raises every tool to this many ground-truth uses
    cover: bool | None = None  # target uncovered tools at the end; default: when n ≥ 2 × the tool count
    llm_endpoint: str | None = None
    model: str | None = None
    cache_dir: Path | None = None
    progress: bool = False

    @property
    def world_count(self) -> int:
        """How many worlds the run spreads over: each is its own day, so a run of n tasks lives on about
        n / ``TASKS_PER_WORLD`` different days (13,517 tasks: 104)."""
        return self.worlds or min(MAX_WORLDS, max(8, -(-self.n // TASKS_PER_WORLD)))

    @property
    def world_seeds(self) -> list[int]:
        return [self.world_seed + k for k in range(self.world_count)]


@dataclass(frozen=True)
class Slot:
    """One planned task: its kind, the opening turn's information level, and the abstain variant."""

    kind: str
    level: Level
    variant: str | None


@dataclass
class Stats:
    attempts: Counter[str] = field(default_factory=Counter)
    dropped: Counter[str] = field(default_factory=Counter)
    recoveries: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    intent_errors: list[str] = field(default_factory=list)
    exhausted: list[str] = field(default_factory=list)
    spent: dict[str, dict[str, int]] = field(default_factory=dict)  # attempts per server and kind
    unfilled: int = 0
    replayed: int = 0
    replay_verified: int = 0
    coverage_swaps: int = 0
    repeats: Counter[str] = field(default_factory=Counter)  # kept near duplicates, by kind
    seconds: float = 0.0
