// The NDP receiver's PULL pacer (docs/wire.md, "NDP behaviour"): credit
// accrues at one packet per MTU serialization time up to a bucket's depth,
// so a poll that comes late grants what the elapsed time allows at once,
// and over any interval the credit granted stays within the rate plus one
// bucket. Real mbufs from a real EAL mempool; the receiver is driven packet
// by packet, each packet acknowledged on its own (no bitmap ACKs), so every
// ACK|PULL shows the credit at that moment.
#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>
#include <memory>

#include "lib/contract/message.h"
#include "nic/transport/ndp/ndp_receiver.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"

namespace nanopu {
namespace {

using testing::RecordingSink;

constexpr uint64_t kInterval = 100;  // ticks per packet of credit
constexpr uint64_t kBurst = NdpReceiver::kPullBurstPackets;
constexpr uint16_t kLen = 40 * 1024;  // 40 packets

class NdpPacingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.open("pacing", 1023, 7);
    c_ = testing::ReceiverBench::receiver_params(8, 512, 1'000'000'000);
    p_.pull_interval_ticks = kInterval;
    p_.rtt_packets = 2;
    rx_peers_ = std::make_unique<TransportPeers<HeldAcks>>(c_, p_.held_acks, p_.ack_hold_ticks, &counters_);
    rx_ = std::make_unique<NdpReceiver>(c_, p_, &counters_, rx_peers_.get());
  }
  void TearDown() override {
    rx_.reset();
    bench_.close();
  }

  // DATA packet pkt_offset of message id, arriving at `now`.
  void data(uint16_t id, uint8_t pkt_offset, uint64_t now) {
    bench_.deliver(*rx_, testing::ReceiverBench::data_header(id, kLen, pkt_offset, 1), now, sink_);
  }
  // The credit the last control packet for message id named.
  [[nodiscard]] uint16_t credit(uint16_t id) const {
    for (auto it = sink_.controls.rbegin(); it != sink_.controls.rend(); ++it)
      if (it->ndp.tx_msg_id == id && (it->ndp.flags & wire::kFlagPull)) return it->ndp.pull_offset;
    return 0;
  }

