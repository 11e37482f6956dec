"""``python -m trainer_client.smoke``: two GRPO steps of the project's own trainer (``trainer_client.grpo``) on a
live hub, on a GPU (or ``--device cpu``), with nothing but torch and the hub's own requirements.

The device check of ``scripts/gpu_smoke.sh``: a machine lent with a GPU and torch but no vLLM, Ray, DeepSpeed,
OpenRLHF or transformers, and no package registry. So the policy is a small random-weight causal transformer
written in plain PyTorch over bytes (``TinyLM``), and rollouts go straight through the hub client: each step
opens one hub group of ``--group`` episodes of a task, two samples replay the hub's oracle script, one a wrong
call and the rest are sampled from the model on the device, each episode is finished and scored by the hub,
and one GRPO update (group-normalised advantages, PPO-clip token-mean loss, k3 KL to a frozen reference,
AdamW) runs on the device. The check: the update is finite and moves the log-probability of the best
sample's tokens up, on both steps. The last line printed is the verdict: ``gpu_smoke: PASS ...`` or
``gpu_smoke: FAIL ...``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn

from trainer_client.chat import feedback_text, render
from trainer_client.grpo import GRPOConfig, GRPOTrainer, batch_tensors, token_logprobs
from trainer_client.hub_client import HubClient
from trainer_client.hubs import ws_url

EOS, PAD, VOCAB = 256, 257, 258  # bytes, then the end of a turn (it stands for <|im_end|>) and padding


def encode(text: str) -> list[int]:
    return list(text.encode("utf-8"))


def decode(ids: Sequence[int]) -> str:
    return bytes(i for i in ids if i < 256).decode("utf-8", errors="replace")


class TinyLM(nn.Module):
    """A causal transformer over bytes in plain PyTorch, answering ``model(input_ids=, attention_mask=).logits``
    as the Hugging Face models ``trainer_client.grpo`` trains do."""

    def __init__(self, dim: int = 128, layers: int = 2, heads: int = 4, max_len: int = 8192) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(dim, VOCAB)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> Any:
        n = input_ids.shape[1]
        h = self.embed(input_ids) + self.pos(torch.arange(n, device=input_ids.device))
        causal = nn.Transformer.generate_square_subsequent_mask(n, device=input_ids.device)
        pad = None  # float like the causal mask (torch warns on mixed mask types)
        if attention_mask is not None:
            pad = torch.zeros(attention_mask.shape, device=h.device).masked_fill(attention_mask == 0, float("-inf"))
        return SimpleNamespace(logits=self.head(self.body(h, mask=causal, src_key_padding_mask=pad, is_causal=True)))


@torch.no_grad()
def sample(model: TinyLM, prompt: Sequence[int], max_new: int, generator: torch.Generator) -> list[int]:
    """Up to ``max_new`` tokens after ``prompt`` (ending with EOS when the model stops)."""
    device = next(model.parameters()).device
    ids = torch.tensor([list(prompt)], device=device)
    out: list[int] = []
    for _ in range(max_new):
        probs = torch.softmax(model(input_ids=ids).logits[0, -1].float(), dim=-1).cpu()
        token = int(torch.multinomial(probs, 1, generator=generator))
        out.append(token)
        if token == EOS:
            break
        ids = torch.cat([ids, torch.tensor([[token]], device=device)], dim=1)
    return out


async def episode(
    hub: HubClient, ep: str, group: Any, actions: list[str] | None, model: TinyLM, gen: torch.Generator, max_new: int
) -> dict[str, Any]:
    """One episode in the token-in/token-out form ``trainer_client.grpo`` trains on: scripted ``actions``, or
    generations of ``model`` (at most three turns)."""
    messages, tools = [dict(m) for m in group.messages], list(group.tools)
    tokens = encode(render(None, messages, tools, add_generation_prompt=True))
    ranges: list[tuple[int, int]] = []
    for turn in range(3):
        if actions is not None:
            action = [*encode(actions[turn] if turn < len(actions) else "Done."), EOS]
        else:
            action = await asyncio.to_thread(sample, model, tokens, max_new, gen)  # the hub's pings go on
        ranges.append((len(tokens), len(tokens) + len(action)))
        tokens += action
        text = decode(action)
        obs = await hub.step(ep, text)
        history = list(messages)
        messages += [{"role": "assistant", "content": text}, *obs["messages"]]
        if obs["done"]:
            break
        tokens += encode(feedback_text(None, history, obs["messages"], tools, model_closed_turn=action[-1] == EOS))
    reward = await hub.finish(ep)
    return {"observation_tokens": tokens, "action_ranges": ranges, "reward": float(reward["total"])}


def hermes(name: str, arguments: dict[str, Any]) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def best_logp(model: TinyLM, samples: list[dict[str, Any]], index: int) -> float:
    seqs, attn, mask = batch_tensors([samples[index]], PAD)
    device = next(model.parameters()).device
    with torch.no_grad():
        logp = token_logprobs(model, seqs.to(device), attn.to(device))
    m = mask.to(device).float()
    return float((logp * m).sum() / m.sum())


async def run(args: argparse.Namespace) -> tuple[bool, str]:
    device = torch.device(args.device)
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = TinyLM().to(device)
    trainer = GRPOTrainer(model, GRPOConfig(group_size=args.group, lr=args.lr, kl_coef=0.01, pad_id=PAD))
    notes: list[str] = []
    async with HubClient(ws_url(args.hub), args.token, client="gpu-smoke") as hub:
        [task] = [t for t in await hub.tasks(oracle=True) if t["id"] == args.task]
        run_id = await hub.run_start("gpu-smoke", {"device": str(device), "group": args.group, "lr": args.lr})
        ok = True
        for step in (1, 2):
            group = await hub.open(args.task, n=args.group, run=run_id, step=step)
            wrong = [
                '<tool_call>{"name": "banking__deposit_funds", "arguments": {"account_id": "ACC-0007"}}</tool_call>'
            ]
            scripts: list[list[str] | None] = [task["oracle"], wrong, task["oracle"]]
            scripts += [None] * (args.group - len(scripts))
            samples = [
                await episode(hub, ep, group, scripts[i], model, gen, args.max_new)
                for i, ep in enumerate(group.episodes)
            ]
            await hub.close_episodes(group.episodes)
            best = max(range(len(samples)), key=lambda i: samples[i]["reward"])
            before = await asyncio.to_thread(best_logp, model, samples, best)
            metrics = await asyncio.to_thread(trainer.step, samples)  # off the loop: the connection stays alive
            after = await asyncio.to_thread(best_logp, model, samples, best)
            await hub.run_metrics(run_id, step, {k: v for k, v in metrics.items() if math.isfinite(v)})
            finite = all(math.isfinite(v) for v in metrics.values())
            moved = after > before
            ok = ok and finite and moved
            rewards = " ".join(f"{s['reward']:.2f}" for s in samples)
            notes.append(f"step {step}: rewards [{rewards}], best sample's log-prob {before:.4f} -> {after:.4f}")
            print(f"gpu_smoke: {notes[-1]}; loss {metrics['loss']:.4f}, kl {metrics['kl']:.2e}", flush=True)
        await hub.run_end(run_id, "finished" if ok else "failed")
    return ok, "; ".join(notes)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trainer_client.smoke", description=__doc__.split("\n\n")[0])
    p.add_argument("--hub", required=True)
    p.add_argument("--token", default=None)
    p.add_argument("--task", default="bank-unfreeze-005")
    p.add_argument("--device", default="cuda")
    p.add_argument("--group", type=int, default=4)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--max-new", type=int, default=24, help="tokens per sampled turn")
    args = p.parse_args(argv)
    start = time.monotonic()
    where = torch.cuda.get_device_name(0) if args.device.startswith("cuda") else "cpu"
    try:
        ok, notes = asyncio.run(run(args))
    except Exception as exc:  # noqa: BLE001 - the smoke's one boundary: any failure is the verdict
        print(f"gpu_smoke: FAIL on {where}: {type(exc).__name__}: {exc} ({time.monotonic() - start:.0f} s)")
        return 1
    verdict = "PASS" if ok else "FAIL"
    print(
        f"gpu_smoke: {verdict} 2 GRPO steps on {where} (torch {torch.__version__}): {notes} "
        f"({time.monotonic() - start:.0f} s)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
