// PeerLiveness (nic/transport/common/peer_liveness.h): a silent peer gets
// one probe per timeout window, a peer that speaks after a probe wakes its
// senders' messages, and a message is given up by its peer's silence, not
// by a count.
#include <gtest/gtest.h>

#include "nic/transport/common/peer_liveness.h"

namespace nanopu {
namespace {

constexpr uint32_t kPeer = 0x0a000001;
using Retry = PeerLiveness::Retry;

TEST(PeerLivenessTest, ASilentPeerGetsOneProbePerWindowNotOnePerMessage) {
  PeerLiveness l;
  l.heard(kPeer, 100);
  // Three messages sent at 200, all timing out at 300 with a window of 50.
  EXPECT_EQ(l.retry(kPeer, 300, 200, 50), Retry::kProbe);
  EXPECT_EQ(l.retry(kPeer, 300, 200, 50), Retry::kWait);
  EXPECT_EQ(l.retry(kPeer, 320, 200, 50), Retry::kWait);
  EXPECT_EQ(l.retry(kPeer, 350, 200, 50), Retry::kProbe) << "the next window's probe";
  // It speaks: the probe was answered, its senders resume.
  EXPECT_TRUE(l.heard(kPeer, 360));
  EXPECT_FALSE(l.heard(kPeer, 361)) << "woken once";
  EXPECT_EQ(l.retry(kPeer, 400, 300, 50), Retry::kResend) << "heard since it sent: the message itself is lost";
}

TEST(PeerLivenessTest, GivenUpByThePeersSilenceOrByAMessageItNeverAnswers) {
  PeerLiveness l;
  constexpr uint64_t kDead = 1000;
  // Sent at 0, the peer never heard: given up at 1000.
  EXPECT_EQ(give_up_at(l, kPeer, 0, kDead), 1000u);
  EXPECT_FALSE(give_up_now(l, kPeer, 999, 0, kDead));
  EXPECT_TRUE(give_up_now(l, kPeer, 1000, 0, kDead));
  // The peer speaks (of other messages) every 500: alive; this message is
  // given up only after 4 x dead without progress of its own.
  for (uint64_t t = 500; t <= 5000; t += 500) {
    l.heard(kPeer, t);
    EXPECT_EQ(give_up_now(l, kPeer, t, 0, kDead), t >= 4 * kDead) << t;
  }
  // A link outage restarts every clock: silence while it was down says nothing.
  PeerLiveness m;
  m.restart_clock(10'000);
  EXPECT_FALSE(give_up_now(m, kPeer, 10'500, 0, kDead));
  EXPECT_TRUE(give_up_now(m, kPeer, 11'000, 0, kDead));
}

}  // namespace
}  // namespace nanopu
