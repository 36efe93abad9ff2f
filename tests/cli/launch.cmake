# Issue 31: plan --emit. Each expected file in golden/launch_*.txt was written by hand from the
# engine's documented flags (docs/launch.md) for the pinned plan below, before the emitter ran.
set(r1_pins --model deepseek-r1 --mode decode --batch 256 --tp 8 --pp 1 --dp 1 --ep 8
            --attention-dp true --quiet)
topoplan_cli_test(launch_sglang_r1_h200 ARGS plan --topology hgx-h200-8 ${r1_pins} --emit sglang
                  GOLDEN launch_sglang_r1_h200.txt)
topoplan_cli_test(launch_vllm_r1_h200 ARGS plan --topology hgx-h200-8 ${r1_pins} --emit vllm
                  GOLDEN launch_vllm_r1_h200.txt)
topoplan_cli_test(launch_trtllm_r1_h200 ARGS plan --topology hgx-h200-8 ${r1_pins} --emit trtllm
                  GOLDEN launch_trtllm_r1_h200.txt)
# One instance over two servers: a command per server.
topoplan_cli_test(launch_sglang_r1_h100x2
                  ARGS plan --model deepseek-r1 --topology hgx-h100-8 --nodes 2 --mode decode
                       --batch 512 --tp 16 --pp 1 --dp 1 --ep 16 --attention-dp true --quiet
                       --emit sglang
                  GOLDEN launch_sglang_r1_h100x2.txt)
# Two replicas, one per server.
topoplan_cli_test(launch_vllm_llama70b_h100x2
                  ARGS plan --model llama-3-70b --topology hgx-h100-8 --nodes 2 --mode decode
                       --batch 64 --tp 8 --pp 1 --dp 2 --quiet --emit vllm
                  GOLDEN launch_vllm_llama70b_h100x2.txt)
# Disaggregated: one block per pool (prefill on n0, decode on n1).
topoplan_cli_test(launch_dynamo_r1_disagg
                  ARGS plan --model deepseek-r1 --topology hgx-h20-8 --nodes 2 --disagg
                       --prefill-nodes 1 --decode-nodes 1 --tpot-max 50 --quiet --emit dynamo
                  GOLDEN launch_dynamo_r1_disagg.txt)
set(train_pins --mode train --model llama-3-8b --topology hgx-h100-8 --nodes 2 --tp 2 --pp 2
               --dp 4 --cp 1 --vp 1 --zero 1 --recompute selective --sp true --micro-batch 1
               --global-batch 64 --seq 8192 --precision bf16 --no-timing --quiet)
topoplan_cli_test(launch_megatron_llama8b_h100x2 ARGS plan ${train_pins} --emit megatron
                  GOLDEN launch_megatron_llama8b_h100x2.txt)
topoplan_cli_test(launch_torchtitan_llama8b_h100x2 ARGS plan ${train_pins} --emit torchtitan
                  GOLDEN launch_torchtitan_llama8b_h100x2.txt)
# By hand: Llama-3-8B's 32 layers over pp2 x vp1 = 2 stages are 16 per stage, with no layer taken
# off the first and last stages (torchtitan's default takes one each); the pinned plan has dp > 1
# and ZeRO-1, so Megatron gets both overlap flags the step time assumes.
topoplan_cli_test(launch_torchtitan_layers_per_stage ARGS plan ${train_pins} --emit torchtitan
                  EXPECT_STDOUT "--parallelism.pipeline_parallel_layers_per_stage 16 .*first_stage_less_layers 0")
topoplan_cli_test(launch_megatron_overlap_flags ARGS plan ${train_pins} --emit megatron
                  EXPECT_STDOUT "--use-distributed-optimizer .*--overlap-grad-reduce .*--overlap-param-gather")
# Refusals: a serving engine for training and back, an unknown engine, --emit with --json.
topoplan_cli_test(launch_train_engine_for_serving ARGS plan --emit megatron --quiet EXIT 2
                  EXPECT_STDERR "sglang")
topoplan_cli_test(launch_serving_engine_for_training
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --emit vllm --quiet
                  EXIT 2 EXPECT_STDERR "megatron")
topoplan_cli_test(launch_emit_with_json ARGS plan --emit sglang --json EXIT 2
                  EXPECT_STDERR "--emit: prints the launch commands on stdout")
