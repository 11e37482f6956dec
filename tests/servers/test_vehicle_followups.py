"""Vehicle follow-ups: each short follow-up continues some dialogue, and acts on the car of that dialogue only,
with the same driver talking."""

from __future__ import annotations

from hub.synth.goals import _continue, linked, links
from hub.synth.intent import Skip
from servers import REGISTRY
from tests.test_intents import Live

SERVER = next(s for s in REGISTRY if s.name == "vehicle")
OPENERS = ("warm_it_up", "fresh_air", "fill_up", "nearest_fill", "where_did_i_park", "take_me_there")


def test_follow_ups_act_on_the_car_of_the_dialogue() -> None:
    live = Live()
    ran: set[str] = set()
    for name in OPENERS:
        opener = next(i for i in SERVER.intents if i.name == name)
        for follow in [i for i in SERVER.intents if not i.opens]:
            for seed in range(4):
                scene = live.scene(SERVER, world=seed % 3, seed=seed)
                try:
                    opener.run(scene)
                except Skip:
                    continue
                car, who, before = scene.memory["car"]["vehicle_id"], scene.persona, len(list(scene.calls))
                _continue(scene, scene.db, follow)
                if follow.name not in scene.intents:
                    continue
                ran.add(follow.name)
                assert scene.persona == who
                assert all(c.arguments["vehicle_id"] == car for c in list(scene.calls)[before:])
                assert linked(links(SERVER.tools, scene))
    assert ran == {i.name for i in SERVER.intents if not i.opens}
