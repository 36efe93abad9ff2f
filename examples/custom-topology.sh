#!/usr/bin/env bash
# Plan on a topology file of your own: validate it, look at its paths, then plan Llama-3.1-8B
# in FP8 with an FP8 KV cache on it.
set -euo pipefail
topoplan=${TOPOPLAN:-topoplan}
here=$(cd "$(dirname "$0")" && pwd)
"$topoplan" topo validate "$here/mini-h20-4.json"
"$topoplan" topo paths "$here/mini-h20-4.json"
"$topoplan" plan --model llama-3.1-8b --topology "$here/mini-h20-4.json" --precision fp8 \
  --kv-dtype fp8 --tpot-max 30
