# Exit codes and help shared by every command.
topoplan_cli_test(help ARGS --help EXPECT_STDOUT "topoplan")
topoplan_cli_test(no_subcommand EXIT 2)
topoplan_cli_test(unknown_flag ARGS topo --bogus-flag EXIT 2)

# Every command and subcommand answers --help with its usage and exits 0.
foreach(cmd "topo" "topo list" "topo show" "topo paths" "topo validate" "collective" "model"
            "model list" "model show" "model roofline" "plan")
  string(REPLACE " " "_" id "${cmd}")
  string(REPLACE " " ";" cmd_args "${cmd}")
  topoplan_cli_test(help_${id} ARGS ${cmd_args} --help EXPECT_STDOUT "Usage:.*--help")
endforeach()

# Bad input files: exit 2 and a message naming the file and where in it (JSON pointer, line, or
# the device for a structural problem), for every command that reads the file.
set(cli_data ${CMAKE_CURRENT_SOURCE_DIR}/data)
foreach(cmd "topo show" "topo paths" "collective all-reduce --size 1M --topology"
            "plan --model llama-3-8b --topology")
  string(REGEX REPLACE " .*" "" id "${cmd}")
  if(cmd MATCHES "^topo ([a-z]+)")
    set(id "topo_${CMAKE_MATCH_1}")
  endif()
  string(REPLACE " " ";" cmd_args "${cmd}")
  topoplan_cli_test(${id}_malformed_topology ARGS ${cmd_args} ${cli_data}/topo_malformed.json
                    EXIT 2 EXPECT_STDERR "topo_malformed.json: line [0-9]+")
  topoplan_cli_test(${id}_unknown_link ARGS ${cmd_args} ${cli_data}/topo_unknown_link.json
                    EXIT 2 EXPECT_STDERR "topo_unknown_link.json: /links/0/type: unknown link type")
  # gpu2 and gpu3 are linked to each other only: stop before routing, not "no path" mid-way.
  topoplan_cli_test(${id}_disconnected ARGS ${cmd_args} ${cli_data}/topo_disconnected.json
                    EXIT 2 EXPECT_STDERR
                    "topo_disconnected.json: gpu2: GPU has no path to GPU 'gpu0' \\(2 problems")
  topoplan_cli_test(${id}_missing_file ARGS ${cmd_args} ${cli_data}/no_such_topology.json
                    EXIT 2 EXPECT_STDERR "no_such_topology.json: cannot open file")
endforeach()
topoplan_cli_test(topo_validate_disconnected ARGS topo validate ${cli_data}/topo_disconnected.json
                  EXIT 2 EXPECT_STDOUT "gpu2: GPU has no path.*gpu3: GPU has no path.*2 problem")
foreach(cmd "model show" "plan --topology hgx-h100-8 --model")
  string(REGEX REPLACE " .*" "" id "${cmd}")
  string(REPLACE " " ";" cmd_args "${cmd}")
  topoplan_cli_test(${id}_model_bad_field ARGS ${cmd_args} ${cli_data}/model_bad_hidden.json EXIT 2
                    EXPECT_STDERR "model_bad_hidden.json: /hidden_size: expected an integer")
endforeach()

# Counts are whole numbers >= 1, with a short message (not CLI11's range up to DBL_MAX).
topoplan_cli_test(count_zero ARGS topo show hgx-h100-8 --nodes 0 EXIT 2
                  EXPECT_STDERR "--nodes: must be a whole number >= 1, got '0'")
topoplan_cli_test(count_fraction ARGS model show llama-3-8b --tp 1.5 EXIT 2
                  EXPECT_STDERR "--tp: must be a whole number >= 1, got '1.5'")
# A path that does not exist is reported as a missing file, not as an unknown built-in name.
topoplan_cli_test(model_missing_file ARGS model show no/such/model.json EXIT 2
                  EXPECT_STDERR "no/such/model.json: cannot open file")
topoplan_cli_test(topo_missing_file ARGS topo show missing-topology.json EXIT 2
                  EXPECT_STDERR "missing-topology.json: cannot open file")
# Model JSON syntax errors name the line and column, like topology files.
topoplan_cli_test(model_truncated_json ARGS model show ${CMAKE_CURRENT_SOURCE_DIR}/data/model_truncated.json
                  EXIT 2 EXPECT_STDERR "model_truncated.json: line 4, column 1: malformed JSON")
# Every --help ends with an example command line (issue 10).
foreach(cmd "" plan topo "topo list" "topo show" "topo paths" "topo validate" "topo gpus"
        collective model "model list" "model show" "model roofline")
  string(REPLACE " " ";" cmd_args "${cmd}")
  string(REPLACE " " "_" cmd_name "help_example_${cmd}")
  topoplan_cli_test(${cmd_name} ARGS ${cmd_args} --help
                    EXPECT_STDOUT "Examples?:\n(  topoplan [^\n]+\n)+$")
