// Fewer ACKs between nanopu hosts (docs/wire.md, "Acknowledgements that
// ride on data" and "ACK bitmaps"), packet by packet. A multi-packet
// message from a sender that announces it is acknowledged by one bitmap
// ACK per poll, the prototype's by one ACK per packet. ACKs that ride on DATA: the NDP receiver
// holds the ACK of a whole message (one packet, or the last of several) only for a sender that
// announces it takes such ACKs; a DATA packet to that sender carries it only when peer, contexts
// and run match; an ACK no packet takes leaves on its own, byte for byte
// the one an immediate ACK would have been; the sender takes a carried ACK
// as that ACK. Real mbufs from a real EAL mempool; the sink records.
#include "nic/transport/common/held_acks.h"

#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>
#include <memory>
#include <vector>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "nic/transport/ndp/ndp_receiver.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"

namespace nanopu {
namespace {

constexpr uint32_t kPeer = 0x0a000005;
constexpr uint64_t kHold = 1000;

using testing::RecordingSink;
using Sent = RecordingSink::Control;

class HeldAcksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.open("held_acks", 1023, 7);
    c_ = testing::ReceiverBench::receiver_params(32, 1024, 1'000'000'000);
    c_.incarnation = 9;
    p_.ack_hold_ticks = kHold;
    p_.held_acks = 4;
  }
  void start() {
    peers_ = std::make_unique<TransportPeers<HeldAcks>>(c_, p_.held_acks, p_.ack_hold_ticks, &counters_);
    held_ = &peers_->held;
    rx_ = std::make_unique<NdpReceiver>(c_, p_, &counters_, peers_.get());
  }
  void TearDown() override {
    rx_.reset();
    bench_.close();
  }
  // A one-packet message `id` from kPeer's context 3 to context 7.
 public:
  static wire::FrameHeader request(uint16_t id, uint8_t options, uint16_t incarnation = 5) {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoNdp;
    h.src_ip = kPeer;
    h.dst_ip = 0x0a0000ff;
    wire::NdpHeader& n = h.ndp;
    n.flags = wire::kFlagData;
    n.src_context = 3;
    n.dst_context = 7;
    n.msg_len = 100;
    n.tx_msg_id = id;
    n.buf_ptr = static_cast<uint16_t>(id + 40);
    n.incarnation = incarnation;
    n.buf_size_class = static_cast<uint8_t>(incarnation);
    n.dst_incarnation = 9;
    n.options = options;
    return h;
  }
 protected:
  void receive(NdpReceiver& rx, const wire::FrameHeader& h, RecordingSink& sink) {
    bench_.deliver(rx, h, now_ += 10, sink);
  }
  // The reply's header from context 7 back to kPeer's context 3.
  [[nodiscard]] static wire::NdpHeader reply(uint16_t dst_incarnation = 5) {
    wire::NdpHeader r;
    r.flags = wire::kFlagData;
    r.src_context = 7;
    r.dst_context = 3;
    r.msg_len = 8;
    r.incarnation = 9;
    r.dst_incarnation = dst_incarnation;
    return r;
  }

