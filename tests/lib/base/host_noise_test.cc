// A poll loop's gaps as the host's stalls, and what they say about a tail
// (nanopu/host_noise.h, lib/base/stall_probe.h): a pure unit, on made-up
// ticks (1 tick = 1 ns).
#include <gtest/gtest.h>

#include "lib/base/stall_probe.h"
#include "nanopu/host_noise.h"

namespace nanopu {
namespace {

constexpr uint64_t kHz = 1'000'000'000;

TEST(StallProbeTest, GapsAreStallsButWaitsBeforeTheFirstTurnAndResumedGapsAreNot) {
  StallProbe p;
  p.arm(kHz);
  p.turn(5'000'000);  // the first turn: the time before it (a link coming up) is not watched
  uint64_t t = 5'000'000;
  for (int i = 0; i < 1000; ++i) p.turn(t += 100);  // 100 ns polls
  p.turn(t += 30'000);                               // 30 us: a stall
  p.turn(t += 2'000'000);                            // 2 ms
  p.resume(t += 9'000'000);                          // the application's own 9 ms: not watched
  p.turn(t += 100);
  const HostNoise n = p.profile();
  ASSERT_TRUE(n.measured);
  EXPECT_EQ(n.loops, 1u);
  EXPECT_EQ(n.stalls, 2u);
  EXPECT_EQ(n.over_50us, 1u);
  EXPECT_EQ(n.over_1ms, 1u);
  EXPECT_EQ(n.longest_ns, 2'000'000u);
  EXPECT_NEAR(n.stalled_s, 2.03e-3, 1e-9);
  EXPECT_NEAR(n.watched_s, (100'000 + 30'000 + 2'000'000 + 100) * 1e-9, 1e-12);
}

// A turn after work (a poll of a full burst) may take that long: only what
// the work's allowance does not explain is a stall.
TEST(StallProbeTest, TheLoopsOwnWorkIsNotAStall) {
  StallProbe p;
  p.arm(kHz);
  p.turn(1'000);
  p.turn(1'000 + 40'000, p.work_allowance(32));  // 40 us after 32 packets: within 64 us
  EXPECT_EQ(p.profile().stalls, 0u);
  p.turn(1'000 + 40'000 + 100'000, p.work_allowance(10));  // 100 us after 10 packets: 80 us unexplained
  EXPECT_EQ(p.profile().stalls, 1u);
  EXPECT_EQ(p.profile().longest_ns, 80'000u);
}

TEST(StallProbeTest, AnUnarmedProbeMeasuresNothing) {
  StallProbe p;
  p.turn(1);
  p.turn(10'000'000);
  EXPECT_FALSE(p.profile().measured);
}

TEST(HostNoiseTest, AClosedLoopLosesOneRequestPerStallAnOpenLoopEveryOneDueMeanwhile) {
  HostNoise n;
  n.measured = true;
  n.loops = 1;
  n.watched_s = 1;
  n.stalled_s = 0.004;  // one stall of 4 ms in a second
  n.stalls = n.over_50us = n.over_1ms = 1;
  n.longest_ns = 4'000'000;
  // 100k requests in a second, 2 us each: 0.2 in flight (one at least).
  LoadShape closed{.requests = 100'000, .elapsed_s = 1, .mean_latency_ns = 2'000};
  EXPECT_NEAR(stalled_request_share(n, closed), 1e-5, 1e-12);
  LoadShape open = closed;
  open.open_loop = true;  // 400 due during the stall, and the one in flight
  EXPECT_NEAR(stalled_request_share(n, open), 401e-5, 1e-12);
  open.p99_ns = 3'000'000;
  const std::string text = describe_host_noise(n, open);
  EXPECT_NE(text.find("1 stalls >= 20 us, 1 > 50 us, 1 > 1 ms, the longest 4.00 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("p99.5 and above can be the host's"), std::string::npos) << text;
  EXPECT_NE(text.find("; p99 3.00 ms: one stall alone can take that long"), std::string::npos) << text;
  open.p99_ns = 5'000;  // shorter than any stall: not one
  EXPECT_EQ(describe_host_noise(n, open).find("one stall alone"), std::string::npos);
  EXPECT_NE(host_noise_json(n, open).find("\"request_share\":0.004010"), std::string::npos) << host_noise_json(n, open);
}

TEST(HostNoiseTest, AQuietHostSaysTheTailIsNotItsAndAddingSumsLoops) {
  HostNoise a, b;
  EXPECT_EQ(describe_host_noise(a, {}), "");  // not measured (a modelled clock): nothing to say
  a.measured = b.measured = true;
  a.loops = b.loops = 1;
  a.watched_s = b.watched_s = 2;
  b.stalls = 3;
  b.stalled_s = 0.5;
  b.longest_ns = 300'000;
  EXPECT_NE(describe_host_noise(a, {.requests = 10, .elapsed_s = 1}).find("the host was quiet"), std::string::npos);
  a.add(b);
  EXPECT_EQ(a.loops, 2u);
  EXPECT_EQ(a.stalls, 3u);
  EXPECT_DOUBLE_EQ(a.stalled_share(), 0.125);
  EXPECT_EQ(a.longest_ns, 300'000u);
}

}  // namespace
}  // namespace nanopu
