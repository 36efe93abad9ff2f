# CLI tests of `topoplan collective` (owned by that command's module).
topoplan_cli_test(collective_h100_sweep_json
                  ARGS collective all-reduce --topology hgx-h100-8 --sweep 8:4G:16 --json
                  GOLDEN collective_all-reduce_hgx-h100-8_sweep.json)
topoplan_cli_test(collective_h100_ring_table
                  ARGS collective all-reduce --topology hgx-h100-8 --sweep 1M:1G:32 --algo ring
                  GOLDEN collective_all-reduce_hgx-h100-8_ring.txt)
topoplan_cli_test(collective_a100_1gib_json
                  ARGS collective all-reduce --topology dgx-a100-8 --size 1GiB --json
                  GOLDEN collective_all-reduce_dgx-a100-8_1GiB.json)
topoplan_cli_test(collective_cluster_allgather_json
                  ARGS collective all-gather --topology hgx-h100-8 --nodes 4 --size 512MiB --json
                  GOLDEN collective_all-gather_hgx-h100-8_x4.json)
topoplan_cli_test(collective_l40s_json
                  ARGS collective all-reduce --topology pcie-l40s-8 --size 256M --dtype bf16 --json
                  GOLDEN collective_all-reduce_pcie-l40s-8.json)
topoplan_cli_test(collective_alltoall_ranks_json
                  ARGS collective all-to-all --topology hgx-h100-8 --nodes 2
                       --ranks n0/gpu0,n0/gpu1,n1/gpu0,n1/gpu1 --size 64MiB --json
                  GOLDEN collective_all-to-all_hgx-h100-8_x2_ranks.json)
topoplan_cli_test(collective_sendrecv_table
                  ARGS collective send-recv --topology hgx-h100-8 --nodes 2 --ranks 0,8 --size 64M
                  EXPECT_STDOUT "direct/Simple +n0/nic0->rail0/leaf0 ib-ndr400")
topoplan_cli_test(collective_no_nvls
                  ARGS collective all-reduce --topology hgx-h100-8 --size 4G --no-nvls
                  EXPECT_STDOUT "ring/Simple")
topoplan_cli_test(collective_bad_size ARGS collective all-reduce --topology hgx-h100-8 --size 12xb
                  EXIT 2 EXPECT_STDERR "--size")
topoplan_cli_test(collective_bad_sweep
                  ARGS collective all-reduce --topology hgx-h100-8 --sweep 1G:1M EXIT 2
                  EXPECT_STDERR "MIN")
topoplan_cli_test(collective_huge_size ARGS collective all-reduce --topology hgx-h100-8 --size 1e30B
                  EXIT 2 EXPECT_STDERR "1 PiB limit")
topoplan_cli_test(collective_sweep_factor_suffix
                  ARGS collective all-reduce --topology hgx-h100-8 --sweep 1:1G:2x EXIT 2
                  EXPECT_STDERR "got '2x'")
topoplan_cli_test(collective_size_and_sweep
                  ARGS collective all-reduce --topology hgx-h100-8 --size 1G --sweep 1M:1G EXIT 2
                  EXPECT_STDERR "exactly one")
topoplan_cli_test(collective_unknown_op ARGS collective all-reduse --topology hgx-h100-8 --size 1G
                  EXIT 2 EXPECT_STDERR "did you mean 'all-reduce'")
topoplan_cli_test(collective_unknown_algo
                  ARGS collective all-reduce --topology hgx-h100-8 --size 1G --algo rign EXIT 2
                  EXPECT_STDERR "did you mean 'ring'")
topoplan_cli_test(collective_nvls_on_a100
                  ARGS collective all-reduce --topology dgx-a100-8 --size 1G --algo nvls EXIT 2
                  EXPECT_STDERR "sm90")
topoplan_cli_test(collective_bad_ranks
                  ARGS collective all-reduce --topology hgx-h100-8 --ranks 0-9 --size 1G EXIT 2
                  EXPECT_STDERR "outside GPUs 0-7")
