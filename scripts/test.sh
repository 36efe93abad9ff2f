#!/usr/bin/env bash
# One command: install dependencies, then build and run every test twice: the `ci` preset
# (-Werror) and the `asan` preset (AddressSanitizer + UndefinedBehaviorSanitizer).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs=$(nproc)
for preset in ci asan; do
  echo "== preset $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  ctest --preset "$preset" -j "$jobs"
done
# Fuzz smoke (issue 16): the ctest runs above already replay every regression input through
# each target (fuzz_replay_*, under ASan+UBSan in the asan preset); with clang, each libFuzzer
# target also mutates from that corpus for FUZZ_SECONDS (10 by default, scripts/fuzz-smoke.sh).
fuzzer_works() {  # clang with a libFuzzer runtime that links
  command -v clang++ >/dev/null || return 1
  local d; d=$(mktemp -d)
  echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' >"$d/f.cpp"
  clang++ -fsanitize=fuzzer "$d/f.cpp" -o "$d/f" 2>/dev/null; local rc=$?
  rm -rf "$d"; return $rc
}
if fuzzer_works; then
  echo "== fuzz smoke"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$jobs"
  bash scripts/fuzz-smoke.sh build/fuzz
else
  echo "== fuzz smoke skipped: no clang with libFuzzer (scripts/install-deps.sh installs it)"
fi
