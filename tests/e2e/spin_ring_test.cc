// sPIN handlers on the NIC core (nanopu/spin.h) through the real EAL on a
// net_ring pair: the handlers' order and what they see of a multi-packet
// message, the host message they write, a reply the NIC sends, a context
// that lets the original through; a misbehaving handler's context disabled
// while the NIC and another context go on; bad contexts refused.
#include <gtest/gtest.h>

#include <rte_lcore.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "nanopu/fault_spec.h"
#include "nanopu/runtime.h"
#include "nanopu/spin_model.h"
#include "tests/support/ring_pair.h"

namespace nanopu {
namespace {

constexpr uint32_t kServer = 0x0a000001, kClient = 0x0a000002;
constexpr uint16_t kSum = 5, kEcho = 6, kBad = 7, kClientCtx = 9;

// Sums a message's 64-bit words in scratch; the completion writes
// [sum, packets seen, header's first word] to the host. The header
// handler must have run before any payload handler (sPIN's order).
spin::ExecutionContext summing() {
  spin::ExecutionContext c;
  c.name = "sum";
  c.match.context = kSum;
  c.scratch_bytes = 32;
  c.memory_bytes = 8;
  c.header = [](spin::Handle& h, const spin::Packet& p) {
    h.scratch().store<uint64_t>(16, spin::load_be<uint64_t>(p.payload.data()));  // words are big-endian
    h.scratch().store<uint64_t>(24, 1);  // the header ran
  };
  c.payload = [](spin::Handle& h, const spin::Packet& p) {
    if (h.scratch().load<uint64_t>(24) != 1) throw std::logic_error("a payload handler before the header");
    EXPECT_EQ(p.offset_bytes, p.index * 1024u);
    uint64_t sum = 0;
    for (size_t i = 0; i + 8 <= p.payload.size(); i += 8) sum += spin::load_be<uint64_t>(p.payload.data() + i);
    h.scratch().add<uint64_t>(0, sum);
    h.scratch().add<uint64_t>(8, 1);
    h.charge_cycles(p.payload.size() / 8 * 3);
  };
  c.completion = [](spin::Handle& h) {
    for (uint32_t i = 0; i < 3; ++i) (void)h.host_write_word(8 * i, h.scratch().load<uint64_t>(8 * i));
    h.memory().add<uint64_t>(0, 1);  // messages summed, kept across messages
  };
  return c;
}

// Answers from the NIC: the first word + 1, to the sender; only messages
// whose first word's low byte (its last, in wire order) is 0xE0: a
// header-field rule; lets them through too.
spin::ExecutionContext echoing() {
  spin::ExecutionContext c;
  c.name = "echo";
  c.match = {.context = kEcho, .field_offset = 7, .field_bytes = 1, .field_mask = 0xff, .field_value = 0xE0};
  c.payload = [](spin::Handle& h, const spin::Packet& p) {
    uint8_t w[8];
    spin::store_be<uint64_t>(w, spin::load_be<uint64_t>(p.payload.data()) + 1);
    (void)h.reply(w);
    h.forward();
  };
  return c;
}

void send_words(Thread& t, uint32_t ip, uint16_t ctx, uint64_t first, uint32_t words) {
  (void)t.write(AppHeader{ip, ctx, static_cast<uint16_t>(8 * words)}.word());
  for (uint32_t i = 0; i < words; ++i) (void)t.write(i == 0 ? first : i);
}

testing::Words read_message(Thread& t, AppHeader* h) {
  *h = AppHeader::from_word(t.read());
  testing::Words r(h->payload_words());
  for (uint64_t& w : r) w = t.read();
  t.msg_done();
  return r;
}

TEST(SpinRingTest, HandlersSeeEveryPacketInOrderWriteTheHostAndReplyFromTheNic) {
  testing::PortPair p = testing::make_ring_pair();
  auto server = Runtime::create(testing::host_config(p.a, kServer));
  auto client = Runtime::create(testing::host_config(p.b, kClient));
  ASSERT_TRUE(server.ok() && client.ok());
  ASSERT_TRUE((*server)->install(summing()).ok());
  ASSERT_TRUE((*server)->install(echoing()).ok());
  testing::Words host_sum, host_echo;
  int host_messages = 0;
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSum).ok());
    AppHeader h;
    while (host_messages < 1 && t.wait()) {
      host_sum = read_message(t, &h);
      EXPECT_EQ(h.ip, kClient);  // the host message names the original's source
      ++host_messages;
    }
  }).ok());
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kEcho).ok());
    AppHeader h;
    if (t.wait()) host_echo = read_message(t, &h);  // the original, let through
  }).ok());
  testing::Words reply;
  bool done = false;
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientCtx).ok());
    send_words(t, kServer, kSum, 1000, 600);  // 4800 bytes: 5 packets
    send_words(t, kServer, kEcho, 0xE0 + (41 << 8), 2);
    AppHeader h;
    if (t.wait_for(std::chrono::seconds(20))) reply = read_message(t, &h);
    done = true;
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()},
                                  [&] { return done && host_messages == 1 && !host_echo.empty(); },
                                  std::chrono::seconds(60)));
  // 1000 + 1 + 2 + ... + 599
  ASSERT_EQ(host_sum.size(), 3u);
  EXPECT_EQ(host_sum[0], 1000u + 599u * 600u / 2);
  EXPECT_EQ(host_sum[1], 5u);
  EXPECT_EQ(host_sum[2], 1000u);
  ASSERT_EQ(reply.size(), 1u);
  EXPECT_EQ(reply[0], 0xE0u + (41u << 8) + 1);
  ASSERT_EQ(host_echo.size(), 2u);
  EXPECT_EQ(host_echo[0], 0xE0u + (41u << 8));
  const std::vector<spin::ContextReport> r = (*server)->spin_reports();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].messages, 1u);
  EXPECT_EQ(r[0].streamed, 1u);  // handled as its packets came
  EXPECT_EQ(r[0].packets, 5u);
  EXPECT_EQ(r[0].bytes, 4800u);
  EXPECT_EQ(r[0].invocations, 1u + 5u + 1u);
  EXPECT_EQ(r[0].host_messages, 1u);
  EXPECT_EQ(r[0].declared_cycles, 600u * 3);
  EXPECT_EQ(r[1].sends, 1u);
  EXPECT_EQ(r[1].forwarded, 1u);
  EXPECT_EQ((*server)->nic_counters().spin_msgs, 2u);
  // The modelled column from the declared cycles (nanopu/spin_model.h).
  const spin::ModelledContext m = spin::modelled(r[0]);
  EXPECT_DOUBLE_EQ(m.cycles_per_packet, 360.0);
  EXPECT_GT(m.packet_latency_ns, 360.0);
  EXPECT_GT(m.throughput_gbps, 0.0);
  (*server)->release_buffers();
  (*client)->release_buffers();
}

