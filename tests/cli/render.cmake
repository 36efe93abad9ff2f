# CLI tests of `topoplan topo render` (diagrams) and the plan overlay.
topoplan_cli_test(topo_render_server ARGS topo render hgx-h100-8 -o render_h100.png
                  EXPECT_STDOUT "wrote render_h100.png \\(23 nodes, 29 edges\\)")
topoplan_cli_test(topo_render_dot ARGS topo render pcie-l40s-8 --format dot -o render_l40s.gv
                  EXPECT_STDOUT "wrote render_l40s.gv")
# 2048 x 8 = 16,384 GPUs collapse to one server, per-rail leaf/spine stacks and the server stack.
topoplan_cli_test(topo_render_16k ARGS topo render hgx-h100-8 --nodes 2048 -o render_16k.svg
                  EXPECT_STDOUT "\\(48 nodes, 69 edges\\)")
topoplan_cli_test(topo_render_bad_format ARGS topo render hgx-h100-8 -o x.jpeg EXIT 2
                  EXPECT_STDERR "unknown diagram format 'jpeg'")
topoplan_cli_test(topo_render_bad_plan
                  ARGS topo render hgx-h100-8 --plan ${CMAKE_CURRENT_SOURCE_DIR}/data/topo_bad.json
                       -o x.svg
                  EXIT 2 EXPECT_STDERR "/plans: no plans")
# The SVG Graphviz writes is well-formed XML (xmllint from libxml2-utils).
find_program(XMLLINT xmllint)
if(XMLLINT)
  add_test(NAME cli_topo_render_svg_valid
           COMMAND sh -c "$<TARGET_FILE:topoplan_cli> topo render hgx-h800-8 --nodes 2 --labels -o \
render_valid.svg >/dev/null && ${XMLLINT} --noout render_valid.svg"
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()
