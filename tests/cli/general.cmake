# Exit codes and help shared by every command.
topoplan_cli_test(help ARGS --help EXPECT_STDOUT "topoplan")
topoplan_cli_test(no_subcommand EXIT 2)
topoplan_cli_test(unknown_flag ARGS topo --bogus-flag EXIT 2)
