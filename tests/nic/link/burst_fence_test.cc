// The fence between a polling thread's bursts and an unmapping thread
// (nic/link/burst_fence.h), played as DPDK's memif PMD plays it: the poller
// checks a "connected" flag at the top of each burst and then reads the
// rings; the unmapper (memif's interrupt thread) clears the flag, waits for
// the bursts in progress, and takes the rings away. No burst may read the
// rings after they are gone.
#include "nic/link/burst_fence.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace nanopu {
namespace {

TEST(BurstFenceTest, NoBurstReadsTheRingsAfterTheUnmapperWaited) {
  burst_fence::enable();
  int torn = 0;
  for (int round = 0; round < 150; ++round) {
    std::atomic<bool> connected{true};  // the PMD's flag (a plain field in DPDK)
    std::atomic<int> ring{1};           // 1: mapped; 0: unmapped
    std::atomic<bool> stop{false};
    std::atomic<int> bursts{0}, bad{0};
    std::thread poller([&] {
      while (!stop.load(std::memory_order_relaxed)) {
        const burst_fence::Section inside;
        if (!connected.load(std::memory_order_relaxed)) continue;  // eth_memif_rx's check
        for (int i = 0; i < 200; ++i)
          if (ring.load(std::memory_order_relaxed) != 1) bad.fetch_add(1, std::memory_order_relaxed);
        bursts.fetch_add(1, std::memory_order_relaxed);
      }
    });
    while (bursts.load(std::memory_order_relaxed) < 2) std::this_thread::yield();
    connected.store(false, std::memory_order_relaxed);  // memif_disconnect
    burst_fence::wait_for_bursts();
    ring.store(0, std::memory_order_relaxed);  // munmap
    std::this_thread::yield();
    stop.store(true, std::memory_order_relaxed);
    poller.join();
    torn += bad.load() != 0 ? 1 : 0;
  }
  EXPECT_EQ(torn, 0) << "rounds in which a burst read the rings after they were taken";
}

// The wait ends at its limit even if a burst never does (a poller
// descheduled for good must not hang DPDK's interrupt thread).
TEST(BurstFenceTest, AWaitOnAStuckBurstEndsAtItsLimit) {
  burst_fence::enable();
  std::atomic<bool> inside{false}, release{false};
  std::thread stuck([&] {
    const burst_fence::Section s;
    inside.store(true);
    while (!release.load()) std::this_thread::yield();
  });
  while (!inside.load()) std::this_thread::yield();
  const auto t0 = std::chrono::steady_clock::now();
  burst_fence::wait_for_bursts(std::chrono::milliseconds(50));
  const auto waited = std::chrono::steady_clock::now() - t0;
  release.store(true);
  stuck.join();
  EXPECT_GE(waited, std::chrono::milliseconds(50));
  // Once it has left, a wait returns at once.
  const auto t1 = std::chrono::steady_clock::now();
  burst_fence::wait_for_bursts(std::chrono::seconds(10));
  EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::seconds(5));
}

}  // namespace
}  // namespace nanopu
