"""Smart-home follow-ups: each short follow-up continues some dialogue and acts on the home of that dialogue (and
its device or scene), with the same owner talking."""

from __future__ import annotations

from tests.servers.followups import continued

OPENERS = ("light_it_up", "comfortable", "lock_the_door", "blinds", "set_the_mood", "save_the_look")
OWNED = {
    "device_id": "SELECT home_id FROM devices WHERE device_id = ?",
    "room_id": "SELECT home_id FROM rooms WHERE room_id = ?",
    "scene_id": "SELECT home_id FROM scenes WHERE scene_id = ?",
    "sensor_id": "SELECT home_id FROM sensors WHERE sensor_id = ?",
}


def test_follow_ups_act_on_the_home_of_the_dialogue() -> None:
    for scene, home, calls in continued("iot_devices", OPENERS, lambda scene: scene.memory["home"]["home_id"]):
        for c in calls:
            assert c.arguments.get("home_id", home) == home
            for key, sql in OWNED.items():
                if key in c.arguments:
                    assert scene.db.execute(sql, (c.arguments[key],)).fetchone()[0] == home
