// The CLI process's allocator policy (the library leaves the host program's allocator alone).
#pragma once

namespace topoplan::cli {

// glibc raises its mmap threshold to the size of each large mmapped block it frees (up to
// 32 MiB on 64-bit, mallopt(3)), so after the first large vector is freed the next ones come
// from the brk heap, where pages freed between them stay resident. Fixing the threshold
// (which also turns that adjustment off, mallopt(3)) keeps every block of 128 KiB or more
// (glibc's default threshold) mmapped and returned when freed. main() sets it for `collective`
// only: measured at 12,500 hgx-h100-8 servers with GNU time (peak resident KiB, issue 32),
// collective all-reduce 1 GiB 103,260 -> 101,208 on one thread and 130,684 -> 123,628 on two,
// page faults fewer; `plan --json` 132,668 -> 123,052 but 51,000 -> 87,000 page faults and
// 0.66-0.72 -> 0.72-0.89 s (its search threads free and reallocate mid-size buffers, each
// then a fresh mapping), so the plan keeps glibc's default. Elsewhere (not glibc) this does
// nothing.
void set_malloc_policy();

}  // namespace topoplan::cli
