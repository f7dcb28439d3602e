// libFuzzer target for nanopu-switch's frame handling (tools/switch): an input
// is a sequence of frames, each with an input port, a length and bytes (any
// shape: short, not IPv4, NDP or not, DATA/CHOP/control, any address), fed
// to a 3-port switch through its ring ports, with tiny queues so trimming
// and tail drop happen. Invariants: no crash, no read outside a frame; every
// frame is forwarded, trimmed, dropped or counted as unroutable; nothing
// leaks (the pool is full again once the outputs are drained).
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tools/switch/software_switch.h"
#include "fuzz/fuzz_eal.h"

namespace {

constexpr int kPorts = 3;
rte_mempool* g_pool = nullptr;
std::vector<nanopu::apps::SwitchPort> g_ports;

unsigned drain(rte_ring* r) {
  unsigned n = 0;
  void* m = nullptr;
  while (rte_ring_dequeue(r, &m) == 0) {
    rte_pktmbuf_free(static_cast<rte_mbuf*>(m));
    ++n;
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  nanopu::fuzz::init_eal();
  g_pool = rte_pktmbuf_pool_create("switch_fuzz", 4095, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (g_pool == nullptr) std::abort();
  for (int p = 0; p < kPorts; ++p) {
    nanopu::apps::SwitchPort sp;
    const std::string a = "swfz_in" + std::to_string(p), b = "swfz_out" + std::to_string(p);
    sp.from_host = rte_ring_create(a.c_str(), 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    sp.to_host = rte_ring_create(b.c_str(), 1024, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (sp.from_host == nullptr || sp.to_host == nullptr) std::abort();
    g_ports.push_back(sp);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanopu::apps;
  SwitchParams p;
  p.data_queue_bytes = 3000;  // two or three data packets: trimming happens
  p.control_queue_bytes = 4096;
  p.trimming = size % 2 == 0;
  p.link_gbps = 1000;
  p.sample_period_us = 0;
  const unsigned in_use_before = rte_mempool_in_use_count(g_pool);
  uint64_t injected = 0;
  {
    SoftwareSwitch sw(p, g_ports, g_pool);
    sw.add_route(0x0a000001, 0);
    sw.add_route(0x0a000002, 1);
    // Frames: [port % kPorts][length lo][length hi][bytes...]
    size_t at = 0;
    while (at + 3 <= size && injected < 512) {
      const int port = data[at] % kPorts;
      const size_t len = std::min<size_t>(data[at + 1] | (data[at + 2] & 0x07) << 8, size - at - 3);
      at += 3;
      rte_mbuf* m = rte_pktmbuf_alloc(g_pool);
      if (m == nullptr) break;
      void* dst = len == 0 ? nullptr : rte_pktmbuf_append(m, static_cast<uint16_t>(len));
      if (len != 0 && dst == nullptr) {
        rte_pktmbuf_free(m);
        break;
      }
      if (len != 0) std::memcpy(dst, data + at, len);
      at += len;
      if (rte_ring_enqueue(g_ports[port].from_host, m) != 0) {
        rte_pktmbuf_free(m);
        break;
      }
      ++injected;
      if (injected % 8 == 0) (void)sw.poll();
    }
    // Let every queue drain onto the output rings (and empty those).
    for (int i = 0; i < 100000 && !sw.empty(); ++i) {
      (void)sw.poll();
      for (const SwitchPort& sp : g_ports) (void)drain(sp.to_host);
    }
    (void)sw.poll();
    const SwitchCounters& c = sw.counters();
    if (c.rx != injected) std::abort();  // every frame taken in
    if (c.forwarded + c.tail_dropped + c.control_dropped + c.no_route + c.not_ipv4 > c.rx + c.trimmed)
      std::abort();  // nothing counted twice
  }
  for (const SwitchPort& sp : g_ports) (void)drain(sp.to_host), (void)drain(sp.from_host);
  if (rte_mempool_in_use_count(g_pool) != in_use_before) std::abort();  // no leak
  return 0;
}