// Streaming over a lossy wire that duplicates and reorders (the server's
// RX): each packet's handlers run once however often it came, the header's
// first, and while the message is still arriving — a packet resent after a
// loss has its payload handler run a timeout after the others', which a
// run at completion would not show.
TEST(SpinRingTest, HandlersRunOnceOnEachPacketAsItArrivesOverALossyWire) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServer);
  sc.faults = *parse_fault_spec("drop=0.15,dup=0.15,reorder=0.2,seed=11");
  auto server = Runtime::create(sc);
  auto client = Runtime::create(testing::host_config(p.b, kClient));
  ASSERT_TRUE(server.ok() && client.ok());
  spin::ExecutionContext sum = summing();
  sum.scratch_bytes = 48;
  spin::PacketHandler inner = sum.payload;
  sum.payload = [inner](spin::Handle& h, const spin::Packet& p) {  // when each packet's handler ran
    const auto now_ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                                  std::chrono::steady_clock::now().time_since_epoch())
                                                  .count());
    if (h.scratch().load<uint64_t>(32) == 0) h.scratch().store<uint64_t>(32, now_ns);
    h.scratch().store<uint64_t>(40, now_ns);
    inner(h, p);
  };
  sum.completion = [](spin::Handle& h) {  // [sum, packets, spread of the payload handlers in ns]
    (void)h.host_write_word(0, h.scratch().load<uint64_t>(0));
    (void)h.host_write_word(8, h.scratch().load<uint64_t>(8));
    (void)h.host_write_word(16, h.scratch().load<uint64_t>(40) - h.scratch().load<uint64_t>(32));
  };
  ASSERT_TRUE((*server)->install(std::move(sum)).ok());
  constexpr uint64_t kMessages = 30;
  std::vector<testing::Words> got;
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSum).ok());
    AppHeader h;
    while (got.size() < kMessages && t.wait()) got.push_back(read_message(t, &h));
  }).ok());
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientCtx).ok());
    for (uint64_t i = 0; i < kMessages; ++i) send_words(t, kServer, kSum, 1000 * i, 600);  // 5 packets each
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()}, [&] { return got.size() == kMessages; },
                                  std::chrono::seconds(60)));
  std::vector<uint64_t> sums;
  uint64_t widest_ns = 0;
  for (const testing::Words& w : got) {
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[1], 5u) << "each packet's payload handler once";
    sums.push_back(w[0]);
    widest_ns = std::max<uint64_t>(widest_ns, w[2]);
  }
  std::sort(sums.begin(), sums.end());
  for (uint64_t i = 0; i < kMessages; ++i) EXPECT_EQ(sums[i], 1000 * i + 599u * 600u / 2);
  const std::vector<spin::ContextReport> r = (*server)->spin_reports();
  EXPECT_EQ(r[0].messages, kMessages);
  EXPECT_EQ(r[0].streamed, kMessages);
  EXPECT_EQ(r[0].invocations, kMessages * 7);
  EXPECT_EQ(r[0].fault, spin::Fault::kNone) << r[0].fault_detail;  // no payload handler before its header's
  const NicCounters& c = (*server)->nic_counters();
  EXPECT_GT(c.rx_dup_packets, 0u);
  EXPECT_EQ(c.spin_msgs_streamed, kMessages);
  // Some message lost a packet after its first: that packet's handler ran a
  // retransmission timeout (>= --rto_us, 50 us) after the others'.
  std::printf("payload handlers of one message at most %.1f us apart; %llu duplicates dropped\n", widest_ns / 1e3,
              static_cast<unsigned long long>(c.rx_dup_packets));
  EXPECT_GE(widest_ns, 40'000u);
  (*server)->release_buffers();
  (*client)->release_buffers();
}

