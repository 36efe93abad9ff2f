# Script mode: `cmake --install BUILD_DIR --component python` under DESTDIR=WORK_DIR/root, then
# import the package from that copy (another working directory, PYTHONPATH at the copy only).
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} -E env DESTDIR=${WORK_DIR}/root
                        ${CMAKE_COMMAND} --install ${BUILD_DIR} --component python
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed (${rc}):\n${out}\n${err}")
endif()
set(site ${WORK_DIR}/root${SITE})
if(NOT EXISTS ${site}/topoplan/__init__.py)
  message(FATAL_ERROR "the package is not under ${site}:\n${out}")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env PYTHONPATH=${site} ${PYTHON} -c
          "import topoplan; assert topoplan.__file__.startswith('${site}'), topoplan.__file__; p = topoplan.plan(model='llama-3-8b', topology='hgx-h100-8', top=1); print(p.plans[0].tpot_ms)"
  WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "importing the installed package failed (${rc}):\n${out}\n${err}")
endif()
message(STATUS "installed package: tpot_ms ${out}")
