# CLI tests of `topoplan plan` (owned by the plan module).
topoplan_cli_test(plan_llama_3_8b_h100_json
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 4 --pp 1 --batch 16
                       --prompt 512 --output 256 --json
                  GOLDEN plan_llama_3_8b_h100.json)
topoplan_cli_test(plan_default_table ARGS plan
                  EXPECT_STDOUT "deepseek-r1 on hgx-h20-8 \\(8x H20\\), mode serve")
topoplan_cli_test(plan_decode_cluster ARGS plan --model llama-3-70b --nodes 2 --topology hgx-h100-8
                       --mode decode --tp 8 --top 2
                  EXPECT_STDOUT "Under dp-pp-tp order the same plan would run")
topoplan_cli_test(plan_unknown_model ARGS plan --model llama-3-8 EXIT 2 EXPECT_STDERR "llama-3-8b")
topoplan_cli_test(plan_bad_mode ARGS plan --mode serving EXIT 2 EXPECT_STDERR "serve")
topoplan_cli_test(plan_bad_mtp ARGS plan --mtp-accept 5 EXIT 2 EXPECT_STDERR "--mtp-accept")
topoplan_cli_test(plan_bad_tp_class ARGS plan --max-tp-class NVLINK EXIT 2 EXPECT_STDERR "NVL")
topoplan_cli_test(plan_impossible_pins ARGS plan --tp 16 EXIT 2 EXPECT_STDERR "matches the pins")
topoplan_cli_test(plan_bad_batch ARGS plan --batch 0.5 EXIT 2 EXPECT_STDERR "--batch")
topoplan_cli_test(plan_cuda_graphs_off_json
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 8 --mode decode --json
                       --cuda-graphs off
                  EXPECT_STDOUT "\"cuda_graphs\": false")
topoplan_cli_test(plan_cuda_graphs_off_table
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 8 --mode decode
                       --cuda-graphs off
                  EXPECT_STDOUT "CUDA graphs off.*launch_overhead")
topoplan_cli_test(plan_bad_cuda_graphs ARGS plan --cuda-graphs yes EXIT 2
                  EXPECT_STDERR "--cuda-graphs: expected 'on' or 'off'")
# --precision / --kv-dtype (issue 10): Llama-3-70B in FP8 on one H200 without a model file.
topoplan_cli_test(plan_llama_3_70b_fp8_one_h200
                  ARGS plan --model llama-3-70b --precision fp8 --kv-dtype fp8 --topology hgx-h200-8
                       --gpus 1 --mode decode
                  EXPECT_STDOUT "weights fp8, fp32 scale per 16384 elements.*KV cache fp8.*tp1 pp1 dp1 +yes")
topoplan_cli_test(plan_fp8_on_a100_weight_only
                  ARGS plan --model llama-3-8b --precision fp8 --topology dgx-a100-8 --tp 8
                       --mode decode
                  EXPECT_STDOUT "note: fp8 weights: A100-SXM-80GB has no fp8 tensor cores; priced as weight-only")
topoplan_cli_test(plan_bad_precision ARGS plan --precision fp6 EXIT 2 EXPECT_STDERR "fp8")
topoplan_cli_test(plan_bad_kv_dtype ARGS plan --kv-dtype int4 EXIT 2 EXPECT_STDERR "KV cache dtype")
# Pins on part of the server (issue 10): tp 4 x pp 1 x dp 1 on 8 GPUs plans on the first four.
topoplan_cli_test(plan_pins_part_of_server
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 4 --pp 1 --dp 1
                       --mode decode
                  EXPECT_STDOUT "\\(4 of 8x H100-SXM\\).*GPUs used: 4 of 8 \\(gpu0, gpu1, gpu2, gpu3\\); the other 4 stay idle")
