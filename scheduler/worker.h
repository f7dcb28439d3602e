// One worker core (DESIGN §4): runs up to max_threads nanoPU threads as
// fibers. This is the HTS stand-in's skeleton: threads with a message (or
// that have not parked in wait()) are runnable, and each scheduling round
// runs them in priority order (0 first). Preemption on arrival, t0 demotion
// and idle rotation (issue #4) refine pick order inside run_once().
#pragma once

#include <rte_mempool.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/ring/thread_fifos.h"
#include "nanopu/thread.h"
#include "nic/pipeline/context_table.h"
#include "scheduler/fiber.h"

namespace nanopu::sched {

using ThreadBody = std::function<void(Thread&)>;

class Worker {
 public:
  Worker(uint32_t index, uint32_t max_threads, const std::atomic<bool>* stop);
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Creates a thread (not yet bound) whose fiber will run body.
  [[nodiscard]] absl::StatusOr<Thread*> add_thread(uint32_t id, ThreadFifos* fifos,
                                                   rte_mempool* pool, ContextTable* contexts,
                                                   uint32_t max_message_bytes, ThreadBody body);

  // One scheduling round over the runnable threads. Returns true if any ran.
  bool run_once();
  // Every thread's body has returned.
  [[nodiscard]] bool all_finished() const;
  [[nodiscard]] size_t thread_count() const { return slots_.size(); }
  [[nodiscard]] const Thread& thread(size_t i) const { return *slots_[i].thread; }
  [[nodiscard]] uint32_t index() const { return index_; }

  // Called by Thread from inside its fiber.
  void park();   // wait(): suspend until a message arrives or the runtime stops
  void yield();  // idle(): suspend until the next round
  void note_bound() { order_dirty_ = true; }
  [[nodiscard]] bool stopping() const { return stop_->load(std::memory_order_relaxed); }

  // The thread whose fiber is running on this OS thread (the lnic.h shim's
  // implicit "current thread"), or nullptr outside any fiber.
  [[nodiscard]] static Thread* current();

 private:
  enum class State : uint8_t { kRunnable, kWaiting, kFinished };
  struct Slot {
    std::unique_ptr<Thread> thread;
    std::unique_ptr<Fiber> fiber;
    State state = State::kRunnable;
  };
  void sort_order();

  uint32_t index_;
  uint32_t max_threads_;
  const std::atomic<bool>* stop_;
  std::vector<Slot> slots_;
  std::vector<size_t> order_;  // slot indices, best priority first
  bool order_dirty_ = true;
  Slot* running_ = nullptr;
};

}  // namespace nanopu::sched
