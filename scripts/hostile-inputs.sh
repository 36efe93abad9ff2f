#!/usr/bin/env bash
# Hostile inputs (issue 16): re-runs each class of the issue (exit 0 with wrong numbers, large
# valid inputs, crashes, runaway allocation, hangs, UB, messages that point at the wrong place,
# wrong exit codes) against each build and prints one table row per case:
#   build | class | case | command | exit (expected) | seconds | peak MB | verdict | first line
# The first line is stderr's (stdout's when stderr is empty: a "no plan fits" answer).
# Verdicts: ok; EXIT (not the expected code); HANG (past the timeout); CRASH (a signal);
# INTERNAL ("internal error", exit 1); SANITIZER (an ASan/UBSan report); GARBAGE (exit 0 with
# nan, inf, -0.0 or INT64_MIN in the output). The script exits 1 when any row is not ok.
#   scripts/hostile-inputs.sh [BUILD_DIR...]   default: build/ci, and build/asan when built
#   HOSTILE_TIMEOUT=20 (seconds per case)  HOSTILE_ONLY=regex (case names to run)
# Every case runs in a temporary folder, so no input resolves against the source tree by luck.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[[ -x /usr/bin/time ]] || { echo "hostile inputs: needs GNU time at /usr/bin/time (apt-get install time)"; exit 2; }
limit=${HOSTILE_TIMEOUT:-20}
only=${HOSTILE_ONLY:-.}
builds=("$@")
if [[ ${#builds[@]} -eq 0 ]]; then
  builds=(build/ci)
  [[ -x $root/build/asan/src/cli/topoplan ]] && builds+=(build/asan)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
F=$root/tests/bad_input/files
D=$root/tests/cli/data
G=$work/gen
mkdir -p "$G"

# --- Generated inputs (small to write; the large ones are ranges, sparse or piped)
# A single NVLink domain of N GB200 GPUs on one NVSwitch vertex, each with its own Grace CPU
# and ConnectX-7 (an NVL72 rack scaled; tests/cli/data/nvl-20000.json is the same at 20,000).
nvl_domain() {
  local n=$1 last=$(($1 - 1))
  cat <<EOF
{"name": "nvl-$n", "description": "$n GB200 GPUs on one NVLink Switch system (scale test)",
 "devices": [{"id": "gpu[0-$last]", "type": "gpu", "model": "GB200"},
             {"id": "nvswitch", "type": "nvswitch", "model": "NVLink Switch system"},
             {"id": "nic[0-$last]", "type": "nic", "model": "ConnectX-7"},
             {"id": "cpu[0-$last]", "type": "cpu", "model": "NVIDIA Grace"}],
 "links": [{"from": "gpu[0-$last]", "to": "nvswitch", "type": "nvlink5", "count": 18},
           {"from": "gpu[0-$last]", "to": "cpu[0-$last]", "type": "nvlink-c2c", "count": 1},
           {"from": "nic[0-$last]", "to": "cpu[0-$last]", "type": "pcie5", "count": 16}]}
EOF
}
nvl_domain 20000 >"$G/nvl-20000.json"
nvl_domain 999999 >"$G/nvl-999999.json"
nested() { printf '%*s' "$1" '' | tr ' ' "$2"; }
printf '{"name": "m", "description": %s1%s}\n' "$(nested 100000 '[')" "$(nested 100000 ']')" \
  >"$G/model_deep.json"
printf '{"model_type": "llama", "quantization_config": %s%s}\n' "$(nested 100000 '[')" \
  "$(nested 100000 ']')" >"$G/hf_deep.json"
sed 's/"num_layers": 32/"num_layers": 10000000/' "$root/models/llama-3-8b.json" >"$G/layers_1e7.json"
sed 's/"num_layers": 32/"num_layers": 100000/' "$root/models/llama-3-8b.json" >"$G/layers_1e5.json"
sed -E 's/("(hidden_size|vocab_size|max_context|heads|kv_heads|head_dim|intermediate_size)": )[0-9]+/\11000000000/g' \
  "$root/models/llama-3-8b.json" >"$G/sizes_1e9.json"
printf '{"name": "c", "cluster": {"server": "hgx-h100-8", "count": 2, "fabric": {"kind": "fat-tree", "tiers": 1000000000}}}\n' \
  >"$G/tiers_1e9.json"
# The example server with a description of N bytes: 50 MB (the issue's hang was printing it;
# now past the 64 KiB input bound) and 60,000 (under it: text shows a prefix, JSON all of it).
described() {
  printf '{"description": "'
  head -c "$1" /dev/zero | tr '\0' 'a'
  printf '",\n'
  grep -v '"description"' "$root/examples/mini-h20-4.json" | tail -n +2
}
described 50000000 >"$G/description_50MB.json"
described 60000 >"$G/description_60KB.json"
truncate -s 300M "$G/sparse_300MiB.json" # sparse: refused by size before a byte is read
# Issue 29: a 1,000,000-row nccl-tests log (~120 MB; refused at row 16,385, the row limit), an
# imported file whose name is not UTF-8, DeepSeek-R1 with a three-sided scale block.
{
  printf '# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 8\n'
  yes '     1048576        262144     float     sum      -1    20.00   52.43   91.75      0    19.00   55.19   96.58      0' |
    head -n 1000000
} >"$G/nccl_1e6_rows.log"
cp "$root/topologies/samples/nvidia-smi/hgx-h100-8.txt" "$G/h100"$'\xfe'".txt"
sed 's/"tree": \[6.8,/"tree": [1e300,/' "$root/topologies/tuning/nccl.json" >"$G/calibration_latency_1e300.json"
sed 's/"scale_block": \[128, 128\]/"scale_block": [1, 1, 1]/' "$root/models/deepseek-r1.json" >"$G/scale_block_3d.json"

# --- Cases: c NAME CLASS EXPECTED_EXIT ARG...; cf (the same, FEED command on stdin)
rows=()
bad=0
run_case() { # build name class expect feed args...
  local build=$1 name=$2 class=$3 expect=$4 feed=$5
  shift 5
  [[ $name =~ $only ]] || return 0
  local bin=$root/$build/src/cli/topoplan out=$work/out err=$work/err tm=$work/time rc
  : >"$tm"
  if [[ -n $feed ]]; then
    (cd "$work" && bash -c "$feed" | timeout -k 5 "$limit" /usr/bin/time -f '%e %M' -o "$tm" \
      "$bin" "$@" >"$out" 2>"$err")
  else
    (cd "$work" && timeout -k 5 "$limit" /usr/bin/time -f '%e %M' -o "$tm" "$bin" "$@" \
      </dev/null >"$out" 2>"$err")
  fi
  rc=$?
  local secs kb
  read -r secs kb < <(grep -E '^[0-9.]+ [0-9]+$' "$tm" | tail -1)
  local verdict=ok
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then
    verdict=HANG
    secs=">$limit"
  elif grep -aqE 'AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer' "$err"; then
    verdict=SANITIZER
  elif grep -aq 'internal error' "$err"; then
    verdict=INTERNAL
  elif [[ $rc -gt 128 ]] || grep -q '^Command terminated by signal' "$tm"; then
    verdict=CRASH
  elif [[ $rc -ne $expect ]]; then
    verdict=EXIT
  elif [[ $rc -eq 0 ]] && grep -aqE '(^|[^A-Za-z_"])-?(nan|inf)([^A-Za-z_]|$)|-9223372036854775808|(^|[^0-9])-0\.0+([^0-9]|$)' "$out"; then
    verdict=GARBAGE
  fi
  [[ $verdict == ok ]] || bad=1
  local first
  first=$(grep -a -m1 -v '^$' "$err" | head -c 110)
  [[ -z $first ]] && first="(stdout) $(grep -a -m1 -v '^$' "$out" | head -c 100)"
  local cmd="topoplan $* "
  [[ -n $feed ]] && cmd="$cmd < <($feed)"
  cmd=${cmd//$F\//files\/}
  cmd=${cmd//$D\//data\/}
  cmd=${cmd//$G\//gen\/}
  cmd=${cmd//$root\//}
  local mb=$(((${kb:-0} + 512) / 1024))
  cmd=${cmd//|//}
  rows+=("$build|$class|$name|${cmd:0:90}|$rc ($expect)|${secs:-?}|$mb|$verdict|${first//|//}")
}
c() { run_case "$b" "$1" "$2" "$3" "" "${@:4}"; }
cf() { run_case "$b" "$1" "$2" "$3" "$4" "${@:5}"; }

H=(--topology hgx-h100-8)
for b in "${builds[@]}"; do
  # Exit 0 with wrong numbers
  c size_1e30 wrong-number 2 collective all-reduce "${H[@]}" --size 1e30B --json
  c sweep_1e30 wrong-number 2 collective all-reduce "${H[@]}" --sweep 1:1e30:2
  c sweep_factor_2x wrong-number 2 collective all-reduce "${H[@]}" --sweep 1:1G:2x
  c size_minus_zero wrong-number 0 collective all-reduce "${H[@]}" --size -0
  c plan_batch_inf wrong-number 2 plan --model llama-3-8b "${H[@]}" --batch inf
  c plan_batch_1e19 wrong-number 2 plan --model llama-3-8b "${H[@]}" --batch 1e19
  c model_batch_nan wrong-number 2 model show deepseek-r1 --batch nan
  c roofline_batch_inf wrong-number 2 model roofline llama-3-8b --gpu H100-SXM --batch inf
  c prefill_chunk_inf wrong-number 2 plan --model llama-3-8b "${H[@]}" --prefill-chunk inf
  c hf_empty_block_size wrong-number 2 model show "$F/hf_empty_block_size.json"
  c latency_1e308 wrong-number 2 topo show "$F/topo_latency_huge.json"
  c node_wraps wrong-number 2 topo show "$F/topo_node_wraps.json"
  c no_fit_kv wrong-number 3 plan --model llama-3.1-405b --topology pcie-rtx4090-8
  c compare_price_nan wrong-number 2 compare --model llama-3-8b --topology hgx-h200-8 --topology hgx-h20-8:price=nan
  c compare_nothing_fits wrong-number 3 compare --model llama-3.1-405b --topology pcie-rtx4090-8 --topology pcie-l40s-8
  # Large valid inputs: must answer (exit 0) within the timeout
  c nvl20k_topo_show large 0 topo show "$G/nvl-20000.json"
  c nvl20k_topo_paths large 0 topo paths "$G/nvl-20000.json"
  c nvl20k_collective large 0 collective all-reduce --topology "$G/nvl-20000.json" --size 1GiB
  c nvl20k_plan large 0 plan --model llama-3-70b --topology "$G/nvl-20000.json"
  c nodes12500_topo_show large 0 topo show hgx-h100-8 --nodes 12500
  # Every device and link of 100,000 GPUs: 130 MB of JSON, streamed
  c nodes12500_topo_show_json large 0 topo show hgx-h100-8 --nodes 12500 --json
  c description_60KB large 0 topo show "$G/description_60KB.json"
  c nodes12500_collective large 0 collective all-reduce "${H[@]}" --nodes 12500 --size 1GiB
  c nodes12500_plan large 0 plan --model llama-3-70b "${H[@]}" --nodes 12500
  c nodes1000_plan large 0 plan --model llama-3-70b "${H[@]}" --nodes 1000
  # 100,000 layers (the cap) of Llama 3 8B's layer: ~22 T parameters, no plan fits (exit 3), fast
  c layers_1e5_plan large 3 plan --model "$G/layers_1e5.json" "${H[@]}" --nodes 16
  c gpus_999999 large 2 topo show "$G/nvl-999999.json"
  c nodes_100000 large 2 collective all-reduce "${H[@]}" --nodes 100000 --size 1GiB
  # Crashes (recursion)
  c cluster_self crash 2 topo show "$F/cluster_self.json"
  c cluster_pair crash 2 topo show "$F/cluster_a.json"
  c model_deep crash 2 model show "$G/model_deep.json"
  c hf_deep crash 2 model show "$G/hf_deep.json"
  c compare_deep crash 2 compare --model llama-3-8b --topology hgx-h200-8 --topology "$G/hf_deep.json"
  # Runaway allocation
  c nodes_1e7_plan alloc 2 plan --model llama-3-8b "${H[@]}" --nodes 10000000
  c nodes_1e7_collective alloc 2 collective all-reduce "${H[@]}" --nodes 10000000 --size 1GiB
  c nodes_1e7_topo_show alloc 2 topo show hgx-h100-8 --nodes 10000000
  c cluster_count_1e7 alloc 2 topo show "$F/cluster_count_1e7.json"
  c cluster_count_1e9 alloc 2 topo show "$F/cluster_count_1e9.json"
  c link_count_1e9 alloc 2 topo show "$F/topo_count_huge.json"
  c tiers_1e9 alloc 2 topo show "$G/tiers_1e9.json"
  c file_300MiB alloc 2 topo show "$G/sparse_300MiB.json"
  cf stdin_300MiB alloc 2 "head -c 314572800 /dev/zero" topo import nvidia-smi -
  cf stdin_endless alloc 2 "yes" topo import nvidia-smi -
  c all_to_all_20k alloc 2 collective all-to-all --topology "$G/nvl-20000.json" --size 1GiB
  # Hangs
  c layers_1e9 hang 2 model show "$F/model_layers_1e9.json"
  c layers_1e7_plan hang 2 plan --model "$G/layers_1e7.json" "${H[@]}"
  # Every size at 1e9: past the width bounds (it overflowed int in the planner under UBSan)
  c sizes_1e9 hang 2 plan --model "$G/sizes_1e9.json" "${H[@]}"
  c range_1e6 hang 2 topo show "$F/topo_range_huge.json"
  c range_long_prefix hang 2 topo show "$F/topo_range_long_prefix.json"
  c unknown_id_big hang 2 topo show "$F/topo_unknown_ids_big.json"
  c description_50MB hang 2 topo show "$G/description_50MB.json"
  c dev_zero hang 2 topo show /dev/zero
  c dev_urandom hang 2 model show /dev/urandom
  # Undefined behaviour (the ASan+UBSan build reports it)
  c mtp_draft_int_max ub 2 plan --model deepseek-r1 --topology hgx-h20-8 --mtp-accept 0.8 --mtp-draft 2147483647
  c mtp_draft_unused ub 0 plan --model llama-3-8b "${H[@]}" --mtp-draft 2147483647
  # Every width at its bound at once: planned without overflow, nothing fits (exit 3)
  c widths_at_bounds_dense ub 3 plan --model "$root/tests/io/data/model_dense_at_bounds.json" "${H[@]}"
  c widths_at_bounds_mla ub 3 plan --mode train --model "$root/tests/io/data/model_mla_moe_at_bounds.json" "${H[@]}" --nodes 16
  c compare_nodes_1e30 ub 2 compare --model llama-3-8b --topology hgx-h200-8 --topology hgx-h20-8:nodes=1e30
  # Messages that must point at the right place
  c hf_kv_heads place 2 model show "$F/hf_kv_heads_not_dividing.json"
  c cluster_tiers_5 place 2 topo show "$F/cluster_tiers_5.json"
  c context_inf place 2 plan --model llama-3-8b "${H[@]}" --context inf
  c no_gpus place 2 collective all-reduce --size 1GiB --topology "$F/topo_no_gpus.json"
  c ranks_nics place 2 collective all-reduce "${H[@]}" --size 1GiB --ranks nic0,nic1
  c cluster_server_missing place 2 topo show "$F/cluster_server_missing.json"
  c cluster_relative_server place 0 topo show "$D/relative/sub/cluster-up.json"
  # Exit codes: input errors are 2, not "internal error" (1)
  c empty_id exit-code 2 topo show "$F/topo_empty_id.json"
  c duplicate_from_range exit-code 2 topo show "$F/topo_duplicate_from_range.json"
  c hf_invalid_utf8 exit-code 2 model show "$F/hf_invalid_utf8.json"
  c number_3e2768 exit-code 2 model show "$F/hf_number_out_of_range.json"
  c tp_beyond_gpus exit-code 2 plan --model llama-3-70b "${H[@]}" --tp 16
  # Issue 29: ranges of flags and measurement files, bounded work, plan files read back, names
  # that are not UTF-8, refusals with their place, minor
  P=$root/fuzz/regressions/plan_json
  c calibrate_size_zero wrong-number 2 calibrate "${H[@]}" -o cal.json --nccl-tests "$F/nccl_size_zero.log"
  c calibrate_size_1e300 wrong-number 2 calibrate "${H[@]}" -o cal.json --nccl-tests "$F/nccl_size_1e300.log"
  c nccl_size_negative place 2 validate "${H[@]}" --nccl-tests "$F/nccl_size_negative.log"
  c probe_bytes_1e300 wrong-number 2 validate --probe "$F/probe_bytes_huge.json" --gpu H100-SXM
  c probe_unknown_dtype place 2 validate --probe "$F/probe_unknown_dtype.json" --gpu H100-SXM
  c mem_bw_denormal wrong-number 2 model roofline llama-3-8b --gpu H100-SXM --mem-bw 1e-300GB/s
  c train_tokens_1e300 wrong-number 2 plan --mode train --model llama-3-8b "${H[@]}" --train-tokens 1e300
  c model_context_1e15 wrong-number 2 model show llama-3-8b --context 1e15
  c roofline_context_past_model wrong-number 2 model roofline llama-3-8b --gpu H100-SXM --context 100000
  c calibration_latency_1e300 wrong-number 2 collective all-reduce "${H[@]}" --size 1GiB --calibration "$G/calibration_latency_1e300.json"
  c nccl_1e6_rows hang 2 calibrate "${H[@]}" -o cal.json --nccl-tests "$G/nccl_1e6_rows.log"
  c burst_1e15 hang 2 plan --model llama-3-8b "${H[@]}" --workload burst --requests 1e15
  # The bound at 2 requests per wave (Llama 3.1 70B, TP2 on H200 at 130,000 tokens): 50,000 waves
  c burst_1e5_waves large 0 plan --model llama-3.1-70b --topology hgx-h200-8 --gpus 2 --tp 2 --pp 1 --dp 1 --prompt 100000 --output 30000 --workload burst --requests 1e5 --json
  c train_global_batch_2p30 crash 2 plan --mode train --model llama-3-8b "${H[@]}" --global-batch 1073741824
  c render_plan_rank_negative crash 2 topo render hgx-h100-8 -o r.svg --plan "$P/rank_negative.json"
  c render_plan_rank_huge crash 2 topo render hgx-h100-8 -o r.svg --plan "$P/rank_huge.json"
  c render_plan_fits_string exit-code 2 topo render hgx-h100-8 -o r.svg --plan "$P/fits_string.json"
  c render_plan_no_breakdown exit-code 2 topo render hgx-h100-8 -o r.svg --plan "$P/no_breakdown.json"
  c import_name_not_utf8 exit-code 2 topo import nvidia-smi "$root/topologies/samples/nvidia-smi/hgx-h100-8.txt" --gpu H100 --name $'srv\xff'
  c import_file_name_not_utf8 exit-code 2 topo import nvidia-smi "$G/h100"$'\xfe'".txt" --gpu H100
  c compare_label_not_utf8 exit-code 2 compare --model llama-3-8b --topology hgx-h200-8 --topology $'hgx-h20-8:name=a\xff'
  c cluster_nic_no_model place 2 topo show "$F/cluster_nic_no_model.json"
  c compare_tiers_5 place 2 compare --model llama-3-8b --topology hgx-h100-8:nodes=4:fabric=fat-tree:tiers=5 --topology hgx-h200-8
  c batch_empty wrong-number 2 plan --model llama-3-8b "${H[@]}" --batch ''
  c size_1P wrong-number 0 collective all-reduce "${H[@]}" --size 1P
  c scale_block_3d wrong-number 2 model show "$G/scale_block_3d.json"
  # Output failures (issue 29): exit 2 naming the path, never "wrote ..." with exit 0; every file
  # is written to a temporary file beside the target and renamed (src/io/output_file.cpp)
  X=$root/topologies/samples/nccl-xml/hgx-h100-8.xml
  c render_missing_folder output 2 topo render hgx-h100-8 -o nodir/x.svg
  c render_png_missing_folder output 2 topo render hgx-h100-8 -o nodir/x.png
  c render_dot_missing_folder output 2 topo render hgx-h100-8 -o nodir/x.dot
  c render_to_directory output 2 topo render hgx-h100-8 --format svg -o "$G"
  c render_dev_full output 2 topo render hgx-h100-8 --format svg -o /dev/full
  c chart_missing_folder output 2 collective all-reduce "${H[@]}" --sweep 1M:1G --chart nodir/c.svg
  c html_missing_folder output 2 plan --model llama-3-8b "${H[@]}" --html nodir/p.html
  c import_dev_full output 2 topo import nccl-xml "$X" -o /dev/full
  c import_missing_folder output 2 topo import nccl-xml "$X" -o nodir/t.json
  c export_dev_full output 2 topo export nccl-xml hgx-h100-8 -o /dev/full
  bin=$root/$b/src/cli/topoplan
  if [[ stdout_dev_full =~ $only ]]; then # run_case captures stdout, so this one runs here
    (cd "$work" && "$bin" topo show hgx-h100-8 >/dev/full 2>/dev/null)
    rc=$?
    v=ok; [[ $rc -eq 2 ]] || { v=EXIT; bad=1; }
    rows+=("$b|output|stdout_dev_full|topo show hgx-h100-8 >/dev/full|$rc (2)|||$v|")
  fi
  if [[ import_self_overwrite =~ $only ]]; then # a refused import must leave its input as it was
    cp "$root/topologies/samples/nvidia-smi/hgx-h100-8.txt" "$work/self.txt"
    (cd "$work" && "$bin" topo import nvidia-smi self.txt --nic banana -o self.txt >/dev/null 2>&1)
    rc=$?
    v=ok; { [[ $rc -eq 2 ]] && cmp -s "$work/self.txt" "$root/topologies/samples/nvidia-smi/hgx-h100-8.txt"; } ||
      { v=DESTROYED; bad=1; }
    rows+=("$b|output|import_self_overwrite|topo import nvidia-smi self.txt -o self.txt|$rc (2)|||$v|")
  fi
  if [[ render_concurrent =~ $only ]]; then # eight renders of one file: one whole SVG remains
    for i in 1 2 3 4 5 6 7 8; do (cd "$work" && "$bin" topo render hgx-h100-8 -o conc.svg >/dev/null 2>&1) & done
    wait
    v=ok; xmllint --noout "$work/conc.svg" 2>/dev/null || { v=INTERLEAVED; bad=1; }
    [[ -z $(find "$work" -maxdepth 1 -name '.*tmp*') ]] || { v=TEMP-LEFT; bad=1; }
    rows+=("$b|output|render_concurrent|8 x topo render -o conc.svg|0 (0)|||$v|")
  fi
done

printf '%s\n' "build|class|case|command|exit (expected)|s|peak MB|verdict|first line of stderr"
printf '%s\n' "${rows[@]}"
if [[ $bad -ne 0 ]]; then
  echo "hostile inputs: some cases broke the contract (verdict not ok)"
  exit 1
fi
echo "hostile inputs: every case kept the contract"
