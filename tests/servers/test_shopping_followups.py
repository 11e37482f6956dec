"""Shopping follow-ups: each short follow-up continues some dialogue and acts for the customer of that dialogue
(and on its product or order), with the same shopper talking; a shopper who browsed names themselves later."""

from __future__ import annotations

from hub.synth.goals import _continue, linked, links
from hub.synth.intent import Skip
from servers import REGISTRY
from tests.test_intents import Live

SERVER = next(s for s in REGISTRY if s.name == "shopping")
OPENERS = ("put_in_basket", "save_for_later", "ship_to_new_place", "is_it_any_good", "cheapest_will_do", "send_it_back")


def test_follow_ups_act_for_the_customer_of_the_dialogue() -> None:
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
                known = scene.memory.get("customer") or scene.memory["shopper"]
                product = scene.memory.get("product", {}).get("product_id")
                who, before = scene.persona, len(list(scene.calls))
                _continue(scene, scene.db, follow)
                if follow.name not in scene.intents:
                    continue
                ran.add(follow.name)
                assert scene.persona == who
                for c in list(scene.calls)[before:]:
                    assert c.arguments.get("customer_id", known["customer_id"]) == known["customer_id"]
                    if c.tool in ("add_to_wishlist", "update_cart_item", "get_product", "list_product_reviews"):
                        assert c.arguments["product_id"] == product
                assert linked(links(SERVER.tools, scene))
    assert ran == {i.name for i in SERVER.intents if not i.opens}
