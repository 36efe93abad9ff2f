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
