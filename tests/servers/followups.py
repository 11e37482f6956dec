"""Shared walk for the follow-up tests: every follow-up of a server continued after each of some openers."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TypeVar

from hub.kit.intent import CallRecord, Scene, Skip
from hub.synth.goals import _continue, linked, links
from servers import REGISTRY
from tests.servers.checks import Live

T = TypeVar("T")


def continued(
    server_name: str, openers: tuple[str, ...], known: Callable[[Scene], T]
) -> Iterator[tuple[Scene, T, list[CallRecord]]]:
    """Yield (scene, what `known` read after the opener, the follow-up's calls) for each follow-up that ran,
    having checked the same persona talks; after the caller's checks, the calls stay linked. Once exhausted,
    every follow-up of the server has run at least once."""
    server = next(s for s in REGISTRY if s.name == server_name)
    follow_ups = [i for i in server.intents if not i.opens]
    live = Live()
    ran: set[str] = set()
    for name in openers:
        opener = next(i for i in server.intents if i.name == name)
        for follow in follow_ups:
            for seed in range(4):
                scene = live.scene(server, world=seed % 3, seed=seed)
                try:
                    opener.run(scene)
                except Skip:
                    continue
                what, who, before = known(scene), scene.persona, len(list(scene.calls))
                _continue(scene, scene.db, follow)
                if follow.name not in scene.intents:
                    continue
                ran.add(follow.name)
                assert scene.persona == who
                yield scene, what, list(scene.calls)[before:]
                assert linked(links(server.tools, scene))
    assert ran == {i.name for i in follow_ups}
