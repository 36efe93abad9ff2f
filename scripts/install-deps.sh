#!/usr/bin/env bash
# Installs the Debian 12 packages topoplan builds with (skips apt when all are present).
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config libboost-graph-dev nlohmann-json3-dev
      libgraphviz-dev graphviz doctest-dev libcli11-dev libxml2-dev)
# Reports (issue 9): PLplot charts, xmllint for the SVG test, headless Chromium for the HTML test.
pkgs+=(libplplot-dev plplot-driver-cairo libxml2-utils chromium python3)
# Issue 31: the --csv test loads the tables with pandas; the Python module (pybind11, the
# interpreter's headers) and its example's chart (matplotlib).
pkgs+=(python3-pandas pybind11-dev python3-pybind11 python3-dev python3-matplotlib)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# Optional: clang and its libFuzzer runtime for the fuzz smoke run (issue 16). Not fatal: without
# them scripts/test.sh skips the libFuzzer part (the regression replays still run under ctest).
if ! command -v clang++ >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  [ ${#missing[@]} -gt 0 ] || $SUDO apt-get update -qq || true
  $SUDO apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev ||
    echo "install-deps: clang/libFuzzer not installed; the fuzz smoke run will be skipped"
fi
