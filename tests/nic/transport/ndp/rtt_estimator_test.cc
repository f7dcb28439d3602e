#include "nic/transport/ndp/rtt_estimator.h"

#include <gtest/gtest.h>

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

TEST(RttEstimatorTest, RecoversWhenThePeerSpeedsUp) {
  RttEstimator e(50, 3200);
  for (int i = 0; i < 50; ++i) e.sample(kPeer, 1000);
  for (int i = 0; i < 100; ++i) e.sample(kPeer, 5);
  EXPECT_EQ(e.rto(kPeer), 50u);
}

}  // namespace
}  // namespace nanopu
