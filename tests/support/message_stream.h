// Test support: a stream of messages from host A (context kSource) to host
// B (context kSink) over a net_ring pair, each port behind the
// fault-injecting wire; B checks every message byte for byte and answers
// each with an 8-byte reply (flow control). For the transports' end-to-end
// tests (NDP, Homa): every message must arrive once, byte-exact, whatever
// the wire does; no slot or buffer may leak.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/sanitizers.h"
#include "tests/support/test_hosts.h"

namespace nanopu::testing::stream {

constexpr uint32_t kA = 0x0a000001, kB = 0x0a000002;
constexpr uint16_t kSink = 7, kSource = 8;

inline uint64_t word_of(uint64_t msg, uint32_t i) { return (msg * 0x9e3779b97f4a7c15ull) ^ (i * 0xff51afd7ed558ccdull); }
inline uint64_t mask(uint16_t len, uint32_t i, uint32_t words) {
  return (i + 1 < words || len % 8 == 0) ? ~0ull : ~0ull << (8 * (8 - len % 8));
}

// Word 0 carries the message id; its top byte (id mod 256) is all a message
// shorter than 8 bytes keeps (docs/wire.md: the first len bytes of the BE word).
inline uint64_t id_word(uint64_t id) { return (id % 256) << 56 | id; }

// Messages a stream test sends: `env` if set, else 100,000 — 30,000 under
// AddressSanitizer, several times slower, where the same paths (every
// fault, every size) are exercised by fewer messages.
inline uint64_t message_count(const char* env) {
  if (const char* v = std::getenv(env)) return std::strtoull(v, nullptr, 10);
  return kUnderAddressSanitizer ? 30000 : 100000;
}
constexpr uint64_t kIdMask = (1ull << 56) - 1;

// Message sizes from 1 to 65535 bytes: every one; under AddressSanitizer
// every size up to 2048, every size within 8 bytes of a packet boundary
// (1024-byte segments) and of the end, and every 5th size between — the
// same packet counts, last-packet lengths and word tails, a fifth of the
// messages (ASan runs the whole range ~5x slower).
inline std::vector<uint16_t> every_message_size() {
  std::vector<uint16_t> sizes;
  for (uint32_t len = 1; len <= 65535; ++len) {
    const uint32_t from_boundary = std::min(len % 1024, 1024 - len % 1024);
    const bool keep =
        !kUnderAddressSanitizer || len <= 2048 || from_boundary <= 8 || len >= 65535 - 8 || len % 5 == 0;
    if (keep) sizes.push_back(static_cast<uint16_t>(len));
  }
  return sizes;
}

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

inline Hosts make(const std::string& faults_a, const std::string& faults_b,
           const std::function<void(Config&)>& tweak_b = nullptr, double rto_us = 100,
           const std::function<void(Config&)>& tweak_a = nullptr) {
  testing::PortPair p = make_ring_pair();
  Config ca = host_config(p.a, kA), cb = host_config(p.b, kB);
  ca.mbufs = cb.mbufs = 16383;
  ca.faults = *parse_fault_spec(faults_a);
  cb.faults = *parse_fault_spec(faults_b);
  ca.rto_us = cb.rto_us = rto_us;
  if (tweak_a) tweak_a(ca);
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
inline void run(Hosts& h, const std::vector<uint16_t>& sizes, uint64_t count, uint32_t window, Result* r,
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
  if (!poll_until({h.a.get(), h.b.get()}, [&] { return r->sender_done; }, limit)) {
    h.a->print_stats(stderr);
    h.b->print_stats(stderr);
    FAIL() << "received " << r->received << " of " << count;
  }
  // Let the last ACKs land so every packetization slot is free again.
  (void)poll_until({h.a.get(), h.b.get()}, [&] {
    return h.a->nic_counters().tx_msgs_completed == h.a->nic_counters().tx_msgs &&
           h.b->nic_counters().tx_msgs_completed == h.b->nic_counters().tx_msgs;
  }, std::chrono::seconds(10));
}

inline void expect_no_leaks(Runtime& rt) {
  if (std::getenv("NANOPU_TEST_STATS")) rt.print_stats(stderr);
  const NicCounters& c = rt.nic_counters();
  EXPECT_EQ(c.tx_msgs_completed, c.tx_msgs) << "packetization slots still held";
  EXPECT_EQ(c.tx_msgs_failed, 0u);
  EXPECT_EQ(c.outbound_in_use, 0u) << "packetization slots leaked";
  EXPECT_EQ(c.reassembly_in_use, 0u) << "reassembly slots leaked";
  EXPECT_EQ(c.rx_reassembly_expired, 0u);
}

}  // namespace nanopu::testing::stream