  testing::ReceiverBench bench_;
  rte_mempool*& pool_ = bench_.pool;
  ContextEntry& ctx_ = bench_.ctx;
  TransportParams c_;
  NdpParams p_;
  NicCounters counters_;
  RecordingSink sink_;
  std::unique_ptr<TransportPeers<HeldAcks>> rx_peers_;  // the transport's (transport_shell.h)
  std::unique_ptr<NdpReceiver> rx_;
  const uint64_t t0_ = 1'000'000;  // long after the receiver was made: its bucket is full
};

TEST_F(NdpPacingTest, ABurstAfterAQuietSpellIsGrantedAtOnceUpToTheBucket) {
  // kBurst + 1 packets in one poll: each earns a packet of credit; the
  // bucket pays for kBurst of them, the last waits for the pacer.
  for (uint8_t i = 0; i <= kBurst; ++i) data(1, i, t0_);
  EXPECT_EQ(credit(1), 2 + kBurst);  // the first window, then one per packet the bucket paid
  EXPECT_EQ(counters_.tx_pulls_paced, 1u);
  const size_t sent = sink_.controls.size();
  rx_->tick(t0_ + kInterval / 2, sink_);  // not yet a packet's worth of time
  EXPECT_EQ(sink_.controls.size(), sent);
  // The NIC may skip the ticks before then (NicCore::tick_transports).
  EXPECT_EQ(rx_->next_tick_work(), t0_ + kInterval);
  rx_->tick(t0_ + kInterval, sink_);
  ASSERT_EQ(sink_.controls.size(), sent + 1);
  EXPECT_EQ(sink_.controls.back().ndp.flags, wire::kFlagPull);
  EXPECT_EQ(credit(1), 2 + kBurst + 1);  // all its packets earned
}

TEST_F(NdpPacingTest, ALatePollGrantsWhatTheElapsedTimeAllows) {
  // Two messages ask for more than the bucket holds in one poll: the
  // first is paid in full, the second waits for a later tick.
  for (uint8_t i = 0; i < 10; ++i) data(1, i, t0_);
  for (uint8_t i = 0; i < 10; ++i) data(2, i, t0_);
  // Message 1 took 10 of the bucket, message 2 the other 6 of its 10.
  EXPECT_EQ(credit(1), 12);
  EXPECT_EQ(credit(2), 8);
  EXPECT_EQ(counters_.tx_pulls_paced, 1u);
  rx_->tick(t0_ + 5 * kInterval, sink_);
  EXPECT_EQ(credit(2), 12);  // the 4 it was owed, from the 5 the time paid
  const size_t sent = sink_.controls.size();
  rx_->tick(t0_ + 5 * kInterval, sink_);  // nothing is owed any more
  EXPECT_EQ(sink_.controls.size(), sent);
}

TEST_F(NdpPacingTest, AQueuedMessageIsPaidBeforeANewcomer) {
  // Message 1 empties the bucket and waits; three intervals later a new
  // message's packet arrives in the poll before the tick that serves the
  // queue: it queues behind message 1 instead of spending the credit the
  // time built up, and the tick pays message 1 first.
  for (uint8_t i = 0; i <= kBurst; ++i) data(1, i, t0_);
  ASSERT_EQ(credit(1), 2 + kBurst);
  data(2, 0, t0_ + 3 * kInterval);
  EXPECT_EQ(credit(2), 2) << "its first window only: the queue comes first";
  EXPECT_EQ(counters_.tx_pulls_paced, 2u);
  const size_t sent = sink_.controls.size();
  rx_->tick(t0_ + 3 * kInterval, sink_);
  ASSERT_EQ(sink_.controls.size(), sent + 2);
  EXPECT_EQ(sink_.controls[sent].ndp.tx_msg_id, 1) << "oldest first";
  EXPECT_EQ(credit(1), 2 + kBurst + 1);
  EXPECT_EQ(credit(2), 3);
}

TEST_F(NdpPacingTest, CreditNeverOutrunsTheRatePlusOneBucket) {
  // Packets of three messages arrive four per interval (twice what the pace
  // allows) for 30 intervals, with a tick after each: the credit granted
  // beyond each message's first window stays within elapsed / interval +
  // kBurst at every step, and reaches at least elapsed / interval - 1.
  uint8_t next[3] = {0, 0, 0};
  uint64_t now = t0_;
  for (int step = 0; step < 120; ++step) {
    const auto msg = static_cast<uint16_t>(step % 3);
    if (next[msg] < 40) data(static_cast<uint16_t>(10 + msg), next[msg]++, now);
    rx_->tick(now, sink_);
    uint64_t granted = 0;
    for (uint16_t m = 0; m < 3; ++m)
      if (credit(static_cast<uint16_t>(10 + m)) > 2)
        granted += credit(static_cast<uint16_t>(10 + m)) - 2;
    const uint64_t paid = (now - t0_) / kInterval;
    EXPECT_LE(granted, paid + kBurst) << "at step " << step;
    if (paid > kBurst) {
      EXPECT_GE(granted + 1, paid) << "at step " << step;
    }
    now += kInterval / 4;
  }
}

TEST_F(NdpPacingTest, WithoutPacingEveryPacketEarnsItsCreditAtOnce) {
  p_.pull_interval_ticks = 0;
  rx_peers_ = std::make_unique<TransportPeers<HeldAcks>>(c_, p_.held_acks, p_.ack_hold_ticks, &counters_);
    rx_ = std::make_unique<NdpReceiver>(c_, p_, &counters_, rx_peers_.get());
  for (uint8_t i = 0; i < 30; ++i) data(1, i, t0_);
  EXPECT_EQ(credit(1), 32);
  EXPECT_EQ(counters_.tx_pulls_paced, 0u);
}

}  // namespace
}  // namespace nanopu
