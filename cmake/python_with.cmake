# python_with(MODULE OUT_VAR CANDIDATES...): the first interpreter among CANDIDATES that imports
# MODULE, or "" (a pyenv python3 first on PATH may not see Debian's python3-* packages).
function(python_with module out_var)
  set(found "")
  foreach(candidate ${ARGN})
    if(candidate AND EXISTS ${candidate} AND NOT found)
      execute_process(COMMAND ${candidate} -c "import ${module}" RESULT_VARIABLE rc
                      OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(found ${candidate})
      endif()
    endif()
  endforeach()
  set(${out_var} ${found} PARENT_SCOPE)
endfunction()
