"""The OpenRLHF agent file, driven by the real OpenRLHF 0.11 MultiTurnAgentExecutor against a live hub."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from hub.tasks import hermes_call, oracle_script
from hub.testing import LiveHub, serve
from tests.trainer_support import ScriptedEngine, make_app, need_openrlhf, run_samples, sampling_params

need_openrlhf()

from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor  # noqa: E402

from trainer_client.hub_client import HubClient, HubError  # noqa: E402
from trainer_client.hubs import HubSet  # noqa: E402
from trainer_client.openrlhf_agent import (  # noqa: E402
    COMPONENTS,
    AgentConfig,
    AgentExecutor,
    AgentInstance,  # noqa: E402
    UnknownTask,
)
from trainer_client.tiny import byte_tokenizer  # noqa: E402

TOKENIZER = byte_tokenizer()


@pytest_asyncio.fixture
async def live(tmp_path: Path) -> AsyncIterator[LiveHub]:
    async with serve(make_app(tmp_path)) as hub:
        yield hub


def executor_for(live: LiveHub, n: int, **kw: Any) -> AgentExecutor:
    return AgentExecutor(AgentConfig(hub_urls=[live.url], group_size=n, **kw))


def test_agent_file_matches_openrlhf_interface() -> None:
    assert issubclass(AgentExecutor, MultiTurnAgentExecutor) and issubclass(AgentInstance, AgentInstanceBase)
    # OpenRLHF builds the executor with no arguments (vllm_engine._load_agent_executor)
    assert AgentExecutor().agent_instance_cls is AgentInstance


def test_agent_file_loads_by_path_like_openrlhf(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    import trainer_client.openrlhf_agent as mod

    monkeypatch.setenv("PROVE_HUB_URLS", "http://127.0.0.1:1,ws://127.0.0.1:2/ws")
    monkeypatch.setenv("PROVE_GROUP_SIZE", "8")
    spec = importlib.util.spec_from_file_location("agent_module", mod.__file__)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    executor = module.AgentExecutor()
    assert executor.config.group_size == 8
    assert [h.url for h in executor.pool.hubs.hubs] == ["ws://127.0.0.1:1/ws", "ws://127.0.0.1:2/ws"]


async def test_oracle_gets_max_reward_and_group_shares_state(live: LiveHub) -> None:
    task = live.app.state.hub.tasks.get("bank-transfer-002")
    good, n = oracle_script(task), 4
    bad = [hermes_call("banking__get_account", {"account_id": "ACC-0001"}), "Done."]
    executor = executor_for(live, n)
    engines = [
        ScriptedEngine(TOKENIZER, good),
        ScriptedEngine(TOKENIZER, bad),
        ScriptedEngine(TOKENIZER, ["I moved the money."]),
        ScriptedEngine(TOKENIZER, good),
    ]
    out = await run_samples(executor, "bank-transfer-002", engines, TOKENIZER)
    await executor.aclose()
    rewards = [o["reward"] for o in out]
    assert rewards[0] == pytest.approx(1.3) and rewards[3] == pytest.approx(1.3)
    assert rewards[1] < 1.0 and rewards[2] < rewards[1]
    assert out[0]["scores"] == pytest.approx(1.3)
    logs = out[0]["extra_logs"]
    assert {f"reward_{c}" for c in COMPONENTS} <= set(logs) and logs["reward_coverage"] == 1.0
    assert logs["hub_failed"] == 0.0 and logs["n_calls"] == 2.0 and logs["n_gt"] == 2.0
    assert [set(o["extra_logs"]) for o in out] == [set(logs)] * n  # same keys for every sample
    # every sample was one episode of one hub group, and every episode was finished and closed
    hub = live.app.state.hub
    await hub.store.flush()
    rows = await hub.store.query("SELECT group_id, status, reward FROM episodes ORDER BY opened_at")
    assert len(rows) == n and len({r["group_id"] for r in rows}) == 1
    assert sorted(r["reward"] for r in rows) == pytest.approx(sorted(rewards))
    assert hub.episodes.episodes == {}


async def test_token_stream_is_the_chat_template(live: LiveHub) -> None:
    """Prompt, actions and feedback concatenate to the chat template of the whole conversation."""
    task = live.app.state.hub.tasks.get("bank-clarify-008")
    script = oracle_script(task)
    executor = executor_for(live, 1)
    engine = ScriptedEngine(TOKENIZER, script)
    [out] = await run_samples(executor, "bank-clarify-008", [engine], TOKENIZER)
    await executor.aclose()
    text = TOKENIZER.decode(out["observation_tokens"], skip_special_tokens=False)
    assert text.startswith("<|im_start|>system\n") and "# Tools" in text and "banking__" in text
    assert text.count("<|im_start|>assistant\n") == len(script)
    assert "<|im_end|><|im_end|>" not in text  # the EOS the model emitted is not repeated by the feedback
    assert task.turns[1].user in text  # the next user turn came back as feedback
    for start, end in out["action_ranges"]:
        action = TOKENIZER.decode(out["observation_tokens"][start:end], skip_special_tokens=False)
        assert action.endswith("<|im_end|>")
    assert out["reward"] == pytest.approx(out["extra_logs"]["reward_total"])
    assert engine.prompts[1] == out["observation_tokens"][: len(engine.prompts[1])]


async def test_abstain_task_rewards_no_call(live: LiveHub) -> None:
    executor = executor_for(live, 2)
    engines = [
        ScriptedEngine(TOKENIZER, ["Sorry, none of my tools can do that."]),
        ScriptedEngine(TOKENIZER, [hermes_call("banking__list_accounts", {}), "Here you go."]),
    ]
    out = await run_samples(executor, "bank-abstain-010", engines, TOKENIZER)
    await executor.aclose()
    assert [o["reward"] for o in out] == [1.0, 0.0]


async def test_context_budget_ends_episode_with_its_reward(live: LiveHub) -> None:
    """When the next action would not fit, the step scores the episode instead of leaving it open."""
    executor = executor_for(live, 1)
    spam = [hermes_call("banking__get_account", {"account_id": "ACC-0001"})] * 50
    probe = ScriptedEngine(TOKENIZER, [])
    [first] = await run_samples(executor, "bank-balance-001", [probe], TOKENIZER)
    prompt_len = len(probe.prompts[0])
    engine = ScriptedEngine(TOKENIZER, spam)
    [out] = await run_samples(executor, "bank-balance-001", [engine], TOKENIZER, max_length=prompt_len + 400)
    await executor.aclose()
    assert out["extra_logs"]["truncated"] == 1.0 and len(out["observation_tokens"]) <= prompt_len + 400
    assert out["reward"] == pytest.approx(out["extra_logs"]["reward_total"]) and out["extra_logs"]["n_calls"] >= 1
    assert live.app.state.hub.episodes.episodes == {}
    assert first["extra_logs"]["hub_failed"] == 0.0


async def test_unknown_task_label_is_a_clear_error(live: LiveHub) -> None:
    executor = executor_for(live, 1)
    with pytest.raises(ValueError, match="label"):
        await run_samples(executor, "", [ScriptedEngine(TOKENIZER, [])], TOKENIZER)
    await executor.aclose()


class SteeredEngine(ScriptedEngine):
    """A scripted engine whose ``at``-th generation waits for ``gate`` (after setting ``reached``)."""

    def __init__(self, tokenizer: Any, script: list[str], at: int = -1) -> None:
        super().__init__(tokenizer, script)
        self.at = at
        self.reached, self.gate = asyncio.Event(), asyncio.Event()
        self.budgets: list[int] = []

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        self.budgets.append(sampling_params.max_tokens)
        if len(self.prompts) == self.at:
            self.reached.set()
            await self.gate.wait()
        return await super().generate(prompt_token_ids, sampling_params, multi_modal_data)


async def test_samples_sharing_one_sampling_params_keep_their_own_budget(live: LiveHub) -> None:
    """OpenRLHF hands ONE sampling_params object to the n samples of a prompt and rewrites its max_tokens
    every turn; a sample's budget must come from max_length and its own tokens, not from that object."""
    task = live.app.state.hub.tasks.get("bank-transfer-002")
    good = oracle_script(task)
    probe = ScriptedEngine(TOKENIZER, [])
    executor = executor_for(live, 1)
    await run_samples(executor, "bank-transfer-002", [probe], TOKENIZER)
    await executor.aclose()
    prompt_len, room = len(probe.prompts[0]), 6000
    # A spends most of the context on one long call, then starts a second generation with little room left
    filler = "Let me look. " * ((room - 600) // 13) + hermes_call("banking__get_account", {"account_id": "ACC-0001"})
    hog = SteeredEngine(TOKENIZER, [filler, "Done."], at=1)
    # B is the oracle; its first generation returns only once A has rewritten the shared max_tokens
    oracle = SteeredEngine(TOKENIZER, good, at=0)
    params = sampling_params()
    executor = executor_for(live, 2)
    run = asyncio.ensure_future(
        run_samples(
            executor, "bank-transfer-002", [hog, oracle], TOKENIZER, max_length=prompt_len + room, params=params
        )
    )
    await asyncio.wait_for(oracle.reached.wait(), 30)
    await asyncio.wait_for(hog.reached.wait(), 30)
    # A's second generation has little room: with one shared object, that is what the oracle's step would read
    assert hog.budgets[-1] < room // 3, "A did not get short of room"
    oracle.gate.set()
    await asyncio.sleep(0)
    hog.gate.set()
    hog_out, oracle_out = await asyncio.wait_for(run, 60)
    await executor.aclose()
    assert oracle_out["extra_logs"]["context_truncated"] == 0.0, "the oracle was cut short by A's budget"
    assert oracle_out["reward"] == pytest.approx(1.3) and oracle_out["extra_logs"]["n_calls"] == 2.0
    assert set(hog_out["extra_logs"]) == set(oracle_out["extra_logs"])  # split_experience_batch needs equal keys
    assert len(oracle_out["observation_tokens"]) <= prompt_len + room
    assert params.max_tokens is None  # each sample worked on its own copy; the shared object is untouched


async def test_per_turn_token_cap_caps_every_turn(live: LiveHub) -> None:
    """OpenRLHF sets max_tokens to all the room left on every turn; ``max_new_tokens`` really caps a turn."""
    task = live.app.state.hub.tasks.get("bank-transfer-002")
    engine = SteeredEngine(TOKENIZER, oracle_script(task) + ["x" * 500] * 3)
    executor = executor_for(live, 1, max_new_tokens=40, max_steps=4)
    [out] = await run_samples(executor, "bank-transfer-002", [engine], TOKENIZER)
    await executor.aclose()
    assert engine.budgets and all(b == 40 for b in engine.budgets)
    assert all(end - start <= 40 for start, end in out["action_ranges"])
    assert set(out["extra_logs"]) >= {"reward_total", "hub_failed", "group_lost", "context_truncated"}


async def test_a_turn_cut_by_its_token_limit_ends_the_episode_as_truncated(live: LiveHub) -> None:
    """The cut text is no answer: the episode is scored on the calls made so far and marked truncated, in the
    hub's breakdown (and its store) and in the sample's logs."""
    transfer = hermes_call(
        "banking__transfer_funds",
        {"from_account_id": "ACC-0001", "to_account_id": "ACC-0002", "amount": 300.0, "memo": "Rent June"},
    )
    cap = len(TOKENIZER(text=transfer, add_special_tokens=False)["input_ids"]) + 8
    breakdowns: list[dict[str, Any]] = []

    class Recording(HubClient):
        async def finish(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
            breakdowns.append(await super().finish(*args, **kwargs))
            return breakdowns[-1]

    hubs = HubSet([live.url], client_factory=lambda url, token: Recording(url, token))
    executor = AgentExecutor(AgentConfig(group_size=1, max_new_tokens=cap), hubs=hubs)
    engine = ScriptedEngine(TOKENIZER, [transfer, "I moved $300 and the latest transactions are " + "x" * 400])
    [out] = await run_samples(executor, "bank-transfer-002", [engine], TOKENIZER)
    await executor.aclose()
    logs = out["extra_logs"]
    assert len(engine.prompts) == 2 and out["truncated"]  # the second turn was cut
    assert logs["truncated"] == 1.0 and logs["turn_cut"] == 1.0 and logs["context_truncated"] == 0.0
    assert logs["n_calls"] == 1.0 and logs["agent_steps"] == 1.0  # the cut turn never reached the hub
    [breakdown] = breakdowns
    assert breakdown["truncated"] is True and breakdown["components"]["coverage"] == pytest.approx(0.5)
    assert out["reward"] == pytest.approx(breakdown["total"])
    store = live.app.state.hub.store
    await store.flush()
    [row] = await store.query("SELECT reason, calls FROM episodes")
    assert row["reason"] == "truncated" and row["calls"] == 1


async def test_full_hub_is_retried_with_backoff(live: LiveHub) -> None:
    """``capacity`` on open: the group waits and retries instead of failing the rollout."""
    hub = live.app.state.hub
    hub.episodes.max_episodes = 2
    blocker = hub.episodes.open_group("bank-balance-001", 2)
    refused = asyncio.Event()

    class Watching(HubClient):
        async def open(self, *args: Any, **kwargs: Any) -> Any:
            try:
                return await super().open(*args, **kwargs)
            except HubError as exc:
                if exc.code == "capacity":
                    refused.set()
                raise

    hubs = HubSet([live.url], open_retries=8, open_backoff=0.05, client_factory=lambda u, t: Watching(u, t))
    executor = AgentExecutor(AgentConfig(group_size=2), hubs=hubs)
    task = hub.tasks.get("bank-transfer-002")
    run = asyncio.ensure_future(
        run_samples(
            executor, "bank-transfer-002", [ScriptedEngine(TOKENIZER, oracle_script(task)) for _ in range(2)], TOKENIZER
        )
    )
    await asyncio.wait_for(refused.wait(), 30)
    for episode in blocker:  # room again: the next retry gets the group
        hub.episodes.close(episode.id)
    out = await asyncio.wait_for(run, 60)
    await executor.aclose()
    assert [o["reward"] for o in out] == [pytest.approx(1.3)] * 2


async def test_hub_that_stays_full_fails_the_group_as_a_whole(live: LiveHub) -> None:
    hub = live.app.state.hub
    hub.episodes.max_episodes = 1
    hubs = HubSet([live.url], open_retries=2, open_backoff=0.01)
    executor = AgentExecutor(AgentConfig(group_size=3, failed_reward=-0.5), hubs=hubs)
    engines = [ScriptedEngine(TOKENIZER, ["Done."]) for _ in range(3)]
    out = await run_samples(executor, "bank-transfer-002", engines, TOKENIZER)
    await executor.aclose()
    assert [o["reward"] for o in out] == [-0.5] * 3
    # a sample without an episode returns at once: no generation, one EOS after the prompt
    assert [e.prompts for e in engines] == [[], [], []]
    assert all(len(o["action_ranges"]) == 1 and o["action_ranges"][0][1] - o["action_ranges"][0][0] == 1 for o in out)
    assert all(o["extra_logs"]["group_lost"] == 1.0 and o["extra_logs"]["hub_failed"] == 1.0 for o in out)
    assert executor.groups_lost == 1 and executor.groups == 1


async def test_unknown_task_stops_the_rollout_with_a_clear_error(live: LiveHub) -> None:
    executor = executor_for(live, 2)
    with pytest.raises(UnknownTask, match="no-such-task"):
        engines = [ScriptedEngine(TOKENIZER, []) for _ in range(2)]
        await asyncio.wait_for(run_samples(executor, "no-such-task", engines, TOKENIZER), 30)
    await executor.aclose()


async def test_duplicate_prompts_in_one_batch_get_their_own_groups(live: LiveHub) -> None:
    """Two prompts of one task in the same rollout batch: one hub group per prompt, not a mixed one."""
    task = live.app.state.hub.tasks.get("bank-transfer-002")
    executor = executor_for(live, 2)
    outs = await asyncio.gather(
        *[
            run_samples(
                executor,
                "bank-transfer-002",
                [ScriptedEngine(TOKENIZER, oracle_script(task)) for _ in range(2)],
                TOKENIZER,
            )
            for _ in range(2)
        ]
    )
    await executor.aclose()
    assert [o["reward"] for out in outs for o in out] == [pytest.approx(1.3)] * 4
    await live.app.state.hub.store.flush()
    rows = await live.app.state.hub.store.query("SELECT group_id, COUNT(*) AS n FROM episodes GROUP BY group_id")
    assert sorted(r["n"] for r in rows) == [2, 2]


async def test_groups_carry_the_run_and_their_step(live: LiveHub) -> None:
    """Prompt k of the job feeds optimizer step k // batch + 1 (OpenRLHF dispatches a rollout batch only
    after the previous one trained); every group's open names the run and that step."""
    from hub import wire

    seen: list[tuple[Any, Any, Any]] = []

    class Recording(HubClient):
        async def open(self, task: Any, n: int = 1, limits: Any = None, *, run: Any = None, step: Any = None) -> Any:
            seen.append((task, run, step))
            if "run" in wire.Open.model_fields:
                return await super().open(task, n, limits, run=run, step=step)
            return await super().open(task, n, limits)  # the hub's Open does not take them yet

    hubs = HubSet([live.url], client_factory=lambda url, token: Recording(url, token))
    executor = AgentExecutor(AgentConfig(group_size=2, run="run-7", batch_size=3), hubs=hubs)
    for _ in range(2):  # two rollout batches of 3 prompts, one after the other
        await asyncio.gather(
            *[
                run_samples(
                    executor,
                    "bank-abstain-010",
                    [ScriptedEngine(TOKENIZER, ["Sorry, I can't."]) for _ in range(2)],
                    TOKENIZER,
                )
                for _ in range(3)
            ]
        )
    await executor.aclose()
    assert sorted(seen) == [("bank-abstain-010", "run-7", 1)] * 3 + [("bank-abstain-010", "run-7", 2)] * 3


def test_open_sends_run_and_step_only_when_given() -> None:
    from hub import wire
    from trainer_client.hub_client import encode

    plain = encode(wire.Open(type="open", task="bank-transfer-002", n=2))
    assert plain == {"type": "open", "task": "bank-transfer-002", "n": 2}
    if "run" not in wire.Open.model_fields:
        pytest.skip("the hub's Open message does not take run/step yet")
    message = encode(wire.Open(type="open", task="t", n=2, run="run-7", step=3))  # type: ignore[call-arg]
    assert message["run"] == "run-7" and message["step"] == 3


async def test_a_sample_that_raises_fails_its_group_without_stalling_it(live: LiveHub) -> None:
    class Broken(ScriptedEngine):
        async def generate(
            self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None
        ) -> Any:
            raise RuntimeError("the engine died")

    task = live.app.state.hub.tasks.get("bank-transfer-002")
    executor = executor_for(live, 2, failed_reward=-1.0)
    shared = sampling_params()
    outs = await asyncio.wait_for(
        asyncio.gather(
            *[
                executor.execute(
                    prompt="p",
                    label="bank-transfer-002",
                    sampling_params=shared,
                    max_length=32768,
                    hf_tokenizer=TOKENIZER,
                    llm_engine=engine,
                )
                for engine in (ScriptedEngine(TOKENIZER, oracle_script(task)), Broken(TOKENIZER, []))
            ],
            return_exceptions=True,
        ),
        30,
    )
    await executor.aclose()
    assert isinstance(outs[1], RuntimeError)
    assert isinstance(outs[0], dict) and outs[0]["reward"] == -1.0 and outs[0]["extra_logs"]["group_lost"] == 1.0
    assert executor._cohorts == {} and executor.groups_lost == 1
    assert live.app.state.hub.episodes.episodes == {}  # both episodes were closed
