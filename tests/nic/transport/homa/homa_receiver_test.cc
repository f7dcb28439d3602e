// The Homa receiver's decisions, packet by packet (real mbufs from a real
// EAL mempool, a sink that records what it would send): SRPT grants and
// their priorities, the overcommitment bound across senders, one ACK per
// message, RESEND after silence and the give-up after peer_dead of it, and
// grants held while no core is free.
#include "nic/transport/homa/homa_receiver.h"

#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>
#include <set>
#include <vector>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"

namespace nanopu {
namespace {

using testing::RecordingSink;
using Sent = RecordingSink::Control;

class HomaReceiverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.open("homa_rx", 2047, 7);
    c_ = testing::ReceiverBench::receiver_params(32, 1024, 1'000'000'000);
    c_.incarnation = 9;
    c_.peer_dead_ticks = 10'000;  // then a silent sender's partial message is dropped
    p_.rtt_bytes = 2048;  // two packets unscheduled, grants two ahead
    p_.overcommit = 2;
    p_.resend_ticks = 1000;
    p_.fifo_grant_every = 0;  // pure SRPT unless a test says otherwise
  }
  // The transport's peers (transport_shell.h) and a receiver on them
  // (holding no ACK unless told to).
  void start() { start(p_.held_acks, 0); }
  void start(uint32_t held_acks, uint64_t hold_ticks) {
    peers_ = std::make_unique<TransportPeers<HomaHeldAcks>>(c_, held_acks, hold_ticks, &counters_);
    rx_ = std::make_unique<HomaReceiver>(c_, p_, &counters_, peers_.get());
  }
  void TearDown() override {
    rx_.reset();
    bench_.close();
  }

  // Packet `pkt` of message `id` (msg_len bytes) from sender 10.0.0.<sender>.
  void data(uint8_t sender, uint16_t id, uint16_t msg_len, uint8_t pkt, uint8_t options = 0) {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoHoma;
    h.src_ip = 0x0a000000u | sender;
    h.dst_ip = 0x0a0000ff;
    h.tos = p_.unscheduled_priority(msg_len);
    wire::HomaHeader& x = h.homa;
    x.flags = wire::kHomaData;
    x.src_context = 3;
    x.dst_context = 7;
    x.msg_len = msg_len;
    x.pkt_offset = pkt;
    x.grant_offset = static_cast<uint16_t>(std::min<uint32_t>(msg_len, p_.rtt_bytes));
    x.tx_msg_id = id;
    x.buf_ptr = id;
    x.incarnation = 5;
    x.buf_size_class = 5;
    x.options = options;
    const size_t payload = wire::segment_payload_bytes(msg_len, pkt);
    rte_mbuf* m = rte_pktmbuf_alloc(pool_);
    ASSERT_NE(m, nullptr);
    auto* buf = reinterpret_cast<uint8_t*>(
        rte_pktmbuf_append(m, static_cast<uint16_t>(wire::kFrameHeaderBytes + payload)));
    wire::encode_frame_header(h, payload, buf);
    std::memset(buf + wire::kFrameHeaderBytes, 0x5a, payload);
    wire::FrameHeader parsed;
    size_t parsed_payload = 0;
    ASSERT_EQ(wire::decode_frame_header(buf, m->pkt_len, &parsed, &parsed_payload), wire::ParseError::kOk);
    rx_->on_data(m, parsed, parsed_payload, &ctx_, now_ += 10, sink_);
  }
  // The highest grant (bytes) message `id` has had so far.
  [[nodiscard]] uint32_t granted(uint16_t id) const {
    uint32_t g = 0;
    for (const Sent& s : sink_.homa_with(wire::kHomaGrant))
      if (s.homa.tx_msg_id == id) g = std::max<uint32_t>(g, s.homa.grant_offset);
    return g;
  }

