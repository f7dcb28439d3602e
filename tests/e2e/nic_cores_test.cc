// Several NIC cores on one host (Config::nic_lcores; docs/design.md §7,
// "Several NIC cores") through the real EAL: a server with two NIC cores
// and four clients on a software switch. The server's two RX queues read
// one ring, so frames land on either core and half of them must be handed
// to their peer's owner; each core sends on a TX queue of its own. Each
// NIC core must deliver exactly its own peers' messages, every reply must
// come back right, and nothing may be lost on the way between the cores.
#include "lib/contract/nic_cores.h"

#include <gtest/gtest.h>
#include <rte_eth_ring.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/contract/msg_fifo.h"
#include "nanopu/runtime.h"
#include "nic/dispatch/peer_dispatch.h"
#include "tests/support/eal_env.h"
#include "tools/switch/software_switch.h"

namespace nanopu {
namespace {

constexpr uint32_t kServer = 0x0a000001;
constexpr uint16_t kService = 30, kClient = 31;
constexpr uint64_t kPerClient = 300;
constexpr uint16_t kSizes[] = {8, 1000, 3000};  // one, one and three packets

// Two clients owned by each of two NIC cores.
std::vector<uint32_t> client_ips() {
  std::vector<uint32_t> ips;
  uint32_t per[2] = {0, 0};
  for (uint32_t ip = kServer + 1; ips.size() < 4; ++ip)
    if (const uint32_t k = nic_core_for_peer(ip, 2); per[k] < 2) {
      ++per[k];
      ips.push_back(ip);
    }
  return ips;
}

// A net_ring port over rings `to` (what it receives) and `from` (what it
// sends), with `queues` queue pairs all on those two rings.
int ring_port(const std::string& name, rte_ring* to, rte_ring* from, unsigned queues) {
  std::vector<rte_ring*> rx(queues, to), tx(queues, from);
  return rte_eth_from_rings(name.c_str(), rx.data(), queues, tx.data(), queues, SOCKET_ID_ANY);
}

void echo(Thread& t, std::atomic<bool>* bound) {
  ASSERT_TRUE(t.bind(kService).ok());
  bound->store(true);
  std::vector<uint64_t> words;
  while (t.wait()) {
    const AppHeader h = AppHeader::from_word(t.read());
    words.resize(h.payload_words());
    for (uint64_t& w : words) w = t.read();
    t.msg_done();
    (void)t.write(AppHeader{h.ip, h.context, h.len}.word());
    for (uint64_t w : words) (void)t.write(w);
  }
}

struct ClientResult {
  uint64_t replies = 0, bad = 0;
};

// Sends kPerClient messages, eight in flight; every reply's words checked.
void client(Thread& t, uint32_t ip, ClientResult* r) {
  ASSERT_TRUE(t.bind(kClient).ok());
  uint64_t sent = 0;
  while (r->replies < kPerClient) {
    while (sent < kPerClient && sent - r->replies < 8) {
      const uint16_t len = kSizes[sent % 3];
      (void)t.write(AppHeader{kServer, kService, len}.word());
      for (uint32_t i = 0; i < len / 8u; ++i)
        (void)t.write((uint64_t{ip} << 32) | (sent << 12) | i);
      ++sent;
    }
    if (!t.wait()) return;
    const AppHeader h = AppHeader::from_word(t.read());
    const uint64_t first = t.read();
    const uint64_t msg = (first >> 12) & 0xfffff;
    bool ok = h.ip == kServer && (first >> 32) == ip && h.len == kSizes[msg % 3];
    for (uint32_t i = 1; i < h.payload_words(); ++i)
      ok &= t.read() == ((uint64_t{ip} << 32) | (msg << 12) | i);
    t.msg_done();
    r->bad += ok ? 0 : 1;
    ++r->replies;
  }
}

// false: the NIC cores on lcores 0 and 1, one worker on lcore 2. true: two
// lcores, each a NIC core and a worker taking turns, an echo thread on each
// worker bound to the one context (JBSQ across two NIC cores and two workers).
class NicCoresTest : public ::testing::TestWithParam<bool> {};

TEST_P(NicCoresTest, TwoNicCoresEachServeTheirOwnPeersAndHandOffTheOthersFrames) {
  const bool shared = GetParam();
  static int n = 0;
  const std::vector<uint32_t> ips = client_ips();
  std::vector<apps::SwitchPort> sw_ports;
  std::vector<std::unique_ptr<Runtime>> hosts;  // [0]: the server
  for (size_t h = 0; h <= ips.size(); ++h) {
    rte_ring* to = rte_ring_create(absl::StrCat("nc_t", n, "_", h).c_str(), 4096, SOCKET_ID_ANY, 0);
    rte_ring* from =
        rte_ring_create(absl::StrCat("nc_f", n, "_", h).c_str(), 4096, SOCKET_ID_ANY, 0);
    ASSERT_NE(to, nullptr);
    ASSERT_NE(from, nullptr);
    const int port = ring_port(absl::StrCat("nc", n, "_", h), to, from, h == 0 ? 2 : 1);
    ASSERT_GE(port, 0);
    sw_ports.push_back({0, from, to});
    Config c = testing::host_config(static_cast<uint16_t>(port), h == 0 ? kServer : ips[h - 1]);
    c.mbufs = 8191;
    c.rto_us = 2000;          // the cores take turns on two CPUs: no spurious retransmission storm
    c.peer_dead_ms = 600000;  // and no give-up (a sanitizer build beside a CPU hog)
    if (h == 0) {
      c.lcores = shared ? std::vector<unsigned>{0, 1} : std::vector<unsigned>{0, 1, 2};
      c.nic_lcores = 2;
      c.link_wait_s = 0;
    }
    auto rt = Runtime::create(c);
    ASSERT_TRUE(rt.ok()) << rt.status();
    hosts.push_back(std::move(*rt));
  }
  ++n;
  rte_mempool* pool = rte_pktmbuf_pool_create(absl::StrCat("nc_pool", n).c_str(), 4095, 0, 0,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(pool, nullptr);
  apps::SwitchParams sp;
  sp.data_queue_bytes = 8u << 20;
  apps::SoftwareSwitch sw(sp, sw_ports, pool);
  sw.add_route(kServer, 0);
  for (size_t i = 0; i < ips.size(); ++i) sw.add_route(ips[i], static_cast<uint32_t>(i + 1));

  std::atomic<bool> bound{false};
  std::atomic<bool> bound2{!shared};
  ASSERT_TRUE(hosts[0]->spawn([&](Thread& t) { echo(t, &bound); }, 0).ok());
  if (shared) {
    ASSERT_TRUE(hosts[0]->spawn([&](Thread& t) { echo(t, &bound2); }, 1).ok());
  }
  std::vector<ClientResult> results(ips.size());
  for (size_t i = 0; i < ips.size(); ++i)
    ASSERT_TRUE(hosts[i + 1]->spawn([&, i](Thread& t) { client(t, ips[i], &results[i]); }).ok());
  std::thread far_side([&] {  // the switch and the clients, on this test's CPU
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!(bound.load() && bound2.load()) && std::chrono::steady_clock::now() < end)
      std::this_thread::yield();
    bool done = false;
    while (!done && std::chrono::steady_clock::now() < end) {
      sw.poll();
      for (size_t i = 1; i < hosts.size(); ++i) hosts[i]->poll_once();
      done = true;
      for (const ClientResult& r : results) done &= r.replies == kPerClient;
    }
    hosts[0]->stop();
  });
  const absl::Status ran = hosts[0]->run();
  hosts[0]->stop();  // the far side ends now if run() returned early
  far_side.join();
  ASSERT_TRUE(ran.ok()) << ran;

  for (size_t i = 0; i < ips.size(); ++i) {
    EXPECT_EQ(results[i].replies, kPerClient) << "client " << i;
    EXPECT_EQ(results[i].bad, 0u) << "client " << i;
  }
  ASSERT_EQ(hosts[0]->nic_core_count(), 2u);
  const NicCounters& c0 = hosts[0]->nic_core_counters(0);
  const NicCounters& c1 = hosts[0]->nic_core_counters(1);
  // Two clients per core: each core delivered exactly its own peers' messages.
  EXPECT_EQ(c0.rx_msgs_delivered, 2 * kPerClient);
  EXPECT_EQ(c1.rx_msgs_delivered, 2 * kPerClient);
  EXPECT_GT(c0.tx_data_packets, 0u);
  EXPECT_GT(c1.tx_data_packets, 0u) << "core 1 sends its peers' replies on its own queue";
  EXPECT_GT(c0.rx_handed_off + c1.rx_handed_off, 0u) << "both RX queues read one ring";
  const NicCounters& sum = hosts[0]->nic_counters();
  EXPECT_EQ(sum.rx_msgs_delivered, 4 * kPerClient);
  EXPECT_EQ(sum.rx_drop_handoff_full, 0u);
  EXPECT_EQ(sum.rx_dropped(), 0u);
  if (::testing::Test::HasFailure())
    for (auto& h : hosts) h->print_stats(stderr);
  if (shared) {  // both workers served: JBSQ spread the context over them
    uint64_t served[2] = {};
    for (const Thread* t : hosts[0]->threads()) served[t->id()] = t->counters().rx_msgs;
    EXPECT_GT(served[0], 0u);
    EXPECT_GT(served[1], 0u);
    EXPECT_EQ(served[0] + served[1], 4 * kPerClient);
  }
  for (auto& h : hosts) h->release_buffers();
}

INSTANTIATE_TEST_SUITE_P(Lcores, NicCoresTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "Shared" : "Dedicated";
                         });

TEST(NicCoresConfigTest, ConfigurationsSeveralNicCoresCannotRunAreRefusedWithTheReason) {
  Config c = testing::host_config(0, kServer);
  c.nic_lcores = 2;
  c.lcores = {0};
  EXPECT_NE(c.validate().message().find("as many lcores at least"), std::string::npos)
      << c.validate();
  c.lcores = {0, 1};
  EXPECT_TRUE(c.validate().ok()) << "each NIC core's lcore runs a worker too: " << c.validate();
  EXPECT_EQ(c.worker_count(), 2u);
  c.lcores = {0, 1, 2};
  c.poll = PollMode::kAdaptive;
  EXPECT_NE(c.validate().message().find("poll=busy"), std::string::npos) << c.validate();
  c.poll = PollMode::kBusy;
  c.pcap_path = "/tmp/x.pcapng";
  EXPECT_NE(c.validate().message().find("capture"), std::string::npos) << c.validate();
  c.pcap_path.clear();
  c.backend = Backend::kUring;
  EXPECT_NE(c.validate().message().find("DPDK port"), std::string::npos) << c.validate();
  c.backend = Backend::kDpdk;
  c.jbsq_n = c.fifo_messages;  // no room for the n + N - 1 bound
  EXPECT_NE(c.validate().message().find("nic_lcores - 1"), std::string::npos) << c.validate();
  c.jbsq_n = 2;
  c.lcores = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  c.nic_lcores = kMaxNicCores + 1;
  EXPECT_NE(c.validate().message().find(absl::StrCat("1..", kMaxNicCores)), std::string::npos)
      << c.validate();
  // A port with one TX queue: two NIC cores cannot both send on it.
  testing::PortPair p = testing::make_ring_pair();
  c = testing::host_config(p.a, kServer);
  c.lcores = {0, 1, 2};
  c.nic_lcores = 2;
  auto rt = Runtime::create(c);
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("TX queue"), std::string::npos) << rt.status();
}