// A burst of NIC replies larger than the server's packetization buffer:
// the ones with no slot wait in the engine for an acknowledgement to free
// one, instead of being given up (a handler's send has no thread to tell).
TEST(SpinRingTest, NicSendsWaitForAPacketizationSlotInsteadOfBeingLost) {
  testing::PortPair p = testing::make_ring_pair();
  Config sc = testing::host_config(p.a, kServer);
  sc.outbound_slots = 4;
  auto server = Runtime::create(sc);
  auto client = Runtime::create(testing::host_config(p.b, kClient));
  ASSERT_TRUE(server.ok() && client.ok());
  spin::ExecutionContext echo = echoing();
  echo.payload = [](spin::Handle& h, const spin::Packet& p) {  // answered by the NIC only
    uint8_t w[8];
    spin::store_be<uint64_t>(w, spin::load_be<uint64_t>(p.payload.data()) + 1);
    (void)h.reply(w);
  };
  ASSERT_TRUE((*server)->install(std::move(echo)).ok());
  constexpr uint64_t kCount = 200;
  uint64_t replies = 0, right = 0;
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {  // the context's thread: the NIC answers for it
    ASSERT_TRUE(t.bind(kEcho).ok());
    while (replies < kCount && !t.wait_for(std::chrono::milliseconds(10))) {
    }
  }).ok());
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientCtx).ok());
    for (uint64_t i = 0; i < kCount; ++i) send_words(t, kServer, kEcho, 0xE0 + (i << 8), 1);
    AppHeader h;
    while (replies < kCount && t.wait_for(std::chrono::seconds(20))) {
      const testing::Words w = read_message(t, &h);
      ++replies;
      right += w.size() == 1 && (w[0] & 0xff) == 0xE1;
    }
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()}, [&] { return replies == kCount; },
                                  std::chrono::seconds(60)));
  EXPECT_EQ(right, kCount);
  const NicCounters& c = (*server)->nic_counters();
  EXPECT_EQ(c.tx_msgs_failed, 0u);
  EXPECT_GT(c.spin_sends_waited, 0u) << "the burst never outgrew 4 slots: the test shows nothing";
  (*server)->release_buffers();
  (*client)->release_buffers();
}