  testing::ReceiverBench bench_;
  rte_mempool*& pool_ = bench_.pool;
  ContextEntry& ctx_ = bench_.ctx;
  TransportParams c_;
  HomaParams p_;
  NicCounters counters_;
  RecordingSink sink_;
  std::unique_ptr<TransportPeers<HomaHeldAcks>> peers_;
  std::unique_ptr<HomaReceiver> rx_;
  uint64_t now_ = 1;
};

TEST_F(HomaReceiverTest, ASinglePacketMessageIsDeliveredWithOneAckAndItsCopyReAcked) {
  start();
  data(1, 4, 100, 0);
  data(1, 4, 100, 0);
  ASSERT_EQ(sink_.delivered.size(), 1u);
  EXPECT_EQ(sink_.delivered[0].len, 100);
  EXPECT_EQ(sink_.homa_with(wire::kHomaAck).size(), 2u);
  EXPECT_TRUE(sink_.homa_with(wire::kHomaGrant).empty()) << "nothing scheduled to grant";
  EXPECT_EQ(counters_.rx_dup_packets, 1u);
}

// docs/wire.md, "Acknowledgements that ride on data": a whole message's
// ACK waits for a DATA packet to its sender when the sender takes ACKs so.
TEST_F(HomaReceiverTest, AWholeMessagesAckIsHeldWhenItsSenderTakesAcksOnData) {
  start(16, 1'000'000);
  HomaHeldAcks& held = peers_->held;
  data(1, 1, 100, 0, wire::kHomaOptTakesAcks);  // one packet
  for (uint8_t i = 0; i < 2; ++i) data(1, 2, 2000, i, wire::kHomaOptTakesAcks);  // two
  EXPECT_TRUE(sink_.homa_with(wire::kHomaAck).empty());
  EXPECT_EQ(held.size(), 2u);
  EXPECT_EQ(sink_.delivered.size(), 2u);
  data(2, 3, 100, 0);  // a sender that does not take them: its ACK at once
  EXPECT_EQ(sink_.homa_with(wire::kHomaAck).size(), 1u);
  EXPECT_EQ(held.size(), 2u);
  held.expire(UINT64_MAX, sink_);
  EXPECT_EQ(sink_.homa_with(wire::kHomaAck).size(), 3u) << "a held ACK no DATA took leaves alone";
}

TEST_F(HomaReceiverTest, GrantsGoToTheShortestRemainingFirstWithTheHighestScheduledPriority) {
  start();
  data(1, 1, 20000, 0);  // 20 packets
  data(2, 2, 6000, 0);   // 6 packets: fewer left
  const std::vector<Sent> g = sink_.homa_with(wire::kHomaGrant);
  // Both granted (overcommit 2): the shorter at the top scheduled priority,
  // the longer re-ranked below it (a GRANT with only the priority changed).
  uint8_t short_prio = 0xff, long_prio = 0xff;
  for (const Sent& s : g) {
    (s.homa.tx_msg_id == 2 ? short_prio : long_prio) = s.homa.grant_prio;
    EXPECT_EQ(s.tos, 7) << "GRANTs travel at the highest priority";
  }
  EXPECT_EQ(short_prio, p_.max_sched_priority);
  EXPECT_EQ(long_prio, p_.max_sched_priority - 1);
}

TEST_F(HomaReceiverTest, NoMoreThanOvercommitSendersHoldScheduledGrantsAtOnce) {
  start();
  for (uint8_t s = 1; s <= 4; ++s) data(s, s, static_cast<uint16_t>(10000 + 1000 * s), 0);
  std::set<uint32_t> granted_senders;
  for (const Sent& s : sink_.homa_with(wire::kHomaGrant)) granted_senders.insert(s.ip);
  EXPECT_EQ(granted_senders.size(), 2u) << "overcommit 2 of 4 senders";
  EXPECT_EQ(granted_senders.count(0x0a000001), 1u) << "the shortest";
  EXPECT_EQ(granted_senders.count(0x0a000002), 1u);
  EXPECT_EQ(counters_.rx_granted_senders_peak, 2u);
  // Sender 1's message completes: a grant frees up for the next shortest (3).
  for (uint8_t k = 1; k < 11; ++k) data(1, 1, 11000, k);
  EXPECT_EQ(sink_.delivered.size(), 1u);
  granted_senders.clear();
  for (const Sent& s : sink_.homa_with(wire::kHomaGrant)) granted_senders.insert(s.ip);
  EXPECT_EQ(granted_senders.count(0x0a000003), 1u);
  EXPECT_EQ(granted_senders.count(0x0a000004), 0u);
  EXPECT_LE(counters_.rx_granted_senders_peak, 2u);
}

// Overcommit 1: sender 2's short messages, one always arriving before the
// previous one completes, keep the only grant; the long message of sender 1,
// which came between the first two, gets none under pure SRPT, and some
// with a FIFO grant every other grant.
TEST_F(HomaReceiverTest, AFifoGrantKeepsTheOldestMessageFromStarving) {
  p_.overcommit = 1;
  for (uint32_t every : {0u, 2u}) {
    p_.fifo_grant_every = every;
    sink_.controls.clear();
    start();
    const auto base = static_cast<uint16_t>(100 * (every + 1));
    data(2, base, 5000, 0);
    const auto old_id = static_cast<uint16_t>(base + 50);
    data(1, old_id, 30000, 0);  // its unscheduled packets, then nothing granted
    data(1, old_id, 30000, 1);
    for (uint16_t id = 1; id < 12; ++id) {
      data(2, static_cast<uint16_t>(base + id), 5000, 0);
      for (uint8_t k = 1; k < 5; ++k) data(2, static_cast<uint16_t>(base + id - 1), 5000, k);
    }
    if (every == 0)
      EXPECT_EQ(granted(old_id), 0u) << "pure SRPT starves it";
    else
      EXPECT_GT(granted(old_id), 0u) << "the oldest message got grants despite SRPT";
    rx_.reset();
    while (rte_mbuf* m = ctx_.held.pop()) rte_pktmbuf_free(m);
    ctx_.packets = 0;
    ctx_.reassembling = 0;
  }
}

TEST_F(HomaReceiverTest, SilenceBringsResendsThenTheMessageIsDropped) {
  start();
  data(1, 1, 5000, 0);  // packet 1 (unscheduled) never comes
  ASSERT_TRUE(sink_.homa_with(wire::kHomaResend).empty());
  // Silence of 1000 ticks brings the first RESEND; each one unanswered
  // doubles the wait for the next (a slow sender is not a dead one).
  for (int i = 0; i < 2; ++i) rx_->tick(now_ += 1500, sink_);
  EXPECT_EQ(sink_.homa_with(wire::kHomaResend).size(), 1u) << "the second waits 2000";
  for (int i = 0; i < 40; ++i) rx_->tick(now_ += 2000, sink_);
  // RESENDs at 1500 and 5000 (waits of 1000, 2000, then 4000); at 11000 the
  // sender has been silent for peer_dead (10000): dropped, not asked again.
  const std::vector<Sent> r = sink_.homa_with(wire::kHomaResend);
  ASSERT_EQ(r.size(), 2u) << "RESENDs until the sender was silent for peer_dead";
  EXPECT_EQ(r[0].homa.pkt_offset, 1u);
  // Packets 1 and 2 (2 unscheduled + 1 granted on packet 0's arrival), as bytes.
  EXPECT_EQ(r[0].homa.grant_offset, 3072u);
  EXPECT_EQ(counters_.rx_msgs_aborted, 1u);
  EXPECT_EQ(rx_->slots_in_use(), 0u);
  EXPECT_EQ(ctx_.packets, 0u);
}

TEST_F(HomaReceiverTest, ATrimmedPacketIsAskedForAtOnce) {
  start();
  data(1, 1, 3000, 0);
  // A CHOP copy of packet 1.
  wire::FrameHeader h;
  h.protocol = wire::kIpProtoHoma;
  h.src_ip = 0x0a000001;
  h.dst_ip = 0x0a0000ff;
  h.homa = {};
  h.homa.flags = wire::kHomaData | wire::kHomaChop;
  h.homa.src_context = 3;
  h.homa.dst_context = 7;
  h.homa.msg_len = 3000;
  h.homa.pkt_offset = 1;
  h.homa.grant_offset = 2048;
  h.homa.tx_msg_id = 1;
  h.homa.buf_ptr = 1;
  h.homa.incarnation = 5;
  h.homa.buf_size_class = 5;
  rte_mbuf* m = rte_pktmbuf_alloc(pool_);
  auto* buf = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, wire::kTrimmedFrameBytes));
  wire::encode_frame_header(h, wire::kTrimmedFrameBytes - wire::kFrameHeaderBytes, buf);
  wire::FrameHeader parsed;
  size_t payload = 0;
  ASSERT_EQ(wire::decode_frame_header(buf, m->pkt_len, &parsed, &payload), wire::ParseError::kOk);
  rx_->on_data(m, parsed, payload, &ctx_, now_ += 10, sink_);
  const std::vector<Sent> r = sink_.homa_with(wire::kHomaResend);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].homa.pkt_offset, 1u);
  EXPECT_EQ(r[0].homa.grant_offset, 2048u);
  EXPECT_EQ(counters_.rx_chopped_packets, 1u);
}