topoplan_cli_test(plan_pins_part_of_server_json
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 2 --pp 1 --dp 1
                       --mode prefill --json
                  EXPECT_STDOUT "\"gpus\": 2,.*\"topology_gpus\": 8.*\"gpus_used\": \\[[^]]*\"gpu0\",[^]]*\"gpu1\"[^]]*\\]")
# Workload semantics (issue 10): exit 3 when nothing fits, said first; prefill ignores --output.
topoplan_cli_test(plan_nothing_fits_exit3 ARGS plan --model llama-3.1-405b --topology hgx-h100-8
                  EXIT 3 EXPECT_STDOUT "^No plan fits: .*Hint: .*--precision fp8")
topoplan_cli_test(plan_limits_unmet_json ARGS plan --model llama-3-8b --topology hgx-h100-8
                       --tpot-max 1 --json
                  EXIT 3 EXPECT_STDOUT "\"status\": \"no_plan_meets_limits\"")
topoplan_cli_test(plan_prefill_full_context ARGS plan --model llama-3-8b --topology hgx-h100-8
                       --mode prefill --prompt 8192 --output 4096
                  EXPECT_STDOUT "workload: prompt 8192, batch 1")
topoplan_cli_test(plan_serve_no_sla ARGS plan --model llama-3-8b --topology hgx-h100-8
                  EXPECT_STDOUT "No latency limit: this plan maximises output tokens/s per GPU")
# Output (issue 10): counts are JSON integers, unset values null, the same keys when nothing fits.
topoplan_cli_test(plan_json_nulls_when_nothing_fits
                  ARGS plan --model llama-3.1-405b --topology hgx-h100-8 --json
                  EXIT 3
                  EXPECT_STDOUT "\"batch\": null,\n    \"prompt\": 1024,.*\"tpot_max_ms\": null.*\"bad_placement\": null")
topoplan_cli_test(plan_one_strategy_singular
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 8 --mode decode
                  EXPECT_STDOUT "\n1 strategy evaluated")
# The same golden on 2 threads (the search's output does not depend on the thread count) and
# without the progress bar; a thread count below 1 is refused.
topoplan_cli_test(plan_llama_3_8b_h100_json_2_threads
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 4 --pp 1 --batch 16
                       --prompt 512 --output 256 --json --threads 2 --quiet
                  GOLDEN plan_llama_3_8b_h100.json)
topoplan_cli_test(plan_search_footer ARGS plan --threads 2
                  EXPECT_STDOUT "Search: 36 strategies evaluated in [0-9.]+ s on 2 threads")
topoplan_cli_test(plan_bad_threads ARGS plan --threads 0 EXIT 2 EXPECT_STDERR "--threads")
# Every number of a request is checked where it enters (issue 11): inf, NaN and counts past 2^53
# are refused by the field that carries them, exit 2 (--batch 1e19 was printed as INT64_MIN).
topoplan_cli_test(plan_batch_inf ARGS plan --batch inf EXIT 2
                  EXPECT_STDERR "--batch: must be a finite number")
topoplan_cli_test(plan_batch_1e19 ARGS plan --batch 1e19 EXIT 2
                  EXPECT_STDERR "--batch: must be at most 2\\^53 sequences")
topoplan_cli_test(plan_context_inf ARGS plan --context inf EXIT 2
                  EXPECT_STDERR "--context: must be a finite number")
topoplan_cli_test(plan_context_too_long ARGS plan --model llama-3-8b --context 9000 EXIT 2
                  EXPECT_STDERR "--context: context \\(9000 tokens\\) exceeds the model's context of 8192")
topoplan_cli_test(plan_mtp_draft_int_max ARGS plan --mtp-accept 2 --mtp-draft 2147483647 EXIT 2
                  EXPECT_STDERR "--mtp-draft: must be at most --output tokens")
topoplan_cli_test(plan_prefill_chunk_inf ARGS plan --prefill-chunk inf EXIT 2
                  EXPECT_STDERR "--prefill-chunk: must be a finite number")
