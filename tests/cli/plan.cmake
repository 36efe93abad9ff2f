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
# The same golden on 2 threads (the search's output does not depend on the thread count) and
# without the progress bar; a thread count below 1 is refused.
topoplan_cli_test(plan_llama_3_8b_h100_json_2_threads
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --tp 4 --pp 1 --batch 16
                       --prompt 512 --output 256 --json --threads 2 --quiet
                  GOLDEN plan_llama_3_8b_h100.json)
topoplan_cli_test(plan_search_footer ARGS plan --threads 2
                  EXPECT_STDOUT "Search: 36 strategies evaluated in [0-9.]+ s on 2 threads")
topoplan_cli_test(plan_bad_threads ARGS plan --threads 0 EXIT 2 EXPECT_STDERR "--threads")
