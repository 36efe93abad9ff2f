#!/usr/bin/env bash
# One command: install dependencies, build the release binary, run the main job on the embedded
# default (DeepSeek-R1 FP8 on one 8×H20 server). Extra arguments go to `topoplan plan`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target topoplan_cli
./build/release/src/cli/topoplan plan "$@"
