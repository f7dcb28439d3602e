// Marks the polling threads' bursts on DPDK ports so that a thread about to
// unmap a port's memory can first wait for the bursts in progress to end.
//
// Why: DPDK 22.11's memif PMD (and every later release, to 26.07) tears a
// link down from its interrupt thread when the peer goes away —
// memif_disconnect() clears the CONNECTED flag and a few microseconds later
// munmaps the rings — while a polling thread that passed the flag check at
// the top of eth_memif_rx/tx may still be reading them: the survivor died of
// SIGSEGV. Nothing in the PMD orders the two. The unmap goes through the
// PLT, so nanopu interposes munmap (runtime/platform/memif_unmap_guard.cc)
// and, on the interrupt thread, waits here first. A Dekker pair: the burst
// publishes "inside" (a full barrier) before the PMD reads the flag; the
// unmapper clears the flag, fences, then waits for every thread seen
// inside. A burst that starts later sees the flag cleared and returns
// without touching the rings. docs/design.md §9, "memif's teardown, fenced".
//
// Header-only so that the NIC core (nic/), the switch (tools/) and the
// platform's guard share it without a link dependency between layers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace nanopu::burst_fence {

inline constexpr int kSlots = 64;  // polling threads with a slot of their own

struct alignas(64) Slot {
  std::atomic<uint64_t> seq{0};  // odd while its thread is inside a burst
};

inline Slot g_slots[kSlots];
inline std::atomic<int> g_next_slot{0};
inline std::atomic<uint32_t> g_overflow_inside{0};  // threads past kSlots
inline std::atomic<bool> g_enabled{false};
inline std::atomic<uint64_t> g_fence_word{0};  // the unmapper's barrier
inline thread_local int t_slot = -1;  // -1: none yet; kSlots: overflow

// From now on bursts are marked (a port whose PMD needs it was opened).
inline void enable() { g_enabled.store(true, std::memory_order_seq_cst); }
[[nodiscard]] inline bool enabled() { return g_enabled.load(std::memory_order_relaxed); }

// A burst: the constructor publishes that this thread is inside, with a
// full barrier before the PMD's own loads; the destructor that it left.
class Section {
 public:
  Section() {
    if (t_slot < 0) {
      const int s = g_next_slot.fetch_add(1, std::memory_order_relaxed);
      t_slot = s < kSlots ? s : kSlots;
    }
    if (t_slot < kSlots)
      g_slots[t_slot].seq.fetch_add(1, std::memory_order_seq_cst);
    else
      g_overflow_inside.fetch_add(1, std::memory_order_seq_cst);
  }
  ~Section() {
    if (t_slot < kSlots)
      g_slots[t_slot].seq.fetch_add(1, std::memory_order_release);
    else
      g_overflow_inside.fetch_sub(1, std::memory_order_release);
  }
  Section(const Section&) = delete;
  Section& operator=(const Section&) = delete;
};

// Runs `burst` (an rte_eth_rx_burst/tx_burst call) marked as a burst when
// marking is on, plainly otherwise; returns what it returns.
template <typename Burst>
inline auto fenced(Burst&& burst) {
  if (!enabled()) return burst();
  const Section inside;
  return burst();
}

// Returns once every burst that was in progress at the call has ended (at
// most `limit` later: a burst never blocks, so only a descheduled poller
// makes this wait at all). Called by the unmapper, after its flag store.
inline void wait_for_bursts(std::chrono::milliseconds limit = std::chrono::milliseconds(1000)) {
  // A locked RMW: a full barrier on x86 (nanopu's target, as DPDK's memif
  // is), and no -Wtsan warning as atomic_thread_fence has.
  (void)g_fence_word.fetch_add(1, std::memory_order_seq_cst);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  const int n = g_next_slot.load(std::memory_order_acquire);
  for (int i = 0; i < n && i < kSlots; ++i) {
    const uint64_t seen = g_slots[i].seq.load(std::memory_order_acquire);
    if ((seen & 1) == 0) continue;
    while (g_slots[i].seq.load(std::memory_order_acquire) == seen &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
  }
  while (g_overflow_inside.load(std::memory_order_acquire) != 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
}

}  // namespace nanopu::burst_fence
