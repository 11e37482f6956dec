"""GRPO on the CPU, the way OpenRLHF 0.11 computes it, for small models and tests.

OpenRLHF does this at scale (DeepSpeed actor, vLLM rollouts, Ray); this module runs the same
algorithm in one process on the outputs of the same agent file, so the rollout -> reward ->
advantage -> loss path can be checked without a GPU:

- samples: ``AgentExecutor.execute`` results (``observation_tokens``, ``action_ranges``, ``reward``);
  consecutive ``n`` samples are one prompt's group;
- advantages: ``group_norm`` -- (r - mean) / (std + 1e-9) within each group (unbiased std), given to
  every action token (gamma = 1), as ``experience_maker`` does;
- policy loss: PPO clip on the token ratio, token-mean over action tokens (``PolicyLoss``);
- KL: the k3 estimator against a frozen reference model, as a loss term with ``kl_coef``
  (``--algo.kl.use_loss --algo.kl.estimator k3``);
- one AdamW step, gradient clipped at ``max_norm``.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import torch
import torch.nn.functional as F


@dataclass
class GRPOConfig:
    group_size: int = 16
    lr: float = 1e-6
    kl_coef: float = 0.01
    eps_clip_low: float = 0.2
    eps_clip_high: float = 0.2
    max_norm: float = 1.0
    pad_id: int = 0


def group_advantages(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    """OpenRLHF's ``group_norm``: normalise each group of ``group_size`` consecutive rewards."""
    if rewards.numel() % group_size:
        raise ValueError(f"{rewards.numel()} rewards do not split into groups of {group_size}")
    r = rewards.float().reshape(-1, group_size)
    return ((r - r.mean(-1, keepdim=True)) / (r.std(-1, keepdim=True) + 1e-9)).reshape(-1)


