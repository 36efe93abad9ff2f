# Large valid systems answer in seconds (issue 16, docs/limits.md). A 20,000-GPU NVLink domain
# (one NVSwitch vertex; data/nvl-20000.json) took minutes through quadratic NIC choice and path
# searches; a 131,072-GPU cluster is the GPU limit. TIMEOUT turns a regression into a failure
# (the asan preset runs these too, ~10x slower than ci).
set(nvl ${CMAKE_CURRENT_SOURCE_DIR}/data/nvl-20000.json)
topoplan_cli_test(scale_nvl20000_topo_show ARGS topo show ${nvl}
                  EXPECT_STDOUT "NVLink domain +20000 GPUs")
topoplan_cli_test(scale_nvl20000_collective ARGS collective all-reduce --topology ${nvl}
                  --size 1GiB EXPECT_STDOUT "20000 ranks, 1 server")
topoplan_cli_test(scale_nvl20000_plan ARGS plan --model llama-3-70b --topology ${nvl}
                  EXPECT_STDOUT "Best: ")
topoplan_cli_test(scale_cluster_131072_topo_show ARGS topo show hgx-h100-8 --nodes 16384
                  EXPECT_STDOUT "GPUs +131072 x H100")
# One server more is past the GPU limit: refused at once, not built.
topoplan_cli_test(scale_cluster_past_limit ARGS topo show hgx-h100-8 --nodes 16385 EXIT 2
                  EXPECT_STDERR "--nodes: 16385 servers of 8 GPUs .* more than 131072 GPUs")
set_tests_properties(cli_scale_nvl20000_topo_show cli_scale_nvl20000_collective
                     cli_scale_nvl20000_plan cli_scale_cluster_131072_topo_show
                     PROPERTIES TIMEOUT 300)
