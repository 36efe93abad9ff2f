# Tests of src/plan placement (included by tests/plan/CMakeLists.txt).
topoplan_test(test_placement SOURCES placement_test.cpp placement_optimize_test.cpp
              DEPS topoplan_plan)
