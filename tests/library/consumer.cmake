# Script mode: installs BUILD_DIR into WORK_DIR/prefix, builds SOURCE_DIR (examples/library)
# against it in WORK_DIR/build and checks that the program prints both JSON documents.
file(REMOVE_RECURSE ${WORK_DIR})

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
set(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
              -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
              -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
if(LAUNCHER)
  list(APPEND configure -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()
step("configure the consumer" ${configure})
step("build the consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step("run the consumer" ${WORK_DIR}/build/topoplan_consumer)
# The collective's document, then the plan's (keys of docs/collective-model.md and planner.md).
foreach(key "\"op\": \"all-reduce\"" "\"busbw_GBps\"" "\"model\": \"llama-3-8b\"" "\"plans\"")
  string(FIND "${step_output}" "${key}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "consumer output lacks ${key}:\n${step_output}")
  endif()
endforeach()
# The package must come from the temporary prefix, not from the build tree.
file(READ ${WORK_DIR}/build/CMakeCache.txt cache)
string(FIND "${cache}" "topoplan_DIR:PATH=${WORK_DIR}/prefix/" at)
if(at EQUAL -1)
  message(FATAL_ERROR "find_package(topoplan) did not use ${WORK_DIR}/prefix")
endif()
