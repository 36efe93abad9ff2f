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
# EXIT 3 (no plan fits, README "Exit codes"): the reason is in the printed answer, so EXPECT is
# matched against stdout; a bad input (exit 2) is told on stderr.
if(NOT DEFINED EXIT)
  set(EXIT 2)
endif()
if(NOT rc EQUAL EXIT)
  message(FATAL_ERROR "exit code ${rc}, expected ${EXIT}\nstdout:\n${out}\nstderr:\n${err}")
endif()
set(told "${err}")
if(EXIT EQUAL 3)
  set(told "${out}")
endif()
if(err MATCHES "internal error")
  message(FATAL_ERROR "an internal error, not a located input error:\n${err}")
endif()
if(NOT told MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}':\nstdout:\n${out}\nstderr:\n${err}")
endif()
