# CLI tests of --chart (PLplot): collective sweeps with every algorithm, the plan's Pareto chart,
# compare's grouped bars; the SVGs must be well-formed XML.
topoplan_cli_test(chart_collective_all
                  ARGS collective all-reduce --topology hgx-h100-8 --sweep 8:1G --algo all
                       --chart chart_collective.png
                  EXPECT_STDOUT "size")
topoplan_cli_test(chart_plan ARGS plan --model deepseek-r1 --topology hgx-h200-8 --tpot-max 50
                  --chart chart_pareto.png EXPECT_STDOUT "tp8")
topoplan_cli_test(chart_bad_ext ARGS plan --topology hgx-h20-8 --chart x.gif EXIT 2
                  EXPECT_STDERR "\\.svg, \\.png or \\.pdf")
if(XMLLINT)
  add_test(NAME cli_chart_svgs_valid
           COMMAND sh -c "$<TARGET_FILE:topoplan_cli> collective all-gather --topology dgx-a100-8 \
--sweep 1K:64M --chart chart_ag.svg >/dev/null && $<TARGET_FILE:topoplan_cli> compare --model \
deepseek-r1 --topology hgx-h20-8 --topology hgx-h200-8 --gpu-hour-price 2 --chart chart_cmp.svg \
>/dev/null && ${XMLLINT} --noout chart_ag.svg chart_cmp.svg"
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endif()
# HTML reports in a real browser (Debian chromium; scripts/install-deps.sh installs it).
find_program(CHROMIUM NAMES chromium chromium-browser)
find_program(PYTHON3 python3)
if(CHROMIUM AND PYTHON3)
  add_test(NAME cli_html_report_screenshot
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/html_report.sh $<TARGET_FILE:topoplan_cli>
                   ${CHROMIUM} ${PROJECT_SOURCE_DIR}/tests/report/png_colours.py)
  set_tests_properties(cli_html_report_screenshot PROPERTIES TIMEOUT 300)
endif()
