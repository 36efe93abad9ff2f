# CLI tests of `topoplan plan` (owned by that command's module).
