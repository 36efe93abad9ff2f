# Script mode: imports SAMPLE (FORMAT, from stdin to cover `-`) with --name imported, then checks
# that `plan PLAN_ARGS --json` on the imported file prints exactly what it prints on the built-in
# BUILTIN, once the name "imported" is replaced by BUILTIN ("same plan JSON modulo names").
# One folder per test: ctest -j runs these scripts at the same time.
include(${CMAKE_CURRENT_LIST_DIR}/mask_timing.cmake)
set(workdir ${CMAKE_CURRENT_BINARY_DIR}/cli_import_tmp/${NAME})
file(MAKE_DIRECTORY ${workdir})
execute_process(COMMAND ${BIN} topo import ${FORMAT} - -o ${workdir}/imported.json --name imported
                        ${IMPORT_ARGS}
                INPUT_FILE ${SAMPLE} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "import failed (${rc}):\n${err}")
endif()
execute_process(COMMAND ${BIN} plan ${PLAN_ARGS} --topology ${workdir}/imported.json --json
                RESULT_VARIABLE rc1 OUTPUT_VARIABLE imported ERROR_VARIABLE err1)
execute_process(COMMAND ${BIN} plan ${PLAN_ARGS} --topology ${BUILTIN} --json
                RESULT_VARIABLE rc2 OUTPUT_VARIABLE builtin ERROR_VARIABLE err2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "plan failed: ${rc1} ${err1} / ${rc2} ${err2}")
endif()
mask_timing(imported)
mask_timing(builtin)
string(REPLACE "\"imported\"" "\"${BUILTIN}\"" imported "${imported}")
if(NOT imported STREQUAL builtin)
  file(WRITE ${workdir}/imported_plan.json "${imported}")
  file(WRITE ${workdir}/builtin_plan.json "${builtin}")
  message(FATAL_ERROR "plans differ; see ${workdir}/imported_plan.json and builtin_plan.json")
endif()
string(LENGTH "${builtin}" n)
if(n LESS 1000)
  message(FATAL_ERROR "plan JSON suspiciously short (${n} chars):\n${builtin}")
endif()