topoplan_cli_test(plan_prompt_nan ARGS plan --prompt nan EXIT 2
                  EXPECT_STDERR "--prompt: must be a finite number")
topoplan_cli_test(plan_output_inf ARGS plan --output inf EXIT 2
                  EXPECT_STDERR "--output: must be a finite number")
topoplan_cli_test(plan_tpot_max_inf ARGS plan --tpot-max inf EXIT 2
                  EXPECT_STDERR "--tpot-max: must be a finite number of ms")
topoplan_cli_test(plan_ttft_max_nan ARGS plan --ttft-max nan EXIT 2
                  EXPECT_STDERR "--ttft-max: must be a finite number of ms")
topoplan_cli_test(plan_mtp_accept_nan ARGS plan --mtp-accept nan EXIT 2
                  EXPECT_STDERR "--mtp-accept: must be a finite number")
# Burst workload (issue 14): the schedule beside the plans; --requests needs --workload burst.
topoplan_cli_test(plan_burst_table
                  ARGS plan --topology hgx-h200-8 --tp 8 --ep 1 --attention-dp false --prompt 4000
                       --output 200 --workload burst --requests 500
                  EXPECT_STDOUT "Burst of 500 requests \\(prefill before decode, in 4 waves of at most 162 sequences\\): makespan")
topoplan_cli_test(plan_burst_json
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 8 --prompt 512 --output 64
                       --workload burst --requests 100 --json
                  EXPECT_STDOUT "\"workload\": \"burst\",.*\"requests\": 100.*\"burst\": \\{.*\"makespan_s\"")
topoplan_cli_test(plan_requests_without_burst ARGS plan --requests 5 EXIT 2
                  EXPECT_STDERR "--requests: needs --workload burst")
topoplan_cli_test(plan_burst_not_decode ARGS plan --mode decode --workload burst --requests 5
                  EXIT 2 EXPECT_STDERR "--workload: burst is a serve workload")
topoplan_cli_test(plan_bad_workload ARGS plan --workload bursty EXIT 2 EXPECT_STDERR "burst")
# Closed loop (issue 14 follow-up): the InferenceX point of docs/planner.md, R1 TP8 EP1 on 8xH200,
# 1k/1k, 64 requests in flight. The golden pins the JSON; closed_loop_check.py below checks that
# its figures are the formula of closed_loop.hpp over the step and prefill the CLI prices alone.
set(_closed_r1 plan --model deepseek-r1 --topology hgx-h200-8 --tp 8 --ep 1 --attention-dp false
               --prompt 1024 --output 1024 --workload closed --concurrency 64)
topoplan_cli_test(plan_closed_loop_r1_h200_json ARGS ${_closed_r1} --json
                  GOLDEN plan_closed_loop_r1_h200.json)
topoplan_cli_test(plan_closed_loop_table ARGS ${_closed_r1}
                  EXPECT_STDOUT "Closed loop of 64 requests in flight \\(each new prompt prefilled alone in [0-9.]+ ms.*mean TPOT [0-9.]+ ms, [0-9,]+ output tok/s \\([0-9.]+ per GPU\\), [0-9,]+ total tok/s")
topoplan_cli_test(plan_steady_closed_loop_null ARGS plan --model llama-3-8b --topology hgx-h100-8
                       --tp 8 --mode decode --json
                  EXPECT_STDOUT "\"concurrency\": null.*\"closed_loop\": null")
topoplan_cli_test(plan_concurrency_without_closed ARGS plan --concurrency 8 EXIT 2
                  EXPECT_STDERR "--concurrency: needs --workload closed")
topoplan_cli_test(plan_closed_batch_differs ARGS plan --workload closed --concurrency 8 --batch 16
                  EXIT 2 EXPECT_STDERR "--batch: must equal --concurrency under --workload closed")
topoplan_cli_test(plan_closed_not_decode ARGS plan --mode decode --workload closed --concurrency 8
                  EXIT 2 EXPECT_STDERR "--workload: closed is a serve workload")
