#include "lib/base/stall_probe.h"

#include <algorithm>

namespace nanopu {

void StallProbe::arm(uint64_t ticks_per_s) {
  hz_ = ticks_per_s;
  auto ticks = [&](uint64_t ns) { return static_cast<uint64_t>(static_cast<double>(ns) * 1e-9 * static_cast<double>(hz_)); };
  min_ticks_ = std::max<uint64_t>(1, ticks(kStallMinNs));
  ticks_50us_ = ticks(50'000);
  ticks_1ms_ = ticks(1'000'000);
  unit_ticks_ = ticks(2'000);
}

void StallProbe::record(uint64_t gap_ticks) {
  stalled_ += gap_ticks;
  ++stalls_;
  over_50us_ += gap_ticks >= ticks_50us_;
  over_1ms_ += gap_ticks >= ticks_1ms_;
  longest_ = std::max(longest_, gap_ticks);
}

HostNoise StallProbe::profile() const {
  HostNoise n;
  if (hz_ == 0 || watched_ == 0) return n;
  const double s_per_tick = 1.0 / static_cast<double>(hz_);
  n.measured = true;
  n.loops = 1;
  n.watched_s = static_cast<double>(watched_) * s_per_tick;
  n.stalled_s = static_cast<double>(stalled_) * s_per_tick;
  n.stalls = stalls_;
  n.over_50us = over_50us_;
  n.over_1ms = over_1ms_;
  n.longest_ns = static_cast<uint64_t>(static_cast<double>(longest_) * s_per_tick * 1e9);
  return n;
}

}  // namespace nanopu
