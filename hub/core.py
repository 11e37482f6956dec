"""The hub: library, sessions, event bus and dispatcher, built once from settings."""

from __future__ import annotations

from hub.config import Settings
from hub.dispatcher import Dispatcher
from hub.events import EventBus
from hub.library import Library


class Hub:
    def __init__(self, settings: Settings, library: Library | None = None) -> None:
        from hub.sessions import SessionManager

        self.settings = settings
        self.library = library if library is not None else default_library(settings)
        self.bus = EventBus()
        self.sessions = SessionManager(self.library, seed=settings.seed, ttl_s=settings.session_ttl_s,
                                       max_sessions=settings.max_sessions)
        self.dispatcher = Dispatcher(self.library, self.sessions, self.bus)
        self._init_rollouts(settings)

    def _init_rollouts(self, settings: Settings) -> None:
        """Tasks, episodes, the persistent store (started by the app's services) and metrics."""
        from hub.episodes import EpisodeEngine
        from hub.metrics import HubMetrics
        from hub.store import Store
        from hub.tasks import BUILTIN_TASKS, TaskSet

        self.tasks = TaskSet.load(settings.tasks_path or BUILTIN_TASKS, self.library)
        self.episodes = EpisodeEngine(self.library, self.sessions, self.dispatcher, self.bus, self.tasks)
        self.store = Store(settings.store_path)
        self.metrics = HubMetrics()
        self.metrics.attach(self)


def default_library(settings: Settings) -> Library:
    from hub.library import SqliteMount
    from hub.mount import choose_servers, load_mount
    from servers import REGISTRY

    builtin = [SqliteMount(s, settings.now) for s in REGISTRY]
    mounts = [load_mount(spec) for spec in settings.mounts]
    return Library(choose_servers(builtin, mounts, include_builtin=settings.builtin, only=settings.only))
