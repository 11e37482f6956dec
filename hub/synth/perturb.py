"""Robustness knobs: kind quotas, distractor tools, enum stripping, irrelevance and missing-function variants.

- kinds in the paper's proportions (10,895 mcp / 1,500 clarify / 1,122 abstain of 13,517), scaled
  to any n by largest remainder; abstain tasks are irrelevance queries (5% of all tasks: tools of
  unrelated servers, and in ``OWN_TOOLS_RATE`` of them a few of the request's server's tools that cannot
  serve it) and, for the rest, the missing-function variant (the request needs a write tool; the server's
  other tools, writes included, are offered, none able to do it);
- ``READS_ONLY_RATE`` of mcp tasks whose ground truth only reads offer the server's reads alone, so whether
  a write tool is offered says nothing about whether the request can be served;
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
OWN_TOOLS_RATE = 0.85
OWN_TOOLS = (1, 3)
READS_ONLY_RATE = 0.12


def kind_quotas(n: int) -> dict[str, int]:
    """The paper's kind counts scaled to ``n`` (largest remainder; exact for n = 13,517)."""
    raw = {k: n * v / PAPER_TOTAL for k, v in PAPER_KINDS.items()}
    out = {k: int(v) for k, v in raw.items()}
    for k in sorted(raw, key=lambda k: (out[k] - raw[k], k))[: n - sum(out.values())]:
        out[k] += 1
    return out


def irrelevance_count(n: int, rate: float, abstain: int) -> int:
    return min(abstain, round(n * rate))


def family_of(library: Library, server: str) -> str:
    return library.mount(server).family


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
    fam = family_of(library, server)
    pool = [
        tool_name(m, t)
        for m in library.mounts
        if m != server and not (family and family_of(library, m) == fam)
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


def server_tools(library: Library, server: str) -> list[str]:
    return [tool_name(server, t) for t in library.mount(server).tools]


def own_unsolvable(library: Library, server: str, wanted: list[str], rng: random.Random) -> list[str]:
    """A few of ``server``'s own tools that cannot do one of ``wanted``, a write among them when there is one:
    an irrelevance task that offers them is as unsolvable as one that does not, but no longer looks it."""
    pool = unsolvable_offer(server_tools(library, server), wanted)
    writes = [n for n in pool if library.tool(*n.split("__", 1)).kind == "write"]
    k = rng.randint(*OWN_TOOLS)
    first = [rng.choice(writes)] if writes else []
    rest = [n for n in pool if n not in first]
    return first + rng.sample(rest, min(len(rest), k - len(first)))


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
    *,
    reading: bool = False,
) -> tuple[list[str], list[str], dict[str, Any]]:
    """The offered tools (shuffled), their servers and the perturbations made: the server's tools plus, in
    ``distractor_rate`` of tasks, distractors of other servers; an irrelevance task offers unrelated servers'
    tools (and sometimes a few of the server's own), a missing-function task the server's other tools (and
    sometimes unrelated tools), none of them able to do one of ``wanted``; an mcp task whose ground truth only
    reads (``reading``) sometimes the server's reads alone. ``strip_rate`` of tasks offer their schemas
    without enum lists."""
    extra: list[str] = []
    own: list[str] = []
    reads_only = False
    if variant == "irrelevance":
        tools = unrelated_tools(library, server, rng, exclude=wanted)
        if rng.random() < OWN_TOOLS_RATE:
            own = own_unsolvable(library, server, wanted, rng)
            tools = tools + own
    else:
        if variant == "missing_function":
            tools = unsolvable_offer(server_tools(library, server), wanted)
        elif kind == "mcp" and reading and rng.random() < READS_ONLY_RATE:
            tools, reads_only = read_tools(library, server), True
        else:
            tools = server_tools(library, server)
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
    made = {"distractors": extra, "enum_stripped": strip, "wanted": wanted if kind == "abstain" else []}
    return tools, servers, made | {"own_tools": own, "reads_only": reads_only}
