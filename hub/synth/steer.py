"""Where a run spends its attempts: intents and follow-ups drawn by weight, times a lift for the tools used least
so far, times their recent yield (an exponential average of kept / tried after the same opening intents).

The run's shared counts live here too: ground-truth uses per tool of the kept tasks (``tool_counts``) and the
tool-name sequences of the kept mcp tasks (``sequences``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

from hub.kit import Server
from hub.kit.intent import Intent, Scene
from hub.tasks import tool_name

ALPHA = 0.15  # how fast an intent's (or a continuation's) recent yield forgets older attempts
FLOOR = 0.03  # the least a used-up intent is still drawn, relative to a fresh one
RARE_BOOST = 6.0  # the extra draw weight of an intent that may call a tool still under the floor of uses
ANCHOR_BOOST = 25.0  # how much more a follow-up that may call the tool a top-up wants is drawn


class Steering:
    def __init__(self, min_tool_uses: int) -> None:
        self.min_tool_uses = min_tool_uses
        self.tool_counts: Counter[str] = Counter()
        self.sequences: set[tuple[str, ...]] = set()  # tool-name sequences of the kept mcp tasks
        self.recent: dict[tuple[str, ...], float] = {}  # recent yield of an opening intent or a continuation

    def pick_intent(self, srv: Server, rng: random.Random, kind: str, anchor: str | None = None) -> Intent:
        """An intent drawn by weight, favouring those whose tools are used least so far and those whose
        recent attempts of this kind were kept (a clarify task needs an intent with a withholdable value;
        an intent whose call structures are all taken stops making tasks the near-duplicate filter keeps).
        With an ``anchor`` tool, only the openers that may call it (when some do)."""

        def lift(i: Intent) -> float:
            return i.weight * self.rarity(srv.name, i) * self._recent((srv.name, kind, i.name))

        intents: list[Intent] = [i for i in srv.intents if i.opens]
        intents = [i for i in intents if anchor in i.covers] or intents
        return rng.choices(intents, [lift(i) for i in intents])[0]

    def rarity(self, server: str, intent: Intent) -> float:
        """How much more an intent is drawn for the least-used tool it may call: more the rarer it is, and far
        more while that tool is under ``min_tool_uses`` (so rare tools reach the floor while the
        near-duplicate filter still has room, not only in the top-up)."""
        least = min(self.tool_counts[tool_name(server, t)] for t in intent.covers)
        return 1.0 + 4.0 / (1.0 + least) + (RARE_BOOST if least < self.min_tool_uses else 0.0)

    def _recent(self, key: tuple[str, ...]) -> float:
        return max(FLOOR, self.recent.get(key, 1.0))

    def follow_weight(self, server: str, kind: str, anchor: str | None = None) -> Callable[[list[str], Intent], float]:
        """A continuation's weight: its static weight times how often it was kept after this prefix lately
        (far more for one that may call the ``anchor`` tool)."""

        def weight(prefix: list[str], follower: Intent) -> float:
            boost = ANCHOR_BOOST if anchor in follower.covers else self.rarity(server, follower)
            return boost * follower.weight * self._recent((server, kind, *prefix, follower.name))

        return weight

    def fresh(self, server: str, kind: str) -> Callable[[Scene], bool] | None:
        """For mcp dialogues: whether the calls so far make a tool-name sequence the run does not hold yet."""
        if kind != "mcp":
            return None

        def fresh(scene: Scene) -> bool:
            return tuple(tool_name(server, c.tool) for c in scene.calls) not in self.sequences

        return fresh

    def learn(self, server: str, kind: str, intents: list[str], kept: bool) -> None:
        """Move the recent yield of the opening intent and of each continuation toward this outcome."""
        for k in range(1, len(intents) + 1):
            key = (server, kind, *intents[:k])
            self.recent[key] = (1 - ALPHA) * self.recent.get(key, 1.0) + ALPHA * kept
