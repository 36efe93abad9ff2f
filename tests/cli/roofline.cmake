# CLI tests of `topoplan model roofline` (owned by the perf module, docs/compute-model.md).
# The seed's bound: DeepSeek-R1 FP8 on one H20 at 4000 GB/s (37.7 GB active weights: 36.6 B
# parameters, FP8 experts/attention plus bf16 embedding and LM head) = 9.42 ms; at 64 GB/s 589 ms.
topoplan_cli_test(roofline_r1_h20_json ARGS model roofline deepseek-r1 --gpu H20 --json
                  GOLDEN roofline_r1_h20.json)
topoplan_cli_test(roofline_r1_cpu64_json
                  ARGS model roofline deepseek-r1 --gpu H20 --mem-bw 64GB/s --json
                  GOLDEN roofline_r1_cpu64.json)
topoplan_cli_test(roofline_llama3_8b_h200_json
                  ARGS model roofline llama-3-8b --gpu H200-SXM --batch 8 --context 8192 --json
                  GOLDEN roofline_llama3_8b_h200.json)
topoplan_cli_test(roofline_llama3_70b_tp4_json
                  ARGS model roofline llama-3-70b --gpu H200-SXM --tp 4 --batch 32 --json
                  GOLDEN roofline_llama3_70b_tp4.json)
topoplan_cli_test(roofline_r1_h20_table ARGS model roofline deepseek-r1 --gpu H20
                  EXPECT_STDOUT "naive bound +37.7 GB of active weights / 4000 GB/s = 9.42 ms")
topoplan_cli_test(roofline_r1_cpu_table ARGS model roofline deepseek-r1 --gpu H20 --mem-bw 64GB/s
                  EXPECT_STDOUT "/ 64 GB/s = 588.[0-9][0-9] ms")
topoplan_cli_test(roofline_r1_not_feasible ARGS model roofline deepseek-r1 --gpu H20
                  EXPECT_STDOUT "does not fit one H20")
topoplan_cli_test(roofline_unknown_gpu ARGS model roofline llama-3-8b --gpu H2O EXIT 2
                  EXPECT_STDERR "H20")
topoplan_cli_test(roofline_missing_gpu ARGS model roofline llama-3-8b EXIT 2 EXPECT_STDERR "--gpu")
topoplan_cli_test(roofline_bad_mem_bw ARGS model roofline llama-3-8b --gpu H20 --mem-bw fast EXIT 2
                  EXPECT_STDERR "--mem-bw")
topoplan_cli_test(roofline_bad_tp ARGS model roofline llama-3-8b --gpu H20 --tp 3 EXIT 2
                  EXPECT_STDERR "--tp")
topoplan_cli_test(roofline_bad_batch ARGS model roofline llama-3-8b --gpu H20 --batch 0 EXIT 2
                  EXPECT_STDERR "--batch")
topoplan_cli_test(roofline_fp4_on_h100 ARGS model roofline llama-3-8b --gpu H100-SXM --precision fp4
                  EXPECT_STDOUT "note: fp4 weights: H100-SXM has no fp4 tensor cores")
topoplan_cli_test(roofline_batch_inf ARGS model roofline llama-3-8b --gpu H20 --batch inf EXIT 2
                  EXPECT_STDERR "--batch: must be a finite number")
topoplan_cli_test(roofline_context_inf ARGS model roofline llama-3-8b --gpu H20 --context inf
                  EXIT 2 EXPECT_STDERR "--context: must be a finite number")
# Issue 28: a GPU defined in a topology file's own catalog is reachable with --topology, and
# --gpu defaults to the topology's GPU. MI300X-like: 5300 GB/s HBM (the file's catalog entry).
set(custom_accel ${PROJECT_SOURCE_DIR}/examples/custom-accelerator/mi300x-like-8.json)
topoplan_cli_test(roofline_file_catalog
                  ARGS model roofline llama-3-70b --topology ${custom_accel} --gpu MI300X-like
                  EXPECT_STDOUT "/ 5300 GB/s = ")
topoplan_cli_test(roofline_topology_default_gpu
                  ARGS model roofline llama-3-70b --topology ${custom_accel}
                  EXPECT_STDOUT "MI300X-like")
topoplan_cli_test(roofline_builtin_topology ARGS model roofline llama-3-8b --topology hgx-h20-8
                  EXPECT_STDOUT "/ 4000 GB/s = ")
