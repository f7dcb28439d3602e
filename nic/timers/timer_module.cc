#include "nic/timers/timer_module.h"

#include <rte_errno.h>
#include <rte_lcore.h>

#include <mutex>

#include "absl/strings/str_cat.h"

namespace nanopu {

absl::Status TimerModule::init_subsystem() {
  static std::once_flag once;
  static int rc = 0;
  std::call_once(once, [] { rc = rte_timer_subsystem_init(); });
  if (rc != 0 && rc != -EALREADY)
    return absl::InternalError(absl::StrCat("rte_timer_subsystem_init: ", rte_strerror(-rc)));
  return absl::OkStatus();
}

TimerModule::TimerModule(uint32_t slots, Handler handler, void* ctx)
    : entries_(std::make_unique<Entry[]>(slots)), slots_(slots), handler_(handler), ctx_(ctx) {
  for (uint32_t i = 0; i < slots; ++i) {
    rte_timer_init(&entries_[i].timer);
    entries_[i].owner = this;
    entries_[i].slot = i;
  }
}

TimerModule::~TimerModule() {
  for (uint32_t i = 0; i < slots_; ++i) rte_timer_stop_sync(&entries_[i].timer);
}

void TimerModule::schedule(uint32_t slot, uint64_t ticks) {
  // Single-shot, fired on the calling (NIC) lcore. reset() re-arms a pending timer.
  (void)rte_timer_reset(&entries_[slot].timer, ticks, SINGLE, rte_lcore_id(), fire, &entries_[slot]);
}

void TimerModule::cancel(uint32_t slot) { (void)rte_timer_stop(&entries_[slot].timer); }

bool TimerModule::pending(uint32_t slot) const { return rte_timer_pending(&entries_[slot].timer) != 0; }

void TimerModule::fire(rte_timer*, void* arg) {
  auto* e = static_cast<Entry*>(arg);
  e->owner->handler_(e->owner->ctx_, e->slot);
}

}  // namespace nanopu
