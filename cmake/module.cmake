# topoplan_module(NAME SOURCES... DEPS ...): a static library for one layer of src/.
function(topoplan_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${M_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${M_DEPS} PRIVATE topoplan_options ${M_PRIVATE_DEPS})
endfunction()

# topoplan_test(NAME SOURCES... DEPS ...): a doctest executable registered with ctest.
function(topoplan_test name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE topoplan_doctest_main topoplan_options ${T_DEPS})
  target_compile_definitions(${name} PRIVATE TOPOPLAN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_test(NAME ${name} COMMAND ${name})
endfunction()
