# CLI tests of `topoplan topo` (owned by that command's module).
