#include "nic/idle/idle_sleep.h"

#include <algorithm>

namespace nanopu {

void IdleSleep::after_poll(const IdleState& s, uint64_t now, NicCounters* counters,
                           absl::FunctionRef<bool()> still_idle) {
  if (!adaptive_) return;
  if (s.work != 0 || !s.workers_idle) {
    if (idle_since_ != 0) waiter_.reset();
    idle_since_ = 0;
    return;
  }
  if (idle_since_ == 0) idle_since_ = now;
  // Waiting for the link, nothing can progress: sleep whatever is in flight.
  if (now - idle_since_ < spin_tsc_ || (!s.holding && !s.quiescent)) return;
  uint32_t sleep_us = kMaxSleepUs;
  if (!s.holding && s.next_timer != UINT64_MAX) {
    if (s.next_timer <= now) return;  // a timer is due: poll
    const uint64_t tsc_per_us = std::max<uint64_t>(1, tsc_hz_ / 1000000);
    sleep_us = static_cast<uint32_t>(std::min<uint64_t>(kMaxSleepUs, (s.next_timer - now) / tsc_per_us));
    if (sleep_us == 0) return;
  }
  doorbell_.set_sleeping(true);  // then re-check (still_idle), then sleep
  const bool slept = waiter_.sleep(sleep_us, still_idle);
  doorbell_.set_sleeping(false);
  if (!slept) return;
  doorbell_.drain();
  ++counters->nic_sleeps;
  // idle_since_ stays: with nothing new the next poll sleeps again at once
  // (any work resets it, and then the spin starts over).
}

}  // namespace nanopu
