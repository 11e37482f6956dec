"""The hub: one world (library, sessions, dispatcher, the live event bus), tasks, episodes and the store.

Its servers come from the parts (``hub.parts.registered_servers``), its metrics from the metrics part's install.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub.config import Settings
from hub.engine.episodes import EpisodeEngine
from hub.engine.events import EventBus
from hub.engine.judge import AskJudge
from hub.engine.store import CRASH, SHARD_LOST, Store
from hub.engine.users import UserModel
from hub.engine.world import World
from hub.mount import choose_servers, load_mount
from hub.parts import registered_servers
from hub.state.library import Library, SqliteMount
from hub.tasks import BUILTIN_TASKS, TaskSet
from hub.wire import RewardConfig


class Hub:
    def __init__(self, settings: Settings, library: Library | None = None) -> None:
        self.settings = settings
        self.library = library if library is not None else default_library(settings)
        self.bus = EventBus()
        self.world = World(
            self.library,
            seed=settings.seed,
            bus=self.bus,
            ttl_s=settings.session_ttl_s,
            max_sessions=settings.max_sessions,
            max_state_bytes=settings.max_state_bytes,
        )
        self.sessions = self.world.sessions
        self.dispatcher = self.world.dispatcher
        self.tasks = TaskSet.load(settings.tasks_path or BUILTIN_TASKS, self.library)
        keep_task_worlds(self.library, self.tasks)
        self.episodes = EpisodeEngine(
            self.library,
            self.sessions,
            self.dispatcher,
            self.bus,
            self.tasks,
            reward=RewardConfig(preset=settings.reward),
            judge=ask_judge(settings),
            user_model=user_model(settings),
            max_episode_bytes=settings.max_episode_bytes,
        )
        self.store = Store(  # started by the app's lifespan
            settings.store_path, shard=settings.shard, start_reason=SHARD_LOST if settings.shard_restarted else CRASH
        )


def ask_judge(settings: Settings) -> AskJudge | None:
    """The chat model that decides R_ask, when the settings name one."""
    if not settings.judge_endpoint:
        return None
    return AskJudge(settings.judge_endpoint, settings.judge_model or "", settings.judge_api_key)


def user_model(settings: Settings) -> UserModel | None:
    """The model that plays simulated users, when the settings name an endpoint."""
    if not settings.user_endpoint:
        return None
    return UserModel(settings.user_endpoint, settings.user_model or "user", settings.user_api_key)


def default_library(settings: Settings) -> Library:
    servers = registered_servers() if settings.builtin else []
    builtin = [SqliteMount(s, settings.now, settings.seed_cache) for s in servers]
    mounts = [load_mount(spec) for spec in settings.mounts]
    return Library(choose_servers(builtin, mounts, include_builtin=settings.builtin, only=settings.only))


def keep_task_worlds(library: Library, tasks: TaskSet) -> None:
    """Keep every world the task set lives on built: episodes of a set spread over more worlds than the seed cache
    holds would otherwise rebuild a seed database on most opens."""
    library.keep_worlds(len({task.initial.seed for task in tasks}))


def build_library(mounts: Sequence[str] | None = None, **choice: Any) -> Library:
    """The registered servers (plus ``mounts``; ``builtin``/``only`` choose), with settings from the environment:
    for CLI commands."""
    return default_library(Settings.from_env(mounts=list(mounts) if mounts else None, **choice))
