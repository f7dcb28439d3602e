// A host's noise over one run (nanopu/host_noise.h): its NIC cores' poll
// loops and its dedicated workers' idle turns watched for stalls, and the
// kernel's steal time from /proc/stat between the run's start and end.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "lib/base/stall_probe.h"
#include "nanopu/host_noise.h"

namespace nanopu {

class NicCore;

class HostNoiseWatch {
 public:
  // At the run's start, before its loops start (not on a modelled clock:
  // nothing to watch there).
  void start(const std::vector<std::unique_ptr<NicCore>>& nics, size_t dedicated_workers);
  // Dedicated worker i's probe (its loop's own); nullptr when not started.
  [[nodiscard]] StallProbe* worker_probe(size_t i) { return i < workers_.size() ? &workers_[i] : nullptr; }
  // At the run's end, once every loop has stopped: the run's profile.
  void finish(const std::vector<std::unique_ptr<NicCore>>& nics);
  [[nodiscard]] const HostNoise& noise() const { return noise_; }

 private:
  struct CpuTimes {
    uint64_t total = 0, steal = 0;
    bool ok = false;
  };
  [[nodiscard]] static CpuTimes read_cpu_times();

  bool started_ = false;
  std::vector<StallProbe> workers_;
  CpuTimes at_start_;
  HostNoise noise_;
};

}  // namespace nanopu
