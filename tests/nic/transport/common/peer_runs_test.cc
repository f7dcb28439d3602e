// PeerRuns (nic/transport/common/peer_runs.h): which run of each peer a
// message names, and when a peer is news as a new run (a restart).
#include <gtest/gtest.h>

#include "nic/transport/common/peer_runs.h"

namespace nanopu {
namespace {

constexpr uint32_t kPeer = 0x0a000001;

TEST(PeerRunsTest, ARestartIsReportedOnceWhetherHeardFirstOrRefusedFirst) {
  PeerRuns r;
  EXPECT_FALSE(r.heard(kPeer, 7)) << "the first run heard is no restart";
  EXPECT_FALSE(r.heard(kPeer, 7));
  EXPECT_EQ(r.lookup(kPeer), 7u);
  EXPECT_TRUE(r.heard(kPeer, 9)) << "DATA from another run: restarted";
  EXPECT_FALSE(r.heard(kPeer, 9));
  // Refused (GONE) by the next run before any DATA of it: news once, and
  // its first DATA is then not reported again.
  EXPECT_TRUE(r.forget(kPeer));
  EXPECT_FALSE(r.forget(kPeer)) << "a second GONE for the same run";
  EXPECT_EQ(r.lookup(kPeer), 0u) << "messages name no run until the new one is heard";
  EXPECT_FALSE(r.heard(kPeer, 11));
  EXPECT_EQ(r.lookup(kPeer), 11u);
}

// A late reply named the run its request came from (MsgMeta::run), and
// the run heard since refused it: the GONE names a run no longer named,
// so it is no news and the current run stays named.
TEST(PeerRunsTest, AGoneForARunNoLongerNamedForgetsNothing) {
  PeerRuns r;
  EXPECT_FALSE(r.heard(kPeer, 7));
  EXPECT_TRUE(r.heard(kPeer, 9));
  EXPECT_FALSE(r.forget(kPeer, 7)) << "the restart was news when run 9 was heard";
  EXPECT_EQ(r.lookup(kPeer), 9u);
  EXPECT_TRUE(r.forget(kPeer, 9)) << "the run we name refused: news";
  EXPECT_EQ(r.lookup(kPeer), 0u);
}

TEST(PeerRunsTest, APrototypePeerWithoutRunsIsNeverARestart) {
  PeerRuns r;
  EXPECT_FALSE(r.heard(kPeer, 0));
  EXPECT_FALSE(r.heard(kPeer, 0));
  EXPECT_FALSE(r.forget(kPeer));
  EXPECT_EQ(r.lookup(kPeer), 0u);
}

}  // namespace
}  // namespace nanopu
