// The bare single-producer/single-consumer ring the message FIFO's hop is
// compared with (issue: "ring hop ≤ 1.2× the raw SPSC hop"): Lamport's ring
// with the two indices on their own cache lines and nothing else. A
// reference only; nanopu's FIFOs use rte_ring (lib/contract/msg_fifo.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

namespace nanopu::bench {

class SpscRing {
 public:
  explicit SpscRing(uint32_t size_pow2) : slots_(size_pow2), mask_(size_pow2 - 1) {}
  bool push(void* p) {
    const uint32_t h = head_.load(std::memory_order_relaxed);
    if (h - tail_.load(std::memory_order_acquire) == slots_.size()) return false;
    slots_[h & mask_] = p;
    head_.store(h + 1, std::memory_order_release);
    return true;
  }
  void* pop() {
    const uint32_t t = tail_.load(std::memory_order_relaxed);
    if (t == head_.load(std::memory_order_acquire)) return nullptr;
    void* p = slots_[t & mask_];
    tail_.store(t + 1, std::memory_order_release);
    return p;
  }

 private:
  std::vector<void*> slots_;
  uint32_t mask_;
  alignas(64) std::atomic<uint32_t> head_{0};
  alignas(64) std::atomic<uint32_t> tail_{0};
};

}  // namespace nanopu::bench
