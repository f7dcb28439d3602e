// Message ids per receiver, within what the receiver remembers
// (nic/transport/common/id_window.h; docs/wire.md "Message ids"), through
// the real NDP and Homa senders, real mbufs from a real EAL mempool and a
// sink that records each DATA packet's header. A message left
// unacknowledged while a window's worth of younger ones to the same
// receiver complete holds the next ones back (never a copy older than the
// receiver's memory), across the wrap of the 16-bit id too; another
// receiver is not held up; the held messages leave the moment the old one
// is acknowledged or given up, still meant for the receiver's run they were
// sent to; a sender destroyed with messages held frees them.
#include "nic/transport/common/id_window.h"

#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <memory>
#include <vector>

#include "lib/contract/tx_message.h"
#include "nanopu/app_header.h"
#include "nic/transport/common/peer_runs.h"
#include "nic/transport/common/transport_peers.h"
#include "nic/transport/homa/homa_sender.h"
#include "nic/transport/ndp/ndp_sender.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"

namespace nanopu {
namespace {

using testing::RecordingSink;

constexpr uint32_t kSlow = 0x0a000002;
constexpr uint16_t kIncarnation = 7;

constexpr uint32_t kOther = 0x0a000003;
constexpr uint16_t kSlowRun = 5;  // the receiver's run, as last heard

// NDP or Homa behind one face: send, acknowledge, run timers.
class Sender {
 public:
  virtual ~Sender() = default;
  virtual void send(rte_mbuf* msg, uint64_t now, TransportSink& sink) = 0;
  virtual void ack(const RecordingSink::Control& data, uint64_t now, TransportSink& sink) = 0;
  virtual void tick(uint64_t now, TransportSink& sink) = 0;
  [[nodiscard]] virtual uint32_t free_slots() const = 0;
  [[nodiscard]] virtual uint32_t in_flight() const = 0;
  virtual PeerRuns& runs() = 0;  // the peers' runs it sends to
};

// The ACK its receiver would send for the DATA packet d, in d's protocol.
wire::FrameHeader ack_for(const RecordingSink::Control& d) {
  wire::FrameHeader h;
  h.protocol = d.protocol;
  h.src_ip = d.ip;
  if (d.protocol == wire::kIpProtoHoma) {
    h.homa = d.homa;
    h.homa.flags = wire::kHomaAck;
  } else {
    h.ndp = d.ndp;
    h.ndp.flags = wire::kFlagAck;
  }
  return h;
}

// NdpSender or HomaSender (with its Params) behind the one face.
template <typename S, typename P, typename Held>
class Driven final : public Sender {
 public:
  Driven(const TransportParams& c, rte_mempool* pool, NicCounters* n)
      : peers_(c, P{}.held_acks, P{}.ack_hold_ticks, n), s_(c, P{}, pool, n, &peers_) {}
  PeerRuns& runs() override { return peers_.runs; }
  void send(rte_mbuf* msg, uint64_t now, TransportSink& sink) override { s_.send_message(msg, now, sink); }
  void ack(const RecordingSink::Control& d, uint64_t now, TransportSink& sink) override {
    s_.on_control(ack_for(d), now, sink);
  }
  void tick(uint64_t now, TransportSink& sink) override { s_.tick(now, sink); }
  [[nodiscard]] uint32_t free_slots() const override { return s_.free_slots(); }
  [[nodiscard]] uint32_t in_flight() const override { return s_.in_flight(); }

 private:
  TransportPeers<Held> peers_;  // before s_, which keeps a pointer to it
  S s_;
};

class IdWindowTest : public ::testing::TestWithParam<bool /* homa */> {
 protected:
  void SetUp() override {
    bench_.open("id_window", 4095, 3);
    c_.outbound_slots = 64;
    c_.incarnation = kIncarnation;
    c_.rto_ticks = 1'000;
    c_.peer_dead_ticks = 1'000'000;
    if (GetParam())
      sender_ = std::make_unique<Driven<HomaSender, HomaParams, HomaHeldAcks>>(c_, bench_.pool, &counters_);
    else
      sender_ = std::make_unique<Driven<NdpSender, NdpParams, HeldAcks>>(c_, bench_.pool, &counters_);
    (void)sender_->runs().heard(kSlow, kSlowRun);
  }
  void TearDown() override {
    sender_.reset();
    bench_.close();
  }

