# CLI tests of `topoplan roofline` (owned by that command's module).
