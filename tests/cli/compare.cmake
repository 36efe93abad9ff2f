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
# Issue 30, part 2: the bill of materials from each design's graph. Two servers on NDR: one
# leaf per rail (8 leaves, 16 cables) against one fat-tree leaf (1 leaf, 16 cables).
topoplan_cli_test(compare_bom_json
                  ARGS compare --model llama-3-8b --topology hgx-h100-8:nodes=2:name=rail
                       --topology hgx-h100-8:nodes=2:fabric=fat-tree:name=fat-tree --bom --json
                  GOLDEN compare_bom_h100x2_rail_fat.json)
topoplan_cli_test(compare_bom_table
                  ARGS compare --model llama-3-8b --topology hgx-h100-8:nodes=2:name=rail
                       --topology hgx-h100-8:nodes=2:fabric=fat-tree:name=fat-tree --bom --pue 1.2
                       --price switch:ib-ndr400=20000
                  EXPECT_STDOUT "Bill of materials.*switches/tier.*facility kW.*rail +8 +16 +32 +16.*fat-tree +1 +16 +32 +16.*leaf switch +NVIDIA Quantum-2 QM9700[^\n]* 8 +747.0 +20,000.*optic nic-leaf.*x PUE 1.20.*PUE 1.20 \\(--pue\\)")
topoplan_cli_test(compare_bom_bad_price_file
                  ARGS compare --topology hgx-h100-8 --topology hgx-h200-8 --bom
                       --prices ${CMAKE_CURRENT_SOURCE_DIR}/data/prices_negative.json
                  EXIT 2 EXPECT_STDERR "prices_negative.json: /switches/0/usd: must be >= 0")
topoplan_cli_test(compare_bom_unknown_item
                  ARGS compare --topology hgx-h100-8 --topology hgx-h200-8 --bom
                       --price switch:ib-ndr401=5
                  EXIT 2 EXPECT_STDERR "--price: switch:ib-ndr401=5: .*switch:ib-ndr400")
topoplan_cli_test(compare_bom_bad_pue
                  ARGS compare --topology hgx-h100-8 --topology hgx-h200-8 --bom --pue 0.5
                  EXIT 2 EXPECT_STDERR "--pue: must be from 1 to 5")
# Issue 30 part 4: a token budget on three designs (days, GPU-hours, MWh, $, the winning strategy).
topoplan_cli_test(compare_train_json
                  ARGS compare --mode train --model llama-3-8b --tokens 15T --seq 4096
                       --global-batch 256 --top 1 --topology hgx-h100-8:nodes=4
                       --topology hgx-h200-8:nodes=4 --topology hgx-b200-8:nodes=2 --json
                  GOLDEN compare_train_llama8b_15T.json)
topoplan_cli_test(compare_train_table
                  ARGS compare --mode train --model llama-3-8b --tokens 15T --seq 4096
                       --global-batch 256 --top 1 --topology hgx-h100-8:nodes=4
                       --topology hgx-h200-8:nodes=4 --topology hgx-b200-8:nodes=2
                  EXPECT_STDOUT "mode train, 15,000,000,000,000 tokens.*GPU-hours.*(Cheapest|Fastest): ")
topoplan_cli_test(compare_train_no_budget
                  ARGS compare --mode train --model llama-3-8b --topology hgx-h100-8
                       --topology hgx-h200-8
                  EXIT 2 EXPECT_STDERR "--train-tokens: compare --mode train needs the token budget")
topoplan_cli_test(compare_train_bad_suffix
                  ARGS compare --mode train --tokens 1.5Q --topology hgx-h100-8 --topology hgx-h200-8
                  EXIT 2 EXPECT_STDERR "--train-tokens: expected a number with an optional K, M, B, G or T suffix, got '1.5Q'")
topoplan_cli_test(compare_train_no_bom
                  ARGS compare --mode train --tokens 1T --bom --topology hgx-h100-8
                       --topology hgx-h200-8
                  EXIT 2 EXPECT_STDERR "--bom: not available with --mode train yet")
# Issue 27: aggregated vs disaggregated rows per design; a mixed cluster file is one design.
topoplan_cli_test(compare_disagg_json
                  ARGS compare --disagg --model llama-3-8b --topology hgx-h100-8:nodes=2:price=2
                       --topology ${PROJECT_SOURCE_DIR}/examples/mixed-pools/h200-prefill-h20-decode.json:name=mixed
                       --gpu-hour-price 3 --tpot-max 50 --ttft-max 3000 --json
                  EXPECT_STDOUT "\"disagg\": true.*\"name\": \"hgx-h100-8 x2\".*\"rows\": ..*\"mode\": \"aggregated\".*\"mode\": \"disaggregated\",\n *\"gpus\": 16,\n *\"split\": \"1P:1D\".*\"name\": \"mixed\".*\"prefill_gpu\": \"H200-SXM\",\n *\"decode_gpu\": \"H20\".*\"usd_per_hour\": 288.0,.*\"criterion\": \"usd_per_mtok\",\n *\"overall\": {")
topoplan_cli_test(compare_disagg_table
                  ARGS compare --disagg --model llama-3-8b --topology hgx-h100-8:nodes=2
                       --topology ${PROJECT_SOURCE_DIR}/examples/mixed-pools/h200-prefill-h20-decode.json:name=mixed
                       --tpot-max 50
                  EXPECT_STDOUT "mixed +aggregated +- .*mixed GPUs: one kind per engine.*disaggregated +96 +4P:8D.*mixed: 32 x H200-SXM \\+ 64 x H20 on 12 server")
topoplan_cli_test(compare_disagg_no_chart
                  ARGS compare --disagg --chart c.png --topology hgx-h100-8 --topology hgx-h200-8
                  EXIT 2 EXPECT_STDERR "--chart: not available with --disagg yet")
# Issue 28: a tie is marked on every design that has it, not only the first.
topoplan_cli_test(compare_tie_marked_on_both
                  ARGS compare --model llama-3-8b --topology hgx-h100-8 --topology hgx-h100-8:name=again
                  EXPECT_STDOUT "hgx-h100-8 .* 8520\\.7 \\*.*\nagain .* 8520\\.7 \\*")
# A price far out of range is printed as a number a reader can read (it printed 300 digits).
topoplan_cli_test(compare_price_huge ARGS compare --topology hgx-h20-8 --topology hgx-h200-8
                  --gpu-hour-price 1e300 EXIT 2 EXPECT_STDERR "10000 USD per GPU-hour, got 1e\\+300\n")
# Flags compare would not read are refused (issue 28): they printed the run without them.
topoplan_cli_test(compare_pue_needs_bom ARGS compare --topology hgx-h20-8 --topology hgx-h200-8
                  --pue 1.3 EXIT 2 EXPECT_STDERR "--pue: prices the bill of materials: use it with --bom")
topoplan_cli_test(compare_top_refused ARGS compare --topology hgx-h20-8 --topology hgx-h200-8
                  --top 1 EXIT 2 EXPECT_STDERR "--top: compare shows each design's best plan")
topoplan_cli_test(compare_burst_refused ARGS compare --topology hgx-h20-8 --topology hgx-h200-8
                  --workload burst --requests 100 EXIT 2 EXPECT_STDERR "--workload: burst is not compared")
# No plan fits: the planner's own reason (the closest strategy), not tp1's 627 GiB of weights.
topoplan_cli_test(compare_no_fit_reason ARGS compare --model deepseek-r1 --topology hgx-h100-8
                  --topology pcie-l40s-8 EXIT 3 EXPECT_STDOUT "hgx-h100-8 .*no plan: No plan fits: .*the closest, tp8")