topoplan_cli_test(collective_unknown_gpu
                  ARGS collective all-reduce --topology hgx-h100-8 --ranks gpu0,gpu9 --size 1G
                  EXIT 2 EXPECT_STDERR "gpu9")
topoplan_cli_test(collective_too_many_gpus
                  ARGS collective all-reduce --topology hgx-h100-8 --gpus 16 --size 1G EXIT 2
                  EXPECT_STDERR "only 8 GPUs")
topoplan_cli_test(collective_help ARGS collective --help EXPECT_STDOUT "--sweep")
# Bracket ranges of the topology format in --ranks (issue 10).
topoplan_cli_test(collective_ranks_brackets
                  ARGS collective all-reduce --topology hgx-h100-8 --nodes 4
                       --ranks n[0-3]/gpu0,n0/gpu[1-2] --size 1G
                  EXPECT_STDOUT "6 ranks, 4 servers")
topoplan_cli_test(collective_ranks_brackets_unknown
                  ARGS collective all-reduce --topology hgx-h100-8 --nodes 2 --ranks n[0-3]/gpu0
                       --size 1G
                  EXIT 2 EXPECT_STDERR "n2/gpu0")
# --algo all without --chart: the automatic choice, then every algorithm/protocol, the choice
# marked (issue 28).
topoplan_cli_test(collective_algo_all_table
                  ARGS collective all-reduce --topology hgx-h100-8 --size 1GiB --algo all
                  EXPECT_STDOUT "every algorithm/protocol.*ring/Simple.*tree/LL.*nvls/Simple +[0-9.]+ +[0-9.]+ +\\*")
topoplan_cli_test(collective_algo_all_json
                  ARGS collective all-reduce --topology hgx-h100-8 --size 1MiB --algo all --json
                  EXPECT_STDOUT "\"alternatives\": \\[\n    {\n      \"size_bytes\": 1048576,\n      \"algorithm\": \"ring\"")
# nccl-tests' point-to-point tests (issue 28). 8 H100s: every GPU's NVLink is 18 x 25 x 0.844
# = 379.8 GB/s each way; a p2p round costs NCCL's Ring Simple latency 8.4 + 3.4 = 11.8 us.
# gather of 1 GiB: 7/8 x 1073741824 B into the root / 379.8e3 B/us = 2473.73 + 11.8 = 2485.53 us,
# algbw 1 GiB / t = 432.00, busbw x 7/8 = 378.00 (GatherGetBw). Scatter: the same out of it.
topoplan_cli_test(collective_gather_perf
                  ARGS collective gather_perf --topology hgx-h100-8 --size 1GiB
                  EXPECT_STDOUT "# gather on hgx-h100-8: 8 ranks.*2485\\.53 +432\\.00 +378\\.00 +direct/Simple +nvswitch->gpu0")
topoplan_cli_test(collective_scatter_perf
                  ARGS collective scatter_perf --topology hgx-h100-8 --size 1GiB --root 3
                  EXPECT_STDOUT "2485\\.53 +432\\.00 +378\\.00 +direct/Simple +gpu3->nvswitch")
# hypercube: rounds of S/8, S/4, S/2 over every link = 2473.73 + 3 x 11.8 = 2509.13 us; algbw
# counts what a rank receives, 7/8 S / t = 374.44, busbw the same (HyperCubeGetBw).
topoplan_cli_test(collective_hypercube_perf
                  ARGS collective hypercube_perf --topology hgx-h100-8 --size 1GiB
                  EXPECT_STDOUT "2509\\.13 +374\\.44 +374\\.44 +direct/Simple")
topoplan_cli_test(collective_hypercube_not_pow2
                  ARGS collective hypercube --topology hgx-h100-8 --gpus 6 --size 1G EXIT 2
                  EXPECT_STDERR "power-of-two number of ranks.*got 6")
