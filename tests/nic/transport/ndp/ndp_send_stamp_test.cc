// NDP's send stamps (docs/wire.md, "Send stamps"), both halves driven by
// hand with real mbufs from a real EAL mempool:
//  - the receiver echoes the stamp of the DATA packet each ACK answers (a
//    single packet, a duplicate, a multi-packet message's bitmap ACK);
//  - the sender stamps every transmission afresh, and an ACK echoing a
//    stamp times the round trip of that copy even when the packet was
//    resent — where, without an echo (a prototype peer), Karn's rule takes
//    no sample and the timeout stays at its backed-off floor.
#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <memory>

#include "lib/contract/tx_message.h"
#include "nanopu/app_header.h"
#include "nic/transport/ndp/ndp_receiver.h"
#include "nic/transport/ndp/ndp_sender.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"

namespace nanopu {
namespace {

using testing::RecordingSink;

constexpr uint64_t kRto = 1600;  // ticks: stamps in units of 64
constexpr uint64_t kRtt = 20'000;
constexpr uint32_t kPeer = 0x0a000002;

class NdpReceiverStampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.open("stamp_rx", 1023, 7);
    c_ = testing::ReceiverBench::receiver_params(8, 512, 1'000'000);
    p_.coalesce_acks = true;
    rx_peers_ = std::make_unique<TransportPeers<HeldAcks>>(c_, p_.held_acks, p_.ack_hold_ticks, &counters_);
    rx_ = std::make_unique<NdpReceiver>(c_, p_, &counters_, rx_peers_.get());
  }
  void TearDown() override {
    rx_.reset();
    bench_.close();
  }
  void send(uint16_t id, uint16_t msg_len, uint8_t pkt_offset, uint16_t stamp) {
    wire::FrameHeader h = testing::ReceiverBench::data_header(id, msg_len, pkt_offset, 0x1234);
    h.ndp.tx_stamp = stamp;
    h.ndp.options = wire::kOptTakesAcks;  // a nanopu sender: bitmap ACKs, one per poll
    bench_.deliver(*rx_, h, now_ += 10, sink_);
  }

  testing::ReceiverBench bench_;
  TransportParams c_;
  NdpParams p_;
  NicCounters counters_;
  RecordingSink sink_;
  std::unique_ptr<TransportPeers<HeldAcks>> rx_peers_;  // the transport's (transport_shell.h)
  std::unique_ptr<NdpReceiver> rx_;
  uint64_t now_ = 1;
};

TEST_F(NdpReceiverStampTest, EveryAckEchoesTheStampOfTheCopyItAnswers) {
  send(5, 100, 0, 0x1111);  // one packet: answered from its header
  ASSERT_EQ(sink_.controls.size(), 1u);
  EXPECT_EQ(sink_.controls[0].ndp.tx_stamp, 0x1111);
  send(5, 100, 0, 0x2222);  // a resent copy of a delivered message
  ASSERT_EQ(sink_.controls.size(), 2u);
  EXPECT_EQ(sink_.controls[1].ndp.tx_stamp, 0x2222);

  // Three packets: each poll's bitmap ACK echoes the last packet it names.
  send(6, 3000, 0, 0x3331);
  send(6, 3000, 1, 0x3332);
  rx_->tick(now_, sink_);
  ASSERT_EQ(sink_.controls.size(), 3u);
  EXPECT_EQ(sink_.controls[2].ndp.options & wire::kOptAckBitmap, wire::kOptAckBitmap);
  EXPECT_EQ(sink_.controls[2].ndp.tx_stamp, 0x3332);
  send(6, 3000, 1, 0x3333);  // a duplicate of packet 1, resent: answered at once
  ASSERT_EQ(sink_.controls.size(), 4u);
  EXPECT_EQ(sink_.controls[3].ndp.tx_stamp, 0x3333);
  send(6, 3000, 2, 0x3334);  // the last packet: the whole message's ACK
  rx_->tick(now_, sink_);
  ASSERT_EQ(sink_.delivered.size(), 2u);
  EXPECT_EQ(sink_.controls.back().ndp.acked_bitmap, 0x7u);
  EXPECT_EQ(sink_.controls.back().ndp.tx_stamp, 0x3334);
}

TEST_F(NdpReceiverStampTest, APrototypeSendersZeroIsEchoedAsZero) {
  send(5, 100, 0, 0);
  ASSERT_EQ(sink_.controls.size(), 1u);
  EXPECT_EQ(sink_.controls[0].ndp.tx_stamp, 0);
}

class NdpSenderStampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.open("stamp_tx", 1023, 3);
    c_.outbound_slots = 8;
    c_.incarnation = 7;
    c_.rto_ticks = kRto;
    c_.peer_dead_ticks = 100'000'000;
    tx_peers_ = std::make_unique<TransportPeers<HeldAcks>>(c_, p_.held_acks, p_.ack_hold_ticks, &counters_);
    tx_ = std::make_unique<NdpSender>(c_, p_, bench_.pool, &counters_, tx_peers_.get());
  }
  void TearDown() override {
    tx_.reset();
    bench_.close();
  }
  // A one-packet message to kPeer sent at t0, then resent by its timer.
  void send_and_resend() {
    rte_mbuf* m = alloc_tx_message(bench_.pool, AppHeader{kPeer, 9, 100}.word(), 3);
    ASSERT_NE(m, nullptr);
    tx_->send_message(m, kT0, sink_);
    ASSERT_EQ(sink_.data.size(), 1u);
    for (uint64_t now = kT0; sink_.data.size() < 2 && now < kT0 + 100 * kRto; now += kRto / 4)
      tx_->tick(now, sink_);
    ASSERT_EQ(sink_.data.size(), 2u) << "resent by its timer";
    ASSERT_EQ(counters_.tx_retransmits, 1u);
  }
  // The peer's ACK of DATA packet d at `now`, echoing `stamp`.
  void ack(const RecordingSink::Control& d, uint16_t stamp, uint64_t now) {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoNdp;
    h.src_ip = kPeer;
    h.ndp = d.ndp;
    h.ndp.flags = wire::kFlagAck | wire::kFlagPull;
    h.ndp.pull_offset = 1;
    h.ndp.options = 0;
    h.ndp.core_time = 0;
    h.ndp.tx_stamp = stamp;
    tx_->on_control(h, now, sink_);
  }

  static constexpr uint64_t kT0 = 1'000'000;
  testing::ReceiverBench bench_;
  TransportParams c_;
  NdpParams p_;
  NicCounters counters_;
  RecordingSink sink_;
  std::unique_ptr<TransportPeers<HeldAcks>> tx_peers_;  // the transport's (transport_shell.h)
  std::unique_ptr<NdpSender> tx_;
};

TEST_F(NdpSenderStampTest, EachTransmissionCarriesItsOwnStamp) {
  ASSERT_NO_FATAL_FAILURE(send_and_resend());
  EXPECT_NE(sink_.data[0].ndp.tx_stamp, 0);
  EXPECT_NE(sink_.data[1].ndp.tx_stamp, 0);
  EXPECT_NE(sink_.data[0].ndp.tx_stamp, sink_.data[1].ndp.tx_stamp) << "sent at least one timeout apart";
}

TEST_F(NdpSenderStampTest, AnAckEchoingTheFirstCopyTimesTheRoundTripThoughThePacketWasResent) {
  ASSERT_NO_FATAL_FAILURE(send_and_resend());
  ack(sink_.data[0], sink_.data[0].ndp.tx_stamp, kT0 + kRtt);
  EXPECT_EQ(counters_.tx_msgs_completed, 1u);
  EXPECT_EQ(counters_.tx_rtt_samples_echoed, 1u);
  // The first sample: srtt = rtt, rttvar = rtt / 2 (RFC 6298 §2.2).
  EXPECT_NEAR(static_cast<double>(tx_->rto(kPeer)), 3.0 * kRtt, 3.0 * 64);
}

TEST_F(NdpSenderStampTest, AnAckEchoingTheResentCopyTimesTheResentCopy) {
  ASSERT_NO_FATAL_FAILURE(send_and_resend());
  const uint64_t resent_at = kT0 + kRto;  // at least: its timer's first expiry
  ack(sink_.data[1], sink_.data[1].ndp.tx_stamp, kT0 + kRtt);
  EXPECT_EQ(counters_.tx_rtt_samples_echoed, 1u);
  EXPECT_LE(tx_->rto(kPeer), 3 * (kT0 + kRtt - resent_at) + 3 * 64) << "timed from the resend, not the first send";
  EXPECT_GE(tx_->rto(kPeer), 3 * (kRtt - 3 * kRto) - 3 * 64);
}

TEST_F(NdpSenderStampTest, WithoutAnEchoKarnsRuleTakesNoSampleFromAResentPacket) {
  ASSERT_NO_FATAL_FAILURE(send_and_resend());
  const uint64_t backed_off = tx_->rto(kPeer);
  ack(sink_.data[0], 0, kT0 + kRtt);  // a prototype peer
  EXPECT_EQ(counters_.tx_msgs_completed, 1u);
  EXPECT_EQ(counters_.tx_rtt_samples_echoed, 0u);
  EXPECT_EQ(tx_->rto(kPeer), backed_off) << "no sample: the timeout stays where the backoff left it";
  EXPECT_LT(tx_->rto(kPeer), kRtt);
}

TEST_F(NdpSenderStampTest, AnEchoOlderThanItsMessageIsNotRead) {
  ASSERT_NO_FATAL_FAILURE(send_and_resend());
  const auto stale = static_cast<uint16_t>(sink_.data[0].ndp.tx_stamp - 200);  // 200 units before it left
  ack(sink_.data[0], stale, kT0 + kRtt);
  EXPECT_EQ(counters_.tx_msgs_completed, 1u);
  EXPECT_EQ(counters_.tx_rtt_samples_echoed, 0u);
  EXPECT_LT(tx_->rto(kPeer), kRtt);
}

}  // namespace
}  // namespace nanopu
