#!/usr/bin/env bash
# A short real OpenRLHF GRPO run (DeepSpeed actor, vLLM rollouts, Ray) against a local PROVE hub, on a GPU.
# Elsewhere it prints 'skipped: no GPU' and exits 0.
#
# Nothing is downloaded at run time: the policy is a small random-weight Qwen2 model with the project's
# byte-level tokenizer, built here (trainer_client/tiny.py), so the run checks the plumbing (agent file,
# hub episodes, rewards, group_norm, weight sync to vLLM, metrics to the hub), not learning.
# Needs openrlhf[vllm]==0.11.2 (vLLM, DeepSpeed, Ray) in the Python it uses: $PYTHON, else .venv/bin/python;
# it tries `pip install "openrlhf[vllm]==0.11.2"` when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 0
fi
PY="${PYTHON:-.venv/bin/python}"
GPUS="${GPUS:-1}"
PORT="${PORT:-18765}"
WORK="$(mktemp -d /tmp/prove-gpu-smoke.XXXXXX)"
echo "gpu_smoke: $(nvidia-smi -L | head -n "$GPUS" | tr '\n' ' ')"
echo "gpu_smoke: work dir $WORK"

have_stack() { "$PY" -c "import openrlhf, vllm, ray, deepspeed; import openrlhf.utils.agent" >/dev/null 2>&1; }
if ! have_stack; then
  echo "gpu_smoke: installing openrlhf[vllm]==0.11.2 (vLLM, DeepSpeed, Ray) ..."
  "$PY" -m pip install -q "openrlhf[vllm]==0.11.2" || { echo "gpu_smoke: FAILED: cannot install the GPU stack" >&2; exit 1; }
  have_stack || { echo "gpu_smoke: FAILED: openrlhf/vllm/ray/deepspeed do not import" >&2; exit 1; }
fi

# 1. a tiny random-weight Qwen2 (head_dim 64, which every vLLM attention backend supports) + tokenizer
"$PY" - "$WORK/model" <<'PYEOF'
import sys
from trainer_client.tiny import byte_tokenizer, tiny_qwen2
tok = byte_tokenizer()
model = tiny_qwen2(len(tok), hidden_size=256, layers=2)
model.config.eos_token_id = tok.eos_token_id
model.config.pad_token_id = tok.pad_token_id
model.generation_config.eos_token_id = tok.eos_token_id
model.save_pretrained(sys.argv[1])
tok.save_pretrained(sys.argv[1])
print("gpu_smoke: model", sys.argv[1], sum(p.numel() for p in model.parameters()), "parameters")
PYEOF

# 2. a hub on loopback
"$PY" -m hub.cli serve --port "$PORT" --store "$WORK/hub.db" >"$WORK/hub.log" 2>&1 &
HUB_PID=$!
trap 'kill "$HUB_PID" 2>/dev/null || true; wait "$HUB_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  if "$PY" -c "import httpx,sys; sys.exit(httpx.get('http://127.0.0.1:$PORT/healthz').status_code != 200)" 2>/dev/null; then
    break
  fi
  kill -0 "$HUB_PID" 2>/dev/null || { echo "gpu_smoke: FAILED: the hub exited" >&2; cat "$WORK/hub.log" >&2; exit 1; }
  sleep 0.5
done

# 3. two GRPO steps: 2 prompts x 4 samples, short generations, rollouts capped at 4 model messages
timeout "${SMOKE_TIMEOUT:-480}" "$PY" -m trainer_client.launcher \
  --hub "http://127.0.0.1:$PORT" --model "$WORK/model" --lr 1e-5 --gpus "$GPUS" --tp 1 \
  --group-size 4 --batch-size 2 --steps 2 --max-steps 4 --max-len 8192 --max-new-tokens 64 \
  --zero-stage 2 --save-steps -1 --vllm-memory 0.3 --split all --poll 2 \
  --output "$WORK/run" --name gpu-smoke -- \
  --ds.attn_implementation sdpa --vllm.enforce_eager --train.micro_batch_size 2 --rollout.micro_batch_size 2 \
  2>&1 | tee "$WORK/train.log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "gpu_smoke: FAILED: training exited $rc (log: $WORK/train.log)" >&2; exit 1; }

# 4. the hub saw the rollouts, scored them, and got the run's metrics
"$PY" - "$WORK/hub.db" <<'PYEOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
eps = db.execute("SELECT COUNT(*), COUNT(reward), AVG(reward) FROM episodes").fetchone()
runs = db.execute("SELECT status FROM training_runs WHERE name = 'gpu-smoke'").fetchall()
metrics = db.execute("SELECT COUNT(*) FROM run_metrics").fetchone()[0]
print(f"gpu_smoke: {eps[0]} episodes, {eps[1]} scored (mean reward {eps[2]}), run {runs}, {metrics} metric points")
assert eps[1] >= 8, "expected at least one step of 2 prompts x 4 samples to be scored"
assert runs and runs[0][0] == "finished", runs
PYEOF
echo "gpu_smoke: ok"
