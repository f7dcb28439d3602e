// The software switch on rte_rings (real mbufs and EAL): NDP trimming vs tail
// drop, control before data, serialization at the link rate.
#include "tools/switch/software_switch.h"

#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <atomic>
#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/wire/frame.h"
#include "tests/support/switch_frames.h"

namespace nanopu::apps {
namespace {

constexpr uint32_t kSender = 0x0a000001, kReceiver = 0x0a000002;

struct Fixture {
  rte_mempool* pool;
  std::vector<SwitchPort> ports;
};

Fixture make() {
  static std::atomic<int> n{0};
  const int k = n++;
  Fixture f;
  f.pool = rte_pktmbuf_pool_create(absl::StrCat("swt", k).c_str(), 2047, 0, 0,
                                   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  for (int p = 0; p < 2; ++p) {
    SwitchPort sp;
    sp.from_host = rte_ring_create(absl::StrCat("swf", k, p).c_str(), 1024, SOCKET_ID_ANY, 0);
    sp.to_host = rte_ring_create(absl::StrCat("swt", k, p).c_str(), 1024, SOCKET_ID_ANY, 0);
    f.ports.push_back(sp);
  }
  return f;
}

rte_mbuf* frame(rte_mempool* pool, uint8_t flags, uint8_t pkt_offset, uint16_t payload, uint8_t tos = 0) {
  return testing::switch_frame(pool, kSender, kReceiver, flags, payload, pkt_offset, tos);
}

std::vector<rte_mbuf*> drain(rte_ring* r) {
  std::vector<rte_mbuf*> out;
  void* m = nullptr;
  while (rte_ring_dequeue(r, &m) == 0) out.push_back(static_cast<rte_mbuf*>(m));
  return out;
}

// Polls the switch, collecting what reaches `to`, until done() (10 s at most).
void run_until(SoftwareSwitch& sw, rte_ring* to, std::vector<rte_mbuf*>* got,
               const std::function<bool()>& done) {
  const uint64_t end = rte_rdtsc() + 10 * rte_get_tsc_hz();
  while (!done() && rte_rdtsc() < end) {
    sw.poll();
    for (rte_mbuf* m : drain(to)) got->push_back(m);
  }
}

// ... until `count` frames have reached `to`.
void run_until(SoftwareSwitch& sw, rte_ring* to, unsigned count, std::vector<rte_mbuf*>* got) {
  run_until(sw, to, got, [&] { return got->size() >= count; });
}

TEST(SoftwareSwitchTest, FullQueueTrimsToHeadersThatOvertakeData) {
  Fixture f = make();
  SwitchParams p;
  p.link_gbps = 1;
  p.data_queue_bytes = 4 * 1088;  // four full packets
  SoftwareSwitch sw(p, f.ports, f.pool);
  sw.add_route(kSender, 0);
  sw.add_route(kReceiver, 1);
  for (uint8_t i = 0; i < 20; ++i)
    ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, i, 1024)), 0);
  std::vector<rte_mbuf*> got;
  run_until(sw, f.ports[1].to_host, 20, &got);
  ASSERT_EQ(got.size(), 20u);
  EXPECT_GE(sw.counters().trimmed, 15u);
  EXPECT_EQ(sw.counters().tail_dropped, 0u);
  size_t chopped = 0, first_full_after_chop = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    wire::FrameHeader h;
    size_t payload = 0;
    ASSERT_EQ(wire::decode_frame_header(rte_pktmbuf_mtod(got[i], const uint8_t*), got[i]->pkt_len, &h,
                                        &payload), wire::ParseError::kOk);
    if (h.ndp.flags & wire::kFlagChop) {
      ++chopped;
      EXPECT_EQ(got[i]->pkt_len, 72u);  // docs/wire.md: the first 72 bytes kept
    } else if (chopped > 0 && first_full_after_chop == 0) {
      first_full_after_chop = i;
    }
    rte_pktmbuf_free(got[i]);
  }
  EXPECT_EQ(chopped, sw.counters().trimmed);
  // Trimmed headers go in the high-priority queue: they leave before the
  // queued full packets (only the packet already on the link precedes them).
  EXPECT_GE(first_full_after_chop, chopped);
}