// A context whose handler misbehaves in `how`; its thread must still get
// every message (the one it failed on and those after, untouched), and the
// summing context beside it keeps working.
void misbehaving_context_is_isolated(const std::function<void(spin::ExecutionContext&)>& how,
                                     spin::Fault expected) {
  testing::PortPair p = testing::make_ring_pair();
  auto server = Runtime::create(testing::host_config(p.a, kServer));
  auto client = Runtime::create(testing::host_config(p.b, kClient));
  ASSERT_TRUE(server.ok() && client.ok());
  spin::ExecutionContext bad;
  bad.name = "bad";
  bad.match.context = kBad;
  bad.memory_bytes = 64;
  how(bad);
  ASSERT_TRUE((*server)->install(std::move(bad)).ok());
  ASSERT_TRUE((*server)->install(summing()).ok());
  std::vector<uint64_t> bad_firsts;
  int sums = 0;
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kBad).ok());
    AppHeader h;
    while (bad_firsts.size() < 3 && t.wait()) bad_firsts.push_back(read_message(t, &h).at(0));
  }).ok());
  ASSERT_TRUE((*server)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSum).ok());
    AppHeader h;
    while (sums < 2 && t.wait()) sums += read_message(t, &h).size() == 3;
  }).ok());
  ASSERT_TRUE((*client)->spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientCtx).ok());
    for (uint64_t i = 0; i < 3; ++i) send_words(t, kServer, kBad, 100 + i, 4);
    for (uint64_t i = 0; i < 2; ++i) send_words(t, kServer, kSum, i, 200);
  }).ok());
  ASSERT_TRUE(testing::poll_until({server->get(), client->get()},
                                  [&] { return bad_firsts.size() == 3 && sums == 2; }, std::chrono::seconds(60)));
  EXPECT_EQ(bad_firsts, (std::vector<uint64_t>{100, 101, 102}));
  const std::vector<spin::ContextReport> r = (*server)->spin_reports();
  EXPECT_EQ(r[0].fault, expected) << r[0].fault_detail;
  EXPECT_EQ(r[0].messages, 1u);
  EXPECT_EQ(r[0].bypassed, 3u);
  EXPECT_EQ(r[0].host_messages, 0u);  // what it asked for before failing is not carried out
  EXPECT_EQ(r[1].fault, spin::Fault::kNone);
  EXPECT_EQ(r[1].messages, 2u);
  EXPECT_EQ((*server)->nic_counters().spin_disabled, 1u);
  EXPECT_EQ((*server)->nic_counters().spin_msgs_bypassed, 3u);
  (*server)->release_buffers();
  (*client)->release_buffers();
}

TEST(SpinRingTest, AHandlerWritingOutsideItsMemoryDisablesOnlyItsContext) {
  misbehaving_context_is_isolated(
      [](spin::ExecutionContext& c) {
        c.payload = [](spin::Handle& h, const spin::Packet&) {
          (void)h.host_write(0, {});
          h.memory().store<uint64_t>(60, 1);  // 4 bytes past the end of 64
        };
      },
      spin::Fault::kOutOfBounds);
}

TEST(SpinRingTest, AHandlerThatThrowsOrRunsPastItsBudgetIsDisabled) {
  misbehaving_context_is_isolated(
      [](spin::ExecutionContext& c) {
        c.completion = [](spin::Handle&) { throw std::runtime_error("bad handler"); };
      },
      spin::Fault::kThrew);
  misbehaving_context_is_isolated(
      [](spin::ExecutionContext& c) {
        c.budget_ns = 1000;
        c.header = [](spin::Handle&, const spin::Packet&) {
          const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
          while (std::chrono::steady_clock::now() < end) {
          }
        };
      },
      spin::Fault::kOverBudget);
}

