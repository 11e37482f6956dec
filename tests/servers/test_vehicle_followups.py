"""Vehicle follow-ups: each short follow-up continues some dialogue, and acts on the car of that dialogue only,
with the same driver talking."""

from __future__ import annotations

from tests.servers.followups import continued

OPENERS = ("warm_it_up", "fresh_air", "fill_up", "nearest_fill", "where_did_i_park", "take_me_there")


def test_follow_ups_act_on_the_car_of_the_dialogue() -> None:
    for _, car, calls in continued("vehicle", OPENERS, lambda scene: scene.memory["car"]["vehicle_id"]):
        assert all(c.arguments["vehicle_id"] == car for c in calls)
