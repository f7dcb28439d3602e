#include "model/sim/sim_loop.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace nanopu::model {

void SimLoop::begin_instant(uint64_t now) {
  for (Group& g : groups_) {
    g.active = std::exchange(g.stirred, false) || now - g.polled_at_ps >= idle_step_ || g.next_due() <= now;
  }
}

bool SimLoop::takes_poll(const Host& h, uint64_t now) const {
  const bool cut = now >= h.cut_at();
  if (now < h.busy_until_ps && !cut) return false;
  return h.group == kNoGroup || h.owes_poll || cut || groups_[h.group].active;
}

bool SimLoop::run(const std::function<bool()>& done, uint64_t until_ticks) {
  uint64_t crawling = 0;  // busy instants in a row
  while (!done()) {
    ++instants_;
    begin_instant(clock_.now_ps());
    bool busy = false;  // still working after kMaxRoundsPerInstant rounds
    for (int round = 0; round < kMaxRoundsPerInstant; ++round) {
      bool any = false;
      for (Host& h : hosts_) {
        const uint64_t now = clock_.now_ps();
        if (!takes_poll(h, now)) continue;
        const bool did = h.poll();
        any |= did;
        const uint64_t charged = clock_.take_charged_ps();
        h.busy_until_ps = now + charged;
        h.owes_poll = charged != 0;
        if (h.group != kNoGroup) {
          Group& g = groups_[h.group];
          g.polled_at_ps = now;
          g.active |= did;  // its other cores run in this round or the next
        }
        ++polls_;
      }
      busy = any;
      if (!any || done()) break;
    }
    if (done()) break;
    crawling = busy ? crawling + 1 : 0;
    if (crawling >= kMaxCrawlInstants) {
      crawled_at_ps_ = std::max<uint64_t>(1, clock_.now_ps());
      return false;
    }
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
