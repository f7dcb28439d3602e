// End-to-end loopback through the real EAL in one process: a client host and
// a server host joined by a net_ring pair; every reply checked word by word.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apps/boot/bind_service.h"
#include "apps/boot/boot_message.h"
#include "apps/loopback/loopback.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServerIp = 0x0a000001;
constexpr uint32_t kClientIp = 0x0a000002;
constexpr uint16_t kServerContext = 5;
constexpr uint16_t kClientContext = 9;

uint64_t word_of(uint64_t msg, uint32_t i) { return (msg << 32) ^ (i * 0x9e3779b97f4a7c15ull) ^ 0xabcdef; }

// Bytes beyond len in the last word never travel (docs/wire.md): keep the first len%8.
uint64_t wire_mask(uint16_t len, uint32_t i, uint32_t words) {
  if (i + 1 < words || len % 8 == 0) return ~0ull;
  return ~0ull << (8 * (8 - len % 8));
}

struct ClientResult {
  uint64_t replies = 0;
  uint64_t word_errors = 0;
  uint64_t header_errors = 0;
  bool done = false;
};

// Sends `count` messages cycling through `sizes`, `window` in flight, and
// checks every reply word against what was sent (+add).
void client(Thread& t, const std::vector<uint16_t>& sizes, uint64_t count, uint32_t window,
            uint64_t add, ClientResult* r) {
  ASSERT_TRUE(t.bind(kClientContext).ok());
  uint64_t sent = 0;
  while (r->replies < count) {
    while (sent < count && sent - r->replies < window) {
      const uint16_t len = sizes[sent % sizes.size()];
      const uint32_t words = (len + 7) / 8;
      ASSERT_EQ(t.write(AppHeader{kServerIp, kServerContext, len}.word()), ApiError::kOk);
      for (uint32_t i = 0; i < words; ++i) ASSERT_EQ(t.write(word_of(sent, i)), ApiError::kOk);
      ++sent;
    }
    if (!t.wait()) return;
    const AppHeader h = AppHeader::from_word(t.read());
    const uint64_t msg = r->replies;  // replies come back in order on this path
    const uint16_t want_len = sizes[msg % sizes.size()];
    if (h.ip != kServerIp || h.context != kServerContext || h.len != want_len) ++r->header_errors;
    const uint32_t words = h.payload_words();
    for (uint32_t i = 0; i < words; ++i) {
      const uint64_t m = wire_mask(h.len, i, words);
      if (t.read() != (((word_of(msg, i) & m) + add) & m)) ++r->word_errors;
    }
    t.msg_done();
    ++r->replies;
  }
  r->done = true;
}

// fifo_messages: each thread's FIFO depth (0: the default).
testing::RingHosts make_hosts(bool register_path = true, uint32_t fifo_messages = 0) {
  if (register_path && fifo_messages == 0) return testing::make_ring_hosts(kServerIp, kClientIp);
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServerIp), cc = testing::host_config(p.b, kClientIp);
  sc.register_path = cc.register_path = register_path;
  if (fifo_messages != 0) sc.fifo_messages = cc.fifo_messages = fifo_messages;
  testing::RingHosts h;
  auto s = Runtime::create(sc);
  auto c = Runtime::create(cc);
  EXPECT_TRUE(s.ok() && c.ok());
  if (s.ok()) h.server = std::move(*s);
  if (c.ok()) h.client = std::move(*c);
  return h;
}

const std::vector<uint16_t> kSizes = {1, 7, 8, 9, 15, 16, 63, 64, 100, 512, 1000, 1023, 1024};

void run_loopback(apps::LoopbackMode mode, uint64_t add, uint32_t window,
                  apps::MessagePath path = apps::MessagePath::kRegisters, bool register_path = true,
                  uint32_t fifo_messages = 0) {
  testing::RingHosts h = make_hosts(register_path, fifo_messages);
  ASSERT_TRUE(h.server && h.client);
  ASSERT_TRUE(h.server->spawn([mode, path](Thread& t) {
    (void)apps::serve_loopback(t, kServerContext, 0, mode, path);
  }).ok());
  ClientResult r;
  constexpr uint64_t kCount = 2000;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) { client(t, kSizes, kCount, window, add, &r); }).ok());
  // Done when the client has every reply and each side every ACK: a
  // request's ACK may be held and leave on its own after its reply
  // (docs/wire.md, "Acknowledgements that ride on data").
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] {
    return r.done && h.server->nic_counters().rx_acks == kCount &&
           h.client->nic_counters().rx_acks == kCount;
  })) << "replies " << r.replies << ", ACKs at the client " << h.client->nic_counters().rx_acks
      << ", at the server " << h.server->nic_counters().rx_acks;
  EXPECT_EQ(r.replies, kCount);
  EXPECT_EQ(r.header_errors, 0u);
  EXPECT_EQ(r.word_errors, 0u);
  EXPECT_EQ(h.server->nic_counters().rx_msgs_delivered, kCount);
  EXPECT_EQ(h.server->nic_counters().rx_dropped(), 0u);
  EXPECT_EQ(h.client->nic_counters().rx_dropped(), 0u);
  if (::testing::Test::HasFailure()) {
    h.server->print_stats(stderr);
    h.client->print_stats(stderr);
  }
  EXPECT_EQ(h.client->nic_counters().rx_acks, kCount);  // every request ACKed
  EXPECT_EQ(h.server->nic_counters().rx_acks, kCount);  // every reply ACKed
  // Small messages took the register path (lib/contract/inline_msg.h) both
  // ways on both hosts, larger ones mbufs: 9 of the 13 sizes fit an RX
  // slot (<= 104 bytes), 8 a TX slot (<= 96); with it off, none.
  const uint64_t small = kCount / kSizes.size() * 8;
  for (Runtime* host : {h.server.get(), h.client.get()}) {
    const NicCounters& c = host->nic_counters();
    if (register_path) {
      EXPECT_GE(c.rx_msgs_inline, small);
      EXPECT_LT(c.rx_msgs_inline, kCount);
      EXPECT_GE(c.tx_msgs_inline, small);
      EXPECT_LT(c.tx_msgs_inline, kCount);
    } else {
      EXPECT_EQ(c.rx_msgs_inline + c.tx_msgs_inline, 0u);
    }
  }
}

