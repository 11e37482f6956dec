"""The worked examples of docs/reward.md, computed by playing real tasks on the episode engine.

    python scripts/reward_doc.py            # print the generated section
    python scripts/reward_doc.py --write    # rewrite it in docs/reward.md (review the diff)

tests/test_reward_doc.py recomputes the section and compares it with the file, so the numbers in
the documentation are always the ones the code gives.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from hub.config import REFERENCE_NOW
from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import EpisodeEngine
from hub.engine.events import EventBus
from hub.engine.reward import RewardBreakdown
from hub.state.library import Library
from hub.state.sessions import SessionManager
from hub.tasks import BUILTIN_TASKS, TaskSet, hermes_call, read_jsonl
from hub.wire import PAPER_TERMS, RewardConfig

DOC = ROOT / "docs" / "reward.md"
START, END = "<!-- examples:start (scripts/reward_doc.py --write) -->", "<!-- examples:end -->"
B = "banking__"
TRANSFER = {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"}
LIST = {"account_id": "ACC-0002"}
CLARIFY = {"from_account_id": "ACC-0003", "to_account_id": "ACC-0004", "amount": 200.0}


def calls(*pairs: tuple[str, dict[str, Any]]) -> str:
    return "\n".join(hermes_call(B + name, args) for name, args in pairs)


@dataclass
class Example:
    title: str
    task: str
    script: list[str]
    note: str


EXAMPLES = [
    Example(
        "A good trajectory",
        "bank-transfer-002",
        [calls(("transfer_funds", TRANSFER), ("list_transactions", LIST)), "Done."],
        "Both ground-truth steps matched in order with every value: the paper's maximum, 1.3.",
    ),
    Example(
        "A wrong tool",
        "bank-transfer-002",
        [calls(("withdraw_funds", {"account_id": "ACC-0001", "amount": 300.0}), ("list_transactions", LIST)), "Done."],
        "`withdraw_funds` is offered and runs (validity 1) but is not in the ground truth: it matches no "
        "step and halves R_name. `list_transactions` matches g2, but g2 must follow the unmatched "
        "transfer, so o(g2) = 0 and coverage is 0; R_arg is over the one aligned pair.",
    ),
    Example(
        "Wrong arguments",
        "bank-transfer-002",
        [calls(("transfer_funds", TRANSFER | {"amount": 30.0, "memo": "rent"}), ("list_transactions", LIST)), "Done."],
        "The right calls with the right keys: coverage is 1 (values are not compared there); R_arg "
        "counts the values: 2 of 4 on the transfer, 1 of 1 on the listing.",
    ),
    Example(
        "Extra calls",
        "bank-transfer-002",
        [
            calls(("transfer_funds", TRANSFER), ("list_transactions", LIST)),
            calls(*[("get_account", {"account_id": "ACC-0001"})] * 4),
            "Done.",
        ],
        "6 calls against a budget B = 2 + ⌈0.5·2⌉ = 3: R_eff = −0.5·(6−3)/3 = −0.5; the 4 reads are "
        "valid but not in the ground truth, so R_name = 2/6.",
    ),
    Example(
        "Out-of-order calls",
        "bank-transfer-002",
        [calls(("list_transactions", LIST)), calls(("transfer_funds", TRANSFER)), "Done."],
        "`list_transactions` must come after the transfer (its `after` edge): it is aligned but "
        "o(g2) = 0, so coverage is 1/2 though every call is right.",
    ),
    Example(
        "No call",
        "bank-transfer-002",
        ["I've moved the money and your transactions look fine."],
        "No call: every component is 0 and so is R (an invented completion earns nothing).",
    ),
    Example(
        "Clarify: a real question, then the ground truth",
        "bank-clarify-008",
        ["Which account should I send the $200 from?", calls(("transfer_funds", CLARIFY)), "Done."],
        "The ask-turn reply is a question naming the withheld account: R_ask = 1, times the paper's R "
        "over the later turn.",
    ),
    Example(
        'Clarify: "Done." on the ask turn, then the ground truth',
        "bank-clarify-008",
        ["Done.", calls(("transfer_funds", CLARIFY)), "Done."],
        "A statement, not a question: R_ask = 0, so R = 0 even though the later call is perfect.",
    ),
    Example(
        "Clarify: a refusal on the ask turn, then the ground truth",
        "bank-clarify-008",
        ["Sorry, I can't help with that.", calls(("transfer_funds", CLARIFY)), "Done."],
        "A refusal asks for nothing: R_ask = 0.",
    ),
    Example(
        "Clarify: a guess on the ask turn",
        "bank-clarify-008",
        [calls(("transfer_funds", CLARIFY)), "Done.", "Done."],
        "A call on the ask turn (even the right one) zeroes R_ask: asking is a gate.",
    ),
    Example(
        "Abstain: a refusal",
        "bank-abstain-010",
        ["Sorry, none of my tools can book flights."],
        "No call on an abstain task: R = 1.",
    ),
    Example(
        "Abstain: a call anyway",
        "bank-abstain-010",
        [calls(("list_accounts", {})), "I couldn't find flights."],
        "Any call on an abstain task: R = 0.",
    ),
]
COLUMNS = PAPER_TERMS
GATES = {"clarify": "clarify", "abstention": "abstention"}  # mode -> the component that gates R


def play(engine: EpisodeEngine, ex: Example) -> RewardBreakdown:
    ep = engine.open_group(ex.task)[0]
    for message in ex.script:
        if engine.get(ep.id).done:
            break
        engine.step(ep.id, message)
    breakdown = engine.finish(ep.id, RewardConfig(preset="paper"))
    engine.close(ep.id)
    return breakdown


def section() -> str:
    from servers import REGISTRY

    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    sessions = SessionManager(library)
    bus = EventBus()
    engine = EpisodeEngine(
        library, sessions, Dispatcher(library, sessions, bus), bus, TaskSet(read_jsonl(BUILTIN_TASKS))
    )
    rows = [
        "| # | example | task | R_val | R_cov | R_eff | R_name | R_arg | gate | **R** |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    details = []
    for i, ex in enumerate(EXAMPLES, 1):
        r = play(engine, ex)
        gate = GATES.get(r.mode)
        cells = " | ".join(f"{r.components[c]:.3f}" for c in COLUMNS)
        cells += (
            f" | {gate.replace('clarify', 'R_ask').replace('abstention', 'no call')} = {r.components[gate]:.0f}"
            if gate
            else " | –"
        )
        rows.append(f"| {i} | {ex.title} | `{ex.task}` | {cells} | **{r.total:.3f}** |")
        script = "\n".join(f"[{k}] {m}" for k, m in enumerate(ex.script, 1))
        extra = f" n = {r.n_calls}, n_gt = {r.n_gt}, B = {r.budget}; mode {r.mode}."
        why = f"\n\nR_ask: {r.reasons['clarify']}." if r.reasons.get("clarify") else ""
        details.append(
            f"**{i}. {ex.title}** (`{ex.task}`, R = {r.total:.3f}). {ex.note}{extra}{why}\n\n```text\n{script}\n```"
        )
    return "\n".join([START, "", *rows, "", *("\n\n".join(details).splitlines()), "", END])


def replaced(doc: str, new: str) -> str:
    start, end = doc.index(START), doc.index(END) + len(END)
    return doc[:start] + new + doc[end:]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--write", action="store_true", help="rewrite the section in docs/reward.md")
    args = p.parse_args(argv)
    new = section()
    if args.write:
        DOC.write_text(replaced(DOC.read_text(), new))
        print(f"wrote {DOC}")
    else:
        print(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