// The handlers on an HPU lcore of their own (Config::spin_hpu_lcores), the
// host run by run(): the same results, and a disabled context's messages
// still reach its thread.
TEST(SpinRingTest, HandlersOnAnHpuLcoreGiveTheSameResults) {
  Config c = testing::host_config(testing::make_loop_port(), kServer);
  c.spin_hpu_lcores = {2};
  c.max_threads_per_core = 8;
  auto host = Runtime::create(c);
  ASSERT_TRUE(host.ok()) << host.status();
  Runtime& rt = **host;
  static std::atomic<unsigned> handler_lcore{~0u};
  spin::ExecutionContext sum = summing();
  spin::PacketHandler inner = sum.payload;
  sum.payload = [inner](spin::Handle& h, const spin::Packet& p) {
    handler_lcore.store(rte_lcore_id());
    inner(h, p);
  };
  ASSERT_TRUE(rt.install(std::move(sum)).ok());
  ASSERT_TRUE(rt.install(echoing()).ok());
  spin::ExecutionContext bad;
  bad.name = "bad";
  bad.match.context = kBad;
  bad.payload = [](spin::Handle& h, const spin::Packet&) { (void)h.scratch().load<uint64_t>(0); };  // no scratch
  ASSERT_TRUE(rt.install(std::move(bad)).ok());
  testing::Words host_sum, reply;
  std::vector<uint64_t> bad_firsts;
  ASSERT_TRUE(rt.spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kSum).ok());
    AppHeader h;
    if (t.wait()) host_sum = read_message(t, &h);
  }).ok());
  ASSERT_TRUE(rt.spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kBad).ok());
    AppHeader h;
    while (bad_firsts.size() < 3 && t.wait()) bad_firsts.push_back(read_message(t, &h).at(0));
  }).ok());
  ASSERT_TRUE(rt.spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kEcho).ok());  // the originals the echo context lets through
    AppHeader h;
    for (int i = 0; i < 1 && t.wait(); ++i) (void)read_message(t, &h);
  }).ok());
  ASSERT_TRUE(rt.spawn([&](Thread& t) {
    ASSERT_TRUE(t.bind(kClientCtx).ok());
    send_words(t, kServer, kSum, 7, 1000);  // 8000 bytes: 8 packets
    for (uint64_t i = 0; i < 3; ++i) send_words(t, kServer, kBad, 100 + i, 4);
    send_words(t, kServer, kEcho, 0xE0 + (9 << 8), 1);
    AppHeader h;
    if (t.wait_for(std::chrono::seconds(30))) reply = read_message(t, &h);
  }).ok());
  std::thread watchdog([&] {
    for (int i = 0; i < 600 && !rt.all_threads_finished(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rt.stop();
  });
  ASSERT_TRUE(rt.run().ok());
  watchdog.join();
  ASSERT_EQ(host_sum.size(), 3u);
  EXPECT_EQ(host_sum[0], 7u + 999u * 1000u / 2);
  EXPECT_EQ(host_sum[1], 8u);
  ASSERT_EQ(reply.size(), 1u);
  EXPECT_EQ(reply[0], 0xE0u + (9u << 8) + 1);
  EXPECT_EQ(bad_firsts, (std::vector<uint64_t>{100, 101, 102}));
  EXPECT_EQ(handler_lcore.load(), 2u);  // not the NIC core's lcore 0
  const std::vector<spin::ContextReport> r = rt.spin_reports();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].messages, 1u);
  EXPECT_EQ(r[0].streamed, 1u);  // its packets' steps through the HPU's ring, in order
  EXPECT_EQ(r[2].fault, spin::Fault::kOutOfBounds);
  EXPECT_EQ(r[2].bypassed, 3u);
  EXPECT_EQ(rt.nic_counters().spin_disabled, 1u);
  rt.release_buffers();
}

TEST(SpinRingTest, BadContextsAreRefusedWithTheReason) {
  auto host = Runtime::create(testing::host_config(testing::make_loop_port(), kServer));
  ASSERT_TRUE(host.ok());
  Runtime& rt = **host;
  spin::ExecutionContext none;
  none.name = "none";
  EXPECT_NE(rt.install(none).message().find("no handler"), std::string::npos);
  spin::ExecutionContext big = summing();
  big.memory_bytes = spin::kMaxMemoryBytes + 1;
  EXPECT_NE(rt.install(big).message().find("handler memory"), std::string::npos);
  ASSERT_TRUE(rt.install(echoing()).ok());
  spin::ExecutionContext other = echoing();  // a different first byte: no overlap
  other.match.field_value = 0xE1;
  EXPECT_TRUE(rt.install(other).ok());
  spin::ExecutionContext all = echoing();    // every message to the context: overlaps
  all.name = "all";
  all.match.field_bytes = 0;
  const absl::Status s = rt.install(all);
  EXPECT_EQ(s.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_NE(s.message().find("overlaps that of 'echo'"), std::string::npos) << s;
  // HPU lcores: not among the host's lcores, not on a modelled clock.
  Config c = testing::host_config(testing::make_loop_port(), kServer);
  c.spin_hpu_lcores = {0};
  EXPECT_NE(c.validate().message().find("also in lcores"), std::string::npos) << c.validate();
}

TEST(SpinModelTest, PspinsPublishedLatenciesAndLineRate) {
  // PsPIN §IV-B1: 26 ns for a 64 B packet, 40 ns for 1024 B (an empty handler).
  EXPECT_DOUBLE_EQ(spin::modelled_packet_latency_ns(64, 1), 26.0);
  EXPECT_DOUBLE_EQ(spin::modelled_packet_latency_ns(1024, 1), 40.0);
  // Fig. 6: 32 HPUs keep 400 Gbit/s of 64 B packets with handlers up to
  // 32 x 1.28 ns = 41 ns long (here: held 7 + cycles + 1 ns).
  EXPECT_DOUBLE_EQ(spin::modelled_throughput_gbps(64, 30), 400.0);
  EXPECT_LT(spin::modelled_throughput_gbps(64, 40), 400.0);
  EXPECT_NEAR(spin::modelled_throughput_gbps(1024, 2000), 32 * 8192.0 / 2008, 1e-9);
}

}  // namespace
}  // namespace nanopu
