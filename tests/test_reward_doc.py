"""docs/reward.md's worked examples are the numbers the code gives (recomputed, compared with the file)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from hub.engine.clarify import judge_reply, words_for

ROOT = Path(__file__).resolve().parent.parent


def load_generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("reward_doc", ROOT / "scripts" / "reward_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_worked_examples_match_the_code() -> None:
    gen = load_generator()
    doc = (ROOT / "docs" / "reward.md").read_text()
    new = gen.section()
    assert gen.replaced(doc, new) == doc, "docs/reward.md is stale: run python scripts/reward_doc.py --write"
    assert new.count("\n| ") == len(gen.EXAMPLES) + 1  # a row per example, plus the header


def test_both_presets_side_by_side_match_the_code() -> None:
    gen = load_generator()
    doc = (ROOT / "docs" / "reward.md").read_text()
    new = gen.presets_section()
    assert gen.replaced(doc, new, gen.PRESETS_START, gen.PRESETS_END) == doc, "run python scripts/reward_doc.py --write"
    rows = [line.split(" | ") for line in new.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert len(rows) == len(gen.PAIRS)
    outcome = {r[1]: float(r[6].rstrip("%")) for r in rows}
    # the pairs the preset exists for: a wrong state under 75% of the maximum, a correct path or a real question
    # at 100%, a stuffed question or a closer at 0
    assert (
        outcome["Buy instead of sell (final state wrong)"] <= 75
        and outcome["$500 instead of $50 (final state wrong)"] <= 75
    )
    assert outcome["A lean read: no `limit`"] == outcome["Another read finds the account"] == 100
    assert outcome["A natural question"] == outcome["A read, then a question"] == 100
    assert outcome["A stuffed question"] == outcome['"Anything else I can do for you?"'] == 0


def test_the_ask_table_matches_the_check() -> None:
    doc = (ROOT / "docs" / "reward.md").read_text()
    table = doc.split("| reply on the ask turn", 1)[1].split("\n\n", 1)[0].splitlines()[2:]
    wanted = {"from_account_id": words_for("from_account_id", {"x-entity": "account"})}
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table]
    checked = 0
    for reply, score, reason in rows:
        if reply.startswith("("):
            continue
        verdict = judge_reply(reply, wanted)
        assert verdict.asked is (score == "1"), reply
        assert verdict.reason.startswith(reason), (reply, verdict.reason)
        checked += 1
    assert checked == 6
