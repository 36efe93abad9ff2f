# examples/compare-clusters.sh end to end: three designs, the comparison and the HTML reports.
add_test(NAME example_compare_clusters
         COMMAND sh -c "rm -rf example_out && TOPOPLAN=$<TARGET_FILE:topoplan_cli> sh \
${PROJECT_SOURCE_DIR}/examples/compare-clusters.sh example_out >/dev/null && \
test -s example_out/compare.html && test -s example_out/winner-plan.html && \
test -s example_out/C-2xH800.svg && grep -q '\"overall\": \"[ABC]-' example_out/compare.json"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
