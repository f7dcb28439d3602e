// One worker core (docs/design.md §4): up to max_threads nanoPU threads as fibers,
// scheduled by the HTS policy (scheduler/hts_policy.h).
//
// Decisions happen where the hardware's would have an effect:
//   - when the core is free (a thread parked in wait() or finished): pick();
//   - at safe points inside the running thread — every Thread API call checks
//     the core's preempt word (raised by the NIC on arrival of a message for a
//     better thread) and, every few calls, the t0 deadline / TIS tick;
//   - at msg_done() and idle();
//   - asynchronously, for a thread that opted in, from a signal the NIC core
//     sends when a raised preempt word is not picked up in time
//     (scheduler/async_preempt.h).
// In single-lcore mode the worker also polls the NIC from safe points, so a
// computing thread does not stall the NIC.
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/contract/core_signals.h"
#include "lib/contract/thread_fifos.h"
#include "nanopu/stats.h"
#include "nanopu/thread.h"
#include "lib/contract/context_table.h"
#include "scheduler/fiber.h"
#include "scheduler/hts_policy.h"
#include "scheduler/message_charge.h"

namespace nanopu::sched {

using ThreadBody = std::function<void(Thread&)>;

struct WorkerParams {
  uint32_t max_threads = 4;
  HtsParams hts;                       // times in TSC cycles
  NicPollHook shared_nic;              // single-lcore mode: the NIC shares this core
  uint64_t shared_nic_period_tsc = 0;  // safe points poll the shared NIC this often
  double clock_rate = 1;               // the threads' clock against true time (Config::clock_drift_ppm)
  // In a simulation: charged each message its threads take (the host's
  // modelled memory system, Config::memory_model); null: nothing.
  MessageCharge* message_charge = nullptr;
};

class Worker {
 public:
  // How many API calls pass between clock checks at safe points.
  static constexpr uint32_t kClockCheckEvery = 16;

  Worker(uint32_t index, const WorkerParams& params, const std::atomic<bool>* stop);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates a thread (not yet bound) whose fiber will run body.
  [[nodiscard]] absl::StatusOr<Thread*> add_thread(uint32_t id, ThreadFifos* fifos,
                                                   rte_mempool* pool, ContextTable* contexts,
                                                   uint32_t max_message_bytes, ThreadBody body);

  // Runs threads until none can run. Returns true if any ran.
  bool run_once();
  // After a run_once() that left every thread parked in wait() with no
  // deadline (and nothing else to do): until a message or a notice reaches
  // one of its threads, or the host stops, running it again does nothing.
  // A shared core's loop skips it then (an idle turn's scheduling round:
  // issue 69 item 4). Never on a modelled clock.
  [[nodiscard]] bool quiet() const { return quiet_ && !stopping(); }
  // Adaptive polling (lib/contract/wakeup.h): unless a thread can run now,
  // sleeps until the NIC delivers to one of this core's threads, or
  // timeout_us. On the worker's own OS thread, between run_once() calls.
  void sleep_until_work(uint32_t timeout_us);
  [[nodiscard]] bool all_finished() const;
  [[nodiscard]] size_t thread_count() const { return slots_.size(); }
  // The threads' clock against true time (WorkerParams::clock_rate).
  [[nodiscard]] double clock_rate() const { return params_.clock_rate; }
  [[nodiscard]] MessageCharge* message_charge() const { return params_.message_charge; }
  [[nodiscard]] const Thread& thread(size_t i) const { return *slots_[i].thread; }
  [[nodiscard]] uint32_t index() const { return index_; }
  [[nodiscard]] CoreSignals* signals() { return &signals_; }
  [[nodiscard]] const CoreCounters& stats() const { return stats_; }
  // The earliest deadline of a thread waiting in wait_for(); UINT64_MAX: none.
  [[nodiscard]] uint64_t next_wake_tsc() const;
  [[nodiscard]] bool stopping() const { return stop_->load(std::memory_order_relaxed); }
  // Records the OS thread running this worker (for asynchronous preemption).
  void attach_os_thread();
  // That OS thread stops running this worker: a late preemption signal then
  // finds no worker (the Worker may be destroyed while the thread lives on).
  static void detach_os_thread();

