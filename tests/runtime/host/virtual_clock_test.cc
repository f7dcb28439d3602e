// The runtime's clock seam (lib/contract/clock.h; docs/design.md §11, the
// first brick of nanopu-sim): while a VirtualClock lives, a real host's NIC
// timers and its threads' now_ns() follow modelled time alone, whatever the
// wall clock does. A real host on a real net_ring port, driven by hand.
#include "lib/contract/clock.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <thread>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"

namespace nanopu {
namespace {

constexpr uint32_t kA = 0x0a000001, kB = 0x0a000002;
constexpr uint64_t kPsPerUs = 1'000'000;

TEST(VirtualClockTest, ARetransmissionWaitsOneTimeoutOfModelledTimeNotOfWallTime) {
  clock::VirtualClock vc(5 * kPsPerUs);
  ASSERT_TRUE(clock::is_virtual());
  EXPECT_EQ(clock::hz(), clock::kVirtualHz);

  // Host A sends one message to B, which never answers (its end of the wire
  // is never read): only A's retransmit timer can act.
  const testing::PortPair p = testing::make_ring_pair();
  Config c = testing::host_config(p.a, kA);
  c.rto_us = 10;
  c.ack_hold_us = 0;  // (must stay below half the timeout)
  auto a = Runtime::create(c);
  ASSERT_TRUE(a.ok()) << a.status();
  uint64_t thread_ns = 0;
  bool sent = false;
  ASSERT_TRUE((*a)->spawn([&](Thread& t) {
                   ASSERT_TRUE(t.bind(3).ok());
                   thread_ns = t.now_ns();
                   const std::array<uint64_t, 1> word{42};
                   ASSERT_EQ(t.send_message(AppHeader{kB, 5, 8}, word), ApiError::kOk);
                   sent = true;
                 }).ok());
  for (int i = 0; i < 100 && !sent; ++i) (*a)->poll_once();
  ASSERT_TRUE(sent);
  EXPECT_EQ(thread_ns, 5'000u) << "the thread reads modelled time";
  for (int i = 0; i < 10; ++i) (*a)->poll_once();
  EXPECT_EQ((*a)->nic_counters().tx_data_packets, 1u);

  // Wall time passes, modelled time does not: the timer stays put.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  for (int i = 0; i < 1000; ++i) (*a)->poll_once();
  EXPECT_EQ((*a)->nic_counters().tx_timeouts, 0u);

  // Short of the 10 us timeout: nothing; past it (and the timer scan's
  // quarter-timeout step): one timeout, one probe of the silent peer.
  vc.advance_ps(9 * kPsPerUs);
  for (int i = 0; i < 10; ++i) (*a)->poll_once();
  EXPECT_EQ((*a)->nic_counters().tx_timeouts, 0u);
  vc.advance_ps(4 * kPsPerUs);
  for (int i = 0; i < 10; ++i) (*a)->poll_once();
  EXPECT_EQ((*a)->nic_counters().tx_timeouts, 1u);
  EXPECT_EQ((*a)->nic_counters().tx_data_packets, 2u) << "the probe";
  (*a)->stop();
  (*a)->release_buffers();
}

TEST(VirtualClockTest, WithoutOneTheClockIsTheTsc) {
  EXPECT_FALSE(clock::is_virtual());
  EXPECT_EQ(clock::hz(), rte_get_tsc_hz());
  const uint64_t t0 = clock::ticks();
  EXPECT_GE(rte_rdtsc(), t0);
  {
    clock::VirtualClock vc;
    vc.set_ps(100);
    vc.set_ps(50);  // never backwards
    EXPECT_EQ(clock::ticks(), 100u);
  }
  EXPECT_FALSE(clock::is_virtual());
  EXPECT_GE(clock::ticks(), t0);
}

}  // namespace
}  // namespace nanopu
