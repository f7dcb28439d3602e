// The Homa sender's decisions, packet by packet (real mbufs from a real EAL
// mempool, a sink that records what it would send): the queue it keeps at
// its port, shortest message first past it (HomaModule's throttle); a
// receiver's RESEND that answers the sender's own probe filled, not put
// off; ACKs riding on DATA both ways.
#include "nic/transport/homa/homa_sender.h"

#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <memory>

#include "lib/contract/tx_message.h"
#include "nanopu/app_header.h"
#include "nic/transport/common/peer_runs.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"

namespace nanopu {
namespace {

using testing::RecordingSink;

constexpr uint32_t kPeer = 0x0a000002;
constexpr uint16_t kPeerRun = 5;

class HomaSenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.open("homa_tx", 4095, 3);
    c_.outbound_slots = 16;
    c_.incarnation = 7;
    c_.rto_ticks = 1'000;
    c_.peer_dead_ticks = 1'000'000;
    p_.rtt_bytes = 10240;  // every packet of these messages unscheduled
    p_.resend_ticks = 500;
    (void)runs_.heard(kPeer, kPeerRun);
  }
  // The transport's peers (transport_shell.h; kPeer's run as heard) and a
  // sender on them (holding no ACK unless told to).
  void start() { start(p_.held_acks, 0); }
  void start(uint32_t held_acks, uint64_t hold_ticks) {
    peers_ = std::make_unique<TransportPeers<HomaHeldAcks>>(c_, held_acks, hold_ticks, &counters_);
    peers_->runs = runs_;
    tx_ = std::make_unique<HomaSender>(c_, p_, bench_.pool, &counters_, peers_.get());
  }
  void TearDown() override {
    tx_.reset();
    bench_.close();
  }
  void send(uint16_t len, uint64_t now) {
    rte_mbuf* m = alloc_tx_message(bench_.pool, AppHeader{kPeer, 9, len}.word(), 3);
    ASSERT_NE(m, nullptr);
    tx_->send_message(m, now, sink_);
  }
  // The receiver's answer to DATA packet d: flags, from packet `from`, up to `to_bytes`.
  void answer(const RecordingSink::Control& d, uint8_t flags, uint8_t from, uint16_t to_bytes, uint64_t now) {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoHoma;
    h.src_ip = kPeer;
    h.homa = d.homa;
    h.homa.flags = flags;
    h.homa.pkt_offset = from;
    h.homa.grant_offset = to_bytes;
    h.homa.grant_prio = 3;
    tx_->on_control(h, now, sink_);
  }

  testing::ReceiverBench bench_;
  TransportParams c_;
  HomaParams p_;
  NicCounters counters_;
  RecordingSink sink_;
  PeerRuns runs_;
  std::unique_ptr<TransportPeers<HomaHeldAcks>> peers_;
  std::unique_ptr<HomaSender> tx_;
};

