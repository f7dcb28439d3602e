// DPDK's runtime directory (/run/dpdk/<file prefix>, or under
// $XDG_RUNTIME_DIR for a user) outlives the process: DPDK 22.11 never
// removes it, and nanopu gives each process a prefix of its own
// (nanopu-<pid>), so directories piled up — 13 MB each under --no-huge
// (its memory map), thousands per test run: a full disk. nanopu runs
// without shared files (--in-memory or --no-shconf), removes its own
// directory at exit, and at start removes those of nanopu processes that
// are gone (killed ones cannot clean up).
#pragma once

namespace nanopu {

// After rte_eal_init, for a process whose file prefix nanopu chose: its
// directory removed at exit, and the directories of dead nanopu-<pid>
// processes beside it removed now (said once, with their number).
void tidy_runtime_dirs();

}  // namespace nanopu
