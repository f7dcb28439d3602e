// Sleeping and waking across the NIC↔worker contract (adaptive polling,
// docs/design.md §9). A poller with nothing to do spins a bounded while,
// then sleeps; whoever hands it work wakes it:
//   - a worker core sleeps on a futex word in its CoreSignals; the NIC core
//     wakes it after delivering a message to one of its threads;
//   - the NIC core sleeps on its port's Rx interrupt and on a Doorbell (an
//     eventfd) that a thread rings after handing it a message to send.
// Both use the same lost-wake-up rule: the sleeper sets its flag, then
// re-checks for work, then sleeps; the waker publishes the work, then checks
// the flag (a full fence on each side between the two steps).
//
// Hand-written because std::atomic::wait has no timeout (a sleeping worker
// must still notice a stop) and DPDK has no worker-to-lcore doorbell; each
// piece is one system call.
#pragma once

#include <atomic>
#include <cstdint>

namespace nanopu {

// Waits while *word == expected, at most timeout_us (spurious returns allowed).
void futex_wait(const std::atomic<uint32_t>* word, uint32_t expected, uint32_t timeout_us);
// Wakes every waiter on word.
void futex_wake(const std::atomic<uint32_t>* word);

// The NIC core's doorbell: threads ring it after handing over a message while
// the NIC sleeps.
class Doorbell {
 public:
  Doorbell();
  ~Doorbell();
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;

  // The eventfd to wait on (readable when rung); -1 if none could be made.
  [[nodiscard]] int fd() const { return fd_; }
  // Sleeper side: announce, re-check for work, then wait on fd(); clear after.
  void set_sleeping(bool s) {
    sleeping_.store(s ? 1 : 0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  // Empties the eventfd's counter after a wake-up.
  void drain();
  // Waker side, after publishing work: one fence and one load, and a write
  // to the eventfd only when the NIC sleeps.
  void ring_if_sleeping() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_relaxed) != 0) ring();
  }
  void ring();

 private:
  int fd_ = -1;
  alignas(64) std::atomic<uint32_t> sleeping_{0};
};

}  // namespace nanopu
