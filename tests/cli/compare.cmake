# CLI tests of `topoplan compare` (report/compare*.cpp). The first case of issue 9: DeepSeek-R1 on
# 8x H20 vs 8x H200 vs 2x8 H800, each with its own GPU-hour price.
topoplan_cli_test(compare_r1_json
                  ARGS compare --model deepseek-r1 --topology hgx-h20-8:price=1.2
                       --topology hgx-h200-8:price=3.5 --topology hgx-h800-8:nodes=2:price=2.1
                       --json
                  GOLDEN compare_r1_h20_h200_h800x2.json)
topoplan_cli_test(compare_r1_table
                  ARGS compare --model deepseek-r1 --topology hgx-h20-8 --topology hgx-h200-8
                       --gpu-hour-price 1.2 --tpot-max 50
                  EXPECT_STDOUT "design +strategy.*\\$/Mtok.*wins on \\$ per million output tokens")
topoplan_cli_test(compare_one_design ARGS compare --topology hgx-h20-8 EXIT 2
                  EXPECT_STDERR "at least 2 designs")
topoplan_cli_test(compare_bad_key ARGS compare --topology hgx-h20-8:nodez=2 --topology hgx-h200-8
                  EXIT 2 EXPECT_STDERR "nodez")
topoplan_cli_test(compare_bad_price_count
                  ARGS compare --topology hgx-h20-8 --topology hgx-h200-8 --gpu-hour-price 1
                       --gpu-hour-price 2 --gpu-hour-price 3
                  EXIT 2 EXPECT_STDERR "one per design")
# Issue 28: a design from a topology file with its own catalog GPU is priced from that catalog
# (it failed with "unknown GPU model 'MI300X-like'"): its TDP, 750 W, is the file's figure.
topoplan_cli_test(compare_file_catalog
                  ARGS compare --model llama-3-70b --topology
                       ${PROJECT_SOURCE_DIR}/examples/custom-accelerator/mi300x-like-8.json
                       --topology hgx-h100-8 --json
                  EXPECT_STDOUT "\"gpu_W\": 750")