  testing::ReceiverBench bench_;
  TransportParams c_;
  NdpParams p_;
  NicCounters counters_;
  RecordingSink sink_;
  std::unique_ptr<TransportPeers<HeldAcks>> peers_;
  HeldAcks* held_ = nullptr;
  std::unique_ptr<NdpReceiver> rx_;
  uint64_t now_ = 1;
};

// Packet `pkt` of a 4-packet message (4000 bytes) `id` from kPeer.
wire::FrameHeader packet_of_four(uint16_t id, uint8_t pkt, uint8_t options) {
  wire::FrameHeader h = HeldAcksTest::request(id, options);
  h.ndp.msg_len = 4000;
  h.ndp.pkt_offset = pkt;
  return h;
}

TEST_F(HeldAcksTest, AnnouncingSendersPacketsAreAckedByOneBitmapPerPoll) {
  p_.coalesce_acks = true;
  start();
  receive(*rx_, packet_of_four(21, 0, wire::kOptTakesAcks), sink_);
  receive(*rx_, packet_of_four(21, 2, wire::kOptTakesAcks), sink_);
  EXPECT_TRUE(sink_.controls.empty()) << "owed until the poll's tick";
  rx_->tick(now_, sink_);
  ASSERT_EQ(sink_.controls.size(), 1u);
  const wire::NdpHeader& first = sink_.controls[0].ndp;
  EXPECT_EQ(first.flags, wire::kFlagAck | wire::kFlagPull);
  EXPECT_EQ(first.options, wire::kOptAckBitmap);
  EXPECT_EQ(first.acked_bitmap, 0b101u);
  EXPECT_EQ(first.pkt_offset, 2) << "the highest packet named";
  EXPECT_EQ(first.tx_msg_id, 21);
  rx_->tick(now_, sink_);
  EXPECT_EQ(sink_.controls.size(), 1u) << "nothing new, nothing sent";

  // The rest completes the message: this sender did not announce that it
  // reads a carried ACK as the whole message's (kOptTakesWholeAcks), so
  // the bitmap ACK leaves at once, before the slot is freed, and the next
  // tick has nothing to send.
  receive(*rx_, packet_of_four(21, 1, wire::kOptTakesAcks), sink_);
  receive(*rx_, packet_of_four(21, 3, wire::kOptTakesAcks), sink_);
  ASSERT_EQ(sink_.controls.size(), 2u);
  EXPECT_EQ(sink_.controls[1].ndp.acked_bitmap, 0b1111u);
  EXPECT_EQ(held_->size(), 0u);
  EXPECT_EQ(sink_.delivered.size(), 1u);
  rx_->tick(now_, sink_);
  EXPECT_EQ(sink_.controls.size(), 2u);
  EXPECT_EQ(counters_.tx_ack_bitmaps, 2u);

  // Through the codec: the bitmap survives, a DATA packet's fields do not leak in.
  wire::FrameHeader f;
  f.protocol = wire::kIpProtoNdp;
  f.ndp = sink_.controls[0].ndp;
  uint8_t frame[wire::kFrameHeaderBytes + wire::kControlPayloadBytes] = {};
  wire::encode_frame_header(f, wire::kControlPayloadBytes, frame);
  wire::FrameHeader back;
  size_t payload = 0;
  ASSERT_EQ(wire::decode_frame_header(frame, sizeof frame, &back, &payload), wire::ParseError::kOk);
  EXPECT_EQ(back.ndp.acked_bitmap, 0b101u);
  EXPECT_EQ(back.ndp.core_time, 0u);
}

TEST_F(HeldAcksTest, ThePrototypesPacketsAreAckedOneByOne) {
  p_.coalesce_acks = true;
  start();
  for (uint8_t pkt = 0; pkt < 4; ++pkt) receive(*rx_, packet_of_four(21, pkt, 0), sink_);
  ASSERT_EQ(sink_.controls.size(), 4u);
  for (uint8_t pkt = 0; pkt < 4; ++pkt) {
    EXPECT_EQ(sink_.controls[pkt].ndp.pkt_offset, pkt);
    EXPECT_EQ(sink_.controls[pkt].ndp.options, 0);
  }
  EXPECT_EQ(counters_.tx_ack_bitmaps, 0u);
}

TEST_F(HeldAcksTest, AnAnnouncingSendersAckIsHeldAndItsReplyCarriesIt) {
  start();
  receive(*rx_, request(11, wire::kOptTakesAcks), sink_);
  EXPECT_EQ(sink_.delivered.size(), 1u);
  EXPECT_TRUE(sink_.controls.empty()) << "the ACK waits for the reply";
  EXPECT_EQ(held_->size(), 1u);

  wire::NdpHeader r = reply();
  ASSERT_TRUE(held_->attach(kPeer, r));
  EXPECT_EQ(r.options & wire::kOptCarriesAck, wire::kOptCarriesAck);
  EXPECT_EQ(r.acked_msg_id, 11);
  EXPECT_EQ(r.acked_buf_ptr, 51);
  EXPECT_EQ(held_->size(), 0u);
  wire::NdpHeader again = reply();
  EXPECT_FALSE(held_->attach(kPeer, again)) << "one ACK rides once";
  held_->expire(now_ + 10 * kHold, sink_);
  EXPECT_TRUE(sink_.controls.empty()) << "a carried ACK is never sent again";
  EXPECT_EQ(counters_.tx_acks_on_data, 1u);
}

TEST_F(HeldAcksTest, APeerThatDoesNotAnnounceIsAckedAtOnceAsThePrototypeExpects) {
  start();
  receive(*rx_, request(11, 0), sink_);                        // the prototype, its tester
  receive(*rx_, request(12, wire::kOptTakesAcks, 0), sink_);   // announces, but names no run
  ASSERT_EQ(sink_.controls.size(), 2u);
  EXPECT_EQ(held_->size(), 0u);
  for (const Sent& s : sink_.controls) {
    EXPECT_EQ(s.ndp.flags, wire::kFlagAck | wire::kFlagPull);
    EXPECT_EQ(s.ndp.options, 0) << "control packets carry no options";
  }
}

TEST_F(HeldAcksTest, AnUntakenAckLeavesWhenItsHoldRunsOutExactlyAsAnImmediateOne) {
  start();
  receive(*rx_, request(11, wire::kOptTakesAcks), sink_);
  held_->expire(now_ + kHold - 1, sink_);
  EXPECT_TRUE(sink_.controls.empty());
  EXPECT_EQ(held_->next_deadline(), now_ + kHold);
  held_->expire(now_ + kHold, sink_);
  ASSERT_EQ(sink_.controls.size(), 1u);
  EXPECT_EQ(counters_.tx_acks_held_expired, 1u);
  EXPECT_EQ(held_->next_deadline(), UINT64_MAX);

  // The same message to a receiver that holds nothing.
  NdpParams q = p_;
  q.ack_hold_ticks = 0;
  NicCounters c;
  TransportPeers<HeldAcks> none(c_, 4, 0, &c);
  NdpReceiver plain(c_, q, &c, &none);
  RecordingSink s;
  receive(plain, request(11, wire::kOptTakesAcks), s);
  ASSERT_EQ(s.controls.size(), 1u);
  EXPECT_EQ(sink_.controls[0].ip, s.controls[0].ip);
  EXPECT_EQ(sink_.controls[0].ndp, s.controls[0].ndp);
}

TEST_F(HeldAcksTest, OnlyAPacketToTheSamePeerContextsAndRunCarriesIt) {
  start();
  receive(*rx_, request(11, wire::kOptTakesAcks), sink_);
  wire::NdpHeader other_context = reply();
  other_context.dst_context = 4;
  wire::NdpHeader other_run = reply(6);
  wire::NdpHeader no_run = reply(0);
  wire::NdpHeader other_source = reply();
  other_source.src_context = 8;
  wire::NdpHeader other_peer = reply();
  EXPECT_FALSE(held_->attach(kPeer + 1, other_peer));
  EXPECT_FALSE(held_->attach(kPeer, other_context));
  EXPECT_FALSE(held_->attach(kPeer, other_run));
  EXPECT_FALSE(held_->attach(kPeer, no_run));
  EXPECT_FALSE(held_->attach(kPeer, other_source));
  EXPECT_EQ(held_->size(), 1u);
  wire::NdpHeader r = reply();
  EXPECT_TRUE(held_->attach(kPeer, r));
}

TEST_F(HeldAcksTest, WhenFullTheOldestLeavesAtOnceAndRepliesTakeTheRestInOrder) {
  start();
  for (uint16_t id = 1; id <= 5; ++id) receive(*rx_, request(id, wire::kOptTakesAcks), sink_);
  ASSERT_EQ(sink_.controls.size(), 1u) << "capacity 4: the fifth pushes the first out";
  EXPECT_EQ(sink_.controls[0].ndp.tx_msg_id, 1);
  for (uint16_t id = 2; id <= 5; ++id) {
    wire::NdpHeader r = reply();
    ASSERT_TRUE(held_->attach(kPeer, r));
    EXPECT_EQ(r.acked_msg_id, id);
  }
}

TEST_F(HeldAcksTest, ACarriedAckReadsAsTheControlPacketItStandsFor) {
  start();
  receive(*rx_, request(11, wire::kOptTakesAcks), sink_);
  wire::FrameHeader data;
  data.protocol = wire::kIpProtoNdp;
  data.src_ip = 0x0a0000ff;  // the server, answering
  data.dst_ip = kPeer;
  data.ndp = reply();
  ASSERT_TRUE(held_->attach(kPeer, data.ndp));
  held_->expire(now_ + kHold, sink_);
  ASSERT_TRUE(sink_.controls.empty());

  // Through the wire codec, then as the requester's transport reads it.
  uint8_t frame[wire::kFrameHeaderBytes + 8] = {};
  wire::encode_frame_header(data, 8, frame);
  wire::FrameHeader got;
  size_t payload = 0;
  ASSERT_EQ(wire::decode_frame_header(frame, sizeof frame, &got, &payload), wire::ParseError::kOk);
  const wire::FrameHeader ack = HeldAcks::carried(got);
  EXPECT_EQ(ack.src_ip, data.src_ip);
  EXPECT_EQ(ack.ndp.flags, wire::kFlagAck);
  EXPECT_EQ(ack.ndp.src_context, 7);
  EXPECT_EQ(ack.ndp.dst_context, 3);
  EXPECT_EQ(ack.ndp.tx_msg_id, 11);
  EXPECT_EQ(ack.ndp.buf_ptr, 51);
  EXPECT_EQ(ack.ndp.pkt_offset, 0);
  EXPECT_EQ(ack.ndp.incarnation, 5) << "the requester's own run, as its sender checks";
  EXPECT_EQ(ack.ndp.buf_size_class, 5);
  // It stands for the whole message (only a whole one is held): a bitmap
  // naming every packet, of which the sender takes those its message has.
  EXPECT_EQ(ack.ndp.options, wire::kOptAckBitmap);
  EXPECT_EQ(ack.ndp.acked_bitmap, ~uint64_t{0});
}

TEST_F(HeldAcksTest, AWholeMultiPacketMessagesAckIsHeldAndTheReplyCarriesIt) {
  // A sender that reads a carried ACK as the whole message's: the bitmap
  // ACK of a completed multi-packet message is held as a one-packet
  // message's is, and a reply carries it.
  p_.coalesce_acks = true;
  start();
  constexpr uint8_t kWhole = wire::kOptTakesAcks | wire::kOptTakesWholeAcks;
  for (uint8_t pkt = 0; pkt < 4; ++pkt) receive(*rx_, packet_of_four(31, pkt, kWhole), sink_);
  rx_->tick(now_, sink_);
  EXPECT_EQ(sink_.delivered.size(), 1u);
  EXPECT_TRUE(sink_.controls.empty()) << "the whole message's ACK waits for the reply";
  wire::NdpHeader r = reply();
  ASSERT_TRUE(held_->attach(kPeer, r));
  EXPECT_EQ(r.acked_msg_id, 31);
  EXPECT_EQ(r.acked_buf_ptr, 71);
  held_->expire(now_ + 10 * kHold, sink_);
  EXPECT_TRUE(sink_.controls.empty()) << "a carried ACK is never sent again";
}

TEST_F(HeldAcksTest, AnUntakenWholeMessageAckLeavesAsItsBitmapAck) {
  p_.coalesce_acks = true;
  start();
  constexpr uint8_t kWhole = wire::kOptTakesAcks | wire::kOptTakesWholeAcks;
  for (uint8_t pkt = 0; pkt < 4; ++pkt) receive(*rx_, packet_of_four(32, pkt, kWhole), sink_);
  EXPECT_TRUE(sink_.controls.empty());
  held_->expire(now_ + kHold, sink_);
  ASSERT_EQ(sink_.controls.size(), 1u);
  const wire::NdpHeader& a = sink_.controls[0].ndp;
  EXPECT_EQ(a.flags, wire::kFlagAck | wire::kFlagPull);
  EXPECT_EQ(a.options, wire::kOptAckBitmap);
  EXPECT_EQ(a.acked_bitmap, 0b1111u);
  EXPECT_EQ(a.tx_msg_id, 32);
  EXPECT_EQ(counters_.tx_acks_held_expired, 1u);
}

// A one-way stream (docs/wire.md, "Lists"): when an ACK's hold runs out,
// the later ACKs held for its peer, contexts and run leave in its list.
constexpr uint8_t kLists = wire::kOptTakesAcks | wire::kOptTakesWholeAcks | wire::kOptTakesAckLists;

TEST_F(HeldAcksTest, ExpiringAcksLeaveTogetherFifteenToAList) {
  p_.held_acks = 32;
  start();
  for (uint16_t id = 0; id < 20; ++id) receive(*rx_, request(id, kLists), sink_);
  EXPECT_TRUE(sink_.controls.empty());
  EXPECT_EQ(held_->size(), 20u);
  held_->expire(now_ + kHold, sink_);
  ASSERT_EQ(sink_.controls.size(), 2u) << "16 ACKs in the first packet, 4 in the second";
  ASSERT_EQ(sink_.lists.size(), 2u);
  EXPECT_EQ(sink_.controls[0].ndp.tx_msg_id, 0);
  EXPECT_EQ(sink_.controls[0].ndp.options, wire::kOptAckList);
  EXPECT_EQ(sink_.controls[0].ndp.flags, wire::kFlagAck | wire::kFlagPull);
  ASSERT_EQ(sink_.lists[0].count, wire::AckList::kMax);
  for (uint16_t i = 0; i < wire::AckList::kMax; ++i) {
    EXPECT_EQ(sink_.lists[0].msgs[i].tx_msg_id, i + 1);
    EXPECT_EQ(sink_.lists[0].msgs[i].buf_ptr, i + 41) << "each message's own slot";
  }
  EXPECT_EQ(sink_.controls[1].ndp.tx_msg_id, 16);
  ASSERT_EQ(sink_.lists[1].count, 3);
  EXPECT_EQ(sink_.lists[1].msgs[2].tx_msg_id, 19);
  EXPECT_EQ(counters_.tx_acks_held_expired, 2u);
  EXPECT_EQ(counters_.tx_acks_listed, 18u);
  EXPECT_EQ(held_->size(), 0u);
  held_->expire(now_ + 10 * kHold, sink_);
  EXPECT_EQ(sink_.controls.size(), 2u) << "a listed ACK is never sent again";
}

TEST_F(HeldAcksTest, AFullHoldPushesItsOldestOutWithTheOthersListed) {
  p_.held_acks = 4;
  start();
  for (uint16_t id = 0; id < 4; ++id) receive(*rx_, request(id, kLists), sink_);
  EXPECT_TRUE(sink_.controls.empty());
  receive(*rx_, request(4, kLists), sink_);  // no room: the oldest leaves, the rest with it
  ASSERT_EQ(sink_.controls.size(), 1u);
  EXPECT_EQ(sink_.controls[0].ndp.tx_msg_id, 0);
  ASSERT_EQ(sink_.lists.size(), 1u);
  ASSERT_EQ(sink_.lists[0].count, 3);
  EXPECT_EQ(sink_.lists[0].msgs[2].tx_msg_id, 3);
  EXPECT_EQ(held_->size(), 1u) << "only the newcomer is held";
  held_->expire(now_ + kHold, sink_);
  ASSERT_EQ(sink_.controls.size(), 2u);
  EXPECT_EQ(sink_.controls[1].ndp.tx_msg_id, 4);
  EXPECT_EQ(sink_.controls[1].ndp.options, 0) << "alone: nothing left to list";
  EXPECT_EQ(counters_.tx_acks_listed, 3u);
}

TEST_F(HeldAcksTest, AListNamesOnlyItsPeersContextsAndRunAndOnlyForASenderThatReadsLists) {
  p_.held_acks = 32;
  start();
  receive(*rx_, request(1, kLists), sink_);                     // the head
  receive(*rx_, request(2, kLists, /*incarnation=*/6), sink_);  // another run of the peer
  wire::FrameHeader other_peer = request(3, kLists);
  other_peer.src_ip = kPeer + 1;
  receive(*rx_, other_peer, sink_);
  wire::FrameHeader other_context = request(4, kLists);
  other_context.ndp.src_context = 4;
  receive(*rx_, other_context, sink_);
  receive(*rx_, request(5, wire::kOptTakesAcks | wire::kOptTakesWholeAcks),
          sink_);                            // reads no lists
  receive(*rx_, request(6, kLists), sink_);  // listed with the head
  ASSERT_EQ(held_->size(), 6u);
  held_->expire(now_ + kHold, sink_);
  ASSERT_EQ(sink_.controls.size(), 5u);
  ASSERT_EQ(sink_.lists.size(), 1u);
  EXPECT_EQ(sink_.controls[0].ndp.tx_msg_id, 1);
  ASSERT_EQ(sink_.lists[0].count, 1);
  EXPECT_EQ(sink_.lists[0].msgs[0].tx_msg_id, 6);
  for (size_t i = 1; i < sink_.controls.size(); ++i) {
    EXPECT_EQ(sink_.controls[i].ndp.options, 0) << "alone, as before lists";
    EXPECT_EQ(sink_.controls[i].ndp.tx_msg_id, i + 1);
  }
  EXPECT_EQ(sink_.controls[2].ip, kPeer + 1);
}

}  // namespace
}  // namespace nanopu
