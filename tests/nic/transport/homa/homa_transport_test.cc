// Homa end to end through the real EAL: two hosts on a net_ring pair, each
// port behind the fault-injecting wire (tests/support/message_stream.h).
// Every message arrives once, byte-exact; a short message overtakes a long
// one; a peer that never answers is given up and reported; a host speaking
// Homa still answers an NDP peer in NDP.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/message_stream.h"

namespace nanopu {
namespace {

using namespace testing::stream;  // NOLINT: the harness is this test's vocabulary

void homa(Config& c) { c.transport = TransportProtocol::kHoma; }

void expect_spoke_homa(const Runtime& rt) {
  EXPECT_GT(rt.nic_counters().tx_homa_packets, 0u);
  EXPECT_EQ(rt.nic_counters().tx_homa_packets,
            rt.nic_counters().tx_data_packets + rt.nic_counters().tx_control_packets)
      << "every frame in Homa";
}

TEST(HomaTransportTest, ExactlyOnceThroughALossyReorderingDuplicatingTrimmingWire) {
  const char* env = std::getenv("HOMA_WIRE");
  const std::string wire = env ? env : "drop=0.1,reorder=0.1,dup=0.05,trim=0.05,seed=";
  Hosts h = make(wire + "1", wire + "2", homa, 100, homa);
  ASSERT_TRUE(h.a && h.b);
  const std::vector<uint16_t> sizes = {1, 8, 1023, 1024, 1025, 2048, 20000, 65535};
  Result r;
  const uint64_t count = message_count("HOMA_COUNT");
  run(h, sizes, count, 16, &r, std::chrono::seconds(400));
  EXPECT_EQ(r.received, count);
  EXPECT_EQ(r.bad, 0u);
  EXPECT_EQ(r.duplicates, 0u);
  for (uint64_t i = 0; i < count; ++i) {
    if (sizes[i % sizes.size()] >= 8) {
      EXPECT_EQ(r.seen[i], 1) << "message " << i << " of " << sizes[i % sizes.size()] << " B";
    }
  }
  EXPECT_EQ(r.short_seen, r.short_expected);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
  expect_spoke_homa(*h.a);
  expect_spoke_homa(*h.b);
  const NicCounters& a = h.a->nic_counters();
  const NicCounters& b = h.b->nic_counters();
  EXPECT_GT(b.fault_dropped, 0u);
  EXPECT_GT(b.fault_trimmed, 0u);
  EXPECT_GT(b.rx_dup_packets, 0u);
  EXPECT_GT(b.tx_grants, 0u) << "messages over rtt_bytes need grants";
  EXPECT_GT(b.tx_resends, 0u) << "gaps are asked for by the receiver";
  EXPECT_GT(a.rx_resends, 0u);
  EXPECT_GT(a.tx_retransmits, 0u);
  if (std::getenv("NANOPU_TEST_STATS")) {
    h.a->print_stats(stderr);
    h.b->print_stats(stderr);
  }
}

TEST(HomaTransportTest, EverySizeFromOneByteTo65535ArrivesByteExact) {
  Hosts h = make("", "", homa, /*rto_us=*/2e6, homa);
  ASSERT_TRUE(h.a && h.b);
  const std::vector<uint16_t> sizes = every_message_size();
  Result r;
  run(h, sizes, sizes.size(), 16, &r, std::chrono::seconds(400));
  EXPECT_EQ(r.received, sizes.size());
  EXPECT_EQ(r.bad, 0u);
  EXPECT_EQ(r.duplicates, 0u);
  EXPECT_EQ(h.a->nic_counters().tx_timeouts, 0u) << "a clean wire needs no timer";
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
  expect_spoke_homa(*h.a);
}

TEST(HomaTransportTest, EveryPacketDroppedOnceIsRecoveredByResendAndProbe) {
  Hosts h = make("", "drop_once=1", homa, 100, homa);
  ASSERT_TRUE(h.a && h.b);
  Result r;
  run(h, {5000}, 20, 4, &r, std::chrono::seconds(60));
  EXPECT_EQ(r.received, 20u);
  EXPECT_EQ(h.b->nic_counters().fault_dropped, 20u * 5);
  // The receiver asks for what it was granted and misses; the sender's
  // timer only restarts a message whose every packet the receiver missed.
  EXPECT_GT(h.b->nic_counters().tx_resends, 0u);
  EXPECT_GT(h.a->nic_counters().rx_resends, 0u);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
}

// A sends a 64-packet message, then at once a 6-packet one, to B (one
// sender, overcommit 1, one packet unscheduled): B grants the shorter first
// (SRPT), so it is delivered first although it left second.
TEST(HomaTransportTest, AShortMessageOvertakesALongOneAtTheReceiver) {
  auto tight = [](Config& c) {
    homa(c);
    c.rtt_bytes = 1024;
    c.overcommit = 1;
  };
  Hosts h = make("", "", tight, 2e6, tight);
  ASSERT_TRUE(h.a && h.b);
  std::vector<uint16_t> order;
  bool bound = false, sent = false;
  ASSERT_TRUE(h.b->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSink).ok());
    bound = true;
    while (order.size() < 2 && t.wait()) {
      order.push_back(AppHeader::from_word(t.read()).len);
      t.msg_done();
    }
  }).ok());
  ASSERT_TRUE(h.a->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSource).ok());
    while (!bound) t.idle();
    for (uint16_t len : {uint16_t{65535}, uint16_t{6000}}) {
      ASSERT_EQ(t.write(AppHeader{kB, kSink, len}.word()), ApiError::kOk);
      for (uint32_t i = 0; i < (len + 7u) / 8; ++i) (void)t.write(i);
    }
    sent = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.a.get(), h.b.get()}, [&] { return order.size() == 2; },
                         std::chrono::seconds(30)));
  EXPECT_TRUE(sent);
  EXPECT_EQ(order, (std::vector<uint16_t>{6000, 65535}));
  EXPECT_LE(h.b->nic_counters().rx_granted_senders_peak, 1u);
}

