"""Smart-home follow-ups: each short follow-up continues some dialogue and acts on the home of that dialogue (and
its device or scene), with the same owner talking."""

from __future__ import annotations

from hub.synth.goals import _continue, linked, links
from hub.synth.intent import Skip
from servers import REGISTRY
from tests.test_intents import Live

SERVER = next(s for s in REGISTRY if s.name == "iot_devices")
OPENERS = ("light_it_up", "comfortable", "lock_the_door", "blinds", "set_the_mood", "save_the_look")
OWNED = {
    "device_id": "SELECT home_id FROM devices WHERE device_id = ?",
    "room_id": "SELECT home_id FROM rooms WHERE room_id = ?",
    "scene_id": "SELECT home_id FROM scenes WHERE scene_id = ?",
    "sensor_id": "SELECT home_id FROM sensors WHERE sensor_id = ?",
}


def test_follow_ups_act_on_the_home_of_the_dialogue() -> None:
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
                home, who, before = scene.memory["home"]["home_id"], scene.persona, len(list(scene.calls))
                _continue(scene, scene.db, follow)
                if follow.name not in scene.intents:
                    continue
                ran.add(follow.name)
                assert scene.persona == who
                for c in list(scene.calls)[before:]:
                    assert c.arguments.get("home_id", home) == home
                    for key, sql in OWNED.items():
                        if key in c.arguments:
                            assert scene.db.execute(sql, (c.arguments[key],)).fetchone()[0] == home
                assert linked(links(SERVER.tools, scene))
    assert ran == {i.name for i in SERVER.intents if not i.opens}
