# CLI tests of `topoplan model` (owned by that command's module).
