#include "model/sim/sim_loop.h"

#include <algorithm>
#include <limits>

namespace nanopu::model {

bool SimLoop::run(const std::function<bool()>& done, uint64_t until_ticks) {
  while (!done()) {
    ++instants_;
    for (int round = 0; round < kMaxRoundsPerInstant; ++round) {
      bool any = false;
      for (const auto& poll : hosts_) {
        any |= poll();
        ++polls_;
      }
      if (!any || done()) break;
    }
    if (done()) break;
    const uint64_t now = clock_.now_ps();
    uint64_t next = std::numeric_limits<uint64_t>::max();
    for (const SimLink* l : links_) next = std::min(next, l->next_arrival());
    for (const auto& w : wakeups_) next = std::min(next, w());
    // A frame due now (the hosts stopped within the round limit) still
    // moves time on, by the smallest step: time must pass for a poller.
    next = next <= now ? now + 1 : std::min(next, now + idle_step_);
    if (next > until_ticks) return false;
    clock_.set_ps(next);
  }
  return true;
}

}  // namespace nanopu::model
