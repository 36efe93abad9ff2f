# CLI tests of `topoplan topo` (owned by that command's module).
topoplan_cli_test(topo_show_h20_json ARGS topo show hgx-h20-8 --json GOLDEN topo_show_hgx-h20-8.json)
topoplan_cli_test(topo_paths_h100_json ARGS topo paths hgx-h100-8 --json
                  GOLDEN topo_paths_hgx-h100-8.json)
topoplan_cli_test(topo_paths_l40s ARGS topo paths pcie-l40s-8 GOLDEN topo_paths_pcie-l40s-8.txt)
topoplan_cli_test(topo_list_json ARGS topo list --json GOLDEN topo_list.json)
topoplan_cli_test(topo_show_cluster_json
                  ARGS topo show hgx-h100-8 --nodes 16 --fabric fat-tree --json
                  GOLDEN topo_show_hgx-h100-8_x16_fat-tree.json)
topoplan_cli_test(topo_paths_cluster_json ARGS topo paths hgx-h100-8 --nodes 2 --gpus 10 --json
                  GOLDEN topo_paths_hgx-h100-8_x2.json)
topoplan_cli_test(topo_show_table ARGS topo show hgx-h20-8 EXPECT_STDOUT "NVLink per GPU +450.0 GB/s")
topoplan_cli_test(topo_unknown_name ARGS topo show hgx-h10-8 EXIT 2
                  EXPECT_STDERR "did you mean 'hgx-h100-8'")
topoplan_cli_test(topo_unknown_fabric ARGS topo show hgx-h20-8 --nodes 2 --fabric fat-tre EXIT 2
                  EXPECT_STDERR "unknown fabric 'fat-tre'")
topoplan_cli_test(topo_bad_oversubscription
                  ARGS topo show hgx-h20-8 --nodes 2 --fabric fat-tree --oversubscription 0.5
                  EXIT 2 EXPECT_STDERR "oversubscription")
topoplan_cli_test(topo_validate_builtin ARGS topo validate hgx-h20-8 EXPECT_STDOUT "valid")
topoplan_cli_test(topo_validate_bad ARGS topo validate ${CMAKE_CURRENT_SOURCE_DIR}/data/topo_bad.json
                  EXIT 2 EXPECT_STDOUT "self-link.*gpu2: GPU has no path to GPU 'gpu0'.*[0-9]+ problem")
topoplan_cli_test(topo_validate_bad_json
                  ARGS topo validate ${CMAKE_CURRENT_SOURCE_DIR}/data/topo_bad.json --json EXIT 2
                  EXPECT_STDOUT "\"valid\": false")
topoplan_cli_test(topo_validate_parse_error
                  ARGS topo validate ${CMAKE_CURRENT_SOURCE_DIR}/data/topo_unknown_link.json EXIT 2
                  EXPECT_STDERR "/links/0/type: unknown link type 'nvlink9'")
topoplan_cli_test(topo_help ARGS topo paths --help EXPECT_STDOUT "--gpus")
# The GPU catalog (issue 10): the names --gpu takes.
topoplan_cli_test(topo_gpus ARGS topo gpus EXPECT_STDOUT "H100-SXM +NVIDIA H100 SXM5 80GB +90 +80.0 GiB +79.6 GiB")
# Issue 28: a compute capability only where there is one (AMD and Ascend parts show -*).
topoplan_cli_test(topo_gpus_sm_nvidia_only ARGS topo gpus
                  EXPECT_STDOUT "MI300X +AMD Instinct MI300X OAM 192GB +-\\* .*-\\*: not a CUDA GPU")
topoplan_cli_test(topo_gpus_json ARGS topo gpus --json
                  EXPECT_STDOUT "\"name\": \"A100-SXM-80GB\".*\"fp8_TFLOPS\": null")
topoplan_cli_test(topo_paths_smi_view ARGS topo paths hgx-h100-8
                  EXPECT_STDOUT "nvidia-smi topo -m view.*gpu0     X  NV18  NV18.*PIX   PIX  NODE  NODE   SYS")
