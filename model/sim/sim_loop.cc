#include "model/sim/sim_loop.h"

#include <algorithm>
#include <limits>

namespace nanopu::model {

bool SimLoop::run(const std::function<bool()>& done, uint64_t until_ticks) {
  while (!done()) {
    ++instants_;
    bool busy = false;  // still working after kMaxRoundsPerInstant rounds
    for (int round = 0; round < kMaxRoundsPerInstant; ++round) {
      bool any = false;
      for (Host& h : hosts_) {
        const uint64_t now = clock_.now_ps();
        if (now < h.busy_until_ps && now < h.cut_at()) continue;
        any |= h.poll();
        h.busy_until_ps = now + clock_.take_charged_ps();
        ++polls_;
      }
      busy = any;
      if (!any || done()) break;
    }
    if (done()) break;
    // The next time anything is due. A frame already due that no host took
    // waits for its host (booting, or busy with work charged): that host's
    // wakeup is among these. A host still working after the round limit
    // gets the smallest step: time must pass for a poller.
    const uint64_t now = clock_.now_ps();
    uint64_t next = busy ? now + 1 : now + idle_step_;
    for (const SimLink* l : links_)
      if (const uint64_t a = l->next_arrival(); a > now) next = std::min(next, a);
    for (const auto& w : wakeups_)
      if (const uint64_t a = w(); a > now) next = std::min(next, a);
    for (const Host& h : hosts_) {
      if (h.busy_until_ps > now) next = std::min(next, h.busy_until_ps);
      if (const uint64_t c = h.cut_at(); c > now && c < h.busy_until_ps) next = std::min(next, c);
    }
    if (next > until_ticks) return false;
    clock_.set_ps(next);
  }
  return true;
}

}  // namespace nanopu::model
