// The interrupt line from the NIC core to one worker core (the HTS's
// "message arrived for a better thread" signal; nanoPU tail-latency version
// §2.4). The worker publishes the effective priority of what it runs; the NIC
// raises `preempt` when it delivers a message for a strictly better thread.
// Safe points poll `preempt` (one load of a line the NIC rarely writes,
// Concord-style); when a worker ignores it for too long the NIC kick()s it:
// a signal the scheduler's handler turns into an asynchronous switch.
#pragma once

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <cstdint>

#include "lib/contract/wakeup.h"

namespace nanopu {

inline constexpr uint8_t kNothingRunning = 0xff;
// The signal behind kick(): ignored by default and unused by DPDK. The
// scheduler installs its handler (scheduler/async_preempt.h).
inline constexpr int kPreemptSignal = SIGURG;

// Stores v unless the word already holds it. The NIC core reads these
// words; a store, even of the same value, takes the line back from its
// cache, so a worker writes only what changed.
template <typename T, typename V>
inline void store_if_changed(std::atomic<T>& word, V v) {
  if (word.load(std::memory_order_relaxed) != static_cast<T>(v))
    word.store(static_cast<T>(v), std::memory_order_relaxed);
}

struct CoreSignals {
  alignas(64) std::atomic<uint32_t> preempt{0};          // NIC writes 1, worker clears
  std::atomic<uint64_t> preempt_raised_tsc{0};           // when `preempt` went 1
  alignas(64) std::atomic<uint8_t> running_priority{kNothingRunning};  // worker writes
  std::atomic<uint64_t> deadline_tsc{UINT64_MAX};  // worker: next t0 deadline of the running thread
  // Worker: since when the running thread has been on its current message
  // (or running, if between messages; a core's lone thread between
  // messages: since its last message began, msg_done() reads no clock for
  // it); 0 when the core is in the scheduler.
  std::atomic<uint64_t> busy_since_tsc{0};
  pthread_t os_thread{};                            // the worker's lcore thread
  std::atomic<bool> async_enabled{false};           // a thread on this core allows async preemption
  // Adaptive polling (lib/contract/wakeup.h): 1 while the worker sleeps on
  // this word. The NIC reads it once per poll for each worker it delivered to.
  alignas(64) std::atomic<uint32_t> sleeping{0};

  // NIC side: a message for a thread of `priority` was delivered.
  void on_delivery(uint8_t priority, uint64_t now_tsc) {
    if (priority < running_priority.load(std::memory_order_relaxed) &&
        preempt.load(std::memory_order_relaxed) == 0) {
      preempt_raised_tsc.store(now_tsc, std::memory_order_relaxed);
      preempt.store(1, std::memory_order_release);
    }
  }

  // NIC side, after delivering messages to this worker's threads: wakes it
  // if it sleeps (the fence orders the FIFO pushes before the flag's load).
  void wake_if_sleeping() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleeping.load(std::memory_order_relaxed) != 0) {
      sleeping.store(0, std::memory_order_relaxed);
      futex_wake(&sleeping);
    }
  }

  // NIC side: interrupts the worker's OS thread (asynchronous preemption).
  // False if it could not be signalled.
  [[nodiscard]] bool kick() const { return pthread_kill(os_thread, kPreemptSignal) == 0; }
};

// Single-lcore mode: the NIC loop shares the worker's core, so the worker
// polls it from safe points through this hook (the scheduler never sees the
// NIC's type). A plain function pointer: called every few microseconds from
// inside application threads, where a std::function's indirection and
// possible allocation have no place.
struct NicPollHook {
  unsigned (*poll)(void* nic) = nullptr;
  void* nic = nullptr;

  [[nodiscard]] bool present() const { return poll != nullptr; }
  unsigned operator()() const { return poll(nic); }
};

}  // namespace nanopu
