// main() of the Google Benchmark programs that need DPDK: one EAL (one
// lcore, no hugepages: micro benchmarks touch little memory), then the
// benchmarks. `also` runs after the EAL is up (e.g. rte_timer's subsystem).
#pragma once

#include <benchmark/benchmark.h>

#include "runtime/platform/eal.h"

namespace nanopu::bench {

inline int run_micro_benchmarks(int argc, char** argv, bool (*also)() = nullptr) {
  EalParams c;
  c.lcores = {0};
  c.huge = HugePages::kOff;
  c.eal_log_level = 1;
  if (!eal_init(c).ok() || (also != nullptr && !also())) return 1;
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace nanopu::bench
