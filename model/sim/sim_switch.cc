#include "model/sim/sim_switch.h"

#include <algorithm>
#include <cmath>

#include "lib/contract/clock.h"
#include "lib/wire/frame.h"

namespace nanopu::model {

SimSwitch::SimSwitch(const SimSwitchParams& p, uint32_t ports)
    : p_(p),
      latency_ticks_(static_cast<uint64_t>(std::llround(p.latency_ns * 1e-9 * static_cast<double>(clock::hz())))),
      out_(ports) {
  for (uint32_t i = 0; i < ports; ++i)
    links_.push_back(std::make_unique<SimLink>(SimLinkParams{p.gbps, p.link_latency_ns}));
}

SimSwitch::~SimSwitch() { discard_in_flight(); }

void SimSwitch::discard_in_flight() {
  for (Output& o : out_) {
    for (const Queued& f : o.control) rte_pktmbuf_free(f.frame);
    o.control.clear();
    for (auto& q : o.data) {
      for (const Queued& f : q) rte_pktmbuf_free(f.frame);
      q.clear();
    }
    o.control_bytes = o.data_bytes = 0;
  }
  for (auto& l : links_) l->discard_in_flight();
}

void SimSwitch::enqueue(uint32_t port, rte_mbuf* m, bool whole_data, uint8_t tos, uint64_t eligible_at) {
  Output& o = out_[port];
  if (whole_data && o.data_bytes + m->pkt_len <= p_.data_queue_bytes) {
    o.data[p_.priorities ? tos % kLevels : 0].push_back({eligible_at, m});
    o.data_bytes += m->pkt_len;
    return;
  }
  if (whole_data) {
    if (!p_.trimming) {
      ++counters_.tail_dropped;
      rte_pktmbuf_free(m);
      return;
    }
    // Trim to the header, never damaging a buffer a sender still holds for
    // retransmission (the frame may be its clone).
    if (RTE_MBUF_CLONED(m) || rte_mbuf_refcnt_read(m) > 1) {
      rte_mbuf* copy = rte_pktmbuf_copy(m, m->pool, 0, wire::kTrimmedFrameBytes);
      rte_pktmbuf_free(m);
      if (copy == nullptr) {
        ++counters_.control_dropped;
        return;
      }
      m = copy;
    }
    wire::mark_trimmed(rte_pktmbuf_mtod(m, uint8_t*));
    if (m->pkt_len > wire::kTrimmedFrameBytes)
      rte_pktmbuf_trim(m, static_cast<uint16_t>(m->pkt_len - wire::kTrimmedFrameBytes));
    ++counters_.trimmed;
  }
  if (o.control_bytes + m->pkt_len > p_.control_queue_bytes) {
    ++counters_.control_dropped;
    rte_pktmbuf_free(m);
    return;
  }
  o.control.push_back({eligible_at, m});
  o.control_bytes += m->pkt_len;
}

int SimSwitch::eligible_level(const Output& o, uint64_t now) {
  for (int level = kLevels - 1; level >= 0; --level)
    if (!o.data[level].empty() && o.data[level].front().eligible_at <= now) return level;
  return -1;
}

// Hands output `port`'s next eligible frame (control first, then the
// highest data queue) to its link if the link is free; true if it did.
bool SimSwitch::serve(uint32_t port, uint64_t now) {
  Output& o = out_[port];
  SimPort& wire = links_[port]->b();
  if (wire.wire_free_at() > now) return false;
  const bool ctrl = !o.control.empty() && o.control.front().eligible_at <= now;
  const int level = ctrl ? -1 : eligible_level(o, now);
  if (!ctrl && level < 0) return false;
  std::deque<Queued>& q = ctrl ? o.control : o.data[level];
  rte_mbuf* m = q.front().frame;
  q.pop_front();
  (ctrl ? o.control_bytes : o.data_bytes) -= m->pkt_len;
  (void)wire.tx_burst(&m, 1);  // a SimPort takes every frame
  ++counters_.forwarded;
  return true;
}

bool SimSwitch::poll() {
  const uint64_t now = clock::ticks();
  bool moved = false;
  for (uint32_t in = 0; in < links_.size(); ++in) {
    rte_mbuf* pkts[32];
    for (uint16_t n; (n = links_[in]->b().rx_burst(pkts, 32)) != 0;) {
      moved = true;
      for (uint16_t i = 0; i < n; ++i) {
        wire::FrameGlance g;
        const bool ip = wire::glance_frame(rte_pktmbuf_mtod(pkts[i], const uint8_t*),
                                           rte_pktmbuf_data_len(pkts[i]), &g);
        auto r = ip ? routes_.find(g.dst_ip) : routes_.end();
        if (r == routes_.end() || r->second == in) {
          ++counters_.no_route;
          rte_pktmbuf_free(pkts[i]);
          continue;
        }
        enqueue(r->second, pkts[i], g.is_whole_data(), g.tos, now + latency_ticks_);
      }
    }
  }
  for (uint32_t o = 0; o < out_.size(); ++o) moved |= serve(o, now);
  return moved;
}

uint64_t SimSwitch::next_event() const {
  uint64_t next = std::numeric_limits<uint64_t>::max();
  for (uint32_t o = 0; o < out_.size(); ++o) {
    const Output& q = out_[o];
    uint64_t head = std::numeric_limits<uint64_t>::max();
    if (!q.control.empty()) head = q.control.front().eligible_at;
    for (const auto& d : q.data)
      if (!d.empty()) head = std::min(head, d.front().eligible_at);
    if (head == std::numeric_limits<uint64_t>::max()) continue;
    next = std::min(next, std::max(head, links_[o]->b().wire_free_at()));
  }
  return next;
}

}  // namespace nanopu::model