endforeach()
# Every subcommand's --help example names that subcommand and runs (issue 28).
foreach(cmd "plan" "compare" "collective" "validate" "calibrate" "topo list" "topo gpus"
            "topo show" "topo paths" "topo validate" "topo import" "topo export" "topo render"
            "model list" "model show" "model roofline")
  string(REPLACE " " "_" id "${cmd}")
  add_test(NAME cli_help_example_runs_${id}
           COMMAND ${CMAKE_COMMAND} -DTOPOPLAN=$<TARGET_FILE:topoplan_cli>
                   -DSOURCE=${PROJECT_SOURCE_DIR}
                   -DWORK=${CMAKE_CURRENT_BINARY_DIR}/help_example_runs_${id} "-DCOMMAND=${cmd}"
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/help_examples.cmake)
endforeach()
# compare plans serving and, with a token budget, training (issue 30); model show has no
# training mode.
topoplan_cli_test(compare_help_modes ARGS compare --help
                  EXPECT_STDOUT "--mode TEXT=serve +serve \\| prefill \\| decode \\| train\n")
topoplan_cli_test(model_show_help_precision ARGS model show --help
                  EXPECT_STDOUT "int4 \\(AWQ/GPTQ g128\\); default: the model's own\n")
# Mistyped flags and subcommands get the closest name (issue 28).
topoplan_cli_test(typo_flag ARGS plan --topolgy hgx-h100-8
                  EXIT 2 EXPECT_STDERR "did you mean --topology\\?")
topoplan_cli_test(typo_subcommand ARGS plna EXIT 2 EXPECT_STDERR "did you mean plan\\?")
# Issue 28: the arguments not expected in command-line order (CLI11 lists them last first), the
# hint on the same line, "Run with --help" after it.
topoplan_cli_test(extras_in_order ARGS plan --topolgy hgx-h100-8 extra1 EXIT 2
                  EXPECT_STDERR "not expected: --topolgy hgx-h100-8 extra1 \\(did you mean --topology\\?\\)\nRun with --help")
# An extra argument that holds blanks stays whole and quoted, in its place.
topoplan_cli_test(extras_quoted ARGS plan --strategy "tp8 pp2" extra1 EXIT 2
                  EXPECT_STDERR "not expected: --strategy 'tp8 pp2' extra1")
# Two letters swapped is one edit, and ties go to the name of the same length: --model, not --mode.
topoplan_cli_test(typo_swapped_letters ARGS plan --modle llama-3-8b
                  EXIT 2 EXPECT_STDERR "did you mean --model\\?")
# A flag of the other mode would be ignored: refused, naming the mode it needs (issue 28).
topoplan_cli_test(serve_refuses_train_flag ARGS plan --model llama-3-8b --topology hgx-h100-8 --seq 4096
                  EXIT 2 EXPECT_STDERR "--seq: applies to --mode train")
topoplan_cli_test(train_refuses_serve_flag
                  ARGS plan --mode train --model llama-3-8b --topology hgx-h100-8 --tpot-max 20
                  EXIT 2 EXPECT_STDERR "--tpot-max: sets up serving, not --mode train")
topoplan_cli_test(pool_flag_needs_disagg
                  ARGS plan --model llama-3-8b --topology hgx-h100-8 --nodes 2 --prefill-nodes 1
                  EXIT 2 EXPECT_STDERR "--prefill-nodes: sizes the pools of --disagg")
topoplan_cli_test(compare_serve_refuses_train_flag
                  ARGS compare --model llama-3-8b --topology hgx-h100-8 --topology hgx-h200-8
                       --tokens 15T
                  EXIT 2 EXPECT_STDERR "--train-tokens: applies to --mode train")
topoplan_cli_test(compare_train_refuses_serve_flag
                  ARGS compare --mode train --model llama-3-8b --tokens 1T --topology hgx-h100-8
                       --topology hgx-h200-8 --tpot-max 20
                  EXIT 2 EXPECT_STDERR "--tpot-max: sets up serving, not --mode train")
topoplan_cli_test(typo_nested_subcommand ARGS topo shwo hgx-h100-8
                  EXIT 2 EXPECT_STDERR "did you mean show\\?")
topoplan_cli_test(typo_train_flag ARGS plan --mode train --globl-batch 8
                  EXIT 2 EXPECT_STDERR "did you mean --global-batch\\?")
# NCCL's topology XML is one server's: --nodes above 1 is refused with the reason (issue 28).
topoplan_cli_test(topo_export_nodes ARGS topo export nccl-xml hgx-h100-8 --nodes 2
                  EXIT 2 EXPECT_STDERR "--nodes: NCCL's topology XML describes one server")
# An empty value is refused by the flag's name, never read as "not given" (issue 29): CLI11
# converted `--batch ''` to 0, the "search the batch" default. (`--batch=` CLI11 refuses itself.)
add_test(NAME cli_empty_flag_value
         COMMAND sh -c "$<TARGET_FILE:topoplan_cli> plan --batch '' 2>&1; echo rc=$?")
set_tests_properties(cli_empty_flag_value PROPERTIES PASS_REGULAR_EXPRESSION
                     "--batch: empty value \\(give one, or leave the flag out\\).*rc=2")
# plan and compare --help cut their flags under headings (issue 28: the mode-only flags).
topoplan_cli_test(plan_help_groups ARGS plan --help
                  EXPECT_STDOUT "\n\nTraining \\(--mode train\\):\n  --seq .*\n\nDisaggregated serving \\(--disagg\\):\n  --disagg .*\n\nOutput:\n  --json ")
topoplan_cli_test(compare_help_groups ARGS compare --help
                  EXPECT_STDOUT "\n\nTraining \\(--mode train\\):\n  --seq .*\n\nBill of materials \\(--bom\\):\n  --bom ")
