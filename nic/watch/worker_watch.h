// The NIC core's watch over the worker cores it feeds (docs/design.md §4):
// asynchronous preemption — a raised preempt word, or a running thread's t0
// deadline, left unanswered for async_preempt_after_tsc gets the worker a
// signal (kick()), again and again with a doubling wait while it stays
// unanswered — and the watchdog, which counts and reports once a thread
// that holds its core on one message without msg_done() for watchdog_tsc.
// Both run on their own period, not every poll: reading the workers'
// signals pulls lines they write on every message.
#pragma once

#include <cstdint>
#include <vector>

#include "lib/contract/core_signals.h"
#include "nanopu/stats.h"

namespace nanopu {

class WorkerWatch {
 public:
  // 0 disables either check.
  WorkerWatch(uint64_t async_preempt_after_tsc, uint64_t watchdog_tsc, uint64_t tsc_hz)
      : async_after_(async_preempt_after_tsc), watchdog_(watchdog_tsc), tsc_hz_(tsc_hz) {}

  // Once per NIC poll; each check runs when its period has come.
  void poll(uint64_t now, const std::vector<CoreSignals*>& workers, NicCounters* counters) {
    if (async_after_ != 0 && now >= next_async_) {
      next_async_ = now + async_after_ / 8;  // a signal goes at most 1/8 late
      check_async_preemption(now, workers, counters);
    }
    if (watchdog_ != 0 && now >= next_watchdog_) check_watchdog(now, workers, counters);
  }

 private:
  // Per worker: the episode signalled, when the last signal went, and how
  // long to wait before signalling it again.
  struct Kick {
    uint64_t episode = 0, sent_tsc = 0, retry_tsc = 0;
  };
  void check_async_preemption(uint64_t now, const std::vector<CoreSignals*>& workers,
                              NicCounters* counters);
  void check_watchdog(uint64_t now, const std::vector<CoreSignals*>& workers, NicCounters* counters);

  uint64_t async_after_;
  uint64_t watchdog_;
  uint64_t tsc_hz_;
  std::vector<Kick> kicks_;
  std::vector<uint64_t> flagged_;  // per worker: the watchdog episode already counted
  uint64_t next_async_ = 0;
  uint64_t next_watchdog_ = 0;
};

}  // namespace nanopu
