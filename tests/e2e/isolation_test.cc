// Isolation between contexts through the real EAL: a flooded priority-1
// context does not cost a priority-0 context a single message (buffer
// partitioning), and a stuck worker does not stop another worker's context.
#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ring.h>

#include <atomic>

#include "absl/strings/str_cat.h"
#include "tools/switch/software_switch.h"
#include "nanopu/runtime.h"
#include "tests/support/eal_env.h"
#include "tests/support/test_hosts.h"

namespace nanopu {
namespace {

constexpr uint32_t kServer = 0x0a000001, kFlooder = 0x0a000002, kProbe = 0x0a000003;
constexpr uint16_t kP0 = 10, kP1 = 11, kClient = 20;

void compute(Thread& t, double us) {
  const uint64_t end = rte_rdtsc() + static_cast<uint64_t>(us * 1e-6 * rte_get_tsc_hz());
  while (rte_rdtsc() < end) t.preempt_point();
}

// Echo server body: reply with the first word, after `work_us`.
void serve(Thread& t, uint16_t ctx, uint8_t prio, double work_us) {
  ASSERT_TRUE(t.bind(ctx, prio).ok());
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    const uint64_t v = t.read();
    compute(t, work_us);
    t.msg_done();
    (void)t.write(AppHeader{h.ip, h.context, 8}.word());
    (void)t.write(v);
  }
}

// Sends `count` 3000-byte messages to (server, ctx), `window` in flight.
void client(Thread& t, uint16_t ctx, uint64_t count, uint32_t window, uint64_t* replies) {
  ASSERT_TRUE(t.bind(kClient).ok());
  uint64_t sent = 0;
  while (*replies < count) {
    while (sent < count && sent - *replies < window) {
      (void)t.write(AppHeader{kServer, ctx, 3000}.word());
      for (int i = 0; i < 375; ++i) (void)t.write(sent);
      ++sent;
    }
    if (!t.wait()) return;
    t.msg_done();
    ++*replies;
  }
}

TEST(IsolationTest, FloodedPriorityOneContextCostsPriorityZeroNothing) {
  // Three hosts on a software switch (ring mode).
  std::vector<apps::SwitchPort> sw_ports;
  std::vector<std::unique_ptr<Runtime>> hosts;
  static int n = 0;
  for (uint32_t ip : {kServer, kFlooder, kProbe}) {
    rte_ring* to = rte_ring_create(absl::StrCat("iso_t", n).c_str(), 4096, SOCKET_ID_ANY, 0);
    rte_ring* from = rte_ring_create(absl::StrCat("iso_f", n).c_str(), 4096, SOCKET_ID_ANY, 0);
    const int port = rte_eth_from_rings(absl::StrCat("iso", n++).c_str(), &to, 1, &from, 1, SOCKET_ID_ANY);
    ASSERT_GE(port, 0);
    sw_ports.push_back({0, from, to});
    Config c = testing::host_config(static_cast<uint16_t>(port), ip);
    c.mbufs = 8191;
    c.rto_us = 500;
    // A NACKed sender keeps retrying however long the flood lasts (sanitizer
    // builds run it many times slower): its peer answers, with NACKs.
    c.peer_dead_ms = 600000;
    if (ip == kServer) {
      c.reassembly_slots = 16;  // 8 per context at most, 4 reserved for priority 0
      c.shared_workers = 2;
    }
    auto rt = Runtime::create(c);
    ASSERT_TRUE(rt.ok()) << rt.status();
    hosts.push_back(std::move(*rt));
  }
  rte_mempool* pool = rte_pktmbuf_pool_create(absl::StrCat("iso_pool", n).c_str(), 4095, 0, 0,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  apps::SwitchParams sp;
  sp.link_gbps = 100;
  sp.data_queue_bytes = 8u << 20;  // no congestion in the network: only the host's buffers matter
  apps::SoftwareSwitch sw(sp, sw_ports, pool);
  sw.add_route(kServer, 0);
  sw.add_route(kFlooder, 1);
  sw.add_route(kProbe, 2);

  // The priority-1 service takes 50 us a message; the flooder keeps 64 in
  // flight, far beyond what it can serve.
  ASSERT_TRUE(hosts[0]->spawn([](Thread& t) { serve(t, kP1, 1, 50); }, 1).ok());
  ASSERT_TRUE(hosts[0]->spawn([](Thread& t) { serve(t, kP0, 0, 0); }, 0).ok());
  uint64_t flood_replies = 0, probe_replies = 0;
  ASSERT_TRUE(hosts[1]->spawn([&](Thread& t) { client(t, kP1, 200, 64, &flood_replies); }).ok());
  ASSERT_TRUE(hosts[2]->spawn([&](Thread& t) { client(t, kP0, 200, 4, &probe_replies); }).ok());

  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((flood_replies < 200 || probe_replies < 200) && std::chrono::steady_clock::now() < end) {
    for (auto& h : hosts) h->poll_once();
    sw.poll();
  }
  EXPECT_EQ(probe_replies, 200u);
  EXPECT_EQ(flood_replies, 200u) << "the flood is slowed, not lost";
  const NicCounters& server = hosts[0]->nic_counters();
  EXPECT_GT(server.rx_nack_context_full, 0u) << "the flood was pushed back";
  EXPECT_EQ(hosts[2]->nic_counters().rx_nacks, 0u) << "priority 0 was never refused";
  EXPECT_EQ(server.rx_dropped(), 0u);
  if (::testing::Test::HasFailure())
    for (auto& h : hosts) h->print_stats(stderr);
}

TEST(IsolationTest, AStuckWorkerDoesNotStopAnotherWorkersContext) {
  // A dedicated NIC lcore and two worker lcores; the host talks to itself.
  Config c = testing::dedicated_config(testing::make_loop_port(), kServer, 2);
  c.watchdog_ms = 2;
  auto rt = Runtime::create(c);
  ASSERT_TRUE(rt.ok()) << rt.status();
  std::atomic<bool> release{false};
  std::atomic<uint64_t> healthy{0}, stuck_served{0};
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {  // worker 1: stuck inside its first message
    ASSERT_TRUE(t.bind(kP1, 0).ok());
    while (t.wait()) {
      while (!release.load()) {
      }
      (void)t.read();
      const uint64_t v = t.read();
      t.msg_done();
      ++stuck_served;
      (void)t.write(AppHeader{kServer, kClient, 8}.word());
      (void)t.write(v);
      if (stuck_served == 50) return;
    }
  }, 1).ok());
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {  // worker 0: a healthy service and the client
    ASSERT_TRUE(t.bind(kClient, 1).ok());
    for (uint64_t i = 0; i < 50; ++i) {
      (void)t.write(AppHeader{kServer, kP1, 8}.word());
      (void)t.write(i);
    }
    uint64_t replies = 0;
    for (uint64_t i = 0; i < 100; ++i) {
      (void)t.write(AppHeader{kServer, kP0, 8}.word());
      (void)t.write(1000 + i);
    }
    while (replies < 150 && t.wait()) {
      (void)t.read();
      const uint64_t v = t.read();
      t.msg_done();
      ++replies;
      if (v >= 1000) ++healthy;
      if (healthy == 100 && !release) {
        EXPECT_EQ(stuck_served.load(), 0u);  // every healthy reply came while the other was stuck
        compute(t, 10000);  // keep it stuck past the watchdog's 2 ms
        release = true;
      }
    }
  }, 0).ok());
  ASSERT_TRUE((*rt)->spawn([&](Thread& t) {  // worker 0: the healthy context
    ASSERT_TRUE(t.bind(kP0, 0).ok());
    for (int i = 0; i < 100 && t.wait(); ++i) {
      (void)t.read();
      const uint64_t v = t.read();
      t.msg_done();
      (void)t.write(AppHeader{kServer, kClient, 8}.word());
      (void)t.write(v);
    }
  }, 0).ok());
  ASSERT_TRUE((*rt)->run().ok());
  EXPECT_EQ(healthy.load(), 100u);
  EXPECT_EQ(stuck_served.load(), 50u);
  EXPECT_GT((*rt)->nic_counters().watchdog_stuck, 0u);
}

}  // namespace
}  // namespace nanopu
