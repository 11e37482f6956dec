"""Dialogues of maps, food delivery and travel booking compose: an opening turn makes the persona an entity of the
state and leaves the entity it ended on; a short follow-up keeps who talks and acts on that entity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hub.kit import Server
from hub.kit.intent import Scene, Skip
from hub.synth.goals import _continue
from servers import REGISTRY
from tests.test_intents import Live, live  # noqa: F401  (the fixture)


def server(name: str) -> Server:
    return next(s for s in REGISTRY if s.name == name)


def intent(srv: Server, name: str) -> Any:
    return next(i for i in srv.intents if i.name == name)


def compose(live: Live, name: str, opener: str, follower: str, tries: int = 40) -> list[Scene]:  # noqa: F811
    """Scenes where ``follower`` continued ``opener``'s dialogue, over several worlds and seeds."""
    srv = server(name)
    done = []
    for k in range(tries):
        scene = live.scene(srv, world=k % 3, seed=k)
        try:
            intent(srv, opener).run(scene)
        except Skip:
            continue
        _continue(scene, scene.db, intent(srv, follower))
        if follower in scene.intents:
            done.append(scene)
    return done


def last(scene: Scene, tool: str) -> dict[str, Any]:
    return next(c.arguments for c in reversed(list(scene.calls)) if c.tool == tool)


def result(scene: Scene, tool: str) -> Any:
    return next(c.result for c in scene.calls if c.tool == tool)


def who(scene: Scene, table: str, key: str, value: str) -> str:
    return str(scene.db.execute(f"SELECT name FROM {table} WHERE {key} = ?", (value,)).fetchone()[0])


Check = Callable[[Scene], None]


def saved_the_spot(scene: Scene) -> None:
    save = last(scene, "save_place")
    assert save["place_id"] == scene.memory["place"]["place_id"]
    assert save["place_id"] in [p["place_id"] for p in result(scene, "search_places")["places"]]
    assert who(scene, "users", "user_id", save["user_id"]) == scene.persona.name


def dish_of_the_restaurant(scene: Scene) -> None:
    add = last(scene, "add_to_cart")
    rid = scene.memory["restaurant"]["restaurant_id"]
    owner = scene.db.execute("SELECT restaurant_id FROM menu_items WHERE item_id = ?", (add["item_id"],)).fetchone()
    assert owner[0] == rid
    assert who(scene, "customers", "customer_id", add["customer_id"]) == scene.persona.name


def bag_on_the_next_flight(scene: Scene) -> None:
    listed = result(scene, "list_bookings")["flight_bookings"]
    booking = last(scene, "add_baggage")["booking_id"]
    assert booking in [b["booking_id"] for b in listed]
    owner = scene.db.execute("SELECT traveller_id FROM flight_bookings WHERE booking_id = ?", (booking,)).fetchone()
    assert who(scene, "travellers", "traveller_id", owner[0]) == scene.persona.name


@pytest.mark.parametrize(
    ("name", "opener", "follower", "check"),
    [
        ("maps", "where_is_it", "save_it", saved_the_spot),
        ("food_delivery", "heard_of_it", "one_of_those", dish_of_the_restaurant),
        ("travel_booking", "my_next_flight", "bag_for_it", bag_on_the_next_flight),
    ],
)
def test_a_follow_up_keeps_the_person_and_acts_on_the_entity(
    live: Live,  # noqa: F811
    name: str,
    opener: str,
    follower: str,
    check: Check,
) -> None:
    scenes = compose(live, name, opener, follower)
    assert len(scenes) >= 3, f"{name}.{follower} continued {opener} only {len(scenes)} times"
    for scene in scenes:
        check(scene)
        assert scene.speaker == scene.persona.name


def test_a_follow_up_never_brings_in_another_customer(live: Live) -> None:  # noqa: F811
    """After a dispatch desk turn (staff, no customer talking), a customer's follow-up does not run."""
    assert not compose(live, "food_delivery", "dispatch_desk", "one_of_those", tries=15)
    assert not compose(live, "food_delivery", "dispatch_desk", "whats_on_the_menu", tries=15)