# send-recv follows sendrecv_perf by default: a ring over all 8 GPUs, each sending 1 GiB on its
# own link: 1073741824 / 379.8e3 + 11.8 = 2838.92 us, algbw = busbw = 378.22.
topoplan_cli_test(collective_sendrecv_ring_default
                  ARGS collective sendrecv_perf --topology hgx-h100-8 --size 1GiB
                  EXPECT_STDOUT "send-recv \\(ring\\) on hgx-h100-8: 8 ranks.*2838\\.92 +378\\.22 +378\\.22")
# Two L40S servers: the ring n0/gpu0 -> n1/gpu0 -> n0/gpu2 -> n1/gpu2 sends two transfers out of
# n0's one NIC (50 x 0.96 = 48 GB/s): 2e9 / 48e3 = 41666.67 + 26.1 us (p2p latency across
# servers); the pair n0/gpu0 -> n1/gpu0 alone is PCIe-bound, 1e9 / (32 x 0.821 x 1e3) + 26.1 =
# 38089.44 us.
topoplan_cli_test(collective_sendrecv_ring_contention
                  ARGS collective send-recv --topology pcie-l40s-8 --nodes 2
                       --ranks n0/gpu0,n1/gpu0,n0/gpu2,n1/gpu2 --size 1e9 --json
                  EXPECT_STDOUT "\"pattern\": \"ring\".*\"time_us\": 41692\\.8,\n +\"latency_us\": 26\\.1,")
topoplan_cli_test(collective_sendrecv_pair
                  ARGS collective send-recv --pattern pair --topology pcie-l40s-8 --nodes 2
                       --ranks n0/gpu0,n1/gpu0 --size 1e9
                  EXPECT_STDOUT "send-recv \\(pair\\).*38089\\.44 +26\\.25")
topoplan_cli_test(collective_pattern_not_sendrecv
                  ARGS collective all-reduce --topology hgx-h100-8 --pattern pair --size 1G EXIT 2
                  EXPECT_STDERR "--pattern: only send-recv")
# Several groups at once (repeated --ranks): two send-recv groups behind n0's one NIC share it,
# 2e9 / 48e3 + 26.1 = 41692.77 us; a group on the other socket's NIC shares nothing and keeps
# the PCIe-bound 38089.44 us of a group alone.
topoplan_cli_test(collective_groups_shared_nic
                  ARGS collective send-recv --topology pcie-l40s-8 --nodes 2
                       --ranks n0/gpu0,n1/gpu0 --ranks n0/gpu2,n1/gpu2 --size 1e9
                  EXPECT_STDOUT "2 groups at once of 2 ranks.*group 2: n0/gpu2,n1/gpu2\n.*41692\\.77 +23\\.98")
topoplan_cli_test(collective_groups_disjoint
                  ARGS collective send-recv --topology pcie-l40s-8 --nodes 2
                       --ranks n0/gpu0,n1/gpu0 --ranks n0/gpu4,n1/gpu4 --size 1e9
                  EXPECT_STDOUT "2 groups at once.*38089\\.44 +26\\.25")
topoplan_cli_test(collective_groups_json
                  ARGS collective all-reduce --topology hgx-h100-8 --ranks 0-3 --ranks 4-7
                       --size 1GiB --json
                  EXPECT_STDOUT "\"ranks\": 4,.*\"groups\": \\[\n    \\[\n      \"gpu0\",")
topoplan_cli_test(collective_groups_unequal_gather
                  ARGS collective gather --topology hgx-h100-8 --ranks 0-3 --ranks 4-6 --size 1G
                  EXIT 2 EXPECT_STDERR "groups of different sizes \\(4 and 3 ranks\\)")
# Issue 30: new platforms answer a 1 GiB all-reduce (read like a user would): the AMD mesh is
# bounded by its xGMI links (7 x 64 x 0.8 = 358 GB/s busbw at most), CloudMatrix384 by the
# NPU's UB links into the one-vertex UB fabric, GB300 NVL72 by NVLink5 with NVLS.
topoplan_cli_test(collective_mi300x_mesh ARGS collective all-reduce --topology amd-mi300x-8 --size 1GiB
                  EXPECT_STDOUT " 35[0-8]\\.[0-9]+ +ring/Simple +gpu[0-9]->gpu[0-9] xgmi-mi300")
