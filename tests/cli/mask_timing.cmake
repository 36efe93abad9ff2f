# The planner's search speed varies run to run: outputs compared against goldens or against each
# other hold a placeholder instead (run_cli.cmake, import_plan_same.cmake).
function(mask_timing var)
  set(text "${${var}}")
  string(REGEX REPLACE "\"evaluations_per_s_per_core\": [0-9.eE+-]+"
         "\"evaluations_per_s_per_core\": \"(timing)\"" text "${text}")
  string(REGEX REPLACE "evaluated in [0-9.]+ s on [0-9]+ threads?, [0-9]+ evaluations/s"
         "evaluated in (timing)" text "${text}")
  set(${var} "${text}" PARENT_SCOPE)
endfunction()
