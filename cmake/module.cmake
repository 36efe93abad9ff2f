# topoplan_module(NAME SOURCES... DEPS ...): a static library for one layer of src/.
# include/ is the public interface (installed to <prefix>/include); src/ stays private.
function(topoplan_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${M_SOURCES})
  target_include_directories(
    ${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${name} PUBLIC ${M_DEPS} PRIVATE topoplan_options ${M_PRIVATE_DEPS})
  set_property(GLOBAL APPEND PROPERTY TOPOPLAN_MODULES ${name})
endfunction()

# topoplan_test(NAME SOURCES... DEPS ...): a doctest executable whose cases ctest runs one by one
# ("NAME:case"), so a failure and a slow case show by name (doctest_discover_tests lists them
# after each link).
function(topoplan_test name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE topoplan_doctest_main topoplan_options ${T_DEPS})
  target_compile_definitions(${name} PRIVATE TOPOPLAN_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  doctest_discover_tests(${name} TEST_PREFIX "${name}:")
endfunction()
