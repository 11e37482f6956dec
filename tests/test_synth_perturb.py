"""Offers and distractors: a server added to the registry leaves every other server's sample tasks as they were."""

from __future__ import annotations

import json
import random
from typing import Annotated, Any

from pydantic import Field

from hub.config import REFERENCE_NOW
from hub.kit import Ctx, Server
from hub.state.library import Library
from hub.synth import perturb
from hub.synth.pipeline import Slot, SynthConfig, Synthesizer
from hub.synth.samples import compact
from servers import REGISTRY
from tests.conftest import LIBRARY

extra = Server(
    "aa_notes",
    "A throwaway server.",
    "CREATE TABLE notes (note_id TEXT PRIMARY KEY, body TEXT);",
    lambda db, rng, now: None,
)


@extra.read()
def list_notes(ctx: Ctx) -> dict[str, Any]:
    """Every note, e.g. list_notes()."""
    return {"notes": [dict(r) for r in ctx.db.execute("SELECT * FROM notes")]}


@extra.write()
def add_note(ctx: Ctx, body: Annotated[str, Field(description="The text, e.g. 'milk'")]) -> dict[str, Any]:
    """Add a note, e.g. add_note('milk')."""
    ctx.db.execute("INSERT INTO notes VALUES (?, ?)", (f"N-{body}", body))
    return {"note_id": f"N-{body}"}


def samples(library: Library, servers: list[str]) -> list[tuple[str, list[str]]]:
    synth = Synthesizer(library, SynthConfig(n=100, seed=0, worlds=2))
    slots = [Slot("mcp", "complete", None), Slot("abstain", "complete", "missing_function"),
             Slot("abstain", "complete", "irrelevance")]  # fmt: skip
    out = []
    for server in servers:
        for j in range(18):
            task = synth.attempt(slots[j % 3], server, j)
            out.append((json.dumps(compact(task)), sorted(task.tools)) if task else ("-", []))
    return out


def test_a_new_server_leaves_other_servers_samples_unchanged() -> None:
    bigger = Library.from_servers([*REGISTRY, extra], REFERENCE_NOW)
    servers = ["payments", "team_chat"]
    before, after = samples(LIBRARY, servers), samples(bigger, servers)
    assert sum(s != "-" for s, _ in before) >= 12 and any('"distractors": 0' not in s for s, _ in before if s != "-")
    assert [s for s, _ in after] == [s for s, _ in before]  # what the golden samples hold
    for (_, old), (_, new) in zip(before, after):  # the offered tools move only where the new server's are drawn
        assert new == old or any(n.startswith("aa_notes__") for n in new)


def test_distractors_take_the_same_count_whatever_the_pool() -> None:
    small = Library.from_servers([s for s in REGISTRY if s.name in ("banking", "email", "maps")], REFERENCE_NOW)
    for seed in range(30):
        a = perturb.distractors(LIBRARY, "banking", random.Random(seed))
        b = perturb.distractors(small, "banking", random.Random(seed))
        assert len(a) == len(b) and 3 <= len(a) <= 8 and not any(n.startswith("banking__") for n in a)
        c = perturb.unrelated_tools(LIBRARY, "banking", random.Random(seed), exclude=["email__send_email"])
        assert not any(n.split("__")[0] in ("banking", "payments", "budget", "trading") for n in c)
        assert "email__send_email" not in c and 4 <= len(c) <= 10


def test_an_irrelevance_offer_skips_the_servers_family_and_a_server_joins_one_by_declaring_it() -> None:
    bank = Server("aa_bank", "A second bank.", "CREATE TABLE t (k TEXT PRIMARY KEY);", lambda db, rng, now: None)
    bank.family = "money"
    bank.read()(list_notes)
    library = Library.from_servers([*REGISTRY, bank], REFERENCE_NOW)
    money = {m for m in library.mounts if library.mount(m).family == "money"}
    assert {"banking", "payments", "budget", "trading", "aa_bank"} <= money
    assert library.mount("filesystem").family == "files"
    offered: set[str] = set()
    for k in range(40):
        offered |= {name.split("__")[0] for name in perturb.unrelated_tools(library, "banking", random.Random(k))}
    assert offered and not offered & money
    near: set[str] = set()
    for k in range(40):
        near |= {name.split("__")[0] for name in perturb.distractors(library, "banking", random.Random(k))}
    assert near & money  # plain distractors may come from the family: only irrelevance offers avoid it
