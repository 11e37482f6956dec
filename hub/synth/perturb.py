"""Robustness knobs: kind quotas, distractor tools, enum stripping, irrelevance and missing-function variants.

- kinds in the paper's proportions (10,895 mcp / 1,500 clarify / 1,122 abstain of 13,517), scaled
  to any n by largest remainder; abstain tasks are irrelevance queries (5% of all tasks: the
  request's server is not offered at all, only tools of unrelated servers) and, for the rest,
  the missing-function variant (the request needs a write tool; only the server's read tools
  are offered);
- 3–8 distractor tools from other servers in 40% of tasks;
- enum values stripped from the offered schemas in 30% (recorded in ``meta.synth.enum_stripped``;
  the export's schemas are stripped).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from hub.state.library import Library
from hub.synth.goals import unsolvable_offer
from hub.tasks import tool_name

PAPER_KINDS = {"mcp": 10_895, "clarify": 1_500, "abstain": 1_122}
PAPER_TOTAL = sum(PAPER_KINDS.values())

FAMILIES: dict[str, str] = {
    "banking": "money",
    "payments": "money",
    "budget": "money",
    "trading": "money",
    "shopping": "commerce",
    "marketplace": "commerce",
    "retail_chain": "commerce",
    "food_delivery": "commerce",
    "email": "comms",
    "team_chat": "comms",
    "social_media": "comms",
    "video_meeting": "comms",
    "calendar": "comms",
    "crm": "work",
    "issue_tracker": "work",
    "vehicle": "mobility",
    "maps": "mobility",
    "travel_booking": "mobility",
    "iot_devices": "home",
    "filesystem": "files",
}


def kind_quotas(n: int) -> dict[str, int]:
    """The paper's kind counts scaled to ``n`` (largest remainder; exact for n = 13,517)."""
    raw = {k: n * v / PAPER_TOTAL for k, v in PAPER_KINDS.items()}
    out = {k: int(v) for k, v in raw.items()}
    for k in sorted(raw, key=lambda k: (out[k] - raw[k], k))[: n - sum(out.values())]:
        out[k] += 1
    return out


def irrelevance_count(n: int, rate: float, abstain: int) -> int:
    return min(abstain, round(n * rate))


def family_of(server: str) -> str:
    return FAMILIES.get(server, server)


def distractors(
    library: Library,
    server: str,
    rng: random.Random,
    low: int = 3,
    high: int = 8,
    *,
    family: bool = False,
    exclude: Sequence[str] = (),
) -> list[str]:
    """``low``..``high`` tools of other servers (``server__tool`` names; ``family``: only servers outside
    ``server``'s family), none able to do one of ``exclude``.

    The draw takes the same bits of ``rng`` whatever the registry holds, and each tool's rank is a hash of
    its name with a token of this draw: adding a server changes no other server's count of distractors, and
    only the picks its own tools outrank."""
    token = rng.getrandbits(64)
    k = random.Random(token).randint(low, high)
    fam = family_of(server)
    pool = [
        tool_name(m, t)
        for m in library.mounts
        if m != server and not (family and family_of(m) == fam)
        for t in library.mount(m).tools
    ]
    pool = unsolvable_offer(pool, list(exclude))
    return sorted(pool, key=lambda name: _rank(token, name))[:k]


def unrelated_tools(
    library: Library, server: str, rng: random.Random, low: int = 4, high: int = 10, exclude: Sequence[str] = ()
) -> list[str]:
    """Tools of servers outside ``server``'s family: an irrelevance task's offer (none can serve it)."""
    return distractors(library, server, rng, low, high, family=True, exclude=exclude)


def _rank(token: int, name: str) -> bytes:
    return hashlib.blake2b(f"{token}:{name}".encode(), digest_size=8).digest()


def read_tools(library: Library, server: str) -> list[str]:
    return [tool_name(server, t.name) for t in library.mount(server).tools.values() if t.kind == "read"]


def has_enum(schema: Any) -> bool:
    if isinstance(schema, dict):
        return "enum" in schema or any(has_enum(v) for v in schema.values())
    if isinstance(schema, list):
        return any(has_enum(v) for v in schema)
    return False


def offer(
    library: Library,
    kind: str,
    variant: str | None,
    server: str,
    wanted: list[str],
    rng: random.Random,
    distractor_rate: float,
    strip_rate: float,
    reads_only_rate: float = 0.0,
    reads_only_goal: bool = False,
) -> tuple[list[str], list[str], dict[str, Any]]:
    """The offered tools (shuffled), their servers and the perturbations made: the server's tools plus, in
    ``distractor_rate`` of tasks, distractors of other servers; an irrelevance task offers only unrelated
    servers' tools; a missing-function task the server's other tools, writes included (and sometimes unrelated
    tools), none of them able to do one of ``wanted``. A goal that only reads offers only the server's reads in
    ``reads_only_rate`` of tasks, so that an offer without writes says nothing about abstaining. ``strip_rate``
    of tasks offer their schemas without enum lists."""
    extra: list[str] = []
    reads_only = False
    if variant == "irrelevance":
        tools = unrelated_tools(library, server, rng, exclude=wanted)
    else:
        own = [tool_name(server, t) for t in library.mount(server).tools]
        if variant == "missing_function":
            tools = unsolvable_offer(own, wanted)
        elif reads_only_goal and rng.random() < reads_only_rate:
            tools, reads_only = read_tools(library, server), True
        else:
            tools = own
        if rng.random() < distractor_rate:
            extra = (
                unrelated_tools(library, server, rng, 3, 8, exclude=wanted)
                if kind == "abstain"
                else distractors(library, server, rng)
            )
        tools = tools + extra
    rng.shuffle(tools)
    strip = rng.random() < strip_rate
    servers = sorted({n.split("__", 1)[0] for n in tools} | ({server} if variant != "irrelevance" else set()))
    perturbs = {"distractors": extra, "enum_stripped": strip, "wanted": wanted if kind == "abstain" else []}
    return tools, servers, perturbs | ({"reads_only": True} if reads_only else {})
