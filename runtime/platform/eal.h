// DPDK EAL start-up: once per process (DPDK's rule). Builds the EAL argument
// list from EalParams: unique --file-prefix, --no-pci, --vdev passthrough, and
// hugepages when reserved and mounted, else --no-huge (said once, plainly).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "nanopu/policies.h"

namespace nanopu {

// What the EAL needs of a host's configuration (the runtime fills it from
// Config; tests, benchmarks and tools fill it directly).
struct EalParams {
  std::vector<unsigned> lcores = {0};  // the first is the EAL main lcore
  std::string eal_lcore_map;           // optional EAL --lcores map instead of -l
  bool pin = true;                     // false: each lcore floats over every online CPU
  std::vector<std::string> vdevs;
  // PCI devices the EAL may probe (real NICs bound to vfio-pci); empty: none
  // (--no-pci), so a test never grabs a machine's NIC.
  std::vector<std::string> pci_devices;
  HugePages huge = HugePages::kAuto;
  std::string file_prefix;             // empty: "nanopu-<pid>"
  std::string extra_eal_args;          // space-separated
  uint32_t eal_log_level = 4;
  // DPDK telemetry: a socket in the EAL's runtime directory that
  // dpdk-telemetry.py reads (counters while the host runs).
  bool telemetry = true;
  // Without hugepages: the memory the EAL reserves at start (one process
  // holding many hosts, nanopu-sim, needs more).
  uint64_t no_huge_memory_mb = 1024;
};

struct HugepageInfo {
  bool mounted = false;   // a hugetlbfs mount for 2 MiB pages exists
  uint64_t free_pages = 0;
};
[[nodiscard]] HugepageInfo probe_hugepages();

// The EAL --file-prefix these params give: theirs, or "nanopu-<pid>". It
// names the runtime directory, and so the telemetry socket.
[[nodiscard]] std::string file_prefix_of(const EalParams& params);

// The EAL --lcores map that lets each of `lcores` run on any of CPUs
// 0..cpus-1, e.g. {0, 1} on 2 CPUs: "0@(0-1),1@(0-1)".
[[nodiscard]] std::string floating_lcore_map(const std::vector<unsigned>& lcores, long cpus);

// The argv EAL would get for these params. use_huge picks --in-memory with
// hugepages over --no-huge.
[[nodiscard]] std::vector<std::string> build_eal_args(const EalParams& params, bool use_huge);

// Initialises the EAL for this process. A second call is a no-op returning OK
// when its lcores are a subset of the first's (tests run several hosts in one
// process), and an error otherwise.
[[nodiscard]] absl::Status eal_init(const EalParams& params);

}  // namespace nanopu
