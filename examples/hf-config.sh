#!/usr/bin/env bash
# Plan a Hugging Face config.json directly (here Qwen3-32B's published shape): the parameter
# count, then Qwen3-32B on 4 of the 8 H100s (tp 4, as vllm serve --tensor-parallel-size 4).
set -euo pipefail
topoplan=${TOPOPLAN:-topoplan}
here=$(cd "$(dirname "$0")" && pwd)
"$topoplan" model show "$here/Qwen3-32B-config.json" | head -12
"$topoplan" plan --model "$here/Qwen3-32B-config.json" --topology hgx-h100-8 \
  --tp 4 --pp 1 --dp 1 --mode decode --batch 32
