#!/usr/bin/env bash
# Predicted vs published (issue 26): builds the CLI if needed, runs every point of
# tests/accuracy/{check,fitted}_points.json and writes docs/accuracy.md (the check points, used
# only to check, and the points the model was developed against). `--record` also rewrites the
# known errors of the points beyond the target (after a model change, say so in the commit).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${TOPOPLAN:-build/ci/src/cli/topoplan}
if [ ! -x "$bin" ]; then
  cmake --preset ci >/dev/null
  cmake --build --preset ci --target topoplan_cli -j "$(nproc)"
fi
python3 scripts/accuracy.py --topoplan "$bin" --markdown docs/accuracy.md \
  --head tests/accuracy/accuracy_head.md "$@" \
  tests/accuracy/check_points.json tests/accuracy/fitted_points.json
