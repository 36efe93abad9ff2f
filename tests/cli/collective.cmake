# CLI tests of `topoplan collective` (owned by that command's module).
