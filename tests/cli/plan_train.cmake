# CLI tests of `topoplan plan --mode train` (docs/training.md).
topoplan_cli_test(plan_train_llama_3_8b_json
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --seq 4096
                       --global-batch 32 --top 2 --json --no-timing
                  GOLDEN plan_train_llama_3_8b.json)
topoplan_cli_test(plan_train_table
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --seq 4096
                       --global-batch 32 --train-tokens 1e12
                  EXPECT_STDOUT "llama-3-8b training on hgx-h100-8.*(beats|tie).*strategies enumerated")
topoplan_cli_test(plan_train_pins
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --seq 4096
                       --global-batch 32 --tp 2 --pp 2 --vp 2 --zero 1 --recompute selective
                       --precision bf16 --sp true --micro-batch 1 --top 1
                  EXPECT_STDOUT "tp2 sp cp1 pp2 vp2 dp2 zero1 rc:selective mb1 bf16")
topoplan_cli_test(plan_train_no_fit
                  ARGS plan --mode train --model llama-3.1-405b --topology hgx-h100-8 --json
                  EXIT 3 EXPECT_STDOUT "\"fits\": false")
# `status` as in the serving plan JSON: first key, "no_plan_fits" with exit 3, "ok" with exit 0.
topoplan_cli_test(plan_train_no_fit_status
                  ARGS plan --mode train --model llama-3.1-405b --topology hgx-h100-8 --json
                  EXIT 3 EXPECT_STDOUT "^{\n  \"status\": \"no_plan_fits\",\n  \"request\"")
topoplan_cli_test(plan_train_ok_status
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --json --top 1
                  EXPECT_STDOUT "^{\n  \"status\": \"ok\",")
topoplan_cli_test(plan_train_bad_recompute
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --recompute some
                  EXIT 2 EXPECT_STDERR "unknown recompute .some.")
topoplan_cli_test(plan_train_bad_zero
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --zero 4
                  EXIT 2 EXPECT_STDERR "--zero")
topoplan_cli_test(plan_train_bad_ep
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --ep 2
                  EXIT 2 EXPECT_STDERR "--ep")
# Training numbers are checked where they enter too (issue 11): inf/NaN refused by field, exit 2.
topoplan_cli_test(plan_train_seq_inf
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --seq inf
                  EXIT 2 EXPECT_STDERR "--seq: must be a finite number")
topoplan_cli_test(plan_train_tokens_nan
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --train-tokens nan
                  EXIT 2 EXPECT_STDERR "--train-tokens: must be 0 or 1 to 1e\\+16 tokens \\(docs/limits.md\\), got nan")
# --engine (issue 26): nemo turns on TE userbuffers TP overlap; torchtitan pins ZeRO-3 (FSDP2);
# a serving engine name is refused in train mode and a training one in serve mode.
topoplan_cli_test(plan_train_engine_nemo
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --seq 4096
                       --global-batch 32 --tp 2 --top 1 --engine nemo --json
                  EXPECT_STDOUT "\"tp_comm_overlap\": true,.*\"engine\": \"nemo\"")
topoplan_cli_test(plan_train_engine_torchtitan
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --seq 4096
                       --global-batch 32 --top 1 --engine torchtitan
                  EXPECT_STDOUT "dp8 zero3 ")
topoplan_cli_test(plan_train_engine_bad
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --engine sglang
                  EXIT 2 EXPECT_STDERR "unknown engine 'sglang'; known: megatron, nemo, torchtitan")
topoplan_cli_test(plan_engine_serving_bad
                  ARGS plan --topology hgx-h200-8 --engine nemo
                  EXIT 2 EXPECT_STDERR "unknown engine 'nemo'; known: sglang, vllm, trtllm")
topoplan_cli_test(plan_engine_trtllm
                  ARGS plan --topology hgx-h200-8 --tp 8 --batch 64 --engine trtllm --json
                  EXPECT_STDOUT "\"nvls\": true,\n.*\"moe_comm\": \"allgather\"")
topoplan_cli_test(plan_engine_trtllm_flag_wins
                  ARGS plan --topology hgx-h200-8 --tp 8 --batch 64 --engine trtllm --nvls off --json
                  EXPECT_STDOUT "\"nvls\": false,")
# Report flags that only the serving plan writes are refused in train mode, not ignored (issue 28).
topoplan_cli_test(plan_train_html_refused
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --html t.html
                  EXIT 2 EXPECT_STDERR "--html: not available with --mode train")
topoplan_cli_test(plan_train_render_refused
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --render t.png
                  EXIT 2 EXPECT_STDERR "--render: not available with --mode train")
# With CP the gradient group (dp x cp ranks) is named dp-cp, not dp (issue 28).
topoplan_cli_test(plan_train_dp_cp_group
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --seq 8192
                       --global-batch 8 --tp 1 --cp 8 --pp 1 --top 1
                  EXPECT_STDOUT "\n  dp-cp +1 +8 +NVL")
