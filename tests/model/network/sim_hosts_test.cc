// Two real hosts on one thread and one modelled clock (docs/design.md §11;
// model/network/): each is a Runtime — its NIC core's own code, its threads'
// fibers under the HTS stand-in — whose port is one end of a modelled
// 200 Gb/s, 43.75 ns link. A client thread sends requests of several sizes
// to an echo thread and times each reply with Thread::now_ns(), which here
// is modelled time. No stage costs are charged yet (design §11), so a
// one-packet round trip is the frames' time on the wire and nothing else;
// and the run, replayed, is the same event for event.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdint>
#include <memory>
#include <vector>

#include "lib/contract/clock.h"
#include "lib/wire/frame.h"
#include "model/network/counted_costs.h"
#include "model/network/sim_link.h"
#include "model/network/sim_loop.h"
#include "model/timing/timing_params.h"
#include "nanopu/memory_message.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"

namespace nanopu {
namespace {

constexpr uint32_t kServer = 0x0a000001, kClient = 0x0a000002;
constexpr uint16_t kEcho = 1, kCaller = 7;

struct EchoRun {
  std::vector<uint64_t> rtt_ns;  // per request, modelled
  uint64_t trace_hash = 0;
  uint64_t end_ps = 0;
  bool all_echoed = true;
};

// The first len bytes of two word arrays agree (each word's bytes in
// either order: every byte of a request word is the same).
bool same_bytes(const std::vector<uint64_t>& got, const std::vector<uint64_t>& sent, uint16_t len) {
  if (got.size() != sent.size()) return false;
  for (size_t w = 0; w + 1 < got.size(); ++w)
    if (got[w] != sent[w]) return false;
  const unsigned tail = len % 8 == 0 ? 8 : len % 8;
  unsigned same = 0, zero = 0;
  for (unsigned b = 0; b < 8; ++b) {
    const auto byte = static_cast<uint8_t>(got.back() >> (8 * b));
    same += byte == static_cast<uint8_t>(sent.back());
    zero += byte == 0;
  }
  return same == tail && zero == 8 - tail;
}

EchoRun run_echo(const std::vector<uint16_t>& sizes, const model::CountedCosts* costs = nullptr) {
  EchoRun out;
  clock::VirtualClock vc(1'000'000);
  model::SimLink link(model::SimLinkParams{});
  if (costs != nullptr) {
    vc.set_work_costs(costs->work);
    link.a().set_nic_delays_ps(costs->nic_rx_ps, costs->nic_tx_ps);
    link.b().set_nic_delays_ps(costs->nic_rx_ps, costs->nic_tx_ps);
  }
  auto server = Runtime::create(testing::host_config(0, kServer), &link.a());
  auto client = Runtime::create(testing::host_config(0, kClient), &link.b());
  EXPECT_TRUE(server.ok()) << server.status();
  EXPECT_TRUE(client.ok()) << client.status();
  if (!server.ok() || !client.ok()) return out;

  EXPECT_TRUE((*server)->spawn([](Thread& t) {
                         if (!t.bind(kEcho).ok()) return;
                         MemoryMessage m;
                         while (t.wait()) {
                           if (t.receive_message(&m) != ApiError::kOk) continue;
                           (void)t.send_message(AppHeader{m.header.ip, m.header.context, m.header.len}, m.payload);
                         }
                       }).ok());
  bool done = false;
  EXPECT_TRUE((*client)->spawn([&](Thread& t) {
                         if (!t.bind(kCaller).ok()) return;
                         MemoryMessage m;
                         for (size_t i = 0; i < sizes.size(); ++i) {
                           std::vector<uint64_t> words((sizes[i] + 7) / 8, 0x0101010101010101ull * (i + 1));
                           const uint64_t sent = t.now_ns();
                           if (t.send_message(AppHeader{kServer, kEcho, sizes[i]}, words) != ApiError::kOk) break;
                           if (!t.wait() || t.receive_message(&m) != ApiError::kOk) break;
                           out.rtt_ns.push_back(t.now_ns() - sent);
                           out.all_echoed &= m.header.len == sizes[i] && same_bytes(m.payload, words, sizes[i]);
                         }
                         done = true;
                       }).ok());
  model::SimLoop loop(vc, /*idle_step_ticks=*/1'000'000);  // 1 us
  const size_t s = loop.add_node(nullptr), c = loop.add_node(nullptr);
  loop.add_core(s, [&] { return (*server)->poll_once(); });
  loop.add_core(c, [&] { return (*client)->poll_once(); });
  loop.add_link(&link, s, c);
  EXPECT_TRUE(loop.run([&] { return done; }, /*until_ticks=*/uint64_t{10} * 1'000'000'000'000))
      << "10 modelled seconds without an end";
  out.trace_hash = link.trace_hash();
  out.end_ps = vc.now_ps();
  (*server)->stop();
  (*client)->stop();
  (*server)->poll_once();
  (*client)->poll_once();
  link.discard_in_flight();
  (*server)->release_buffers();
  (*client)->release_buffers();
  return out;
}

TEST(SimHostsTest, AOnePacketRoundTripIsItsFramesTimeOnTheWire) {
  const EchoRun r = run_echo({8, 8, 8});
  ASSERT_EQ(r.rtt_ns.size(), 3u);
  EXPECT_TRUE(r.all_echoed);
  // Request and reply: each a 64-byte header and 8 bytes of payload,
  // serialized at 200 Gb/s (40 ps a byte), then 43.75 ns on the wire.
  const double frame_ns = 72 * 0.04 + 43.75;
  for (const uint64_t rtt : r.rtt_ns) EXPECT_NEAR(static_cast<double>(rtt), 2 * frame_ns, 1.0);
  static_assert(wire::kFrameHeaderBytes == 64);
}

// With counted time a round trip adds, to the wire's, each NIC's stages on
// the way out and in, and each thread's work: the client's request written
// and its reply taken, the server's request taken and its reply written
// (a message taken costs its fixed cycles and half a cycle a word, one
// written half a cycle a word), exactly.
TEST(SimHostsTest, CountedTimeAddsTheNicStagesAndTheThreadsWorkExactly) {
  const absl::StatusOr<model::TimingParams> t = model::builtin_timing_params("osdi21");
  ASSERT_TRUE(t.ok());
  const model::CountedCosts c = model::counted_costs(*t);
  const EchoRun r = run_echo({8, 8}, &c);
  ASSERT_EQ(r.rtt_ns.size(), 2u);
  EXPECT_TRUE(r.all_echoed);
  const double cycle_ns = 1 / t->clock_ghz, words = 2;  // the header and one payload word
  const double wire_ns = 72 * 0.04 + 43.75;
  // Each NIC's stages, from the parameters themselves (MAC and serial I/O
  // both ways, the ingress and egress cycles).
  const double nic_ns = 2 * t->mac_serial_io_ns + (t->rx_pipeline_cycles + t->transport_cycles + t->core_select_cycles +
                                                   t->rx_fifo_cycles + t->tx_fifo_cycles + t->packetizer_cycles +
                                                   t->tx_pipeline_cycles) * cycle_ns;
  const double work_ns = (2 * t->app_fixed_cycles + 4 * 0.5 * t->app_cycles_per_word * words) * cycle_ns;
  for (const uint64_t rtt : r.rtt_ns) EXPECT_NEAR(static_cast<double>(rtt), 2 * (wire_ns + nic_ns) + work_ns, 1.5);
  EXPECT_GT(static_cast<double>(r.rtt_ns[1]), 2 * wire_ns + 100) << "more than the wire's alone";
}

TEST(SimHostsTest, ARunReplayedIsTheSameEventForEvent) {
  const std::vector<uint16_t> sizes = {8, 1000, 3000, 64, 20000, 1};
  const EchoRun first = run_echo(sizes);
  const EchoRun second = run_echo(sizes);
  ASSERT_EQ(first.rtt_ns.size(), sizes.size());
  EXPECT_TRUE(first.all_echoed);
  EXPECT_EQ(first.rtt_ns, second.rtt_ns);
  EXPECT_EQ(first.trace_hash, second.trace_hash);
  EXPECT_EQ(first.end_ps, second.end_ps);
  std::printf("modelled round trips (ns):");
  for (size_t i = 0; i < sizes.size(); ++i) std::printf(" %u B %llu", sizes[i], static_cast<unsigned long long>(first.rtt_ns[i]));
  std::printf("; trace hash %016llx\n", static_cast<unsigned long long>(first.trace_hash));
  // Longer messages take longer: their packets follow each other on the wire.
  EXPECT_GT(first.rtt_ns[4], first.rtt_ns[2]);
  EXPECT_GT(first.rtt_ns[2], first.rtt_ns[1]);
  const EchoRun other = run_echo({8, 1000, 3000, 64, 20000, 2});
  EXPECT_NE(other.trace_hash, first.trace_hash) << "another run, another trace";
}

}  // namespace
}  // namespace nanopu
