"""Real GRPO steps on the CPU: a tiny random-weight Qwen2 model, rollouts through the OpenRLHF agent file
from a live hub, group-normalised advantages, the clipped policy loss, an AdamW step; metrics to the hub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hub.tasks import BUILTIN_TASKS, hermes_call, oracle_script
from hub.testing import serve
from tests.trainer_support import ScriptedEngine, make_app, need_openrlhf, run_samples

need_openrlhf()

import torch  # noqa: E402

from trainer_client.grpo import (  # noqa: E402
    GRPOConfig,
    GRPOTrainer,
    TorchEngine,
    batch_tensors,
    group_advantages,
    kl_k3,
    masked_mean,
    policy_loss,
    token_logprobs,
)
from trainer_client.hub_client import HubClient  # noqa: E402
from trainer_client.openrlhf_agent import AgentConfig, AgentExecutor  # noqa: E402
from trainer_client.tiny import byte_tokenizer, tiny_qwen2  # noqa: E402


def test_group_norm_matches_openrlhf() -> None:
    r = torch.tensor([1.3, 0.5, 0.5, 1.3, 0.0, 0.0, 0.0, 0.0])
    adv = group_advantages(r, 4)
    g = r[:4]
    assert torch.allclose(adv[:4], (g - g.mean()) / (g.std() + 1e-9))
    assert torch.all(adv[4:] == 0)  # a group with one reward (e.g. all lost with a dead hub) teaches nothing
    with pytest.raises(ValueError):
        group_advantages(r, 3)


def test_clipped_loss_and_kl() -> None:
    logp = torch.log(torch.tensor([[0.5, 0.9]]))
    old = torch.log(torch.tensor([[0.25, 0.9]]))  # ratio 2 on the first token: clipped at 1.2 for A > 0
    loss, clipped = policy_loss(logp, old, torch.ones(1, 2), torch.ones(1, 2), 0.2, 0.2)
    assert loss.item() == pytest.approx(-(1.2 + 1.0) / 2) and clipped.item() == pytest.approx(0.5)
    assert kl_k3(logp, logp).abs().max().item() == 0.0 and kl_k3(logp, old)[0, 0].item() > 0


def short_tasks(tmp_path: Path) -> Path:
    """A built-in task with only its ground-truth tools and a one-line system prompt, so that the CPU
    model sees ~1.5k tokens rather than ~6k (attention is quadratic in that)."""
    task = json.loads(next(line for line in BUILTIN_TASKS.read_text().splitlines() if "bank-unfreeze-005" in line))
    task["tools"] = ["banking__freeze_account", "banking__deposit_funds"]
    task["system"] = 'Call tools as <tool_call>{"name": ..., "arguments": {...}}</tool_call>.'
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(task) + "\n")
    return path


async def test_grpo_step_on_hub_rollouts(tmp_path: Path) -> None:
    torch.manual_seed(0)
    tokenizer = byte_tokenizer()
    model = tiny_qwen2(len(tokenizer), hidden_size=64, layers=2)
    n = 4
    async with serve(make_app(tmp_path, tasks_path=str(short_tasks(tmp_path)))) as live:
        task = live.app.state.hub.tasks.get("bank-unfreeze-005")
        good = oracle_script(task)
        bad = [hermes_call("banking__deposit_funds", {"account_id": "ACC-0007", "amount": 25.0}), "Done."]
        executor = AgentExecutor(AgentConfig(hub_urls=[live.url], group_size=n, max_steps=3))
        engines = [
            ScriptedEngine(tokenizer, good),
            ScriptedEngine(tokenizer, bad),
            TorchEngine(model, tokenizer, max_new_tokens=6, seed=1),
            ScriptedEngine(tokenizer, good),
        ]
        samples = await run_samples(executor, "bank-unfreeze-005", engines, tokenizer)
        await executor.aclose()
        rewards = [s["reward"] for s in samples]
        assert rewards[0] == pytest.approx(1.3) and rewards[1] < rewards[0] and rewards[2] < rewards[0]

        trainer = GRPOTrainer(model, GRPOConfig(group_size=n, lr=1e-3, kl_coef=0.01, pad_id=tokenizer.pad_token_id))
        seqs, attn, mask = batch_tensors(samples, tokenizer.pad_token_id)
        assert int(mask[0].sum()) == sum(e - s for s, e in samples[0]["action_ranges"])
        before = {k: v.detach().clone() for k, v in model.named_parameters()}
        with torch.no_grad():
            logp0 = token_logprobs(model, seqs, attn)
        good_before = float((logp0[0] * mask[0]).sum() / mask[0].sum())

        metrics = trainer.step(samples)
        changed = [k for k, v in model.named_parameters() if not torch.equal(v, before[k])]
        assert len(changed) == len(before)  # every weight moved
        assert all(torch.isfinite(torch.tensor(v)) for v in metrics.values())
        assert metrics["advantage_abs_mean"] > 0 and metrics["kl"] == pytest.approx(0.0, abs=1e-6)
        with torch.no_grad():
            logp1 = token_logprobs(model, seqs, attn)
        assert float((logp1[0] * mask[0]).sum() / mask[0].sum()) > good_before  # the best sample got likelier
        with torch.no_grad():
            assert float(masked_mean(kl_k3(logp1, token_logprobs(trainer.ref, seqs, attn)), mask.float())) > 0

        async with HubClient(live.ws_url) as hub:
            run = await hub.run_start("cpu-grpo-test", {"group_size": n, "lr": 1e-3})
            await hub.run_metrics(run, 1, metrics)
            await hub.run_metrics(run, 2, {"reward_mean": 0.5})
            await hub.run_end(run)
            await hub.flush()
        store = live.app.state.hub.store
        rows = await store.query(
            "SELECT step, value FROM run_metrics WHERE run_id = ? AND name = 'reward_mean' ORDER BY step", (run,)
        )
        assert [r["step"] for r in rows] == [1, 2] and rows[0]["value"] == pytest.approx(sum(rewards) / n)
        status = await store.query("SELECT status FROM training_runs WHERE id = ?", (run,))
        assert status == [{"status": "finished"}]


async def test_the_device_smoke_trains_two_steps_on_the_cpu(tmp_path: Path) -> None:
    """scripts/gpu_smoke.sh's GRPO (trainer_client.smoke: a plain-PyTorch policy, rollouts through the hub client,
    trainer_client.grpo), here on the CPU: both steps raise the best sample's log-probability."""
    import argparse

    from trainer_client import smoke

    async with serve(make_app(tmp_path, tasks_path=str(short_tasks(tmp_path)))) as live:
        args = argparse.Namespace(
            hub=live.url, token=None, task="bank-unfreeze-005", device="cpu", group=4, lr=1e-3, max_new=8
        )
        ok, notes = await smoke.run(args)
        store = live.app.state.hub.store
        await store.flush()
        [run] = await store.query("SELECT id, status FROM training_runs WHERE name = 'gpu-smoke'")
        steps = await store.query("SELECT DISTINCT step FROM run_metrics WHERE run_id = ? ORDER BY step", (run["id"],))
    assert ok and run["status"] == "finished" and [s["step"] for s in steps] == [1, 2], notes
    assert "step 2: rewards [1.30 " in notes
