// NDP end to end through the real EAL: two hosts on a net_ring pair, each
// port wrapped in the fault-injecting wire. Every message must arrive once,
// byte-exact, whatever the wire does; no slot or buffer may leak.
#include "nic/transport/ndp/ndp_transport.h"

#include <gtest/gtest.h>
#include <rte_mempool.h>

#include <map>
#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kA = 0x0a000001, kB = 0x0a000002;
constexpr uint16_t kSink = 7, kSource = 8;

uint64_t word_of(uint64_t msg, uint32_t i) { return (msg * 0x9e3779b97f4a7c15ull) ^ (i * 0xff51afd7ed558ccdull); }
uint64_t mask(uint16_t len, uint32_t i, uint32_t words) {
  return (i + 1 < words || len % 8 == 0) ? ~0ull : ~0ull << (8 * (8 - len % 8));
}

// Word 0 carries the message id; its top byte (id mod 256) is all a message
// shorter than 8 bytes keeps (docs/wire.md: the first len bytes of the BE word).
uint64_t id_word(uint64_t id) { return (id % 256) << 56 | id; }
constexpr uint64_t kIdMask = (1ull << 56) - 1;

struct Result {
  uint64_t received = 0, bad = 0, duplicates = 0;
  std::vector<uint8_t> seen;             // messages of >= 8 bytes, by id
  std::vector<uint64_t> short_seen;      // messages of < 8 bytes, by id mod 256
  std::vector<uint64_t> short_expected;
  bool sender_done = false;
  bool sink_bound = false;
};

struct Hosts {
  std::unique_ptr<Runtime> a, b;
};

Hosts make(const std::string& faults_a, const std::string& faults_b,
           const std::function<void(Config&)>& tweak_b = nullptr, double rto_us = 100) {
  testing::PortPair p = testing::make_ring_pair();
  Config ca = testing::host_config(p.a, kA), cb = testing::host_config(p.b, kB);
  ca.mbufs = cb.mbufs = 16383;
  ca.faults = *parse_fault_spec(faults_a);
  cb.faults = *parse_fault_spec(faults_b);
  ca.rto_us = cb.rto_us = rto_us;
  if (tweak_b) tweak_b(cb);
  Hosts h;
  auto a = Runtime::create(ca);
  auto b = Runtime::create(cb);
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(b.ok()) << b.status();
  if (a.ok()) h.a = std::move(*a);
  if (b.ok()) h.b = std::move(*b);
  return h;
}

