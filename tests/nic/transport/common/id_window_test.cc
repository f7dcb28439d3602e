// Message ids per receiver, within what the receiver remembers
// (nic/transport/common/id_window.h; docs/wire.md "Message ids"), through
// the real NDP and Homa senders, real mbufs from a real EAL mempool and a
// sink that records each DATA packet's header. A message left
// unacknowledged while a window's worth of younger ones to the same
// receiver complete holds the next ones back (never a copy older than the
// receiver's memory); a receiver on another stream is not held up; the held
// messages leave the moment the old one is acknowledged or given up.
#include "nic/transport/common/id_window.h"

#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <memory>
#include <vector>

#include "lib/contract/tx_message.h"
#include "nanopu/app_header.h"
#include "nic/transport/homa/homa_sender.h"
#include "nic/transport/ndp/ndp_sender.h"
#include "tests/support/receiver_bench.h"
#include "tests/support/recording_sink.h"

namespace nanopu {
namespace {

using testing::RecordingSink;

constexpr uint32_t kSlow = 0x0a000002;
constexpr uint16_t kIncarnation = 7;

// An address on another id stream than kSlow's.
uint32_t other_stream_peer() {
  uint32_t ip = kSlow + 1;
  while (IdWindow::stream_of(ip) == IdWindow::stream_of(kSlow)) ++ip;
  return ip;
}

// NDP or Homa behind one face: send, acknowledge, run timers.
class Sender {
 public:
  virtual ~Sender() = default;
  virtual void send(rte_mbuf* msg, uint64_t now, TransportSink& sink) = 0;
  virtual void ack(const RecordingSink::Control& data, uint64_t now, TransportSink& sink) = 0;
  virtual void tick(uint64_t now, TransportSink& sink) = 0;
  [[nodiscard]] virtual uint32_t free_slots() const = 0;
  [[nodiscard]] virtual uint32_t in_flight() const = 0;
};

class Ndp final : public Sender {
 public:
  Ndp(const TransportParams& c, rte_mempool* pool, NicCounters* n) : s_(c, NdpParams{}, pool, n) {}
  void send(rte_mbuf* msg, uint64_t now, TransportSink& sink) override { s_.send_message(msg, now, sink); }
  void ack(const RecordingSink::Control& d, uint64_t now, TransportSink& sink) override {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoNdp;
    h.src_ip = d.ip;
    h.ndp = d.ndp;
    h.ndp.flags = wire::kFlagAck;
    s_.on_control(h, now, sink);
  }
  void tick(uint64_t now, TransportSink& sink) override { s_.tick(now, sink); }
  [[nodiscard]] uint32_t free_slots() const override { return s_.free_slots(); }
  [[nodiscard]] uint32_t in_flight() const override { return s_.in_flight(); }

 private:
  NdpSender s_;
};

class Homa final : public Sender {
 public:
  Homa(const TransportParams& c, rte_mempool* pool, NicCounters* n) : s_(c, HomaParams{}, pool, n, nullptr) {}
  void send(rte_mbuf* msg, uint64_t now, TransportSink& sink) override { s_.send_message(msg, now, sink); }
  void ack(const RecordingSink::Control& d, uint64_t now, TransportSink& sink) override {
    wire::FrameHeader h;
    h.protocol = wire::kIpProtoHoma;
    h.src_ip = d.ip;
    h.homa = d.homa;
    h.homa.flags = wire::kHomaAck;
    s_.on_control(h, now, sink);
  }
  void tick(uint64_t now, TransportSink& sink) override { s_.tick(now, sink); }
  [[nodiscard]] uint32_t free_slots() const override { return s_.free_slots(); }
  [[nodiscard]] uint32_t in_flight() const override { return s_.in_flight(); }

 private:
  HomaSender s_;
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
      sender_ = std::make_unique<Homa>(c_, bench_.pool, &counters_);
    else
      sender_ = std::make_unique<Ndp>(c_, bench_.pool, &counters_);
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

  testing::ReceiverBench bench_;
  TransportParams c_;
  NicCounters counters_;
  RecordingSink sink_;
  std::unique_ptr<Sender> sender_;
  uint64_t now_ = 1;
};

TEST_P(IdWindowTest, EachReceiverSeesItsOwnIdsInOrder) {
  const uint32_t other = other_stream_peer();
  std::vector<uint16_t> slow_ids, other_ids;
  for (int i = 0; i < 6; ++i) {
    const RecordingSink::Control* d = send(i % 3 == 0 ? other : kSlow);
    ASSERT_NE(d, nullptr);
    (d->ip == other ? other_ids : slow_ids).push_back(id_of(*d));
    sender_->ack(*d, now_ += 10, sink_);
  }
  EXPECT_EQ(slow_ids, (std::vector<uint16_t>{0, 1, 2, 3}));
  EXPECT_EQ(other_ids, (std::vector<uint16_t>{0, 1})) << "no gap for another stream's messages";
}

TEST_P(IdWindowTest, AnOldUnacknowledgedMessageHoldsBackItsReceiversNextIdsOnly) {
  const RecordingSink::Control* first = send(kSlow);
  ASSERT_NE(first, nullptr);
  const RecordingSink::Control stuck = *first;  // never acknowledged, yet
  ASSERT_EQ(id_of(stuck), 0);
  for (uint32_t i = 1; i < wire::kIdsInFlight; ++i) {  // ids 1 .. 8191 go and complete
    const RecordingSink::Control* d = send(kSlow);
    ASSERT_NE(d, nullptr) << "message " << i;
    ASSERT_EQ(id_of(*d), i);
    sender_->ack(*d, now_ += 10, sink_);
  }
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
  const RecordingSink::Control* d = send(other_stream_peer());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(id_of(*d), 0);
  sender_->ack(*d, now_ += 10, sink_);

  // The old message acknowledged: both held messages leave at once, in order.
  const size_t before = sink_.data.size();
  sender_->ack(stuck, now_ += 10, sink_);
  ASSERT_EQ(sink_.data.size(), before + 2);
  EXPECT_EQ(id_of(sink_.data[before]), wire::kIdsInFlight);
  EXPECT_EQ(id_of(sink_.data[before + 1]), wire::kIdsInFlight + 1);
  sender_->ack(sink_.data[before], now_ += 10, sink_);
  sender_->ack(sink_.data[before + 1], now_ += 10, sink_);
  EXPECT_EQ(sender_->in_flight(), 0u);
  EXPECT_TRUE(sink_.failures.empty());
}

// The old message's peer goes silent: it is given up after peer_dead (by
// the timer, in tick()), and the messages held behind it leave then.
TEST_P(IdWindowTest, HeldMessagesLeaveWhenTheOldOneIsGivenUp) {
  const RecordingSink::Control* first = send(kSlow);
  ASSERT_NE(first, nullptr);
  const uint64_t first_sent = now_;
  for (uint32_t i = 1; i < wire::kIdsInFlight; ++i) {
    const RecordingSink::Control* d = send(kSlow);
    ASSERT_NE(d, nullptr);
    sender_->ack(*d, now_ += 10, sink_);
  }
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

INSTANTIATE_TEST_SUITE_P(Protocols, IdWindowTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "Homa" : "Ndp"; });

}  // namespace
}  // namespace nanopu
