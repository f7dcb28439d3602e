#include "tools/switch/software_switch.h"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include <cstdio>
#include <fstream>

#include "lib/base/tsan_handoff.h"
#include "lib/wire/frame.h"
#include "nic/link/burst_fence.h"
#include "runtime/platform/memif_unmap_guard.h"

namespace nanopu::apps {
namespace {
constexpr uint16_t kTrimmedBytes = wire::kTrimmedFrameBytes;
constexpr uint32_t kWireOverheadBytes = 24;  // preamble, FCS, inter-frame gap
}  // namespace

SoftwareSwitch::SoftwareSwitch(const SwitchParams& p, std::vector<SwitchPort> ports, rte_mempool* pool)
    : p_(p),
      ports_(std::move(ports)),
      pool_(pool),
      out_(ports_.size(),
           Output(model::OutputQueueParams{p.data_queue_bytes, p.control_queue_bytes, p.trimming, p.priorities})),
      tsc_per_bit_(static_cast<double>(rte_get_tsc_hz()) / (p.link_gbps * 1e9)),
      sample_period_tsc_(static_cast<uint64_t>(p.sample_period_us * 1e-6 *
                                               static_cast<double>(rte_get_tsc_hz()))),
      stall_tsc_(static_cast<uint64_t>(p.stall_drop_ms * 1e-3 * static_cast<double>(rte_get_tsc_hz()))) {
  routes_.reserve(1024);
  start_clock();
}

SoftwareSwitch::~SoftwareSwitch() {
  for (Output& o : out_) (void)flush(o);
}

uint64_t SoftwareSwitch::flush(Output& o) {
  const uint64_t n = o.q.clear([](rte_mbuf* m) { rte_pktmbuf_free(m); });
  o.refused_since_tsc = 0;
  return n;
}

bool SoftwareSwitch::link_down(uint32_t port) const {
  const SwitchPort& p = ports_[port];
  if (p.from_host != nullptr) return false;  // in-process rings have no link
  // memif reports its peer's connection as the link; reading it is a copy.
  rte_eth_link link{};
  return rte_eth_link_get_nowait(p.eth_port, &link) == 0 && link.link_status == RTE_ETH_LINK_DOWN;
}

void SoftwareSwitch::refused(uint32_t port, uint64_t now) {
  Output& o = out_[port];
  if (o.refused_since_tsc == 0) o.refused_since_tsc = now;
  if (link_down(port)) {
    o.port_down = true;
    counters_.dropped_port_down += flush(o);
  } else if (now - o.refused_since_tsc >= stall_tsc_) {
    counters_.dropped_stalled += flush(o);
  }
}

uint16_t SoftwareSwitch::rx(uint32_t port, rte_mbuf** pkts, uint16_t n) {
  const SwitchPort& p = ports_[port];
  // A host in this process may run on another thread: the hand-off is
  // declared to TSan (lib/base/tsan_handoff.h).
  uint16_t k = 0;
  if (p.from_host != nullptr)
    k = static_cast<uint16_t>(
        rte_ring_dequeue_burst(p.from_host, reinterpret_cast<void**>(pkts), n, nullptr));
  else  // memif: nic/link/burst_fence.h
    k = burst_fence::fenced([&] { return rte_eth_rx_burst(p.eth_port, 0, pkts, n); });
  for (uint16_t i = 0; i < k; ++i) NANOPU_TSAN_ACQUIRE(pkts[i]);
  return k;
}

bool SoftwareSwitch::tx(uint32_t port, rte_mbuf* m) {
  const SwitchPort& p = ports_[port];
  NANOPU_TSAN_RELEASE(m);
  if (p.to_host != nullptr) return rte_ring_enqueue(p.to_host, m) == 0;
  return burst_fence::fenced([&] { return rte_eth_tx_burst(p.eth_port, 0, &m, 1); }) == 1;
}

void SoftwareSwitch::start_clock() {
  t0_ = rte_rdtsc();
  next_sample_ = t0_;
  samples_.clear();
  for (Output& o : out_) o.max_data = 0;
}

rte_mbuf* SoftwareSwitch::trim(rte_mbuf* m) {
  // Never damage a buffer someone else still holds (zero-copy PMDs).
  if (RTE_MBUF_CLONED(m) || rte_mbuf_refcnt_read(m) > 1) {
    rte_mbuf* copy = rte_pktmbuf_copy(m, pool_, 0, kTrimmedBytes);
    rte_pktmbuf_free(m);
    if (copy == nullptr) return nullptr;
    m = copy;
  }
  wire::mark_trimmed(rte_pktmbuf_mtod(m, uint8_t*));
  if (m->pkt_len > kTrimmedBytes) rte_pktmbuf_trim(m, static_cast<uint16_t>(m->pkt_len - kTrimmedBytes));
  return m;
}

void SoftwareSwitch::enqueue(uint32_t port, rte_mbuf* m, bool is_data, uint8_t priority, uint64_t now) {
  using Q = model::OutputQueue<rte_mbuf*>;
  Output& o = out_[port];
  if (o.port_down) {
    if (link_down(port)) {
      ++counters_.dropped_port_down;
      rte_pktmbuf_free(m);
      return;
    }
    o.port_down = false;  // its host is back
  }
  // An idle link starts serializing now; a busy one keeps its virtual
  // schedule, so a late poll sends every packet whose time has come.
  if (o.q.empty() && o.link_free_tsc < now) o.link_free_tsc = now;
  auto drop = [](rte_mbuf* f) { rte_pktmbuf_free(f); };
  auto trim_it = [this](rte_mbuf*& f, uint32_t* bytes) {
    f = trim(f);
    if (f == nullptr) return false;
    *bytes = f->pkt_len;
    return true;
  };
  const Q::Outcome r = is_data ? o.q.offer_data(m, m->pkt_len, priority, trim_it, drop)
                               : o.q.offer_control(m, m->pkt_len, drop);
  counters_.trimmed += Q::trimmed(r);
  counters_.tail_dropped += r == Q::Outcome::kTailDropped;
  counters_.control_dropped += Q::control_dropped(r);
  o.max_data = std::max(o.max_data, o.q.data_bytes());
}

void SoftwareSwitch::sample(uint64_t now) {
  if (sample_period_tsc_ == 0 || now < next_sample_) return;
  next_sample_ = now + sample_period_tsc_;
  const double t_us = static_cast<double>(now - t0_) * 1e6 / static_cast<double>(rte_get_tsc_hz());
  for (uint32_t i = 0; i < out_.size(); ++i)
    if (out_[i].q.data_bytes() != 0 || out_[i].q.control_bytes() != 0 || samples_.empty() ||
        samples_.back().data_bytes != 0)
      samples_.push_back({t_us, i, out_[i].q.data_bytes(), out_[i].q.control_bytes()});
}

bool SoftwareSwitch::empty() const {
  for (const Output& o : out_)
    if (!o.q.empty()) return false;
  return true;
}

unsigned SoftwareSwitch::poll() {
  unsigned moved = 0;
  const uint64_t now = rte_rdtsc();
  for (uint32_t in = 0; in < ports_.size(); ++in) {
    rte_mbuf* pkts[32];
    const uint16_t n = rx(in, pkts, 32);
    for (uint16_t i = 0; i < n; ++i) {
      rte_mbuf* m = pkts[i];
      ++counters_.rx;
      wire::FrameGlance g;
      if (!wire::glance_frame(rte_pktmbuf_mtod(m, const uint8_t*), rte_pktmbuf_data_len(m), &g)) {
        ++counters_.not_ipv4;
        rte_pktmbuf_free(m);
        continue;
      }
      routes_.try_emplace(g.src_ip, in);  // learn where the source lives
      auto r = routes_.find(g.dst_ip);
      if (r == routes_.end() || r->second == in) {
        ++counters_.no_route;
        rte_pktmbuf_free(m);
        continue;
      }
      enqueue(r->second, m, g.is_whole_data(), g.tos, now);
    }
    moved += n;
  }
  for (uint32_t o = 0; o < out_.size(); ++o) moved += serialize(o, now);
  sample(now);
  return moved;
}

unsigned SoftwareSwitch::serialize(uint32_t port, uint64_t now) {
  unsigned sent = 0;
  Output& o = out_[port];
  // Control first, then the highest data queue (OutputQueue::next).
  for (auto head = o.q.next(); head.entry != nullptr && o.link_free_tsc <= now; head = o.q.next()) {
    const uint32_t bytes = head.bytes;  // before TX: a copying PMD frees the frame inside it
    if (!tx(port, *head.entry)) {  // host queue full or link down: retry later, or drop
      refused(port, now);
      break;
    }
    o.refused_since_tsc = 0;
    (void)o.q.pop(head);
    if (head.level != Output::Queue::kControl) ++counters_.data_by_priority[head.level];
    o.link_free_tsc += static_cast<uint64_t>((bytes + kWireOverheadBytes) * 8 * tsc_per_bit_);
    ++counters_.forwarded;
    ++sent;
  }
  return sent;
}

bool SoftwareSwitch::write_csv(const std::string& path) const {
  std::ofstream f(path);
  f << "t_us,port,data_queue_bytes,control_queue_bytes\n";
  for (const OccupancySample& s : samples_)
    f << s.t_us << "," << s.port << "," << s.data_bytes << "," << s.control_bytes << "\n";
  return static_cast<bool>(f);
}

}  // namespace nanopu::apps

namespace nanopu::apps {

bool start_switch_port(uint16_t port, rte_mempool* pool) {
  guard_unmaps_of(port);  // memif: runtime/platform/memif_unmap_guard.h
  rte_eth_conf conf{};
  uint16_t rxd = 2048, txd = 2048;
  return rte_eth_dev_configure(port, 1, 1, &conf) == 0 &&
         rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd) == 0 &&
         rte_eth_rx_queue_setup(port, 0, rxd, SOCKET_ID_ANY, nullptr, pool) == 0 &&
         rte_eth_tx_queue_setup(port, 0, txd, SOCKET_ID_ANY, nullptr) == 0 &&
         rte_eth_dev_start(port) == 0;
}

}  // namespace nanopu::apps
