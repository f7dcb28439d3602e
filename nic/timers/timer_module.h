// The NIC's timer module (nanoPU draft §3.4): one timer per slot — schedule,
// reschedule, cancel — checked once a period; expired slots are reported
// to a handler from poll(now).
//
// A deadline table rather than DPDK's rte_timer, for two measured reasons:
// rte_timer_reset + rte_timer_stop cost ~50 ns per message on the NIC
// core's hot path (nanopu-bench-nic-micro, beside this module), and
// rte_timer reads the TSC itself, while the same NDP code must also run on
// modelled time (model, virtual-time incast). Time is whatever unit
// the caller passes consistently (TSC cycles live, picoseconds modelled).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace nanopu {

class TimerModule {
 public:
  // Called with the slot whose timer expired and the time of the poll.
  using Handler = void (*)(void* ctx, uint32_t slot, uint64_t now);

  // period: how often poll() scans (a timer fires up to one period late).
  TimerModule(uint32_t slots, uint64_t period, Handler handler, void* ctx);

  // Arms (or re-arms) the slot's timer to fire at `deadline`.
  void schedule(uint32_t slot, uint64_t deadline) {
    if (deadline_[slot] == 0) ++armed_;
    deadline_[slot] = deadline == 0 ? 1 : deadline;
    earliest_ = std::min(earliest_, deadline_[slot]);
  }
  void cancel(uint32_t slot) {
    if (deadline_[slot] != 0) --armed_;
    deadline_[slot] = 0;
  }
  [[nodiscard]] bool pending(uint32_t slot) const { return deadline_[slot] != 0; }
  [[nodiscard]] uint32_t armed() const { return armed_; }
  // The earliest armed deadline (UINT64_MAX: none). A scan of the slots: for
  // an idle NIC deciding how long it may sleep, not for the hot path.
  [[nodiscard]] uint64_t next_deadline() const;
  // When poll() next scans the slots (UINT64_MAX: none armed): before then
  // it does nothing, and a scan, firing or not, moves the next one on.
  [[nodiscard]] uint64_t next_scan() const { return armed_ == 0 ? UINT64_MAX : next_scan_; }

  // Fires every timer whose deadline has passed; scans at most once a period.
  void poll(uint64_t now);

 private:
  std::vector<uint64_t> deadline_;  // 0: not armed
  uint64_t period_;
  uint64_t next_scan_ = 0;
  // At most the earliest armed deadline (a cancel leaves it lower): a scan
  // finds nothing due before it and skips the walk over the slots (one
  // walk a period of every slot, with a few timers armed: 9 % of an
  // ASan-built kv ring test's profile; too little to show in the normal
  // build's rate benchmark).
  uint64_t earliest_ = UINT64_MAX;
  uint32_t armed_ = 0;
  Handler handler_;
  void* ctx_;
};

}  // namespace nanopu