# A cluster file's server path is relative to the cluster file (run_cli runs in a temporary
# folder, not beside the files): 3 x rel-mini-2 is 6 GPUs; "../" climbs from sub/; a built-in
# name in a file on disk is still the built-in.
set(_rel ${CMAKE_CURRENT_SOURCE_DIR}/data/relative)
topoplan_cli_test(topo_show_cluster_relative_server ARGS topo show ${_rel}/cluster.json --json
                  EXPECT_STDOUT "\"name\": \"rel-cluster-3\".*\"gpus\": 6,")
topoplan_cli_test(topo_show_cluster_parent_server ARGS topo show ${_rel}/sub/cluster-up.json
                  EXPECT_STDOUT "rel-cluster-up-2: 2 x rel-mini-2")
topoplan_cli_test(topo_show_cluster_builtin_server ARGS topo show ${_rel}/sub/cluster-builtin.json
                  EXPECT_STDOUT "rel-cluster-builtin-2: 2 x hgx-h20-8")
# Long descriptions under the 64 KiB input bound, and at it (65,536 bytes,
# limits::kMaxDescriptionBytes: accepted): text output shows the first 1,000 characters
# (report::kTextPrefixChars), an ellipsis and the full length; JSON keeps the whole string.
string(REPEAT "a" 1000 _desc_prefix)
string(REPEAT "a" 500 _desc_tail)
foreach(_case "1500;1,500" "65536;65,536")
  list(GET _case 0 _n)
  list(GET _case 1 _shown)
  string(REPEAT "a" ${_n} _desc)
  set(_file ${CMAKE_CURRENT_BINARY_DIR}/topo_description_${_n}.json)
  with_description(${PROJECT_SOURCE_DIR}/examples/mini-h20-4.json ${_file} ${_desc})
  topoplan_cli_test(topo_show_description_${_n} ARGS topo show ${_file}
                    EXPECT_STDOUT "^mini-h20-4: ${_desc_prefix}… \\(${_shown} characters\\)\n")
endforeach()
# (A 65,536-character regex is past CMake's regex size, so the whole-string check is at 1,500.)
topoplan_cli_test(topo_show_description_1500_json
                  ARGS topo show ${CMAKE_CURRENT_BINARY_DIR}/topo_description_1500.json --json
                  EXPECT_STDOUT "\"description\": \"${_desc_prefix}${_desc_tail}\",")
with_description(${PROJECT_SOURCE_DIR}/models/llama-3-8b.json
                 ${CMAKE_CURRENT_BINARY_DIR}/model_description_1500.json ${_desc_prefix}b)
topoplan_cli_test(model_show_long_description
                  ARGS model show ${CMAKE_CURRENT_BINARY_DIR}/model_description_1500.json
                  EXPECT_STDOUT "^llama-3-8b: ${_desc_prefix}… \\(1,001 characters\\)\n")
# GPUs that differ are listed kind by kind, and every planner refuses to price them as one kind
# (issue 27: the H20s were planned as H100s, silently).
set(_mixed ${CMAKE_CURRENT_SOURCE_DIR}/data/mixed_h100_h20.json)
topoplan_cli_test(topo_show_mixed_gpus ARGS topo show ${_mixed}
                  EXPECT_STDOUT "GPUs +4 x H100-SXM \\+ 4 x H20")
topoplan_cli_test(topo_show_mixed_gpus_json ARGS topo show ${_mixed} --json
                  EXPECT_STDOUT "\"gpu_models\": \\[.*\"model\": \"H100-SXM\",.*\"count\": 4.*\"model\": \"H20\"")
foreach(cmd "plan --model llama-3-8b" "plan --mode train --model llama-3-8b"
        "compare --model llama-3-8b --topology hgx-h100-8")
  string(REPLACE " " ";" cmd_args "${cmd}")
  string(REPLACE " " "_" id "${cmd}")
  string(REPLACE "-" "_" id "${id}")
  topoplan_cli_test(mixed_gpus_refused_${id} ARGS ${cmd_args} --topology ${_mixed} EXIT 2
                    EXPECT_STDERR "mixed-h100-h20-8: its GPUs differ \\(4 x H100-SXM \\+ 4 x H20\\)")