find_program(PYTHON3 python3)
if(PYTHON3)
  add_test(NAME cli_plan_closed_loop_formula
           COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/closed_loop_check.py
                   $<TARGET_FILE:topoplan_cli>)
endif()
topoplan_cli_test(plan_fp8_block_gemm_json
                  ARGS plan --topology hgx-h200-8 --tp 8 --ep 1 --attention-dp false --mode decode
                       --fp8-block-gemm triton --json
                  EXPECT_STDOUT "\"fp8_block_gemm\": \"triton\"")
topoplan_cli_test(plan_bad_fp8_block_gemm ARGS plan --fp8-block-gemm deepgemm EXIT 2
                  EXPECT_STDERR "cublas")
# Issue 28: hints and the Why line say what is true. Weights alone too big: only more GPUs or
# narrower weights help; an FP8 model is not told to use FP8; a 1.00x win is a tie; the KV cache
# is credited only when it is the cache that differs.
topoplan_cli_test(plan_no_fit_weights_hint ARGS plan --model llama-3.1-405b --topology pcie-rtx4090-8
                  EXIT 3 EXPECT_STDOUT "Hint: the weights alone need 94.5 GiB per GPU of 21.6 GiB usable: add GPUs")
topoplan_cli_test(plan_limits_hint_fp8_model ARGS plan --model deepseek-r1 --topology hgx-h200-8 --tpot-max 1
                  EXIT 3 EXPECT_STDOUT "Hint: relax the limit, add GPUs \\(--nodes N\\), or use speculative decoding")
topoplan_cli_test(plan_why_tie ARGS plan
                  EXPECT_STDOUT "Why: [^\n]* ties with the runner-up [^\n]* \\(within 0.5%\\)")
topoplan_cli_test(plan_why_batch_not_kv ARGS plan --model deepseek-r1 --topology hgx-h200-8 --tpot-max 20 --mtp-accept 1.8
                  EXPECT_STDOUT "It runs a larger batch within the limits \\([0-9]+ vs [0-9]+\\)")
# Disaggregated serving (issue 27): the JSON keys scripts read, and the refusals.
topoplan_cli_test(plan_disagg_json
                  ARGS plan --disagg --model deepseek-r1 --topology hgx-h800-8 --nodes 4 --ttft-max 2000
                       --tpot-max 50 --json
                  EXPECT_STDOUT "\"disagg\": {\n    \"ratio\": \"[0-9]+P:[0-9]+D\",\n    \"prefill\": {.*\"decode\": {.*\"kv_transfer\": {.*\"bytes_per_token\": 70272.*\"goodput_tokens_per_s\":.*\"aggregated\": {.*\"verdict\": \"(dis)?aggregated wins by")
# The request echoes the KV transfer mode and two-batch overlap; counts are integers (issue 28).
topoplan_cli_test(plan_disagg_json_request
                  ARGS plan --disagg --model llama-3-8b --topology hgx-h100-8 --nodes 2 --tpot-max 50
                       --kv-transfer layerwise --two-batch-overlap on --json
                  EXPECT_STDOUT "\"request\": {\n    \"prompt\": 1024,\n    \"output\": 1024,.*\"kv_transfer\": \"layerwise\",\n    \"two_batch_overlap\": true,\n    \"weight_format\": \"bf16 \\(2 B/param\\)\",\n    \"kv_dtype\": \"bf16\",\n    \"mem_util\": 0.9,")
topoplan_cli_test(plan_disagg_table
                  ARGS plan --disagg --model llama-3-8b --topology hgx-h100-8 --nodes 2 --ttft-max 1000
                  EXPECT_STDOUT "Best split 1P:1D: .*prefill +1 +8 .*decode +1 +8 .*KV transfer: 128 KiB/token x 1,024 prompt tokens = 128 MiB per request")