TEST(LoopbackRingTest, EchoEverySizeOneAtATime) { run_loopback(apps::LoopbackMode::kEcho, 0, 1); }
TEST(LoopbackRingTest, EchoPipelined) { run_loopback(apps::LoopbackMode::kEcho, 0, 64); }
// A window far deeper than each thread's FIFO: a context with one binding
// hands its thread no more than its FIFO holds (NicCore::single_binding_bound),
// the rest wait in the context's queue; none is dropped after its ACK.
TEST(LoopbackRingTest, EchoPipelinedPastASmallFifo) {
  run_loopback(apps::LoopbackMode::kEcho, 0, 64, apps::MessagePath::kRegisters, true, /*fifo_messages=*/4);
}
TEST(LoopbackRingTest, IncrementEverySize) { run_loopback(apps::LoopbackMode::kIncrement, 1, 8); }
// Every size with every message in an mbuf (Config::register_path off):
// the same words as the register path's.
TEST(LoopbackRingTest, IncrementEverySizeEveryMessageInAnMbuf) {
  run_loopback(apps::LoopbackMode::kIncrement, 1, 8, apps::MessagePath::kRegisters, false);
}
// The same services on the traditional path (whole messages in memory),
// answering a client on the word API: both paths speak the same wire.
TEST(LoopbackRingTest, TraditionalEchoEverySizePipelined) {
  run_loopback(apps::LoopbackMode::kEcho, 0, 64, apps::MessagePath::kMemory);
}
TEST(LoopbackRingTest, TraditionalIncrementEverySize) {
  run_loopback(apps::LoopbackMode::kIncrement, 1, 8, apps::MessagePath::kMemory);
}

// nanoPU Listing 1 ported with lnic.h (apps/loopback/lnic_loopback.c).
TEST(LoopbackRingTest, Listing1LoopbackPlusOneWithLnicShim) {
  testing::RingHosts h = make_hosts();
  ASSERT_TRUE(h.server && h.client);
  ASSERT_TRUE(h.server->spawn([](Thread&) { nanopu_lnic_loopback_plus1(kServerContext); }).ok());
  ClientResult r;
  const std::vector<uint16_t> sixteen = {16};  // the paper's 16-byte messages
  ASSERT_TRUE(h.client->spawn([&](Thread& t) { client(t, sixteen, 500, 4, 1, &r); }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return r.done; }));
  EXPECT_EQ(r.replies, 500u);
  EXPECT_EQ(r.word_errors, 0u);
  EXPECT_EQ(r.header_errors, 0u);
}

class ServiceModeTest : public ::testing::TestWithParam<apps::MessagePath> {};

TEST_P(ServiceModeTest, EchoesAndServiceTimeZeroEndsTheThread) {
  testing::RingHosts h = make_hosts();
  ASSERT_TRUE(h.server && h.client);
  const apps::MessagePath path = GetParam();
  ASSERT_TRUE(h.server->spawn([path](Thread& t) {
    (void)apps::serve_loopback(t, kServerContext, 0, apps::LoopbackMode::kService, path);
  }).ok());
  bool got_echo = false;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    const uint64_t hdr = AppHeader{kServerIp, kServerContext, 24}.word();
    for (uint64_t w : {hdr, uint64_t{3200}, uint64_t{42}, uint64_t{7}}) (void)t.write(w);  // 1 us
    ASSERT_TRUE(t.wait());
    (void)t.read();
    got_echo = t.read() == 3200 && t.read() == 42 && t.read() == 7;
    t.msg_done();
    for (uint64_t w : {hdr, uint64_t{0}, uint64_t{0}, uint64_t{0}}) (void)t.write(w);  // exit
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] {
    return done && h.server->all_threads_finished();
  }));
  EXPECT_TRUE(got_echo);
}
INSTANTIATE_TEST_SUITE_P(BothPaths, ServiceModeTest,
                         ::testing::Values(apps::MessagePath::kRegisters, apps::MessagePath::kMemory),
                         [](const auto& i) { return std::string(i.param == apps::MessagePath::kRegisters ? "RegisterFile" : "Traditional"); });

