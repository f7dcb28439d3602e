// Shared by the fuzz targets that need DPDK: one EAL per fuzzer process,
// plain memory (no hugepages), quiet logs. Aborts if it cannot start.
#pragma once

#include <cstdlib>

#include "runtime/platform/eal.h"

namespace nanopu::fuzz {

inline void init_eal() {
  EalParams c;
  c.lcores = {0};
  c.huge = HugePages::kOff;
  c.eal_log_level = 1;
  if (!eal_init(c).ok()) std::abort();
}

}  // namespace nanopu::fuzz
