// DPDK EAL start-up: once per process (DPDK's rule). Builds the EAL argument
// list from a Config: unique --file-prefix, --no-pci, --vdev passthrough, and
// hugepages when reserved and mounted, else --no-huge (said once, plainly).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nanopu/config.h"

namespace nanopu {

struct HugepageInfo {
  bool mounted = false;   // a hugetlbfs mount for 2 MiB pages exists
  uint64_t free_pages = 0;
};
[[nodiscard]] HugepageInfo probe_hugepages();

// The argv EAL would get for this config. use_huge picks --in-memory with
// hugepages over --no-huge.
[[nodiscard]] std::vector<std::string> build_eal_args(const Config& config, bool use_huge);

// Initialises the EAL for this process. A second call is a no-op returning OK
// when its lcores are a subset of the first's (tests run several hosts in one
// process), and an error otherwise.
[[nodiscard]] absl::Status eal_init(const Config& config);
[[nodiscard]] bool eal_initialized();

}  // namespace nanopu
