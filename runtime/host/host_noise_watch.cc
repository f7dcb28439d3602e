#include "runtime/host/host_noise_watch.h"

#include <cstdio>

#include "lib/contract/clock.h"
#include "nic/nic_core.h"

namespace nanopu {

void HostNoiseWatch::start(const std::vector<std::unique_ptr<NicCore>>& nics, size_t dedicated_workers) {
  if (clock::is_virtual()) return;
  started_ = true;
  // Before the loops start (armed probes count from each loop's first turn).
  for (const auto& nic : nics) nic->stall_probe().arm(clock::hz());
  workers_.assign(dedicated_workers, StallProbe{});
  for (StallProbe& p : workers_) p.arm(clock::hz());
  at_start_ = read_cpu_times();
}

void HostNoiseWatch::finish(const std::vector<std::unique_ptr<NicCore>>& nics) {
  if (!started_) return;
  started_ = false;
  noise_ = HostNoise{};
  for (const auto& nic : nics) noise_.add(nic->stall_probe().profile());
  for (const StallProbe& p : workers_) noise_.add(p.profile());
  const CpuTimes end = read_cpu_times();
  if (at_start_.ok && end.ok && end.total > at_start_.total)
    noise_.steal_share =
        static_cast<double>(end.steal - at_start_.steal) / static_cast<double>(end.total - at_start_.total);
}

HostNoiseWatch::CpuTimes HostNoiseWatch::read_cpu_times() {
  // "cpu  user nice system idle iowait irq softirq steal ..." (proc(5)).
  CpuTimes t;
  FILE* f = std::fopen("/proc/stat", "r");
  if (f == nullptr) return t;
  unsigned long long v[8] = {};
  t.ok = std::fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &v[6], &v[7]) == 8;
  std::fclose(f);
  for (unsigned long long x : v) t.total += x;
  t.steal = v[7];
  return t;
}

}  // namespace nanopu