TEST_F(HomaSenderTest, ItsQueueAtThePortStaysUnderTheLimitAndTheShortestMessageGoesNext) {
  p_.mtu_frame_ticks = 1000;      // a full frame's time on the link
  p_.max_nic_queue_ticks = 2500;  // two and a half of them queued at most
  start();
  send(10240, 10);  // ten packets, all unscheduled
  ASSERT_EQ(sink_.data.size(), 3u) << "the port takes three frames' time, the rest waits in the sender";
  EXPECT_LE(tx_->next_tick_work(), 3010u - 2500u) << "due again by the time the port has room";
  send(500, 20);  // a short message while the port is full: it waits too
  EXPECT_EQ(sink_.data.size(), 3u);
  tx_->tick(505, sink_);  // the port still holds more than 2500 ticks
  EXPECT_EQ(sink_.data.size(), 3u);
  tx_->tick(600, sink_);
  ASSERT_EQ(sink_.data.size(), 4u) << "room for one frame";
  EXPECT_EQ(sink_.data.back().homa.msg_len, 500) << "the shortest message first (SRPT at the sender)";
  for (uint64_t now = 1000; sink_.data.size() < 11 && now < 20'000; now += 500) tx_->tick(now, sink_);
  EXPECT_EQ(sink_.data.size(), 11u) << "then the long one's other seven";
}

TEST_F(HomaSenderTest, AMessageWaitingForItsOwnPortIsNotTimedOut) {
  p_.mtu_frame_ticks = 10'000;  // a slow link: the port stays full past a timeout (1000)
  p_.max_nic_queue_ticks = 1;
  start();
  send(10240, 10);
  ASSERT_EQ(sink_.data.size(), 1u);
  tx_->tick(3'000, sink_);  // three timeouts later, its port still busy with packet 0
  EXPECT_EQ(counters_.tx_timeouts, 0u) << "the wait is the sender's own, not the receiver's silence";
  EXPECT_EQ(sink_.data.size(), 1u);
  tx_->tick(10'010, sink_);  // packet 0 has left
  EXPECT_EQ(sink_.data.size(), 2u);
  EXPECT_EQ(sink_.data.back().homa.pkt_offset, 1) << "the next new packet, not a probe of packet 0";
}

TEST_F(HomaSenderTest, WithoutALinkRateEveryPacketGoesToThePortAtOnce) {
  start();
  send(10240, 10);
  EXPECT_EQ(sink_.data.size(), 10u);
}

TEST_F(HomaSenderTest, AResendAnsweringTheTimersProbeIsFilledNotPutOff) {
  start();
  send(3000, 10);  // three packets; the receiver misses the last two
  ASSERT_EQ(sink_.data.size(), 3u);
  const RecordingSink::Control first = sink_.data.front();
  tx_->tick(5'000, sink_);  // a timeout with no answer: packet 0 again, as a probe
  ASSERT_EQ(sink_.data.size(), 4u);
  EXPECT_EQ(sink_.data.back().homa.pkt_offset, 0);
  // The receiver, which holds packet 0, asks at once for the rest: it must
  // get them, not a BUSY (which it would take for "wait"; the sender's next
  // probe would bring the same RESEND and the same BUSY, forever).
  answer(first, wire::kHomaResend, 1, 3000, 5'010);
  EXPECT_TRUE(sink_.homa_with(wire::kHomaBusy).empty());
  ASSERT_EQ(sink_.data.size(), 6u);
  EXPECT_EQ(sink_.data[4].homa.pkt_offset, 1);
  EXPECT_EQ(sink_.data[5].homa.pkt_offset, 2);
  // A trimmed packet's NACK|RESEND so soon after that resend waits (a queue
  // trimming every copy is full: ndp's and Homa's congestion guard).
  answer(first, wire::kHomaResend | wire::kHomaNack, 2, 3000, 5'020);
  EXPECT_EQ(sink_.homa_with(wire::kHomaBusy).size(), 1u);
  EXPECT_EQ(sink_.data.size(), 6u);
}

// docs/wire.md, "Acknowledgements that ride on data", in Homa.
TEST_F(HomaSenderTest, AHeldAckRidesOnTheNextDataToItsPeerAndACarriedOneCompletesAMessage) {
  start(16, 1'000);
  HomaHeldAcks& held = peers_->held;
  // The ACK this host's receiver holds for the peer's message 0x44 (slot
  // 0x21), which went from the peer's context 9 to this host's context 3.
  wire::HomaHeader a;
  a.flags = wire::kHomaAck;
  a.src_context = 3;
  a.dst_context = 9;
  a.tx_msg_id = 0x44;
  a.buf_ptr = 0x21;
  a.incarnation = kPeerRun;
  held.hold(kPeer, a, false, 5, sink_);
  send(500, 10);  // from context 3 to the peer's 9: it carries the ACK
  ASSERT_EQ(sink_.data.size(), 1u);
  const wire::HomaHeader& d = sink_.data.back().homa;
  EXPECT_EQ(d.options, wire::kHomaOptTakesAcks | wire::kHomaOptCarriesAck);
  EXPECT_EQ(d.acked_msg_id, 0x44);
  EXPECT_EQ(d.acked_buf_ptr, 0x21);
  EXPECT_EQ(held.size(), 0u);
  EXPECT_TRUE(sink_.controls.empty()) << "the ACK left on the DATA, not alone";
  // The peer's reply carries the ACK of this message: it is done.
  wire::FrameHeader reply;
  reply.protocol = wire::kIpProtoHoma;
  reply.src_ip = kPeer;
  reply.homa.flags = wire::kHomaData;
  reply.homa.src_context = 9;
  reply.homa.dst_context = 3;
  reply.homa.incarnation = kPeerRun;
  reply.homa.dst_incarnation = c_.incarnation;
  reply.homa.options = wire::kHomaOptCarriesAck;
  reply.homa.acked_msg_id = d.tx_msg_id;
  reply.homa.acked_buf_ptr = d.buf_ptr;
  ASSERT_EQ(tx_->in_flight(), 1u);
  tx_->on_control(HomaHeldAcks::carried(reply), 20, sink_);
  EXPECT_EQ(tx_->in_flight(), 0u);
  EXPECT_EQ(counters_.rx_acks, 1u);
}

TEST_F(HomaSenderTest, AnAckNoDataTookLeavesAloneWhenItsHoldRunsOut) {
  HomaHeldAcks held(16, 1'000, &counters_);
  wire::HomaHeader a;
  a.flags = wire::kHomaAck;
  a.incarnation = kPeerRun;
  held.hold(kPeer, a, false, 5, sink_);
  held.expire(1'004, sink_);
  EXPECT_TRUE(sink_.controls.empty());
  EXPECT_EQ(held.next_deadline(), 1'005u);
  held.expire(1'005, sink_);
  ASSERT_EQ(sink_.homa_with(wire::kHomaAck).size(), 1u);
  EXPECT_EQ(sink_.controls.back().tos, wire::kHomaControlPriority);
}

}  // namespace
}  // namespace nanopu
