#!/usr/bin/env bash
# One command: install dependencies, build the release binary, run the main job on the embedded
# default (DeepSeek-R1 FP8 on one 8×H20 server), and install the Python module `topoplan`.
# Extra arguments go to `topoplan plan`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target topoplan_cli _topoplan
# The Python module into the site-packages of the python3 the build found (docs/python.md).
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO cmake --install build/release --component python >/dev/null
./build/release/src/cli/topoplan plan "$@"
