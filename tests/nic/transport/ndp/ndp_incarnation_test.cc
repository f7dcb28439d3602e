// A restarted sender (docs/wire.md, "Sender incarnation"): its message ids
// start over, and the receiver must tell them from its predecessor's. Real
// mbufs from a real EAL mempool; the receiver is driven packet by packet.
#include <gtest/gtest.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include <cstring>
#include <vector>

#include "lib/contract/message.h"
#include "nanopu/app_header.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"
#include "nic/transport/ndp/ndp_receiver.h"

namespace nanopu {
namespace {

using testing::RecordingSink;

class NdpIncarnationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_.open("incarnation", 1023, 7);
    c_ = testing::ReceiverBench::receiver_params(8, 512, 1'000'000);
    c_.incarnation = kOurs;
    rx_peers_ = std::make_unique<TransportPeers<HeldAcks>>(c_, p_.held_acks, p_.ack_hold_ticks, &counters_);
    rx_ = std::make_unique<NdpReceiver>(c_, p_, &counters_, rx_peers_.get());
  }
  void TearDown() override {
    rx_.reset();
    bench_.close();
  }

  // One DATA packet of message `id` from a sender in run `incarnation`.
  void send(uint16_t incarnation, uint16_t id, uint16_t msg_len, uint8_t pkt_offset,
            uint16_t dst_incarnation = 0) {
    wire::FrameHeader h = testing::ReceiverBench::data_header(id, msg_len, pkt_offset, incarnation);
    h.ndp.dst_incarnation = dst_incarnation;
    bench_.deliver(*rx_, h, now_ += 10, sink_);
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
  uint64_t now_ = 1;
  static constexpr uint16_t kOurs = 0x7777;  // this receiver's run
};

TEST_F(NdpIncarnationTest, ALateCopyFromTheSameRunIsADuplicate) {
  send(0x1234, 5, 100, 0);
  send(0x1234, 5, 100, 0);
  EXPECT_EQ(sink_.delivered.size(), 1u);
  EXPECT_EQ(counters_.rx_dup_packets, 1u);
}

TEST_F(NdpIncarnationTest, ARestartedSenderReusingAnIdIsDeliveredAgain) {
  send(0x1234, 5, 100, 0);
  // Same address, context, id, length and buf_size_class: only the 16-bit
  // incarnation differs (an 8-bit one would have called this a duplicate).
  send(0x5634, 5, 100, 0);
  EXPECT_EQ(sink_.delivered.size(), 2u);
  EXPECT_EQ(counters_.rx_dup_packets, 0u);
}

TEST_F(NdpIncarnationTest, ControlPacketsEchoTheIncarnation) {
  send(0x1234, 5, 2000, 0);  // a partial message: answered from its slot
  send(0x4321, 6, 100, 0);   // a single-packet message: answered from its header
  ASSERT_EQ(sink_.controls.size(), 2u);
  EXPECT_EQ(sink_.controls[0].ndp.incarnation, 0x1234);
  EXPECT_EQ(sink_.controls[0].ndp.buf_size_class, 0x34);
  EXPECT_EQ(sink_.controls[1].ndp.incarnation, 0x4321);
  rx_->tick(now_ + 10'000'000, sink_);  // expire the partial message
}

TEST_F(NdpIncarnationTest, ARestartMidMessageSupersedesThePredecessorsPackets) {
  send(0x1111, 9, 2000, 0);  // the predecessor's first of two packets, then it dies
  send(0x2222, 9, 2000, 0);  // its successor reuses the id
  EXPECT_EQ(counters_.rx_reassembly_superseded, 1u);
  send(0x2222, 9, 2000, 1);
  ASSERT_EQ(sink_.delivered.size(), 1u);
  EXPECT_EQ(sink_.delivered[0].len, 2000);
  EXPECT_EQ(ctx_.reassembling, 0u);
}

TEST_F(NdpIncarnationTest, APrototypePeerWithoutIncarnationIsOneRun) {
  send(0, 5, 100, 0);
  send(0, 5, 100, 0);
  EXPECT_EQ(sink_.delivered.size(), 1u);
  EXPECT_EQ(counters_.rx_dup_packets, 1u);
}

TEST_F(NdpIncarnationTest, AMessageMeantForThisAddresssPreviousProcessIsRefused) {
  // A message its sender built for our predecessor (run 0x6666): not ours
  // to take; GONE tells the sender to give it up.
  send(0x1234, 5, 100, 0, /*dst_incarnation=*/0x6666);
  send(0x1234, 6, 2000, 0, 0x6666);
  EXPECT_TRUE(sink_.delivered.empty());
  EXPECT_EQ(counters_.rx_drop_stale_incarnation, 2u);
  EXPECT_EQ(ctx_.reassembling, 0u);
  ASSERT_EQ(sink_.controls.size(), 2u);
  for (const RecordingSink::Control& sent : sink_.controls) {
    const wire::NdpHeader& c = sent.ndp;
    EXPECT_EQ(c.flags, wire::kFlagGone);
    EXPECT_EQ(c.dst_incarnation, 0x6666);  // echoed: the sender finds its message
    EXPECT_EQ(c.incarnation, 0x1234);
  }
  sink_.controls.clear();
  // Meant for us, or for whoever is here (0): taken.
  send(0x1234, 7, 100, 0, kOurs);
  send(0x1234, 8, 100, 0, 0);
  EXPECT_EQ(sink_.delivered.size(), 2u);
  ASSERT_EQ(sink_.controls.size(), 2u);
  EXPECT_EQ(sink_.controls[0].ndp.flags, wire::kFlagAck | wire::kFlagPull);
  EXPECT_EQ(sink_.controls[0].ndp.dst_incarnation, kOurs);  // echoed
}

}  // namespace
}  // namespace nanopu