  // Sends a one-packet message to ip; the header of its DATA packet, or
  // nothing if it did not leave.
  const RecordingSink::Control* send(uint32_t ip) {
    rte_mbuf* m = alloc_tx_message(bench_.pool, AppHeader{ip, 9, 8}.word(), 3);
    EXPECT_NE(m, nullptr);
    const size_t before = sink_.data.size();
    sender_->send(m, now_ += 10, sink_);
    return sink_.data.size() > before ? &sink_.data.back() : nullptr;
  }
  [[nodiscard]] static uint16_t id_of(const RecordingSink::Control& d) {
    return d.protocol == wire::kIpProtoHoma ? d.homa.tx_msg_id : d.ndp.tx_msg_id;
  }
  [[nodiscard]] static uint16_t run_of(const RecordingSink::Control& d) {
    return d.protocol == wire::kIpProtoHoma ? d.homa.dst_incarnation : d.ndp.dst_incarnation;
  }
  // n messages to kSlow, each acknowledged at once.
  void complete(uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
      const RecordingSink::Control* d = send(kSlow);
      ASSERT_NE(d, nullptr) << "message " << i;
      sender_->ack(*d, now_ += 10, sink_);
    }
  }
  // A message to kSlow left unacknowledged, then a window's worth of younger
  // ones completed: the next message to kSlow must wait. The stuck one's DATA.
  RecordingSink::Control stick_one() {
    const RecordingSink::Control* first = send(kSlow);
    EXPECT_NE(first, nullptr);
    const RecordingSink::Control stuck = first != nullptr ? *first : RecordingSink::Control{};
    complete(wire::kIdsInFlight - 1);
    return stuck;
  }