TEST(HomaTransportTest, AMessageToAPeerThatNeverAnswersIsGivenUpAndReported) {
  Hosts h = make("", "", homa, /*rto_us=*/50,
                 [](Config& c) {
                   homa(c);
                   c.peer_dead_ms = 20;  // nobody answers at all: given up after 20 ms
                 });
  ASSERT_TRUE(h.a && h.b);
  constexpr uint32_t kNobody = 0x0a0000fe;  // B drops it: not its address
  uint64_t failures = 0;
  bool done = false;
  ASSERT_TRUE(h.a->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSource).ok());
    for (uint16_t len : {uint16_t{100}, uint16_t{30000}}) {
      ASSERT_EQ(t.write(AppHeader{kNobody, kSink, len}.word()), ApiError::kOk);
      for (uint32_t i = 0; i < (len + 7u) / 8; ++i) (void)t.write(i);
    }
    while (t.tx_failures() < 2) t.idle();
    failures = t.tx_failures();
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.a.get(), h.b.get()}, [&] { return done; }, std::chrono::seconds(30)));
  EXPECT_EQ(failures, 2u);
  EXPECT_EQ(h.a->nic_counters().tx_msgs_failed, 2u);
  EXPECT_EQ(h.a->nic_counters().outbound_in_use, 0u);
  EXPECT_GT(h.b->nic_counters().rx_drop_not_for_host, 0u);
}

// Both protocols live in every host, dispatched by IPv4 protocol number; a
// message goes in the protocol its destination last spoke. An NDP client
// of a Homa server is answered in NDP ...
TEST(HomaTransportTest, AHomaHostAnswersAnNdpPeerInNdp) {
  Hosts h = make("", "", homa, 100, nullptr);
  ASSERT_TRUE(h.a && h.b);
  Result r;
  run(h, {100, 3000, 20000}, 300, 8, &r, std::chrono::seconds(60));
  EXPECT_EQ(r.received, 300u);
  EXPECT_EQ(r.duplicates, 0u);
  EXPECT_EQ(h.a->nic_counters().tx_homa_packets, 0u);
  EXPECT_EQ(h.b->nic_counters().rx_homa_packets, 0u);
  EXPECT_EQ(h.b->nic_counters().tx_homa_packets, 0u) << "B answers A in NDP, the protocol A spoke";
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
}

// ... and a Homa client of an NDP server in Homa.
TEST(HomaTransportTest, AnNdpHostAnswersAHomaPeerInHoma) {
  Hosts h = make("", "", nullptr, 100, homa);
  ASSERT_TRUE(h.a && h.b);
  Result r;
  run(h, {100, 3000, 20000}, 300, 8, &r, std::chrono::seconds(60));
  EXPECT_EQ(r.received, 300u);
  EXPECT_EQ(r.duplicates, 0u);
  expect_spoke_homa(*h.a);
  expect_spoke_homa(*h.b);
  EXPECT_GT(h.b->nic_counters().tx_grants, 0u);
  expect_no_leaks(*h.a);
  expect_no_leaks(*h.b);
}

}  // namespace
}  // namespace nanopu
