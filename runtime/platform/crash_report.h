// A crash says where it happened. On SIGSEGV, SIGBUS or SIGILL the process
// prints one line naming the shared object that held the faulting
// instruction, e.g.
//   nanopu: SIGSEGV in /usr/lib/.../librte_net_memif.so.23.0 (pc 0x7f..)
// then dies of the same signal as it would have. A user (or a test) can then
// tell a crash in a DPDK driver (such as memif's teardown race before nanopu
// fenced it: docs/design.md §9, "memif's teardown, fenced") from a bug in their
// own service. Not installed under AddressSanitizer, whose own
// report already has the whole stack.
#pragma once

namespace nanopu {

// Idempotent; async-signal-safe apart from dladdr, which is what crash
// handlers conventionally use.
void install_crash_report();

}  // namespace nanopu