topoplan_cli_test(plan_disagg_pools_too_large
                  ARGS plan --disagg --topology hgx-h100-8 --nodes 4 --prefill-nodes 3 --decode-nodes 2
                  EXIT 2 EXPECT_STDERR "--prefill-nodes: with --decode-nodes: both at least 1, and together at most the 4 servers")
topoplan_cli_test(plan_disagg_pins_refused ARGS plan --disagg --tp 8 EXIT 2
                  EXPECT_STDERR "--tp: .*--disagg searches one per pool")
topoplan_cli_test(plan_disagg_train_refused ARGS plan --disagg --mode train EXIT 2
                  EXPECT_STDERR "--disagg: plans serving, not --mode train")
topoplan_cli_test(plan_disagg_no_split_fits
                  ARGS plan --disagg --model deepseek-r1 --topology hgx-h100-8 --nodes 2 EXIT 3
                  EXPECT_STDOUT "No split: no split leaves the prefill pool a strategy that fits in memory")
# Mixed GPU pools (issue 27): H200 prefill and H20 decode on one fabric, from flags and from a
# cluster file; each pool names its GPU. Elsewhere a mixed cluster is refused (one GPU kind).
topoplan_cli_test(plan_disagg_mixed_flags
                  ARGS plan --disagg --model llama-3.1-70b --topology hgx-h200-8 --prefill-nodes 1
                       --decode-server hgx-h20-8 --decode-nodes 2 --tpot-max 50
                  EXPECT_STDOUT "\\(24 GPUs: H200-SXM prefill, H20 decode\\).*Best split 1P:2D: .*prefill +1 +8 x H200-SXM .*decode +2 +16 x H20 .*no aggregated comparison")
topoplan_cli_test(plan_disagg_mixed_file
                  ARGS plan --disagg --model llama-3.1-70b --json --tpot-max 50 --topology
                       ${PROJECT_SOURCE_DIR}/examples/mixed-pools/h200-prefill-h20-decode.json
                  EXPECT_STDOUT "\"prefill_gpu\": \"H200-SXM\",\n  \"decode_gpu\": \"H20\".*\"ratio\": \"4P:8D\"")
topoplan_cli_test(plan_disagg_mixed_needs_disagg
                  ARGS plan --model llama-3.1-70b --topology hgx-h200-8 --decode-server hgx-h20-8
                  EXIT 2 EXPECT_STDERR "--decode-server: names the decode pool's server: use it with --disagg")
topoplan_cli_test(plan_disagg_mixed_needs_counts
                  ARGS plan --disagg --model llama-3.1-70b --topology hgx-h200-8 --decode-server hgx-h20-8
                  EXIT 2 EXPECT_STDERR "--decode-server: needs --prefill-nodes and --decode-nodes")
topoplan_cli_test(plan_mixed_cluster_refused
                  ARGS plan --model llama-3.1-70b --topology
                       ${PROJECT_SOURCE_DIR}/examples/mixed-pools/h200-prefill-h20-decode.json
                  EXIT 2 EXPECT_STDERR "its GPUs differ \\(.*H200-SXM.*H20")
topoplan_cli_test(plan_disagg_request_rate
                  ARGS plan --disagg --model llama-3-8b --topology hgx-h100-8 --nodes 2 --ttft-max 1000
                       --request-rate 1000
                  EXPECT_STDOUT "For 1000 requests/s: [0-9,]+ cop(y|ies) of this 1P:1D system = [0-9,]+ servers, [0-9,]+ GPUs")
topoplan_cli_test(plan_disagg_request_rate_bad
                  ARGS plan --disagg --model llama-3-8b --topology hgx-h100-8 --nodes 2 --request-rate -5
                  EXIT 2 EXPECT_STDERR "--request-rate: must be a finite rate")
