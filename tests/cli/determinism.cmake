# Determinism (issue 16): the same inputs give byte-identical JSON across runs and thread counts.
# same_output(NAME [THREADS] ARGS...): THREADS also compares --threads 1 with --threads 2.
function(same_output name)
  cmake_parse_arguments(S "THREADS" "" "ARGS" ${ARGN})
  set(flag "")
  if(S_THREADS)
    set(flag --threads)
  endif()
  add_test(NAME cli_same_output_${name}
           COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:topoplan_cli> "-DARGS=${S_ARGS}"
                   -DNAME=${name} -DTHREADS_FLAG=${flag}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/same_output.cmake)
endfunction()

# Inference and training plans: the search is spread over threads (cmd_plan.cpp --threads).
same_output(plan_llama_70b_h100x2 THREADS ARGS plan --model llama-3-70b --topology hgx-h100-8
            --nodes 2 --json --quiet)
same_output(plan_deepseek_r1_h20x2 THREADS ARGS plan --model deepseek-r1 --topology hgx-h20-8
            --nodes 2 --json --quiet)
same_output(plan_train_llama_8b THREADS ARGS plan --mode train --model llama-3-8b
            --topology hgx-h100-8 --json --quiet --no-timing)
# Collectives on a cluster: flows, link loads and algorithm choice (no threads flag).
same_output(collective_all_reduce_x16 ARGS collective all-reduce --topology hgx-h100-8
            --nodes 16 --sweep 1M:1G:4 --json)
same_output(collective_all_to_all_fat_tree ARGS collective all-to-all --topology hgx-h100-8
            --nodes 4 --fabric fat-tree --size 256MiB --json)
