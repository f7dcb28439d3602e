// The loop of a simulation (model/network/sim_loop.h) on two, three and five
// threads runs what it runs on one: four hosts pinging round a ring
// through two switches joined by a link (each host and switch a node of
// its own) receive the same frames at the same modelled instants, and
// every link end folds the same trace hash, however the nodes are split;
// and a frame is received when it arrives, not when its window ends.
// (Also run under ThreadSanitizer: the threads meet only between windows.)
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/contract/clock.h"
#include "lib/wire/frame.h"
#include "model/network/sim_loop.h"
#include "model/network/sim_switch.h"
#include "tests/support/switch_frames.h"

namespace nanopu::model {
namespace {

// A host that sends to the next round the ring: two frames at its start,
// then one for each it receives, until `limit`; sizes vary with the count.
struct Pinger {
  SimPort* port = nullptr;
  rte_mempool* pool = nullptr;
  uint32_t ip = 0, next_ip = 0;
  size_t sent = 0, limit = 0;
  std::vector<std::pair<uint64_t, uint32_t>> got;  // arrival instant, bytes

  bool poll() {
    bool did = false;
    rte_mbuf* m[8];
    for (uint16_t n; (n = port->rx_burst(m, 8)) != 0; did = true)
      for (uint16_t i = 0; i < n; ++i) {
        got.emplace_back(clock::instant_ticks(), m[i]->pkt_len);
        rte_pktmbuf_free(m[i]);
      }
    for (; sent < limit && sent < got.size() + 2; ++sent, did = true) {
      rte_mbuf* f = testing::switch_frame(pool, ip, next_ip, wire::kFlagData, static_cast<uint16_t>(97 * (sent % 13)));
      (void)port->tx_burst(&f, 1);
    }
    return did;
  }
};

struct RingRun {
  std::vector<std::vector<std::pair<uint64_t, uint32_t>>> got;  // per host
  std::vector<uint64_t> hashes;                                 // per link end
  uint64_t windows = 0;
  uint64_t regressions = 0;
};

RingRun ring(int threads) {
  static std::atomic<int> n{0};
  clock::VirtualClock vc(1);
  rte_mempool* pool = rte_pktmbuf_pool_create(absl::StrCat("slt", n++).c_str(), 4095, 0, 0,
                                              RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  EXPECT_NE(pool, nullptr);
  RingRun out;
  {
    // Leaf l1: hosts 1 and 2 and the uplink (port 2); leaf l2: hosts 3 and 4 and the uplink.
    SimSwitchParams sp;
    sp.link_latency_ns = 40;
    SimSwitch l1(sp, 3), l2(sp, 3);
    l2.join(2, l1, 2);
    const uint32_t ip[4] = {0x0a000001, 0x0a000002, 0x0a000003, 0x0a000004};
    l1.add_route(ip[0], 0), l1.add_route(ip[1], 1), l1.add_route(ip[2], 2), l1.add_route(ip[3], 2);
    l2.add_route(ip[2], 0), l2.add_route(ip[3], 1), l2.add_route(ip[0], 2), l2.add_route(ip[1], 2);
    std::vector<Pinger> hosts(4);
    SimLoop loop(vc, 1'000'000);
    std::vector<size_t> node(4);
    for (size_t h = 0; h < 4; ++h) {
      SimSwitch& leaf = h < 2 ? l1 : l2;
      hosts[h] = {&leaf.host_port(static_cast<uint32_t>(h % 2)), pool, ip[h], ip[(h + 1) % 4], 0, 300, {}};
      node[h] = loop.add_node(nullptr);
      loop.add_core(node[h], [&hosts, h] { return hosts[h].poll(); });
    }
    const size_t n1 = loop.add_node([&] { return l1.next_due(); });
    const size_t n2 = loop.add_node([&] { return l2.next_due(); });
    loop.add_core(n1, [&] { return l1.poll(); });
    loop.add_core(n2, [&] { return l2.poll(); });
    loop.add_link(&l1.link(0), node[0], n1);
    loop.add_link(&l1.link(1), node[1], n1);
    loop.add_link(&l1.link(2), n2, n1);
    loop.add_link(&l2.link(0), node[2], n2);
    loop.add_link(&l2.link(1), node[3], n2);
    const auto done = [&] {
      for (const Pinger& p : hosts)
        if (p.got.size() < p.limit) return false;
      return true;
    };
    EXPECT_TRUE(loop.run(done, 1'000'000'000'000, threads)) << threads << " threads";
    for (const Pinger& p : hosts) out.got.push_back(p.got);
    for (SimLink* l : {&l1.link(0), &l1.link(1), &l1.link(2), &l2.link(0), &l2.link(1)})
      out.hashes.insert(out.hashes.end(), {l->a().trace_hash(), l->b().trace_hash()});
    out.windows = loop.windows();
    out.regressions = loop.clock_regressions();
  }  // the switches free what is still on their links
  rte_mempool_free(pool);
  return out;
}

TEST(SimLoopTest, TwoThreeAndFiveThreadsRunWhatOneRuns) {
  const RingRun one = ring(1);
  ASSERT_EQ(one.got.size(), 4u);
  for (const auto& g : one.got) EXPECT_GE(g.size(), 300u);
  EXPECT_GT(one.windows, 100u);
  // Each frame arrives when it is due, not at a window's end: host 1's
  // first, host 0's first 64 bytes sent at 1 ps, crosses two hops of 40 ps
  // a byte (200 Gb/s) and 40 ns each.
  // And no node's clock ran backwards (a frame delivered after its receiver
  // had passed its arrival: a window longer than the lookahead).
  EXPECT_EQ(one.regressions, 0u);
  ASSERT_FALSE(one.got[1].empty());
  EXPECT_EQ(one.got[1][0], std::make_pair(uint64_t{1 + 2 * (64 * 40 + 40'000)}, 64u));
  for (const int threads : {2, 3, 5}) {
    const RingRun split = ring(threads);
    EXPECT_EQ(split.windows, one.windows) << threads << " threads";
    EXPECT_EQ(split.hashes, one.hashes) << threads << " threads";
    for (size_t h = 0; h < 4; ++h) EXPECT_EQ(split.got[h], one.got[h]) << "host " << h << ", " << threads << " threads";
  }
}

}  // namespace
}  // namespace nanopu::model