// Frame with IPv4 source `ip` (only the fields PeerDispatch reads).
rte_mbuf* frame_from(rte_mempool* pool, uint32_t ip) {
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  if (m == nullptr) return nullptr;
  auto* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, 64));
  std::memset(f, 0, 64);
  f[12] = 0x08;
  const uint32_t be = rte_cpu_to_be_32(ip);
  std::memcpy(f + 26, &be, 4);
  return m;
}

TEST(PeerDispatchTest, ADispatcherKeepsItsPeersFramesAndHandsTheRestToTheirOwners) {
  rte_mempool* pool =
      rte_pktmbuf_pool_create("nc_disp", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  ASSERT_NE(pool, nullptr);
  auto in0 = MsgFifo::create("nc_in0", 64, 3), in1 = MsgFifo::create("nc_in1", 64, 3),
       in2 = MsgFifo::create("nc_in2", 4, 3);
  ASSERT_TRUE(in0.ok() && in1.ok() && in2.ok());
  const std::array<MsgFifo*, kMaxNicCores> inboxes = {&*in0, &*in1, &*in2};
  PeerDispatch d1(1, 3, inboxes);
  NicCounters counters;
  rte_mbuf* rx[64];
  uint16_t n = 0;
  uint32_t owned[3] = {};
  for (uint32_t ip = 0x0a000002; n < 30; ++ip, ++n) {
    rx[n] = frame_from(pool, ip);
    ASSERT_NE(rx[n], nullptr);
    ++owned[nic_core_for_peer(ip, 3)];
  }
  rx[n++] = rte_pktmbuf_alloc(pool);  // too short to name a peer: kept (the pipeline counts it)
  ASSERT_TRUE(in1->push(frame_from(pool, 0x0b000000)));  // handed to core 1 earlier
  const uint16_t kept = d1.hand_off(rx, n, 64, &counters);
  EXPECT_EQ(kept, owned[1] + 1 + 1) << "its own, the short one, and its inbox's";
  for (uint16_t i = 0; i + 1 < kept; ++i) {
    if (rte_pktmbuf_data_len(rx[i]) >= 30) {
      EXPECT_EQ(d1.owner(rx[i]), 1u);
    }
  }
  EXPECT_EQ(in0->count(), owned[0]);
  const uint32_t to2 = std::min(owned[2], 4u);
  EXPECT_EQ(in2->count(), to2);
  EXPECT_EQ(counters.rx_handed_off, owned[0] + to2);
  EXPECT_EQ(counters.rx_drop_handoff_full, owned[2] - to2) << "a full inbox drops, counted";
  rte_pktmbuf_free_bulk(rx, kept);
  in0->drain();
  in2->drain();
  rte_mempool_free(pool);
}

TEST(NicCoresConfigTest, AHostsCountersSumItsNicCoresButAPeakOrALinkEventIsCountedOnce) {
  NicCounters a, b;
  a.rx_msgs_delivered = 3;
  b.rx_msgs_delivered = 4;
  a.rx_granted_senders_peak = 5;
  b.rx_granted_senders_peak = 2;
  a.link_downs = b.link_downs = 1;  // one outage, seen by both cores
  a += b;
  EXPECT_EQ(a.rx_msgs_delivered, 7u);
  EXPECT_EQ(a.rx_granted_senders_peak, 5u);
  EXPECT_EQ(a.link_downs, 1u);
}

}  // namespace
}  // namespace nanopu