# Wide EP with redundant expert slots (issue 27): EP144 over 288 slots, and the refusals.
topoplan_cli_test(plan_ep144_redundant_slots
                  ARGS plan --model deepseek-r1 --topology hgx-h800-8 --nodes 18 --ep-slots 288
                       --tp 144 --ep 144 --pp 1 --dp 1 --attention-dp true --json
                  EXPECT_STDOUT "\"tp\": 144,\n *\"pp\": 1,\n *\"ep\": 144,.*\"fits\": true")
topoplan_cli_test(plan_ep_slots_fewer_than_experts
                  ARGS plan --model deepseek-r1 --ep-slots 200 EXIT 2
                  EXPECT_STDERR "--ep-slots: expert slots \\(200\\) fewer than the 256 routed experts")
topoplan_cli_test(plan_redundant_experts_dense
                  ARGS plan --model llama-3-8b --redundant-experts 8 EXIT 2
                  EXPECT_STDERR "--redundant-experts: llama-3-8b has no routed experts")
# The breakdown's queue term says what it is (issue 28): serve mode's TTFT includes the wait.
topoplan_cli_test(plan_queue_term_explained
                  ARGS plan --model llama-3-8b --topology hgx-h100-8
                  EXPECT_STDOUT "  queue: the mean wait of a newly arrived prompt before its prefill")
# Issue 30: llama-3.1-70b plans on the new platforms; figures that are not public are noted.
foreach(_server hgx-b300-8 gb300-nvl72 pcie-h100nvl-8 amd-mi355x-8 cloudmatrix-384)
  topoplan_cli_test(plan_70b_${_server} ARGS plan --model llama-3.1-70b --topology ${_server}
                    EXPECT_STDOUT "llama-3.1-70b on ${_server} .*Best: tp[0-9]+ pp[0-9]+ dp[0-9]+")
endforeach()
topoplan_cli_test(plan_70b_ascend_note ARGS plan --model llama-3.1-70b --topology ascend-910b-8
                  EXPECT_STDOUT "note: Ascend-910B: hbm_GBps, bf16_TFLOPS.*not public")
topoplan_cli_test(plan_70b_ascend_note_json
                  ARGS plan --model llama-3.1-70b --topology ascend-910b-8 --json
                  EXPECT_STDOUT "\"catalog_notes\": \\[[^]]*\"Ascend-910B: ")
# Issue 31: --csv loads with pandas (Debian python3-pandas) for plan, train, compare, collective.
# The first python3 that imports pandas (a pyenv python3 on PATH may not see Debian's packages).
include(${PROJECT_SOURCE_DIR}/cmake/python_with.cmake)
python_with(pandas pandas_python ${PYTHON3} /usr/bin/python3)
if(pandas_python)
  add_test(NAME cli_csv_pandas
           COMMAND ${pandas_python} ${CMAKE_CURRENT_SOURCE_DIR}/csv_pandas.py
                   $<TARGET_FILE:topoplan_cli> ${CMAKE_CURRENT_BINARY_DIR}/csv_pandas)
else()
  message(WARNING "no python3 with pandas: cli_csv_pandas is not run (scripts/install-deps.sh "
                  "installs python3-pandas)")
endif()
topoplan_cli_test(plan_csv_stdout_header
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --mode decode --batch 16
                       --top 2 --csv --quiet
                  EXPECT_STDOUT "^strategy\\.tp,strategy\\.pp,strategy\\.ep,strategy\\.dp,strategy\\.attention_dp,fits,reason,meets_limits,memory_per_gpu_bytes,memory\\.capacity_bytes,")
topoplan_cli_test(plan_csv_file_keeps_table
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --mode decode --batch 16
                       --top 2 --quiet --csv ${CMAKE_CURRENT_BINARY_DIR}/plan_csv_file.csv
                  EXPECT_STDOUT "llama-3-8b on hgx-h100-8")
topoplan_cli_test(plan_csv_disagg_splits
                  ARGS plan --model deepseek-r1 --topology hgx-h20-8 --nodes 2 --disagg
                       --tpot-max 50 --quiet --csv
                  EXPECT_STDOUT "^ratio,requests_per_s,goodput_tokens_per_s,bottleneck,ttft_ms,tpot_ms\r\n1P:1D,")
