# Script mode: runs BIN with ARGS (a ;-list) from a temporary directory (so embedded data, not the
# source tree, is used) and checks exit code, stderr/stdout patterns and an optional golden file.
set(workdir ${CMAKE_CURRENT_BINARY_DIR}/cli_run_tmp)
file(MAKE_DIRECTORY ${workdir})
execute_process(COMMAND ${BIN} ${ARGS} WORKING_DIRECTORY ${workdir}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL EXIT)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXIT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}':\n${err}")
endif()
if(EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
  message(FATAL_ERROR "stdout does not match '${EXPECT_STDOUT}':\n${out}")
endif()
if(GOLDEN)
  # The planner's search speed varies run to run: goldens hold a placeholder instead.
  string(REGEX REPLACE "\"evaluations_per_s_per_core\": [0-9.eE+-]+"
         "\"evaluations_per_s_per_core\": \"(timing)\"" out "${out}")
  string(REGEX REPLACE "evaluated in [0-9.]+ s on [0-9]+ threads?, [0-9]+ evaluations/s"
         "evaluated in (timing)" out "${out}")
  set(golden_file ${GOLDEN_DIR}/${GOLDEN})
  if(DEFINED ENV{UPDATE_GOLDEN})
    file(WRITE ${golden_file} "${out}")
  endif()
  file(READ ${golden_file} expected)
  if(NOT out STREQUAL expected)
    file(WRITE ${workdir}/${GOLDEN}.actual "${out}")
    message(FATAL_ERROR "stdout differs from ${golden_file}; actual output in ${workdir}/${GOLDEN}.actual")
  endif()
endif()
