// The switch of a simulation (model/network/sim_switch.h) on modelled links and
// the modelled clock, with real mbufs: a frame crosses in exactly its
// serialization times, the link latencies and the switch's latency; an
// incast beyond the data queue is trimmed to headers that overtake the
// queued data; and with trimming off the excess is dropped.
#include "model/network/sim_switch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/contract/clock.h"
#include "lib/wire/frame.h"
#include "model/network/sim_loop.h"
#include "tests/support/switch_frames.h"

namespace nanopu::model {
namespace {

constexpr uint32_t kA = 0x0a000001, kB = 0x0a000002, kC = 0x0a000003;

rte_mempool* pool() {
  static std::atomic<int> n{0};
  return rte_pktmbuf_pool_create(absl::StrCat("sst", n++).c_str(), 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                 SOCKET_ID_ANY);
}

using testing::switch_frame;

// Runs the switch alone until nothing is on its way; returns what port
// `to`'s host received, with arrival times.
struct Got {
  uint64_t at_ps;
  rte_mbuf* m;
};
std::vector<Got> run(clock::VirtualClock& vc, SimSwitch& sw, uint32_t to) {
  std::vector<Got> got;
  SimLoop loop(vc, 1'000'000);
  // The switch and its hosts' ends, as one node.
  const size_t node = loop.add_node(nullptr);
  loop.add_core(node, [&] {
    bool any = sw.poll();
    rte_mbuf* m[32];
    for (uint16_t n; (n = sw.host_port(to).rx_burst(m, 32)) != 0; any = true)
      for (uint16_t i = 0; i < n; ++i) got.push_back({clock::instant_ticks(), m[i]});
    return any;
  });
  loop.add_wakeup(node, [&] { return sw.next_event(); });
  for (uint32_t i = 0; i < sw.ports(); ++i) loop.add_link(&sw.link(i), node, node);
  const auto quiet = [&] {
    for (uint32_t i = 0; i < sw.ports(); ++i)
      if (sw.link(i).next_arrival() != UINT64_MAX) return false;
    return sw.next_event() == UINT64_MAX;
  };
  EXPECT_TRUE(loop.run([&] { return vc.now_ps() > 1 && quiet(); }, 1'000'000'000'000));
  return got;
}

// A core that does something at every instant however many rounds it is
// polled (a thread looping without waiting for a time ahead) moves the
// clock 1 ps at a time; the loop gives up after kMaxCrawlInstants such
// instants and says when, rather than crawl for ever.
TEST(SimLoopTest, AClockThatOnlyCrawlsIsStoppedAndSaysWhen) {
  clock::VirtualClock vc(1);
  SimLoop loop(vc, 1'000'000);
  uint64_t polls = 0;
  loop.add_core(loop.add_node(nullptr), [&] { return ++polls > 0; });  // always did something, charged nothing
  EXPECT_FALSE(loop.run([] { return false; }, 1'000'000'000'000));
  EXPECT_TRUE(loop.crawled());
  EXPECT_EQ(loop.crawled_at_ps(), SimLoop::kMaxCrawlInstants) << "1 ps an instant";
  EXPECT_EQ(polls, SimLoop::kMaxCrawlInstants * SimLoop::kMaxRoundsPerInstant);
  SimLoop idle(vc, 1'000'000);  // one that does something only now and then is not crawling
  uint64_t n = 0;
  idle.add_core(idle.add_node(nullptr), [&] { return ++n % 2 == 0; });
  EXPECT_TRUE(idle.run([&] { return n > 3 * SimLoop::kMaxCrawlInstants; }, UINT64_MAX));
  EXPECT_FALSE(idle.crawled());
}

TEST(SimSwitchTest, AFrameCrossesInItsSerializationsLatenciesAndTheSwitchLatency) {
  clock::VirtualClock vc(1);
  rte_mempool* p = pool();
  SimSwitchParams sp;
  sp.gbps = 100;  // 80 ps a byte
  sp.link_latency_ns = 40;
  sp.latency_ns = 300;
  SimSwitch sw(sp, 2);
  sw.add_route(kA, 0);
  sw.add_route(kB, 1);
  rte_mbuf* m = switch_frame(p, kA, kB, wire::kFlagData, 936);  // 1000 bytes: 80 ns a hop
  ASSERT_EQ(sw.host_port(0).tx_burst(&m, 1), 1);
  const std::vector<Got> got = run(vc, sw, 1);
  ASSERT_EQ(got.size(), 1u);
  // Sent at 1 ps: 80 ns on the wire, 40 ns of link, 300 ns in the switch, 80 + 40 ns to B.
  EXPECT_EQ(got[0].at_ps, 1 + (80 + 40 + 300 + 80 + 40) * 1000u);
  EXPECT_EQ(sw.counters().forwarded, 1u);
  rte_pktmbuf_free(got[0].m);
  rte_mempool_free(p);
}

// Two senders at full rate into one output with room for four packets: the
// rest is trimmed, and the headers go first.
TEST(SimSwitchTest, AnIncastBeyondTheQueueIsTrimmedToHeadersThatOvertakeTheData) {
  for (const bool trimming : {true, false}) {
    clock::VirtualClock vc(1);
    rte_mempool* p = pool();
    SimSwitchParams sp;
    sp.data_queue_bytes = 4 * 1088;
    sp.trimming = trimming;
    SimSwitch sw(sp, 3);
    sw.add_route(kA, 0);
    sw.add_route(kC, 1);
    sw.add_route(kB, 2);
    for (uint8_t i = 0; i < 10; ++i)
      for (uint32_t from : {0u, 1u}) {
        rte_mbuf* m = switch_frame(p, from == 0 ? kA : kC, kB, wire::kFlagData, 1024, i);
        ASSERT_EQ(sw.host_port(from).tx_burst(&m, 1), 1);
      }
    const std::vector<Got> got = run(vc, sw, 2);
    size_t whole = 0, trimmed = 0, first_trimmed = got.size(), last_whole = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const bool t = got[i].m->pkt_len == wire::kTrimmedFrameBytes;
      (t ? trimmed : whole)++;
      if (t) first_trimmed = std::min(first_trimmed, i);
      else last_whole = i;
      rte_pktmbuf_free(got[i].m);
    }
    if (trimming) {
      EXPECT_EQ(whole + trimmed, 20u);
      EXPECT_EQ(trimmed, sw.counters().trimmed);
      // Two links into one for ten packet times: the output sends ten and
      // queues four, so about six find no room.
      EXPECT_GE(trimmed, 5u);
      EXPECT_LE(trimmed, 8u);
      EXPECT_LT(first_trimmed, last_whole) << "trimmed headers overtake queued data";
    } else {
      EXPECT_EQ(trimmed, 0u);
      EXPECT_EQ(whole + sw.counters().tail_dropped, 20u);
      EXPECT_GE(sw.counters().tail_dropped, 5u);
    }
    sw.discard_in_flight();
    rte_mempool_free(p);
  }
}

// With priorities, data of a higher TOS queued behind lower data leaves
// first (Homa's priorities); without, in arrival order.
TEST(SimSwitchTest, WithPrioritiesHigherDataOvertakesQueuedLowerData) {
  for (const bool priorities : {true, false}) {
    clock::VirtualClock vc(1);
    rte_mempool* p = pool();
    SimSwitchParams sp;
    sp.priorities = priorities;
    SimSwitch sw(sp, 3);
    sw.add_route(kA, 0);
    sw.add_route(kC, 1);
    sw.add_route(kB, 2);
    // Two senders into one output: it queues. One frame has TOS 7.
    for (uint8_t i = 0; i < 6; ++i) {
      rte_mbuf* low = switch_frame(p, kA, kB, wire::kFlagData, 1024, i, 0);
      ASSERT_EQ(sw.host_port(0).tx_burst(&low, 1), 1);
      rte_mbuf* mid = switch_frame(p, kC, kB, wire::kFlagData, 1024, static_cast<uint8_t>(100 + i), i < 5 ? 0 : 7);
      ASSERT_EQ(sw.host_port(1).tx_burst(&mid, 1), 1);
    }
    const std::vector<Got> got = run(vc, sw, 2);
    ASSERT_EQ(got.size(), 12u);
    size_t high_at = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      wire::FrameGlance g;
      ASSERT_TRUE(wire::glance_frame(rte_pktmbuf_mtod(got[i].m, const uint8_t*), rte_pktmbuf_data_len(got[i].m), &g));
      if (g.tos == 7) high_at = i;
      rte_pktmbuf_free(got[i].m);
    }
    // The TOS-7 frame arrives last, with five or six frames still queued
    // (two links in, one out): with priorities it leaves next, ahead of
    // them; without, last.
    if (priorities) EXPECT_LE(high_at, 6u);
    else EXPECT_EQ(high_at, 11u);
    rte_mempool_free(p);
  }
}

TEST(SimSwitchTest, AFrameForNoRouteIsCountedAndFreed) {
  clock::VirtualClock vc(1);
  rte_mempool* p = pool();
  SimSwitch sw(SimSwitchParams{}, 2);
  sw.add_route(kA, 0);
  rte_mbuf* m = switch_frame(p, kA, kB, wire::kFlagData, 8);
  ASSERT_EQ(sw.host_port(0).tx_burst(&m, 1), 1);
  EXPECT_TRUE(run(vc, sw, 1).empty());
  EXPECT_EQ(sw.counters().no_route, 1u);
  EXPECT_EQ(rte_mempool_in_use_count(p), 0u);
  rte_mempool_free(p);
}

}  // namespace
}  // namespace nanopu::model
