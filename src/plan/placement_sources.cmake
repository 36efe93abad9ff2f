# Sources of the placement part of src/plan (owned by the placement work; included by
# src/plan/CMakeLists.txt).
set(PLACEMENT_SOURCES placement.cpp placement_optimize.cpp placement_groups.cpp placement_runs.cpp)
