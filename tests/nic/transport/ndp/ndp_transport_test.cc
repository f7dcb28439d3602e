// NDP end to end through the real EAL: two hosts on a net_ring pair, each
// port wrapped in the fault-injecting wire. Every message must arrive once,
// byte-exact, whatever the wire does; no slot or buffer may leak.
#include "nic/transport/ndp/ndp_transport.h"

#include <gtest/gtest.h>
#include <rte_mempool.h>

#include <cstdio>
#include <map>
#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/message_stream.h"

namespace nanopu {
namespace {

using namespace testing::stream;  // NOLINT: the harness is this test's vocabulary

TEST(NdpTransportTest, ExactlyOnceThroughALossyReorderingDuplicatingCorruptingWire) {
  const std::string wire = std::getenv("NDP_WIRE") ? std::getenv("NDP_WIRE") : "drop=0.1,reorder=0.1,dup=0.05,corrupt=0.01,mangle=0.01,seed=";
  Hosts h = make(wire + "1", wire + "2");
  ASSERT_TRUE(h.a && h.b);
  const std::vector<uint16_t> sizes = {1, 8, 1023, 1024, 1025, 2048, 65535};
  Result r;
  const uint64_t kCount = testing::stream::message_count("NDP_COUNT");
  run(h, sizes, kCount, 16, &r, std::chrono::seconds(std::getenv("NDP_LIMIT") ? std::atoi(std::getenv("NDP_LIMIT")) : 240));
  EXPECT_EQ(r.received, kCount);
  EXPECT_EQ(r.bad, 0u);
  EXPECT_EQ(r.duplicates, 0u);
  for (uint64_t i = 0; i < kCount; ++i) {
    if (sizes[i % sizes.size()] >= 8) {
      ASSERT_EQ(r.seen[i], 1) << "message " << i;
    }
  }
  EXPECT_EQ(r.short_seen, r.short_expected);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
  const NicCounters& b = h.b->nic_counters();
  EXPECT_GT(b.fault_dropped, 0u);
  EXPECT_GT(b.fault_duplicated, 0u);
  EXPECT_GT(b.fault_reordered, 0u);
  EXPECT_GT(b.fault_corrupted, 0u);
  EXPECT_GT(b.rx_dup_packets, 0u);
  EXPECT_GT(h.a->nic_counters().tx_retransmits, 0u);
  h.a->print_stats(stderr);
  h.b->print_stats(stderr);
}

// Between nanopu hosts a request's ACK rides on its reply and the reply's on
// the next request (docs/wire.md, "Acknowledgements that ride on data"): a
// ping-pong of one-packet messages sends almost no control packet; with
// --ack_hold_us=0 every message is ACKed on its own, as before.
TEST(NdpTransportTest, RequestsAndRepliesCarryEachOthersAcks) {
  for (const double hold_us : {40.0, 0.0}) {
    SCOPED_TRACE(hold_us);
    Hosts h = make("", "", [&](Config& c) { c.ack_hold_us = hold_us; }, 100,
                   [&](Config& c) { c.ack_hold_us = hold_us; });
    ASSERT_TRUE(h.a && h.b);
    Result r;
    constexpr uint64_t kCount = 2000;
    run(h, {64}, kCount, 1, &r, std::chrono::seconds(120));
    EXPECT_EQ(r.received, kCount);
    expect_no_leaks(*h.a);
    expect_no_leaks(*h.b);
    const NicCounters& a = h.a->nic_counters();
    const NicCounters& b = h.b->nic_counters();
    if (hold_us > 0) {
      // Every reply but a few (a reply later than the hold) carries its
      // request's ACK; every reply's ACK but the last rides on a request.
      EXPECT_GE(b.tx_acks_on_data, kCount * 9 / 10);
      EXPECT_EQ(a.rx_acks_on_data, b.tx_acks_on_data);
      EXPECT_GE(a.tx_acks_on_data, kCount * 9 / 10);
      EXPECT_LE(b.tx_control_packets, kCount / 10);
    } else {
      EXPECT_EQ(a.tx_acks_on_data + b.tx_acks_on_data, 0u);
      EXPECT_GE(b.tx_control_packets, kCount);
      EXPECT_GE(a.tx_control_packets, kCount);
    }
  }
}

// The same for messages of two packets: a whole message's bitmap ACK is
// held as a one-packet message's is, and the carried ACK names every packet.
TEST(NdpTransportTest, RequestsAndRepliesOfTwoPacketsCarryEachOthersWholeAcks) {
  Hosts h = make(
      "", "", [](Config& c) { c.ack_hold_us = 40; }, 100, [](Config& c) { c.ack_hold_us = 40; });
  ASSERT_TRUE(h.a && h.b);
  Result r;
  constexpr uint64_t kCount = 1000;
  run(h, {2000}, kCount, 1, &r, std::chrono::seconds(120));
  EXPECT_EQ(r.received, kCount);
  EXPECT_EQ(r.bad, 0u);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
  const NicCounters& a = h.a->nic_counters();
  const NicCounters& b = h.b->nic_counters();
  EXPECT_GE(b.tx_acks_on_data, kCount * 9 / 10);
  EXPECT_EQ(a.rx_acks_on_data, b.tx_acks_on_data);
  EXPECT_EQ(a.tx_msgs_completed, a.tx_msgs) << "every request acknowledged whole";
  // Each message completed used to send its bitmap ACK at once (at least
  // kCount control packets); now only a message split over two polls sends
  // one, for its first packet.
  EXPECT_LT(b.tx_control_packets, kCount / 2);
}

// A one-way stream has no DATA packet back to carry its ACKs: the ACKs
// held for one peer leave together, up to 16 in one control packet
// (docs/wire.md, "Lists"). B answers only every 16th message (A's flow
// control), so 15 of every 16 ACKs must leave without a carrier.
TEST(NdpTransportTest, AOneWayStreamsAcksLeaveTogetherInLists) {
  constexpr uint64_t kCount = 3000, kEvery = 16, kWindow = 64;
  const auto hold = [](Config& c) { c.ack_hold_us = 200; };
  Hosts h = make("", "", hold, /*rto_us=*/2000, hold);
  ASSERT_TRUE(h.a && h.b);
  uint64_t received = 0, bad = 0;
  std::vector<uint8_t> seen(kCount, 0);
  bool bound = false, done = false;
  // B takes every message once and answers every 16th (and the last).
  const auto receiver = [&](Thread& t) {
    ASSERT_TRUE(t.bind(kSink).ok());
    bound = true;
    while (received < kCount && t.wait()) {
      const AppHeader hd = AppHeader::from_word(t.read());
      const uint64_t id = hd.payload_words() == 1 ? t.read() : UINT64_MAX;
      t.msg_done();
      if (id >= kCount || seen[id]++ != 0) ++bad;  // exactly once
      if (++received % kEvery == 0 || received == kCount) {
        (void)t.write(AppHeader{kA, kSource, 8}.word());
        (void)t.write(received);
      }
    }
  };
  // A keeps up to kWindow messages beyond B's last answer.
  const auto sender = [&](Thread& t) {
    ASSERT_TRUE(t.bind(kSource).ok());
    while (!bound) t.idle();
    uint64_t sent = 0, credited = 0;
    while (credited < kCount) {
      while (sent < kCount && sent - credited < kWindow) {
        ASSERT_EQ(t.write(AppHeader{kB, kSink, 8}.word()), ApiError::kOk);
        (void)t.write(sent++);
      }
      if (!t.wait()) return;
      (void)t.read();
      credited = t.read();
      t.msg_done();
    }
    done = true;
  };
  ASSERT_TRUE(h.b->spawn(receiver).ok());
  ASSERT_TRUE(h.a->spawn(sender).ok());
  const auto all_done = [&] { return done; };
  if (!testing::poll_until({h.a.get(), h.b.get()}, all_done, std::chrono::seconds(120))) {
    h.a->print_stats(stderr);
    h.b->print_stats(stderr);
    FAIL() << "received " << received << " of " << kCount;
  }
  const auto all_acked = [&] {
    return h.a->nic_counters().tx_msgs_completed == h.a->nic_counters().tx_msgs &&
           h.b->nic_counters().tx_msgs_completed == h.b->nic_counters().tx_msgs;
  };
  (void)testing::poll_until({h.a.get(), h.b.get()}, all_acked, std::chrono::seconds(10));
  EXPECT_EQ(received, kCount);
  EXPECT_EQ(bad, 0u);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
  const NicCounters& a = h.a->nic_counters();
  const NicCounters& b = h.b->nic_counters();
  std::fprintf(
      stderr, "B: %llu control packets for %llu messages, %llu ACKs listed, %llu carried\n",
      static_cast<unsigned long long>(b.tx_control_packets),
      static_cast<unsigned long long>(kCount), static_cast<unsigned long long>(b.tx_acks_listed),
      static_cast<unsigned long long>(b.tx_acks_on_data));
  // Every ACK B held left carried, expired with a list, or in a list.
  EXPECT_EQ(b.tx_acks_on_data + b.tx_acks_held_expired + b.tx_acks_listed, kCount);
  EXPECT_EQ(a.rx_acks_listed, b.tx_acks_listed) << "every listed ACK taken";
  EXPECT_EQ(a.rx_bad_ack_lists, 0u);
  EXPECT_EQ(a.tx_msgs_completed, kCount);
  // Without lists, about 15 of every 16 ACKs would be a frame of their own.
  EXPECT_GE(b.tx_acks_listed, kCount / 2);
  EXPECT_LE(b.tx_control_packets, kCount / 4);
}

TEST(NdpTransportTest, EveryPacketDroppedOnceIsRecoveredByTheTimer) {
  Hosts h = make("", "drop_once=1");
  ASSERT_TRUE(h.a && h.b);
  Result r;
  const std::vector<uint16_t> sizes = {5000};
  run(h, sizes, 20, 4, &r, std::chrono::seconds(60));
  EXPECT_EQ(r.received, 20u);
  EXPECT_GE(h.a->nic_counters().tx_timeouts, 1u);
  EXPECT_EQ(h.b->nic_counters().fault_dropped, 20u * 5);  // 5 packets each, each lost once
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
}

TEST(NdpTransportTest, ATrimmedPacketIsRecoveredByNackNotTheTimer) {
  // A 2 s retransmit timeout: only the receiver's NACK|PULL can recover a
  // trimmed packet in time.
  Hosts h = make("", "trim_once=1", nullptr, /*rto_us=*/2e6);
  ASSERT_TRUE(h.a && h.b);
  Result r;
  const std::vector<uint16_t> sizes = {3000};
  run(h, sizes, 50, 4, &r, std::chrono::seconds(60));
  EXPECT_EQ(r.received, 50u);
  // Recovered within the RTO, said by the timer itself (not by a wall-clock
  // bound, which a process that lost its CPU would miss with correct code).
  EXPECT_EQ(h.a->nic_counters().tx_timeouts, 0u) << "a NACK|PULL must beat the timer";
  EXPECT_GE(h.b->nic_counters().fault_trimmed, 50u * 3);  // every packet trimmed once
  EXPECT_EQ(h.b->nic_counters().rx_chopped_packets, h.b->nic_counters().fault_trimmed);
  EXPECT_EQ(h.a->nic_counters().tx_retransmits, h.b->nic_counters().rx_chopped_packets);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
}

TEST(NdpTransportTest, ReceiverOutOfSlotsNacksAndEverythingArrivesLater) {
  Hosts h = make("", "", [](Config& c) {
    c.reassembly_slots = 2;
    c.context_slots = 2;  // the whole (tiny) buffer: this tests running out of slots
  });
  ASSERT_TRUE(h.a && h.b);
  Result r;
  const std::vector<uint16_t> sizes = {4000};  // 4 packets: several in flight at once
  run(h, sizes, 200, 32, &r, std::chrono::seconds(120));
  EXPECT_EQ(r.received, 200u);
  EXPECT_EQ(r.duplicates, 0u);
  // Out of slots: NACKed (counted as "no slot", or as the context's share
  // when that is the whole buffer, as here).
  EXPECT_GT(h.b->nic_counters().rx_nack_no_slot + h.b->nic_counters().rx_nack_context_full, 0u);
  EXPECT_GT(h.a->nic_counters().rx_nacks, 0u);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
}

TEST(NdpTransportTest, SixtyFourPacketMessagesRoundTripByteExact) {
  Hosts h = make("", "", nullptr, /*rto_us=*/2e6);
  ASSERT_TRUE(h.a && h.b);
  Result r;
  const std::vector<uint16_t> sizes = {65535, 64513, 1};
  run(h, sizes, 300, 8, &r, std::chrono::seconds(60));
  EXPECT_EQ(r.received, 300u);
  EXPECT_EQ(r.bad, 0u);
  EXPECT_EQ(h.a->nic_counters().tx_retransmits, 0u);  // a clean wire needs none
  EXPECT_EQ(h.a->nic_counters().tx_timeouts, 0u);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
  if (std::getenv("NANOPU_TEST_STATS")) h.b->print_stats(stderr);
}

}  // namespace
}  // namespace nanopu