def batch_tensors(samples: Sequence[dict[str, Any]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Right-padded (sequences, attention_mask, action_mask); the action mask is aligned with the
    next-token log-probs (position t scores token t+1), as in ``_process_response_into_experience``."""
    width = max(len(s["observation_tokens"]) for s in samples)
    seqs = torch.full((len(samples), width), pad_id, dtype=torch.long)
    attn = torch.zeros((len(samples), width), dtype=torch.long)
    act = torch.zeros((len(samples), width), dtype=torch.long)
    for i, s in enumerate(samples):
        toks = s["observation_tokens"]
        seqs[i, : len(toks)] = torch.tensor(toks, dtype=torch.long)
        attn[i, : len(toks)] = 1
        for start, end in s["action_ranges"]:
            act[i, start:end] = 1
    return seqs, attn, act[:, 1:]


def token_logprobs(model: Any, sequences: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
    """log p(token t+1 | tokens <= t) for every position: shape (batch, length - 1)."""
    logits = model(input_ids=sequences, attention_mask=attention_mask).logits[:, :-1].float()
    return torch.gather(F.log_softmax(logits, dim=-1), 2, sequences[:, 1:].unsqueeze(-1)).squeeze(-1)


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask).sum() / mask.sum().clamp(min=1)


def policy_loss(
    logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
) -> tuple[torch.Tensor, torch.Tensor]:
    """PPO-clip, token-mean; also the share of tokens whose ratio was clipped."""
    ratio = (logp - old_logp).clamp(-20.0, 20.0).exp()
    surr1 = ratio * advantages
    surr2 = ratio.clamp(1 - eps_low, 1 + eps_high) * advantages
    loss = masked_mean(-torch.min(surr1, surr2), mask)
    clipped = masked_mean((surr2 < surr1).float(), mask)
    return loss, clipped


def kl_k3(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """The k3 estimator of KL(pi || ref): exp(ref - logp) - (ref - logp) - 1, per token."""
    log_ratio = (ref_logp - logp).clamp(-10.0, 10.0)
    return log_ratio.exp() - log_ratio - 1


class GRPOTrainer:
    """A policy, its frozen reference, an AdamW optimiser: ``step(samples)`` is one GRPO update."""

    def __init__(self, model: Any, config: GRPOConfig) -> None:
        self.model = model
        self.config = config
        self.ref = copy.deepcopy(model).eval()
        for p in self.ref.parameters():
            p.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, betas=(0.9, 0.95), weight_decay=0.0)
        self.steps = 0

    def step(self, samples: Sequence[dict[str, Any]]) -> dict[str, float]:
        cfg = self.config
        device = next(self.model.parameters()).device  # the model's device (a GPU, or the CPU)
        rewards = torch.tensor([float(s["reward"]) for s in samples])
        adv = group_advantages(rewards, cfg.group_size).to(device)
        seqs, attn, mask = (t.to(device) for t in batch_tensors(samples, cfg.pad_id))
        mask = mask.float() * attn[:, 1:].float()
        with torch.no_grad():
            ref_logp = token_logprobs(self.ref, seqs, attn)
        self.model.train()
        logp = token_logprobs(self.model, seqs, attn)
        # One update per batch (OpenRLHF's default max_epochs=1): the old policy is the current one, so
        # the ratio starts at 1 and the clip only acts on later epochs over the same batch.
        old_logp = logp.detach()
        pg_loss, clipped = policy_loss(
            logp, old_logp, adv.unsqueeze(-1).expand_as(logp), mask, cfg.eps_clip_low, cfg.eps_clip_high
        )
        kl = masked_mean(kl_k3(logp, ref_logp), mask)
        loss = pg_loss + cfg.kl_coef * kl
        self.optimizer.zero_grad()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), cfg.max_norm)
        self.optimizer.step()
        self.steps += 1
        loss, pg_loss, kl = loss.detach(), pg_loss.detach(), kl.detach()
        return {
            "loss": float(loss),
            "policy_loss": float(pg_loss),
            "kl": float(kl),
            "clip_ratio": float(clipped),
            "grad_norm": float(grad_norm),
            "reward_mean": float(rewards.mean()),
            "reward_std": float(rewards.std()) if len(rewards) > 1 else 0.0,
            "advantage_abs_mean": float(adv.abs().mean()),
            "action_tokens": float(mask.sum()),
        }


class TorchEngine:
    """A vLLM-like engine over a local Hugging Face model: ``generate`` samples up to ``max_new_tokens``
    (token ids end with the EOS when the model stops, text without it, as vLLM returns them)."""

    def __init__(
        self, model: Any, tokenizer: Any, max_new_tokens: int = 16, seed: int = 0, temperature: float = 1.0
    ) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.rng = torch.Generator().manual_seed(seed)

    @torch.no_grad()
    def sample(self, prompt_ids: Sequence[int], budget: int) -> list[int]:
        self.model.eval()
        ids = torch.tensor([list(prompt_ids)], dtype=torch.long)
        out: list[int] = []
        past = None
        step_input = ids
        for _ in range(max(1, min(self.max_new_tokens, budget))):
            res = self.model(input_ids=step_input, past_key_values=past, use_cache=True)
            past = res.past_key_values
            probs = torch.softmax(res.logits[0, -1].float() / self.temperature, dim=-1)
            token = int(torch.multinomial(probs, 1, generator=self.rng))
            out.append(token)
            if token == self.tokenizer.eos_token_id:
                break
            step_input = torch.tensor([[token]], dtype=torch.long)
        return out

    async def generate(self, prompt_token_ids: list[int], sampling_params: Any, multi_modal_data: Any = None) -> Any:
        budget = int(getattr(sampling_params, "max_tokens", None) or self.max_new_tokens)
        ids = self.sample(prompt_token_ids, budget)
        stopped = ids[-1] == self.tokenizer.eos_token_id
        text = self.tokenizer.decode(ids[:-1] if stopped else ids, skip_special_tokens=False)
        output = SimpleNamespace(
            token_ids=ids, text=text, finish_reason="stop" if stopped else "length", stop_reason=None, logprobs=None
        )
        return SimpleNamespace(outputs=[output])


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
