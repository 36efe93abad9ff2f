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
topoplan_cli_test(plan_render ARGS plan --model deepseek-r1 --topology hgx-h20-8 --top 1
                  --render plan_render_h20.svg EXPECT_STDOUT "tp8 pp1 dp1 ep8")
topoplan_cli_test(plan_render_bad_color ARGS plan --topology hgx-h20-8 --render x.svg
                  --color-by tensor EXIT 2 EXPECT_STDERR "expected tp, pp, ep or dp")
# plan --json is what topo render --plan reads back; the SVG shows the caption and a bottleneck.
add_test(NAME cli_topo_render_plan_roundtrip
         COMMAND sh -c "$<TARGET_FILE:topoplan_cli> plan --model deepseek-r1 --topology hgx-h800-8 \
--nodes 2 --json > roundtrip_plan.json && $<TARGET_FILE:topoplan_cli> topo render hgx-h800-8 \
--nodes 2 --plan roundtrip_plan.json --color-by pp -o roundtrip.svg >/dev/null && \
grep -q 'r1, tp8 pp2 dp1 ep8' roundtrip.svg && grep -q 'PP bottleneck: ib&#45;ndr400' roundtrip.svg"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# plan --disagg --render: the pools coloured, the KV stream's link highlighted (issue 27).
add_test(NAME cli_plan_disagg_render
         COMMAND sh -c "$<TARGET_FILE:topoplan_cli> plan --disagg --model deepseek-r1 \
--topology hgx-h800-8 --nodes 4 --tpot-max 50 --render disagg_pools.svg >/dev/null && \
grep -q 'disaggregated: deepseek&#45;r1, 2P:2D' disagg_pools.svg && \
grep -q 'prefill pool: 16 x H800&#45;SXM' disagg_pools.svg && grep -q 'KV transfer: ib&#45;ndr400' disagg_pools.svg"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
