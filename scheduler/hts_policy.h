// The hardware thread scheduler's policy (nanoPU §2.2; nanoPU tail-latency version §2.4, §3.3), as a
// pure class: thread states and time come in as arguments, so the live
// worker and the virtual-time model share one copy (docs/design.md §8). Time is in
// any unit the caller uses consistently (TSC cycles live, picoseconds in the
// virtual-time model).
//
//   - A thread is active while it has a message (queued or being read).
//   - The active thread with the best effective priority runs (0 best); ties
//     go to the oldest message at the head of the thread's queue (FIFO).
//   - Switch when (a) a strictly better thread becomes active, (b) the
//     running thread finishes its messages / declares idle and another thread
//     is the target, (c) a priority-0 thread runs longer than t0 on one
//     message: it is demoted to priority 1 for good by default (nanoPU (OSDI'21) §2.4 "downgrade
//     its priority"; nanoPU tail-latency version §4: the misbehaving application "quickly becomes
//     strictly" lower than the well-behaved one), or until its msg_done
//     (DemotionMode::kUntilDone). msg_done resets the message timer (nanoPU
//     tail-latency version §2.4), (d) no thread is active and the
//     running one has idled longer than the idle timeout: rotate round-robin.
//   - TIS (the paper's timer-interrupt baseline, §5.2.2) makes the same
//     choice, but only at periodic ticks, and never demotes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "nanopu/policies.h"

namespace nanopu::sched {

using nanopu::DemotionMode;  // include/nanopu/policies.h
using nanopu::SchedMode;

struct HtsParams {
  SchedMode mode = SchedMode::kHts;
  bool bounded = true;          // t0 demotion of priority-0 threads
  uint64_t t0 = 0;              // bounded message-processing time
  uint64_t idle_timeout = 0;    // rotate after this long with no thread active
  uint64_t tis_period = 0;      // TIS tick
  DemotionMode demotion = DemotionMode::kPermanent;  // include/nanopu/policies.h
};

// What the scheduler knows of one thread: its state, priority and the
// timestamp of the message at the head of its queue (the HTS inputs, nanoPU tail-latency version §2.4).
struct ThreadState {
  bool present = false;    // registered and not finished
  bool has_msg = false;    // a message queued or being read
  bool runnable = false;   // can run without a message (not parked in wait())
  uint8_t priority = 0;    // as bound
  bool demoted = false;    // priority 0 lowered to 1 after overrunning t0 (for good)
  bool in_msg = false;     // reading a message (header read, no msg_done yet)
  uint64_t head_ts = 0;    // arrival of the head message (or start of the current one)
  uint64_t msg_start = 0;  // when the current message's processing began
  uint64_t idle_since = 0; // when it last declared idle with nothing to do
};

class HtsPolicy {
 public:
  static constexpr int kNone = -1;

  explicit HtsPolicy(const HtsParams& p) : p_(p) {}

  [[nodiscard]] static uint8_t effective_priority(const ThreadState& t) {
    return t.demoted && t.priority == 0 ? 1 : t.priority;
  }
  // The best active thread other than `except` (strict priority, then oldest head).
  [[nodiscard]] int best_active(const ThreadState* ts, size_t n, int except = kNone) const;

  // The thread to run on a free core. `last` ran most recently: with nothing
  // active it keeps the core until it has idled past the idle timeout, then
  // the core rotates round-robin (d).
  [[nodiscard]] int pick(const ThreadState* ts, size_t n, int last, uint64_t now) const;
  // pick() when no thread is active: `last`, or the next runnable one.
  [[nodiscard]] int pick_idle(const ThreadState* ts, size_t n, int last, uint64_t now) const;

  // A decision point while `running` runs (a safe point, a tick, msg_done,
  // idle). Applies t0 demotion to ts[running]; returns true if the core
  // should switch away. at_msg_done: the running thread just finished a
  // message, so equal-priority threads with older heads now go first.
  [[nodiscard]] bool should_switch(ThreadState* ts, size_t n, int running, uint64_t now,
                                   bool at_msg_done) const;

  // A thread began a message (read its header) / wrote msg_done: the
  // message timer starts / resets. A demoted thread stays demoted unless
  // the demotion mode is kUntilDone.
  static void on_msg_start(ThreadState& t, uint64_t now) {
    t.in_msg = true;
    t.msg_start = now;
    t.idle_since = 0;
  }
  void on_msg_done(ThreadState& t) const {
    t.in_msg = false;
    if (p_.demotion == DemotionMode::kUntilDone) t.demoted = false;
  }

  // TIS: whether `now` is at or past the tick after `last_tick` (and the new tick).
  [[nodiscard]] bool tis_tick_due(uint64_t last_tick, uint64_t now, uint64_t* tick) const;

  // When should_switch's answer for `running` can next change with time alone
  // (the t0 deadline), or UINT64_MAX.
  [[nodiscard]] uint64_t time_deadline(const ThreadState& running) const;

  [[nodiscard]] const HtsParams& params() const { return p_; }
  // Whether active thread a goes before b: better priority, then the older
  // head message (FIFO among equals).
  [[nodiscard]] static bool better(const ThreadState& a, const ThreadState& b);

 private:
  HtsParams p_;
};

}  // namespace nanopu::sched