# Layers that do not divide into pp x vp chunks: the Megatron command states the plan's split
# with --pipeline-model-parallel-layout (issue 28: it printed a command Megatron asserts on; the
# layout string itself is checked by hand in tests/report/launch_test.cpp).
topoplan_cli_test(emit_megatron_uneven_layers
                  ARGS plan --mode train --model mixtral-8x22b --topology hgx-h100-8 --nodes 8
                       --seq 4096 --global-batch 256 --ep 4 --precision fp8 --pp 8 --vp 6 --emit megatron
                  EXPECT_STDOUT "--pipeline-model-parallel-layout 'Ett..tt...7.t...39tL'")
topoplan_cli_test(emit_megatron_uneven_layers_note
                  ARGS plan --mode train --model mixtral-8x22b --topology hgx-h100-8 --nodes 8
                       --seq 4096 --global-batch 256 --ep 4 --precision fp8 --pp 8 --vp 6 --emit megatron
                  EXPECT_STDOUT "# 56 layers over pp x vp = 48 chunks: --pipeline-model-parallel-layout gives the first 8 chunks one layer more")
topoplan_cli_test(emit_torchtitan_uneven_layers
                  ARGS plan --mode train --model mixtral-8x22b --topology hgx-h100-8 --nodes 8
                       --seq 4096 --global-batch 256 --ep 4 --precision fp8 --pp 8 --vp 6 --emit torchtitan
                  EXPECT_STDOUT "# 56 layers do not divide into pp x vp = 48 stages")
# Combined 1F1B EP overlap (issue 26): the Megatron command carries its flag; pp > 1 without
# virtual stages is refused (Megatron-Core requires the interleaved schedule for it), and so is
# the flag outside --mode train.
topoplan_cli_test(emit_megatron_ep_overlap
                  ARGS plan --mode train --model mixtral-8x22b --topology hgx-h100-8 --nodes 8
                       --seq 4096 --global-batch 256 --ep 8 --precision fp8 --pp 4 --vp 2
                       --ep-overlap --emit megatron
                  EXPECT_STDOUT "--overlap-moe-expert-parallel-comm")
topoplan_cli_test(ep_overlap_needs_vp
                  ARGS plan --mode train --model mixtral-8x22b --topology hgx-h100-8 --nodes 8
                       --seq 4096 --global-batch 256 --pp 4 --vp 1 --ep-overlap
                  EXIT 2 EXPECT_STDERR "--ep-overlap: with pp > 1 needs vp > 1")
topoplan_cli_test(ep_overlap_train_only
                  ARGS plan --model mixtral-8x22b --topology hgx-h100-8 --ep-overlap
                  EXIT 2 EXPECT_STDERR "--ep-overlap")

# Selective recompute by module and FP8 parameter gathers (issue 26): the Megatron command
# carries both flags with the pinned modules; an unknown module, a module list under full
# recompute and FP8 gathers without the distributed optimizer are refused by name.
topoplan_cli_test(emit_megatron_recompute_modules
                  ARGS plan --mode train --model deepseek-v3 --topology hgx-h100-8 --nodes 128
                       --seq 4096 --global-batch 8192 --micro-batch 1 --tp 2 --pp 8 --vp 4
                       --ep 64 --zero 1 --precision fp8 --recompute-modules mla_up_proj,mlp
                       --fp8-param-gather --emit megatron
                  EXPECT_STDOUT "--recompute-modules mla_up_proj mlp .*--fp8-param-gather")
topoplan_cli_test(recompute_modules_unknown
                  ARGS plan --mode train --model deepseek-v3 --topology hgx-h100-8 --nodes 8
                       --recompute-modules mla_up_proj,attention
                  EXIT 2 EXPECT_STDERR "unknown recompute module 'attention'")
topoplan_cli_test(recompute_modules_not_full
                  ARGS plan --mode train --model deepseek-v3 --topology hgx-h100-8 --nodes 8
                       --recompute full --recompute-modules mlp
                  EXIT 2 EXPECT_STDERR "--recompute-modules: apply to selective recompute only")
# --grad-reduce (Megatron-LM reduces bf16 training's gradients in fp32 by default): bf16 prints
# Megatron's --grad-reduce-in-bf16, the engine default does not, and the JSON echoes the choice.
topoplan_cli_test(grad_reduce_bf16_emit
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --tp 1 --pp 1
                       --dp 8 --zero 1 --grad-reduce bf16 --emit megatron
                  EXPECT_STDOUT "--bf16 .*--grad-reduce-in-bf16")
topoplan_cli_test(grad_reduce_engine_default_json
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --engine nemo
                       --no-timing --json
                  EXPECT_STDOUT "\"grad_reduce\": \"bf16\"")
topoplan_cli_test(grad_reduce_unknown
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --grad-reduce fp16
                  EXIT 2 EXPECT_STDERR "--grad-reduce: fp16 not in")
topoplan_cli_test(fp8_param_gather_needs_zero
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8
                       --precision fp8 --zero 0 --fp8-param-gather
                  EXIT 2 EXPECT_STDERR "--fp8-param-gather: needs a ZeRO stage >= 1")
topoplan_cli_test(fp8_param_gather_train_only
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --fp8-param-gather
                  EXIT 2 EXPECT_STDERR "--fp8-param-gather")
