// The NIC's timer module (001 §3.4): schedule / reschedule / cancel one timer
// per slot; expired slots are reported to a handler from poll().
//
// Built on DPDK's rte_timer (a kept dependency) rather than a hand-written
// wheel: it already gives O(log n) insert/cancel and a cheap "nothing due"
// check in rte_timer_manage(). Timers fire on the lcore that polls, which is
// the NIC core's.
#pragma once

#include <rte_timer.h>

#include <cstdint>
#include <memory>

#include "absl/status/status.h"

namespace nanopu {

class TimerModule {
 public:
  // Called with the slot whose timer expired.
  using Handler = void (*)(void* ctx, uint32_t slot);

  TimerModule(uint32_t slots, Handler handler, void* ctx);
  ~TimerModule();
  TimerModule(const TimerModule&) = delete;
  TimerModule& operator=(const TimerModule&) = delete;

  // Initialises DPDK's timer subsystem (once per process; after the EAL).
  [[nodiscard]] static absl::Status init_subsystem();

  // Arms (or re-arms) the slot's timer to fire `ticks` TSC cycles from now.
  void schedule(uint32_t slot, uint64_t ticks);
  void cancel(uint32_t slot);
  [[nodiscard]] bool pending(uint32_t slot) const;
  // Runs expired timers of this lcore (every TimerModule's on this lcore).
  static void poll() { rte_timer_manage(); }

 private:
  struct Entry {
    rte_timer timer;
    TimerModule* owner;
    uint32_t slot;
  };
  static void fire(rte_timer* t, void* arg);

  std::unique_ptr<Entry[]> entries_;
  uint32_t slots_;
  Handler handler_;
  void* ctx_;
};

}  // namespace nanopu
