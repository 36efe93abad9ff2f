# CLI tests of `topoplan model list|show` (owned by the model module). Inputs for file-based
# tests live beside the goldens as golden/model_input_*.json.
set(model_inputs ${CMAKE_CURRENT_SOURCE_DIR}/golden)
topoplan_cli_test(model_list_json ARGS model list --json GOLDEN model_list.json)
topoplan_cli_test(model_list_table ARGS model list
                  EXPECT_STDOUT "deepseek-r1 +MoE MLA +671.03 B +36.63 B +61 +7168 +160K +fp8")
topoplan_cli_test(model_show_deepseek_r1_json ARGS model show deepseek-r1 --json
                  GOLDEN model_show_deepseek_r1.json)
topoplan_cli_test(model_show_llama_3_70b_tp8_json
                  ARGS model show llama-3-70b --tp 8 --batch 16 --context 2048 --json
                  GOLDEN model_show_llama_3_70b_tp8.json)
topoplan_cli_test(model_show_table ARGS model show mixtral-8x22b
                  EXPECT_STDOUT "routed_experts +135.29 B +33.82 B")
topoplan_cli_test(model_show_kv_bytes ARGS model show llama-3-70b
                  EXPECT_STDOUT "KV cache: 327680 B per token")
# Qwen2.5-0.5B's config.json (tied embeddings, QKV bias): 494M parameters per its model card.
topoplan_cli_test(model_show_hf_config ARGS model show ${model_inputs}/model_input_hf_qwen2.json --json
                  GOLDEN model_show_hf_qwen2.json)
topoplan_cli_test(model_show_unknown ARGS model show llama-3-8 EXIT 2 EXPECT_STDERR "llama-3-8b")
topoplan_cli_test(model_show_bad_file ARGS model show ${model_inputs}/model_input_bad_kv_heads.json
                  EXIT 2 EXPECT_STDERR "model_input_bad_kv_heads.json.*/attention/kv_heads")
topoplan_cli_test(model_show_bad_tp ARGS model show llama-3-8b --tp 3 EXIT 2 EXPECT_STDERR "--tp")
topoplan_cli_test(model_show_bad_ep ARGS model show llama-3-8b --ep 2 EXIT 2 EXPECT_STDERR "--ep")
topoplan_cli_test(model_no_subcommand ARGS model EXIT 2)
topoplan_cli_test(model_show_precision_int4 ARGS model show llama-3-8b --precision int4
                  EXPECT_STDOUT "weights int4\\+fp16 scales")
topoplan_cli_test(model_list_context ARGS model list
                  EXPECT_STDOUT "context.*llama-3.1-8b +dense GQA +8.03 B +7.50 B +32 +4096 +128K")
# model show shares the batch, prompt and context rules with plan and roofline (issue 11).
topoplan_cli_test(model_show_batch_inf ARGS model show llama-3-8b --batch inf EXIT 2
                  EXPECT_STDERR "--batch: must be a finite number")
topoplan_cli_test(model_show_batch_half ARGS model show llama-3-8b --batch 0.5 EXIT 2
                  EXPECT_STDERR "--batch: must be at least 1 sequence")
topoplan_cli_test(model_show_context_nan ARGS model show llama-3-8b --context nan EXIT 2
                  EXPECT_STDERR "--context: must be a finite number")
topoplan_cli_test(model_show_prompt_1e19 ARGS model show llama-3-8b --prompt 1e19 EXIT 2
                  EXPECT_STDERR "--prompt: must be at most 2\\^53 tokens")
# Without --context the default 4096 is capped at the model's context (GPT-3: 2048), so a short-
# context model still shows; a typed --context past it is refused (tests/bad_input).
topoplan_cli_test(model_show_short_context ARGS model show gpt3-175b --json
                  EXPECT_STDOUT "\"context\": 2048")
# Issue 29: a prompt past the model's context is refused like a context past it (the default
# 4096 is capped for GPT-3's 2048, so the model still shows untyped).
topoplan_cli_test(model_show_prompt_past_context ARGS model show llama-3-8b --prompt 100000 EXIT 2
                  EXPECT_STDERR "--prompt: 100000 tokens exceed the context of llama-3-8b \\(8192")
topoplan_cli_test(model_show_gpt3_default_prompt ARGS model show gpt3-175b
                  EXPECT_STDOUT "gpt3-175b")