// No silent loss: a message nobody acknowledges (no thread is bound to its
// context, so the receiver drops it) is given up — its peer answers others,
// so after 4 x peer_dead without progress — and reported to the thread that sent it.
TEST(LoopbackRingTest, AGivenUpMessageIsReportedToItsSender) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServerIp), cc = testing::host_config(p.b, kClientIp);
  cc.peer_dead_ms = 100;  // long enough that a descheduled test process is not a dead peer
  cc.rto_us = 20;
  sc.ack_hold_us = 0;
  auto server = Runtime::create(sc);
  auto client = Runtime::create(cc);
  ASSERT_TRUE(server.ok() && client.ok());
  ASSERT_TRUE((*server)->spawn([](Thread& t) { (void)apps::serve_loopback(t, kServerContext, 0,
                                                                         apps::LoopbackMode::kEcho); }).ok());
  uint64_t failures_seen = 0;
  bool answered = false;
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    EXPECT_EQ(t.tx_failures(), 0u);
    // To a context nobody serves: never acknowledged.
    ASSERT_EQ(t.write(AppHeader{kServerIp, 77, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(1), ApiError::kOk);
    while (t.tx_failures() == 0 && !t.stopping()) t.idle();
    failures_seen = t.tx_failures();
    // The thread carries on: a message to the served context is answered.
    ASSERT_EQ(t.write(AppHeader{kServerIp, kServerContext, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(2), ApiError::kOk);
    ASSERT_TRUE(t.wait());
    (void)t.read();
    answered = t.read() == 2;
    t.msg_done();
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()},
                                  [&] { return (*client)->all_threads_finished(); }));
  EXPECT_EQ(failures_seen, 1u);
  EXPECT_TRUE(answered);
  EXPECT_EQ((*client)->nic_counters().tx_msgs_failed, 1u);
  EXPECT_GE((*server)->nic_counters().rx_drop_unknown_context, 1u);
}

// The boot message (docs/apps.md): one zero word from context 0 of the
// server's address.
TEST(LoopbackRingTest, TheBootMessageAnnouncesTheServer) {
  testing::RingHosts h = make_hosts();
  ASSERT_TRUE(h.server && h.client);
  bool got = false;
  AppHeader seen{};
  uint64_t word = 1;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    if (!t.wait()) return;
    seen = AppHeader::from_word(t.read());
    word = t.read();
    t.msg_done();
    got = true;
  }).ok());
  // The client binds first: a message for an unbound context is dropped.
  for (int i = 0; i < 10; ++i) h.client->poll_once();
  ASSERT_TRUE(h.server->spawn([](Thread& t) {
    EXPECT_TRUE(apps::send_boot_message(t, kClientIp, kClientContext));
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return got; }));
  EXPECT_EQ(seen.ip, kServerIp);
  EXPECT_EQ(seen.context, 0u);
  EXPECT_EQ(seen.len, apps::kBootMessageBytes);
  EXPECT_EQ(word, 0u);
}

// A service that itself serves context 0 (the prototype's test applications
// do) announces from its own thread once bound, then serves as usual.
TEST(LoopbackRingTest, AServiceOnContextZeroAnnouncesItselfFromItsOwnThread) {
  testing::RingHosts h = make_hosts();
  ASSERT_TRUE(h.server && h.client);
  AppHeader boot{};
  uint64_t reply = 0;
  bool done = false;
  ASSERT_TRUE(h.client->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientContext).ok());
    if (!t.wait()) return;
    boot = AppHeader::from_word(t.read());
    (void)t.read();
    t.msg_done();
    ASSERT_EQ(t.write(AppHeader{kServerIp, 0, 8}.word()), ApiError::kOk);
    ASSERT_EQ(t.write(41), ApiError::kOk);
    if (!t.wait()) return;
    (void)t.read();
    reply = t.read();
    t.msg_done();
    done = true;
  }).ok());
  for (int i = 0; i < 10; ++i) h.client->poll_once();
  apps::announce_on_bind(kClientIp, kClientContext);
  ASSERT_TRUE(h.server->spawn([](Thread& t) {
    ASSERT_TRUE(apps::bind_service(t, apps::kBootContext, 0, "test"));
    if (!t.wait()) return;
    const AppHeader req = AppHeader::from_word(t.read());
    const uint64_t word = t.read();
    t.msg_done();
    (void)t.write(AppHeader{req.ip, req.context, 8}.word());
    (void)t.write(word + 1);
  }).ok());
  ASSERT_TRUE(testing::poll_until({h.server.get(), h.client.get()}, [&] { return done; }));
  EXPECT_EQ(boot.ip, kServerIp);
  EXPECT_EQ(boot.context, apps::kBootContext);
  EXPECT_EQ(boot.len, apps::kBootMessageBytes);
  EXPECT_EQ(reply, 42u);
}

}  // namespace
}  // namespace nanopu
