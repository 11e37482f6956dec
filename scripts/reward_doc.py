"""The worked examples of docs/reward.md, computed by playing real tasks on the episode engine.

    python scripts/reward_doc.py            # print the generated sections
    python scripts/reward_doc.py --write    # rewrite them in docs/reward.md (review the diff)

Two sections: the paper preset's worked examples on the built-in tasks, and both presets side by side on
pairs of trajectories (hand-written tasks with the provenance synthesis records). tests/test_reward_doc.py
recomputes both and compares them with the file, so the numbers in the documentation are always the ones the
code gives.
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


def replaced(doc: str, new: str, start_mark: str = START, end_mark: str = END) -> str:
    start, end = doc.index(start_mark), doc.index(end_mark) + len(end_mark)
    return doc[:start] + new + doc[end:]


# Both presets side by side ------------------------------------------------------------------------

PRESETS_START = "<!-- presets:start (scripts/reward_doc.py --write) -->"
PRESETS_END = "<!-- presets:end -->"
T = "trading__"


def _stated(turn: int = 0) -> dict[str, Any]:
    return {"role": "stated", "turn": turn}


ORDER = {"portfolio_id": "PRT-0009", "symbol": "AAPL", "side": "sell", "quantity": 5}
PAIR_TASKS: dict[str, dict[str, Any]] = {
    "sell": {
        "id": "doc-sell",
        "servers": ["trading"],
        "turns": [
            {
                "user": "Portfolio PRT-0009: sell 5 AAPL at market.",
                "calls": [
                    {
                        "id": "g1",
                        "server": "trading",
                        "tool": "place_order",
                        "arguments": ORDER,
                        "sources": {k: _stated() for k in ORDER},
                    }
                ],
            }
        ],
        "tools": [T + "place_order", T + "get_portfolio", T + "get_quote"],
    },
    "savings": {
        "id": "doc-savings",
        "servers": ["banking"],
        "turns": [
            {
                "user": "I'm customer CUS-0001. Put $50 into my savings account, please.",
                "calls": [
                    {
                        "id": "g1",
                        "server": "banking",
                        "tool": "list_accounts",
                        "arguments": {"customer_id": "CUS-0001", "type": "savings", "limit": 10},
                        "sources": {"customer_id": _stated(), "type": _stated(), "limit": {"role": "incidental"}},
                    },
                    {
                        "id": "g2",
                        "server": "banking",
                        "tool": "deposit_funds",
                        "after": ["g1"],
                        "arguments": {"account_id": "ACC-0001", "amount": 50.0},
                        "sources": {"account_id": {"role": "returned", "step": "g1"}, "amount": _stated()},
                    },
                ],
            }
        ],
        "tools": [B + "list_accounts", B + "get_customer", B + "deposit_funds"],
    },
    "balance": {
        "id": "doc-balance",
        "servers": ["banking"],
        "turns": [
            {
                "user": "What's the balance of ACC-0002?",
                "answer": [12449.06],
                "calls": [
                    {
                        "id": "g1",
                        "server": "banking",
                        "tool": "get_account",
                        "arguments": {"account_id": "ACC-0002"},
                        "sources": {"account_id": _stated()},
                    }
                ],
            }
        ],
        "tools": [B + "get_account", B + "list_accounts"],
    },
    "ask": {
        "id": "doc-ask",
        "kind": "clarify",
        "servers": ["banking"],
        "turns": [
            {
                "user": "Please deposit some money into ACC-0003 for me.",
                "ask": True,
                "missing": ["amount"],
                "about": {"amount": "how much to deposit"},
            },
            {
                "user": "Make it $75.",
                "calls": [
                    {
                        "id": "g1",
                        "server": "banking",
                        "tool": "deposit_funds",
                        "arguments": {"account_id": "ACC-0003", "amount": 75.0},
                        "sources": {"account_id": _stated(0), "amount": _stated(1)},
                    }
                ],
            },
        ],
        "tools": [B + "deposit_funds", B + "get_account", B + "transfer_funds", B + "pay_payee", B + "list_cards"],
    },
}
SAVINGS_GT = calls(("list_accounts", {"customer_id": "CUS-0001", "type": "savings", "limit": 10}))
DEPOSIT_75 = calls(("deposit_funds", {"account_id": "ACC-0003", "amount": 75.0}))
PAIRS = [
    Example("The ground truth", "sell", [hermes_call(T + "place_order", ORDER), "Done."], ""),
    Example(
        "Buy instead of sell (final state wrong)",
        "sell",
        [hermes_call(T + "place_order", ORDER | {"side": "buy"}), "Done."],
        "one enum value of four arguments",
    ),
    Example(
        "The ground truth (a paged list, then the deposit)",
        "savings",
        [SAVINGS_GT, calls(("deposit_funds", {"account_id": "ACC-0001", "amount": 50.0})), "Done."],
        "",
    ),
    Example(
        "A lean read: no `limit`",
        "savings",
        [
            calls(("list_accounts", {"customer_id": "CUS-0001", "type": "savings"})),
            calls(("deposit_funds", {"account_id": "ACC-0001", "amount": 50.0})),
            "Done.",
        ],
        "`limit` is incidental",
    ),
    Example(
        "Another read finds the account",
        "savings",
        [
            calls(("get_customer", {"customer_id": "CUS-0001"})),
            calls(("deposit_funds", {"account_id": "ACC-0001", "amount": 50.0})),
            "Done.",
        ],
        "its result holds ACC-0001",
    ),
    Example(
        "$500 instead of $50 (final state wrong)",
        "savings",
        [SAVINGS_GT, calls(("deposit_funds", {"account_id": "ACC-0001", "amount": 500.0})), "Done."],
        "",
    ),
    Example(
        "The balance read and stated",
        "balance",
        [calls(("get_account", {"account_id": "ACC-0002"})), "It's $12,449.06."],
        "",
    ),
    Example(
        "The balance read, not stated",
        "balance",
        [calls(("get_account", {"account_id": "ACC-0002"})), "Done."],
        "the answer term",
    ),
    Example("A natural question", "ask", ["How much would you like to deposit?", DEPOSIT_75, "Done."], ""),
    Example(
        "A read, then a question",
        "ask",
        [calls(("get_account", {"account_id": "ACC-0003"})), "How much should I put in?", DEPOSIT_75, "Done."],
        "",
    ),
    Example(
        "A stuffed question",
        "ask",
        ["Please tell me the account, amount, memo, card, payee and status.", DEPOSIT_75, "Done."],
        "",
    ),
    Example('"Anything else I can do for you?"', "ask", ["Anything else I can do for you?", DEPOSIT_75, "Done."], ""),
]


def play_pair(library: Library, ex: Example, config: RewardConfig) -> RewardBreakdown:
    sessions = SessionManager(library)
    bus = EventBus()
    engine = EpisodeEngine(library, sessions, Dispatcher(library, sessions, bus), bus)
    ep = engine.open_group(PAIR_TASKS[ex.task])[0]
    for message in ex.script:
        if engine.get(ep.id).done:
            break
        engine.step(ep.id, message)
    return engine.finish(ep.id, config)


def presets_section() -> str:
    from servers import REGISTRY

    library = Library.from_servers(REGISTRY, REFERENCE_NOW)
    rows = [
        "| # | trajectory | task | paper R | paper % of max | outcome R | outcome % of max | outcome: why |",
        "|---|---|---|---|---|---|---|---|",
    ]
    scripts = []
    for i, ex in enumerate(PAIRS, 1):
        paper = play_pair(library, ex, RewardConfig(preset="paper"))
        outcome = play_pair(library, ex, RewardConfig(preset="outcome"))
        why = "; ".join(f"{r.name} −{r.lost:.3f}" for r in outcome.ledger if r.lost > 0.0005) or "nothing lost"
        rows.append(
            f"| {i} | {ex.title} | `{PAIR_TASKS[ex.task]['id']}` | {paper.total:.3f} | {100 * paper.normalized:.0f}% "
            f"| {outcome.total:.3f} | {100 * outcome.normalized:.0f}% | {why} |"
        )
        script = "\n".join(f"[{k}] {m}" for k, m in enumerate(ex.script, 1))
        scripts.append(f"**{i}. {ex.title}**{f' ({ex.note})' if ex.note else ''}\n\n```text\n{script}\n```")
    body = [*rows, "", *("\n\n".join(scripts).splitlines())]
    return "\n".join([PRESETS_START, "", *body, "", PRESETS_END])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--write", action="store_true", help="rewrite the section in docs/reward.md")
    args = p.parse_args(argv)
    new, pairs = section(), presets_section()
    if args.write:
        DOC.write_text(replaced(replaced(DOC.read_text(), new), pairs, PRESETS_START, PRESETS_END))
        print(f"wrote {DOC}")
    else:
        print(new + "\n\n" + pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