endforeach()
# Issue 27: a mixed cluster file (two server kinds, one fabric) shows both groups and GPU kinds.
topoplan_cli_test(topo_show_mixed_cluster
                  ARGS topo show ${PROJECT_SOURCE_DIR}/examples/mixed-pools/h200-prefill-h20-decode.json
                  EXPECT_STDOUT "server group +4 x hgx-h200-8.*server group +8 x hgx-h20-8")
topoplan_cli_test(topo_show_mixed_cluster_json
                  ARGS topo show ${PROJECT_SOURCE_DIR}/examples/mixed-pools/h200-prefill-h20-decode.json --json
                  EXPECT_STDOUT "\"groups\": \\[\n +{\n +\"server\": \"hgx-h200-8\",\n +\"nodes\": 4")

# The 2026 servers (issue 30): each shows its GPU count, model and memory total (the catalog's
# capacity x GPUs, printed binary: 8 x 288 GiB = 2.25 TiB, 72 x 288 = 20.25 TiB, 384 x 128 GiB =
# 48 TiB), and GPUs whose figures are not public say so.
foreach(_case
    "hgx-b300-8;8 x B300;2\\.25 TiB"
    "gb300-nvl72;72 x GB300;20\\.2 TiB"
    "pcie-h100-8;8 x H100-PCIe;640 GiB"
    "pcie-h100nvl-8;8 x H100-NVL;752 GiB"
    "pcie-h200nvl-8;8 x H200-NVL;1\\.1 TiB"
    "pcie-rtxpro6000-8;8 x RTX-PRO-6000-Server;768 GiB"
    "amd-mi300x-8;8 x MI300X;1\\.5 TiB"
    "amd-mi325x-8;8 x MI325X;2 TiB"
    "amd-mi355x-8;8 x MI355X;2\\.25 TiB"
    "ascend-910b-8;8 x Ascend-910B;512 GiB"
    "ascend-910c-8;8 x Ascend-910C;1 TiB"
    "cloudmatrix-384;384 x Ascend-910C;48 TiB")
  list(GET _case 0 _name)
  list(GET _case 1 _gpus)
  list(GET _case 2 _memory)
  topoplan_cli_test(topo_show_${_name} ARGS topo show ${_name}
                    EXPECT_STDOUT "GPUs +${_gpus}\n +GPU memory total +${_memory}\n")
endforeach()
topoplan_cli_test(topo_show_assumed_note ARGS topo show ascend-910c-8
                  EXPECT_STDOUT "Note: Ascend-910C: int8_TOPS, pcie_type, power_W not public")
topoplan_cli_test(topo_show_assumed_json ARGS topo show cloudmatrix-384 --json
                  EXPECT_STDOUT "\"assumed_figures\": \\[[^]]*\"Ascend-910C: int8_TOPS")
topoplan_cli_test(topo_show_spectrum_x ARGS topo show b300-spectrum-x-16
                  EXPECT_STDOUT "fabric +rail-optimized, spectrum-x-800g")
# Issue 28's walk: --json reports a file that does not load as a diagnostic (exit 2), not a bare error.
topoplan_cli_test(topo_validate_json_unloadable
                  ARGS topo validate ${PROJECT_SOURCE_DIR}/tests/bad_input/files/topo_unknown_device_type.json --json
                  EXIT 2 EXPECT_STDOUT "\"valid\": false,\n  \"diagnostics\": .\n    {\n      \"location\": \"/devices/0/type\",\n      \"message\": \"unknown device type 'gpuu'")
# Issue 32: past 16,384 GPUs a generated cluster's JSON lists one server's devices and links
# (the cluster is summarised, not built); --device-list writes all of them.
topoplan_cli_test(topo_show_described_cluster_json
                  ARGS topo show hgx-h100-8 --nodes 2049 --json
                  GOLDEN topo_show_hgx-h100-8_x2049.json)
topoplan_cli_test(topo_show_device_list_flag
                  ARGS topo show hgx-h20-8 --nodes 2049 --json --device-list
                  EXPECT_STDOUT "\"id\": *\"n2048/gpu7\"")
