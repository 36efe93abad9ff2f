# Script mode: runs BIN with ARGS (a ;-list) in DIR and checks that it refuses the input the way
# the contract says: exit code 2, the located message EXPECT (a regex) on stderr, and no
# "internal error" (a crash, std::bad_alloc or a broken invariant would be one).
# FEED (a ;-list), when given, is a command whose output is piped to topoplan's stdin.
if(FEED)
  execute_process(COMMAND ${FEED} COMMAND ${BIN} ${ARGS} WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
else()
  execute_process(COMMAND ${BIN} ${ARGS} WORKING_DIRECTORY ${DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL 2)
  message(FATAL_ERROR "exit code ${rc}, expected 2\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(err MATCHES "internal error")
  message(FATAL_ERROR "an internal error, not a located input error:\n${err}")
endif()
if(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "stderr does not match '${EXPECT}':\n${err}")
endif()