TEST_F(HomaReceiverTest, WithGrantWhenCoreFreeABusyCoreHoldsGrantsBack) {
  p_.grant_when_core_free = true;
  start();
  // A message waits in the context's global queue: no core has room.
  rte_mbuf* waiting = rte_pktmbuf_alloc(pool_);
  ASSERT_TRUE(ctx_.held.push(waiting));
  data(1, 1, 8000, 0);
  data(1, 1, 8000, 1);  // all it was given unasked is in
  const std::vector<Sent> busy = sink_.homa_with(wire::kHomaBusy);
  ASSERT_EQ(busy.size(), 1u) << "the sender is told to wait, not to time out";
  EXPECT_EQ(busy[0].homa.flags, wire::kHomaGrant | wire::kHomaBusy) << "a receiver's BUSY: GRANT|BUSY";
  EXPECT_EQ(busy[0].homa.grant_offset, 2048u) << "no more than it had";
  EXPECT_EQ(sink_.homa_with(wire::kHomaGrant).size(), 1u) << "no other grant";
  EXPECT_GT(counters_.rx_grants_held_for_core, 0u);
  // A core takes the waiting message: the next tick grants.
  rte_pktmbuf_free(ctx_.held.pop());
  rx_->tick(now_ += 10, sink_);
  EXPECT_EQ(granted(1), 4096u);
}

}  // namespace
}  // namespace nanopu
