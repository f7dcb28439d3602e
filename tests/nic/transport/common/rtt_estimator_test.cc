#include "nic/transport/common/rtt_estimator.h"

#include <gtest/gtest.h>

#include "nanopu/stats.h"
#include "nic/transport/common/peer_liveness.h"
#include "nic/transport/common/send_front.h"

namespace nanopu {
namespace {

constexpr uint32_t kPeer = 0x0a000002, kOther = 0x0a000003;

TEST(RttEstimatorTest, NoSampleMeansTheConfiguredTimeout) {
  const RttEstimator e(50, 3200);
  EXPECT_EQ(e.rto(kPeer), 50u);
}

TEST(RttEstimatorTest, FollowsASlowPeerButNeverGoesBelowTheFloor) {
  RttEstimator e(50, 3200);
  for (int i = 0; i < 50; ++i) e.sample(kPeer, 400);  // a peer that sleeps between packets
  EXPECT_GE(e.rto(kPeer), 400u);
  EXPECT_LE(e.rto(kPeer), 500u);  // steady samples: the variation term fades
  EXPECT_EQ(e.rto(kOther), 50u);  // other peers keep their own estimate
  RttEstimator fast(50, 3200);
  for (int i = 0; i < 50; ++i) fast.sample(kPeer, 5);  // a busy-polling peer
  EXPECT_EQ(fast.rto(kPeer), 50u);
}

TEST(RttEstimatorTest, VariationWidensTheTimeoutAndTheCeilingBoundsIt) {
  RttEstimator e(50, 3200);
  for (int i = 0; i < 50; ++i) e.sample(kPeer, i % 2 ? 100 : 900);
  EXPECT_GT(e.rto(kPeer), 900u);  // srtt ~500 plus 4 x the spread
  EXPECT_LE(e.rto(kPeer), 3200u);
  for (int i = 0; i < 50; ++i) e.sample(kPeer, 1000000);
  EXPECT_EQ(e.rto(kPeer), 3200u);
}

// Karn's backoff (RFC 6298 §5.5-5.7): a peer slower than the floor times
// out; the timeouts that follow for it wait longer, until a packet sent once
// is acknowledged and gives a sample.
TEST(RttEstimatorTest, TimeoutsBackOffThePeerUntilTheNextSample) {
  RttEstimator e(100, 6400);
  e.timed_out(kPeer);
  EXPECT_EQ(e.rto(kPeer), 200u);
  for (int i = 0; i < 10; ++i) e.timed_out(kPeer);
  EXPECT_EQ(e.rto(kPeer), 6400u);  // 64x at most, and never above the ceiling
  EXPECT_EQ(e.rto(kOther), 100u);  // other peers keep theirs
  e.sample(kPeer, 1000);
  EXPECT_EQ(e.rto(kPeer), 1000u + 4 * 500u);  // the estimate, no backoff
  e.timed_out(kPeer);
  EXPECT_EQ(e.rto(kPeer), 2 * 3000u);
  e.acked_in_time(kPeer);  // a packet sent once made it in time
  EXPECT_EQ(e.rto(kPeer), 3000u);
}

// The ceiling is time, not a multiple of the floor: a peer whose round trip
// is 400x the floor (20 ms against 50 us) is learnt, and timeouts back off
// far enough to get a sample from it.
TEST(RttEstimatorTest, AnyRoundTripUpToTheCeilingIsFollowed) {
  RttEstimator e(50, 1'000'000);
  for (int i = 0; i < 12; ++i) e.timed_out(kPeer);  // every packet resent: Karn gives no sample
  EXPECT_GE(e.rto(kPeer), 20'000u) << "backed off past the round trip";
  e.sample(kPeer, 20'000);  // then a packet sent once comes back
  for (int i = 0; i < 50; ++i) e.sample(kPeer, 20'000);
  EXPECT_GE(e.rto(kPeer), 20'000u);
  EXPECT_LE(e.rto(kPeer), 25'000u);
}

TEST(RttEstimatorTest, RecoversWhenThePeerSpeedsUp) {
  RttEstimator e(50, 3200);
  for (int i = 0; i < 50; ++i) e.sample(kPeer, 1000);
  for (int i = 0; i < 100; ++i) e.sample(kPeer, 5);
  EXPECT_EQ(e.rto(kPeer), 50u);
}

// Many messages to one peer timing out together back it off once, not once
// each (TCP's one timer per connection); the next period backs off again.
TEST(RttEstimatorTest, TimeoutsTogetherBackOffOncePerTimeoutPeriod) {
  RttEstimator e(100, 1'000'000);
  for (int i = 0; i < 32; ++i) e.timed_out_at(kPeer, 1000);  // 32 messages, one moment
  EXPECT_EQ(e.rto(kPeer), 200u);
  e.timed_out_at(kPeer, 1050);  // within the period that just ended: no more
  EXPECT_EQ(e.rto(kPeer), 200u);
  e.timed_out_at(kPeer, 1100);  // a whole (previous) timeout later
  EXPECT_EQ(e.rto(kPeer), 400u);
  e.sample(kPeer, 300);  // a packet sent once came back: the estimate, no backoff
  EXPECT_EQ(e.rto(kPeer), 300u + 4 * 150u);
}

}  // namespace
}  // namespace nanopu

namespace nanopu {
namespace {

// One doubling a timeout (RFC 6298 §5.5): a message alone with a silent
// peer, probing it at each timeout, waits twice as long each time — its own
// backoff over the peer's estimate, the peer's backoff a floor — not four
// times (the two multiplied: 50, 200, 800, ... which after a partition
// left a message waiting past its peer's healing by a second; nanopu-dst
// kv seed 795 under buggify).
TEST(RetransmitDueTest, AMessageAloneWithASilentPeerDoublesOncePerTimeout) {
  RttEstimator rtt(50, 1'000'000);
  PeerLiveness live;
  NicCounters counters;
  OutboundMessage m;
  m.used = true;
  m.dst_ip = kPeer;
  m.last_progress = 1;
  uint64_t now = 1, previous = 0;
  for (int k = 0; k < 12; ++k) {
    m.last_tx = now;  // the probe (or the first send) left now; nothing comes back
    const uint64_t due = retransmit_due(rtt, live, m, 1'000'000'000, now);
    const uint64_t wait = due - now;
    if (previous != 0) {
      EXPECT_EQ(wait, 2 * previous) << "timeout " << k;
    }
    previous = wait;
    now = due;
    EXPECT_NE(timer_retry(m, now, live, rtt, &counters), PeerLiveness::Retry::kResend);
  }
  EXPECT_EQ(previous, 50u << 11);
  // A new message to the backed-off peer starts from the peer's timeout
  // (Karn: the next messages wait too), not from the floor.
  OutboundMessage fresh;
  fresh.dst_ip = kPeer;
  fresh.last_progress = now;
  EXPECT_EQ(retransmit_due(rtt, live, fresh, 1'000'000'000, now) - now, rtt.rto(kPeer));
  EXPECT_GT(rtt.rto(kPeer), 50u);
}

}  // namespace
}  // namespace nanopu
