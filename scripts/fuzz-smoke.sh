#!/usr/bin/env bash
# Fuzz smoke run (issue 16): every libFuzzer target of the `fuzz` preset (clang, ASan + UBSan)
# starts from its regression corpus (fuzz/regressions/<target>, every input that once crashed,
# hung or leaked) plus the shipped seed files and mutates for FUZZ_SECONDS (default 10) each.
# A crash, leak, timeout or UB report fails the run. Corpora are copied, so new inputs stay in a
# temporary folder and the repository is not touched. Long runs are the coordinator's job.
#   scripts/fuzz-smoke.sh [BUILD_DIR]   (default build/fuzz; configure it with --preset fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/fuzz}
seconds=${FUZZ_SECONDS:-10}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
declare -A seeds=(
  [topology_json]="topologies/servers topologies/clusters tests/bad_input/files"
  [model_json]="models tests/model/data tests/bad_input/files"
  [compute_calibration]="topologies/calibration"
  [nccl_tuning]="topologies/tuning topologies/samples/calibration"
  [nccl_xml]="topologies/samples/nccl-xml"
  [nvidia_smi]="topologies/samples/nvidia-smi"
  [nccl_tests_log]="topologies/samples/nccl-tests"
  [units]="fuzz/seeds/units"
  [plan_json]="fuzz/seeds/plan_json"
)
for target in "${!seeds[@]}"; do
  exe=$build/fuzz/fuzz_$target
  [[ -x $exe ]] || { echo "missing $exe (cmake --preset fuzz && cmake --build --preset fuzz)"; exit 1; }
  corpus=$work/$target
  mkdir -p "$corpus"
  for dir in ${seeds[$target]} fuzz/regressions/$target; do
    [[ -d $dir ]] && find "$dir" -maxdepth 1 -type f -exec cp {} "$corpus"/ \;
  done
  echo "== fuzz_$target: $(ls "$corpus" | wc -l) inputs, ${seconds} s"
  # -timeout: one input past 10 s is a hang; -rss_limit_mb: past 2 GiB a runaway allocation.
  "$exe" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$work/" -print_final_stats=1 2>"$work/$target.log" ||
    { tail -40 "$work/$target.log"; echo "fuzz_$target FAILED"; exit 1; }
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$work/$target.log" || true
done
echo "fuzz smoke: all targets clean"