// Priority mode (Homa, docs/wire.md): with the link busy, data queued at a
// higher TOS leaves before data queued earlier at a lower one; in FIFO mode
// arrival order is kept.
TEST(SoftwareSwitchTest, StrictPrioritiesByTosOvertakeLowerQueuedData) {
  for (bool priorities : {false, true}) {
    Fixture f = make();
    SwitchParams p;
    p.link_gbps = 1;
    p.priorities = priorities;
    SoftwareSwitch sw(p, f.ports, f.pool);
    sw.add_route(kReceiver, 1);
    // Eight at priority 0, then eight at 6, then two at 3, all at once.
    for (uint8_t i = 0; i < 18; ++i) {
      const uint8_t tos = i < 8 ? 0 : (i < 16 ? 6 : 3);
      ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, i, 1024, tos)), 0);
    }
    std::vector<rte_mbuf*> got;
    run_until(sw, f.ports[1].to_host, 18, &got);
    ASSERT_EQ(got.size(), 18u);
    std::vector<uint8_t> order;
    for (rte_mbuf* m : got) {
      order.push_back(rte_pktmbuf_mtod(m, const uint8_t*)[41]);  // pkt_offset
      rte_pktmbuf_free(m);
    }
    if (!priorities) {
      for (uint8_t i = 0; i < 18; ++i) EXPECT_EQ(order[i], i);
      continue;
    }
    // All queued in one poll: priority 6 first, then 3, then 0, each in order.
    const std::vector<uint8_t> want = {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 0, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_EQ(order, want);
    EXPECT_EQ(sw.counters().data_by_priority[6], 8u);
    EXPECT_EQ(sw.counters().data_by_priority[3], 2u);
    EXPECT_EQ(sw.counters().data_by_priority[0], 8u);
  }
}

TEST(SoftwareSwitchTest, TailDropModeDropsWhatDoesNotFit) {
  Fixture f = make();
  SwitchParams p;
  p.link_gbps = 1;
  p.data_queue_bytes = 4 * 1088;
  p.trimming = false;
  SoftwareSwitch sw(p, f.ports, f.pool);
  sw.add_route(kReceiver, 1);
  for (uint8_t i = 0; i < 20; ++i)
    ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, i, 1024)), 0);
  std::vector<rte_mbuf*> got;
  // Until each frame is forwarded or dropped.
  run_until(sw, f.ports[1].to_host, &got,
            [&] { return got.size() + sw.counters().tail_dropped >= 20; });
  EXPECT_EQ(sw.counters().trimmed, 0u);
  EXPECT_GE(sw.counters().tail_dropped, 15u);
  EXPECT_EQ(got.size() + sw.counters().tail_dropped, 20u);
  for (rte_mbuf* m : got) rte_pktmbuf_free(m);
}

TEST(SoftwareSwitchTest, SerializesAtTheLinkRate) {
  Fixture f = make();
  SwitchParams p;
  p.link_gbps = 1;  // 1088 B + 24 B overhead = 8.9 us per packet
  SoftwareSwitch sw(p, f.ports, f.pool);
  sw.add_route(kReceiver, 1);
  for (uint8_t i = 0; i < 10; ++i)
    ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, i, 1024)), 0);
  const uint64_t start = rte_rdtsc();
  std::vector<rte_mbuf*> got;
  run_until(sw, f.ports[1].to_host, 10, &got);
  const double us = static_cast<double>(rte_rdtsc() - start) * 1e6 / static_cast<double>(rte_get_tsc_hz());
  ASSERT_EQ(got.size(), 10u);
  EXPECT_GE(us, 9 * 8.8);  // the 10th leaves 9 serialization times after the first
  for (rte_mbuf* m : got) rte_pktmbuf_free(m);
}

TEST(SoftwareSwitchTest, UnroutableAndNonIpFramesAreCounted) {
  Fixture f = make();
  SoftwareSwitch sw(SwitchParams{}, f.ports, f.pool);
  rte_mbuf* m = frame(f.pool, wire::kFlagData, 0, 16);  // receiver unknown: no route
  ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, m), 0);
  rte_mbuf* arp = frame(f.pool, wire::kFlagData, 0, 16);
  rte_pktmbuf_mtod(arp, uint8_t*)[13] = 0x06;
  ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, arp), 0);
  sw.poll();
  EXPECT_EQ(sw.counters().no_route, 1u);
  EXPECT_EQ(sw.counters().not_ipv4, 1u);
}

// Polls for `ms` of wall time.
void poll_for(SoftwareSwitch& sw, double ms) {
  const uint64_t end = rte_rdtsc() + static_cast<uint64_t>(ms * 1e-3 * static_cast<double>(rte_get_tsc_hz()));
  while (rte_rdtsc() < end) sw.poll();
}

