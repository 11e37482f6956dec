"""Shopping follow-ups: each short follow-up continues some dialogue and acts for the customer of that dialogue
(and on its product or order), with the same shopper talking; a shopper who browsed names themselves later."""

from __future__ import annotations

from typing import Any

from hub.kit.intent import Scene
from tests.servers.followups import continued

OPENERS = (
    "put_in_basket",
    "save_for_later",
    "ship_to_new_place",
    "is_it_any_good",
    "cheapest_will_do",
    "send_it_back",
    "change_basket",
)
ON_PRODUCT = ("add_to_wishlist", "update_cart_item", "get_product", "list_product_reviews")


def _known(scene: Scene) -> tuple[Any, Any]:
    """The customer of the dialogue (a browser names themselves as the shopper) and its product, if any."""
    customer = scene.memory.get("customer") or scene.memory["shopper"]
    return customer["customer_id"], scene.memory.get("product", {}).get("product_id")


def test_follow_ups_act_for_the_customer_of_the_dialogue() -> None:
    for _, (customer, product), calls in continued("shopping", OPENERS, _known):
        for c in calls:
            assert c.arguments.get("customer_id", customer) == customer
            if c.tool in ON_PRODUCT:
                assert c.arguments["product_id"] == product
