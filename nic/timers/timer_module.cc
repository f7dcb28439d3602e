#include "nic/timers/timer_module.h"

#include <algorithm>

namespace nanopu {

TimerModule::TimerModule(uint32_t slots, uint64_t period, Handler handler, void* ctx)
    : deadline_(slots, 0), period_(std::max<uint64_t>(period, 1)), handler_(handler), ctx_(ctx) {}

uint64_t TimerModule::next_deadline() const {
  if (armed_ == 0) return UINT64_MAX;
  uint64_t next = UINT64_MAX;
  for (uint64_t d : deadline_)
    if (d != 0 && d < next) next = d;
  return next;
}

void TimerModule::poll(uint64_t now) {
  if (armed_ == 0 || now < next_scan_) return;
  next_scan_ = now + period_;  // the same scan times whether or not one is due
  if (earliest_ > now) return;
  // Handlers' schedule() calls lower earliest_ for the slots already passed.
  earliest_ = UINT64_MAX;
  for (uint32_t slot = 0; slot < deadline_.size(); ++slot) {
    const uint64_t d = deadline_[slot];
    if (d == 0) continue;
    if (d > now) {
      earliest_ = std::min(earliest_, d);
      continue;
    }
    cancel(slot);
    handler_(ctx_, slot, now);  // may schedule the slot again
  }
}

}  // namespace nanopu