  testing::ReceiverBench bench_;
  TransportParams c_;
  NicCounters counters_;
  RecordingSink sink_;
  std::unique_ptr<Sender> sender_;
  uint64_t now_ = 1;
};

TEST_P(IdWindowTest, EachReceiverSeesItsOwnIdsInOrder) {
  std::vector<uint16_t> slow_ids, other_ids;
  for (int i = 0; i < 6; ++i) {
    const RecordingSink::Control* d = send(i % 3 == 0 ? kOther : kSlow);
    ASSERT_NE(d, nullptr);
    (d->ip == kOther ? other_ids : slow_ids).push_back(id_of(*d));
    sender_->ack(*d, now_ += 10, sink_);
  }
  EXPECT_EQ(slow_ids, (std::vector<uint16_t>{0, 1, 2, 3}));
  EXPECT_EQ(other_ids, (std::vector<uint16_t>{0, 1})) << "no gap for another receiver's messages";
}

TEST_P(IdWindowTest, AnOldUnacknowledgedMessageHoldsBackItsReceiversNextIdsOnly) {
  const RecordingSink::Control stuck = stick_one();
  ASSERT_EQ(id_of(stuck), 0);
  EXPECT_EQ(counters_.tx_msgs_held_for_ids, 0u);
  const uint32_t free_before = sender_->free_slots();

  // Id 8192 would be a window ahead of id 0, still in flight: held, and the
  // next message to the same receiver behind it; neither is lost or failed.
  EXPECT_EQ(send(kSlow), nullptr);
  EXPECT_EQ(send(kSlow), nullptr);
  EXPECT_EQ(counters_.tx_msgs_held_for_ids, 2u);
  EXPECT_EQ(sender_->free_slots(), free_before - 2) << "a held message keeps its slot promised";
  EXPECT_EQ(sender_->in_flight(), 3u);
  EXPECT_TRUE(sink_.failures.empty());

  // Another receiver is not held up.
  const RecordingSink::Control* d = send(kOther);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(id_of(*d), 0);
  sender_->ack(*d, now_ += 10, sink_);

  // The receiver restarts meanwhile (a GONE makes the transport forget its
  // run): the held messages still name the run they were sent to, as every
  // message is fixed to its run when the NIC takes it (peer_runs.h).
  EXPECT_TRUE(sender_->runs().forget(kSlow));
  // The old message acknowledged: both held messages leave at once, in order.
  const size_t before = sink_.data.size();
  sender_->ack(stuck, now_ += 10, sink_);
  ASSERT_EQ(sink_.data.size(), before + 2);
  EXPECT_EQ(id_of(sink_.data[before]), wire::kIdsInFlight);
  EXPECT_EQ(id_of(sink_.data[before + 1]), wire::kIdsInFlight + 1);
  EXPECT_EQ(run_of(sink_.data[before]), kSlowRun);
  EXPECT_EQ(run_of(sink_.data[before + 1]), kSlowRun);
  sender_->ack(sink_.data[before], now_ += 10, sink_);
  sender_->ack(sink_.data[before + 1], now_ += 10, sink_);
  EXPECT_EQ(sender_->in_flight(), 0u);
  EXPECT_TRUE(sink_.failures.empty());
}

// The same across the wrap of the 16-bit id: the old message is id 65530,
// the held one would be 65530 + 8192 = 8186 (mod 2^16).
TEST_P(IdWindowTest, TheWindowHoldsAcrossTheWrapOfTheSixteenBitId) {
  complete(65530);
  const RecordingSink::Control stuck = stick_one();
  ASSERT_EQ(id_of(stuck), 65530);
  EXPECT_EQ(send(kSlow), nullptr);
  EXPECT_EQ(counters_.tx_msgs_held_for_ids, 1u);
  const size_t before = sink_.data.size();
  sender_->ack(stuck, now_ += 10, sink_);
  ASSERT_EQ(sink_.data.size(), before + 1);
  EXPECT_EQ(id_of(sink_.data[before]), static_cast<uint16_t>(65530 + wire::kIdsInFlight));
  sender_->ack(sink_.data[before], now_ += 10, sink_);
  EXPECT_EQ(sender_->in_flight(), 0u);
}

// The old message's peer goes silent: it is given up after peer_dead (by
// the timer, in tick()), and the messages held behind it leave then.
TEST_P(IdWindowTest, HeldMessagesLeaveWhenTheOldOneIsGivenUp) {
  const uint64_t first_sent = now_ + 10;
  (void)stick_one();
  EXPECT_EQ(send(kSlow), nullptr);
  const size_t before = sink_.data.size();
  const uint64_t silent_from = now_;
  while (sink_.failures.empty() && now_ < silent_from + 4 * c_.peer_dead_ticks)
    sender_->tick(now_ += c_.rto_ticks, sink_);
  ASSERT_EQ(sink_.failures.size(), 1u);
  EXPECT_EQ(sink_.failures[0].failure.reason, TxFailureReason::kNoAnswer);
  // (Homa's sender here hears nothing but its ACKs' silence: peer_dead counts
  // from the message's own last progress, its sending.)
  EXPECT_GE(now_ - first_sent, c_.peer_dead_ticks);
  bool held_left = false;
  for (size_t i = before; i < sink_.data.size(); ++i) held_left |= id_of(sink_.data[i]) == wire::kIdsInFlight;
  EXPECT_TRUE(held_left) << "the held message went out when the window opened";
  sender_->ack(sink_.data.back(), now_ += 10, sink_);
}

// A sender that ends with messages held frees them (TearDown counts every
// mbuf back in the pool).
TEST_P(IdWindowTest, MessagesStillHeldAreFreedWithTheSender) {
  (void)stick_one();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(send(kSlow), nullptr);
  EXPECT_EQ(counters_.tx_msgs_held_for_ids, 3u);
}

INSTANTIATE_TEST_SUITE_P(Protocols, IdWindowTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Homa" : "Ndp"; });

}  // namespace
}  // namespace nanopu