topoplan_cli_test(collective_cloudmatrix ARGS collective all-reduce --topology cloudmatrix-384 --size 1GiB
                  EXPECT_STDOUT "384 ranks, 1 server.*ring/[A-Za-z0-9]+ +gpu[0-9]+->nvswitch ub")
topoplan_cli_test(collective_gb300 ARGS collective all-reduce --topology gb300-nvl72 --size 1GiB
                  EXPECT_STDOUT "nvls/Simple +gpu[0-9]+->nvswitch nvlink5")
topoplan_cli_test(collective_h100nvl_pair
                  ARGS collective all-reduce --topology pcie-h100nvl-8 --ranks 0,1 --size 1GiB
                  EXPECT_STDOUT "gpu0->gpu1 nvlink4")
# nccl-tests habits (issue 28): all_reduce_perf -b 8 -e 4G -f 16 -g 8 is the golden sweep above.
topoplan_cli_test(collective_nccl_tests_flags
                  ARGS collective all_reduce_perf --topology hgx-h100-8 -b 8 -e 4G -f 16 -g 8
                       --json
                  GOLDEN collective_all-reduce_hgx-h100-8_sweep.json)
topoplan_cli_test(collective_nccl_tests_flags_and_sweep
                  ARGS collective all-reduce --topology hgx-h100-8 -b 8 --sweep 8:1G
                  EXIT 2 EXPECT_STDERR "-b/-e/-f: nccl-tests' -b/-e/-f make a sweep")
# Issue 28: sizes in whole elements (per rank where each rank gets a part), as nccl-tests runs them.
topoplan_cli_test(collective_size_whole_elements
                  ARGS collective all-reduce --topology hgx-h100-8 --size 7 --json
                  EXPECT_STDOUT "\"size_bytes\": 4,\n *\"count\": 1,")
topoplan_cli_test(collective_size_per_rank
                  ARGS collective all-gather --topology hgx-h100-8 --size 100 --json
                  EXPECT_STDOUT "\"size_bytes\": 96,\n *\"count\": 24,")
topoplan_cli_test(collective_size_below_one_per_rank
                  ARGS collective all-gather --topology hgx-h100-8 --size 31
                  EXIT 2 EXPECT_STDERR "--size: below one element per rank \\(32 B\\): nothing to send")
# A sweep's sizes below one element per rank are left out with a note on stderr (issue 28): 8 B
# and 16 B of fp32 are 2 and 4 elements, fewer than one per rank of 8.
topoplan_cli_test(collective_sweep_below_element
                  ARGS collective all-gather --topology hgx-h100-8 --sweep 8:64:2
                  EXPECT_STDERR "note: --sweep: 2 sizes below one element per rank \\(32 B\\) left out")
# Issue 28, third walk: groups of different sizes are refused (the header showed the first
# group's rank count and busbw factor for the slowest group's row); --root only where there is
# one; --algo direct says why; -b/-e errors name -b/-e/-f.
topoplan_cli_test(collective_unequal_groups
                  ARGS collective all-reduce --topology hgx-h100-8 --ranks 0-1 --ranks 2-7 --size 256M
                  EXIT 2 EXPECT_STDERR "--ranks: groups of different sizes \\(2 and 6 ranks\\)")
topoplan_cli_test(collective_root_without_root
                  ARGS collective all-reduce --topology hgx-h100-8 --size 1M --root 3
                  EXIT 2 EXPECT_STDERR "--root: all-reduce has no root")
topoplan_cli_test(collective_direct_all_reduce
                  ARGS collective all-reduce --topology hgx-h100-8 --size 1M --algo direct
                  EXIT 2 EXPECT_STDERR "cannot run all-reduce: direct is the point-to-point")
topoplan_cli_test(collective_nccl_flags_error
                  ARGS collective all-reduce --topology hgx-h100-8 -e 1M
                  EXIT 2 EXPECT_STDERR "-b/-e/-f: need 0 < MIN")
