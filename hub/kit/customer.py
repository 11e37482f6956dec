"""The customer who talks in a store-like server: who they are, how they say so, how the agent finds them.

A customer introduces themselves by name (by name and email when another customer shares the name),
once per dialogue; the agent finds their id with the server's ``search_customers``. What an earlier
turn established is in ``s.memory["customer"]``, so a follow-up never changes who talks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hub.kit.intent import Ref, Scene, Skip


def me(s: Scene, select: str, where: str = "1=1", *params: Any) -> dict[str, Any]:
    """The customer talking: the one an earlier turn established (``Skip`` when they do not fit ``where``),
    or a fresh pick who then becomes the persona. ``select`` reads customers aliased ``c``."""
    known = s.recall(
        "customer", "customer_id", select + f" WHERE c.customer_id = ? AND ({where})", *params, who="customer"
    )
    if known is not None:
        return known
    if s.turns:
        raise Skip("a customer's follow-up after a turn that was not a customer's")
    c = s.pick(select + f" WHERE {where}", *params)
    s.be(c["name"])
    return c


def who(s: Scene, c: dict[str, Any], again: Sequence[str]) -> str:
    """How the customer introduces themselves: their name, or name and email when the name is shared; in a
    later turn of the same dialogue, one of ``again`` ("Still me")."""
    known = s.memory.get("customer")
    if known and known["customer_id"] == c["customer_id"]:
        return s.rng.choice(again)
    return s.refer(
        c["customer_id"],
        Ref("I'm {name}", "SELECT customer_id FROM customers WHERE name = ?", c["name"]),
        Ref("I'm {name} ({email})", "SELECT customer_id FROM customers WHERE email = ?", c["email"]),
        name=c["name"],
        email=c["email"],
    )


def find_me(s: Scene, c: dict[str, Any]) -> dict[str, Any]:
    """The customer's ``search_customers`` result (by the name, or the email when the name is shared, as
    ``who`` said it), or the one an earlier turn found."""
    known = s.memory.get("customer")
    if known and known["customer_id"] == c["customer_id"]:
        return dict(known)
    shared = s.value("SELECT COUNT(*) FROM customers WHERE name = ?", c["name"]) > 1
    query = c["email"] if shared else c["name"]
    found = s.find(
        "search_customers",
        "customers",
        "customer_id",
        c["customer_id"],
        missing="the customer is past the first page of the search",
        query=query,
    )
    s.memory["customer"] = found
    return dict(found)