// A host that stops draining its ring (stuck, or gone without a link to say
// so): what the switch queued for it is dropped after stall_drop_ms, so the
// switch goes idle instead of retrying forever, and the port works again
// once the host drains.
TEST(SoftwareSwitchTest, AQueueThatCannotSendForStallDropMsIsDropped) {
  Fixture f = make();
  rte_ring_free(f.ports[1].to_host);
  f.ports[1].to_host = rte_ring_create("swt_stall", 4, SOCKET_ID_ANY, 0);  // holds 3
  SwitchParams p;
  p.stall_drop_ms = 1000;  // far beyond the few polls below, even beside a CPU hog
  SoftwareSwitch sw(p, f.ports, f.pool);
  sw.add_route(kReceiver, 1);
  for (uint8_t i = 0; i < 10; ++i)
    ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, i, 64)), 0);
  for (int i = 0; i < 3; ++i) sw.poll();
  EXPECT_FALSE(sw.empty()) << "refused for less than stall_drop_ms: still held";
  EXPECT_EQ(sw.counters().dropped_stalled, 0u);
  poll_for(sw, 1050);
  EXPECT_TRUE(sw.empty());
  EXPECT_EQ(sw.counters().dropped_stalled, 7u);
  EXPECT_EQ(sw.counters().forwarded, 3u);
  for (rte_mbuf* m : drain(f.ports[1].to_host)) rte_pktmbuf_free(m);
  ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, 0, 64)), 0);
  std::vector<rte_mbuf*> got;
  run_until(sw, f.ports[1].to_host, 1, &got);
  EXPECT_EQ(got.size(), 1u) << "the port forwards again once its host drains";
  for (rte_mbuf* m : got) rte_pktmbuf_free(m);
}

// A port whose link goes down while packets wait for it (a memif host that
// went away): its queue is dropped at once, what arrives for it meanwhile is
// dropped on arrival (nothing held, the switch may sleep), and when the link
// is up again it forwards. The port is a net_ring ethdev, whose link can be
// set down, with a 3-packet ring standing in for the host that stopped.
TEST(SoftwareSwitchTest, ALinkDownDropsItsQueueAndArrivalsUntilItIsUp) {
  Fixture f = make();
  rte_ring* to_host = rte_ring_create("swt_down_tx", 4, SOCKET_ID_ANY, 0);
  rte_ring* from_host = rte_ring_create("swt_down_rx", 64, SOCKET_ID_ANY, 0);
  const int eth = rte_eth_from_rings("swt_down", &from_host, 1, &to_host, 1, SOCKET_ID_ANY);
  ASSERT_GE(eth, 0);
  ASSERT_TRUE(start_switch_port(static_cast<uint16_t>(eth), f.pool));
  f.ports[1] = SwitchPort{static_cast<uint16_t>(eth), nullptr, nullptr};
  SwitchParams p;
  p.stall_drop_ms = 60000;  // only the link may drop here
  SoftwareSwitch sw(p, f.ports, f.pool);
  sw.add_route(kReceiver, 1);
  for (uint8_t i = 0; i < 10; ++i)
    ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, i, 64)), 0);
  for (int i = 0; i < 3; ++i) sw.poll();
  EXPECT_FALSE(sw.empty()) << "a full ring with the link up: held";
  ASSERT_EQ(rte_eth_dev_set_link_down(static_cast<uint16_t>(eth)), 0);
  sw.poll();
  EXPECT_TRUE(sw.empty());
  EXPECT_EQ(sw.counters().dropped_port_down, 7u);
  ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, 0, 64)), 0);
  sw.poll();
  EXPECT_TRUE(sw.empty()) << "an arrival for a down port is not held";
  EXPECT_EQ(sw.counters().dropped_port_down, 8u);
  for (rte_mbuf* m : drain(to_host)) rte_pktmbuf_free(m);
  ASSERT_EQ(rte_eth_dev_set_link_up(static_cast<uint16_t>(eth)), 0);
  ASSERT_EQ(rte_ring_enqueue(f.ports[0].from_host, frame(f.pool, wire::kFlagData, 1, 64)), 0);
  std::vector<rte_mbuf*> got;
  run_until(sw, to_host, 1, &got);
  EXPECT_EQ(got.size(), 1u) << "forwarded again once the link is up";
  EXPECT_EQ(sw.counters().dropped_port_down, 8u);
  for (rte_mbuf* m : got) rte_pktmbuf_free(m);
  EXPECT_EQ(rte_eth_dev_stop(static_cast<uint16_t>(eth)), 0);
  EXPECT_EQ(rte_eth_dev_close(static_cast<uint16_t>(eth)), 0);
}

}  // namespace
}  // namespace nanopu::apps