// Host A sends `count` messages cycling through sizes to host B, `window` in
// flight (acknowledged by a 8-byte reply per message), message id in word 0.
void run(Hosts& h, const std::vector<uint16_t>& sizes, uint64_t count, uint32_t window, Result* r,
         std::chrono::seconds limit = std::chrono::seconds(240)) {
  r->seen.assign(count, 0);
  r->short_seen.assign(256, 0);
  r->short_expected.assign(256, 0);
  for (uint64_t i = 0; i < count; ++i)
    if (sizes[i % sizes.size()] < 8) ++r->short_expected[i % 256];
  ASSERT_TRUE(h.b->spawn([r, count](Thread& t) {
    ASSERT_TRUE(t.bind(kSink).ok());
    r->sink_bound = true;
    while (r->received < count && t.wait()) {
      const AppHeader hd = AppHeader::from_word(t.read());
      const uint32_t words = hd.payload_words();
      const uint64_t w0 = t.read();
      const bool is_short = hd.len < 8;
      const uint64_t id = is_short ? 0 : w0 & kIdMask;
      bool ok = id < count && hd.ip == kA && hd.context == kSource;
      for (uint32_t i = 1; i < words; ++i) {
        const uint64_t w = t.read();
        if (ok && w != (word_of(id, i) & mask(hd.len, i, words))) ok = false;
      }
      t.msg_done();
      if (!ok) {
        ++r->bad;
        continue;
      }
      if (is_short) {
        if (++r->short_seen[w0 >> 56] > r->short_expected[w0 >> 56]) ++r->duplicates;
      } else if (r->seen[id]++) {
        ++r->duplicates;
      }
      ++r->received;
      (void)t.write(AppHeader{kA, kSource, 8}.word());  // flow control: one reply each
      (void)t.write(id);
    }
  }).ok());
  ASSERT_TRUE(h.a->spawn([r, &sizes, count, window](Thread& t) {
    ASSERT_TRUE(t.bind(kSource).ok());
    while (!r->sink_bound) t.idle();  // data for an unbound context is dropped
    uint64_t sent = 0, acked = 0;
    while (acked < count) {
      while (sent < count && sent - acked < window) {
        const uint16_t len = sizes[sent % sizes.size()];
        const uint32_t words = (len + 7u) / 8;
        ASSERT_EQ(t.write(AppHeader{kB, kSink, len}.word()), ApiError::kOk);
        (void)t.write(id_word(sent));
        for (uint32_t i = 1; i < words; ++i) (void)t.write(word_of(sent, i));
        ++sent;
      }
      if (!t.wait()) return;
      (void)t.read();
      (void)t.read();
      t.msg_done();
      ++acked;
    }
    r->sender_done = true;
  }).ok());
  if (!testing::poll_until({h.a.get(), h.b.get()}, [&] { return r->sender_done; }, limit)) {
    h.a->print_stats(stderr);
    h.b->print_stats(stderr);
    FAIL() << "received " << r->received << " of " << count;
  }
  // Let the last ACKs land so every packetization slot is free again.
  (void)testing::poll_until({h.a.get(), h.b.get()}, [&] {
    return h.a->nic_counters().tx_msgs_completed == h.a->nic_counters().tx_msgs &&
           h.b->nic_counters().tx_msgs_completed == h.b->nic_counters().tx_msgs;
  }, std::chrono::seconds(10));
}

void expect_no_leaks(Runtime& rt) {
  if (std::getenv("NDP_STATS")) rt.print_stats(stderr);
  const NicCounters& c = rt.nic_counters();
  EXPECT_EQ(c.tx_msgs_completed, c.tx_msgs) << "packetization slots still held";
  EXPECT_EQ(c.tx_msgs_failed, 0u);
  EXPECT_EQ(c.outbound_in_use, 0u) << "packetization slots leaked";
  EXPECT_EQ(c.reassembly_in_use, 0u) << "reassembly slots leaked";
  EXPECT_EQ(c.rx_reassembly_expired, 0u);
}

TEST(NdpTransportTest, ExactlyOnceThroughALossyReorderingDuplicatingCorruptingWire) {
  const std::string wire = std::getenv("NDP_WIRE") ? std::getenv("NDP_WIRE") : "drop=0.1,reorder=0.1,dup=0.05,corrupt=0.01,mangle=0.01,seed=";
  Hosts h = make(wire + "1", wire + "2");
  ASSERT_TRUE(h.a && h.b);
  const std::vector<uint16_t> sizes = {1, 8, 1023, 1024, 1025, 2048, 65535};
  Result r;
  const uint64_t kCount = std::getenv("NDP_COUNT") ? std::strtoull(std::getenv("NDP_COUNT"), nullptr, 10) : 100000;
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
  const auto start = std::chrono::steady_clock::now();
  run(h, sizes, 50, 4, &r, std::chrono::seconds(60));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.received, 50u);
  EXPECT_EQ(h.a->nic_counters().tx_timeouts, 0u) << "a NACK|PULL must beat the timer";
  EXPECT_GE(h.b->nic_counters().fault_trimmed, 50u * 3);  // every packet trimmed once
  EXPECT_EQ(h.b->nic_counters().rx_chopped_packets, h.b->nic_counters().fault_trimmed);
  EXPECT_EQ(h.a->nic_counters().tx_retransmits, h.b->nic_counters().rx_chopped_packets);
  EXPECT_LT(took, std::chrono::seconds(2)) << "recovered within the RTO";
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
  if (std::getenv("NDP_STATS")) h.b->print_stats(stderr);
}

}  // namespace
}  // namespace nanopu