  // --- called by Thread from inside its fiber ---
  // wait() with no message; wake_tsc != 0: runnable again from then on (wait_for).
  void park(size_t slot, uint64_t wake_tsc = 0);
  void idle(size_t slot);        // idle()
  // A simulation only: the running thread, mid-computation, gives the core
  // back to the loop so that modelled time passes (Thread::compute); what
  // arrived meanwhile may then preempt it, and its demotion (t0) is decided
  // as at a safe point. It charged a slice from `slice_from` (ticks): the
  // loop may resume it before the slice's end (slice_from_ticks()).
  void yield_for_time(uint64_t slice_from);
  // The cycles a slice of that work may take: to the core's next decision
  // of its own (slice_cycles in worker.cc), at least min_cycles.
  [[nodiscard]] double slice_cycles(double min_cycles) const;
  // While the running thread is out in yield_for_time(): when its slice
  // began. A simulation resumes the core early, from then on, when its NIC
  // core did anything (an arrival may preempt the work); UINT64_MAX: not
  // in a slice, its charged work not to be cut.
  [[nodiscard]] uint64_t slice_from_ticks() const { return slice_from_; }
  void safe_point() {
    if (signals_.preempt.load(std::memory_order_relaxed) != 0 || --countdown_ == 0)
      slow_safe_point();
  }
  // Returns the TSC it read (the message's thread start).
  uint64_t on_msg_start(size_t slot);
  void on_msg_done(size_t slot);
  void on_bound(size_t slot);

  // The thread whose fiber is running on this OS thread, or nullptr.
  [[nodiscard]] static Thread* current();
  // Asynchronous preemption entry (from the signal handler).
  static void on_async_signal();

 private:
  enum class SlotState : uint8_t { kRunnable, kWaiting, kRunning, kFinished };
  struct Slot {
    std::unique_ptr<Thread> thread;
    std::unique_ptr<Fiber> fiber;
    SlotState state = SlotState::kRunnable;
    bool parked_in_handler = false;  // switched out from a signal handler
    uint64_t wake_tsc = 0;           // kWaiting until then (0: until a message)
  };

  void refresh(size_t i);
  void refresh_all();
  // Whether a thread can run without a message (states_ as last refreshed).
  [[nodiscard]] bool any_runnable() const;
  void slow_safe_point();
  // A decision point of the running thread; switches away if the policy says so.
  // `now`: the caller's clock read, taken just before (one read, not two).
  void decide(bool at_msg_done, uint64_t now);
  // Leaves the core in new_state; `out`: when (the caller's clock read, so
  // that a TSC read, ~10 ns on this VM, is not taken twice), or kReadClock.
  static constexpr uint64_t kReadClock = UINT64_MAX;
  void switch_out(SlotState new_state, uint64_t out = kReadClock);
  void publish_running();
  void poll_shared_nic(uint64_t now);
  // Virtual time (nanopu-sim) under TIS: modelled time passes only between
  // polls, so a thread that keeps the core — polling for its message
  // between ticks, or computing between ticks — gives the loop the core and
  // is resumed, without the policy choosing, once the clock reaches `until`
  // or (for_message) its message is there.
  void hold(size_t slot, uint64_t until, bool for_message);
  [[nodiscard]] uint64_t next_tis_tick(uint64_t now) const;

  uint32_t index_;
  WorkerParams params_;
  HtsPolicy policy_;
  const std::atomic<bool>* stop_;
  CoreSignals signals_;
  std::vector<Slot> slots_;
  bool time_yield_ = false;  // yield_for_time(): end this run_once()
  uint64_t slice_from_ = UINT64_MAX;  // yield_for_time(): the slice's start
  int hold_ = HtsPolicy::kNone;  // hold(): the slot the core stays with
  uint64_t hold_until_ = 0;
  bool hold_for_message_ = false;
  std::vector<ThreadState> states_;  // parallel to slots_, the policy's input
  int running_ = HtsPolicy::kNone;
  int last_ = HtsPolicy::kNone;
  uint32_t countdown_ = kClockCheckEvery;
  bool quiet_ = false;  // quiet()
  // Whether states_ (as just refreshed) says quiet() (run_once).
  [[nodiscard]] bool settled() const;
  uint64_t last_tick_;  // TIS ticks are counted from the worker's creation
  uint64_t last_nic_poll_ = 0;
  uint64_t resumed_tsc_ = 0;  // when run_once() last resumed a thread
  // True only while a thread's fiber is on the CPU: set by the fiber itself
  // when it starts or returns from suspend(), cleared before it suspends or
  // ends. The asynchronous-preemption handler switches only then (never on
  // the scheduler's stack, never mid-switch). volatile: written and read on
  // one OS thread, across a signal handler.
  volatile bool fiber_running_ = false;
  CoreCounters stats_;
};

}  // namespace nanopu::sched
