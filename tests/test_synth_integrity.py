"""Dataset integrity on a small synthesis run: stamped splits honoured by eval and training, clarify tasks
that withhold only what a call needs, abstain tasks no offered tool can serve, and an ask turn that
pays only for a real question."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from hub.cli import parser
from hub.engine.dispatcher import Dispatcher
from hub.engine.episodes import EpisodeEngine
from hub.engine.events import EventBus
from hub.engine.question import clarifying_question
from hub.state.sessions import SessionManager
from hub.synth.checks import abstain_problems, clarify_problems, requested_tools, verb_object
from hub.synth.holdout import assign, opener
from hub.synth.output import assign_splits, stratum, write_all
from hub.synth.pipeline import SynthConfig, SynthResult, synthesize
from hub.tasks import Task, TaskSet, hermes_call, oracle_script, read_jsonl
from hub.testing import LiveHub, serve
from tests.conftest import LIBRARY
from tests.test_trainer_launcher import prove_train
from tests.trainer_support import make_app
from trainer_client.evaluate import run_eval, select_tasks, training_tasks

N = 240


@pytest.fixture(scope="module")
def synth(tmp_path_factory: pytest.TempPathFactory) -> SynthResult:
    return synthesize(LIBRARY, SynthConfig(n=N, seed=11, cache_dir=tmp_path_factory.mktemp("graphs"), sampler_k=40))


@pytest.fixture(scope="module")
def dataset(synth: SynthResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("ds")
    write_all(out, synth, LIBRARY)
    both = out / "both.jsonl"  # train and test served together
    both.write_text((out / "train.jsonl").read_text() + (out / "test.jsonl").read_text())
    return out


# Splits ----------------------------------------------------------------------------------------


def test_every_task_is_stamped_and_the_test_split_holds_out_whole_opening_intents(synth: SynthResult) -> None:
    assert all(t.split in ("train", "test") for t in synth.tasks)
    for t in synth.tasks:
        server = stratum(t)[0]
        assert (t.split == "test") == (opener(t) in synth.held_out[server]), t.id
    train = [t for t in synth.tasks if t.split == "train"]
    test = [t for t in synth.tasks if t.split == "test"]
    assert {stratum(t) for t in train} >= {stratum(t) for t in test}
    assert {stratum(t)[0] for t in test} == {stratum(t)[0] for t in synth.tasks}
    assert {t.kind for t in test} == {t.kind for t in synth.tasks}
    assert 0.05 <= sum(t.split == "test" for t in synth.tasks) / N <= 0.2


def test_split_by_task_gives_each_kind_and_server_its_share(synth: SynthResult) -> None:
    tasks = [t.model_copy() for t in synth.tasks]
    assert assign(tasks, 0.1, 11, "task") == {}
    for kind, n in Counter(t.kind for t in tasks).items():
        assert sum(t.kind == kind and t.split == "test" for t in tasks) == round(n * 0.1), kind
    sizes = Counter(stratum(t) for t in tasks)
    tests_by = Counter(stratum(t) for t in tasks if t.split == "test")
    for key, n in sizes.items():
        assert abs(tests_by[key] - n * 0.1) < 1 + 1e-9, key


def test_the_files_hold_the_stamps(synth: SynthResult, dataset: Path) -> None:
    train, test = read_jsonl(dataset / "train.jsonl"), read_jsonl(dataset / "test.jsonl")
    assert {t.split for t in train} == {"train"} and {t.split for t in test} == {"test"}
    assert len(train) + len(test) == N
    manifest = json.loads((dataset / "manifest.json").read_text())
    assert manifest["split_by_kind"] == {
        k: {"train": sum(t.kind == k for t in train), "test": sum(t.kind == k for t in test)}
        for k in ("abstain", "clarify", "mcp")
    }
    assert all(v["test"] for v in manifest["split_by_kind"].values())
    assert manifest["split_by"] == "intent" and manifest["held_out_intents"] == synth.held_out


def test_stamps_are_seeded_and_stratified_on_any_task_list() -> None:
    tasks = [
        Task.model_validate({"id": f"t{i}", "kind": "abstain", "servers": [s], "turns": [{"user": "x"}]})
        for i, s in enumerate(["banking"] * 25 + ["maps"] * 15)
    ]
    a = [t.split for t in assign_splits([t.model_copy() for t in tasks], 0.2, 1)]
    b = [t.split for t in assign_splits([t.model_copy() for t in tasks], 0.2, 1)]
    c = [t.split for t in assign_splits([t.model_copy() for t in tasks], 0.2, 2)]
    assert a == b != c
    assert a[:25].count("test") == 5 and a[25:].count("test") == 3


def test_unstamped_tasks_use_the_hash_split_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    tasks = [{"id": f"t{i}", "kind": "mcp"} for i in range(50)] + [{"id": "s", "kind": "mcp", "split": "test"}]
    with caplog.at_level(logging.WARNING, "trainer_client.evaluate"):
        test = select_tasks(tasks, "test")
    warned = [r.getMessage() for r in caplog.records if "no split stamp" in r.getMessage()]
    assert warned == [
        (
            "50 of 51 tasks carry no split stamp; they are split 80/20 by a hash of their id, which need "
            "not match the split they were synthesized with (re-synthesize to stamp them)"
        )
    ]
    assert {"id": "s", "kind": "mcp", "split": "test"} in test
    train = training_tasks(tasks, "all")
    assert not {t["id"] for t in train} & {t["id"] for t in test}
    with pytest.raises(ValueError, match="never trains on the test split"):
        training_tasks(tasks, "test")


@pytest_asyncio.fixture
async def live(dataset: Path, tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path, tasks_path=str(dataset / "both.jsonl"))) as hub:
        yield hub


async def test_eval_split_test_runs_exactly_the_test_tasks(live: LiveHub, dataset: Path) -> None:
    want = {t.id for t in read_jsonl(dataset / "test.jsonl")}
    assert len(live.app.state.hub.tasks) == N
    args = parser().parse_args(["eval", "--hub", live.url, "--policy", "oracle", "--split", "test"])
    report = await run_eval(args)
    assert report["tasks"] == len(want) and {e["task"] for e in report["episodes"]} == want
    assert report["overall"]["failed"] == 0 and report["overall"]["success_rate"] == 1.0


async def test_prove_train_exports_only_training_tasks(live: LiveHub, dataset: Path, tmp_path: Path) -> None:
    train = {t.id for t in read_jsonl(dataset / "train.jsonl")}
    for split in ("train", "all"):
        rc, _, err = await prove_train(
            "--hub",
            live.url,
            "--model",
            "Qwen/Qwen3-4B",
            "--dry-run",
            "--split",
            split,
            "--output",
            str(tmp_path / split),
        )
        assert rc == 0, err
        prompts = next(tmp_path.joinpath(split).rglob("prompts-*.jsonl"))
        assert {json.loads(line)["label"] for line in prompts.read_text().splitlines()} == train
    rc, _, err = await prove_train("--hub", live.url, "--model", "m", "--dry-run", "--split", "test")
    assert rc == 2 and "never trains on the test split" in err


# Clarify and abstain checks -------------------------------------------------------------------


def test_every_clarify_task_withholds_a_required_value_it_declares(synth: SynthResult) -> None:
    clarify = [t for t in synth.tasks if t.kind == "clarify"]
    assert clarify
    for task in clarify:
        assert clarify_problems(task, LIBRARY) == [], task.id
        ask = task.turns[0]
        assert ask.ask and len(ask.missing) == 1, task.id
        step = next(s for t in task.turns[1:] for s in t.calls if ask.missing[0] in s.arguments)
        tool = LIBRARY.tool(step.server, step.tool)
        assert ask.missing[0] in tool.required
        assert "default" not in tool.input_schema["properties"][ask.missing[0]]


def test_every_abstain_task_offers_nothing_that_serves_the_request(synth: SynthResult) -> None:
    abstain = [t for t in synth.tasks if t.kind == "abstain"]
    assert abstain
    for task in abstain:
        assert abstain_problems(task, LIBRARY) == [], task.id
        wanted = requested_tools(task, LIBRARY)  # the writes the user asks for, when there are any
        assert wanted, task.id
        offered = {n.split("__", 1)[1] for n in task.tools}
        assert not offered & {w.split("__", 1)[1] for w in wanted}, task.id
        for w in wanted:  # nor the same verb on the same object
            verb, obj = verb_object(w.split("__", 1)[1])
            assert all(verb_object(o) != (verb, obj) for o in offered), (task.id, w)


def test_the_filter_counts_what_it_drops(synth: SynthResult) -> None:
    from hub.synth.checks import keep

    dropped: Counter[str] = Counter()
    good = next(t for t in synth.tasks if t.kind == "clarify")
    assert keep(good, LIBRARY, dropped) and not dropped
    bad = good.model_copy(deep=True)
    bad.turns[0].user += " " + " ".join(str(v) for s in bad.turns[1].calls for v in s.arguments.values())
    assert not keep(bad, LIBRARY, dropped) and dropped == Counter({"clarify_stated": 1})


CLARIFY_BASE = {"id": "c", "kind": "clarify", "servers": ["calendar"], "tools": []}


def test_clarify_checker_rejects_optional_stated_and_findable_values() -> None:
    tool = next(
        t
        for t in LIBRARY.mount("calendar").tools.values()
        if t.kind == "read" and any(p not in t.required for p in t.input_schema["properties"])
    )
    optional = next(p for p in tool.input_schema["properties"] if p not in tool.required)
    task = Task.model_validate(
        CLARIFY_BASE
        | {
            "tools": [f"calendar__{tool.name}"],
            "turns": [
                {"user": "show me the calendars", "ask": True, "missing": [optional]},
                {
                    "user": "whatever",
                    "calls": [{"id": "g1", "server": "calendar", "tool": tool.name, "arguments": {optional: "x"}}],
                },
            ],
        }
    )
    assert [k for k, _ in clarify_problems(task, LIBRARY)] == ["clarify_optional"]
    stated = Task.model_validate(
        {
            "id": "s",
            "kind": "clarify",
            "servers": ["banking"],
            "tools": ["banking__get_account"],
            "turns": [
                {"user": "look at ACC-0001 please", "ask": True, "missing": ["account_id"]},
                {
                    "user": "ACC-0001",
                    "calls": [
                        {
                            "id": "g1",
                            "server": "banking",
                            "tool": "get_account",
                            "arguments": {"account_id": "ACC-0001"},
                        }
                    ],
                },
            ],
        }
    )
    assert [k for k, _ in clarify_problems(stated, LIBRARY)] == ["clarify_stated"]


def test_clarify_checker_finds_a_value_a_read_tool_gives_uniquely() -> None:
    msg = LIBRARY.tool("email", "get_message")
    assert "message_id" in msg.required
    from tests.conftest import World

    world = World()
    message = world.ok("email", "get_message", message_id="MSG-00001")
    task = Task.model_validate(
        {
            "id": "f",
            "kind": "clarify",
            "servers": ["email"],
            "tools": ["email__get_message", "email__search_messages"],
            "turns": [
                {"user": "Search mailbox messages, then show me MSG-00001.", "ask": True, "missing": ["mailbox_id"]},
                {
                    "user": f"It's {message['mailbox_id']}.",
                    "calls": [
                        {
                            "id": "g1",
                            "server": "email",
                            "tool": "search_messages",
                            "arguments": {"mailbox_id": message["mailbox_id"]},
                        },
                        {
                            "id": "g2",
                            "server": "email",
                            "tool": "get_message",
                            "arguments": {"message_id": "MSG-00001"},
                        },
                    ],
                },
            ],
        }
    )
    problems = clarify_problems(task, LIBRARY)
    assert [k for k, _ in problems] == ["clarify_findable"] and "email__get_message" in problems[0][1]
    hidden = task.model_copy(update={"tools": ["email__search_messages"]})
    assert clarify_problems(hidden, LIBRARY) == []  # without get_message the mailbox cannot be found


def test_abstain_checker_rejects_same_name_same_action_and_named_tools() -> None:
    base = {
        "id": "a",
        "kind": "abstain",
        "servers": ["issue_tracker"],
        "meta": {"synth": {"requested": ["issue_tracker__search_users"]}},
    }
    same_name = Task.model_validate(
        base
        | {
            "turns": [{"user": "Could you search users?"}],
            "tools": ["video_meeting__search_users", "maps__geocode_address"],
        }
    )
    assert "abstain_same_name" in [k for k, _ in abstain_problems(same_name, LIBRARY)]
    same_action = Task.model_validate(
        base | {"turns": [{"user": "Anyone named Kim?"}], "tools": ["filesystem__list_users", "maps__geocode_address"]}
    )
    assert [k for k, _ in abstain_problems(same_action, LIBRARY)] == ["abstain_same_action"]
    named = Task.model_validate(
        base
        | {
            "meta": {},
            "turns": [{"user": "Please list the users of the machine."}],
            "tools": ["filesystem__list_users"],
        }
    )
    assert [k for k, _ in abstain_problems(named, LIBRARY)] == ["abstain_named_in_request"]
    fine = Task.model_validate(
        base
        | {
            "turns": [{"user": "Could you search users?"}],
            "tools": ["maps__geocode_address", "vehicle__set_destination"],
        }
    )
    assert abstain_problems(fine, LIBRARY) == []


# The ask turn pays only for a question ------------------------------------------------------------


def play(engine: EpisodeEngine, task: Task, ask_reply: str) -> float:
    ep = engine.open_group(task)[0]
    for i, turn in enumerate(task.turns):
        if engine.get(ep.id).done:
            break
        if turn.ask:
            engine.step(ep.id, ask_reply if ask_reply else clarifying_question(task, i))
        elif turn.calls:
            engine.step(ep.id, "\n".join(hermes_call(s.name, s.arguments) for s in turn.calls))
            engine.step(ep.id, "Done.")
    total = engine.finish(ep.id).total
    engine.close(ep.id)
    return total


def test_done_on_the_ask_turn_scores_near_zero_and_a_question_the_maximum(synth: SynthResult) -> None:
    sessions = SessionManager(LIBRARY)
    bus = EventBus()
    engine = EpisodeEngine(LIBRARY, sessions, Dispatcher(LIBRARY, sessions, bus), bus, TaskSet(synth.tasks))
    clarify = [t for t in synth.tasks if t.kind == "clarify"]
    assert len(clarify) >= 20
    for task in clarify:
        assert play(engine, task, "Done.") <= 0.1, task.id
        assert play(engine, task, "I can't help with that.") <= 0.1, task.id
        assert play(engine, task, "") == pytest.approx(1.3), (task.id, oracle_script(task)[0])


def test_the_builtin_clarify_and_abstain_tasks_pass_the_checks() -> None:
    from hub.tasks import BUILTIN_TASKS

    checked: Counter[str] = Counter()
    for task in read_jsonl(BUILTIN_TASKS):
        if task.kind == "clarify":
            assert clarify_problems(task, LIBRARY) == [], task.id
        elif task.kind == "abstain":
            assert abstain_problems(task, LIBRARY) == [], task.id
        checked[task.kind] += 1
    assert checked["clarify"] == 2 and checked["abstain"] == 2


def test_clarify_checker_follows_a_stated_id_to_a_unique_value() -> None:
    from tests.conftest import World

    world = World()
    cards = world.ok("banking", "list_cards", account_id="ACC-0005")
    rows = cards["cards"] if isinstance(cards, dict) else cards
    assert len(rows) == 1  # the account has one card: listing its cards finds it
    card = rows[0]["card_id"]
    task = Task.model_validate(
        {
            "id": "k",
            "kind": "clarify",
            "servers": ["banking"],
            "tools": ["banking__list_cards", "banking__set_card_status"],
            "turns": [
                {"user": "Please lock the card of my account ACC-0005.", "ask": True, "missing": ["card_id"]},
                {
                    "user": f"It's {card}.",
                    "calls": [
                        {
                            "id": "g1",
                            "server": "banking",
                            "tool": "set_card_status",
                            "arguments": {"card_id": card, "status": "locked"},
                        }
                    ],
                },
            ],
        }
    )
    assert [k for k, _ in clarify_problems(task, LIBRARY)] == ["clarify_findable"]
    vague = task.model_copy(deep=True)
    vague.turns[0].user = "Please lock my card."
    assert clarify_problems(vague, LIBRARY) == []


def test_writing_keeps_existing_stamps_and_stamps_the_rest() -> None:
    from hub.synth.output import split

    tasks = [
        Task.model_validate({"id": f"t{i}", "kind": "abstain", "servers": ["maps"], "turns": [{"user": "x"}]})
        for i in range(20)
    ]
    tasks[0].split = "test"
    tasks[1].split = "train"
    train, test = split(tasks, 0.5, 0)
    assert tasks[0] in test and tasks[1] in train
    assert len(test) == 1 + 9 and all(t.split for t in tasks)


def test_abstain_reads_on_the_way_are_means_not_the_request() -> None:
    task = Task.model_validate(
        {
            "id": "m",
            "kind": "abstain",
            "servers": ["payments"],
            "meta": {"synth": {"wanted": ["payments__refund_payment", "payments__search_customers"]}},
            "turns": [{"user": "Please send Grayson his money back for the overage invoice."}],
            "tools": ["payments__search_customers", "payments__get_invoice"],
        }
    )
    assert requested_tools(task, LIBRARY) == ["payments__refund_payment"]
    assert abstain_problems(task, LIBRARY) == []  # the reads are offered on purpose; the refund is not
    assert "abstain_same_name" in [
        k for k, _ in abstain_problems(task.model_copy(update={"tools": ["payments__refund_payment"]}), LIBRARY)
    ]