# --disagg that misses only the TPOT limit says so, not that the model needs more GPUs (issue 28).
topoplan_cli_test(plan_disagg_tpot_unmet
                  ARGS plan --disagg --model llama-3-8b --topology hgx-h100-8 --nodes 2
                       --tpot-max 1
                  EXIT 3 EXPECT_STDOUT "no decode pool meets --tpot-max 1 ms: the fastest fitting strategy takes [0-9.]+ ms per token")
# A fractional batch was rounded up silently (issue 28's walk).
topoplan_cli_test(plan_batch_fraction ARGS plan --model llama-3-8b --topology hgx-h100-8 --batch 2.5
                  EXIT 2 EXPECT_STDERR "--batch: must be a whole number of sequences, got 2.5")
# Issue 32: past 4,096 ranks a placement is written as runs of whole servers; --placement-detail
# lists every rank.
topoplan_cli_test(plan_placement_runs
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --nodes 520 --top 1 --json --quiet
                  EXPECT_STDOUT "\"gpus_used\": null,\n  \"gpus_used_runs\": .*\"placement\": null,\n *\"placement_runs\": {\n *\"order\": \"tp-pp-dp\",\n *\"ranks\": 4160,")
topoplan_cli_test(plan_placement_detail
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --nodes 520 --top 1 --json --quiet
                       --placement-detail
                  EXPECT_STDOUT "\"device\": \"n519/gpu7\"")
# Training ignores attention DP: refused like every serving-only flag (issue 28).
topoplan_cli_test(plan_train_refuses_attention_dp
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --attention-dp true
                  EXIT 2 EXPECT_STDERR "--attention-dp: sets up serving, not --mode train")
topoplan_cli_test(plan_disagg_refuses_batch
                  ARGS plan --disagg --model llama-3-8b --topology hgx-h100-8 --nodes 2 --batch 64
                  EXIT 2 EXPECT_STDERR "--batch: .*drop --batch")
# Two vLLM instances on one server get their own ports, as sglang's do (issue 28).
topoplan_cli_test(plan_emit_vllm_ports
                  ARGS plan --model llama-3-70b --topology hgx-h100-8 --tpot-max 30 --emit vllm
                  EXPECT_STDOUT "CUDA_VISIBLE_DEVICES=4,5,6,7 .*--port 8001")

# A plan that does not fit was never timed (issue 32): its times, rates and breakdown are null,
# not zeros. DeepSeek-R1 on two H100 servers: TP1 DP16 cannot hold the 627 GiB of weights.
topoplan_cli_test(plan_unfit_plans_have_null_times
                  ARGS plan --model deepseek-r1 --topology hgx-h100-8 --nodes 2 --json
                  EXPECT_STDOUT "\"fits\": false,[^\\[]*\"ttft_ms\": null,[^\\[]*\"tokens_per_s_per_user\": null,[^\\[]*\"breakdown\": null")
# A strategy refused for its shape was never sized either (issue 32): its memory is null, not a
# block of zeros; one refused for memory keeps the sizes that refused it.
topoplan_cli_test(plan_shape_refused_plans_have_null_memory
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --gpus 6 --json --quiet
                  EXPECT_STDOUT "\"reason\": \"heads 32 not divisible by tp 3\",\n *\"meets_limits\": false,\n *\"memory_per_gpu_bytes\": null,\n *\"memory\": null,")
topoplan_cli_test(plan_memory_refused_plans_keep_memory
                  ARGS plan --model deepseek-r1 --topology hgx-h100-8 --nodes 2 --json
                  EXPECT_STDOUT "\"fits\": false,\n *\"reason\": \"weights [^\"]*exceed[^\"]*\",\n *\"meets_limits\": false,\n *\"memory_per_gpu_bytes\": [0-9]")
