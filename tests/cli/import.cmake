# CLI tests of `topoplan topo import/export` (owned by the importers, src/io + cmd_topo_import.cpp).
set(samples ${PROJECT_SOURCE_DIR}/topologies/samples)
function(import_plan_same name format sample builtin)
  cmake_parse_arguments(P "" "" "PLAN;IMPORT" ${ARGN})
  add_test(NAME cli_${name}
           COMMAND ${CMAKE_COMMAND} -DBIN=$<TARGET_FILE:topoplan_cli> -DFORMAT=${format}
                   -DNAME=${name} -DSAMPLE=${sample} -DBUILTIN=${builtin} "-DPLAN_ARGS=${P_PLAN}"
                   "-DIMPORT_ARGS=${P_IMPORT}" -P ${CMAKE_CURRENT_SOURCE_DIR}/import_plan_same.cmake)
endfunction()
# The imported HGX H100 samples must plan exactly like the built-in hgx-h100-8.
import_plan_same(import_nccl_xml_plans_like_builtin nccl-xml ${samples}/nccl-xml/hgx-h100-8.xml
                 hgx-h100-8 PLAN --model llama-3-70b)
import_plan_same(import_nccl_xml_plans_like_builtin_decode nccl-xml
                 ${samples}/nccl-xml/hgx-h100-8.xml hgx-h100-8
                 PLAN --model qwen3-235b-a22b --mode decode --top 3)
import_plan_same(import_nvidia_smi_plans_like_builtin nvidia-smi ${samples}/nvidia-smi/hgx-h100-8.txt
                 hgx-h100-8 PLAN --model llama-3-70b IMPORT --gpu H100 --nic ConnectX-7)
topoplan_cli_test(topo_import_needs_gpu ARGS topo import nccl-xml ${samples}/nccl-xml/gb200-tray.xml
                  EXIT 2 EXPECT_STDERR "gb200-tray.xml: line 5: cannot tell the GPU model")
topoplan_cli_test(topo_import_gb200 ARGS topo import nccl-xml ${samples}/nccl-xml/gb200-tray.xml
                  --gpu GB200 EXPECT_STDOUT "\"from\":\"gpu0\",\"to\":\"cpu0\",\"type\":\"nvlink-c2c\"")
topoplan_cli_test(topo_import_notes ARGS topo import nvidia-smi ${samples}/nvidia-smi/pcie-l40s-8.txt
                  EXPECT_STDERR "note: .*pass --nic MODEL")
topoplan_cli_test(topo_import_bad_format ARGS topo import nccl ${samples}/nccl-xml/a100-4numa.xml
                  EXIT 2 EXPECT_STDERR "nccl-xml")
topoplan_cli_test(topo_import_missing_file ARGS topo import nccl-xml no-such.xml EXIT 2
                  EXPECT_STDERR "no-such.xml")
topoplan_cli_test(topo_export_xml ARGS topo export nccl-xml dgx-a100-8
                  EXPECT_STDOUT "vendor=\"AuthenticAMD\" familyid=\"23\".*count=\"12\" tclass=\"0x068000\"")
topoplan_cli_test(topo_export_cluster_flag ARGS topo export nccl-xml hgx-h100-8 --nodes 2 EXIT 2
                  EXPECT_STDERR "--nodes")
topoplan_cli_test(topo_export_cluster_file ARGS topo export nccl-xml h20-cluster-16 EXIT 2
                  EXPECT_STDERR "describes one server")
# examples/custom-accelerator: a topology with its own GPU and link kinds plans end to end.
set(custom ${PROJECT_SOURCE_DIR}/examples/custom-accelerator/mi300x-like-8.json)
topoplan_cli_test(example_custom_accelerator_plan ARGS plan --topology ${custom} --model llama-3-70b
                  EXPECT_STDOUT "llama-3-70b on mi300x-like-8 \\(8x MI300X-like\\).*Best: ")
topoplan_cli_test(example_custom_accelerator_validate ARGS topo validate ${custom}
                  EXPECT_STDOUT "valid")
topoplan_cli_test(example_custom_accelerator_collective
                  ARGS collective all-reduce --topology ${custom} --size 1GiB
                  EXPECT_STDOUT "infinity-fabric")
# `-o FILE` says what it wrote, as `topo render` does (issue 28's walk).
topoplan_cli_test(topo_export_says_wrote
                  ARGS topo export nccl-xml hgx-h100-8 -o ${CMAKE_CURRENT_BINARY_DIR}/export_h100.xml
                  EXPECT_STDOUT "^wrote .*export_h100.xml \\([0-9]+ bytes\\)\n$")
