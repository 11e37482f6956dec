#!/usr/bin/env bash
# The full loop, for a GPU machine with registry access (run it yourself after scripts/install-train): a short real
# OpenRLHF 0.11.2 GRPO run (DeepSpeed actor, vLLM rollouts, Ray) through prove-train against a local PROVE hub, on
# one GPU. Its last line is the verdict: 'gpu_smoke: PASS ...' or 'gpu_smoke: FAIL ...' (exit 1); everything else
# goes to the log files it names. Without a GPU it prints 'skipped: no GPU' and exits 0; DRY=1 rehearses it
# anywhere: the hub, the tiny model and prove-train --dry-run with the run's exact flags, no training.
#
# Offline once installed: the policy is a small random-weight Qwen2 with the project's byte-level tokenizer, built
# here (trainer_client/tiny.py), so the run checks the plumbing (agent file and run config, hub groups, rewards,
# group_norm, weight sync to vLLM, metrics to the hub from inside the job), not learning. No flash-attn and no nvcc
# needed (trainer_client/openrlhf_run.py). Budget: 8 minutes on one H200. The device check that fits a lent
# machine without vLLM or a registry is scripts/gpu_smoke.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
DRY="${DRY:-0}"
if [ "$DRY" != 1 ] && { ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; }; then
  echo "skipped: no GPU"
  exit 0
fi
START=$(date +%s)
PY="${PYTHON:-.venv/bin/python}"
PORT="${PORT:-18765}"
WORK="$(mktemp -d /tmp/prove-gpu-smoke.XXXXXX)"
verdict() { echo "gpu_smoke: $* ($(( $(date +%s) - START )) s; logs in $WORK)"; }
fail() { verdict "FAIL $*"; exit 1; }
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_DATASETS_OFFLINE=1 WANDB_MODE=disabled VLLM_NO_USAGE_STATS=1 \
  DO_NOT_TRACK=1 RAY_USAGE_STATS_ENABLED=0 TOKENIZERS_PARALLELISM=false
unset RAY_ADDRESS  # a local Ray for this run, never someone's cluster

# 0. the whole stack imports (openrlhf.models through the flash-attn stand-in when flash-attn is absent)
if [ "$DRY" != 1 ]; then
"$PY" - >"$WORK/stack.log" 2>&1 <<'PYEOF' || fail "the GPU stack does not import: $(tail -n 1 "$WORK/stack.log") (scripts/install-train)"
import importlib.metadata as m
import deepspeed, ray, torch, vllm  # noqa: F401
from trainer_client.openrlhf_run import flash_attn_stand_in, fused_adam_buildable
stand_in = flash_attn_stand_in()
import openrlhf.models, openrlhf.trainer.ray, openrlhf.utils.agent  # noqa: F401
assert m.version("openrlhf") == "0.11.2", m.version("openrlhf")
assert torch.cuda.is_available(), "torch sees no CUDA device"
print("stack:", "openrlhf", m.version("openrlhf"), "vllm", vllm.__version__, "torch", torch.__version__,
      "deepspeed", deepspeed.__version__, "ray", ray.__version__, "flash-attn:", "stand-in" if stand_in else "real",
      "DeepSpeed Adam:", "fused" if fused_adam_buildable() else "torch")
PYEOF
fi

# 1. a tiny random-weight Qwen2 (head_dim 64, which every vLLM attention backend supports) and its tokenizer
"$PY" - "$WORK/model" >"$WORK/model.log" 2>&1 <<'PYEOF' || fail "building the tiny model: $(tail -n 1 "$WORK/model.log")"
import sys
from trainer_client.tiny import byte_tokenizer, tiny_qwen2
tok = byte_tokenizer()
model = tiny_qwen2(len(tok), hidden_size=256, layers=2)
model.config.eos_token_id = tok.eos_token_id
model.config.pad_token_id = tok.pad_token_id
model.generation_config.eos_token_id = tok.eos_token_id
model.save_pretrained(sys.argv[1])
tok.save_pretrained(sys.argv[1])
print("model", sys.argv[1], sum(p.numel() for p in model.parameters()), "parameters")
PYEOF

# 2. a hub on loopback
"$PY" -m hub.cli serve --port "$PORT" --store "$WORK/hub.db" >"$WORK/hub.log" 2>&1 &
HUB_PID=$!
trap 'kill "$HUB_PID" 2>/dev/null; wait "$HUB_PID" 2>/dev/null' EXIT
"$PY" scripts/wait_for_hub.py "$PORT" "$HUB_PID" 60 >>"$WORK/hub.log" 2>&1 \
  || fail "the hub did not start: $(tail -n 1 "$WORK/hub.log")"

# 3. two GRPO steps: 2 prompts x 4 samples each, turns capped at 64 tokens, rollouts at 4 model messages
[ "$DRY" = 1 ] && DRY_RUN=--dry-run || DRY_RUN=
timeout --kill-after=30 "${SMOKE_TIMEOUT:-400}" "$PY" -m trainer_client.launcher $DRY_RUN \
  --hub "http://127.0.0.1:$PORT" --model "$WORK/model" --lr 1e-5 --gpus 1 --tp 1 \
  --group-size 4 --batch-size 2 --steps 2 --max-steps 4 --max-len 8192 --max-new-tokens 64 \
  --zero-stage 2 --save-steps -1 --vllm-memory 0.3 --split all --poll 2 \
  --output "$WORK/run" --name gpu-smoke -- \
  --ds.attn_implementation sdpa --vllm.enforce_eager --train.micro_batch_size 2 --rollout.micro_batch_size 2 \
  >"$WORK/train.log" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "training exited $rc: $(grep -E 'Error|error:|Traceback' "$WORK/train.log" | tail -n 1)"
if [ "$DRY" = 1 ]; then
  echo "gpu_smoke: DRY rehearsal: hub, tiny model and prove-train --dry-run ok; the command: $(tail -n 1 "$WORK/train.log" | cut -c1-200)..."
  exit 0
fi

# 4. the hub saw the rollouts as one group per prompt, scored them, and got the run's metrics
"$PY" - "$WORK/hub.db" >"$WORK/check.log" 2>&1 <<'PYEOF' || fail "$(tail -n 1 "$WORK/check.log")"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n, scored, mean = db.execute("SELECT COUNT(*), COUNT(reward), AVG(reward) FROM episodes").fetchone()
groups = [r[0] for r in db.execute("SELECT COUNT(*) FROM episodes GROUP BY group_id")]
runs = [r[0] for r in db.execute("SELECT status FROM training_runs WHERE name = 'gpu-smoke'")]
points = db.execute("SELECT COUNT(*) FROM run_metrics").fetchone()[0]
assert scored >= 16, f"expected 2 steps x 2 prompts x 4 samples scored, got {scored} of {n}"
assert groups and set(groups) == {4}, f"expected hub groups of 4 (one per prompt), got sizes {groups}"
assert runs == ["finished"], f"training run status on the hub: {runs}"
assert points > 0, "no training metric reached the hub"
print(f"{scored} episodes scored in {len(groups)} groups (mean reward {mean:.3f}), {points} metric points")
PYEOF
verdict "PASS 2 GRPO steps: $(tail -n 1 "$WORK/check.log")"
