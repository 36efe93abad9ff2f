# Issue 28: every subcommand's --help example names that subcommand and runs (exit 0), from a
# scratch folder where the repository's topologies/ and examples/ are linked, so examples that read the shipped
# samples or write a file behave as they would from the repository root.
# -DTOPOPLAN=<binary> -DSOURCE=<repo> -DWORK=<scratch dir> -DCOMMAND="<subcommand path>"
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
foreach(d topologies examples)
  file(CREATE_LINK ${SOURCE}/${d} ${WORK}/${d} SYMBOLIC)
endforeach()
separate_arguments(path UNIX_COMMAND "${COMMAND}")
execute_process(COMMAND ${TOPOPLAN} ${path} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${COMMAND} --help exited ${rc}")
endif()
if(NOT help MATCHES "\nExample:\n  ([^\n]+)")
  message(FATAL_ERROR "${COMMAND} --help shows no example:\n${help}")
endif()
set(example "${CMAKE_MATCH_1}")
string(FIND "${example}" "topoplan ${COMMAND} " at)
if(NOT at EQUAL 0)
  message(FATAL_ERROR "${COMMAND} --help's example does not run `topoplan ${COMMAND}`: ${example}")
endif()
separate_arguments(argv UNIX_COMMAND "${example}")
list(REMOVE_AT argv 0)
execute_process(COMMAND ${TOPOPLAN} ${argv} WORKING_DIRECTORY ${WORK} OUTPUT_QUIET
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "`${example}` exited ${rc}: ${err}")
endif()
