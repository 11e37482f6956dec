"""Prometheus metrics at ``GET /metrics``, in a per-hub ``CollectorRegistry``.

Counters and histograms are fed synchronously by a bus subscriber (no queue, no task);
gauges (open sessions, forks, episodes, store queue) are read from the hub at scrape time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from hub.engine.episodes import EpisodeEngine
from hub.engine.events import Event, EventBus
from hub.engine.store import Store
from hub.parts import Part
from hub.state.sessions import SessionManager

LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
UNBOUNDED_NAMES = frozenset({"format", "unknown_tool", "unknown_server"})
OBSERVED_KINDS = frozenset({"tool_call", "episode", "reward"})
REWARD_BUCKETS = (-1.0, -0.5, 0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.5)


class Observed(Protocol):
    """What metrics read from the hub at scrape time."""

    bus: EventBus
    sessions: SessionManager
    episodes: EpisodeEngine
    store: Store


@dataclass
class HubMetrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.tool_calls = Counter(
            "prove_tool_calls", "Tool calls by server, tool and outcome", ["server", "tool", "outcome"], registry=r
        )
        self.latency = Histogram(
            "prove_tool_call_latency_seconds",
            "Tool call latency by server",
            ["server"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.episodes = Counter(
            "prove_episodes", "Episodes by phase (open, finish) and task kind", ["phase"], registry=r
        )
        self.rewards = Histogram(
            "prove_episode_reward", "Episode rewards", ["mode"], buckets=REWARD_BUCKETS, registry=r
        )
        self._calls: dict[tuple[str, str, str], Any] = {}
        self._latency: dict[str, Any] = {}
        self.reward_sum = 0.0
        self.reward_count = 0
        self.mean_reward = Gauge("prove_episode_reward_mean", "Mean reward of the finished episodes", registry=r)
        self.mean_reward.set_function(lambda: self.reward_sum / self.reward_count if self.reward_count else 0.0)
        self.sessions_open = Gauge("prove_sessions_open", "Open sessions", registry=r)
        self.forks_open = Gauge("prove_server_forks_open", "Server forks held by open sessions", registry=r)
        self.episodes_open = Gauge("prove_episodes_open", "Episodes not yet closed", registry=r)
        self.store_depth = Gauge("prove_store_queue_depth", "Events waiting for the store writer", registry=r)
        self.store_acked = Gauge("prove_store_events_acked", "Events committed by the store", registry=r)
        self.store_dropped = Gauge("prove_store_events_dropped", "Events the store dropped (queue full)", registry=r)
        self.store_failed = Gauge(
            "prove_store_events_failed", "Events the database refused, skipped by the store", registry=r
        )
        self.bus_published = Gauge("prove_bus_events_published", "Events published on the bus", registry=r)

    def attach(self, hub: Observed) -> None:
        """Read the hub's gauges at scrape time and count its bus events."""
        self.sessions_open.set_function(lambda: len(hub.sessions))
        self.forks_open.set_function(lambda: sum(len(s.forks) for s in hub.sessions.sessions.values()))
        self.episodes_open.set_function(lambda: len(hub.episodes.episodes))
        self.store_depth.set_function(lambda: hub.store.depth)
        self.store_acked.set_function(lambda: hub.store.acked)
        self.store_dropped.set_function(lambda: hub.store.dropped)
        self.store_failed.set_function(lambda: hub.store.failed)
        self.bus_published.set_function(lambda: hub.bus.published)
        self.subscribe(hub.bus)

    def subscribe(self, bus: EventBus) -> None:
        bus.attach(self, OBSERVED_KINDS)

    def offer(self, event: Event) -> None:
        """The bus sink: update counters in place (no queue, no task)."""
        self.observe(event)

    def observe(self, event: Any) -> None:
        kind = getattr(event, "type", None)
        if kind == "tool_call":
            outcome = "ok" if event.ok else (event.error_kind or "error")
            if outcome in UNBOUNDED_NAMES:  # names the model made up: keep label cardinality bounded
                self._child_calls("?", "?", outcome).inc()
                return
            self._child_calls(event.server, event.tool, outcome).inc()
            latency = self._latency.get(event.server)
            if latency is None:
                latency = self._latency[event.server] = self.latency.labels(event.server)
            latency.observe(event.latency_ms / 1000)
        elif kind == "episode":
            self.episodes.labels(event.phase).inc()
        elif kind == "reward":
            self.rewards.labels(event.mode).observe(event.total)
            self.reward_sum += event.total
            self.reward_count += 1

    def _child_calls(self, server: str, tool: str, outcome: str) -> Any:
        key = (server, tool, outcome)
        child = self._calls.get(key)
        if child is None:
            child = self._calls[key] = self.tool_calls.labels(server, tool, outcome)
        return child

    def render(self) -> bytes:
        return generate_latest(self.registry)


async def metrics_endpoint(request: Request) -> Response:
    metrics: HubMetrics = request.app.state.metrics
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)


def _install(app: Starlette) -> None:
    """One registry per app, fed by its hub's bus from now on."""
    app.state.metrics = HubMetrics()
    app.state.metrics.attach(app.state.hub)


def _routes(app: Starlette) -> list[BaseRoute]:
    return [Route("/metrics", metrics_endpoint)]


part = Part("metrics", install=_install, routes=_routes)
