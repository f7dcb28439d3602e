// One poll loop watched for the host's stalls (nanopu/host_noise.h): the
// gap between two turns of a loop whose own work per turn is short and
// bounded is time the host took from it. Written by the loop's core only;
// read once the loop has ended.
#pragma once

#include <cstdint>

#include "nanopu/host_noise.h"

namespace nanopu {

class StallProbe {
 public:
  // Watch from the next turn on; ticks_per_s: the clock turn() and
  // resume() are given. Unarmed, a probe records nothing.
  void arm(uint64_t ticks_per_s);
  // A turn of the loop: the gap since the last mark is measured (none
  // before the first: a loop that waited for its link to come up has not
  // stalled), less `work_ticks`, what the loop's own work since then may
  // have taken (a NIC core's poll of a full burst under load takes tens of
  // microseconds: that is nanopu's time, not the host's).
  void turn(uint64_t now_ticks, uint64_t work_ticks = 0) {
    if (last_ == 0) [[unlikely]] {
      last_ = now_ticks;
      return;
    }
    const uint64_t gap = now_ticks - last_;
    last_ = now_ticks;
    watched_ += gap;
    if (gap >= min_ticks_ + work_ticks) record(gap - work_ticks);
  }
  // Ticks of `n` units of a loop's work (a packet in or out): a generous
  // bound, 2 us each, so that only what the work cannot explain counts.
  [[nodiscard]] uint64_t work_allowance(uint64_t n) const { return n * unit_ticks_; }
  // After a deliberate sleep or the application's own work: the gap is
  // not the host's, and not watched.
  void resume(uint64_t now_ticks) { last_ = now_ticks; }
  [[nodiscard]] HostNoise profile() const;

 private:
  void record(uint64_t gap_ticks);

  uint64_t hz_ = 0, min_ticks_ = ~uint64_t{0} / 2, ticks_50us_ = 0, ticks_1ms_ = 0, unit_ticks_ = 0;
  uint64_t last_ = 0, watched_ = 0, stalled_ = 0, longest_ = 0;
  uint64_t stalls_ = 0, over_50us_ = 0, over_1ms_ = 0;
};

}  // namespace nanopu
