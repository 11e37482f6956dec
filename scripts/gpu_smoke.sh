#!/usr/bin/env bash
# The device smoke: two GRPO steps of the project's own trainer (trainer_client/grpo.py, via
# trainer_client/smoke.py) on a GPU against a live hub, checking that the update moves the best sample's
# log-probability; its last line is the verdict ('gpu_smoke: PASS ...' / 'gpu_smoke: FAIL ...'), within 5 minutes.
#
# It fits the machine a task is lent: one GPU, a Python with torch (CUDA) and nothing of vLLM, Ray, DeepSpeed,
# OpenRLHF or transformers, no package registry. Besides torch it needs only this checkout's pure-Python code
# and the hub's own requirements: where they are not importable, it installs them offline into a venv layered
# a directory on that Python's path (after its own packages, so the image's torch is used) from a wheelhouse:
#   scripts/gpu_smoke.sh --wheels       # here, with the registry: fetch them into build/smoke-wheels (~11 MB)
# (carry build/smoke-wheels with the checkout). Without a GPU it prints 'skipped: no GPU' and exits 0.
# DRY=1 rehearses it on the CPU (same code, --device cpu). The full OpenRLHF loop (vLLM, DeepSpeed, Ray) on a GPU
# machine with registry access is scripts/gpu_train_smoke.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python3 )}"
WHEELS="${WHEELS:-build/smoke-wheels}"
HUB_REQS=("mcp>=2.3,<3" "starlette>=1.0,<2" "uvicorn>=0.30,<1" "aiosqlite>=0.20,<1" "sse-starlette>=3.0,<4" \
  "jinja2>=3.1,<4" "websockets>=14,<18" "pydantic>=2.10,<3" "httpx>=0.28,<1" "prometheus-client>=0.21,<1" \
  "jsonschema>=4.20,<5" "regex>=2024.4")
if [ "${1:-}" = "--wheels" ]; then  # for the lent machine's Python (3.12, x86_64 Linux); WHEEL_PY=3.11 for another
  exec "$PY" -m pip download -q --only-binary=:all: --implementation cp --python-version "${WHEEL_PY:-3.12}" \
    --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -d "$WHEELS" "${HUB_REQS[@]}"
fi
DEVICE=cuda
if [ "${DRY:-0}" = 1 ]; then
  DEVICE=cpu
elif ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: no GPU"
  exit 0
fi
START=$(date +%s)
WORK="$(mktemp -d /tmp/prove-gpu-smoke.XXXXXX)"
PORT="${PORT:-18765}"
fail() { echo "gpu_smoke: FAIL $* ($(( $(date +%s) - START )) s; logs in $WORK)"; exit 1; }
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1

# 1. torch (the machine's) and the hub's requirements (offline, from the wheelhouse, when missing)
"$PY" -c "import torch, sys; sys.exit(0 if '$DEVICE' == 'cpu' or torch.cuda.is_available() else 1)" \
  >"$WORK/setup.log" 2>&1 || fail "torch is missing or sees no CUDA device: $(tail -n 1 "$WORK/setup.log")"
if ! "$PY" -c "import mcp, starlette, uvicorn, aiosqlite, sse_starlette, jinja2, websockets, pydantic, httpx, prometheus_client, jsonschema, regex" 2>/dev/null; then
  [ -d "$WHEELS" ] || fail "the hub's requirements are not installed and there is no wheelhouse at $WHEELS (scripts/gpu_smoke.sh --wheels)"
  "$PY" -m pip install -q --no-index --find-links "$WHEELS" --target "$WORK/site" "${HUB_REQS[@]}" >>"$WORK/setup.log" 2>&1 \
    || fail "installing the hub's requirements from $WHEELS: $(tail -n 1 "$WORK/setup.log")"
  export PYTHONPATH="$PYTHONPATH:$WORK/site"  # after the checkout; the machine's own packages (torch) stay first
fi

# 2. a hub on loopback serving one short task (two offered tools, a one-line system prompt: short sequences)
"$PY" - "$WORK/tasks.jsonl" <<'PYEOF' || fail "writing the task"
import json, sys
line = next(x for x in open("hub/data/tasks.jsonl") if '"bank-unfreeze-005"' in x)
task = json.loads(line)
task["tools"] = ["banking__freeze_account", "banking__deposit_funds"]
task["system"] = 'Call tools as <tool_call>{"name": ..., "arguments": {...}}</tool_call>.'
open(sys.argv[1], "w").write(json.dumps(task) + "\n")
PYEOF
"$PY" -m hub.cli serve --port "$PORT" --store "$WORK/hub.db" --tasks "$WORK/tasks.jsonl" --log-level warning \
  >"$WORK/hub.log" 2>&1 &
HUB_PID=$!
trap 'kill "$HUB_PID" 2>/dev/null; wait "$HUB_PID" 2>/dev/null' EXIT
"$PY" scripts/wait_for_hub.py "$PORT" "$HUB_PID" 90 >>"$WORK/hub.log" 2>&1 \
  || fail "the hub did not start: $(tail -n 1 "$WORK/hub.log")"

# 3. two GRPO steps on the device; the module's last line is the verdict
timeout --kill-after=10 "${SMOKE_TIMEOUT:-240}" "$PY" -m trainer_client.smoke --hub "http://127.0.0.1:$PORT" \
  --device "$DEVICE" >"$WORK/smoke.log" 2>&1
rc=$?
grep -v "^gpu_smoke: \(PASS\|FAIL\)" "$WORK/smoke.log" | tail -n 5
verdict="$(grep "^gpu_smoke: \(PASS\|FAIL\)" "$WORK/smoke.log" | tail -n 1)"
[ -n "$verdict" ] || fail "the smoke exited $rc without a verdict: $(tail -n 1 "$WORK/smoke.log")"
echo "$verdict (all: $(( $(date +%s) - START )) s; logs in $WORK)"
[ "$rc" = 0 ]
