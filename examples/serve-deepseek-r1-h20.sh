#!/usr/bin/env bash
# Serve DeepSeek-R1 (FP8) on one 8x H20 server with a 50 ms TPOT SLA (20 tokens/s per user),
# then read the best plan from the JSON. TOPOPLAN: the binary (default: topoplan on PATH).
set -euo pipefail
topoplan=${TOPOPLAN:-topoplan}
"$topoplan" plan --model deepseek-r1 --topology hgx-h20-8 --prompt 2048 --output 1024 \
  --tpot-max 50 --top 3
json=$("$topoplan" plan --model deepseek-r1 --topology hgx-h20-8 --prompt 2048 --output 1024 \
  --tpot-max 50 --json)
# The first plan is the best; its strategy, batch and figures are plain JSON keys.
python3 - "$json" <<'PY'
import json, sys
out = json.loads(sys.argv[1])
assert out["status"] == "ok", out["message"]
best = out["plans"][0]
s = best["strategy"]
print(f"best: tp{s['tp']} ep{s['ep']} dp{s['dp']} attention_dp={s['attention_dp']}, "
      f"batch {best['batch']:.0f}, TPOT {best['tpot_ms']:.1f} ms, TTFT {best['ttft_ms']:.0f} ms, "
      f"{best['tokens_per_s_per_gpu']:.0f} tokens/s/GPU")
assert best["tpot_ms"] <= 50
PY
