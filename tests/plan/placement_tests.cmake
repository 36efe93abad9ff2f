# topoplan_test(test_placement ...) for src/plan placement.
