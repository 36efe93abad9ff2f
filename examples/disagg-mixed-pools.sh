#!/usr/bin/env bash
# Disaggregated serving on mixed GPU pools: DeepSeek-R1 prefilled on 4 x HGX H200 (compute) and
# decoded on 8 x HGX H20 (HBM bandwidth per dollar) on one InfiniBand fabric, from the cluster
# file mixed-pools/h200-prefill-h20-decode.json and, the same, from flags alone.
# TOPOPLAN: the binary (default: topoplan on PATH).
set -euo pipefail
topoplan=${TOPOPLAN:-topoplan}
here=$(cd "$(dirname "$0")" && pwd)
cluster="$here/mixed-pools/h200-prefill-h20-decode.json"
"$topoplan" topo show "$cluster"
"$topoplan" plan --disagg --model deepseek-r1 --topology "$cluster" --prompt 2048 --output 512 \
  --ttft-max 3000 --tpot-max 50
json=$("$topoplan" plan --disagg --model deepseek-r1 --topology hgx-h200-8 --prefill-nodes 4 \
  --decode-server hgx-h20-8 --decode-nodes 8 --prompt 2048 --output 512 --ttft-max 3000 \
  --tpot-max 50 --json)
python3 - "$json" <<'PY'
import json, sys
out = json.loads(sys.argv[1])
assert out["status"] == "ok", out["status_message"]
d = out["disagg"]
p, q = d["prefill"], d["decode"]
print(f"{d['ratio']}: prefill {p['gpus']} x {p['gpu']}, decode {q['gpus']} x {q['gpu']}, "
      f"{d['requests_per_s']:.1f} req/s, TTFT {d['ttft_ms']:.0f} ms, TPOT {d['tpot_ms']:.1f} ms, "
      f"KV {d['kv_transfer']['time_ms']:.1f} ms per request; bound by {d['bottleneck']}")
assert (p["gpu"], q["gpu"]) == ("H200-SXM", "H20"), (p["gpu"], q["gpu"])
assert d["tpot_ms"] <= 50 and d["ttft_ms"] <= 3000
PY
